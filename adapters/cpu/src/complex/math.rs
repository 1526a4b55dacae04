//! The complex elementary functions on f64 parts, with the array API's special cases (which
//! are C99 Annex G's, but for a few rows it states differently).
//!
//! The algorithms follow the well-known ones: C99 Annex G and musl for `exp`, `log` and
//! `sqrt`; Kahan's formula and FreeBSD msun's `ccosh`/`csinh`/`ctanh` for the hyperbolic
//! functions; and Hull, Fairgrieve and Tang's algorithm (as in msun's `catrig.c`) for `asinh`,
//! `acos` and `atanh`, with `acosh` from `acos`. The real functions underneath are the C
//! math library's (through std, and directly for `atanh`, declared in `unary`). Where the usual
//! formula cancels, this module works around it:
//!
//! - `log` near `|z| = 1` takes `log1p` of `a² + b² - 1` summed exactly from the squares'
//!   double-double products, and `log1p` does the same with `2a + a² + b²`;
//! - `sqrt` scales by an even power of two before `hypot`, so that nothing overflows or
//!   underflows, and takes the smaller part from the quotient `b / 2t`;
//! - `exp`, `cosh` and `sinh` multiply by `e^(a/2)` twice where `e^a` alone would overflow
//!   and the result would not; `tanh` is `±1 + 4 sin b cos b e^(-2|a|) i` for `|a| >= 22`;
//! - `asinh`, `acos` and `atanh` use their asymptotic forms (`log(2z)`, `1/z`) beyond 2^52,
//!   so that no square overflows.
//!
//! - `expm1`'s real part, `expm1(a) cos b - 2 sin²(b/2)`, cancels next to the curve
//!   `e^a cos b = 1`; there it is computed in double-double (for `|b| <= 2^21`; beyond, its
//!   error is a few ulps of the larger term, not of the result).

use std::f64::consts::{FRAC_PI_2, LN_2, LN_10};

use opspec_adapter::Complex;

use super::{C, exponent, scale};
use crate::double_double::{self, Dd, two_prod, two_sum};

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;
const EPS: f64 = f64::EPSILON;
/// 2^52: beyond it, `asinh`, `acos` and `atanh` take their asymptotic forms.
const LARGE: f64 = 1.0 / f64::EPSILON;
/// 2^-27: below it in both parts, `asinh(z) = atanh(z) = z` and `acos(z) = π/2 - z` to
/// within half an ulp (the next terms are `|z|²/6` and `|z|²/3` relative).
const SMALL: f64 = 7.450_580_596_923_828e-9;
/// 4·sqrt(f64::MIN_POSITIVE) = 2^-509.
const FOUR_SQRT_MIN: f64 = 5.966_672_584_960_166e-154;
/// Above this ratio `asin(B)` loses accuracy and the angle comes from `atan2` instead.
const B_CROSSOVER: f64 = 0.6417;
/// Where `e^a` overflows, `e^(a/2)` is multiplied in twice.
const EXP_SPLIT: f64 = 709.0;

fn c(re: f64, im: f64) -> C {
    Complex::new(re, im)
}

/// `1j * z`, exactly.
fn times_i(z: C) -> C {
    c(-z.im, z.re)
}

/// `-1j * z`, exactly.
fn times_minus_i(z: C) -> C {
    c(z.im, -z.re)
}

/// `e^z`.
pub(super) fn exp(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if b == 0.0 {
        return c(a.exp(), b);
    }
    if a.is_infinite() && !b.is_finite() {
        return if a > 0.0 { c(a, NAN) } else { c(0.0, 0.0f64.copysign(b)) };
    }
    // From here a NaN or an infinite b gives NaN + NaN j through sin and cos.
    let (sin, cos) = b.sin_cos();
    if a > EXP_SPLIT {
        let h = (0.5 * a).exp();
        c(h * cos * h, h * sin * h)
    } else {
        let e = a.exp();
        c(e * cos, e * sin)
    }
}

/// `e^z - 1`: `expm1(a) cos b - 2 sin²(b/2) + e^a sin b j`.
pub(super) fn expm1(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if b == 0.0 {
        return c(a.exp_m1(), b);
    }
    if a == f64::NEG_INFINITY {
        return c(-1.0, if b.is_finite() { 0.0 * b.sin() } else { 0.0f64.copysign(b) });
    }
    if a == INF && !b.is_finite() {
        return c(a, NAN);
    }
    let (sin, cos) = b.sin_cos();
    if a > EXP_SPLIT {
        let h = (0.5 * a).exp();
        return c(h * cos * h - 1.0, h * sin * h);
    }
    let half = (0.5 * b).sin();
    let versine = 2.0 * half * half;
    let re = a.exp_m1().mul_add(cos, -versine);
    // Where the two terms cancel (next to e^a cos b = 1), in double-double instead.
    let re = if re.abs() < 0.5 * versine && b.abs() <= 2097152.0 { expm1_real_part(a, b) } else { re };
    c(re, a.exp() * sin)
}

/// `e^a cos b - 1 = expm1(a) - 2 sin²(b/2) e^a` in double-double, for `a <= 709` and
/// `|b| <= 2^21`.
fn expm1_real_part(a: f64, b: f64) -> f64 {
    let u = double_double::expm1(Dd { hi: a, lo: 0.0 });
    let (s, _) = double_double::sin_cos(0.5 * b);
    let e = double_double::add(u, Dd { hi: 1.0, lo: 0.0 });
    let v = double_double::mul(double_double::mul(s, s), e);
    double_double::add(u, Dd { hi: -2.0 * v.hi, lo: -2.0 * v.lo }).hi
}

/// The principal logarithm: `ln |z| + atan2(b, a) j`.
pub(super) fn log(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if a.is_nan() || b.is_nan() {
        return c(if a.is_infinite() || b.is_infinite() { INF } else { NAN }, NAN);
    }
    c(log_abs(a, b), b.atan2(a))
}

/// `log(z) / ln 2`.
pub(super) fn log2(z: C) -> C {
    let w = log(z);
    c(w.re / LN_2, w.im / LN_2)
}

/// `log(z) / ln 10`.
pub(super) fn log10(z: C) -> C {
    let w = log(z);
    c(w.re / LN_10, w.im / LN_10)
}

/// `ln |a + bj|` of non-NaN parts: `-inf` at zero, `+inf` where a part is infinite.
fn log_abs(a: f64, b: f64) -> f64 {
    let (x, y) = (a.abs().max(b.abs()), a.abs().min(b.abs()));
    if x.is_infinite() {
        INF
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if (0.5..2.0).contains(&x) {
        0.5 * unit_excess(x, y).ln_1p()
    } else {
        // Scaled to a larger part in [1, 2): x² + y² neither overflows nor underflows.
        let k = exponent(x);
        let (x, y) = (scale(x, -k), scale(y, -k));
        f64::from(k).mul_add(LN_2, 0.5 * x.mul_add(x, y * y).ln())
    }
}

/// `x² + y² - 1`, with the squares' rounding errors kept (accurate next to the unit circle).
fn unit_excess(x: f64, y: f64) -> f64 {
    let (xx, yy) = (two_prod(x, x), two_prod(y, y));
    let s = two_sum(xx.hi, -1.0);
    let t = two_sum(s.hi, yy.hi);
    t.hi + ((s.lo + t.lo) + (xx.lo + yy.lo))
}

/// `2a + a² + b² = |1 + z|² - 1`, with the squares' rounding errors kept.
fn shifted_excess(a: f64, b: f64) -> f64 {
    let (aa, bb) = (two_prod(a, a), two_prod(b, b));
    let s = two_sum(2.0 * a, aa.hi);
    let t = two_sum(s.hi, bb.hi);
    t.hi + ((s.lo + t.lo) + (aa.lo + bb.lo))
}

/// `log(1 + z)`, accurate for small `z` and next to `|1 + z| = 1`.
pub(super) fn log1p(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if !(a.is_finite() && b.is_finite()) {
        // Adding one changes no infinity or NaN.
        return log(c(a + 1.0, b));
    }
    // Below 2^500 the squares cannot overflow; above, 1 + a is a close enough.
    let re = if a.abs().max(b.abs()) < 3.273_390_607_896_142e150 {
        let d = shifted_excess(a, b);
        // Where |1 + z|² < 1/2, 1 + a is exact or nearly (a is in (-1.71, -0.29)) and
        // log1p(d) would lose 1 + d's digits.
        if d >= -0.5 { 0.5 * d.ln_1p() } else { log_abs(1.0 + a, b) }
    } else {
        log_abs(1.0 + a, b)
    };
    c(re, b.atan2(1.0 + a))
}

/// The principal square root, with a nonnegative real part.
///
/// `sqrt(NaN - inf j)` is NaN + NaN j, as the standard's bullet 8 states for a NaN `a` and
/// any `b` but `+inf` (C99's `csqrt` gives `+inf - inf j`, the conjugate of bullet 2's).
pub(super) fn sqrt(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if b == INF {
        return c(INF, b);
    }
    if a.is_nan() {
        return c(NAN, NAN);
    }
    if b.is_infinite() {
        return c(INF, b);
    }
    if a.is_infinite() {
        return if a > 0.0 {
            c(a, if b.is_nan() { b } else { 0.0f64.copysign(b) })
        } else {
            c(if b.is_nan() { NAN } else { 0.0 }, INF.copysign(b))
        };
    }
    if b.is_nan() {
        return c(NAN, NAN);
    }
    if a == 0.0 && b == 0.0 {
        return c(0.0, b);
    }
    // t = sqrt((|a| + |z|) / 2), computed on the parts scaled by an even power of two to a
    // larger part in [1, 4); the other part is b / 2t, from the unscaled b.
    let k = exponent(a.abs().max(b.abs())) & !1;
    let (x, y) = (scale(a, -k), scale(b, -k));
    let t = scale((0.5 * (x.abs() + x.hypot(y))).sqrt(), k / 2);
    if a >= 0.0 { c(t, b / (2.0 * t)) } else { c(b.abs() / (2.0 * t), t.copysign(b)) }
}

/// `cosh(z) = cosh a cos b + sinh a sin b j`.
pub(super) fn cosh(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if b == 0.0 {
        return c(a.cosh(), 0.0f64.copysign(a) * b);
    }
    if !b.is_finite() {
        return if a == 0.0 {
            c(NAN, 0.0f64.copysign(a) * 1.0f64.copysign(b))
        } else if a.is_infinite() {
            c(INF, NAN)
        } else {
            c(NAN, NAN)
        };
    }
    let (sin, cos) = b.sin_cos();
    if a.abs() > EXP_SPLIT {
        // cosh a = |sinh a| = e^|a| / 2 to f64 precision.
        let h = (0.5 * a.abs()).exp();
        c(0.5 * h * cos * h, 0.5f64.copysign(a) * h * sin * h)
    } else {
        c(a.cosh() * cos, a.sinh() * sin)
    }
}

/// `sinh(z) = sinh a cos b + cosh a sin b j`.
pub(super) fn sinh(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if b == 0.0 {
        return c(a.sinh(), b);
    }
    if !b.is_finite() {
        return if a == 0.0 || a.is_infinite() { c(a, NAN) } else { c(NAN, NAN) };
    }
    let (sin, cos) = b.sin_cos();
    if a.abs() > EXP_SPLIT {
        let h = (0.5 * a.abs()).exp();
        c(0.5f64.copysign(a) * h * cos * h, 0.5 * h * sin * h)
    } else {
        c(a.sinh() * cos, a.cosh() * sin)
    }
}

/// `tanh(z)` by Kahan's formula: with `t = tan b`, `β = 1 + t²`, `s = sinh a` and
/// `ρ = cosh a`, `tanh z = (β ρ s + t j) / (1 + β s²)`.
pub(super) fn tanh(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if b == 0.0 {
        return c(a.tanh(), b);
    }
    if a.is_infinite() {
        return c(1.0f64.copysign(a), 0.0f64.copysign(b));
    }
    if !b.is_finite() {
        return if a == 0.0 { c(a, NAN) } else { c(NAN, NAN) };
    }
    if a.abs() >= 22.0 {
        // 1 - |tanh a| < 2^-63 here; the imaginary part is sin 2b / (cosh 2a + cos 2b).
        let e = (-a.abs()).exp();
        return c(1.0f64.copysign(a), 4.0 * b.sin() * b.cos() * e * e);
    }
    let t = b.tan();
    let beta = t.mul_add(t, 1.0);
    let s = a.sinh();
    let rho = s.mul_add(s, 1.0).sqrt();
    let d = (beta * s).mul_add(s, 1.0);
    c(beta * rho * s / d, t / d)
}

/// `sin(z) = -1j * sinh(1j * z)`.
pub(super) fn sin(z: C) -> C {
    times_minus_i(sinh(times_i(z)))
}

/// `cos(z) = cosh(1j * z)`.
pub(super) fn cos(z: C) -> C {
    cosh(times_i(z))
}

/// `tan(z) = -1j * tanh(1j * z)`.
pub(super) fn tan(z: C) -> C {
    times_minus_i(tanh(times_i(z)))
}

/// `asin(z) = -1j * asinh(1j * z)`.
pub(super) fn asin(z: C) -> C {
    times_minus_i(asinh(times_i(z)))
}

/// `atan(z) = -1j * atanh(1j * z)`.
pub(super) fn atan(z: C) -> C {
    times_minus_i(atanh(times_i(z)))
}

/// How [`hard_work`] gives the angle `asin(y / A)` of `asinh(x + yj)`.
enum Angle {
    /// `B = y / A`, where `asin(B)` (or `acos(B)`) is accurate.
    Ratio(f64),
    /// `y` and `sqrt(A² - y²)`, scaled alike: the angle is `atan2(opposite, adjacent)`.
    Sides { opposite: f64, adjacent: f64 },
}

/// `(h - b) / 2` where `h = hypot(a, b)`, without cancellation.
fn half_excess(a: f64, b: f64, h: f64) -> f64 {
    if b < 0.0 {
        (h - b) / 2.0
    } else if b == 0.0 {
        a / 2.0
    } else {
        a * a / (h + b) / 2.0
    }
}

/// For `x + yj` with `0 <= x, y <= 2^52`, not both below [`SMALL`]: the real part of
/// `asinh`, `ln(A + sqrt(A² - 1))` with `A = (|z + j| + |z - j|) / 2`, and the angle
/// `asin(y / A)`, each computed where it does not cancel (Hull, Fairgrieve and Tang).
fn hard_work(x: f64, y: f64) -> (f64, Angle) {
    let r = x.hypot(y + 1.0);
    let s = x.hypot(y - 1.0);
    let a = 0.5 * (r + s);
    let re = if a >= 10.0 {
        (a + a.mul_add(a, -1.0).sqrt()).ln()
    } else if y == 1.0 && x < EPS * EPS / 128.0 {
        x.sqrt()
    } else if x >= EPS * (y - 1.0).abs() {
        let am1 = half_excess(x, 1.0 + y, r) + half_excess(x, 1.0 - y, s);
        (am1 + (am1 * (a + 1.0)).sqrt()).ln_1p()
    } else if y < 1.0 {
        x / ((1.0 - y) * (1.0 + y)).sqrt()
    } else {
        ((y - 1.0) + ((y - 1.0) * (y + 1.0)).sqrt()).ln_1p()
    };
    if y < FOUR_SQRT_MIN {
        // A² - y² is A² to f64 precision; both sides scaled up so that y keeps its digits.
        return (re, Angle::Sides { opposite: y * (2.0 / EPS), adjacent: a * (2.0 / EPS) });
    }
    let ratio = y / a;
    if ratio <= B_CROSSOVER {
        return (re, Angle::Ratio(ratio));
    }
    let (opposite, adjacent) = if y == 1.0 && x < EPS / 128.0 {
        (y, x.sqrt() * ((a + y) / 2.0).sqrt())
    } else if x >= EPS * (y - 1.0).abs() {
        let amy = half_excess(x, y + 1.0, r) + half_excess(x, y - 1.0, s);
        (y, (amy * (a + y)).sqrt())
    } else if y > 1.0 {
        let k = 4.0 / EPS / EPS;
        (y * k, x * k * y / ((y + 1.0) * (y - 1.0)).sqrt())
    } else {
        (y, ((1.0 - y) * (1.0 + y)).sqrt())
    };
    (re, Angle::Sides { opposite, adjacent })
}

/// The inverse hyperbolic sine, odd and conjugate-symmetric.
pub(super) fn asinh(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if a.is_nan() || b.is_nan() {
        // asinh(NaN ± inf j) = ±inf + NaN j, the sign unspecified: a's (odd and conjugate-
        // symmetric, NaN's sign bit included).
        return if a.is_infinite() {
            c(a, NAN)
        } else if b.is_infinite() {
            c(INF.copysign(a), NAN)
        } else if b == 0.0 {
            c(NAN, b)
        } else {
            c(NAN, NAN)
        };
    }
    let (x, y) = (a.abs(), b.abs());
    let (re, im) = if x > LARGE || y > LARGE {
        // asinh z = ln 2z to within |z|^-2 relative.
        let w = log(c(x, y));
        (w.re + LN_2, w.im)
    } else if x < SMALL && y < SMALL {
        (x, y)
    } else {
        let (re, angle) = hard_work(x, y);
        let im = match angle {
            Angle::Ratio(ratio) => ratio.asin(),
            Angle::Sides { opposite, adjacent } => opposite.atan2(adjacent),
        };
        (re, im)
    };
    c(re.copysign(a), im.copysign(b))
}

/// The inverse cosine, with a real part in `[0, π]`.
pub(super) fn acos(z: C) -> C {
    let (a, b) = (z.re, z.im);
    if a.is_nan() || b.is_nan() {
        // acos(±inf + NaN j) = NaN ± inf j, the sign unspecified: -b's (conjugate-symmetric).
        return if a.is_infinite() {
            c(NAN, INF.copysign(-b))
        } else if b.is_infinite() {
            c(NAN, -b)
        } else if a == 0.0 {
            c(FRAC_PI_2, NAN)
        } else {
            c(NAN, NAN)
        };
    }
    if a == 1.0 && b == 0.0 {
        return c(0.0, -b);
    }
    let (x, y) = (a.abs(), b.abs());
    if x < SMALL && y < SMALL {
        return c(FRAC_PI_2 - a, -b);
    }
    // re in [0, π] and im = -sign(b) |im|.
    let (re, im) = if x > LARGE || y > LARGE {
        // acos z = arg z - ln 2z j to within |z|^-2 relative (upper half plane).
        let w = log(c(a, y));
        (w.im, w.re + LN_2)
    } else {
        let (im, angle) = hard_work(y, x);
        let re = match angle {
            Angle::Ratio(ratio) => if a.is_sign_negative() { -ratio } else { ratio }.acos(),
            Angle::Sides { opposite, adjacent } => {
                adjacent.atan2(if a.is_sign_negative() { -opposite } else { opposite })
            }
        };
        (re, im)
    };
    c(re, if b.is_sign_negative() { im } else { -im })
}

/// The inverse hyperbolic cosine, `±1j * acos(z)` with a nonnegative real part.
pub(super) fn acosh(z: C) -> C {
    let w = acos(z);
    match (w.re.is_nan(), w.im.is_nan()) {
        (true, true) => c(NAN, NAN),
        (true, false) => c(w.im.abs(), NAN),
        // acosh(±0 + NaN j) = NaN ± πj/2, the sign unspecified: b's (conjugate-symmetric).
        (false, true) => c(NAN, w.re.copysign(z.im)),
        (false, false) => c(w.im.abs(), w.re.copysign(z.im)),
    }
}

/// `Re(1 / (x + yj)) = x / (x² + y²)`, without overflow or underflow in the squares.
fn real_part_reciprocal(x: f64, y: f64) -> f64 {
    if x.is_infinite() {
        return 1.0 / x;
    }
    if y.is_infinite() {
        return x / y / y;
    }
    let k = exponent(x.abs().max(y.abs()));
    let (x, y) = (scale(x, -k), scale(y, -k));
    scale(x / x.mul_add(x, y * y), -k)
}

/// The inverse hyperbolic tangent, odd and conjugate-symmetric.
pub(super) fn atanh(z: C) -> C {
    let (a, b) = (z.re, z.im);
    let (x, y) = (a.abs(), b.abs());
    if b == 0.0 && x <= 1.0 {
        return c(crate::unary::atanh(a), b);
    }
    if a == 0.0 {
        return c(a, b.atan());
    }
    if a.is_nan() || b.is_nan() {
        return if a.is_infinite() {
            c(0.0f64.copysign(a), NAN)
        } else if b.is_infinite() {
            c(0.0f64.copysign(a), FRAC_PI_2.copysign(b))
        } else {
            c(NAN, NAN)
        };
    }
    if x > LARGE || y > LARGE {
        // atanh z = 1/z + πj/2 sign(b) to within |z|^-2 relative.
        return c(real_part_reciprocal(a, b), FRAC_PI_2.copysign(b));
    }
    if x < SMALL && y < SMALL {
        return z;
    }
    // re = ln(|1 + z|² / |1 - z|²) / 4, im = atan2(2y, 1 - x² - y²) / 2.
    let re = if x == 1.0 && y < EPS {
        (LN_2 - y.ln()) / 2.0
    } else {
        let xm1 = x - 1.0;
        (4.0 * x / xm1.mul_add(xm1, y * y)).ln_1p() / 4.0
    };
    let im = if x == 1.0 {
        2.0f64.atan2(-y) / 2.0
    } else {
        let d = (1.0 - x) * (1.0 + x);
        (2.0 * y).atan2(if y < EPS { d } else { (-y).mul_add(y, d) }) / 2.0
    };
    c(re.copysign(a), im.copysign(b))
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{E, FRAC_PI_4, PI};

    use super::*;

    type Function = fn(C) -> C;

    /// Every function of this module, by name.
    const FUNCTIONS: [(&str, Function); 19] = [
        ("exp", exp),
        ("expm1", expm1),
        ("log", log),
        ("log1p", log1p),
        ("log2", log2),
        ("log10", log10),
        ("sqrt", sqrt),
        ("sin", sin),
        ("cos", cos),
        ("tan", tan),
        ("sinh", sinh),
        ("cosh", cosh),
        ("tanh", tanh),
        ("asin", asin),
        ("acos", acos),
        ("atan", atan),
        ("asinh", asinh),
        ("acosh", acosh),
        ("atanh", atanh),
    ];

    /// The same bits, or both NaN.
    fn same(x: C, y: C) -> bool {
        let eq = |p: f64, q: f64| p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan();
        eq(x.re, y.re) && eq(x.im, y.im)
    }

    /// `|got - want| <= tol |want|` (normwise).
    fn close(got: C, want: C, tol: f64) -> bool {
        let err = (got.re - want.re).hypot(got.im - want.im);
        err <= tol * want.re.hypot(want.im)
    }

    fn assert_close(what: &str, z: C, got: C, want: C, tol: f64) {
        assert!(close(got, want, tol), "{what}({z:?}) = {got:?}, want {want:?} within {tol:e}");
    }

    /// Each part within `tol` relative of its own value (for parts of very different sizes).
    fn assert_parts(what: &str, got: C, want: C, tol: f64) {
        let ok = |g: f64, w: f64| (g - w).abs() <= tol * w.abs();
        assert!(ok(got.re, want.re) && ok(got.im, want.im), "{what} = {got:?}, want {want:?}");
    }

    fn mul(x: C, y: C) -> C {
        c(x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re)
    }

    fn add(x: C, y: C) -> C {
        c(x.re + y.re, x.im + y.im)
    }

    fn neg(z: C) -> C {
        c(-z.re, -z.im)
    }

    fn conj(z: C) -> C {
        c(z.re, -z.im)
    }

    fn div(x: C, y: C) -> C {
        let d = y.re * y.re + y.im * y.im;
        c((x.re * y.re + x.im * y.im) / d, (x.im * y.re - x.re * y.im) / d)
    }

    /// A deterministic stream of values uniform in `[lo, hi)` (an LCG; no dependency).
    struct Stream(u64);

    impl Stream {
        fn next(&mut self, lo: f64, hi: f64) -> f64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
        }

        fn z(&mut self, re: (f64, f64), im: (f64, f64)) -> C {
            c(self.next(re.0, re.1), self.next(im.0, im.1))
        }
    }

    #[test]
    fn known_values() {
        let tol = 4.0 * EPS;
        // Exact by IEEE arithmetic in these algorithms.
        assert!(same(log(c(-1.0, 0.0)), c(0.0, PI)));
        assert!(same(log(c(0.0, 1.0)), c(0.0, FRAC_PI_2)));
        assert!(same(sqrt(c(-4.0, 0.0)), c(0.0, 2.0)));
        assert!(same(sqrt(c(-4.0, -0.0)), c(0.0, -2.0)));
        assert!(same(sqrt(c(3.0, 4.0)), c(2.0, 1.0)));
        assert!(same(sqrt(c(f64::from_bits(1), 0.0)), c(2f64.powi(-537), 0.0)));
        assert!(same(exp(c(1.0, 0.0)), c(E, 0.0)));
        assert!(same(asinh(c(0.0, 1.0)), c(0.0, FRAC_PI_2)));
        assert!(same(tanh(c(1000.0, 1.0)), c(1.0, 0.0)));
        assert!(same(tanh(c(-1000.0, -1.0)), c(-1.0, -0.0)));
        assert!(same(log1p(c(-1.0, 0.0)), c(f64::NEG_INFINITY, 0.0)));
        // e^(iπ) = -1 + sin(π) j, where sin(π) ≈ 1.22e-16 for the double nearest π.
        assert_close("exp", c(0.0, PI), exp(c(0.0, PI)), c(-1.0, 1.224_646_799_147_353_2e-16), tol);
        assert_parts("exp(iπ)", exp(c(0.0, PI)), c(-1.0, 1.224_646_799_147_353_2e-16), tol);
        // Real arguments agree with the real functions (acosh 2 = ln(2 + √3)).
        let acosh2 = 1.316_957_896_924_816_6;
        assert_close("acos", c(2.0, 0.0), acos(c(2.0, 0.0)), c(0.0, -acosh2), tol);
        assert_close("acosh", c(2.0, 0.0), acosh(c(2.0, 0.0)), c(acosh2, 0.0), tol);
        assert_close("asin", c(2.0, 0.0), asin(c(2.0, 0.0)), c(FRAC_PI_2, acosh2), tol);
        assert_close("atanh", c(2.0, 0.0), atanh(c(2.0, 0.0)), c(0.549_306_144_334_054_8, FRAC_PI_2), tol);
        assert_close("atan", c(0.0, 0.5), atan(c(0.0, 0.5)), c(0.0, 0.549_306_144_334_054_8), tol);
        assert_close("log10", c(-100.0, 0.0), log10(c(-100.0, 0.0)), c(2.0, PI / LN_10), tol);
        assert_close("log2", c(0.0, 8.0), log2(c(0.0, 8.0)), c(3.0, FRAC_PI_2 / LN_2), tol);
        // cos(i) = cosh 1, sin(i) = i sinh 1, cosh(iπ/3) = 1/2.
        assert_close("cos", c(0.0, 1.0), cos(c(0.0, 1.0)), c(1.0f64.cosh(), 0.0), tol);
        assert_close("sin", c(0.0, 1.0), sin(c(0.0, 1.0)), c(0.0, 1.0f64.sinh()), tol);
        assert_close("cosh", c(0.0, PI / 3.0), cosh(c(0.0, PI / 3.0)), c(0.5, 0.0), tol);
        // tan(π/4 + 0j) = 1, tanh(ln 2) = 3/5.
        assert_close("tan", c(FRAC_PI_4, 0.0), tan(c(FRAC_PI_4, 0.0)), c(1.0, 0.0), tol);
        assert_close("tanh", c(LN_2, 0.0), tanh(c(LN_2, 0.0)), c(0.6, 0.0), tol);
    }

    #[test]
    fn special_rows_of_the_standard() {
        let (nan, inf) = (NAN, INF);
        assert!(same(exp(c(f64::NEG_INFINITY, 2.0)), c(-0.0, 0.0)));
        assert!(same(exp(c(inf, 2.0)), c(-inf, inf)));
        assert!(same(expm1(c(f64::NEG_INFINITY, 4.0)), c(-1.0, -0.0)));
        assert!(same(log(c(-inf, inf)), c(inf, 3.0 * FRAC_PI_4)));
        assert!(same(sqrt(c(nan, inf)), c(inf, inf)));
        assert!(same(sqrt(c(nan, -inf)), c(nan, nan)));
        assert!(same(sqrt(c(-inf, -inf)), c(inf, -inf)));
        assert!(same(sqrt(c(-inf, 1.0)), c(0.0, inf)));
        let w = cosh(c(0.0, inf));
        assert!(w.re.is_nan() && w.im == 0.0);
        assert!(same(tanh(c(inf, 2.0)), c(1.0, 0.0)));
        assert!(same(tanh(c(0.0, nan)), c(0.0, nan)));
        assert!(same(acosh(c(0.0, nan)), c(nan, FRAC_PI_2)));
        assert!(same(acos(c(0.0, 0.0)), c(FRAC_PI_2, -0.0)));
        assert!(same(acos(c(inf, 1.0)), c(0.0, -inf)));
        assert!(same(atanh(c(1.0, 0.0)), c(inf, 0.0)));
        assert!(same(atanh(c(nan, inf)), c(0.0, FRAC_PI_2)) || same(atanh(c(nan, inf)), c(-0.0, FRAC_PI_2)));
        assert!(same(asinh(c(nan, 0.0)), c(nan, 0.0)));
    }

    /// `f(conj z) = conj f(z)` on every pair of special values, NaN of either sign included.
    #[test]
    fn conjugate_symmetry_on_special_values() {
        let values = [0.0, -0.0, INF, -INF, NAN, -NAN, 1.0, -1.0, 2.0, 0.5, 1e300, 1e-310];
        for (name, f) in FUNCTIONS {
            for &a in &values {
                for &b in &values {
                    let z = c(a, b);
                    if name == "sqrt" && a.is_nan() && b.is_infinite() {
                        continue; // the standard breaks the symmetry there (see sqrt)
                    }
                    let (direct, mirrored) = (conj(f(z)), f(conj(z)));
                    assert!(
                        same(direct, mirrored),
                        "conj {name}({z:?}) = {direct:?}, {name}(conj z) = {mirrored:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn inverses_and_identities_on_random_values() {
        let mut s = Stream(7);
        for _ in 0..20_000 {
            let z = s.z((-8.0, 8.0), (-3.0, 3.0));
            let tol = 16.0 * EPS;
            assert_close("exp(log)", z, exp(log(z)), z, 8.0 * tol);
            assert_close("log(exp)", z, log(exp(z)), z, 8.0 * tol);
            assert_close("sqrt²", z, mul(sqrt(z), sqrt(z)), z, tol);
            assert!(sqrt(z).re >= 0.0);
            let (e, emz) = (exp(z), exp(neg(z)));
            if z.re.abs() >= 1.0 {
                assert_close("sinh", z, sinh(z), c(0.5 * (e.re - emz.re), 0.5 * (e.im - emz.im)), tol);
            }
            assert_close("cosh", z, cosh(z), c(0.5 * (e.re + emz.re), 0.5 * (e.im + emz.im)), tol);
            // Away from the poles, where the quotient is well conditioned.
            if cosh(z).re.hypot(cosh(z).im) > 1e-3 {
                assert_close("tanh", z, tanh(z), div(sinh(z), cosh(z)), 4.0 * tol);
            }
            if cos(z).re.hypot(cos(z).im) > 1e-3 {
                assert_close("tan", z, tan(z), div(sin(z), cos(z)), 4.0 * tol);
            }
            if z.re.hypot(z.im) >= 1.0 {
                assert_close("expm1", z, expm1(z), add(e, c(-1.0, 0.0)), 64.0 * tol);
                assert_close("log1p", z, log1p(z), log(add(z, c(1.0, 0.0))), tol);
            }
            let w = s.z((-4.0, 4.0), (-1.5, 1.5));
            assert_close("asinh(sinh)", w, asinh(sinh(w)), w, 64.0 * tol);
            let w = s.z((-0.7, 0.7), (-0.7, 0.7));
            assert_close("atanh(tanh)", w, atanh(tanh(w)), w, 64.0 * tol);
            assert_close("atan(tan)", w, atan(tan(w)), w, 64.0 * tol);
            assert_close("asin(sin)", w, asin(sin(w)), w, 64.0 * tol);
            let w = s.z((0.05, 3.0), (-3.0, 3.0));
            assert_close("acos(cos)", w, acos(cos(w)), w, 64.0 * tol);
            let v = c(w.im.abs(), w.re);
            assert_close("acosh(cosh)", v, acosh(cosh(v)), v, 64.0 * tol);
            // acos z + asin z = π/2.
            assert_close("acos + asin", z, add(acos(z), asin(z)), c(FRAC_PI_2, 0.0), 8.0 * tol);
        }
    }

    #[test]
    fn small_arguments_keep_their_digits() {
        let mut s = Stream(11);
        for _ in 0..2000 {
            let z = s.z((-1e-6, 1e-6), (-1e-6, 1e-6));
            let z2 = mul(z, z);
            let z3 = mul(z2, z);
            // z + p z² + q z³: the Taylor series to the term that matters in f64.
            let series = |p: f64, q: f64| add(z, add(c(p * z2.re, p * z2.im), c(q * z3.re, q * z3.im)));
            let cases: [(&str, Function, f64, f64); 10] = [
                ("expm1", expm1, 0.5, 1.0 / 6.0),
                ("log1p", log1p, -0.5, 1.0 / 3.0),
                ("sinh", sinh, 0.0, 1.0 / 6.0),
                ("sin", sin, 0.0, -1.0 / 6.0),
                ("tanh", tanh, 0.0, -1.0 / 3.0),
                ("tan", tan, 0.0, 1.0 / 3.0),
                ("asinh", asinh, 0.0, -1.0 / 6.0),
                ("asin", asin, 0.0, 1.0 / 6.0),
                ("atanh", atanh, 0.0, 1.0 / 3.0),
                ("atan", atan, 0.0, -1.0 / 3.0),
            ];
            for (name, f, p, q) in cases {
                assert_close(name, z, f(z), series(p, q), 4.0 * EPS);
            }
        }
    }

    #[test]
    fn logarithms_next_to_the_unit_circle() {
        // |z|² - 1 = 2^-29 + 2^-40 + 2^-60 exactly, for z = (1 + 2^-30) + 2^-20 j.
        let d = 2f64.powi(-29) + 2f64.powi(-40) + 2f64.powi(-60);
        let z = c(1.0 + 2f64.powi(-30), 2f64.powi(-20));
        assert_parts("log", log(z), c(0.5 * d.ln_1p(), z.im.atan2(z.re)), 2.0 * EPS);
        // |1 + z|² - 1 = 2a + a² + b² = -2^-30 + 2^-60 for z = -2^-30 + 2^-15 j.
        let z = c(-(2f64.powi(-30)), 2f64.powi(-15));
        let d = -(2f64.powi(-30)) + 2f64.powi(-60);
        assert_parts("log1p", log1p(z), c(0.5 * d.ln_1p(), z.im.atan2(1.0 + z.re)), 2.0 * EPS);
        // cos t + i sin t on a grid: |log z| stays tiny relative to the naive formula's error.
        for k in 1..100 {
            let t = f64::from(k) * 0.0314;
            let z = c(t.cos(), t.sin());
            let excess = unit_excess(z.re, z.im);
            assert!(log(z).re == 0.5 * excess.ln_1p());
            assert!(log(z).re.abs() < 1e-15);
        }
    }

    #[test]
    fn expm1_next_to_its_real_zero() {
        // e^a cos b = 1 nearly: the real parts cancel to 1e-16 and 1e-8. References from MPFR
        // (1400 bits).
        let z = c(0.615_626_470_386_014_1, 1.0);
        assert_parts("expm1", expm1(z), c(-1.158_615_903_480_703_1e-16, 1.557_407_724_654_902), 4.0 * EPS);
        let z = c(1.801_853_822_987_595_4e-7, 6.219_489_493_048_857e-4);
        assert_parts("expm1", expm1(z), c(-1.322_487_785_369_332e-8, 6.219_490_212_738_983e-4), 4.0 * EPS);
    }

    #[test]
    fn no_spurious_overflow_or_underflow() {
        let max = f64::MAX;
        let tol = 8.0 * EPS;
        let e = exp(c(709.9, 1.0));
        assert_parts("exp", e, c(708.9f64.exp() * E * 1.0f64.cos(), 708.9f64.exp() * E * 1.0f64.sin()), tol);
        let ch = cosh(c(-710.0, 1.0));
        let half = 0.5 * 709.0f64.exp() * E;
        assert_parts("cosh", ch, c(half * 1.0f64.cos(), -half * 1.0f64.sin()), tol);
        assert_parts("sinh", sinh(c(710.0, -1.0)), c(half * 1.0f64.cos(), -half * 1.0f64.sin()), tol);
        let r = sqrt(c(max, max));
        let t = max.sqrt() * (0.5 * (1.0 + 2f64.sqrt())).sqrt();
        assert_parts("sqrt", r, c(t, max / (2.0 * t)), tol);
        assert_parts("sqrt", sqrt(c(-max, 1e-300)), c(1e-300 / (2.0 * max.sqrt()), max.sqrt()), tol);
        assert_parts("log", log(c(max, max)), c(max.ln() + 0.5 * LN_2, FRAC_PI_4), tol);
        assert_parts("log", log(c(1e-310, 1e-310)), c(1e-310f64.ln() + 0.5 * LN_2, FRAC_PI_4), tol);
        let big = 1e300;
        let w = asinh(c(big, big));
        assert_parts("asinh", w, c(LN_2 + big.ln() + 0.5 * LN_2, FRAC_PI_4), tol);
        let w = acosh(c(big, -big));
        assert_parts("acosh", w, c(LN_2 + big.ln() + 0.5 * LN_2, -FRAC_PI_4), tol);
        let w = atanh(c(big, big));
        assert_parts("atanh", w, c(0.5 / big, FRAC_PI_2), tol);
        let w = tanh(c(30.0, 1.0));
        assert_parts("tanh", w, c(1.0, 4.0 * 1.0f64.sin() * 1.0f64.cos() * (-60.0f64).exp()), tol);
        assert!(exp(c(800.0, 1.0)).re.is_infinite());
    }
}
