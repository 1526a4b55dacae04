//! opspec's built-in CPU adapter.
//!
//! Straightforward scalar kernels that follow the contract: every element-wise unary and
//! binary operation of the array API in f16, bf16, f32 and f64 (see the `unary` and `float`
//! modules for how each is computed), `clip` (module `clip`), NumPy broadcasting, and strided inputs. The common cases of the cheap operations
//! take the SIMD and multi-threaded kernels of [`fast`], and the f16/bf16 comparisons, copysign
//! and nextafter the bit kernels of `half_bits`, their floor_divide and remainder the block
//! kernels of `half_division`, bit-identical to the scalar ones.
//! Complex operands (`c64`, `c128`) take the `complex` module's kernels: the arithmetic, the
//! comparisons and the unary operations it lists; the rest are reported unsupported.
//!
//! Tensors with axis names are lined up by the named-axis rules instead (module `named`), and
//! the adapter answers those rules' shape and type questions as a [`ShapeChecker`].

mod broadcast;
mod clip;
mod complex;
mod double_double;
pub mod fast;
#[cfg(feature = "fault-injection")]
pub mod fault;
mod float;
mod fused;
mod half_bits;
mod half_division;
mod integer;
mod named;
pub mod output;
pub mod promote;
pub mod scatter;
mod unary;

use float::CpuFloat;
use fused::CpuFused;
use half::{bf16, f16};
use integer::CpuInt;
use opspec_adapter::{
    Adapter, AdapterError, BinaryOp, Checked, DType, Element, ErrorKind, NamedOp, OpKind, Operand, Reach,
    Scalar, ScalarSide, ScatterMode, ShapeChecker, Support, Tensor, TernaryOp, UnaryOp,
};
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::ops::Range;

pub use broadcast::broadcast_shapes;
pub use named::{aligned_strides, named_shape};

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

    /// The crate's version and the vector kernels its fast paths run with (`fast::simd`).
    fn version(&self) -> String {
        format!("opspec-cpu {}, {} kernels", env!("CARGO_PKG_VERSION"), fast::simd().name())
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        if dtype.is_complex() {
            return complex::supports(op, dtype);
        }
        match op {
            OpKind::Unary(u) if COMPLEX_ONLY_UNARY.contains(&u) => {
                Support::Unsupported(format!("{u} is defined on complex dtypes only, not {dtype}"))
            }
            OpKind::Unary(u) if dtype.is_float() && !INTEGER_ONLY_UNARY.contains(&u) => Support::Supported,
            OpKind::Unary(u) if dtype.is_integer() && INTEGER_UNARY_OPS.contains(&u) => Support::Supported,
            OpKind::Unary(u) if dtype == DType::Bool && INTEGER_ONLY_UNARY.contains(&u) => Support::Supported,
            OpKind::Binary(b) if dtype == DType::Bool && integer::bool_binary(b, false, false).is_some() => {
                Support::Supported
            }
            OpKind::Binary(b) | OpKind::BinaryScalar(b) if dtype.is_float() && !INTEGER_ONLY.contains(&b) => {
                Support::Supported
            }
            OpKind::Binary(b) | OpKind::BinaryScalar(b)
                if dtype.is_integer() && (INTEGER_OPS.contains(&b) || b == BinaryOp::Divide) =>
            {
                // Integer true division computes in f32 (see `promote`).
                Support::Supported
            }
            OpKind::ScatterAdd if dtype != DType::Bool => Support::Supported,
            OpKind::Ternary(_) if dtype.is_float() => Support::Supported,
            OpKind::BinaryInto(BinaryOp::Add) if dtype != DType::Bool => Support::Supported,
            _ => Support::Unsupported(format!("opspec-cpu does not implement {op} for {dtype} yet")),
        }
    }

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        if x.dtype().is_complex() {
            return complex::unary(op, x);
        }
        if x.dtype().is_float() { unary::unary(op, x) } else { integer::unary(op, x) }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        // Complex operands (with a real one promoted to complex) take their own kernels.
        if a.dtype().is_complex() || b.dtype().is_complex() {
            return complex::binary(op, a, b);
        }
        // Operands of one dtype need no promotion (and no copy).
        if let Some(out) = fast::binary_tensors(op, a, b) {
            return out;
        }
        if let Some(out) = half_bits::binary(op, a, b) {
            return out;
        }
        if let Some(out) = half_division::binary(op, a, b) {
            return out;
        }
        let common = promote::promote(a.dtype(), b.dtype())?;
        // True division of integers gives the default float.
        let dtype = if op == BinaryOp::Divide && !common.is_float() { DType::F32 } else { common };
        let (a, b) = (&promote::cast(a, dtype)?, &promote::cast(b, dtype)?);
        match dtype {
            DType::F16 => binary_float::<f16>(op, a, b),
            DType::BF16 => binary_float::<bf16>(op, a, b),
            DType::F32 => binary_float::<f32>(op, a, b),
            DType::F64 => binary_float::<f64>(op, a, b),
            DType::I8 => binary_int::<i8>(op, a, b),
            DType::I16 => binary_int::<i16>(op, a, b),
            DType::I32 => binary_int::<i32>(op, a, b),
            DType::I64 => binary_int::<i64>(op, a, b),
            DType::U8 => binary_int::<u8>(op, a, b),
            DType::U16 => binary_int::<u16>(op, a, b),
            DType::U32 => binary_int::<u32>(op, a, b),
            DType::U64 => binary_int::<u64>(op, a, b),
            DType::Bool => map_pairs(op, a, b, |x: bool, y| integer::bool_binary(op, x, y)),
            other => Err(AdapterError::unsupported(format!("{op} is not implemented for {other}"))),
        }
    }

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        if a.dtype().is_complex() {
            return Err(complex_unsupported(OpKind::BinaryInto(op), a.dtype()));
        }
        // numr's contract (seed 003): one dtype, a contiguous `out`, and `out`'s shape equal
        // to the broadcast shape; every condition is checked before `out` is written.
        if a.dtype() != b.dtype() || a.dtype() != out.dtype() {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!("{op}_into: a is {}, b is {}, out is {}", a.dtype(), b.dtype(), out.dtype()),
            ));
        }
        let shape = broadcast_shapes(a.shape(), b.shape())?;
        if shape != out.shape() {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!("{op}_into: a and b broadcast to {shape:?}, out has shape {:?}", out.shape()),
            ));
        }
        let Some(destination) = out.contiguous_bytes_mut() else {
            return Err(AdapterError::new(
                ErrorKind::NotContiguous,
                format!("{op}_into: out is not contiguous"),
            ));
        };
        let direct = fast::roles(op, a, b, &shape)
            .is_some_and(|(x, y, row_len)| fast::binary_into(op, a.dtype(), x, y, row_len, destination));
        if !direct {
            let result = self.binary(op, a, b)?.to_contiguous();
            // Comparisons give bool and integer division gives f32: neither fits `out`.
            if result.dtype() != a.dtype() {
                return Err(AdapterError::new(
                    ErrorKind::DTypeMismatch,
                    format!("{op}_into: the result is {}, out is {}", result.dtype(), a.dtype()),
                ));
            }
            destination.copy_from_slice(result.buffer());
        }
        Ok(())
    }

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        // The array API's clip broadcasts its bounds.
        if op == TernaryOp::Clip {
            return clip::clip(a, b, c);
        }
        // The fused operations follow numr's contract (seed 003): "All three tensors must have
        // the same shape (no broadcasting)", and one dtype.
        if a.shape() != b.shape() || a.shape() != c.shape() {
            return Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!(
                    "{op} needs three tensors of one shape (no broadcasting), got {:?}, {:?} and {:?}",
                    a.shape(),
                    b.shape(),
                    c.shape()
                ),
            ));
        }
        if a.dtype() != b.dtype() || a.dtype() != c.dtype() {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!("{op} needs one dtype, got {}, {} and {}", a.dtype(), b.dtype(), c.dtype()),
            ));
        }
        if a.dtype().is_complex() {
            return Err(complex_unsupported(OpKind::Ternary(op), a.dtype()));
        }
        if let Some(out) = fast::fused::ternary_tensors(op, a, b, c) {
            return out;
        }
        match a.dtype() {
            DType::F16 => ternary_float::<f16>(op, a, b, c),
            DType::BF16 => ternary_float::<bf16>(op, a, b, c),
            DType::F32 => ternary_float::<f32>(op, a, b, c),
            DType::F64 => ternary_float::<f64>(op, a, b, c),
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
        if input.dtype().is_complex() {
            return Err(complex_unsupported(OpKind::ScatterAdd, input.dtype()));
        }
        scatter::scatter_add(input, indices, updates, mode)
    }

    fn binary_scalar(
        &self,
        op: BinaryOp,
        tensor: &Tensor,
        scalar: Scalar,
        side: ScalarSide,
    ) -> Result<Tensor, AdapterError> {
        if tensor.dtype().is_complex() {
            return Err(complex_unsupported(OpKind::BinaryScalar(op), tensor.dtype()));
        }
        let dtype = promote::with_scalar(tensor.dtype(), scalar);
        let (t, s) = (promote::cast(tensor, dtype)?, promote::scalar_tensor(scalar, dtype)?);
        match side {
            ScalarSide::Left => self.binary(op, &s, &t),
            ScalarSide::Right => self.binary(op, &t, &s),
        }
    }

    fn checker(&self) -> Option<&dyn ShapeChecker> {
        Some(self)
    }

    /// Operands the fast kernels take (dense, any offset, in a broadcast role) reach them as
    /// they are; every other layout is gathered into a contiguous buffer first (`map_pairs`,
    /// `ternary_float`). A destination must be contiguous, or the call is refused.
    fn reach(&self, op: OpKind, operands: &[&Tensor]) -> Vec<Reach> {
        let gathered = |t: &&Tensor| if t.is_contiguous() { Reach::View } else { Reach::Copy };
        let direct = match (op, operands) {
            (OpKind::Binary(b) | OpKind::BinaryInto(b), [x, y, ..]) => broadcast_shapes(x.shape(), y.shape())
                .is_ok_and(|shape| fast::roles(b, x, y, &shape).is_some()),
            (OpKind::Ternary(t), [x, y, z]) => fast::fused::takes(t, [x, y, z]),
            _ => false,
        };
        match (op, operands) {
            (OpKind::BinaryInto(_), [x, y, out]) => {
                let inputs = if direct { [Reach::View; 2] } else { [gathered(x), gathered(y)] };
                inputs.into_iter().chain([gathered(out)]).collect()
            }
            _ if direct => vec![Reach::View; operands.len()],
            _ => operands.iter().map(gathered).collect(),
        }
    }
}

impl ShapeChecker for CpuAdapter {
    fn check(&self, op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError> {
        named::check(op, operands)
    }
}

/// The operations implemented exactly for integer dtypes (integer `divide` is true division,
/// computed in `f32`, and is not among them).
pub const INTEGER_OPS: [BinaryOp; 19] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::FloorDivide,
    BinaryOp::Remainder,
    BinaryOp::Pow,
    BinaryOp::Equal,
    BinaryOp::NotEqual,
    BinaryOp::Greater,
    BinaryOp::GreaterEqual,
    BinaryOp::Less,
    BinaryOp::LessEqual,
    BinaryOp::BitwiseAnd,
    BinaryOp::BitwiseOr,
    BinaryOp::BitwiseXor,
    BinaryOp::BitwiseLeftShift,
    BinaryOp::BitwiseRightShift,
];

/// The binary operations defined on integers and bools only, never on floats.
pub const INTEGER_ONLY: [BinaryOp; 8] = [
    BinaryOp::BitwiseAnd,
    BinaryOp::BitwiseOr,
    BinaryOp::BitwiseXor,
    BinaryOp::BitwiseLeftShift,
    BinaryOp::BitwiseRightShift,
    BinaryOp::LogicalAnd,
    BinaryOp::LogicalOr,
    BinaryOp::LogicalXor,
];

/// The unary operations defined on integers and bools only, never on floats (bool takes exactly
/// these).
const INTEGER_ONLY_UNARY: [UnaryOp; 2] = [UnaryOp::BitwiseInvert, UnaryOp::LogicalNot];

/// The unary operations defined on complex operands only (the array API's `imag`: "Should have
/// a complex floating-point data type").
const COMPLEX_ONLY_UNARY: [UnaryOp; 1] = [UnaryOp::Imag];

/// The unary operations implemented exactly for integer dtypes.
pub const INTEGER_UNARY_OPS: [UnaryOp; 15] = [
    UnaryOp::Abs,
    UnaryOp::BitwiseInvert,
    UnaryOp::Ceil,
    UnaryOp::Conj,
    UnaryOp::Floor,
    UnaryOp::Isfinite,
    UnaryOp::Isinf,
    UnaryOp::Isnan,
    UnaryOp::Negative,
    UnaryOp::Positive,
    UnaryOp::Real,
    UnaryOp::Round,
    UnaryOp::Sign,
    UnaryOp::Square,
    UnaryOp::Trunc,
];

/// The error of an operation that has no complex kernel.
fn complex_unsupported(op: OpKind, dtype: DType) -> AdapterError {
    AdapterError::unsupported(format!("opspec-cpu does not implement {op} for {dtype} yet"))
}

fn unsupported(op: BinaryOp, dtype: DType) -> AdapterError {
    AdapterError::unsupported(format!("{op} is not implemented for {dtype}"))
}

/// Lines both operands up (NumPy broadcasting, or the named-axis rules when either has axis
/// names) and applies `f` element by element; two dense operands of one shape are read in
/// place instead, on rayon's threads ([`dense_pairs`]).
fn map_pairs<T: Element, U: Element>(
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(T, T) -> Option<U> + Sync,
) -> Result<Tensor, AdapterError> {
    if let Some(out) = dense_pairs(a, b, &f) {
        return Tensor::from_bytes(U::DTYPE, a.shape(), out.ok_or_else(|| unsupported(op, T::DTYPE))?);
    }
    let lined = named::line_up_operands(a, b)?;
    let (xs, ys) = lined.values::<T>()?;
    let out: Option<Vec<U>> = xs.into_iter().zip(ys).map(|(x, y)| f(x, y)).collect();
    let out = Tensor::from_slice(&out.ok_or_else(|| unsupported(op, T::DTYPE))?, &lined.shape)?;
    lined.finish(out)
}

/// Pairs per piece of work of [`dense_pairs`]: a call of more pairs is split.
pub(crate) const PAIRS_PIECE: usize = 1 << 15;

/// The bytes of `f` on every pair of two dense operands of dtype `T`, one shape and no axis
/// names, in pieces of [`PAIRS_PIECE`] pairs split across rayon's threads (the exhaustive
/// sweeps call the scalar operations, the comparisons and copysign among them, with 2^22
/// pairs at a time); `None` for other operands.
fn dense_pairs<T: Element, U: Element>(
    a: &Tensor,
    b: &Tensor,
    f: &(impl Fn(T, T) -> Option<U> + Sync),
) -> Option<Option<Vec<u8>>> {
    let (xs, ys) = dense_operands(a, b, T::DTYPE)?;
    let size = T::DTYPE.size();
    Some(in_pieces::<U>(xs.len() / size, PAIRS_PIECE, size, |bytes, out| {
        let (xs, ys) = (&xs[bytes.clone()], &ys[bytes]);
        for (x, y) in xs.chunks_exact(size).zip(ys.chunks_exact(size)) {
            f(T::read_le(x), T::read_le(y))?.write_le(out);
        }
        Some(())
    }))
}

/// The bytes of two dense operands of `dtype`, one shape and no axis names; `None` for other
/// operands.
pub(crate) fn dense_operands<'a>(a: &'a Tensor, b: &'a Tensor, dtype: DType) -> Option<(&'a [u8], &'a [u8])> {
    let plain = |t: &Tensor| t.names().is_none() && t.dtype() == dtype;
    if !plain(a) || !plain(b) || a.shape() != b.shape() {
        return None;
    }
    Some((a.contiguous_bytes()?, b.contiguous_bytes()?))
}

/// The bytes that `f` writes for every element below `n`, in pieces of `piece` elements split
/// across rayon's threads: `f` gets the byte range of a piece's elements in operands of
/// `size`-byte elements, and appends its results' bytes (`U`s) to an empty `Vec`, which its
/// thread then copies into its place in the output while it is still in cache (a copy of the
/// whole output afterwards would be one thread's); `None` where `f` gives none.
pub(crate) fn in_pieces<U: Element>(
    n: usize,
    piece: usize,
    size: usize,
    f: impl Fn(Range<usize>, &mut Vec<u8>) -> Option<()> + Sync,
) -> Option<Vec<u8>> {
    let out_size = U::DTYPE.size();
    let write = |out: &mut [MaybeUninit<u8>]| {
        out.par_chunks_mut(piece * out_size)
            .enumerate()
            .try_for_each(|(k, place)| {
                let elements = k * piece..k * piece + place.len() / out_size;
                let mut bytes = Vec::with_capacity(place.len());
                f(elements.start * size..elements.end * size, &mut bytes)?;
                (bytes.len() == place.len()).then(|| place.write_copy_of_slice(&bytes))?;
                Some(())
            })
            .is_some()
    };
    // SAFETY: where `write` returns true, every piece of the output was written in full.
    unsafe { output::written(n * out_size, write) }
}

fn binary_float<T: CpuFloat>(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
    if op.is_comparison() {
        compare_pairs::<T>(op, a, b)
    } else {
        map_pairs(op, a, b, |x: T, y| T::binary(op, x, y))
    }
}

/// The comparison `op` element by element, with one loop per comparison: IEEE's for floats
/// (NaN compares false, `-0 == +0`; `half`'s compare the bits so, without widening) and plain
/// for integers.
fn compare_pairs<T: Element + PartialOrd>(
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
) -> Result<Tensor, AdapterError> {
    match op {
        BinaryOp::Equal => map_pairs(op, a, b, |x: T, y| Some(x == y)),
        BinaryOp::NotEqual => map_pairs(op, a, b, |x: T, y| Some(x != y)),
        BinaryOp::Greater => map_pairs(op, a, b, |x: T, y| Some(x > y)),
        BinaryOp::GreaterEqual => map_pairs(op, a, b, |x: T, y| Some(x >= y)),
        BinaryOp::Less => map_pairs(op, a, b, |x: T, y| Some(x < y)),
        BinaryOp::LessEqual => map_pairs(op, a, b, |x: T, y| Some(x <= y)),
        _ => Err(unsupported(op, T::DTYPE)),
    }
}

/// Applies a fused operation element by element to three tensors of one shape.
fn ternary_float<T: CpuFused + Element>(
    op: TernaryOp,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
) -> Result<Tensor, AdapterError> {
    let (xs, ys, zs) = (a.to_vec::<T>()?, b.to_vec::<T>()?, c.to_vec::<T>()?);
    Tensor::from_slice(&fused::ternary_all(op, &xs, &ys, &zs), a.shape())
}

fn binary_int<T: CpuInt>(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
    if op.is_comparison() {
        compare_pairs::<T>(op, a, b)
    } else {
        map_pairs(op, a, b, |x: T, y| T::binary(op, x, y))
    }
}
