//! What one check amounts to: its verdict under the adapter's relaxation profile, its
//! expectations entry (known, stale, flaky, of another tier, or describing another failure),
//! and whether it fails a gate.

use crate::results::{CheckResult, KnownDeviation, Status};
use crate::spec::Catalog;
use crate::spec::aliases::old_ids;
use crate::spec::authority::Tier;
use crate::spec::broadcast::ValueCases;
use crate::spec::expectations::Tolerance;
use crate::spec::failure::Failure;
use crate::spec::id::CheckId;

impl CheckResult {
    /// The most authoritative tier a check that did not pass fails: its failures', a must
    /// where it records none (an error, a stale expectations entry, a check that never ran).
    pub fn failed_tier(&self) -> Tier {
        match self.status {
            Status::Fail | Status::KnownDeviation => self.tier.unwrap_or(Tier::Must),
            _ => Tier::Must,
        }
    }

    /// Whether the check fails a run gated at `gate`: it failed a bar of `gate`'s tier or a
    /// more authoritative one, or it never ran (`docs/RESULTS.md`). A skip and a known
    /// deviation do not.
    pub fn fails(&self, gate: Tier) -> bool {
        match self.status {
            Status::Fail => self.failed_tier() <= gate,
            Status::Missing | Status::Unavailable => true,
            Status::Pass | Status::Skip | Status::KnownDeviation => false,
        }
    }
}

/// Why every bar of check `id` is opspec's, where it is: its dtype is one its suite's
/// document does not name (`authority.unnamed_dtypes`); it checks the values of named
/// tensors, which the named-axes seed does not state (it states shapes and error codes); or
/// it is a broadcasting vector pinning a decision that no document the suite owns settles.
pub fn whole_check_opspec_bar(catalog: &Catalog, id: &CheckId) -> Option<String> {
    let loaded = catalog.suite(id.suite()?)?;
    let suite = &loaded.suite;
    if let Some(unnamed) = suite.authority.unnamed(&id.dtype) {
        return Some(format!(
            "opspec's bar: the {} suite applies its document's rules to {}, a dtype the document does not name: {}",
            suite.name,
            id.dtype,
            unnamed.quoted()
        ));
    }
    if ValueCases::names_named(&id.case) {
        return Some(format!(
            "opspec's bar: the element values of named tensors, judged by the array API's element-wise tables; {} states shapes and error codes only",
            suite.title
        ));
    }
    let decision = loaded
        .broadcasting
        .iter()
        .map(|&b| &catalog.broadcasting[b])
        .find(|t| t.name == id.op)
        .and_then(|t| t.decision_of(&id.case))?;
    let settled = decision.settled_by.as_ref().filter(|s| suite.authority.owns(&s.source));
    settled.is_none().then(|| {
        format!(
            "opspec's reading: decision `{}` (\"{}\"), where the {} suite's document leaves open: {}",
            decision.id.value, decision.decision, suite.name, decision.question
        )
    })
}

/// Grades every failure of `result` at opspec's bar, for `basis`, except a call that gave no
/// result (a crash or a hang), which fails a must whatever the bar (docs/AUTHORITY.md, rule 6).
pub fn grade_at_opspec_bar(result: &mut CheckResult, basis: &str) {
    if result.status != Status::Fail || matches!(result.failure, Some(Failure::Crash | Failure::Hang)) {
        return;
    }
    let failed: u64 = result.failed_by_tier.values().sum();
    result.failed_by_tier.clear();
    if failed > 0 {
        result.failed_by_tier.insert(Tier::Quality, failed);
    }
    result.tier = Some(Tier::Quality);
    for f in &mut result.failures {
        f.tier = Tier::Quality;
        f.authority = basis.to_string();
    }
}

/// Completes the verdict under the adapter's profile: a check that passed passes under it; one
/// that failed passes under it when it ran to the end and the profile allows every failing
/// input's result. A skipped check has no such verdict.
pub fn judge_profile(result: &mut CheckResult, completed: bool) {
    let (status, failed) = (result.status, result.failed_inputs);
    if status == Status::Skip {
        result.under_profile = None;
    } else if let Some(verdict) = result.under_profile.as_mut() {
        verdict.passes = status == Status::Pass || (completed && failed > 0 && verdict.failed_inputs == 0);
    }
}

/// Applies the adapter's expectations file: a listed check that failed as its entry states
/// (the failure, the tier, within the tolerance) is a known deviation; one that failed
/// otherwise stays a failure, its message saying how it differs; a listed check that passed
/// fails, so that a fixed deviation is removed from the file, unless its entry is `flaky`.
pub fn judge_expectation(catalog: &Catalog, result: &mut CheckResult) {
    let listed = catalog.expectations.listed(&result.id.to_string()).or_else(|| {
        old_ids(catalog, &result.id).iter().find_map(|old| catalog.expectations.listed(&old.to_string()))
    });
    let Some(listed) = listed else { return };
    let location = format!("{}:{}", listed.file.display(), listed.line);
    let deviation = listed.deviation;
    let tier = deviation.tier;
    // A flaky entry's deviation shows in some runs only: a run may show only a weaker part of it.
    let weaker_and_flaky = result.failed_tier() > tier && deviation.flaky;
    let failure = result.failure.clone().unwrap_or(Failure::Other);
    match result.status {
        Status::Fail if !deviation.fails.list().contains(&failure) => {
            result.message = format!(
                "{}; listed as a known deviation in {location} that fails with {}, but this is a new \
                 failure: {failure}",
                result.message,
                deviation.fails.text()
            );
        }
        Status::Fail if result.failed_tier() != tier && !weaker_and_flaky => {
            result.message = format!(
                "{}; listed as a known deviation of tier {tier} in {location}, but it fails a {}: correct the entry's tier",
                result.message,
                result.failed_tier()
            );
        }
        Status::Fail => match beyond_tolerance(&deviation.tolerate, result) {
            None => result.status = Status::KnownDeviation,
            Some(grown) => {
                result.message =
                    format!("{}; listed as a known deviation in {location}, but {grown}", result.message)
            }
        },
        Status::Pass if deviation.flaky => {
            result.message = format!("listed as a flaky deviation in {location}: passed this time");
        }
        Status::Pass => {
            (result.status, result.tier) = (Status::Fail, Some(Tier::Must));
            result.message = format!(
                "listed as a known deviation in {location}, but passed: the deviation is gone, remove the entry"
            );
        }
        Status::Skip | Status::KnownDeviation | Status::Missing | Status::Unavailable => {}
    }
    result.deviation =
        Some(KnownDeviation { location, does: deviation.does.clone(), why: deviation.why.clone() });
}

/// How a failed check went past its entry's bounds, if it did.
fn beyond_tolerance(t: &Tolerance, result: &CheckResult) -> Option<String> {
    if let Some(n) = t.failed_inputs
        && result.failed_inputs > n
    {
        return Some(format!("{} inputs failed where the entry tolerates {n}", result.failed_inputs));
    }
    match (t.max_ulp, result.max_ulp_error) {
        (Some(bound), Some(e)) if e > bound => {
            Some(format!("its largest error is {e:.3} ulp where the entry tolerates {bound} ulp"))
        }
        _ => None,
    }
}
