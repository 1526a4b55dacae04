//! Why the `hard` checks of `--exhaustive` exist: an adapter whose f32 `pow` is 3 ULPs off
//! where the base lies a few to a few thousand steps from 1 and the exponent is large (a `log`
//! near 1 without enough precision, the classic way to lose `pow`'s accuracy) passes every
//! sampled check of `pow` in f32, and the hard check finds it.

#[macro_use]
mod common;

use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all, sweep_checks};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, Tensor};
use opspec_cpu::CpuAdapter;

/// Whether `pow(x, y)` in f32 is in the region the adapter gets wrong: `x` 2 to 2^12
/// representable steps from 1 (its neighbours are edge values the sampled checks draw), `y`
/// finite and of magnitude at least 2^10.
fn in_region(x: u64, y: u64) -> bool {
    let steps = (x as i64 - 0x3f80_0000).abs();
    let y = f32::from_bits(y as u32);
    (2..=4096).contains(&steps) && y.is_finite() && y.abs() >= 1024.0
}

/// The CPU adapter, but a finite nonzero f32 `pow` result in [`in_region`] is 3 ULPs off.
struct PowNearOne;

impl Adapter for PowNearOne {
    fn name(&self) -> &str {
        "pow-near-one"
    }

    wraps_cpu!("deliberately wrong near 1");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.binary(op, a, b)?;
        if op != BinaryOp::Pow || right.dtype() != DType::F32 || a.shape() != b.shape() {
            return Ok(right);
        }
        let wrong = |(&r, (&x, &y)): (&u64, (&u64, &u64))| {
            let finite = f32::from_bits(r as u32).is_normal() && f32::from_bits(r as u32 + 3).is_normal();
            if finite && in_region(x, y) { r + 3 } else { r }
        };
        let bits: Vec<u64> =
            right.to_bits().iter().zip(a.to_bits().iter().zip(&b.to_bits())).map(wrong).collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

fn run(prefix: &str, checks: Vec<opspec::run::Check>) -> Vec<CheckResult> {
    let catalog = Catalog::builtin().unwrap();
    let checks: Vec<_> = checks.into_iter().filter(|c| c.id.to_string().starts_with(prefix)).collect();
    assert!(!checks.is_empty(), "no check starts with {prefix}");
    let adapters: Vec<(String, Arc<dyn Adapter>)> = vec![("pow-near-one".to_string(), Arc::new(PowNearOne))];
    run_all(&catalog, &checks, &adapters, &RunOptions::default(), 0)
}

#[test]
fn the_sampled_checks_of_pow_miss_the_region_and_the_hard_check_finds_it() {
    let catalog = Catalog::builtin().unwrap();
    let adapter = ["pow-near-one".to_string()];
    let sampled = run("array-api:pow-near-one:pow:f32:", adapter_checks(&catalog, &adapter));
    assert!(sampled.len() >= 3, "{} sampled checks", sampled.len());
    for r in &sampled {
        assert_eq!(r.status, Status::Pass, "{}: {} {:?}", r.id, r.message, r.failures);
    }
    let hard = run("array-api:pow-near-one:pow:f32:hard", sweep_checks(&catalog, &adapter)).pop().unwrap();
    assert_eq!((hard.status, hard.inputs), (Status::Fail, 1 << 20), "{}", hard.message);
    assert!(hard.failed_inputs > 1_000, "{} failed", hard.failed_inputs);
    let bits = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    for failure in &hard.failures {
        let (x, y) = (bits(&failure.input_bits[0]), bits(&failure.input_bits[1]));
        assert!(in_region(x, y), "{failure:?}");
    }
}
