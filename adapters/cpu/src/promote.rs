//! Dtype promotion for mixed operands and Python scalars.
//!
//! Tensor with tensor: the array API's lattice (integers of one signedness widen; a signed and
//! an unsigned integer meet in the smallest signed type holding both; floats widen), extended to
//! f16 and bf16 (which meet in f32); a real float with a complex dtype gives the complex dtype
//! of the wider of the two (f64 with c64 is c128). Integers with floats are refused: the array
//! API leaves them unspecified. A Python scalar takes the tensor's dtype, except a Python float with an
//! integer tensor, which gives the default float, f32 (MegEngine's rule). Integer true division
//! also gives f32.

use half::{bf16, f16};
use opspec_adapter::{AdapterError, DType, ErrorKind, Scalar, Tensor};

/// The dtype two tensor operands promote to.
pub fn promote(a: DType, b: DType) -> Result<DType, AdapterError> {
    use DType::*;
    if a == b {
        return Ok(a);
    }
    let rank = |d: DType| match d {
        I8 | U8 => 8,
        I16 | U16 => 16,
        I32 | U32 => 32,
        I64 | U64 => 64,
        _ => 0,
    };
    let signed = |d: DType| matches!(d, I8 | I16 | I32 | I64);
    let unsigned = |d: DType| matches!(d, U8 | U16 | U32 | U64);
    let refuse =
        || AdapterError::new(ErrorKind::DTypeMismatch, format!("opspec-cpu does not promote {a} with {b}"));
    Ok(match (a, b) {
        // The array API's floating-point table: a complex dtype with its own or a narrower
        // real dtype keeps its width; c64 with f64 or c128 widens to c128.
        (C64 | C128, _) | (_, C64 | C128) => {
            let width = |d: DType| match d {
                C128 | F64 => 2,
                C64 | F32 | F16 | BF16 => 1,
                _ => 0,
            };
            match width(a).min(width(b)) {
                0 => return Err(refuse()),
                _ if width(a).max(width(b)) == 2 => C128,
                _ => C64,
            }
        }
        (F16, BF16) | (BF16, F16) => F32,
        (F16 | BF16 | F32, F32) | (F32, F16 | BF16) => F32,
        (F16 | BF16 | F32 | F64, F64) | (F64, F16 | BF16 | F32) => F64,
        _ if signed(a) && signed(b) || unsigned(a) && unsigned(b) => {
            if rank(a) >= rank(b) {
                a
            } else {
                b
            }
        }
        _ if signed(a) && unsigned(b) || unsigned(a) && signed(b) => {
            let (s, u) = if signed(a) { (a, b) } else { (b, a) };
            match rank(u) {
                r if r < rank(s) => s,
                8 => I16,
                16 => I32,
                32 => I64,
                _ => return Err(refuse()),
            }
        }
        _ => return Err(refuse()),
    })
}

/// The dtype of `op(tensor, scalar)` under Python-scalar rules.
pub fn with_scalar(tensor: DType, scalar: Scalar) -> DType {
    match scalar {
        Scalar::Float(_) if !tensor.is_float() => DType::F32,
        _ => tensor,
    }
}

/// A rank-0 tensor holding `scalar` in `dtype`, or an error when it does not fit.
pub fn scalar_tensor(scalar: Scalar, dtype: DType) -> Result<Tensor, AdapterError> {
    let value = match scalar {
        Scalar::Int(i) => Value::Int(i as i128),
        Scalar::Float(f) => Value::Float(f),
    };
    let bits = value.bits_in(dtype).ok_or_else(|| {
        AdapterError::new(ErrorKind::OutOfRange, format!("the scalar {scalar:?} does not fit {dtype}"))
    })?;
    Tensor::from_bits(dtype, &[], &[bits])
}

/// A copy of `t` converted to `dtype` (exact for every widening conversion; floats from
/// integers round to nearest).
pub fn cast(t: &Tensor, dtype: DType) -> Result<Tensor, AdapterError> {
    if t.dtype() == dtype {
        return Ok(t.clone());
    }
    let from = t.dtype();
    let bits = t
        .to_bits()
        .into_iter()
        .map(|x| {
            Value::read(from, x).bits_in(dtype).ok_or_else(|| {
                AdapterError::new(ErrorKind::OutOfRange, format!("a {from} value does not fit {dtype}"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Tensor::from_bits(dtype, t.shape(), &bits)
}

/// One element's value, wide enough for every dtype.
#[derive(Clone, Copy, Debug)]
enum Value {
    Int(i128),
    Float(f64),
}

impl Value {
    fn read(dtype: DType, x: u64) -> Value {
        match dtype {
            DType::F16 => Value::Float(f16::from_bits(x as u16).to_f64()),
            DType::BF16 => Value::Float(bf16::from_bits(x as u16).to_f64()),
            DType::F32 => Value::Float(f32::from_bits(x as u32) as f64),
            DType::F64 => Value::Float(f64::from_bits(x)),
            DType::I8 => Value::Int(x as i8 as i128),
            DType::I16 => Value::Int(x as i16 as i128),
            DType::I32 => Value::Int(x as i32 as i128),
            DType::I64 => Value::Int(x as i64 as i128),
            _ => Value::Int(x as i128),
        }
    }

    /// The bits of this value in `dtype`; `None` for an integer out of range or a float
    /// given to an integer dtype.
    fn bits_in(self, dtype: DType) -> Option<u64> {
        let float = match self {
            Value::Float(f) => f,
            Value::Int(i) => i as f64,
        };
        let int = |lo: i128, hi: i128| match self {
            Value::Int(i) if (lo..=hi).contains(&i) => Some(i as u64 & (((hi - lo) as u128) as u64)),
            _ => None,
        };
        match dtype {
            DType::F16 => Some(f16::from_f64(float).to_bits() as u64),
            DType::BF16 => Some(bf16::from_f64(float).to_bits() as u64),
            DType::F32 => Some((float as f32).to_bits() as u64),
            DType::F64 => Some(float.to_bits()),
            DType::I8 => int(i8::MIN as i128, i8::MAX as i128),
            DType::I16 => int(i16::MIN as i128, i16::MAX as i128),
            DType::I32 => int(i32::MIN as i128, i32::MAX as i128),
            DType::I64 => int(i64::MIN as i128, i64::MAX as i128),
            DType::U8 => int(0, u8::MAX as i128),
            DType::U16 => int(0, u16::MAX as i128),
            DType::U32 => int(0, u32::MAX as i128),
            DType::U64 => int(0, u64::MAX as i128),
            DType::Bool => match self {
                Value::Int(i @ (0 | 1)) => Some(i as u64),
                _ => None,
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn array_api_lattice() {
        assert_eq!(promote(F32, C64).unwrap(), C64);
        assert_eq!(promote(C64, F64).unwrap(), C128);
        assert_eq!(promote(C64, C128).unwrap(), C128);
        assert_eq!(promote(C128, F16).unwrap(), C128);
        assert!(promote(I32, C64).is_err());
        assert_eq!(promote(I8, U8).unwrap(), I16);
        assert_eq!(promote(U16, I8).unwrap(), I32);
        assert_eq!(promote(U32, I64).unwrap(), I64);
        assert_eq!(promote(U8, U32).unwrap(), U32);
        assert_eq!(promote(F32, F64).unwrap(), F64);
        assert_eq!(promote(F16, BF16).unwrap(), F32);
        assert!(promote(U64, I64).is_err());
        assert!(promote(I32, F32).is_err());
    }

    #[test]
    fn casts_and_scalars() {
        let t = Tensor::from_slice(&[-1i8, 2], &[2]).unwrap();
        assert_eq!(cast(&t, I16).unwrap().to_vec::<i16>().unwrap(), vec![-1, 2]);
        assert!(cast(&t, U8).is_err());
        assert_eq!(scalar_tensor(Scalar::Int(-3), I32).unwrap().to_vec::<i32>().unwrap(), vec![-3]);
        assert!(scalar_tensor(Scalar::Int(300), U8).is_err());
        assert_eq!(with_scalar(I32, Scalar::Int(2)), I32);
        assert_eq!(with_scalar(I32, Scalar::Float(0.5)), F32);
        assert_eq!(with_scalar(F16, Scalar::Float(0.5)), F16);
    }
}
