//! Distance of an actual result from a high-precision reference, in ULPs of the format.

use rug::Float;

use crate::bits::format::Format;
use crate::oracle::rounding::decode;

/// The error of `actual` against `reference`, in ULPs of the format at the reference's binade
/// (the subnormal ULP below the smallest normal), as a fraction: a correctly rounded result is
/// at most 0.5 away.
///
/// Returns 0.0 when both are NaN or both are the same infinity, and `f64::INFINITY` when only
/// one of them is NaN or infinite (so an overflowed result is infinitely far from a finite
/// reference: callers accept the correctly rounded result before asking for a distance).
pub fn ulp_error(f: Format, actual: u64, reference: &Float) -> f64 {
    let actual = decode(f, actual);
    if actual.is_nan() || reference.is_nan() {
        return if actual.is_nan() && reference.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if actual.is_infinite() || reference.is_infinite() {
        return if actual == *reference { 0.0 } else { f64::INFINITY };
    }
    // MPFR's exponent is one above the binade's (significand in [0.5, 1)).
    let binade = reference.get_exp().map_or(f.emin(), |exp| (exp - 1).max(f.emin()));
    let ulp_exp = binade - f.frac_bits as i32;
    // One rounding to f64's precision, then an exact scaling by a power of two.
    let distance = Float::with_val(53, &actual - reference).abs();
    (distance >> ulp_exp).to_f64()
}

/// [`ulp_error`] against a finite reference given as an f64 value (the fast reference's,
/// [`super::fast::value`]): the same measure, with the distance rounded once to f64.
pub fn ulp_error_f64(f: Format, actual: u64, reference: f64) -> f64 {
    let actual = f.to_f64(actual);
    if !actual.is_finite() {
        return f64::INFINITY;
    }
    // The binade from the exponent field (a zero or an f64 subnormal is below every format's).
    let binade = ((reference.to_bits() >> 52 & 0x7ff) as i32 - 1023).max(f.emin());
    let ulp_exp = binade - f.frac_bits as i32;
    (actual - reference).abs() * 2f64.powi(-ulp_exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correctly_rounded_is_within_half_an_ulp() {
        // 1/3 in f32: 0x3eaa_aaab is the correctly rounded value (0x3eaa_aaaa is one ulp below).
        let third = Float::with_val(200, 1) / 3;
        let right = ulp_error(Format::F32, 0x3eaa_aaab, &third);
        let wrong = ulp_error(Format::F32, 0x3eaa_aaaa, &third);
        assert!(right <= 0.5, "{right}");
        assert!(wrong > 0.5 && wrong < 1.5, "{wrong}");
        // An exact tie is exactly half an ulp: bf16 1 + 2^-8 against 1.0.
        let tie = 1 + (Float::with_val(200, 1) >> 8);
        assert_eq!(ulp_error(Format::BF16, 0x3f80, &tie), 0.5);
        assert_eq!(ulp_error(Format::BF16, 0x3f81, &tie), 0.5);
        assert_eq!(ulp_error(Format::BF16, 0x3f82, &tie), 1.5);
    }

    #[test]
    fn subnormal_references_use_the_subnormal_ulp() {
        // f16 reference 2.5 × 2^-24: 0x0002 and 0x0003 are half an ulp away, 0x0000 2.5 ulp.
        let reference = Float::with_val(200, 5) >> 25;
        assert_eq!(ulp_error(Format::F16, 0x0002, &reference), 0.5);
        assert_eq!(ulp_error(Format::F16, 0x0003, &reference), 0.5);
        assert_eq!(ulp_error(Format::F16, 0x8000, &reference), 2.5);
        assert_eq!(ulp_error(Format::F16, 0x0000, &Float::with_val(200, 0)), 0.0);
    }

    #[test]
    fn an_f64_reference_gives_the_same_measure() {
        let f = Format::F32;
        let third = 1.0 / 3.0;
        let exact = Float::with_val(200, 1) / 3;
        for actual in [0x3eaa_aaab, 0x3eaa_aaaa, 0x3eaa_aaa0, 0xbeaa_aaab] {
            let (a, b) = (ulp_error_f64(f, actual, third), ulp_error(f, actual, &exact));
            assert!((a - b).abs() < 1e-6, "{actual:#x}: {a} against {b}");
        }
        // Just below a power of two the binade is the lower one; subnormal references use the
        // subnormal ulp; zero is in the lowest binade.
        assert_eq!(ulp_error_f64(f, 0x3f80_0000, 1.0 - 2f64.powi(-25)), 0.5);
        assert_eq!(ulp_error_f64(Format::F16, 0x0003, 5.0 * 2f64.powi(-25)), 0.5);
        assert_eq!(ulp_error_f64(Format::F16, 0x0001, 0.0), 1.0);
        assert_eq!(ulp_error_f64(f, f.pos_inf(), 1.0), f64::INFINITY);
    }

    #[test]
    fn nans_and_infinities() {
        let f = Format::F32;
        let nan = Float::with_val(53, rug::float::Special::Nan);
        let inf = Float::with_val(53, rug::float::Special::Infinity);
        assert_eq!(ulp_error(f, 0x7fc0_0001, &nan), 0.0);
        assert_eq!(ulp_error(f, f.one(), &nan), f64::INFINITY);
        assert_eq!(ulp_error(f, f.quiet_nan(), &Float::with_val(53, 1)), f64::INFINITY);
        assert_eq!(ulp_error(f, f.pos_inf(), &inf), 0.0);
        assert_eq!(ulp_error(f, f.neg_inf(), &inf), f64::INFINITY);
        assert_eq!(ulp_error(f, f.max_finite(), &inf), f64::INFINITY);
    }
}
