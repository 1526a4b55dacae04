//! The rules of a destination-passing operation (`add_into`): the result lands in a fitting
//! caller-owned `out`, and a mismatched dtype, a mismatched shape or a non-contiguous `out` is
//! an error that leaves `out` as it was.

use std::sync::Arc;

use opspec_adapter::{Adapter, DType, OpKind, Tensor};

use super::RunOptions;
use super::call::guarded;
use super::result::{CheckResult, Status};
use crate::format::Format;
use crate::spec::LoadedTable;

/// The `a` and `b` shapes every scenario uses; they broadcast to `[2, 3]`.
const A_SHAPE: [usize; 2] = [2, 3];
const B_SHAPE: [usize; 1] = [3];

/// Runs the rules of `table` (a `BinaryInto` table) in `dtype` against `adapter`.
pub fn check_into_rules(
    table: &LoadedTable,
    dtype: DType,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
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
    let scenarios: [(&str, Tensor, bool); 5] = [
        ("a fitting contiguous out of shape [2, 3]", filled(dtype, &A_SHAPE)?, true),
        ("an out of another dtype", filled(other, &A_SHAPE)?, false),
        ("an out of shape [3, 2]", filled(dtype, &[3, 2])?, false),
        ("an out of shape [1, 3] (a's and b's broadcast shape is [2, 3])", filled(dtype, &[1, 3])?, false),
        ("a non-contiguous out (a transposed view)", transposed, false),
    ];
    let mut problems = Vec::new();
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
                problems.push(format!("{shown}: {panic}"));
                continue;
            }
        };
        match (outcome, fits) {
            (Ok(()), true) => {
                let expected: Vec<u64> =
                    (0..6).map(|i| crate::oracle::add(f, a_bits[i], b_bits[i % 3])).collect();
                if out.shape() != A_SHAPE || out.dtype() != dtype || out.to_bits() != expected {
                    problems.push(format!(
                        "{shown}: out holds the bits {:x?} (shape {:?}), expected {expected:x?}",
                        out.to_bits(),
                        out.shape()
                    ));
                }
            }
            (Err(e), true) => problems.push(format!("{shown} failed: {e}")),
            (Ok(()), false) => {
                problems.push(format!("{shown} succeeded; seed 003 says it \"Returns an error\""))
            }
            // The error kind is free (the seed names none); the destination must be untouched.
            (Err(_), false) if out.to_bits() != before => problems.push(format!(
                "{shown}: the refused call changed out (opspec requires a failed call to leave it as it was)"
            )),
            (Err(_), false) => {}
        }
    }
    result.inputs = 5;
    result.failed_inputs = problems.len();
    if !problems.is_empty() {
        result.status = Status::Fail;
        result.message = problems.join("; ");
    }
    Ok(())
}

/// The bits of a small integer value in format `f`.
fn small(f: Format, v: u32) -> u64 {
    f.from_f64_exact(f64::from(v)).unwrap_or_default()
}
