//! Double-double arithmetic (an unevaluated sum of two f64, about 106 bits) for the one
//! kernel that needs more than f64: logaddexp, whose usual formula
//! `hi + log1p(exp(lo - hi))` loses every correct digit next to a zero result. The complex
//! functions use its exact sum and product (next to the unit circle) and its `expm1` and
//! `sin_cos` (where complex `expm1`'s real part cancels).

/// `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dd {
    pub(crate) hi: f64,
    pub(crate) lo: f64,
}

/// ln 2 as a double-double.
const LN2: Dd = Dd { hi: std::f64::consts::LN_2, lo: 2.319_046_813_846_299_6e-17 };

/// `a + b` exactly, as the rounded sum and its error (Knuth).
pub(crate) fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd { hi: s, lo: (a - (s - bb)) + (b - bb) }
}

/// `a × b` exactly, as the rounded product and its error (by fma).
pub(crate) fn two_prod(a: f64, b: f64) -> Dd {
    let p = a * b;
    Dd { hi: p, lo: a.mul_add(b, -p) }
}

/// `a + b`, to about 106 bits.
pub(crate) fn add(a: Dd, b: Dd) -> Dd {
    let s = two_sum(a.hi, b.hi);
    let t = two_sum(a.lo, b.lo);
    let u = two_sum(s.hi, s.lo + t.hi);
    two_sum(u.hi, u.lo + t.lo)
}

/// `a × b`, to about 106 bits.
pub(crate) fn mul(a: Dd, b: Dd) -> Dd {
    let p = two_prod(a.hi, b.hi);
    two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi))
}

/// `a / d`: the f64 quotient, refined by the exact remainder `a - q d`.
fn div(a: Dd, d: f64) -> Dd {
    let q = a.hi / d;
    let p = two_prod(q, d);
    let remainder = add(a, Dd { hi: -p.hi, lo: -p.lo });
    two_sum(q, remainder.hi / d)
}

fn scale(a: Dd, k: f64) -> Dd {
    Dd { hi: a.hi * k, lo: a.lo * k }
}

/// `exp(t) - 1` by its Taylor series, for `|t| <= ln 2 / 2` (relative accuracy kept for tiny `t`).
fn expm1_reduced(t: Dd) -> Dd {
    let (mut term, mut sum) = (t, t);
    for n in 2..=30 {
        term = div(mul(term, t), n as f64);
        sum = add(sum, term);
        if term.hi.abs() <= sum.hi.abs() * 1e-34 {
            break;
        }
    }
    sum
}

/// `exp(x)` for finite `x` in [-745, 710], to about 100 bits: `x = k ln 2 + t` with
/// `|t| <= ln 2 / 2`, so `exp(x) = 2^k (1 + expm1(t))`.
fn exp(x: Dd) -> Dd {
    let k = (x.hi / LN2.hi).round();
    let t = add(x, mul(LN2, Dd { hi: -k, lo: 0.0 }));
    let e = add(Dd { hi: 1.0, lo: 0.0 }, expm1_reduced(t));
    // 2^k in two steps, so that neither factor overflows or underflows on its own.
    let half = (k / 2.0).trunc();
    scale(scale(e, 2f64.powi(half as i32)), 2f64.powi((k - half) as i32))
}

/// `exp(x) - 1`, keeping relative accuracy where the result is small.
pub(crate) fn expm1(x: Dd) -> Dd {
    if x.hi.abs() <= LN2.hi / 2.0 { expm1_reduced(x) } else { add(exp(x), Dd { hi: -1.0, lo: 0.0 }) }
}

/// π/2 as an unevaluated sum of three f64 (about 160 bits).
const HALF_PI: [f64; 3] =
    [std::f64::consts::FRAC_PI_2, 6.123_233_995_736_766e-17, -1.497_384_904_859_169_8e-33];

/// `(sin x, cos x)` for `|x| <= 2^20`, to about 100 bits (absolute, and relative unless `x` is
/// next to a multiple of π/2): `x = k π/2 + r` with `|r| <= π/4`, then the Taylor series of
/// `sin r` and `cos r`.
pub(crate) fn sin_cos(x: f64) -> (Dd, Dd) {
    let k = (x / HALF_PI[0]).round();
    let p0 = two_prod(-k, HALF_PI[0]);
    let p1 = two_prod(-k, HALF_PI[1]);
    let r = add(add(Dd { hi: x, lo: 0.0 }, p0), add(p1, Dd { hi: -k * HALF_PI[2], lo: 0.0 }));
    let minus_r2 = scale(mul(r, r), -1.0);
    let (mut sin, mut cos) = (r, Dd { hi: 1.0, lo: 0.0 });
    let (mut ts, mut tc) = (sin, cos);
    // |r|^30 / 30! < 2^-120.
    for n in 1..=15 {
        let m = f64::from(2 * n);
        tc = div(mul(tc, minus_r2), (m - 1.0) * m);
        ts = div(mul(ts, minus_r2), m * (m + 1.0));
        cos = add(cos, tc);
        sin = add(sin, ts);
    }
    let neg = |v: Dd| scale(v, -1.0);
    match (k as i64).rem_euclid(4) {
        0 => (sin, cos),
        1 => (cos, neg(sin)),
        2 => (neg(sin), neg(cos)),
        _ => (neg(cos), sin),
    }
}

/// `log1p(v)` for `v` in (0, 1], to about 100 bits relative: one Newton step on `expm1` from
/// the f64 value, `y - (expm1(y) - v) / (1 + v)`.
fn log1p(v: Dd) -> Dd {
    let y = Dd { hi: v.hi.ln_1p(), lo: 0.0 };
    let residual = add(expm1(y), Dd { hi: -v.hi, lo: -v.lo });
    add(y, div(residual, -(1.0 + v.hi)))
}

/// `log(exp(x) + exp(y))` in f64, correct to about one ulp for every input.
pub fn logaddexp(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let (hi, lo) = if x >= y { (x, y) } else { (y, x) };
    if hi.is_infinite() || lo.is_infinite() {
        // +inf wins; two -infs stay -inf; -inf with a finite value leaves that value.
        return hi;
    }
    let gap = two_sum(lo, -hi);
    if gap.hi < -745.0 {
        return hi;
    }
    let l = log1p(exp(gap));
    let s = two_sum(hi, l.hi);
    s.hi + (s.lo + l.lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_log1p_are_accurate() {
        let e = exp(Dd { hi: 1.0, lo: 0.0 });
        assert_eq!(e.hi, std::f64::consts::E);
        // e = 2.718281828459045 + 1.4456468917292502e-16
        assert!((e.lo - 1.445_646_891_729_250_2e-16).abs() < 1e-31, "{e:?}");
        let l = log1p(Dd { hi: 1.0, lo: 0.0 });
        assert_eq!(l.hi, LN2.hi);
        assert!((l.lo - LN2.lo).abs() < 1e-31, "{l:?}");
    }

    #[test]
    fn sin_cos_are_accurate() {
        // The libm's values to within an ulp, and sin² + cos² = 1 to about 100 bits.
        for x in [0.1, 0.5, 1.0, 2.0, 3.0, -4.0, 100.0, 1e5] {
            let (s, c) = sin_cos(x);
            let ulp = |v: f64| f64::EPSILON * v.abs();
            assert!((s.hi - x.sin()).abs() <= ulp(s.hi) && (c.hi - x.cos()).abs() <= ulp(c.hi), "{x}");
            let one = add(mul(s, s), mul(c, c));
            assert!((one.hi - 1.0 + one.lo).abs() < 1e-30, "{x}: {one:?}");
        }
        // sin(π) = π - HALF_PI·2 (the double nearest π misses by 1.2246467991473532e-16).
        let (s, _) = sin_cos(std::f64::consts::PI);
        assert!((s.hi - 1.224_646_799_147_353_2e-16).abs() < 1e-31, "{s:?}");
    }

    #[test]
    fn logaddexp_next_to_zero() {
        assert_eq!(logaddexp(0.0, 0.0), std::f64::consts::LN_2);
        assert_eq!(logaddexp(f64::NEG_INFINITY, 3.0), 3.0);
        assert_eq!(logaddexp(1000.0, 0.0), 1000.0);
        // ln(e^-ln2 + e^-ln2) = 0 up to ln2's rounding: tiny, and of the right sign.
        let r = logaddexp(-std::f64::consts::LN_2, -std::f64::consts::LN_2);
        assert!(r.abs() < 1e-16 && r != 0.0, "{r}");
    }
}
