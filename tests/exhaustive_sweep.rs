//! Why the one-operand sweep exists: an adapter whose `exp` is 3 ULPs off on a single f32
//! input passes every sampled check of `exp` in f32, and the sweep of every f32 value finds
//! that input, with its error measured.

#[macro_use]
mod common;

use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{ElementwiseKind, RunOptions, Target, adapter_checks, run_all, sweep_checks};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, ErrorKind, Tensor, UnaryOp};
use opspec_cpu::CpuAdapter;

/// The one input the adapter gets wrong: 1.23 in f32, an ordinary value no edge list holds.
const WRONG: u64 = 0x3f9d_70a4;

/// The CPU adapter, but `exp` of [`WRONG`] is 3 ULPs above its result.
struct OneWrongInput;

impl Adapter for OneWrongInput {
    fn name(&self) -> &str {
        "one-wrong"
    }

    wraps_cpu!("deliberately wrong on one input");

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.unary(op, x)?;
        if op != UnaryOp::Exp || x.dtype() != DType::F32 {
            return Ok(right);
        }
        let xs = x.to_bits();
        let bits: Vec<u64> =
            right.to_bits().iter().zip(&xs).map(|(&r, &x)| if x == WRONG { r + 3 } else { r }).collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

fn run(checks: &[opspec::run::Check]) -> Vec<CheckResult> {
    let catalog = Catalog::builtin().unwrap();
    let adapters: Vec<(String, Arc<dyn Adapter>)> = vec![("one-wrong".to_string(), Arc::new(OneWrongInput))];
    run_all(&catalog, checks, &adapters, &RunOptions::default(), 0)
}

#[test]
fn the_sampled_checks_miss_the_wrong_input() {
    let catalog = Catalog::builtin().unwrap();
    let checks: Vec<_> = adapter_checks(&catalog, &["one-wrong".to_string()])
        .into_iter()
        .filter(|c| c.id.to_string().starts_with("array-api:one-wrong:exp:f32:"))
        .collect();
    assert!(checks.len() >= 3, "{} checks", checks.len());
    for r in run(&checks) {
        assert_eq!(r.status, Status::Pass, "{}: {}", r.id, r.message);
    }
}

#[test]
fn the_sweep_of_every_f32_value_finds_it_and_measures_it() {
    let catalog = Catalog::builtin().unwrap();
    let mut sweep = sweep_checks(&catalog, &["one-wrong".to_string()])
        .into_iter()
        .find(|c| c.id.to_string() == "array-api:one-wrong:exp:f32:exhaustive")
        .expect("a sweep of exp in f32");
    // The sweep has 128 chunks of 2^25 values; the chunk holding the wrong input is enough.
    let Target::Elementwise(ElementwiseKind::Sweep(target)) = &mut sweep.target else {
        panic!("not a sweep")
    };
    assert_eq!(target.chunks.len(), 128);
    target.chunks = vec![WRONG >> 25];
    sweep.planned = Some(1 << 25);
    let r = run(&[sweep]).pop().unwrap();
    assert_eq!((r.status, r.inputs, r.failed_inputs), (Status::Fail, 1 << 25, 1), "{}", r.message);
    assert!(
        r.failures[0].input_bits.contains(&format!("{WRONG:#010x}"))
            || r.failures[0].inputs[0].contains("0x3f9d70a4")
    );
    let at = r.max_ulp_at.as_ref().expect("where the largest error is");
    assert_eq!(at.inputs, vec![format!("{WRONG:#010x}")]);
    let max = r.max_ulp_error.unwrap();
    assert!((2.5..=3.5).contains(&max), "largest error {max} ULP");
    let histogram = r.ulp_histogram.as_ref().unwrap();
    assert_eq!(histogram[3], 1, "one result between 2 and 4 ULPs: {histogram:?}");
}

/// The CPU adapter, but its second `add` call panics and its second `multiply` call returns an
/// error.
#[derive(Default)]
struct FailsOnSecondCall {
    calls: [std::sync::atomic::AtomicUsize; 2],
}

impl Adapter for FailsOnSecondCall {
    fn name(&self) -> &str {
        "fails-later"
    }

    wraps_cpu!("fails on its second call");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let slot = match op {
            BinaryOp::Add => 0,
            BinaryOp::Multiply => 1,
            _ => return CpuAdapter.binary(op, a, b),
        };
        if self.calls[slot].fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            if op == BinaryOp::Add {
                panic!("add broke on its second call");
            }
            return Err(AdapterError::new(ErrorKind::Other, "multiply broke on its second call"));
        }
        CpuAdapter.binary(op, a, b)
    }
}

/// A sweep whose adapter panics or errors after its first batch of a chunk fails with the
/// adapter's reason and the chunk, and the run goes on to the next check, which also ends.
#[test]
fn a_sweep_whose_adapter_fails_mid_chunk_fails_with_the_reason_and_the_run_goes_on() {
    let catalog = Catalog::builtin().unwrap();
    let checks: Vec<_> = sweep_checks(&catalog, &["fails-later".to_string()])
        .into_iter()
        .filter(|c| {
            let id = c.id.to_string();
            ["add", "multiply", "subtract"]
                .iter()
                .any(|op| id == format!("array-api:fails-later:{op}:f16:exhaustive"))
        })
        .map(|mut c| {
            // The first chunk (2^25 pairs, several adapter calls) is enough.
            let Target::Elementwise(ElementwiseKind::Sweep(target)) = &mut c.target else {
                panic!("not a sweep")
            };
            target.chunks = vec![0];
            c.planned = Some(1 << 25);
            c
        })
        .collect();
    assert_eq!(checks.len(), 3);
    let adapters: Vec<(String, Arc<dyn Adapter>)> =
        vec![("fails-later".to_string(), Arc::new(FailsOnSecondCall::default()))];
    let results = run_all(&catalog, &checks, &adapters, &RunOptions::default(), 0);
    for r in &results {
        let op = r.id.to_string().split(':').nth(2).unwrap().to_string();
        match op.as_str() {
            "subtract" => assert_eq!(r.status, Status::Pass, "{}: {}", r.id, r.message),
            _ => {
                assert_eq!(r.status, Status::Fail, "{}: {}", r.id, r.message);
                assert!(r.message.contains("chunk 0"), "{}: {}", r.id, r.message);
                assert!(
                    r.message.contains(&format!("{op} broke on its second call")),
                    "{}: {}",
                    r.id,
                    r.message
                );
            }
        }
    }
}
