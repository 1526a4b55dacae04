//! Fast kernels for the fused operations in f32 and f64 on three dense operands of one shape:
//! `fused_mul_add` (a × b + c, one rounding) and `fused_add_mul` ((a + b) × c, two roundings).
//!
//! With AVX2 and FMA (detected at run time) the whole 32-byte blocks go through
//! `_mm256_fmadd_ps/pd` (or an add and a multiply); the rest, and other CPUs, take a portable
//! loop over the scalar per-element operations of `src/fused.rs` (compiled with FMA where the
//! CPU has it, so that `mul_add` is one instruction rather than a library call).
//! Outputs of [`PARALLEL_THRESHOLD`] bytes or more are split across rayon's
//! threads, outputs of [`STREAM_THRESHOLD`] bytes or more are written with non-temporal stores,
//! and the allocating form writes into uninitialized capacity (`output::written`).
//!
//! Results are bit-identical to `src/fused.rs` (NaN payloads aside, which the contract leaves
//! free): a fused multiply-add is exactly specified, and the sum and the product of
//! `fused_add_mul` are each IEEE operations rounded once.

use std::mem::MaybeUninit;

use opspec_adapter::{AdapterError, DType, Tensor, TernaryOp};

use crate::fast::{self, Operand, PARALLEL_THRESHOLD, PIECE, STREAM_THRESHOLD};
use crate::fused::CpuFused;
use crate::output;

/// True when [`ternary_into`] computes `op` in `dtype`.
pub fn supports(op: TernaryOp, dtype: DType) -> bool {
    matches!(op, TernaryOp::FusedMulAdd | TernaryOp::FusedAddMul) && matches!(dtype, DType::F32 | DType::F64)
}

/// Computes `out = op(a, b, c)` element by element into a caller-owned output; `a`, `b`, `c`
/// and `out` hold `dtype` elements as little-endian bytes.
///
/// Returns `false` (and leaves `out` untouched) when [`supports`] is false or when the four
/// lengths differ or are not a whole number of elements.
pub fn ternary_into(op: TernaryOp, dtype: DType, a: &[u8], b: &[u8], c: &[u8], out: &mut [u8]) -> bool {
    // SAFETY: the kernels write only results into `out`.
    ternary_into_uninit(op, dtype, a, b, c, unsafe { fast::as_uninit(out) })
}

/// [`ternary_into`] into an output that need not be initialized; every byte of `out` is
/// written when it returns `true`.
fn ternary_into_uninit(
    op: TernaryOp,
    dtype: DType,
    a: &[u8],
    b: &[u8],
    c: &[u8],
    out: &mut [MaybeUninit<u8>],
) -> bool {
    let n = out.len();
    if !supports(op, dtype) || !n.is_multiple_of(dtype.size()) || a.len() != n || b.len() != n || c.len() != n
    {
        return false;
    }
    let stream = n >= STREAM_THRESHOLD;
    fast::for_each_piece(out, PIECE, PARALLEL_THRESHOLD, |index, piece| {
        let at = index * PIECE..index * PIECE + piece.len();
        let (a, b, c) = (&a[at.clone()], &b[at.clone()], &c[at]);
        match dtype {
            DType::F32 => segment::<f32>(op, a, b, c, piece, stream),
            _ => segment::<f64>(op, a, b, c, piece, stream),
        }
    });
    true
}

/// The adapter's entry for three tensors already checked to share one shape and one dtype:
/// computes through [`ternary_into`] when the dtype is supported and every operand is dense
/// (row-major, any offset); `None` sends the caller to the scalar path.
pub(crate) fn ternary_tensors(
    op: TernaryOp,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
) -> Option<Result<Tensor, AdapterError>> {
    let dtype = a.dtype();
    if !supports(op, dtype) {
        return None;
    }
    let (x, y, z) = (dense(a)?, dense(b)?, dense(c)?);
    // SAFETY: ternary_into_uninit writes every byte of its output when it returns true.
    let out = unsafe { output::written(x.len(), |out| ternary_into_uninit(op, dtype, x, y, z, out)) }?;
    Some(Tensor::from_bytes(dtype, a.shape(), out))
}

/// Whether [`ternary_tensors`] computes `op` on these operands (of one shape and dtype) in
/// place, without gathering them first.
pub(crate) fn takes(op: TernaryOp, operands: [&Tensor; 3]) -> bool {
    supports(op, operands[0].dtype()) && operands.iter().all(|t| dense(t).is_some())
}

/// The bytes of `t`'s elements if they are dense in memory (row-major, any offset).
fn dense(t: &Tensor) -> Option<&[u8]> {
    match fast::operand(t, t.numel(), 1)? {
        Operand::Dense(bytes) => Some(bytes),
        _ => None,
    }
}

/// One piece of the output: a portable head up to 32-byte alignment when streaming, the AVX
/// blocks, then the portable tail.
fn segment<T: Lane>(op: TernaryOp, a: &[u8], b: &[u8], c: &[u8], out: &mut [MaybeUninit<u8>], stream: bool) {
    let head = out.as_ptr().align_offset(32);
    let (stream, head) =
        if stream && head.is_multiple_of(T::SIZE) && head <= out.len() { (true, head) } else { (false, 0) };
    portable::<T>(op, &a[..head], &b[..head], &c[..head], &mut out[..head]);
    let (a, b, c, out) = (&a[head..], &b[head..], &c[head..], &mut out[head..]);
    let done = T::avx(op, a, b, c, out, stream);
    portable::<T>(op, &a[done..], &b[done..], &c[done..], &mut out[done..]);
    #[cfg(target_arch = "x86_64")]
    if stream {
        // Orders this piece's non-temporal stores before whatever follows the kernel.
        // SAFETY: SSE is part of the x86_64 baseline.
        unsafe { std::arch::x86_64::_mm_sfence() };
    }
}

/// f32 or f64 as little-endian bytes.
trait Lane: CpuFused {
    const SIZE: usize;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [MaybeUninit<u8>]);
    /// Runs the whole 32-byte blocks of `out` with AVX2 and FMA; returns how many bytes were
    /// written (0 on CPUs without them). With `stream`, `out` is 32-byte aligned and the
    /// stores bypass the cache.
    fn avx(op: TernaryOp, a: &[u8], b: &[u8], c: &[u8], out: &mut [MaybeUninit<u8>], stream: bool) -> usize;
}

macro_rules! lane {
    ($t:ty, $blocks:ident) => {
        impl Lane for $t {
            const SIZE: usize = size_of::<$t>();
            #[inline(always)]
            fn read(b: &[u8]) -> $t {
                <$t>::from_le_bytes(b.try_into().expect("one element"))
            }
            #[inline(always)]
            fn write(self, b: &mut [MaybeUninit<u8>]) {
                b.write_copy_of_slice(&self.to_le_bytes());
            }
            fn avx(
                op: TernaryOp,
                a: &[u8],
                b: &[u8],
                c: &[u8],
                out: &mut [MaybeUninit<u8>],
                stream: bool,
            ) -> usize {
                #[cfg(target_arch = "x86_64")]
                return avx::run(op, a, b, c, out, stream, avx::$blocks);
                #[cfg(not(target_arch = "x86_64"))]
                {
                    let _ = (op, a, b, c, out, stream);
                    0
                }
            }
        }
    };
}
lane!(f32, f32_blocks);
lane!(f64, f64_blocks);

/// The portable loop, with hardware FMA where the CPU has it.
fn portable<T: Lane>(op: TernaryOp, a: &[u8], b: &[u8], c: &[u8], out: &mut [MaybeUninit<u8>]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (detected above).
        return unsafe { portable_fma::<T>(op, a, b, c, out) };
    }
    each::<T>(op, a, b, c, out)
}

/// [`each`] compiled with FMA, so that `mul_add` is one instruction.
///
/// # Safety
/// The CPU must have FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn portable_fma<T: Lane>(op: TernaryOp, a: &[u8], b: &[u8], c: &[u8], out: &mut [MaybeUninit<u8>]) {
    each::<T>(op, a, b, c, out)
}

#[inline(always)]
fn each<T: Lane>(op: TernaryOp, a: &[u8], b: &[u8], c: &[u8], out: &mut [MaybeUninit<u8>]) {
    let n = T::SIZE;
    let abc = a.chunks_exact(n).zip(b.chunks_exact(n)).zip(c.chunks_exact(n));
    for (o, ((x, y), z)) in out.chunks_exact_mut(n).zip(abc) {
        T::ternary(op, T::read(x), T::read(y), T::read(z)).write(o);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    use opspec_adapter::TernaryOp;

    /// A block kernel: `out[i] = op(a[i], b[i], c[i])` over every whole 32-byte block of `out`.
    pub type Blocks = unsafe fn(TernaryOp, &[u8], &[u8], &[u8], &mut [MaybeUninit<u8>], bool);

    /// Runs `blocks` over the whole 32-byte blocks of `out` when the CPU has AVX2 and FMA;
    /// returns the bytes written (0 otherwise). With `stream`, `out` must be 32-byte aligned.
    pub fn run(
        op: TernaryOp,
        a: &[u8],
        b: &[u8],
        c: &[u8],
        out: &mut [MaybeUninit<u8>],
        stream: bool,
        blocks: Blocks,
    ) -> usize {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            return 0;
        }
        assert!(!stream || out.as_ptr().align_offset(32) == 0, "streaming stores need alignment");
        let whole = out.len() / 32 * 32;
        assert!(a.len() >= whole && b.len() >= whole && c.len() >= whole, "operands shorter than out");
        // SAFETY: AVX2 and FMA were detected above; `a`, `b` and `c` hold every block of
        // `out[..whole]` (asserted); with `stream`, `out` is 32-byte aligned (asserted).
        unsafe { blocks(op, a, b, c, &mut out[..whole], stream) };
        whole
    }

    macro_rules! blocks {
        ($name:ident, $load:ident, $store:ident, $stream:ident, $fmadd:ident, $add:ident, $mul:ident) => {
            /// The AVX2 + FMA block kernel (see [`Blocks`]).
            ///
            /// # Safety
            /// The CPU must have AVX2 and FMA; `a`, `b` and `c` must be at least as long as
            /// `out`; with `stream`, `out` must be 32-byte aligned.
            #[target_feature(enable = "avx2,fma")]
            pub unsafe fn $name(
                op: TernaryOp,
                a: &[u8],
                b: &[u8],
                c: &[u8],
                out: &mut [MaybeUninit<u8>],
                stream: bool,
            ) {
                macro_rules! each {
                    (|$x:ident, $y:ident, $z:ident| $body:expr) => {
                        for i in 0..out.len() / 32 {
                            // SAFETY: block `i` lies inside `a`, `b`, `c` and `out` (caller's
                            // contract); loadu/storeu accept any alignment, and `out` is
                            // 32-byte aligned when streaming.
                            unsafe {
                                let $x = $load(a.as_ptr().add(i * 32).cast());
                                let $y = $load(b.as_ptr().add(i * 32).cast());
                                let $z = $load(c.as_ptr().add(i * 32).cast());
                                let r = $body;
                                let o = out.as_mut_ptr().add(i * 32).cast();
                                if stream { $stream(o, r) } else { $store(o, r) }
                            }
                        }
                    };
                }
                match op {
                    TernaryOp::FusedMulAdd => each!(|x, y, z| $fmadd(x, y, z)),
                    _ => each!(|x, y, z| $mul($add(x, y), z)),
                }
            }
        };
    }
    blocks!(
        f32_blocks,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_stream_ps,
        _mm256_fmadd_ps,
        _mm256_add_ps,
        _mm256_mul_ps
    );
    blocks!(
        f64_blocks,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_stream_pd,
        _mm256_fmadd_pd,
        _mm256_add_pd,
        _mm256_mul_pd
    );
}
