//! f32 and f64 `pow` and `atan2` benchmark: opspec-cpu's vector kernels against their peers,
//! in one run.
//!
//! At 2^16 and 2^24 contiguous elements it times: the kernel (`fast::binary_into` into a
//! caller-owned output) in a 1-thread and a 2-thread rayon pool; the kernel's scalar twin in
//! a loop (what strided views get, `fast::transcendental::pow_f32`/`atan2_f32`,
//! `fast::transcendental64::pow_f64`/`atan2_f64`); the std loop (`powf`/`atan2` of the type:
//! the platform's libm); and, when `python3` has NumPy, `np.power`/`np.arctan2` with `out=`,
//! timed with `timeit` in a subprocess. Inputs: pow `x` in [0.5, 100.6], `y` in [-4, 4];
//! atan2 both in [-10, 10], the same values in NumPy (f64 rows: the same values, not rounded
//! to f32). Each figure is the best of several samples (each at least 2 ms), in elements per
//! second.
//!
//! `cargo bench --bench transcendental` (environment: `OPSPEC_BENCH_SAMPLES`, default 7;
//! `OPSPEC_BENCH_PYTHON`, default `python3`).

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use opspec_adapter::BinaryOp;
use opspec_adapter::Element;
use opspec_cpu::fast::transcendental::{atan2_f32, pow_f32};
use opspec_cpu::fast::transcendental64::{atan2_f64, pow_f64};
use opspec_cpu::fast::{Operand, binary_into};
use timing::{pool, python_seconds, time};

/// The operands of element `i` (the NumPy script computes the same values).
fn inputs(op: BinaryOp, i: usize) -> (f64, f64) {
    let (p, q) = ((i * 7919 % 10007) as f64, (i * 104729 % 8009) as f64);
    match op {
        BinaryOp::Pow => (0.5 + p / 100.0, -4.0 + q / 1000.0),
        _ => (-10.0 + p / 500.0, -10.0 + q / 400.0),
    }
}

#[inline(never)]
fn scalar_loop<T: Copy>(f: fn(T, T) -> T, a: &[T], b: &[T], c: &mut [T]) {
    for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
        *c = f(a, b);
    }
}

/// NumPy's `np.power`/`np.arctan2` with `out=` on the same values: seconds per call for every
/// `"op log2"` key.
const NUMPY_SCRIPT: &str = r#"
import sys, timeit, numpy as np
samples = int(sys.argv[1])
print("NumPy", np.__version__, file=sys.stderr)
for dtype in ("f32", "f64"):
  for op in ("pow", "atan2"):
    for log2 in (16, 24):
        t = np.float32 if dtype == "f32" else np.float64
        i = np.arange(1 << log2, dtype=np.int64)
        p, q = (i * 7919 % 10007).astype(np.float64), (i * 104729 % 8009).astype(np.float64)
        if op == "pow":
            a, b, f = (0.5 + p / 100.0).astype(t), (-4.0 + q / 1000.0).astype(t), np.power
        else:
            a, b, f = (-10.0 + p / 500.0).astype(t), (-10.0 + q / 400.0).astype(t), np.arctan2
        c = np.empty_like(a)
        g = lambda: f(a, b, out=c)
        g()
        once = timeit.timeit(g, number=1)
        reps = max(1, int(2e-3 / max(once, 1e-9)) + 1)
        print(dtype, op, log2, min(timeit.repeat(g, number=reps, repeat=samples)) / reps)
"#;

fn main() {
    let samples = std::env::var("OPSPEC_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let python = std::env::var("OPSPEC_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let numpy = python_seconds(&python, NUMPY_SCRIPT, &[samples.to_string()]);
    println!("Elements/s (1e6), best of {samples} samples; ratios are opspec 1-thread / peer.\n");
    println!(
        "| op | N | opspec 1T | opspec 2T | scalar twin | std loop | NumPy out= | ÷ std | ÷ NumPy | 2T ÷ 1T |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let f32_cases = [
        (BinaryOp::Pow, pow_f32 as fn(f32, f32) -> f32, f32::powf as fn(f32, f32) -> f32),
        (BinaryOp::Atan2, atan2_f32, f32::atan2),
    ];
    let f64_cases = [
        (BinaryOp::Pow, pow_f64 as fn(f64, f64) -> f64, f64::powf as fn(f64, f64) -> f64),
        (BinaryOp::Atan2, atan2_f64, f64::atan2),
    ];
    for (op, twin, std_fn) in f32_cases {
        rows(op, twin, std_fn, |v| v as f32, samples, &numpy);
    }
    for (op, twin, std_fn) in f64_cases {
        rows(op, twin, std_fn, |v| v, samples, &numpy);
    }
}

/// The table's rows for one op and element type `T` (`from` rounds the f64 inputs to `T`).
fn rows<T: Element + Default>(
    op: BinaryOp,
    twin: fn(T, T) -> T,
    std_fn: fn(T, T) -> T,
    from: fn(f64) -> T,
    samples: usize,
    numpy: &std::collections::HashMap<String, f64>,
) {
    let ratio = |x: f64, y: Option<f64>| y.map_or("-".to_string(), |y| format!("{:.2}", x / y));
    let dtype = T::DTYPE;
    for log2 in [16, 24] {
        let total = 1usize << log2;
        let (a, b): (Vec<T>, Vec<T>) =
            (0..total).map(|i| inputs(op, i)).map(|(x, y)| (from(x), from(y))).unzip();
        let bytes = |v: &[T]| {
            let mut out = Vec::with_capacity(v.len() * dtype.size());
            v.iter().for_each(|x| x.write_le(&mut out));
            out
        };
        let (ab, bb) = (bytes(&a), bytes(&b));
        let mut cb = vec![0u8; total * dtype.size()];
        let mut c = vec![T::default(); total];
        let mut kernel = |threads: usize| {
            pool(threads).install(|| {
                time(samples, || {
                    let (x, y) = (Operand::Dense(&ab), Operand::Dense(&bb));
                    assert!(binary_into(op, dtype, x, y, total, black_box(&mut cb)));
                })
            })
        };
        let (one, two) = (kernel(1), kernel(2));
        let twin = time(samples, || scalar_loop(twin, &a, &b, black_box(&mut c)));
        let std = time(samples, || scalar_loop(std_fn, &a, &b, black_box(&mut c)));
        let name = if op == BinaryOp::Pow { "pow" } else { "atan2" };
        let np = numpy.get(&format!("{dtype} {name} {log2}"));
        let rate = |secs: f64| total as f64 / secs;
        println!(
            "| {op} {dtype} | 2^{log2} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {} |",
            rate(one) / 1e6,
            rate(two) / 1e6,
            rate(twin) / 1e6,
            rate(std) / 1e6,
            np.map_or("-".to_string(), |&s| format!("{:.0}", rate(s) / 1e6)),
            ratio(rate(one), Some(rate(std))),
            ratio(rate(one), np.map(|&s| rate(s))),
            ratio(rate(two), Some(rate(one))),
        );
    }
}
