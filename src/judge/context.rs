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
use crate::spec::matching::governing_rows;
use crate::spec::schema::{Accuracy, NamedConstant, Outcome, Output, SignRule, SpecTable};
use crate::spec::suite::{SignalingPolicy, Suite};

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
}

impl<'a> Context<'a> {
    /// The context of `table` in format `f` under `suite`; without a suite (a table
    /// self-check against the correctly rounded oracle) no step is allowed and signaling
    /// NaNs are held to the table's results.
    pub fn new(table: &'a LoadedTable, suite: Option<&Suite>, f: Format) -> Context<'a> {
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
        }
    }

    /// What the result for `inputs` must be: every governing row's outcome, or the table's
    /// accuracy class where no row governs.
    pub fn expectation(&self, inputs: &[u64]) -> Result<Expect, String> {
        self.allow_signaling(inputs, self.governed(inputs)?)
    }

    /// What row `row`'s outcome requires for `inputs`.
    pub fn row_expectation(&self, row: usize, inputs: &[u64]) -> Result<Expect, String> {
        self.allow_signaling(inputs, self.outcome(&self.table.rows[row].result, inputs)?)
    }

    /// Under [`SignalingPolicy::MayPropagate`], a signaling NaN operand also allows a NaN.
    fn allow_signaling(&self, inputs: &[u64], expect: Expect) -> Result<Expect, String> {
        let f = self.format;
        let signaling = inputs.iter().any(|&x| f.is_nan(x) && x & (1 << (f.frac_bits - 1)) == 0);
        Ok(
            if signaling
                && self.signaling == SignalingPolicy::MayPropagate
                && matches!(self.output, Domain::Float(_))
            {
                Expect::AnyOf(vec![expect, Expect::AnyNan])
            } else {
                expect
            },
        )
    }

    /// [`Context::expectation`] where the governing rows of `inputs` are known to be `rows`
    /// (a sweep finds them once per combination of value classes).
    pub fn expectation_under(&self, rows: &[usize], inputs: &[u64]) -> Result<Expect, String> {
        self.allow_signaling(inputs, self.governed_by(rows, inputs)?)
    }

    fn governed(&self, inputs: &[u64]) -> Result<Expect, String> {
        self.governed_by(&governing_rows(self.table, self.format, inputs), inputs)
    }

    fn governed_by(&self, rows: &[usize], inputs: &[u64]) -> Result<Expect, String> {
        match rows {
            [] => self.default_expectation(inputs),
            [row] => self.outcome(&self.table.rows[*row].result, inputs),
            _ => Ok(Expect::AllOf(
                rows.iter()
                    .map(|&i| self.outcome(&self.table.rows[i].result, inputs))
                    .collect::<Result<_, _>>()?,
            )),
        }
    }

    fn default_expectation(&self, inputs: &[u64]) -> Result<Expect, String> {
        let reference = reference(self.op, self.format, inputs)?;
        if self.output == Domain::Bool {
            return Ok(Expect::Bits(reference));
        }
        match self.table.accuracy {
            Accuracy::CorrectlyRounded | Accuracy::Exact => Ok(nan_or_bits(self.format, reference)),
            Accuracy::Approximate => Ok(Expect::WithinSteps { reference, steps: self.steps()? }),
        }
    }

    fn steps(&self) -> Result<u32, String> {
        self.step_bound
            .ok_or_else(|| format!("the suite sets no step bound for {} in {}", self.op, self.format.name))
    }

    fn outcome(&self, outcome: &Outcome, inputs: &[u64]) -> Result<Expect, String> {
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
            Outcome::Approx(c) => Expect::WithinSteps { reference: constant(f, *c), steps: self.steps()? },
            Outcome::AnyOf(list) => {
                Expect::AnyOf(list.iter().map(|o| self.outcome(o, inputs)).collect::<Result<_, _>>()?)
            }
            Outcome::CorrectlyRounded => self.default_expectation(inputs)?,
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
