//! Results on disk and what is rendered from them: `results.jsonl` (the record, written as
//! the run goes, or joined from shards by [`merge`]), `index.html`, `junit.xml`, the
//! compliance table as `compliance.json` and `compliance.csv`, the accuracy table as
//! `accuracy.csv` and `accuracy.md` (where some check has ULP data), and an optional Markdown
//! summary. `opspec run` reads its own results file back and renders it
//! with the same code as `opspec report`.

mod accuracy;
mod compliance;
mod diff;
mod html;
mod junit;
mod merge;
mod summary;
mod tally;

use std::collections::BTreeMap;
use std::path::Path;

pub use diff::{Diff, diff};
pub use html::escape;
pub use merge::{Merged, merge};
pub use summary::{github_summary, terminal_summary};
pub use tally::Tally;

use crate::results::{CheckResult, Rerun, Run};
use crate::spec::authority::Tier;

/// Writes `index.html`, `junit.xml`, `compliance.json` and `compliance.csv` for `runs` into
/// `dir` (created if missing), and `accuracy.csv` and `accuracy.md` where some check has ULP
/// data, and the Markdown summary to `github_summary` if given; JUnit
/// fails the checks `gate` fails. The pages are written as the checks are read: a pass over
/// the runs for the page's summaries, one for its data, one for JUnit's counts and one per
/// JUnit test suite (one more for the Markdown summary).
pub fn write(dir: &Path, runs: &[Run], gate: Tier, github_summary: Option<&Path>) -> Result<(), String> {
    let fail = |path: &Path, e: std::io::Error| format!("cannot write {}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let (cells, accuracy) = html::write(&dir.join("index.html"), runs)?;
    junit::write(&dir.join("junit.xml"), runs, gate)?;
    let json = dir.join("compliance.json");
    let text = compliance::json(&cells).map_err(|e| fail(&json, e.into()))?;
    std::fs::write(&json, text).map_err(|e| fail(&json, e))?;
    let csv = dir.join("compliance.csv");
    std::fs::write(&csv, compliance::csv(&cells)).map_err(|e| fail(&csv, e))?;
    if !accuracy.is_empty() {
        let csv = dir.join("accuracy.csv");
        std::fs::write(&csv, accuracy.csv()).map_err(|e| fail(&csv, e))?;
        let md = dir.join("accuracy.md");
        std::fs::write(&md, accuracy.markdown()).map_err(|e| fail(&md, e))?;
    }
    if let Some(path) = github_summary {
        std::fs::write(path, summary::github_summary(runs, gate)?).map_err(|e| fail(path, e))?;
    }
    Ok(())
}

/// Calls `f` with every check of `runs`, owned, and the index of its run: one pass over each
/// run's file.
fn each_check(
    runs: &[Run],
    mut f: impl FnMut(usize, CheckResult) -> Result<(), String>,
) -> Result<(), String> {
    for (i, run) in runs.iter().enumerate() {
        for r in run.checks() {
            f(i, r?)?;
        }
    }
    Ok(())
}

/// How to rerun each adapter's checks (by adapter label): as the first run that checked the
/// adapter ran them.
#[derive(Debug, Default)]
struct Reruns(BTreeMap<String, usize>);

impl Reruns {
    /// Adds a check of run `run`.
    fn add(&mut self, run: usize, r: &CheckResult) {
        if !self.0.contains_key(r.id.adapter_label()) {
            self.0.insert(r.id.adapter_label().to_string(), run);
        }
    }

    /// The rerun commands of `adapter`'s checks, from `runs` (the runs added).
    fn get<'a>(&self, runs: &'a [Run], adapter: &str) -> Option<&'a Rerun> {
        self.0.get(adapter).and_then(|&i| runs.get(i)).map(|run| &run.info.rerun)
    }
}
