//! An opspec adapter that drives the real numr crate (`numr = "=0.14.0"`, CPU runtime) through
//! its `BinaryOps` trait: add, sub, mul, div, pow, maximum, minimum, atan2, fused_mul_add,
//! fused_add_mul and add_into, in f16, bf16, f32, f64 and the eight integer dtypes; and through
//! its `UnaryOps` trait, the 30 methods that are array API functions (`neg` as `negative`,
//! `recip` as `reciprocal`, `round_ties_even` as `round`, whose ties go to even as the
//! standard's do; numr's `round` rounds them away from zero), in the float and integer dtypes. numr has no
//! `isfinite`, `signbit` or `positive`. Results cross as numr returns them: its `isnan` and
//! `isinf` return U8 tensors (documented in `UnaryOps`), not bool.
//!
//! Operands cross as raw little-endian bytes (`Tensor::from_bytes`, `Tensor::to_bytes`), so no
//! value is converted on the way in or out. A view that permutes a dense buffer (a transpose)
//! reaches numr as a numr view of the same layout, so numr's strided paths and `add_into`'s
//! contiguity check are what is tested; other strided views (steps, reversals, offsets) are
//! copied to contiguous tensors first.

use std::panic::{AssertUnwindSafe, catch_unwind};

use numr::dtype::DType as NumrDType;
use numr::error::Error as NumrError;
use numr::prelude::{BinaryOps, CpuDevice, CpuRuntime, Runtime, UnaryOps};
use numr::tensor::Tensor as NumrTensor;
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, DType, ErrorKind, OpKind, Reach, Support, Tensor, TernaryOp, UnaryOp,
};

/// numr's CPU runtime, as an opspec adapter.
pub struct NumrAdapter {
    device: CpuDevice,
}

impl NumrAdapter {
    /// An adapter over numr's default CPU device.
    pub fn new() -> NumrAdapter {
        NumrAdapter { device: CpuDevice::new() }
    }
}

impl Default for NumrAdapter {
    fn default() -> Self {
        NumrAdapter::new()
    }
}

/// The `BinaryOps` methods this adapter calls.
const BINARY: [BinaryOp; 8] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Pow,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Atan2,
];

/// The array API functions `UnaryOps` has, each with the numr method it calls.
fn unary_method(op: UnaryOp) -> Option<UnaryMethod> {
    use UnaryOp::*;
    type C = numr::runtime::cpu::CpuClient;
    Some(match op {
        Abs => <C as UnaryOps<CpuRuntime>>::abs,
        Acos => <C as UnaryOps<CpuRuntime>>::acos,
        Acosh => <C as UnaryOps<CpuRuntime>>::acosh,
        Asin => <C as UnaryOps<CpuRuntime>>::asin,
        Asinh => <C as UnaryOps<CpuRuntime>>::asinh,
        Atan => <C as UnaryOps<CpuRuntime>>::atan,
        Atanh => <C as UnaryOps<CpuRuntime>>::atanh,
        Ceil => <C as UnaryOps<CpuRuntime>>::ceil,
        Cos => <C as UnaryOps<CpuRuntime>>::cos,
        Cosh => <C as UnaryOps<CpuRuntime>>::cosh,
        Exp => <C as UnaryOps<CpuRuntime>>::exp,
        Expm1 => <C as UnaryOps<CpuRuntime>>::expm1,
        Floor => <C as UnaryOps<CpuRuntime>>::floor,
        Isinf => <C as UnaryOps<CpuRuntime>>::isinf,
        Isnan => <C as UnaryOps<CpuRuntime>>::isnan,
        Log => <C as UnaryOps<CpuRuntime>>::log,
        Log1p => <C as UnaryOps<CpuRuntime>>::log1p,
        Log2 => <C as UnaryOps<CpuRuntime>>::log2,
        Log10 => <C as UnaryOps<CpuRuntime>>::log10,
        Negative => <C as UnaryOps<CpuRuntime>>::neg,
        Reciprocal => <C as UnaryOps<CpuRuntime>>::recip,
        Round => <C as UnaryOps<CpuRuntime>>::round_ties_even,
        Sign => <C as UnaryOps<CpuRuntime>>::sign,
        Sin => <C as UnaryOps<CpuRuntime>>::sin,
        Sinh => <C as UnaryOps<CpuRuntime>>::sinh,
        Sqrt => <C as UnaryOps<CpuRuntime>>::sqrt,
        Square => <C as UnaryOps<CpuRuntime>>::square,
        Tan => <C as UnaryOps<CpuRuntime>>::tan,
        Tanh => <C as UnaryOps<CpuRuntime>>::tanh,
        Trunc => <C as UnaryOps<CpuRuntime>>::trunc,
        _ => return None,
    })
}

/// A `UnaryOps` method of numr's CPU client.
type UnaryMethod = fn(
    &numr::runtime::cpu::CpuClient,
    &NumrTensor<CpuRuntime>,
) -> numr::error::Result<NumrTensor<CpuRuntime>>;

impl Adapter for NumrAdapter {
    fn name(&self) -> &str {
        "numr"
    }

    fn version(&self) -> String {
        "numr 0.14.0 (CpuRuntime)".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        let known = numr_dtype(dtype).is_ok();
        match op {
            OpKind::Unary(u) if known && dtype != DType::Bool && unary_method(u).is_some() => {
                Support::Supported
            }
            OpKind::Unary(_) => Support::Unsupported(format!("numr's UnaryOps has no {op} for {dtype}")),
            OpKind::Binary(b) if known && BINARY.contains(&b) => Support::Supported,
            OpKind::Ternary(TernaryOp::FusedMulAdd | TernaryOp::FusedAddMul) if known => Support::Supported,
            // numr's `UtilityOps::clamp` takes two f64 scalars, not tensor bounds.
            OpKind::Ternary(t) => Support::Unsupported(format!("numr has no {t} with tensor bounds")),
            OpKind::BinaryInto(BinaryOp::Add) if known => Support::Supported,
            _ => Support::Unsupported(format!("numr's BinaryOps has no {op} for {dtype}")),
        }
    }

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        let method = unary_method(op)
            .ok_or_else(|| AdapterError::unsupported(format!("numr's UnaryOps has no {op}")))?;
        let x = self.to_numr(x)?;
        let client = CpuRuntime::default_client(&self.device);
        from_numr(&guarded(&format!("numr's {op}"), || method(&client, &x))?)
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let (x, y) = (self.to_numr(a)?, self.to_numr(b)?);
        let client = CpuRuntime::default_client(&self.device);
        let result = guarded(&format!("numr's {op}"), || match op {
            BinaryOp::Add => client.add(&x, &y),
            BinaryOp::Subtract => client.sub(&x, &y),
            BinaryOp::Multiply => client.mul(&x, &y),
            BinaryOp::Divide => client.div(&x, &y),
            BinaryOp::Pow => client.pow(&x, &y),
            BinaryOp::Maximum => client.maximum(&x, &y),
            BinaryOp::Minimum => client.minimum(&x, &y),
            BinaryOp::Atan2 => client.atan2(&x, &y),
            other => Err(NumrError::Msg(format!("numr's BinaryOps has no {other}"))),
        })?;
        from_numr(&result)
    }

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        if op != BinaryOp::Add {
            return Err(AdapterError::unsupported(format!("numr's BinaryOps has no {op}_into")));
        }
        let (x, y) = (self.to_numr(a)?, self.to_numr(b)?);
        let destination = self.destination(out)?;
        let client = CpuRuntime::default_client(&self.device);
        guarded("numr's add_into", || client.add_into(&destination, &x, &y))?;
        // numr wrote into its copy of `out`; a success on a non-contiguous `out` is not copied
        // back (the contract makes it an error, and the check reports the success).
        if let Some(bytes) = out.contiguous_bytes_mut() {
            let written = destination.to_bytes().map_err(error)?;
            if written.len() == bytes.len() {
                bytes.copy_from_slice(&written);
            }
        }
        Ok(())
    }

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        if !matches!(op, TernaryOp::FusedMulAdd | TernaryOp::FusedAddMul) {
            return Err(AdapterError::unsupported(format!("numr has no {op} with tensor bounds")));
        }
        let (x, y, z) = (self.to_numr(a)?, self.to_numr(b)?, self.to_numr(c)?);
        let client = CpuRuntime::default_client(&self.device);
        let result = guarded(&format!("numr's {op}"), || match op {
            TernaryOp::FusedMulAdd => client.fused_mul_add(&x, &y, &z),
            _ => client.fused_add_mul(&x, &y, &z),
        })?;
        from_numr(&result)
    }

    /// A layout numr can express (contiguous, or a permuted dense buffer) reaches it as a numr
    /// view; any other is copied to a contiguous tensor first (`to_numr`). A destination numr
    /// cannot express is refused.
    fn reach(&self, _op: OpKind, operands: &[&Tensor]) -> Vec<Reach> {
        operands
            .iter()
            .map(|t| if t.is_contiguous() || self.destination(t).is_ok() { Reach::View } else { Reach::Copy })
            .collect()
    }
}

impl NumrAdapter {
    /// `t` as a numr tensor: the same view where numr can express it (contiguous, or a
    /// permuted dense buffer such as a transpose), otherwise a contiguous copy of its values.
    fn to_numr(&self, t: &Tensor) -> Result<NumrTensor<CpuRuntime>, AdapterError> {
        if let Ok(view) = self.destination(t) {
            return Ok(view);
        }
        let dtype = numr_dtype(t.dtype())?;
        let contiguous = t.to_contiguous();
        let bytes = contiguous.contiguous_bytes().unwrap_or_default();
        NumrTensor::<CpuRuntime>::from_bytes(bytes, t.shape(), dtype, &self.device).map_err(error)
    }
}

impl NumrAdapter {
    /// `out` as a numr tensor over a copy of its buffer: contiguous as it is, or, for a view
    /// that permutes a dense buffer (a transpose), the buffer permuted the same way; an error
    /// for any other view.
    fn destination(&self, out: &Tensor) -> Result<NumrTensor<CpuRuntime>, AdapterError> {
        let dtype = numr_dtype(out.dtype())?;
        let whole = |shape: &[usize]| {
            NumrTensor::<CpuRuntime>::from_bytes(out.buffer(), shape, dtype, &self.device).map_err(error)
        };
        if out.is_contiguous() {
            return whole(out.shape());
        }
        let unexpressible = || {
            AdapterError::unsupported(format!(
                "the numr adapter cannot pass a view with shape {:?}, strides {:?} and offset {}",
                out.shape(),
                out.strides(),
                out.offset()
            ))
        };
        if out.offset() != 0 || out.buffer().len() != out.numel() * out.dtype().size() {
            return Err(unexpressible());
        }
        let rank = out.shape().len();
        let mut axes: Vec<usize> = (0..rank).collect();
        axes.sort_by_key(|&i| std::cmp::Reverse(out.strides()[i]));
        let base_shape: Vec<usize> = axes.iter().map(|&i| out.shape()[i]).collect();
        let dims: Vec<usize> = (0..rank).map(|i| axes.iter().position(|&k| k == i).unwrap_or(i)).collect();
        let view = whole(&base_shape)?.permute(&dims).map_err(error)?;
        if view.shape() != out.shape() || view.strides() != out.strides() {
            return Err(unexpressible());
        }
        Ok(view)
    }
}

/// Runs a numr call, turning a panic into an error.
fn guarded<T>(what: &str, call: impl FnOnce() -> Result<T, NumrError>) -> Result<T, AdapterError> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result.map_err(error),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(AdapterError::new(ErrorKind::Other, format!("{what} panicked: {message}")))
        }
    }
}

/// numr's result as an opspec tensor.
fn from_numr(t: &NumrTensor<CpuRuntime>) -> Result<Tensor, AdapterError> {
    let dtype = opspec_dtype(t.dtype())?;
    let bytes = t.to_bytes().map_err(error)?;
    Tensor::from_bytes(dtype, t.shape(), bytes)
}

fn numr_dtype(d: DType) -> Result<NumrDType, AdapterError> {
    Ok(match d {
        DType::F16 => NumrDType::F16,
        DType::BF16 => NumrDType::BF16,
        DType::F32 => NumrDType::F32,
        DType::F64 => NumrDType::F64,
        DType::I8 => NumrDType::I8,
        DType::I16 => NumrDType::I16,
        DType::I32 => NumrDType::I32,
        DType::I64 => NumrDType::I64,
        DType::U8 => NumrDType::U8,
        DType::U16 => NumrDType::U16,
        DType::U32 => NumrDType::U32,
        DType::U64 => NumrDType::U64,
        other => return Err(AdapterError::unsupported(format!("the numr adapter does not pass {other}"))),
    })
}

fn opspec_dtype(d: NumrDType) -> Result<DType, AdapterError> {
    Ok(match d {
        NumrDType::F16 => DType::F16,
        NumrDType::BF16 => DType::BF16,
        NumrDType::F32 => DType::F32,
        NumrDType::F64 => DType::F64,
        NumrDType::I8 => DType::I8,
        NumrDType::I16 => DType::I16,
        NumrDType::I32 => DType::I32,
        NumrDType::I64 => DType::I64,
        NumrDType::U8 => DType::U8,
        NumrDType::U16 => DType::U16,
        NumrDType::U32 => DType::U32,
        NumrDType::U64 => DType::U64,
        other => {
            return Err(AdapterError::new(ErrorKind::Other, format!("numr returned a {other:?} tensor")));
        }
    })
}

/// numr's errors as opspec's error kinds.
fn error(e: NumrError) -> AdapterError {
    let kind = match &e {
        NumrError::ShapeMismatch { .. } | NumrError::BroadcastError { .. } => ErrorKind::ShapeMismatch,
        NumrError::DTypeMismatch { .. } => ErrorKind::DTypeMismatch,
        NumrError::UnsupportedDType { .. } | NumrError::NotImplemented { .. } => ErrorKind::Unsupported,
        NumrError::NotContiguous => ErrorKind::NotContiguous,
        NumrError::InvalidDimension { .. } => ErrorKind::Rank,
        NumrError::IndexOutOfBounds { .. } => ErrorKind::OutOfRange,
        _ => ErrorKind::Other,
    };
    AdapterError::new(kind, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_and_broadcasts() {
        let numr = NumrAdapter::new();
        let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let b = Tensor::from_slice(&[10.0f32, 20.0], &[2]).unwrap();
        let c = numr.binary(BinaryOp::Add, &a, &b).unwrap();
        assert_eq!(c.shape(), [2, 2]);
        assert_eq!(c.to_vec::<f32>().unwrap(), vec![11.0, 22.0, 13.0, 24.0]);
        let bad = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
        assert_eq!(numr.binary(BinaryOp::Add, &a, &bad).unwrap_err().kind, ErrorKind::ShapeMismatch);
    }

    #[test]
    fn fused_ops_refuse_to_broadcast() {
        let numr = NumrAdapter::new();
        let a = Tensor::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
        let one = Tensor::from_slice(&[1.0f64], &[1]).unwrap();
        let r = numr.ternary(TernaryOp::FusedMulAdd, &a, &a, &a).unwrap();
        assert_eq!(r.to_vec::<f64>().unwrap(), vec![2.0, 6.0]);
        let err = numr.ternary(TernaryOp::FusedMulAdd, &a, &a, &one).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ShapeMismatch);
    }

    #[test]
    fn add_into_hands_numr_the_transposed_destination() {
        let numr = NumrAdapter::new();
        let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let b = Tensor::from_slice(&[10.0f32, 20.0, 30.0], &[3]).unwrap();
        let mut out = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
        numr.binary_into(BinaryOp::Add, &a, &b, &mut out).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
        // The transpose of a [3, 2] buffer reaches numr as a view, and numr refuses it.
        let mut transposed = Tensor::zeros(DType::F32, &[3, 2]).unwrap().view(&[2, 3], &[1, 2], 0).unwrap();
        let err = numr.binary_into(BinaryOp::Add, &a, &b, &mut transposed).unwrap_err();
        assert!(err.message.contains("destination tensor must be contiguous"), "{err}");
    }

    #[test]
    fn transposed_operands_reach_numr_as_views() {
        let numr = NumrAdapter::new();
        // [[1, 2], [3, 4], [5, 6]] transposed: [[1, 3, 5], [2, 4, 6]].
        let t = Tensor::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
        let transposed = t.view(&[2, 3], &[1, 2], 0).unwrap();
        let view = numr.to_numr(&transposed).unwrap();
        assert!(!view.is_contiguous(), "the transpose should reach numr as a view");
        let b = Tensor::from_slice(&[10.0f64, 20.0, 30.0], &[3]).unwrap();
        let sum = numr.binary(BinaryOp::Add, &transposed, &b).unwrap();
        assert_eq!(sum.to_vec::<f64>().unwrap(), vec![11.0, 23.0, 35.0, 12.0, 24.0, 36.0]);
    }
}
