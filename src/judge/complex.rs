//! Judging complex results: a part against what a row states for it (`+0`, `-a`, `inf·cos(b)`,
//! `add(a, c)`), a result against the correctly rounded or normwise-bounded reference, a
//! comparison against the exact one; and the grade of a rejected result, with the document's
//! latitudes (a signaling NaN operand's NaN, subnormal parts read as zeros or flushed) and
//! readings (an approximation to a constant, the textbook formula) applied as in the real
//! family ([`crate::judge::authority`]).

use std::borrow::Cow;
use std::cmp::Ordering;

use opspec_adapter::{BinaryOp, OpKind};

use crate::bits::format::Format;
use crate::generate::complex::Components;
use crate::generate::complex::meets;
use crate::judge::authority::Grade;
use crate::judge::context::{approximation_steps, constant};
use crate::judge::expect::step_distance;
use crate::oracle::complex::{
    Reference, binary as reference_binary, cis_signs, pow_exponent_size, unary as reference_unary,
};
use crate::oracle::ops::reference;
use crate::spec::authority::Tier;
use crate::spec::complex::{ComplexAccuracy, ComplexOp, ComplexResult, Component, LoadedComplex, Part};
use crate::spec::suite::{SignalingPolicy, Suite};

/// The components' names, in [`Components`] order.
pub const COMPONENTS: [&str; 4] = ["a", "b", "c", "d"];

/// A result's values: per element, its parts' bits (one for a real result), or a boolean.
pub enum ComplexValues {
    Parts(Vec<Vec<u64>>),
    Booleans(Vec<bool>),
}

/// What a result should have been, in words, computed only for a failure.
pub type Wanted<'s> = Box<dyn FnOnce() -> String + 's>;

/// One element of a result: its parts' bits, or a boolean.
#[derive(Clone, Copy)]
enum Element<'v> {
    Parts(&'v [u64]),
    Boolean(bool),
}

impl<'v> Element<'v> {
    fn of(values: &'v ComplexValues, i: usize) -> Element<'v> {
        match values {
            ComplexValues::Parts(p) => Element::Parts(&p[i]),
            ComplexValues::Booleans(b) => Element::Boolean(b[i]),
        }
    }
}

/// What a complex table's results are judged by, in one format, under a suite.
pub struct ComplexJudge<'a> {
    pub table: &'a LoadedComplex,
    pub f: Format,
    /// The suite: its step bounds, signaling-NaN policy and document-wide clauses.
    pub suite: &'a Suite,
    /// Whether the results judged are a component rule's, which states every input's result
    /// (a row states it only where its condition holds).
    pub component_rule: bool,
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
                let ok = parts.iter().zip(&p[i]).all(|(part, &v)| self.part_meets(Tier::Quality, part, v, x));
                let describe = |k: usize| self.describe_part(&parts[k], x);
                (ok, Box::new(move || format!("{} + ({}) j", describe(0), describe(1))))
            }
            (ComplexValues::Parts(p), ComplexResult::Real(part)) if p[i].len() == 1 => {
                (self.part_meets(Tier::Quality, part, p[i][0], x), Box::new(|| self.describe_part(part, x)))
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

    /// The grade of element `i` of `values`, the result for input `x` that
    /// [`ComplexJudge::verdict`] rejected: the most authoritative tier whose bars it misses,
    /// where the suite's subnormal latitude, if it grants it, is met at the must and should
    /// tiers.
    pub fn grade(
        &self,
        values: &ComplexValues,
        i: usize,
        x: &Components,
        expected: &ComplexResult,
        reference: Option<&Reference>,
    ) -> Result<Grade, String> {
        let element = Element::of(values, i);
        let granted = self.suite.authority.subnormals.is_some();
        let meets = |tier: Tier| -> Result<bool, String> {
            Ok(self.meets(tier, element, x, expected, reference)?
                || (granted && self.within_latitude(tier, element, x, expected, reference)?))
        };
        if !meets(Tier::Must)? {
            return Ok(Grade::cited());
        }
        if !meets(Tier::Should)? {
            let basis = self.table.loaded.table.textbook.as_ref().map_or_else(String::new, |t| {
                let source = self.table.loaded.table.sources.iter().find(|s| s.id == t.source);
                let title = source.map_or(t.source.as_str(), |s| s.title.as_str());
                format!("should: \"{}\" ({title}; {})", t.text, self.table.loaded.path.display())
            });
            return Ok(Grade { tier: Tier::Should, basis });
        }
        let suite = &self.suite.name;
        Ok(Grade::opspec(
            if granted && self.within_latitude(Tier::Quality, element, x, expected, reference)? {
                let quote = self.suite.authority.subnormals.as_ref().map_or("", |q| q.0.as_str());
                format!(
                    "opspec's bar: IEEE 754-2019's subnormal numbers, which the document lets vary: \"{quote}\"{}",
                    self.suite.authority.cited()
                )
            } else if *expected == ComplexResult::Reference {
                self.accuracy_basis()
            } else {
                format!(
                    "opspec's bar: within {} representable steps of the constant (suites/{suite}.yaml step_bounds); the row says only \"an implementation-dependent approximation to\" it",
                    self.approximation_bound(Tier::Quality)
                )
            },
        ))
    }

    /// Which of opspec's bars a result that misses the table's accuracy misses: the document
    /// sets no accuracy for complex results.
    fn accuracy_basis(&self) -> String {
        let bar = match self.table.loaded.table.accuracy {
            Some(ComplexAccuracy::CorrectlyRounded) => "each part correctly rounded".to_string(),
            Some(ComplexAccuracy::NormwiseUlps(n)) => {
                format!("each part within {n} ULPs of the larger part (normwise)")
            }
            Some(ComplexAccuracy::ConditionedUlps(n)) => {
                format!("within {n} ULPs scaled by the exponent's size")
            }
            None => "the table's accuracy".to_string(),
        };
        let quote = self.suite.authority.complex.as_ref().map_or("", |q| q.0.as_str());
        format!(
            "opspec's bar: {bar}; the document sets no accuracy for complex results: \"{quote}\"{}",
            self.suite.authority.cited()
        )
    }

    /// Whether `element`, the result for `x`, meets the bars of `tier` and the tiers above it
    /// (before the subnormal latitude).
    fn meets(
        &self,
        tier: Tier,
        element: Element,
        x: &Components,
        expected: &ComplexResult,
        reference: Option<&Reference>,
    ) -> Result<bool, String> {
        Ok(match (element, expected) {
            (Element::Boolean(b), ComplexResult::Boolean(v)) => b == *v,
            (Element::Boolean(b), ComplexResult::Reference) => b == self.compared(x)?,
            (Element::Parts(p), ComplexResult::Complex(parts)) if p.len() == 2 => {
                parts.iter().zip(p).all(|(part, &v)| self.part_meets(tier, part, v, x))
            }
            (Element::Parts(p), ComplexResult::Real(part)) if p.len() == 1 => {
                self.part_meets(tier, part, p[0], x)
            }
            (Element::Parts(p), ComplexResult::Reference) => {
                let reference = match reference {
                    Some(r) => Cow::Borrowed(r),
                    None => Cow::Owned(self.reference(x).ok_or("no reference for this input")?),
                };
                self.meets_reference(tier, p, x, &reference)?
            }
            (_, ComplexResult::Unspecified) => true,
            _ => return Err(format!("the result's kind does not fit the row's `{expected:?}`")),
        })
    }

    /// Whether the parts `p` meet `tier` against the reference of a finite input `x`. The
    /// table's accuracy is opspec's bar where the suite says the document sets none; below it,
    /// a NaN or infinite part is not the function's value at all (a must), except where the
    /// table quotes the textbook formula, whose tier it is, and whose evaluation in the format
    /// meets it too.
    fn meets_reference(
        &self,
        tier: Tier,
        p: &[u64],
        x: &Components,
        reference: &Reference,
    ) -> Result<bool, String> {
        let f = self.f;
        if tier == Tier::Quality || self.suite.authority.complex.is_none() {
            return Ok(match self.table.loaded.table.accuracy.ok_or("the table has no accuracy")? {
                ComplexAccuracy::CorrectlyRounded => reference.is_correctly_rounded(f, p),
                ComplexAccuracy::NormwiseUlps(_) | ComplexAccuracy::ConditionedUlps(_) => {
                    reference.normwise_error(f, p) <= self.bound(x)?
                }
            });
        }
        let finite = p.iter().all(|&v| f.is_finite(v));
        Ok(match &self.table.loaded.table.textbook {
            Some(textbook) if tier < textbook.tier => true,
            Some(_) => {
                let same = |t: Vec<u64>| t.iter().zip(p).all(|(&t, &v)| t == v || f.is_nan(t) && f.is_nan(v));
                finite || self.textbook(x).is_some_and(same)
            }
            None => finite,
        })
    }

    /// The textbook formula evaluated in the format, each operation correctly rounded:
    /// `(ac - bd) + (bc + ad)j` for multiply, `((ac + bd) + (bc - ad)j) / (c² + d²)` for
    /// divide.
    fn textbook(&self, x: &Components) -> Option<Vec<u64>> {
        let f = self.f;
        let op = |op: BinaryOp, p: u64, q: u64| reference(OpKind::Binary(op), f, &[p, q]);
        let [a, b, c, d] = *x;
        match self.table.op {
            ComplexOp::Binary(BinaryOp::Multiply) => Some(vec![
                op(BinaryOp::Subtract, op(BinaryOp::Multiply, a, c)?, op(BinaryOp::Multiply, b, d)?)?,
                op(BinaryOp::Add, op(BinaryOp::Multiply, b, c)?, op(BinaryOp::Multiply, a, d)?)?,
            ]),
            ComplexOp::Binary(BinaryOp::Divide) => {
                let norm = op(BinaryOp::Add, op(BinaryOp::Multiply, c, c)?, op(BinaryOp::Multiply, d, d)?)?;
                let real = op(BinaryOp::Add, op(BinaryOp::Multiply, a, c)?, op(BinaryOp::Multiply, b, d)?)?;
                let imaginary =
                    op(BinaryOp::Subtract, op(BinaryOp::Multiply, b, c)?, op(BinaryOp::Multiply, a, d)?)?;
                Some(vec![op(BinaryOp::Divide, real, norm)?, op(BinaryOp::Divide, imaginary, norm)?])
            }
            _ => None,
        }
    }

    /// Whether `element` is what `expected` allows at `tier` under the subnormal latitude: with
    /// a subnormal result part flushed to a zero of its sign, or as the result for `x` with its
    /// subnormal components read as zeros. That input is judged by what states its result:
    /// the component rule, else the table's rows whose conditions it meets, else the reference;
    /// an input none of them states is left open.
    fn within_latitude(
        &self,
        tier: Tier,
        element: Element,
        x: &Components,
        expected: &ComplexResult,
        reference: Option<&Reference>,
    ) -> Result<bool, String> {
        if self.flushed_meets(tier, element, x, expected, reference)? {
            return Ok(true);
        }
        let f = self.f;
        let zeros = x.map(|v| f.flush_subnormal(v));
        if zeros == *x {
            return Ok(false);
        }
        let accepts = |expected: &ComplexResult| -> Result<bool, String> {
            Ok(self.meets(tier, element, &zeros, expected, None)?
                || self.flushed_meets(tier, element, &zeros, expected, None)?)
        };
        if self.component_rule {
            return accepts(expected);
        }
        let table = &self.table.loaded.table;
        let arity = self.table.op.arity();
        let holds =
            |id: &str| table.rows.iter().any(|r| r.id.value == id && meets(f, &r.when, arity, &zeros));
        let governing: Vec<&ComplexResult> = table
            .rows
            .iter()
            .filter(|r| meets(f, &r.when, arity, &zeros) && !r.unless.iter().any(|u| holds(u)))
            .map(|r| &r.result)
            .collect();
        if !governing.is_empty() {
            for result in governing {
                if !accepts(result)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        let finite = zeros.iter().all(|&v| f.is_finite(v));
        if table.accuracy.is_some() && finite && self.reference(&zeros).is_some() {
            return accepts(&ComplexResult::Reference);
        }
        // No row states its result and the oracle has none (`exp(inf - 0j)`: the rows state
        // `+0` only): the document leaves it open, below opspec's bar; at it, nothing shows the
        // result to be the flushed input's.
        Ok(tier != Tier::Quality)
    }

    /// Whether `element`, with each zero part read as the subnormal (or smallest normal) of
    /// its sign that flushing turned into it, is what `expected` allows for `x` at `tier`.
    fn flushed_meets(
        &self,
        tier: Tier,
        element: Element,
        x: &Components,
        expected: &ComplexResult,
        reference: Option<&Reference>,
    ) -> Result<bool, String> {
        let f = self.f;
        let Element::Parts(p) = element else { return Ok(false) };
        let flushed_from = |w: u64, v: u64| {
            f.is_zero(v)
                && f.is_sign_negative(w) == f.is_sign_negative(v)
                && (f.is_subnormal(w) || f.abs(w) == f.min_normal())
        };
        let part = |part: &Part, v: u64| {
            self.part_meets(tier, part, v, x)
                || self
                    .named_value(part, x)
                    .into_iter()
                    .chain(
                        [f.max_subnormal(), f.min_subnormal(), f.min_normal()]
                            .map(|w| w | (v & f.sign_mask())),
                    )
                    .any(|w| flushed_from(w, v) && self.part_meets(tier, part, w, x))
        };
        Ok(match expected {
            ComplexResult::Complex(parts) if p.len() == 2 => parts.iter().zip(p).all(|(q, &v)| part(q, v)),
            ComplexResult::Real(q) if p.len() == 1 => part(q, p[0]),
            ComplexResult::Reference => {
                let reference = match reference {
                    Some(r) => Cow::Borrowed(r),
                    None => match self.reference(x) {
                        Some(r) => Cow::Owned(r),
                        None => return Ok(false),
                    },
                };
                let rounded = reference.rounded(f);
                let unflushed: Vec<u64> =
                    p.iter().zip(&rounded).map(|(&v, &w)| if flushed_from(w, v) { w } else { v }).collect();
                unflushed != p && self.meets_reference(tier, &unflushed, x, &reference)?
            }
            _ => false,
        })
    }

    /// The value a part names for input `x` (`of`, `negated`, `abs_of`, `real_op`, a value).
    fn named_value(&self, part: &Part, x: &Components) -> Option<u64> {
        let f = self.f;
        match part {
            Part::Of(k) => Some(x[k.index()]),
            Part::Negated(k) => Some(f.neg(x[k.index()])),
            Part::AbsOf(k) => Some(f.abs(x[k.index()])),
            Part::RealOp(p, q) => self.real_op(*p, *q, x),
            Part::Value(c) => f.from_f64_exact(*c),
            _ => None,
        }
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

    /// Whether the bits `v` are what `part` states for input `x`, at `tier`; a NaN is
    /// accepted too where a component the part depends on is a signaling NaN and the suite
    /// lets it propagate, as the real rows accept it ([`crate::judge::context::Context`]).
    pub fn part_meets(&self, tier: Tier, part: &Part, v: u64, x: &Components) -> bool {
        self.part_states(tier, part, v, x) || (self.f.is_nan(v) && self.signaling_reaches(part, x))
    }

    /// Whether a signaling NaN operand reaches `part` under
    /// [`SignalingPolicy::MayPropagate`]: one of the components a component rule's real
    /// operation takes, or of the operands' components for any other part.
    fn signaling_reaches(&self, part: &Part, x: &Components) -> bool {
        let f = self.f;
        let signaling = |k: usize| f.is_nan(x[k]) && x[k] & (1 << (f.frac_bits - 1)) == 0;
        self.suite.signaling_nans == SignalingPolicy::MayPropagate
            && match part {
                Part::RealOp(p, q) => signaling(p.index()) || signaling(q.index()),
                _ => (0..2 * self.table.op.arity()).any(signaling),
            }
    }

    /// How many representable steps from the correctly rounded constant "an
    /// implementation-dependent approximation to" it may be at `tier`: below opspec's bar,
    /// opspec's reading of the words ([`approximation_steps`]); at it, the suite's step bound
    /// for the function (none: the correctly rounded constant).
    fn approximation_bound(&self, tier: Tier) -> u32 {
        let op = match self.table.op {
            ComplexOp::Unary(u) => OpKind::Unary(u),
            ComplexOp::Binary(b) => OpKind::Binary(b),
        };
        if tier == Tier::Quality {
            self.suite.step_bound(op, self.f).unwrap_or(0)
        } else {
            approximation_steps(self.f)
        }
    }

    /// Whether the bits `v` are what `part` states for input `x`, at `tier`.
    fn part_states(&self, tier: Tier, part: &Part, v: u64, x: &Components) -> bool {
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
            Part::Approx(c) => {
                !f.is_nan(v)
                    && step_distance(f, constant(f, *c), v) <= u64::from(self.approximation_bound(tier))
            }
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
            Part::AnyOf(parts) => parts.iter().any(|p| self.part_states(tier, p, v, x)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Catalog;

    /// `(2^70 + 2^70 j) / (2^70 + 2^70 j)` in f32 parts is exactly 1, but the textbook formula
    /// evaluated in f32 overflows: `ac + bd` and `c² + d²` are both +inf, their quotient NaN.
    #[test]
    fn the_textbook_formulas_overflow_meets_the_should_and_other_nans_miss_it() {
        let catalog = Catalog::builtin().unwrap();
        let suite = &catalog.suite("array-api").unwrap().suite;
        let table = catalog.complex.iter().find(|t| t.loaded.table.op == "divide").unwrap();
        let f = Format::F32;
        let judge = ComplexJudge { table, f, suite, component_rule: false };
        let big = f.from_f64_exact(2f64.powi(70)).unwrap();
        let x = [big; 4];
        let nan = f.quiet_nan();
        let grade = |parts: [u64; 2]| {
            let values = ComplexValues::Parts(vec![parts.to_vec()]);
            judge.grade(&values, 0, &x, &ComplexResult::Reference, None).unwrap().tier
        };
        assert_eq!(judge.textbook(&x).map(|t| t.iter().all(|&v| f.is_nan(v))), Some(true));
        assert_eq!(grade([nan, nan]), Tier::Quality, "the formula's own value");
        assert_eq!(grade([nan, f.pos_zero()]), Tier::Should, "neither finite nor the formula's value");
        assert_eq!(grade([f.from_f64_exact(2.0).unwrap(), f.pos_zero()]), Tier::Quality, "finite");
    }
}
