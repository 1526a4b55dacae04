//! The fused element-wise operations: `fused_mul_add` (a × b + c, rounded once) and
//! `fused_add_mul` ((a + b) × c, the sum and the product each rounded once).
//!
//! f32 and f64 use `mul_add` (one rounding); [`ternary_all`] compiles it to the CPU's FMA
//! instruction where the CPU has one (detected at run time; elsewhere `mul_add` is a library
//! call). f16 and bf16 must not round an f64 or f32 fma result again (double rounding), so
//! [`fma_round_to_odd`] computes a × b + c exactly as an unevaluated f64 sum, rounds it to odd
//! at f32 precision, and the final round-to-nearest-even into the 16-bit format is then correct
//! (rounding to odd with at least two extra bits makes the later rounding behave like a single
//! one; Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
//! using rounding to odd", IEEE TC 2008).

use half::{bf16, f16};
use opspec_adapter::TernaryOp;

/// A float type with the fused operations.
pub trait CpuFused: Copy {
    /// Applies `op` to one triple.
    fn ternary(op: TernaryOp, a: Self, b: Self, c: Self) -> Self;
}

/// Applies `op` to every triple `(xs[i], ys[i], zs[i])`.
pub fn ternary_all<T: CpuFused>(op: TernaryOp, xs: &[T], ys: &[T], zs: &[T]) -> Vec<T> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (detected above).
        return unsafe { ternary_all_fma(op, xs, ys, zs) };
    }
    map_all(op, xs, ys, zs)
}

/// [`map_all`] compiled with FMA, so that `mul_add` is one instruction.
///
/// # Safety
/// The CPU must have FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn ternary_all_fma<T: CpuFused>(op: TernaryOp, xs: &[T], ys: &[T], zs: &[T]) -> Vec<T> {
    map_all(op, xs, ys, zs)
}

#[inline(always)]
fn map_all<T: CpuFused>(op: TernaryOp, xs: &[T], ys: &[T], zs: &[T]) -> Vec<T> {
    xs.iter().zip(ys).zip(zs).map(|((&x, &y), &z)| T::ternary(op, x, y, z)).collect()
}

impl CpuFused for f32 {
    #[inline]
    fn ternary(op: TernaryOp, a: f32, b: f32, c: f32) -> f32 {
        match op {
            TernaryOp::FusedMulAdd => a.mul_add(b, c),
            _ => (a + b) * c,
        }
    }
}

impl CpuFused for f64 {
    #[inline]
    fn ternary(op: TernaryOp, a: f64, b: f64, c: f64) -> f64 {
        match op {
            TernaryOp::FusedMulAdd => a.mul_add(b, c),
            _ => (a + b) * c,
        }
    }
}

macro_rules! half_fused {
    ($t:ty) => {
        impl CpuFused for $t {
            fn ternary(op: TernaryOp, a: $t, b: $t, c: $t) -> $t {
                match op {
                    TernaryOp::FusedMulAdd => {
                        <$t>::from_f32(fma_round_to_odd(a.to_f64(), b.to_f64(), c.to_f64()))
                    }
                    // f32 has more than 2p + 2 bits for a 16-bit format's p, so computing a sum
                    // or a product in f32 and rounding it again is the same as rounding once.
                    _ => {
                        let sum = <$t>::from_f32(a.to_f32() + b.to_f32());
                        <$t>::from_f32(sum.to_f32() * c.to_f32())
                    }
                }
            }
        }
    };
}

half_fused!(f16);
half_fused!(bf16);

/// `a × b + c` rounded to odd at f32 precision, for operands that are f16 or bf16 values:
/// their product is exact in f64 (at most 22 significant bits, exponents far inside f64's
/// range), an error-free two-sum gives the exact sum as `s + e`, and `e`'s sign says which way
/// the rounding of `s` went. Rounding to odd (a sticky last bit wherever the value is inexact)
/// at 53 and then at 24 bits is the same as rounding to odd at 24 bits.
fn fma_round_to_odd(a: f64, b: f64, c: f64) -> f32 {
    let product = a * b;
    let s = product + c;
    if !s.is_finite() {
        return s as f32;
    }
    let bb = s - product;
    let e = (product - (s - bb)) + (c - bb);
    let odd53 = if e == 0.0 || s.to_bits() & 1 == 1 { s } else { f64_step(s, e > 0.0) };
    let narrow = odd53 as f32;
    // Past f32's range the 16-bit result is infinite too.
    if narrow.is_infinite() {
        return narrow;
    }
    let rest = odd53 - f64::from(narrow);
    if rest == 0.0 || narrow.to_bits() & 1 == 1 { narrow } else { f32_step(narrow, rest > 0.0) }
}

/// The neighbour of a finite `x` toward +infinity (`up`) or -infinity; from a zero, the
/// smallest subnormal of that sign.
fn f64_step(x: f64, up: bool) -> f64 {
    if x == 0.0 {
        return if up { f64::from_bits(1) } else { -f64::from_bits(1) };
    }
    let bits = x.to_bits();
    f64::from_bits(if (x > 0.0) == up { bits + 1 } else { bits - 1 })
}

/// The neighbour of a finite `x` toward +infinity (`up`) or -infinity; from a zero, the
/// smallest subnormal of that sign.
fn f32_step(x: f32, up: bool) -> f32 {
    if x == 0.0 {
        return if up { f32::from_bits(1) } else { -f32::from_bits(1) };
    }
    let bits = x.to_bits();
    f32::from_bits(if (x > 0.0) == up { bits + 1 } else { bits - 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_fma_rounds_once() {
        // 17² + 2^-60 = 289 + 2^-60 is just above the tie between 288 and 290: 290. An f64 fma
        // rounded to bf16 loses the 2^-60 and gives the even 288.
        let (a, c) = (bf16::from_bits(0x4188), bf16::from_bits(0x2180));
        assert_eq!(bf16::ternary(TernaryOp::FusedMulAdd, a, a, c).to_bits(), 0x4391);
        assert_eq!(bf16::ternary(TernaryOp::FusedMulAdd, a, a, bf16::ZERO).to_bits(), 0x4390);
        // The same below the tie: 289 - 2^-60 goes to 288.
        let neg_c = bf16::from_bits(0xa180);
        assert_eq!(bf16::ternary(TernaryOp::FusedMulAdd, a, a, neg_c).to_bits(), 0x4390);
    }

    #[test]
    fn f16_fma_rounds_once() {
        // (1 + 2^-10)² = 1 + 2^-9 + 2^-20; minus 2^-9 leaves 1 + 2^-20: rounds to 1.
        let x = f16::from_bits(0x3c01);
        let c = f16::from_bits(0x9800);
        assert_eq!(f16::ternary(TernaryOp::FusedMulAdd, x, x, c).to_bits(), 0x3c00);
        // 0 × inf + 1 is NaN; -0 × 1 + -0 is -0.
        let (zero, inf, one) = (f16::ZERO, f16::INFINITY, f16::ONE);
        assert!(f16::ternary(TernaryOp::FusedMulAdd, zero, inf, one).is_nan());
        let nz = f16::NEG_ZERO;
        assert_eq!(f16::ternary(TernaryOp::FusedMulAdd, nz, one, nz).to_bits(), 0x8000);
    }

    #[test]
    fn bf16_fma_below_f32_subnormals_keeps_its_sign() {
        // 2^-133 × 2^-133 = 2^-266: far below bf16's smallest subnormal, rounds to ±0.
        let tiny = bf16::from_bits(0x0001);
        let neg_tiny = bf16::from_bits(0x8001);
        assert_eq!(bf16::ternary(TernaryOp::FusedMulAdd, tiny, tiny, bf16::ZERO).to_bits(), 0);
        let r = bf16::ternary(TernaryOp::FusedMulAdd, tiny, neg_tiny, bf16::NEG_ZERO);
        assert_eq!(r.to_bits(), 0x8000);
        // max × 2 - max = max exactly, though max × 2 alone overflows.
        let (max, two) = (bf16::MAX, bf16::from_f32(2.0));
        assert_eq!(bf16::ternary(TernaryOp::FusedMulAdd, max, two, -max), max);
        assert!(bf16::ternary(TernaryOp::FusedMulAdd, max, max, bf16::ZERO).is_infinite());
    }

    #[test]
    fn add_mul_rounds_the_sum_first() {
        // 1 + 2^-24 is a tie in f32 and goes to 1, so the result is 3, not 3 + 2^-22.
        let r = f32::ternary(TernaryOp::FusedAddMul, 1.0, f32::from_bits(0x3380_0000), 3.0);
        assert_eq!(r, 3.0);
    }
}
