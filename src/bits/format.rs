//! Bit-level facts about the IEEE-style binary formats (f16, bf16, f32, f64).
//!
//! Values travel through the harness as raw bits in a `u64`; a [`Format`] says how to read
//! them. Nothing here rounds: arithmetic belongs to the oracle.

use opspec_adapter::DType;

/// An IEEE 754 binary interchange format (or bfloat16, which follows the same rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    /// Name as used in specs (`f16`, `bf16`, `f32`, `f64`).
    pub name: &'static str,
    /// Total width in bits.
    pub bits: u32,
    /// Width of the biased exponent field.
    pub exp_bits: u32,
    /// Width of the stored fraction (trailing significand) field.
    pub frac_bits: u32,
}

impl Format {
    pub const F16: Format = Format { name: "f16", bits: 16, exp_bits: 5, frac_bits: 10 };
    pub const BF16: Format = Format { name: "bf16", bits: 16, exp_bits: 8, frac_bits: 7 };
    pub const F32: Format = Format { name: "f32", bits: 32, exp_bits: 8, frac_bits: 23 };
    pub const F64: Format = Format { name: "f64", bits: 64, exp_bits: 11, frac_bits: 52 };

    /// The format of a floating-point dtype, or `None` for integers and bool.
    pub fn of(dtype: DType) -> Option<Format> {
        match dtype {
            DType::F16 => Some(Format::F16),
            DType::BF16 => Some(Format::BF16),
            DType::F32 => Some(Format::F32),
            DType::F64 => Some(Format::F64),
            _ => None,
        }
    }

    /// Significand precision in bits, the hidden bit included.
    pub fn precision(self) -> u32 {
        self.frac_bits + 1
    }

    /// Exponent bias.
    pub fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// Largest unbiased exponent of a finite value (`x = 1.f × 2^e`).
    pub fn emax(self) -> i32 {
        self.bias()
    }

    /// Smallest unbiased exponent of a normal value.
    pub fn emin(self) -> i32 {
        1 - self.bias()
    }

    pub fn sign_mask(self) -> u64 {
        1 << (self.bits - 1)
    }

    pub fn exp_mask(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.frac_bits
    }

    pub fn frac_mask(self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }

    /// Mask of all bits of the format.
    pub fn all_mask(self) -> u64 {
        if self.bits == 64 { u64::MAX } else { (1u64 << self.bits) - 1 }
    }

    /// Builds bits from a sign, a biased exponent field and a fraction field.
    pub fn compose(self, negative: bool, biased_exp: u64, frac: u64) -> u64 {
        let sign = if negative { self.sign_mask() } else { 0 };
        sign | ((biased_exp << self.frac_bits) & self.exp_mask()) | (frac & self.frac_mask())
    }

    pub fn biased_exp(self, x: u64) -> u64 {
        (x & self.exp_mask()) >> self.frac_bits
    }

    pub fn frac(self, x: u64) -> u64 {
        x & self.frac_mask()
    }

    pub fn is_sign_negative(self, x: u64) -> bool {
        x & self.sign_mask() != 0
    }

    pub fn is_nan(self, x: u64) -> bool {
        x & self.exp_mask() == self.exp_mask() && self.frac(x) != 0
    }

    pub fn is_infinite(self, x: u64) -> bool {
        x & !self.sign_mask() & self.all_mask() == self.exp_mask()
    }

    pub fn is_finite(self, x: u64) -> bool {
        x & self.exp_mask() != self.exp_mask()
    }

    pub fn is_zero(self, x: u64) -> bool {
        x & !self.sign_mask() & self.all_mask() == 0
    }

    pub fn is_subnormal(self, x: u64) -> bool {
        self.biased_exp(x) == 0 && self.frac(x) != 0
    }

    /// `x`, or the zero of its sign where it is subnormal (what flush-to-zero and
    /// denormals-are-zero make of it).
    pub fn flush_subnormal(self, x: u64) -> u64 {
        if self.is_subnormal(x) { x & self.sign_mask() } else { x }
    }

    /// Flips the sign bit.
    pub fn neg(self, x: u64) -> u64 {
        x ^ self.sign_mask()
    }

    /// Clears the sign bit.
    pub fn abs(self, x: u64) -> u64 {
        x & !self.sign_mask()
    }

    pub fn pos_zero(self) -> u64 {
        0
    }

    pub fn neg_zero(self) -> u64 {
        self.sign_mask()
    }

    pub fn pos_inf(self) -> u64 {
        self.exp_mask()
    }

    pub fn neg_inf(self) -> u64 {
        self.sign_mask() | self.exp_mask()
    }

    /// The default quiet NaN (positive, quiet bit set, no payload).
    pub fn quiet_nan(self) -> u64 {
        self.exp_mask() | (1 << (self.frac_bits - 1))
    }

    pub fn max_finite(self) -> u64 {
        self.exp_mask() - 1
    }

    pub fn min_normal(self) -> u64 {
        1 << self.frac_bits
    }

    pub fn max_subnormal(self) -> u64 {
        self.frac_mask()
    }

    pub fn min_subnormal(self) -> u64 {
        1
    }

    /// `+1.0`.
    pub fn one(self) -> u64 {
        (self.bias() as u64) << self.frac_bits
    }

    /// The exact value as an `f64` (every f16, bf16 and f32 value is an f64 value).
    pub fn to_f64(self, x: u64) -> f64 {
        if self == Format::F64 {
            return f64::from_bits(x);
        }
        let negative = self.is_sign_negative(x);
        let magnitude = if self.is_nan(x) {
            f64::NAN
        } else if self.is_infinite(x) {
            f64::INFINITY
        } else {
            let (significand, exp) = if self.biased_exp(x) == 0 {
                (self.frac(x), self.emin())
            } else {
                (self.frac(x) | (1 << self.frac_bits), self.biased_exp(x) as i32 - self.bias())
            };
            // significand × 2^(exp - frac_bits); the power of two is a normal f64 here.
            let scale = f64::from_bits(((exp - self.frac_bits as i32 + 1023) as u64) << 52);
            significand as f64 * scale
        };
        if negative { -magnitude } else { magnitude }
    }

    /// The format's value of an `f64` that it represents exactly, else `None`.
    pub fn from_f64_exact(self, v: f64) -> Option<u64> {
        if self == Format::F64 {
            return Some(v.to_bits());
        }
        if v.is_nan() {
            let sign = if v.is_sign_negative() { self.sign_mask() } else { 0 };
            return Some(sign | self.quiet_nan());
        }
        let negative = v.is_sign_negative();
        let bits = if v.is_infinite() {
            self.pos_inf()
        } else if v == 0.0 {
            0
        } else {
            // Search the format's ordered magnitudes: fine for the 16- and 32-bit formats.
            let target = v.abs();
            let (mut lo, mut hi) = (0u64, self.max_finite());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if self.to_f64(mid) < target { lo = mid + 1 } else { hi = mid }
            }
            if self.to_f64(lo) != target {
                return None;
            }
            lo
        };
        Some(if negative { bits | self.sign_mask() } else { bits })
    }

    /// Position of a non-NaN value on the ordered line of all values, so that neighbouring
    /// values differ by one (both zeros map to 0).
    pub fn ordinal(self, x: u64) -> i64 {
        let magnitude = self.abs(x) as i64;
        if self.is_sign_negative(x) { -magnitude } else { magnitude }
    }

    /// The value as text: decimal, hex-float and raw bits, for failure messages.
    pub fn describe(self, x: u64) -> String {
        let width = (self.bits / 4) as usize;
        format!("{} ({}, 0x{x:0width$x})", self.decimal(x), self.hex_float(x))
    }

    /// Shortest decimal text that identifies the value (NaNs show sign and payload).
    pub fn decimal(self, x: u64) -> String {
        if self.is_nan(x) {
            let sign = if self.is_sign_negative(x) { "-" } else { "" };
            return format!("{sign}NaN(0x{:x})", self.frac(x));
        }
        let v = self.to_f64(x);
        if v == 0.0 && v.is_sign_negative() { "-0".to_string() } else { format!("{v:?}") }
    }

    /// C99-style hexadecimal floating-point text, e.g. `-0x1.8p+1`.
    pub fn hex_float(self, x: u64) -> String {
        let sign = if self.is_sign_negative(x) { "-" } else { "" };
        if self.is_nan(x) {
            return format!("{sign}nan");
        }
        if self.is_infinite(x) {
            return format!("{sign}inf");
        }
        if self.is_zero(x) {
            return format!("{sign}0x0p+0");
        }
        let digits = self.frac_bits.div_ceil(4);
        let frac = self.frac(x) << (digits * 4 - self.frac_bits);
        let width = digits as usize;
        let (lead, exp) = if self.biased_exp(x) == 0 {
            (0, self.emin())
        } else {
            (1, self.biased_exp(x) as i32 - self.bias())
        };
        format!("{sign}0x{lead}.{frac:0width$x}p{exp:+}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_have_the_textbook_values() {
        assert_eq!(Format::F16.to_f64(Format::F16.max_finite()), 65504.0);
        assert_eq!(Format::F16.to_f64(Format::F16.min_subnormal()), 2f64.powi(-24));
        assert_eq!(Format::BF16.to_f64(Format::BF16.min_normal()), 2f64.powi(-126));
        assert_eq!(Format::F32.to_f64(Format::F32.max_finite()), f32::MAX as f64);
        assert_eq!(Format::F64.to_f64(Format::F64.min_subnormal()), 5e-324);
        assert_eq!(Format::BF16.one(), 0x3f80);
        assert_eq!(Format::F16.quiet_nan(), 0x7e00);
    }

    #[test]
    fn to_f64_agrees_with_native_f32() {
        for bits in [0u64, 1, 0x7f7f_ffff, 0x8000_0001, 0x3f80_0000, 0xc049_0fdb, 0x0080_0000] {
            assert_eq!(Format::F32.to_f64(bits), f32::from_bits(bits as u32) as f64);
        }
    }

    #[test]
    fn from_f64_exact_inverts_to_f64() {
        for f in [Format::F16, Format::BF16, Format::F32] {
            for bits in [0u64, 1, f.max_finite(), f.min_normal(), f.one(), f.neg(f.one()), f.pos_inf()] {
                assert_eq!(f.from_f64_exact(f.to_f64(bits)), Some(bits), "{} {bits:x}", f.name);
            }
        }
        assert_eq!(Format::F16.from_f64_exact(0.1), None);
    }

    #[test]
    fn text_forms() {
        assert_eq!(Format::F32.hex_float(0xc040_0000), "-0x1.800000p+1");
        assert_eq!(Format::F16.hex_float(0x0001), "0x0.004p-14");
        assert_eq!(Format::F16.decimal(0x8000), "-0");
        assert_eq!(Format::F16.decimal(0xfe01), "-NaN(0x201)");
        assert_eq!(Format::BF16.describe(0x3f80), "1.0 (0x1.00p+0, 0x3f80)");
    }
}
