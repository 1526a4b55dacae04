//! f32 `pow` and `atan2` benchmark: opspec-cpu's vector kernel against its peers, in one run.
//!
//! At 2^16 and 2^24 contiguous elements it times: the kernel (`fast::binary_into` into a
//! caller-owned output) in a 1-thread and a 2-thread rayon pool; the kernel's scalar twin in
//! a loop (what strided views get, `fast::transcendental::pow_f32`/`atan2_f32`); the std loop
//! (`f32::powf`/`f32::atan2`); and, when `python3` has NumPy, `np.power`/`np.arctan2` with
//! `out=`, timed with `timeit` in a subprocess. Inputs: pow `x` in [0.5, 100.6], `y` in
//! [-4, 4]; atan2 both in [-10, 10], the same values in NumPy. Each figure is the best of
//! several samples (each at least 2 ms), in elements per second.
//!
//! `cargo bench --bench transcendental` (environment: `OPSPEC_BENCH_SAMPLES`, default 7;
//! `OPSPEC_BENCH_PYTHON`, default `python3`).

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use opspec_adapter::{BinaryOp, DType};
use opspec_cpu::fast::transcendental::{atan2_f32, pow_f32};
use opspec_cpu::fast::{Operand, binary_into};
use timing::{pool, python_seconds, time};

/// The operands of element `i` (the NumPy script computes the same values).
fn inputs(op: BinaryOp, i: usize) -> (f32, f32) {
    let (p, q) = ((i * 7919 % 10007) as f64, (i * 104729 % 8009) as f64);
    match op {
        BinaryOp::Pow => ((0.5 + p / 100.0) as f32, (-4.0 + q / 1000.0) as f32),
        _ => ((-10.0 + p / 500.0) as f32, (-10.0 + q / 400.0) as f32),
    }
}

#[inline(never)]
fn scalar_loop(f: fn(f32, f32) -> f32, a: &[f32], b: &[f32], c: &mut [f32]) {
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
for op in ("pow", "atan2"):
    for log2 in (16, 24):
        i = np.arange(1 << log2, dtype=np.int64)
        p, q = (i * 7919 % 10007).astype(np.float64), (i * 104729 % 8009).astype(np.float64)
        if op == "pow":
            a, b, f = (0.5 + p / 100.0).astype(np.float32), (-4.0 + q / 1000.0).astype(np.float32), np.power
        else:
            a, b, f = (-10.0 + p / 500.0).astype(np.float32), (-10.0 + q / 400.0).astype(np.float32), np.arctan2
        c = np.empty_like(a)
        g = lambda: f(a, b, out=c)
        g()
        once = timeit.timeit(g, number=1)
        reps = max(1, int(2e-3 / max(once, 1e-9)) + 1)
        print(op, log2, min(timeit.repeat(g, number=reps, repeat=samples)) / reps)
"#;

fn main() {
    let samples = std::env::var("OPSPEC_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let python = std::env::var("OPSPEC_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let numpy = python_seconds(&python, NUMPY_SCRIPT, &[samples.to_string()]);
    let ratio = |x: f64, y: Option<f64>| y.map_or("-".to_string(), |y| format!("{:.2}", x / y));
    println!("Elements/s (1e6), best of {samples} samples; ratios are opspec 1-thread / peer.\n");
    println!(
        "| op | N | opspec 1T | opspec 2T | scalar twin | std loop | NumPy out= | ÷ std | ÷ NumPy | 2T ÷ 1T |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (op, twin, std_fn) in [
        (BinaryOp::Pow, pow_f32 as fn(f32, f32) -> f32, f32::powf as fn(f32, f32) -> f32),
        (BinaryOp::Atan2, atan2_f32, f32::atan2),
    ] {
        for log2 in [16, 24] {
            let total = 1usize << log2;
            let (a, b): (Vec<f32>, Vec<f32>) = (0..total).map(|i| inputs(op, i)).unzip();
            let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
            let (ab, bb) = (bytes(&a), bytes(&b));
            let mut cb = vec![0u8; total * 4];
            let mut c = vec![0f32; total];
            let mut kernel = |threads: usize| {
                pool(threads).install(|| {
                    time(samples, || {
                        let (x, y) = (Operand::Dense(&ab), Operand::Dense(&bb));
                        assert!(binary_into(op, DType::F32, x, y, total, black_box(&mut cb)));
                    })
                })
            };
            let (one, two) = (kernel(1), kernel(2));
            let twin = time(samples, || scalar_loop(twin, &a, &b, black_box(&mut c)));
            let std = time(samples, || scalar_loop(std_fn, &a, &b, black_box(&mut c)));
            let np = numpy.get(&format!("{} {log2}", if op == BinaryOp::Pow { "pow" } else { "atan2" }));
            let rate = |secs: f64| total as f64 / secs;
            println!(
                "| {op} f32 | 2^{log2} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {} |",
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
}
