//! Element-wise tables in integer and bool dtypes: edge and random operands, the exact result
//! from [`oracle::integer`](crate::oracle::integer), and the suite's contract for what the
//! mathematics leaves open (overflow, division by zero, negative exponents), judged by
//! [`judge::integer`](crate::judge::integer).

use std::sync::Arc;

use opspec_adapter::{Adapter, BinaryOp, OpKind};

use crate::bits::value::{Domain, IntFormat};
use crate::generate::{Cases, Generator, int_edge_values, int_values};
use crate::judge::batch::{Grader, Judge, Reading};
use crate::judge::expect::Expect;
use crate::judge::integer::{IntegerGrader, WithoutValue, expectation};
use crate::oracle::integer::Exact;
use crate::results::{CheckResult, Citation};
use crate::run::batch::{Batch, CallError};
use crate::run::check::{Check, IntegerCases, IntegerTarget, RunOptions};
use crate::run::record::{Failure, Recorder, Repro};
use crate::spec::schema::Output;
use crate::spec::suite::{NanPolicy, Quotient};
use crate::spec::{Catalog, LoadedSuite};

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
        (ints.grader.table.op, ints.grader.contract.divide, target.cases == IntegerCases::ByZero)
    {
        result.citation = Some(quotient_citation(ints.grader.suite, rule));
    }
    let actual = match ints.batch.call(adapter, options) {
        Ok(actual) => actual,
        // A `by-zero` batch holds divisions by zero and nothing else, so the outcome is theirs.
        Err(no_value) if target.cases == IntegerCases::ByZero => {
            return ints.by_zero_without_value(no_value, &mut Recorder::new(result, options));
        }
        Err(no_value) => return Err(no_value.into()),
    };
    let grade = |case: &[u64], actual: u64| ints.grader.grade(case, actual);
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
    /// The table, the adapter's suite and its `integers` block: what judges the results.
    pub grader: IntegerGrader<'a>,
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
            grader: IntegerGrader { table, suite: loaded, contract, int, output },
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
        let exact = self.grader.exact(case)?;
        if (exact == Exact::DivisionByZero) != (self.cases == IntegerCases::ByZero) {
            return Ok(None);
        }
        expectation(self.grader.contract, self.grader.int, exact)
    }

    /// Judges a `by-zero` call that gave no value, by the suite's `division_by_zero`
    /// ([`IntegerGrader::without_value`]): an allowed error passes, a graded one is recorded,
    /// and otherwise the reason is returned and the check fails a must.
    fn by_zero_without_value(&self, no_value: CallError, rec: &mut Recorder) -> Result<(), String> {
        let n = self.batch.cases.len();
        let refused = matches!(no_value, CallError::Refused(_));
        let reason = String::from(no_value);
        match self.grader.without_value(refused) {
            WithoutValue::Allowed => {
                rec.checked(n);
                rec.result.message = format!("the contract allows an error here; {reason}");
            }
            WithoutValue::Graded(grade) => {
                rec.checked(n);
                rec.fail_graded(n, grade, false, || Failure {
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
            WithoutValue::Must => return Err(reason),
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn edges_combine_per_operand() {
        assert_eq!(edge_combinations(&[0, 1], 1), [[0], [1]]);
        assert_eq!(edge_combinations(&[0, 1], 2), [[0, 0], [0, 1], [1, 0], [1, 1]]);
    }
}
