//! The verdict ladder (`docs/AUTHORITY.md`): what a set of checks amounts to. It **does not
//! conform** when a check fails a must of the document, misses **recommendations** when one
//! fails a should, misses only opspec's **quality** bars, or **conforms**; a set whose every
//! check was skipped is **skipped**, never "conforms". A known deviation counts at its tier
//! like any failure (it is a deviation, only an expected one) and a check that never ran counts
//! as a must; the counts say how many of the musts are known deviations. The same counts and
//! rung serve a library × function cell (the compliance table) and a suite × adapter pair
//! ([`super::suite`]).

use serde::Serialize;

use crate::results::{CheckResult, Status};
use crate::spec::authority::Tier;

/// A rung of the ladder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rung {
    #[default]
    Conforms,
    /// Conforms, but a check misses a recommendation.
    Recommendations,
    /// Conforms and meets the recommendations, but a check misses opspec's own bar.
    Quality,
    DoesNotConform,
    /// Every check was skipped: nothing was judged.
    Skipped,
}

impl Rung {
    /// The rung as the JSON, the CSV and the page's classes spell it.
    pub fn name(self) -> &'static str {
        match self {
            Rung::Conforms => "conforms",
            Rung::Recommendations => "recommendations",
            Rung::Quality => "quality",
            Rung::DoesNotConform => "does_not_conform",
            Rung::Skipped => "skipped",
        }
    }
}

/// A set of checks, counted for the ladder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Every check, skipped ones included.
    pub checks: usize,
    pub passed: usize,
    /// The checks that did not pass and were not skipped (known deviations and checks that
    /// never ran included), by the most authoritative tier they fail.
    pub must: usize,
    pub should: usize,
    pub quality: usize,
    /// Of those, the ones listed in the adapter's expectations file.
    pub known_deviations: usize,
    /// Of the musts, the ones listed in the adapter's expectations file.
    #[serde(skip)]
    pub known_musts: usize,
    pub skipped: usize,
}

impl Counts {
    /// Adds one check; returns the tier it counts at, if it did not pass or skip.
    pub fn add(&mut self, r: &CheckResult) -> Option<Tier> {
        self.checks += 1;
        match r.status {
            Status::Pass => {
                self.passed += 1;
                None
            }
            Status::Skip => {
                self.skipped += 1;
                None
            }
            // Failed, a known deviation, or never ran.
            _ => {
                let tier = r.failed_tier();
                let known = r.status == Status::KnownDeviation;
                self.known_deviations += usize::from(known);
                self.known_musts += usize::from(known && tier == Tier::Must);
                *match tier {
                    Tier::Must => &mut self.must,
                    Tier::Should => &mut self.should,
                    Tier::Quality => &mut self.quality,
                } += 1;
                Some(tier)
            }
        }
    }

    /// How many checks count at `tier`.
    pub fn count(&self, tier: Tier) -> usize {
        match tier {
            Tier::Must => self.must,
            Tier::Should => self.should,
            Tier::Quality => self.quality,
        }
    }

    /// The rung these checks stand on.
    pub fn rung(&self) -> Rung {
        match (self.must, self.should, self.quality) {
            _ if self.skipped == self.checks => Rung::Skipped,
            (1.., _, _) => Rung::DoesNotConform,
            (0, 1.., _) => Rung::Recommendations,
            (0, 0, 1..) => Rung::Quality,
            (0, 0, 0) => Rung::Conforms,
        }
    }

    /// `5 checks fail a must` with, where some are known deviations, `(3 of them known
    /// deviations)`.
    pub fn musts_text(&self) -> String {
        match self.known_musts {
            0 => format!("{} checks fail a must", self.must),
            k if k == self.must => format!("{} checks fail a must (each a known deviation)", self.must),
            k => format!("{} checks fail a must ({k} of them known deviations)", self.must),
        }
    }

    /// `; 2 checks skipped` where some were.
    pub fn skipped_text(&self) -> String {
        match self.skipped {
            0 => String::new(),
            n => format!("; {n} checks skipped"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(status: Status, tier: Option<Tier>) -> CheckResult {
        let mut r = CheckResult::new("array-api:cpu:add:f32:edges".parse().unwrap());
        (r.status, r.tier) = (status, tier);
        r
    }

    #[test]
    fn known_deviations_count_at_their_tier_and_skips_never_conform() {
        let mut c = Counts::default();
        c.add(&result(Status::Skip, None));
        assert_eq!(c.rung(), Rung::Skipped);
        c.add(&result(Status::Pass, None));
        assert_eq!((c.rung(), c.skipped_text().as_str()), (Rung::Conforms, "; 1 checks skipped"));
        c.add(&result(Status::Fail, Some(Tier::Quality)));
        assert_eq!(c.rung(), Rung::Quality);
        c.add(&result(Status::KnownDeviation, Some(Tier::Should)));
        assert_eq!(c.rung(), Rung::Recommendations);
        c.add(&result(Status::KnownDeviation, Some(Tier::Must)));
        assert_eq!(c.rung(), Rung::DoesNotConform);
        assert_eq!(c.musts_text(), "1 checks fail a must (each a known deviation)");
        c.add(&result(Status::Missing, None));
        assert_eq!(c.musts_text(), "2 checks fail a must (1 of them known deviations)");
        assert_eq!((c.checks, c.passed, c.must, c.should, c.quality, c.known_deviations), (6, 1, 2, 1, 1, 2));
    }
}
