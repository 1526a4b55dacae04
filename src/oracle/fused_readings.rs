//! The other readings of numr's fused operations, which its words allow besides the oracle's
//! ([`super::arith::fused_mul_add`], [`super::arith::fused_add_mul`]): "a * b + c ... Uses
//! hardware FMA instructions where available" admits the product rounded before the sum where
//! no FMA is used, and "(a + b) * c ... in a single pass" admits the exact value rounded once
//! and a sum kept in a wider format. Each is computed here from the operands with MPFR, every
//! step rounded to nearest even as the reading prescribes, independently of any kernel.

use rug::Float;

use super::arith::{add, evaluate, multiply};
use super::rounding::{decode, round_exact};
use crate::bits::format::Format;

/// Bits enough to hold any sum of two values of the widest format exactly (f64's exponents
/// span 2,098 binary places, and each significand 53).
const EXACT_SUM_BITS: u32 = 2200;

/// `a × b + c` with two roundings: the product rounded to the format, then the sum.
pub fn multiply_then_add(f: Format, a: u64, b: u64, c: u64) -> u64 {
    add(f, multiply(f, a, b), c)
}

/// `(a + b) × c` rounded once: the exact sum, then the product rounded to the format.
pub fn add_multiply_once(f: Format, a: u64, b: u64, c: u64) -> u64 {
    let sum = Float::with_val(EXACT_SUM_BITS, &decode(f, a) + &decode(f, b));
    evaluate(f, &sum * &decode(f, c))
}

/// `(a + b) × c` computed in the next wider format (f32 for f16 and bf16, f64 for f32): the
/// sum and the product each rounded to that format, then the product rounded to `f`. `None`
/// for f64, which has no wider format here.
pub fn add_multiply_wide(f: Format, a: u64, b: u64, c: u64) -> Option<u64> {
    let wide = match f.bits {
        16 => Format::F32,
        32 => Format::F64,
        _ => return None,
    };
    let widen = |x: u64| round_exact(wide, &decode(f, x));
    let product = multiply(wide, add(wide, widen(a), widen(b)), widen(c));
    Some(round_exact(f, &decode(wide, product)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Format = Format::F32;

    fn bits(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    /// (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 (worked by hand): less 1 + 2^-22, one rounding keeps
    /// the 2^-46 that the product rounded first loses.
    #[test]
    fn two_roundings_lose_what_one_keeps() {
        let (x, c) = (1.0 + f32::EPSILON, -(1.0 + 2.0 * f32::EPSILON));
        let once = super::super::arith::fused_mul_add(F32, bits(x), bits(x), bits(c));
        assert_eq!(f32::from_bits(once as u32), f32::EPSILON * f32::EPSILON);
        assert_eq!(f32::from_bits(multiply_then_add(F32, bits(x), bits(x), bits(c)) as u32), 0.0);
    }

    /// (2^24 + 1) is not an f32: the sum 2^24 + 1 rounds to 2^24 (ties to even), so two
    /// roundings give 2^24 * 3, while the exact (2^24 + 1) * 3 = 50331651 rounds to 50331652,
    /// and in f64 the sum is exact, as it is once.
    #[test]
    fn one_rounding_and_a_wider_sum_keep_what_the_rounded_sum_loses() {
        let (a, b, c) = (bits(16_777_216.0), bits(1.0), bits(3.0));
        assert_eq!(f32::from_bits(add_multiply_once(F32, a, b, c) as u32), 50_331_652.0);
        assert_eq!(f32::from_bits(add_multiply_wide(F32, a, b, c).unwrap() as u32), 50_331_652.0);
        assert_eq!(f32::from_bits(super::super::arith::fused_add_mul(F32, a, b, c) as u32), 50_331_648.0);
        assert_eq!(add_multiply_wide(Format::F64, 0, 0, 0), None);
    }
}
