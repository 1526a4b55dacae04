//! The broadcasting checks catch bugs: deliberately wrong implementations fail on the checks
//! that exercise the rule they break, and the correct CPU adapter passes them all. Malformed
//! broadcasting tables are clear errors located in their file.

#[macro_use]
mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, Target, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, Checked, NAMED_AXIS_CODES, NamedOp, Operand, ShapeChecker, Tensor,
    named_axis_error,
};
use opspec_cpu::CpuAdapter;

/// The CPU adapter's checker.
fn cpu_check(op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
    CpuAdapter.checker().expect("the CPU adapter has a checker").check(op, operands)
}

/// Runs every broadcasting check of `suite` whose id contains one of `filters` against
/// `adapter`; returns the failed ids and the results.
fn failures(
    adapter: Arc<dyn Adapter>,
    suite: &str,
    filters: &[&str],
) -> (BTreeSet<String>, Vec<CheckResult>) {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name().to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some(suite))
        .filter(|c| matches!(c.target, Target::Broadcast(_)))
        .filter(|c| filters.iter().any(|f| c.id.to_string().contains(f)))
        .collect();
    assert!(!checks.is_empty(), "no checks match {filters:?}");
    let results = run_all(&catalog, &checks, &[(name, adapter)], &RunOptions::default(), 0);
    let failed = results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    (failed, results)
}

fn assert_caught(failed: &BTreeSet<String>, ids: &[String]) {
    for id in ids {
        assert!(failed.contains(id), "{id} did not fail; failures: {failed:#?}");
    }
}

/// Every failing id ends with one of `allowed` (a case name).
fn assert_only(failed: &BTreeSet<String>, allowed: &[&str]) {
    for id in failed {
        let case = id.rsplit(':').next().unwrap();
        assert!(allowed.contains(&case), "{id} failed, but the bug should only break {allowed:?}");
    }
}

/// An adapter that delegates to the CPU adapter except where a test overrides it.
struct Wrong {
    name: &'static str,
    binary: fn(BinaryOp, &Tensor, &Tensor) -> Result<Tensor, AdapterError>,
    check: fn(NamedOp, &[Operand]) -> Result<Checked, AdapterError>,
}

impl Adapter for Wrong {
    fn name(&self) -> &str {
        self.name
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        (self.binary)(op, a, b)
    }

    fn checker(&self) -> Option<&dyn ShapeChecker> {
        Some(self)
    }
}

impl ShapeChecker for Wrong {
    fn check(&self, op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        (self.check)(op, operands)
    }
}

fn cpu_binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
    CpuAdapter.binary(op, a, b)
}

#[test]
fn correct_adapter_passes_every_broadcasting_check() {
    let cpu: Arc<dyn Adapter> = Arc::new(CpuAdapter);
    for suite in ["array-api", "named-axes"] {
        let (failed, results) = failures(Arc::clone(&cpu), suite, &[":"]);
        assert!(failed.is_empty(), "{failed:#?}");
        assert!(results.iter().all(|r| r.status == Status::Pass && r.inputs > 0));
    }
}

#[test]
fn broadcasting_aligned_from_the_left() {
    /// Pads the shorter operand with trailing size-1 axes: NumPy's rule mirrored.
    fn left_aligned(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let rank = a.shape().len().max(b.shape().len());
        let pad = |t: &Tensor| {
            let extra = rank - t.shape().len();
            let shape: Vec<usize> = t.shape().iter().copied().chain(std::iter::repeat_n(1, extra)).collect();
            let strides: Vec<isize> =
                t.strides().iter().copied().chain(std::iter::repeat_n(0, extra)).collect();
            t.view(&shape, &strides, t.offset())
        };
        CpuAdapter.binary(op, &pad(a)?, &pad(b)?)
    }
    let adapter = Wrong { name: "left-aligned", binary: left_aligned, check: cpu_check };
    let (failed, results) = failures(Arc::new(adapter), "array-api", &[":numpy:", ":broadcast-"]);
    let mut caught: Vec<String> =
        ["row-broadcast", "left-alignment-would-accept", "extra-leading-axes-rank5"]
            .iter()
            .map(|v| format!("array-api:left-aligned:numpy:-:{v}"))
            .collect();
    for op in ["add", "subtract", "multiply"] {
        caught.push(format!("array-api:left-aligned:{op}:f32:broadcast-random"));
        caught.push(format!("array-api:left-aligned:{op}:f64:broadcast-strided"));
    }
    assert_caught(&failed, &caught);
    for same_rank in ["same-shape", "column-broadcast", "outer", "zero-size-equal", "one-is-not-two"] {
        assert!(!failed.contains(&format!("array-api:left-aligned:numpy:-:{same_rank}")), "{same_rank}");
    }
    // The report names the table row and the shapes.
    let report = results
        .iter()
        .find(|r| r.id.to_string() == "array-api:left-aligned:numpy:-:left-alignment-would-accept")
        .unwrap()
        .report(&Default::default());
    for part in [
        "numpy/left-alignment-would-accept",
        "specs/broadcasting/numpy.yaml:",
        "Dimensions are compared element-wise, from the trailing dimensions backward",
        "x1: f16[4, 3], contiguous",
        "expected: add: a shape_mismatch error",
        "actual:   a result of shape [4, 3]",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }
}

#[test]
fn checker_accepts_different_names_of_equal_size() {
    /// Where the CPU checker says E0404, renames the right operand's conflicting axes of equal
    /// size to the left operand's names and asks again.
    fn lenient(op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        let answer = cpu_check(op, operands);
        if !matches!(&answer, Err(e) if e.code.as_deref() == Some("E0404")) || operands.len() != 2 {
            return answer;
        }
        let (x, mut y) = (&operands[0], operands[1].clone());
        let (nx, ny) = (x.shape.len(), y.shape.len());
        for k in 1..=nx.min(ny) {
            let (a, b) = (&x.shape[nx - k], &mut y.shape[ny - k]);
            if a.name.is_some() && b.name.is_some() && a.size == b.size {
                b.name = a.name.clone();
            }
        }
        cpu_check(op, &[x.clone(), y])
    }
    let adapter = Wrong { name: "same-size-names", binary: cpu_binary, check: lenient };
    let (failed, _) = failures(Arc::new(adapter), "named-axes", &[":named:", ":matmul:", ":operators:"]);
    let caught: Vec<String> = [
        "named:-:seed-n-d-plus-k-d-same-size",
        "named:-:divide-from-right",
        "named:-:masked-fill-mask-name-conflict",
        "named:-:name-conflict-left-of-size-conflict",
        "matmul:-:batch-name-conflict",
    ]
    .iter()
    .map(|v| format!("named-axes:same-size-names:{v}"))
    .collect();
    assert_caught(&failed, &caught);
    assert!(!failed.contains("named-axes:same-size-names:named:-:seed-n-d-plus-k-d"), "sizes differ there");
}

/// Whether both operands qualify by name: every axis named, the same names as many times.
fn both_qualify(x: &[opspec_adapter::NamedAxis], y: &[opspec_adapter::NamedAxis]) -> bool {
    let names = |s: &[opspec_adapter::NamedAxis]| {
        let mut n: Vec<Option<String>> = s.iter().map(|a| a.name.clone()).collect();
        n.sort();
        n
    };
    !x.is_empty() && x.iter().chain(y).all(|a| a.name.is_some()) && names(x) == names(y)
}

#[test]
fn right_operand_order_wins() {
    /// Answers with the right operand's order when both qualify by name.
    fn right_wins(op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        let elementwise = !matches!(op, NamedOp::Matmul | NamedOp::LogicalNot | NamedOp::Negative);
        if !elementwise || !both_qualify(&operands[0].shape, &operands[1].shape) {
            return cpu_check(op, operands);
        }
        let mut swapped = cpu_check(op, &[operands[1].clone(), operands[0].clone()])?;
        if let Some(align) = &mut swapped.alignment {
            align.swap(0, 1);
        }
        Ok(swapped)
    }
    /// Executes in the right operand's order when both qualify by name.
    fn right_wins_binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let out = CpuAdapter.binary(op, a, b)?;
        let (Some(na), Some(nb)) = (a.names(), b.names()) else { return Ok(out) };
        let axes = |t: &Tensor, n: &[Option<String>]| -> Vec<opspec_adapter::NamedAxis> {
            t.shape()
                .iter()
                .zip(n)
                .map(|(&size, name)| opspec_adapter::NamedAxis { name: name.clone(), size })
                .collect()
        };
        if !both_qualify(&axes(a, na), &axes(b, nb)) {
            return Ok(out);
        }
        // Read the result in b's axis order (names are distinct in the generated cases).
        let order: Vec<usize> = nb.iter().map(|n| na.iter().position(|m| m == n).unwrap()).collect();
        let shape: Vec<usize> = order.iter().map(|&i| out.shape()[i]).collect();
        let strides: Vec<isize> = order.iter().map(|&i| out.strides()[i]).collect();
        out.view(&shape, &strides, out.offset())?.to_contiguous().with_names(nb.to_vec())
    }
    let adapter = Wrong { name: "right-order", binary: right_wins_binary, check: right_wins };
    let (failed, _) = failures(Arc::new(adapter), "named-axes", &[":named:", ":add:f32:", ":subtract:f64:"]);
    let mut caught: Vec<String> = [
        "named:-:seed-both-qualify-left-order-wins",
        "named:-:both-qualify-left-order-wins-swapped",
        "named:-:both-qualify-rank3",
        "named:-:masked-fill-mask-by-name",
        "add:f32:named-vectors",
        "add:f32:named-swap",
        "subtract:f64:named-vectors",
    ]
    .iter()
    .map(|v| format!("named-axes:right-order:{v}"))
    .collect();
    caught.sort();
    assert_caught(&failed, &caught);
    assert!(
        !failed.contains("named-axes:right-order:named:-:seed-superset-left"),
        "only one qualifies there"
    );
    assert!(!failed.contains("named-axes:right-order:named:-:both-qualify-same-order"), "the orders agree");
}

#[test]
fn strides_ignored() {
    /// Reads each operand's buffer as if it were contiguous from its first element.
    fn no_strides(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let dense = |t: &Tensor| -> Result<Tensor, AdapterError> {
            let bytes = t.numel() * t.dtype().size();
            let mut data = t.buffer()[..bytes.min(t.buffer().len())].to_vec();
            data.resize(bytes, 0);
            let dense = Tensor::from_bytes(t.dtype(), t.shape(), data)?;
            match t.names() {
                Some(n) => dense.with_names(n.to_vec()),
                None => Ok(dense),
            }
        };
        CpuAdapter.binary(op, &dense(a)?, &dense(b)?)
    }
    let adapter = Wrong { name: "no-strides", binary: no_strides, check: cpu_check };
    for suite in ["array-api", "named-axes"] {
        let (failed, _) = failures(Arc::new(Wrong { ..adapter }), suite, &[":f32:", ":f16:", ":numpy:"]);
        let caught: Vec<String> = match suite {
            "array-api" => ["add:f32:broadcast-strided", "multiply:f16:broadcast-strided"]
                .iter()
                .map(|v| format!("array-api:no-strides:{v}"))
                .collect(),
            _ => ["add:f32:named-permutation", "add:f32:named-vectors", "subtract:f16:named-permutation"]
                .iter()
                .map(|v| format!("named-axes:no-strides:{v}"))
                .collect(),
        };
        assert_caught(&failed, &caught);
        // Contiguous operands are read correctly: only the strided cases fail.
        assert_only(&failed, &["broadcast-strided", "named-permutation", "named-vectors", "named-swap"]);
    }
}

#[test]
fn matmul_demands_equal_names() {
    /// Rejects a matmul whose contracted axes have different names.
    fn equal_names(op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        if op == NamedOp::Matmul {
            let (x, y) = (&operands[0].shape, &operands[1].shape);
            let kx = x.last();
            let ky = if y.len() == 1 { y.first() } else { y.iter().rev().nth(1) };
            if let (Some(a), Some(b)) = (kx, ky)
                && a.name != b.name
            {
                return Err(named_axis_error("E0401", "contracted axes must have the same name"));
            }
        }
        cpu_check(op, operands)
    }
    let adapter = Wrong { name: "matmul-names", binary: cpu_binary, check: equal_names };
    let (failed, results) = failures(Arc::new(adapter), "named-axes", &[":matmul:"]);
    let caught: Vec<String> = [
        "seed-merged-axis-equal-size",
        "contracted-names-differ",
        "contracted-named-and-unnamed",
        "vector-times-vector",
    ]
    .iter()
    .map(|v| format!("named-axes:matmul-names:matmul:-:{v}"))
    .collect();
    assert_caught(&failed, &caught);
    assert!(
        !failed.contains("named-axes:matmul-names:matmul:-:matrix-times-matrix"),
        "the names agree there"
    );
    let report = results
        .iter()
        .find(|r| r.id.to_string() == "named-axes:matmul-names:matmul:-:seed-merged-axis-equal-size")
        .unwrap()
        .report(&Default::default());
    for part in [
        "matmul/seed-merged-axis-equal-size",
        "[b n (H Dh)] @ [D D] is fine when H*Dh = D",
        "x = real [b=2 n=3 (H Dh)=8]",
        "y = real [D=8 D=8]",
        "expected: real [b=2 n=3 D=8]",
        "actual:   error shape_mismatch [E0401]: contracted axes must have the same name",
        "opspec run --exact named-axes:matmul-names:matmul:-:seed-merged-axis-equal-size",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }
}

#[test]
fn every_code_is_expected_and_narrowly_avoided() {
    let catalog = Catalog::builtin().unwrap();
    let mut owned = BTreeSet::new();
    // A table that breaks its own promises does not load (see `malformed_tables_are_located_errors`).
    for table in &catalog.broadcasting {
        owned.extend(table.table.codes.iter().map(String::as_str));
    }
    let all: BTreeSet<&str> = NAMED_AXIS_CODES.iter().map(|(c, _)| *c).collect();
    assert_eq!(owned, all, "every document code is owned by a table");
}

/// A catalog root holding only `specs/broadcasting/<file>` with `text`.
fn root_with(name: &str, file: &str, text: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("opspec-broadcasting-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("specs/broadcasting")).unwrap();
    std::fs::create_dir_all(root.join("suites")).unwrap();
    std::fs::write(root.join("specs/broadcasting").join(file), text).unwrap();
    root
}

#[test]
fn malformed_tables_are_located_errors() {
    const NAMED: &str = include_str!("../specs/broadcasting/named.yaml");
    let cases = [
        ("code", "    error: E0404\n", "    error: E0499\n", "E0499` is not a named-axis error code"),
        ("shape", "    y: \"[k D]\"\n", "    y: \"[k D\"\n", "field `y`: `[k D`"),
        ("size", "    sizes: {n: 2, k: 3, D: 6}\n", "    sizes: {n: 2, D: 6}\n", "axis `k` has no size"),
        (
            "rule",
            "    rules: [from-right, from-right-names]\n",
            "    rules: [from-rite]\n",
            "no rule `from-rite`",
        ),
        ("kind", "    y: \"mask[n D]\"\n", "    y: \"bitmask[n D]\"\n", "unknown value kind `bitmask`"),
        ("field", "    avoids: [E0404]\n", "    avoid: [E0404]\n", "unknown field `avoid`"),
        (
            "value-check",
            "  - case: named-swap\n",
            "  - case: broadcast-random\n",
            "not a value check of this family",
        ),
    ];
    for (name, from, to, says) in cases {
        assert!(NAMED.contains(from), "named.yaml no longer contains {from:?}");
        let text = NAMED.replacen(from, to, 1);
        let first = to.lines().next().unwrap();
        let line = text.lines().position(|l| l == first).unwrap() as u64 + 1;
        let root = root_with(name, "named.yaml", &text);
        let err = Catalog::load(&root).expect_err("the malformed table loaded");
        std::fs::remove_dir_all(&root).unwrap();
        let shown = err.to_string();
        assert!(shown.contains("specs/broadcasting/named.yaml:"), "{shown}");
        assert!(shown.contains(says), "{says:?} not in {shown}");
        assert!(err.line.is_some_and(|l| l + 8 >= line && l <= line), "line {line} expected: {shown}");
    }
}

#[test]
fn a_table_that_breaks_its_coverage_promises_does_not_load() {
    const NAMED: &str = include_str!("../specs/broadcasting/named.yaml");
    let from = "codes: [E0401, E0404]\n";
    assert!(NAMED.contains(from), "named.yaml no longer contains {from:?}");
    let root =
        root_with("coverage", "named.yaml", &NAMED.replacen(from, "codes: [E0401, E0404, E0412]\n", 1));
    let err = Catalog::load(&root).expect_err("the table loaded");
    std::fs::remove_dir_all(&root).unwrap();
    let shown = err.to_string();
    assert!(shown.contains("specs/broadcasting/named.yaml"), "{shown}");
    assert!(
        shown.contains("coverage promises: no vector expects E0412; no vector narrowly avoids E0412"),
        "{shown}"
    );
}
