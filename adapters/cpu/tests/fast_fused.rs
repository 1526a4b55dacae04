//! The fused fast path (`opspec_cpu::fast::fused`) and `binary_into`'s direct path against the
//! scalar paths, bit for bit.
//!
//! The fused reference is the adapter on strided views (every other element), which the fast
//! path declines, and `f32/f64::mul_add` and `(a + b) * c` computed here from the standard
//! library. NaN results match any NaN (the contract leaves the payload free); everything else
//! must have identical bits.

use opspec_adapter::{Adapter, BinaryOp, DType, ErrorKind, Tensor, TernaryOp};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::fused::ternary_into;
use opspec_cpu::fast::{PARALLEL_THRESHOLD, STREAM_THRESHOLD};

mod common;
use common::{is_nan, values};

const DTYPES: [DType; 2] = [DType::F32, DType::F64];
const OPS: [TernaryOp; 2] = [TernaryOp::FusedMulAdd, TernaryOp::FusedAddMul];

/// `op` on one triple of bits, from the standard library.
fn std_ternary(op: TernaryOp, dtype: DType, a: u64, b: u64, c: u64) -> u64 {
    match dtype {
        DType::F32 => {
            let (a, b, c) = (f32::from_bits(a as u32), f32::from_bits(b as u32), f32::from_bits(c as u32));
            let r = if op == TernaryOp::FusedMulAdd { a.mul_add(b, c) } else { (a + b) * c };
            r.to_bits() as u64
        }
        _ => {
            let (a, b, c) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
            let r = if op == TernaryOp::FusedMulAdd { a.mul_add(b, c) } else { (a + b) * c };
            r.to_bits()
        }
    }
}

fn assert_same(what: &str, dtype: DType, inputs: [&[u64]; 3], expected: &[u64], actual: &[u64]) {
    assert_eq!(expected.len(), actual.len(), "{what}: length");
    for (i, (&e, &a)) in expected.iter().zip(actual).enumerate() {
        let same = e == a || is_nan(dtype, e) && is_nan(dtype, a);
        let [x, y, z] = inputs.map(|v| v[i]);
        assert!(same, "{what}: element {i}: ({x:#x}, {y:#x}, {z:#x}) gave {a:#x}, expected {e:#x}");
    }
}

/// A 1-D tensor of `bits` with the given element stride, starting `offset` elements into its
/// buffer (the rest of the buffer holds other values).
fn view(dtype: DType, bits: &[u64], stride: usize, offset: usize) -> Tensor {
    let mut buffer = vec![0x3c; offset + bits.len() * stride];
    for (i, &b) in bits.iter().enumerate() {
        buffer[offset + i * stride] = b;
    }
    let t = Tensor::from_bits(dtype, &[buffer.len()], &buffer).unwrap();
    t.view(&[bits.len()], &[stride as isize], offset).unwrap()
}

fn bytes(dtype: DType, bits: &[u64]) -> Vec<u8> {
    bits.iter().flat_map(|b| b.to_le_bytes()[..dtype.size()].to_vec()).collect()
}

/// Both ops on `n` elements: the adapter on dense views (offsets 0, 1 and 3 elements, so the
/// operands are unaligned against each other), `ternary_into`, the adapter on strided views
/// and the standard library must all agree.
fn check(dtype: DType, n: usize) {
    let [xs, ys, zs] = [1, 2, 3].map(|seed| values(dtype, n, seed + n as u64));
    for op in OPS {
        let what = format!("{op} {dtype} n = {n}");
        let expected: Vec<u64> = (0..n).map(|i| std_ternary(op, dtype, xs[i], ys[i], zs[i])).collect();
        let inputs = [&xs[..], &ys[..], &zs[..]];
        let strided = [&xs, &ys, &zs].map(|v| view(dtype, v, 2, 1));
        let scalar = CpuAdapter.ternary(op, &strided[0], &strided[1], &strided[2]).unwrap();
        assert_same(&format!("{what}, scalar path"), dtype, inputs, &expected, &scalar.to_bits());
        for offsets in [(0, 0, 0), (1, 0, 3), (3, 1, 0)] {
            let (x, y, z) = (
                view(dtype, &xs, 1, offsets.0),
                view(dtype, &ys, 1, offsets.1),
                view(dtype, &zs, 1, offsets.2),
            );
            let fast = CpuAdapter.ternary(op, &x, &y, &z).unwrap();
            assert_eq!(fast.shape(), &[n]);
            assert_same(&format!("{what}, offsets {offsets:?}"), dtype, inputs, &expected, &fast.to_bits());
        }
        let mut out = vec![0u8; n * dtype.size()];
        assert!(ternary_into(
            op,
            dtype,
            &bytes(dtype, &xs),
            &bytes(dtype, &ys),
            &bytes(dtype, &zs),
            &mut out
        ));
        let direct = Tensor::from_bytes(dtype, &[n], out).unwrap().to_bits();
        assert_same(&format!("{what}, ternary_into"), dtype, inputs, &expected, &direct);
    }
}

#[test]
fn fused_sizes_around_the_lane_count_and_the_thresholds() {
    for dtype in DTYPES {
        let lane = 32 / dtype.size();
        let mut sizes = vec![0, 1, 2, lane - 1, lane, lane + 1, 2 * lane - 1, 2 * lane + 1, 1000, 4099];
        let parallel = PARALLEL_THRESHOLD / dtype.size();
        sizes.extend([
            parallel - 1,
            parallel + lane + 1,
            3 * parallel + 5,
            STREAM_THRESHOLD / dtype.size() + 3,
        ]);
        for n in sizes {
            check(dtype, n);
        }
    }
}

#[test]
fn fused_mul_add_rounds_once_in_every_lane() {
    // f32: (1 + 2^-12)² = 1 + 2^-11 + 2^-24; minus (1 + 2^-11) leaves 2^-24 (0x3380_0000).
    // Rounding the product first would tie it to 1 + 2^-11 and give 0.
    // f64: (1 + 2^-27)² - (1 + 2^-26) = 2^-54 (0x3c90_0000_0000_0000) the same way.
    let cases = [
        (DType::F32, 0x3f80_0800, 0xbf80_1000, 0x3380_0000),
        (DType::F64, 0x3ff0_0000_0200_0000, 0xbff0_0000_0400_0000, 0x3c90_0000_0000_0000),
    ];
    for (dtype, a, c, expected) in cases {
        for n in [1, 37, 4099] {
            let (x, z) = (view(dtype, &vec![a; n], 1, 1), view(dtype, &vec![c; n], 1, 0));
            let r = CpuAdapter.ternary(TernaryOp::FusedMulAdd, &x, &x, &z).unwrap();
            assert_eq!(r.to_bits(), vec![expected; n], "{dtype}, {n} elements");
            // Through the scalar path too.
            let (x, z) = (view(dtype, &vec![a; n], 3, 0), view(dtype, &vec![c; n], 2, 1));
            let r = CpuAdapter.ternary(TernaryOp::FusedMulAdd, &x, &x, &z).unwrap();
            assert_eq!(r.to_bits(), vec![expected; n], "{dtype}, {n} elements, strided");
        }
    }
}

#[test]
fn fused_multi_dimensional_and_declined_shapes() {
    for dtype in DTYPES {
        let [xs, ys, zs] = [4, 5, 6].map(|seed| values(dtype, 6 * 35, seed));
        let dense = |v: &[u64]| Tensor::from_bits(dtype, &[6, 5, 7], v).unwrap();
        // A transposed view (not dense) next to dense ones: the scalar path, same values.
        let transposed = |v: &[u64]| {
            let mut t = vec![0; v.len()];
            for i in 0..6 {
                for j in 0..5 {
                    for k in 0..7 {
                        t[k * 30 + j * 6 + i] = v[i * 35 + j * 7 + k];
                    }
                }
            }
            Tensor::from_bits(dtype, &[7, 5, 6], &t).unwrap().view(&[6, 5, 7], &[1, 6, 30], 0).unwrap()
        };
        for op in OPS {
            let expected: Vec<u64> =
                (0..xs.len()).map(|i| std_ternary(op, dtype, xs[i], ys[i], zs[i])).collect();
            let inputs = [&xs[..], &ys[..], &zs[..]];
            let fast = CpuAdapter.ternary(op, &dense(&xs), &dense(&ys), &dense(&zs)).unwrap();
            assert_eq!(fast.shape(), &[6, 5, 7]);
            assert_same(&format!("{op} {dtype} dense"), dtype, inputs, &expected, &fast.to_bits());
            let mixed = CpuAdapter.ternary(op, &dense(&xs), &transposed(&ys), &dense(&zs)).unwrap();
            assert_eq!(mixed.shape(), &[6, 5, 7]);
            assert_same(&format!("{op} {dtype} mixed"), dtype, inputs, &expected, &mixed.to_bits());
        }
    }
}

#[test]
fn ternary_into_declines_what_it_cannot_compute() {
    let (a, mut out) = (vec![0u8; 16], vec![7u8; 16]);
    assert!(!ternary_into(TernaryOp::FusedMulAdd, DType::F16, &a, &a, &a, &mut out));
    assert!(!ternary_into(TernaryOp::FusedMulAdd, DType::F32, &a[..12], &a, &a, &mut out));
    assert!(!ternary_into(TernaryOp::FusedAddMul, DType::F64, &a[..12], &a[..12], &a[..12], &mut out[..12]));
    assert_eq!(out, vec![7u8; 16]);
}

/// `add_into` (and the other ops `binary_into` takes) through the direct path (dense operands
/// in the fast path's roles) and the general path (the same values as strided views) must
/// write the same bits as the allocating `binary`.
#[test]
fn binary_into_direct_and_general_paths_agree() {
    let ops = [BinaryOp::Add, BinaryOp::Multiply, BinaryOp::Maximum];
    // (shape of a, shape of b, output shape): same shape, row, column, scalar.
    let layouts: [(&[usize], &[usize], &[usize]); 5] = [
        (&[5, 9], &[5, 9], &[5, 9]),
        (&[5, 9], &[9], &[5, 9]),
        (&[5, 1], &[5, 9], &[5, 9]),
        (&[5, 9], &[], &[5, 9]),
        (&[3, 1000], &[3, 1000], &[3, 1000]),
    ];
    for dtype in DTYPES {
        for (sa, sb, shape) in layouts {
            let (na, nb) = (sa.iter().product::<usize>(), sb.iter().product::<usize>());
            let (xa, xb) = (values(dtype, na, 11), values(dtype, nb, 12));
            let dense = |v: &[u64], s: &[usize]| view(dtype, v, 1, 1).view(s, &strides(s, 1), 1).unwrap();
            let spread = |v: &[u64], s: &[usize]| view(dtype, v, 2, 0).view(s, &strides(s, 2), 0).unwrap();
            for op in ops {
                let what = format!("{op} {dtype} {sa:?} {sb:?}");
                let expected = CpuAdapter.binary(op, &dense(&xa, sa), &dense(&xb, sb)).unwrap().to_bits();
                for (path, a, b) in [
                    ("direct", dense(&xa, sa), dense(&xb, sb)),
                    ("general", spread(&xa, sa), spread(&xb, sb)),
                ] {
                    let mut out = Tensor::from_bits(dtype, shape, &vec![0x3c; expected.len()]).unwrap();
                    CpuAdapter.binary_into(op, &a, &b, &mut out).unwrap();
                    let got = out.to_bits();
                    for (i, (&e, &g)) in expected.iter().zip(&got).enumerate() {
                        assert!(e == g || is_nan(dtype, e) && is_nan(dtype, g), "{what} {path}: element {i}");
                    }
                }
            }
        }
    }
}

/// Row-major strides for `shape` with `step` elements between neighbours.
fn strides(shape: &[usize], step: isize) -> Vec<isize> {
    let mut s = vec![0; shape.len()];
    let mut acc = step;
    for (s, &n) in s.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= n.max(1) as isize;
    }
    s
}

#[test]
fn binary_into_errors_leave_out_untouched() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let wrong_shape = Tensor::from_slice(&[9.0f32; 4], &[4]).unwrap();
    let mut out = wrong_shape.clone();
    let e = CpuAdapter.binary_into(BinaryOp::Add, &a, &a, &mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ShapeMismatch);
    let mut out64 = Tensor::from_slice(&[9.0f64; 3], &[3]).unwrap();
    let e = CpuAdapter.binary_into(BinaryOp::Add, &a, &a, &mut out64).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DTypeMismatch);
    let mut reversed = Tensor::from_slice(&[9.0f32; 3], &[3]).unwrap().view(&[3], &[-1], 2).unwrap();
    let e = CpuAdapter.binary_into(BinaryOp::Add, &a, &a, &mut reversed).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotContiguous);
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![9.0; 4]);
    assert_eq!(out64.to_vec::<f64>().unwrap(), vec![9.0; 3]);
    assert_eq!(reversed.to_vec::<f32>().unwrap(), vec![9.0; 3]);
}

/// A comparison (bool result) or an integer division (f32 result) cannot be written into an
/// `out` of the operands' dtype: an error, not a panic, and `out` keeps its values.
#[test]
fn binary_into_refuses_results_of_another_dtype() {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let mut out = Tensor::from_slice(&[9.0f32; 3], &[3]).unwrap();
    let e = CpuAdapter.binary_into(BinaryOp::Equal, &x, &x, &mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DTypeMismatch);
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![9.0; 3]);
    let i = Tensor::from_slice(&[7i32, 8, 9], &[3]).unwrap();
    let mut out = Tensor::from_slice(&[5i32; 3], &[3]).unwrap();
    let e = CpuAdapter.binary_into(BinaryOp::Divide, &i, &i, &mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DTypeMismatch);
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![5; 3]);
}
