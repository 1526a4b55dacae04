//! The AVX-512 (F/BW/VL) block kernels: `avx.rs`'s operations 64 bytes at a time over each row,
//! with masked steps up to the output's first 64-byte boundary and for the last partial block,
//! so that they write every byte; the whole blocks are stored aligned to the output's cache
//! lines, with non-temporal stores when asked.
//!
//! The arithmetic is `avx.rs`'s, lane for lane: f16 widens and narrows with the 512-bit forms
//! of the F16C conversions (`vcvtph2ps`/`vcvtps2ph`, round to nearest even), bf16 narrows with
//! the same integer round-to-nearest-even (the AVX512-BF16 `vcvtneps2bf16` flushes subnormals,
//! which `half` does not), and integers wrap. AVX512-FP16 arithmetic is not used.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use opspec_adapter::BinaryOp;

use super::avx::{Feed, Walk, row_start};

/// Low 32 bytes of a 64-byte vector, as a 32-bit lane mask.
#[cfg(feature = "fault-injection")]
const HALF: __mmask16 = 0x00ff;

/// The first `n` bytes of a 64-byte vector, as a byte mask.
fn first(n: usize) -> __mmask64 {
    if n >= 64 { !0 } else { (1 << n) - 1 }
}

/// The loop of every kernel: each row as a masked block up to the output's next 64-byte
/// boundary, whole 64-byte blocks (non-temporal with `stream`), and a masked last block; returns
/// the bytes written per row (all of them). A splat is one 64-byte block read for every block.
///
/// # Safety
/// The CPU must have AVX-512 F/BW and whatever `f` uses; `x` and `y` must cover every row of
/// `walk` (see `avx::Feed`); `out` holds the rows.
#[inline(always)]
unsafe fn each(
    x: Feed,
    y: Feed,
    walk: Walk,
    out: &mut [MaybeUninit<u8>],
    stream: bool,
    f: impl Fn(__m512i, __m512i) -> __m512i,
) -> usize {
    let (mut xb, mut yb) = ([0u8; 64], [0u8; 64]);
    for r in 0..walk.rows {
        // SAFETY: the feeds cover row `r` (caller's contract); the steps per 32 bytes become
        // 1 (a slice) or 0 (a splat) per byte.
        let ((xp, xs), (yp, ys)) = unsafe { (row_start(x, r, &mut xb), row_start(y, r, &mut yb)) };
        let (xs, ys) = (xs / 32, ys / 32);
        let op = out[r * walk.row..].as_mut_ptr().cast::<u8>();
        // Elements are whole in every block when the row start is element-aligned.
        let aligned = (op as usize).is_multiple_of(walk.size);
        assert!(aligned || !stream, "streaming stores need element-aligned rows");
        let head = if aligned { op.align_offset(64).min(walk.row) } else { 0 };
        let blocks = (walk.row - head) / 64;
        let tail = (walk.row - head) % 64;
        // SAFETY (all three steps): the bytes `at .. at + 64` of x, y and the row that a step
        // touches lie inside them, or the masked loads and stores leave those outside alone
        // (the copy writes only the first `n` bytes); loadu and storeu accept any alignment,
        // and the streamed blocks start at a 64-byte boundary of the output.
        // (A macro, not a closure: the intrinsics stay in the caller's target features.)
        macro_rules! partial {
            ($at:expr, $n:expr) => {
                unsafe {
                    let a = _mm512_maskz_loadu_epi8(first($n), xp.add($at * xs).cast());
                    let b = _mm512_maskz_loadu_epi8(first($n), yp.add($at * ys).cast());
                    if stream {
                        // A masked store into a line outside the cache measured slow: column
                        // broadcasts at 2^24 f32 ran at 0.149–0.169 ns/element with the bytes
                        // copied out of a stack block, 0.197–0.213 with masked stores
                        // (`examples/layout_speed.rs 24 10`).
                        let mut block = [0u8; 64];
                        _mm512_storeu_si512(block.as_mut_ptr().cast(), f(a, b));
                        std::ptr::copy_nonoverlapping(block.as_ptr(), op.add($at), $n);
                    } else {
                        _mm512_mask_storeu_epi8(op.add($at).cast(), first($n), f(a, b));
                    }
                }
            };
        }
        if head > 0 {
            partial!(0, head);
        }
        let body = |i: usize| head + i * 64;
        if stream {
            // The injected fault: each row's last whole block stores only its first 32 bytes,
            // and the row's tail is skipped.
            #[cfg(feature = "fault-injection")]
            let (blocks, short) = match blocks {
                b if b > 0 && crate::fault::active(crate::fault::Fault::Stream) => (b - 1, true),
                b => (b, false),
            };
            for i in 0..blocks {
                unsafe {
                    let a = _mm512_loadu_si512(xp.add(body(i) * xs).cast());
                    let b = _mm512_loadu_si512(yp.add(body(i) * ys).cast());
                    _mm512_stream_si512(op.add(body(i)).cast(), f(a, b));
                }
            }
            #[cfg(feature = "fault-injection")]
            if short {
                // SAFETY: as above, for the block after the loop's last one.
                unsafe {
                    let a = _mm512_loadu_si512(xp.add(body(blocks) * xs).cast());
                    let b = _mm512_loadu_si512(yp.add(body(blocks) * ys).cast());
                    _mm512_mask_storeu_epi32(op.add(body(blocks)).cast(), HALF, f(a, b));
                }
                continue;
            }
        } else {
            for i in 0..blocks {
                unsafe {
                    let a = _mm512_loadu_si512(xp.add(body(i) * xs).cast());
                    let b = _mm512_loadu_si512(yp.add(body(i) * ys).cast());
                    _mm512_storeu_si512(op.add(body(i)).cast(), f(a, b));
                }
            }
        }
        if tail > 0 {
            partial!(body(blocks), tail);
        }
    }
    walk.row
}

/// The f32 (`ps`) and f64 (`pd`) operations under one set of names, for `float_blocks!`.
macro_rules! float_ops {
    ($($module:ident: $add:ident, $sub:ident, $mul:ident, $div:ident, $max:ident, $min:ident,
       $cmp:ident, $blend:ident;)*) => {$(
        mod $module {
            pub use std::arch::x86_64::{
                $add as add, $blend as blend, $cmp as cmp, $div as div, $max as max, $min as min,
                $mul as mul, $sub as sub,
            };
        }
    )*};
}
float_ops! {
    ps: _mm512_add_ps, _mm512_sub_ps, _mm512_mul_ps, _mm512_div_ps, _mm512_max_ps, _mm512_min_ps,
        _mm512_cmp_ps_mask, _mm512_mask_blend_ps;
    pd: _mm512_add_pd, _mm512_sub_pd, _mm512_mul_pd, _mm512_div_pd, _mm512_max_pd, _mm512_min_pd,
        _mm512_cmp_pd_mask, _mm512_mask_blend_pd;
}

/// Defines the block kernel `$name` (see `avx::Blocks`) for a float type whose 64-byte blocks
/// `$unpack` into one or two vector pairs of its compute type (operations `$v`), computed and
/// `$pack`ed back. NaN and equal values as in `avx.rs`: `max(y, x)` gives `x` when either is
/// NaN or both are equal, then a blend takes `y` where only `y` is NaN.
macro_rules! float_blocks {
    ($name:ident, $unpack:ident, $pack:ident, $v:ident) => {
        /// A float block kernel (see `avx::Blocks`).
        ///
        /// # Safety
        /// The CPU must have AVX-512 F/BW/VL; see `avx::Blocks` and `each` for the operands.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        pub unsafe fn $name(
            op: BinaryOp,
            x: Feed,
            y: Feed,
            walk: Walk,
            out: &mut [MaybeUninit<u8>],
            stream: bool,
        ) -> usize {
            let only_b_nan = |a, b| $v::cmp::<_CMP_ORD_Q>(a, a) & $v::cmp::<_CMP_UNORD_Q>(b, b);
            macro_rules! go {
                ($f:expr) => {
                    // SAFETY: the caller's contract is `each`'s.
                    unsafe { each(x, y, walk, out, stream, |a, b| $pack($unpack(a, b), $f)) }
                };
            }
            match op {
                BinaryOp::Add => go!(|a, b| $v::add(a, b)),
                BinaryOp::Subtract => go!(|a, b| $v::sub(a, b)),
                BinaryOp::Multiply => go!(|a, b| $v::mul(a, b)),
                BinaryOp::Divide => go!(|a, b| $v::div(a, b)),
                BinaryOp::Maximum => go!(|a, b| $v::blend(only_b_nan(a, b), $v::max(b, a), b)),
                _ => go!(|a, b| $v::blend(only_b_nan(a, b), $v::min(b, a), b)),
            }
        }
    };
}

float_blocks!(f32_blocks, f32_unpack, f32_pack, ps);
float_blocks!(f64_blocks, f64_unpack, f64_pack, pd);
float_blocks!(f16_blocks, f16_unpack, f16_pack, ps);
float_blocks!(bf16_blocks, bf16_unpack, bf16_pack, ps);

/// One 64-byte block of each operand as one vector pair.
type Pair<V> = [(V, V); 1];

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn f32_unpack(a: __m512i, b: __m512i) -> Pair<__m512> {
    [(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))]
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn f32_pack(v: Pair<__m512>, f: impl Fn(__m512, __m512) -> __m512) -> __m512i {
    _mm512_castps_si512(f(v[0].0, v[0].1))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn f64_unpack(a: __m512i, b: __m512i) -> Pair<__m512d> {
    [(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b))]
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn f64_pack(v: Pair<__m512d>, f: impl Fn(__m512d, __m512d) -> __m512d) -> __m512i {
    _mm512_castpd_si512(f(v[0].0, v[0].1))
}

/// Thirty-two 16-bit floats of each operand as two f32 vector pairs.
type Halves = [(__m512, __m512); 2];

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn f16_unpack(a: __m512i, b: __m512i) -> Halves {
    let wide = |v: __m512i| {
        (_mm512_cvtph_ps(_mm512_castsi512_si256(v)), _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(v)))
    };
    let ((a0, a1), (b0, b1)) = (wide(a), wide(b));
    [(a0, b0), (a1, b1)]
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn f16_pack(v: Halves, f: impl Fn(__m512, __m512) -> __m512) -> __m512i {
    let f = |a, b| nan_first(f(a, b), a);
    let lo = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(f(v[0].0, v[0].1));
    let hi = _mm512_cvtps_ph::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(f(v[1].0, v[1].1));
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// `r` where `a` is a number, `a` where it is NaN (see `avx.rs`'s `nan_first`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn nan_first(r: __m512, a: __m512) -> __m512 {
    _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, a), r, a)
}

/// bf16 to f32 is a 16-bit shift, interleaved with zeros within each 128-bit lane as in
/// `avx.rs`; `bf16_pack`'s in-lane pack undoes it.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn bf16_unpack(a: __m512i, b: __m512i) -> Halves {
    let z = _mm512_setzero_si512();
    let lo = |v| _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, v));
    let hi = |v| _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, v));
    [(lo(a), lo(b)), (hi(a), hi(b))]
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn bf16_pack(v: Halves, f: impl Fn(__m512, __m512) -> __m512) -> __m512i {
    let f = |a, b| nan_first(f(a, b), a);
    _mm512_packus_epi32(bf16_round(f(v[0].0, v[0].1)), bf16_round(f(v[1].0, v[1].1)))
}

/// `half::bf16::from_f32` in each 32-bit lane (the result in its low 16 bits), as `avx.rs`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn bf16_round(v: __m512) -> __m512i {
    let bits = _mm512_castps_si512(v);
    let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(bits), _mm512_set1_epi32(1));
    let biased = _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), lsb);
    let rounded = _mm512_srli_epi32::<16>(biased);
    let quiet = _mm512_or_si512(_mm512_srli_epi32::<16>(bits), _mm512_set1_epi32(0x40));
    _mm512_mask_blend_epi32(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v), rounded, quiet)
}

/// Defines the integer block kernel `$name` (see `avx::Blocks`) from its five operations.
macro_rules! int_blocks {
    ($name:ident, $add:expr, $sub:expr, $mul:expr, $max:expr, $min:expr) => {
        /// An integer block kernel (see `avx::Blocks`): wrapping add, subtract and multiply,
        /// maximum and minimum.
        ///
        /// # Safety
        /// The CPU must have AVX-512 F/BW/VL; see `avx::Blocks` and `each` for the operands.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        pub unsafe fn $name(
            op: BinaryOp,
            x: Feed,
            y: Feed,
            walk: Walk,
            out: &mut [MaybeUninit<u8>],
            stream: bool,
        ) -> usize {
            // SAFETY (every arm): the caller's contract is `each`'s.
            match op {
                BinaryOp::Add => unsafe { each(x, y, walk, out, stream, |a, b| $add(a, b)) },
                BinaryOp::Subtract => unsafe { each(x, y, walk, out, stream, |a, b| $sub(a, b)) },
                BinaryOp::Multiply => unsafe { each(x, y, walk, out, stream, |a, b| $mul(a, b)) },
                BinaryOp::Maximum => unsafe { each(x, y, walk, out, stream, |a, b| $max(a, b)) },
                _ => unsafe { each(x, y, walk, out, stream, |a, b| $min(a, b)) },
            }
        }
    };
}

int_blocks!(i8_blocks, _mm512_add_epi8, _mm512_sub_epi8, mullo_epi8, _mm512_max_epi8, _mm512_min_epi8);
int_blocks!(u8_blocks, _mm512_add_epi8, _mm512_sub_epi8, mullo_epi8, _mm512_max_epu8, _mm512_min_epu8);
int_blocks!(
    i16_blocks,
    _mm512_add_epi16,
    _mm512_sub_epi16,
    _mm512_mullo_epi16,
    _mm512_max_epi16,
    _mm512_min_epi16
);
int_blocks!(
    u16_blocks,
    _mm512_add_epi16,
    _mm512_sub_epi16,
    _mm512_mullo_epi16,
    _mm512_max_epu16,
    _mm512_min_epu16
);
int_blocks!(
    i32_blocks,
    _mm512_add_epi32,
    _mm512_sub_epi32,
    _mm512_mullo_epi32,
    _mm512_max_epi32,
    _mm512_min_epi32
);
int_blocks!(
    u32_blocks,
    _mm512_add_epi32,
    _mm512_sub_epi32,
    _mm512_mullo_epi32,
    _mm512_max_epu32,
    _mm512_min_epu32
);
int_blocks!(i64_blocks, _mm512_add_epi64, _mm512_sub_epi64, mullo_epi64, _mm512_max_epi64, _mm512_min_epi64);
int_blocks!(u64_blocks, _mm512_add_epi64, _mm512_sub_epi64, mullo_epi64, _mm512_max_epu64, _mm512_min_epu64);

/// The low 8 bits of each byte product, from 16-bit products as in `avx.rs`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn mullo_epi8(a: __m512i, b: __m512i) -> __m512i {
    let low = _mm512_set1_epi16(0xff);
    let even = _mm512_and_si512(_mm512_mullo_epi16(a, b), low);
    let odd = _mm512_mullo_epi16(_mm512_srli_epi16::<8>(a), _mm512_srli_epi16::<8>(b));
    _mm512_or_si512(even, _mm512_slli_epi16::<8>(odd))
}

/// The low 64 bits of each product from 32×32→64-bit multiplies, as in `avx.rs`
/// (`vpmullq` needs AVX512-DQ).
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn mullo_epi64(a: __m512i, b: __m512i) -> __m512i {
    let low = _mm512_mul_epu32(a, b);
    let cross = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64::<32>(a), b),
        _mm512_mul_epu32(a, _mm512_srli_epi64::<32>(b)),
    );
    _mm512_add_epi64(low, _mm512_slli_epi64::<32>(cross))
}
