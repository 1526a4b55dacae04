//! Sweeps (`run --exhaustive`): every pair of 16-bit values of a binary element-wise
//! operation (2^32 cases), or the dense TestFloat-style grid of f32 and f64 pairs, checked
//! in fixed chunks of [`CHUNK`] cases against the same expectations as the sampled checks.
//!
//! Each chunk is one adapter call and a parallel comparison; a finished chunk is appended to
//! the check's state file (`<out>/sweeps/<id>.jsonl`), so a killed sweep resumes after its last
//! finished chunk when the same command runs again. A progress line shows the rate and the time
//! left. Failures are counted per governing table row; the first few are listed in full.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use opspec_adapter::{Adapter, BinaryOp, DType, OpKind, Tensor};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::call::apply_guarded;
use super::check::{Check, CheckId, RunOptions, SweepTarget, Target};
use super::record::{Failure, Recorder, Repro};
use super::result::CheckResult;
use crate::expect::Context;
use crate::format::Format;
use crate::generate::sweep::Sweep;
use crate::oracle::fpenv;
use crate::oracle::native::{self, Reference};
use crate::spec::matching::{governing_rows, in_class, related};
use crate::spec::schema::{Accuracy, Class, Outcome, Relation, SpecTable};
use crate::spec::suite::NanPolicy;
use crate::spec::{Catalog, LoadedSuite, LoadedTable};
use crate::value::Domain;

/// Every sweep check of every suite against each named adapter, in a stable order.
pub fn sweep_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let suites = catalog.suites.iter();
    suites.flat_map(|s| adapters.iter().flat_map(move |a| plan_suite(catalog, s, a))).collect()
}

/// The sweep checks of `suite`'s binary element-wise tables against `adapter`: `exhaustive`
/// in each 16-bit dtype, `grid` in f32 and f64.
fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    for &t in &suite.tables {
        let table = &catalog.tables[t];
        if table.table.operands.len() != 2 || !matches!(table.op, OpKind::Binary(_) | OpKind::BinaryInto(_)) {
            continue;
        }
        let dtypes =
            suite.dtypes.iter().filter(|d| d.is_float() && table.table.dtypes.iter().any(|x| x == d.name()));
        for &dtype in dtypes {
            let Some(f) = Format::of(dtype) else { continue };
            let sweep = sweep_of(f);
            let id =
                CheckId::adapter(&suite.suite.name, adapter, &table.table.op, dtype.name(), case_name(f));
            checks.push(Check {
                id,
                needs: Some((table.op, dtype)),
                target: Target::Sweep(SweepTarget { table: t, dtype }),
                planned: usize::try_from(sweep.len()).ok(),
            });
        }
    }
    checks
}

/// `exhaustive` for a 16-bit format, `grid` for a wider one.
fn case_name(f: Format) -> &'static str {
    if f.bits == 16 { "exhaustive" } else { "grid" }
}

fn sweep_of(f: Format) -> Sweep {
    Sweep::exhaustive(f, 2).unwrap_or_else(|| Sweep::grid(f, 2))
}

/// Runs a sweep check, resuming from its state file in `options.state_dir` if there is one.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &SweepTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[target.table];
    let f = Format::of(target.dtype).ok_or("not a float dtype")?;
    let suite = check.adapter_suite(catalog)?;
    let judge = Judge::new(table, Context::new(table, Some(&suite.suite), f), suite.suite.nan)?;
    let sweep = sweep_of(f);
    result.reference = Some(Reference::of(table.op, f));
    let fingerprint = format!(
        "{} | {} | catalog {} | {} cases",
        env!("CARGO_PKG_VERSION"),
        adapter.version(),
        catalog.revision,
        sweep.len()
    );
    let mut state = State::open(options.state_dir.as_deref(), &check.id, &fingerprint)?;
    let mut total = Tally::default();
    let mut progress = Progress::new(&check.id, sweep.len());
    for k in 0..sweep.chunks() {
        let tally = match state.finished.remove(&k) {
            Some(t) => t,
            None => {
                let t = run_chunk(&sweep, k, &judge, adapter, target.dtype, options)?;
                state.record(k, &t)?;
                progress.advance(t.cases);
                t
            }
        };
        total.merge(tally, options.max_listed_failures);
    }
    progress.finish();
    let mut rec = Recorder::new(result, options);
    rec.checked(usize::try_from(total.cases).map_err(|_| "too many cases for this platform")?);
    let random = CheckId { case: "random".to_string(), ..check.id.clone() };
    let (input, output) = (Domain::Float(f), judge.ctx.output);
    for (operands, actual) in &total.listed {
        let expected = judge.ctx.expectation(operands)?;
        rec.fail(0, || Failure {
            inputs: operands
                .iter()
                .zip(["x1", "x2"])
                .map(|(&x, n)| format!("{n} = {}", input.describe(x)))
                .collect(),
            expected: expected.describe(output),
            actual: output.describe(*actual),
            steps: super::batch::steps_from(&expected, output, *actual),
            actual_bits: Some(*actual),
            repro: Repro::Eval { id: random.clone(), operands: operands.clone() },
        });
    }
    rec.result.failed_inputs = usize::try_from(total.failed).unwrap_or(usize::MAX);
    if total.failed > 0 {
        rec.result.status = super::result::Status::Fail;
    }
    rec.result.failed_by_row = total.by_row.clone();
    let what = if sweep.arity() == 2 { "pairs" } else { "values" };
    let mut message = format!("{} of {} {what} checked", group(total.cases), group(sweep.len()));
    if total.failed > 0 {
        let rows: Vec<String> = total.by_row.iter().map(|(row, n)| format!("{row}: {}", group(*n))).collect();
        message = format!(
            "{message}; {} gave a result the contract does not allow ({})",
            group(total.failed),
            rows.join(", ")
        );
    }
    rec.result.message = message;
    Ok(())
}

/// What one chunk found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Tally {
    cases: u64,
    failed: u64,
    /// Failed cases per governing row id (`(no row)`: where only the table's accuracy governs).
    by_row: BTreeMap<String, u64>,
    /// The first failing cases: operands and the actual result.
    listed: Vec<(Vec<u64>, u64)>,
}

impl Tally {
    fn merge(&mut self, other: Tally, max_listed: usize) {
        self.cases += other.cases;
        self.failed += other.failed;
        for (row, n) in other.by_row {
            *self.by_row.entry(row).or_default() += n;
        }
        let room = max_listed.saturating_sub(self.listed.len());
        self.listed.extend(other.listed.into_iter().take(room));
    }
}

/// The row id failures outside every row are counted under.
const NO_ROW: &str = "(no row)";

/// Cases judged between two checks of the FP control state.
const SLICE: u64 = 1 << 16;

/// Calls the adapter on chunk `k` and judges every case.
fn run_chunk(
    sweep: &Sweep,
    k: u64,
    judge: &Judge,
    adapter: &Arc<dyn Adapter>,
    dtype: DType,
    options: &RunOptions,
) -> Result<Tally, String> {
    let range = sweep.chunk(k);
    let n = (range.end - range.start) as usize;
    let size = dtype.size();
    let operands = (0..sweep.arity())
        .map(|slot| {
            let mut bytes = vec![0u8; n * size];
            bytes.par_chunks_mut(size).enumerate().for_each(|(i, out)| {
                let x = sweep.operand(range.start + i as u64, slot);
                out.copy_from_slice(&x.to_le_bytes()[..size]);
            });
            Tensor::from_bytes(dtype, &[n], bytes).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let out_dtype = if judge.ctx.output == Domain::Bool { DType::Bool } else { dtype };
    let returned = apply_guarded(adapter, judge.ctx.op, operands, out_dtype, options.timeout)?
        .map_err(|e| format!("the adapter returned an error on chunk {k}: {e}"))?;
    if returned.dtype() != out_dtype || returned.shape() != [n] {
        return Err(format!(
            "chunk {k}: the adapter returned {} {:?}, expected {out_dtype} [{n}]",
            returned.dtype(),
            returned.shape()
        ));
    }
    let copy;
    let bytes = match returned.contiguous_bytes() {
        Some(bytes) => bytes,
        None => {
            copy = returned.to_contiguous();
            copy.contiguous_bytes().ok_or("the adapter's result is not contiguous")?
        }
    };
    let out_size = out_dtype.size();
    let slices = (n as u64).div_ceil(SLICE);
    let tallies = (0..slices)
        .into_par_iter()
        .map(|s| {
            fpenv::check()?;
            let mut tally = Tally::default();
            for i in s * SLICE..((s + 1) * SLICE).min(n as u64) {
                let index = range.start + i;
                let case = [sweep.operand(index, 0), sweep.operand(index, 1)];
                let at = i as usize * out_size;
                let mut raw = [0u8; 8];
                raw[..out_size].copy_from_slice(&bytes[at..at + out_size]);
                judge.judge(&case, u64::from_le_bytes(raw), options.max_listed_failures, &mut tally)?;
            }
            tally.cases = ((s + 1) * SLICE).min(n as u64) - s * SLICE;
            Ok(tally)
        })
        .collect::<Result<Vec<Tally>, String>>()?;
    let mut chunk = Tally::default();
    for t in tallies {
        chunk.merge(t, options.max_listed_failures);
    }
    Ok(chunk)
}

/// Judges sweep cases: finds each case's governing rows once per combination of the value
/// classes and relations the table's rows name, and takes a fast path (the native reference,
/// a bit comparison) where no row governs.
struct Judge<'a> {
    table: &'a SpecTable,
    ctx: Context<'a>,
    nan: NanPolicy,
    format: Format,
    classes: Vec<Class>,
    relations: Vec<Relation>,
    /// The index into `masks` of each value's class membership, and its f64 value, for
    /// 16-bit formats.
    dense: Option<(Vec<u16>, Vec<f64>)>,
    /// The distinct class memberships (bit `c`: in `classes[c]`).
    masks: Vec<u32>,
    /// Governing rows per (membership of x1, of x2, relations that hold).
    rows: Vec<OnceLock<Governed>>,
    /// The binary operation, where cases outside every row need only the native reference
    /// and a bit comparison.
    fast: Option<BinaryOp>,
}

impl<'a> Judge<'a> {
    fn new(table: &'a LoadedTable, ctx: Context<'a>, nan: NanPolicy) -> Result<Judge<'a>, String> {
        let f = ctx.format;
        let mut classes: Vec<Class> = Vec::new();
        let mut relations = Vec::new();
        for row in &table.table.rows {
            let when = &row.when;
            let named = when.x1.0.iter().chain(&when.x2.0).chain(&when.either).chain(&when.both);
            for c in named {
                if !classes.contains(c) {
                    classes.push(c.clone());
                }
            }
            if let Some(r) = when.relation
                && !relations.contains(&r)
            {
                relations.push(r);
            }
        }
        if classes.len() > 32 {
            return Err(format!(
                "{}: a sweep handles at most 32 distinct value classes in a table's rows",
                table.path.display()
            ));
        }
        let mut judge = Judge {
            table: &table.table,
            nan,
            format: f,
            fast: match ctx.op {
                OpKind::Binary(op) | OpKind::BinaryInto(op)
                    if table.table.accuracy != Accuracy::Approximate && native::covers(ctx.op, f) =>
                {
                    Some(op)
                }
                _ => None,
            },
            ctx,
            classes,
            relations,
            dense: None,
            masks: Vec::new(),
            rows: Vec::new(),
        };
        if f.bits == 16 {
            let masks = (0..1u64 << 16).map(|x| judge.mask_index(judge.membership(x))).collect();
            let values = (0..1u64 << 16).map(|x| native::to_f64(f, x)).collect();
            judge.dense = Some((masks, values));
        }
        Ok(judge)
    }

    /// Bit `c` set where `x` is in `classes[c]`.
    fn membership(&self, x: u64) -> u32 {
        self.classes
            .iter()
            .enumerate()
            .fold(0, |m, (c, class)| m | u32::from(in_class(self.format, x, class)) << c)
    }

    /// The index of `mask` in `masks`, added if new (while building the dense table).
    fn mask_index(&mut self, mask: u32) -> u16 {
        let i = self.masks.iter().position(|&m| m == mask).unwrap_or_else(|| {
            self.masks.push(mask);
            self.masks.len() - 1
        });
        let combos = (self.masks.len() * self.masks.len()) << self.relations.len();
        self.rows.resize_with(combos, OnceLock::new);
        i as u16
    }

    /// The governing rows of `case`.
    fn governing(&self, case: &[u64; 2]) -> Cow<'_, Governed> {
        let find = || Governed::new(self.table, governing_rows(self.table, self.format, case));
        let Some((dense, _)) = &self.dense else { return Cow::Owned(find()) };
        let (a, b) = (dense[case[0] as usize] as usize, dense[case[1] as usize] as usize);
        let relations = self
            .relations
            .iter()
            .enumerate()
            .fold(0, |r, (k, &rel)| r | usize::from(related(self.format, case[0], case[1], rel)) << k);
        let key = ((a * self.masks.len() + b) << self.relations.len()) | relations;
        Cow::Borrowed(self.rows[key].get_or_init(find))
    }

    /// Judges one case and counts it in `tally` if it fails.
    #[inline]
    fn judge(
        &self,
        case: &[u64; 2],
        actual: u64,
        max_listed: usize,
        tally: &mut Tally,
    ) -> Result<(), String> {
        let f = self.format;
        let governed = self.governing(case);
        let rows = &governed.rows;
        let (output, nan) = (self.ctx.output, self.nan);
        let fast = self.fast.filter(|_| !f.is_nan(case[0]) && !f.is_nan(case[1]));
        let accepted = if let Some(op) = fast {
            // Without a NaN operand, the expectation is every governing row's (or the
            // accuracy's, where none governs); the correctly rounded ones are the reference.
            let rounded = !governed.rounded || {
                let reference = match &self.dense {
                    Some((_, v)) => native::binary_decoded(
                        op,
                        f,
                        case[0],
                        case[1],
                        v[case[0] as usize],
                        v[case[1] as usize],
                    ),
                    None => native::binary(op, f, case[0], case[1]),
                };
                match output {
                    Domain::Float(_) if f.is_nan(reference) => {
                        f.is_nan(actual) && (nan == NanPolicy::Any || actual & (1 << (f.frac_bits - 1)) != 0)
                    }
                    _ => actual == reference,
                }
            };
            let mut others = true;
            for &r in &governed.others {
                others &= self.ctx.row_expectation(r, case)?.accepts(output, actual, nan);
            }
            rounded && others
        } else {
            self.ctx.expectation_under(rows, case)?.accepts(output, actual, nan)
        };
        if !accepted {
            tally.failed += 1;
            if rows.is_empty() {
                *tally.by_row.entry(NO_ROW.to_string()).or_default() += 1;
            }
            for &r in rows {
                *tally.by_row.entry(self.table.rows[r].id.value.clone()).or_default() += 1;
            }
            if tally.listed.len() < max_listed {
                tally.listed.push((case.to_vec(), actual));
            }
        }
        Ok(())
    }
}

/// The rows that govern a combination of value classes.
#[derive(Clone, Debug)]
struct Governed {
    rows: Vec<usize>,
    /// Whether the result must be the correctly rounded (or exact) reference: no row governs,
    /// or one whose result is `correctly_rounded` does.
    rounded: bool,
    /// The governing rows with another result.
    others: Vec<usize>,
}

impl Governed {
    fn new(table: &SpecTable, rows: Vec<usize>) -> Governed {
        let is_rounded = |&r: &usize| matches!(table.rows[r].result, Outcome::CorrectlyRounded);
        let others = rows.iter().copied().filter(|r| !is_rounded(r)).collect();
        Governed { rounded: rows.is_empty() || rows.iter().any(is_rounded), others, rows }
    }
}

/// A sweep's finished chunks on disk: a header line, then one line per chunk.
struct State {
    file: Option<File>,
    path: PathBuf,
    finished: BTreeMap<u64, Tally>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    check: String,
    fingerprint: String,
}

#[derive(Serialize, Deserialize)]
struct Finished {
    chunk: u64,
    #[serde(flatten)]
    tally: Tally,
}

impl State {
    /// Opens (or starts) the state of check `id` in `dir`; a state written for another
    /// fingerprint (another opspec, adapter version, catalog) is started afresh. Without a
    /// folder nothing is kept.
    fn open(dir: Option<&Path>, id: &CheckId, fingerprint: &str) -> Result<State, String> {
        let Some(dir) = dir else {
            return Ok(State { file: None, path: PathBuf::new(), finished: BTreeMap::new() });
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(format!("{}.jsonl", id.to_string().replace(':', "_")));
        let finished = match File::open(&path) {
            Ok(file) => Self::read(BufReader::new(file), id, fingerprint, &path)?,
            Err(_) => None,
        };
        let resumed = finished.is_some();
        let file = OpenOptions::new()
            .create(true)
            .append(resumed)
            .write(true)
            .truncate(!resumed)
            .open(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut state = State { file: Some(file), path, finished: finished.unwrap_or_default() };
        if resumed {
            if !state.finished.is_empty() {
                eprintln!(
                    "  {id}: resuming after {} finished chunks ({})",
                    state.finished.len(),
                    state.path.display()
                );
            }
        } else {
            let header = Header { check: id.to_string(), fingerprint: fingerprint.to_string() };
            state.append(&serde_json::to_string(&header).map_err(|e| e.to_string())?)?;
        }
        Ok(state)
    }

    /// The finished chunks of a state file, or `None` when it belongs to another fingerprint.
    /// A half-written last line (a killed run) is dropped.
    fn read(
        file: impl BufRead,
        id: &CheckId,
        fingerprint: &str,
        path: &Path,
    ) -> Result<Option<BTreeMap<u64, Tally>>, String> {
        let mut lines = file.lines().map_while(Result::ok);
        let header: Option<Header> = lines.next().and_then(|l| serde_json::from_str(&l).ok());
        match header {
            Some(h) if h.check == id.to_string() && h.fingerprint == fingerprint => {}
            _ => {
                eprintln!("  {id}: {} belongs to another run; starting afresh", path.display());
                return Ok(None);
            }
        }
        let mut finished = BTreeMap::new();
        for line in lines {
            match serde_json::from_str::<Finished>(&line) {
                Ok(f) => {
                    finished.insert(f.chunk, f.tally);
                }
                Err(e) if e.is_eof() => break,
                Err(e) => return Err(format!("{}: not a finished chunk: {e}", path.display())),
            }
        }
        Ok(Some(finished))
    }

    /// Appends finished chunk `k`.
    fn record(&mut self, k: u64, tally: &Tally) -> Result<(), String> {
        let line =
            serde_json::to_string(&Finished { chunk: k, tally: tally.clone() }).map_err(|e| e.to_string())?;
        self.append(&line)
    }

    fn append(&mut self, line: &str) -> Result<(), String> {
        let Some(file) = &mut self.file else { return Ok(()) };
        writeln!(file, "{line}")
            .and_then(|()| file.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// The progress line of one sweep on stderr: overwritten in place on a terminal, one plain
/// line about every ten seconds otherwise.
struct Progress {
    id: String,
    total: u64,
    done: u64,
    started: Instant,
    last: Instant,
    tty: bool,
}

impl Progress {
    fn new(id: &CheckId, total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            id: id.to_string(),
            total,
            done: 0,
            started: now,
            last: now,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn advance(&mut self, cases: u64) {
        self.done += cases;
        let due = if self.tty { 0.2 } else { 10.0 };
        if self.last.elapsed().as_secs_f64() >= due || self.done == self.total {
            self.last = Instant::now();
            let seconds = self.started.elapsed().as_secs_f64();
            let rate = self.done as f64 / seconds.max(1e-9);
            let left = (self.total - self.done) as f64 / rate.max(1.0);
            let line = format!(
                "  {}: {} of {} cases, {:.3e} cases/s, {:.0} s left",
                self.id,
                group(self.done),
                group(self.total),
                rate,
                left
            );
            let mut err = std::io::stderr().lock();
            let _ = if self.tty { write!(err, "\r{line}\x1b[K") } else { writeln!(err, "{line}") };
        }
    }

    fn finish(&self) {
        if self.tty && self.done > 0 {
            eprintln!();
        }
    }
}

/// `n` with thousands separators (`4,294,967,296`).
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::sweep::CHUNK;

    /// The class-keyed row lookup and the native fast path accept exactly what the check's
    /// expectations (every governing row, found case by case) accept.
    #[test]
    fn the_fast_judge_accepts_what_the_expectations_accept() {
        let catalog = Catalog::builtin().unwrap();
        let suite = catalog.suite("array-api").unwrap();
        for (op, f) in [
            ("add", Format::F16),
            ("multiply", Format::BF16),
            ("maximum", Format::F16),
            ("less", Format::BF16),
        ] {
            let table = catalog.tables.iter().find(|t| t.table.op == op).unwrap();
            let judge =
                Judge::new(table, Context::new(table, Some(&suite.suite), f), suite.suite.nan).unwrap();
            let mut g = crate::generate::Generator::new(3, op);
            for _ in 0..5_000 {
                let case = [g.bits() & 0xffff, g.bits() & 0xffff];
                let expected = judge.ctx.expectation(&case).unwrap();
                let oracle = crate::oracle::ops::reference(table.op, f, &case).unwrap();
                for actual in [oracle, oracle ^ 1, f.quiet_nan(), case[0], f.neg_zero()] {
                    let mut tally = Tally::default();
                    judge.judge(&case, actual, 5, &mut tally).unwrap();
                    let accepted = expected.accepts(judge.ctx.output, actual, suite.suite.nan);
                    assert_eq!(tally.failed == 0, accepted, "{op} {} {case:x?} -> {actual:#x}", f.name);
                }
            }
        }
    }

    #[test]
    fn counts_are_grouped() {
        assert_eq!(group(4_294_967_296), "4,294,967,296");
        assert_eq!(
            (group(0), group(999), group(1000)),
            ("0".to_string(), "999".to_string(), "1,000".to_string())
        );
    }

    #[test]
    fn a_state_file_resumes_only_its_own_run() {
        let dir = std::env::temp_dir().join(format!("opspec-sweep-state-{}", std::process::id()));
        let id: CheckId = "array-api:cpu:add:f16:exhaustive".parse().unwrap();
        let mut state = State::open(Some(&dir), &id, "v1").unwrap();
        assert!(state.finished.is_empty());
        let tally = Tally {
            cases: CHUNK,
            failed: 2,
            by_row: [("nan-either".to_string(), 2)].into(),
            listed: vec![(vec![1, 2], 3)],
        };
        state.record(5, &tally).unwrap();
        drop(state);
        let again = State::open(Some(&dir), &id, "v1").unwrap();
        let resumed = &again.finished[&5];
        assert_eq!((resumed.cases, resumed.failed, resumed.by_row["nan-either"]), (CHUNK, 2, 2));
        assert_eq!(resumed.listed, vec![(vec![1, 2], 3)]);
        drop(again);
        assert!(State::open(Some(&dir), &id, "v2").unwrap().finished.is_empty(), "another fingerprint");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
