//! Fast kernels for add, subtract, multiply, divide, maximum and minimum in f32 and f64.
//!
//! The output is viewed as rows of `row_len` elements; each operand is dense (one element per
//! output element), a row repeated down the output, a column (one element per row), or a
//! single element. The work is cut into segments that lie inside one row, so every segment is
//! either slice-op-slice or slice-op-scalar. Each segment runs through AVX when the CPU has it
//! (detected at run time) and a portable loop for the tail and on other CPUs. Outputs of
//! [`PARALLEL_THRESHOLD`] bytes or more are split across rayon's threads, and outputs of
//! [`STREAM_THRESHOLD`] bytes or more are written with non-temporal stores.
//!
//! Results are bit-identical to the scalar kernels of `float.rs`: IEEE `+ - × ÷` round each
//! element once, and maximum/minimum propagate NaN and return `x` between equal values, exactly
//! as the scalar code does.

use opspec_adapter::{AdapterError, BinaryOp, DType, Tensor};
use rayon::prelude::*;

/// Outputs of at least this many bytes are split across threads. `benches/elementwise.rs`
/// times a two-way split: on the 2-vCPU VM of docs/PERFORMANCE.md it loses below 256 KiB and is
/// neutral (within the noise) up to 16 MiB, so 1 MiB keeps small calls on one thread without
/// giving up the gain measured at 64 MiB.
pub const PARALLEL_THRESHOLD: usize = 1 << 20;

/// Outputs of at least this many bytes (well past the caches) are written with non-temporal
/// stores, which skip reading the output's lines into the cache first.
pub const STREAM_THRESHOLD: usize = 8 << 20;

/// Segments shorter than this many bytes skip the AVX call.
const SHORT_SEGMENT: usize = 512;

/// How one operand maps onto the output's `rows × row_len` elements (little-endian bytes).
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// One element per output element.
    Dense(&'a [u8]),
    /// `row_len` elements, repeated for every row (`[m, n] + [n]`).
    Row(&'a [u8]),
    /// One element per row (`[m, n] + [m, 1]`).
    Column(&'a [u8]),
    /// One element for the whole output.
    Scalar(&'a [u8]),
}

/// True when [`binary_into`] computes `op` in `dtype`.
pub fn supports(op: BinaryOp, dtype: DType) -> bool {
    use BinaryOp::*;
    matches!(dtype, DType::F32 | DType::F64)
        && matches!(op, Add | Subtract | Multiply | Divide | Maximum | Minimum)
}

/// Computes `out = x op y` element by element into a caller-owned output of `dtype` elements.
///
/// Returns `false` (and leaves `out` untouched) when [`supports`] is false or when an
/// operand's length does not match its role for the given `row_len`; an empty output needs
/// nothing from its operands.
pub fn binary_into(
    op: BinaryOp,
    dtype: DType,
    x: Operand,
    y: Operand,
    row_len: usize,
    out: &mut [u8],
) -> bool {
    let size = dtype.size();
    let total = out.len() / size;
    if !supports(op, dtype) || out.len() % size != 0 {
        return false;
    }
    if total == 0 {
        return true;
    }
    if row_len == 0 || total % row_len != 0 {
        return false;
    }
    let rows = total / row_len;
    let fits = |o: &Operand| match *o {
        Operand::Dense(s) => s.len() == total * size,
        Operand::Row(s) => s.len() == row_len * size,
        Operand::Column(s) => s.len() == rows * size,
        Operand::Scalar(s) => s.len() == size,
    };
    if !fits(&x) || !fits(&y) {
        return false;
    }
    let stream = out.len() >= STREAM_THRESHOLD;
    let work = |(index, chunk): (usize, &mut [u8])| {
        let start = index * chunk_elements(size);
        run_range(op, dtype, x, y, row_len, start, chunk, stream);
    };
    if out.len() >= PARALLEL_THRESHOLD && rayon::current_num_threads() > 1 {
        out.par_chunks_mut(chunk_elements(size) * size).enumerate().for_each(work);
    } else {
        out.chunks_mut(chunk_elements(size) * size).enumerate().for_each(work);
    }
    true
}

/// Elements per parallel work item: 256 KiB of output.
fn chunk_elements(size: usize) -> usize {
    (256 << 10) / size
}

/// One side of a segment: a slice as long as the segment, or one element.
#[derive(Clone, Copy)]
enum Side<'a> {
    Slice(&'a [u8]),
    Splat(&'a [u8]),
}

/// Computes output elements `start..` (as many as `out` holds), one in-row segment at a time.
#[allow(clippy::too_many_arguments)]
fn run_range(
    op: BinaryOp,
    dtype: DType,
    x: Operand,
    y: Operand,
    row_len: usize,
    start: usize,
    out: &mut [u8],
    stream: bool,
) {
    let size = dtype.size();
    let (mut row, mut col) = (start / row_len, start % row_len);
    let mut done = 0;
    while done < out.len() / size {
        let at = start + done;
        let len = (row_len - col).min(out.len() / size - done);
        let side = |o| match o {
            Operand::Dense(s) => Side::Slice(&s[at * size..(at + len) * size]),
            Operand::Row(s) => Side::Slice(&s[col * size..(col + len) * size]),
            Operand::Column(s) => Side::Splat(&s[row * size..(row + 1) * size]),
            Operand::Scalar(s) => Side::Splat(s),
        };
        let seg = &mut out[done * size..(done + len) * size];
        match dtype {
            DType::F32 => segment::<f32>(op, side(x), side(y), seg, stream),
            _ => segment::<f64>(op, side(x), side(y), seg, stream),
        }
        done += len;
        col += len;
        if col == row_len {
            (row, col) = (row + 1, 0);
        }
    }
    #[cfg(target_arch = "x86_64")]
    if stream {
        // Orders this thread's non-temporal stores before whatever follows the kernel.
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { std::arch::x86_64::_mm_sfence() };
    }
}

/// A float type with fast kernels.
trait Lane: Copy + PartialOrd + std::ops::Add<Output = Self> {
    const SIZE: usize;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);
    fn is_nan(self) -> bool;
    fn sub(self, y: Self) -> Self;
    fn mul(self, y: Self) -> Self;
    fn div(self, y: Self) -> Self;
    /// Runs the whole 32-byte blocks of a segment with AVX; returns how many bytes of `out`
    /// were written (0 without AVX).
    /// With `stream`, `out` is 32-byte aligned and the stores bypass the cache.
    fn avx(op: BinaryOp, x: Side, y: Side, out: &mut [u8], stream: bool) -> usize;
}

macro_rules! lane {
    ($t:ty, $avx:ident) => {
        impl Lane for $t {
            const SIZE: usize = size_of::<$t>();
            fn read(b: &[u8]) -> $t {
                <$t>::from_le_bytes(b.try_into().expect("one element"))
            }
            fn write(self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_le_bytes());
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn sub(self, y: $t) -> $t {
                self - y
            }
            fn mul(self, y: $t) -> $t {
                self * y
            }
            fn div(self, y: $t) -> $t {
                self / y
            }
            fn avx(op: BinaryOp, x: Side, y: Side, out: &mut [u8], stream: bool) -> usize {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx") {
                    return avx::run(op, x, y, out, stream, avx::$avx);
                }
                let _ = (op, x, y, out, stream);
                0
            }
        }
    };
}
lane!(f32, f32_blocks);
lane!(f64, f64_blocks);

/// NaN-propagating maximum; `x` between equal values (as `float.rs`).
fn maximum<T: Lane>(x: T, y: T) -> T {
    if x.is_nan() || y < x {
        x
    } else if y.is_nan() || x < y {
        y
    } else {
        x
    }
}

/// NaN-propagating minimum; `x` between equal values (as `float.rs`).
fn minimum<T: Lane>(x: T, y: T) -> T {
    if x.is_nan() || y > x {
        x
    } else if y.is_nan() || x > y {
        y
    } else {
        x
    }
}

/// `side` without its first `bytes` bytes.
fn skip(side: Side<'_>, bytes: usize) -> Side<'_> {
    match side {
        Side::Slice(b) => Side::Slice(&b[bytes..]),
        splat => splat,
    }
}

fn segment<T: Lane>(op: BinaryOp, x: Side, y: Side, out: &mut [u8], stream: bool) {
    // Short segments (small rows) are cheaper in the inlined portable loop than through the
    // AVX call's setup.
    if out.len() < SHORT_SEGMENT {
        return portable_op::<T>(op, x, y, out);
    }
    // Streaming stores need a 32-byte aligned output: a portable head gets there.
    let head = out.as_ptr().align_offset(32);
    let (stream, head) = if stream && head % T::SIZE == 0 { (true, head) } else { (false, 0) };
    portable_op::<T>(op, x, y, &mut out[..head]);
    let (x, y, out) = (skip(x, head), skip(y, head), &mut out[head..]);
    let done = T::avx(op, x, y, out, stream);
    portable_op::<T>(op, skip(x, done), skip(y, done), &mut out[done..]);
}

fn portable_op<T: Lane>(op: BinaryOp, x: Side, y: Side, out: &mut [u8]) {
    match op {
        BinaryOp::Add => portable(x, y, out, |a: T, b| a + b),
        BinaryOp::Subtract => portable(x, y, out, |a: T, b| a.sub(b)),
        BinaryOp::Multiply => portable(x, y, out, |a: T, b| a.mul(b)),
        BinaryOp::Divide => portable(x, y, out, |a: T, b| a.div(b)),
        BinaryOp::Maximum => portable(x, y, out, maximum::<T>),
        _ => portable(x, y, out, minimum::<T>),
    }
}

/// The portable loop (simple enough for the compiler to vectorise).
#[inline(always)]
fn portable<T: Lane>(x: Side, y: Side, out: &mut [u8], f: impl Fn(T, T) -> T) {
    let n = T::SIZE;
    match (x, y) {
        (Side::Slice(a), Side::Slice(b)) => {
            for ((o, a), b) in out.chunks_exact_mut(n).zip(a.chunks_exact(n)).zip(b.chunks_exact(n)) {
                f(T::read(a), T::read(b)).write(o);
            }
        }
        (Side::Slice(a), Side::Splat(b)) => {
            let b = T::read(b);
            for (o, a) in out.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
                f(T::read(a), b).write(o);
            }
        }
        (Side::Splat(a), Side::Slice(b)) => {
            let a = T::read(a);
            for (o, b) in out.chunks_exact_mut(n).zip(b.chunks_exact(n)) {
                f(a, T::read(b)).write(o);
            }
        }
        (Side::Splat(a), Side::Splat(b)) => {
            let v = f(T::read(a), T::read(b));
            for o in out.chunks_exact_mut(n) {
                v.write(o);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;

    use opspec_adapter::BinaryOp;

    use super::Side;

    /// A block kernel: `out[i] = x[i * x_step] op y[i * y_step]` for every whole 32-byte block
    /// `i` of `out` (a step of 0 repeats one block).
    /// With `stream` (and `out` 32-byte aligned) the stores are non-temporal; the caller fences.
    pub type Blocks = unsafe fn(BinaryOp, &[u8], usize, &[u8], usize, &mut [u8], bool);

    /// Runs `blocks` over the whole 32-byte blocks of `out`; returns the bytes written.
    /// The caller has checked that the CPU has AVX.
    pub fn run(op: BinaryOp, x: Side, y: Side, out: &mut [u8], stream: bool, blocks: Blocks) -> usize {
        assert!(!stream || out.as_ptr().align_offset(32) == 0, "streaming stores need alignment");
        let whole = out.len() / 32 * 32;
        if whole == 0 {
            return 0;
        }
        let (mut xb, mut yb) = ([0u8; 32], [0u8; 32]);
        let side = |s: Side<'_>, block: &mut [u8; 32]| -> (usize, *const u8) {
            match s {
                Side::Slice(b) => {
                    assert!(b.len() >= whole, "operand shorter than the output");
                    (32, b.as_ptr())
                }
                Side::Splat(e) => {
                    for c in block.chunks_exact_mut(e.len()) {
                        c.copy_from_slice(e);
                    }
                    (0, block.as_ptr())
                }
            }
        };
        let (xs, xp) = side(x, &mut xb);
        let (ys, yp) = side(y, &mut yb);
        // SAFETY: the caller detected AVX; each slice covers every block read (a slice is at
        // least `whole` bytes long, a splat is one 32-byte block read with step 0).
        unsafe {
            let x = std::slice::from_raw_parts(xp, if xs == 0 { 32 } else { whole });
            let y = std::slice::from_raw_parts(yp, if ys == 0 { 32 } else { whole });
            blocks(op, x, xs, y, ys, &mut out[..whole], stream);
        }
        whole
    }

    macro_rules! blocks {
        ($name:ident, $load:ident, $store:ident, $stream:ident, $add:ident, $sub:ident, $mul:ident, $div:ident,
         $max:ident, $min:ident, $cmp:ident, $and:ident, $blend:ident) => {
            /// The AVX block kernel (see [`Blocks`]). NaN and equal values follow `float.rs`:
            /// `max(y, x)` gives `x` when either is NaN or both are equal; the blend then
            /// takes `y` where only `y` is NaN.
            ///
            /// # Safety
            /// The CPU must have AVX; `x` and `y` must hold every block read; with `stream`,
            /// `out` must be 32-byte aligned.
            #[target_feature(enable = "avx")]
            pub unsafe fn $name(
                op: BinaryOp,
                x: &[u8],
                xs: usize,
                y: &[u8],
                ys: usize,
                out: &mut [u8],
                stream: bool,
            ) {
                macro_rules! each {
                    (|$a:ident, $b:ident| $body:expr) => {
                        if stream {
                            for i in 0..out.len() / 32 {
                                // SAFETY: block `i` of x and y lies inside them, and `out` is
                                // 32-byte aligned (caller's contract).
                                unsafe {
                                    let $a = $load(x.as_ptr().add(i * xs).cast());
                                    let $b = $load(y.as_ptr().add(i * ys).cast());
                                    $stream(out.as_mut_ptr().add(i * 32).cast(), $body);
                                }
                            }
                        } else {
                            for i in 0..out.len() / 32 {
                                // SAFETY: block `i` of x and y lies inside them (caller's
                                // contract); loadu/storeu accept any alignment.
                                unsafe {
                                    let $a = $load(x.as_ptr().add(i * xs).cast());
                                    let $b = $load(y.as_ptr().add(i * ys).cast());
                                    $store(out.as_mut_ptr().add(i * 32).cast(), $body);
                                }
                            }
                        }
                    };
                }
                match op {
                    BinaryOp::Add => each!(|a, b| $add(a, b)),
                    BinaryOp::Subtract => each!(|a, b| $sub(a, b)),
                    BinaryOp::Multiply => each!(|a, b| $mul(a, b)),
                    BinaryOp::Divide => each!(|a, b| $div(a, b)),
                    BinaryOp::Maximum => each!(|a, b| {
                        let only_b_nan = $and($cmp::<_CMP_ORD_Q>(a, a), $cmp::<_CMP_UNORD_Q>(b, b));
                        $blend($max(b, a), b, only_b_nan)
                    }),
                    _ => each!(|a, b| {
                        let only_b_nan = $and($cmp::<_CMP_ORD_Q>(a, a), $cmp::<_CMP_UNORD_Q>(b, b));
                        $blend($min(b, a), b, only_b_nan)
                    }),
                }
            }
        };
    }
    blocks!(
        f32_blocks,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_stream_ps,
        _mm256_add_ps,
        _mm256_sub_ps,
        _mm256_mul_ps,
        _mm256_div_ps,
        _mm256_max_ps,
        _mm256_min_ps,
        _mm256_cmp_ps,
        _mm256_and_ps,
        _mm256_blendv_ps
    );
    blocks!(
        f64_blocks,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_stream_pd,
        _mm256_add_pd,
        _mm256_sub_pd,
        _mm256_mul_pd,
        _mm256_div_pd,
        _mm256_max_pd,
        _mm256_min_pd,
        _mm256_cmp_pd,
        _mm256_and_pd,
        _mm256_blendv_pd
    );
}

/// The adapter's entry: computes `a op b` through [`binary_into`] when both operands are
/// unnamed, share a supported dtype, and each is dense (row-major, any offset) in one of the
/// [`Operand`] roles against the broadcast shape; `None` sends the caller to the general path.
pub(crate) fn binary_tensors(op: BinaryOp, a: &Tensor, b: &Tensor) -> Option<Result<Tensor, AdapterError>> {
    let dtype = a.dtype();
    if b.dtype() != dtype || !supports(op, dtype) || a.names().is_some() || b.names().is_some() {
        return None;
    }
    let shape = crate::broadcast::broadcast_shapes(a.shape(), b.shape()).ok()?;
    let total: usize = shape.iter().product();
    let row_len = shape.last().copied().unwrap_or(1).max(1);
    let (x, y) = (operand(a, total, row_len)?, operand(b, total, row_len)?);
    let mut out = vec![0u8; total * dtype.size()];
    binary_into(op, dtype, x, y, row_len, &mut out).then(|| Tensor::from_bytes(dtype, &shape, out))
}

/// The role of `t` (already known to broadcast to a shape of `total` elements in rows of
/// `row_len`), if its elements are dense in memory.
fn operand(t: &Tensor, total: usize, row_len: usize) -> Option<Operand<'_>> {
    let size = t.dtype().size();
    let numel = t.numel();
    let mut step = 1isize;
    for (&n, &s) in t.shape().iter().zip(t.strides()).rev() {
        if n != 1 && s != step {
            return None;
        }
        step *= n as isize;
    }
    let bytes = t.buffer().get(t.offset() * size..(t.offset() + numel) * size)?;
    Some(if numel == total {
        Operand::Dense(bytes)
    } else if numel == 1 {
        Operand::Scalar(bytes)
    } else if numel == row_len && t.shape().last() == Some(&row_len) {
        Operand::Row(bytes)
    } else if t.shape().last() == Some(&1) && numel * row_len == total {
        Operand::Column(bytes)
    } else {
        return None;
    })
}
