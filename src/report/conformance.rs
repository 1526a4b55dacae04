//! The verdict ladder per adapter and suite (`docs/AUTHORITY.md`): it **conforms** when no
//! check fails a must of the document, meets the **recommendations** when none fails a should
//! either, and meets opspec's **quality** bars when nothing fails. A relaxation profile the
//! adapter declares adds a second verdict on the musts; it never turns a failed check into a
//! passed one.

use std::collections::BTreeMap;

use crate::results::{CheckResult, Status};
use crate::spec::authority::Tier;

/// How one adapter fares on one suite.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Conformance {
    /// Checks that did not pass (known deviations included), by the most authoritative tier
    /// they fail; a check that did not run counts as a must.
    pub failing: BTreeMap<Tier, usize>,
    /// The profile the adapter declares, if it does, with the checks failing a must that pass
    /// under it, and how many fail under it too.
    pub profile: Option<ProfileVerdict>,
}

/// The musts judged under a declared profile.
#[derive(Debug, PartialEq, Eq)]
pub struct ProfileVerdict {
    pub profile: String,
    pub passing: Vec<String>,
    pub failing: usize,
}

impl Conformance {
    /// How many checks fail `tier` at most (as their most authoritative failure).
    pub fn count(&self, tier: Tier) -> usize {
        self.failing.get(&tier).copied().unwrap_or(0)
    }

    /// Whether no check fails a must, or each that does passes under the declared profile.
    pub fn conforms(&self) -> bool {
        self.count(Tier::Must) == 0 || self.profile.as_ref().is_some_and(|p| p.failing == 0)
    }

    /// The ladder as one line: `conforms; recommendations met; 3 checks miss opspec's bars`,
    /// `does not conform: 5 checks fail a must (4 under profile ftz too); …`.
    pub fn text(&self) -> String {
        let (must, should, quality) =
            (self.count(Tier::Must), self.count(Tier::Should), self.count(Tier::Quality));
        let mut out = match (&self.profile, must) {
            (_, 0) => "conforms".to_string(),
            (Some(p), _) if p.failing == 0 => {
                format!(
                    "conforms under profile {} ({must} checks fail a must, each passes under it)",
                    p.profile
                )
            }
            (Some(p), _) => format!(
                "does not conform: {must} checks fail a must ({} under profile {} too)",
                p.failing, p.profile
            ),
            (None, _) => format!("does not conform: {must} checks fail a must"),
        };
        out += &match should {
            0 => "; recommendations met".to_string(),
            n => format!("; {n} checks miss a recommendation"),
        };
        out += &match quality {
            0 => "; opspec's bars met".to_string(),
            n => format!("; {n} checks miss only opspec's bars"),
        };
        out
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
    let mut verdict = Conformance::default();
    let mut musts = Vec::new();
    for r in results.iter().filter(|r| r.status != Status::Pass) {
        let tier = r.failed_tier();
        *verdict.failing.entry(tier).or_default() += 1;
        if tier == Tier::Must {
            musts.push(*r);
        }
    }
    verdict.profile = results.iter().find_map(|r| r.under_profile.as_ref()).map(|v| {
        let (passing, failing): (Vec<&CheckResult>, Vec<&CheckResult>) =
            musts.iter().partition(|r| r.under_profile.as_ref().is_some_and(|v| v.passes));
        ProfileVerdict {
            profile: v.profile.to_string(),
            passing: passing.iter().map(|r| r.id.to_string()).collect(),
            failing: failing.len(),
        }
    });
    verdict
}
