//! floor_divide and remainder of two dense f16 or bf16 operands of one shape, [`BLOCK`] pairs
//! at a time: widened to f32, divided in loops without branches that the compiler vectorises
//! (remainder in f32 alone, by a block's one divisor without a division per element), and
//! rounded back, split across rayon's threads. Where the CPU has AVX-512 or AVX2, with FMA
//! and F16C (and `OPSPEC_CPU_SIMD` allows), the whole block is compiled for them, f16's
//! conversions being F16C's eight-lane instructions inlined; elsewhere the baseline loops
//! convert f16 with `half`'s slice conversions. bf16 is converted by `half`'s rules, written
//! as branch-free integer selects, on every path. Bit-identical to the scalar path
//! (`float.rs`), which widens, divides and rounds one element at a time; an exhaustive pair
//! sweep calls them with 2^22 pairs.

use half::f16;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
use opspec_adapter::{AdapterError, BinaryOp, DType, Tensor};

use crate::{PAIRS_PIECE, dense_operands, in_pieces};

/// Pairs widened, divided and rounded together. The loops over a block's arrays run by index
/// over slices of one length: a zip of three iterators or more is a loop with an exit per
/// iterator, which LLVM vectorises with a scalar tail of up to a whole vector's elements.
const BLOCK: usize = 64;

/// A 16-bit format's conversions between its bits and f32, at most [`BLOCK`] values at a
/// time.
///
/// # Safety
///
/// An implementation may require CPU features; its methods run only where the CPU has them.
trait Conversions {
    /// # Safety
    /// The CPU has the implementation's features.
    unsafe fn widen(bits: &[u16], wide: &mut [f32]);
    /// # Safety
    /// The CPU has the implementation's features.
    unsafe fn narrow(wide: &[f32], bits: &mut [u16]);
}

/// f16 by `half`'s slice conversions (any CPU).
struct HalfSlices;

impl Conversions for HalfSlices {
    unsafe fn widen(bits: &[u16], wide: &mut [f32]) {
        bits.reinterpret_cast::<f16>().convert_to_f32_slice(wide);
    }

    unsafe fn narrow(wide: &[f32], bits: &mut [u16]) {
        bits.reinterpret_cast_mut::<f16>().convert_from_f32_slice(wide);
    }
}

/// f16 by F16C's eight-lane conversions (rounding to nearest, ties to even); requires F16C
/// (and AVX, whose 256-bit registers they use).
#[cfg(target_arch = "x86_64")]
struct F16c;

#[cfg(target_arch = "x86_64")]
impl Conversions for F16c {
    #[inline(always)]
    unsafe fn widen(bits: &[u16], wide: &mut [f32]) {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm256_cvtph_ps, _mm256_storeu_ps};
        in_eights(bits, wide, |h, w| {
            // SAFETY: the CPU has F16C and AVX (the caller's contract); the load and the
            // store are of eight lanes of an array of eight.
            unsafe {
                _mm256_storeu_ps(
                    w.as_mut_ptr(),
                    _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr().cast::<__m128i>())),
                )
            }
        });
    }

    #[inline(always)]
    unsafe fn narrow(wide: &[f32], bits: &mut [u16]) {
        use std::arch::x86_64::{
            __m128i, _MM_FROUND_TO_NEAREST_INT, _mm_storeu_si128, _mm256_cvtps_ph, _mm256_loadu_ps,
        };
        in_eights(wide, bits, |w, h| {
            // SAFETY: as in `widen`.
            unsafe {
                let narrow = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(w.as_ptr()));
                _mm_storeu_si128(h.as_mut_ptr().cast::<__m128i>(), narrow);
            }
        });
    }
}

/// `f` on each eight values of `from` into the eight of `to` (one shorter tail padded with
/// defaults).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_eights<T: Copy + Default, U: Copy + Default>(
    from: &[T],
    to: &mut [U],
    f: impl Fn(&[T; 8], &mut [U; 8]),
) {
    let (whole, tail) = from.as_chunks::<8>();
    let (whole_to, tail_to) = to.as_chunks_mut::<8>();
    for (from, to) in whole.iter().zip(whole_to) {
        f(from, to);
    }
    if !tail.is_empty() {
        let (mut from, mut to) = ([T::default(); 8], [U::default(); 8]);
        from[..tail.len()].copy_from_slice(tail);
        f(&from, &mut to);
        tail_to.copy_from_slice(&to[..tail.len()]);
    }
}

/// bf16 as `half`'s conversions, without a branch: the upper half of the f32 bits, rounded to
/// nearest with ties to even, a NaN's quiet bit set either way (any CPU).
struct Bf16Bits;

impl Conversions for Bf16Bits {
    #[inline(always)]
    unsafe fn widen(bits: &[u16], wide: &mut [f32]) {
        for (&h, w) in bits.iter().zip(wide) {
            let quiet = if h & 0x7fff > 0x7f80 { 0x40 } else { 0 };
            *w = f32::from_bits(u32::from(h | quiet) << 16);
        }
    }

    #[inline(always)]
    unsafe fn narrow(wide: &[f32], bits: &mut [u16]) {
        for (&w, h) in wide.iter().zip(bits) {
            let x = w.to_bits();
            let up = (x & 0x8000 != 0) & (x & 0x1_7fff != 0);
            let rounded = (x >> 16) + u32::from(up);
            let nan = (x >> 16) | 0x40;
            *h = if x & 0x7fff_ffff > 0x7f80_0000 { nan } else { rounded } as u16;
        }
    }
}

/// `op` on `a` and `b`, or `None` where these kernels do not apply (another operation or
/// dtype, operands of different dtypes or shapes, axis names, or a strided operand).
pub fn binary(op: BinaryOp, a: &Tensor, b: &Tensor) -> Option<Result<Tensor, AdapterError>> {
    if !matches!(op, BinaryOp::FloorDivide | BinaryOp::Remainder)
        || !matches!(a.dtype(), DType::F16 | DType::BF16)
    {
        return None;
    }
    let dtype = a.dtype();
    let (xs, ys) = dense_operands(a, b, dtype)?;
    let out = in_pieces::<f16>(xs.len() / 2, PAIRS_PIECE, 2, |bytes, out| {
        pairs(op, dtype, (&xs[bytes.clone()], &ys[bytes]), out);
        Some(())
    })
    .unwrap_or_default();
    Some(Tensor::from_bytes(dtype, a.shape(), out))
}

/// `op` on the pairs of `x` and `y`, little-endian values of `dtype` (f16 or bf16), their
/// results' bytes appended to `out`: compiled for AVX-512, or for AVX2, where the CPU has
/// them with FMA and F16C and `OPSPEC_CPU_SIMD` allows (vector floor, truncation, fused
/// multiply-add and f16 conversions), the baseline loops elsewhere.
fn pairs(op: BinaryOp, dtype: DType, xy: (&[u8], &[u8]), out: &mut Vec<u8>) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::fast::{Simd, simd};
        use std::arch::is_x86_feature_detected as has;
        let conversions = has!("fma") && has!("f16c");
        if simd() >= Simd::Avx512 && conversions {
            // SAFETY: the CPU has AVX-512 F, BW and VL (`simd` checks them), FMA and F16C.
            return unsafe { pairs_avx512(op, dtype, xy, out) };
        }
        if simd() >= Simd::Avx2 && has!("avx2") && conversions {
            // SAFETY: the CPU has AVX2, FMA and F16C, as just checked.
            return unsafe { pairs_avx2(op, dtype, xy, out) };
        }
    }
    // SAFETY: these conversions need no CPU feature.
    match dtype {
        DType::F16 => unsafe { pairs_in::<HalfSlices>(op, xy, out) },
        _ => unsafe { pairs_in::<Bf16Bits>(op, xy, out) },
    }
}

/// [`pairs`] compiled for AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn pairs_avx2(op: BinaryOp, dtype: DType, xy: (&[u8], &[u8]), out: &mut Vec<u8>) {
    // SAFETY: the CPU has F16C and AVX (this function's features).
    unsafe { pairs_f16c(op, dtype, xy, out) }
}

/// [`pairs`] compiled for AVX-512 F, BW and VL, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,fma,f16c")]
fn pairs_avx512(op: BinaryOp, dtype: DType, xy: (&[u8], &[u8]), out: &mut Vec<u8>) {
    // SAFETY: the CPU has F16C and AVX (implied by AVX-512 F).
    unsafe { pairs_f16c(op, dtype, xy, out) }
}

/// [`pairs`] with F16C's conversions for f16 (bf16's need no CPU feature).
///
/// # Safety
/// The CPU has F16C and AVX.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pairs_f16c(op: BinaryOp, dtype: DType, xy: (&[u8], &[u8]), out: &mut Vec<u8>) {
    // SAFETY: the caller's contract.
    match dtype {
        DType::F16 => unsafe { pairs_in::<F16c>(op, xy, out) },
        _ => unsafe { pairs_in::<Bf16Bits>(op, xy, out) },
    }
}

/// [`pairs`] with the conversions `C`, one block at a time.
///
/// # Safety
/// The CPU has `C`'s features.
#[inline(always)]
unsafe fn pairs_in<C: Conversions>(op: BinaryOp, (x, y): (&[u8], &[u8]), out: &mut Vec<u8>) {
    for (x, y) in x.chunks(2 * BLOCK).zip(y.chunks(2 * BLOCK)) {
        let n = x.len() / 2;
        let (mut bx, mut by, mut results) = ([0; BLOCK], [0; BLOCK], [0; BLOCK]);
        for (bits, bytes) in [(&mut bx, x), (&mut by, y)] {
            for (b, pair) in bits.iter_mut().zip(bytes.as_chunks::<2>().0) {
                *b = u16::from_le_bytes(*pair);
            }
        }
        // SAFETY: the caller's contract.
        unsafe { block::<C>(op, (&bx[..n], &by[..n]), &mut results[..n]) };
        let mut bytes = [0; 2 * BLOCK];
        for (pair, r) in bytes.as_chunks_mut::<2>().0.iter_mut().zip(&results) {
            *pair = r.to_le_bytes();
        }
        out.extend_from_slice(&bytes[..2 * n]);
    }
}

/// `op` on the pairs of bits `x[i]`, `y[i]` (at most [`BLOCK`]), into `out[i]`.
///
/// # Safety
/// The CPU has `C`'s features.
#[inline(always)]
unsafe fn block<C: Conversions>(op: BinaryOp, (x, y): (&[u16], &[u16]), out: &mut [u16]) {
    let n = x.len();
    let out = &mut out[..n];
    let (mut wx, mut wy, mut wide) = ([0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    let (wx, wy, wide) = (&mut wx[..n], &mut wy[..n], &mut wide[..n]);
    // SAFETY (each conversion): the caller's contract.
    unsafe {
        C::widen(x, wx);
        C::widen(y, wy);
    }
    divide_in(op, (wx, wy), wide);
    unsafe { C::narrow(wide, out) };
    if op == BinaryOp::FloorDivide {
        // Rounded to nearest; a finite result above the f32 floor goes one value down.
        let mut back = [0.0; BLOCK];
        let back = &mut back[..n];
        unsafe { C::widen(out, back) };
        for i in 0..n {
            let (o, b, w) = (out[i], back[i], wide[i]);
            let down = if w > 0.0 { o.wrapping_sub(1) } else { o.wrapping_add(1) };
            out[i] = if b.is_finite() & (b > w) { down } else { o };
        }
    }
}

/// `op` on the f32 pairs `x[i]`, `y[i]`, values of a 16-bit format, into `out[i]`.
#[inline(always)]
fn divide_in(op: BinaryOp, (x, y): (&[f32], &[f32]), out: &mut [f32]) {
    match op {
        BinaryOp::FloorDivide => {
            let n = out.len();
            let (x, y) = (&x[..n], &y[..n]);
            for i in 0..n {
                out[i] = floor_divide(x[i], y[i]);
            }
        }
        _ => remainder(x, y, out),
    }
}

/// The f32 floor of `x / y` as `float.rs` computes it: the quotient's floor, one lower where
/// `x − floor·y` (one fma) shows the exact quotient below it; the quotient itself where it is
/// not finite, or zero for a zero dividend or an infinite divisor.
#[inline(always)]
fn floor_divide(x: f32, y: f32) -> f32 {
    let q = x / y;
    let special = q.is_nan() | q.is_infinite() | (q == 0.0) & ((x == 0.0) | y.is_infinite());
    let r = q.floor();
    let residual = (-r).mul_add(y, x);
    let overshoots = (residual != 0.0) & (residual.is_sign_negative() != y.is_sign_negative());
    // Past 2^24 every f32 is an integer and r == q: the value below instead of r − 1.
    let below =
        f32::from_bits(if r > 0.0 { r.to_bits().wrapping_sub(1) } else { r.to_bits().wrapping_add(1) });
    let lower = if r - 1.0 == r { below } else { r - 1.0 };
    let floor = if overshoots { lower } else { r };
    let floor = if floor == 0.0 { 0.0 } else { floor };
    if special { q } else { floor }
}

/// Python's `x % y` of each pair, values of a 16-bit format, as `float.rs` computes it: `fmod`,
/// then one f32 addition of `y` where the signs differ; a zero takes `y`'s sign, and a NaN
/// result is `(x·y)/(x·y)`, as the C library's `fmodf` gives it. In place of `fmod`, any
/// exact value congruent to `x` modulo `y` and below `|y|` will do (from [`residues`]): of
/// the two, the one in `y`'s sign is the result, and the other plus `y` rounds to it. It is
/// an f32 value: where it is not `fmod`'s, the quotient rounded up onto an integer, which
/// 16-bit operands allow only where `x`'s quantum is the coarser, and then it is a multiple
/// of `y`'s quantum below `|y|`.
#[inline(always)]
fn remainder(x: &[f32], y: &[f32], out: &mut [f32]) {
    let n = x.len();
    let (y, out) = (&y[..n], &mut out[..n]);
    let valid = |x: f32, y: f32| x.is_finite() & y.is_finite() & (y != 0.0);
    // The valid pairs; the others stand in as 0 by 1.
    let (mut m, mut s) = ([0.0f32; BLOCK], [1.0f32; BLOCK]);
    let (m, s) = (&mut m[..n], &mut s[..n]);
    for i in 0..n {
        (m[i], s[i]) = if valid(x[i], y[i]) { (x[i], y[i]) } else { (0.0, 1.0) };
    }
    residues(m, s);
    for i in 0..n {
        let (m, x, y) = (m[i], x[i], y[i]);
        // An infinite divisor leaves a finite dividend as it is; the rest is a NaN.
        let kept = x.is_finite() & y.is_infinite();
        // fmodf's NaN, as (x·y)/(x·y) gives it without a division: a NaN operand's,
        // quietened (x's before y's), or the default NaN (of ∞ − ∞ or 0·∞).
        let product = x * y;
        #[expect(clippy::eq_op, reason = "∞ − ∞ is the default NaN, and a NaN passes through")]
        let nan = (product - product) * f32::INFINITY;
        let m = if valid(x, y) {
            m
        } else if kept {
            x
        } else {
            nan
        };
        let moved = if m.is_sign_negative() == y.is_sign_negative() { m } else { m + y };
        let zero = if y.is_sign_negative() { -0.0 } else { 0.0 };
        let nonzero = if m.is_nan() { m } else { moved };
        out[i] = if m == 0.0 { zero } else { nonzero };
    }
}

/// The binade distance [`residues`] takes off in one step.
const STEP: i32 = 22;

/// The binade distance [`residues_by`] takes off in one step.
const RECIPROCAL_STEP: i32 = 20;

/// The exponent field of an f32 value.
#[inline(always)]
fn field(v: f32) -> i32 {
    (v.to_bits() >> 23 & 0xff) as i32
}

/// 2^e, for `e` in f32's normal range.
#[inline(always)]
fn power_of_two(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The binade of a finite nonzero f32 `s` as an exponent field, below 1 where `s` is
/// subnormal (bf16's subnormals are f32's).
#[inline(always)]
fn binade(s: f32) -> i32 {
    if field(s) == 0 { field(s * power_of_two(24)) - 24 } else { field(s) }
}

/// `m[i]` becomes a value congruent to it modulo `s[i]` and below `|s[i]|`, exactly, for
/// finite `m` and finite nonzero `s` of a 16-bit format, in f32 alone: by [`residues_by`]
/// where the block has one divisor, else lane by lane. Each step reduces by `s·2^k`, with `k`
/// the binade distance `d` of `m` above `s` less 22 (0 at least), `s`'s binade taken exactly
/// where it is subnormal (a subnormal `m` overstates its `d`, which only makes `k` larger).
/// The quotient is then below 2^23, so `n`, the truncated f32 quotient, is the true one or one
/// more in magnitude, and `m − n·s·2^k` is exact in one fma: it is below the divisor and a
/// multiple of the finer quantum of the two, which is the divisor's (at most 11 significant
/// bits) unless `|m| < |s|` with `m` the finer, and then the quotient is below 1 by more than
/// f32's rounding and `n` is 0. It keeps the residue modulo `s`, and its `d` is at most `k`.
/// The block takes the steps of its largest `d`, the last one with `k = 0`, and none where
/// every `d` is negative: one for f16's operands within 22 binades of each other, two for
/// the rest (f16 spans 39 binades), up to 12 for bf16's (260). `2^k`, up to 2^238, is applied
/// as two factors, each exact.
#[inline(always)]
fn residues(m: &mut [f32], s: &[f32]) {
    let n = m.len();
    let s = &s[..n];
    if let Some(&first) = s.first()
        && s.iter().fold(true, |one, &v| one & (v.to_bits() == first.to_bits()))
    {
        return residues_by(m, first);
    }
    let mut binades = [0; BLOCK];
    let binades = &mut binades[..n];
    for i in 0..n {
        binades[i] = binade(s[i]);
    }
    let mut reach = -1;
    for i in 0..n {
        reach = reach.max(field(m[i]) - binades[i]);
    }
    let steps = if reach < 0 { 0 } else { (reach - 1).max(0) / STEP + 1 };
    for _ in 0..steps {
        for i in 0..n {
            let k = (field(m[i]) - binades[i] - STEP).max(0);
            let divisor = s[i] * power_of_two(k / 2) * power_of_two(k - k / 2);
            m[i] = (-(m[i] / divisor).trunc()).mul_add(divisor, m[i]);
        }
    }
}

/// [`residues`] for a block of one divisor `s`, without a division per element. A step
/// reduces every `m` by `t = s·2^k`, `k` the block's largest binade distance less 20 (0 at
/// least), so that each quotient `Q = m/t` is below 2^21. `1/t` is applied as two f32
/// factors, a power of two (the product exact unless it underflows, and then `Q` is far
/// below one half) and the rest, within 2^-24 of its value; with the second product's
/// rounding, `m` times them lies within 2.01·2^-24 of `Q` relative to it, and `q`, that
/// rounded to the nearest integer, within 0.76 of `Q`. So `m − q·t`, one fma, is below `t`,
/// and exact: a multiple of the divisor's quantum (at most 12 significant bits), or, where
/// `m`'s quantum is the finer, `q` is 0 or `|m|` at least `t/2`, within a binade of it.
/// Steps continue to `k = 0`.
#[inline(always)]
fn residues_by(m: &mut [f32], s: f32) {
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    let binade = binade(s);
    let mut reach = m.iter().fold(-1, |d, &v| d.max(field(v) - binade));
    while reach >= 0 {
        let k = (reach - RECIPROCAL_STEP).max(0);
        let t = f64::from(s) * f64::from_bits(((k + 1023) as u64) << 52);
        let first = if t.abs() >= 1.0 { 1.0 / TWO_64 } else { TWO_64 };
        let (first, rest) = (first as f32, (1.0 / t / first) as f32);
        let t = t as f32;
        for m in m.iter_mut() {
            *m = (-(*m * first * rest).round_ties_even()).mul_add(t, *m);
        }
        reach = if k == 0 { -1 } else { k };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CpuAdapter;
    use half::bf16;
    use opspec_adapter::Adapter;

    /// `v`'s bits as a one-dimensional tensor of `dtype`.
    fn tensor(dtype: DType, v: &[u16]) -> Tensor {
        let bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        Tensor::from_bytes(dtype, &[v.len()], bytes).unwrap()
    }

    /// `op` on `a` and `b` by these kernels, asserting that each result has the scalar path's
    /// bits (`describe` names pair `k`).
    fn assert_scalar_bits(
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        describe: impl Fn(usize) -> String,
    ) -> Tensor {
        let fast = binary(op, a, b).unwrap().unwrap();
        let scalar = match a.dtype() {
            DType::F16 => crate::binary_float::<f16>(op, a, b),
            _ => crate::binary_float::<bf16>(op, a, b),
        }
        .unwrap();
        let (bits, scalar) = (fast.contiguous_bytes().unwrap(), scalar.contiguous_bytes().unwrap());
        for (k, (f, s)) in bits.chunks(2).zip(scalar.chunks(2)).enumerate() {
            assert_eq!(f, s, "{op} {}", describe(k));
        }
        fast
    }

    /// Both operations give the scalar path's bits on every f16 and bf16 first operand against
    /// second operands at the zeros, subnormals (the smallest, the largest and two between:
    /// bf16's below 2^-127 are f32 values a binade or more below f32's exponent field 0),
    /// ±1, ±3, the largest finite values, the infinities and NaNs, and on every first operand
    /// against every second one of a stride through the format. Each block has one divisor
    /// (remainder's [`residues_by`]).
    #[test]
    fn the_division_kernels_give_the_scalar_results() {
        for (dtype, inf) in [(DType::F16, 0x7c00u16), (DType::BF16, 0x7f80)] {
            let one = if dtype == DType::F16 { 0x3c00 } else { 0x3f80 };
            let three = if dtype == DType::F16 { 0x4200 } else { 0x4040 };
            let max_subnormal = if dtype == DType::F16 { 0x03ff } else { 0x007f };
            let seconds =
                [0, 1, 0x0003, 0x0055, max_subnormal, one, three, inf - 1, inf, inf | 1, inf + 0x40];
            let seconds = seconds.iter().flat_map(|&s| [s, s | 0x8000]).chain((0..=u16::MAX).step_by(251));
            let firsts: Vec<u16> = (0..=u16::MAX).collect();
            let a = tensor(dtype, &firsts);
            for second in seconds {
                let b = tensor(dtype, &vec![second; firsts.len()]);
                for op in [BinaryOp::FloorDivide, BinaryOp::Remainder] {
                    let fast = assert_scalar_bits(op, &a, &b, |k| {
                        format!("{dtype} {:#06x} {second:#06x}", firsts[k])
                    });
                    // And the adapter takes this path.
                    let adapter = CpuAdapter.binary(op, &a, &b).unwrap();
                    assert_eq!(adapter.contiguous_bytes(), fast.contiguous_bytes(), "{op} {dtype}");
                }
            }
        }
    }

    /// Blocks of many divisors (remainder's lane-by-lane reduction) give the scalar path's
    /// bits: every f16 and bf16 first operand against every value of the format rotated by a
    /// few strides, so that each block of [`BLOCK`] pairs meets as many divisors, across
    /// binades and classes.
    #[test]
    fn blocks_of_many_divisors_give_the_scalar_results() {
        for dtype in [DType::F16, DType::BF16] {
            let firsts: Vec<u16> = (0..=u16::MAX).collect();
            let a = tensor(dtype, &firsts);
            for stride in [1u16, 3, 257, 4_099, 32_771] {
                let seconds: Vec<u16> = firsts.iter().map(|&x| x.wrapping_mul(stride) ^ 0x5a5a).collect();
                let b = tensor(dtype, &seconds);
                assert_scalar_bits(BinaryOp::Remainder, &a, &b, |k| {
                    format!("{dtype} {:#06x} % {:#06x}", firsts[k], seconds[k])
                });
            }
        }
    }
}
