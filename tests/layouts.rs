//! The layout checks: they catch an adapter that reads views as if they were contiguous
//! (which every conformance check of the same operation passes), and they report which
//! layouts reached the library as views and which the adapter copied.

use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, OpKind, Support, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter behind a binding that hands the library each operand's buffer from its
/// start as if it were contiguous: strides and offsets are lost.
struct IgnoresStrides(CpuAdapter);

impl Adapter for IgnoresStrides {
    fn name(&self) -> &str {
        "flat"
    }

    fn version(&self) -> String {
        "a binding that ignores strides".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        self.0.supports(op, dtype)
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let flat = |t: &Tensor| {
            let bytes = t.numel() * t.dtype().size();
            Tensor::from_bytes(t.dtype(), t.shape(), t.buffer()[..bytes.min(t.buffer().len())].to_vec())
        };
        match (flat(a), flat(b)) {
            (Ok(x), Ok(y)) => self.0.binary(op, &x, &y),
            _ => self.0.binary(op, a, b),
        }
    }
}

fn run(adapter: Arc<dyn Adapter>, select: impl Fn(&str) -> bool) -> Vec<CheckResult> {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name().to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| select(&c.id.to_string()))
        .collect();
    assert!(!checks.is_empty());
    run_all(&catalog, &checks, &[(name, adapter)], &RunOptions::default(), 0)
}

#[test]
fn a_binding_that_ignores_strides_passes_the_suites_and_fails_the_layout_checks() {
    let results = run(Arc::new(IgnoresStrides(CpuAdapter::new())), |id| {
        id.starts_with("array-api:flat:add:f32:") && !id.contains(":broadcast-strided")
    });
    let (layouts, others): (Vec<_>, Vec<_>) = results.iter().partition(|r| r.id.case == "layouts");
    assert!(others.len() > 10 && others.iter().all(|r| r.status == Status::Pass), "{:?}", others[0].message);
    let [layout] = layouts.as_slice() else { panic!("one layout check") };
    assert_eq!(layout.status, Status::Fail, "{}", layout.message);
    let in_layout = |name: &str| {
        layout.failures.iter().any(|f| f.inputs.iter().any(|i| i.ends_with(&format!("({name} layout)"))))
    };
    assert!(in_layout("offset") && !in_layout("contiguous"), "{}", layout.report(&Default::default()));
    assert!(layout.layouts.contains_key("contiguous"));
}

#[test]
fn the_layout_checks_say_what_reached_the_library_as_a_view() {
    let cpu = run(Arc::new(CpuAdapter::new()), |id| id == "numr:cpu:add_into:f32:layouts");
    let numr = run(Arc::new(opspec_numr::NumrAdapter::new()), |id| id == "numr:numr:add:f32:layouts");
    for r in cpu.iter().chain(&numr) {
        assert_eq!(r.status, Status::Pass, "{}", r.report(&Default::default()));
    }
    let reach = |r: &CheckResult, layout: &str| r.layouts.get(layout).cloned().unwrap_or_default();
    // The CPU adapter's fast kernels take dense operands at any offset and broadcast rows;
    // its general path gathers the rest; it refuses a destination that is not contiguous.
    assert_eq!(reach(&cpu[0], "offset"), "view");
    assert_eq!(reach(&cpu[0], "row-broadcast"), "view");
    assert_eq!(reach(&cpu[0], "reversed"), "copy");
    assert_eq!(reach(&cpu[0], "stepped"), "copy");
    assert_eq!(reach(&cpu[0], "out-stepped"), "refused");
    // numr takes a permuted dense buffer as a view and copies offsets and steps.
    assert_eq!(reach(&numr[0], "transposed"), "view");
    assert_eq!(reach(&numr[0], "offset"), "copy");
    assert_eq!(reach(&numr[0], "reversed"), "copy");
    assert!(numr[0].message.contains("copied by the adapter: offset"), "{}", numr[0].message);
}
