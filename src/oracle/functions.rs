//! The approximate functions of the contract (pow, atan2, hypot, logaddexp): each correctly
//! rounded once to the format, and as a high-precision value for measuring ULP errors.
//!
//! MPFR follows C99 Annex F for their special values; where a table states something else, the
//! table wins (the harness applies a governing row before it asks the oracle).

use rug::Float;
use rug::float::Round;
use rug::ops::Pow;

use super::arith::evaluate;
use super::rounding::{decode, round_exact};
use crate::bits::format::Format;

/// Extra bits carried by the high-precision values beyond the format's precision.
const GUARD_BITS: u32 = 96;

/// The precision of the high-precision values for format `f`.
fn wide(f: Format) -> u32 {
    f.precision() + GUARD_BITS
}

/// `x1 ** x2`, correctly rounded.
pub fn pow(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, (&decode(f, a)).pow(&decode(f, b)))
}

/// `x1 ** x2` with 96 guard bits, for measuring ULP errors.
pub fn pow_value(f: Format, a: u64, b: u64) -> Float {
    Float::with_val(wide(f), (&decode(f, a)).pow(&decode(f, b)))
}

/// `atan2(x1, x2)` (the angle of the point (x2, x1)), correctly rounded.
pub fn atan2(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, decode(f, a).atan2_ref(&decode(f, b)))
}

/// `atan2(x1, x2)` with 96 guard bits, for measuring ULP errors.
pub fn atan2_value(f: Format, a: u64, b: u64) -> Float {
    Float::with_val(wide(f), decode(f, a).atan2_ref(&decode(f, b)))
}

/// `sqrt(x1² + x2²)` without intermediate overflow, correctly rounded.
pub fn hypot(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, decode(f, a).hypot_ref(&decode(f, b)))
}

/// `sqrt(x1² + x2²)` with 96 guard bits, for measuring ULP errors.
pub fn hypot_value(f: Format, a: u64, b: u64) -> Float {
    Float::with_val(wide(f), decode(f, a).hypot_ref(&decode(f, b)))
}

/// `log(exp(x1) + exp(x2))`, rounded once from [`logaddexp_value`].
///
/// MPFR has no single-rounding logaddexp, so the one final rounding is wrong only if the
/// exact value lies within 2^-96 ulp of a midpoint.
pub fn logaddexp(f: Format, a: u64, b: u64) -> u64 {
    round_exact(f, &logaddexp_value(f, a, b))
}

/// `log(exp(x1) + exp(x2))` with 96 guard bits, computed as `m + log1p(exp(-|x1 - x2|))`
/// (`m` the larger operand).
pub fn logaddexp_value(f: Format, a: u64, b: u64) -> Float {
    let precision = wide(f);
    let (x, y) = (decode(f, a), decode(f, b));
    if x.is_nan() || y.is_nan() {
        return Float::with_val(precision, rug::float::Special::Nan);
    }
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    if hi.is_infinite() || lo.is_infinite() {
        // +inf wins; -inf with -inf stays -inf; -inf with a finite value gives the finite one.
        return Float::with_val(precision, &hi);
    }
    let gap = Float::with_val(precision, &lo - &hi);
    let correction = gap.exp().ln_1p();
    Float::with_val_round(precision, &hi + &correction, Round::Nearest).0
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Format = Format::F32;
    const F64: Format = Format::F64;

    #[test]
    fn hand_checked_values() {
        // 2^10 = 1024 exactly; 2^-0.5 rounded to f32 is 0x3f3504f3 (0.70710677).
        assert_eq!(pow(F32, 0x4000_0000, 0x4120_0000), 0x4480_0000);
        assert_eq!(pow(F32, 0x4000_0000, 0xbf00_0000), 0x3f35_04f3);
        // atan2(1, 1) = pi/4 = 0x3f490fdb in f32; atan2(+0, -1) = pi = 0x40490fdb.
        assert_eq!(atan2(F32, 0x3f80_0000, 0x3f80_0000), 0x3f49_0fdb);
        assert_eq!(atan2(F32, 0x0000_0000, 0xbf80_0000), 0x4049_0fdb);
        // hypot(3, 4) = 5, and no overflow at f32::MAX: hypot(MAX, MAX) = MAX * sqrt 2 -> inf.
        assert_eq!(hypot(F32, 0x4040_0000, 0x4080_0000), 0x40a0_0000);
        assert_eq!(hypot(F32, 0x7f7f_ffff, 0x0000_0000), 0x7f7f_ffff);
        assert_eq!(hypot(F32, 0x7f7f_ffff, 0x7f7f_ffff), 0x7f80_0000);
        // logaddexp(0, 0) = ln 2 = 0x3fe62e42fefa39ef in f64.
        assert_eq!(logaddexp(F64, 0, 0), 0x3fe6_2e42_fefa_39ef);
        // logaddexp(1000, 0) = 1000 + log1p(e^-1000), which rounds to 1000.
        assert_eq!(logaddexp(F64, 1000f64.to_bits(), 0), 1000f64.to_bits());
        assert_eq!(logaddexp(F64, f64::NEG_INFINITY.to_bits(), 2f64.to_bits()), 2f64.to_bits());
    }

    #[test]
    fn c99_special_values() {
        let nan = F32.quiet_nan();
        assert_eq!(pow(F32, nan, 0), F32.one(), "pow(NaN, +0) = 1");
        assert_eq!(pow(F32, F32.one(), nan), F32.one(), "pow(1, NaN) = 1");
        assert_eq!(pow(F32, 0xbf80_0000, F32.pos_inf()), F32.one(), "pow(-1, inf) = 1");
        assert_eq!(pow(F32, 0x8000_0000, 0xbf80_0000), F32.neg_inf(), "pow(-0, -1) = -inf");
        assert!(F32.is_nan(pow(F32, 0xbf80_0000, 0x3f00_0000)), "pow(-1, 0.5) = NaN");
        assert_eq!(atan2(F32, 0x8000_0000, 0x8000_0000), 0xc049_0fdb, "atan2(-0, -0) = -pi");
    }

    #[test]
    fn high_precision_agrees_with_the_rounded_result() {
        let (one, three) = (1f64.to_bits(), 3f64.to_bits());
        let v = atan2_value(F64, one, three);
        assert_eq!(v.prec(), 53 + GUARD_BITS);
        assert_eq!(round_exact(F64, &v), atan2(F64, one, three));
        assert_eq!(
            round_exact(F64, &pow_value(F64, three, 0.5f64.to_bits())),
            pow(F64, three, 0.5f64.to_bits())
        );
        assert_eq!(round_exact(F32, &hypot_value(F32, 0x4040_0000, 0x4080_0000)), 0x40a0_0000);
    }
}
