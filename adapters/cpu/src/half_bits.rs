//! The comparisons, copysign and nextafter of two dense f16 or bf16 operands of one shape, on
//! their bits, in loops without branches that the compiler vectorises, split across rayon's
//! threads; bit-identical to the scalar path (`float.rs` and `compare_pairs`), which compares
//! through `half` one element at a time. An exhaustive pair sweep calls them with 2^22 pairs.

use half::f16;
use opspec_adapter::{AdapterError, BinaryOp, DType, Tensor};

use crate::{PAIRS_PIECE, dense_operands, in_pieces};

/// `op` on `a` and `b`, or `None` where these kernels do not apply (another operation or
/// dtype, operands of different dtypes or shapes, axis names, or a strided operand).
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Option<Result<Tensor, AdapterError>> {
    let infinity = match a.dtype() {
        DType::F16 => 0x7c00,
        DType::BF16 => 0x7f80,
        _ => return None,
    };
    let operands = dense_operands(a, b, a.dtype())?;
    let bools = |out| Tensor::from_bytes(DType::Bool, a.shape(), out);
    // Of NaNs, every comparison but not_equal is false.
    Some(match op {
        BinaryOp::Equal => bools(compared(operands, infinity, false, |_, eq| eq)),
        BinaryOp::NotEqual => bools(compared(operands, infinity, true, |_, eq| !eq)),
        BinaryOp::Less => bools(compared(operands, infinity, false, |lt, _| lt)),
        BinaryOp::LessEqual => bools(compared(operands, infinity, false, |lt, eq| lt | eq)),
        BinaryOp::Greater => bools(compared(operands, infinity, false, |lt, eq| !(lt | eq))),
        BinaryOp::GreaterEqual => bools(compared(operands, infinity, false, |lt, _| !lt)),
        BinaryOp::Copysign => {
            Tensor::from_bytes(a.dtype(), a.shape(), pairs::<f16>(operands, |x, y| x & MAGNITUDE | y & SIGN))
        }
        BinaryOp::Nextafter => {
            let out = pairs::<f16>(operands, |x, y| next_after(x, y, infinity));
            Tensor::from_bytes(a.dtype(), a.shape(), out)
        }
        _ => return None,
    })
}

/// The comparison `is(x < y, x == y)` of every pair of non-NaN values (`unordered` where
/// either is a NaN), as bytes 0 or 1.
fn compared(
    operands: (&[u8], &[u8]),
    infinity: u16,
    unordered: bool,
    is: impl Fn(bool, bool) -> bool + Sync,
) -> Vec<u8> {
    pairs::<bool>(operands, |x, y| {
        let ordered = (x & MAGNITUDE <= infinity) & (y & MAGNITUDE <= infinity);
        let value = ordered & is(key(x) < key(y), key(x) == key(y)) | !ordered & unordered;
        u16::from(value)
    })
}

const SIGN: u16 = 0x8000;
const MAGNITUDE: u16 = 0x7fff;

/// A key whose integer order is the values' numerical order, for non-NaN bits (both zeros 0).
#[inline(always)]
fn key(x: u16) -> i32 {
    let magnitude = i32::from(x & MAGNITUDE);
    if x & SIGN != 0 { -magnitude } else { magnitude }
}

/// The value next to `x` toward `y` (`y` where they are equal; the NaN operand, `x` first).
#[inline(always)]
fn next_after(x: u16, y: u16, infinity: u16) -> u16 {
    let (x_nan, y_nan) = (x & MAGNITUDE > infinity, y & MAGNITUDE > infinity);
    let step = if (key(y) > key(x)) != (x & SIGN != 0) { x.wrapping_add(1) } else { x.wrapping_sub(1) };
    let moved = if x & MAGNITUDE == 0 { 1 | y & SIGN } else { step };
    let toward = if key(x) == key(y) { y } else { moved };
    if x_nan {
        x
    } else if y_nan {
        y
    } else {
        toward
    }
}

/// `f` of each pair of 16-bit elements of the two operands' bytes, as the little-endian bytes of
/// `O`s (the result's width: 1 byte for a `bool`, 2 for an `f16`), in pieces across threads.
fn pairs<O: opspec_adapter::Element>(
    (xs, ys): (&[u8], &[u8]),
    f: impl Fn(u16, u16) -> u16 + Sync,
) -> Vec<u8> {
    let width = O::DTYPE.size();
    in_pieces::<O>(xs.len() / 2, PAIRS_PIECE, 2, |bytes, out| {
        let (x, y) = (xs[bytes.clone()].as_chunks::<2>().0, ys[bytes.clone()].as_chunks::<2>().0);
        let pair = |(x, y): (&[u8; 2], &[u8; 2])| f(u16::from_le_bytes(*x), u16::from_le_bytes(*y));
        out.resize(x.len() * width, 0);
        if width == 1 {
            for (o, r) in out.iter_mut().zip(x.iter().zip(y).map(pair)) {
                *o = r as u8;
            }
        } else {
            for (o, r) in out.as_chunks_mut::<2>().0.iter_mut().zip(x.iter().zip(y).map(pair)) {
                *o = r.to_le_bytes();
            }
        }
        Some(())
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CpuAdapter;
    use half::bf16;
    use opspec_adapter::Adapter;

    /// Every operation here gives the scalar path's bits on every f16 and bf16 first operand
    /// against second operands at the zeros, ±1, the largest finite values, the infinities,
    /// the smallest subnormals and NaNs of both signs, quiet and signaling.
    #[test]
    fn the_bit_kernels_give_the_scalar_results() {
        let ops = [
            BinaryOp::Equal,
            BinaryOp::NotEqual,
            BinaryOp::Less,
            BinaryOp::LessEqual,
            BinaryOp::Greater,
            BinaryOp::GreaterEqual,
            BinaryOp::Copysign,
            BinaryOp::Nextafter,
        ];
        for (dtype, inf) in [(DType::F16, 0x7c00u16), (DType::BF16, 0x7f80)] {
            let seconds =
                [0, SIGN, 1, SIGN | 1, inf - 1, SIGN | (inf - 1), inf, SIGN | inf, inf | 1, inf + 0x40];
            let seconds: Vec<u16> = seconds.iter().flat_map(|&s| [s, s ^ SIGN]).collect();
            let firsts: Vec<u16> = (0..=u16::MAX).collect();
            for &second in &seconds {
                let tensor = |v: &[u16]| {
                    let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    Tensor::from_bytes(dtype, &[v.len()], bytes).unwrap()
                };
                let (a, b) = (tensor(&firsts), tensor(&vec![second; firsts.len()]));
                for op in ops {
                    let fast = binary(op, &a, &b).unwrap().unwrap();
                    let scalar = match dtype {
                        DType::F16 => crate::binary_float::<f16>(op, &a, &b),
                        _ => crate::binary_float::<bf16>(op, &a, &b),
                    }
                    .unwrap();
                    assert_eq!(
                        fast.contiguous_bytes(),
                        scalar.contiguous_bytes(),
                        "{op} {dtype} x2 = {second:#x}"
                    );
                    // And the adapter takes this path.
                    let adapter = CpuAdapter.binary(op, &a, &b).unwrap();
                    assert_eq!(adapter.contiguous_bytes(), fast.contiguous_bytes(), "{op} {dtype}");
                }
            }
        }
    }
}
