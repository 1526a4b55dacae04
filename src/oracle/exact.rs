//! Operations whose result is exactly determined and needs no approximation: maximum and
//! minimum, copysign, nextafter, the comparisons, floor division and Python's remainder.

use std::cmp::Ordering;

use rug::Float;
use rug::float::Round;

use super::arith::evaluate;
use super::rounding::{decode, round};
use crate::bits::format::Format;

/// MPFR's `max`: the larger operand, and the non-NaN one when one is NaN (IEEE 754-2008
/// maxNum). The array API propagates NaN instead; its table says so and wins.
pub fn maximum(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, decode(f, a).max_ref(&decode(f, b)))
}

/// MPFR's `min`, the mirror of [`maximum`].
pub fn minimum(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, decode(f, a).min_ref(&decode(f, b)))
}

/// `|x1|` with the sign bit of `x2` (NaNs keep their payload: this is a bit operation).
pub fn copysign(f: Format, a: u64, b: u64) -> u64 {
    f.abs(a) | (b & f.sign_mask())
}

/// The next representable value after `x1` in the direction of `x2` (`x2` itself when they are
/// equal, so `nextafter(-0, +0) = +0`).
pub fn nextafter(f: Format, a: u64, b: u64) -> u64 {
    if f.is_nan(a) || f.is_nan(b) {
        return f.quiet_nan();
    }
    let (x, y) = (decode(f, a), decode(f, b));
    match x.partial_cmp(&y) {
        Some(Ordering::Equal) | None => b,
        _ if f.is_zero(a) => f.min_subnormal() | (b & f.sign_mask()),
        // Away from zero is one step up in magnitude; toward zero one step down.
        Some(order) => {
            let away = (order == Ordering::Less) != f.is_sign_negative(a);
            if away { a + 1 } else { a - 1 }
        }
    }
}

/// The IEEE comparison of `x1` and `x2` (`None` when either is NaN: every ordered comparison
/// is false, and `not_equal` is true).
pub fn compare(f: Format, a: u64, b: u64) -> Option<Ordering> {
    decode(f, a).partial_cmp(&decode(f, b))
}

/// `floor(x1 / x2)` as the array API defines it: the exact quotient's floor, rounded down to
/// the format's representable values; a quotient whose magnitude overflows the format gives an
/// infinity of its sign; zeros, infinities and NaN follow IEEE division.
pub fn floor_divide(f: Format, a: u64, b: u64) -> u64 {
    let quotient = evaluate(f, &decode(f, a) / &decode(f, b));
    if !f.is_finite(quotient) || f.is_zero(quotient) && (f.is_zero(a) || !f.is_finite(b)) {
        return quotient;
    }
    let (x, y) = (decode(f, a), decode(f, b));
    let (Some(x), Some(y)) = (x.to_rational(), y.to_rational()) else { return quotient };
    let floor = (x / y).floor();
    let (value, ord) = Float::with_val_round(f.precision(), &floor, Round::Down);
    if value.is_zero() {
        // floor(x/y) = 0 for 0 < x/y < 1: a positive zero.
        return f.pos_zero();
    }
    round(f, value, ord)
}

/// Python's `x1 % x2` for floats: `fmod(x1, x2)`, moved into `x2`'s sign by one correctly
/// rounded addition of `x2` when the signs differ; a zero remainder takes `x2`'s sign.
pub fn remainder(f: Format, a: u64, b: u64) -> u64 {
    let (x, y) = (decode(f, a), decode(f, b));
    // fmod is exact: the remainder is representable at the operands' precision.
    let (rem, ord) = Float::with_val_round(f.precision(), &x % &y, Round::Nearest);
    if rem.is_nan() {
        return f.quiet_nan();
    }
    if rem.is_zero() {
        return f.pos_zero() | (b & f.sign_mask());
    }
    if rem.is_sign_negative() != y.is_sign_negative() {
        return evaluate(f, &rem + &y);
    }
    round(f, rem, ord)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Format = Format::F32;
    const F64: Format = Format::F64;

    fn f64_bits(v: f64) -> u64 {
        v.to_bits()
    }

    #[test]
    fn maximum_is_maxnum_and_differs_from_the_array_api_on_nan() {
        let nan = F32.quiet_nan();
        assert_eq!(maximum(F32, nan, F32.one()), F32.one());
        assert_eq!(maximum(F32, 0xbf80_0000, F32.one()), F32.one());
        assert_eq!(minimum(F32, 0xbf80_0000, F32.one()), 0xbf80_0000);
    }

    #[test]
    fn nextafter_steps_one_value() {
        assert_eq!(nextafter(F32, F32.one(), F32.pos_inf()), F32.one() + 1);
        assert_eq!(nextafter(F32, F32.one(), 0), F32.one() - 1);
        assert_eq!(nextafter(F32, 0x8000_0000, 0), 0, "-0 toward +0 is +0");
        assert_eq!(nextafter(F32, 0, 0x8000_0000), 0x8000_0000, "+0 toward -0 is -0");
        assert_eq!(nextafter(F32, 0, 0xbf80_0000), 0x8000_0001);
        assert_eq!(nextafter(F32, 0xbf80_0000, F32.neg_inf()), 0xbf80_0001);
        assert_eq!(nextafter(F32, F32.max_finite(), F32.pos_inf()), F32.pos_inf());
        assert_eq!(nextafter(F32, 0x8000_0001, 0), 0x8000_0000);
    }

    #[test]
    fn floor_division() {
        let fd = |a: f64, b: f64| f64::from_bits(floor_divide(F64, f64_bits(a), f64_bits(b)));
        assert_eq!(fd(7.0, 2.0), 3.0);
        assert_eq!(fd(-7.0, 2.0), -4.0);
        assert_eq!(fd(1.0, 3.0).to_bits(), 0, "+0");
        assert_eq!(fd(-1.0, 3.0), -1.0);
        // 1 / (1 + 2^-52) rounds to 1 - 2^-52 < 1: the floor is 0, never 1.
        assert_eq!(fd(1.0, 1.0 + f64::EPSILON), 0.0);
        // 3 / (3 - tiny): the quotient rounds up to 1 + ... ; floor of the exact value is 1.
        assert_eq!(fd(3.0, 3.0 - 4.0 * f64::EPSILON), 1.0);
        assert_eq!(fd(f64::MAX, 0.5), f64::INFINITY);
        assert_eq!(fd(-0.0, 5.0).to_bits(), (-0.0f64).to_bits());
        assert!(fd(f64::INFINITY, f64::INFINITY).is_nan());
    }

    #[test]
    fn python_remainder() {
        let rem = |a: f64, b: f64| f64::from_bits(remainder(F64, f64_bits(a), f64_bits(b)));
        assert_eq!(rem(7.0, 3.0), 1.0);
        assert_eq!(rem(-7.0, 3.0), 2.0);
        assert_eq!(rem(7.0, -3.0), -2.0);
        assert_eq!(rem(-6.0, 3.0).to_bits(), 0, "zero takes the divisor's sign");
        assert_eq!(rem(6.0, -3.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(rem(5.0, f64::INFINITY), 5.0);
        assert_eq!(rem(5.0, f64::NEG_INFINITY), f64::NEG_INFINITY);
        // -1e-300 % 1 = 1 - 1e-300, which rounds to 1.0 (Python gives 1.0 too).
        assert_eq!(rem(-1e-300, 1.0), 1.0);
        assert!(rem(f64::INFINITY, 2.0).is_nan() && rem(1.0, 0.0).is_nan());
    }

    #[test]
    fn copysign_and_compare() {
        assert_eq!(copysign(F32, 0x7fc0_0001, 0x8000_0000), 0xffc0_0001);
        assert_eq!(compare(F32, 0, 0x8000_0000), Some(Ordering::Equal));
        assert_eq!(compare(F32, F32.quiet_nan(), 0), None);
    }
}
