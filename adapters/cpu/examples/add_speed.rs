//! Times `add` in f16, bf16 and the integer dtypes: the fast path (`fast::binary_into` into a
//! caller-owned output, and the allocating adapter call on contiguous tensors), a plain loop
//! over typed vectors computing each element as `float.rs`/`integer.rs` do, and the adapter's scalar path (the same data as
//! a strided view, which the fast path declines).
//!
//! `cargo run --release -p opspec-cpu --example add_speed [log2 N]` (N = 2^24 by default), in
//! a 1-thread rayon pool. Prints ns per element, best of 5.

use std::time::Instant;

use half::{bf16, f16};
use opspec_adapter::{Adapter, BinaryOp, DType, Tensor};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::{Operand, binary_into};

fn best(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `c[i] = a[i] + b[i]` over typed vectors, each element computed as the scalar path does.
fn plain(dtype: DType, a: &[u8], b: &[u8], c: &mut [u8]) -> f64 {
    macro_rules! each {
        ($t:ty, $f:expr) => {{
            let typed = |v: &[u8]| -> Vec<$t> {
                v.chunks_exact(size_of::<$t>()).map(|e| <$t>::from_le_bytes(e.try_into().unwrap())).collect()
            };
            let (a, b) = (typed(a), typed(b));
            let mut out = typed(c);
            let t = best(|| {
                for ((c, &a), &b) in out.iter_mut().zip(&a).zip(&b) {
                    *c = $f(a, b);
                }
            });
            std::hint::black_box(&out);
            t
        }};
    }
    match dtype {
        DType::F16 => each!(f16, |a: f16, b: f16| f16::from_f32(a.to_f32() + b.to_f32())),
        DType::BF16 => each!(bf16, |a: bf16, b: bf16| bf16::from_f32(a.to_f32() + b.to_f32())),
        DType::I8 => each!(i8, i8::wrapping_add),
        DType::I16 => each!(i16, i16::wrapping_add),
        DType::I32 => each!(i32, i32::wrapping_add),
        DType::I64 => each!(i64, i64::wrapping_add),
        DType::U8 => each!(u8, u8::wrapping_add),
        DType::U16 => each!(u16, u16::wrapping_add),
        DType::U32 => each!(u32, u32::wrapping_add),
        DType::U64 => each!(u64, u64::wrapping_add),
        _ => unreachable!("{dtype} is not timed here"),
    }
}

fn main() {
    let log2: u32 = std::env::args().nth(1).map_or(24, |s| s.parse().expect("log2 N"));
    let n = 1usize << log2;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    println!("add, N = 2^{log2}, 1 thread, ns per element (best of 5)");
    println!("| dtype | fast into | fast alloc | plain loop | scalar path | plain ÷ fast | scalar ÷ fast |");
    println!("|---|---|---|---|---|---|---|");
    // f32 and f64 are timed by benches/elementwise.rs; bool has no add.
    for dtype in DType::ALL.into_iter().filter(|d| !matches!(d, DType::F32 | DType::F64 | DType::Bool)) {
        let s = dtype.size();
        // Moderate values: every other bit pattern of a counter (no NaN in the 16-bit floats).
        let bits = |k: u64| -> Vec<u64> { (0..n as u64).map(|i| (i * k + 0x3c00) & 0x3fff).collect() };
        let (abits, bbits) = (bits(3), bits(5));
        let bytes = |v: &[u64]| -> Vec<u8> { v.iter().flat_map(|b| b.to_le_bytes()[..s].to_vec()).collect() };
        let (a, b) = (bytes(&abits), bytes(&bbits));
        let mut c = vec![0u8; n * s];
        let (ta, tb) = (
            Tensor::from_bits(dtype, &[n], &abits).unwrap(),
            Tensor::from_bits(dtype, &[n], &bbits).unwrap(),
        );
        let strided = |v: &[u64]| {
            let spread: Vec<u64> = v.iter().flat_map(|&b| [b, 0]).collect();
            Tensor::from_bits(dtype, &[2 * n], &spread).unwrap().view(&[n], &[2], 0).unwrap()
        };
        let (sa, sb) = (strided(&abits), strided(&bbits));
        let per = |t: f64| t * 1e9 / n as f64;
        let (fast, alloc, loop_, scalar) = pool.install(|| {
            let fast = best(|| {
                assert!(binary_into(BinaryOp::Add, dtype, Operand::Dense(&a), Operand::Dense(&b), n, &mut c))
            });
            let alloc = best(|| drop(CpuAdapter.binary(BinaryOp::Add, &ta, &tb).unwrap()));
            let loop_ = plain(dtype, &a, &b, &mut c);
            let scalar = best(|| drop(CpuAdapter.binary(BinaryOp::Add, &sa, &sb).unwrap()));
            (per(fast), per(alloc), per(loop_), per(scalar))
        });
        println!(
            "| {dtype} | {fast:.3} | {alloc:.3} | {loop_:.3} | {scalar:.3} | {:.1} | {:.1} |",
            loop_ / fast,
            scalar / fast
        );
    }
}
