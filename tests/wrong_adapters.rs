//! The harness catches bugs: deliberately wrong adapters fail on the rows they break, and
//! nowhere else; the correct CPU adapter passes everything.

use std::collections::BTreeSet;
use std::sync::Arc;

use opspec::format::Format;
use opspec::report::{Report, RunInfo};
use opspec::run::{CheckResult, RunOptions, Status, Target, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, OpKind, Support, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter with a bug injected into the results of chosen operations.
struct Buggy {
    name: &'static str,
    ops: &'static [BinaryOp],
    /// Rewrites one result (bits) given the format and the operand bits.
    bug: fn(Format, BinaryOp, u64, u64, u64) -> u64,
}

impl Adapter for Buggy {
    fn name(&self) -> &str {
        self.name
    }

    fn version(&self) -> String {
        "deliberately wrong".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        CpuAdapter.supports(op, dtype)
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.binary(op, a, b)?;
        if !self.ops.contains(&op) {
            return Ok(right);
        }
        let f = Format::of(a.dtype()).expect("float operands");
        let (xs, ys) = (a.to_bits(), b.to_bits());
        let bits: Vec<u64> =
            right.to_bits().iter().enumerate().map(|(i, &r)| (self.bug)(f, op, xs[i], ys[i], r)).collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

/// Runs the array-api suite's element-wise checks against `adapter` (the bugs here read their
/// operands element by element, so they assume unbroadcast operands; broadcasting bugs are
/// tests/broadcasting.rs's); returns the ids of failed checks.
fn failures(adapter: Arc<dyn Adapter>) -> (BTreeSet<String>, Vec<CheckResult>) {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name().to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| catalog.suites[c.suite.unwrap()].suite.name == "array-api")
        .filter(|c| matches!(c.target, Target::Elementwise(_)))
        .collect();
    let results = run_all(&catalog, &checks, &[(name, adapter)], &RunOptions::default(), 0);
    let failed = results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.clone()).collect();
    (failed, results)
}

/// Writes the HTML report of `results` to a temporary folder and returns it.
fn html_report(results: &[CheckResult]) -> String {
    let catalog = Catalog::builtin().unwrap();
    let dir = std::env::temp_dir().join(format!("opspec-wrong-adapters-{}", std::process::id()));
    let report =
        Report { info: RunInfo::new(&catalog, vec!["zero-sign-bug".into()], 0.0), results: results.to_vec() };
    opspec::report::write(&dir, &report).unwrap();
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    html
}

/// Every failing id is `array-api:<adapter>:<op>:<dtype>:<case>` with a case in `allowed`.
fn assert_only(failed: &BTreeSet<String>, allowed: &[&str]) {
    for id in failed {
        let case = id.rsplit(':').next().unwrap();
        assert!(allowed.contains(&case), "{id} failed, but the bug should only break {allowed:?}");
    }
}

#[test]
fn correct_adapter_passes_everything() {
    let (failed, results) = failures(Arc::new(CpuAdapter));
    assert!(failed.is_empty(), "{failed:?}");
    assert!(results.iter().all(|r| r.status == Status::Pass && r.inputs > 0));
}

#[test]
fn positive_zero_for_negative_zero_sum() {
    let adapter = Buggy {
        name: "zero-sign-bug",
        ops: &[BinaryOp::Add],
        bug: |f, _, x, y, r| if x == f.neg_zero() && y == f.neg_zero() { f.pos_zero() } else { r },
    };
    let (failed, results) = failures(Arc::new(adapter));
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(
            failed.contains(&format!("array-api:zero-sign-bug:add:{dtype}:nzero-plus-nzero")),
            "{failed:?}"
        );
        assert!(failed.contains(&format!("array-api:zero-sign-bug:add:{dtype}:edges")), "{failed:?}");
    }
    assert_only(&failed, &["nzero-plus-nzero", "edges", "random"]);
    let report =
        results.iter().find(|r| r.id == "array-api:zero-sign-bug:add:f32:nzero-plus-nzero").unwrap().report();
    let html = html_report(&results);
    assert!(html.contains("<code>array-api:zero-sign-bug:add:f32:nzero-plus-nzero</code>"), "{html}");
    assert!(html.contains("expected: -0 (-0x0p+0, 0x80000000)"), "the HTML lacks the bug report");
    for part in [
        "add/nzero-plus-nzero",
        "If x1_i is -0 and x2_i is -0, the result is -0.",
        "specs/elementwise/add.yaml:",
        "x1 = -0 (-0x0p+0, 0x80000000)",
        "expected: -0 (-0x0p+0, 0x80000000)",
        "actual:   0.0 (0x0p+0, 0x00000000)",
        "distance: 0 ulp",
        "reproduce: cargo run --release -- eval array-api:zero-sign-bug:add:f32 0x80000000 0x80000000",
        "cargo test --release --test conformance -- --exact array-api:zero-sign-bug:add:f32:nzero-plus-nzero",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }
}

#[test]
fn subnormal_results_flushed_to_zero() {
    let adapter = Buggy {
        name: "ftz-bug",
        ops: &[BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Multiply],
        bug: |f, _, _, _, r| if f.is_subnormal(r) { r & f.sign_mask() } else { r },
    };
    let (failed, _) = failures(Arc::new(adapter));
    for op in ["add", "subtract", "multiply"] {
        for dtype in ["f16", "bf16", "f32", "f64"] {
            assert!(
                failed.contains(&format!("array-api:ftz-bug:{op}:{dtype}:remaining")),
                "{op} {dtype}: {failed:?}"
            );
        }
    }
    // Results that are exact operands (x + 0 = x for a subnormal x) are flushed too.
    assert_only(
        &failed,
        &[
            "remaining",
            "edges",
            "random",
            "zero-plus-nonzero",
            "nonzero-plus-zero",
            "zero-minus-nonzero",
            "nonzero-minus-zero",
        ],
    );
}

#[test]
fn rounding_toward_zero() {
    let adapter = Buggy {
        name: "rtz-bug",
        ops: &[BinaryOp::Add, BinaryOp::Multiply],
        bug: |f, op, x, y, r| {
            // Exact in f64 for f16 and bf16 operands (sums and products fit in 53 bits).
            if f.bits != 16 || !f.is_finite(r) || f.is_zero(r) {
                return r;
            }
            let (a, b) = (f.to_f64(x), f.to_f64(y));
            let exact = if op == BinaryOp::Add { a + b } else { a * b };
            if f.to_f64(r).abs() > exact.abs() { r - 1 } else { r }
        },
    };
    let (failed, _) = failures(Arc::new(adapter));
    for op in ["add", "multiply"] {
        for dtype in ["f16", "bf16"] {
            assert!(failed.contains(&format!("array-api:rtz-bug:{op}:{dtype}:remaining")), "{failed:?}");
            assert!(failed.contains(&format!("array-api:rtz-bug:{op}:{dtype}:random")), "{failed:?}");
        }
    }
    assert_only(&failed, &["remaining", "edges", "random"]);
}
