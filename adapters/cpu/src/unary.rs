//! Element-wise unary operations on floats, one scalar at a time (large operands split across
//! threads: [`apply`]).
//!
//! f32 and f64 compute natively: the rounding functions, `abs`, `sqrt`, `x * x` and `1 / x`
//! are exact or correctly rounded by IEEE 754; the transcendental functions are the C math
//! library's (glibc on Linux), through Rust's std where std calls it and directly for
//! `acosh`, `asinh` and `atanh`: std computes those with its own formulas (`ln(x + sqrt(x² -
//! 1))` and the like), which opspec measured overflowing to infinity above about 1.3e154 (f64)
//! and off by up to 10^14 ulp next to 1 and 0. f16 and bf16 compute `sqrt`, `x * x` and `1 / x` in
//! f32 and round once (f32 has more than 2p+2 bits, so the double rounding is innocuous), round
//! to integers in f32 (exact), and the transcendental functions in f64, rounded to the format
//! (within one step). Sign manipulation and the predicates work on the bits.

use half::{bf16, f16};
use opspec_adapter::{AdapterError, DType, Element, ErrorKind, Tensor, UnaryOp};

// The C math library's inverse hyperbolic functions (C99 7.12.5), which std links on every
// platform it supports; pure functions of their argument.
unsafe extern "C" {
    safe fn acosh(x: f64) -> f64;
    safe fn asinh(x: f64) -> f64;
    pub(crate) safe fn atanh(x: f64) -> f64;
    safe fn acoshf(x: f32) -> f32;
    safe fn asinhf(x: f32) -> f32;
    safe fn atanhf(x: f32) -> f32;
}

/// A float type the unary kernels compute with.
pub trait UnaryFloat: Element {
    /// Applies `op`; `None` for the predicates (see [`UnaryFloat::predicate`]).
    fn unary(op: UnaryOp, x: Self) -> Option<Self>;
    /// `isfinite`, `isinf`, `isnan`, `signbit`; `None` for the other operations.
    fn predicate(op: UnaryOp, x: Self) -> Option<bool>;
}

/// The predicates on a value's class and sign.
fn classify(op: UnaryOp, nan: bool, infinite: bool, negative: bool) -> Option<bool> {
    match op {
        UnaryOp::Isfinite => Some(!nan && !infinite),
        UnaryOp::Isinf => Some(infinite),
        UnaryOp::Isnan => Some(nan),
        UnaryOp::Signbit => Some(negative),
        _ => None,
    }
}

/// `op(x)` for a native float type: std's functions.
macro_rules! native {
    ($t:ty, $acosh:ident, $asinh:ident, $atanh:ident) => {
        impl UnaryFloat for $t {
            fn unary(op: UnaryOp, x: $t) -> Option<$t> {
                use UnaryOp::*;
                Some(match op {
                    Abs => x.abs(),
                    Negative => -x,
                    // A real x is its own conjugate and its own real component.
                    Positive | Conj | Real => x,
                    // sign(±0) is that zero, sign(NaN) is NaN.
                    Sign if x == 0.0 || x.is_nan() => x,
                    Sign => x.signum(),
                    Ceil => x.ceil(),
                    Floor => x.floor(),
                    Round => x.round_ties_even(),
                    Trunc => x.trunc(),
                    Sqrt => x.sqrt(),
                    Square => x * x,
                    Reciprocal => 1.0 / x,
                    Acos => x.acos(),
                    Acosh => $acosh(x),
                    Asin => x.asin(),
                    Asinh => $asinh(x),
                    Atan => x.atan(),
                    Atanh => $atanh(x),
                    Cos => x.cos(),
                    Cosh => x.cosh(),
                    Exp => x.exp(),
                    Expm1 => x.exp_m1(),
                    Log => x.ln(),
                    Log1p => x.ln_1p(),
                    Log2 => x.log2(),
                    Log10 => x.log10(),
                    Sin => x.sin(),
                    Sinh => x.sinh(),
                    Tan => x.tan(),
                    Tanh => x.tanh(),
                    _ => return None,
                })
            }

            fn predicate(op: UnaryOp, x: $t) -> Option<bool> {
                classify(op, x.is_nan(), x.is_infinite(), x.is_sign_negative())
            }
        }
    };
}
native!(f32, acoshf, asinhf, atanhf);
native!(f64, acosh, asinh, atanh);

/// `op(x)` for f16 and bf16: sign operations on the bits, the exact and correctly rounded
/// ones in f32, the transcendental ones in f64.
macro_rules! half_float {
    ($t:ty) => {
        impl UnaryFloat for $t {
            fn unary(op: UnaryOp, x: $t) -> Option<$t> {
                use UnaryOp::*;
                let bits = x.to_bits();
                Some(match op {
                    Abs => <$t>::from_bits(bits & 0x7fff),
                    Negative => <$t>::from_bits(bits ^ 0x8000),
                    Positive | Conj | Real => x,
                    Sign | Ceil | Floor | Round | Trunc | Sqrt | Square | Reciprocal => {
                        <$t>::from_f32(f32::unary(op, x.to_f32())?)
                    }
                    _ => <$t>::from_f64(f64::unary(op, x.to_f64())?),
                })
            }

            fn predicate(op: UnaryOp, x: $t) -> Option<bool> {
                classify(op, x.is_nan(), x.is_infinite(), x.is_sign_negative())
            }
        }
    };
}
half_float!(f16);
half_float!(bf16);

/// `op` applied to every element of `x` (of float type `T`): a tensor of `T`, or of `bool` for
/// the predicates.
fn map<T: UnaryFloat>(op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
    if op.is_comparison() { apply(op, x, T::predicate) } else { apply(op, x, T::unary) }
}

/// `f(op, v)` for every element `v` of `x`; an error when `f` has no result for `op`. The
/// operand's bytes are read in place (a strided view is copied dense first), in pieces of
/// [`VALUES_PIECE`] elements split across rayon's threads (the exhaustive sweeps call with
/// 2^22 values at a time).
pub(crate) fn apply<T: Element, U: Element>(
    op: UnaryOp,
    x: &Tensor,
    f: impl Fn(UnaryOp, T) -> Option<U> + Sync,
) -> Result<Tensor, AdapterError> {
    if x.dtype() != T::DTYPE {
        let message = format!("{op} on {}: the tensor holds {}", T::DTYPE, x.dtype());
        return Err(AdapterError::new(ErrorKind::DTypeMismatch, message));
    }
    let copy;
    let bytes = match x.contiguous_bytes() {
        Some(bytes) => bytes,
        None => {
            // Always dense: an empty slice would fail `from_bytes`'s size check below.
            copy = x.to_contiguous();
            copy.contiguous_bytes().unwrap_or_default()
        }
    };
    let size = T::DTYPE.size();
    let out = crate::in_pieces::<U>(bytes.len() / size, VALUES_PIECE, size, |piece, out| {
        for x in bytes[piece].chunks_exact(size) {
            f(op, T::read_le(x))?.write_le(out);
        }
        Some(())
    });
    let missing = || AdapterError::unsupported(format!("{op} is not implemented for {}", T::DTYPE));
    Tensor::from_bytes(U::DTYPE, x.shape(), out.ok_or_else(missing)?)
}

/// Elements per piece of work of [`apply`].
const VALUES_PIECE: usize = 1 << 14;

/// `op(x)` element by element, in `x`'s float dtype.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
    match x.dtype() {
        DType::F16 => map::<f16>(op, x),
        DType::BF16 => map::<bf16>(op, x),
        DType::F32 => map::<f32>(op, x),
        DType::F64 => map::<f64>(op, x),
        other => Err(AdapterError::unsupported(format!("{op} is not implemented for {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(op: UnaryOp, values: &[f32]) -> Vec<u32> {
        let x = Tensor::from_slice(values, &[values.len()]).unwrap();
        unary(op, &x).unwrap().to_vec::<f32>().unwrap().into_iter().map(f32::to_bits).collect()
    }

    #[test]
    fn signs_and_rounding() {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(f32s(UnaryOp::Sign, &[-0.0, 0.0, -3.0, 5.0]), bits(&[-0.0, 0.0, -1.0, 1.0]));
        assert_eq!(f32s(UnaryOp::Round, &[2.5, 3.5, -0.5]), bits(&[2.0, 4.0, -0.0]));
        assert_eq!(f32s(UnaryOp::Abs, &[-0.0]), bits(&[0.0]));
        let h = Tensor::from_slice(&[f16::from_f32(-2.0), f16::from_f32(6.25)], &[2]).unwrap();
        let sqrt = unary(UnaryOp::Sqrt, &h).unwrap().to_vec::<f16>().unwrap();
        assert!(sqrt[0].is_nan());
        assert_eq!(sqrt[1], f16::from_f32(2.5));
    }

    #[test]
    fn predicates_return_bools() {
        let x = Tensor::from_slice(&[f64::NAN, -f64::INFINITY, -0.0, 1.0], &[4]).unwrap();
        let get = |op| unary(op, &x).unwrap().to_vec::<bool>().unwrap();
        assert_eq!(get(UnaryOp::Isnan), [true, false, false, false]);
        assert_eq!(get(UnaryOp::Isinf), [false, true, false, false]);
        assert_eq!(get(UnaryOp::Isfinite), [false, false, true, true]);
        assert_eq!(get(UnaryOp::Signbit), [false, true, true, false]);
    }
}
