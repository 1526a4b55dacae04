//! Bits to exact MPFR values and back, with exactly one rounding on the way back.
//!
//! MPFR computes at the format's precision with an (effectively) unbounded exponent and reports
//! the direction of that rounding. [`round`] then applies the format's exponent range: IEEE
//! subnormalisation that takes the first rounding's direction into account (so a value that
//! MPFR rounded onto a subnormal tie is not rounded a second time to the wrong side), and
//! overflow to infinity under round-to-nearest-even.

use std::cmp::Ordering;

use rug::Float;
use rug::float::{Round, Special};

use crate::bits::format::Format;

/// The exact value of `bits` as an MPFR `Float` of the format's precision.
///
/// Every NaN becomes MPFR's NaN (sign and payload are not kept); infinities and both signed
/// zeros keep their sign.
pub fn decode(f: Format, bits: u64) -> Float {
    let precision = f.precision();
    if f.is_nan(bits) {
        return Float::with_val(precision, Special::Nan);
    }
    let magnitude = if f.is_infinite(bits) {
        Float::with_val(precision, Special::Infinity)
    } else {
        let (significand, exp) = if f.biased_exp(bits) == 0 {
            (f.frac(bits), f.emin())
        } else {
            (f.frac(bits) | (1 << f.frac_bits), f.biased_exp(bits) as i32 - f.bias())
        };
        // significand × 2^(exp - frac_bits): exact, as significand < 2^precision.
        Float::with_val(precision, significand) << (exp - f.frac_bits as i32)
    };
    if f.is_sign_negative(bits) { -magnitude } else { magnitude }
}

/// Rounds a value that MPFR computed at precision `f.precision()` (rounding to nearest, with
/// the exponent range left unbounded) to the format, and encodes it.
///
/// `ord` is MPFR's ternary value for that computation: how the computed `value` compares with
/// the exact result. It is carried into the subnormalisation so the result is the exact value
/// rounded once. Magnitudes above the largest finite value become infinities (round to nearest
/// even); NaN becomes `f.quiet_nan()`.
///
/// # Panics
///
/// If `value`'s precision is not `f.precision()` (use [`round_exact`] for other values).
pub fn round(f: Format, mut value: Float, ord: Ordering) -> u64 {
    assert_eq!(value.prec(), f.precision(), "oracle::round needs a value at the format's precision");
    if value.is_nan() {
        return f.quiet_nan();
    }
    // MPFR puts the significand in [0.5, 1), so the smallest normal 2^emin has exponent emin + 1.
    value.subnormalize_round(f.emin() + 1, ord, Round::Nearest);
    encode(f, &value)
}

/// Rounds an exact value (of any precision) once to the format, to nearest even, with
/// subnormals and overflow as in [`round`].
pub fn round_exact(f: Format, exact: &Float) -> u64 {
    let (value, ord) = Float::with_val_round(f.precision(), exact, Round::Nearest);
    round(f, value, ord)
}

/// The bits of a value the format represents, except that a magnitude beyond the largest
/// finite value encodes as an infinity.
fn encode(f: Format, value: &Float) -> u64 {
    let negative = value.is_sign_negative();
    let infinity = if negative { f.neg_inf() } else { f.pos_inf() };
    let Some((significand, exp)) = value.to_integer_exp() else {
        return infinity;
    };
    if significand.is_zero() {
        return f.compose(negative, 0, 0);
    }
    // |value| = magnitude × 2^exp, with 2^e <= |value| < 2^(e+1).
    let magnitude = significand.abs().to_u64().expect("significand fits the format's precision");
    let e = exp + magnitude.ilog2() as i32;
    if e > f.emax() {
        return infinity;
    }
    // Express |value| in units of the format's ULP at e (the subnormal ULP below emin).
    let ulp_exp = e.max(f.emin()) - f.frac_bits as i32;
    let units = if exp >= ulp_exp {
        magnitude << (exp - ulp_exp)
    } else {
        let units = magnitude >> (ulp_exp - exp);
        debug_assert_eq!(units << (ulp_exp - exp), magnitude, "value not representable");
        units
    };
    let biased_exp = if e >= f.emin() { (e + f.bias()) as u64 } else { 0 };
    f.compose(negative, biased_exp, units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_then_round_is_the_identity_on_non_nans() {
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            let samples = [
                f.pos_zero(),
                f.neg_zero(),
                f.min_subnormal(),
                f.max_subnormal(),
                f.min_normal(),
                f.one(),
                f.max_finite(),
                f.pos_inf(),
                f.neg_inf(),
                f.neg(f.max_subnormal()),
                f.neg(f.one()) + 3,
            ];
            for bits in samples {
                assert_eq!(round(f, decode(f, bits), Ordering::Equal), bits, "{} {bits:#x}", f.name);
                assert_eq!(round_exact(f, &decode(f, bits)), bits, "{} {bits:#x}", f.name);
            }
            assert_eq!(round_exact(f, &decode(f, f.neg(f.quiet_nan()) | 1)), f.quiet_nan());
        }
    }

    #[test]
    fn decode_gives_exact_values() {
        // f16 0x0001 = 2^-24; bf16 0xc0a0 = -1.25 × 2^2 = -5; f32 0x0000_0003 = 3 × 2^-149.
        assert_eq!(decode(Format::F16, 0x0001), Float::with_val(64, 1) >> 24);
        assert_eq!(decode(Format::BF16, 0xc0a0), -5);
        assert_eq!(decode(Format::F32, 0x0000_0003), Float::with_val(64, 3) >> 149);
        assert!(decode(Format::F16, 0x8000).is_sign_negative());
        assert!(decode(Format::F16, 0x7e01).is_nan());
    }

    #[test]
    fn round_exact_rounds_once_to_nearest_even() {
        // Just above the f16 subnormal tie 2^-25 (between 0 and 2^-24): rounds up to 0x0001,
        // though rounding to 11 bits first would land on the tie and go to 0.
        let above_tie = (Float::with_val(200, 1) >> 25) + (Float::with_val(200, 1) >> 150);
        assert_eq!(round_exact(Format::F16, &above_tie), 0x0001);
        // bf16: 1 + 2^-8 + 2^-40 is above the tie between 1 and 1 + 2^-7.
        let one_plus = 1 + (Float::with_val(200, 1) >> 8) + (Float::with_val(200, 1) >> 40);
        assert_eq!(round_exact(Format::BF16, &one_plus), 0x3f81);
        // 2^16 overflows f16 (max 65504; 65520 is the tie that goes up to 2^16).
        assert_eq!(round_exact(Format::F16, &Float::with_val(200, 65520)), 0x7c00);
        assert_eq!(round_exact(Format::F16, &Float::with_val(200, -65519.99)), 0xfbff);
        // f64: half the smallest subnormal is a tie that goes to even, +0.
        let half_min = Float::with_val(200, 1) >> 1075;
        assert_eq!(round_exact(Format::F64, &half_min), 0);
        assert_eq!(round_exact(Format::F64, &-half_min), 0x8000_0000_0000_0000);
    }
}
