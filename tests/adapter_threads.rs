//! An adapter may use rayon's global thread pool inside its calls (opspec-cpu's kernels do).
//! The harness's own workers wait for each adapter call, so if they were the global pool's
//! workers, every call that hands work to that pool would wait for them forever and fail as
//! a time-out. This runs many checks against such an adapter and demands that all pass.

#[macro_use]
mod common;

use std::sync::Arc;
use std::time::Duration;

use opspec::results::Status;
use opspec::run::{ElementwiseKind, RunOptions, Target, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, Tensor};
use opspec_cpu::CpuAdapter;
use rayon::prelude::*;

/// The CPU adapter, after a short job on rayon's global pool in every call.
struct UsesGlobalPool;

impl Adapter for UsesGlobalPool {
    fn name(&self) -> &str {
        "uses-global-pool"
    }

    wraps_cpu!("test");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        // Called from the harness's adapter thread (not a rayon worker): rayon queues the job
        // on the global pool and blocks this thread until a worker of that pool runs it.
        let sum: usize = (0..1024usize).into_par_iter().with_min_len(1).sum();
        assert_eq!(sum, 1023 * 1024 / 2);
        CpuAdapter.binary(op, a, b)
    }
}

#[test]
fn checks_do_not_starve_an_adapter_that_uses_the_global_pool() {
    let catalog = Catalog::builtin().expect("the built-in specs load");
    let name = "uses-global-pool".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| {
            c.id.suite() == Some("array-api")
                && matches!(c.target, Target::Elementwise(ElementwiseKind::Float(_)))
        })
        .filter(|c| c.id.op == "add" || c.id.op == "multiply")
        .take(8 * rayon::current_num_threads())
        .collect();
    // Many more checks than the machine has threads, so that every harness worker is busy.
    assert_eq!(checks.len(), 8 * rayon::current_num_threads(), "enough add and multiply checks");
    // Starved calls fail after this (each call needs well under a second).
    let options = RunOptions { timeout: Duration::from_secs(10), ..RunOptions::default() };
    let results = run_all(&catalog, &checks, &[(name, Arc::new(UsesGlobalPool))], &options, 0);
    let failed: Vec<_> = results.iter().filter(|r| r.status == Status::Fail).map(|r| &r.message).collect();
    assert!(failed.is_empty(), "{} checks failed, e.g. {:?}", failed.len(), failed.first());
}
