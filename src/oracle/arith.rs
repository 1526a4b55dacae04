//! The IEEE 754 basic operations and fused multiply-add, rounded to nearest even, once.

use std::cmp::Ordering;

use rug::Float;
use rug::float::Round;
use rug::ops::AssignRound;

use crate::bits::format::Format;
use crate::oracle::rounding::{decode, round};

/// Evaluates an MPFR expression at the format's precision and rounds it into the format.
pub(super) fn evaluate<T>(f: Format, expression: T) -> u64
where
    Float: AssignRound<T, Round = Round, Ordering = Ordering>,
{
    let (value, ord) = Float::with_val_round(f.precision(), expression, Round::Nearest);
    round(f, value, ord)
}

/// `a + b`, correctly rounded.
pub fn add(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, &decode(f, a) + &decode(f, b))
}

/// `a - b`, correctly rounded.
pub fn subtract(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, &decode(f, a) - &decode(f, b))
}

/// `a × b`, correctly rounded.
pub fn multiply(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, &decode(f, a) * &decode(f, b))
}

/// `a / b`, correctly rounded.
pub fn divide(f: Format, a: u64, b: u64) -> u64 {
    evaluate(f, &decode(f, a) / &decode(f, b))
}

/// `a × b + c` with one rounding (MPFR's fma at the format's precision).
pub fn fused_mul_add(f: Format, a: u64, b: u64, c: u64) -> u64 {
    evaluate(f, decode(f, a).mul_add_ref(&decode(f, b), &decode(f, c)))
}

/// `(a + b) × c` with two roundings: the sum rounded once to the format, then the product of
/// that sum and `c` rounded once (numr's `fused_add_mul`, which promises no single rounding).
pub fn fused_add_mul(f: Format, a: u64, b: u64, c: u64) -> u64 {
    multiply(f, add(f, a, b), c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F16: Format = Format::F16;
    const BF16: Format = Format::BF16;
    const F32: Format = Format::F32;
    const F64: Format = Format::F64;

    #[test]
    fn f16_products_round_once_in_the_subnormals() {
        // 2^-24 × 0.5 = 2^-25, the tie between 0 and 2^-24: even is 0.
        assert_eq!(multiply(F16, 0x0001, 0x3800), 0x0000);
        // 3 × 2^-24 × 0.5 = 1.5 ulp: tie between 1 and 2 ulp, even is 2.
        assert_eq!(multiply(F16, 0x0003, 0x3800), 0x0002);
        // (1 + 2^-10) 2^-14 × (1 - 2^-11) 2^-11 = 2^-25 (1 + 2^-11 - 2^-21): just above the tie.
        // Rounding to 11 bits first gives 2^-25 exactly, and then the tie would go to 0.
        assert_eq!(multiply(F16, 0x0401, 0x0fff), 0x0001);
    }

    #[test]
    fn f16_overflow_is_round_to_nearest_even() {
        // 65504 + 15 = 65519 is below the midpoint 65520: stays at max finite.
        assert_eq!(add(F16, 0x7bff, 0x4b80), 0x7bff);
        // 65504 + 16 = 65520 is the midpoint; 65504 has an odd significand, so it goes up to 2^16.
        assert_eq!(add(F16, 0x7bff, 0x4c00), 0x7c00);
        assert_eq!(subtract(F16, 0xfbff, 0x4c00), 0xfc00);
    }

    #[test]
    fn bf16_ties_go_to_even() {
        // 1 + 2^-8 is half an ulp above 1: stays at 1.0.
        assert_eq!(add(BF16, 0x3f80, 0x3b80), 0x3f80);
        // 1 + 3 × 2^-8 is between 1 + 2^-7 (odd) and 1 + 2^-6 (even): goes to 1 + 2^-6.
        assert_eq!(add(BF16, 0x3f80, 0x3c40), 0x3f82);
    }

    #[test]
    fn f32_products_in_the_subnormals() {
        // 2^-100 × 2^-40 = 2^-140 = 2^9 × 2^-149.
        assert_eq!(multiply(F32, 0x0d80_0000, 0x2b80_0000), 0x0000_0200);
        // 1.5 × 2^-100 × 2^-49 = 1.5 × 2^-149: tie between 1 and 2 ulp, even is 2.
        assert_eq!(multiply(F32, 0x0dc0_0000, 0x2700_0000), 0x0000_0002);
        // 1.5 × 2^-100 × 2^-50 = 0.75 × 2^-149: rounds up to the smallest subnormal.
        assert_eq!(multiply(F32, 0x0dc0_0000, 0x2680_0000), 0x0000_0001);
        // (1 + 2^-23) 2^-100 × (1 - 2^-24) 2^-50 = 2^-150 (1 + 2^-24 - 2^-47): just above the
        // tie 2^-150; rounding to 24 bits first lands on the tie, which would go to 0.
        assert_eq!(multiply(F32, 0x0d80_0001, 0x267f_ffff), 0x0000_0001);
    }

    #[test]
    fn signed_zeros_infinities_and_nans() {
        let (one, five) = (0x3f80_0000, 0x40a0_0000);
        let (zero, neg_zero, inf, neg_inf) = (0, 0x8000_0000, 0x7f80_0000, 0xff80_0000);
        assert_eq!(add(F32, neg_zero, neg_zero), neg_zero);
        assert_eq!(add(F32, neg_zero, zero), zero);
        assert_eq!(add(F32, five, 0xc0a0_0000), zero);
        assert_eq!(subtract(F32, five, five), zero);
        assert_eq!(add(F32, inf, neg_inf), F32.quiet_nan());
        assert_eq!(multiply(F32, neg_zero, five), neg_zero);
        assert_eq!(multiply(F32, zero, inf), F32.quiet_nan());
        assert_eq!(divide(F32, one, zero), inf);
        assert_eq!(divide(F32, one, neg_zero), neg_inf);
        assert_eq!(divide(F32, zero, zero), F32.quiet_nan());
        assert_eq!(divide(F32, one, inf), zero);
        assert_eq!(add(F32, 0x7fc0_0001, one), F32.quiet_nan());
        // The same rules in f16 (-0 + -0, x + -x, -0 × 5).
        assert_eq!(add(F16, 0x8000, 0x8000), 0x8000);
        assert_eq!(add(F16, 0x3c00, 0xbc00), 0x0000);
        assert_eq!(multiply(F16, 0x8000, 0x4500), 0x8000);
    }

    #[test]
    fn fused_mul_add_rounds_once() {
        // f32: 4097² + 2^-30 = 16785409 + 2^-30, just above the tie between 16785408 and
        // 16785410 (ulp 2). Through f64 the 2^-30 is lost and the tie goes to 16785408.
        // 16785410 = 2^24 × (1 + 4097 × 2^-23): exponent 151, fraction 0x1001.
        assert_eq!(fused_mul_add(F32, 0x4580_0800, 0x4580_0800, 0x3080_0000), 0x4b80_1001);
        // bf16: 17² + 2^-60 = 289 + 2^-60, above the tie between 288 and 290 (ulp 2).
        // 290 = 2^8 × 1.0010001b: exponent 135 = 0x87, fraction 0010001b: 0x4391.
        assert_eq!(fused_mul_add(BF16, 0x4188, 0x4188, 0x2180), 0x4391);
        // Without the addend, 289 is the tie and goes to the even 288 (fraction 0010000b).
        assert_eq!(fused_mul_add(BF16, 0x4188, 0x4188, 0x0000), 0x4390);
        // Zero signs: (+0 × -1) + +0 = +0, (-0 × 1) + -0 = -0, 1 × 1 + -1 = +0.
        assert_eq!(fused_mul_add(F32, 0, 0xbf80_0000, 0), 0);
        assert_eq!(fused_mul_add(F32, 0x8000_0000, 0x3f80_0000, 0x8000_0000), 0x8000_0000);
        assert_eq!(fused_mul_add(F32, 0x3f80_0000, 0x3f80_0000, 0xbf80_0000), 0);
        // 0 × inf + 1 is NaN; in f64, max × 2 - max is exactly max though max × 2 overflows.
        assert_eq!(fused_mul_add(F32, 0, 0x7f80_0000, 0x3f80_0000), F32.quiet_nan());
        let max = F64.max_finite();
        assert_eq!(fused_mul_add(F64, max, 0x4000_0000_0000_0000, F64.neg(max)), max);
    }

    #[test]
    fn fused_add_mul_rounds_the_sum_first() {
        // f32: (1 + 2^-24) rounds to 1 (tie to even), so (1 + 2^-24) × 3 gives 3, where the
        // exact (1 + 2^-24) × 3 = 3 + 3 × 2^-24 would round up to 3 + 2^-22.
        assert_eq!(fused_add_mul(F32, 0x3f80_0000, 0x3380_0000, 0x4040_0000), 0x4040_0000);
        // bf16: 1 + 2^-8 rounds to 1; × 3 = 3 (0x4040).
        assert_eq!(fused_add_mul(BF16, 0x3f80, 0x3b80, 0x4040), 0x4040);
        // inf + -inf is NaN whatever c is; (-0 + -0) × 1 = -0.
        assert_eq!(fused_add_mul(F16, 0x7c00, 0xfc00, 0x0000), F16.quiet_nan());
        assert_eq!(fused_add_mul(F16, 0x8000, 0x8000, 0x3c00), 0x8000);
    }
}
