//! `opspec merge`: the results files of one plan's shards (`run --shard I/N`) joined into the
//! run the whole plan would have written, with every unit no shard ran `missing`.
//!
//! The rules (`docs/SHARDING.md`): every file has the same plan hash and the same N (a run
//! without `--shard` is shard 1/1 of its plan); each shard's units are the ones the plan
//! assigns it; an adapter has one version across the files. A unit may come from two files
//! (a shard run twice, a retried pod): with the same status and number of failing inputs the
//! first file's result stands; otherwise the merge is refused, naming the unit. A unit in no
//! file, or only in files that ended before it ran, is `missing`.

use std::collections::btree_map::{BTreeMap, Entry};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::{ResultsWriter, Run};
use crate::run::shard::{Shard, shard_of};
use crate::run::{CheckId, CheckResult, Status};

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
        let owned = units.iter().filter(|u| shard.owns(u)).map(String::as_str);
        if !owned.eq(run.results.iter().map(|r| r.id.to_string())) {
            return Err(format!("{}: its checks are not the ones its plan assigns shard {shard}", name(run)));
        }
        given.insert(shard.index());
    }
    let adapters = adapter_versions(runs)?;
    let ran = ran_units(runs)?;
    let total = first_shard.total();
    let mut results = Vec::with_capacity(units.len());
    for key in &units {
        if let Some(r) = ran.get(key.as_str()) {
            results.push(r.clone());
            continue;
        }
        let id: CheckId = key.parse().map_err(|e| format!("{}: unit `{key}`: {e}", name(first)))?;
        let shard = Shard::new(shard_of(key, total), total)?;
        let why = match given.contains(&shard.index()) {
            true => "whose results end before it ran",
            false => "whose results were not given",
        };
        let mut missing = CheckResult::new(id);
        missing.status = Status::Missing;
        missing.message = format!("planned, but no shard ran it: it belongs to shard {shard}, {why}");
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
/// its plan, which is its own checks.
fn plan_of(run: &Run) -> Result<(Shard, Vec<String>), String> {
    if run.info.plan_hash.is_empty() {
        return Err(format!(
            "{}: no plan hash (written by an opspec that does not shard): run it again",
            name(run)
        ));
    }
    Ok(match &run.info.shard {
        Some(s) => (s.shard, s.units.clone()),
        None => (Shard::new(1, 1)?, run.results.iter().map(|r| r.id.to_string()).collect()),
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

/// Every unit some file ran (not `missing`), by key, with the first file's result; a unit
/// two files ran with another status or number of failing inputs is an error.
fn ran_units(runs: &[Run]) -> Result<HashMap<String, CheckResult>, String> {
    let mut ran: HashMap<String, (&CheckResult, &Run)> = HashMap::new();
    for run in runs {
        for r in run.results.iter().filter(|r| r.status != Status::Missing) {
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
