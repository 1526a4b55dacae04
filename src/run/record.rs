//! Recording a check's outcome: counting inputs, listing failures as bug reports with the
//! one command that reproduces each, and citing the rule a check holds an adapter to.
//! Every family records through here, so every failure reads the same way.

use std::path::Path;

use serde_saphyr::Spanned;

use super::check::{CheckId, RunOptions};
use crate::bits::format::Format;
use crate::judge::accuracy::UlpTally;
use crate::judge::authority::Grade;
use crate::results::{BatchPlace, CaseFailure, CheckResult, Citation, Rerun, Status, UlpWorst};
use crate::spec::profile::Profile;

/// What reproduces a failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repro {
    /// `eval` of the check with these operand bits (element-wise and property checks, whose
    /// inputs `eval` regenerates).
    Element(Vec<u64>),
    /// The whole check (`run --exact`).
    Check,
    /// `eval` of another check with these operand bits (a sweep's failures: its `random`
    /// sibling evaluates any operands under the same expectations).
    Eval { id: CheckId, operands: Vec<u64> },
}

/// One failing input, before it is listed.
pub struct Failure {
    /// Operand descriptions, one per line.
    pub inputs: Vec<String>,
    pub expected: String,
    pub actual: String,
    /// Distance in representable steps from the expectation's centre, when it has one.
    pub steps: Option<u64>,
    /// The result's bits, where the result is one scalar.
    pub actual_bits: Option<u64>,
    pub repro: Repro,
    /// Where the input sat in its adapter call, where that is known.
    pub batch: Option<BatchPlace>,
}

/// A check's result while it runs.
pub struct Recorder<'a> {
    pub result: &'a mut CheckResult,
    max_listed: usize,
    rerun: &'a Rerun,
}

impl<'a> Recorder<'a> {
    pub fn new(result: &'a mut CheckResult, options: &'a RunOptions) -> Recorder<'a> {
        Recorder { result, max_listed: options.max_listed_failures, rerun: &options.rerun }
    }

    /// Counts `n` inputs as checked.
    pub fn checked(&mut self, n: usize) {
        self.result.inputs += n;
    }

    /// The relaxation profile the check's adapter declares, if it declares one.
    pub fn profile(&self) -> Option<&Profile> {
        self.result.under_profile.as_ref().map(|v| &v.profile)
    }

    /// Records `count` failing inputs of what the check's citation states (musts), listing
    /// `failure` in detail if fewer than the run's maximum are listed (it is only built then).
    /// They fail under the adapter's profile too.
    pub fn fail(&mut self, count: usize, failure: impl FnOnce() -> Failure) {
        self.fail_graded(count, Grade::cited(), false, failure);
    }

    /// Records `count` failing inputs whose results miss the bar `grade` names, and which the
    /// adapter's profile may allow. Where the list is full, a failure of a more authoritative
    /// tier takes the place of one of a less authoritative tier, and one the profile does not
    /// allow the place of one it allows, so that the list shows why the check fails.
    pub fn fail_graded(
        &mut self,
        count: usize,
        grade: Grade,
        allowed: bool,
        failure: impl FnOnce() -> Failure,
    ) {
        self.result.status = Status::Fail;
        self.result.failed_inputs += count;
        self.result.add_failed(grade.tier, count as u64);
        let profile_allows = self.result.under_profile.as_mut().map(|verdict| {
            if !allowed {
                verdict.failed_inputs += count;
            }
            allowed
        });
        let weaker = |f: &CaseFailure| {
            f.tier > grade.tier
                || (f.tier == grade.tier && profile_allows == Some(false) && f.profile_allows == Some(true))
        };
        let slot = if self.has_room() {
            self.result.failures.len()
        } else {
            match self.result.failures.iter().rposition(weaker) {
                Some(i) => i,
                None => return,
            }
        };
        let f = failure();
        let reproduce = match &f.repro {
            Repro::Element(operands) => self.rerun.eval_command(&self.result.id, operands),
            Repro::Check => self.rerun.run_command(&self.result.id),
            Repro::Eval { id, operands } => self.rerun.eval_command(id, operands),
        };
        let input_bits = match &f.repro {
            Repro::Element(operands) | Repro::Eval { operands, .. } => {
                operands.iter().map(|b| format!("{b:#x}")).collect()
            }
            Repro::Check => Vec::new(),
        };
        let listed = CaseFailure {
            inputs: f.inputs,
            input_bits,
            actual_bits: f.actual_bits.map(|b| format!("{b:#x}")),
            expected: f.expected,
            actual: f.actual,
            steps: f.steps,
            reproduce,
            profile_allows,
            tier: grade.tier,
            authority: grade.basis,
            batch: f.batch,
        };
        if slot == self.result.failures.len() {
            self.result.failures.push(listed);
        } else {
            self.result.failures[slot] = listed;
        }
    }

    /// Whether another failure would be listed in detail.
    pub fn has_room(&self) -> bool {
        self.result.failures.len() < self.max_listed
    }

    /// Sets the summary message, if a failure left none: "`failed` of `inputs` <what> gave a
    /// result the contract does not allow".
    pub fn finish(&mut self, what: &str) {
        if self.result.status == Status::Fail && self.result.message.is_empty() {
            self.result.message = format!(
                "{} of {} {what} gave a result the contract does not allow",
                self.result.failed_inputs, self.result.inputs
            );
        }
    }
}

/// The citation of a rule with permanent id `id` (as spelled in YAML, with its line) in the
/// table at `path` whose key is `table`: `source` is the document's title, `anchor` where in it.
pub fn citation(
    table: &str,
    id: &Spanned<String>,
    path: &Path,
    source: &str,
    anchor: &str,
    text: String,
) -> Citation {
    Citation {
        row: format!("{table}/{}", id.value),
        source: if anchor.is_empty() { source.to_string() } else { format!("{source}, {anchor}") },
        text,
        location: format!("{}:{}", path.display(), id.referenced.line()),
    }
}

/// Writes an approximate check's measured errors into `result`: `max_ulp_error`, `max_ulp_at`
/// and `ulp_histogram` (nothing where no result was measured). Where every result was
/// counted as correctly rounded without measuring, the largest error is given as 0.5.
pub fn write_accuracy(tally: &UlpTally, f: Format, result: &mut CheckResult) {
    let Some(histogram) = tally.histogram() else { return };
    let hex = |x: u64| format!("{x:#0w$x}", w = 2 + f.bits as usize / 4);
    match tally.worst() {
        Some((error, inputs, actual)) => {
            result.max_ulp_error = Some(error);
            result.max_ulp_at =
                Some(UlpWorst { inputs: inputs.iter().map(|&x| hex(x)).collect(), actual: hex(actual) });
        }
        None => result.max_ulp_error = Some(0.5),
    }
    result.ulp_histogram = Some(histogram.to_vec());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::check::CheckId;

    #[test]
    fn failures_beyond_the_limit_are_counted_not_listed() {
        let id = CheckId::adapter("numr", "cpu", "add", "f32", "edges");
        let mut result = CheckResult::new(id);
        let options = RunOptions { max_listed_failures: 2, ..RunOptions::default() };
        let mut rec = Recorder::new(&mut result, &options);
        rec.checked(10);
        let mut built = 0;
        for k in 0..3 {
            rec.fail(1, || {
                built += 1;
                Failure {
                    inputs: vec![],
                    expected: String::new(),
                    actual: String::new(),
                    steps: None,
                    actual_bits: None,
                    batch: None,
                    repro: if k == 0 { Repro::Element(vec![0x3c00, 0x1]) } else { Repro::Check },
                }
            });
        }
        rec.finish("inputs");
        assert_eq!(built, 2);
        assert_eq!((result.failed_inputs, result.failures.len()), (3, 2));
        assert_eq!(result.status, Status::Fail);
        assert_eq!(result.message, "3 of 10 inputs gave a result the contract does not allow");
        assert_eq!(result.failures[0].reproduce, "opspec eval numr:cpu:add:f32:edges 0x3c00 0x1");
        assert_eq!(result.failures[1].reproduce, "opspec run --exact numr:cpu:add:f32:edges");
    }
}
