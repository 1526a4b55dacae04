//! The AVX/AVX2 block kernels: 32 bytes of output per step, loaded and stored unaligned, or
//! with non-temporal stores into an aligned output.
//!
//! f16 widens to f32 through F16C and narrows with round-to-nearest-even; bf16 widens by a
//! 16-bit shift and narrows with an integer round-to-nearest-even, quieting NaNs and keeping
//! their payload's top bits, exactly as the `half` crate does. Integers wrap; the products and
//! 64-bit comparisons that AVX2 lacks are built from the instructions it has.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use opspec_adapter::BinaryOp;

use super::Operand;

/// One operand of a block kernel call (see [`Blocks`]).
#[derive(Clone, Copy)]
pub enum Feed {
    /// Read block by block from `ptr` along each row; the next row's start is `row` bytes on
    /// (the output's row for a dense operand, 0 for a row repeated down the output).
    Slice { ptr: *const u8, row: usize },
    /// One element of `size` bytes repeated along each row: row `r`'s at `ptr + r · step`
    /// (`step` is `size` for a column, 0 for a single element).
    Splat { ptr: *const u8, size: usize, step: usize },
}

/// The rows of a block kernel call: `rows` rows of `row` bytes, back to back in the output,
/// of elements of `size` bytes.
#[derive(Clone, Copy)]
pub struct Walk {
    pub rows: usize,
    pub row: usize,
    pub size: usize,
}

/// A block kernel (this file's, or `avx512.rs`'s): `out = x op y` over the rows of a [`Walk`].
/// This file's kernels write the whole 32-byte blocks from each row's start and return their
/// bytes per row; `avx512.rs`'s write every byte of each row and return `walk.row`. With
/// `stream` the stores are non-temporal (the caller fences): this file's kernels take only rows
/// that start 32-byte aligned, `avx512.rs`'s rows that start element-aligned (they assert it).
pub type Blocks = unsafe fn(BinaryOp, Feed, Feed, Walk, &mut [MaybeUninit<u8>], bool) -> usize;

/// Runs `blocks` over `rows` rows of `row` bytes (`out` holds them, back to back) with the
/// operands in the roles of `x` and `y` (a [`Operand::Dense`] one covering the rows, a
/// [`Operand::Column`] one holding their elements); returns the bytes written from each row's
/// start. The caller has checked that the CPU has the features `blocks` needs; for `stream`,
/// see [`Blocks`].
pub fn run(
    op: BinaryOp,
    x: Operand,
    y: Operand,
    walk: Walk,
    out: &mut [MaybeUninit<u8>],
    stream: bool,
    blocks: Blocks,
) -> usize {
    assert_eq!(out.len(), walk.rows * walk.row, "the output holds the rows");
    let feed = |o: Operand| match o {
        Operand::Dense(s) => {
            assert!(s.len() >= out.len(), "operand shorter than the output");
            Feed::Slice { ptr: s.as_ptr(), row: walk.row }
        }
        Operand::Row(s) => {
            assert!(s.len() >= walk.row, "row operand shorter than a row");
            Feed::Slice { ptr: s.as_ptr(), row: 0 }
        }
        Operand::Column(s) => {
            assert!(s.len() >= walk.rows * walk.size, "column shorter than the rows");
            Feed::Splat { ptr: s.as_ptr(), size: walk.size, step: walk.size }
        }
        Operand::Scalar(s) => {
            assert_eq!(s.len(), walk.size, "one element");
            Feed::Splat { ptr: s.as_ptr(), size: walk.size, step: 0 }
        }
    };
    let (x, y) = (feed(x), feed(y));
    // SAFETY: the caller detected the kernel's features; each feed covers every row read (the
    // assertions above), and `out` holds the rows.
    unsafe { blocks(op, x, y, walk, out, stream) }
}

/// Fills `block` with copies of the element `e`: eight bytes at a time for the element sizes
/// (a copy per element of a length known only at run time costs a `memcpy` call each, which
/// showed in the column broadcasts, one splat per row).
fn splat(e: &[u8], block: &mut [u8; 64]) {
    let word = match *e {
        [b] => u64::from(b) * 0x0101_0101_0101_0101,
        [b0, b1] => u64::from(u16::from_le_bytes([b0, b1])) * 0x0001_0001_0001_0001,
        [b0, b1, b2, b3] => u64::from(u32::from_le_bytes([b0, b1, b2, b3])) * 0x0000_0001_0000_0001,
        [b0, b1, b2, b3, b4, b5, b6, b7] => u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
        _ => {
            for c in block.chunks_exact_mut(e.len()) {
                c.copy_from_slice(e);
            }
            return;
        }
    };
    for c in block.chunks_exact_mut(8) {
        c.copy_from_slice(&word.to_le_bytes());
    }
}

/// Row `r`'s start of `feed` and its step per 32-byte block (32, or 0 for a splat, which is
/// written into `block`: every row for a column, the first row only for a single element).
///
/// # Safety
/// `feed` must cover row `r` (see [`Feed`]).
#[inline(always)]
pub(super) unsafe fn row_start(feed: Feed, r: usize, block: &mut [u8; 64]) -> (*const u8, usize) {
    match feed {
        // SAFETY: row `r` lies inside the operand (caller's contract).
        Feed::Slice { ptr, row } => (unsafe { ptr.add(r * row) }, 32),
        Feed::Splat { ptr, size, step } => {
            if r == 0 || step != 0 {
                // SAFETY: as above, for row `r`'s element.
                splat(unsafe { std::slice::from_raw_parts(ptr.add(r * step), size) }, block);
            }
            (block.as_ptr(), 0)
        }
    }
}

/// The loop of every kernel: in each row, `out`'s whole 32-byte block `i` is `f(x's block i,
/// y's block i)` (a splat's one block for every `i`); returns the bytes written per row.
///
/// # Safety
/// The CPU must have AVX and whatever `f` uses; `x` and `y` must cover every row of `walk`;
/// `out` holds the rows.
#[inline(always)]
unsafe fn each(
    x: Feed,
    y: Feed,
    walk: Walk,
    out: &mut [MaybeUninit<u8>],
    stream: bool,
    f: impl Fn(__m256i, __m256i) -> __m256i,
) -> usize {
    let blocks = walk.row / 32;
    let (mut xb, mut yb) = ([0u8; 64], [0u8; 64]);
    for r in 0..walk.rows {
        // SAFETY: the feeds cover row `r` (caller's contract).
        let ((xp, xs), (yp, ys)) = unsafe { (row_start(x, r, &mut xb), row_start(y, r, &mut yb)) };
        let op = out[r * walk.row..].as_mut_ptr();
        if stream {
            assert!(op.align_offset(32) == 0, "streaming stores need 32-byte aligned rows");
            // The injected fault: the last block is not stored.
            #[cfg(feature = "fault-injection")]
            let blocks = if crate::fault::active(crate::fault::Fault::Stream) {
                blocks.saturating_sub(1)
            } else {
                blocks
            };
            for i in 0..blocks {
                // SAFETY: block `i` of x, y and the row lies inside them, and `out` is 32-byte
                // aligned (caller's contract).
                unsafe {
                    let a = _mm256_loadu_si256(xp.add(i * xs).cast());
                    let b = _mm256_loadu_si256(yp.add(i * ys).cast());
                    _mm256_stream_si256(op.add(i * 32).cast(), f(a, b));
                }
            }
        } else {
            for i in 0..blocks {
                // SAFETY: block `i` of x, y and the row lies inside them (caller's contract);
                // loadu/storeu accept any alignment.
                unsafe {
                    let a = _mm256_loadu_si256(xp.add(i * xs).cast());
                    let b = _mm256_loadu_si256(yp.add(i * ys).cast());
                    _mm256_storeu_si256(op.add(i * 32).cast(), f(a, b));
                }
            }
        }
    }
    blocks * 32
}

/// The f32 (`ps`) and f64 (`pd`) operations under one set of names, for `float_blocks!`.
macro_rules! float_ops {
    ($($module:ident: $add:ident, $sub:ident, $mul:ident, $div:ident, $max:ident, $min:ident, $cmp:ident,
       $and:ident, $blend:ident;)*) => {$(
        mod $module {
            pub use std::arch::x86_64::{
                $add as add, $and as and, $blend as blend, $cmp as cmp, $div as div, $max as max,
                $min as min, $mul as mul, $sub as sub,
            };
        }
    )*};
}
float_ops! {
    ps: _mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps, _mm256_div_ps, _mm256_max_ps, _mm256_min_ps,
        _mm256_cmp_ps, _mm256_and_ps, _mm256_blendv_ps;
    pd: _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_div_pd, _mm256_max_pd, _mm256_min_pd,
        _mm256_cmp_pd, _mm256_and_pd, _mm256_blendv_pd;
}

/// Defines the block kernel `$name` (see [`Blocks`]) for a float type whose 32-byte blocks
/// `$unpack` into one or two vector pairs of its compute type (operations `$v`), computed and
/// `$pack`ed back. NaN and equal values follow `float.rs`: `max(y, x)` gives `x` when either
/// is NaN or both are equal, then a blend takes `y` where only `y` is NaN.
macro_rules! float_blocks {
    ($name:ident, $features:literal, $unpack:ident, $pack:ident, $v:ident) => {
        /// A float block kernel (see [`Blocks`]).
        ///
        /// # Safety
        /// The CPU must have the enabled features; see [`Blocks`] and `each` for the operands.
        #[target_feature(enable = $features)]
        pub unsafe fn $name(
            op: BinaryOp,
            x: Feed,
            y: Feed,
            walk: Walk,
            out: &mut [MaybeUninit<u8>],
            stream: bool,
        ) -> usize {
            let only_b_nan = |a, b| $v::and($v::cmp::<_CMP_ORD_Q>(a, a), $v::cmp::<_CMP_UNORD_Q>(b, b));
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
                BinaryOp::Maximum => go!(|a, b| $v::blend($v::max(b, a), b, only_b_nan(a, b))),
                _ => go!(|a, b| $v::blend($v::min(b, a), b, only_b_nan(a, b))),
            }
        }
    };
}

float_blocks!(f32_blocks, "avx", f32_unpack, f32_pack, ps);
float_blocks!(f64_blocks, "avx", f64_unpack, f64_pack, pd);
float_blocks!(f16_blocks, "avx,f16c", f16_unpack, f16_pack, ps);
float_blocks!(bf16_blocks, "avx2", bf16_unpack, bf16_pack, ps);

/// One 32-byte block of each operand as one vector pair.
type Pair<V> = [(V, V); 1];

#[target_feature(enable = "avx")]
fn f32_unpack(a: __m256i, b: __m256i) -> Pair<__m256> {
    [(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))]
}

#[target_feature(enable = "avx")]
fn f32_pack(v: Pair<__m256>, f: impl Fn(__m256, __m256) -> __m256) -> __m256i {
    _mm256_castps_si256(f(v[0].0, v[0].1))
}

#[target_feature(enable = "avx")]
fn f64_unpack(a: __m256i, b: __m256i) -> Pair<__m256d> {
    [(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b))]
}

#[target_feature(enable = "avx")]
fn f64_pack(v: Pair<__m256d>, f: impl Fn(__m256d, __m256d) -> __m256d) -> __m256i {
    _mm256_castpd_si256(f(v[0].0, v[0].1))
}

/// Sixteen 16-bit floats of each operand as two f32 vector pairs (low 8, high 8 elements).
type Halves = [(__m256, __m256); 2];

#[target_feature(enable = "avx,f16c")]
fn f16_unpack(a: __m256i, b: __m256i) -> Halves {
    let wide = |v: __m256i| {
        (_mm256_cvtph_ps(_mm256_castsi256_si128(v)), _mm256_cvtph_ps(_mm256_extractf128_si256::<1>(v)))
    };
    let ((a0, a1), (b0, b1)) = (wide(a), wide(b));
    [(a0, b0), (a1, b1)]
}

#[target_feature(enable = "avx,f16c")]
fn f16_pack(v: Halves, f: impl Fn(__m256, __m256) -> __m256) -> __m256i {
    let f = |a, b| nan_first(f(a, b), a);
    let lo = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(f(v[0].0, v[0].1));
    let hi = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(f(v[1].0, v[1].1));
    _mm256_set_m128i(hi, lo)
}

/// `r` where `a` is a number, `a` where it is NaN: the NaN that the scalar `x op y` returns
/// when both operands are NaN (x86 returns the first operand's), whichever operand order the
/// compiler gave the commutative `+` and `×` here. The narrowing quiets it.
#[target_feature(enable = "avx")]
fn nan_first(r: __m256, a: __m256) -> __m256 {
    _mm256_blendv_ps(r, a, _mm256_cmp_ps::<_CMP_UNORD_Q>(a, a))
}

/// bf16 to f32 is a 16-bit shift. Interleaving with zeros widens elements 0-3 and 8-11 (low)
/// and 4-7 and 12-15 (high) within each 128-bit lane; `bf16_pack`'s in-lane pack undoes it.
#[target_feature(enable = "avx2")]
fn bf16_unpack(a: __m256i, b: __m256i) -> Halves {
    let z = _mm256_setzero_si256();
    let lo = |v| _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, v));
    let hi = |v| _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, v));
    [(lo(a), lo(b)), (hi(a), hi(b))]
}

#[target_feature(enable = "avx2")]
fn bf16_pack(v: Halves, f: impl Fn(__m256, __m256) -> __m256) -> __m256i {
    let f = |a, b| nan_first(f(a, b), a);
    _mm256_packus_epi32(bf16_round(f(v[0].0, v[0].1)), bf16_round(f(v[1].0, v[1].1)))
}

/// `half::bf16::from_f32` in each 32-bit lane (the result in its low 16 bits): a NaN keeps
/// its top bits and gets the quiet bit; anything else rounds to nearest, ties to even.
#[target_feature(enable = "avx2")]
fn bf16_round(v: __m256) -> __m256i {
    let bits = _mm256_castps_si256(v);
    let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(bits), _mm256_set1_epi32(1));
    let biased = _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb);
    let rounded = _mm256_srli_epi32::<16>(biased);
    let quiet = _mm256_or_si256(_mm256_srli_epi32::<16>(bits), _mm256_set1_epi32(0x40));
    let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
    _mm256_blendv_epi8(rounded, quiet, nan)
}

/// Defines the integer block kernel `$name` (see [`Blocks`]) from its five operations.
macro_rules! int_blocks {
    ($name:ident, $add:expr, $sub:expr, $mul:expr, $max:expr, $min:expr) => {
        /// An integer block kernel (see [`Blocks`]): wrapping add, subtract and multiply,
        /// maximum and minimum.
        ///
        /// # Safety
        /// The CPU must have AVX2; see [`Blocks`] and `each` for the operands.
        #[target_feature(enable = "avx2")]
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

int_blocks!(i8_blocks, _mm256_add_epi8, _mm256_sub_epi8, mullo_epi8, _mm256_max_epi8, _mm256_min_epi8);
int_blocks!(u8_blocks, _mm256_add_epi8, _mm256_sub_epi8, mullo_epi8, _mm256_max_epu8, _mm256_min_epu8);
int_blocks!(
    i16_blocks,
    _mm256_add_epi16,
    _mm256_sub_epi16,
    _mm256_mullo_epi16,
    _mm256_max_epi16,
    _mm256_min_epi16
);
int_blocks!(
    u16_blocks,
    _mm256_add_epi16,
    _mm256_sub_epi16,
    _mm256_mullo_epi16,
    _mm256_max_epu16,
    _mm256_min_epu16
);
int_blocks!(
    i32_blocks,
    _mm256_add_epi32,
    _mm256_sub_epi32,
    _mm256_mullo_epi32,
    _mm256_max_epi32,
    _mm256_min_epi32
);
int_blocks!(
    u32_blocks,
    _mm256_add_epi32,
    _mm256_sub_epi32,
    _mm256_mullo_epi32,
    _mm256_max_epu32,
    _mm256_min_epu32
);
int_blocks!(i64_blocks, _mm256_add_epi64, _mm256_sub_epi64, mullo_epi64, max_epi64, min_epi64);
int_blocks!(u64_blocks, _mm256_add_epi64, _mm256_sub_epi64, mullo_epi64, max_epu64, min_epu64);

/// The low 8 bits of each byte product: 16-bit products of the even bytes and of the odd
/// bytes, recombined.
#[target_feature(enable = "avx2")]
fn mullo_epi8(a: __m256i, b: __m256i) -> __m256i {
    let low = _mm256_set1_epi16(0xff);
    let even = _mm256_and_si256(_mm256_mullo_epi16(a, b), low);
    let odd = _mm256_mullo_epi16(_mm256_srli_epi16::<8>(a), _mm256_srli_epi16::<8>(b));
    _mm256_or_si256(even, _mm256_slli_epi16::<8>(odd))
}

/// The low 64 bits of each product: `lo·lo + (hi·lo + lo·hi) << 32`, with 32×32→64-bit
/// multiplies.
#[target_feature(enable = "avx2")]
fn mullo_epi64(a: __m256i, b: __m256i) -> __m256i {
    let low = _mm256_mul_epu32(a, b);
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), b),
        _mm256_mul_epu32(a, _mm256_srli_epi64::<32>(b)),
    );
    _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross))
}

#[target_feature(enable = "avx2")]
fn max_epi64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b))
}

#[target_feature(enable = "avx2")]
fn min_epi64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b))
}

/// Unsigned `a > b`: the signed comparison with both sign bits flipped.
#[target_feature(enable = "avx2")]
fn gt_epu64(a: __m256i, b: __m256i) -> __m256i {
    let flip = _mm256_set1_epi64x(i64::MIN);
    _mm256_cmpgt_epi64(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip))
}

#[target_feature(enable = "avx2")]
fn max_epu64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(b, a, gt_epu64(a, b))
}

#[target_feature(enable = "avx2")]
fn min_epu64(a: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(a, b, gt_epu64(a, b))
}
