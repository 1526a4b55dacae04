//! How to read the raw bits of one element of any dtype: a float format, an integer width, or
//! a boolean.

use opspec_adapter::DType;

use crate::bits::format::Format;

/// A two's-complement or unsigned integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntFormat {
    pub bits: u32,
    pub signed: bool,
}

impl IntFormat {
    /// Bool's values, 0 and 1, as a one-bit unsigned type.
    pub const BOOL: IntFormat = IntFormat { bits: 1, signed: false };

    /// The integers `dtype` holds: an integer dtype's type, [`IntFormat::BOOL`] for bool,
    /// `None` for the float and complex dtypes.
    pub fn holding(dtype: DType) -> Option<IntFormat> {
        if dtype == DType::Bool { Some(IntFormat::BOOL) } else { IntFormat::of(dtype) }
    }

    /// The integer type of `dtype`, or `None` for floats and bool.
    pub fn of(dtype: DType) -> Option<IntFormat> {
        let (bits, signed) = match dtype {
            DType::I8 => (8, true),
            DType::I16 => (16, true),
            DType::I32 => (32, true),
            DType::I64 => (64, true),
            DType::U8 => (8, false),
            DType::U16 => (16, false),
            DType::U32 => (32, false),
            DType::U64 => (64, false),
            _ => return None,
        };
        Some(IntFormat { bits, signed })
    }

    pub fn min(self) -> i128 {
        if self.signed { -(1i128 << (self.bits - 1)) } else { 0 }
    }

    pub fn max(self) -> i128 {
        if self.signed { (1i128 << (self.bits - 1)) - 1 } else { (1i128 << self.bits) - 1 }
    }

    fn mask(self) -> u64 {
        if self.bits == 64 { u64::MAX } else { (1u64 << self.bits) - 1 }
    }

    /// The value of raw bits.
    pub fn value(self, x: u64) -> i128 {
        let x = x & self.mask();
        if self.signed && x >> (self.bits - 1) & 1 == 1 {
            x as i128 - (1i128 << self.bits)
        } else {
            x as i128
        }
    }

    /// The bits of `v` reduced modulo 2^bits (two's-complement wrapping).
    pub fn wrap(self, v: i128) -> u64 {
        (v as u64) & self.mask()
    }

    /// True when `v` is representable.
    pub fn contains(self, v: i128) -> bool {
        (self.min()..=self.max()).contains(&v)
    }
}

/// The value domain of a dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    Float(Format),
    Int(IntFormat),
    Bool,
}

impl Domain {
    pub fn of(dtype: DType) -> Domain {
        match (Format::of(dtype), IntFormat::of(dtype)) {
            (Some(f), _) => Domain::Float(f),
            (None, Some(i)) => Domain::Int(i),
            (None, None) => Domain::Bool,
        }
    }

    /// The bits of `v` in this domain, if it holds `v` exactly (a float rounds nowhere, an
    /// integer is whole and in range, a bool is 0 or 1).
    pub fn exact_bits(self, v: f64) -> Option<u64> {
        match self {
            Domain::Float(f) => f.from_f64_exact(v),
            Domain::Int(i) => (v.fract() == 0.0 && i.contains(v as i128)).then(|| i.wrap(v as i128)),
            Domain::Bool => (v == 0.0 || v == 1.0).then_some(v as u64),
        }
    }

    /// The value as text for reports: decimal, hex-float and bits for floats.
    pub fn describe(self, x: u64) -> String {
        match self {
            Domain::Float(f) => f.describe(x),
            Domain::Int(i) => format!("{} (0x{:x})", i.value(x), i.wrap(i.value(x))),
            Domain::Bool => (x != 0).to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_values_and_wrapping() {
        let i8f = IntFormat::of(DType::I8).unwrap();
        assert_eq!((i8f.min(), i8f.max()), (-128, 127));
        assert_eq!(i8f.value(0xff), -1);
        assert_eq!(i8f.wrap(128), 0x80);
        assert_eq!(i8f.value(i8f.wrap(128)), -128);
        let u64f = IntFormat::of(DType::U64).unwrap();
        assert_eq!(u64f.value(u64::MAX), u64::MAX as i128);
        assert_eq!(u64f.wrap(-1), u64::MAX);
        assert!(!u64f.contains(-1) && u64f.contains(u64::MAX as i128));
    }

    #[test]
    fn describe_each_domain() {
        assert_eq!(Domain::of(DType::I16).describe(0xfffe), "-2 (0xfffe)");
        assert_eq!(Domain::of(DType::Bool).describe(1), "true");
        assert_eq!(Domain::of(DType::F16).describe(0x3c00), "1.0 (0x1.000p+0, 0x3c00)");
    }
}

/// A number as a table writes it, checked against its dtype but not yet rounded into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// An integer dtype's value, in range.
    Integer(i128),
    /// A float dtype's decimal (`-0.1`, `3`, `1e5`), to be rounded once into the format.
    Decimal(String),
    /// `nan`, `+nan`, `-nan`.
    Nan { negative: bool },
    /// `inf`, `+inf`, `-inf`.
    Infinity { negative: bool },
}

impl Literal {
    /// Reads `text` as a value of `dtype`: an integer in range for integer dtypes; a decimal
    /// (digits, an optional fraction and an exponent of at most six digits), `nan` or `inf`
    /// with an optional sign for float dtypes.
    pub fn parse(dtype: DType, text: &str) -> Result<Literal, String> {
        let t = text.trim();
        if Format::of(dtype).is_none() {
            let int = IntFormat::of(dtype).ok_or_else(|| format!("{dtype} holds no numbers"))?;
            let v: i128 = t.parse().map_err(|_| format!("`{text}` is not an integer"))?;
            if !int.contains(v) {
                return Err(format!("{v} is outside {dtype} [{}, {}]", int.min(), int.max()));
            }
            return Ok(Literal::Integer(v));
        }
        let negative = t.starts_with('-');
        let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
        match digits {
            "nan" => return Ok(Literal::Nan { negative }),
            "inf" => return Ok(Literal::Infinity { negative }),
            _ => {}
        }
        let (mantissa, exponent) = digits.split_once(['e', 'E']).unwrap_or((digits, "0"));
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        let exp_digits = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        if int.is_empty() && frac.is_empty()
            || !all_digits(int)
            || !all_digits(frac)
            || exp_digits.is_empty()
            || !all_digits(exp_digits)
            || exp_digits.len() > 6
        {
            return Err(format!("`{text}` is not a decimal number, nan, inf or -inf"));
        }
        Ok(Literal::Decimal(t.to_string()))
    }
}

/// Reads an operand of `opspec eval` as written on the command line: `0x` and hex digits
/// (`0x3c00`), at most 64 bits.
pub fn operand_bits(text: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| format!("`{text}`: operand bits are written as 0x and hex digits only (0x3c00)"))?;
    u64::from_str_radix(digits, 16).map_err(|e| format!("`{text}`: {e}"))
}

/// A value as text: floats in decimal, hex-float and bits; integers in decimal and hex.
pub fn describe_value(dtype: DType, bits: u64) -> String {
    match (Format::of(dtype), IntFormat::of(dtype)) {
        (Some(f), _) => f.describe(bits),
        (None, Some(int)) => format!("{} (0x{bits:0w$x})", int.value(bits), w = dtype.size() * 2),
        (None, None) => (bits != 0).to_string(),
    }
}
