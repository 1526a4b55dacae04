//! Generators know their counts before they run: every check that states a planned number of
//! inputs checks exactly that many (integer checks: at most that many, as the suite's contract
//! may leave inputs out; layout checks too, as an adapter may refuse a destination view), and `list --planned` prints the same numbers.

use std::sync::Arc;

use opspec::results::Status;
use opspec::run::{ElementwiseKind, RunOptions, Target, adapter_checks, run_all, table_checks};
use opspec::spec::Catalog;
use opspec_cpu::CpuAdapter;

#[test]
fn planned_counts_are_the_counts_run() {
    let catalog = Catalog::builtin().unwrap();
    let name = "cpu".to_string();
    let mut checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| matches!(c.id.suite(), Some("megengine" | "numr")))
        // opspec-cpu's integer divide returns f32 (expectations/cpu.yaml); tests/integer_divide.rs
        // counts those checks' inputs.
        .filter(|c| !(c.id.op == "divide" && c.needs.is_some_and(|(_, d)| d.is_integer())))
        .collect();
    checks.extend(table_checks(&catalog).into_iter().filter(|c| c.id.op == "hypot" || c.id.op == "numpy"));
    let planned = checks.iter().filter(|c| c.planned.is_some()).count();
    assert!(planned > 500, "only {planned} checks count their inputs up front");
    let results = run_all(&catalog, &checks, &[(name, Arc::new(CpuAdapter))], &RunOptions::default(), 0);
    for (check, result) in checks.iter().zip(&results) {
        assert_eq!(result.status, Status::Pass, "{}", result.report(&Default::default()));
        let Some(p) = check.planned else { continue };
        assert_eq!(result.planned_inputs, Some(p));
        match check.target {
            Target::Elementwise(ElementwiseKind::Integer(_))
            | Target::Elementwise(ElementwiseKind::Layouts(_)) => {
                assert!(result.inputs <= p && result.inputs > 0, "{}: {} of {p}", check.id, result.inputs)
            }
            _ => assert_eq!(result.inputs, p, "{}: planned {p}, ran {}", check.id, result.inputs),
        }
    }
}
