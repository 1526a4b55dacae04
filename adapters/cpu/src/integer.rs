//! Element-wise binary operations on integers: wrapping arithmetic, Python's floor division
//! and remainder, and this adapter's choices where contracts leave results open: `x // 0` and
//! `x % 0` give 0, a negative exponent gives the truncated `1 / x^n` (0 unless `x` is 1 or -1).

use opspec_adapter::{BinaryOp, Element};

/// An integer type the CPU adapter computes with.
pub trait CpuInt: Element + Ord {
    /// Applies `op`; comparisons and the float-only operations return `None`.
    fn binary(op: BinaryOp, x: Self, y: Self) -> Option<Self>;
}

macro_rules! cpu_int {
    ($($t:ty),*) => {$(
        impl CpuInt for $t {
            fn binary(op: BinaryOp, x: $t, y: $t) -> Option<$t> {
                Some(match op {
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
}
