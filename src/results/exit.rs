//! Exit codes: what a set of results amounts to, and the sentence that explains it
//! (`docs/RESULTS.md`).

use std::collections::BTreeMap;

use super::Status;
use super::file::Run;
use crate::spec::authority::Tier;

/// The exit code of a command and the sentence that explains it (`docs/RESULTS.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub code: u8,
    pub reason: String,
}

/// Exit code 1: a check failed.
pub const EXIT_FAIL: u8 = 1;
/// Exit code 2: bad input.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code 3: nothing was checked.
pub const EXIT_NOTHING_CHECKED: u8 = 3;
/// Exit code 4: a results file is incomplete.
pub const EXIT_INCOMPLETE: u8 = 4;

/// What `runs` amount to under `gate`: incomplete (4) before failed (1) before nothing
/// checked (3). Unless `allow_skips`, an adapter whose every check was skipped counts as
/// nothing checked.
pub fn verdict(runs: &[Run], allow_skips: bool, gate: Tier) -> Verdict {
    let results = || runs.iter().flat_map(|r| &r.results);
    if let Some(run) = runs.iter().find(|r| !r.complete) {
        let missing = run.results.iter().filter(|r| r.status == Status::Missing).count();
        return Verdict {
            code: EXIT_INCOMPLETE,
            reason: format!(
                "{} is incomplete (the run ended before its end record, or no shard ran them): \
                 {missing} planned checks never ran",
                run.path.display()
            ),
        };
    }
    let failed = results().filter(|r| r.fails(gate)).count();
    if failed > 0 {
        return Verdict { code: EXIT_FAIL, reason: format!("{failed} checks failed at gate {gate}") };
    }
    if results().next().is_none() {
        return Verdict {
            code: EXIT_NOTHING_CHECKED,
            reason: "no check was selected: nothing was checked".into(),
        };
    }
    if !allow_skips {
        let skipped = skipped_adapters(runs);
        if !skipped.is_empty() {
            return Verdict {
                code: EXIT_NOTHING_CHECKED,
                reason: format!(
                    "every check of adapter {} was skipped (pass --allow-skips to accept that)",
                    skipped.join(", ")
                ),
            };
        }
    }
    let below = results().filter(|r| r.status == Status::Fail).count();
    let reason = match below {
        0 => "every check passed or is a known deviation".to_string(),
        n => format!("{n} checks fail only bars below gate {gate}; the rest passed or are known deviations"),
    };
    Verdict { code: 0, reason }
}

/// The adapters whose every check was skipped: nothing of them was checked.
pub fn skipped_adapters(runs: &[Run]) -> Vec<&str> {
    let mut all_skipped: BTreeMap<&str, bool> = BTreeMap::new();
    for r in runs.iter().flat_map(|r| &r.results) {
        if let Some(a) = r.id.adapter_name() {
            *all_skipped.entry(a).or_insert(true) &= r.status == Status::Skip;
        }
    }
    all_skipped.into_iter().filter(|&(_, all)| all).map(|(a, _)| a).collect()
}
