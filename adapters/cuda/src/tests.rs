//! Tests of the adapter. Those that need a GPU print `skipped: <reason>` and return when there
//! is none (they then prove nothing about the kernels); the NVRTC test compiles every kernel
//! when NVRTC can be loaded and prints `skipped` otherwise.

use half::{bf16, f16};
use opspec_adapter::{Adapter, BinaryOp, DType, ErrorKind, OpKind, ScatterMode, Support, Tensor, TernaryOp};

use opspec_adapter::{Scalar, ScalarSide};
use opspec_cpu::CpuAdapter;

use crate::kernels::Kernel;
use crate::{CudaAdapter, Scatter, gpu};

/// The adapter on a GPU, or `None` after printing why the calling test is skipped.
fn gpu_adapter(scatter: Scatter) -> Option<CudaAdapter> {
    match CudaAdapter::new(scatter) {
        Ok(adapter) => Some(adapter),
        Err(reason) => {
            println!("skipped: {reason}");
            None
        }
    }
}

macro_rules! require_gpu {
    () => {
        require_gpu!(Scatter::Atomic)
    };
    ($scatter:expr) => {
        match gpu_adapter($scatter) {
            Some(adapter) => adapter,
            None => return,
        }
    };
}

const FLOATS: [DType; 4] = [DType::F16, DType::BF16, DType::F32, DType::F64];

/// (significand bits including the hidden one, exponent of the smallest and largest normal).
fn format(dtype: DType) -> (i32, i32, i32) {
    match dtype {
        DType::F16 => (11, -14, 15),
        DType::BF16 => (8, -126, 127),
        DType::F32 => (24, -126, 127),
        _ => (53, -1022, 1023),
    }
}

fn to_f64(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::F16 => f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => bf16::from_bits(bits as u16).to_f64(),
        DType::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// The bits of `x`, which must be representable in `dtype` (or infinite, or NaN).
fn exact_bits(dtype: DType, x: f64) -> u64 {
    match dtype {
        DType::F16 => u64::from(f16::from_f64(x).to_bits()),
        DType::BF16 => u64::from(bf16::from_f64(x).to_bits()),
        DType::F32 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    }
}

/// `x` rounded to nearest even in `dtype`, with subnormals and overflow to infinity: scaled by
/// the ulp of its binade (exact in f64), rounded to an integer, scaled back.
fn round(dtype: DType, x: f64) -> u64 {
    if !x.is_finite() || x == 0.0 || dtype == DType::F64 {
        return exact_bits(dtype, x);
    }
    let (p, emin, emax) = format(dtype);
    let exponent = (((x.to_bits() >> 52) & 0x7ff) as i32 - 1023).clamp(emin, emax);
    let ulp = 2f64.powi(exponent - (p - 1));
    let r = (x / ulp).round_ties_even() * ulp;
    let max = (2.0 - 2f64.powi(1 - p)) * 2f64.powi(emax);
    exact_bits(dtype, if r.abs() > max { f64::INFINITY.copysign(x) } else { r })
}

fn is_nan(dtype: DType, bits: u64) -> bool {
    to_f64(dtype, bits).is_nan()
}

#[test]
fn the_reference_rounding_agrees_with_known_conversions() {
    // f32 -> f16/bf16 (one rounding in `half`) and f64 -> f32 (Rust's `as`).
    for bits in random_bits(DType::F32, 200_000, 7).into_iter().chain(edge_bits(DType::F32)) {
        let x = f32::from_bits(bits as u32);
        assert!(same(DType::F16, round(DType::F16, f64::from(x)), u64::from(f16::from_f32(x).to_bits())));
        assert!(same(DType::BF16, round(DType::BF16, f64::from(x)), u64::from(bf16::from_f32(x).to_bits())));
    }
    for bits in random_bits(DType::F64, 200_000, 8) {
        let x = f64::from_bits(bits);
        assert!(same(DType::F32, round(DType::F32, x), u64::from((x as f32).to_bits())), "{x:e}");
    }
    assert_eq!(
        edge_bits(DType::F16)[..12],
        [0, 0x8000, 1, 0x8001, 0x3ff, 0x83ff, 0x400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0xbc01]
    );
    assert_eq!(edge_bits(DType::BF16)[16..], [0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0]);
}

/// Zeros, extreme subnormals and normals, 1 and its neighbour, 1.5, 3, the largest finite
/// value, infinity and a NaN, with both signs.
fn edge_bits(dtype: DType) -> Vec<u64> {
    let (p, _, emax) = format(dtype);
    let (mant, total) = (p as u32 - 1, 8 * dtype.size() as u32);
    let one = (emax as u64) << mant;
    let inf = (1u64 << (total - 1)) - (1u64 << mant);
    let half_ulp_bit = 1u64 << (mant - 1);
    let positive = [
        0,
        1,
        (1 << mant) - 1,
        1 << mant,
        one,
        one + 1,
        one | half_ulp_bit,
        (one + (1 << mant)) | half_ulp_bit,
        inf - 1,
        inf,
        inf | half_ulp_bit,
    ];
    positive.iter().flat_map(|&b| [b, b | (1u64 << (total - 1))]).collect()
}

/// `count` pseudo-random element bit patterns (SplitMix64), reproducible from `seed`.
fn random_bits(dtype: DType, count: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    let mask = u64::MAX >> (64 - 8 * dtype.size());
    (0..count)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) & mask
        })
        .collect()
}

fn tensor(dtype: DType, shape: &[usize], bits: &[u64]) -> Tensor {
    Tensor::from_bits(dtype, shape, bits).unwrap()
}

/// Runs `op` on every (a, b) of `a` x `b` as a `[a, 1] x [b]` broadcast and checks each result
/// with `accept(a, b, result)`; panics listing the first mismatches.
fn check_pairs(
    adapter: &CudaAdapter,
    op: BinaryOp,
    dtype: DType,
    a: &[u64],
    b: &[u64],
    accept: impl Fn(u64, u64, u64) -> bool,
) {
    let out = adapter.binary(op, &tensor(dtype, &[a.len(), 1], a), &tensor(dtype, &[b.len()], b)).unwrap();
    assert_eq!(out.shape(), [a.len(), b.len()]);
    let bits = out.to_bits();
    let bad: Vec<String> = bits
        .iter()
        .enumerate()
        .filter(|&(i, &r)| !accept(a[i / b.len()], b[i % b.len()], r))
        .take(5)
        .map(|(i, r)| format!("{op} {dtype} {:#x} {:#x} -> {r:#x}", a[i / b.len()], b[i % b.len()]))
        .collect();
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}

/// Equal bits, or both NaN.
fn same(dtype: DType, expected: u64, actual: u64) -> bool {
    expected == actual || (is_nan(dtype, expected) && is_nan(dtype, actual))
}

/// Operands for `dtype`: every pattern for 16-bit types, else edges and random values.
fn operands(dtype: DType) -> (Vec<u64>, Vec<u64>) {
    let mut b = edge_bits(dtype);
    b.extend(random_bits(dtype, 40, 2));
    let a = if dtype.size() == 2 {
        (0..1u64 << 16).collect()
    } else {
        let mut a = edge_bits(dtype);
        a.extend(random_bits(dtype, 2000, 1));
        a
    };
    (a, b)
}

/// The exact (or f64) value of a binary operation.
type Exact = fn(f64, f64) -> f64;

#[test]
fn add_subtract_multiply_divide_are_correctly_rounded() {
    let adapter = require_gpu!();
    let ops: [(BinaryOp, Exact); 4] = [
        (BinaryOp::Add, |x, y| x + y),
        (BinaryOp::Subtract, |x, y| x - y),
        (BinaryOp::Multiply, |x, y| x * y),
        (BinaryOp::Divide, |x, y| x / y),
    ];
    for dtype in FLOATS {
        let (a, b) = operands(dtype);
        for (op, f) in ops {
            // Rounding the f64 result once more is exact: f64 has at least 2p+2 bits.
            check_pairs(&adapter, op, dtype, &a, &b, |x, y, r| {
                same(dtype, round(dtype, f(to_f64(dtype, x), to_f64(dtype, y))), r)
            });
        }
    }
}

#[test]
fn maximum_and_minimum_propagate_nan() {
    let adapter = require_gpu!();
    for dtype in FLOATS {
        let (a, b) = operands(dtype);
        for (op, larger) in [(BinaryOp::Maximum, true), (BinaryOp::Minimum, false)] {
            check_pairs(&adapter, op, dtype, &a, &b, |x, y, r| {
                let (fx, fy) = (to_f64(dtype, x), to_f64(dtype, y));
                if fx.is_nan() || fy.is_nan() {
                    is_nan(dtype, r)
                } else if fx == fy {
                    r == x || r == y
                } else {
                    r == if (fx > fy) == larger { x } else { y }
                }
            });
        }
    }
}

#[test]
fn pow_atan2_and_hypot_are_close_to_the_exact_value() {
    let adapter = require_gpu!();
    // Ordered distance between two finite values of one dtype.
    let ulps = |dtype: DType, x: u64, y: u64| {
        let sign = 1u64 << (8 * dtype.size() - 1);
        let key = |b: u64| if b & sign != 0 { -((b & !sign) as i128) } else { b as i128 };
        (key(x) - key(y)).unsigned_abs()
    };
    // 16-bit types and f32 compute in f64 and round once: one step from the f64 reference.
    for (dtype, bound) in [(DType::F16, 1), (DType::BF16, 1), (DType::F32, 1), (DType::F64, 4)] {
        let (a, b) = operands(dtype);
        for (op, f) in [
            (BinaryOp::Pow, f64::powf as Exact),
            (BinaryOp::Atan2, f64::atan2),
            (BinaryOp::Hypot, f64::hypot),
        ] {
            check_pairs(&adapter, op, dtype, &a, &b, |x, y, r| {
                let exact = f(to_f64(dtype, x), to_f64(dtype, y));
                // Only finite, normal results are compared here; special cases are the harness's.
                let normal = exact.is_finite() && exact.abs() >= 2f64.powi(format(dtype).1);
                !normal || ulps(dtype, round(dtype, exact), r) <= bound
            });
        }
    }
}

/// Runs a ternary op on three tensors of shape `[n]`, the last one as a reversed view.
fn run_ternary(adapter: &CudaAdapter, op: TernaryOp, dtype: DType, abc: &[[u64; 3]]) -> Vec<u64> {
    let n = abc.len();
    let column = |k: usize| abc.iter().map(|v| v[k]).collect::<Vec<_>>();
    let reversed: Vec<u64> = column(2).into_iter().rev().collect();
    let c = tensor(dtype, &[n], &reversed).view(&[n], &[-1], n - 1).unwrap();
    let out = adapter.ternary(op, &tensor(dtype, &[n], &column(0)), &tensor(dtype, &[n], &column(1)), &c);
    out.unwrap().to_bits()
}

#[test]
fn fused_ops_round_once_and_twice() {
    let adapter = require_gpu!();
    for dtype in FLOATS {
        let mut values = edge_bits(dtype);
        values.extend(random_bits(dtype, 30, 3));
        let mut abc: Vec<[u64; 3]> = Vec::new();
        for &x in &values {
            for &y in &values {
                abc.extend(random_bits(dtype, 4, x ^ (y << 20)).into_iter().map(|z| [x, y, z]));
            }
        }
        let f = |x: u64| to_f64(dtype, x);
        let fma = run_ternary(&adapter, TernaryOp::FusedMulAdd, dtype, &abc);
        let add_mul = run_ternary(&adapter, TernaryOp::FusedAddMul, dtype, &abc);
        for (i, &[x, y, z]) in abc.iter().enumerate() {
            let expected = match dtype {
                DType::F32 => {
                    let g = |b: u64| f32::from_bits(b as u32);
                    Some(u64::from(g(x).mul_add(g(y), g(z)).to_bits()))
                }
                DType::F64 => Some(f(x).mul_add(f(y), f(z)).to_bits()),
                // One f64 fma rounded to f16 is exact; for bf16 it is not (checked below).
                DType::F16 => Some(round(dtype, f(x).mul_add(f(y), f(z)))),
                _ => None,
            };
            if let Some(e) = expected {
                assert!(
                    same(dtype, e, fma[i]),
                    "fma {dtype} {x:#x} {y:#x} {z:#x} -> {:#x}, expected {e:#x}",
                    fma[i]
                );
            }
            let sum = to_f64(dtype, round(dtype, f(x) + f(y)));
            let e = round(dtype, sum * f(z));
            assert!(same(dtype, e, add_mul[i]), "add_mul {dtype} {x:#x} {y:#x} {z:#x} -> {:#x}", add_mul[i]);
        }
    }
    // Cases where rounding a*b first gives another result.
    let f32_case = [[4097f32.to_bits(), 4097f32.to_bits(), 2f32.powi(-30).to_bits()].map(u64::from)];
    let got = run_ternary(&adapter, TernaryOp::FusedMulAdd, DType::F32, &f32_case);
    assert_eq!(f32::from_bits(got[0] as u32), 16785410.0);
    let b = |x: f32| u64::from(bf16::from_f32(x).to_bits());
    let bf16_case = [[b(17.0), b(17.0), b(2f32.powi(-60))]];
    let got = run_ternary(&adapter, TernaryOp::FusedMulAdd, DType::BF16, &bf16_case);
    assert_eq!(bf16::from_bits(got[0] as u16).to_f32(), 290.0);
}

#[test]
fn integer_arithmetic_wraps() {
    let adapter = require_gpu!();
    let i8s = |v: &[i8]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let sum = adapter.binary(BinaryOp::Add, &i8s(&[127, -128, 5]), &i8s(&[1, -1, -7])).unwrap();
    assert_eq!(sum.to_vec::<i8>().unwrap(), [-128, 127, -2]);
    let u16s = |v: &[u16]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let product = adapter.binary(BinaryOp::Multiply, &u16s(&[65535, 300]), &u16s(&[65535, 300])).unwrap();
    assert_eq!(product.to_vec::<u16>().unwrap(), [1, 24464]);
    let i64s = |v: &[i64]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let (x, y) = (i64s(&[i64::MIN, -1, 7]), i64s(&[1, i64::MAX, -7]));
    let difference = adapter.binary(BinaryOp::Subtract, &x, &y).unwrap();
    assert_eq!(difference.to_vec::<i64>().unwrap(), [i64::MAX, i64::MIN, 14]);
    assert_eq!(adapter.binary(BinaryOp::Maximum, &x, &y).unwrap().to_vec::<i64>().unwrap(), [1, i64::MAX, 7]);
    assert_eq!(
        adapter.binary(BinaryOp::Minimum, &x, &y).unwrap().to_vec::<i64>().unwrap(),
        [i64::MIN, -1, -7]
    );
    let u32s = |v: &[u32]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let fma = adapter.ternary(TernaryOp::FusedMulAdd, &u32s(&[1 << 31]), &u32s(&[2]), &u32s(&[3])).unwrap();
    assert_eq!(fma.to_vec::<u32>().unwrap(), [3]);
}

#[test]
fn broadcasting_follows_strides_of_any_sign() {
    let adapter = require_gpu!();
    let base: Vec<f32> = (0..12).map(|v| v as f32).collect();
    let buffer = Tensor::from_slice(&base, &[12]).unwrap();
    // a: a column taken from a transposed view, b: reversed, c: broadcast by a zero stride.
    let a = buffer.view(&[3, 1], &[4, 1], 1).unwrap();
    let b = buffer.view(&[4], &[-2], 11).unwrap();
    let c = buffer.view(&[3, 4], &[0, 1], 2).unwrap();
    let (av, bv, cv) = (a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap(), c.to_vec::<f32>().unwrap());
    let ab = adapter.binary(BinaryOp::Subtract, &a, &b).unwrap();
    let expected: Vec<f32> = (0..12).map(|i| av[i / 4] - bv[i % 4]).collect();
    assert_eq!(ab.shape(), [3, 4]);
    assert_eq!(ab.to_vec::<f32>().unwrap(), expected);
    let mut out = Tensor::zeros(DType::F32, &[3, 4]).unwrap();
    adapter.binary_into(BinaryOp::Multiply, &c, &b, &mut out).unwrap();
    let expected: Vec<f32> = (0..12).map(|i| cv[i] * bv[i % 4]).collect();
    assert_eq!(out.to_vec::<f32>().unwrap(), expected);
    let scalar = Tensor::from_slice(&[2.5f32], &[]).unwrap();
    let scaled = adapter.binary(BinaryOp::Multiply, &scalar, &buffer).unwrap();
    assert_eq!(scaled.to_vec::<f32>().unwrap(), base.iter().map(|v| v * 2.5).collect::<Vec<_>>());
    let empty = Tensor::zeros(DType::F32, &[0, 4]).unwrap();
    let result = adapter.binary(BinaryOp::Add, &empty, &b).unwrap();
    assert_eq!(result.shape(), [0, 4]);
}

/// Scatter-adds and returns the result's bits.
fn scatter(
    adapter: &CudaAdapter,
    input: &Tensor,
    indices: &[i64],
    depth: usize,
    updates: &Tensor,
) -> Vec<u64> {
    let indices = Tensor::from_slice(indices, &[indices.len() / depth, depth]).unwrap();
    adapter.scatter_add(input, &indices, updates, ScatterMode::Ignore).unwrap().to_bits()
}

#[test]
fn scatter_add_sums_duplicates_in_both_flavours() {
    for flavour in [Scatter::Atomic, Scatter::Deterministic] {
        let adapter = require_gpu!(flavour);
        // The document's example.
        let input = Tensor::from_slice(&[-0.1f32, 0.3, 3.6, 0.4, 0.5, -3.2], &[2, 3]).unwrap();
        let updates = Tensor::from_slice(&[1.0f32, 2.2], &[2]).unwrap();
        let indices = Tensor::from_slice(&[0i32, 0, 0, 0], &[2, 2]).unwrap();
        let out = adapter.scatter_add(&input, &indices, &updates, ScatterMode::Ignore).unwrap();
        let sums = out.to_vec::<f32>().unwrap();
        assert_eq!(sums[1..], [0.3, 3.6, 0.4, 0.5, -3.2]);
        // In index order, or (atomics) in the other order, which rounds differently.
        let (in_order, reversed) = (-0.1f32 + 1.0 + 2.2, -0.1f32 + 2.2 + 1.0);
        assert!(sums[0] == in_order || (flavour == Scatter::Atomic && sums[0] == reversed), "{}", sums[0]);
        // Many small integers: every summation order gives the exact sum.
        let n = 100_000;
        let rows: Vec<i64> = (0..n as i64).map(|i| (i * 7) % 5).collect();
        let values: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        let updates = Tensor::from_slice(&values, &[n]).unwrap();
        let input = Tensor::zeros(DType::F32, &[5]).unwrap();
        let bits = scatter(&adapter, &input, &rows, 1, &updates);
        let mut sums = [0f32; 5];
        for (r, v) in rows.iter().zip(&values) {
            sums[*r as usize] += v;
        }
        assert_eq!(bits, sums.map(|s| u64::from(s.to_bits())));
        // Sub-word elements next to each other and at the padded end of the buffer.
        let input = Tensor::from_slice(&[250u8, 0, 0, 0, 0, 0, 7], &[7]).unwrap();
        let rows: Vec<i64> = (0..7000).map(|i| [0, 1, 6, 9, -1][i % 5]).collect();
        let updates = Tensor::from_slice(&vec![1u8; 7000], &[7000]).unwrap();
        let bits = scatter(&adapter, &input, &rows, 1, &updates);
        assert_eq!(bits, [(250 + 1400) % 256, 1400 % 256, 0, 0, 0, 0, (7 + 1400) % 256]);
        let input = Tensor::from_slice(&[f16::from_f32(0.5); 3], &[3]).unwrap();
        let updates = Tensor::from_slice(&[f16::from_f32(0.25); 4], &[4]).unwrap();
        let bits = scatter(&adapter, &input, &[2, 0, 2, 2], 1, &updates);
        let expected = [0.75, 0.5, 1.25].map(|v: f32| u64::from(f16::from_f32(v).to_bits()));
        assert_eq!(bits, expected);
    }
}

#[test]
fn deterministic_scatter_is_the_sequential_sum() {
    let adapter = require_gpu!(Scatter::Deterministic);
    let n = 50_000;
    let rows: Vec<i64> = random_bits(DType::I64, n, 9).iter().map(|r| (r % 3) as i64).collect();
    let values: Vec<f32> = random_bits(DType::I32, n, 10)
        .iter()
        .map(|&r| f32::from_bits(0x3000_0000 | (r as u32 & 0x0fff_ffff)))
        .collect();
    let input = Tensor::from_slice(&[1.0f32, -2.0, 1e-3], &[3]).unwrap();
    let updates = Tensor::from_slice(&values, &[n]).unwrap();
    let first = scatter(&adapter, &input, &rows, 1, &updates);
    let mut sums = [1.0f32, -2.0, 1e-3];
    for (r, v) in rows.iter().zip(&values) {
        sums[*r as usize] += v;
    }
    assert_eq!(first, sums.map(|s| u64::from(s.to_bits())));
    assert_eq!(scatter(&adapter, &input, &rows, 1, &updates), first);
}

#[test]
fn operand_errors_are_typed_with_or_without_a_gpu() {
    let adapter = CudaAdapter::new_or_unavailable(Scatter::Atomic);
    let f = |v: &[f32], shape: &[usize]| Tensor::from_slice(v, shape).unwrap();
    let kind = |r: Result<Tensor, opspec_adapter::AdapterError>| r.unwrap_err().kind;
    let (a3, a4) = (f(&[1.0; 3], &[3]), f(&[1.0; 4], &[4]));
    assert_eq!(kind(adapter.binary(BinaryOp::Add, &a3, &a4)), ErrorKind::ShapeMismatch);
    let i3 = Tensor::from_slice(&[1i32; 3], &[3]).unwrap();
    assert_eq!(kind(adapter.binary(BinaryOp::Add, &a3, &i3)), ErrorKind::DTypeMismatch);
    let into = |out: &mut Tensor| adapter.binary_into(BinaryOp::Add, &a3, &a3, out).unwrap_err().kind;
    assert_eq!(into(&mut f(&[0.0; 4], &[4])), ErrorKind::ShapeMismatch);
    assert_eq!(into(&mut f(&[0.0; 6], &[6]).view(&[3], &[2], 0).unwrap()), ErrorKind::NotContiguous);
    assert_eq!(into(&mut Tensor::zeros(DType::F64, &[3]).unwrap()), ErrorKind::DTypeMismatch);
    let fused = adapter.ternary(TernaryOp::FusedMulAdd, &a3, &a3, &f(&[1.0], &[1]));
    assert_eq!(kind(fused), ErrorKind::ShapeMismatch);
    let indices = Tensor::from_slice(&[0.0f32, 1.0], &[2, 1]).unwrap();
    let scattered = adapter.scatter_add(&a3, &indices, &f(&[1.0; 2], &[2]), ScatterMode::Ignore);
    assert_eq!(kind(scattered), ErrorKind::IndexDType);
    let indices = Tensor::from_slice(&[5i64], &[1, 1]).unwrap();
    let scattered = adapter.scatter_add(&a3, &indices, &f(&[1.0], &[1]), ScatterMode::Error);
    assert_eq!(kind(scattered), ErrorKind::OutOfRange);
}

#[test]
fn device_binary_computes_on_device_buffers_of_the_prepared_length() {
    let adapter = CudaAdapter::new_or_unavailable(Scatter::Atomic);
    if let Some(reason) = adapter.unavailable_reason() {
        let err = adapter.device_binary(BinaryOp::Add, DType::F32, 4).err().expect("no kernel without a GPU");
        assert_eq!(err.kind, ErrorKind::Unsupported);
        println!("skipped: {reason}");
        return;
    }
    let n = 1000;
    let add = adapter.device_binary(BinaryOp::Add, DType::F32, n).unwrap();
    let s = add.stream();
    let bytes = |v: Vec<f32>| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let (a, b) = ((0..n).map(|i| i as f32 * 0.5).collect::<Vec<_>>(), vec![0.25f32; n]);
    let sum = bytes(a.iter().zip(&b).map(|(x, y)| x + y).collect());
    let operands = [s.clone_htod(&bytes(a)).unwrap(), s.clone_htod(&bytes(b)).unwrap()];
    let mut out = s.alloc_zeros::<u8>(n * 4).unwrap();
    add.launch(&operands, &mut out).unwrap();
    let result = s.clone_dtoh(&out).unwrap();
    s.synchronize().unwrap();
    assert_eq!(result, sum);
    let mut short = s.alloc_zeros::<u8>(n * 4 - 4).unwrap();
    assert_eq!(add.launch(&operands, &mut short).unwrap_err().kind, ErrorKind::ShapeMismatch);
}

#[test]
fn support_is_truthful() {
    let adapter = CudaAdapter::new_or_unavailable(Scatter::Deterministic);
    assert_eq!(adapter.name(), "cuda-deterministic");
    let add = OpKind::Binary(BinaryOp::Add);
    let a = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
    match adapter.unavailable_reason() {
        Some(reason) => {
            println!("no GPU ({reason}): checking that everything is unsupported");
            assert!(adapter.version().contains(reason));
            for op in [add, OpKind::Ternary(TernaryOp::FusedMulAdd), OpKind::ScatterAdd] {
                let Support::Unsupported(why) = adapter.supports(op, DType::F32) else {
                    panic!("{op} claims support without a GPU");
                };
                assert!(why.contains(reason));
            }
            let err = adapter.binary(BinaryOp::Add, &a, &a).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Unsupported);
        }
        None => {
            assert_eq!(adapter.supports(add, DType::BF16), Support::Supported);
            assert_eq!(adapter.supports(OpKind::ScatterAdd, DType::U8), Support::Supported);
            for (op, dtype) in [
                (OpKind::Binary(BinaryOp::Atan2), DType::I32),
                (add, DType::Bool),
                (OpKind::BinaryInto(BinaryOp::Less), DType::F32),
                (OpKind::BinaryInto(BinaryOp::Divide), DType::I16),
            ] {
                assert!(matches!(adapter.supports(op, dtype), Support::Unsupported(_)), "{op} {dtype}");
            }
            for (op, dtype) in [
                (OpKind::Binary(BinaryOp::Divide), DType::I32),
                (OpKind::BinaryScalar(BinaryOp::Pow), DType::U8),
                (OpKind::BinaryInto(BinaryOp::Remainder), DType::F64),
            ] {
                assert_eq!(adapter.supports(op, dtype), Support::Supported, "{op} {dtype}");
            }
            let b = Tensor::from_slice(&[true], &[1]).unwrap();
            assert_eq!(adapter.binary(BinaryOp::Add, &b, &b).unwrap_err().kind, ErrorKind::Unsupported);
        }
    }
}

/// The binary operations opspec-cpu implements and opspec-cuda reports unsupported (issue 18):
/// the bitwise and logical ones.
const NO_KERNEL_YET: [BinaryOp; 8] = opspec_cpu::INTEGER_ONLY;

#[test]
fn the_support_table_is_as_documented() {
    let supported = |cc| Kernel::all().into_iter().filter(|k| k.support(cc).is_ok()).count();
    // 4 floats: 20 binary + 2 fused + 2 scatter; 8 integer dtypes: 15 binary (not atan2,
    // copysign, hypot, logaddexp, nextafter) + 2 fused + 2 scatter; bool: none. The 8 bitwise
    // and logical operations have no kernel yet.
    assert_eq!(BinaryOp::ALL.len(), 20 + NO_KERNEL_YET.len());
    assert_eq!(supported((9, 0)), 4 * 24 + 8 * 19);
    assert_eq!(supported((7, 5)), 4 * 24 + 8 * 19 - 1);
    let source = Kernel::Binary(BinaryOp::Add, DType::F32).source().unwrap();
    assert!(source.contains("__fadd_rn(a, b)") && source.contains("add_f32"));
    for op in [BinaryOp::Atan2, BinaryOp::Copysign, BinaryOp::Hypot, BinaryOp::Logaddexp, BinaryOp::Nextafter]
    {
        assert!(Kernel::Binary(op, DType::I32).source().is_err(), "{op}");
    }
    assert!(Kernel::Binary(BinaryOp::Equal, DType::Bool).source().is_err());
    assert_eq!(Kernel::Binary(BinaryOp::LessEqual, DType::F16).output(), DType::Bool);
    assert_eq!(Kernel::Binary(BinaryOp::Divide, DType::U8).output(), DType::F32);
    assert_eq!(Kernel::Binary(BinaryOp::Pow, DType::I64).output(), DType::I64);
}

#[test]
fn everything_the_cpu_adapter_supports_has_a_kernel() {
    assert_eq!(
        CudaAdapter::new_or_unavailable(Scatter::Atomic).support_on(
            OpKind::Binary(BinaryOp::Add),
            DType::C64,
            (9, 0)
        ),
        Support::Unsupported("opspec-cuda has no c64 kernels".into())
    );
    // Checked on the support table, without a device: on compute capability 9.0 (the H200).
    let cpu = CpuAdapter::new();
    let mut ops: Vec<OpKind> = vec![OpKind::ScatterAdd];
    for op in BinaryOp::ALL.into_iter().filter(|op| !NO_KERNEL_YET.contains(op)) {
        ops.extend([OpKind::Binary(op), OpKind::BinaryScalar(op), OpKind::BinaryInto(op)]);
    }
    // clip (issue 18) has no CUDA kernel yet: opspec-cuda reports it unsupported.
    ops.extend(TernaryOp::ALL.into_iter().filter(|&op| op != TernaryOp::Clip).map(OpKind::Ternary));
    for scatter in [Scatter::Atomic, Scatter::Deterministic] {
        let cuda = CudaAdapter::new_or_unavailable(scatter);
        let mut covered = 0;
        for &op in &ops {
            // Complex dtypes are the exception: opspec-cuda reports them unsupported.
            for dtype in DType::ALL.into_iter().filter(|d| !d.is_complex()) {
                if cpu.supports(op, dtype) == Support::Supported {
                    assert_eq!(cuda.support_on(op, dtype, (9, 0)), Support::Supported, "{op} {dtype}");
                    covered += 1;
                }
            }
        }
        // As many pairs as opspec-cpu's supports() answered for at the time of writing.
        assert!(covered >= 4 * 20 * 2 + 8 * 15 * 2 + 12 + 8, "{covered}");
    }
}

#[test]
fn every_kernel_compiles_with_nvrtc() {
    if !gpu::nvrtc_present() {
        println!("skipped: NVRTC (libnvrtc.so.13 or .so.12) is not on the library path");
        return;
    }
    let jobs: Vec<(Kernel, (i32, i32))> = [(7, 5), (9, 0)]
        .into_iter()
        .flat_map(|cc| Kernel::all().into_iter().filter(move |k| k.support(cc).is_ok()).map(move |k| (k, cc)))
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let jobs = &jobs;
                scope.spawn(move || {
                    jobs.iter()
                        .skip(t)
                        .step_by(threads)
                        .filter_map(|&(kernel, cc)| {
                            let result = gpu::compile(&kernel.source().unwrap(), cc);
                            result
                                .err()
                                .map(|log| format!("{} for sm_{}{}:\n{log}", kernel.name(), cc.0, cc.1))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    println!(
        "NVRTC {}: compiled {} kernels for sm_75 and sm_90 (PTX assembled by NVRTC), {} failed",
        gpu::nvrtc_version(),
        jobs.len() - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The results' bits of `op` on the CUDA and the CPU adapter for every pair of `a` x `b`.
fn both_adapters(
    adapter: &CudaAdapter,
    op: BinaryOp,
    dtype: DType,
    a: &[u64],
    b: &[u64],
) -> (Vec<u64>, Vec<u64>) {
    let (x, y) = (tensor(dtype, &[a.len(), 1], a), tensor(dtype, &[b.len()], b));
    let gpu = adapter.binary(op, &x, &y).unwrap();
    let cpu = CpuAdapter::new().binary(op, &x, &y).unwrap();
    assert_eq!((gpu.dtype(), gpu.shape()), (cpu.dtype(), cpu.shape()), "{op} {dtype}");
    (gpu.to_bits(), cpu.to_bits())
}

#[test]
fn exact_operations_agree_with_the_cpu_adapter_bit_for_bit() {
    // Two implementations of the same exact results (the CPU adapter's are checked by the
    // conformance suites against the MPFR oracle); NaNs only need to be NaN.
    let adapter = require_gpu!();
    let comparisons = BinaryOp::ALL.into_iter().filter(|op| op.is_comparison());
    let exact: Vec<BinaryOp> =
        [BinaryOp::Copysign, BinaryOp::Nextafter, BinaryOp::FloorDivide, BinaryOp::Remainder]
            .into_iter()
            .chain(comparisons)
            .collect();
    for dtype in FLOATS {
        let (a, b) = operands(dtype);
        for &op in &exact {
            let (gpu, cpu) = both_adapters(&adapter, op, dtype, &a, &b);
            let out = if op.is_comparison() { DType::Bool } else { dtype };
            let bad = gpu
                .iter()
                .zip(&cpu)
                .position(|(&g, &c)| !(g == c || out != DType::Bool && is_nan(dtype, g) && is_nan(dtype, c)));
            assert!(bad.is_none(), "{op} {dtype} at {bad:?}");
        }
    }
    let integer_ops = [
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::FloorDivide,
        BinaryOp::Remainder,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Equal,
        BinaryOp::Less,
        BinaryOp::GreaterEqual,
    ];
    for dtype in
        [DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32, DType::U64]
    {
        let bits = 8 * dtype.size() as u32;
        let mut a = random_bits(dtype, 300, 3);
        // Zero, one, minus one, the extremes.
        a.extend([0, 1, u64::MAX >> (64 - bits), 1 << (bits - 1), (1 << (bits - 1)) - 1]);
        let mut b = random_bits(dtype, 60, 4);
        b.extend([0, 1, 2, 3, u64::MAX >> (64 - bits), 1 << (bits - 1)]);
        for op in integer_ops {
            let (gpu, cpu) = both_adapters(&adapter, op, dtype, &a, &b);
            assert_eq!(gpu, cpu, "{op} {dtype}");
        }
    }
}

#[test]
fn new_operations_give_the_documented_values() {
    let adapter = require_gpu!();
    let f32s = |v: &[f32]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let run = |op, a: &[f32], b: &[f32]| adapter.binary(op, &f32s(a), &f32s(b)).unwrap();
    let floats = |t: Tensor| t.to_vec::<f32>().unwrap();
    assert_eq!(floats(run(BinaryOp::FloorDivide, &[-7.0, 7.0, 1.0], &[2.0, -2.0, 0.1])), [-4.0, -4.0, 9.0]);
    let r = run(BinaryOp::Remainder, &[-7.0, 7.0, 4.0, -4.0], &[2.0, -2.0, -2.0, 2.0]).to_bits();
    assert_eq!(r, [1f32, -1.0, -0.0, 0.0].map(|v| u64::from(v.to_bits())), "zeros take y's sign");
    assert_eq!(floats(run(BinaryOp::Copysign, &[1.0, -2.0], &[-0.0, 3.0])), [-1.0, 2.0]);
    let next = run(BinaryOp::Nextafter, &[1.0, 0.0], &[2.0, -1.0]).to_bits();
    assert_eq!(next, [0x3f80_0001, 0x8000_0001]);
    assert_eq!(floats(run(BinaryOp::Hypot, &[3.0, f32::INFINITY], &[4.0, f32::NAN])), [5.0, f32::INFINITY]);
    let sums = adapter.binary(
        BinaryOp::Logaddexp,
        &Tensor::from_slice(&[0.0f64], &[1]).unwrap(),
        &Tensor::from_slice(&[0.0f64], &[1]).unwrap(),
    );
    assert_eq!(sums.unwrap().to_vec::<f64>().unwrap(), [std::f64::consts::LN_2]);
    let less = run(BinaryOp::Less, &[1.0, f32::NAN, -0.0], &[2.0, 1.0, 0.0]);
    assert_eq!((less.dtype(), less.to_vec::<bool>().unwrap()), (DType::Bool, vec![true, false, false]));
    let i8s = |v: &[i8]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let q = adapter.binary(BinaryOp::FloorDivide, &i8s(&[-128, -7, 5]), &i8s(&[-1, 2, 0])).unwrap();
    assert_eq!(q.to_vec::<i8>().unwrap(), [-128, -4, 0]);
    let p = adapter.binary(BinaryOp::Pow, &i8s(&[3, 2, -1, 2]), &i8s(&[4, 7, -3, -1])).unwrap();
    assert_eq!(p.to_vec::<i8>().unwrap(), [81, -128, -1, 0]);
    let third = adapter.binary(BinaryOp::Divide, &i8s(&[1]), &i8s(&[3])).unwrap();
    assert_eq!(third.to_vec::<f32>().unwrap(), [1.0f32 / 3.0]);
}

#[test]
fn promotion_and_python_scalars_follow_the_cpu_adapter() {
    let adapter = require_gpu!();
    let i8s = Tensor::from_slice(&[-3i8, 100], &[2]).unwrap();
    let u8s = Tensor::from_slice(&[200u8, 100], &[2]).unwrap();
    let sum = adapter.binary(BinaryOp::Add, &i8s, &u8s).unwrap();
    assert_eq!((sum.dtype(), sum.to_vec::<i16>().unwrap()), (DType::I16, vec![197, 200]));
    let half =
        adapter.binary_scalar(BinaryOp::Multiply, &i8s, Scalar::Float(0.5), ScalarSide::Right).unwrap();
    assert_eq!((half.dtype(), half.to_vec::<f32>().unwrap()), (DType::F32, vec![-1.5, 50.0]));
    let left = adapter.binary_scalar(BinaryOp::Subtract, &u8s, Scalar::Int(255), ScalarSide::Left).unwrap();
    assert_eq!((left.dtype(), left.to_vec::<u8>().unwrap()), (DType::U8, vec![55, 155]));
    let err = adapter.binary_scalar(BinaryOp::Add, &u8s, Scalar::Int(256), ScalarSide::Left).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OutOfRange);
    let f = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
    assert_eq!(adapter.binary(BinaryOp::Add, &f, &i8s).unwrap_err().kind, ErrorKind::DTypeMismatch);
}

#[test]
fn named_axes_line_up_as_on_the_cpu_adapter() {
    let adapter = require_gpu!();
    let names = |n: &[&str]| n.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
    let values: Vec<f32> = (0..24).map(|v| v as f32).collect();
    let x = Tensor::from_slice(&values, &[2, 3, 4]).unwrap().with_names(names(&["b", "n", "d"])).unwrap();
    // y: [d=4, n=3] as a transposed view of a [3, 4] buffer.
    let y = Tensor::from_slice(&values[..12], &[3, 4]).unwrap().view(&[4, 3], &[1, 4], 0).unwrap();
    let y = y.with_names(names(&["d", "n"])).unwrap();
    let cpu = CpuAdapter::new();
    for op in [BinaryOp::Subtract, BinaryOp::Less] {
        for (a, b) in [(&x, &y), (&y, &x)] {
            let (gpu, expected) = (adapter.binary(op, a, b).unwrap(), cpu.binary(op, a, b).unwrap());
            assert_eq!((gpu.shape(), gpu.names()), (expected.shape(), expected.names()), "{op}");
            assert_eq!(gpu.to_bits(), expected.to_bits(), "{op}");
        }
    }
    let k = Tensor::from_slice(&values[..4], &[4]).unwrap().with_names(names(&["k"])).unwrap();
    let err = adapter.binary(BinaryOp::Add, &x, &k).unwrap_err();
    assert_eq!(err.code.as_deref(), cpu.binary(BinaryOp::Add, &x, &k).unwrap_err().code.as_deref());
}

#[test]
fn timings_count_each_phase() {
    let adapter = require_gpu!();
    let a = Tensor::from_slice(&vec![1.5f32; 1 << 16], &[1 << 16]).unwrap();
    adapter.binary(BinaryOp::Hypot, &a, &a).unwrap();
    adapter.binary(BinaryOp::Hypot, &a, &a).unwrap();
    let t = adapter.timings();
    assert_eq!((t.calls, t.launches, t.elements), (2, 2, 2 << 16));
    assert!(t.total >= t.compile + t.upload + t.kernel + t.download);
    assert!(t.kernel > std::time::Duration::ZERO && t.upload > std::time::Duration::ZERO);
}
