//! Running suites: planning checks, selecting them, executing them against adapters,
//! collecting results.
//!
//! The layers, bottom up: [`check`] (planned checks, targets, options); the shared machinery
//! every family uses ([`call`], `batch`, [`record`]); one module per family of tables, which
//! plans its checks and runs them (the element-wise family is a folder of its own, one file
//! per kind of check); `plan`, which asks every family
//! for its checks; and on top, [`select`] (which checks a command runs), [`shard`] (which of
//! them one shard runs, and the plan's hash), [`eval`] (one input in detail) and [`run_all`].

pub mod agreement;
mod batch;
mod broadcast;
pub mod call;
pub mod check;
mod complex;
mod elementwise;
pub mod eval;
mod execute;
mod plan;
mod progress;
mod promotion;
pub mod record;
pub mod renamed;
mod scatter;
pub mod select;
pub mod shard;

pub use check::{
    BroadcastTarget, CaseSet, Check, ComplexCases, ComplexTarget, ElementwiseKind, FloatTarget, IntegerCases,
    IntegerTarget, LayoutTarget, PromotionTarget, PropertyTarget, RunOptions, ScatterCases, ScatterTarget,
    ShapeRule, ShapeRuleTarget, SweepTarget, Target, ValueCases,
};
pub use elementwise::sweep::{sweep_checks, sweep_message};
pub use execute::{run_check, skip_reason, unavailable};
pub use plan::{adapter_checks, large_layout_checks, table_checks, validate_expectations};

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::host::{NamedAdapter, find_adapter};
use crate::results::{CheckResult, Status};
use crate::spec::Catalog;

/// Runs `checks` in parallel, printing one progress line every `progress_every` checks to
/// stderr (0 for silence). Results keep the order of `checks`.
pub fn run_all(
    catalog: &Catalog,
    checks: &[Check],
    adapters: &[NamedAdapter],
    options: &RunOptions,
    progress_every: usize,
) -> Vec<CheckResult> {
    run_streamed(catalog, checks, adapters, options, progress_every, &|_| {})
}

/// [`run_all`], handing every result to `on_result` as soon as its check ends (on the thread
/// that ran it), so that it can be written before the run is over.
///
/// The checks run on a thread pool of their own, not on rayon's global pool: a worker that
/// runs a check waits for the adapter call, and an adapter that hands work to the global pool
/// (as opspec-cpu's kernels do) would wait forever for workers that all wait for it.
pub fn run_streamed(
    catalog: &Catalog,
    checks: &[Check],
    adapters: &[NamedAdapter],
    options: &RunOptions,
    progress_every: usize,
    on_result: &(dyn Fn(&CheckResult) + Sync),
) -> Vec<CheckResult> {
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let one = |check: &Check| {
        let adapter = check.id.adapter_name().and_then(|name| find_adapter(adapters, name)).map(|(_, a)| a);
        let result = run_check(catalog, check, adapter, options);
        on_result(&result);
        if result.status == Status::Fail {
            failed.fetch_add(1, Ordering::Relaxed);
        }
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if progress_every > 0 && (n.is_multiple_of(progress_every) || n == checks.len()) {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(
                err,
                "  {n}/{} checks done, {} failed",
                checks.len(),
                failed.load(Ordering::Relaxed)
            );
        }
        result
    };
    match rayon::ThreadPoolBuilder::new().thread_name(|i| format!("opspec-check-{i}")).build() {
        Ok(pool) => pool.install(|| checks.par_iter().map(one).collect()),
        Err(e) => {
            eprintln!("warning: cannot start the checks' threads ({e}); running them one at a time");
            checks.iter().map(one).collect()
        }
    }
}
