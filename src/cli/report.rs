//! `report`, `merge` and `diff`: results files rendered, shards joined, two runs compared.

use std::path::{Path, PathBuf};

use super::{MISSING_LISTED, Render, say};
use crate::report::{self, terminal_summary};
use crate::results;
use crate::verdict;

/// `merge`: joins the shards' results into `out/results.jsonl`, names the checks no shard
/// ran, and renders the report as `report` would.
pub(super) fn merge(shards: &[PathBuf], out: &Path, render: &Render) -> Result<u8, String> {
    std::fs::create_dir_all(out)
        .map_err(|e| format!("--out {}: cannot write the merged results there: {e}", out.display()))?;
    let path = out.join("results.jsonl");
    let merged = report::merge(shards, &path, MISSING_LISTED)?;
    if merged.missing > 0 {
        eprintln!("{} of the plan's {} checks were run by no shard:", merged.missing, merged.checks);
        for r in &merged.first_missing {
            eprintln!("  missing {}: {}", r.id, r.message);
        }
        if merged.missing > MISSING_LISTED {
            eprintln!(
                "  … and {} more, each `missing` in {}",
                merged.missing - MISSING_LISTED,
                path.display()
            );
        }
    }
    show(&[results::read(&path)?], out, render)
}

/// Prints the summary of `runs`, writes their report into `out`, and returns the exit code.
/// One run given twice is refused.
pub(super) fn show(runs: &[results::Run], out: &Path, render: &Render) -> Result<u8, String> {
    results::distinct(&runs.iter().collect::<Vec<_>>())?;
    say(&terminal_summary(runs, render.verbose, render.gate)?);
    report::write(out, runs, render.gate, render.github_summary.as_deref())?;
    say(&format!(
        "report: {} (JUnit: {})\n",
        out.join("index.html").display(),
        out.join("junit.xml").display()
    ));
    let verdict = verdict::exit(runs, render.allow_skips, render.gate)?;
    if verdict.code != 0 {
        eprintln!("{}", verdict.reason);
    }
    Ok(verdict.code)
}

/// `diff`: the changes as text (and HTML); exit 1 on a new failure. A run compared with
/// itself is refused: it would show no change, whatever the run.
pub(super) fn compare(old: &Path, new: &Path, html: Option<&Path>) -> Result<u8, String> {
    let (a, b) = (results::read(old)?, results::read(new)?);
    results::distinct(&[&a, &b])?;
    let d = report::diff(&a, &b)?;
    say(&d.text());
    if let Some(path) = html {
        let page = d.html(&old.display().to_string(), &new.display().to_string());
        std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let incomplete = [&a, &b].into_iter().find(|r| !r.complete);
    Ok(match incomplete {
        _ if d.regressed() => verdict::EXIT_FAIL,
        Some(r) => {
            eprintln!("{} is incomplete: the comparison covers only the checks it ran", r.path.display());
            verdict::EXIT_INCOMPLETE
        }
        None => 0,
    })
}
