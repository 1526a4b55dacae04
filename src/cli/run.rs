//! `run` and `list`: a selection's checks, run with their results streamed to
//! `results.jsonl` and rendered, or listed.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use super::{Render, adapter_names, nothing_selected, show};
use crate::host::{AdapterSet, AdapterSpec, StartOptions};
use crate::platform::unix_now;
use crate::results::shard::ShardOfPlan;
use crate::results::{self, ResultsWriter, RunInfo};
use crate::run::select::Selection;
use crate::run::shard;
use crate::run::{RunOptions, run_streamed};
use crate::spec::Catalog;

/// Runs the checks, streaming each result to `out/results.jsonl`, then renders the report
/// from that file, as `report` would.
pub(super) fn run(
    catalog: &Catalog,
    set: &AdapterSet,
    selection: Selection,
    specs: &[AdapterSpec],
    out: &Path,
    options: &RunOptions,
    render: &Render,
) -> Result<u8, String> {
    let plan = selection.plan(catalog, &set.available(specs))?;
    if plan.is_empty() {
        return Ok(nothing_selected());
    }
    let named: Vec<String> = selection
        .adapters
        .iter()
        .map(|n| specs.iter().find(|s| &s.name == n).map_or(n.clone(), |s| format!("{n}={}", s.spec)))
        .collect();
    let units: Vec<String> = plan.iter().flat_map(shard::unit_keys).collect();
    let plan_hash = shard::plan_hash(catalog, &named, options, &units);
    let shard = selection.shard.map(|shard| ShardOfPlan { shard, units });
    let checks = selection.shard_of(plan);
    std::fs::create_dir_all(out)
        .map_err(|e| format!("--out {}: cannot write the report there: {e}", out.display()))?;
    let (adapters, unavailable) =
        set.start_for(&adapter_names(&checks), specs, &StartOptions::new(options.timeout))?;
    for (name, reason) in &unavailable {
        eprintln!("warning: {reason}; the checks of `{name}` are unavailable");
    }
    let versions = adapters.iter().map(|(n, a)| format!("{n}: {}", a.version())).collect();
    let new = RunInfo::new(
        catalog,
        options.table_seed,
        options.table_cases_per_row,
        versions,
        options.rerun.clone(),
    );
    let info = RunInfo { plan_hash, shard, ..new };
    let path = out.join("results.jsonl");
    let ids: Vec<_> = checks.iter().map(|c| c.id.clone()).collect();
    let writer = ResultsWriter::create(&path, &info, &ids, &catalog.sources)?;
    let names: Vec<&str> = adapters.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!(
        "running {} checks against {}; results go to {} as they finish",
        checks.len(),
        names.join(", "),
        path.display()
    );
    let started = Instant::now();
    let lost = Mutex::new(None);
    let reason = |c: &crate::run::Check| unavailable.iter().find(|(n, _)| c.id.adapter_name() == Some(n));
    let (not_run, checks): (Vec<_>, Vec<_>) = checks.into_iter().partition(|c| reason(c).is_some());
    for (c, (_, why)) in not_run.iter().filter_map(|c| reason(c).map(|r| (c, r))) {
        writer.check(&crate::run::unavailable(c, why))?;
    }
    run_streamed(catalog, &checks, &adapters, options, (checks.len() / 10).max(1), &|result| {
        if let Err(e) = writer.check(result) {
            lost.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
        }
    });
    if let Some(e) = lost.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    writer.finish(started.elapsed().as_secs_f64(), unix_now())?;
    if let (true, Some(s)) = (ids.is_empty(), &info.shard) {
        eprintln!(
            "shard {} has none of the plan's {} checks: {} records the plan alone, for `opspec merge`",
            s.shard,
            s.units.len(),
            path.display()
        );
        return Ok(0);
    }
    show(&[results::read(&path)?], out, render)
}

pub(super) fn list(
    catalog: &Catalog,
    set: &AdapterSet,
    selection: Selection,
    specs: &[AdapterSpec],
    planned: bool,
) -> Result<u8, String> {
    let plan = selection.plan(catalog, &set.available(specs))?;
    if plan.is_empty() {
        return Ok(nothing_selected());
    }
    // A shard with none of the plan's checks lists nothing, as `run` runs nothing.
    let checks = selection.shard_of(plan);
    let mut out = std::io::stdout().lock();
    for check in checks {
        let line = match (planned, check.planned) {
            (false, _) => check.id.to_string(),
            (true, Some(n)) => format!("{} {n}", check.id),
            (true, None) => format!("{} -", check.id),
        };
        // A closed pipe (`opspec list | head`) ends the listing, not the program.
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    Ok(0)
}
