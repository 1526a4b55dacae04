//! Counting results by status.

use crate::results::{CheckResult, Status};

/// Counts of a group of results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub pass: usize,
    pub fail: usize,
    pub skip: usize,
    /// Failures listed as known deviations.
    pub known_deviation: usize,
    /// Planned checks the run never ran.
    pub missing: usize,
    /// Checks whose adapter could not be started.
    pub unavailable: usize,
    pub inputs: usize,
    /// Of the checks that knew their count before running: the inputs planned, and the
    /// inputs they ran (fewer where a contract left inputs out, or a check stopped early).
    pub planned: usize,
    pub planned_run: usize,
    /// The largest measured ULP error among the results that report one.
    pub max_ulp_error: Option<f64>,
}

impl Tally {
    /// Adds one result.
    pub fn add(&mut self, r: &CheckResult) {
        match r.status {
            Status::Pass => self.pass += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
            Status::KnownDeviation => self.known_deviation += 1,
            Status::Missing => self.missing += 1,
            Status::Unavailable => self.unavailable += 1,
        }
        self.inputs += r.inputs;
        if let Some(p) = r.planned_inputs {
            self.planned += p;
            self.planned_run += r.inputs;
        }
        if let Some(e) = r.max_ulp_error {
            self.max_ulp_error = Some(self.max_ulp_error.map_or(e, |m| m.max(e)));
        }
    }

    /// The checks that fail the run: failed, missing, or of an adapter that did not start.
    pub fn failing(&self) -> usize {
        self.fail + self.missing + self.unavailable
    }

    /// The maximum ULP error as text (`0.500`), or `-` where none was measured.
    pub fn max_ulp_text(&self) -> String {
        self.max_ulp_error.map_or("-".to_string(), |e| format!("{e:.3}"))
    }

    /// The tally of `results`.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CheckResult>) -> Tally {
        let mut t = Tally::default();
        results.into_iter().for_each(|r| t.add(r));
        t
    }
}
