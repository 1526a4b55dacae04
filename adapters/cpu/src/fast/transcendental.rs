//! f32 `pow` and `atan2`: one algorithm, run 8 lanes at a time with AVX2 + FMA or one element
//! at a time, with bit-identical results either way.
//!
//! Both compute in f64 and round once to f32. `pow(x, y)` is `2^(y · log2 x)`: `log2` from
//! `x`'s f32 exponent and a polynomial in `s = (m - 1) / (m + 1)` for its mantissa `m` in
//! `[√½, √2]`; `2^t` from a polynomial on `[-½, ½]` scaled by an integer power of two. `atan2`
//! reduces `|y|, |x|` to `z` in `[-tan π/8, tan π/8]`, evaluates an odd polynomial and adds
//! back `π/4`, `π/2`, `π` and the sign. The polynomials are near-minimax fits (mpmath
//! `chebyfit`): relative errors below 3e-14 (log2), 5e-11 (2^r) and 5e-15 (atan), so the f32
//! result is within 0.5 ULP plus at most about 0.001 ULP (2^r's degree trades the rest for
//! speed: degree 9 instead of 7 measured 0.500000 ULP at most in the tests, and was 10 %
//! slower).
//!
//! Only the common operands take that path (pow: `x` a positive normal finite f32, `y`
//! finite; atan2: both finite and nonzero). Every other pair, where every special case of the
//! array API tables lives (NaN, zeros, infinities, negative or subnormal `x`), is computed as
//! `f64` `powf`/`atan2` of the widened operands rounded to f32, which gets those cases exactly.
//! The vector kernel picks such lanes out with a mask and recomputes them with that same
//! scalar code. Every step of the fast path is an IEEE operation rounded once (`+ - × ÷`,
//! fused multiply-add, conversions), the same in the scalar code and the vector kernel.

use super::side::Side;

/// `2 / ln 2 · atanh(√w) / √w` on `w` in `[0, ((√2 - 1) / (√2 + 1))²]`, lowest degree first.
const LOG2: [f64; 6] = [
    2.8853900817778504,
    0.9617966941123595,
    0.5770779426302618,
    0.41220922733052445,
    0.3199066608891474,
    0.28288718263073565,
];

/// `2^r` on `r` in `[-½, ½]`, lowest degree first (relative error 4.3e-11).
const EXP2: [f64; 8] = [
    0.999999999959497,
    0.6931471805568274,
    0.24022651214120053,
    0.05550410906373737,
    0.009618025530398209,
    0.0013333478409865399,
    0.00015469755744925822,
    1.5303721130801367e-05,
];

/// `(atan √w - √w) / √w³` on `w` in `[0, tan² π/8]`, lowest degree first.
const ATAN: [f64; 9] = [
    -0.3333333333333092,
    0.19999999997723208,
    -0.14285713930151892,
    0.11111089637647514,
    -0.09090255665139077,
    0.07681041344029722,
    -0.06550878776298272,
    0.05168725600039612,
    -0.027231188880779692,
];

/// `1.5 · 2^52`: adding it rounds an f64 of magnitude below 2^51 to an integer (ties to even)
/// and leaves that integer in the low mantissa bits.
const ROUND: f64 = 6755399441055744.0;
/// `2^t` for `|t| >= 200` is infinite or zero in f32; clamping `t` there keeps `2^n` an f64.
const T_LIMIT: f64 = 200.0;
/// The f32 bits of the largest mantissa kept in `[1, √2)`; larger ones are halved.
const SQRT2_BITS: i32 = 0x3fb5_04f3;
const TAN_PI_8: f64 = 0.41421356237309503;
const PI: f64 = std::f64::consts::PI;
const PI_2: f64 = std::f64::consts::FRAC_PI_2;
const PI_4: f64 = std::f64::consts::FRAC_PI_4;

/// `x^y` in f32, as the array API's `pow` (the vector kernel's scalar twin).
pub fn pow_f32(x: f32, y: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA.
        return unsafe { fma::pow(x, y) };
    }
    pow_any(x, y)
}

/// `atan2(y, x)` in f32 (the vector kernel's scalar twin).
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA.
        return unsafe { fma::atan2(y, x) };
    }
    atan2_any(y, x)
}

#[inline(always)]
fn pow_any(x: f32, y: f32) -> f32 {
    if pow_is_common(x, y) { pow_common(x, y) } else { pow_special(x, y) }
}

#[inline(always)]
fn atan2_any(y: f32, x: f32) -> f32 {
    if atan2_is_common(y, x) { atan2_common(y, x) } else { atan2_special(y, x) }
}

/// The scalar functions compiled with FMA instructions for `mul_add` (instead of libm's `fma`
/// call); the same operations, so the same bits.
#[cfg(target_arch = "x86_64")]
mod fma {
    #[target_feature(enable = "fma")]
    pub fn pow(x: f32, y: f32) -> f32 {
        super::pow_any(x, y)
    }

    #[target_feature(enable = "fma")]
    pub fn atan2(y: f32, x: f32) -> f32 {
        super::atan2_any(y, x)
    }
}

/// `x` positive, normal and finite; `y` finite.
fn pow_is_common(x: f32, y: f32) -> bool {
    let xb = x.to_bits() as i32;
    (0x0080_0000..0x7f80_0000).contains(&xb) && (y.to_bits() & 0x7fff_ffff) < 0x7f80_0000
}

fn atan2_is_common(y: f32, x: f32) -> bool {
    let ok = |v: f32| (1..0x7f80_0000).contains(&(v.to_bits() & 0x7fff_ffff));
    ok(y) && ok(x)
}

fn pow_special(x: f32, y: f32) -> f32 {
    (x as f64).powf(y as f64) as f32
}

fn atan2_special(y: f32, x: f32) -> f32 {
    (y as f64).atan2(x as f64) as f32
}

/// Polynomials with coefficients `c` (lowest degree first) at `x` by Estrin's scheme: pairs
/// `c[2i] + c[2i + 1]·x`, then pairs of those with `x²`, `x⁴`, `x⁸` (fused multiply-adds),
/// which shortens the dependency chain against Horner's rule. One text for f64 and for 4 lanes
/// of f64, so both run the same operations in the same order.
macro_rules! estrin {
    ($(#[$attr:meta])* $t:ty, $fma:path, $mul:path, $splat:path) => {
        $(#[$attr])*
        fn poly6(x: $t, c: &[f64; 6]) -> $t {
            let k = |i: usize| $splat(c[i]);
            let x2 = $mul(x, x);
            let x4 = $mul(x2, x2);
            let (a0, a1, a2) = ($fma(k(1), x, k(0)), $fma(k(3), x, k(2)), $fma(k(5), x, k(4)));
            $fma(a2, x4, $fma(a1, x2, a0))
        }

        $(#[$attr])*
        fn poly8(x: $t, c: &[f64; 8]) -> $t {
            let k = |i: usize| $splat(c[i]);
            let x2 = $mul(x, x);
            let x4 = $mul(x2, x2);
            let (a0, a1) = ($fma(k(1), x, k(0)), $fma(k(3), x, k(2)));
            let (a2, a3) = ($fma(k(5), x, k(4)), $fma(k(7), x, k(6)));
            $fma($fma(a3, x2, a2), x4, $fma(a1, x2, a0))
        }

        $(#[$attr])*
        fn poly9(x: $t, c: &[f64; 9]) -> $t {
            let k = |i: usize| $splat(c[i]);
            let x2 = $mul(x, x);
            let x4 = $mul(x2, x2);
            let x8 = $mul(x4, x4);
            let (a0, a1) = ($fma(k(1), x, k(0)), $fma(k(3), x, k(2)));
            let (a2, a3) = ($fma(k(5), x, k(4)), $fma(k(7), x, k(6)));
            let (b0, b1) = ($fma(a1, x2, a0), $fma(a3, x2, a2));
            $fma(k(8), x8, $fma(b1, x4, b0))
        }
    };
}

estrin!(
    #[inline(always)]
    f64,
    f64::mul_add,
    std::ops::Mul::mul,
    f64::from
);

#[inline(always)]
fn pow_common(x: f32, y: f32) -> f32 {
    let bits = x.to_bits() as i32;
    let mut exponent = (bits >> 23) - 127;
    let mut mantissa = (bits & 0x007f_ffff) | 0x3f80_0000;
    if mantissa > SQRT2_BITS {
        mantissa -= 0x0080_0000;
        exponent += 1;
    }
    let m = f32::from_bits(mantissa as u32) as f64;
    let s = (m - 1.0) / (m + 1.0);
    let log2 = exponent as f64 + s * poly6(s * s, &LOG2);
    let t = (y as f64 * log2).clamp(-T_LIMIT, T_LIMIT);
    let k = t + ROUND;
    let r = t - (k - ROUND);
    let p = poly8(r, &EXP2);
    f64::from_bits(p.to_bits().wrapping_add(k.to_bits() << 52)) as f32
}

#[inline(always)]
fn atan2_common(y: f32, x: f32) -> f32 {
    let (a, b) = ((y as f64).abs(), (x as f64).abs());
    let swap = a > b;
    let (num, den) = (a.min(b), a.max(b));
    let big = num > den * TAN_PI_8;
    let z = if big { (num - den) / (num + den) } else { num / den };
    let w = z * z;
    let p = (z * w).mul_add(poly9(w, &ATAN), z);
    let r = if big { p + PI_4 } else { p };
    let r = if swap { PI_2 - r } else { r };
    let r = if x < 0.0 { PI - r } else { r };
    (r as f32).copysign(y)
}

/// `out = op(x, y)` for f32 pow or atan2 (`op` is one of the two) over little-endian bytes; a
/// slice side is as long as `out`.
pub(crate) fn binary_f32(
    op: opspec_adapter::BinaryOp,
    x: Side,
    y: Side,
    out: &mut [std::mem::MaybeUninit<u8>],
) {
    let pow = op == opspec_adapter::BinaryOp::Pow;
    let done = vector(pow, x, y, out);
    let f = if pow { pow_f32 } else { atan2_f32 };
    let at = |s: Side, i: usize| match s {
        Side::Slice(b) => f32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().expect("4 bytes")),
        Side::Splat(b) => f32::from_le_bytes(b.try_into().expect("4 bytes")),
    };
    for i in done..out.len() / 4 {
        out[i * 4..i * 4 + 4].write_copy_of_slice(&f(at(x, i), at(y, i)).to_le_bytes());
    }
}

/// Runs the whole 8-element blocks with AVX2 + FMA when the CPU has them; returns how many
/// elements were written.
fn vector(pow: bool, x: Side, y: Side, out: &mut [std::mem::MaybeUninit<u8>]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        let n = out.len() / 32 * 8;
        let ptr = |s: Side| match s {
            Side::Slice(b) => {
                assert!(b.len() >= n * 4, "operand shorter than the output");
                (b.as_ptr(), 32)
            }
            Side::Splat(b) => {
                assert_eq!(b.len(), 4, "one f32");
                (b.as_ptr(), 0)
            }
        };
        let ((xp, xs), (yp, ys)) = (ptr(x), ptr(y));
        // SAFETY: AVX2 and FMA were detected; a slice operand holds `n` elements (checked
        // above), a splat operand one element read with step 0, and `out` holds `n` elements.
        unsafe {
            if pow {
                avx2::blocks::<true>(xp, xs, yp, ys, out.as_mut_ptr().cast(), n);
            } else {
                avx2::blocks::<false>(xp, xs, yp, ys, out.as_mut_ptr().cast(), n);
            }
        }
        return n;
    }
    let _ = (pow, x, y, out);
    0
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::*;

    /// Computes `n / 8` blocks of 8 elements: block `i` reads 32 bytes at `x + i · xs` and
    /// `y + i · ys` (a step of 0 broadcasts one element read at `x` or `y`) and writes
    /// `out + 32 i`. Lanes outside the common path are recomputed by the scalar code.
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA; every read and write above must lie inside its buffer.
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn blocks<const POW: bool>(
        x: *const u8,
        xs: usize,
        y: *const u8,
        ys: usize,
        out: *mut u8,
        n: usize,
    ) {
        // SAFETY (for each load and store below): inside the buffers by the caller's contract;
        // loadu/storeu accept any alignment.
        let load = |p: *const u8, step: usize, i: usize| unsafe {
            if step == 0 {
                _mm256_set1_ps(p.cast::<f32>().read_unaligned())
            } else {
                _mm256_loadu_ps(p.add(i * step).cast())
            }
        };
        let kernel = |a, b| if POW { pow8(a, b) } else { atan2_8(a, b) };
        // Two blocks per step: their independent dependency chains overlap.
        let mut i = 0;
        while i + 2 <= n / 8 {
            let (a0, b0, a1, b1) = (load(x, xs, i), load(y, ys, i), load(x, xs, i + 1), load(y, ys, i + 1));
            let ((r0, c0), (r1, c1)) = (kernel(a0, b0), kernel(a1, b1));
            // SAFETY: blocks `i` and `i + 1` of `out` lie inside it (caller's contract).
            unsafe {
                store::<POW>(out.add(i * 32), a0, b0, r0, c0);
                store::<POW>(out.add(i * 32 + 32), a1, b1, r1, c1);
            }
            i += 2;
        }
        if i < n / 8 {
            let (a, b) = (load(x, xs, i), load(y, ys, i));
            let (r, common) = kernel(a, b);
            // SAFETY: block `i` of `out` lies inside it (caller's contract).
            unsafe { store::<POW>(out.add(i * 32), a, b, r, common) };
        }
    }

    /// Stores the 8 results `r` of operands `a`, `b` at `out`, recomputing the lanes outside
    /// the common path (clear bits of `common`) with the scalar code.
    ///
    /// # Safety
    /// The CPU must have AVX2; `out` must be valid for 32 bytes of writes.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn store<const POW: bool>(out: *mut u8, a: __m256, b: __m256, r: __m256, common: i32) {
        if common == 0xff {
            // SAFETY: `out` holds 32 bytes (caller's contract); storeu accepts any alignment.
            unsafe { _mm256_storeu_ps(out.cast(), r) };
            return;
        }
        let (mut av, mut bv, mut rv) = ([0f32; 8], [0f32; 8], [0f32; 8]);
        // SAFETY: each array holds 8 f32.
        unsafe {
            _mm256_storeu_ps(av.as_mut_ptr(), a);
            _mm256_storeu_ps(bv.as_mut_ptr(), b);
            _mm256_storeu_ps(rv.as_mut_ptr(), r);
        }
        for lane in (0..8).filter(|l| common & (1 << l) == 0) {
            rv[lane] = if POW { pow_special(av[lane], bv[lane]) } else { atan2_special(av[lane], bv[lane]) };
        }
        // SAFETY: as above.
        unsafe { _mm256_storeu_ps(out.cast(), _mm256_loadu_ps(rv.as_ptr())) };
    }

    estrin!(
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        __m256d,
        _mm256_fmadd_pd,
        _mm256_mul_pd,
        _mm256_set1_pd
    );

    /// Applies `f` to the low and high 4 lanes widened to f64 and narrows the results.
    #[target_feature(enable = "avx2,fma")]
    fn halves(a: __m256, b: __m256, c: __m256i, f: impl Fn(__m256d, __m256d, __m256d) -> __m256d) -> __m256 {
        let lo = |v: __m256| _mm256_cvtps_pd(_mm256_castps256_ps128(v));
        let hi = |v: __m256| _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v));
        let (clo, chi) = (
            _mm256_cvtepi32_pd(_mm256_castsi256_si128(c)),
            _mm256_cvtepi32_pd(_mm256_extracti128_si256::<1>(c)),
        );
        let rlo = _mm256_cvtpd_ps(f(lo(a), lo(b), clo));
        let rhi = _mm256_cvtpd_ps(f(hi(a), hi(b), chi));
        _mm256_set_m128(rhi, rlo)
    }

    /// `pow_common` on 8 lanes, and the mask of lanes where `pow_is_common` holds.
    #[target_feature(enable = "avx2,fma")]
    fn pow8(x: __m256, y: __m256) -> (__m256, i32) {
        let i = |v: i32| _mm256_set1_epi32(v);
        let bits = _mm256_castps_si256(x);
        let abs_y = _mm256_and_si256(_mm256_castps_si256(y), i(0x7fff_ffff));
        let common = _mm256_and_si256(
            _mm256_and_si256(
                _mm256_cmpgt_epi32(bits, i(0x007f_ffff)),
                _mm256_cmpgt_epi32(i(0x7f80_0000), bits),
            ),
            _mm256_cmpgt_epi32(i(0x7f80_0000), abs_y),
        );
        let mantissa = _mm256_or_si256(_mm256_and_si256(bits, i(0x007f_ffff)), i(0x3f80_0000));
        let high = _mm256_cmpgt_epi32(mantissa, i(SQRT2_BITS));
        let mantissa = _mm256_sub_epi32(mantissa, _mm256_and_si256(high, i(0x0080_0000)));
        let exponent = _mm256_sub_epi32(_mm256_sub_epi32(_mm256_srai_epi32::<23>(bits), i(127)), high);
        let m = _mm256_castsi256_ps(mantissa);
        let r = halves(m, y, exponent, |m, y, e| {
            let one = _mm256_set1_pd(1.0);
            let s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one));
            let log2 = _mm256_add_pd(e, _mm256_mul_pd(s, poly6(_mm256_mul_pd(s, s), &LOG2)));
            let t = _mm256_mul_pd(y, log2);
            let t = _mm256_min_pd(_mm256_max_pd(t, _mm256_set1_pd(-T_LIMIT)), _mm256_set1_pd(T_LIMIT));
            let round = _mm256_set1_pd(ROUND);
            let k = _mm256_add_pd(t, round);
            let r = _mm256_sub_pd(t, _mm256_sub_pd(k, round));
            let p = poly8(r, &EXP2);
            let scale = _mm256_slli_epi64::<52>(_mm256_castpd_si256(k));
            _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(p), scale))
        });
        (r, _mm256_movemask_ps(_mm256_castsi256_ps(common)))
    }

    /// `atan2_common(y, x)` on 8 lanes, and the mask of lanes where `atan2_is_common` holds.
    #[target_feature(enable = "avx2,fma")]
    fn atan2_8(y: __m256, x: __m256) -> (__m256, i32) {
        let i = |v: i32| _mm256_set1_epi32(v);
        let ok = |v: __m256| {
            let abs = _mm256_and_si256(_mm256_castps_si256(v), i(0x7fff_ffff));
            _mm256_and_si256(_mm256_cmpgt_epi32(abs, i(0)), _mm256_cmpgt_epi32(i(0x7f80_0000), abs))
        };
        let common = _mm256_and_si256(ok(y), ok(x));
        let sign = _mm256_set1_ps(-0.0);
        let abs = |v: __m256| _mm256_andnot_ps(sign, v);
        // The sign of x rides along in the integer operand (0 or -1 per lane).
        let x_negative = _mm256_srai_epi32::<31>(_mm256_castps_si256(x));
        let r = halves(abs(y), abs(x), x_negative, |a, b, neg| {
            let swap = _mm256_cmp_pd::<_CMP_GT_OQ>(a, b);
            let (num, den) = (_mm256_min_pd(a, b), _mm256_max_pd(a, b));
            let big = _mm256_cmp_pd::<_CMP_GT_OQ>(num, _mm256_mul_pd(den, _mm256_set1_pd(TAN_PI_8)));
            let n = _mm256_blendv_pd(num, _mm256_sub_pd(num, den), big);
            let d = _mm256_blendv_pd(den, _mm256_add_pd(num, den), big);
            let z = _mm256_div_pd(n, d);
            let w = _mm256_mul_pd(z, z);
            let p = _mm256_fmadd_pd(_mm256_mul_pd(z, w), poly9(w, &ATAN), z);
            let r = _mm256_blendv_pd(p, _mm256_add_pd(p, _mm256_set1_pd(PI_4)), big);
            let r = _mm256_blendv_pd(r, _mm256_sub_pd(_mm256_set1_pd(PI_2), r), swap);
            let negative = _mm256_cmp_pd::<_CMP_NEQ_UQ>(neg, _mm256_setzero_pd());
            _mm256_blendv_pd(r, _mm256_sub_pd(_mm256_set1_pd(PI), r), negative)
        });
        let r = _mm256_or_ps(r, _mm256_and_ps(y, sign));
        (r, _mm256_movemask_ps(_mm256_castsi256_ps(common)))
    }
}

#[cfg(test)]
mod tests {
    /// The portable scalar path (whose `mul_add` is libm's `fma` in a default build) and the
    /// FMA-compiled one must give the same bits: CPUs without FMA take the first.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn portable_path_matches_the_fma_path() {
        if !std::arch::is_x86_feature_detected!("fma") {
            return;
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            f32::from_bits(state as u32)
        };
        for i in 0..200_000 {
            // Half the pairs from random bits, half from ordinary magnitudes.
            let (x, y) = if i % 2 == 0 { (next(), next()) } else { (next().abs() % 100.0, next() % 8.0) };
            // SAFETY: the CPU has FMA (checked above).
            let (pow, atan2) = unsafe { (super::fma::pow(x, y), super::fma::atan2(y, x)) };
            assert_eq!(super::pow_any(x, y).to_bits(), pow.to_bits(), "pow({x:e}, {y:e})");
            assert_eq!(super::atan2_any(y, x).to_bits(), atan2.to_bits(), "atan2({y:e}, {x:e})");
        }
    }
}
