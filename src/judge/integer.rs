//! Judging integer results: what the suite's integer contract requires where the mathematics
//! leaves a case open (overflow, division by zero, negative exponents), and the grade of a
//! result it rejects: shifts past the width and quotients rounded the other way miss only
//! opspec's reading; a division by zero the document leaves undefined fails no must.

use opspec_adapter::{BinaryOp, OpKind};

use rug::Integer;

use crate::bits::value::{Domain, IntFormat};
use crate::judge::authority::Grade;
use crate::judge::expect::Expect;
use crate::oracle::integer::Exact;
use crate::oracle::ops::exact_integer;
use crate::spec::authority::Tier;
use crate::spec::suite::{DivisionByZero, IntegerContract, NanPolicy, Overflow, Quotient, Unspecified};
use crate::spec::{LoadedSuite, LoadedTable};

/// What grades an integer check's results: the table, the suite whose `integers` block is
/// `contract`, and the dtype's format.
pub struct IntegerGrader<'a> {
    pub table: &'a LoadedTable,
    pub suite: &'a LoadedSuite,
    pub contract: IntegerContract,
    pub int: IntFormat,
    /// The result's domain (the operands' format, or bool).
    pub output: Domain,
}

/// How a `by-zero` call that gave no value is judged.
pub enum WithoutValue {
    /// The contract allows the library's error (`any_or_error`).
    Allowed,
    /// The document leaves division by zero undefined: giving no value misses only this bar.
    Graded(Grade),
    /// Anything else fails a must.
    Must,
}

impl IntegerGrader<'_> {
    /// The exact outcome of the operation on `case`.
    pub fn exact(&self, case: &[u64]) -> Result<Exact, String> {
        let operands: Vec<i128> = case.iter().map(|&x| self.int.value(x)).collect();
        Ok(exact_integer(self.table.op, self.int, &operands)
            .ok_or("the operation is not defined on integers")?)
    }

    /// The grade of `actual`, a result for `case` that its expectation rejects. The words
    /// `a / b` name no rounding, so a quotient rounded the other way than the suite's
    /// `integers.divide` misses only opspec's reading (quality), and so does any result of a
    /// left shift by the width or more (the definition's "appending zeros" does not say what
    /// such a count gives); any other result, and every result of another operation, misses a
    /// must.
    pub fn grade(&self, case: &[u64], actual: u64) -> Grade {
        if self.table.op == OpKind::Binary(BinaryOp::BitwiseLeftShift)
            && self.int.value(case[1]) >= i128::from(self.int.bits)
        {
            return Grade::opspec(format!(
                "opspec's reading of \"appending zeros\" in a fixed width: a shift by the width or more gives 0 ({}); the definition does not say what such a count gives",
                self.table.path.display()
            ));
        }
        let exact = self.exact(case);
        if self.contract.overflow == Overflow::Wrap && exact.as_ref().is_ok_and(|e| self.overflows(e)) {
            return Grade::opspec(format!(
                "opspec's reading: two's-complement wrapping ({} `integers.overflow: wrap`); {} says nothing of a result outside the dtype's range",
                self.suite.path.display(),
                self.suite.suite.title
            ));
        }
        let (Ok(exact @ Exact::Quotient { .. }), Some(rule)) = (exact, self.contract.divide) else {
            return self.defined_value();
        };
        let under = |rule: Quotient| {
            let contract = IntegerContract { divide: Some(rule), ..self.contract };
            expectation(contract, self.int, exact.clone()).ok().flatten()
        };
        let (ours, other) = (under(rule), under(rule.other()));
        let location = self.suite.path.display();
        if ours != other && other.is_some_and(|e| e.accepts(self.output, actual, NanPolicy::Any)) {
            return Grade::opspec(format!(
                "opspec's reading of `a / b`: the quotient {} ({location} integers.divide); this result is the quotient {}, which the words also allow",
                rule.words(),
                rule.other().words()
            ));
        }
        Grade {
            tier: Tier::Must,
            basis: format!(
                "must: `a / b` ({}), read either way: this result is neither the quotient {} nor the quotient {}",
                self.suite.suite.title,
                rule.words(),
                rule.other().words()
            ),
        }
    }

    /// The must an integer result that is not the exact one fails: the table's definition in
    /// its document's words where it quotes one (bitwise_right_shift: "equivalent to floor
    /// division by a power of two"), else the value its document defines.
    fn defined_value(&self) -> Grade {
        let table = &self.table.table;
        let path = self.table.path.display();
        let basis = match &table.defined_as {
            Some(definition) => format!("must: \"{}\" ({path})", definition.text),
            None => {
                let document = table.sources.first().map_or("its document", |s| s.title.as_str());
                format!(
                    "must: the value of {} that {document} defines, exact in the dtype ({path})",
                    self.table.op
                )
            }
        };
        Grade { tier: Tier::Must, basis }
    }

    /// Whether the exact result `e` lies outside the dtype's range (a quotient: once made an
    /// integer the suite's way, `MIN / -1`).
    fn overflows(&self, e: &Exact) -> bool {
        match e {
            Exact::Value(v) => v.to_i128().is_none_or(|v| !self.int.contains(v)),
            Exact::Huge { .. } => true,
            Exact::Quotient { dividend, divisor } => {
                let rounded = Integer::from(dividend / divisor);
                rounded.to_i128().is_none_or(|v| !self.int.contains(v))
            }
            _ => false,
        }
    }

    /// How a `by-zero` call that gave no value (`refused`: the library returned an error;
    /// else a panic, a crashed process or a hang) is judged, by the suite's
    /// `division_by_zero`: an error is allowed under `any_or_error`; under `undefined` nothing
    /// the call does fails a must, and giving no value misses only opspec's bar; anything else
    /// fails a must.
    pub fn without_value(&self, refused: bool) -> WithoutValue {
        match (self.contract.division_by_zero, refused) {
            (DivisionByZero::AnyOrError, true) => WithoutValue::Allowed,
            (DivisionByZero::Undefined, _) => WithoutValue::Graded(Grade::opspec(format!(
                "opspec's bar: a value; {} leaves division by zero undefined ({} `integers.division_by_zero: undefined`), so no outcome fails a must",
                self.suite.suite.title,
                self.suite.path.display()
            ))),
            _ => WithoutValue::Must,
        }
    }
}

/// What the contract requires of an exact outcome; `None` where it leaves the case out.
pub fn expectation(
    contract: IntegerContract,
    int: IntFormat,
    exact: Exact,
) -> Result<Option<Expect>, String> {
    let unspecified = |rule: Unspecified| match rule {
        Unspecified::Zero => Some(Expect::Bits(0)),
        Unspecified::Any => Some(Expect::AnyValue),
        Unspecified::Avoid => None,
    };
    let by_zero = match contract.division_by_zero {
        DivisionByZero::Zero => Some(Expect::Bits(0)),
        // A call that gives no value is judged by the check ([`IntegerGrader::without_value`]),
        // a value here.
        DivisionByZero::Any | DivisionByZero::AnyOrError | DivisionByZero::Undefined => {
            Some(Expect::AnyValue)
        }
        DivisionByZero::Avoid => None,
    };
    let value = |v: rug::Integer| match v.to_i128().filter(|&v| int.contains(v)) {
        Some(v) => Some(Expect::Bits(int.wrap(v))),
        None => overflowed(contract.overflow, int, v.is_negative(), || {
            let residue = v.to_u128_wrapping();
            int.wrap(residue as i128)
        }),
    };
    Ok(match exact {
        Exact::Bool(b) => Some(Expect::Bits(u64::from(b))),
        Exact::Value(v) => value(v),
        Exact::Quotient { dividend, divisor } => value(match contract.divide {
            Some(Quotient::Truncate) => dividend.div_rem(divisor).0,
            Some(Quotient::Floor) => dividend.div_rem_floor(divisor).0,
            None => {
                return Err(
                    "the suite's `integers` block does not say how a quotient is rounded (`divide`)".into()
                );
            }
        }),
        Exact::Huge { negative, residue } => {
            overflowed(contract.overflow, int, negative, || int.wrap(residue.to_u128_wrapping() as i128))
        }
        Exact::DivisionByZero => by_zero,
        Exact::NegativeExponent => unspecified(contract.negative_exponent),
        Exact::OutsideDomain => None,
    })
}

fn overflowed(
    rule: Overflow,
    int: IntFormat,
    negative: bool,
    wrapped: impl FnOnce() -> u64,
) -> Option<Expect> {
    match rule {
        Overflow::Wrap => Some(Expect::Bits(wrapped())),
        Overflow::Saturate => Some(Expect::Bits(int.wrap(if negative { int.min() } else { int.max() }))),
        Overflow::Any => Some(Expect::AnyValue),
        Overflow::Avoid => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::Integer;

    const I8: IntFormat = IntFormat { bits: 8, signed: true };
    const CONTRACT: IntegerContract = IntegerContract {
        overflow: Overflow::Wrap,
        division_by_zero: DivisionByZero::Zero,
        negative_exponent: Unspecified::Avoid,
        divide: Some(Quotient::Truncate),
    };

    #[test]
    fn contracts_decide_the_open_cases() {
        let value = |v: i64| Exact::Value(Integer::from(v));
        assert_eq!(expectation(CONTRACT, I8, value(-5)).unwrap(), Some(Expect::Bits(0xfb)));
        assert_eq!(expectation(CONTRACT, I8, value(128)).unwrap(), Some(Expect::Bits(0x80)), "wraps");
        let saturating = IntegerContract { overflow: Overflow::Saturate, ..CONTRACT };
        assert_eq!(expectation(saturating, I8, value(300)).unwrap(), Some(Expect::Bits(0x7f)));
        assert_eq!(expectation(saturating, I8, value(-300)).unwrap(), Some(Expect::Bits(0x80)));
        let avoiding = IntegerContract { overflow: Overflow::Avoid, ..CONTRACT };
        assert_eq!(expectation(avoiding, I8, value(128)).unwrap(), None);
        assert_eq!(expectation(CONTRACT, I8, Exact::DivisionByZero).unwrap(), Some(Expect::Bits(0)));
        assert_eq!(expectation(CONTRACT, I8, Exact::NegativeExponent).unwrap(), None);
        let huge = Exact::Huge { negative: false, residue: Integer::from(0x1_0000_0181u64) };
        assert_eq!(expectation(CONTRACT, I8, huge).unwrap(), Some(Expect::Bits(0x81)));
        assert_eq!(expectation(CONTRACT, I8, Exact::OutsideDomain).unwrap(), None);
        let quotient = |a: i64, b: i64| Exact::Quotient { dividend: a.into(), divisor: b.into() };
        assert_eq!(expectation(CONTRACT, I8, quotient(-7, 2)).unwrap(), Some(Expect::Bits(0xfd)), "-3");
        assert_eq!(expectation(CONTRACT, I8, quotient(-128, -1)).unwrap(), Some(Expect::Bits(0x80)), "wraps");
        let flooring = IntegerContract { divide: Some(Quotient::Floor), ..CONTRACT };
        assert_eq!(expectation(flooring, I8, quotient(-7, 2)).unwrap(), Some(Expect::Bits(0xfc)), "-4");
        let silent = IntegerContract { divide: None, ..CONTRACT };
        assert!(expectation(silent, I8, quotient(-7, 2)).is_err());
    }
}
