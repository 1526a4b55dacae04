//! Element types and their storage.

use std::fmt;
use std::str::FromStr;

use half::{bf16, f16};

/// The element type of a tensor. New dtypes (complex ones among them) are added as the
/// contract grows, so matches outside this crate need a wildcard arm.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    F16,
    BF16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 13] = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::Bool,
    ];

    /// The lower-case name used in specs, suites and check ids (`f16`, `bf16`, `i32`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::Bool => "bool",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// True for the IEEE-style floating-point types.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DType::ALL.into_iter().find(|d| d.name() == s).ok_or_else(|| {
            let names: Vec<_> = DType::ALL.iter().map(|d| d.name()).collect();
            format!("unknown dtype `{s}` (expected one of {})", names.join(", "))
        })
    }
}

/// A Rust type that stores one element of a [`DType`].
///
/// Elements are moved in and out of tensors as little-endian bytes, so a tensor's buffer has
/// the same layout on every host.
pub trait Element: Copy + Send + Sync + 'static {
    /// The dtype this type stores.
    const DTYPE: DType;
    /// Appends the element's little-endian bytes.
    fn write_le(self, out: &mut Vec<u8>);
    /// Reads an element from exactly `DTYPE.size()` little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! numeric_element {
    ($($ty:ty => $dtype:ident),* $(,)?) => {$(
        impl Element for $ty {
            const DTYPE: DType = DType::$dtype;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$ty>()];
                raw.copy_from_slice(bytes);
                <$ty>::from_le_bytes(raw)
            }
        }
    )*};
}

numeric_element!(
    f16 => F16, bf16 => BF16, f32 => F32, f64 => F64,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn read_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>(), Ok(d));
        }
        assert!("float32".parse::<DType>().unwrap_err().contains("unknown dtype"));
    }

    #[test]
    fn element_sizes_match_dtype_sizes() {
        fn size_of<T: Element>() -> usize {
            let mut v = Vec::new();
            T::read_le(&[0u8; 8][..T::DTYPE.size()]).write_le(&mut v);
            v.len()
        }
        assert_eq!(size_of::<f16>(), DType::F16.size());
        assert_eq!(size_of::<bf16>(), DType::BF16.size());
        assert_eq!(size_of::<f64>(), DType::F64.size());
        assert_eq!(size_of::<u32>(), DType::U32.size());
        assert_eq!(size_of::<bool>(), DType::Bool.size());
    }
}
