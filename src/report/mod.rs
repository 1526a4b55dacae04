//! Results on disk and what is rendered from them: `results.jsonl` (the record, written as
//! the run goes, or joined from shards by [`merge`]), `index.html`, `junit.xml`, the
//! compliance table as `compliance.json` and `compliance.csv`, and an optional Markdown
//! summary. `opspec run` reads its own results file back and renders it
//! with the same code as `opspec report`.

mod compliance;
mod conformance;
mod diff;
mod html;
mod junit;
mod merge;
mod summary;
mod tally;

use std::path::Path;

pub use conformance::{Conformance, verdicts};
pub use diff::{Diff, diff};
pub use html::escape;
pub use merge::{Merged, merge};
pub use summary::{github_summary, terminal_summary};
pub use tally::Tally;

use crate::results::Run;
use crate::spec::authority::Tier;

/// Writes `index.html`, `junit.xml`, `compliance.json` and `compliance.csv` for `runs` into
/// `dir` (created if missing), and the Markdown summary to `github_summary` if given; JUnit
/// fails the checks `gate` fails.
pub fn write(dir: &Path, runs: &[Run], gate: Tier, github_summary: Option<&Path>) -> Result<(), String> {
    let fail = |path: &Path, e: std::io::Error| format!("cannot write {}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let html = dir.join("index.html");
    std::fs::write(&html, html::render(runs)).map_err(|e| fail(&html, e))?;
    let xml = dir.join("junit.xml");
    std::fs::write(&xml, junit::render(runs, gate)).map_err(|e| fail(&xml, e))?;
    let cells = compliance::cells(runs.iter().flat_map(|r| &r.results));
    let json = dir.join("compliance.json");
    let text = compliance::json(&cells).map_err(|e| fail(&json, e.into()))?;
    std::fs::write(&json, text).map_err(|e| fail(&json, e))?;
    let csv = dir.join("compliance.csv");
    std::fs::write(&csv, compliance::csv(&cells)).map_err(|e| fail(&csv, e))?;
    if let Some(path) = github_summary {
        std::fs::write(path, summary::github_summary(runs, gate)).map_err(|e| fail(path, e))?;
    }
    Ok(())
}
