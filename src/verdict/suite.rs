//! The verdict of a suite × adapter pair: the [ladder](super::ladder) over its checks. A
//! relaxation profile the adapter declares adds a second verdict on the musts; it never turns a
//! failed check into a passed one.

use std::collections::BTreeMap;

use super::ladder::{Counts, Rung};
use crate::results::{CheckResult, Status};
use crate::spec::authority::Tier;

/// How one adapter fares on one suite.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Conformance {
    /// Its checks, counted for the ladder (skipped ones included).
    pub counts: Counts,
    /// The profile the adapter declares, if it does, with the checks failing a must that pass
    /// under it, and how many fail under it too.
    pub profile: Option<ProfileVerdict>,
}

/// The musts judged under a declared profile.
#[derive(Debug, PartialEq, Eq)]
pub struct ProfileVerdict {
    pub profile: String,
    /// The first [`PASSING_LISTED`] checks failing a must that pass under the profile.
    pub passing: Vec<String>,
    /// How many more there are.
    pub more_passing: usize,
    pub failing: usize,
}

/// The checks that pass only under a profile listed per verdict; the rest are counted.
pub const PASSING_LISTED: usize = 1000;

impl Conformance {
    /// How many checks fail `tier` at most (as their most authoritative failure).
    pub fn count(&self, tier: Tier) -> usize {
        self.counts.count(tier)
    }

    /// Whether no check fails a must, or each that does passes under the declared profile.
    /// (The compliance table, per function, is strict: profiles do not apply there.)
    pub fn conforms(&self) -> bool {
        self.count(Tier::Must) == 0 || self.profile.as_ref().is_some_and(|p| p.failing == 0)
    }

    /// The ladder as one line: `conforms; recommendations met; 3 checks miss opspec's bars`,
    /// `does not conform: 5 checks fail a must (2 of them known deviations; 4 under profile
    /// ftz too); …`, `skipped: every check was skipped`.
    pub fn text(&self) -> String {
        let c = &self.counts;
        if c.rung() == Rung::Skipped {
            return format!("skipped: all {} checks were skipped", c.checks);
        }
        let (must, should, quality) = (c.must, c.should, c.quality);
        let mut out = match (&self.profile, must) {
            (_, 0) => "conforms".to_string(),
            (Some(p), _) if p.failing == 0 => {
                format!("conforms under profile {} ({}, each passes under it)", p.profile, c.musts_text())
            }
            (Some(p), _) => {
                format!(
                    "does not conform: {} ({} under profile {} too)",
                    c.musts_text(),
                    p.failing,
                    p.profile
                )
            }
            (None, _) => format!("does not conform: {}", c.musts_text()),
        };
        out += &match should {
            0 => "; recommendations met".to_string(),
            n => format!("; {n} checks miss a recommendation"),
        };
        out += &match quality {
            0 => "; opspec's bars met".to_string(),
            n => format!("; {n} checks miss only opspec's bars"),
        };
        out + &c.skipped_text()
    }
}

/// The verdict of every (suite, adapter) pair; table self-checks have no adapter and no
/// verdict.
pub fn verdicts<'a>(
    results: impl IntoIterator<Item = &'a CheckResult>,
) -> BTreeMap<(String, String), Conformance> {
    let mut verdicts = Verdicts::default();
    results.into_iter().for_each(|r| verdicts.add(r));
    verdicts.finish()
}

/// The verdicts being gathered, one check at a time.
#[derive(Debug, Default)]
pub struct Verdicts(BTreeMap<(String, String), Judging>);

/// One pair's verdict so far.
#[derive(Debug, Default)]
struct Judging {
    counts: Counts,
    /// The first profile a check was judged under.
    profile: Option<String>,
    /// Checks failing a must: those that pass under the profile (the first listed), and the rest.
    passing: Vec<String>,
    more_passing: usize,
    failing_under: usize,
}

impl Verdicts {
    /// Adds one check.
    pub fn add(&mut self, r: &CheckResult) {
        if r.id.adapter_name().is_none() {
            return;
        }
        let key = (r.id.suite_label().to_string(), r.id.adapter_label().to_string());
        let j = self.0.entry(key).or_default();
        if j.profile.is_none() && r.status != Status::Skip {
            j.profile = r.under_profile.as_ref().map(|v| v.profile.to_string());
        }
        if j.counts.add(r) == Some(Tier::Must) {
            match r.under_profile.as_ref().is_some_and(|v| v.passes) {
                true if j.passing.len() < PASSING_LISTED => j.passing.push(r.id.to_string()),
                true => j.more_passing += 1,
                false => j.failing_under += 1,
            }
        }
    }

    /// The verdicts, by suite and adapter.
    pub fn finish(self) -> BTreeMap<(String, String), Conformance> {
        let judge = |j: Judging| Conformance {
            counts: j.counts,
            profile: j.profile.map(|profile| ProfileVerdict {
                profile,
                passing: j.passing,
                more_passing: j.more_passing,
                failing: j.failing_under,
            }),
        };
        self.0.into_iter().map(|(key, j)| (key, judge(j))).collect()
    }
}
