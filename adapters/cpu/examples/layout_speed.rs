//! Times f32 `add` of N elements in rows of n on the four layouts through `fast::binary_into`
//! in a 1-thread pool: ns per element and GB/s of bytes touched (a, c, and b at its own size),
//! best of 7 samples (each repeating the call up to 2^26 elements in all).
//! A write-bound kernel runs every layout at about the same ns per element, so the broadcasts'
//! GB/s (two full-size streams) come out near 2/3 of the contiguous figure (three).
//!
//! `cargo run --release -p opspec-cpu --example layout_speed [log2 N] [log2 n]` (default 24 10)

use std::time::Instant;

use opspec_adapter::{BinaryOp, DType};
use opspec_cpu::fast::{Operand, binary_into};

fn main() {
    let arg = |i: usize, default: u32| {
        std::env::args().nth(i).map_or(default, |s| s.parse().expect("a power of 2"))
    };
    let (log2, n) = (arg(1, 24), 1usize << arg(2, 10));
    let total = 1usize << log2;
    let m = total / n;
    let samples = (1usize << 26 >> log2).clamp(7, 10_000);
    let a: Vec<u8> = (0..total).flat_map(|i| (i as f32 * 0.25).to_le_bytes()).collect();
    let b = a.clone();
    let mut c = vec![0u8; total * 4];
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let layouts: [(&str, Operand, usize); 4] = [
        ("contiguous", Operand::Dense(&b), total),
        ("row", Operand::Row(&b[..n * 4]), n),
        ("column", Operand::Column(&b[..m * 4]), m),
        ("scalar", Operand::Scalar(&b[..4]), 1),
    ];
    println!("| layout | ns/element | GB/s |");
    println!("|---|---|---|");
    for (name, y, y_len) in layouts {
        let t = pool.install(|| {
            (0..7)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..samples {
                        assert!(binary_into(BinaryOp::Add, DType::F32, Operand::Dense(&a), y, n, &mut c));
                    }
                    t.elapsed().as_secs_f64() / samples as f64
                })
                .fold(f64::INFINITY, f64::min)
        });
        let bytes = (2 * total + y_len) * 4;
        println!("| {name} | {:.3} | {:.1} |", t * 1e9 / total as f64, bytes as f64 / t / 1e9);
    }
}
