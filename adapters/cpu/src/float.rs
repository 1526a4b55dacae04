//! Element-wise binary operations on floats, one scalar at a time.
//!
//! f32 and f64 compute natively. f16 and bf16 compute in f32 and round once to their format:
//! exact for `+ - × ÷` and the remainder's one addition (f32 has more than 2p+2 bits for
//! both), within one ulp for the approximate functions, and with a directed rounding where the
//! contract asks for one (floor division rounds down). logaddexp computes in double-double
//! for every type: its usual formula cancels next to a zero result.

use half::{bf16, f16};
use opspec_adapter::{BinaryOp, Element};

use crate::double_double;

/// A float type the CPU adapter computes with.
pub trait CpuFloat: Element + PartialOrd {
    /// Applies `op`; comparisons return `None` (they have their own path).
    fn binary(op: BinaryOp, x: Self, y: Self) -> Option<Self>;
}

/// The bit-level and arithmetic operations the generic algorithms need.
trait Native: Copy + PartialOrd + std::ops::Neg<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    fn floor(self) -> Self;
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// The neighbour toward -infinity (for a nonzero finite value).
    fn next_down(self) -> Self;
    fn div(self, y: Self) -> Self;
    fn rem(self, y: Self) -> Self;
    fn add(self, y: Self) -> Self;
    fn mul(self, y: Self) -> Self;
}

macro_rules! native {
    ($t:ty) => {
        impl Native for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn floor(self) -> $t {
                <$t>::floor(self)
            }
            fn mul_add(self, a: $t, b: $t) -> $t {
                <$t>::mul_add(self, a, b)
            }
            fn next_down(self) -> $t {
                if self > 0.0 {
                    <$t>::from_bits(self.to_bits() - 1)
                } else {
                    <$t>::from_bits(self.to_bits() + 1)
                }
            }
            fn div(self, y: $t) -> $t {
                self / y
            }
            fn rem(self, y: $t) -> $t {
                self % y
            }
            fn add(self, y: $t) -> $t {
                self + y
            }
            fn mul(self, y: $t) -> $t {
                self * y
            }
        }
    };
}
native!(f32);
native!(f64);

/// `floor(x / y)` per the array API: the floor of the exact quotient, rounded down to a
/// representable value; an overflowing quotient is an infinity.
///
/// `q = x / y` is rounded to nearest, so `floor(q)` can be one too large when the exact
/// quotient lies just below an integer, and a huge `q` can lie above the exact quotient. The
/// sign of `x - r·y`, computed with one rounding by fma, tells whether `r` overshoots.
fn floor_divide<T: Native>(x: T, y: T) -> T {
    let q = x.div(y);
    if q.is_nan() || q.is_infinite() || q == T::ZERO && (x == T::ZERO || y.is_infinite()) {
        return q;
    }
    let mut r = q.floor();
    let residual = (-r).mul_add(y, x);
    let overshoots = residual != T::ZERO && residual.is_sign_negative() != y.is_sign_negative();
    if overshoots {
        // Past 2^precision every value is an integer and r == q: step to the value below.
        r = if r.add(-T::ONE) == r { r.next_down() } else { r.add(-T::ONE) };
    }
    if r == T::ZERO { T::ZERO } else { r }
}

/// Python's `x % y`: `fmod`, then one addition of `y` when the signs differ; a zero takes
/// `y`'s sign.
fn python_remainder<T: Native>(x: T, y: T) -> T {
    let m = x.rem(y);
    if m.is_nan() {
        return m;
    }
    if m == T::ZERO {
        return if y.is_sign_negative() { -T::ZERO } else { T::ZERO };
    }
    if m.is_sign_negative() != y.is_sign_negative() { m.add(y) } else { m }
}

/// NaN-propagating maximum; between equal values (the two zeros) either may be returned.
fn maximum<T: Native>(x: T, y: T) -> T {
    if x.is_nan() || y < x {
        x
    } else if y.is_nan() || x < y {
        y
    } else {
        x
    }
}

fn minimum<T: Native>(x: T, y: T) -> T {
    if x.is_nan() || y > x {
        x
    } else if y.is_nan() || x > y {
        y
    } else {
        x
    }
}

/// The operations that compute in the type's own precision (`T` is f32 or f64, or f32 on
/// behalf of a 16-bit type whose rounding is applied afterwards).
fn native_binary<T: Native>(
    op: BinaryOp,
    x: T,
    y: T,
    pow: fn(T, T) -> T,
    atan2: fn(T, T) -> T,
    hypot: fn(T, T) -> T,
) -> Option<T> {
    Some(match op {
        BinaryOp::Add => x.add(y),
        BinaryOp::Subtract => x.add(-y),
        BinaryOp::Multiply => x.mul(y),
        BinaryOp::Divide => x.div(y),
        BinaryOp::Pow => pow(x, y),
        BinaryOp::Atan2 => atan2(x, y),
        BinaryOp::Hypot => hypot(x, y),
        BinaryOp::FloorDivide => floor_divide(x, y),
        BinaryOp::Remainder => python_remainder(x, y),
        BinaryOp::Maximum => maximum(x, y),
        BinaryOp::Minimum => minimum(x, y),
        _ => return None,
    })
}

/// `nextafter` and `copysign` on raw bits of a `bits`-wide format whose NaNs `is_nan` tells.
#[inline(always)]
fn bit_op(op: BinaryOp, x: u64, y: u64, bits: u32, is_nan: impl Fn(u64) -> bool) -> Option<u64> {
    let sign = 1u64 << (bits - 1);
    Some(match op {
        BinaryOp::Copysign => (x & !sign) | (y & sign),
        BinaryOp::Nextafter => {
            let (x_nan, y_nan) = (is_nan(x), is_nan(y));
            // Numerically equal: the same bits, or both zeros.
            let equal = x == y || (x | y) & !sign == 0;
            if x_nan || y_nan {
                if x_nan { x } else { y }
            } else if equal {
                y
            } else if x & !sign == 0 {
                1 | (y & sign)
            } else {
                // Toward y is away from zero when y is beyond x on x's side of zero.
                let x_negative = x & sign != 0;
                let y_beyond = if x_negative { signed_less(y, x, sign) } else { signed_less(x, y, sign) };
                if y_beyond { x + 1 } else { x - 1 }
            }
        }
        _ => return None,
    })
}

/// `a < b` for non-NaN sign-magnitude bit patterns.
fn signed_less(a: u64, b: u64, sign: u64) -> bool {
    let key = |v: u64| if v & sign != 0 { -((v & !sign) as i128) } else { v as i128 };
    key(a) < key(b)
}

macro_rules! native_float {
    ($t:ty, $bits:expr, $pow:expr, $atan2:expr) => {
        impl CpuFloat for $t {
            #[inline]
            fn binary(op: BinaryOp, x: $t, y: $t) -> Option<$t> {
                let is_nan = |b: u64| <$t>::from_bits(b as _).is_nan();
                if let Some(b) = bit_op(op, x.to_bits() as u64, y.to_bits() as u64, $bits, is_nan) {
                    return Some(<$t>::from_bits(b as _));
                }
                if op == BinaryOp::Logaddexp {
                    return Some(double_double::logaddexp(x as f64, y as f64) as $t);
                }
                native_binary(op, x, y, $pow, $atan2, <$t>::hypot)
            }
        }
    };
}
native_float!(f32, 32, crate::fast::transcendental::pow_f32, crate::fast::transcendental::atan2_f32);
native_float!(f64, 64, crate::fast::transcendental64::pow_f64, crate::fast::transcendental64::atan2_f64);

/// f16 and bf16: bit operations and comparisons on their own bits, everything else in f32 and
/// rounded once (downward for floor division, to nearest otherwise).
macro_rules! half_float {
    ($t:ty) => {
        impl CpuFloat for $t {
            #[inline]
            fn binary(op: BinaryOp, x: $t, y: $t) -> Option<$t> {
                let is_nan = |b: u64| <$t>::from_bits(b as u16).is_nan();
                if let Some(bits) = bit_op(op, x.to_bits() as u64, y.to_bits() as u64, 16, is_nan) {
                    return Some(<$t>::from_bits(bits as u16));
                }
                let (a, b) = (x.to_f32(), y.to_f32());
                if op == BinaryOp::Logaddexp {
                    return Some(<$t>::from_f64(double_double::logaddexp(a as f64, b as f64)));
                }
                let wide = native_binary(op, a, b, f32::powf, f32::atan2, f32::hypot)?;
                let near = <$t>::from_f32(wide);
                let round_down = op == BinaryOp::FloorDivide && near.is_finite() && near.to_f32() > wide;
                Some(if round_down {
                    <$t>::from_bits(if wide > 0.0 { near.to_bits() - 1 } else { near.to_bits() + 1 })
                } else {
                    near
                })
            }
        }
    };
}
half_float!(f16);
half_float!(bf16);
