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
use std::path::Path;

use crate::results::shard::{Shard, chunk_key, shard_of, split_key};
use crate::results::{CaseFailure, CheckResult, ChunkResult, Status};
use crate::results::{ResultsWriter, Run};
use crate::run::{RunOptions, sweep_message};
use crate::spec::authority::Tier;
use crate::spec::id::CheckId;

/// Joins `runs`, the shards of one plan, into the run of the whole plan, to be written at
/// `path`; it is complete when every unit of the plan ran in some shard.
pub fn merge(runs: &[Run], path: &Path) -> Result<Run, String> {
    let first = runs.first().ok_or("merge needs at least one results file")?;
    let (first_shard, units) = plan_of(first)?;
    let mut given = BTreeSet::new();
    for run in runs {
        if run.info.plan_hash != first.info.plan_hash {
            return Err(format!(
                "{} and {} are not shards of one plan: plan {} and plan {} (shards of one plan run \
                 one command line, catalog and opspec version, with --shard I/N changed alone)",
                name(first),
                name(run),
                first.info.plan_hash,
                run.info.plan_hash
            ));
        }
        let (shard, _) = plan_of(run)?;
        if shard.total() != first_shard.total() {
            return Err(format!(
                "{} is shard {first_shard} but {} is shard {shard}: merge the shards of one N",
                name(first),
                name(run)
            ));
        }
        let owned = checks(&units, |u| shard.owns(u))
            .map_err(|e| format!("{}: {e}", name(first)))?
            .into_iter()
            .map(|(id, _)| id);
        if !owned.eq(run.results.iter().map(|r| r.id.to_string())) {
            return Err(format!("{}: its checks are not the ones its plan assigns shard {shard}", name(run)));
        }
        given.insert(shard.index());
    }
    let adapters = adapter_versions(runs)?;
    let ran = ran_units(runs)?;
    let total = first_shard.total();
    let whose = |key: &str| -> Result<String, String> {
        let shard = Shard::new(shard_of(key, total), total)?;
        let why = match given.contains(&shard.index()) {
            true => "whose results end before it ran",
            false => "whose results were not given",
        };
        Ok(format!("shard {shard}, {why}"))
    };
    let plan = checks(&units, |_| true).map_err(|e| format!("{}: {e}", name(first)))?;
    let mut results = Vec::with_capacity(plan.len());
    for (key, chunks) in &plan {
        let id: CheckId = key.parse().map_err(|e| format!("{}: unit `{key}`: {e}", name(first)))?;
        if !chunks.is_empty() {
            let mut join = SweepJoin::default();
            for run in runs {
                for r in run.results.iter().filter(|r| r.id == id && r.status != Status::Missing) {
                    join.add(r.clone(), &name(run))?;
                }
            }
            results.push(join.finish(id, chunks, &whose)?);
            continue;
        }
        if let Some(r) = ran.get(key.as_str()) {
            results.push(r.clone());
            continue;
        }
        let mut missing = CheckResult::new(id);
        missing.status = Status::Missing;
        missing.message = format!("planned, but no shard ran it: it belongs to {}", whose(key)?);
        results.push(missing);
    }
    let mut info = first.info.clone();
    info.shard = None;
    info.adapters = adapters;
    info.seconds = runs.iter().map(|r| r.info.seconds).fold(0.0, f64::max);
    info.finished_at = runs.iter().map(|r| r.info.finished_at).max().unwrap_or(0);
    info.command = std::env::args().collect::<Vec<_>>().join(" ");
    let complete = results.iter().all(|r| r.status != Status::Missing);
    Ok(Run { path: path.to_path_buf(), info, results, sources: first.sources.clone(), complete })
}

/// The checks of the units that `keep` keeps, in plan order, each with its chunks (none for
/// a check that is one unit).
fn checks(units: &[String], keep: impl Fn(&str) -> bool) -> Result<Vec<(String, Vec<u64>)>, String> {
    let mut checks: Vec<(String, Vec<u64>)> = Vec::new();
    for key in units.iter().filter(|u| keep(u)) {
        let (id, chunk) =
            split_key(key).ok_or_else(|| format!("unit `{key}` has no chunk number after `#`"))?;
        match (checks.last_mut(), chunk) {
            (Some((last, chunks)), Some(k)) if last == id && !chunks.is_empty() => chunks.push(k),
            (_, chunk) => checks.push((id.to_string(), chunk.into_iter().collect())),
        }
    }
    Ok(checks)
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
            let mut missing = CheckResult::new(id);
            missing.status = Status::Missing;
            missing.message = format!(
                "planned, but no shard ran {} of its {} chunks: {}",
                absent.len(),
                chunks.len(),
                named.join(", ")
            );
            return Ok(missing);
        }
        // Shards of one plan list as many failures per check as the CLI's runs do.
        let cap = RunOptions::default().max_listed_failures;
        let (mut cases, mut failed) = (0u64, 0u64);
        let (mut by_row, mut failures, mut merged_chunks) = (BTreeMap::new(), Vec::new(), Vec::new());
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
            merged.message = sweep_message(&id.dtype, cases, failed, &by_row);
        }
        merged.failed_by_row = by_row;
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

/// Writes `run` as a results file at its path: every result, and the end record when the run
/// is complete (so an incomplete merge reads back as incomplete, its missing units named).
pub fn write_results(run: &Run) -> Result<(), String> {
    let ids: Vec<CheckId> = run.results.iter().map(|r| r.id.clone()).collect();
    let writer = ResultsWriter::create(&run.path, &run.info, &ids, &run.sources)?;
    run.results.iter().try_for_each(|r| writer.check(r))?;
    if run.complete {
        writer.finish(run.info.seconds, run.info.finished_at)?;
    }
    Ok(())
}

fn name(run: &Run) -> String {
    run.path.display().to_string()
}

/// The run's shard and the keys of its plan's units: a run without `--shard` is shard 1/1 of
/// its plan, which is its own checks (and its sweeps' chunks).
fn plan_of(run: &Run) -> Result<(Shard, Vec<String>), String> {
    if run.info.plan_hash.is_empty() {
        return Err(format!(
            "{}: no plan hash (written by an opspec that does not shard): run it again",
            name(run)
        ));
    }
    Ok(match &run.info.shard {
        Some(s) => (s.shard, s.units.clone()),
        None => {
            let keys = |r: &CheckResult| match r.chunks.is_empty() {
                true => vec![r.id.to_string()],
                false => r.chunks.iter().map(|c| chunk_key(&r.id.to_string(), c.chunk)).collect(),
            };
            (Shard::new(1, 1)?, run.results.iter().flat_map(keys).collect())
        }
    })
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

/// Every whole-check unit some file ran (not `missing`), by key, with the first file's result;
/// a unit two files ran with another status or number of failing inputs is an error. (A
/// sweep's chunks are joined by [`sweep`].)
fn ran_units(runs: &[Run]) -> Result<HashMap<String, CheckResult>, String> {
    let mut ran: HashMap<String, (&CheckResult, &Run)> = HashMap::new();
    for run in runs {
        for r in run.results.iter().filter(|r| r.status != Status::Missing && r.chunks.is_empty()) {
            let key = r.id.to_string();
            if let Some((old, at)) = ran.get(&key) {
                if (old.status, old.failed_inputs) != (r.status, r.failed_inputs) {
                    return Err(format!(
                        "check `{key}` has two results: {} in {} ({} failing inputs), {} in {} ({})",
                        old.status.name(),
                        name(at),
                        old.failed_inputs,
                        r.status.name(),
                        name(run),
                        r.failed_inputs
                    ));
                }
                continue;
            }
            ran.insert(key, (r, run));
        }
    }
    Ok(ran.into_iter().map(|(k, (r, _))| (k, r.clone())).collect())
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
    fn shard(dir: &Path, index: u32, chunks: [u64; 2], cases: [u64; 2]) -> Run {
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
        }];
        let path = dir.join(format!("shard-{index}.jsonl"));
        let writer = ResultsWriter::create(&path, &info, &[r.id.clone()], &BTreeMap::new()).unwrap();
        writer.check(&r).unwrap();
        writer.finish(1.0, 0).unwrap();
        crate::results::read(&path).unwrap()
    }

    #[test]
    fn a_sweeps_counts_that_add_up_past_u64_max_are_an_error_naming_the_files() {
        let dir = std::env::temp_dir().join(format!("opspec-merge-overflow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let chunks = chunks_in_two_shards();
        let runs = [shard(&dir, 1, chunks, [u64::MAX - 1, 2]), shard(&dir, 2, chunks, [u64::MAX - 1, 2])];
        let e = merge(&runs, &dir.join("merged.jsonl")).unwrap_err();
        assert!(e.contains(&format!("sweep `{SWEEP}`")) && e.contains("past 2^64 - 1"), "{e}");
        for f in ["shard-1.jsonl", "shard-2.jsonl"] {
            assert!(e.contains(&dir.join(f).display().to_string()), "{e}");
        }
        // Counts that fit add up as the unsharded run counts them.
        let runs = [shard(&dir, 1, chunks, [5, 7]), shard(&dir, 2, chunks, [5, 7])];
        let merged = merge(&runs, &dir.join("merged.jsonl")).unwrap();
        let r = &merged.results[0];
        assert_eq!((r.inputs, r.failed_inputs, r.failed_by_tier[&Tier::Must]), (12, 2, 2));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
