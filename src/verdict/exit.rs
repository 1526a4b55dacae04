//! Exit codes: what a set of results amounts to, and the sentence that explains it
//! (`docs/RESULTS.md`).

use std::collections::BTreeMap;

use crate::results::{CheckResult, Run, Status};
use crate::spec::authority::Tier;

/// The exit code of a command and the sentence that explains it (`docs/RESULTS.md`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
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
/// nothing checked. One pass over the runs' checks.
pub fn exit(runs: &[Run], allow_skips: bool, gate: Tier) -> Result<Exit, String> {
    let (mut any, mut failed, mut below, mut skipped) = (false, 0usize, 0usize, SkippedAdapters::default());
    for run in runs {
        let mut missing = 0usize;
        for r in run.checks() {
            let r = r?;
            any = true;
            failed += usize::from(r.fails(gate));
            below += usize::from(r.status == Status::Fail);
            missing += usize::from(r.status == Status::Missing);
            skipped.add(&r);
        }
        if !run.complete {
            return Ok(Exit {
                code: EXIT_INCOMPLETE,
                reason: format!(
                    "{} is incomplete (the run ended before its end record, or no shard ran them): \
                     {missing} planned checks never ran",
                    run.path.display()
                ),
            });
        }
    }
    if failed > 0 {
        return Ok(Exit { code: EXIT_FAIL, reason: format!("{failed} checks failed at gate {gate}") });
    }
    if !any {
        return Ok(Exit {
            code: EXIT_NOTHING_CHECKED,
            reason: "no check was selected: nothing was checked".into(),
        });
    }
    if !allow_skips {
        let skipped = skipped.finish();
        if !skipped.is_empty() {
            return Ok(Exit {
                code: EXIT_NOTHING_CHECKED,
                reason: format!(
                    "every check of adapter {} was skipped (pass --allow-skips to accept that)",
                    skipped.join(", ")
                ),
            });
        }
    }
    let reason = match below {
        0 => "every check passed or is a known deviation".to_string(),
        n => format!("{n} checks fail only bars below gate {gate}; the rest passed or are known deviations"),
    };
    Ok(Exit { code: 0, reason })
}

/// The adapters whose every check was skipped: nothing of them was checked.
#[derive(Debug, Default)]
pub struct SkippedAdapters(BTreeMap<String, bool>);

impl SkippedAdapters {
    /// Adds one check.
    pub fn add(&mut self, r: &CheckResult) {
        if let Some(a) = r.id.adapter_name() {
            let all = self.0.entry(a.to_string()).or_insert(true);
            *all &= r.status == Status::Skip;
        }
    }

    /// Those adapters, in name order.
    pub fn finish(self) -> Vec<String> {
        self.0.into_iter().filter(|&(_, all)| all).map(|(a, _)| a).collect()
    }
}
