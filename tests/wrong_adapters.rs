//! The harness catches bugs: deliberately wrong adapters fail on the rows they break, and
//! nowhere else (that the correct CPU adapter passes everything, tests/conformance.rs shows).

#[macro_use]
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use opspec::bits::format::Format;
use opspec::bits::value::IntFormat;
use opspec::results::{CheckResult, Status};
use opspec::results::{ResultsWriter, RunInfo};
use opspec::run::{ElementwiseKind, RunOptions, Target, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, DType, ErrorKind, OpKind, Scalar, ScalarSide, Support, Tensor,
    TernaryOp, UnaryOp,
};
use opspec_cpu::{CpuAdapter, broadcast_shapes};

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

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.binary(op, a, b)?;
        if !self.ops.contains(&op) {
            return Ok(right);
        }
        let Some(f) = Format::of(a.dtype()) else { return Ok(right) };
        let (xs, ys) = (a.to_bits(), b.to_bits());
        let bits: Vec<u64> =
            right.to_bits().iter().enumerate().map(|(i, &r)| (self.bug)(f, op, xs[i], ys[i], r)).collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

/// Runs the array-api suite's element-wise float checks of the operations `adapter` changes
/// (the others run the CPU adapter); returns the ids of failed checks and every result.
fn failures(adapter: Buggy) -> (BTreeSet<String>, Vec<CheckResult>) {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name.to_string();
    let ops = adapter.ops;
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("array-api"))
        .filter(|c| ops.iter().any(|op| op.name() == c.id.op))
        .filter(|c| {
            matches!(c.target, Target::Elementwise(ElementwiseKind::Float(_)))
                && c.needs.is_some_and(|(_, dtype)| dtype.is_float())
        })
        .collect();
    let results = run_all(&catalog, &checks, &[(name, Arc::new(adapter))], &RunOptions::default(), 0);
    let failed = results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    (failed, results)
}

/// Writes the HTML report of `results` to a temporary folder, through the results file as a
/// run does, and returns it.
fn html_report(results: &[CheckResult]) -> String {
    let catalog = Catalog::builtin().unwrap();
    let dir = std::env::temp_dir().join(format!("opspec-wrong-adapters-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let info = RunInfo::new(&catalog, 0, 0, vec!["zero-sign-bug".into()], Default::default());
    let ids: Vec<_> = results.iter().map(|r| r.id.clone()).collect();
    let path = dir.join("results.jsonl");
    let writer = ResultsWriter::create(&path, &info, &ids, &catalog.sources).unwrap();
    results.iter().for_each(|r| writer.check(r).unwrap());
    writer.finish(1.0, 0).unwrap();
    opspec::report::write(
        &dir,
        &[opspec::results::read(&path).unwrap()],
        opspec::spec::authority::Tier::Must,
        None,
    )
    .unwrap();
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
fn positive_zero_for_negative_zero_sum() {
    let adapter = Buggy {
        name: "zero-sign-bug",
        ops: &[BinaryOp::Add],
        bug: |f, _, x, y, r| if x == f.neg_zero() && y == f.neg_zero() { f.pos_zero() } else { r },
    };
    let (failed, results) = failures(adapter);
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(
            failed.contains(&format!("array-api:zero-sign-bug:add:{dtype}:nzero-plus-nzero")),
            "{failed:?}"
        );
        assert!(failed.contains(&format!("array-api:zero-sign-bug:add:{dtype}:edges")), "{failed:?}");
    }
    assert_only(&failed, &["nzero-plus-nzero", "edges", "random"]);
    let report = results
        .iter()
        .find(|r| r.id.to_string() == "array-api:zero-sign-bug:add:f32:nzero-plus-nzero")
        .unwrap()
        .report(&Default::default());
    let html = html_report(&results);
    // The page's drill-downs are drawn from the results it embeds.
    assert!(html.contains(r#""id":"array-api:zero-sign-bug:add:f32:nzero-plus-nzero""#), "{html}");
    assert!(html.contains(r#""expected":"-0 (-0x0p+0, 0x80000000)""#), "the HTML lacks the bug report");
    for part in [
        "add/nzero-plus-nzero",
        "If x1_i is -0 and x2_i is -0, the result is -0.",
        "specs/elementwise/add.yaml:",
        "x1 = -0 (-0x0p+0, 0x80000000)",
        "expected: -0 (-0x0p+0, 0x80000000)",
        "actual:   0.0 (0x0p+0, 0x00000000)",
        "distance: 0 steps from the expectation's centre",
        "reproduce: opspec eval array-api:zero-sign-bug:add:f32:nzero-plus-nzero 0x80000000 0x80000000",
        "rerun the check: opspec run --exact array-api:zero-sign-bug:add:f32:nzero-plus-nzero",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }
}

#[test]
fn subnormal_results_flushed_to_zero() {
    let adapter = Buggy {
        name: "ftz-bug",
        ops: &[BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Multiply],
        bug: |f, _, _, _, r| f.flush_subnormal(r),
    };
    let (failed, _) = failures(adapter);
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
    let (failed, _) = failures(adapter);
    for op in ["add", "multiply"] {
        for dtype in ["f16", "bf16"] {
            assert!(failed.contains(&format!("array-api:rtz-bug:{op}:{dtype}:remaining")), "{failed:?}");
            assert!(failed.contains(&format!("array-api:rtz-bug:{op}:{dtype}:random")), "{failed:?}");
        }
    }
    assert_only(&failed, &["remaining", "edges", "random"]);
}

#[test]
fn maximum_that_drops_nan() {
    let adapter = Buggy {
        name: "maxnum-bug",
        ops: &[BinaryOp::Maximum],
        bug: |f, _, x, y, r| {
            if f.is_nan(x) && !f.is_nan(y) {
                y
            } else if f.is_nan(y) && !f.is_nan(x) {
                x
            } else {
                r
            }
        },
    };
    let (failed, _) = failures(adapter);
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(failed.contains(&format!("array-api:maxnum-bug:maximum:{dtype}:nan-either")), "{failed:?}");
    }
    assert_only(&failed, &["nan-either", "edges", "random"]);
}

#[test]
fn pow_of_nan_to_zero_is_nan() {
    let adapter = Buggy {
        name: "pow-bug",
        ops: &[BinaryOp::Pow],
        bug: |f, _, x, y, r| if f.is_nan(x) && f.is_zero(y) { f.quiet_nan() } else { r },
    };
    let (failed, _) = failures(adapter);
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(failed.contains(&format!("array-api:pow-bug:pow:{dtype}:x2-pzero")), "{failed:?}");
        assert!(failed.contains(&format!("array-api:pow-bug:pow:{dtype}:x2-nzero")), "{failed:?}");
    }
    assert_only(&failed, &["x2-pzero", "x2-nzero", "edges", "random"]);
}

#[test]
fn zero_by_zero_is_infinity() {
    let adapter = Buggy {
        name: "div-bug",
        ops: &[BinaryOp::Divide],
        bug: |f, _, x, y, r| if x == f.pos_zero() && y == f.pos_zero() { f.pos_inf() } else { r },
    };
    let (failed, _) = failures(adapter);
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(failed.contains(&format!("array-api:div-bug:divide:{dtype}:zero-by-zero")), "{failed:?}");
    }
    assert_only(&failed, &["zero-by-zero", "edges", "random"]);
}

#[test]
fn floor_divide_truncating_toward_zero() {
    let adapter = Buggy {
        name: "trunc-bug",
        ops: &[BinaryOp::FloorDivide],
        bug: |f, _, x, y, r| {
            // Where x / y is negative and not an integer, truncation gives floor + 1.
            let (a, b) = (f.to_f64(x), f.to_f64(y));
            let q = a / b;
            let integral = q.trunc() == q;
            if q.is_finite() && q < 0.0 && !integral && f.to_f64(r) == q.floor() {
                f.from_f64_exact(q.trunc()).map_or(r, |t| if f.is_zero(t) { f.neg_zero() } else { t })
            } else {
                r
            }
        },
    };
    let (failed, _) = failures(adapter);
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(
            failed.contains(&format!("array-api:trunc-bug:floor_divide:{dtype}:remaining")),
            "{failed:?}"
        );
    }
    assert_only(&failed, &["remaining", "different-sign-negative", "edges", "random"]);
}

#[test]
fn python_style_floor_divide_alternatives_conform_and_miss_only_the_bullets_should() {
    // NaN for an infinity divided by a finite number, -1 for a finite number divided by an
    // infinity of the other sign: the page's Note allows both ("array libraries may choose to
    // more strictly follow Python behavior"), so they meet the must; the bullets' own values
    // are the should (docs/AUTHORITY.md 3.1).
    let adapter = Buggy {
        name: "python-floordiv",
        ops: &[BinaryOp::FloorDivide],
        bug: |f, _, x, y, r| {
            let opposite = f.is_sign_negative(x) != f.is_sign_negative(y);
            if f.is_infinite(x) && f.is_finite(y) && !f.is_zero(y) {
                f.quiet_nan()
            } else if f.is_finite(x) && !f.is_zero(x) && f.is_infinite(y) && opposite {
                f.neg(f.one())
            } else {
                r
            }
        },
    };
    let (failed, results) = failures(adapter);
    assert!(failed.iter().any(|id| id.ends_with(":pinf-by-positive-finite")), "{failed:?}");
    for r in results.iter().filter(|r| r.status == Status::Fail) {
        // bfloat16 is out of the standard's scope: its checks are opspec's bar as a whole.
        let tier = if r.id.dtype == "bf16" { Tier::Quality } else { Tier::Should };
        assert_eq!(r.tier, Some(tier), "{}: an allowed alternative fails only the should", r.id);
    }
}

/// A catalog holding the shipped tables and one suite that demands wrapping integer add.
fn wrapping_catalog() -> (Catalog, std::path::PathBuf) {
    let root = std::env::temp_dir().join(format!("opspec-wrapping-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("specs/elementwise")).unwrap();
    std::fs::create_dir_all(root.join("suites")).unwrap();
    let add = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/elementwise/add.yaml");
    std::fs::copy(add, root.join("specs/elementwise/add.yaml")).unwrap();
    let suite = "name: wrapping\ntitle: wrapping integer add\nspecs: [elementwise/add]\n\
                 dtypes: [i8, i32, u16]\ncases_per_row: 64\nrandom_cases: 4096\nseed: 1\n\
                 integers: {overflow: wrap, division_by_zero: any, negative_exponent: any}\n";
    std::fs::write(root.join("suites/wrapping.yaml"), suite).unwrap();
    (Catalog::load(&root).unwrap(), root)
}

/// The CPU adapter with integer add saturating instead of wrapping.
struct SaturatingAdd;

impl Adapter for SaturatingAdd {
    fn name(&self) -> &str {
        "saturating-add"
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if op != BinaryOp::Add || a.dtype().is_float() {
            return CpuAdapter.binary(op, a, b);
        }
        let int = IntFormat::of(a.dtype()).expect("an integer dtype");
        let sums: Vec<u64> = a
            .to_bits()
            .iter()
            .zip(b.to_bits())
            .map(|(&x, y)| int.wrap((int.value(x) + int.value(y)).clamp(int.min(), int.max())))
            .collect();
        Tensor::from_bits(a.dtype(), a.shape(), &sums)
    }
}

#[test]
fn saturating_integer_add_in_a_wrapping_suite() {
    let (catalog, root) = wrapping_catalog();
    let run = |adapter: Arc<dyn Adapter>| {
        let name = adapter.name().to_string();
        let checks = adapter_checks(&catalog, std::slice::from_ref(&name));
        let results = run_all(&catalog, &checks, &[(name, adapter)], &RunOptions::default(), 0);
        results
            .into_iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| r.id.to_string())
            .collect::<BTreeSet<_>>()
    };
    let failed = run(Arc::new(SaturatingAdd));
    for dtype in ["i8", "i32", "u16"] {
        assert!(failed.contains(&format!("wrapping:saturating-add:add:{dtype}:edges")), "{failed:?}");
        assert!(failed.contains(&format!("wrapping:saturating-add:add:{dtype}:random")), "{failed:?}");
    }
    assert!(run(Arc::new(CpuAdapter)).is_empty(), "the wrapping CPU adapter must pass");
    std::fs::remove_dir_all(root).unwrap();
}

/// The CPU adapter, except that an int32 tensor with a Python int gives int64.
struct WidensPythonInts;

impl Adapter for WidensPythonInts {
    fn name(&self) -> &str {
        "widens-python-ints"
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        CpuAdapter.binary(op, a, b)
    }

    fn binary_scalar(
        &self,
        op: BinaryOp,
        t: &Tensor,
        s: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        if t.dtype() != DType::I32 || !matches!(s, Scalar::Int(_)) {
            return CpuAdapter.binary_scalar(op, t, s, side);
        }
        let wide: Vec<i64> = t.to_vec::<i32>()?.into_iter().map(i64::from).collect();
        CpuAdapter.binary_scalar(op, &Tensor::from_slice(&wide, t.shape())?, s, side)
    }
}

#[test]
fn int32_with_python_int_widened_to_int64() {
    let catalog = Catalog::builtin().unwrap();
    let name = "widens-python-ints".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("megengine") && c.id.dtype.contains('+'))
        .collect();
    let results =
        run_all(&catalog, &checks, &[(name, Arc::new(WidensPythonInts))], &RunOptions::default(), 0);
    let failed: BTreeSet<String> =
        results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    assert_eq!(
        failed,
        BTreeSet::from(["megengine:widens-python-ints:multiply:i32+int:mul-python-int-example".to_string()]),
        "only the int32-times-Python-int example may fail"
    );
    let report = results.iter().find(|r| r.status == Status::Fail).unwrap().report(&Default::default());
    assert!(report.contains("dtype i64"), "{report}");
}

/// The CPU adapter without int8 (it says so in its support table and refuses int8 operands).
struct NoInt8;

impl Adapter for NoInt8 {
    fn name(&self) -> &str {
        "no-int8"
    }

    fn version(&self) -> String {
        "the CPU adapter without int8".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        if dtype == DType::I8 {
            Support::Unsupported("no dtype int8".into())
        } else {
            CpuAdapter.supports(op, dtype)
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if a.dtype() == DType::I8 || b.dtype() == DType::I8 {
            return Err(AdapterError::unsupported("no dtype int8"));
        }
        CpuAdapter.binary(op, a, b)
    }

    fn binary_scalar(
        &self,
        op: BinaryOp,
        t: &Tensor,
        s: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        CpuAdapter.binary_scalar(op, t, s, side)
    }
}

#[test]
fn a_promotion_case_with_an_unsupported_operand_dtype_is_skipped_in_either_place() {
    let catalog = Catalog::builtin().unwrap();
    let name = "no-int8".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("array-api") && c.id.dtype.contains('+'))
        .collect();
    let results = run_all(&catalog, &checks, &[(name, Arc::new(NoInt8))], &RunOptions::default(), 0);
    let has_i8 = |r: &&CheckResult| r.id.dtype.split('+').any(|d| d == "i8");
    let with_i8: Vec<_> = results.iter().filter(has_i8).collect();
    // int8 first and int8 second: both kinds exist in the array API's table.
    assert!(
        with_i8.iter().any(|r| r.id.dtype.starts_with("i8+"))
            && with_i8.iter().any(|r| r.id.dtype.ends_with("+i8"))
    );
    for r in &with_i8 {
        assert_eq!(r.status, Status::Skip, "{}: {}", r.id, r.message);
        assert!(r.message.contains("no dtype int8"), "{}: {}", r.id, r.message);
    }
    let others: Vec<String> = results
        .iter()
        .filter(|r| !has_i8(r) && r.status != Status::Pass)
        .map(|r| format!("{} {:?} {}", r.id, r.status, r.message))
        .collect();
    assert!(results.len() > with_i8.len() && others.is_empty(), "{others:#?}");
}

/// The CPU adapter with a wrong fused multiply-add: either rounded twice (`a × b` rounded to
/// the dtype, then `+ c` rounded again) or silently broadcasting its operands.
struct WrongFused {
    name: &'static str,
    broadcasts: bool,
}

impl Adapter for WrongFused {
    fn name(&self) -> &str {
        self.name
    }

    wraps_cpu!("deliberately wrong");

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        if self.broadcasts {
            // Lines the operands up by NumPy rules instead of refusing unequal shapes.
            let shape = broadcast_shapes(&broadcast_shapes(a.shape(), b.shape())?, c.shape())?;
            let expand = |t: &Tensor| -> Result<Tensor, AdapterError> {
                let extra = shape.len() - t.shape().len();
                let strides: Vec<isize> = (0..shape.len())
                    .map(|i| if i < extra || t.shape()[i - extra] == 1 { 0 } else { t.strides()[i - extra] })
                    .collect();
                Ok(t.view(&shape, &strides, t.offset())?.to_contiguous())
            };
            return CpuAdapter.ternary(op, &expand(a)?, &expand(b)?, &expand(c)?);
        }
        // Unequal shapes are refused as they should be: only the rounding is wrong.
        if op != TernaryOp::FusedMulAdd || a.shape() != b.shape() || a.shape() != c.shape() {
            return CpuAdapter.ternary(op, a, b, c);
        }
        // Two roundings: the product in the dtype, then the sum in the dtype.
        let product = CpuAdapter.binary(BinaryOp::Multiply, a, b)?;
        CpuAdapter.binary(BinaryOp::Add, &product, c)
    }
}

/// The numr suite's fused checks against `adapter`; returns the failed checks by id.
fn fused_failures(adapter: WrongFused) -> BTreeMap<String, CheckResult> {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name.to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("numr") && c.id.op.starts_with("fused_"))
        .collect();
    assert!(!checks.is_empty());
    let results = run_all(&catalog, &checks, &[(name, Arc::new(adapter))], &RunOptions::default(), 0);
    results.into_iter().filter(|r| r.status == Status::Fail).map(|r| (r.id.to_string(), r)).collect()
}

#[test]
fn fused_multiply_add_rounded_twice() {
    let failed = fused_failures(WrongFused { name: "fma-twice", broadcasts: false });
    for dtype in ["f16", "bf16", "f32", "f64"] {
        let id = format!("numr:fma-twice:fused_mul_add:{dtype}:random");
        assert!(failed.contains_key(&id), "{:?}", failed.keys());
    }
    for id in failed.keys() {
        assert!(id.contains(":fused_mul_add:"), "{id} failed, but only fused_mul_add is wrong");
        assert!(!id.ends_with(":no-broadcast"), "{id} failed, but the shapes are handled right");
    }
}

#[test]
fn fused_operation_that_broadcasts() {
    let failed = fused_failures(WrongFused { name: "fused-broadcasts", broadcasts: true });
    let expected: BTreeSet<String> = ["fused_mul_add", "fused_add_mul"]
        .iter()
        .flat_map(|op| {
            ["f16", "bf16", "f32", "f64"].map(|d| format!("numr:fused-broadcasts:{op}:{d}:no-broadcast"))
        })
        .collect();
    assert_eq!(failed.keys().cloned().collect::<BTreeSet<_>>(), expected);
    // Every set of shapes of the table's row is broadcast, and each failure names the row.
    let result = &failed["numr:fused-broadcasts:fused_mul_add:f32:no-broadcast"];
    let report = result.report(&Default::default());
    assert_eq!((result.failed_inputs, result.inputs), (5, 5), "{report}");
    assert!(
        report.contains(
            "same-shape: fused_mul_add(x1: f32[2, 3], x2: f32[2, 3], x3: f32[3])\n    \
             expected: a shape_mismatch error (same-shape: \"All three tensors must have the same shape"
        ),
        "{report}"
    );
    let citation = result.citation.as_ref().expect("a citation");
    assert_eq!(citation.row, "fused_mul_add/same-shape");
    assert!(citation.location.starts_with("specs/fused/fused_mul_add.yaml:"), "{}", citation.location);
}

/// The CPU adapter with an `add_into` that accepts a non-contiguous `out` (and rewrites it as
/// a contiguous tensor) instead of refusing it.
struct LaxAddInto;

impl Adapter for LaxAddInto {
    fn name(&self) -> &str {
        "lax-add-into"
    }

    wraps_cpu!("deliberately wrong");

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        if !out.is_contiguous() && out.dtype() == a.dtype() {
            *out = out.to_contiguous();
        }
        CpuAdapter.binary_into(op, a, b, out)
    }
}

#[test]
fn add_into_that_accepts_a_non_contiguous_out() {
    let catalog = Catalog::builtin().unwrap();
    let name = "lax-add-into".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("numr") && c.id.op == "add_into")
        .collect();
    let results = run_all(&catalog, &checks, &[(name, Arc::new(LaxAddInto))], &RunOptions::default(), 0);
    let failed: BTreeSet<String> =
        results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    // The into-rules rows (floats) refuse a strided `out`; the layout checks, in every dtype,
    // write into destination views and find them unwritten.
    let floats = ["f16", "bf16", "f32", "f64"];
    let integers = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"];
    let expected: BTreeSet<String> =
        (floats.map(|d| format!("numr:lax-add-into:add_into:{d}:into-rules")).into_iter())
            .chain(floats.iter().chain(&integers).map(|d| format!("numr:lax-add-into:add_into:{d}:layouts")))
            .collect();
    assert_eq!(failed, expected);
    let result =
        results.iter().find(|r| r.id.to_string() == "numr:lax-add-into:add_into:f32:into-rules").unwrap();
    let report = result.report(&Default::default());
    // The failure names the row it broke; the check cites the table's rows.
    assert!(
        report.contains(
            "out-not-contiguous: add_into(a: f32[2, 3], b: f32[3]) into out: f32[2, 3] transposed\n    \
             expected: an error, with out unchanged (out-not-contiguous: \"Returns an error … if out is not contiguous\""
        ),
        "{report}"
    );
    assert_eq!((result.failed_inputs, result.inputs), (1, 5), "{report}");
    let citation = result.citation.as_ref().expect("a citation");
    assert_eq!(citation.row, "add_into/into-rules");
    assert!(citation.location.starts_with("specs/fused/add_into.yaml:"), "{}", citation.location);
    assert!(citation.text.contains("\"Returns an error if dtypes mismatch\""), "{}", citation.text);
}

/// The CPU adapter, except that where it would refuse an `add_into` destination, the process
/// serving it dies instead (as a host reports it), leaving the destination unwritten.
struct DiesOnRefusedOut;

impl Adapter for DiesOnRefusedOut {
    fn name(&self) -> &str {
        "dies-on-refused-out"
    }

    wraps_cpu!("deliberately wrong");

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        let mut scratch = out.clone();
        CpuAdapter.binary_into(op, a, b, &mut scratch).map_err(|_| worker_died())?;
        *out = scratch;
        Ok(())
    }
}

/// A refused destination is allowed (with `out` unchanged); a dead process is no refusal.
#[test]
fn a_process_that_dies_instead_of_refusing_an_out_fails() {
    let catalog = Catalog::builtin().unwrap();
    let name = "dies-on-refused-out".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("numr") && c.id.op == "add_into")
        .collect();
    let results =
        run_all(&catalog, &checks, &[(name, Arc::new(DiesOnRefusedOut))], &RunOptions::default(), 0);
    let failed: BTreeMap<String, &CheckResult> =
        results.iter().filter(|r| r.status == Status::Fail).map(|r| (r.id.case.clone(), r)).collect();
    for case in ["into-rules", "layouts"] {
        let r = failed.get(case).unwrap_or_else(|| panic!("no {case} check fails: {failed:?}"));
        assert_eq!(r.tier, Some(Tier::Must), "{}", r.id);
        let report = r.report(&Default::default());
        assert!(report.contains("no result: crashed: worker 4321"), "{report}");
    }
    assert_eq!(failed.len(), 2, "the checks without refused destinations pass: {:?}", failed.keys());
}

/// The CPU adapter with round's ties going away from zero (C's `round`, numr's `round`) instead
/// of to even.
struct TiesAway;

impl Adapter for TiesAway {
    fn name(&self) -> &str {
        "ties-away"
    }

    wraps_cpu!("deliberately wrong");

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.unary(op, x)?;
        if op != UnaryOp::Round {
            return Ok(right);
        }
        let Some(f) = Format::of(x.dtype()) else { return Ok(right) };
        let bits: Vec<u64> = (x.to_bits().iter().zip(right.to_bits()))
            .map(|(&x, r)| {
                let v = f.to_f64(x);
                // f64 holds every value of the four formats, and their halves' rounding exactly.
                if f.is_finite(x) && v - v.floor() == 0.5 {
                    f.from_f64_exact(v.round()).unwrap_or(r)
                } else {
                    r
                }
            })
            .collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

#[test]
fn round_ties_away_from_zero() {
    let catalog = Catalog::builtin().unwrap();
    let checks: Vec<_> = adapter_checks(&catalog, &["ties-away".to_string()])
        .into_iter()
        .filter(|c| c.id.suite() == Some("array-api") && c.id.op == "round")
        .collect();
    assert!(!checks.is_empty());
    let results =
        run_all(&catalog, &checks, &[("ties-away".into(), Arc::new(TiesAway))], &RunOptions::default(), 0);
    let failed: BTreeSet<String> =
        results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    for dtype in ["f16", "bf16", "f32", "f64"] {
        assert!(failed.contains(&format!("array-api:ties-away:round:{dtype}:half-to-even")), "{failed:?}");
    }
    assert_only(&failed, &["half-to-even", "edges", "random"]);
}

/// The error a process host returns for a call whose worker died: what `process:`, `lib:`,
/// `python:` and the vendor harness give when the library kills its process.
fn worker_died() -> AdapterError {
    AdapterError::new(ErrorKind::Crashed, "worker 4321, request 7: the worker ended (signal: 8 (SIGFPE))")
}

/// The CPU adapter, except that integer `floor_divide` and `remainder` with a zero divisor
/// panic, return an error, or kill the process serving them (as a host reports it), or
/// return an error on every call.
#[derive(Clone, Copy, PartialEq)]
enum DividesByZero {
    Panics,
    Refuses,
    Dies,
    RefusesEverything,
}

impl Adapter for DividesByZero {
    fn name(&self) -> &str {
        match self {
            DividesByZero::Panics => "panics-on-zero",
            DividesByZero::Refuses => "refuses-zero",
            DividesByZero::Dies => "dies-on-zero",
            DividesByZero::RefusesEverything => "refuses-every-division",
        }
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let divides = matches!(op, BinaryOp::FloorDivide | BinaryOp::Remainder) && !a.dtype().is_float();
        let refused = || Err(AdapterError::new(ErrorKind::Other, "ZeroDivisionError"));
        if divides && *self == DividesByZero::RefusesEverything {
            return refused();
        }
        if divides && b.to_bits().contains(&0) {
            assert!(*self != DividesByZero::Panics, "attempt to divide by zero");
            if *self == DividesByZero::Dies {
                return Err(worker_died());
            }
            return refused();
        }
        CpuAdapter.binary(op, a, b)
    }
}

#[test]
fn integer_division_by_zero_may_fail_but_not_panic() {
    let catalog = Catalog::builtin().unwrap();
    let outcomes = |adapter: DividesByZero| {
        let name = adapter.name().to_string();
        let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
            .into_iter()
            .filter(|c| {
                let integer = c.id.dtype.parse::<DType>().is_ok_and(DType::is_integer);
                ["floor_divide", "remainder"].contains(&c.id.op.as_str()) && integer
            })
            .collect();
        let adapter: Arc<dyn Adapter> = Arc::new(adapter);
        let results = run_all(&catalog, &checks, &[(name, adapter)], &RunOptions::default(), 0);
        let failed: BTreeSet<String> =
            results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.case.clone()).collect();
        (results, failed)
    };
    // A panic and a dead process give no result, which an "unspecified" result is not: the
    // divisions by zero fail a must, with the reason; the other checks still run.
    for (adapter, reason) in [
        (DividesByZero::Panics, "the adapter panicked: attempt to divide by zero"),
        (
            DividesByZero::Dies,
            "no result: crashed: worker 4321, request 7: the worker ended (signal: 8 (SIGFPE))",
        ),
    ] {
        let (results, failed) = outcomes(adapter);
        assert!(results.len() >= 2 * 8 * 4, "edges, random, by-zero and layouts of two ops in eight dtypes");
        assert_eq!(failed, BTreeSet::from(["by-zero".to_string()]), "only the divisions by zero fail");
        for r in results.iter().filter(|r| r.id.case == "by-zero") {
            assert_eq!(r.tier, Some(Tier::Must), "{}", r.id);
            assert!(r.message.contains(reason), "{}: {}", r.id, r.message);
        }
    }
    let (_, failed) = outcomes(DividesByZero::Refuses);
    assert!(failed.is_empty(), "an error for x / 0 is what the array API allows: {failed:?}");
    // An error is allowed for the divisions by zero only, not for the other inputs.
    let (_, failed) = outcomes(DividesByZero::RefusesEverything);
    let other = ["edges", "random", "layouts"].map(String::from);
    assert_eq!(failed, BTreeSet::from(other), "an error fails every check but by-zero");
}
