//! Running one check, whatever its family: the result's frame, and the rule that a check
//! never panics: bad tables and misbehaving adapters become failures.

use std::sync::Arc;
use std::time::{Duration, Instant};

use opspec_adapter::{Adapter, Support};

use super::plan::{Check, Target};
use super::result::{CheckResult, KnownDeviation, Status};
use super::{broadcast, elementwise, promotion, property, scatter};
use crate::spec::Catalog;

/// Knobs of a run that are not part of a suite.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// How long one adapter call may take.
    pub timeout: Duration,
    /// How many failing inputs a result lists in detail.
    pub max_listed_failures: usize,
    /// Inputs per row for table self-checks.
    pub table_cases_per_row: usize,
    /// Seed for table self-checks.
    pub table_seed: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(120),
            max_listed_failures: 5,
            table_cases_per_row: 512,
            table_seed: 0x0995_ec00,
        }
    }
}

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
    let mut result = CheckResult {
        id: check.id.clone(),
        suite: check.suite.map_or("table".into(), |s| catalog.suites[s].suite.name.clone()),
        adapter: check.adapter.clone().unwrap_or_else(|| "oracle".into()),
        op: check.op.clone(),
        dtype: check.dtype.clone(),
        case: check.case.clone(),
        status: Status::Pass,
        inputs: 0,
        failed_inputs: 0,
        max_ulp_error: None,
        citation: None,
        message: String::new(),
        failures: Vec::new(),
        seconds: 0.0,
        deviation: None,
    };
    let adapter = match (&check.adapter, adapter) {
        (Some(name), None) => Err(format!("adapter `{name}` is not available")),
        (Some(_), Some(a)) => Ok(Some(a)),
        (None, _) => Ok(None),
    };
    let outcome = adapter.and_then(|adapter| {
        if let Some(reason) = adapter.and_then(|a| skip_reason(catalog, check, a.as_ref())) {
            result.status = Status::Skip;
            return Err(format!("skipped: {reason}"));
        }
        match &check.target {
            Target::Elementwise(t) => elementwise::run(catalog, check, t, adapter, options, &mut result),
            Target::Property(t) => property::run(catalog, check, t, adapter, options, &mut result),
            Target::Promotion(t) => match adapter {
                Some(a) => promotion::run(catalog, t, a, options, &mut result),
                None => Err("a promotion check needs an adapter".into()),
            },
            Target::Broadcast(t) => broadcast::run(catalog, check, t, adapter, options, &mut result),
            Target::Scatter(t) => scatter::run(catalog, check, t, adapter, options, &mut result),
        }
    });
    if let Err(message) = outcome {
        result.message = message;
        if result.status != Status::Skip {
            result.status = Status::Fail;
        }
    }
    result.seconds = started.elapsed().as_secs_f64();
    judge_expectation(catalog, &mut result);
    result
}

/// Applies the adapter's expectations file: a listed check that failed is an expected
/// failure; a listed check that passed fails, so that a fixed deviation is removed from the
/// file.
fn judge_expectation(catalog: &Catalog, result: &mut CheckResult) {
    let Some(listed) = catalog.expectations.listed(&result.id) else { return };
    let location = format!("{}:{}", listed.file.display(), listed.line);
    match result.status {
        Status::Fail => result.status = Status::ExpectedFail,
        Status::Pass => {
            result.status = Status::Fail;
            result.message = format!(
                "listed as a known deviation in {location}, but passed: the deviation is gone, remove the entry"
            );
        }
        Status::Skip | Status::ExpectedFail => {}
    }
    result.deviation = Some(KnownDeviation {
        location,
        does: listed.deviation.does.clone(),
        why: listed.deviation.why.clone(),
    });
}
