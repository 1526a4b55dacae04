//! opspec's built-in CPU adapter.
//!
//! Straightforward scalar kernels that follow the contract: IEEE 754 round-to-nearest-even
//! arithmetic in the operands' format (f16 and bf16 compute in f32 and round once, which is
//! exact for `+ - × ÷` because f32 has more than twice their precision plus two bits), NumPy
//! broadcasting, and strided inputs. Speed is a later concern; correctness is this crate's job.

mod broadcast;
pub mod scatter;

use half::{bf16, f16};
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, DType, Element, ErrorKind, OpKind, ScatterMode, Support, Tensor,
};

pub use broadcast::broadcast_shapes;

/// The built-in CPU implementation.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuAdapter;

impl CpuAdapter {
    pub fn new() -> CpuAdapter {
        CpuAdapter
    }
}

impl Adapter for CpuAdapter {
    fn name(&self) -> &str {
        "cpu"
    }

    fn version(&self) -> String {
        format!("opspec-cpu {}", env!("CARGO_PKG_VERSION"))
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        let arithmetic = matches!(
            op,
            OpKind::Binary(BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply | BinaryOp::Divide)
        );
        if arithmetic && dtype.is_float() || op == OpKind::ScatterAdd && dtype != DType::Bool {
            Support::Supported
        } else {
            Support::Unsupported(format!("opspec-cpu does not implement {op} for {dtype} yet"))
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if a.dtype() != b.dtype() {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!("operands are {} and {}", a.dtype(), b.dtype()),
            ));
        }
        match a.dtype() {
            DType::F16 => binary_float::<f16>(op, a, b),
            DType::BF16 => binary_float::<bf16>(op, a, b),
            DType::F32 => binary_float::<f32>(op, a, b),
            DType::F64 => binary_float::<f64>(op, a, b),
            other => Err(AdapterError::unsupported(format!("{op} is not implemented for {other}"))),
        }
    }

    fn scatter_add(
        &self,
        input: &Tensor,
        indices: &Tensor,
        updates: &Tensor,
        mode: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        scatter::scatter_add(input, indices, updates, mode)
    }
}

/// Float arithmetic in the type's own format.
trait Arith: Element {
    fn apply(op: BinaryOp, x: Self, y: Self) -> Option<Self>;
}

impl Arith for f64 {
    fn apply(op: BinaryOp, x: f64, y: f64) -> Option<f64> {
        Some(match op {
            BinaryOp::Add => x + y,
            BinaryOp::Subtract => x - y,
            BinaryOp::Multiply => x * y,
            BinaryOp::Divide => x / y,
            _ => return None,
        })
    }
}

impl Arith for f32 {
    fn apply(op: BinaryOp, x: f32, y: f32) -> Option<f32> {
        Some(match op {
            BinaryOp::Add => x + y,
            BinaryOp::Subtract => x - y,
            BinaryOp::Multiply => x * y,
            BinaryOp::Divide => x / y,
            _ => return None,
        })
    }
}

/// f16 and bf16 compute in f32 and round once to their own format.
macro_rules! via_f32 {
    ($ty:ty) => {
        impl Arith for $ty {
            fn apply(op: BinaryOp, x: $ty, y: $ty) -> Option<$ty> {
                f32::apply(op, x.to_f32(), y.to_f32()).map(<$ty>::from_f32)
            }
        }
    };
}
via_f32!(f16);
via_f32!(bf16);

fn binary_float<T: Arith>(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let xs = broadcast::broadcast_to(a, &shape)?.to_vec::<T>()?;
    let ys = broadcast::broadcast_to(b, &shape)?.to_vec::<T>()?;
    let out = xs
        .into_iter()
        .zip(ys)
        .map(|(x, y)| T::apply(op, x, y))
        .collect::<Option<Vec<T>>>()
        .ok_or_else(|| AdapterError::unsupported(format!("{op} is not implemented for {}", T::DTYPE)))?;
    Tensor::from_slice(&out, &shape)
}
