//! The fast reference for the functions MPFR evaluates: the unary functions of the array API
//! and atan2, hypot and pow, correctly rounded in f16, bf16 and f32 at a few nanoseconds per
//! result instead of about a microsecond, and their value in f64 for measuring ULP errors.
//! MPFR stays the reference of record: every result here is MPFR's bit for bit (the tests
//! below: every 16-bit input, and sampled f32 inputs; `opspec oracle-agreement` for more),
//! and where this module cannot prove its result it answers `None` and the caller asks MPFR.
//!
//! # Where the results come from
//!
//! Transcendental functions (acos … tanh, atan2, hypot, pow): CORE-MATH (Sibidanov,
//! Zimmermann et al., through the `core-math` crate), whose binary32 functions are correctly
//! rounded to nearest for every input (their proofs and exhaustive checks:
//! <https://core-math.gitlabpages.inria.fr/>). An f32 operand is its own argument; an f16 or
//! bf16 operand is exactly an f32 value, and its result is the f32 result rounded once more
//! to the 16-bit format, which is the correctly rounded 16-bit result unless the f32 result
//! lies exactly on a rounding boundary of the 16-bit format (a midpoint between two of its
//! values, or its overflow threshold), as the proof below shows; those inputs are left to MPFR.
//!
//! The other functions MPFR evaluates — sqrt, reciprocal, square, ceil, floor, round, trunc —
//! are computed in f64 and narrowed once ([`native::narrow`]): rounding to an integer and
//! squaring a value of at most 24 significant bits are exact in f64, and sqrt and division
//! rounded to 53 bits, then to p ≤ 24 bits, give the correctly rounded p-bit result because
//! 53 ≥ 2p + 2 (Figueroa 1995; Roux 2014, as for [`native`]).
//!
//! # Why a 16-bit result from the f32 result is right
//!
//! Let `y` be the exact value, `r` its correct rounding to f32, and `b` any rounding boundary
//! of the 16-bit format. Every such `b` is an f32 value (at most 12 significant bits within
//! f32's range, and f16's and bf16's subnormal quanta are multiples of f32's), so rounding to
//! nearest is monotonic across it: `y < b` gives `r ≤ b` and `y > b` gives `r ≥ b`. Where
//! `r ≠ b` for every `b`, `r` and `y` lie strictly between the same two boundaries and round
//! to the same 16-bit value. Whether `r` is a boundary is found by narrowing it once as if
//! the exact value were just above `r` and once as if just below: the two agree unless it is.
//! Overflow of `r` to infinity implies the 16-bit result overflows too (f32's threshold is
//! above bf16's and f16's).
//!
//! # The f64 value
//!
//! [`value`] gives CORE-MATH's correctly rounded binary64 result for the same operand (an
//! error below 2^-53 of the value, about 2^-29 ULP of f32), which is how ULP errors are
//! measured here; where it is not finite or below f64's normal range, `None` and MPFR.
//!
//! The CORE-MATH functions assume round to nearest (the native reference's FP state check,
//! [`super::fpenv::check`], covers this module too).

use std::cmp::Ordering;

use opspec_adapter::{BinaryOp, OpKind, UnaryOp};

use super::native::{narrow, narrow_toward, to_f64};
use crate::bits::format::Format;

/// Whether this module computes `op` in `f` (on a target whose FP control state can be
/// checked).
pub fn covers(op: OpKind, f: Format) -> bool {
    let format = matches!(f, Format::F16 | Format::BF16 | Format::F32);
    super::fpenv::READABLE
        && format
        && match op {
            OpKind::Unary(u) => unary_f32(u).is_some() || host_f64(u).is_some(),
            OpKind::Binary(b) | OpKind::BinaryInto(b) => binary_f32(b).is_some(),
            _ => false,
        }
}

/// The correctly rounded result of `op` on `inputs` in `f`, or `None` where [`covers`] is
/// false or a 16-bit result from the f32 one cannot be proven (then MPFR's is the result).
/// The caller checks the thread's FP state ([`super::fpenv::check`]) first.
pub fn reference(op: OpKind, f: Format, inputs: &[u64]) -> Option<u64> {
    if !covers(op, f) {
        return None;
    }
    match op {
        OpKind::Unary(u) => UnaryReference::new(u, f)?.at(inputs[0]),
        // A NaN operand is MPFR's: C99 gives pow(NaN, ±0) = 1 and pow(1, NaN) = 1, which
        // CORE-MATH does not for a signaling NaN and MPFR (without signaling NaNs) does.
        OpKind::Binary(_) | OpKind::BinaryInto(_) if inputs.iter().any(|&x| f.is_nan(x)) => None,
        OpKind::Binary(b) | OpKind::BinaryInto(b) => {
            let (x, y) = (to_f64(f, inputs[0]) as f32, to_f64(f, inputs[1]) as f32);
            from_f32(f, binary_f32(b)?(x, y))
        }
        _ => None,
    }
}

/// [`reference`] of one unary operation in one format, its function found once (a sweep asks
/// for every value of a format).
#[derive(Clone, Copy)]
pub struct UnaryReference {
    f: Format,
    function: UnaryFunction,
}

#[derive(Clone, Copy)]
enum UnaryFunction {
    CoreMath(fn(f32) -> f32),
    Host(fn(f64) -> f64),
}

impl UnaryReference {
    /// The reference of `op` in `f`, where [`covers`] is true.
    pub fn new(op: UnaryOp, f: Format) -> Option<UnaryReference> {
        if !covers(OpKind::Unary(op), f) {
            return None;
        }
        let function = match unary_f32(op) {
            Some(function) => UnaryFunction::CoreMath(function),
            None => UnaryFunction::Host(host_f64(op)?),
        };
        Some(UnaryReference { f, function })
    }

    /// The correctly rounded result at `x`, or `None` where it is left to MPFR.
    #[inline]
    pub fn at(&self, x: u64) -> Option<u64> {
        let v = to_f64(self.f, x);
        match self.function {
            UnaryFunction::CoreMath(function) => from_f32(self.f, function(v as f32)),
            UnaryFunction::Host(function) => Some(narrow(self.f, function(v))),
        }
    }
}

/// The correctly rounded result in `f` from the correctly rounded f32 result `wide` (see the
/// module documentation), or `None` where `wide` is a rounding boundary of a 16-bit `f`.
#[inline]
fn from_f32(f: Format, wide: f32) -> Option<u64> {
    if f.bits == 32 {
        return Some(if wide.is_nan() { f.quiet_nan() } else { u64::from(wide.to_bits()) });
    }
    let wide = f64::from(wide);
    let (above, below) = (narrow_toward(f, wide, Ordering::Greater), narrow_toward(f, wide, Ordering::Less));
    (above == below).then_some(above)
}

/// The exact result of `op` on `inputs` (operands of `f`) correctly rounded to f64, for
/// measuring ULP errors; `None` where [`covers`] is false or the value is not a finite f64 of
/// the normal range (a zero may be an underflow, as `exp(-2^24)`'s is).
pub fn value(op: OpKind, f: Format, inputs: &[u64]) -> Option<f64> {
    if !covers(op, f) {
        return None;
    }
    let x = to_f64(f, inputs[0]);
    let v = match op {
        OpKind::Unary(u) => match unary_f64(u) {
            Some(function) => function(x),
            None => host_f64(u)?(x),
        },
        OpKind::Binary(b) | OpKind::BinaryInto(b) => binary_f64(b)?(x, to_f64(f, inputs[1])),
        _ => return None,
    };
    (v.is_finite() && v.abs() >= f64::MIN_POSITIVE).then_some(v)
}

/// The CORE-MATH binary32 function of a transcendental unary operation.
fn unary_f32(op: UnaryOp) -> Option<fn(f32) -> f32> {
    use UnaryOp::*;
    use core_math as cm;
    Some(match op {
        Acos => cm::acosf,
        Acosh => cm::acoshf,
        Asin => cm::asinf,
        Asinh => cm::asinhf,
        Atan => cm::atanf,
        Atanh => cm::atanhf,
        Cos => cm::cosf,
        Cosh => cm::coshf,
        Exp => cm::expf,
        Expm1 => cm::expm1f,
        Log => cm::logf,
        Log1p => cm::log1pf,
        Log2 => cm::log2f,
        Log10 => cm::log10f,
        Sin => cm::sinf,
        Sinh => cm::sinhf,
        Tan => cm::tanf,
        Tanh => cm::tanhf,
        _ => return None,
    })
}

/// The CORE-MATH binary64 function of a transcendental unary operation.
fn unary_f64(op: UnaryOp) -> Option<fn(f64) -> f64> {
    use UnaryOp::*;
    use core_math as cm;
    Some(match op {
        Acos => cm::acos,
        Acosh => cm::acosh,
        Asin => cm::asin,
        Asinh => cm::asinh,
        Atan => cm::atan,
        Atanh => cm::atanh,
        Cos => cm::cos,
        Cosh => cm::cosh,
        Exp => cm::exp,
        Expm1 => cm::expm1,
        Log => cm::log,
        Log1p => cm::log1p,
        Log2 => cm::log2,
        Log10 => cm::log10,
        Sin => cm::sin,
        Sinh => cm::sinh,
        Tan => cm::tan,
        Tanh => cm::tanh,
        _ => return None,
    })
}

/// The unary operations computed in f64 and narrowed once (see the module documentation);
/// their f64 result is exact or correctly rounded.
fn host_f64(op: UnaryOp) -> Option<fn(f64) -> f64> {
    use UnaryOp::*;
    Some(match op {
        Sqrt => f64::sqrt,
        Reciprocal => |x| 1.0 / x,
        Square => |x| x * x,
        Ceil => f64::ceil,
        Floor => f64::floor,
        Round => f64::round_ties_even,
        Trunc => f64::trunc,
        _ => return None,
    })
}

/// The CORE-MATH binary32 function of atan2, hypot or pow.
fn binary_f32(op: BinaryOp) -> Option<fn(f32, f32) -> f32> {
    Some(match op {
        BinaryOp::Atan2 => core_math::atan2f,
        BinaryOp::Hypot => core_math::hypotf,
        BinaryOp::Pow => core_math::powf,
        _ => return None,
    })
}

/// The CORE-MATH binary64 function of atan2, hypot or pow.
fn binary_f64(op: BinaryOp) -> Option<fn(f64, f64) -> f64> {
    Some(match op {
        BinaryOp::Atan2 => core_math::atan2,
        BinaryOp::Hypot => core_math::hypot,
        BinaryOp::Pow => core_math::pow,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Generator, edge_values, grid_values};
    use crate::oracle::ops;
    use rug::Float;

    const SIXTEEN: [Format; 2] = [Format::F16, Format::BF16];

    fn unary_ops() -> impl Iterator<Item = OpKind> {
        UnaryOp::ALL.into_iter().map(OpKind::Unary).filter(|&op| covers(op, Format::F32))
    }

    fn binary_ops() -> impl Iterator<Item = OpKind> {
        BinaryOp::ALL.into_iter().map(OpKind::Binary).filter(|&op| covers(op, Format::F32))
    }

    /// `reference` equals MPFR's result on `case` (a `None` is MPFR's by definition), and the
    /// f64 value rounds to it where it is finite.
    fn agrees(op: OpKind, f: Format, case: &[u64]) -> bool {
        let mpfr = ops::reference(op, f, case).unwrap();
        let fast = reference(op, f, case);
        let same = |a: u64, b: u64| a == b || f.is_nan(a) && f.is_nan(b);
        let hex: Vec<String> = case.iter().map(|x| format!("{x:#x}")).collect();
        if let Some(fast) = fast {
            assert!(same(fast, mpfr), "{op} {} ({}): fast {fast:#x}, MPFR {mpfr:#x}", f.name, hex.join(", "));
        }
        if let (Some(v), Some(exact)) = (value(op, f, case), ops::high_precision(op, f, case)) {
            // Correctly rounded to f64: within 2^-53 of the exact value, relatively.
            let error = if exact.is_zero() {
                v.abs()
            } else {
                ((Float::with_val(200, v) - &exact) / &exact).abs().to_f64()
            };
            assert!(
                error <= 2f64.powi(-53),
                "{op} {} ({}): value {v:e} is {error} off",
                f.name,
                hex.join(", ")
            );
        }
        fast.is_none()
    }

    #[test]
    fn covers_the_functions_mpfr_evaluates_in_f32_and_narrower() {
        let exp = OpKind::Unary(UnaryOp::Exp);
        assert!(covers(exp, Format::F32) && covers(exp, Format::BF16) && !covers(exp, Format::F64));
        assert!(covers(OpKind::Binary(BinaryOp::Pow), Format::F16));
        assert!(!covers(OpKind::Binary(BinaryOp::Logaddexp), Format::F32), "no CORE-MATH logaddexp");
        assert!(!covers(OpKind::Unary(UnaryOp::Abs), Format::F32), "exact on the bits already");
        assert_eq!(unary_ops().count(), 25);
    }

    /// Every f16 and bf16 input of every unary function: the fast result is MPFR's, and the
    /// inputs left to MPFR are few.
    #[test]
    fn agrees_with_mpfr_on_every_sixteen_bit_input() {
        for f in SIXTEEN {
            for op in unary_ops() {
                let left: usize = (0..1u64 << 16).map(|x| usize::from(agrees(op, f, &[x]))).sum();
                assert!(left < 64, "{op} {}: {left} inputs left to MPFR", f.name);
            }
        }
    }

    /// Sampled f32 inputs: the format's edges, the dense grid, and random bit patterns.
    #[test]
    fn agrees_with_mpfr_on_sampled_f32_inputs() {
        let f = Format::F32;
        let mut g = Generator::new(11, "fast reference f32");
        let random: Vec<u64> = (0..4000).map(|_| g.bits() & f.all_mask()).collect();
        let inputs: Vec<u64> = edge_values(f).into_iter().chain(grid_values(f)).chain(random).collect();
        for op in unary_ops() {
            for &x in &inputs {
                assert!(!agrees(op, f, &[x]), "{op}: an f32 result is never left to MPFR");
            }
        }
    }

    /// The binary functions on every pair of edge values and every edge against the grid, in
    /// each format, and random pairs.
    #[test]
    fn binary_functions_agree_with_mpfr() {
        for f in [Format::F16, Format::BF16, Format::F32] {
            let edges = edge_values(f);
            let grid = grid_values(f);
            let mut g = Generator::new(13, &format!("fast reference pairs {}", f.name));
            let random: Vec<[u64; 2]> =
                (0..2000).map(|_| [g.bits() & f.all_mask(), g.bits() & f.all_mask()]).collect();
            for op in binary_ops() {
                for &a in &edges {
                    for &b in edges.iter().chain(&grid) {
                        agrees(op, f, &[a, b]);
                        agrees(op, f, &[b, a]);
                    }
                }
                for pair in &random {
                    agrees(op, f, pair);
                }
            }
        }
    }

    #[test]
    fn a_sixteen_bit_result_on_a_boundary_is_left_to_mpfr() {
        // sqrt(1 + 2^-10 + ...) aside, the simplest boundary: the f16 midpoint 1 + 2^-11 is an
        // f32 value, so an f32 result equal to it cannot say which way the exact value lies.
        let wide = 1.0 + 2f64.powi(-11);
        let f = Format::F16;
        assert_ne!(narrow_toward(f, wide, Ordering::Greater), narrow_toward(f, wide, Ordering::Less));
        let next = wide + 2f64.powi(-23);
        assert_eq!(narrow_toward(f, next, Ordering::Greater), narrow_toward(f, next, Ordering::Less));
    }
}
