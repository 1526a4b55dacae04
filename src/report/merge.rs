//! `opspec merge`: the results files of one plan's shards (`run --shard I/N`) joined into the
//! run the whole plan would have written, with every unit no shard ran `missing`.
//!
//! The rules (`docs/SHARDING.md`): every file has the same plan hash and the same N (a run
//! without `--shard` is shard 1/1 of its plan); each shard's units are the ones the plan
//! assigns it; an adapter has one version across the files. A unit may come from two files
//! (a shard run twice, a retried pod): with the same status and number of failing inputs the
//! first file's result stands; otherwise the merge is refused, naming the unit. A unit in no
//! file, or only in files that ended before it ran, is `missing`.
//!
//! A sweep's units are its chunks (`CHECK_ID#CHUNK`): each shard's record of the sweep holds
//! its chunks' counts (`CheckResult::chunks`), and the merged record adds them up in chunk
//! order (cases, failures, failures per row and per tier, the first failures listed), as the
//! unsharded run would have; counts that add up past 2^64 - 1 are an error naming the files.
//! A sweep with a chunk that no file holds is `missing`, its message naming every such chunk
//! and its shard.

use std::collections::btree_map::{BTreeMap, Entry};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::bits::format::Format;
use crate::bits::hash::fnv1a_128;
use crate::judge::accuracy::UlpTally;
use crate::results::shard::{Shard, chunk_key, shard_of, split_key};
use crate::results::{self, ResultsWriter, Run, RunInfo};
use crate::results::{CaseFailure, CheckResult, ChunkResult, Resumed, Status};
use crate::run::record::write_accuracy;
use crate::run::{RunOptions, sweep_message};
use crate::spec::authority::Tier;
use crate::spec::id::CheckId;
use opspec_adapter::UnaryOp;

/// What [`merge`] wrote: how many checks the plan has, and how many no shard ran, the first
/// of them in full.
#[derive(Debug)]
pub struct Merged {
    pub checks: usize,
    pub missing: usize,
    pub first_missing: Vec<CheckResult>,
}

/// Joins `files`, the results files of one plan's shards, into the results file of the whole
/// plan at `path`, record by record; it is complete (has its end record) when every unit of
/// the plan ran in some shard. Keeps the first `listed` checks no shard ran. On an error,
/// nothing is written at `path`.
pub fn merge(files: &[PathBuf], path: &Path, listed: usize) -> Result<Merged, String> {
    let partial = path.with_extension("jsonl.partial");
    let merged = Shards::read(files).and_then(|shards| shards.write(&partial, listed)).and_then(|m| {
        std::fs::rename(&partial, path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(m)
    });
    if merged.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    merged
}

/// The runs of the shards of one plan and one N, each with its shard, and the unit keys of
/// their plan.
struct Shards {
    runs: Vec<Run>,
    shards: Vec<Shard>,
    units: Vec<String>,
}

impl Shards {
    /// Reads `files`, refusing files of two plans or two Ns. Only the first file's copy of
    /// the plan's units is kept: the plan hash covers them.
    fn read(files: &[PathBuf]) -> Result<Shards, String> {
        let mut all = Shards { runs: Vec::new(), shards: Vec::new(), units: Vec::new() };
        for file in files {
            let mut run = results::read(file)?;
            let shard = shard_of_run(&run)?;
            match (all.runs.first(), all.shards.first()) {
                (Some(first), Some(first_shard)) => {
                    if run.info.plan_hash != first.info.plan_hash {
                        return Err(format!(
                            "{} and {} are not shards of one plan: plan {} and plan {} (shards of one \
                             plan run one command line, catalog and opspec version, with --shard I/N \
                             changed alone)",
                            name(first),
                            name(&run),
                            first.info.plan_hash,
                            run.info.plan_hash
                        ));
                    }
                    if let Some((field, a, b)) = disagreement(&first.info, &run.info) {
                        return Err(format!(
                            "{} and {} are not shards of one run: `info.{field}` is {a} in one, {b} in \
                             the other (the shards of one run run one build of opspec on one catalog)",
                            name(first),
                            name(&run)
                        ));
                    }
                    if shard.total() != first_shard.total() {
                        return Err(format!(
                            "{} is shard {first_shard} but {} is shard {shard}: merge the shards of one N",
                            name(first),
                            name(&run)
                        ));
                    }
                    if let Some(s) = &mut run.info.shard {
                        s.units = Vec::new();
                    }
                }
                _ => all.units = take_units(&mut run)?,
            }
            all.runs.push(run);
            all.shards.push(shard);
        }
        if all.runs.is_empty() {
            return Err("merge needs at least one results file".to_string());
        }
        Ok(all)
    }

    /// Writes the merged results at `path`. Each file's records are read once, in plan
    /// order, side by side: a check's records are next in the files of the shards that own
    /// its units, and nowhere else.
    fn write(mut self, path: &Path, listed: usize) -> Result<Merged, String> {
        let units = std::mem::take(&mut self.units);
        let (first, total) = (&self.runs[0], self.shards[0].total());
        let given: BTreeSet<u32> = self.shards.iter().map(|s| s.index()).collect();
        let whose = |key: &str| -> Result<String, String> {
            let shard = Shard::new(shard_of(key, total), total)?;
            let why = match given.contains(&shard.index()) {
                true => "whose results end before it ran",
                false => "whose results were not given",
            };
            Ok(format!("shard {shard}, {why}"))
        };
        let mut info = first.info.clone();
        info.run_id = merged_run_id(&self.runs);
        info.shard = None;
        info.adapters = adapter_versions(&self.runs)?;
        info.seconds = self.runs.iter().map(|r| r.info.seconds).fold(0.0, f64::max);
        info.finished_at = self.runs.iter().map(|r| r.info.finished_at).max().unwrap_or(0);
        info.command = std::env::args().collect::<Vec<_>>().join(" ");
        let parse =
            |key: &str| key.parse::<CheckId>().map_err(|e| format!("{}: unit `{key}`: {e}", name(first)));
        // The plan's check ids (as text: a parsed id takes several times the bytes), and each
        // sweep's chunks by its place in the plan; the unit keys go before the writer makes
        // its own copy of the plan.
        let (mut planned, mut sweeps) = (Vec::new(), HashMap::new());
        for (i, check) in checks(&units).enumerate() {
            let (key, chunks) = check.map_err(|e| format!("{}: {e}", name(first)))?;
            parse(key)?;
            planned.push(key.to_string());
            if !chunks.is_empty() {
                sweeps.insert(i, chunks);
            }
        }
        drop(units);
        let writer = ResultsWriter::create(path, &info, &planned, &first.sources)?;
        let mut streams: Vec<_> = self.runs.iter().map(Run::checks).collect();
        let mut merged = Merged { checks: 0, missing: 0, first_missing: Vec::new() };
        for (i, key) in planned.into_iter().enumerate() {
            let id = parse(&key)?;
            let chunks = sweeps.remove(&i).unwrap_or_default();
            let owners: BTreeSet<u32> = match chunks.is_empty() {
                true => [shard_of(&key, total)].into(),
                false => chunks.iter().map(|&k| shard_of(&chunk_key(&key, k), total)).collect(),
            };
            let mut records = Vec::new();
            for ((run, shard), stream) in self.runs.iter().zip(&self.shards).zip(&mut streams) {
                if !owners.contains(&shard.index()) {
                    continue;
                }
                match stream.next().transpose()? {
                    Some(r) if r.id == id => {
                        if r.status != Status::Missing {
                            records.push((r, name(run)));
                        }
                    }
                    _ => return Err(not_its_checks(run, *shard)),
                }
            }
            let result = match chunks.is_empty() {
                true => match one_unit(&id, records)? {
                    Some(r) => r,
                    None => {
                        missing(id, format!("planned, but no shard ran it: it belongs to {}", whose(&key)?))
                    }
                },
                false => {
                    let mut join = SweepJoin::default();
                    for (r, file) in records {
                        join.add(r, &file)?;
                    }
                    join.finish(id, &chunks, &whose)?
                }
            };
            writer.check(&result)?;
            merged.checks += 1;
            if result.status == Status::Missing {
                merged.missing += 1;
                if merged.first_missing.len() < listed {
                    merged.first_missing.push(result);
                }
            }
        }
        for ((run, shard), stream) in self.runs.iter().zip(&self.shards).zip(&mut streams) {
            if let Some(r) = stream.next() {
                r?;
                return Err(not_its_checks(run, *shard));
            }
        }
        if merged.missing == 0 {
            writer.finish(info.seconds, info.finished_at)?;
        }
        Ok(merged)
    }
}

fn not_its_checks(run: &Run, shard: Shard) -> String {
    format!("{}: its checks are not the ones its plan assigns shard {shard}", name(run))
}

/// The merged result of check `id`, one unit, from its records (not `missing`) and their
/// files: the first file's (none without a record); a record with another status or number
/// of failing inputs is an error naming both files.
fn one_unit(id: &CheckId, records: Vec<(CheckResult, String)>) -> Result<Option<CheckResult>, String> {
    let mut records = records.into_iter();
    let Some((first, at)) = records.next() else { return Ok(None) };
    for (r, file) in records {
        if (first.status, first.failed_inputs) != (r.status, r.failed_inputs) {
            return Err(format!(
                "check `{id}` has two results: {} in {at} ({} failing inputs), {} in {file} ({})",
                first.status.name(),
                first.failed_inputs,
                r.status.name(),
                r.failed_inputs
            ));
        }
    }
    Ok(Some(first))
}

/// A `missing` result of `id`, saying why in `message`.
fn missing(id: CheckId, message: String) -> CheckResult {
    let mut missing = CheckResult::new(id);
    missing.status = Status::Missing;
    missing.message = message;
    missing
}

/// The checks of `units` (unit keys, in plan order), each with its chunks (none for a check
/// that is one unit): a sweep's chunks are consecutive units.
fn checks(units: &[String]) -> impl Iterator<Item = Result<(&str, Vec<u64>), String>> {
    let mut keys = units
        .iter()
        .map(|key| split_key(key).ok_or_else(|| format!("unit `{key}` has no chunk number after `#`")))
        .peekable();
    std::iter::from_fn(move || {
        let (id, chunk) = match keys.next()? {
            Ok(unit) => unit,
            Err(e) => return Some(Err(e)),
        };
        let mut chunks: Vec<u64> = chunk.into_iter().collect();
        while let Some(Ok((next, Some(k)))) = keys.peek()
            && !chunks.is_empty()
            && *next == id
        {
            chunks.push(*k);
            keys.next();
        }
        Some(Ok((id, chunks)))
    })
}

/// One sweep's records from the shards' files, joined as they are read: each chunk's counts
/// and listed failures from the first file that holds it, and the merged record's template.
#[derive(Default)]
struct SweepJoin {
    /// The first record without chunks (the sweep ended with an error, or was skipped): it
    /// stands for the whole sweep.
    whole: Option<CheckResult>,
    /// The first record that did not pass, else the first (without its failures), and
    /// whether it did not pass. A listed sweep's shard whose chunks all passed says "listed,
    /// but passed"; the other shards' failures decide.
    template: Option<(CheckResult, bool)>,
    /// Each chunk's counts, its listed failures and the file they came from.
    chunks: BTreeMap<u64, (ChunkResult, Vec<CaseFailure>, String)>,
    /// The files whose records' chunks are counted (a shard's file given twice counts once),
    /// and those records' failed inputs per tier and seconds, added up.
    files: Vec<String>,
    by_tier: BTreeMap<Tier, u64>,
    seconds: f64,
    /// The chunks those records took from state files.
    resumed: Vec<Resumed>,
}

impl SweepJoin {
    /// Joins `r`, a record of the sweep (not `missing`) read from `file`.
    fn add(&mut self, mut r: CheckResult, file: &str) -> Result<(), String> {
        if r.chunks.is_empty() {
            self.whole.get_or_insert(r);
            return Ok(());
        }
        let mut listed = std::mem::take(&mut r.failures).into_iter();
        let mut counted = false;
        for c in &r.chunks {
            let own: Vec<CaseFailure> = listed.by_ref().take(c.listed).collect();
            match self.chunks.entry(c.chunk) {
                Entry::Vacant(e) => {
                    e.insert((c.clone(), own, file.to_string()));
                    counted = true;
                }
                Entry::Occupied(e) if (e.get().0.cases, e.get().0.failed) != (c.cases, c.failed) => {
                    let (old, _, at) = e.get();
                    return Err(format!(
                        "chunk `{}` has two results: {} failing of {} cases in {at}, {} of {} in {file}",
                        chunk_key(&r.id.to_string(), c.chunk),
                        old.failed,
                        old.cases,
                        c.failed,
                        c.cases
                    ));
                }
                Entry::Occupied(_) => {}
            }
        }
        if counted {
            self.files.push(file.to_string());
            for (&tier, &n) in &r.failed_by_tier {
                let sum = self.by_tier.get(&tier).map_or(Some(n), |sum| sum.checked_add(n));
                let sum =
                    sum.ok_or_else(|| self.overflow(&r.id, &format!("failed inputs of tier {tier}")))?;
                self.by_tier.insert(tier, sum);
            }
            self.seconds += r.seconds;
            self.resumed.extend(r.resumed.iter().cloned());
        }
        let fails = r.status != Status::Pass && !(r.deviation.is_some() && r.failed_inputs == 0);
        if self.template.as_ref().is_none_or(|(_, failing)| !failing && fails) {
            self.template = Some((r, fails));
        }
        Ok(())
    }

    /// The merged record of sweep `id` over `chunks` (the plan's): the chunks' counts added
    /// up in chunk order, or `missing` with every chunk no file holds, and the shard it
    /// belongs to (`whose` of its key).
    fn finish(
        mut self,
        id: CheckId,
        chunks: &[u64],
        whose: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<CheckResult, String> {
        if let Some(whole) = self.whole {
            return Ok(whole);
        }
        let key = id.to_string();
        let absent: Vec<u64> = chunks.iter().copied().filter(|k| !self.chunks.contains_key(k)).collect();
        if !absent.is_empty() {
            let named = absent
                .iter()
                .map(|&k| whose(&chunk_key(&key, k)).map(|w| format!("chunk {k} ({w})")))
                .collect::<Result<Vec<_>, _>>()?;
            let why = format!(
                "planned, but no shard ran {} of its {} chunks: {}",
                absent.len(),
                chunks.len(),
                named.join(", ")
            );
            return Ok(missing(id, why));
        }
        // Shards of one plan list as many failures per check as the CLI's runs do.
        let cap = RunOptions::default().max_listed_failures;
        let (mut cases, mut failed) = (0u64, 0u64);
        let (mut by_row, mut failures, mut merged_chunks) = (BTreeMap::new(), Vec::new(), Vec::new());
        let mut ulp = UlpTally::default();
        for k in chunks {
            let (c, own, _) = self.chunks.remove(k).ok_or("no chunk")?;
            let overflow = |what: &str| self.overflow(&id, what);
            cases = cases.checked_add(c.cases).ok_or_else(|| overflow("cases"))?;
            failed = failed.checked_add(c.failed).ok_or_else(|| overflow("failing cases"))?;
            for (row, &n) in &c.by_row {
                let sum: &mut u64 = by_row.entry(row.clone()).or_default();
                *sum = sum.checked_add(n).ok_or_else(|| overflow(&format!("failing cases of row {row}")))?;
            }
            let room = cap.saturating_sub(failures.len());
            let before = failures.len();
            failures.extend(own.into_iter().take(room));
            ulp.merge(c.ulp.clone());
            merged_chunks.push(ChunkResult { listed: failures.len() - before, ..c });
        }
        let too_many = |what: &str| format!("sweep `{key}`: {what} is more than this platform counts");
        let (mut merged, _) = self.template.ok_or("no record")?;
        merged.planned_inputs = Some(usize::try_from(cases).map_err(|_| too_many("its cases"))?);
        merged.inputs = usize::try_from(cases).map_err(|_| too_many("its cases"))?;
        merged.failed_inputs = usize::try_from(failed).map_err(|_| too_many("its failing cases"))?;
        merged.seconds = self.seconds;
        let plain = match merged.status {
            Status::Pass | Status::KnownDeviation => true,
            Status::Fail => merged.deviation.is_none(),
            _ => false,
        };
        if plain {
            let arity = if id.op.parse::<UnaryOp>().is_ok() { 1 } else { 2 };
            merged.message = sweep_message(&id.dtype, arity, cases, failed, &by_row);
            self.resumed.iter().for_each(|r| merged.message += &format!("; {}", r.describe()));
        }
        merged.resumed = self.resumed;
        merged.failed_by_row = by_row;
        if let Some(f) = id.dtype.parse().ok().and_then(Format::of) {
            write_accuracy(&ulp, f, &mut merged);
        }
        merged.tier = self.by_tier.keys().next().copied();
        merged.failed_by_tier = self.by_tier;
        merged.failures = failures;
        merged.chunks = merged_chunks;
        Ok(merged)
    }

    /// The error of counts of sweep `id` that add up past `u64::MAX`.
    fn overflow(&self, id: &CheckId, what: &str) -> String {
        format!(
            "sweep `{id}`: its shards' {what} add up past 2^64 - 1 (in {}): a results file is corrupt",
            self.files.join(", ")
        )
    }
}

/// The first field of the build and catalog the shards of one run share (the plan hash aside)
/// in which `b` differs from `a`, with both values.
fn disagreement(a: &RunInfo, b: &RunInfo) -> Option<(&'static str, String, String)> {
    let fields = |i: &RunInfo| {
        let shown = |v: &str| if v.is_empty() { "not recorded".to_string() } else { format!("`{v}`") };
        [
            ("build_id", shown(&i.build_id)),
            ("opspec_version", shown(&i.opspec_version)),
            ("build", shown(&i.build)),
            ("spec_revision", shown(&i.spec_revision)),
            ("contract_version", i.contract_version.to_string()),
        ]
    };
    fields(a).into_iter().zip(fields(b)).find(|(x, y)| x.1 != y.1).map(|((field, x), (_, y))| (field, x, y))
}

/// The merged run's id: a hash of its shards' ids, so that one merge of the same shards made
/// twice is one run to `report`; none where a shard has none (written before runs had one).
fn merged_run_id(runs: &[Run]) -> String {
    if runs.iter().any(|r| r.info.run_id.is_empty()) {
        return String::new();
    }
    let ids: BTreeSet<&str> = runs.iter().map(|r| r.info.run_id.as_str()).collect();
    let joined = ids.into_iter().collect::<Vec<_>>().join(" ");
    format!("{:032x}", fnv1a_128([joined.as_bytes()]))
}

fn name(run: &Run) -> String {
    run.path.display().to_string()
}

/// The run's shard: a run without `--shard` is shard 1/1 of its plan.
fn shard_of_run(run: &Run) -> Result<Shard, String> {
    if run.info.plan_hash.is_empty() {
        return Err(format!(
            "{}: no plan hash (written by an opspec that does not shard): run it again",
            name(run)
        ));
    }
    run.info.shard.as_ref().map_or_else(|| Shard::new(1, 1), |s| Ok(s.shard))
}

/// The keys of the units of the run's plan, taken out of its record of its shard: a run
/// without `--shard` plans its own checks (and its sweeps' chunks).
fn take_units(run: &mut Run) -> Result<Vec<String>, String> {
    if let Some(s) = &mut run.info.shard {
        return Ok(std::mem::take(&mut s.units));
    }
    let mut units = Vec::new();
    for r in run.checks() {
        let r = r?;
        let id = r.id.to_string();
        match r.chunks.is_empty() {
            true => units.push(id),
            false => units.extend(r.chunks.iter().map(|c| chunk_key(&id, c.chunk))),
        }
    }
    Ok(units)
}

/// `name: version` of every adapter of `runs`, in order of appearance; an adapter with two
/// versions is an error naming both files.
fn adapter_versions(runs: &[Run]) -> Result<Vec<String>, String> {
    let mut seen: BTreeMap<&str, (&str, &Run)> = BTreeMap::new();
    let mut all = Vec::new();
    for run in runs {
        for text in &run.info.adapters {
            let (adapter, version) = text.split_once(": ").unwrap_or((text, ""));
            match seen.entry(adapter) {
                Entry::Vacant(e) => {
                    e.insert((version, run));
                    all.push(text.clone());
                }
                Entry::Occupied(e) if e.get().0 != version => {
                    let (other, at) = e.get();
                    return Err(format!(
                        "adapter `{adapter}` is version {other} in {} but {version} in {}",
                        name(at),
                        name(run)
                    ));
                }
                Entry::Occupied(_) => {}
            }
        }
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::shard::ShardOfPlan;
    use crate::results::{Rerun, RunInfo};
    use crate::spec::Catalog;

    const SWEEP: &str = "array-api:cpu:add:f16:exhaustive";

    /// Two chunks of [`SWEEP`] owned by different shards of 2.
    fn chunks_in_two_shards() -> [u64; 2] {
        let owner = |k: u64| shard_of(&chunk_key(SWEEP, k), 2);
        let k = (1..).find(|&k| owner(k) != owner(0)).unwrap_or_default();
        if owner(0) == 1 { [0, k] } else { [k, 0] }
    }

    /// Shard `index` of 2 of a plan of [`SWEEP`]'s `chunks`, its record holding the chunk it
    /// owns, `chunks[index - 1]`, with `cases[index - 1]` cases, one failing (a must).
    fn shard(dir: &Path, index: u32, chunks: [u64; 2], cases: [u64; 2]) -> PathBuf {
        let mut info = RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec![], Rerun::default());
        info.plan_hash = "0123456789abcdef".to_string();
        let units = chunks.iter().map(|&k| chunk_key(SWEEP, k)).collect();
        info.shard = Some(ShardOfPlan { shard: Shard::new(index, 2).unwrap(), units });
        let i = usize::try_from(index - 1).unwrap();
        let mut r = CheckResult::new(SWEEP.parse().unwrap());
        (r.status, r.inputs, r.failed_inputs) = (Status::Fail, usize::try_from(cases[i]).unwrap(), 1);
        r.add_failed(Tier::Must, 1);
        r.chunks = vec![ChunkResult {
            chunk: chunks[i],
            cases: cases[i],
            failed: 1,
            by_row: BTreeMap::new(),
            listed: 0,
            ulp: Default::default(),
        }];
        let path = dir.join(format!("shard-{index}.jsonl"));
        let writer = ResultsWriter::create(&path, &info, &[r.id.clone()], &BTreeMap::new()).unwrap();
        writer.check(&r).unwrap();
        writer.finish(1.0, 0).unwrap();
        path
    }

    #[test]
    fn shards_of_two_builds_or_two_catalogs_are_refused_naming_the_field() {
        let dir = std::env::temp_dir().join(format!("opspec-merge-builds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let chunks = chunks_in_two_shards();
        let out = dir.join("merged.jsonl");
        for (field, edit) in
            [("build_id", "\"build_id\":\"another "), ("spec_revision", "\"spec_revision\":\"0")]
        {
            let files = [shard(&dir, 1, chunks, [5, 7]), shard(&dir, 2, chunks, [5, 7])];
            let text = std::fs::read_to_string(&files[1]).unwrap();
            std::fs::write(&files[1], text.replacen(&format!("\"{field}\":\""), edit, 1)).unwrap();
            let e = merge(&files, &out, 0).unwrap_err();
            let [one, two] = files.map(|f| f.display().to_string());
            assert!(
                e.starts_with(&format!("{one} and {two} are not shards of one run: `info.{field}` is ")),
                "{e}"
            );
            assert!(!out.exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sweeps_counts_that_add_up_past_u64_max_are_an_error_naming_the_files() {
        let dir = std::env::temp_dir().join(format!("opspec-merge-overflow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let chunks = chunks_in_two_shards();
        let files = [shard(&dir, 1, chunks, [u64::MAX - 1, 2]), shard(&dir, 2, chunks, [u64::MAX - 1, 2])];
        let out = dir.join("merged.jsonl");
        let e = merge(&files, &out, 0).unwrap_err();
        assert!(e.contains(&format!("sweep `{SWEEP}`")) && e.contains("past 2^64 - 1"), "{e}");
        for f in ["shard-1.jsonl", "shard-2.jsonl"] {
            assert!(e.contains(&dir.join(f).display().to_string()), "{e}");
        }
        assert!(!out.exists() && !dir.join("merged.jsonl.partial").exists());
        // Counts that fit add up as the unsharded run counts them.
        let files = [shard(&dir, 1, chunks, [5, 7]), shard(&dir, 2, chunks, [5, 7])];
        assert_eq!(merge(&files, &out, 0).unwrap().checks, 1);
        let r = crate::results::read(&out).unwrap().checks().next().unwrap().unwrap();
        assert_eq!((r.inputs, r.failed_inputs, r.failed_by_tier[&Tier::Must]), (12, 2, 2));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
