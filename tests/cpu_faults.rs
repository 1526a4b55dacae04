//! The CPU adapter with each of its injected faults (`opspec-cpu`'s `fault-injection`
//! feature, `cargo test --release --features cpu-faults --test cpu_faults`): the checks that
//! reach the faulted kernel fail (the layout checks, the large scatter problems), and the
//! others pass. Without the feature this file is empty.
#![cfg(feature = "cpu-faults")]

use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, large_layout_checks, run_all, sweep_checks};
use opspec::spec::Catalog;
use opspec_adapter::Adapter;
use opspec_cpu::CpuAdapter;
use opspec_cpu::fault::{Fault, inject};
use opspec_cpu::scatter::{Ways, force_ways};

fn failing(results: &[CheckResult]) -> Vec<String> {
    results.iter().filter(|r| r.status.fails_run()).map(|r| format!("{}: {}", r.id, r.message)).collect()
}

#[test]
fn injected_faults_pass_the_conformance_suites_and_fail_the_checks_that_reach_them() {
    // The adapter's calls run on threads of their own, whose rayon pool is the global one:
    // three threads, so outputs split (unevenly) whatever the machine.
    rayon::ThreadPoolBuilder::new().num_threads(3).build_global().expect("the global rayon pool");
    let catalog = Catalog::builtin().unwrap();
    let cpu: Arc<dyn Adapter> = Arc::new(CpuAdapter::new());
    let adapters = vec![("cpu".to_string(), cpu)];
    let names = ["cpu".to_string()];
    // One after the other: a fault is injected into the whole process.
    elementwise_faults(&catalog, &adapters, &names);
    scatter_faults(&catalog, &adapters, &names);
}

fn elementwise_faults(catalog: &Catalog, adapters: &[(String, Arc<dyn Adapter>)], names: &[String]) {
    let options = RunOptions::default();
    let (layouts, conformance): (Vec<_>, Vec<_>) =
        adapter_checks(catalog, names).into_iter().partition(|c| c.id.case == "layouts");
    let small: Vec<_> = layouts.into_iter().filter(|c| c.id.suite() == Some("array-api")).collect();
    let large: Vec<_> = large_layout_checks(catalog, names)
        .into_iter()
        .filter(|c| c.id.to_string() == "array-api:cpu:add:f32:layouts-large")
        .collect();
    assert_eq!(large.len(), 1);
    // The f32 grid sweep's calls (2^22 pairs at most, 3,748,096 in all) write outputs past
    // 8 MiB, so they stream too.
    let grid: Vec<_> = sweep_checks(catalog, names)
        .into_iter()
        .filter(|c| c.id.to_string() == "array-api:cpu:add:f32:grid")
        .collect();
    assert_eq!(grid.len(), 1);
    // Without a fault every one of them passes, so a failure below is the fault's.
    inject(Fault::None);
    let clean = run_all(catalog, &[&large[..], &grid[..]].concat(), adapters, &options, 0);
    assert!(failing(&clean).is_empty(), "{:?}", failing(&clean));
    inject(Fault::Stream);
    let streamed = run_all(catalog, &grid, adapters, &options, 0);
    inject(Fault::None);
    assert_eq!(
        streamed[0].status,
        Status::Fail,
        "Stream: the f32 grid sweep passed: {}",
        streamed[0].message
    );
    for (fault, layout_checks) in [(Fault::Tail, &small), (Fault::Split, &large), (Fault::Stream, &large)] {
        inject(fault);
        let today = run_all(catalog, &conformance, adapters, &options, 0);
        let caught = run_all(catalog, layout_checks, adapters, &options, 0);
        inject(Fault::None);
        assert!(today.iter().all(|r| r.status != Status::Missing));
        assert_eq!(failing(&today), Vec::<String>::new(), "{fault:?}: the conformance suites caught it");
        let failed: Vec<&CheckResult> = caught.iter().filter(|r| r.status == Status::Fail).collect();
        assert!(!failed.is_empty(), "{fault:?}: no layout check failed");
        println!(
            "{fault:?}: {} of {} layout checks failed, e.g. {}",
            failed.len(),
            caught.len(),
            failed[0].report(&Default::default())
        );
    }
}

/// Each scatter-add fault under each [`Ways`]: the checks that fail are exactly those whose
/// problems run the faulted kernel. The `large` problems (2^16 index vectors and more) are the
/// only ones that split the output across threads and the only ones with runs of repeats, and
/// the plain ways never run a prefetching or register kernel.
fn scatter_faults(catalog: &Catalog, adapters: &[(String, Arc<dyn Adapter>)], names: &[String]) {
    let options = RunOptions::default();
    let scatter: Vec<_> = adapter_checks(catalog, names)
        .into_iter()
        .filter(|c| c.id.suite() == Some("mindspore") && ["f32", "i32"].contains(&c.id.dtype.as_str()))
        .collect();
    let large = |case: &str| case == "large" || case == "large-slices";
    assert_eq!(scatter.iter().filter(|c| large(&c.id.case)).count(), 4);
    let run = |fault, ways| {
        inject(fault);
        force_ways(ways);
        let results = run_all(catalog, &scatter, adapters, &options, 0);
        inject(Fault::None);
        assert!(results.iter().all(|r| r.status != Status::Missing));
        let mut failed: Vec<String> =
            results.iter().filter(|r| r.status.fails_run()).map(|r| r.id.case.clone()).collect();
        failed.sort();
        failed.dedup();
        failed
    };
    // Only large checks failed, `large` among them (`large-slices` has rank-1 problems too).
    let only_large = |failed: &[String]| failed.iter().all(|c| large(c)) && failed.contains(&"large".into());
    for ways in [Ways::Timed, Ways::Plain, Ways::Tuned] {
        assert_eq!(run(Fault::None, ways), Vec::<String>::new(), "{ways:?} without a fault");
        // The prefetching loop of a whole output: every problem on one thread, which is every
        // problem but the large ones, with more than 128 index vectors.
        let prefetch = run(Fault::ScatterPrefetch, ways);
        // A thread's part of a split output, and the register kernel of blocks of runs.
        let (owned, runs) = (run(Fault::ScatterOwned, ways), run(Fault::ScatterRuns, ways));
        if ways == Ways::Plain {
            assert_eq!((&prefetch, &runs), (&Vec::new(), &Vec::new()), "the plain ways ran a tuned kernel");
        } else {
            assert!(!prefetch.is_empty() && prefetch.iter().all(|c| !large(c)), "{ways:?}: {prefetch:?}");
            assert!(only_large(&runs), "{ways:?}: {runs:?}");
        }
        assert!(only_large(&owned), "{ways:?}: {owned:?}");
        assert_eq!(run(Fault::ScatterSlices, ways), ["large-slices"], "{ways:?}");
        println!("{ways:?}: failed with the prefetch fault {prefetch:?}, owned {owned:?}, runs {runs:?}");
    }
    force_ways(Ways::Timed);
}
