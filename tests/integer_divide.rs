//! The numr suite's integer `divide` checks catch wrong adapters: one that panics on `x / 0`
//! fails the `by-zero` checks with the panic as the reason while the run goes on, at opspec's
//! own tier (numr's seed calls division by zero undefined behavior); one that
//! floors the quotient fails the signed dtypes' `edges` and `random` checks at opspec's own tier
//! (the suite reads numr's `a / b` as truncation toward zero, `integers.divide: truncate`, and
//! the words allow flooring too), and one that rounds to nearest fails them at the must tier.

#[macro_use]
mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, Tensor};
use opspec_cpu::CpuAdapter;

const INTEGERS: [DType; 8] =
    [DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64];
const SIGNED: [DType; 4] = [DType::I8, DType::I16, DType::I32, DType::I64];

/// The value of `x`'s bits in integer dtype `d`.
fn value(d: DType, x: u64) -> i128 {
    let n = 8 * d.size() as u32;
    let x = if n == 64 { x } else { x & ((1 << n) - 1) };
    if SIGNED.contains(&d) && x >> (n - 1) & 1 == 1 { x as i128 - (1i128 << n) } else { x as i128 }
}

/// The bits of integer dtype `d`.
fn mask(d: DType) -> u64 {
    u64::MAX >> (64 - 8 * d.size())
}

/// An adapter whose integer `divide` is `quotient` element by element (wrapped to the dtype);
/// everything else is the CPU adapter's.
struct IntegerDivide {
    name: &'static str,
    quotient: fn(i128, i128) -> i128,
}

impl Adapter for IntegerDivide {
    fn name(&self) -> &str {
        self.name
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let d = a.dtype();
        if op != BinaryOp::Divide || !d.is_integer() {
            return CpuAdapter.binary(op, a, b);
        }
        let bits: Vec<u64> = a
            .to_bits()
            .iter()
            .zip(b.to_bits())
            .map(|(&x, y)| (self.quotient)(value(d, x), value(d, y)) as u64 & mask(d))
            .collect();
        Tensor::from_bits(d, a.shape(), &bits)
    }
}

/// Runs the numr suite's integer `divide` checks against `adapter`: the ids of the failed
/// checks, and every result.
fn failures(adapter: IntegerDivide) -> (BTreeSet<String>, Vec<CheckResult>) {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name.to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("numr") && c.id.op == "divide")
        .filter(|c| c.needs.is_some_and(|(_, dtype)| dtype.is_integer()))
        .collect();
    let results = run_all(&catalog, &checks, &[(name, Arc::new(adapter))], &RunOptions::default(), 0);
    let failed = results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    (failed, results)
}

fn ids(adapter: &str, dtypes: &[DType], cases: &[&str]) -> BTreeSet<String> {
    dtypes
        .iter()
        .flat_map(|d| cases.iter().map(move |c| format!("numr:{adapter}:divide:{}:{c}", d.name())))
        .collect()
}

#[test]
fn every_integer_dtype_has_its_three_checks() {
    let (failed, results) =
        failures(IntegerDivide { name: "truncating", quotient: |x, y| x.checked_div(y).unwrap_or(0) });
    let all: BTreeSet<String> = results.iter().map(|r| r.id.to_string()).collect();
    assert_eq!(all, ids("truncating", &INTEGERS, &["edges", "random", "by-zero"]));
    assert!(failed.is_empty(), "{failed:?}");
    for r in &results {
        let planned = r.planned_inputs.expect("integer checks count their inputs up front");
        assert!(r.inputs > 0 && r.inputs <= planned, "{}: {} of {planned}", r.id, r.inputs);
    }
}

#[test]
fn panicking_on_division_by_zero_fails_the_by_zero_checks_and_the_run_goes_on() {
    let panics = |x: i128, y: i128| if y == 0 { panic!("attempt to divide by zero") } else { x / y };
    let (failed, results) = failures(IntegerDivide { name: "panics", quotient: panics });
    assert_eq!(failed, ids("panics", &INTEGERS, &["by-zero"]));
    assert_eq!(results.len(), 24, "every check ran");
    for r in results.iter().filter(|r| r.status == Status::Fail) {
        let report = r.report(&Default::default());
        assert!(report.contains("panicked") && report.contains("attempt to divide by zero"), "{report}");
        // "Division by zero is undefined behavior": no outcome fails a must; opspec asks for a
        // value.
        assert_eq!(r.tier, Some(Tier::Quality), "{}: {:?}", r.id, r.failed_by_tier);
        assert_eq!(r.failed_inputs, r.inputs, "{}", r.id);
        for f in &r.failures {
            assert!(f.authority.contains("leaves division by zero undefined"), "{}", f.authority);
            assert!(
                f.authority.contains("suites/numr.yaml `integers.division_by_zero: undefined`"),
                "{}",
                f.authority
            );
        }
    }
}

#[test]
fn flooring_fails_the_signed_quotients_on_the_suites_reading_only() {
    let floors = |x: i128, y: i128| match y {
        0 => 0,
        _ if x % y != 0 && (x < 0) != (y < 0) => x / y - 1,
        _ => x / y,
    };
    let (failed, results) = failures(IntegerDivide { name: "floors", quotient: floors });
    assert_eq!(failed, ids("floors", &SIGNED, &["edges", "random"]));
    for r in results.iter().filter(|r| r.status == Status::Fail) {
        let citation = r.citation.as_ref().expect("a failure says on whose authority");
        assert!(citation.source.contains("opspec's reading"), "{citation:?}");
        assert_eq!(citation.location, "suites/numr.yaml");
        assert_eq!(r.tier, Some(Tier::Quality), "{}: {:?}", r.id, r.failed_by_tier);
        assert_eq!(r.failed_by_tier.get(&Tier::Quality), Some(&(r.failed_inputs as u64)), "{}", r.id);
        for f in &r.failures {
            assert_eq!(f.tier, Tier::Quality);
            assert!(f.authority.contains("opspec's reading of `a / b`"), "{}", f.authority);
            assert!(f.authority.contains("suites/numr.yaml integers.divide"), "{}", f.authority);
            assert!(
                f.authority.contains("the quotient floored, which the words also allow"),
                "{}",
                f.authority
            );
        }
    }
}

#[test]
fn rounding_to_nearest_fails_both_readings_at_the_must_tier() {
    // Ties away from zero: off the truncated quotient where the remainder is at least half the
    // divisor, and then off the floored one too unless the quotient is negative; both
    // readings agree, and so does this adapter, where the division is exact.
    let nearest = |x: i128, y: i128| match y {
        0 => 0,
        _ if 2 * (x % y).abs() >= y.abs() => x / y + if (x < 0) == (y < 0) { 1 } else { -1 },
        _ => x / y,
    };
    let (failed, results) = failures(IntegerDivide { name: "nearest", quotient: nearest });
    assert_eq!(failed, ids("nearest", &INTEGERS, &["edges", "random"]));
    for r in results.iter().filter(|r| r.status == Status::Fail) {
        assert_eq!(r.tier, Some(Tier::Must), "{}: {:?}", r.id, r.failed_by_tier);
        assert!(r.failures.iter().any(|f| f.tier == Tier::Must), "{}", r.id);
        for f in r.failures.iter().filter(|f| f.tier == Tier::Must) {
            assert!(
                f.authority.contains("neither the quotient truncated toward zero nor"),
                "{}",
                f.authority
            );
        }
    }
    // A positive quotient rounded up is neither reading; a negative one rounded down is the
    // floored quotient, opspec's reading alone.
    let signed = results.iter().filter(|r| SIGNED.iter().any(|d| r.id.to_string().contains(d.name())));
    assert!(
        signed.filter(|r| r.status == Status::Fail).any(|r| r.failed_by_tier.contains_key(&Tier::Quality)),
        "some negative quotients are floored"
    );
}
