//! The oracle against independent routes: native IEEE arithmetic for f32 and f64, and for f16
//! and bf16 the native f32 result rounded to the format by integer code written here. Rounding
//! twice is harmless there: f32's 24 bits are at least 2p + 2 for p = 11 and p = 8, so for
//! +, -, × and ÷ the double rounding theorem makes it equal to one rounding (while f32 results
//! stay normal).

use super::{add, divide, multiply, subtract};
use crate::bits::format::Format;

/// A tiny deterministic linear congruential generator (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 32
    }
}

/// One operation three ways: the oracle, and native f64 and f32 arithmetic.
struct Op {
    name: &'static str,
    oracle: fn(Format, u64, u64) -> u64,
    native64: fn(f64, f64) -> f64,
    native32: fn(f32, f32) -> f32,
}

const OPS: [Op; 4] = [
    Op { name: "add", oracle: add, native64: |a, b| a + b, native32: |a, b| a + b },
    Op { name: "subtract", oracle: subtract, native64: |a, b| a - b, native32: |a, b| a - b },
    Op { name: "multiply", oracle: multiply, native64: |a, b| a * b, native32: |a, b| a * b },
    Op { name: "divide", oracle: divide, native64: |a, b| a / b, native32: |a, b| a / b },
];

/// Equal bits, or both NaN (native NaN payloads are not the oracle's business).
fn same(f: Format, expected: u64, actual: u64) -> bool {
    expected == actual || (f.is_nan(expected) && f.is_nan(actual))
}

/// Rounds a native f32 to `f` (f16 or bf16) to nearest even, in integer arithmetic.
fn f32_to(f: Format, x: f32) -> u64 {
    let negative = x.is_sign_negative();
    if x.is_nan() {
        return f.quiet_nan();
    }
    let infinity = if negative { f.neg_inf() } else { f.pos_inf() };
    if x.is_infinite() {
        return infinity;
    }
    if x == 0.0 {
        return f.compose(negative, 0, 0);
    }
    // |x| = m × 2^q with m a 24-bit integer.
    let bits = x.to_bits();
    let biased = (bits >> 23) & 0xff;
    let (m, q) = if biased == 0 {
        (u64::from(bits & 0x7f_ffff), -149)
    } else {
        (u64::from(bits & 0x7f_ffff | 0x80_0000), biased as i32 - 150)
    };
    let e = q + m.ilog2() as i32;
    let mut ulp_exp = e.max(f.emin()) - f.frac_bits as i32;
    let mut units = if ulp_exp <= q {
        m << (q - ulp_exp)
    } else {
        // m < 2^24, so from a shift of 25 on everything is below half an ulp.
        let shift = (ulp_exp - q).min(25) as u32;
        let (kept, dropped, half) = (m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
        let up = dropped > half || (dropped == half && kept & 1 == 1);
        kept + u64::from(up)
    };
    if units == 1 << (f.frac_bits + 1) {
        units >>= 1;
        ulp_exp += 1;
    }
    let biased_exp = if units >> f.frac_bits == 0 { 0 } else { ulp_exp + f.frac_bits as i32 + f.bias() };
    if biased_exp > f.emax() + f.bias() {
        return infinity;
    }
    f.compose(negative, biased_exp as u64, units)
}

#[test]
fn f32_to_agrees_with_hand_checked_values() {
    // Sanity of the independent route itself.
    assert_eq!(f32_to(Format::F16, 65520.0), 0x7c00);
    assert_eq!(f32_to(Format::F16, 65519.0), 0x7bff);
    assert_eq!(f32_to(Format::F16, 2f32.powi(-25)), 0x0000);
    assert_eq!(f32_to(Format::F16, 3.0 * 2f32.powi(-25)), 0x0002);
    assert_eq!(f32_to(Format::F16, -1.0), 0xbc00);
    assert_eq!(f32_to(Format::BF16, 1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
    assert_eq!(f32_to(Format::BF16, f32::from_bits(0x3f80_8000)), 0x3f80);
    assert_eq!(f32_to(Format::BF16, f32::from_bits(0x3f80_8001)), 0x3f81);
    assert_eq!(f32_to(Format::BF16, f32::MAX), 0x7f80);
    // bf16's smallest subnormal 2^-133 is 0x1_0000 f32 subnormal units: half of it ties to 0,
    // one and a half ties to 2.
    assert_eq!(f32_to(Format::BF16, f32::from_bits(0x0000_8000)), 0x0000);
    assert_eq!(f32_to(Format::BF16, f32::from_bits(0x0000_8001)), 0x0001);
    assert_eq!(f32_to(Format::BF16, f32::from_bits(0x0001_8000)), 0x0002);
}

#[test]
fn f32_and_f64_match_native_arithmetic() {
    let mut rng = Lcg(0x5eed);
    for _ in 0..20_000 {
        let (a, b) = (rng.next() as u32, rng.next() as u32);
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let (a64, b64) = (rng.next() << 32 | rng.next(), rng.next() << 32 | rng.next());
        let (x64, y64) = (f64::from_bits(a64), f64::from_bits(b64));
        for Op { name, oracle, native64, native32 } in OPS {
            let expected = u64::from(native32(x, y).to_bits());
            let actual = oracle(Format::F32, u64::from(a), u64::from(b));
            assert!(same(Format::F32, expected, actual), "f32 {name} {a:#x} {b:#x}: {actual:#x}");
            let expected = native64(x64, y64).to_bits();
            let actual = oracle(Format::F64, a64, b64);
            assert!(same(Format::F64, expected, actual), "f64 {name} {a64:#x} {b64:#x}: {actual:#x}");
        }
    }
}

#[test]
fn f16_and_bf16_match_f32_rounded_once_more() {
    let mut rng = Lcg(0xf16);
    for f in [Format::F16, Format::BF16] {
        for _ in 0..20_000 {
            let (a, b) = (rng.next() & 0xffff, rng.next() & 0xffff);
            let (x, y) = (f.to_f64(a) as f32, f.to_f64(b) as f32);
            for Op { name, oracle, native32, .. } in OPS {
                let wide = native32(x, y);
                if wide.is_subnormal() {
                    continue; // f32 has fewer than 2p + 2 bits there (only reachable for bf16)
                }
                let (expected, actual) = (f32_to(f, wide), oracle(f, a, b));
                assert!(same(f, expected, actual), "{} {name} {a:#x} {b:#x}: {actual:#x}", f.name);
            }
        }
    }
}
