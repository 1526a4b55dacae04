//! The CPU adapter with each of its injected faults (`opspec-cpu`'s `fault-injection`
//! feature, `cargo test --release --features cpu-faults --test cpu_faults`): every check of
//! today's conformance suites still passes, and the layout checks fail. Without the feature
//! this file is empty.
#![cfg(feature = "cpu-faults")]

use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, large_layout_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::Adapter;
use opspec_cpu::CpuAdapter;
use opspec_cpu::fault::{Fault, inject};

fn failing(results: &[CheckResult]) -> Vec<String> {
    results.iter().filter(|r| r.status.fails_run()).map(|r| format!("{}: {}", r.id, r.message)).collect()
}

#[test]
fn injected_faults_pass_the_conformance_suites_and_fail_the_layout_checks() {
    let catalog = Catalog::builtin().unwrap();
    let cpu: Arc<dyn Adapter> = Arc::new(CpuAdapter::new());
    let adapters = vec![("cpu".to_string(), cpu)];
    let names = ["cpu".to_string()];
    let options = RunOptions::default();
    let (layouts, conformance): (Vec<_>, Vec<_>) =
        adapter_checks(&catalog, &names).into_iter().partition(|c| c.id.case == "layouts");
    let small: Vec<_> = layouts.into_iter().filter(|c| c.id.suite() == Some("array-api")).collect();
    let large: Vec<_> = large_layout_checks(&catalog, &names)
        .into_iter()
        .filter(|c| c.id.to_string() == "array-api:cpu:add:f32:layouts-large")
        .collect();
    assert_eq!(large.len(), 1);
    // Without a fault every one of them passes, so a failure below is the fault's.
    inject(Fault::None);
    let clean = run_all(&catalog, &large, &adapters, &options, 0);
    assert!(failing(&clean).is_empty(), "{:?}", failing(&clean));
    for (fault, layout_checks) in [(Fault::Tail, &small), (Fault::Split, &large), (Fault::Stream, &large)] {
        inject(fault);
        let today = run_all(&catalog, &conformance, &adapters, &options, 0);
        let caught = run_all(&catalog, layout_checks, &adapters, &options, 0);
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
