//! Times the allocating form of f32 add at 2^24 elements (64 MiB out) with several ways of
//! getting the output, in one process, against a caller-owned output:
//!
//! ```sh
//! cargo run --release -p opspec-cpu --example alloc_timing
//! ```
//!
//! GB/s count a, b and c (192 MiB per call); "faults" is the minor page faults per call
//! (`getrusage`). Best of `OPSPEC_BENCH_SAMPLES` (default 7) samples of at least 20 ms each.

use std::hint::black_box;
use std::time::Instant;

use opspec_adapter::{Adapter, BinaryOp, DType, Tensor, TernaryOp};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::{Operand, binary_into};
use opspec_cpu::output;
use rayon::prelude::*;

const N: usize = 1 << 24;

fn minor_faults() -> i64 {
    // SAFETY: getrusage writes one `rusage` into the zeroed value it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_minflt
    }
}

/// Best seconds per call, and minor faults per call.
fn time(samples: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let start = Instant::now();
    f();
    let reps = ((20e-3 / start.elapsed().as_secs_f64().max(1e-9)).ceil() as usize).max(1);
    let faults = minor_faults();
    let mut calls = 0;
    let best = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                f();
            }
            calls += reps;
            start.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::INFINITY, f64::min);
    (best, (minor_faults() - faults) as f64 / calls as f64)
}

/// Pre-faults `v` writable in 2 MiB pieces across rayon's threads (`MADV_POPULATE_WRITE`).
fn populate(v: &mut [u8]) {
    v.par_chunks_mut(2 << 20).for_each(|piece| {
        let page = piece.as_mut_ptr().align_offset(4096).min(piece.len());
        let len = (piece.len() - page) / 4096 * 4096;
        if len > 0 {
            // SAFETY: the range lies inside `piece`, borrowed mutably; populating pages
            // changes neither contents nor validity.
            unsafe { libc::madvise(piece.as_mut_ptr().add(page).cast(), len, libc::MADV_POPULATE_WRITE) };
        }
    });
}

fn main() {
    let samples = std::env::var("OPSPEC_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let a: Vec<u8> = (0..N).flat_map(|i| (i as f32 * 0.25).to_le_bytes()).collect();
    let bytes = N * 4;
    let mut owned = vec![0u8; bytes];
    let add = |out: &mut [u8]| {
        assert!(binary_into(BinaryOp::Add, DType::F32, Operand::Dense(&a), Operand::Dense(&a), N, out));
    };
    type Case<'a> = (&'a str, Box<dyn FnMut() + Send + 'a>);
    println!("f32 add, 2^24 elements, allocating form; GB/s of a, b and c; best of {samples}\n");
    println!("| output | threads | GB/s | faults/call |");
    println!("|---|---|---|---|");
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
        let x = Tensor::from_bytes(DType::F32, &[N], a.clone()).expect("a tensor");
        let cases: Vec<Case> = vec![
            ("caller-owned (reused)", Box::new(|| add(black_box(&mut owned)))),
            ("vec![0; n]", Box::new(|| add(&mut black_box(vec![0u8; bytes])))),
            ("output::buffer", Box::new(|| add(&mut black_box(output::buffer(bytes))))),
            (
                "output::buffer + parallel populate",
                Box::new(|| {
                    let mut v = output::buffer(bytes);
                    populate(&mut v);
                    add(&mut black_box(v));
                }),
            ),
            (
                "CpuAdapter::binary",
                Box::new(|| drop(black_box(CpuAdapter.binary(BinaryOp::Add, &x, &x).expect("add")))),
            ),
            (
                "CpuAdapter::ternary fused_mul_add",
                Box::new(|| {
                    drop(black_box(CpuAdapter.ternary(TernaryOp::FusedMulAdd, &x, &x, &x).expect("fma")))
                }),
            ),
        ];
        for (name, mut f) in cases {
            let (secs, faults) = pool.install(|| time(samples, &mut f));
            let touched = if name.contains("ternary") { 4 * bytes } else { 3 * bytes };
            println!("| {name} | {threads} | {:.1} | {faults:.0} |", touched as f64 / secs / 1e9);
        }
    }
}
