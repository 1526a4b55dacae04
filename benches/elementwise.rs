//! Element-wise add benchmark: opspec-cpu's fast kernel against its peers, in one run.
//!
//! For f32 and f64, 2^10, 2^16 and 2^24 output elements, and three layouts (contiguous
//! `[N] + [N]`, row broadcast `[m, n] + [n]`, column broadcast `[m, n] + [m, 1]`), it times:
//! opspec's kernel (`fast::binary_into` into a caller-owned output) in a 1-thread and a
//! 2-thread rayon pool; a plain Rust loop; a STREAM-style copy (`c.copy_from_slice(a)`); and,
//! when `python3` has NumPy, `np.add(a, b, out=c)` timed with `timeit`. At 2^24 contiguous it
//! also times the allocating adapter call (`CpuAdapter::binary`, tensors in and out).
//!
//! GB/s counts the bytes actually touched: a, c, and b at its own size (N elements
//! contiguous, n for a row, m for a column); the copy counts a and c. Each figure is the best
//! of several samples. A last table times the 2-thread split by hand at sizes around the
//! kernel's `PARALLEL_THRESHOLD`.
//!
//! `cargo bench --bench elementwise` (environment: `OPSPEC_BENCH_SAMPLES`, default 7;
//! `OPSPEC_BENCH_PYTHON`, default `python3`).

use std::collections::HashMap;
use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

use opspec_adapter::{Adapter, BinaryOp, DType, Tensor};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::{Operand, binary_into};

#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Contiguous,
    Row,
    Column,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Contiguous => "contiguous",
            Layout::Row => "row",
            Layout::Column => "column",
        }
    }

    /// `(m, n)` for `total` output elements.
    fn dims(self, total: usize) -> (usize, usize) {
        match self {
            Layout::Contiguous => (1, total),
            _ => {
                let n = if total >= 1 << 16 { 1024 } else { 32 };
                (total / n, n)
            }
        }
    }

    /// Elements of b.
    fn b_len(self, total: usize) -> usize {
        let (m, n) = self.dims(total);
        match self {
            Layout::Contiguous => total,
            Layout::Row => n,
            Layout::Column => m,
        }
    }
}

/// Seconds per call: the best of `samples` samples, each long enough (≥ 2 ms) to time.
fn time(samples: usize, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    f();
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let reps = ((2e-3 / once).ceil() as usize).max(1);
    (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..reps {
                f();
            }
            start.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool")
}

/// A float type for the plain loop.
trait Float: Copy + std::ops::Add<Output = Self> + Default {
    const DTYPE: DType;
    fn from_f64(v: f64) -> Self;
    fn bytes(v: &[Self]) -> Vec<u8>;
}

impl Float for f32 {
    const DTYPE: DType = DType::F32;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

impl Float for f64 {
    const DTYPE: DType = DType::F64;
    fn from_f64(v: f64) -> f64 {
        v
    }
    fn bytes(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }
}

/// The plain loop a user would write.
#[inline(never)]
fn plain<T: Float>(layout: Layout, n: usize, a: &[T], b: &[T], c: &mut [T]) {
    match layout {
        Layout::Contiguous => {
            for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
                *c = a + b;
            }
        }
        Layout::Row => {
            for (c, a) in c.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
                for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
                    *c = a + b;
                }
            }
        }
        Layout::Column => {
            for ((c, a), &b) in c.chunks_exact_mut(n).zip(a.chunks_exact(n)).zip(b) {
                for (c, &a) in c.iter_mut().zip(a) {
                    *c = a + b;
                }
            }
        }
    }
}

/// One table row's measurements, in GB/s.
struct Row {
    dtype: DType,
    layout: Layout,
    log2: u32,
    opspec1: f64,
    opspec2: f64,
    plain: f64,
    copy: f64,
    numpy: Option<f64>,
}

fn measure<T: Float>(samples: usize, layout: Layout, log2: u32, numpy: &HashMap<String, f64>) -> Row {
    let total = 1usize << log2;
    let (_, n) = layout.dims(total);
    let size = T::DTYPE.size();
    let a: Vec<T> = (0..total).map(|i| T::from_f64(i as f64 * 0.25)).collect();
    let b: Vec<T> = (0..layout.b_len(total)).map(|i| T::from_f64(1.0 + i as f64)).collect();
    let mut c = vec![T::default(); total];
    let (ab, bb) = (T::bytes(&a), T::bytes(&b));
    let mut cb = vec![0u8; total * size];
    let bytes = ((2 * total + b.len()) * size) as f64;
    let gbs = |secs: f64, bytes: f64| bytes / secs / 1e9;
    let y = match layout {
        Layout::Contiguous => Operand::Dense(&bb),
        Layout::Row => Operand::Row(&bb),
        Layout::Column => Operand::Column(&bb),
    };
    let mut kernel = |threads: usize| {
        pool(threads).install(|| {
            time(samples, || {
                assert!(binary_into(BinaryOp::Add, T::DTYPE, Operand::Dense(&ab), y, n, black_box(&mut cb)));
            })
        })
    };
    let (opspec1, opspec2) = (kernel(1), kernel(2));
    let plain = time(samples, || plain(layout, n, &a, &b, black_box(&mut c)));
    let copy = time(samples, || black_box(&mut c).copy_from_slice(&a));
    let key = format!("{} {} {}", T::DTYPE, layout.name(), log2);
    Row {
        dtype: T::DTYPE,
        layout,
        log2,
        opspec1: gbs(opspec1, bytes),
        opspec2: gbs(opspec2, bytes),
        plain: gbs(plain, bytes),
        copy: gbs(copy, (2 * total * size) as f64),
        numpy: numpy.get(&key).map(|&s| gbs(s, bytes)),
    }
}

/// Times NumPy in a subprocess: seconds per `np.add(a, b, out=c)` for every row's key.
fn numpy_times(python: &str, samples: usize) -> HashMap<String, f64> {
    let script = format!(
        r#"
import timeit, numpy as np
for dt in ("f32", "f64"):
    t = np.float32 if dt == "f32" else np.float64
    for layout in ("contiguous", "row", "column"):
        for log2 in (10, 16, 24):
            total = 1 << log2
            n = total if layout == "contiguous" else (1024 if total >= 1 << 16 else 32)
            m = total // n
            a = (np.arange(total, dtype=t) * t(0.25)).reshape(m, n)
            b = {{"contiguous": a + 1, "row": np.ones(n, t), "column": np.ones((m, 1), t)}}[layout]
            c = np.empty_like(a)
            f = lambda: np.add(a, b, out=c)
            f()
            once = timeit.timeit(f, number=1)
            reps = max(1, int(2e-3 / max(once, 1e-9)) + 1)
            best = min(timeit.repeat(f, number=reps, repeat={samples})) / reps
            print(dt, layout, log2, best)
"#
    );
    let output = Command::new(python).arg("-c").arg(script).output();
    let mut times = HashMap::new();
    match output {
        Ok(o) if o.status.success() => {
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                if let Some((key, secs)) = line.rsplit_once(' ')
                    && let Ok(secs) = secs.parse::<f64>()
                {
                    times.insert(key.to_string(), secs);
                }
            }
        }
        Ok(o) => eprintln!("NumPy skipped: {}", String::from_utf8_lossy(&o.stderr).trim()),
        Err(e) => eprintln!("NumPy skipped: cannot run {python}: {e}"),
    }
    times
}

/// The allocating adapter call at 2^24 contiguous: tensors in, a new tensor out.
fn adapter_gbs<T: Float>(samples: usize) -> f64 {
    let total = 1usize << 24;
    let a: Vec<T> = (0..total).map(|i| T::from_f64(i as f64 * 0.25)).collect();
    let x = Tensor::from_bytes(T::DTYPE, &[total], T::bytes(&a)).expect("a tensor");
    let y = x.clone();
    let secs = pool(1).install(|| {
        time(samples, || {
            black_box(CpuAdapter.binary(BinaryOp::Add, &x, &y).expect("add"));
        })
    });
    (3 * total * T::DTYPE.size()) as f64 / secs / 1e9
}

fn main() {
    let samples = std::env::var("OPSPEC_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let python = std::env::var("OPSPEC_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let numpy = numpy_times(&python, samples);
    let ratio = |x: f64, y: Option<f64>| y.map_or("-".to_string(), |y| format!("{:.2}", x / y));
    let gb = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
    println!(
        "GB/s (bytes of a, b and c; copy: a and c), best of {samples} samples; ratios are opspec 1-thread / peer.\n"
    );
    println!(
        "| dtype | layout | N | opspec 1T | opspec 2T | plain loop | copy | NumPy out= | ÷ plain | ÷ copy | ÷ NumPy | 2T ÷ 1T |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for dtype in [DType::F32, DType::F64] {
        for layout in [Layout::Contiguous, Layout::Row, Layout::Column] {
            for log2 in [10, 16, 24] {
                let r = match dtype {
                    DType::F32 => measure::<f32>(samples, layout, log2, &numpy),
                    _ => measure::<f64>(samples, layout, log2, &numpy),
                };
                println!(
                    "| {} | {} | 2^{} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} | {} | {} | {} |",
                    r.dtype,
                    r.layout.name(),
                    r.log2,
                    r.opspec1,
                    r.opspec2,
                    r.plain,
                    r.copy,
                    gb(r.numpy),
                    ratio(r.opspec1, Some(r.plain)),
                    ratio(r.opspec1, Some(r.copy)),
                    ratio(r.opspec1, r.numpy),
                    ratio(r.opspec2, Some(r.opspec1)),
                );
            }
        }
    }
    println!(
        "\nAllocating adapter call (CpuAdapter::binary, 2^24 contiguous, 1 thread): f32 {:.1} GB/s, f64 {:.1} GB/s",
        adapter_gbs::<f32>(samples),
        adapter_gbs::<f64>(samples)
    );
    println!("\nThread split (f32 contiguous add, kernel on each half via rayon::join vs one call), µs:\n");
    println!("| N | bytes out | 1 call | 2 halves | speed-up |");
    println!("|---|---|---|---|---|");
    let two = pool(2);
    for log2 in [14, 16, 17, 18, 19, 20, 22] {
        let total = 1usize << log2;
        let a = vec![0u8; total * 4];
        let mut c = vec![0u8; total * 4];
        let one = pool(1).install(|| {
            time(samples, || {
                binary_into(BinaryOp::Add, DType::F32, Operand::Dense(&a), Operand::Dense(&a), total, &mut c);
            })
        });
        let half = total / 2 * 4;
        let split = two.install(|| {
            time(samples, || {
                let (c0, c1) = c.split_at_mut(half);
                let (a0, a1) = a.split_at(half);
                rayon::join(
                    || {
                        binary_into(
                            BinaryOp::Add,
                            DType::F32,
                            Operand::Dense(a0),
                            Operand::Dense(a0),
                            a0.len() / 4,
                            c0,
                        )
                    },
                    || {
                        binary_into(
                            BinaryOp::Add,
                            DType::F32,
                            Operand::Dense(a1),
                            Operand::Dense(a1),
                            a1.len() / 4,
                            c1,
                        )
                    },
                );
            })
        });
        println!(
            "| 2^{log2} | {} KiB | {:.1} | {:.1} | {:.2} |",
            (total * 4) >> 10,
            one * 1e6,
            split * 1e6,
            one / split
        );
    }
}
