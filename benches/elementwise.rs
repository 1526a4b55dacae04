//! Element-wise benchmark: opspec-cpu's kernels against their peers and STREAM-style
//! bandwidth baselines, in one run.
//!
//! Add in f32, f64, f16 and bf16 at 2^10, 2^16 and 2^24 output elements, in three layouts
//! (contiguous `[N] + [N]`, row broadcast `[m, n] + [n]`, column broadcast `[m, n] + [m, 1]`),
//! on one set of buffers per (dtype, layout, size): opspec's `fast::binary_into` into a
//! caller-owned output in a 1-thread and a 2-thread rayon pool (— where it declines the
//! dtype), the allocating `CpuAdapter::binary`, a plain Rust loop, ndarray (`&a + &b`, and
//! `Zip::par_for_each` into a caller-owned output in a 1-thread and a 2-thread pool), numr
//! 0.14 on `CpuRuntime` (`add`, `add_into`) and NumPy in a subprocess (`np.add(a, b, out=c)`,
//! `a + b`). The baselines (copy, add, non-temporal add, non-temporal add on 2 MiB pages) are
//! f32 loops on arrays of the same bytes as a; the non-temporal add is also timed in each row
//! right after opspec 1T, so that the 2^24 ratio compares figures from one moment. Then
//! subtract/multiply/divide/maximum/minimum at 2^24 contiguous f32/f64 against a plain loop,
//! and the 2-thread split around `fast::PARALLEL_THRESHOLD`.
//!
//! GB/s counts the bytes touched: a, c, and b at its own size (N elements contiguous, n for a
//! row, m for a column); a copy counts a and c. Each figure is the best of several samples.
//! Tables go to stdout (markdown), progress to stderr.
//!
//! `cargo bench --bench elementwise`; environment: `OPSPEC_BENCH_SAMPLES` (default 7),
//! `OPSPEC_BENCH_DTYPES` (e.g. `f32,f16`), `OPSPEC_BENCH_SIZES` (log2 sizes, e.g. `10,16`),
//! `OPSPEC_BENCH_PYTHON` (default `python3`).

#[path = "common/numpy.rs"]
mod numpy;
#[path = "common/stream.rs"]
mod stream;
#[path = "common/timing.rs"]
mod timing;

use std::collections::HashMap;
use std::hint::black_box;
use timing::{pool, time};

use half::{bf16, f16};
use ndarray::{ArrayView2, ArrayViewMut2, Zip};
use numr::dtype::DType as NumrDType;
use numr::prelude::{BinaryOps, CpuDevice, CpuRuntime, Runtime};
use numr::tensor::Tensor as NumrTensor;
use opspec_adapter::{Adapter, BinaryOp, DType, Tensor};
use opspec_cpu::CpuAdapter;
use opspec_cpu::fast::{Operand, binary_into};

/// Row length of the broadcast layouts below 2^16 elements and from 2^16 on.
const ROW_LEN: (usize, usize) = (32, 1024);

#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Contiguous,
    Row,
    Column,
}

impl Layout {
    const ALL: [Layout; 3] = [Layout::Contiguous, Layout::Row, Layout::Column];

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
                let n = if total >= 1 << 16 { ROW_LEN.1 } else { ROW_LEN.0 };
                (total / n, n)
            }
        }
    }

    /// Shapes of a (and c) and of b.
    fn shapes(self, total: usize) -> (Vec<usize>, Vec<usize>) {
        let (m, n) = self.dims(total);
        match self {
            Layout::Contiguous => (vec![total], vec![total]),
            Layout::Row => (vec![m, n], vec![n]),
            Layout::Column => (vec![m, n], vec![m, 1]),
        }
    }

    fn operand(self, bytes: &[u8]) -> Operand<'_> {
        match self {
            Layout::Contiguous => Operand::Dense(bytes),
            Layout::Row => Operand::Row(bytes),
            Layout::Column => Operand::Column(bytes),
        }
    }
}

/// An element type of the benchmark. Implemented only for f32, f64, f16 and bf16, which are
/// plain data without padding, so their slices may be read as bytes.
trait Elem: Copy + Send + Sync + std::ops::Add<Output = Self> + 'static {
    const DTYPE: DType;
    const NUMR: NumrDType;
    fn from_f64(v: f64) -> Self;
}

impl Elem for f32 {
    const DTYPE: DType = DType::F32;
    const NUMR: NumrDType = NumrDType::F32;
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
}

impl Elem for f64 {
    const DTYPE: DType = DType::F64;
    const NUMR: NumrDType = NumrDType::F64;
    fn from_f64(v: f64) -> f64 {
        v
    }
}

impl Elem for f16 {
    const DTYPE: DType = DType::F16;
    const NUMR: NumrDType = NumrDType::F16;
    fn from_f64(v: f64) -> f16 {
        f16::from_f64(v)
    }
}

impl Elem for bf16 {
    const DTYPE: DType = DType::BF16;
    const NUMR: NumrDType = NumrDType::BF16;
    fn from_f64(v: f64) -> bf16 {
        bf16::from_f64(v)
    }
}

fn bytes<T: Elem>(v: &[T]) -> &[u8] {
    // SAFETY: `Elem` types are plain data without padding (see the trait); u8 has alignment 1
    // and the byte length is exactly the slice's size.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), size_of_val(v)) }
}

fn bytes_mut<T: Elem>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `bytes`; every byte pattern is a valid `Elem`, so writes through the bytes
    // leave valid values, and the `&mut` borrow is moved into the result.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), size_of_val(v)) }
}

/// The plain loop a user would write, with the same loop shape per layout.
#[inline(never)]
fn plain<T: Elem>(layout: Layout, n: usize, a: &[T], b: &[T], c: &mut [T], op: impl Fn(T, T) -> T) {
    match layout {
        Layout::Contiguous => {
            for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
                *c = op(a, b);
            }
        }
        Layout::Row => {
            for (c, a) in c.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
                for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
                    *c = op(a, b);
                }
            }
        }
        Layout::Column => {
            for ((c, a), &b) in c.chunks_exact_mut(n).zip(a.chunks_exact(n)).zip(b) {
                for (c, &a) in c.iter_mut().zip(a) {
                    *c = op(a, b);
                }
            }
        }
    }
}

/// One (dtype, layout, size)'s figures in GB/s; `None` where a peer did not run.
struct Row {
    dtype: DType,
    layout: Layout,
    log2: u32,
    opspec1: Option<f64>,
    opspec2: Option<f64>,
    adapter: f64,
    plain: f64,
    nd_alloc: f64,
    nd_zip: f64,
    nd_zip1: f64,
    nt_now: Option<f64>,
    numr_add: Option<f64>,
    numr_into: Option<f64>,
    numpy_out: Option<f64>,
    numpy_alloc: Option<f64>,
}

struct Context {
    samples: usize,
    numpy: HashMap<String, f64>,
    one: rayon::ThreadPool,
    two: rayon::ThreadPool,
    device: CpuDevice,
}

impl Context {
    fn time(&self, f: impl FnMut()) -> f64 {
        time(self.samples, f)
    }
}

fn measure<T: Elem>(cx: &Context, layout: Layout, log2: u32) -> Row {
    let total = 1usize << log2;
    let (m, n) = layout.dims(total);
    let (a_shape, b_shape) = layout.shapes(total);
    let a: Vec<T> = (0..total).map(|i| T::from_f64((i % 1024) as f64 * 0.25)).collect();
    let b: Vec<T> =
        (0..b_shape.iter().product()).map(|i: usize| T::from_f64(1.0 + (i % 512) as f64)).collect();
    let mut c = vec![T::from_f64(0.5); total]; // written, so its pages are faulted in
    let size = T::DTYPE.size();
    let gbs = |secs: f64| ((2 * total + b.len()) * size) as f64 / secs / 1e9;
    let label = format!("{} {} 2^{log2}", T::DTYPE, layout.name());
    eprintln!("{label}: opspec");

    let y = layout.operand(bytes(&b));
    let mut kernel = |pool: &rayon::ThreadPool| {
        let out = bytes_mut(&mut c);
        pool.install(|| binary_into(BinaryOp::Add, T::DTYPE, Operand::Dense(bytes(&a)), y, n, out)).then(
            || {
                pool.install(|| {
                    cx.time(|| {
                        binary_into(
                            BinaryOp::Add,
                            T::DTYPE,
                            Operand::Dense(bytes(&a)),
                            y,
                            n,
                            black_box(&mut *out),
                        );
                    })
                })
            },
        )
    };
    let opspec1 = kernel(&cx.one).map(gbs);
    // The non-temporal-store baseline at a's bytes per array, timed right after opspec 1T: on a
    // shared machine the memory bandwidth moves within minutes, so the ratio at 2^24 needs both
    // figures from the same moment.
    let nt_now = {
        let len = total * size / 4;
        let (fa, fb, mut fc) = (vec![0.25f32; len], vec![1.5f32; len], vec![0.5f32; len]);
        stream::nt_add(&fa, &fb, &mut fc)
            .map(|()| cx.time(|| stream::nt_add(&fa, &fb, black_box(&mut fc)).unwrap_or(())))
            .map(|secs| (3 * len * 4) as f64 / secs / 1e9)
    };
    let opspec2 = kernel(&cx.two).map(gbs);

    let x = Tensor::from_bytes(T::DTYPE, &a_shape, bytes(&a).to_vec()).expect("a tensor");
    let yt = Tensor::from_bytes(T::DTYPE, &b_shape, bytes(&b).to_vec()).expect("b tensor");
    let adapter = cx.one.install(|| {
        cx.time(|| {
            black_box(CpuAdapter.binary(BinaryOp::Add, &x, &yt).expect("adapter add"));
        })
    });
    drop((x, yt));

    eprintln!("{label}: plain loop, ndarray");
    let plain = cx.time(|| plain(layout, n, &a, &b, black_box(&mut c), |a, b| a + b));
    // Two static dimensions throughout: a and c `[m, n]` (`[1, N]` contiguous), b `[1, N]`,
    // `[1, n]` or `[m, 1]`.
    let b_dims = if layout == Layout::Column { (m, 1) } else { (1, b.len()) };
    let av = ArrayView2::from_shape((m, n), &a).expect("a view");
    let bv = ArrayView2::from_shape(b_dims, &b).expect("b view");
    let nd_alloc = cx.time(|| {
        black_box(&av + &bv);
    });
    let mut cv = ArrayViewMut2::from_shape((m, n), &mut c).expect("c view");
    let mut zip = |pool: &rayon::ThreadPool| {
        pool.install(|| {
            cx.time(|| {
                Zip::from(black_box(&mut cv))
                    .and(&av)
                    .and_broadcast(&bv)
                    .par_for_each(|c, &a, &b| *c = a + b);
            })
        })
    };
    let (nd_zip1, nd_zip) = (zip(&cx.one), zip(&cx.two));

    eprintln!("{label}: numr");
    let client = CpuRuntime::default_client(&cx.device);
    let numr = |data: &[u8], shape: &[usize]| {
        NumrTensor::<CpuRuntime>::from_bytes(data, shape, T::NUMR, &cx.device).expect("a numr tensor")
    };
    let (na, nb, nc) = (numr(bytes(&a), &a_shape), numr(bytes(&b), &b_shape), numr(bytes(&c), &a_shape));
    let numr_add = client.add(&na, &nb).is_ok().then(|| {
        cx.time(|| {
            black_box(client.add(&na, &nb).expect("numr add"));
        })
    });
    let numr_into = client
        .add_into(&nc, &na, &nb)
        .is_ok()
        .then(|| cx.time(|| client.add_into(black_box(&nc), &na, &nb).expect("numr add_into")));

    let key = format!("{} {} {log2}", T::DTYPE, layout.name());
    let numpy = |kind: &str| cx.numpy.get(&format!("{key} {kind}")).map(|&s| gbs(s));
    Row {
        dtype: T::DTYPE,
        layout,
        log2,
        opspec1,
        opspec2,
        adapter: gbs(adapter),
        plain: gbs(plain),
        nd_alloc: gbs(nd_alloc),
        nd_zip: gbs(nd_zip),
        nd_zip1: gbs(nd_zip1),
        nt_now,
        numr_add: numr_add.map(gbs),
        numr_into: numr_into.map(gbs),
        numpy_out: numpy("out"),
        numpy_alloc: numpy("alloc"),
    }
}

fn gb(x: Option<f64>) -> String {
    x.map_or("—".to_string(), |x| format!("{x:.1}"))
}

fn ratio(x: Option<f64>, y: Option<f64>) -> String {
    x.zip(y).map_or("—".to_string(), |(x, y)| format!("{:.2}", x / y))
}

/// Three dense operands of 2^24 elements (a, b, c) for [`other_op`].
fn dense<T: Elem>() -> (Vec<T>, Vec<T>, Vec<T>) {
    let total = 1usize << 24;
    let a = (0..total).map(|i| T::from_f64((i % 1024) as f64 * 0.25)).collect();
    let b = (0..total).map(|i| T::from_f64(1.0 + (i % 512) as f64)).collect();
    (a, b, vec![T::from_f64(0.5); total])
}

/// One table row for `op` at 2^24 contiguous: opspec 1T/2T against a plain loop computing `f`
/// (maximum/minimum: `f32::max`/`min`, which ignore NaN; a speed reference only).
fn other_op<T: Elem>(
    cx: &Context,
    (a, b, c): &mut (Vec<T>, Vec<T>, Vec<T>),
    op: BinaryOp,
    f: impl Fn(T, T) -> T,
) {
    let total = c.len();
    let gbs = |secs: f64| (3 * total * T::DTYPE.size()) as f64 / secs / 1e9;
    eprintln!("{} {op} 2^24", T::DTYPE);
    let mut kernel = |pool: &rayon::ThreadPool| {
        let out = bytes_mut(c);
        let (x, y) = (Operand::Dense(bytes(a)), Operand::Dense(bytes(b)));
        pool.install(|| binary_into(op, T::DTYPE, x, y, total, out)).then(|| {
            pool.install(|| cx.time(|| _ = binary_into(op, T::DTYPE, x, y, total, black_box(&mut *out))))
        })
    };
    let (one, two) = (kernel(&cx.one).map(gbs), kernel(&cx.two).map(gbs));
    let plain = Some(gbs(cx.time(|| plain(Layout::Contiguous, total, a, b, black_box(c), &f))));
    println!(
        "| {op} | {} | {} | {} | {} | {} | {} |",
        T::DTYPE,
        gb(one),
        gb(two),
        gb(plain),
        ratio(one, plain),
        ratio(two, one)
    );
}

/// The 2-thread split by hand (f32 contiguous add: the kernel on each half through
/// `rayon::join` in a 2-thread pool, against one call in a 1-thread pool), µs.
fn thread_split(cx: &Context) {
    println!("\n## Thread split (f32 contiguous add, kernel on each half via rayon::join vs one call), µs\n");
    println!("| N | bytes out | 1 call | 2 halves | speed-up |");
    println!("|---|---|---|---|---|");
    let add = |a: &[u8], c: &mut [u8]| {
        binary_into(BinaryOp::Add, DType::F32, Operand::Dense(a), Operand::Dense(a), a.len() / 4, c)
    };
    for log2 in [14, 16, 17, 18, 19, 20, 22] {
        eprintln!("thread split 2^{log2}");
        let total = 1usize << log2;
        let a = vec![0u8; total * 4];
        let mut c = vec![0u8; total * 4];
        let one = cx.one.install(|| cx.time(|| _ = add(&a, &mut c)));
        let half = total / 2 * 4;
        let split = cx.two.install(|| {
            cx.time(|| {
                let (c0, c1) = c.split_at_mut(half);
                let (a0, a1) = a.split_at(half);
                rayon::join(|| add(a0, c0), || add(a1, c1));
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

/// A comma-separated list from the environment, or `default`.
fn list<T: std::str::FromStr + Clone>(var: &str, default: &[T]) -> Vec<T> {
    match std::env::var(var) {
        Ok(s) => s
            .split(',')
            .map(|x| x.trim().parse().unwrap_or_else(|_| panic!("{var}: bad item `{x}`")))
            .collect(),
        Err(_) => default.to_vec(),
    }
}

fn main() {
    let samples = std::env::var("OPSPEC_BENCH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(7);
    let python = std::env::var("OPSPEC_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let dtypes: Vec<DType> = list("OPSPEC_BENCH_DTYPES", &[DType::F32, DType::F64, DType::F16, DType::BF16]);
    let sizes: Vec<u32> = list("OPSPEC_BENCH_SIZES", &[10, 16, 24]);
    let names: Vec<&str> = dtypes.iter().map(|d| d.name()).collect();
    let cx = Context {
        samples,
        numpy: numpy::times(&python, samples, &names, &sizes, ROW_LEN),
        one: pool(1),
        two: pool(2),
        device: CpuDevice::new(),
    };

    let mut rows = Vec::new();
    for &dtype in &dtypes {
        for layout in Layout::ALL {
            for &log2 in &sizes {
                rows.push(match dtype {
                    DType::F32 => measure::<f32>(&cx, layout, log2),
                    DType::F64 => measure::<f64>(&cx, layout, log2),
                    DType::F16 => measure::<f16>(&cx, layout, log2),
                    DType::BF16 => measure::<bf16>(&cx, layout, log2),
                    other => panic!("OPSPEC_BENCH_DTYPES: {other} is not benchmarked"),
                });
            }
        }
    }
    let mut baselines = std::collections::BTreeMap::new();
    for r in &rows {
        let bytes = (1usize << r.log2) * r.dtype.size();
        baselines.entry(bytes).or_insert_with(|| {
            eprintln!("baselines at {bytes} bytes");
            stream::measure(bytes, samples)
        });
    }

    println!(
        "Kernels: `{}` (`opspec_cpu::fast::simd`; `OPSPEC_CPU_SIMD` caps it)\n",
        opspec_cpu::fast::simd().name()
    );
    println!("## Add, GB/s (bytes of a, b at its own size, and c), best of {samples} samples\n");
    println!(
        "| dtype | layout | N | opspec 1T | opspec 2T | adapter (alloc) | plain loop | ndarray a+b | ndarray Zip 1T | ndarray Zip 2T | numr add | numr add_into | NumPy out= | NumPy a+b |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | 2^{} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} | {} | {} |",
            r.dtype,
            r.layout.name(),
            r.log2,
            gb(r.opspec1),
            gb(r.opspec2),
            r.adapter,
            r.plain,
            r.nd_alloc,
            r.nd_zip1,
            r.nd_zip,
            gb(r.numr_add),
            gb(r.numr_into),
            gb(r.numpy_out),
            gb(r.numpy_alloc),
        );
    }

    println!(
        "\n## Ratios: opspec 1T (caller-owned) ÷ peer (best 1T: the fastest of plain, ndarray Zip 1T, numr add_into and NumPy out=; NT add, same moment: the non-temporal-store baseline at a's bytes per array, timed right after opspec 1T); 2T ÷ 1T; allocating adapter ÷ allocating peers\n"
    );
    println!(
        "| dtype | layout | N | ÷ best 1T | ÷ NT add, same moment | ÷ plain | ÷ ndarray Zip 1T | ÷ ndarray Zip 2T | ÷ numr add_into | ÷ NumPy out= | ÷ copy | ÷ add | ÷ NT add | ÷ NT add 2 MiB | 2T ÷ 1T | alloc ÷ ndarray | alloc ÷ numr | alloc ÷ NumPy |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let s = &baselines[&((1usize << r.log2) * r.dtype.size())];
        let one = r.opspec1;
        let best =
            [Some(r.plain), Some(r.nd_zip1), r.numr_into, r.numpy_out].into_iter().flatten().reduce(f64::max);
        println!(
            "| {} | {} | 2^{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.dtype,
            r.layout.name(),
            r.log2,
            ratio(one, best),
            ratio(one, r.nt_now),
            ratio(one, Some(r.plain)),
            ratio(one, Some(r.nd_zip1)),
            ratio(one, Some(r.nd_zip)),
            ratio(one, r.numr_into),
            ratio(one, r.numpy_out),
            ratio(one, Some(s.copy)),
            ratio(one, Some(s.add)),
            ratio(one, s.nt_add),
            ratio(one, s.nt_add_huge),
            ratio(r.opspec2, one),
            ratio(Some(r.adapter), Some(r.nd_alloc)),
            ratio(Some(r.adapter), r.numr_add),
            ratio(Some(r.adapter), r.numpy_alloc),
        );
    }

    println!("\n## One-core bandwidth baselines (f32 loops on their own buffers), GB/s\n");
    println!("| bytes per array | copy | add | NT add | NT add, 2 MiB pages | AnonHugePages gained |");
    println!("|---|---|---|---|---|---|");
    for (bytes, s) in &baselines {
        println!(
            "| {} KiB | {:.1} | {:.1} | {} | {} | {} |",
            bytes >> 10,
            s.copy,
            s.add,
            gb(s.nt_add),
            gb(s.nt_add_huge),
            s.huge_kib.map_or("—".to_string(), |k| format!("{k} KiB")),
        );
    }

    if sizes.contains(&24) {
        println!("\n## Other ops, 2^24 contiguous, GB/s (a, b, c)\n");
        println!("| op | dtype | opspec 1T | opspec 2T | plain loop | ÷ plain | 2T ÷ 1T |");
        println!("|---|---|---|---|---|---|---|");
        if dtypes.contains(&DType::F32) {
            let mut v = dense::<f32>();
            other_op(&cx, &mut v, BinaryOp::Subtract, |a, b| a - b);
            other_op(&cx, &mut v, BinaryOp::Multiply, |a, b| a * b);
            other_op(&cx, &mut v, BinaryOp::Divide, |a, b| a / b);
            other_op(&cx, &mut v, BinaryOp::Maximum, f32::max);
            other_op(&cx, &mut v, BinaryOp::Minimum, f32::min);
        }
        if dtypes.contains(&DType::F64) {
            let mut v = dense::<f64>();
            other_op(&cx, &mut v, BinaryOp::Subtract, |a, b| a - b);
            other_op(&cx, &mut v, BinaryOp::Multiply, |a, b| a * b);
            other_op(&cx, &mut v, BinaryOp::Divide, |a, b| a / b);
            other_op(&cx, &mut v, BinaryOp::Maximum, f64::max);
            other_op(&cx, &mut v, BinaryOp::Minimum, f64::min);
        }
    }
    thread_split(&cx);
}
