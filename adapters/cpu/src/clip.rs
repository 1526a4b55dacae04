//! `clip(x, min, max)`: `x` clamped to `[min, max]`, the three tensors broadcast together
//! (NumPy's rules), in one float dtype.
//!
//! A NaN operand gives that NaN (x's first, then min's, then max's), as the array API's
//! special cases require; otherwise the result is `min` below it, `max` above it, and `x`
//! itself between (so a zero `x` at a zero bound keeps its sign). Crossed bounds
//! (`min > max`, unspecified by the standard) give `max` above and `min` below `x`.

use half::{bf16, f16};
use opspec_adapter::{AdapterError, DType, Element, ErrorKind, Tensor};

use crate::broadcast::{broadcast_shapes, broadcast_to};

/// `clip(x, lo, hi)` element by element.
pub fn clip(x: &Tensor, lo: &Tensor, hi: &Tensor) -> Result<Tensor, AdapterError> {
    if x.dtype() != lo.dtype() || x.dtype() != hi.dtype() {
        return Err(AdapterError::new(
            ErrorKind::DTypeMismatch,
            format!("clip needs one dtype, got {}, {} and {}", x.dtype(), lo.dtype(), hi.dtype()),
        ));
    }
    let shape = broadcast_shapes(&broadcast_shapes(x.shape(), lo.shape())?, hi.shape())?;
    let operands = [x, lo, hi].map(|t| broadcast_to(t, &shape));
    let [x, lo, hi] = operands;
    let (x, lo, hi) = (x?, lo?, hi?);
    match x.dtype() {
        DType::F16 => clip_all::<f16>(&x, &lo, &hi, &shape),
        DType::BF16 => clip_all::<bf16>(&x, &lo, &hi, &shape),
        DType::F32 => clip_all::<f32>(&x, &lo, &hi, &shape),
        DType::F64 => clip_all::<f64>(&x, &lo, &hi, &shape),
        other => Err(AdapterError::unsupported(format!("clip is not implemented for {other}"))),
    }
}

fn clip_all<T: Element + PartialOrd>(
    x: &Tensor,
    lo: &Tensor,
    hi: &Tensor,
    shape: &[usize],
) -> Result<Tensor, AdapterError> {
    let (xs, los, his) = (x.to_vec::<T>()?, lo.to_vec::<T>()?, hi.to_vec::<T>()?);
    let out: Vec<T> = xs.into_iter().zip(los).zip(his).map(|((x, lo), hi)| clip_one(x, lo, hi)).collect();
    Tensor::from_slice(&out, shape)
}

/// One element: NaN (unordered with itself) first, then the bounds.
fn clip_one<T: PartialOrd + Copy>(x: T, lo: T, hi: T) -> T {
    let is_nan = |v: T| v.partial_cmp(&v).is_none();
    match () {
        _ if is_nan(x) => x,
        _ if is_nan(lo) => lo,
        _ if is_nan(hi) => hi,
        _ if x < lo => lo,
        _ if x > hi => hi,
        _ => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_and_broadcasts() {
        let x = Tensor::from_slice(&[-2.0f32, 0.5, 7.0, f32::NAN, -0.0, 3.0], &[2, 3]).unwrap();
        let lo = Tensor::from_slice(&[0.0f32], &[1]).unwrap();
        let hi = Tensor::from_slice(&[1.0f32, 1.0, 1.0], &[3]).unwrap();
        let out = clip(&x, &lo, &hi).unwrap();
        assert_eq!(out.shape(), &[2, 3]);
        let v = out.to_vec::<f32>().unwrap();
        assert_eq!(&v[..3], &[0.0, 0.5, 1.0]);
        assert!(v[3].is_nan());
        assert_eq!(v[4].to_bits(), 0x8000_0000, "-0 is within [+0, 1]: x itself");
        assert_eq!(v[5], 1.0);
        let nan_bound = Tensor::from_slice(&[f16::NAN], &[1]).unwrap();
        let one = Tensor::from_slice(&[f16::ONE], &[1]).unwrap();
        assert!(clip(&one, &nan_bound, &one).unwrap().to_vec::<f16>().unwrap()[0].is_nan());
        assert!(clip(&one, &one, &nan_bound).unwrap().to_vec::<f16>().unwrap()[0].is_nan());
    }

    #[test]
    fn refuses_mixed_dtypes_and_shapes() {
        let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let wide = Tensor::from_slice(&[1.0f64], &[1]).unwrap();
        assert_eq!(clip(&x, &wide, &x).unwrap_err().kind, ErrorKind::DTypeMismatch);
        let three = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
        assert_eq!(clip(&x, &three, &x).unwrap_err().kind, ErrorKind::ShapeMismatch);
    }
}
