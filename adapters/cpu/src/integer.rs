//! Element-wise operations on integers and bools: wrapping arithmetic, Python's floor division
//! and remainder, the bitwise and logical functions, and this adapter's choices where
//! contracts leave results open: `x // 0` and `x % 0` give 0, a negative exponent gives the
//! truncated `1 / x^n` (0 unless `x` is 1 or -1), `abs` and `negative` of the most negative
//! value wrap to itself, and a negative shift count gives 0.

use opspec_adapter::{AdapterError, BinaryOp, DType, Element, Tensor, UnaryOp};

use crate::unary::apply;

/// An integer type the CPU adapter computes with.
pub trait CpuInt: Element + Ord {
    /// Applies `op`; comparisons and the float-only operations return `None`.
    fn binary(op: BinaryOp, x: Self, y: Self) -> Option<Self>;
    /// Applies `op`; the predicates and the float-only operations return `None`.
    fn unary(op: UnaryOp, x: Self) -> Option<Self>;
}

macro_rules! cpu_int {
    ($($t:ty),*) => {$(
        impl CpuInt for $t {
            #[allow(unused_comparisons)]
            fn unary(op: UnaryOp, x: $t) -> Option<$t> {
                Some(match op {
                    UnaryOp::Abs if x < 0 => x.wrapping_neg(),
                    UnaryOp::Negative => x.wrapping_neg(),
                    UnaryOp::Abs
                    | UnaryOp::Positive
                    | UnaryOp::Conj
                    | UnaryOp::Real
                    | UnaryOp::Ceil
                    | UnaryOp::Floor
                    | UnaryOp::Round
                    | UnaryOp::Trunc => x,
                    UnaryOp::Sign if x < 0 => (0 as $t).wrapping_sub(1),
                    UnaryOp::Sign => <$t>::from(x != 0),
                    UnaryOp::Square => x.wrapping_mul(x),
                    UnaryOp::BitwiseInvert => !x,
                    _ => return None,
                })
            }

            fn binary(op: BinaryOp, x: $t, y: $t) -> Option<$t> {
                const BITS: u32 = <$t>::BITS;
                // A count past the width shifts every bit out; a negative one gives 0.
                #[allow(unused_comparisons)]
                let count = if y < 0 { None } else { Some(u32::try_from(y).unwrap_or(BITS).min(BITS)) };
                Some(match op {
                    BinaryOp::BitwiseAnd => x & y,
                    BinaryOp::BitwiseOr => x | y,
                    BinaryOp::BitwiseXor => x ^ y,
                    BinaryOp::BitwiseLeftShift => match count {
                        Some(s) if s < BITS => x << s,
                        _ => 0,
                    },
                    BinaryOp::BitwiseRightShift => match count {
                        Some(s) if s < BITS => x >> s,
                        // Every bit shifted out: the sign is left, 0 or -1.
                        #[allow(unused_comparisons)]
                        Some(_) if x < 0 => !0,
                        _ => 0,
                    },
                    BinaryOp::Add => x.wrapping_add(y),
                    BinaryOp::Subtract => x.wrapping_sub(y),
                    BinaryOp::Multiply => x.wrapping_mul(y),
                    BinaryOp::Maximum => x.max(y),
                    BinaryOp::Minimum => x.min(y),
                    BinaryOp::FloorDivide if y == 0 => 0,
                    BinaryOp::FloorDivide => {
                        let q = x.wrapping_div(y);
                        #[allow(unused_comparisons)]
                        let signs_differ = (x < 0) != (y < 0);
                        if signs_differ && x.wrapping_rem(y) != 0 { q.wrapping_sub(1) } else { q }
                    }
                    BinaryOp::Remainder if y == 0 => 0,
                    BinaryOp::Remainder => {
                        let r = x.wrapping_rem(y);
                        #[allow(unused_comparisons)]
                        let signs_differ = (r < 0) != (y < 0);
                        if r != 0 && signs_differ { r.wrapping_add(y) } else { r }
                    }
                    BinaryOp::Pow => power(x, y),
                    _ => return None,
                })
            }
        }

        impl Power for $t {
            const ZERO: $t = 0;
            const ONE: $t = 1;
            fn mul(self, other: $t) -> $t {
                self.wrapping_mul(other)
            }
            #[allow(unused_comparisons)]
            fn exponent(self) -> Option<u64> {
                (self >= 0).then_some(self as u64)
            }
            fn is_minus_one(self) -> bool {
                #[allow(unused_comparisons)]
                let negative = self < 0;
                negative && self.wrapping_add(1) == 0
            }
            fn is_odd(self) -> bool {
                self & 1 == 1
            }
        }
    )*};
}

/// What wrapping exponentiation needs of an integer type.
trait Power: Copy + PartialEq {
    const ZERO: Self;
    const ONE: Self;
    fn mul(self, other: Self) -> Self;
    /// The value as an exponent, or `None` when negative.
    fn exponent(self) -> Option<u64>;
    fn is_minus_one(self) -> bool;
    fn is_odd(self) -> bool;
}

/// `x^y` wrapping, by squaring; a negative `y` gives the truncated `1 / x^|y|`.
fn power<T: Power>(x: T, y: T) -> T {
    let Some(mut e) = y.exponent() else {
        return if x == T::ONE {
            T::ONE
        } else if x.is_minus_one() {
            if y.is_odd() { x } else { T::ONE }
        } else {
            T::ZERO
        };
    };
    let (mut base, mut acc) = (x, T::ONE);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.mul(base);
        }
        base = base.mul(base);
        e >>= 1;
    }
    acc
}

cpu_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// `op(x, y)` on bools: the logical functions and the bitwise ones (which are the same on one
/// bit); `None` for every other operation.
pub fn bool_binary(op: BinaryOp, x: bool, y: bool) -> Option<bool> {
    match op {
        BinaryOp::BitwiseAnd | BinaryOp::LogicalAnd => Some(x & y),
        BinaryOp::BitwiseOr | BinaryOp::LogicalOr => Some(x | y),
        BinaryOp::BitwiseXor | BinaryOp::LogicalXor => Some(x ^ y),
        _ => None,
    }
}

/// `op(x)` on a bool: `logical_not` and `bitwise_invert`; `None` for every other operation.
fn bool_unary(op: UnaryOp, x: bool) -> Option<bool> {
    matches!(op, UnaryOp::LogicalNot | UnaryOp::BitwiseInvert).then_some(!x)
}

/// The predicates on an integer, which is always finite: `isfinite` true, `isinf` and `isnan`
/// false; `None` for every other operation.
fn predicate(op: UnaryOp) -> Option<bool> {
    match op {
        UnaryOp::Isfinite => Some(true),
        UnaryOp::Isinf | UnaryOp::Isnan => Some(false),
        _ => None,
    }
}

/// `op(x)` element by element for an integer or bool `x`.
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
    match x.dtype() {
        DType::I8 => map::<i8>(op, x),
        DType::I16 => map::<i16>(op, x),
        DType::I32 => map::<i32>(op, x),
        DType::I64 => map::<i64>(op, x),
        DType::U8 => map::<u8>(op, x),
        DType::U16 => map::<u16>(op, x),
        DType::U32 => map::<u32>(op, x),
        DType::U64 => map::<u64>(op, x),
        DType::Bool => apply(op, x, bool_unary),
        other => Err(AdapterError::unsupported(format!("{op} is not implemented for {other}"))),
    }
}

/// `op` on every element of an integer tensor: a tensor of `T`, or of `bool` for the
/// predicates.
fn map<T: CpuInt>(op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
    if op.is_comparison() { apply(op, x, |op, _: T| predicate(op)) } else { apply(op, x, T::unary) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_division_and_wrapping() {
        assert_eq!(i32::binary(BinaryOp::FloorDivide, -7, 2), Some(-4));
        assert_eq!(i32::binary(BinaryOp::Remainder, -7, 2), Some(1));
        assert_eq!(i32::binary(BinaryOp::Remainder, 7, -2), Some(-1));
        assert_eq!(i8::binary(BinaryOp::FloorDivide, -128, -1), Some(-128), "wraps");
        assert_eq!(u8::binary(BinaryOp::Add, 250, 10), Some(4));
        assert_eq!(i64::binary(BinaryOp::Pow, 3, 4), Some(81));
        assert_eq!(i8::binary(BinaryOp::Pow, 2, 7), Some(-128));
        assert_eq!(i8::binary(BinaryOp::Pow, -1, -3), Some(-1));
        assert_eq!(i8::binary(BinaryOp::Pow, 2, -1), Some(0));
        assert_eq!(u16::binary(BinaryOp::FloorDivide, 5, 0), Some(0));
        assert_eq!(u32::binary(BinaryOp::Atan2, 1, 1), None);
    }

    #[test]
    fn shifts_and_bits() {
        assert_eq!(i8::binary(BinaryOp::BitwiseLeftShift, 1, 7), Some(-128));
        assert_eq!(i8::binary(BinaryOp::BitwiseLeftShift, 1, 8), Some(0));
        assert_eq!(u64::binary(BinaryOp::BitwiseLeftShift, 1, u64::MAX), Some(0));
        assert_eq!(i8::binary(BinaryOp::BitwiseRightShift, -7, 1), Some(-4), "floor(-7 / 2)");
        assert_eq!(i8::binary(BinaryOp::BitwiseRightShift, -7, 8), Some(-1));
        assert_eq!(i16::binary(BinaryOp::BitwiseRightShift, 300, 100), Some(0));
        assert_eq!(u8::binary(BinaryOp::BitwiseRightShift, 200, 8), Some(0));
        assert_eq!(i32::binary(BinaryOp::BitwiseLeftShift, 5, -1), Some(0), "this adapter's choice");
        assert_eq!(u8::binary(BinaryOp::BitwiseXor, 0b1100, 0b1010), Some(0b0110));
        assert_eq!(u8::unary(UnaryOp::BitwiseInvert, 5), Some(250));
        assert_eq!(i8::unary(UnaryOp::BitwiseInvert, 5), Some(-6));
    }

    #[test]
    fn integer_unary_functions() {
        assert_eq!(i8::unary(UnaryOp::Abs, -128), Some(-128), "wraps");
        assert_eq!(i8::unary(UnaryOp::Abs, -5), Some(5));
        assert_eq!(u8::unary(UnaryOp::Negative, 1), Some(255));
        assert_eq!(i16::unary(UnaryOp::Sign, -300), Some(-1));
        assert_eq!(u16::unary(UnaryOp::Sign, 300), Some(1));
        assert_eq!(u16::unary(UnaryOp::Sign, 0), Some(0));
        assert_eq!(i32::unary(UnaryOp::Square, -7), Some(49));
        assert_eq!(i64::unary(UnaryOp::Round, -9), Some(-9));
        assert_eq!(i64::unary(UnaryOp::Sqrt, 4), None);
        let x = Tensor::from_slice(&[3i32, -4], &[2]).unwrap();
        assert_eq!(unary(UnaryOp::Isnan, &x).unwrap().to_vec::<bool>().unwrap(), [false, false]);
        assert_eq!(unary(UnaryOp::Isfinite, &x).unwrap().to_vec::<bool>().unwrap(), [true, true]);
    }

    #[test]
    fn bool_functions() {
        let x = Tensor::from_slice(&[true, false], &[2]).unwrap();
        assert_eq!(unary(UnaryOp::LogicalNot, &x).unwrap().to_vec::<bool>().unwrap(), [false, true]);
        assert!(unary(UnaryOp::Abs, &x).is_err());
        assert_eq!(bool_binary(BinaryOp::LogicalXor, true, true), Some(false));
        assert_eq!(bool_binary(BinaryOp::BitwiseOr, false, true), Some(true));
        assert_eq!(bool_binary(BinaryOp::Add, true, true), None);
    }
}
