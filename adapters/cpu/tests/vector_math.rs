//! f32 and f64 `pow` and `atan2` (`opspec_cpu::fast::transcendental`, `transcendental64`):
//! accuracy against an independent reference, and the same bits from every layout.
//!
//! f32: the reference is f64 `powf`/`atan2` of the widened operands (the platform's libm,
//! accurate to about an f64 ULP, 2^-29 of an f32 ULP), unrounded: the error is measured in f32
//! ULPs at the reference value. f64 has no wider native reference: its results must lie within
//! one step of the platform's `f64::powf`/`f64::atan2` (both within about 0.5 ULP on glibc, so
//! a kernel within 1 ULP is never further), and results that are exact powers must come out
//! exact; `tests/pow_atan2_f64.rs` in the root crate measures the f64 error against the MPFR
//! oracle. The sweeps run through `fast::binary_into` (the vector kernel where the CPU has
//! AVX2 and FMA) and also compare every element with the scalar functions bit for bit. The
//! layout test compares dense, broadcast and strided (scalar path) adapter calls.

use opspec_adapter::{Adapter, BinaryOp, DType, Element, Tensor};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::transcendental::{atan2_f32, pow_f32};
use opspec_cpu::fast::transcendental64::{atan2_f64, pow_f64};
use opspec_cpu::fast::{Operand, PARALLEL_THRESHOLD, binary_into};

/// The error allowed, in f32 ULPs (the array-api suite allows 2).
const BOUND: f64 = 1.0;

/// A small deterministic generator (PCG-style LCG, upper bits).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 32) as u32
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        self.next() as f64 / 4294967296.0
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// The error of `got` in f32 ULPs at the exact value `exact`; NaN must meet NaN.
fn ulp_error(got: f32, exact: f64) -> f64 {
    if exact.is_nan() || got.is_nan() {
        return if exact.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let rounded = exact as f32;
    if rounded.is_infinite() || got.is_infinite() {
        // Past f32::MAX: only the rounded value (infinity) or the largest finite one, 1 ULP off.
        let off = got.to_bits().abs_diff(rounded.to_bits());
        return if got.is_sign_negative() == rounded.is_sign_negative() { off as f64 } else { f64::INFINITY };
    }
    if exact == 0.0 {
        return if got == 0.0 && got.is_sign_negative() == exact.is_sign_negative() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let exponent = (exact.abs().log2().floor() as i32).max(-126);
    let ulp = 2f64.powi(exponent - 23);
    (got as f64 - exact).abs() / ulp
}

fn to_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_bytes(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
}

/// Runs `op` densely through the kernel, checks each result against the scalar function bit
/// for bit and against the reference within [`BOUND`]; returns the largest error found.
fn sweep(
    op: BinaryOp,
    xs: &[f32],
    ys: &[f32],
    scalar: fn(f32, f32) -> f32,
    exact: fn(f64, f64) -> f64,
) -> f64 {
    let (xb, yb) = (to_bytes(xs), to_bytes(ys));
    let mut out = vec![0u8; xb.len()];
    assert!(binary_into(op, DType::F32, Operand::Dense(&xb), Operand::Dense(&yb), xs.len(), &mut out));
    let got = from_bytes(&out);
    let mut worst = (0.0f64, 0.0f32, 0.0f32);
    for ((&x, &y), &g) in xs.iter().zip(ys).zip(&got) {
        let s = scalar(x, y);
        assert!(
            same(g, s),
            "{op}({x:e}, {y:e}): kernel {g:e} ({:#x}), scalar {s:e} ({:#x})",
            g.to_bits(),
            s.to_bits()
        );
        let e = ulp_error(g, exact(x as f64, y as f64));
        if e > worst.0 {
            worst = (e, x, y);
        }
    }
    let (e, x, y) = worst;
    println!(
        "{op} f32: {} inputs, max error {e:.6} ULP at ({x:e} [{:#x}], {y:e} [{:#x}])",
        xs.len(),
        x.to_bits(),
        y.to_bits()
    );
    assert!(e <= BOUND, "{op}({x:e}, {y:e}) is {e} ULP off");
    e
}

/// A random f32 from all bit patterns.
fn any_bits(r: &mut Rng) -> f32 {
    f32::from_bits(r.next())
}

#[test]
fn pow_within_bound_on_millions_of_inputs() {
    let mut r = Rng(0x5eed_0001);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let mut push = |x: f32, y: f32| {
        xs.push(x);
        ys.push(y);
    };
    for i in 0..2_400_000u32 {
        match i % 8 {
            // Any positive normal x, with y chosen so that x^y spans the whole f32 range and
            // beyond (overflow and underflow, subnormal results).
            0..=2 => {
                let x = 2f64.powf(r.range(-126.0, 128.0)) as f32;
                let t = r.range(-160.0, 140.0);
                push(x, (t / (x as f64).log2()) as f32);
            }
            // x within a few thousand ULPs of 1 and large |y|.
            3 => {
                let x = f32::from_bits(1f32.to_bits().wrapping_add(r.next() % 8192).wrapping_sub(4096));
                push(x, r.range(-3e9, 3e9) as f32);
            }
            // Small integer and half-integer exponents of any sign of x, subnormal x included.
            4 => {
                let x = f32::from_bits(r.next() & 0xbfff_ffff);
                push(x, ((r.next() % 64) as f32 - 32.0) / 2.0);
            }
            // Results right at the overflow and underflow thresholds.
            5 => {
                let x = r.range(1.01, 4.0) as f32;
                let edge = [128.0, -126.0, -149.0, -150.0][(r.next() % 4) as usize];
                let y = (edge / (x as f64).log2()) as f32;
                push(x, f32::from_bits(y.to_bits().wrapping_add(r.next() % 64).wrapping_sub(32)));
            }
            // Uniform x and y in everyday ranges.
            6 => push(r.range(0.0, 100.0) as f32, r.range(-10.0, 10.0) as f32),
            // Random bits for both: mostly special lanes (NaN, infinities, zeros, negative x).
            _ => push(any_bits(&mut r), any_bits(&mut r)),
        }
    }
    sweep(BinaryOp::Pow, &xs, &ys, pow_f32, f64::powf);
}

#[test]
fn atan2_within_bound_on_millions_of_inputs() {
    let mut r = Rng(0x5eed_0002);
    let (mut ys, mut xs) = (Vec::new(), Vec::new());
    let mut push = |y: f32, x: f32| {
        ys.push(y);
        xs.push(x);
    };
    let sign = |r: &mut Rng, v: f64| if r.next() & 1 == 0 { v } else { -v };
    for i in 0..2_400_000u32 {
        match i % 6 {
            // Any magnitudes and signs, subnormals included.
            0 => push(any_bits(&mut r), any_bits(&mut r)),
            // Everyday values.
            1 => push(r.range(-10.0, 10.0) as f32, r.range(-10.0, 10.0) as f32),
            // Angles spread over the circle, at magnitudes from tiny to huge.
            2 => {
                let (a, m) = (r.range(-4.0, 4.0), 2f64.powf(r.range(-140.0, 120.0)));
                push((m * a.sin()) as f32, (m * a.cos()) as f32);
            }
            // Ratios near the reduction's break points: 1 and tan(pi/8) (and their inverses).
            3 => {
                let k = [1.0, 0.41421356237309503, 2.414213562373095][(r.next() % 3) as usize];
                let x = r.range(0.5, 2.0);
                let y = x * k * (1.0 + r.range(-1e-6, 1e-6));
                push(sign(&mut r, y) as f32, sign(&mut r, x) as f32);
            }
            // Very unequal magnitudes (results near 0, ±pi/2, ±pi; subnormal results).
            4 => {
                let y = 2f64.powf(r.range(-149.0, 0.0));
                let x = 2f64.powf(r.range(0.0, 127.0));
                let (y, x) = if r.next() & 1 == 0 { (y, x) } else { (x, y) };
                push(sign(&mut r, y) as f32, sign(&mut r, x) as f32);
            }
            // Integers (exact ratios).
            _ => push((r.next() % 41) as f32 - 20.0, (r.next() % 41) as f32 - 20.0),
        }
    }
    sweep(BinaryOp::Atan2, &ys, &xs, atan2_f32, f64::atan2);
}

#[test]
fn error_measure_catches_a_wrong_result() {
    // The measure itself must be able to fail: one ULP off is 1, a wrong sign is infinite.
    let exact = 1.5f64;
    assert_eq!(ulp_error(1.5, exact), 0.0);
    assert_eq!(ulp_error(f32::from_bits(1.5f32.to_bits() + 1), exact), 1.0);
    assert!(ulp_error(f32::from_bits(1.5f32.to_bits() + 3), exact) > BOUND);
    assert_eq!(ulp_error(-0.0, 0.0), f64::INFINITY);
    assert_eq!(ulp_error(f32::NAN, 1.0), f64::INFINITY);
    assert_eq!(ulp_error(f32::INFINITY, 1e300), 0.0);
}

/// A float type of the layout test: its special values, its scalar functions, bit equality.
trait Case: Element + std::fmt::LowerExp {
    const SPECIALS: [f64; 12] =
        [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e-30, 5e-324, -3.0, 0.5, 2.5];
    fn from_f64(v: f64) -> Self;
    fn from_bits_of(r: &mut Rng) -> Self;
    /// The smallest positive normal and subnormal values.
    fn tiny() -> [Self; 2];
    fn same(a: Self, b: Self) -> bool;
    fn pow(x: Self, y: Self) -> Self;
    fn atan2(y: Self, x: Self) -> Self;
}

impl Case for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn from_bits_of(r: &mut Rng) -> Self {
        any_bits(r)
    }
    fn tiny() -> [Self; 2] {
        [f32::MIN_POSITIVE, f32::from_bits(1)]
    }
    fn same(a: Self, b: Self) -> bool {
        same(a, b)
    }
    fn pow(x: Self, y: Self) -> Self {
        pow_f32(x, y)
    }
    fn atan2(y: Self, x: Self) -> Self {
        atan2_f32(y, x)
    }
}

impl Case for f64 {
    fn from_f64(v: f64) -> Self {
        v
    }
    fn from_bits_of(r: &mut Rng) -> Self {
        f64::from_bits((r.next() as u64) << 32 | r.next() as u64)
    }
    fn tiny() -> [Self; 2] {
        [f64::MIN_POSITIVE, f64::from_bits(1)]
    }
    fn same(a: Self, b: Self) -> bool {
        a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()
    }
    fn pow(x: Self, y: Self) -> Self {
        pow_f64(x, y)
    }
    fn atan2(y: Self, x: Self) -> Self {
        atan2_f64(y, x)
    }
}

/// Operands for the layout test: special values first (so short inputs meet them), then a mix
/// of values on the common path and random bits.
fn values<T: Case>(n: usize, seed: u64) -> Vec<T> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| match (i + seed as usize) % 5 {
            0 => {
                let k = r.next() as usize % (T::SPECIALS.len() + 2);
                T::SPECIALS.get(k).map_or_else(|| T::tiny()[k - T::SPECIALS.len()], |&v| T::from_f64(v))
            }
            1 => T::from_bits_of(&mut r),
            _ => T::from_f64(r.range(-4.0, 40.0)),
        })
        .collect()
}

/// A dense tensor of `v` with `shape`, starting `offset` elements into its buffer.
fn dense<T: Case>(v: &[T], shape: &[usize], offset: usize) -> Tensor {
    let mut padded = vec![T::from_f64(7.0); offset];
    padded.extend_from_slice(v);
    let buffer = Tensor::from_slice(&padded, &[padded.len()]).unwrap();
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step *= n.max(1) as isize;
    }
    buffer.view(shape, &strides, offset).unwrap()
}

/// A 1-D view of `v` with every other element of its buffer (the adapter's scalar path).
fn strided<T: Case>(v: &[T]) -> Tensor {
    let spread: Vec<T> = v.iter().flat_map(|&x| [x, T::from_f64(5.0)]).collect();
    Tensor::from_slice(&spread, &[spread.len()]).unwrap().view(&[v.len()], &[2], 0).unwrap()
}

/// `[m, n]` output; `x_shape`/`y_shape` are each `[m, n]`, `[n]`, `[m, 1]` or `[]`.
fn check_layout<T: Case>(m: usize, n: usize, x_shape: &[usize], y_shape: &[usize], offset: usize) {
    let count = |s: &[usize]| s.iter().product::<usize>();
    let (xv, yv) = (values::<T>(count(x_shape), 3 + n as u64), values::<T>(count(y_shape), 11 + m as u64));
    let at = |v: &[T], s: &[usize], i: usize, j: usize| match s.len() {
        0 => v[0],
        1 => v[j],
        _ if s[1] == 1 => v[i],
        _ => v[i * n + j],
    };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..m {
        for j in 0..n {
            xs.push(at(&xv, x_shape, i, j));
            ys.push(at(&yv, y_shape, i, j));
        }
    }
    let (x, y) = (dense(&xv, x_shape, offset), dense(&yv, y_shape, offset));
    for (op, f) in [(BinaryOp::Pow, T::pow as fn(T, T) -> T), (BinaryOp::Atan2, T::atan2)] {
        let what = format!("{op} {} [{m}, {n}] {x_shape:?} {y_shape:?} offset {offset}", T::DTYPE);
        let fast = CpuAdapter.binary(op, &x, &y).unwrap().to_vec::<T>().unwrap();
        let slow = CpuAdapter.binary(op, &strided(&xs), &strided(&ys)).unwrap().to_vec::<T>().unwrap();
        assert_eq!((fast.len(), slow.len()), (m * n, m * n), "{what}");
        for k in 0..m * n {
            let (a, b) = (xs[k], ys[k]);
            let s = f(a, b);
            assert!(
                T::same(fast[k], s) && T::same(slow[k], s),
                "{what}: {op}({a:e}, {b:e}) element {k}: dense {:e}, strided {:e}, scalar {s:e}",
                fast[k],
                slow[k]
            );
        }
    }
}

fn check_layouts<T: Case>() {
    let threshold = PARALLEL_THRESHOLD / 4;
    for n in [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 1000, 4099, threshold + 9, 3 * threshold + 5] {
        for offset in [0, 1, 3] {
            check_layout::<T>(1, n, &[1, n], &[1, n], offset);
        }
    }
    for (m, n) in [(3, 5), (4, 8), (5, 17), (64, 1024)] {
        check_layout::<T>(m, n, &[m, n], &[n], 1);
        check_layout::<T>(m, n, &[n], &[m, n], 0);
        check_layout::<T>(m, n, &[m, n], &[m, 1], 2);
        check_layout::<T>(m, n, &[m, 1], &[m, n], 0);
        check_layout::<T>(m, n, &[m, n], &[], 1);
        check_layout::<T>(m, n, &[], &[m, n], 0);
    }
}

#[test]
fn dense_broadcast_and_strided_calls_give_the_same_bits() {
    check_layouts::<f32>();
}

#[test]
fn f64_dense_broadcast_and_strided_calls_give_the_same_bits() {
    check_layouts::<f64>();
}

/// Steps between two f64 of the same sign (NaN meets NaN): 0 for equal, 1 for neighbours.
fn steps(a: f64, b: f64) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() { 0 } else { u64::MAX };
    }
    let key = |v: f64| {
        if v.is_sign_negative() { -((v.to_bits() & !(1 << 63)) as i128) } else { v.to_bits() as i128 }
    };
    key(a).abs_diff(key(b)) as u64
}

/// Runs `op` densely through the f64 kernel: every result is the scalar twin's bit for bit and
/// within one step of the platform's function; returns how many differ from it.
fn sweep_f64(
    op: BinaryOp,
    xs: &[f64],
    ys: &[f64],
    twin: fn(f64, f64) -> f64,
    platform: fn(f64, f64) -> f64,
) -> usize {
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (xb, yb) = (bytes(xs), bytes(ys));
    let mut out = vec![0u8; xb.len()];
    assert!(binary_into(op, DType::F64, Operand::Dense(&xb), Operand::Dense(&yb), xs.len(), &mut out));
    let mut differ = 0;
    for (i, chunk) in out.chunks_exact(8).enumerate() {
        let (x, y, g) = (xs[i], ys[i], f64::from_le_bytes(chunk.try_into().unwrap()));
        let s = twin(x, y);
        assert!(
            f64::same(g, s),
            "{op}({x:e}, {y:e}): kernel {g:e} ({:#x}), scalar {s:e} ({:#x})",
            g.to_bits(),
            s.to_bits()
        );
        let p = platform(x, y);
        assert!(steps(g, p) <= 1, "{op}({x:e}, {y:e}) = {g:e}, the platform's {p:e}");
        differ += usize::from(steps(g, p) != 0);
    }
    println!("{op} f64: {} inputs, {differ} one step from the platform's function, none further", xs.len());
    differ
}

#[test]
fn f64_pow_within_a_step_of_libm_on_many_inputs() {
    let mut r = Rng(0x5eed_0064);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in 0..600_000u32 {
        let (x, y) = match i % 6 {
            // x^y over the whole f64 range and past it.
            0 | 1 => {
                let x = 2f64.powf(r.range(-1022.0, 1023.0));
                (x, r.range(-1080.0, 1080.0) / x.log2())
            }
            // x near 1 and √2 with |y ln x| up to the overflow threshold.
            2 => {
                let x = if r.next() & 1 == 0 { 1.0 } else { std::f64::consts::SQRT_2 } + r.range(-1e-3, 1e-3);
                (x, r.range(-709.0, 709.0) / x.ln())
            }
            3 => (r.range(0.0, 100.0), r.range(-10.0, 10.0)),
            4 => (f64::from_bits_of(&mut r), ((r.next() % 64) as f64 - 32.0) / 2.0),
            _ => (f64::from_bits_of(&mut r), f64::from_bits_of(&mut r)),
        };
        xs.push(x);
        ys.push(y);
    }
    sweep_f64(BinaryOp::Pow, &xs, &ys, pow_f64, f64::powf);
}

#[test]
fn f64_atan2_within_a_step_of_libm_on_many_inputs() {
    let mut r = Rng(0x5eed_0065);
    let (mut ys, mut xs) = (Vec::new(), Vec::new());
    for i in 0..600_000u32 {
        let (y, x) = match i % 4 {
            0 => (f64::from_bits_of(&mut r), f64::from_bits_of(&mut r)),
            1 => (r.range(-10.0, 10.0), r.range(-10.0, 10.0)),
            2 => {
                let (a, m) = (r.range(-4.0, 4.0), 2f64.powf(r.range(-1000.0, 1000.0)));
                (m * a.sin(), m * a.cos())
            }
            _ => {
                let k = [1.0, 0.414_213_562_373_095_03, 2.414_213_562_373_095][(r.next() % 3) as usize];
                let x = r.range(-2.0, 2.0);
                (x * k * (1.0 + r.range(-1e-9, 1e-9)), x)
            }
        };
        ys.push(y);
        xs.push(x);
    }
    sweep_f64(BinaryOp::Atan2, &ys, &xs, atan2_f64, f64::atan2);
}

#[test]
fn f64_exact_results_are_exact() {
    let (mut xs, mut ys, mut want) = (Vec::new(), Vec::new(), Vec::new());
    let mut push = |x: f64, y: f64, w: f64| {
        xs.push(x);
        ys.push(y);
        want.push(w);
    };
    for k in -1022..1024 {
        push(2.0, k as f64, 2f64.powi(k));
        push(0.5, k as f64, 2f64.powi(-k));
    }
    for (base, top) in [(3.0f64, 33), (5.0, 22), (7.0, 18), (10.0, 22), (1.5, 30)] {
        for j in 0..=top {
            // base^j is exact for these j (at most 53 significant bits), and so is the product.
            push(base, j as f64, (0..j).fold(1.0, |acc, _| acc * base));
        }
    }
    for v in [4.0f64, 9.0, 0.25, 1e10, 6.25] {
        push(v, 0.5, v.sqrt());
    }
    for v in [0.1f64, 1e300, 3.7e-300, 123.456] {
        push(v, 1.0, v);
        push(v, 0.0, 1.0);
    }
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut out = vec![0u8; xs.len() * 8];
    assert!(binary_into(
        BinaryOp::Pow,
        DType::F64,
        Operand::Dense(&bytes(&xs)),
        Operand::Dense(&bytes(&ys)),
        xs.len(),
        &mut out
    ));
    for (i, chunk) in out.chunks_exact(8).enumerate() {
        let g = f64::from_le_bytes(chunk.try_into().unwrap());
        assert_eq!(g, want[i], "pow({:e}, {:e})", xs[i], ys[i]);
        assert_eq!(g.to_bits(), pow_f64(xs[i], ys[i]).to_bits());
    }
    // atan2 of equal magnitudes is ±π/4 correctly rounded; of ±0 and ±inf, the table's values.
    for v in [1e-300, 0.3, 1.0, 7.5, 1e300] {
        assert_eq!(atan2_f64(v, v), std::f64::consts::FRAC_PI_4);
        assert_eq!(atan2_f64(-v, v), -std::f64::consts::FRAC_PI_4);
        assert_eq!(atan2_f64(v, f64::INFINITY).to_bits(), 0.0f64.to_bits());
        assert_eq!(atan2_f64(0.0, -v), std::f64::consts::PI);
    }
}
