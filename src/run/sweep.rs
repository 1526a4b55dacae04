//! Sweeps (`run --exhaustive`): every pair of 16-bit values of a binary element-wise
//! operation (2^32 cases), or the dense TestFloat-style grid of f32 and f64 pairs, checked
//! in fixed chunks of [`CHUNK`] cases against the same expectations as the sampled checks.
//!
//! A chunk is judged in batches of [`BATCH`] cases, one adapter call each (the next batch's
//! call runs while this one is judged on every core); a finished chunk is appended to the
//! check's state file (`<out>/sweeps/<id>.jsonl`), so a killed sweep resumes after its last
//! finished chunk when the same command runs again. A chunk is also a shard unit
//! (`ID#CHUNK`, [`super::shard`]), and the result lists each chunk's counts for `merge`. A progress line shows the rate and the time
//! left. Failures are counted per governing table row; the first few are listed in full.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use opspec_adapter::{Adapter, BinaryOp, DType, OpKind, Tensor};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::call::apply_guarded;
use super::check::{Check, CheckId, RunOptions, SweepTarget, Target};
use super::record::{Failure, Recorder, Repro};
use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::generate::sweep::Sweep;
use crate::judge::context::Context;
use crate::judge::expect::Expect;
use crate::oracle::fpenv;
use crate::oracle::native::{self, Reference};
use crate::results::{CheckResult, ChunkResult};
use crate::spec::matching::{governing_rows, in_class};
use crate::spec::schema::{Accuracy, Class, Outcome, Relation, SignRule, SpecTable};
use crate::spec::suite::NanPolicy;
use crate::spec::{Catalog, LoadedSuite, LoadedTable};

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
                target: Target::Sweep(SweepTarget { table: t, dtype, chunks: (0..sweep.chunks()).collect() }),
                planned: usize::try_from(sweep.len()).ok(),
            });
        }
    }
    checks
}

/// `check` with only the sweep chunks `keep` selects (its planned inputs counted again), or
/// `None` when it keeps none; any other check is returned as it is.
pub fn keep_chunks(mut check: Check, keep: impl Fn(u64) -> bool) -> Option<Check> {
    let Target::Sweep(target) = &mut check.target else { return Some(check) };
    target.chunks.retain(|&k| keep(k));
    if target.chunks.is_empty() {
        return None;
    }
    let sweep = Format::of(target.dtype).map(sweep_of)?;
    let cases: u64 = target.chunks.iter().map(|&k| sweep.chunk(k).end - sweep.chunk(k).start).sum();
    check.planned = usize::try_from(cases).ok();
    Some(check)
}

/// `exhaustive` for a 16-bit format, `grid` for a wider one.
fn case_name(f: Format) -> &'static str {
    if f.bits == 16 { "exhaustive" } else { "grid" }
}

fn sweep_of(f: Format) -> Sweep {
    Sweep::exhaustive(f, 2).unwrap_or_else(|| Sweep::grid(f, 2))
}

/// The message of a sweep check's result in `dtype`: the cases checked of the sweep's, and the
/// failures per governing row (`by_row`) where there are any.
pub fn sweep_message(dtype: &str, checked: u64, failed: u64, by_row: &BTreeMap<String, u64>) -> String {
    let of = dtype.parse::<DType>().ok().and_then(Format::of).map_or(checked, |f| sweep_of(f).len());
    let mut message = format!("{} of {} pairs checked", group(checked), group(of));
    if failed > 0 {
        let rows: Vec<String> = by_row.iter().map(|(row, n)| format!("{row}: {}", group(*n))).collect();
        message = format!(
            "{message}; {} gave a result the contract does not allow ({})",
            group(failed),
            rows.join(", ")
        );
    }
    message
}

/// Runs a sweep check's chunks, resuming from its state file in `options.state_dir` if there
/// is one.
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
    let sweep = sweep_of(f);
    let judge = Judge::new(table, Context::new(table, Some(&suite.suite), f), suite.suite.nan, &sweep)?;
    result.reference = Some(Reference::of(table.op, f));
    let fingerprint = format!(
        "{} | {} | catalog {} | {} cases",
        env!("CARGO_PKG_VERSION"),
        adapter.version(),
        catalog.revision,
        sweep.len()
    );
    let mut state = State::open(options.state_dir.as_deref(), &check.id, &fingerprint)?;
    let mut done: BTreeMap<u64, Tally> =
        target.chunks.iter().filter_map(|k| state.finished.remove(k).map(|t| (*k, t))).collect();
    let todo: Vec<u64> = target.chunks.iter().copied().filter(|k| !done.contains_key(k)).collect();
    let cases = |k: u64| sweep.chunk(k).end - sweep.chunk(k).start;
    let mut progress = Progress::new(&check.id, target.chunks.iter().map(|&k| cases(k)).sum());
    progress.advance(done.values().map(|t| t.cases).sum());
    // The chunks' batches, in order; the adapter computes the next batch while this one is
    // judged.
    let batches: Vec<(u64, Range<u64>)> = todo
        .iter()
        .flat_map(|&k| {
            let r = sweep.chunk(k);
            (r.start..r.end).step_by(BATCH as usize).map(move |b| (k, b..(b + BATCH).min(r.end)))
        })
        .collect();
    let (op, output) = (judge.ctx.op, judge.ctx.output);
    let size = target.dtype.size();
    let domain: Vec<u8> = judge.domain.iter().flat_map(|x| x.to_le_bytes()[..size].to_vec()).collect();
    let call = |cases: Range<u64>| call_batch(&domain, cases, op, output, adapter, target.dtype, options);
    std::thread::scope(|scope| -> Result<(), String> {
        let mut next = batches.first().map(|(_, r)| scope.spawn(move || call(r.clone())));
        let mut tally = Tally::default();
        for (i, (k, cases)) in batches.iter().enumerate() {
            let returned = next.take().map(|h| h.join()).ok_or("no adapter call")?;
            let returned = returned.map_err(|_| format!("chunk {k}: the adapter call's thread panicked"))?;
            let returned = returned.map_err(|e| format!("chunk {k}: {e}"))?;
            next = batches.get(i + 1).map(|(_, r)| scope.spawn(move || call(r.clone())));
            let batch = judge.batch(cases.clone(), &returned, options.max_listed_failures)?;
            progress.advance(batch.cases);
            tally.merge(batch, options.max_listed_failures);
            if batches.get(i + 1).is_none_or(|(later, _)| later != k) {
                let finished = std::mem::take(&mut tally);
                state.record(*k, &finished)?;
                done.insert(*k, finished);
            }
        }
        Ok(())
    })?;
    progress.finish();
    let mut total = Tally::default();
    for (k, tally) in done {
        let (before, failed, by_row) = (total.listed.len(), tally.failed, tally.by_row.clone());
        let chunk_cases = tally.cases;
        total.merge(tally, options.max_listed_failures);
        let listed = total.listed.len() - before;
        result.chunks.push(ChunkResult { chunk: k, cases: chunk_cases, failed, by_row, listed });
    }
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
        rec.result.status = crate::results::Status::Fail;
    }
    rec.result.message = sweep_message(target.dtype.name(), total.cases, total.failed, &total.by_row);
    rec.result.failed_by_row = total.by_row;
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

/// Cases per adapter call: a chunk is called and judged in batches this large, whose buffers
/// the allocator reuses (a whole chunk's would be mapped and zeroed afresh each time).
const BATCH: u64 = 1 << 20;

/// Builds the operands of `cases` from the domain's values (`dtype`'s little-endian bytes) and
/// calls the adapter on them: its result, checked for dtype and shape.
fn call_batch(
    domain: &[u8],
    cases: Range<u64>,
    op: OpKind,
    output: Domain,
    adapter: &Arc<dyn Adapter>,
    dtype: DType,
    options: &RunOptions,
) -> Result<Tensor, String> {
    let n = (cases.end - cases.start) as usize;
    let operands =
        (0..2).map(|slot| operand(domain, cases.start, n, slot, dtype)).collect::<Result<Vec<_>, _>>()?;
    let out_dtype = if output == Domain::Bool { DType::Bool } else { dtype };
    let returned = apply_guarded(adapter, op, operands, out_dtype, options.timeout)?
        .map_err(|e| format!("the adapter returned an error: {e}"))?;
    if returned.dtype() != out_dtype || returned.shape() != [n] {
        return Err(format!(
            "the adapter returned {} {:?}, expected {out_dtype} [{n}]",
            returned.dtype(),
            returned.shape()
        ));
    }
    Ok(if returned.contiguous_bytes().is_some() { returned } else { returned.to_contiguous() })
}

/// Operand `slot` (0 or 1) of cases `first .. first + n`: `domain[p]` with `p` the slot's
/// digit of the case index in base `domain.len()`, written a run of equal second operands at
/// a time (slot 0 copies a stretch of the domain, slot 1 repeats one value).
fn operand(domain: &[u8], first: u64, n: usize, slot: usize, dtype: DType) -> Result<Tensor, String> {
    let size = dtype.size();
    let values = domain.len() / size;
    let mut bytes = vec![0u8; n * size];
    let mut at = Digits::new(first, values as u64);
    let mut done = 0;
    while done < n {
        let run = (values - at.low).min(n - done);
        let out = &mut bytes[done * size..(done + run) * size];
        if slot == 0 {
            out.copy_from_slice(&domain[at.low * size..(at.low + run) * size]);
        } else {
            // One copy of the value, then doubling copies of what is written.
            out[..size].copy_from_slice(&domain[at.high * size..(at.high + 1) * size]);
            let mut filled = size;
            while filled < out.len() {
                let more = filled.min(out.len() - filled);
                out.copy_within(..more, filled);
                filled += more;
            }
        }
        done += run;
        at = Digits { low: 0, high: at.high + 1 };
    }
    Tensor::from_bytes(dtype, &[n], bytes).map_err(|e| e.to_string())
}

/// The two operand positions of a case index `low + high × base`.
struct Digits {
    low: usize,
    high: usize,
}

impl Digits {
    fn new(index: u64, base: u64) -> Digits {
        Digits { low: (index % base) as usize, high: (index / base) as usize }
    }
}

/// Element `j` of a contiguous little-endian buffer of `size`-byte elements, as bits.
#[inline]
fn element(bytes: &[u8], j: usize, size: usize) -> u64 {
    match size {
        1 => u64::from(bytes[j]),
        2 => u64::from(u16::from_le_bytes([bytes[2 * j], bytes[2 * j + 1]])),
        4 => {
            let b = &bytes[4 * j..4 * j + 4];
            u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        }
        _ => {
            let b = &bytes[8 * j..8 * j + 8];
            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        }
    }
}

/// Judges sweep cases: finds each case's governing rows, and what they accept, once per
/// combination of the value classes and relations the table's rows name (and whether an
/// operand is a NaN, a signaling one), not once per case; where that is the native reference,
/// a case costs one reference result and a comparison.
struct Judge<'a> {
    table: &'a SpecTable,
    ctx: Context<'a>,
    nan: NanPolicy,
    format: Format,
    /// Which of the three relation pairs the rows name, as a mask of [`Judge::key`]'s
    /// relation bits.
    relations: usize,
    /// The values each operand ranges over ([`Sweep::domain`]).
    domain: Vec<u64>,
    /// Per value of `domain`: the index into `masks` of its class membership, its exact f64
    /// value, and bit 0 (a signaling NaN) and bit 1 (a NaN) of its part of the key.
    mask_of: Vec<u16>,
    value_of: Vec<f64>,
    nan_of: Vec<u8>,
    /// The distinct class memberships (bit `c`: in the `c`th class the rows name).
    masks: Vec<u32>,
    /// What governs, per key ([`Judge::key`]).
    governed: Vec<OnceLock<Governed>>,
    /// The binary operation, where the native reference computes it and the table is not
    /// approximate.
    fast: Option<BinaryOp>,
}

impl<'a> Judge<'a> {
    fn new(
        table: &'a LoadedTable,
        ctx: Context<'a>,
        nan: NanPolicy,
        sweep: &Sweep,
    ) -> Result<Judge<'a>, String> {
        let f = ctx.format;
        let mut classes: Vec<Class> = Vec::new();
        let mut relations = 0;
        for row in &table.table.rows {
            let when = &row.when;
            let named = when.x1.0.iter().chain(&when.x2.0).chain(&when.either).chain(&when.both);
            for c in named {
                if !classes.contains(c) {
                    classes.push(c.clone());
                }
            }
            relations |= when.relation.map_or(0, relation_bit);
        }
        if classes.len() > 32 {
            return Err(format!(
                "{}: a sweep handles at most 32 distinct value classes in a table's rows",
                table.path.display()
            ));
        }
        let domain = sweep.domain();
        let mut masks: Vec<u32> = Vec::new();
        let mut mask_of = Vec::with_capacity(domain.len());
        for &x in &domain {
            let mask =
                classes.iter().enumerate().fold(0, |m, (c, class)| m | u32::from(in_class(f, x, class)) << c);
            let i = masks.iter().position(|&m| m == mask).unwrap_or_else(|| {
                masks.push(mask);
                masks.len() - 1
            });
            mask_of.push(u16::try_from(i).map_err(|_| "too many distinct class memberships")?);
        }
        let quiet = 1 << (f.frac_bits - 1);
        let nan_of =
            domain.iter().map(|&x| if f.is_nan(x) { 2 | u8::from(x & quiet == 0) } else { 0 }).collect();
        let value_of = domain.iter().map(|&x| native::to_f64(f, x)).collect();
        let keys = (masks.len() * masks.len()) << (RELATION_BITS + 2);
        Ok(Judge {
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
            relations,
            domain,
            mask_of,
            value_of,
            nan_of,
            masks,
            governed: std::iter::repeat_with(OnceLock::new).take(keys).collect(),
        })
    }

    /// The key of the case at positions `p1`, `p2` of the domain: both memberships, the
    /// relation pairs that hold (of those the rows name: bit 0 negation, bit 1 numerical
    /// equality, bit 2 the same sign bit; a pair's other relation holds where its bit is
    /// clear), and the NaN bits of both operands.
    #[inline]
    fn key(&self, p1: usize, p2: usize) -> usize {
        let (x1, x2, v1, v2) = (self.domain[p1], self.domain[p2], self.value_of[p1], self.value_of[p2]);
        let f = self.format;
        // `matching::related`, on the decoded values, without a branch.
        let holding = (usize::from(x2 == f.neg(x1))
            | usize::from(v1 == v2) << 1
            | usize::from((x1 ^ x2) & f.sign_mask() == 0) << 2)
            & self.relations;
        let combination = usize::from(self.mask_of[p1]) * self.masks.len() + usize::from(self.mask_of[p2]);
        let nans = usize::from(self.nan_of[p1] | self.nan_of[p2]);
        (((combination << RELATION_BITS) | holding) << 2) | nans
    }

    /// Judges the cases `range`, whose results the adapter returned in `returned`, in
    /// parallel slices.
    fn batch(&self, range: Range<u64>, returned: &Tensor, max_listed: usize) -> Result<Tally, String> {
        let bytes = returned.contiguous_bytes().ok_or("the adapter's result is not contiguous")?;
        let size = returned.dtype().size();
        let n = range.end - range.start;
        let slices = n.div_ceil(SLICE);
        let tallies = (0..slices)
            .into_par_iter()
            .map(|s| {
                fpenv::check()?;
                let (from, to) = (s * SLICE, ((s + 1) * SLICE).min(n));
                self.slice(range.start + from, from as usize..to as usize, (bytes, size), max_listed)
            })
            .collect::<Result<Vec<Tally>, String>>()?;
        let mut chunk = Tally::default();
        for t in tallies {
            chunk.merge(t, max_listed);
        }
        Ok(chunk)
    }

    /// Judges the cases from index `first` on, whose results are elements `at` of `bytes`,
    /// one run of cases with the same second operand at a time.
    fn slice(
        &self,
        first: u64,
        at: Range<usize>,
        (bytes, size): (&[u8], usize),
        max_listed: usize,
    ) -> Result<Tally, String> {
        let mut failed_per_row = vec![0u64; self.table.rows.len() + 1];
        let mut tally = Tally { cases: at.len() as u64, ..Tally::default() };
        let n = self.domain.len();
        let mut position = Digits::new(first, n as u64);
        let mut j = at.start;
        // Neighbouring cases mostly share a key: the last one's is kept at hand.
        let mut last: Option<(usize, &Governed)> = None;
        while j < at.end {
            let (low, p2) = (position.low, position.high);
            let run = (n - low).min(at.end - j);
            for (p1, j) in (low..low + run).zip(j..) {
                let actual = element(bytes, j, size);
                let key = self.key(p1, p2);
                let governed = match last {
                    Some((k, governed)) if k == key => governed,
                    _ => {
                        let governed = self.governed[key].get_or_init(|| self.governed_for(p1, p2));
                        last = Some((key, governed));
                        governed
                    }
                };
                if self.accepts(governed, p1, p2, actual)? {
                    continue;
                }
                tally.failed += 1;
                if governed.rows.is_empty() {
                    failed_per_row[self.table.rows.len()] += 1;
                }
                for &r in &governed.rows {
                    failed_per_row[r] += 1;
                }
                if tally.listed.len() < max_listed {
                    tally.listed.push((vec![self.domain[p1], self.domain[p2]], actual));
                }
            }
            j += run;
            position = Digits { low: 0, high: p2 + 1 };
        }
        for (r, &n) in failed_per_row.iter().enumerate().filter(|(_, n)| **n > 0) {
            let row = self.table.rows.get(r).map_or(NO_ROW, |row| row.id.value.as_str());
            tally.by_row.insert(row.to_string(), n);
        }
        Ok(tally)
    }

    /// What governs the case at `p1`, `p2` (and every case of its key).
    fn governed_for(&self, p1: usize, p2: usize) -> Governed {
        let case = [self.domain[p1], self.domain[p2]];
        let rows = governing_rows(self.table, self.format, &case);
        let with_nan = self.nan_of[p1] | self.nan_of[p2] != 0;
        let is_rounded = |&r: &usize| matches!(self.table.rows[r].result, Outcome::CorrectlyRounded);
        let others: Vec<usize> = rows.iter().copied().filter(|r| !is_rounded(r)).collect();
        let rounded = rows.is_empty() || rows.iter().any(is_rounded);
        let verdict = if !rows.is_empty() && rows.iter().all(|&r| constant(&self.table.rows[r].result)) {
            match self.ctx.expectation_under(&rows, &case) {
                Ok(expect) => Verdict::Constant(expect),
                Err(_) => Verdict::General,
            }
        } else if self.fast.is_some() && !with_nan && others.is_empty() {
            Verdict::Reference
        } else if self.fast.is_some() && !with_nan {
            let (fixed, per_case): (Vec<usize>, Vec<usize>) =
                others.iter().partition(|&&r| constant(&self.table.rows[r].result));
            match fixed.iter().map(|&r| self.ctx.row_expectation(r, &case)).collect() {
                Ok(fixed) => Verdict::Mixed { rounded, fixed, per_case },
                Err(_) => Verdict::General,
            }
        } else {
            Verdict::General
        };
        Governed { rows, verdict }
    }

    /// Whether `actual` is accepted for the case at `p1`, `p2`, which `governed` governs.
    #[inline]
    fn accepts(&self, governed: &Governed, p1: usize, p2: usize, actual: u64) -> Result<bool, String> {
        Ok(match &governed.verdict {
            Verdict::Reference => self.is_reference(p1, p2, actual),
            Verdict::Constant(expect) => expect.accepts(self.ctx.output, actual, self.nan),
            Verdict::Mixed { rounded, fixed, per_case } => {
                let output = self.ctx.output;
                let case = [self.domain[p1], self.domain[p2]];
                let mut accepted = (!rounded || self.is_reference(p1, p2, actual))
                    && fixed.iter().all(|expect| expect.accepts(output, actual, self.nan));
                for &r in per_case {
                    accepted &= self.ctx.row_expectation(r, &case)?.accepts(output, actual, self.nan);
                }
                accepted
            }
            Verdict::General => {
                let case = [self.domain[p1], self.domain[p2]];
                self.ctx.expectation_under(&governed.rows, &case)?.accepts(self.ctx.output, actual, self.nan)
            }
        })
    }

    /// Whether `actual` is the native reference's result for the case at `p1`, `p2` (any NaN,
    /// a quiet one where the suite asks, for a NaN result).
    #[inline(always)]
    fn is_reference(&self, p1: usize, p2: usize, actual: u64) -> bool {
        let Some(op) = self.fast else { return false };
        let f = self.format;
        let (x1, x2) = (self.domain[p1], self.domain[p2]);
        let reference = native::binary_decoded(op, f, x1, x2, self.value_of[p1], self.value_of[p2]);
        match self.ctx.output {
            Domain::Float(_) if f.is_nan(reference) => {
                f.is_nan(actual) && (self.nan == NanPolicy::Any || actual & (1 << (f.frac_bits - 1)) != 0)
            }
            _ => actual == reference,
        }
    }
}

/// The key bits of the relation pairs ([`Judge::key`]).
const RELATION_BITS: usize = 3;

/// The key bit of `relation`'s pair.
fn relation_bit(relation: Relation) -> usize {
    match relation {
        Relation::Negation | Relation::NotNegation => 1,
        Relation::Equal | Relation::NotEqual => 2,
        Relation::SameSign | Relation::DifferentSign => 4,
    }
}

/// Whether `outcome` asks the same of every input (no operand, no product of signs, no
/// reference result in it).
fn constant(outcome: &Outcome) -> bool {
    match outcome {
        Outcome::Nan
        | Outcome::Boolean(_)
        | Outcome::PosZero
        | Outcome::NegZero
        | Outcome::PosInfinity
        | Outcome::NegInfinity
        | Outcome::Value(_)
        | Outcome::Approx(_)
        | Outcome::Unspecified => true,
        Outcome::NanWithSign(rule) | Outcome::Sign(rule) | Outcome::SignedInfinity(rule) => {
            *rule != SignRule::ProductOfSigns
        }
        Outcome::AnyOf(list) => list.iter().all(constant),
        Outcome::Operand(_)
        | Outcome::NegOperand(_)
        | Outcome::AbsOperand(_)
        | Outcome::NegAbsOperand(_)
        | Outcome::CorrectlyRounded => false,
    }
}

/// The rows that govern a key's cases, and how a result is judged there.
#[derive(Clone, Debug)]
struct Governed {
    rows: Vec<usize>,
    verdict: Verdict,
}

/// How the results of one key's cases are judged.
#[derive(Clone, Debug)]
enum Verdict {
    /// The native reference's result: no row governs, or only rows whose result is
    /// `correctly_rounded`, and neither operand is a NaN.
    Reference,
    /// This expectation: every governing row asks the same of every input.
    Constant(Expect),
    /// The native reference's result where `rounded`, the expectations `fixed` of the rows
    /// that ask the same of every input (built once), and every row of `per_case`, case by case.
    Mixed { rounded: bool, fixed: Vec<Expect>, per_case: Vec<usize> },
    /// The expectation under the governing rows, case by case.
    General,
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

    /// The keyed verdicts (the native reference, constant expectations) accept exactly what
    /// the check's expectations (every governing row, found case by case) accept: on every
    /// pair of edge values and on random pairs, for 16-bit sweeps and the f32 grid.
    #[test]
    fn the_keyed_judge_accepts_what_the_expectations_accept() {
        let catalog = Catalog::builtin().unwrap();
        let suite = catalog.suite("array-api").unwrap();
        let ops = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "equal"];
        for (op, f) in ops.iter().flat_map(|&op| [Format::F16, Format::BF16, Format::F32].map(|f| (op, f))) {
            let table = catalog.tables.iter().find(|t| t.table.op == op).unwrap();
            let sweep = sweep_of(f);
            let ctx = Context::new(table, Some(&suite.suite), f);
            let judge = Judge::new(table, ctx, suite.suite.nan, &sweep).unwrap();
            let n = judge.domain.len();
            let edges: Vec<usize> = crate::generate::edge_values(f)
                .iter()
                .filter_map(|x| judge.domain.iter().position(|d| d == x))
                .collect();
            let mut g = crate::generate::Generator::new(3, op);
            let mut positions: Vec<(usize, usize)> =
                edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
            positions.extend((0..3_000).map(|_| (g.bits() as usize % n, g.bits() as usize % n)));
            for (p1, p2) in positions {
                let case = [judge.domain[p1], judge.domain[p2]];
                let expected = judge.ctx.expectation(&case).unwrap();
                let oracle = crate::oracle::ops::reference(table.op, f, &case).unwrap();
                for actual in [oracle, oracle ^ 1, f.quiet_nan(), f.quiet_nan() ^ 1, case[0], f.neg_zero()] {
                    let governed =
                        judge.governed[judge.key(p1, p2)].get_or_init(|| judge.governed_for(p1, p2));
                    let judged = judge.accepts(governed, p1, p2, actual).unwrap();
                    let accepted = expected.accepts(judge.ctx.output, actual, suite.suite.nan);
                    assert_eq!(judged, accepted, "{op} {} {case:x?} -> {actual:#x}", f.name);
                }
            }
        }
    }

    /// A batch judged the way a sweep judges it (in order, the last key kept at hand) fails
    /// exactly the cases whose result the expectations reject: multiply's f16 cases with
    /// `x2` the largest finite value, +infinity and a NaN, every 97th result corrupted.
    #[test]
    fn a_batch_fails_exactly_the_cases_the_expectations_reject() {
        let catalog = Catalog::builtin().unwrap();
        let suite = catalog.suite("array-api").unwrap();
        let f = Format::F16;
        let table = catalog.tables.iter().find(|t| t.table.op == "multiply").unwrap();
        let judge =
            Judge::new(table, Context::new(table, Some(&suite.suite), f), suite.suite.nan, &sweep_of(f))
                .unwrap();
        let cases = 0x7bff_u64 << 16..0x7c02 << 16;
        let (mut bytes, mut rejected) = (Vec::new(), 0);
        for i in cases.clone() {
            let case = [i & 0xffff, i >> 16];
            let mut actual = crate::oracle::ops::reference(table.op, f, &case).unwrap();
            if i % 97 == 0 {
                actual ^= 1;
            }
            let expected = judge.ctx.expectation(&case).unwrap();
            rejected += u64::from(!expected.accepts(judge.ctx.output, actual, suite.suite.nan));
            bytes.extend_from_slice(&(actual as u16).to_le_bytes());
        }
        let n = (cases.end - cases.start) as usize;
        let returned = Tensor::from_bytes(DType::F16, &[n], bytes).unwrap();
        let tally = judge.batch(cases, &returned, 5).unwrap();
        assert!(rejected > 1000, "{rejected}");
        assert_eq!((tally.cases, tally.failed), (n as u64, rejected));
        // A failing case counts once under each governing row (or under `(no row)`).
        assert!(tally.by_row.values().sum::<u64>() >= rejected);
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
