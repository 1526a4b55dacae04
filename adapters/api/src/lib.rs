//! The adapter API of opspec.
//!
//! A tensor library is checked by implementing [`Adapter`]: the harness hands it host
//! [`Tensor`]s holding thousands of cases at once and compares what comes back with the
//! reference. This crate is deliberately small (its only dependency is `half`) because it is
//! what a vendor builds against.

mod checker;
mod dtype;
mod error;
mod ops;
mod reach;
mod tensor;

pub use checker::{
    Alignment, Checked, NAMED_AXIS_CODES, NamedAxis, NamedOp, Operand, ShapeChecker, ValueKind,
    named_axis_error, shape_text,
};
pub use dtype::{Complex, DType, Element};
pub use error::{AdapterError, ErrorKind};
pub use ops::{BinaryOp, OpKind, Scalar, ScalarSide, ScatterMode, Support, TernaryOp, UnaryOp};
pub use reach::Reach;
pub use tensor::Tensor;

/// An implementation under test.
///
/// Every method is batch-oriented: one call carries many cases. Methods that an adapter does
/// not implement keep their default, which answers [`ErrorKind::Unsupported`]; the harness
/// asks [`Adapter::supports`] first and reports unsupported pairs as skipped.
pub trait Adapter: Send + Sync {
    /// Short name used in check ids (`cpu`, `numr`, `cuda`).
    fn name(&self) -> &str;

    /// Version of the implementation, recorded in reports.
    fn version(&self) -> String;

    /// Whether `op` is implemented for operands of `dtype`.
    fn supports(&self, op: OpKind, dtype: DType) -> Support;

    /// Element-wise `op(x)`; the result is a new tensor (of `bool` for the predicates).
    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        let _ = x;
        Err(AdapterError::unsupported(format!("{op} is not implemented")))
    }

    /// Element-wise `op(a, b)`; the result is a new tensor.
    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let _ = (a, b);
        Err(AdapterError::unsupported(format!("{op} is not implemented")))
    }

    /// Element-wise `op` of a tensor and a host scalar (`side` says which operand the scalar
    /// is). The result's dtype follows the adapter's promotion rules for Python scalars.
    fn binary_scalar(
        &self,
        op: BinaryOp,
        tensor: &Tensor,
        scalar: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        let _ = (tensor, scalar, side);
        Err(AdapterError::unsupported(format!("{op} with a scalar operand is not implemented")))
    }

    /// Element-wise `op(a, b)` written into the caller-owned `out`.
    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        let _ = (a, b, out);
        Err(AdapterError::unsupported(format!("{op}_into is not implemented")))
    }

    /// Element-wise ternary `op(a, b, c)` (fused operations).
    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        let _ = (a, b, c);
        Err(AdapterError::unsupported(format!("{op} is not implemented")))
    }

    /// Scatter-add: `input` with the slices of `updates` added at the index vectors in
    /// `indices` (whose last axis is the index depth).
    fn scatter_add(
        &self,
        input: &Tensor,
        indices: &Tensor,
        updates: &Tensor,
        mode: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        let _ = (input, indices, updates, mode);
        Err(AdapterError::unsupported("scatter_add is not implemented"))
    }

    /// The adapter's answers to the named-axis document's shape and type questions, if it
    /// gives them (a DSL's type checker, or an executor that checks before it runs).
    fn checker(&self) -> Option<&dyn ShapeChecker> {
        None
    }

    /// How each of `operands` would reach the library if `op` were called on them (for
    /// [`OpKind::BinaryInto`], the destination is the last operand): as the view it is, or
    /// copied into another layout first. Asked by the layout checks, which report it so that a
    /// pass on a copied layout is not read as coverage of the library's strided code. The
    /// default answers [`Reach::Unknown`] for each.
    fn reach(&self, op: OpKind, operands: &[&Tensor]) -> Vec<Reach> {
        let _ = op;
        vec![Reach::Unknown; operands.len()]
    }
}
