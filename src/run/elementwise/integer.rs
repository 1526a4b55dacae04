//! Element-wise tables in integer and bool dtypes: edge and random operands, the exact result
//! from [`oracle::integer`](crate::oracle::integer), and the suite's contract for what the
//! mathematics leaves open (overflow, division by zero, negative exponents).

use std::sync::Arc;

use opspec_adapter::{Adapter, BinaryOp, OpKind};

use crate::bits::value::{Domain, IntFormat};
use crate::generate::{Cases, Generator, int_edge_values, int_values};
use crate::judge::authority::Grade;
use crate::judge::expect::Expect;
use crate::oracle::integer::Exact;
use crate::oracle::ops::exact_integer;
use crate::results::{CheckResult, Citation};
use crate::run::batch::{Batch, CallError, Grader, Judge, Reading};
use crate::run::check::{Check, IntegerCases, IntegerTarget, RunOptions};
use crate::run::record::{Failure, Recorder, Repro};
use crate::spec::authority::Tier;
use crate::spec::schema::Output;
use crate::spec::suite::{DivisionByZero, IntegerContract, NanPolicy, Overflow, Quotient, Unspecified};
use crate::spec::{Catalog, LoadedSuite, LoadedTable};

/// Random operands drawn per case kept (the contract may exclude most inputs of an
/// operation, e.g. `pow` without overflow).
const DRAWS_PER_CASE: usize = 8;

/// Runs an integer check against `adapter`.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &IntegerTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let ints = IntegerBatch::prepare(catalog, check, target)?;
    if let (OpKind::Binary(BinaryOp::Divide), Some(rule), false) =
        (ints.table.op, ints.contract.divide, target.cases == IntegerCases::ByZero)
    {
        result.citation = Some(quotient_citation(ints.suite, rule));
    }
    let actual = match ints.batch.call(adapter, options) {
        Ok(actual) => actual,
        // A `by-zero` batch holds divisions by zero and nothing else, so the outcome is theirs.
        Err(no_value) if target.cases == IntegerCases::ByZero => {
            return ints.by_zero_without_value(no_value, &mut Recorder::new(result, options));
        }
        Err(no_value) => return Err(no_value.into()),
    };
    let grade = |case: &[u64], actual: u64| ints.grade(case, actual);
    let judge = Judge { grader: Grader::Case(&grade), alone: None };
    ints.batch.compare(&actual, &mut Recorder::new(result, options), Some(&judge));
    Ok(())
}

/// What an integer `divide` check holds quotients to: the suite's `integers.divide`, a reading
/// of its own (`docs/AUTHORITY.md`), since the table's rows are the array API's, on floats.
fn quotient_citation(suite: &LoadedSuite, rule: Quotient) -> Citation {
    let (name, words) = (rule.name(), rule.words());
    Citation {
        row: "divide/integers".into(),
        source: format!(
            "{}: `integers.divide: {name}`, opspec's reading (the document names no rounding of integer quotients)",
            suite.suite.title
        ),
        text: format!("the exact quotient {words}, then `integers.overflow` (`MIN / -1`)"),
        location: suite.path.display().to_string(),
    }
}

/// An integer check's inputs and what each must give.
pub struct IntegerBatch<'a> {
    pub batch: Batch,
    table: &'a LoadedTable,
    /// The adapter's suite, whose `integers` block is `contract`.
    suite: &'a LoadedSuite,
    contract: IntegerContract,
    int: IntFormat,
    cases: IntegerCases,
}

impl<'a> IntegerBatch<'a> {
    /// The check's operands (edges, or seeded random pairs drawn until the suite's count is
    /// kept, since the contract may leave many out) with their expectations.
    pub fn prepare(
        catalog: &'a Catalog,
        check: &Check,
        target: &IntegerTarget,
    ) -> Result<IntegerBatch<'a>, String> {
        let table = &catalog.elementwise[target.table];
        let loaded = check.adapter_suite(catalog)?;
        let suite = &loaded.suite;
        let contract = suite.integers.ok_or("the suite sets no integer contract")?;
        let int = IntFormat::holding(target.dtype).ok_or("not an integer or bool dtype")?;
        let input = Domain::of(target.dtype);
        let output = match table.table.output {
            Output::Same => input,
            Output::Bool => Domain::Bool,
        };
        let mut ints = IntegerBatch {
            batch: Batch {
                op: table.op,
                dtype: target.dtype,
                cases: Cases::new(),
                expected: Vec::new(),
                reading: Reading { input, output, nan: NanPolicy::Any },
            },
            table,
            suite: loaded,
            contract,
            int,
            cases: target.cases,
        };
        let arity = table.table.operands.len();
        match target.cases {
            IntegerCases::Edges => {
                for case in edge_combinations(&int_edge_values(int), arity) {
                    ints.keep(case)?;
                }
            }
            IntegerCases::ByZero => {
                for x in int_edge_values(int) {
                    ints.keep(vec![x, 0])?;
                }
            }
            IntegerCases::Random => {
                let mut generator = Generator::new(suite.seed, &check.id.to_string());
                let values = int_values(int);
                for _ in 0..suite.random_cases * DRAWS_PER_CASE {
                    let case = (0..arity).map(|_| values.draw(&mut generator)).collect();
                    if ints.keep(case)? == suite.random_cases {
                        break;
                    }
                }
            }
        }
        Ok(ints)
    }

    /// What the contract requires for `case`; `None` where it leaves the case out, and for a
    /// division by zero outside a `by-zero` check (which holds nothing else).
    pub fn expectation(&self, case: &[u64]) -> Result<Option<Expect>, String> {
        let exact = self.exact(case)?;
        if (exact == Exact::DivisionByZero) != (self.cases == IntegerCases::ByZero) {
            return Ok(None);
        }
        expectation(self.contract, self.int, exact)
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
        let (Ok(exact @ Exact::Quotient { .. }), Some(rule)) = (self.exact(case), self.contract.divide)
        else {
            return Grade::cited();
        };
        let under = |rule: Quotient| {
            let contract = IntegerContract { divide: Some(rule), ..self.contract };
            expectation(contract, self.int, exact.clone()).ok().flatten()
        };
        let (ours, other) = (under(rule), under(rule.other()));
        let output = self.batch.reading.output;
        let location = self.suite.path.display();
        if ours != other && other.is_some_and(|e| e.accepts(output, actual, NanPolicy::Any)) {
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

    /// Judges a `by-zero` call that gave no value, by the suite's `division_by_zero`: an error
    /// the library returned is allowed under `any_or_error`; under `undefined` nothing the call
    /// does fails a must, and giving no value misses only opspec's bar; else (a panic, a
    /// crashed process, a hang, or an error the rule does not allow) the reason is returned,
    /// and the check fails a must.
    fn by_zero_without_value(&self, no_value: CallError, rec: &mut Recorder) -> Result<(), String> {
        let n = self.batch.cases.len();
        match (self.contract.division_by_zero, no_value) {
            (DivisionByZero::AnyOrError, CallError::Refused(reason)) => {
                rec.checked(n);
                rec.result.message = format!("the contract allows an error here; {reason}");
            }
            (DivisionByZero::Undefined, no_value) => {
                let reason = String::from(no_value);
                let location = self.suite.path.display();
                let basis = format!(
                    "opspec's bar: a value; {} leaves division by zero undefined ({location} `integers.division_by_zero: undefined`), so no outcome fails a must",
                    self.suite.suite.title
                );
                rec.checked(n);
                rec.fail_graded(n, Grade::opspec(basis), false, || Failure {
                    inputs: vec![format!("{n} divisions by zero")],
                    expected: "any value".into(),
                    actual: reason.clone(),
                    steps: None,
                    actual_bits: None,
                    repro: Repro::Check,
                    batch: None,
                });
                rec.result.message = format!("no value (opspec's bar; the document allows it): {reason}");
            }
            (_, no_value) => return Err(no_value.into()),
        }
        Ok(())
    }

    /// The exact outcome of the operation on `case`.
    fn exact(&self, case: &[u64]) -> Result<Exact, String> {
        let operands: Vec<i128> = case.iter().map(|&x| self.int.value(x)).collect();
        Ok(exact_integer(self.table.op, self.int, &operands)
            .ok_or("the operation is not defined on integers")?)
    }

    /// Keeps a case the contract judges; says how many are kept.
    fn keep(&mut self, case: Vec<u64>) -> Result<usize, String> {
        if let Some(e) = self.expectation(&case)? {
            self.batch.cases.push(case);
            self.batch.expected.push(e);
        }
        Ok(self.batch.expected.len())
    }
}

/// Every combination of `values`, one per operand, the first operand varying slowest.
fn edge_combinations(values: &[u64], arity: usize) -> Vec<Vec<u64>> {
    (0..arity).fold(vec![Vec::new()], |cases, _| {
        cases.iter().flat_map(|case| values.iter().map(move |&v| [case.as_slice(), &[v]].concat())).collect()
    })
}

/// What the contract requires of an exact outcome; `None` where it leaves the case out.
fn expectation(contract: IntegerContract, int: IntFormat, exact: Exact) -> Result<Option<Expect>, String> {
    let unspecified = |rule: Unspecified| match rule {
        Unspecified::Zero => Some(Expect::Bits(0)),
        Unspecified::Any => Some(Expect::AnyValue),
        Unspecified::Avoid => None,
    };
    let by_zero = match contract.division_by_zero {
        DivisionByZero::Zero => Some(Expect::Bits(0)),
        // A call that gives no value is judged by the check (`run`), a value here.
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

    #[test]
    fn edges_combine_per_operand() {
        assert_eq!(edge_combinations(&[0, 1], 1), [[0], [1]]);
        assert_eq!(edge_combinations(&[0, 1], 2), [[0, 0], [0, 1], [1, 0], [1, 1]]);
    }
}
