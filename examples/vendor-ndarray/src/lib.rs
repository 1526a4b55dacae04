//! ndarray's element-wise arithmetic, written as an ndarray user writes it, behind opspec's
//! [`Adapter`] API: operators on `ArrayView`s with ndarray's own broadcasting (`&a + &b`,
//! `&a / &b`, `&a % &b`), and `Zip::from(&a).and(&b).map_collect(...)` with the element
//! type's methods (`max`, `min`, `powf`, `atan2`, ...) for the rest. Operands arrive as strided
//! opspec [`Tensor`]s and become `ArrayView`s with the same strides, no copy of the layout.

use std::ops::{Add, Mul, Sub};

use half::{bf16, f16};
use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder, Zip};
use num_traits::Float;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, Element, ErrorKind, OpKind, Support, Tensor};

/// The ndarray version this crate pins (`=0.17.2` in its `Cargo.toml`), for reports.
const NDARRAY: &str = "0.17.2";

/// Operations on float arrays: the arithmetic operators, and `Zip` with the element type's
/// methods.
const FLOAT_OPS: [BinaryOp; 18] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Remainder,
    BinaryOp::FloorDivide,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Pow,
    BinaryOp::Atan2,
    BinaryOp::Hypot,
    BinaryOp::Copysign,
    BinaryOp::Equal,
    BinaryOp::NotEqual,
    BinaryOp::Greater,
    BinaryOp::GreaterEqual,
    BinaryOp::Less,
    BinaryOp::LessEqual,
];

/// Operations on integer arrays: `+`, `-`, `*`, `Ord::max`/`min` and the comparisons.
const INTEGER_OPS: [BinaryOp; 11] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Equal,
    BinaryOp::NotEqual,
    BinaryOp::Greater,
    BinaryOp::GreaterEqual,
    BinaryOp::Less,
    BinaryOp::LessEqual,
];

/// ndarray 0.17, CPU, arrays of one element type (ndarray has no type promotion).
pub struct NdarrayAdapter;

impl Adapter for NdarrayAdapter {
    fn name(&self) -> &str {
        "ndarray"
    }

    fn version(&self) -> String {
        format!("ndarray {NDARRAY}")
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        match op {
            OpKind::Binary(b) if dtype.is_float() && FLOAT_OPS.contains(&b) => Support::Supported,
            OpKind::Binary(b) if dtype.is_integer() && INTEGER_OPS.contains(&b) => {
                Support::Supported
            }
            _ => Support::Unsupported(format!("this adapter does not write {op} for {dtype} arrays")),
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if a.dtype() != b.dtype() {
            return Err(AdapterError::new(
                ErrorKind::DTypeMismatch,
                format!(
                    "ndarray has no type promotion: {} with {} arrays does not compile",
                    a.dtype(),
                    b.dtype()
                ),
            ));
        }
        match a.dtype() {
            DType::F16 => float::<f16>(op, a, b),
            DType::BF16 => float::<bf16>(op, a, b),
            DType::F32 => float::<f32>(op, a, b),
            DType::F64 => float::<f64>(op, a, b),
            DType::I8 => integer::<i8>(op, a, b),
            DType::I16 => integer::<i16>(op, a, b),
            DType::I32 => integer::<i32>(op, a, b),
            DType::I64 => integer::<i64>(op, a, b),
            DType::U8 => integer::<u8>(op, a, b),
            DType::U16 => integer::<u16>(op, a, b),
            DType::U32 => integer::<u32>(op, a, b),
            DType::U64 => integer::<u64>(op, a, b),
            other => Err(AdapterError::unsupported(format!("{op} on {other} arrays"))),
        }
    }
}

/// `op` on two float arrays.
fn float<T: Float + Element>(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
    let (xs, ys) = (decode::<T>(a)?, decode::<T>(b)?);
    let (x, y) = (view(a, &xs)?, view(b, &ys)?);
    let shape = broadcast_shape(x.shape(), y.shape())?;
    let zip = |f: fn(T, T) -> T| -> Result<ArrayD<T>, AdapterError> {
        let (x, y) = (stretch(&x, &shape)?, stretch(&y, &shape)?);
        Ok(Zip::from(&x).and(&y).map_collect(|&x, &y| f(x, y)))
    };
    let out = match op {
        BinaryOp::Add => &x + &y,
        BinaryOp::Subtract => &x - &y,
        BinaryOp::Multiply => &x * &y,
        BinaryOp::Divide => &x / &y,
        BinaryOp::Remainder => &x % &y,
        BinaryOp::FloorDivide => zip(|x, y| (x / y).floor())?,
        BinaryOp::Maximum => zip(T::max)?,
        BinaryOp::Minimum => zip(T::min)?,
        BinaryOp::Pow => zip(T::powf)?,
        BinaryOp::Atan2 => zip(T::atan2)?,
        BinaryOp::Hypot => zip(T::hypot)?,
        BinaryOp::Copysign => zip(T::copysign)?,
        other => return compare(other, &stretch(&x, &shape)?, &stretch(&y, &shape)?),
    };
    to_tensor(&out)
}

/// `op` on two integer arrays; `+`, `-` and `*` wrap in a release build.
fn integer<T>(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError>
where
    T: Element + Ord + Add<Output = T> + Sub<Output = T> + Mul<Output = T>,
{
    let (xs, ys) = (decode::<T>(a)?, decode::<T>(b)?);
    let (x, y) = (view(a, &xs)?, view(b, &ys)?);
    let shape = broadcast_shape(x.shape(), y.shape())?;
    let out = match op {
        BinaryOp::Add => &x + &y,
        BinaryOp::Subtract => &x - &y,
        BinaryOp::Multiply => &x * &y,
        BinaryOp::Maximum | BinaryOp::Minimum => {
            let (x, y) = (stretch(&x, &shape)?, stretch(&y, &shape)?);
            let f = if op == BinaryOp::Maximum { T::max } else { T::min };
            Zip::from(&x).and(&y).map_collect(|&x, &y| f(x, y))
        }
        other => return compare(other, &stretch(&x, &shape)?, &stretch(&y, &shape)?),
    };
    to_tensor(&out)
}

/// A comparison of two arrays of one shape, as `Zip` and `PartialOrd` give it.
fn compare<T: PartialOrd + Copy>(
    op: BinaryOp,
    x: &ArrayViewD<'_, T>,
    y: &ArrayViewD<'_, T>,
) -> Result<Tensor, AdapterError> {
    let f: fn(&T, &T) -> bool = match op {
        BinaryOp::Equal => |x, y| x == y,
        BinaryOp::NotEqual => |x, y| x != y,
        BinaryOp::Greater => |x, y| x > y,
        BinaryOp::GreaterEqual => |x, y| x >= y,
        BinaryOp::Less => |x, y| x < y,
        BinaryOp::LessEqual => |x, y| x <= y,
        other => return Err(AdapterError::unsupported(format!("{other} is not written with ndarray here"))),
    };
    to_tensor(&Zip::from(x).and(y).map_collect(f))
}

/// Every element of a tensor's buffer, decoded (the bytes need not be aligned for `T`).
fn decode<T: Element>(t: &Tensor) -> Result<Vec<T>, AdapterError> {
    if t.dtype() != T::DTYPE {
        return Err(AdapterError::new(
            ErrorKind::DTypeMismatch,
            format!("{} is not {}", t.dtype(), T::DTYPE),
        ));
    }
    Ok(t.buffer().chunks_exact(T::DTYPE.size()).map(T::read_le).collect())
}

/// The tensor's view (shape, element strides, offset) over its decoded buffer, as an
/// `ArrayView` with the same strides (negative and zero strides included).
fn view<'a, T>(t: &Tensor, elements: &'a [T]) -> Result<ArrayViewD<'a, T>, AdapterError> {
    if t.numel() == 0 {
        // An empty view reaches no element; ndarray wants its strides to fit the data anyway.
        return ArrayViewD::from_shape(IxDyn(t.shape()), &elements[..0])
            .map_err(|e| layout_error(t, &e.to_string()));
    }
    // ndarray takes the slice from the lowest address the view reaches.
    let reach_below: isize =
        t.shape().iter().zip(t.strides()).filter(|&(_, &s)| s < 0).map(|(&n, &s)| (n as isize - 1) * s).sum();
    let low = t.offset() as isize + reach_below;
    let strides: Vec<usize> = t.strides().iter().map(|&s| s as usize).collect();
    let start = usize::try_from(low).map_err(|_| layout_error(t, "starts before its buffer"))?;
    let data = elements.get(start..).ok_or_else(|| layout_error(t, "starts after its buffer"))?;
    ArrayViewD::from_shape(IxDyn(t.shape()).strides(IxDyn(&strides)), data)
        .map_err(|e| layout_error(t, &e.to_string()))
}

fn layout_error(t: &Tensor, what: &str) -> AdapterError {
    let (shape, strides, offset) = (t.shape(), t.strides(), t.offset());
    AdapterError::new(ErrorKind::Other, format!("view {shape:?} strides {strides:?} offset {offset}: {what}"))
}

/// NumPy's broadcast shape of two shapes (as ndarray's operators compute it), or the error
/// ndarray's operators would panic with.
fn broadcast_shape(a: &[usize], b: &[usize]) -> Result<Vec<usize>, AdapterError> {
    let rank = a.len().max(b.len());
    let axis = |s: &[usize], i: usize| if i + s.len() < rank { 1 } else { s[i + s.len() - rank] };
    (0..rank)
        .map(|i| match (axis(a, i), axis(b, i)) {
            (m, n) if m == n || n == 1 => Ok(m),
            (1, n) => Ok(n),
            _ => Err(AdapterError::new(
                ErrorKind::ShapeMismatch,
                format!("shapes {a:?} and {b:?} cannot be broadcast together"),
            )),
        })
        .collect()
}

/// `x` broadcast to `shape` (`ArrayBase::broadcast`).
fn stretch<'a, T>(x: &'a ArrayViewD<'_, T>, shape: &[usize]) -> Result<ArrayViewD<'a, T>, AdapterError> {
    x.broadcast(IxDyn(shape)).ok_or_else(|| {
        AdapterError::new(
            ErrorKind::ShapeMismatch,
            format!("{:?} does not broadcast to {shape:?}", x.shape()),
        )
    })
}

/// An array as a contiguous tensor, in logical (row-major) order.
fn to_tensor<T: Element>(out: &ArrayD<T>) -> Result<Tensor, AdapterError> {
    let values: Vec<T> = out.iter().copied().collect();
    Tensor::from_slice(&values, out.shape())
}
