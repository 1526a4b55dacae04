//! Running one check, whatever its family: the result's frame, and the rule that a check
//! never panics: bad tables and misbehaving adapters become failures.

use std::sync::Arc;
use std::time::Instant;

use opspec_adapter::{Adapter, Support};

use super::check::{Check, RunOptions, Target};
use super::elementwise;
use super::{broadcast, complex, promotion, scatter};
use crate::host::warnings;
use crate::results::{CheckResult, ProfileVerdict, Status};
use crate::spec::Catalog;
use crate::spec::authority::Tier;
use crate::spec::failure::Failure;
use crate::verdict::check::{grade_at_opspec_bar, judge_expectation, judge_profile, whole_check_opspec_bar};

/// Why `adapter` cannot take `check` (an unsupported operation or dtype, no shape checker),
/// if it cannot. Asked before a check runs, so that a skip is known when checks are listed.
pub fn skip_reason(catalog: &Catalog, check: &Check, adapter: &dyn Adapter) -> Option<String> {
    if let Some((op, dtype)) = check.needs
        && let Support::Unsupported(reason) = adapter.supports(op, dtype)
    {
        return Some(reason);
    }
    match &check.target {
        Target::Broadcast(t) => broadcast::skip_reason(catalog, check, t, adapter),
        Target::Promotion(t) => promotion::skip_reason(catalog, t, adapter),
        _ => None,
    }
}

/// Runs `check`; `adapter` must be given for adapter checks and is ignored for table
/// self-checks.
pub fn run_check(
    catalog: &Catalog,
    check: &Check,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
) -> CheckResult {
    let started = Instant::now();
    let mut result = CheckResult::new(check.id.clone());
    result.planned_inputs = check.planned;
    result.under_profile = check
        .id
        .adapter_name()
        .and_then(|a| catalog.expectations.profile(a))
        .map(|profile| ProfileVerdict { profile, failed_inputs: 0, passes: false });
    let adapter = match (check.id.adapter_name(), adapter) {
        (Some(name), None) => Err(format!("adapter `{name}` is not available")),
        (Some(_), Some(a)) => Ok(Some(a)),
        (None, _) => Ok(None),
    };
    let (outcome, warned) = warnings::collect(|| {
        adapter.and_then(|adapter| {
            if let Some(reason) = adapter.and_then(|a| skip_reason(catalog, check, a.as_ref())) {
                result.status = Status::Skip;
                return Err(format!("skipped: {reason}"));
            }
            let needs_adapter = |what: &str| format!("{}: a {what} check needs an adapter", check.id);
            match (&check.target, adapter) {
                (Target::Elementwise(kind), a) => {
                    elementwise::run_kind(catalog, check, kind, a, options, &mut result)
                }
                (Target::Broadcast(t), a) => broadcast::run(catalog, check, t, a, options, &mut result),
                (Target::Scatter(t), a) => scatter::run(catalog, check, t, a, options, &mut result),
                (Target::Promotion(t), Some(a)) => promotion::run(catalog, t, a, options, &mut result),
                (Target::Complex(t), Some(a)) => complex::run(catalog, check, t, a, options, &mut result),
                (Target::Promotion(_), None) => Err(needs_adapter("promotion")),
                (Target::Complex(_), None) => Err(needs_adapter("complex")),
            }
        })
    });
    result.warnings = warned;
    let completed = outcome.is_ok();
    match outcome {
        Err(message) if result.status != Status::Skip => {
            // An error, a crash, or a result of the wrong dtype or shape: no graded input, a must.
            (result.status, result.tier) = (Status::Fail, Some(Tier::Must));
            result.failure = Some(Failure::of_stop(&message));
            result.message = message;
        }
        Err(message) => result.message = message,
        Ok(()) if result.status == Status::Fail => result.failure = Some(graded_failure(&result)),
        Ok(()) => {}
    }
    if let Some(basis) = whole_check_opspec_bar(catalog, &result.id) {
        grade_at_opspec_bar(&mut result, &basis);
    }
    judge_profile(&mut result, completed);
    result.seconds = started.elapsed().as_secs_f64();
    judge_expectation(catalog, &mut result);
    result
}

/// How a check that ran to its end failed: on values, unless every input it lists is a call
/// that gave no value (a by-zero check whose document leaves the outcome undefined grades
/// that as an input), whose stop is then the failure.
fn graded_failure(result: &CheckResult) -> Failure {
    let mut stops = result.failures.iter().map(|f| Failure::of_stop(&f.actual));
    match stops.next() {
        Some(first) if first != Failure::Other && stops.all(|s| s == first) => first,
        _ => Failure::Values,
    }
}

/// The result of a check whose adapter could not be started: `unavailable`, with the reason
/// (`docs/RESULTS.md`).
pub fn unavailable(check: &Check, reason: &str) -> CheckResult {
    let mut result = CheckResult::new(check.id.clone());
    result.planned_inputs = check.planned;
    result.status = Status::Unavailable;
    result.message = format!("not run: the adapter could not be started: {reason}");
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::adapter_checks;
    use opspec_adapter::{AdapterError, BinaryOp, DType, OpKind, Tensor, UnaryOp};
    use opspec_cpu::CpuAdapter;

    /// The CPU adapter, warning at every binary call (as a worker's reply would have it).
    struct Warns;

    impl Adapter for Warns {
        fn name(&self) -> &str {
            "warns"
        }

        fn version(&self) -> String {
            "warns 0".into()
        }

        fn supports(&self, op: OpKind, dtype: DType) -> Support {
            CpuAdapter.supports(op, dtype)
        }

        fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
            warnings::raise([format!("UserWarning: {op} is lossy"), "UserWarning: slow".to_string()]);
            CpuAdapter.binary(op, a, b)
        }

        fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
            CpuAdapter.unary(op, x)
        }
    }

    #[test]
    fn a_checks_record_holds_the_warnings_of_its_own_calls_once() {
        let catalog = Catalog::builtin().unwrap();
        let checks = adapter_checks(&catalog, &["warns".to_string()]);
        let adapter: Arc<dyn Adapter> = Arc::new(Warns);
        let run = |id: &str| {
            let check = checks.iter().find(|c| c.id.to_string() == id).unwrap();
            run_check(&catalog, check, Some(&adapter), &RunOptions::default())
        };
        // Many calls, each warning twice over: each text once, in order.
        let layouts = run("array-api:warns:add:f32:layouts");
        assert_eq!(layouts.status, Status::Pass, "{}", layouts.message);
        assert_eq!(layouts.warnings, ["UserWarning: add is lossy", "UserWarning: slow"]);
        let report = layouts.report(&Default::default());
        assert!(report.contains("\n  library warning: UserWarning: slow\n"), "{report}");
        // Another check's calls: its own warnings only.
        assert_eq!(run("array-api:warns:multiply:f32:edges").warnings[0], "UserWarning: multiply is lossy");
        assert!(run("array-api:warns:sqrt:f32:edges").warnings.is_empty());
    }
}
