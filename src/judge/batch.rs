//! Judging an element-wise batch's rejected results: how the batch's values are read, the
//! grade of each result its expectation rejects, and whether the adapter's declared profile
//! allows it.

use opspec_adapter::DType;

use crate::bits::value::Domain;
use crate::judge::authority::Grade;
use crate::judge::context::Context;
use crate::judge::expect::{Expect, step_distance};
use crate::spec::profile::Profile;
use crate::spec::suite::NanPolicy;

/// How one batch's values are read and compared.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// The operands' domain.
    pub input: Domain,
    /// The result's domain.
    pub output: Domain,
    pub nan: NanPolicy,
}

impl Reading {
    /// The dtype results must have: bool for comparisons, else the operands'.
    pub fn output_dtype(&self, dtype: DType) -> DType {
        if self.output == Domain::Bool { DType::Bool } else { dtype }
    }
}

/// Distance in representable steps of `actual` from the centre of `expected`, where both are
/// non-NaN floats.
pub fn steps_from(expected: &Expect, output: Domain, actual: u64) -> Option<u64> {
    let Domain::Float(f) = output else { return None };
    expected.centre().filter(|&c| !f.is_nan(c) && !f.is_nan(actual)).map(|c| step_distance(f, actual, c))
}

/// What grades a batch's failures and retries them alone.
pub struct Judge<'a> {
    /// Grades each failing result.
    pub grader: Grader<'a>,
    /// Calls the adapter on one case alone (`None` where the call failed).
    pub alone: Option<&'a Alone<'a>>,
}

/// What grades a failing result.
pub enum Grader<'a> {
    /// The table's context: grades each failing result ([`Context::grade`]) and gives the
    /// expectation of any input under every governing row, for the adapter's profile.
    Table(&'a Context<'a>),
    /// A grade for a case and its failing result, where no relaxation profile applies
    /// (integer checks: [`IntegerGrader::grade`](super::integer::IntegerGrader::grade)).
    Case(&'a GradeCase<'a>),
}

/// A call of the adapter on one case: its result, or `None` where the call failed.
pub type Alone<'a> = dyn Fn(&[u64]) -> Option<u64> + 'a;

/// The grade of a case's failing result.
pub type GradeCase<'a> = dyn Fn(&[u64], u64) -> Grade + 'a;

impl Judge<'_> {
    /// A rejected result's grade, and whether `profile`, the one the adapter declares, allows
    /// it.
    pub fn verdict(
        &self,
        profile: Option<&Profile>,
        reading: &Reading,
        case: &[u64],
        expected: &Expect,
        actual: u64,
    ) -> (Grade, bool) {
        let ctx = match self.grader {
            Grader::Table(ctx) => ctx,
            Grader::Case(grade) => return (grade(case, actual), false),
        };
        let full = |c: &[u64]| ctx.expectation(c).ok();
        let allowed = profile.is_some_and(|p| {
            p.accepts((reading.input, reading.output, reading.nan), case, expected, actual, &full)
        });
        let grade = ctx.grade(case, actual, reading.nan).unwrap_or_else(|_| Grade::cited());
        (grade, allowed)
    }
}
