//! Times an f32 row broadcast (`[64, 1024] + [1024]`, in cache) through `fast::binary_into` in a
//! 1-thread pool with the row operand at several offsets within its 4 KiB page, the dense
//! operand and the output both 16 bytes past a page boundary (as glibc's `mmap`ed blocks are):
//! GB/s of bytes touched, best of 7 samples of 2000 calls. A row that starts a little below the
//! output's offset (modulo 4 KiB) makes each load look like it depends on a store just made
//! (4K aliasing), which costs a fifth of the speed on the machines of docs/runs/2026-12-02-zen5/NOTES.md.
//!
//! `cargo run --release -p opspec-cpu --example row_placement`

use std::time::Instant;

use opspec_adapter::{BinaryOp, DType};
use opspec_cpu::fast::{Operand, binary_into};

const PAGE: usize = 4096;

/// `bytes` bytes of `buf` starting `offset` bytes past one of its page boundaries.
fn at_offset(buf: &mut [u8], offset: usize, bytes: usize) -> &mut [u8] {
    let start = buf.as_ptr().align_offset(PAGE) + offset;
    &mut buf[start..start + bytes]
}

fn main() {
    let (n, total) = (1024, 1 << 16);
    let bytes = total * 4;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    let (mut a, mut c, mut b) =
        (vec![0u8; bytes + 2 * PAGE], vec![0u8; bytes + 2 * PAGE], vec![0u8; 4 * n + 2 * PAGE]);
    let a = at_offset(&mut a, 16, bytes);
    for (i, v) in a.chunks_exact_mut(4).enumerate() {
        v.copy_from_slice(&(i as f32 * 0.25).to_le_bytes());
    }
    let c = at_offset(&mut c, 16, bytes);
    println!("| row's offset in its page | row starts below the output by (mod 4 KiB) | GB/s |");
    println!("|---|---|---|");
    for offset in [16, 80, 528, 2064, 3600, 4000, 4032, 4048, 4080, 0] {
        let row = at_offset(&mut b, offset, 4 * n);
        for (i, v) in row.chunks_exact_mut(4).enumerate() {
            v.copy_from_slice(&(1.0 + i as f32).to_le_bytes());
        }
        let row = &*row;
        let t = pool.install(|| {
            (0..7)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..2000 {
                        assert!(binary_into(
                            BinaryOp::Add,
                            DType::F32,
                            Operand::Dense(a),
                            Operand::Row(row),
                            n,
                            c
                        ));
                    }
                    t.elapsed().as_secs_f64() / 2000.0
                })
                .fold(f64::INFINITY, f64::min)
        });
        let below = (PAGE + 16 - offset) % PAGE;
        println!("| {offset} | {below} | {:.1} |", ((2 * total + n) * 4) as f64 / t / 1e9);
    }
}
