//! Times the allocating form of f32 add at 2^24 elements (64 MiB out; `OPSPEC_ALLOC_LOG2` sets
//! another power of two) with several ways of getting the output, against a caller-owned
//! output, and the same for `add_into` (direct, and the old way: `binary` then a copy) and
//! `fused_mul_add`, in one process:
//!
//! ```sh
//! cargo run --release -p opspec-cpu --example alloc_timing
//! ```
//!
//! GB/s count the operands and the output; "faults" is the minor page faults per call
//! (`getrusage`). Best of `OPSPEC_BENCH_SAMPLES` (default 7) samples of at least 20 ms each,
//! the cases taking turns.

use std::hint::black_box;
use std::time::Instant;

use opspec_adapter::{Adapter, BinaryOp, DType, Tensor, TernaryOp};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::fused::ternary_into;
use opspec_cpu::fast::{Operand, binary_into};

fn minor_faults() -> i64 {
    // SAFETY: getrusage writes one `rusage` into the zeroed value it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_minflt
    }
}

/// A timed case: a name, the bytes one call touches, and the call.
type Case<'a> = (&'a str, usize, Box<dyn FnMut() + Send + 'a>);

/// Runs every case `samples` times, round by round (so that a noisy stretch hits every case
/// alike); prints GB/s from each case's best sample and its minor faults per call.
fn run(threads: usize, samples: usize, cases: &mut [Case]) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
    pool.install(|| {
        let mut best = vec![f64::INFINITY; cases.len()];
        let mut faults = vec![0; cases.len()];
        let mut calls = vec![0; cases.len()];
        for _ in 0..samples {
            for (i, (_, _, f)) in cases.iter_mut().enumerate() {
                f();
                let before = minor_faults();
                let start = Instant::now();
                let mut reps = 0;
                while reps < 3 || start.elapsed().as_secs_f64() < 20e-3 {
                    f();
                    reps += 1;
                }
                best[i] = best[i].min(start.elapsed().as_secs_f64() / reps as f64);
                faults[i] += minor_faults() - before;
                calls[i] += reps;
            }
        }
        for (i, (name, bytes, _)) in cases.iter().enumerate() {
            let gbs = *bytes as f64 / best[i] / 1e9;
            println!("| {name} | {threads} | {gbs:.1} | {} |", faults[i] / calls[i] as i64);
        }
    });
}

fn main() {
    let samples = std::env::var("OPSPEC_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let log2: u32 = std::env::var("OPSPEC_ALLOC_LOG2").ok().and_then(|s| s.parse().ok()).unwrap_or(24);
    let (n, bytes) = (1usize << log2, 4usize << log2);
    let fill = |k: f32| -> Vec<u8> { (0..n).flat_map(|i| (i as f32 * 0.25 + k).to_le_bytes()).collect() };
    let (a, b, c) = (fill(0.0), fill(1.0), fill(2.0));
    let tensor = |v: &Vec<u8>| Tensor::from_bytes(DType::F32, &[n], v.clone()).expect("a tensor");
    let (x, y, z) = (tensor(&a), tensor(&b), tensor(&c));
    let add = |out: &mut [u8]| {
        assert!(binary_into(BinaryOp::Add, DType::F32, Operand::Dense(&a), Operand::Dense(&b), n, out));
    };
    let fma = |out: &mut [u8]| assert!(ternary_into(TernaryOp::FusedMulAdd, DType::F32, &a, &b, &c, out));
    println!("f32, 2^{log2} elements; GB/s of the operands and the output; best of {samples}\n");
    println!("| call | threads | GB/s | faults/call |");
    println!("|---|---|---|---|");
    for threads in [1, 2] {
        let (mut owned, mut owned3) = (vec![0u8; bytes], vec![0u8; bytes]);
        let (mut into, mut copied) = (x.clone(), x.clone());
        let mut cases: Vec<Case> = vec![
            ("add, caller-owned out (reused)", 3 * bytes, Box::new(|| add(black_box(&mut owned)))),
            ("add, vec![0; n]", 3 * bytes, Box::new(|| add(&mut black_box(vec![0u8; bytes])))),
            (
                "add, CpuAdapter::binary",
                3 * bytes,
                Box::new(|| drop(black_box(CpuAdapter.binary(BinaryOp::Add, &x, &y).expect("add")))),
            ),
            (
                "add, CpuAdapter::binary_into (reused out)",
                3 * bytes,
                Box::new(|| {
                    CpuAdapter.binary_into(BinaryOp::Add, &x, &y, black_box(&mut into)).expect("add_into")
                }),
            ),
            (
                "add, binary then a copy into out (the old binary_into)",
                3 * bytes,
                Box::new(|| {
                    let r = CpuAdapter.binary(BinaryOp::Add, &x, &y).expect("add");
                    black_box(&mut copied)
                        .contiguous_bytes_mut()
                        .expect("contiguous")
                        .copy_from_slice(r.buffer());
                }),
            ),
            ("fused_mul_add, caller-owned out (reused)", 4 * bytes, Box::new(|| fma(black_box(&mut owned3)))),
            ("fused_mul_add, vec![0; n]", 4 * bytes, Box::new(|| fma(&mut black_box(vec![0u8; bytes])))),
            (
                "fused_mul_add, CpuAdapter::ternary",
                4 * bytes,
                Box::new(|| {
                    drop(black_box(CpuAdapter.ternary(TernaryOp::FusedMulAdd, &x, &y, &z).expect("fma")))
                }),
            ),
        ];
        run(threads, samples, &mut cases);
    }
}
