//! The verdict per adapter and suite: it conforms strictly, it conforms under the relaxation
//! profile its expectations file declares, or it does not conform. A profile never turns a
//! failed check into a passed one; it adds the second verdict.

use std::collections::BTreeMap;

use crate::results::{CheckResult, Status};

/// How one adapter fares on one suite.
#[derive(Debug, PartialEq, Eq)]
pub enum Conformance {
    /// Every check that ran passed.
    Strict,
    /// Some checks failed, and each passes under the profile: they are listed.
    UnderProfile { profile: String, checks: Vec<String> },
    /// `failing` checks did not pass, of which `under_profile` fail under the declared
    /// profile too (where one is declared).
    Not { failing: usize, under_profile: Option<(String, usize)> },
}

impl Conformance {
    /// The verdict as one line: `conforms strictly`, `conforms under profile daz+ftz (3
    /// checks pass only under it)`, `does not conform: 5 checks fail (4 under profile ftz)`.
    pub fn text(&self) -> String {
        match self {
            Conformance::Strict => "conforms strictly".into(),
            Conformance::UnderProfile { profile, checks } => {
                format!("conforms under profile {profile} ({} checks pass only under it)", checks.len())
            }
            Conformance::Not { failing, under_profile: None } => {
                format!("does not conform: {failing} checks did not pass")
            }
            Conformance::Not { failing, under_profile: Some((profile, n)) } => {
                format!(
                    "does not conform: {failing} checks did not pass ({n} fail under profile {profile} too)"
                )
            }
        }
    }
}

/// The verdict of every (suite, adapter) pair with at least one check that ran (not skipped);
/// table self-checks have no adapter and no verdict.
pub fn verdicts<'a>(
    results: impl IntoIterator<Item = &'a CheckResult>,
) -> BTreeMap<(&'a str, &'a str), Conformance> {
    let mut groups: BTreeMap<(&str, &str), Vec<&CheckResult>> = BTreeMap::new();
    for r in results {
        if r.id.adapter_name().is_some() && r.status != Status::Skip {
            groups.entry((r.id.suite_label(), r.id.adapter_label())).or_default().push(r);
        }
    }
    groups.into_iter().map(|(key, results)| (key, judge(&results))).collect()
}

fn judge(results: &[&CheckResult]) -> Conformance {
    let not_passed: Vec<&CheckResult> =
        results.iter().copied().filter(|r| r.status != Status::Pass).collect();
    if not_passed.is_empty() {
        return Conformance::Strict;
    }
    let profile = results.iter().find_map(|r| r.under_profile.as_ref()).map(|v| v.profile.to_string());
    let Some(profile) = profile else {
        return Conformance::Not { failing: not_passed.len(), under_profile: None };
    };
    let fails_under =
        not_passed.iter().filter(|r| !r.under_profile.as_ref().is_some_and(|v| v.passes)).count();
    if fails_under == 0 {
        let checks = not_passed.iter().map(|r| r.id.to_string()).collect();
        Conformance::UnderProfile { profile, checks }
    } else {
        Conformance::Not { failing: not_passed.len(), under_profile: Some((profile, fails_under)) }
    }
}
