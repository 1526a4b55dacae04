//! From a table and operand values to what the result must be.

use opspec_adapter::OpKind;
use rug::Float;
use rug::float::Constant;

use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::judge::expect::Expect;
use crate::oracle;
use crate::oracle::reference;
use crate::spec::LoadedTable;
use crate::spec::authority::{Authority, ReadingValue, Tier};
use crate::spec::matching::{governing_rows, governing_rows_among};
use crate::spec::schema::Row;
use crate::spec::schema::{Accuracy, NamedConstant, Outcome, Output, SignRule, SpecTable};
use crate::spec::suite::{DivisionByZero, SignalingPolicy, Suite};

/// The domain of `table`'s results for operands of format `f`.
pub fn output_domain(table: &SpecTable, f: Format) -> Domain {
    match table.output {
        Output::Same => Domain::Float(f),
        Output::Bool => Domain::Bool,
    }
}

/// Everything an expectation depends on besides the inputs.
pub struct Context<'a> {
    pub table: &'a SpecTable,
    pub op: OpKind,
    /// The operands' format.
    pub format: Format,
    /// The result's domain (the operands' format, or bool).
    pub output: Domain,
    /// The suite's step bound for this (op, dtype), for approximate results.
    pub step_bound: Option<u32>,
    /// What a signaling NaN operand allows.
    pub signaling: SignalingPolicy,
    /// The suite's document-wide clauses (none for a table self-check).
    pub authority: Option<&'a Authority>,
    /// What the suite says a division by zero gives (its `integers.division_by_zero`).
    pub division_by_zero: Option<DivisionByZero>,
    /// The suite's name and the table's file, for failure texts.
    pub suite: &'a str,
    pub path: &'a std::path::Path,
}

impl<'a> Context<'a> {
    /// The context of `table` in format `f` under `suite`; without a suite (a table
    /// self-check against the correctly rounded oracle) no step is allowed and signaling
    /// NaNs are held to the table's results.
    pub fn new(table: &'a LoadedTable, suite: Option<&'a Suite>, f: Format) -> Context<'a> {
        let step_bound = match suite {
            Some(s) => s.step_bound(table.op, f),
            None => Some(0),
        };
        Context {
            table: &table.table,
            op: table.op,
            format: f,
            output: output_domain(&table.table, f),
            step_bound,
            signaling: suite.map_or(SignalingPolicy::AsQuiet, |s| s.signaling_nans),
            authority: suite.map(|s| &s.authority),
            division_by_zero: suite.and_then(|s| s.integers.as_ref()).map(|c| c.division_by_zero),
            suite: suite.map_or("table", |s| s.name.as_str()),
            path: &table.path,
        }
    }

    /// What the result for `inputs` must be to meet every bar, opspec's included: every
    /// governing row's outcome, or the table's accuracy class where no row governs.
    pub fn expectation(&self, inputs: &[u64]) -> Result<Expect, String> {
        self.expectation_at(Tier::Quality, inputs)
    }

    /// What the result for `inputs` must be to meet the bars of `tier` and the tiers above it
    /// (before the document's latitudes: [`crate::judge::authority`]).
    pub fn expectation_at(&self, tier: Tier, inputs: &[u64]) -> Result<Expect, String> {
        self.expectation_at_under(tier, &governing_rows(self.table, self.format, inputs), inputs)
    }

    /// [`Context::expectation_at`] where the governing rows of `inputs` are known to be `rows`.
    pub fn expectation_at_under(&self, tier: Tier, rows: &[usize], inputs: &[u64]) -> Result<Expect, String> {
        if tier != Tier::Quality && self.undefined(inputs) {
            return Ok(Expect::AnyValue);
        }
        self.allow_signaling(inputs, self.governed_by(tier, rows, inputs)?)
    }

    /// Whether the suite's document leaves the result for `inputs` undefined: a float
    /// division by zero where the suite reads division by zero as undefined behaviour (numr's
    /// "Division by zero is undefined behavior (implementation-dependent)", which its `div`
    /// states of every dtype). Only opspec's bar then asks for a value.
    fn undefined(&self, inputs: &[u64]) -> bool {
        self.division_by_zero == Some(DivisionByZero::Undefined)
            && self.op == OpKind::Binary(opspec_adapter::BinaryOp::Divide)
            && inputs.get(1).is_some_and(|&x| self.format.is_zero(x))
    }

    /// Whether `row` is opspec's bar under this suite: cited to a source marked `opspec_bar`,
    /// or borrowed from a document that is not the suite's ([`Authority::borrows`]).
    pub fn is_opspec_bar(&self, row: &Row) -> bool {
        self.table.is_opspec_bar(row) || self.authority.is_some_and(|a| a.borrows(row))
    }

    /// What row `row`'s outcome requires for `inputs`.
    pub fn row_expectation(&self, row: usize, inputs: &[u64]) -> Result<Expect, String> {
        self.allow_signaling(inputs, self.outcome(Tier::Quality, &self.table.rows[row].result, inputs)?)
    }

    /// Under [`SignalingPolicy::MayPropagate`], a signaling NaN operand also allows a NaN.
    fn allow_signaling(&self, inputs: &[u64], expect: Expect) -> Result<Expect, String> {
        Ok(if self.signaling_allows_nan(inputs) {
            Expect::AnyOf(vec![expect, Expect::AnyNan])
        } else {
            expect
        })
    }

    /// Whether every row's outcome for `inputs` also allows any NaN: a signaling NaN operand
    /// under [`SignalingPolicy::MayPropagate`], for a float result.
    pub fn signaling_allows_nan(&self, inputs: &[u64]) -> bool {
        let f = self.format;
        let signaling = inputs.iter().any(|&x| f.is_nan(x) && x & (1 << (f.frac_bits - 1)) == 0);
        signaling
            && self.signaling == SignalingPolicy::MayPropagate
            && matches!(self.output, Domain::Float(_))
    }

    /// [`Context::expectation`] where the governing rows of `inputs` are known to be `rows`
    /// (a sweep finds them once per combination of value classes).
    pub fn expectation_under(&self, rows: &[usize], inputs: &[u64]) -> Result<Expect, String> {
        self.expectation_at_under(Tier::Quality, rows, inputs)
    }

    /// What `rows` give at `tier`. Below opspec's bar, where a row cited to a source that is
    /// opspec's bar governs, what the document's own rows give is accepted as well.
    fn governed_by(&self, tier: Tier, rows: &[usize], inputs: &[u64]) -> Result<Expect, String> {
        let table = self.table;
        if tier == Tier::Quality || !rows.iter().any(|&r| self.is_opspec_bar(&table.rows[r])) {
            return self.outcomes(tier, rows, inputs);
        }
        let documents = governing_rows_among(table, self.format, inputs, |r| !self.is_opspec_bar(r));
        Ok(Expect::AnyOf(vec![self.outcomes(tier, rows, inputs)?, self.outcomes(tier, &documents, inputs)?]))
    }

    fn outcomes(&self, tier: Tier, rows: &[usize], inputs: &[u64]) -> Result<Expect, String> {
        match rows {
            [] => self.default_expectation(tier, inputs),
            [row] => self.outcome(tier, &self.table.rows[*row].result, inputs),
            _ => Ok(Expect::AllOf(
                rows.iter()
                    .map(|&i| self.outcome(tier, &self.table.rows[i].result, inputs))
                    .collect::<Result<_, _>>()?,
            )),
        }
    }

    /// The table's accuracy class at `tier`: below opspec's bar, an approximation the
    /// document leaves open may be any value, a rounding the document lets tie either way may,
    /// and the sign of a zero an exact function gives is not asked (the pages state it only
    /// in their rows).
    fn default_expectation(&self, tier: Tier, inputs: &[u64]) -> Result<Expect, String> {
        self.default_expectation_of(tier, inputs, reference(self.op, self.format, inputs)?)
    }

    /// [`Context::expectation`] of `inputs` that no row governs, whose oracle result is
    /// `reference` (a sweep computes it itself, checking the FP state once per slice).
    pub fn unruled_expectation(&self, inputs: &[u64], reference: u64) -> Result<Expect, String> {
        self.allow_signaling(inputs, self.default_expectation_of(Tier::Quality, inputs, reference)?)
    }

    fn default_expectation_of(&self, tier: Tier, inputs: &[u64], reference: u64) -> Result<Expect, String> {
        if self.output == Domain::Bool {
            return Ok(Expect::Bits(reference));
        }
        let accuracy = self.accuracy_expectation(tier, inputs, reference)?;
        let others = self.readings_meeting(tier, inputs);
        Ok(if others.is_empty() {
            accuracy
        } else {
            Expect::AnyOf(
                std::iter::once(accuracy)
                    .chain(others.into_iter().map(|v| nan_or_bits(self.format, v)))
                    .collect(),
            )
        })
    }

    /// The values of the table's other readings ([`crate::spec::authority::Reading`]) that meet
    /// `tier`. Floor division's readings are of finite operands (rows state the others); the
    /// fused operations' are the IEEE operations they name, on any operands.
    fn readings_meeting(&self, tier: Tier, inputs: &[u64]) -> Vec<u64> {
        use crate::oracle::floor_division::{floor_of_divide, in_widths, python_floor_divide};
        use crate::oracle::fused_readings::{add_multiply_once, add_multiply_wide, multiply_then_add};
        let f = self.format;
        let finite = inputs.iter().all(|&x| f.is_finite(x));
        let mut values = Vec::new();
        for reading in self.table.readings.iter().filter(|r| tier <= r.meets) {
            match (reading.value, inputs) {
                (ReadingValue::FloorOfDivide, &[a, b]) if finite => {
                    values.extend(in_widths(floor_of_divide, f, a, b));
                    values.extend(self.flushed_quotient(tier, a, b));
                }
                (ReadingValue::PythonFloorDivide, &[a, b]) if finite => {
                    values.extend(in_widths(python_floor_divide, f, a, b));
                }
                (ReadingValue::MultiplyThenAdd, &[a, b, c]) => values.push(multiply_then_add(f, a, b, c)),
                (ReadingValue::AddMultiplyOnce, &[a, b, c]) => values.push(add_multiply_once(f, a, b, c)),
                (ReadingValue::AddMultiplyWide, &[a, b, c]) => values.extend(add_multiply_wide(f, a, b, c)),
                _ => {}
            }
        }
        values
    }

    /// floor(divide(x1, x2)) with the quotient flushed to zero where it is subnormal: the
    /// subnormal latitude the suite grants, applied to the division the reading names, below
    /// opspec's bar.
    fn flushed_quotient(&self, tier: Tier, a: u64, b: u64) -> Option<u64> {
        let granted = tier != Tier::Quality && self.authority.is_some_and(|x| x.subnormals.is_some());
        let q = oracle::divide(self.format, a, b);
        (granted && self.format.is_subnormal(q)).then(|| q & self.format.sign_mask())
    }

    /// The operation on whose rounding terms the value is graded: the table's `rounds_as`
    /// (square on multiply's), or its own.
    pub fn rounding_op(&self) -> OpKind {
        self.table.rounds_as.as_deref().and_then(crate::spec::parse_op).unwrap_or(self.op)
    }

    fn accuracy_expectation(&self, tier: Tier, inputs: &[u64], reference: u64) -> Result<Expect, String> {
        let f = self.format;
        let opens = |grant: fn(&Authority, OpKind) -> bool| {
            tier != Tier::Quality && self.authority.is_some_and(|a| grant(a, self.rounding_op()))
        };
        Ok(match self.table.accuracy {
            Accuracy::Exact if tier != Tier::Quality && f.is_zero(reference) => {
                Expect::AnyOf(vec![Expect::Bits(f.pos_zero()), Expect::Bits(f.neg_zero())])
            }
            Accuracy::CorrectlyRounded if tier == Tier::Must && opens(Authority::rounds_any_direction) => {
                match oracle::ties::other_neighbour(self.op, f, inputs, reference) {
                    Some(other) => Expect::AnyOf(vec![Expect::Bits(reference), Expect::Bits(other)]),
                    None => nan_or_bits(f, reference),
                }
            }
            Accuracy::CorrectlyRounded if opens(Authority::rounds) && self.ties_free(tier) => {
                match oracle::ties::away(self.op, f, inputs, reference) {
                    Some(away) => Expect::AnyOf(vec![Expect::Bits(reference), Expect::Bits(away)]),
                    None => nan_or_bits(f, reference),
                }
            }
            Accuracy::CorrectlyRounded | Accuracy::Exact => nan_or_bits(f, reference),
            Accuracy::Approximate
                if tier == Tier::Should && self.recommends_approximations() && f.is_finite(reference) =>
            {
                Expect::Finite
            }
            Accuracy::Approximate if opens(Authority::approximates) => Expect::AnyValue,
            Accuracy::Approximate => Expect::WithinSteps { reference, steps: self.steps()? },
        })
    }

    /// Whether the document recommends approximations of the results where it sets no bound.
    fn recommends_approximations(&self) -> bool {
        self.authority.is_some_and(|a| {
            a.approximates(self.op) && a.approximations.as_ref().is_some_and(|x| x.should.is_some())
        })
    }

    /// Whether a tie may round away from zero at `tier`: at the must tier, and at the should
    /// tier where the document recommends no tie rule.
    fn ties_free(&self, tier: Tier) -> bool {
        let recommends = self.authority.and_then(|a| a.rounding.as_ref()).is_some_and(|r| r.should.is_some());
        tier == Tier::Must || (tier == Tier::Should && !recommends)
    }

    fn steps(&self) -> Result<u32, String> {
        self.step_bound
            .ok_or_else(|| format!("the suite sets no step bound for {} in {}", self.op, self.format.name))
    }

    fn outcome(&self, tier: Tier, outcome: &Outcome, inputs: &[u64]) -> Result<Expect, String> {
        let f = self.format;
        Ok(match outcome {
            Outcome::Nan => Expect::AnyNan,
            Outcome::NanWithSign(rule) => Expect::NanWithSign { negative: negative(f, *rule, inputs) },
            Outcome::Boolean(b) => Expect::Bits(u64::from(*b)),
            Outcome::PosZero => Expect::Bits(f.pos_zero()),
            Outcome::NegZero => Expect::Bits(f.neg_zero()),
            Outcome::PosInfinity => Expect::Bits(f.pos_inf()),
            Outcome::NegInfinity => Expect::Bits(f.neg_inf()),
            Outcome::Value(v) => Expect::Bits(
                f.from_f64_exact(*v).ok_or_else(|| format!("{v} is not representable in {}", f.name))?,
            ),
            Outcome::Operand(o) => nan_or_bits(f, inputs[o.index()]),
            Outcome::NegOperand(o) => nan_or_bits(f, f.neg(inputs[o.index()])),
            Outcome::AbsOperand(o) => nan_or_bits(f, f.abs(inputs[o.index()])),
            Outcome::NegAbsOperand(o) => nan_or_bits(f, f.abs(inputs[o.index()]) | f.sign_mask()),
            Outcome::Sign(rule) => Expect::Sign { negative: negative(f, *rule, inputs) },
            Outcome::SignedInfinity(rule) => {
                Expect::Bits(if negative(f, *rule, inputs) { f.neg_inf() } else { f.pos_inf() })
            }
            // The row says only "an implementation-dependent approximation": the suite's step
            // bound is opspec's; the must is opspec's reading of "an approximation to".
            Outcome::Approx(c) if tier != Tier::Quality => {
                Expect::WithinSteps { reference: constant(f, *c), steps: approximation_steps(f) }
            }
            Outcome::Approx(c) => Expect::WithinSteps { reference: constant(f, *c), steps: self.steps()? },
            Outcome::AnyOf(list) => {
                Expect::AnyOf(list.iter().map(|o| self.outcome(tier, o, inputs)).collect::<Result<_, _>>()?)
            }
            Outcome::Prefer(list) if tier == Tier::Must => {
                Expect::AnyOf(list.iter().map(|o| self.outcome(tier, o, inputs)).collect::<Result<_, _>>()?)
            }
            Outcome::Prefer(list) => self.outcome(tier, &list[0], inputs)?,
            Outcome::CorrectlyRounded => self.default_expectation(tier, inputs)?,
            Outcome::Unspecified => Expect::AnyValue,
        })
    }
}

fn nan_or_bits(f: Format, x: u64) -> Expect {
    if f.is_nan(x) { Expect::AnyNan } else { Expect::Bits(x) }
}

fn negative(f: Format, rule: SignRule, inputs: &[u64]) -> bool {
    match rule {
        SignRule::Positive => false,
        SignRule::Negative => true,
        SignRule::ProductOfSigns => inputs.iter().filter(|&&x| f.is_sign_negative(x)).count() % 2 == 1,
    }
}

/// How far from the correctly rounded constant a result still counts as "an approximation to"
/// it, at the must and should tiers: 2^(p-7) representable steps for a p-bit significand, a
/// relative error of about 0.8 to 1.6 % (2 steps in bf16, 16 in f16, 2^17 in f32), at most
/// 2^32 - 1 steps (f64: about 10^-6 relative, still looser than a float32 result). A NaN, an
/// infinity, zero, the other sign or another constant a row names is at least 25 % away.
pub fn approximation_steps(f: Format) -> u32 {
    u32::try_from(1u64 << (f.precision() - 7)).unwrap_or(u32::MAX)
}

/// A named constant correctly rounded to the format.
pub(crate) fn constant(f: Format, c: NamedConstant) -> u64 {
    let pi = Float::with_val(256, Constant::Pi);
    let value = match c {
        NamedConstant::Pi => pi,
        NamedConstant::NegPi => -pi,
        NamedConstant::HalfPi => pi / 2u32,
        NamedConstant::NegHalfPi => -pi / 2u32,
        NamedConstant::QuarterPi => pi / 4u32,
        NamedConstant::NegQuarterPi => -pi / 4u32,
        NamedConstant::ThreeQuarterPi => pi * 3u32 / 4u32,
        NamedConstant::NegThreeQuarterPi => -pi * 3u32 / 4u32,
    };
    oracle::round_exact(f, &value)
}
