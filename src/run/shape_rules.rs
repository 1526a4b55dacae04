//! The shape rules of element-wise operations, checked with small fixed operands:
//!
//! - a fused (ternary) operation refuses operands of different, broadcastable shapes with a
//!   shape-mismatch error (seed 003: "All three tensors must have the same shape (no
//!   broadcasting)");
//! - a destination-passing operation (`add_into`) writes the result into a fitting
//!   caller-owned `out`, and a mismatched dtype, a mismatched shape or a non-contiguous `out`
//!   is an error that leaves `out` as it was.
//!
//! A failure reproduces with `run --exact` of the check.

use std::sync::Arc;

use opspec_adapter::{Adapter, DType, ErrorKind, OpKind, Tensor};

use super::call::{apply_guarded, guarded};
use super::check::{RunOptions, ShapeRule, ShapeRuleTarget};
use super::record::{Failure, Recorder, Repro};
use super::result::CheckResult;
use crate::format::Format;
use crate::spec::{Catalog, LoadedTable};

/// Runs a shape-rule check against `adapter`.
pub fn run(
    catalog: &Catalog,
    target: &ShapeRuleTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[target.table];
    let mut rec = Recorder::new(result, options);
    match target.rule {
        ShapeRule::NoBroadcast => check_no_broadcast(table, target.dtype, adapter, options, &mut rec),
        ShapeRule::IntoRules => check_into_rules(table, target.dtype, adapter, options, &mut rec),
    }
}

/// How many calls the check of `rule` makes.
pub fn scenarios(rule: ShapeRule) -> usize {
    match rule {
        ShapeRule::NoBroadcast => NO_BROADCAST_SHAPES.len(),
        ShapeRule::IntoRules => INTO_SCENARIOS,
    }
}

/// The destinations `into-rules` tries: one that fits, and four that must be refused.
const INTO_SCENARIOS: usize = 5;

/// A failed scenario: what was called, what the rule requires, what happened.
fn problem(call: &str, expected: &str, actual: String) -> Failure {
    Failure {
        inputs: vec![call.to_string()],
        expected: expected.to_string(),
        actual,
        steps: None,
        repro: Repro::Check,
    }
}

/// Operand shapes a fused operation must refuse: each pair would broadcast, so an
/// implementation that silently broadcasts returns a result instead of an error.
const NO_BROADCAST_SHAPES: [[&[usize]; 3]; 5] = [
    [&[2, 3], &[2, 3], &[3]],
    [&[2, 3], &[1, 3], &[2, 3]],
    [&[2, 1], &[2, 3], &[2, 3]],
    [&[4], &[4], &[]],
    [&[1], &[3], &[3]],
];

/// A fused operation on operands of mismatched (broadcastable) shapes must fail with a
/// shape-mismatch error; a result, another error kind or a panic fails the check.
fn check_no_broadcast(
    table: &LoadedTable,
    dtype: DType,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    rec: &mut Recorder,
) -> Result<(), String> {
    let OpKind::Ternary(op) = table.op else {
        return Err(format!("{} is not a fused operation", table.table.op));
    };
    let expected =
        "a shape_mismatch error (seed 003: \"All three tensors must have the same shape (no broadcasting)\")";
    rec.checked(NO_BROADCAST_SHAPES.len());
    for shapes in NO_BROADCAST_SHAPES {
        let operands = shapes
            .iter()
            .map(|s| Tensor::zeros(dtype, s).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let shown = format!("{op}(x1: {}{:?}, x2: {:?}, x3: {:?})", dtype, shapes[0], shapes[1], shapes[2]);
        match apply_guarded(adapter, table.op, operands, dtype, options.timeout) {
            Ok(Err(e)) if e.kind == ErrorKind::ShapeMismatch => {}
            Ok(Err(e)) => rec.fail(1, || problem(&shown, expected, format!("error {e}"))),
            Ok(Ok(t)) => rec.fail(1, || {
                problem(
                    &shown,
                    expected,
                    format!("a result of shape {:?}: the operands were broadcast", t.shape()),
                )
            }),
            Err(e) => rec.fail(1, || problem(&shown, expected, e)),
        }
    }
    rec.finish("calls");
    Ok(())
}

/// The `a` and `b` shapes every scenario uses; they broadcast to `[2, 3]`.
const A_SHAPE: [usize; 2] = [2, 3];
const B_SHAPE: [usize; 1] = [3];

/// Runs the rules of `table` (a `BinaryInto` table) in `dtype` against `adapter`.
fn check_into_rules(
    table: &LoadedTable,
    dtype: DType,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    rec: &mut Recorder,
) -> Result<(), String> {
    let OpKind::BinaryInto(op) = table.op else {
        return Err(format!("{} does not write into a destination", table.table.op));
    };
    let f = Format::of(dtype).ok_or("the into-rules check runs in float dtypes")?;
    // Small exact values: a = 1..6, b = 10, 20, 30 (sums are exact in every format).
    let a_bits: Vec<u64> = (1..=6).map(|v| small(f, v)).collect();
    let b_bits: Vec<u64> = [10, 20, 30].iter().map(|&v| small(f, v)).collect();
    let a = Tensor::from_bits(dtype, &A_SHAPE, &a_bits).map_err(|e| e.to_string())?;
    let b = Tensor::from_bits(dtype, &B_SHAPE, &b_bits).map_err(|e| e.to_string())?;
    let other = if dtype == DType::F64 { DType::F32 } else { DType::F64 };
    // A sentinel (7) in every destination, so a write is visible.
    let filled = |d: DType, shape: &[usize]| -> Result<Tensor, String> {
        let g = Format::of(d).ok_or("float dtype")?;
        let n = shape.iter().product::<usize>();
        Tensor::from_bits(d, shape, &vec![small(g, 7); n]).map_err(|e| e.to_string())
    };
    // A [2, 3] view that is the transpose of a contiguous [3, 2] buffer.
    let transposed = filled(dtype, &[3, 2])?.view(&A_SHAPE, &[1, 2], 0).map_err(|e| e.to_string())?;
    let scenarios: [(&str, Tensor, bool); INTO_SCENARIOS] = [
        ("a fitting contiguous out of shape [2, 3]", filled(dtype, &A_SHAPE)?, true),
        ("an out of another dtype", filled(other, &A_SHAPE)?, false),
        ("an out of shape [3, 2]", filled(dtype, &[3, 2])?, false),
        ("an out of shape [1, 3] (a's and b's broadcast shape is [2, 3])", filled(dtype, &[1, 3])?, false),
        ("a non-contiguous out (a transposed view)", transposed, false),
    ];
    rec.checked(scenarios.len());
    for (what, out, fits) in scenarios {
        let before = out.to_bits();
        let (adapter, a, b) = (Arc::clone(adapter), a.clone(), b.clone());
        let returned = guarded(options.timeout, move || {
            let mut out = out;
            let outcome = adapter.binary_into(op, &a, &b, &mut out);
            (out, outcome)
        });
        let shown = format!("{op}_into(a: {A_SHAPE:?}, b: {B_SHAPE:?}) into {what}");
        let (out, outcome) = match returned {
            Ok(r) => r,
            Err(panic) => {
                rec.fail(1, || problem(&shown, "the call returns", panic));
                continue;
            }
        };
        match (outcome, fits) {
            (Ok(()), true) => {
                let expected: Vec<u64> =
                    (0..6).map(|i| crate::oracle::add(f, a_bits[i], b_bits[i % 3])).collect();
                if out.shape() != A_SHAPE || out.dtype() != dtype || out.to_bits() != expected {
                    rec.fail(1, || {
                        problem(
                            &shown,
                            &format!("out holds the bits {expected:x?} (shape {A_SHAPE:?})"),
                            format!("out holds the bits {:x?} (shape {:?})", out.to_bits(), out.shape()),
                        )
                    });
                }
            }
            (Err(e), true) => rec.fail(1, || problem(&shown, "success", format!("error {e}"))),
            // Seed 003: "Returns an error" for each of the mismatches.
            (Ok(()), false) => {
                rec.fail(1, || problem(&shown, "an error (seed 003: \"Returns an error\")", "success".into()))
            }
            // The error kind is free (the seed names none); the destination must be untouched.
            (Err(_), false) if out.to_bits() != before => rec.fail(1, || {
                problem(
                    &shown,
                    "an error that leaves out as it was (opspec requires a refused call to change nothing)",
                    format!("an error, with out changed to the bits {:x?}", out.to_bits()),
                )
            }),
            (Err(_), false) => {}
        }
    }
    rec.finish("scenarios");
    Ok(())
}

/// The bits of a small integer value in format `f`.
fn small(f: Format, v: u32) -> u64 {
    f.from_f64_exact(f64::from(v)).unwrap_or_default()
}
