//! Element-wise tables in integer dtypes: edge and random operands, the exact result from
//! [`oracle::integer`](crate::oracle::integer), and the suite's contract for what the
//! mathematics leaves open (overflow, division by zero, negative exponents).

use std::sync::Arc;

use opspec_adapter::Adapter;

use super::batch::{Batch, Reading};
use super::check::{Check, IntegerCases, IntegerTarget, RunOptions};
use super::record::Recorder;
use super::result::CheckResult;
use crate::check::Expect;
use crate::generate::{Cases, Generator, int_edge_values, int_values};
use crate::oracle::integer::Exact;
use crate::oracle::ops::exact_integer;
use crate::spec::schema::Output;
use crate::spec::suite::{IntegerContract, NanPolicy, Overflow, Unspecified};
use crate::spec::{Catalog, LoadedTable};
use crate::value::{Domain, IntFormat};

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
    let actual = ints.batch.call(adapter, options)?;
    ints.batch.compare(&actual, &mut Recorder::new(result, options), &|_| None);
    Ok(())
}

/// An integer check's inputs and what each must give.
pub struct IntegerBatch<'a> {
    pub batch: Batch,
    table: &'a LoadedTable,
    contract: IntegerContract,
    int: IntFormat,
}

impl<'a> IntegerBatch<'a> {
    /// The check's operands (edges, or seeded random pairs drawn until the suite's count is
    /// kept, since the contract may leave many out) with their expectations.
    pub fn prepare(
        catalog: &'a Catalog,
        check: &Check,
        target: &IntegerTarget,
    ) -> Result<IntegerBatch<'a>, String> {
        let table = &catalog.tables[target.table];
        let suite = &check.adapter_suite(catalog)?.suite;
        let contract = suite.integers.ok_or("the suite sets no integer contract")?;
        let int = IntFormat::of(target.dtype).ok_or("not an integer dtype")?;
        let output = match table.table.output {
            Output::Same => Domain::Int(int),
            Output::Bool => Domain::Bool,
        };
        let mut ints = IntegerBatch {
            batch: Batch {
                op: table.op,
                dtype: target.dtype,
                cases: Cases::new(),
                expected: Vec::new(),
                reading: Reading { input: Domain::Int(int), output, nan: NanPolicy::Any },
            },
            table,
            contract,
            int,
        };
        match target.cases {
            IntegerCases::Edges => {
                let edges = int_edge_values(int);
                for &a in &edges {
                    for &b in &edges {
                        ints.keep(vec![a, b])?;
                    }
                }
            }
            IntegerCases::Random => {
                let mut generator = Generator::new(suite.seed, &check.id.to_string());
                let values = int_values(int);
                for _ in 0..suite.random_cases * DRAWS_PER_CASE {
                    let (a, b) = (values.draw(&mut generator), values.draw(&mut generator));
                    if ints.keep(vec![a, b])? == suite.random_cases {
                        break;
                    }
                }
            }
        }
        Ok(ints)
    }

    /// What the contract requires for `case`; `None` where it leaves the case out.
    pub fn expectation(&self, case: &[u64]) -> Result<Option<Expect>, String> {
        let int = self.int;
        let exact = exact_integer(self.table.op, int.value(case[0]), int.value(case[1]))
            .ok_or("the operation is not defined on integers")?;
        expectation(self.contract, int, exact)
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

/// What the contract requires of an exact outcome; `None` where it leaves the case out.
fn expectation(contract: IntegerContract, int: IntFormat, exact: Exact) -> Result<Option<Expect>, String> {
    let unspecified = |rule: Unspecified| match rule {
        Unspecified::Zero => Some(Expect::Bits(0)),
        Unspecified::Any => Some(Expect::AnyValue),
        Unspecified::Avoid => None,
    };
    Ok(match exact {
        Exact::Bool(b) => Some(Expect::Bits(u64::from(b))),
        Exact::Value(v) => match v.to_i128().filter(|&v| int.contains(v)) {
            Some(v) => Some(Expect::Bits(int.wrap(v))),
            None => overflowed(contract.overflow, int, v.is_negative(), || {
                let residue = v.to_u128_wrapping();
                int.wrap(residue as i128)
            }),
        },
        Exact::Huge { negative, residue } => {
            overflowed(contract.overflow, int, negative, || int.wrap(residue.to_u128_wrapping() as i128))
        }
        Exact::DivisionByZero => unspecified(contract.division_by_zero),
        Exact::NegativeExponent => unspecified(contract.negative_exponent),
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
        division_by_zero: Unspecified::Zero,
        negative_exponent: Unspecified::Avoid,
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
    }
}
