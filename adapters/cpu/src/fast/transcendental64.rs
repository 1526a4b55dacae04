//! f64 `pow` and `atan2`: one algorithm, run 4 lanes at a time with AVX2 + FMA or one element
//! at a time, with bit-identical results either way.
//!
//! f64 has no wider format to compute in, so the steps that decide the last bits carry a
//! second f64 (double-double: an unevaluated sum `hi + lo`, errors of `+ - ×` recovered exactly
//! with fused multiply-adds). Every polynomial is a truncated Taylor series (coefficients are
//! rationals rounded once), cut where the next term is below 2^-60 relative.
//!
//! - `pow(x, y) = exp(y · ln x)`. `x = m · 2^e` with `m` in `[√½, √2]`; `ln m = 2 atanh s`
//!   with `s = (m - 1) / (m + 1)` (`|s| <= 0.1716`): `2s` and `2s³/3` in double-double, the
//!   rest (`2s⁵/5 + …`, under 2^-12 of the sum) in f64. `T = y · ln x` in double-double;
//!   `exp T = 2^k · exp r` with `r = T - k ln 2` in `[-0.35, 0.35]`, `exp r = 1 + r + r²/2 +
//!   r³ Q(r)` summed with the rounding errors of its large terms kept. The result is rounded
//!   once from a value about 0.02 ULP off (plus up to 0.25 ULP where `|T|` nears 708 with `x`
//!   near 1, from the f64 tail of `ln m` times a large `y`).
//! - `atan2(y, x)`: both magnitudes scaled by one power of two (exact), `z = n / d` with
//!   `n, d = num, den` or `num - den, num + den` (`num <= den` the smaller and larger
//!   magnitude), each formed and divided in double-double, so `|z| <= tan π/8`; `atan z = z +
//!   z³ P(z²)`; the result is `k·π/4 ± atan z` (`π/4` in double-double), sign of `y`.
//!
//! Only the common operands take that path. pow: `x` positive, normal and finite, `y` finite
//! and `|y · ln x| < 708` (the result a normal f64). atan2: both finite, nonzero and normal,
//! the larger below 2^1022 and at most 2^900 times the smaller. Every other pair, where every
//! special case of the array API tables lives (NaN, zeros, infinities, negative or subnormal
//! `x`, overflow and underflow), is computed by the platform's `f64::powf`/`f64::atan2`, as
//! before this kernel. The vector kernel picks such lanes out with a mask and recomputes them
//! with that same scalar code. Every step of the fast path is an IEEE operation rounded once,
//! the same in the scalar code and the vector kernel (the algorithm's text is shared by a
//! macro).

use super::side::Side;

/// `ln 2` as a double-double.
const LN2_HI: f64 = std::f64::consts::LN_2;
const LN2_LO: f64 = 2.319_046_813_846_299_6e-17;
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// `2/3`, `2/5` and `1/3` as double-doubles.
const TWO_THIRDS: (f64, f64) = (2.0 / 3.0, 3.700_743_415_417_188e-17);
const TWO_FIFTHS: (f64, f64) = (0.4, -2.220_446_049_250_313_2e-17);
const THIRD: (f64, f64) = (1.0 / 3.0, 1.850_371_707_708_594e-17);
/// `π/4` as a double-double.
const PI_4_HI: f64 = std::f64::consts::FRAC_PI_4;
const PI_4_LO: f64 = 3.061_616_997_868_383e-17;
const TAN_PI_8: f64 = 0.414_213_562_373_095_03;
/// `1.5 · 2^52`: adding it rounds an f64 of magnitude below 2^51 to an integer (ties to even)
/// and leaves that integer in the low mantissa bits.
const ROUND: f64 = 6_755_399_441_055_744.0;
/// `|y · ln x|` below this keeps `pow`'s result a normal finite f64 (`e^708 < 2^1022`, and
/// `e^-708 > 2^-1022`), and `2^k` inside the exponent field.
const T_LIMIT: f64 = 708.0;
/// The bits of the largest mantissa kept in `[1, √2]` (the f64 nearest `√2`); larger ones
/// are halved.
const SQRT2_BITS: i64 = 0x3ff6_a09e_667f_3bcd;
const MANTISSA: i64 = 0x000f_ffff_ffff_ffff;
const ONE_BITS: i64 = 0x3ff0_0000_0000_0000;
const EXPONENT: i64 = 0x7ff0_0000_0000_0000;
/// atan2's common path: the larger magnitude's biased exponent at most this (below 2^1022,
/// so that scaling it to `[1, 2)` takes a normal power of two) …
const ATAN2_MAX_EXPONENT: i64 = 2045;
/// … and the two biased exponents at most this far apart (`z` and its low part stay normal).
const ATAN2_MAX_GAP: i64 = 900;

/// `2/7, 2/9, …, 2/27`: `(2 atanh s - 2s - 2s³/3 - 2s⁵/5) / s⁷` in powers of `w = s²` (next
/// term `2 s^29 / 29`, under 2^-71 of `2s` for `|s| <= 0.1716`).
const LOG_TAIL: [f64; 11] = [
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
    2.0 / 23.0,
    2.0 / 25.0,
    2.0 / 27.0,
];

/// `1/3!, 1/4!, …, 1/14!`: `(exp r - 1 - r - r²/2) / r³` (next term `r^15 / 15!`, under 2^-63
/// for `|r| <= 0.35`).
const EXP_TAIL: [f64; 12] = [
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
    1.0 / 87_178_291_200.0,
];

/// `1/5, -1/7, …, -1/43`: `(atan z - z + z³/3) / z⁵` in powers of `w = z²` (next term
/// `z^45 / 45`, under 2^-61 of `z` for `|z| <= tan π/8`).
const ATAN_TAIL: [f64; 20] = [
    1.0 / 5.0,
    -1.0 / 7.0,
    1.0 / 9.0,
    -1.0 / 11.0,
    1.0 / 13.0,
    -1.0 / 15.0,
    1.0 / 17.0,
    -1.0 / 19.0,
    1.0 / 21.0,
    -1.0 / 23.0,
    1.0 / 25.0,
    -1.0 / 27.0,
    1.0 / 29.0,
    -1.0 / 31.0,
    1.0 / 33.0,
    -1.0 / 35.0,
    1.0 / 37.0,
    -1.0 / 39.0,
    1.0 / 41.0,
    -1.0 / 43.0,
];

/// `x^y` in f64, as the array API's `pow` (the vector kernel's scalar twin).
pub fn pow_f64(x: f64, y: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA.
        return unsafe { fma::pow(x, y) };
    }
    pow_any(x, y)
}

/// `atan2(y, x)` in f64 (the vector kernel's scalar twin).
pub fn atan2_f64(y: f64, x: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA.
        return unsafe { fma::atan2(y, x) };
    }
    atan2_any(y, x)
}

/// The scalar functions compiled with FMA instructions for `mul_add` (instead of libm's `fma`
/// call); the same operations, so the same bits.
#[cfg(target_arch = "x86_64")]
mod fma {
    #[target_feature(enable = "fma")]
    pub fn pow(x: f64, y: f64) -> f64 {
        super::pow_any(x, y)
    }

    #[target_feature(enable = "fma")]
    pub fn atan2(y: f64, x: f64) -> f64 {
        super::atan2_any(y, x)
    }
}

fn pow_special(x: f64, y: f64) -> f64 {
    x.powf(y)
}

fn atan2_special(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// The algorithm, written once over a lane type `T` (f64, or 4 lanes of f64) with a mask type
/// `M` and these functions in scope: `add sub mul div` (IEEE, rounded once), `fma(a, b, c) =
/// a·b + c`, `fms = a·b - c`, `fnma = c - a·b` (rounded once), `splat`, `gt` (ordered `>`),
/// `sel(m, a, b)` (`a` where `m`).
macro_rules! algorithm {
    ($(#[$attr:meta])* $t:ty, $m:ty) => {
        /// `a + b` as `(sum, error)`, exactly.
        $(#[$attr])*
        fn two_sum(a: $t, b: $t) -> ($t, $t) {
            let s = add(a, b);
            let bb = sub(s, a);
            (s, add(sub(a, sub(s, bb)), sub(b, bb)))
        }

        /// [`two_sum`] for `|a| >= |b|` (or `a`'s exponent at least `b`'s).
        $(#[$attr])*
        fn fast_two_sum(a: $t, b: $t) -> ($t, $t) {
            let s = add(a, b);
            (s, sub(b, sub(s, a)))
        }

        /// A polynomial with coefficients `c` (lowest degree first) at `x` by Estrin's scheme:
        /// neighbouring pairs joined with `x`, then pairs of those with `x²`, `x⁴`, ….
        $(#[$attr])*
        fn poly<const N: usize>(x: $t, c: &[f64; N]) -> $t {
            let mut acc = [splat(0.0); N];
            for (a, &k) in acc.iter_mut().zip(c) {
                *a = splat(k);
            }
            let (mut len, mut p) = (N, x);
            while len > 1 {
                for i in 0..len / 2 {
                    acc[i] = fma(acc[2 * i + 1], p, acc[2 * i]);
                }
                if len % 2 == 1 {
                    acc[len / 2] = acc[len - 1];
                }
                len = len.div_ceil(2);
                p = mul(p, p);
            }
            acc[0]
        }

        /// `c · (a_h + a_l)` as a double-double, for a double-double constant `c`.
        $(#[$attr])*
        fn scale_dd(a_h: $t, a_l: $t, c: (f64, f64)) -> ($t, $t) {
            let h = mul(a_h, splat(c.0));
            (h, fma(a_l, splat(c.0), fma(a_h, splat(c.1), fms(a_h, splat(c.0), h))))
        }

        /// `(a_h + a_l) · (b_h + b_l)` as a double-double (the `a_l · b_l` term dropped).
        $(#[$attr])*
        fn mul_dd(a_h: $t, a_l: $t, b_h: $t, b_l: $t) -> ($t, $t) {
            let h = mul(a_h, b_h);
            (h, fma(a_h, b_l, fma(a_l, b_h, fms(a_h, b_h, h))))
        }

        /// `ln(m · 2^e)` as a double-double, for `m` in `[√½, √2]` and an integer `e`.
        $(#[$attr])*
        fn ln_dd(m: $t, e: $t) -> ($t, $t) {
            let one = splat(1.0);
            // s = (m - 1) / (m + 1): m - 1 is exact, m + 1 a double-double.
            let b = sub(m, one);
            let (a_h, a_l) = two_sum(m, one);
            let inv = div(one, a_h);
            let s_h = mul(b, inv);
            let s_l = mul(fnma(s_h, a_l, fnma(s_h, a_h, b)), inv);
            // s², s³, s⁵ and the terms 2s³/3, 2s⁵/5 as double-doubles.
            let s2_h = mul(s_h, s_h);
            let s2_l = fma(add(s_h, s_h), s_l, fms(s_h, s_h, s2_h));
            let (s3_h, s3_l) = mul_dd(s2_h, s2_l, s_h, s_l);
            let (s5_h, s5_l) = mul_dd(s3_h, s3_l, s2_h, s2_l);
            let (c_h, c_l) = scale_dd(s3_h, s3_l, TWO_THIRDS);
            let (f_h, f_l) = scale_dd(s5_h, s5_l, TWO_FIFTHS);
            // 2s⁷/7 + … in f64.
            let tail = mul(mul(s5_h, s2_h), poly(s2_h, &LOG_TAIL));
            // e ln 2 as a double-double.
            let e_h = mul(e, splat(LN2_HI));
            let e_l = fma(e, splat(LN2_LO), fms(e, splat(LN2_HI), e_h));
            // The high parts fall in magnitude (|e ln 2| >= ln 2 > |2s| unless e = 0).
            let (h1, l1) = fast_two_sum(e_h, add(s_h, s_h));
            let (h2, l2) = fast_two_sum(h1, c_h);
            let (h3, l3) = fast_two_sum(h2, f_h);
            let low = add(add(add(add(add(add(add(tail, f_l), c_l), add(s_l, s_l)), e_l), l1), l2), l3);
            fast_two_sum(h3, low)
        }

        /// `exp(t_h + t_l) = 2^k · v` for `|t_h| <= 708`: `(v, k + ROUND)` with `v` in about
        /// `[0.7, 1.42]`.
        $(#[$attr])*
        fn exp_dd(t_h: $t, t_l: $t) -> ($t, $t) {
            let k_round = fma(t_h, splat(INV_LN2), splat(ROUND));
            let k = sub(k_round, splat(ROUND));
            // t_h - k ln2_hi is exact (the fused result has at most 53 significant bits).
            let r_h = fnma(k, splat(LN2_HI), t_h);
            let r_l = fnma(k, splat(LN2_LO), t_l);
            let r2 = mul(r_h, r_h);
            let r2_l = fms(r_h, r_h, r2);
            let cubic = mul(mul(r2, r_h), poly(r_h, &EXP_TAIL));
            // 1 + r_h + r_h²/2 with the rounding errors kept, then the small terms.
            let (s1, e1) = fast_two_sum(splat(1.0), r_h);
            let (s2, e2) = fast_two_sum(s1, mul(splat(0.5), r2));
            let small = add(add(fma(splat(0.5), r2_l, cubic), e1), e2);
            // exp(r_h + r_l) = exp(r_h) (1 + r_l + …): r_l times exp(r_h) to f64 accuracy.
            let small = fma(r_l, add(s2, small), small);
            (add(s2, small), k_round)
        }

        /// `pow` for `x = m · 2^e` (`m` in `[√½, √2]`): `(v, k + ROUND, t)` with the result
        /// `2^k · v` where `|t| < T_LIMIT`.
        $(#[$attr])*
        fn pow_core(m: $t, e: $t, y: $t) -> ($t, $t, $t) {
            let (l_h, l_l) = ln_dd(m, e);
            let t_h = mul(y, l_h);
            let t_l = fma(y, l_l, fms(y, l_h, t_h));
            let (v, k_round) = exp_dd(t_h, t_l);
            (v, k_round, t_h)
        }

        /// `|atan2|` for magnitudes `a = |y|`, `b = |x|` scaled so that the larger lies in
        /// `[1, 2)` and the smaller above 2^-901; `x_negative` per lane.
        $(#[$attr])*
        fn atan2_core(a: $t, b: $t, x_negative: $m) -> $t {
            let zero = splat(0.0);
            let swap = gt(a, b);
            let (num, den) = (sel(swap, b, a), sel(swap, a, b));
            let big = gt(num, mul(den, splat(TAN_PI_8)));
            // z = n / d in double-double: (num, den) or (num - den, num + den).
            let (n_h, n_l) = two_sum(num, sel(big, sub(zero, den), zero));
            let (d_h, d_l) = two_sum(den, sel(big, num, zero));
            let z_h = div(n_h, d_h);
            let z_l = div(fnma(z_h, d_l, add(fnma(z_h, d_h, n_h), n_l)), d_h);
            // atan z = z - z³/3 + z⁵ P(z²), z³/3 in double-double.
            let w = mul(z_h, z_h);
            let w_l = fma(add(z_h, z_h), z_l, fms(z_h, z_h, w));
            let (z3_h, z3_l) = mul_dd(w, w_l, z_h, z_l);
            let (t_h, t_l) = scale_dd(z3_h, z3_l, THIRD);
            let tail = sub(add(z_l, mul(mul(z3_h, w), poly(w, &ATAN_TAIL))), t_l);
            // The result is k·π/4 + σ atan z.
            let one = splat(1.0);
            let k = sel(big, one, zero);
            let (k, sigma) = (sel(swap, sub(splat(2.0), k), k), sel(swap, sub(zero, one), one));
            let (k, sigma) = (sel(x_negative, sub(splat(4.0), k), k), sel(x_negative, sub(zero, sigma), sigma));
            let c_h = mul(k, splat(PI_4_HI));
            let c_l = fma(k, splat(PI_4_LO), fms(k, splat(PI_4_HI), c_h));
            let (s1, e1) = two_sum(c_h, mul(sigma, z_h));
            let (s, e2) = two_sum(s1, mul(sigma, sub(zero, t_h)));
            add(s, add(add(add(e1, e2), c_l), mul(sigma, tail)))
        }
    };
}

/// The scalar lane type's operations.
mod scalar {
    use super::*;

    #[inline(always)]
    fn add(a: f64, b: f64) -> f64 {
        a + b
    }
    #[inline(always)]
    fn sub(a: f64, b: f64) -> f64 {
        a - b
    }
    #[inline(always)]
    fn mul(a: f64, b: f64) -> f64 {
        a * b
    }
    #[inline(always)]
    fn div(a: f64, b: f64) -> f64 {
        a / b
    }
    #[inline(always)]
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    #[inline(always)]
    fn fms(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, -c)
    }
    #[inline(always)]
    fn fnma(a: f64, b: f64, c: f64) -> f64 {
        (-a).mul_add(b, c)
    }
    #[inline(always)]
    fn splat(c: f64) -> f64 {
        c
    }
    #[inline(always)]
    fn gt(a: f64, b: f64) -> bool {
        a > b
    }
    #[inline(always)]
    fn sel(m: bool, a: f64, b: f64) -> f64 {
        if m { a } else { b }
    }

    algorithm!(
        #[inline(always)]
        f64,
        bool
    );

    /// `pow` where `pow_is_common(x, y)`; `None` where `|y · ln x|` is too large.
    #[inline(always)]
    pub(super) fn pow_common(x: f64, y: f64) -> Option<f64> {
        let bits = x.to_bits() as i64;
        let mut exponent = (bits >> 52) - 1023;
        let mut mantissa = (bits & MANTISSA) | ONE_BITS;
        if mantissa > SQRT2_BITS {
            mantissa -= 1 << 52;
            exponent += 1;
        }
        let (v, k_round, t) = pow_core(f64::from_bits(mantissa as u64), exponent as f64, y);
        (t.abs() < T_LIMIT).then(|| f64::from_bits(v.to_bits().wrapping_add(k_round.to_bits() << 52)))
    }

    /// `atan2` where `atan2_is_common(y, x)`.
    #[inline(always)]
    pub(super) fn atan2_common(y: f64, x: f64) -> f64 {
        let (a, b) = (y.abs(), x.abs());
        let larger = a.to_bits().max(b.to_bits()) as i64;
        let scale = f64::from_bits(((2 * 1023 - (larger >> 52)) as u64) << 52);
        atan2_core(a * scale, b * scale, x < 0.0).copysign(y)
    }
}

/// `x` positive, normal and finite; `y` finite.
fn pow_is_common(x: f64, y: f64) -> bool {
    let xb = x.to_bits() as i64;
    (MANTISSA + 1..EXPONENT).contains(&xb) && (y.to_bits() as i64 & i64::MAX) < EXPONENT
}

/// Both finite, nonzero and normal; the larger below 2^1022, at most 2^900 times the smaller.
fn atan2_is_common(y: f64, x: f64) -> bool {
    let exponent = |v: f64| (v.to_bits() as i64 & i64::MAX) >> 52;
    let (ey, ex) = (exponent(y), exponent(x));
    let (lo, hi) = (ey.min(ex), ey.max(ex));
    lo >= 1 && hi <= ATAN2_MAX_EXPONENT && hi - lo <= ATAN2_MAX_GAP
}

#[inline(always)]
fn pow_any(x: f64, y: f64) -> f64 {
    let fast = if pow_is_common(x, y) { scalar::pow_common(x, y) } else { None };
    fast.unwrap_or_else(|| pow_special(x, y))
}

#[inline(always)]
fn atan2_any(y: f64, x: f64) -> f64 {
    if atan2_is_common(y, x) { scalar::atan2_common(y, x) } else { atan2_special(y, x) }
}

/// `out = op(x, y)` for f64 pow or atan2 (`op` is one of the two) over little-endian bytes; a
/// slice side is as long as `out`.
pub(crate) fn binary_f64(
    op: opspec_adapter::BinaryOp,
    x: Side,
    y: Side,
    out: &mut [std::mem::MaybeUninit<u8>],
) {
    let pow = op == opspec_adapter::BinaryOp::Pow;
    let done = vector(pow, x, y, out);
    let f = if pow { pow_f64 } else { atan2_f64 };
    let at = |s: Side, i: usize| match s {
        Side::Slice(b) => f64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes")),
        Side::Splat(b) => f64::from_le_bytes(b.try_into().expect("8 bytes")),
    };
    for i in done..out.len() / 8 {
        out[i * 8..i * 8 + 8].write_copy_of_slice(&f(at(x, i), at(y, i)).to_le_bytes());
    }
}

/// Runs the whole 4-element blocks with AVX2 + FMA when the CPU has them; returns how many
/// elements were written.
fn vector(pow: bool, x: Side, y: Side, out: &mut [std::mem::MaybeUninit<u8>]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        let n = out.len() / 32 * 4;
        let ptr = |s: Side| match s {
            Side::Slice(b) => {
                assert!(b.len() >= n * 8, "operand shorter than the output");
                (b.as_ptr(), 32)
            }
            Side::Splat(b) => {
                assert_eq!(b.len(), 8, "one f64");
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

    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn add(a: __m256d, b: __m256d) -> __m256d {
        _mm256_add_pd(a, b)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn sub(a: __m256d, b: __m256d) -> __m256d {
        _mm256_sub_pd(a, b)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn mul(a: __m256d, b: __m256d) -> __m256d {
        _mm256_mul_pd(a, b)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn div(a: __m256d, b: __m256d) -> __m256d {
        _mm256_div_pd(a, b)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn fma(a: __m256d, b: __m256d, c: __m256d) -> __m256d {
        _mm256_fmadd_pd(a, b, c)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn fms(a: __m256d, b: __m256d, c: __m256d) -> __m256d {
        _mm256_fmsub_pd(a, b, c)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn fnma(a: __m256d, b: __m256d, c: __m256d) -> __m256d {
        _mm256_fnmadd_pd(a, b, c)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn splat(c: f64) -> __m256d {
        _mm256_set1_pd(c)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn gt(a: __m256d, b: __m256d) -> __m256d {
        _mm256_cmp_pd::<_CMP_GT_OQ>(a, b)
    }
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn sel(m: __m256d, a: __m256d, b: __m256d) -> __m256d {
        _mm256_blendv_pd(b, a, m)
    }

    algorithm!(
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        __m256d,
        __m256d
    );

    /// Computes `n / 4` blocks of 4 elements: block `i` reads 32 bytes at `x + i · xs` and
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
        // SAFETY (for each load below): inside the buffers by the caller's contract; loadu
        // accepts any alignment.
        let load = |p: *const u8, step: usize, i: usize| unsafe {
            if step == 0 {
                _mm256_set1_pd(p.cast::<f64>().read_unaligned())
            } else {
                _mm256_loadu_pd(p.add(i * step).cast())
            }
        };
        let kernel = |a, b| if POW { pow4(a, b) } else { atan2_4(a, b) };
        // Two blocks per step: their independent dependency chains overlap.
        let mut i = 0;
        while i + 2 <= n / 4 {
            let (a0, b0, a1, b1) = (load(x, xs, i), load(y, ys, i), load(x, xs, i + 1), load(y, ys, i + 1));
            let ((r0, c0), (r1, c1)) = (kernel(a0, b0), kernel(a1, b1));
            // SAFETY: blocks `i` and `i + 1` of `out` lie inside it (caller's contract).
            unsafe {
                store::<POW>(out.add(i * 32), a0, b0, r0, c0);
                store::<POW>(out.add(i * 32 + 32), a1, b1, r1, c1);
            }
            i += 2;
        }
        if i < n / 4 {
            let (a, b) = (load(x, xs, i), load(y, ys, i));
            let (r, common) = kernel(a, b);
            // SAFETY: block `i` of `out` lies inside it (caller's contract).
            unsafe { store::<POW>(out.add(i * 32), a, b, r, common) };
        }
    }

    /// Stores the 4 results `r` of operands `a`, `b` at `out`, recomputing the lanes outside
    /// the common path (clear bits of `common`) with the scalar code.
    ///
    /// # Safety
    /// The CPU must have AVX2; `out` must be valid for 32 bytes of writes.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn store<const POW: bool>(out: *mut u8, a: __m256d, b: __m256d, r: __m256d, common: i32) {
        if common == 0xf {
            // SAFETY: `out` holds 32 bytes (caller's contract); storeu accepts any alignment.
            unsafe { _mm256_storeu_pd(out.cast(), r) };
            return;
        }
        let (mut av, mut bv, mut rv) = ([0f64; 4], [0f64; 4], [0f64; 4]);
        // SAFETY: each array holds 4 f64.
        unsafe {
            _mm256_storeu_pd(av.as_mut_ptr(), a);
            _mm256_storeu_pd(bv.as_mut_ptr(), b);
            _mm256_storeu_pd(rv.as_mut_ptr(), r);
        }
        for lane in (0..4).filter(|l| common & (1 << l) == 0) {
            rv[lane] = if POW { pow_special(av[lane], bv[lane]) } else { atan2_special(av[lane], bv[lane]) };
        }
        // SAFETY: as above.
        unsafe { _mm256_storeu_pd(out.cast(), _mm256_loadu_pd(rv.as_ptr())) };
    }

    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn int(v: i64) -> __m256i {
        _mm256_set1_epi64x(v)
    }

    /// `scalar::pow_common` on 4 lanes, and the mask of lanes where it applies
    /// (`pow_is_common` and `|y · ln x| < T_LIMIT`).
    #[target_feature(enable = "avx2,fma")]
    fn pow4(x: __m256d, y: __m256d) -> (__m256d, i32) {
        let bits = _mm256_castpd_si256(x);
        let abs_y = _mm256_and_si256(_mm256_castpd_si256(y), int(i64::MAX));
        let operands = _mm256_and_si256(
            _mm256_and_si256(
                _mm256_cmpgt_epi64(bits, int(MANTISSA)),
                _mm256_cmpgt_epi64(int(EXPONENT), bits),
            ),
            _mm256_cmpgt_epi64(int(EXPONENT), abs_y),
        );
        let mantissa = _mm256_or_si256(_mm256_and_si256(bits, int(MANTISSA)), int(ONE_BITS));
        let high = _mm256_cmpgt_epi64(mantissa, int(SQRT2_BITS));
        let mantissa = _mm256_sub_epi64(mantissa, _mm256_and_si256(high, int(1 << 52)));
        let exponent = _mm256_sub_epi64(_mm256_sub_epi64(_mm256_srli_epi64::<52>(bits), int(1023)), high);
        // An integer below 2^51 in magnitude, to f64: placed in ROUND's low mantissa bits.
        let round = _mm256_set1_pd(ROUND);
        let e =
            _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(exponent, _mm256_castpd_si256(round))), round);
        let (v, k_round, t) = pow_core(_mm256_castsi256_pd(mantissa), e, y);
        let in_range =
            _mm256_cmp_pd::<_CMP_LT_OQ>(_mm256_andnot_pd(_mm256_set1_pd(-0.0), t), _mm256_set1_pd(T_LIMIT));
        let scale = _mm256_slli_epi64::<52>(_mm256_castpd_si256(k_round));
        let r = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(v), scale));
        let common = _mm256_and_pd(_mm256_castsi256_pd(operands), in_range);
        (r, _mm256_movemask_pd(common))
    }

    /// `scalar::atan2_common(y, x)` on 4 lanes, and the mask of lanes where `atan2_is_common`
    /// holds.
    #[target_feature(enable = "avx2,fma")]
    fn atan2_4(y: __m256d, x: __m256d) -> (__m256d, i32) {
        let sign = _mm256_set1_pd(-0.0);
        let (a, b) = (_mm256_andnot_pd(sign, y), _mm256_andnot_pd(sign, x));
        let (ea, eb) = (
            _mm256_srli_epi64::<52>(_mm256_castpd_si256(a)),
            _mm256_srli_epi64::<52>(_mm256_castpd_si256(b)),
        );
        let a_larger = _mm256_cmpgt_epi64(ea, eb);
        let (lo, hi) = (_mm256_blendv_epi8(ea, eb, a_larger), _mm256_blendv_epi8(eb, ea, a_larger));
        let common = _mm256_and_si256(
            _mm256_and_si256(
                _mm256_cmpgt_epi64(lo, int(0)),
                _mm256_cmpgt_epi64(int(ATAN2_MAX_EXPONENT + 1), hi),
            ),
            _mm256_cmpgt_epi64(int(ATAN2_MAX_GAP + 1), _mm256_sub_epi64(hi, lo)),
        );
        // 2^(1023 - hi): the larger magnitude scaled into [1, 2).
        let scale = _mm256_castsi256_pd(_mm256_slli_epi64::<52>(_mm256_sub_epi64(int(2 * 1023), hi)));
        let x_negative = _mm256_cmp_pd::<_CMP_LT_OQ>(x, _mm256_setzero_pd());
        let r = atan2_core(_mm256_mul_pd(a, scale), _mm256_mul_pd(b, scale), x_negative);
        let r = _mm256_or_pd(_mm256_andnot_pd(sign, r), _mm256_and_pd(sign, y));
        (r, _mm256_movemask_pd(_mm256_castsi256_pd(common)))
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
            state
        };
        for i in 0..100_000 {
            // Half the pairs from random bits, half from ordinary magnitudes.
            let (x, y) = if i % 2 == 0 {
                (f64::from_bits(next()), f64::from_bits(next()))
            } else {
                let u = |v: u64| (v >> 11) as f64 / (1u64 << 53) as f64;
                (u(next()) * 100.0, u(next()) * 16.0 - 8.0)
            };
            // SAFETY: the CPU has FMA (checked above).
            let (pow, atan2) = unsafe { (super::fma::pow(x, y), super::fma::atan2(y, x)) };
            assert_eq!(super::pow_any(x, y).to_bits(), pow.to_bits(), "pow({x:e}, {y:e})");
            assert_eq!(super::atan2_any(y, x).to_bits(), atan2.to_bits(), "atan2({y:e}, {x:e})");
        }
    }
}
