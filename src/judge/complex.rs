//! Judging complex results: a part against what a row states for it (`+0`, `-a`, `inf·cos(b)`,
//! `add(a, c)`), a result against the correctly rounded or normwise-bounded reference, a
//! comparison against the exact one.

use std::borrow::Cow;
use std::cmp::Ordering;

use opspec_adapter::{BinaryOp, OpKind};

use crate::bits::format::Format;
use crate::generate::complex::Components;
use crate::judge::authority::Grade;
use crate::judge::context::constant;
use crate::judge::expect::step_distance;
use crate::oracle::complex::{
    Reference, binary as reference_binary, cis_signs, pow_exponent_size, unary as reference_unary,
};
use crate::oracle::ops::reference;
use crate::spec::complex::{ComplexAccuracy, ComplexOp, ComplexResult, Component, LoadedComplex, Part};
use crate::spec::suite::Suite;

/// The components' names, in [`Components`] order.
pub const COMPONENTS: [&str; 4] = ["a", "b", "c", "d"];

/// A result's values: per element, its parts' bits (one for a real result), or a boolean.
pub enum ComplexValues {
    Parts(Vec<Vec<u64>>),
    Booleans(Vec<bool>),
}

/// What a result should have been, in words, computed only for a failure.
pub type Wanted<'s> = Box<dyn FnOnce() -> String + 's>;

/// What a complex table's results are judged by, in one format.
pub struct ComplexJudge<'a> {
    pub table: &'a LoadedComplex,
    pub f: Format,
}

impl ComplexJudge<'_> {
    /// Whether element `i` of `values`, the result for input `x`, is what `expected` states
    /// (a `reference` result: by `reference` where given, else by the oracle), and what it
    /// should have been, described only when asked (it rounds the reference). A normwise
    /// error is folded into `worst`.
    pub fn verdict<'s>(
        &'s self,
        values: &ComplexValues,
        i: usize,
        x: &'s Components,
        expected: &'s ComplexResult,
        reference: Option<&'s Reference>,
        worst: &mut Option<f64>,
    ) -> Result<(bool, Wanted<'s>), String> {
        let accuracy = self.table.loaded.table.accuracy;
        // What the result must be, described only for a failure (it rounds the reference).
        let (ok, want): (bool, Wanted<'s>) = match (values, expected) {
            (ComplexValues::Booleans(b), ComplexResult::Boolean(v)) => {
                (b[i] == *v, Box::new(|| v.to_string()))
            }
            (ComplexValues::Booleans(b), ComplexResult::Reference) => {
                let v = self.compared(x)?;
                (b[i] == v, Box::new(move || v.to_string()))
            }
            (ComplexValues::Parts(p), ComplexResult::Complex(parts)) if p[i].len() == 2 => {
                let ok = parts.iter().zip(&p[i]).all(|(part, &v)| self.part_ok(part, v, x));
                let describe = |k: usize| self.describe_part(&parts[k], x);
                (ok, Box::new(move || format!("{} + ({}) j", describe(0), describe(1))))
            }
            (ComplexValues::Parts(p), ComplexResult::Real(part)) if p[i].len() == 1 => {
                (self.part_ok(part, p[i][0], x), Box::new(|| self.describe_part(part, x)))
            }
            (ComplexValues::Parts(p), ComplexResult::Reference) => {
                let reference = match reference {
                    Some(r) => Cow::Borrowed(r),
                    None => Cow::Owned(self.reference(x).ok_or("no reference for this input")?),
                };
                let rounded = |r: &Reference| self.describe_parts(&r.rounded(self.f));
                match accuracy.ok_or("the table has no accuracy")? {
                    ComplexAccuracy::CorrectlyRounded => (
                        reference.is_correctly_rounded(self.f, &p[i]),
                        Box::new(move || format!("{} (correctly rounded)", rounded(&reference))),
                    ),
                    ComplexAccuracy::NormwiseUlps(_) | ComplexAccuracy::ConditionedUlps(_) => {
                        let bound = self.bound(x)?;
                        let error = reference.normwise_error(self.f, &p[i]);
                        if error.is_finite() {
                            *worst = Some(worst.map_or(error, |w: f64| w.max(error)));
                        }
                        (
                            error <= bound,
                            Box::new(move || {
                                format!(
                                    "{} within {bound} ULPs of the larger part (the error is {error:.3})",
                                    rounded(&reference)
                                )
                            }),
                        )
                    }
                }
            }
            (_, ComplexResult::Unspecified) => (true, Box::new(String::new)),
            _ => return Err(format!("the result's kind does not fit the row's `{expected:?}`")),
        };
        Ok((ok, want))
    }

    /// The grade of element `i` of `values`, a result that [`ComplexJudge::verdict`] rejected:
    /// a NaN or infinite part where the finite reference is missed is no inaccuracy: the result
    /// is not the row's value at all (a must); a finite one off the bound misses `accuracy`,
    /// the accuracy the suite sets ([`accuracy_grade`]).
    pub fn grade(
        &self,
        values: &ComplexValues,
        i: usize,
        expected: &ComplexResult,
        accuracy: &Grade,
    ) -> Grade {
        let finite = match values {
            ComplexValues::Parts(p) => p[i].iter().all(|&v| self.f.is_finite(v)),
            ComplexValues::Booleans(_) => false,
        };
        if *expected == ComplexResult::Reference && finite { accuracy.clone() } else { Grade::cited() }
    }

    /// The normwise bound, in ULPs of the larger part, for input `x`.
    pub fn bound(&self, x: &Components) -> Result<f64, String> {
        match self.table.loaded.table.accuracy {
            Some(ComplexAccuracy::NormwiseUlps(bound)) => Ok(bound),
            Some(ComplexAccuracy::ConditionedUlps(bound)) => {
                Ok(bound * pow_exponent_size(self.f, [x[0], x[1]], [x[2], x[3]]).max(1.0))
            }
            _ => Err("the table has no normwise bound".into()),
        }
    }

    /// The oracle's result on a finite input.
    pub fn reference(&self, x: &Components) -> Option<Reference> {
        match self.table.op {
            ComplexOp::Binary(b) => reference_binary(b, self.f, [x[0], x[1]], [x[2], x[3]]),
            ComplexOp::Unary(u) => reference_unary(u, self.f, [x[0], x[1]]),
        }
    }

    /// `equal` or `not_equal` of non-NaN components, compared as exact values.
    pub fn compared(&self, x: &Components) -> Result<bool, String> {
        let v = |k: usize| self.f.to_f64(x[k]);
        let equal = v(0) == v(2) && v(1) == v(3);
        match self.table.op {
            ComplexOp::Binary(BinaryOp::Equal) => Ok(equal),
            ComplexOp::Binary(BinaryOp::NotEqual) => Ok(!equal),
            _ => Err("a boolean reference is only defined for equal and not_equal".into()),
        }
    }

    /// Whether the bits `v` are what `part` states, for input `x`.
    pub fn part_ok(&self, part: &Part, v: u64, x: &Components) -> bool {
        let f = self.f;
        let signs = |k: usize| cis_signs(f, x[k]);
        let signed_inf = |o: Ordering| if o == Ordering::Less { f.neg_inf() } else { f.pos_inf() };
        let signed_zero = |o: Ordering| if o == Ordering::Less { f.neg_zero() } else { f.pos_zero() };
        match part {
            Part::Nan => f.is_nan(v),
            Part::PosZero => v == f.pos_zero(),
            Part::NegZero => v == f.neg_zero(),
            Part::Zero => f.is_zero(v),
            Part::PosInfinity => v == f.pos_inf(),
            Part::NegInfinity => v == f.neg_inf(),
            Part::Infinity => f.is_infinite(v),
            Part::Value(c) => f.from_f64_exact(*c) == Some(v),
            Part::Approx(c) => !f.is_nan(v) && step_distance(f, constant(f, *c), v) <= 1,
            Part::AbsOf(k) | Part::Of(k) | Part::Negated(k) if f.is_nan(x[k.index()]) => f.is_nan(v),
            Part::AbsOf(k) => v == f.abs(x[k.index()]),
            Part::Of(k) => v == x[k.index()],
            Part::Negated(k) => v == f.neg(x[k.index()]),
            Part::RealOp(p, q) => match self.real_op(*p, *q, x) {
                Some(r) if f.is_nan(r) => f.is_nan(v),
                Some(r) => v == r,
                None => false,
            },
            Part::InfinityTimesCos(k) => signs(k.index()).is_some_and(|(cos, _)| v == signed_inf(cos)),
            Part::InfinityTimesSin(k) => signs(k.index()).is_some_and(|(_, sin)| v == signed_inf(sin)),
            Part::ZeroTimesCos(k) => signs(k.index()).is_some_and(|(cos, _)| v == signed_zero(cos)),
            Part::ZeroTimesSin(k) => signs(k.index()).is_some_and(|(_, sin)| v == signed_zero(sin)),
            Part::Any => true,
            Part::AnyOf(parts) => parts.iter().any(|p| self.part_ok(p, v, x)),
        }
    }

    /// The table's operation on real components `p` and `q` of `x`, as the real oracle gives
    /// it; `None` for a one-operand function.
    pub fn real_op(&self, p: Component, q: Component, x: &Components) -> Option<u64> {
        let ComplexOp::Binary(op) = self.table.op else { return None };
        reference(OpKind::Binary(op), self.f, &[x[p.index()], x[q.index()]])
    }

    /// What `part` states for input `x`: the value where it names one (`of`, `negated`,
    /// `real_op`), else the statement.
    pub fn describe_part(&self, part: &Part, x: &Components) -> String {
        let (f, name) = (self.f, |k: &Component| COMPONENTS[k.index()]);
        let value = match part {
            Part::Of(k) => Some((x[k.index()], name(k).to_string())),
            Part::Negated(k) => Some((f.neg(x[k.index()]), format!("-{}", name(k)))),
            Part::RealOp(p, q) => self
                .real_op(*p, *q, x)
                .map(|v| (v, format!("{}({}, {})", self.table.loaded.table.op, name(p), name(q)))),
            _ => None,
        };
        match value {
            Some((v, how)) if f.is_nan(v) => format!("NaN ({how})"),
            Some((v, how)) => format!("{} ({how})", f.describe(v)),
            None => format!("{part:?}"),
        }
    }

    pub fn describe_parts(&self, parts: &[u64]) -> String {
        match parts {
            [re, im] => format!("{} + ({}) j", self.f.describe(*re), self.f.describe(*im)),
            [v] => self.f.describe(*v),
            _ => String::new(),
        }
    }
}

/// The grade of a result that misses a complex table's accuracy: opspec's bar where the
/// suite says the document sets none.
pub fn accuracy_grade(suite: &Suite, accuracy: Option<ComplexAccuracy>) -> Grade {
    let Some(quote) = &suite.authority.complex else { return Grade::cited() };
    let bar = match accuracy {
        Some(ComplexAccuracy::CorrectlyRounded) => "each part correctly rounded".to_string(),
        Some(ComplexAccuracy::NormwiseUlps(n)) => {
            format!("each part within {n} ULPs of the larger part (normwise)")
        }
        Some(ComplexAccuracy::ConditionedUlps(n)) => format!("within {n} ULPs scaled by the exponent's size"),
        None => "the table's accuracy".to_string(),
    };
    Grade::opspec(format!(
        "opspec's bar: {bar}; the document sets no accuracy for complex results: \"{}\"{}",
        quote.0,
        suite.authority.cited()
    ))
}
