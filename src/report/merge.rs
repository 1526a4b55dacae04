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
//! order (cases, failures, failures per row, the first failures listed), as the unsharded
//! run would have. A sweep with a chunk that no file holds is `missing`, its message naming
//! every such chunk and its shard.

use std::collections::btree_map::{BTreeMap, Entry};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use crate::results::shard::{Shard, chunk_key, shard_of, split_key};
use crate::results::{CheckResult, ChunkResult, Status};
use crate::results::{ResultsWriter, Run};
use crate::run::{RunOptions, sweep_message};
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
            results.push(sweep(id, chunks, runs, &whose)?);
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

/// The merged result of sweep `id` over `chunks`: its records' chunk counts added up in chunk
/// order, or `missing` with every chunk no file holds, and the shard it belongs to
/// (`whose` of its key). A record without chunks (the sweep failed with an error, or was
/// skipped) stands for the whole sweep.
fn sweep(
    id: CheckId,
    chunks: &[u64],
    runs: &[Run],
    whose: &dyn Fn(&str) -> Result<String, String>,
) -> Result<CheckResult, String> {
    let key = id.to_string();
    let records: Vec<&CheckResult> =
        runs.iter().flat_map(|r| &r.results).filter(|r| r.id == id && r.status != Status::Missing).collect();
    if let Some(whole) = records.iter().find(|r| r.chunks.is_empty()) {
        return Ok((*whole).clone());
    }
    // Each chunk's counts, and the record (by index) whose failures list its first failures.
    let mut found: BTreeMap<u64, (&ChunkResult, usize)> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        for c in &r.chunks {
            match found.entry(c.chunk) {
                Entry::Vacant(e) => {
                    e.insert((c, i));
                }
                Entry::Occupied(e) if (e.get().0.cases, e.get().0.failed) != (c.cases, c.failed) => {
                    return Err(format!(
                        "chunk `{}` has two results: {} and {} failing of {} cases",
                        chunk_key(&key, c.chunk),
                        e.get().0.failed,
                        c.failed,
                        c.cases
                    ));
                }
                Entry::Occupied(_) => {}
            }
        }
    }
    let absent: Vec<u64> = chunks.iter().copied().filter(|k| !found.contains_key(k)).collect();
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
    // The template: the first record that did not pass, else the first. A listed sweep's shard
    // whose chunks all passed says "listed, but passed"; the other shards' failures decide.
    let passed_though_listed = |r: &&CheckResult| r.deviation.is_some() && r.failed_inputs == 0;
    let template = records
        .iter()
        .find(|r| r.status != Status::Pass && !passed_though_listed(r))
        .or(records.first())
        .ok_or("no record")?;
    let mut merged = (*template).clone();
    // Shards of one plan list as many failures per check as the CLI's runs do.
    let cap = RunOptions::default().max_listed_failures;
    let mut offsets = vec![0usize; records.len()];
    let (mut cases, mut failed) = (0u64, 0u64);
    let (mut by_row, mut failures, mut merged_chunks) = (BTreeMap::new(), Vec::new(), Vec::new());
    for &k in chunks {
        let (c, i) = found[&k];
        cases += c.cases;
        failed += c.failed;
        for (row, n) in &c.by_row {
            *by_row.entry(row.clone()).or_default() += n;
        }
        let own = records[i].failures.iter().skip(offsets[i]).take(c.listed);
        offsets[i] += c.listed;
        let room = cap.saturating_sub(failures.len());
        let before = failures.len();
        failures.extend(own.take(room).cloned());
        merged_chunks.push(ChunkResult { listed: failures.len() - before, ..c.clone() });
    }
    merged.planned_inputs = usize::try_from(cases).ok();
    merged.inputs = usize::try_from(cases).unwrap_or(usize::MAX);
    merged.failed_inputs = usize::try_from(failed).unwrap_or(usize::MAX);
    merged.seconds = records.iter().map(|r| r.seconds).sum();
    let plain = match merged.status {
        Status::Pass | Status::KnownDeviation => true,
        Status::Fail => merged.deviation.is_none(),
        _ => false,
    };
    if plain {
        merged.message = sweep_message(&id.dtype, cases, failed, &by_row);
    }
    merged.failed_by_row = by_row;
    merged.failures = failures;
    merged.chunks = merged_chunks;
    Ok(merged)
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
