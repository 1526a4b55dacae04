//! The fast kernels (`opspec_cpu::fast`) against the scalar path, bit for bit.
//!
//! The reference runs the same operation through the adapter on strided (every other element)
//! views, which the fast path declines, so it goes through the scalar kernels of `float.rs` and
//! `integer.rs`. Every dtype the fast path takes, every size around the SIMD widths, offset
//! (unaligned) starts, sizes above the thread and streaming thresholds, and the row, column
//! and scalar broadcasts are covered, with NaNs (both signs, quiet and signalling, with
//! payloads), signed zeros, subnormals, infinities and the largest finite values among the
//! floats, and MIN, MAX, 0 and -1 among the integers. f32 and f64 NaN results match any NaN
//! (their AVX and scalar code may pick either operand's payload); everything else, f16 and
//! bf16 NaNs included, must have identical bits.
//!
//! The kernels run at the widest instruction set the CPU has (`opspec_cpu::fast::simd`); run
//! again with `OPSPEC_CPU_SIMD=avx2` (or `portable`) to check the narrower kernels on a CPU
//! with AVX-512.

use opspec_adapter::{Adapter, BinaryOp, DType, Tensor, UnaryOp};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::{Operand, PARALLEL_THRESHOLD, STREAM_THRESHOLD, binary_into};

mod common;
use common::{is_nan, values};

const OPS: [BinaryOp; 6] = [
    BinaryOp::Add,
    BinaryOp::Subtract,
    BinaryOp::Multiply,
    BinaryOp::Divide,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
];

/// The operations the fast path computes in `dtype` (integers have no fast division).
fn ops(dtype: DType) -> Vec<BinaryOp> {
    OPS.into_iter().filter(|&op| dtype.is_float() || op != BinaryOp::Divide).collect()
}

/// `op` on element pairs through the scalar path (strided views).
fn reference(op: BinaryOp, dtype: DType, xs: &[u64], ys: &[u64]) -> Vec<u64> {
    let strided = |v: &[u64]| {
        let spread: Vec<u64> = v.iter().flat_map(|&b| [b, 0]).collect();
        Tensor::from_bits(dtype, &[spread.len()], &spread).unwrap().view(&[v.len()], &[2], 0).unwrap()
    };
    CpuAdapter.binary(op, &strided(xs), &strided(ys)).unwrap().to_bits()
}

fn assert_same(what: &str, dtype: DType, xs: &[u64], ys: &[u64], expected: &[u64], actual: &[u64]) {
    assert_eq!(expected.len(), actual.len(), "{what}: length");
    for (i, (&e, &a)) in expected.iter().zip(actual).enumerate() {
        // f32 and f64 NaNs match any NaN; the 16-bit formats and integers match bit for bit.
        let wide = matches!(dtype, DType::F32 | DType::F64);
        let same = e == a || wide && is_nan(dtype, e) && is_nan(dtype, a);
        assert!(same, "{what}: element {i}: {:#x} op {:#x} gave {a:#x}, expected {e:#x}", xs[i], ys[i]);
    }
}

/// A dense tensor of `bits` starting `offset` elements into its buffer.
fn dense(dtype: DType, shape: &[usize], bits: &[u64], offset: usize) -> Tensor {
    let mut padded = vec![0x3c; offset];
    padded.extend_from_slice(bits);
    let buffer = Tensor::from_bits(dtype, &[padded.len()], &padded).unwrap();
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step *= n.max(1) as isize;
    }
    buffer.view(shape, &strides, offset).unwrap()
}

fn bytes(dtype: DType, bits: &[u64]) -> Vec<u8> {
    bits.iter().flat_map(|b| b.to_le_bytes()[..dtype.size()].to_vec()).collect()
}

/// How an operand of an `[m, n]` output is laid out.
#[derive(Clone, Copy, Debug)]
enum Role {
    Dense,
    Row,
    Column,
    Scalar,
}

impl Role {
    fn shape(self, m: usize, n: usize) -> Vec<usize> {
        match self {
            Role::Dense => vec![m, n],
            Role::Row => vec![n],
            Role::Column => vec![m, 1],
            Role::Scalar => vec![],
        }
    }

    /// The value at output element `(i, j)`.
    fn at(self, own: &[u64], i: usize, j: usize, n: usize) -> u64 {
        match self {
            Role::Dense => own[i * n + j],
            Role::Row => own[j],
            Role::Column => own[i],
            Role::Scalar => own[0],
        }
    }

    fn operand(self, b: &[u8]) -> Operand<'_> {
        match self {
            Role::Dense => Operand::Dense(b),
            Role::Row => Operand::Row(b),
            Role::Column => Operand::Column(b),
            Role::Scalar => Operand::Scalar(b),
        }
    }
}

/// Checks every op on an `[m, n]` output with the given operand roles, through the adapter
/// (with operands starting `offset` elements into their buffers) and the kernel directly.
fn check(dtype: DType, m: usize, n: usize, roles: (Role, Role), offset: usize) {
    let own = |r: Role, seed| {
        let count = Role::shape(r, m, n).iter().product::<usize>();
        values(dtype, count, seed)
    };
    let (x_own, y_own) = (own(roles.0, 1 + m as u64), own(roles.1, 7 + n as u64));
    let mut xs = Vec::with_capacity(m * n);
    let mut ys = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            xs.push(roles.0.at(&x_own, i, j, n));
            ys.push(roles.1.at(&y_own, i, j, n));
        }
    }
    let x = dense(dtype, &roles.0.shape(m, n), &x_own, offset);
    let y = dense(dtype, &roles.1.shape(m, n), &y_own, offset);
    let (xb, yb) = (bytes(dtype, &x_own), bytes(dtype, &y_own));
    for op in ops(dtype) {
        let what = format!("{op} {dtype} [{m}, {n}] {roles:?} offset {offset}");
        let expected = reference(op, dtype, &xs, &ys);
        let adapter = CpuAdapter.binary(op, &x, &y).unwrap();
        assert_same(&what, dtype, &xs, &ys, &expected, &adapter.to_bits());
        let mut out = vec![0u8; m * n * dtype.size()];
        assert!(binary_into(op, dtype, roles.0.operand(&xb), roles.1.operand(&yb), n, &mut out), "{what}");
        let direct = Tensor::from_bytes(dtype, &[m * n], out).unwrap().to_bits();
        assert_same(&what, dtype, &xs, &ys, &expected, &direct);
    }
}

/// Every size around the AVX width (32 bytes), every remainder of the AVX-512 width (64
/// bytes, whose kernels end with a masked 32-byte step) past the length where segments start
/// to use the vector kernels, offset starts, and sizes around and above the thread and
/// streaming thresholds, on one row.
fn contiguous(dtype: DType) {
    let lane = 32 / dtype.size();
    let mut sizes = vec![0, 1, 2, lane - 1, lane, lane + 1, 2 * lane - 1, 2 * lane + 1, 1000, 4099];
    // 1 KiB is past the vector kernels' shortest segment (512 bytes).
    sizes.extend((0..=2 * lane).map(|r| 1024 / dtype.size() + r));
    // Around the thread threshold, and well above it.
    let threshold = PARALLEL_THRESHOLD / dtype.size();
    sizes.extend([threshold - 1, threshold, threshold + lane + 1, 3 * threshold + 5]);
    for n in sizes {
        for offset in [0, 1, 3] {
            check(dtype, 1, n, (Role::Dense, Role::Dense), offset);
        }
    }
    // Non-temporal stores, with a head before the first aligned block.
    for offset in [0, 1] {
        check(dtype, 1, STREAM_THRESHOLD / dtype.size() + 3, (Role::Dense, Role::Dense), offset);
    }
}

/// Scalar, row and column operands on either side, small shapes and shapes above the thread
/// and streaming thresholds, and empty outputs.
fn broadcasts(dtype: DType) {
    use Role::*;
    let shapes = [(1, 1), (3, 1), (2, 7), (5, 8), (4, 9), (9, 17), (33, 3), (3, 65), (2, 300), (1000, 3)];
    let pairs =
        [(Dense, Scalar), (Scalar, Dense), (Dense, Row), (Row, Dense), (Dense, Column), (Column, Dense)];
    for &(m, n) in &shapes {
        for roles in pairs {
            for offset in [0, 1] {
                check(dtype, m, n, roles, offset);
            }
        }
    }
    // Above the thread threshold, rows straddling the parallel chunks.
    let m = PARALLEL_THRESHOLD / dtype.size() / 1001 + 2;
    for roles in pairs {
        check(dtype, m, 1001, roles, 0);
    }
    // Short rows (rows tiled, columns spread by the fast path) above the thread and streaming
    // thresholds, the groups of rows straddling the parallel chunks.
    let m = PARALLEL_THRESHOLD / dtype.size() / 7 + 3;
    for roles in [(Dense, Row), (Row, Dense), (Dense, Column), (Column, Dense)] {
        check(dtype, m, 7, roles, 1);
    }
    check(dtype, STREAM_THRESHOLD / dtype.size() / 5 + 1, 5, (Row, Dense), 1);
    check(dtype, STREAM_THRESHOLD / dtype.size() / 5 + 1, 5, (Dense, Column), 0);
    // Non-temporal stores on broadcast rows.
    check(dtype, STREAM_THRESHOLD / dtype.size() / 1000 + 1, 1000, (Dense, Row), 1);
    check(dtype, STREAM_THRESHOLD / dtype.size() / 1000 + 1, 1000, (Column, Dense), 0);
    check(dtype, 0, 5, (Dense, Row), 0);
    check(dtype, 4, 0, (Dense, Column), 0);
}

const WIDE: [DType; 2] = [DType::F32, DType::F64];
const HALF: [DType; 2] = [DType::F16, DType::BF16];
const SIGNED: [DType; 4] = [DType::I8, DType::I16, DType::I32, DType::I64];
const UNSIGNED: [DType; 4] = [DType::U8, DType::U16, DType::U32, DType::U64];

#[test]
fn contiguous_f32_f64() {
    WIDE.into_iter().for_each(contiguous);
}

#[test]
fn contiguous_f16_bf16() {
    HALF.into_iter().for_each(contiguous);
}

#[test]
fn contiguous_signed_integers() {
    SIGNED.into_iter().for_each(contiguous);
}

#[test]
fn contiguous_unsigned_integers() {
    UNSIGNED.into_iter().for_each(contiguous);
}

#[test]
fn broadcasts_f32_f64() {
    WIDE.into_iter().for_each(broadcasts);
}

#[test]
fn broadcasts_f16_bf16() {
    HALF.into_iter().for_each(broadcasts);
}

#[test]
fn broadcasts_integers() {
    SIGNED.into_iter().chain(UNSIGNED).for_each(broadcasts);
}

/// The element-by-element path reads two dense operands in place, split across threads
/// (`dense_pairs`): the same bits as when it gathers strided views, for operations without a
/// fast kernel, at a size that splits (2^17 + 3 pairs in pieces of 2^15, the last short).
#[test]
fn dense_pairs_of_the_scalar_path() {
    let ops = [
        BinaryOp::Equal,
        BinaryOp::Less,
        BinaryOp::Copysign,
        BinaryOp::Nextafter,
        BinaryOp::FloorDivide,
        BinaryOp::Remainder,
        BinaryOp::Hypot,
    ];
    let n = (1 << 17) + 3;
    for dtype in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let (xs, ys) = (values(dtype, n, 5), values(dtype, n, 6));
        for op in ops {
            let (x, y) =
                (Tensor::from_bits(dtype, &[n], &xs).unwrap(), Tensor::from_bits(dtype, &[n], &ys).unwrap());
            let actual = CpuAdapter.binary(op, &x, &y).unwrap().to_bits();
            let output = if op.is_comparison() { DType::Bool } else { dtype };
            assert_same(&format!("{op} {dtype}"), output, &xs, &ys, &reference(op, dtype, &xs, &ys), &actual);
        }
    }
}

/// The unary kernels read a dense operand in place, split across threads: the same bits as
/// calls of at most 1,000 values each (one piece, one thread), at a size that splits (2^16 + 5
/// values in pieces of 2^14, the last short); and a strided view of the values (copied dense
/// first) gives them too.
#[test]
fn dense_values_of_the_unary_path() {
    let ops = [UnaryOp::Exp, UnaryOp::Sin, UnaryOp::Sqrt, UnaryOp::Round, UnaryOp::Isnan, UnaryOp::Sign];
    let n = (1 << 16) + 5;
    for dtype in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let xs = values(dtype, n, 7);
        let x = Tensor::from_bits(dtype, &[n], &xs).unwrap();
        let spread: Vec<u64> = xs.iter().flat_map(|&b| [b, 0]).collect();
        let strided = Tensor::from_bits(dtype, &[2 * n], &spread).unwrap().view(&[n], &[2], 0).unwrap();
        for op in ops {
            let small = |part: &[u64]| {
                let t = Tensor::from_bits(dtype, &[part.len()], part).unwrap();
                CpuAdapter.unary(op, &t).unwrap().to_bits()
            };
            let expected: Vec<u64> = xs.chunks(1000).flat_map(small).collect();
            let dense = CpuAdapter.unary(op, &x).unwrap();
            assert_eq!(dense.shape(), [n]);
            assert_eq!(dense.to_bits(), expected, "{op} {dtype}");
            assert_eq!(CpuAdapter.unary(op, &strided).unwrap().to_bits(), expected, "{op} {dtype} strided");
        }
    }
}
