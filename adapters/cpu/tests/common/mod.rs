//! Operand values shared by the fast-path tests: edge values of every dtype's format, then
//! seeded random bits and moderate values.

use half::{bf16, f16};
use opspec_adapter::DType;

/// Edge values of `dtype`'s format: NaNs of both signs, quiet and signalling, with payloads;
/// ±0, ±1, infinities, the largest finite values and their neighbours, the smallest normal,
/// subnormals; for integers MIN, MAX, 0, ±1 and their neighbours.
pub fn specials(dtype: DType) -> Vec<u64> {
    match dtype {
        DType::F16 => vec![
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x7bfe, 0x0400, 0x0001, 0x8001,
            0x03ff, 0x83ff, 0x7e00, 0xfe01, 0x7c01, 0xfd55, 0x7e3a,
        ],
        DType::BF16 => vec![
            0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7f7f, 0xff7f, 0x7f7e, 0x0080, 0x0001, 0x8001,
            0x007f, 0x807f, 0x7fc0, 0xffc1, 0x7f81, 0xff95, 0x7fea,
        ],
        DType::F32 => {
            [0.0f32, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, f32::MIN_POSITIVE]
                .iter()
                .map(|v| v.to_bits() as u64)
                .chain([
                    0x7fc0_0000,
                    0xffc0_0001,
                    0x7f80_0001,
                    0x0000_0001,
                    0x8000_0001,
                    0x007f_ffff,
                    0x807f_ffff,
                    // 1 + 2^-12: its square is a rounding case for fma against a × b + c.
                    0x3f80_0800,
                ])
                .collect()
        }
        DType::F64 => {
            [0.0f64, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, f64::MIN_POSITIVE]
                .iter()
                .map(|v| v.to_bits())
                .chain([
                    0x7ff8_0000_0000_0000,
                    0xfff8_0000_0000_0001,
                    0x7ff0_0000_0000_0001,
                    1,
                    0x8000_0000_0000_0001,
                    0x000f_ffff_ffff_ffff,
                    0x800f_ffff_ffff_ffff,
                    // 1 + 2^-27 (as above, for f64).
                    0x3ff0_0000_0200_0000,
                ])
                .collect()
        }
        _ => {
            let bits = 8 * dtype.size() as u32;
            let mask = u64::MAX >> (64 - bits);
            let signed = matches!(dtype, DType::I8 | DType::I16 | DType::I32 | DType::I64);
            let (min, max) = if signed { (1 << (bits - 1), mask >> 1) } else { (0, mask) };
            [min, min + 1, max, max - 1, 0, 1, 2, mask, mask - 1].iter().map(|v| v & mask).collect()
        }
    }
}

/// A moderate value of `dtype` (one in three of them exact small integers).
pub fn moderate(dtype: DType, r: u64) -> u64 {
    let v = (r % 2000) as f32 / if r.is_multiple_of(3) { 1.0 } else { 7.0 } - 140.0;
    match dtype {
        DType::F16 => f16::from_f32(v).to_bits() as u64,
        DType::BF16 => bf16::from_f32(v).to_bits() as u64,
        DType::F32 => v.to_bits() as u64,
        DType::F64 => ((r % 2000) as f64 / 7.0 - 140.0).to_bits(),
        _ => ((r % 2000) as i64 - 1000) as u64 & mask(dtype),
    }
}

pub fn mask(dtype: DType) -> u64 {
    u64::MAX >> (64 - 8 * dtype.size())
}

/// Special values first (so short inputs meet them), then seeded random bits and moderate values.
pub fn values(dtype: DType, n: usize, seed: u64) -> Vec<u64> {
    let specials = specials(dtype);
    let mut state = seed;
    (0..n)
        .map(|i| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = state >> 11;
            match (i + seed as usize) % 4 {
                0 => specials[(r % specials.len() as u64) as usize],
                1 => (r ^ (r << 53)) & mask(dtype),
                _ => moderate(dtype, r),
            }
        })
        .collect()
}

pub fn is_nan(dtype: DType, bits: u64) -> bool {
    match dtype {
        DType::F16 => f16::from_bits(bits as u16).is_nan(),
        DType::BF16 => bf16::from_bits(bits as u16).is_nan(),
        DType::F32 => f32::from_bits(bits as u32).is_nan(),
        DType::F64 => f64::from_bits(bits).is_nan(),
        _ => false,
    }
}
