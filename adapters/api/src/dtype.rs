//! Element types and their storage.

use std::fmt;
use std::str::FromStr;

use half::{bf16, f16};

/// The element type of a tensor. New dtypes are added as the contract grows, so matches
/// outside this crate need a wildcard arm.
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
    /// complex64: an f32 real part followed by an f32 imaginary part ([`Complex<f32>`]).
    C64,
    /// complex128: an f64 real part followed by an f64 imaginary part ([`Complex<f64>`]).
    C128,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 15] = [
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
        DType::C64,
        DType::C128,
    ];

    /// The lower-case name used in specs, suites and check ids (`f16`, `bf16`, `i32`, `bool`,
    /// `c64` for complex64, `c128` for complex128).
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
            DType::C64 => "c64",
            DType::C128 => "c128",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// True for the IEEE-style floating-point types.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// True for the eight integer types (not `bool`).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::I8
                | DType::I16
                | DType::I32
                | DType::I64
                | DType::U8
                | DType::U16
                | DType::U32
                | DType::U64
        )
    }

    /// True for the complex types (`c64`, `c128`).
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The real dtype of a complex dtype's components (`c64` → `f32`, `c128` → `f64`), or
    /// `None` for a real dtype.
    pub fn component(self) -> Option<DType> {
        match self {
            DType::C64 => Some(DType::F32),
            DType::C128 => Some(DType::F64),
            _ => None,
        }
    }

    /// The complex dtype whose components are `self` (`f32` → `c64`, `f64` → `c128`), or
    /// `None` where there is none.
    pub fn complex_of(self) -> Option<DType> {
        match self {
            DType::F32 => Some(DType::C64),
            DType::F64 => Some(DType::C128),
            _ => None,
        }
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
            #[inline]
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
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
    #[inline]
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    #[inline]
    fn read_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

/// One complex element: the real part, then the imaginary part (NumPy's and C99's layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex<T> {
    pub re: T,
    pub im: T,
}

impl<T> Complex<T> {
    pub const fn new(re: T, im: T) -> Complex<T> {
        Complex { re, im }
    }
}

macro_rules! complex_element {
    ($($ty:ty => $dtype:ident),* $(,)?) => {$(
        impl Element for Complex<$ty> {
            const DTYPE: DType = DType::$dtype;
            fn write_le(self, out: &mut Vec<u8>) {
                self.re.write_le(out);
                self.im.write_le(out);
            }
            fn read_le(bytes: &[u8]) -> Self {
                let half = std::mem::size_of::<$ty>();
                Complex { re: <$ty>::read_le(&bytes[..half]), im: <$ty>::read_le(&bytes[half..]) }
            }
        }
    )*};
}

complex_element!(f32 => C64, f64 => C128);

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
        assert_eq!(std::mem::size_of::<Complex<f32>>(), DType::C64.size());
        assert_eq!(std::mem::size_of::<Complex<f64>>(), DType::C128.size());
    }

    #[test]
    fn complex_elements_are_real_then_imaginary() {
        let mut v = Vec::new();
        Complex::new(1.0f32, -2.0f32).write_le(&mut v);
        assert_eq!(v[..4], 1.0f32.to_le_bytes());
        assert_eq!(v[4..], (-2.0f32).to_le_bytes());
        assert_eq!(Complex::<f32>::read_le(&v), Complex::new(1.0, -2.0));
        let mut w = Vec::new();
        Complex::new(f64::NAN, -0.0).write_le(&mut w);
        let back = Complex::<f64>::read_le(&w);
        assert!(back.re.is_nan() && back.im.to_bits() == (-0.0f64).to_bits());
        assert_eq!(DType::C64.component(), Some(DType::F32));
        assert_eq!(DType::F64.complex_of(), Some(DType::C128));
        assert!(DType::C128.is_complex() && !DType::C128.is_float());
        let integers: Vec<DType> = DType::ALL.into_iter().filter(|d| d.is_integer()).collect();
        assert_eq!(integers.len(), 8);
        assert!(integers.iter().all(|d| !d.is_float() && !d.is_complex() && *d != DType::Bool));
    }
}
