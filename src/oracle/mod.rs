//! The reference: arbitrary-precision arithmetic (MPFR through `rug`) rounded exactly once to
//! each format.
//!
//! Values go in and come out as raw bits read through [`Format`](crate::bits::format::Format). The
//! oracle shares no code with any adapter: it never uses an adapter crate or `half`. Only
//! [`native`] uses host float arithmetic, where its documentation proves the result exact and
//! its tests compare it with MPFR.
//!
//! - [`rounding`]: the bridge between bits and MPFR values: exact decoding, and the single
//!   rounding (precision, subnormals, overflow) back to bits.
//! - [`arith`]: the IEEE 754 basic operations and fused multiply-add.
//! - [`functions`]: pow, atan2, hypot and logaddexp, rounded once and at high precision.
//! - [`unary`]: the array API's unary functions, rounded once and at high precision.
//! - [`clip`]: `clip(x, min, max)`, by exact comparisons.
//! - [`complex`]: complex add, subtract, multiply and divide by exact component arithmetic,
//!   `abs` and `sign` at high precision.
//! - [`exact`]: results fixed without approximation (maximum, copysign, comparisons, ...).
//! - [`integer`]: exact integer results, before a contract's overflow rule.
//! - [`ops`]: the registry: for each operation its float reference, exact integer result and
//!   high-precision value, looked up by the typed operation.
//! - [`scatter`]: scatter-add, accumulated exactly, with the bound for order-dependent sums.
//! - [`native`]: the same correctly rounded and exact results for the basic operations in
//!   f16, bf16 and f32 from host f64 arithmetic and a narrowing of our own, about a hundred
//!   times faster; [`fpenv`] checks the FP control state it relies on.
//! - [`fast`]: the same for the functions MPFR evaluates (CORE-MATH's correctly rounded
//!   functions, and f64 arithmetic narrowed once), with their f64 value for ULP errors.
//! - [`ties`]: the roundTiesToAway result where an exact result is a tie.
//! - [`ulp`]: distance of an actual result from a high-precision reference, in ULPs.
//! - [`broadcast`]: NumPy broadcasting and the named-axis rules, as pure functions of shapes.

pub mod arith;
pub mod broadcast;
pub mod clip;
pub mod complex;
pub mod exact;
pub mod fast;
pub mod floor_division;
pub mod fpenv;
pub mod functions;
pub mod fused_readings;
pub mod integer;
pub mod native;
pub mod ops;
pub mod rounding;
pub mod scatter;
pub mod ties;
pub mod ulp;
pub mod unary;

#[cfg(test)]
mod differential;

pub use arith::{add, divide, fused_add_mul, fused_mul_add, multiply, subtract};
pub use exact::{compare, copysign, floor_divide, maximum, minimum, nextafter, remainder};
pub use functions::{atan2, hypot, logaddexp, pow};
pub use ops::high_precision;
pub use rounding::{decode, round, round_exact};
pub use ulp::{ulp_error, ulp_error_f64};

use opspec_adapter::OpKind;
use serde::{Deserialize, Serialize};

use crate::bits::format::Format;

/// The oracle's result of `op` on `inputs`: correctly rounded for arithmetic and the
/// approximate functions, exact for the rest, and `0`/`1` for comparisons. The native or the
/// fast reference computes it where it covers the operation and format (after checking this
/// thread's FP control state, which an in-process adapter may have changed), MPFR elsewhere
/// and wherever the fast reference cannot prove its result.
pub fn reference(op: OpKind, f: Format, inputs: &[u64]) -> Result<u64, String> {
    if native::covers(op, f) || fast::covers(op, f) {
        fpenv::check()?;
        if let Some(bits) = native::reference(op, f, inputs).or_else(|| fast::reference(op, f, inputs)) {
            return Ok(bits);
        }
    }
    ops::reference(op, f, inputs).ok_or_else(|| format!("the oracle has no reference for {op} yet"))
}

/// Which reference computed a check's expected results (the `reference` field of a result in
/// `results.jsonl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceKind {
    /// [`native`]: host f64 arithmetic and our narrowing.
    Native,
    /// [`fast`]: CORE-MATH, or f64 arithmetic narrowed once; MPFR for the 16-bit results it
    /// cannot prove.
    CoreMath,
    /// MPFR through `rug`.
    Mpfr,
}

impl ReferenceKind {
    /// The reference the run uses for `op` in `f`.
    pub fn of(op: OpKind, f: Format) -> ReferenceKind {
        if native::covers(op, f) {
            ReferenceKind::Native
        } else if fast::covers(op, f) {
            ReferenceKind::CoreMath
        } else {
            ReferenceKind::Mpfr
        }
    }
}
