//! The reference for complex operations on finite operands: exact component arithmetic, MPFR
//! and MPC.
//!
//! `add`, `subtract`, `multiply` and `divide` of complex numbers with floating-point parts have
//! exact results in the rationals (`(ac + bd) / (c² + d²)` is a quotient of exact products), so
//! rug's `Rational` computes them exactly and MPFR rounds each part once (`mpfr_set_q` is
//! correctly rounded). `abs` and `sign` (`x / |x|`) are not rational: they are computed with
//! MPFR at [`PRECISION`] bits, far beyond any format's, which is exact enough to measure an
//! adapter's error in ULPs (they are judged against a bound, never bit for bit).
//!
//! The transcendental functions ([`TRANSCENDENTAL`]: exp, log, sqrt, the trigonometric and
//! hyperbolic functions and their inverses) are MPC's (rug's `Complex`), which rounds each part
//! correctly at [`PRECISION`] bits, with the branch cuts and the signs of zeros on them of C99's
//! Annex G (the standard's). MPC has no `expm1` or `log1p`: `log1p(x)` is computed from MPFR's
//! real `log1p` and `atan2` on exact values (see [`log1p`]), and `expm1(x)` is `exp(x) - 1` at a precision raised until the real
//! part, whatever the cancellation, keeps [`PRECISION`] bits (the imaginary part, `e^a sin b`,
//! cancels nothing). A result with a part beyond the format's largest finite value has no
//! reference (the `random` check draws another operand; see docs/ACCURACY.md).
//!
//! Special operands (infinities, NaNs, a zero divisor) have no reference: the tables' rows
//! state those results. Values go in and come out as raw bits read through
//! [`Format`](crate::bits::format::Format), the parts' format.

use std::cmp::Ordering;

use opspec_adapter::{BinaryOp, UnaryOp};
use rug::float::Round;
use rug::ops::PowAssign;
use rug::{Complex, Float, Rational};

use crate::bits::format::Format;
use crate::oracle::rounding::{decode, round};

/// The precision, in bits, of the references that are not rational and of error measurement.
pub const PRECISION: u32 = 256;

/// A reference result: its parts, exactly or at [`PRECISION`] bits.
#[derive(Clone, Debug)]
pub enum Reference {
    /// The exact parts (one for a real result, two for a complex one).
    Exact(Vec<Rational>),
    /// The parts at [`PRECISION`] bits.
    Approximate(Vec<Float>),
}

/// The exact value of finite `bits`, or `None` for an infinity or NaN.
fn rational(f: Format, bits: u64) -> Option<Rational> {
    decode(f, bits).to_rational()
}

/// `op(x, y)` of finite complex operands (`[real, imag]` bits of format `f`), exactly; `None`
/// for a non-finite part, a zero divisor or an operation without a reference.
pub fn binary(op: BinaryOp, f: Format, x: [u64; 2], y: [u64; 2]) -> Option<Reference> {
    if op == BinaryOp::Pow {
        return pow(f, x, y);
    }
    let [a, b] = [rational(f, x[0])?, rational(f, x[1])?];
    let [c, d] = [rational(f, y[0])?, rational(f, y[1])?];
    let parts = match op {
        BinaryOp::Add => vec![a + c, b + d],
        BinaryOp::Subtract => vec![a - c, b - d],
        BinaryOp::Multiply => {
            let re = Rational::from(&a * &c) - Rational::from(&b * &d);
            let im = Rational::from(&a * &d) + Rational::from(&b * &c);
            vec![re, im]
        }
        BinaryOp::Divide => {
            let denominator = Rational::from(&c * &c) + Rational::from(&d * &d);
            if denominator == 0 {
                return None;
            }
            let re = (Rational::from(&a * &c) + Rational::from(&b * &d)) / &denominator;
            let im = (Rational::from(&b * &c) - Rational::from(&a * &d)) / &denominator;
            vec![re, im]
        }
        _ => return None,
    };
    Some(Reference::Exact(parts))
}

/// The complex functions computed through MPC, one complex operand each.
pub const TRANSCENDENTAL: [UnaryOp; 17] = [
    UnaryOp::Exp,
    UnaryOp::Expm1,
    UnaryOp::Log,
    UnaryOp::Log1p,
    UnaryOp::Sqrt,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tan,
    UnaryOp::Sinh,
    UnaryOp::Cosh,
    UnaryOp::Tanh,
    UnaryOp::Asin,
    UnaryOp::Acos,
    UnaryOp::Atan,
    UnaryOp::Asinh,
    UnaryOp::Acosh,
    UnaryOp::Atanh,
];

/// `op(x)` of a finite complex operand; `None` for a non-finite part, an operation without a
/// reference (`sign(0)` has a row, not a reference), or a transcendental result with a part
/// beyond the format's range (`exp(1000 + 0j)` in c128, `log(0 + 0j)`).
pub fn unary(op: UnaryOp, f: Format, x: [u64; 2]) -> Option<Reference> {
    let [a, b] = [rational(f, x[0])?, rational(f, x[1])?];
    if TRANSCENDENTAL.contains(&op) {
        return transcendental(op, f, x);
    }
    let modulus = || Float::with_val(PRECISION, Rational::from(&a * &a) + Rational::from(&b * &b)).sqrt();
    match op {
        UnaryOp::Abs => Some(Reference::Approximate(vec![modulus()])),
        UnaryOp::Sign if a != 0 || b != 0 => {
            let m = modulus();
            let part = |v: &Rational| Float::with_val(PRECISION, v) / &m;
            Some(Reference::Approximate(vec![part(&a), part(&b)]))
        }
        UnaryOp::Square => binary(BinaryOp::Multiply, f, x, x),
        _ => None,
    }
}

/// `op(x)` (one of [`TRANSCENDENTAL`]) of finite `x`, each part at [`PRECISION`] bits; `None`
/// where a part rounds to an infinity in `f`.
fn transcendental(op: UnaryOp, f: Format, x: [u64; 2]) -> Option<Reference> {
    let z = Complex::with_val(f.precision(), (decode(f, x[0]), decode(f, x[1])));
    // `w` starts as `z` exactly (PRECISION exceeds every format's), and each `_mut` function
    // rounds the exact result to w's precision.
    let mut w = Complex::with_val(PRECISION, &z);
    match op {
        UnaryOp::Exp => w.exp_mut(),
        UnaryOp::Expm1 => w = expm1(&z),
        UnaryOp::Log => w.ln_mut(),
        UnaryOp::Log1p => w = log1p(&z),
        UnaryOp::Sqrt => w.sqrt_mut(),
        UnaryOp::Sin => w.sin_mut(),
        UnaryOp::Cos => w.cos_mut(),
        UnaryOp::Tan => w.tan_mut(),
        UnaryOp::Sinh => w.sinh_mut(),
        UnaryOp::Cosh => w.cosh_mut(),
        UnaryOp::Tanh => w.tanh_mut(),
        UnaryOp::Asin => w.asin_mut(),
        UnaryOp::Acos => w.acos_mut(),
        UnaryOp::Atan => w.atan_mut(),
        UnaryOp::Asinh => w.asinh_mut(),
        UnaryOp::Acosh => w.acosh_mut(),
        UnaryOp::Atanh => w.atanh_mut(),
        _ => return None,
    }
    let (re, im) = w.into_real_imag();
    let reference = Reference::Approximate(vec![re, im]);
    reference.rounded(f).iter().all(|&part| f.is_finite(part)).then_some(reference)
}

/// `pow(x, y)` of finite operands, `x` not zero, each part at [`PRECISION`] bits: MPC's
/// `mpc_pow`, which is `exp(y * log(x))` with the principal `log` (the standard's definition);
/// `None` where a part rounds to an infinity in `f`.
fn pow(f: Format, x: [u64; 2], y: [u64; 2]) -> Option<Reference> {
    let z = |p: [u64; 2]| Complex::with_val(f.precision(), (decode(f, p[0]), decode(f, p[1])));
    let (x, y) = (z(x), z(y));
    let finite = |w: &Complex| w.real().is_finite() && w.imag().is_finite();
    if !finite(&x) || !finite(&y) || x.real().is_zero() && x.imag().is_zero() {
        return None;
    }
    let mut w = Complex::with_val(PRECISION, &x);
    w.pow_assign(&y);
    let (re, im) = w.into_real_imag();
    let reference = Reference::Approximate(vec![re, im]);
    reference.rounded(f).iter().all(|&part| f.is_finite(part)).then_some(reference)
}

/// `|y * log(x)|` (in f64) for finite `x` and `y` of format `f`: the condition number of `exp`
/// at pow's exponent, which scales pow's bound (docs/ACCURACY.md).
pub fn pow_exponent_size(f: Format, x: [u64; 2], y: [u64; 2]) -> f64 {
    let v = |bits: u64| f.to_f64(bits);
    let (a, b, c, d) = (v(x[0]), v(x[1]), v(y[0]), v(y[1]));
    // log|x| without overflow: the larger part scaled out.
    let m = a.abs().max(b.abs());
    let log_modulus = m.ln() + (a / m).hypot(b / m).ln();
    c.hypot(d) * log_modulus.hypot(b.atan2(a))
}

/// `exp(z) - 1` at [`PRECISION`] bits per part. The subtraction cancels the bits of
/// `Re(exp(z))` above the result's real part, so `exp` is evaluated again at a higher precision
/// until the error left, below `2^(max(e, e_r) - p)` for `Re(exp(z))` below `2^e`, a result
/// below `2^e_r` and precision `p`, is below `2^-PRECISION` of the part.
fn expm1(z: &Complex) -> Complex {
    if z.real().is_zero() && z.imag().is_zero() {
        // exp(±0 ± 0j) - 1 = ±0 ± 0j exactly (the signs are the operand's).
        return Complex::with_val(PRECISION, z);
    }
    let target = PRECISION as i32;
    let mut precision = PRECISION + 64;
    loop {
        let mut w = Complex::with_val(precision, z.exp_ref());
        if !w.real().is_finite() {
            // Beyond MPFR's exponent range, so beyond every format's: no reference.
            return w;
        }
        let before = w.real().get_exp().unwrap_or(1).max(1);
        *w.mut_real() -= 1u32;
        match w.real().get_exp() {
            Some(after) if before.max(after) - precision as i32 <= after - 1 - target => {
                return Complex::with_val(PRECISION, &w);
            }
            // Not yet: the precision that suffices if `after` is about right, and at least twice
            // the last (a cancellation to zero, or an `after` that was mostly error).
            Some(after) => {
                precision = ((target + 1 + before.max(after) - after) as u32 + 8).max(2 * precision)
            }
            None => precision *= 2,
        }
    }
}

/// `log(1 + z)` at [`PRECISION`] bits per part, from exact values: the real part is
/// `log|1 + z| = log1p(u) / 2` with `u = 2a + a² + b²` (`log((1 + a)² + b²) / 2` where `|u| >=
/// 1/2`), so that nothing cancels, and the imaginary part `atan2(b, 1 + a)` with `1 + a` exact.
/// (MPC's `log` of the exact `1 + z` kept only about 17 correct bits of the real part for
/// `a = 3.1e-122, b = -1.4e-183`: its `log |w|` loses `a` when `b` is not zero.)
fn log1p(z: &Complex) -> Complex {
    let (a, b) = (z.real(), z.imag());
    let exact = |x: &Float| x.to_rational().expect("finite parts");
    let one_plus_a = exact(a) + 1u32;
    let norm = Rational::from(&one_plus_a * &one_plus_a) + exact(b).square();
    let u = Rational::from(&norm - 1u32);
    // Guard bits: `log1p(u)` and `log(norm)` amplify the relative error of their rounded
    // operand by at most 2.5 on these ranges.
    let wide = PRECISION + 64;
    let re = if u.clone().abs() < Rational::from((1, 2)) {
        Float::with_val(wide, &u).ln_1p()
    } else {
        Float::with_val(wide, &norm).ln()
    } / 2u32;
    // The bits of 1 + a run from above the larger of 1 and |a| down to a's last bit.
    let precision = match a.get_exp() {
        Some(e) => (e.max(1) - e) as u32 + a.prec() + 1,
        None => a.prec(),
    };
    let (one_plus_a, ord) = Float::with_val_round(precision, &one_plus_a, Round::Nearest);
    debug_assert_eq!(ord, Ordering::Equal, "1 + a is exact at {precision} bits");
    let im = Float::with_val(PRECISION, b.atan2_ref(&one_plus_a));
    Complex::with_val(PRECISION, (Float::with_val(PRECISION, re), im))
}

impl Reference {
    /// The parts at [`PRECISION`] bits.
    fn approximate(&self) -> Vec<Float> {
        match self {
            Reference::Exact(parts) => parts.iter().map(|q| Float::with_val(PRECISION, q)).collect(),
            Reference::Approximate(parts) => parts.clone(),
        }
    }

    /// Each part rounded once to `f` (for an exact reference, the correctly rounded result;
    /// for an approximate one, its rounding at [`PRECISION`] bits rounded again, which can
    /// differ from the correct rounding only next to a tie).
    pub fn rounded(&self, f: Format) -> Vec<u64> {
        match self {
            Reference::Exact(parts) => parts
                .iter()
                .map(|q| {
                    let (value, ord) = Float::with_val_round(f.precision(), q, Round::Nearest);
                    round(f, value, ord)
                })
                .collect(),
            Reference::Approximate(parts) => parts
                .iter()
                .map(|v| {
                    let (value, ord) = Float::with_val_round(f.precision(), v, Round::Nearest);
                    round(f, value, ord)
                })
                .collect(),
        }
    }

    /// The largest error of the parts of `actual` (bits of `f`), in ULPs of the reference's
    /// largest part (its binade's spacing, at least the smallest subnormal): a normwise
    /// measure. Infinite where a part is not finite.
    pub fn normwise_error(&self, f: Format, actual: &[u64]) -> f64 {
        let exact = self.approximate();
        if actual.len() != exact.len() || actual.iter().any(|&x| !f.is_finite(x)) {
            return f64::INFINITY;
        }
        let largest = exact
            .iter()
            .map(|v| Float::with_val(PRECISION, v.abs_ref()))
            .fold(Float::with_val(PRECISION, 0), |m, v| if v > m { v } else { m });
        // The spacing of `largest`'s binade: 2^(e - frac_bits) with 2^e <= largest < 2^(e + 1).
        let e = match largest.get_exp() {
            Some(exp) if largest != 0 => (exp - 1).max(f.emin()),
            _ => f.emin(),
        };
        let ulp = Float::with_val(PRECISION, 1) << (e - f.frac_bits as i32);
        actual
            .iter()
            .zip(&exact)
            .map(|(&x, v)| {
                let diff = Float::with_val(PRECISION, &decode(f, x) - v).abs();
                Float::with_val(64, &diff / &ulp).to_f64()
            })
            .fold(0.0, f64::max)
    }

    /// Whether every part of `actual` is the correctly rounded part. The exact value of a
    /// zero part has no sign, so a zero of either sign is accepted there (the rows state the
    /// signs of zeros where the document does).
    pub fn is_correctly_rounded(&self, f: Format, actual: &[u64]) -> bool {
        let expected = self.rounded(f);
        expected.len() == actual.len()
            && expected.iter().zip(actual).all(|(&e, &a)| e == a || f.is_zero(e) && f.is_zero(a))
    }
}

/// The sign of `cos(v)` and of `sin(v)` (`Less`, `Equal` for a zero, `Greater`) for finite
/// `v`, with `sin(±0)` = `±0` (its sign is the zero's, given as `Less` for `-0`).
pub fn cis_signs(f: Format, v: u64) -> Option<(Ordering, Ordering)> {
    if !f.is_finite(v) {
        return None;
    }
    let x = decode(f, v);
    let cos = Float::with_val(64, x.cos_ref());
    let sin = Float::with_val(64, x.sin_ref());
    let sign = |y: &Float| {
        if y.is_zero() {
            if y.is_sign_negative() { Ordering::Less } else { Ordering::Greater }
        } else if y.is_sign_negative() {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    };
    Some((sign(&cos), sign(&sin)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: f64) -> u64 {
        v.to_bits()
    }

    #[test]
    fn exact_products_and_quotients() {
        let f = Format::F64;
        let x = [bits(1.0), bits(2.0)];
        let y = [bits(3.0), bits(4.0)];
        let product = binary(BinaryOp::Multiply, f, x, y).unwrap();
        assert_eq!(product.rounded(f), [bits(-5.0), bits(10.0)]);
        let quotient = binary(BinaryOp::Divide, f, [bits(-5.0), bits(10.0)], y).unwrap();
        assert_eq!(quotient.rounded(f), [bits(1.0), bits(2.0)]);
        // 1 / (3 + 0j): one rounding of 1/3.
        let third = binary(BinaryOp::Divide, f, [bits(1.0), 0], [bits(3.0), 0]).unwrap();
        assert_eq!(third.rounded(f), [bits(1.0 / 3.0), 0]);
        assert!(binary(BinaryOp::Divide, f, x, [0, 0]).is_none());
        assert!(binary(BinaryOp::Add, f, [f.pos_inf(), 0], y).is_none());
    }

    #[test]
    fn cancellation_is_exact() {
        // (1 + 2^-30 j)(1 - 2^-30 j) = (1 + 2^-60) + 0j exactly; its real part rounds to 1.
        let f = Format::F32;
        let e = (2f32).powi(-30).to_bits() as u64;
        let ne = (-(2f32).powi(-30)).to_bits() as u64;
        let one = 1f32.to_bits() as u64;
        let p = binary(BinaryOp::Multiply, f, [one, e], [one, ne]).unwrap();
        assert_eq!(p.rounded(f), [one, 0]);
        // a*c - b*d with a*c = b*d exactly gives +0.
        let q = binary(BinaryOp::Multiply, f, [one, one], [one, one]).unwrap();
        assert_eq!(q.rounded(f), [0, 2f32.to_bits() as u64]);
    }

    #[test]
    fn pow_is_exp_of_the_exponent_times_the_principal_log() {
        let f = Format::F64;
        let parts = |r: Reference| r.rounded(f).into_iter().map(f64::from_bits).collect::<Vec<_>>();
        // (1 + 1j)^2 = 2j; i^i = e^(-pi/2); (-1)^(1/2) = i on the principal branch.
        let square = parts(binary(BinaryOp::Pow, f, [bits(1.0), bits(1.0)], [bits(2.0), 0]).unwrap());
        assert!(square[0].abs() < 1e-300 && square[1] == 2.0, "{square:?}");
        let i_to_i = parts(binary(BinaryOp::Pow, f, [0, bits(1.0)], [0, bits(1.0)]).unwrap());
        // e^(-pi/2) = 0.20787957635076190854...
        assert_eq!(i_to_i, [0.207_879_576_350_761_9, 0.0]);
        let root = parts(binary(BinaryOp::Pow, f, [bits(-1.0), 0], [bits(0.5), 0]).unwrap());
        assert!(root[0].abs() < 1e-300 && root[1] == 1.0, "{root:?}");
        // A zero base, an infinite part or an overflowing result has no reference.
        assert!(binary(BinaryOp::Pow, f, [0, 0], [bits(2.0), 0]).is_none());
        assert!(binary(BinaryOp::Pow, f, [f.pos_inf(), 0], [bits(2.0), 0]).is_none());
        assert!(binary(BinaryOp::Pow, f, [bits(1e300), 0], [bits(2.0), 0]).is_none());
        // |x2 * log(x1)|: |2 * log(e)| = 2, |1 * log(-1)| = pi.
        let e = std::f64::consts::E;
        assert!((pow_exponent_size(f, [bits(e), 0], [bits(2.0), 0]) - 2.0).abs() < 1e-15);
        let pi = pow_exponent_size(f, [bits(-1.0), 0], [bits(1.0), 0]);
        assert!((pi - std::f64::consts::PI).abs() < 1e-15);
    }

    #[test]
    fn normwise_errors_in_ulps_of_the_larger_part() {
        let f = Format::F64;
        let r = binary(BinaryOp::Add, f, [bits(1.0), bits(1e-20)], [0, 0]).unwrap();
        assert_eq!(r.normwise_error(f, &[bits(1.0), bits(1e-20)]), 0.0);
        // One ULP of 1.0 off in the small part.
        let off = r.normwise_error(f, &[bits(1.0), bits(1e-20 + f64::EPSILON)]);
        assert!((off - 1.0).abs() < 1e-3, "{off}");
        assert_eq!(r.normwise_error(f, &[f.pos_inf(), 0]), f64::INFINITY);
    }

    #[test]
    fn modulus_and_sign() {
        let f = Format::F64;
        let abs = unary(UnaryOp::Abs, f, [bits(3.0), bits(-4.0)]).unwrap();
        assert_eq!(abs.rounded(f), [bits(5.0)]);
        let sign = unary(UnaryOp::Sign, f, [bits(3.0), bits(-4.0)]).unwrap();
        assert_eq!(sign.rounded(f), [bits(0.6), bits(-0.8)]);
        assert!(unary(UnaryOp::Sign, f, [0, 0]).is_none());
        assert_eq!(cis_signs(f, bits(3.0)), Some((Ordering::Less, Ordering::Greater)));
        assert_eq!(cis_signs(f, bits(-0.0)), Some((Ordering::Greater, Ordering::Less)));
    }

    /// The reference of `op` on `(re, im)` in c128, rounded to f64 parts.
    fn rounded(op: UnaryOp, re: f64, im: f64) -> Option<[f64; 2]> {
        let r = unary(op, Format::F64, [bits(re), bits(im)])?.rounded(Format::F64);
        Some([f64::from_bits(r[0]), f64::from_bits(r[1])])
    }

    /// Asserts that each part of `op(re + im j)` is within one ULP of the larger part of
    /// `want` (values from identities and tables, not from this code).
    fn near(op: UnaryOp, re: f64, im: f64, want: [f64; 2]) {
        let r = unary(op, Format::F64, [bits(re), bits(im)]).unwrap();
        let error = r.normwise_error(Format::F64, &[bits(want[0]), bits(want[1])]);
        assert!(error <= 1.0, "{op:?}({re} + {im}j) is {:?}, not {want:?}", rounded(op, re, im));
        // Each nonzero part has the sign of the expected one (the branch cuts' sides).
        let got = rounded(op, re, im).unwrap();
        for (g, w) in got.iter().zip(want) {
            assert!(w == 0.0 || g.signum() == w.signum(), "{op:?}({re} + {im}j) is {got:?}, not {want:?}");
        }
    }

    #[test]
    fn exponentials_and_logarithms_of_known_values() {
        use std::f64::consts::{LN_2, PI};
        // exp(iπ) = -1 + sin(π - fl(π)) j: the imaginary part is π's rounding error, 1.2246e-16.
        assert_eq!(rounded(UnaryOp::Exp, 0.0, PI), Some([-1.0, 1.2246467991473532e-16]));
        assert_eq!(rounded(UnaryOp::Exp, 1.0, 0.0), Some([std::f64::consts::E, 0.0]));
        // log(-1 ± 0j) = ±πj: the sign of the zero picks the side of the branch cut.
        assert_eq!(rounded(UnaryOp::Log, -1.0, 0.0), Some([0.0, PI]));
        assert_eq!(rounded(UnaryOp::Log, -1.0, -0.0), Some([0.0, -PI]));
        assert_eq!(rounded(UnaryOp::Log, 0.0, 2.0), Some([LN_2, PI / 2.0]));
        // sqrt(-4 ± 0j) = ±2j.
        assert_eq!(rounded(UnaryOp::Sqrt, -4.0, 0.0), Some([0.0, 2.0]));
        assert_eq!(rounded(UnaryOp::Sqrt, -4.0, -0.0), Some([0.0, -2.0]));
        assert_eq!(rounded(UnaryOp::Sqrt, 3.0, 4.0), Some([2.0, 1.0]));
        // expm1 and log1p of the smallest subnormal: exp(x) - 1 at the working precision of
        // the other functions would be 0, and 1 + x rounded to any fixed precision 1.
        let tiny = f64::from_bits(1);
        assert_eq!(rounded(UnaryOp::Expm1, tiny, 0.0), Some([tiny, 0.0]));
        assert_eq!(rounded(UnaryOp::Log1p, tiny, 0.0), Some([tiny, 0.0]));
        assert_eq!(rounded(UnaryOp::Log1p, -tiny, -tiny), Some([-tiny, -tiny]));
        assert_eq!(rounded(UnaryOp::Expm1, -0.0, 0.0), Some([-0.0, 0.0]));
        assert_eq!(rounded(UnaryOp::Log1p, -0.5, 0.0), Some([-LN_2, 0.0]));
        // log1p(a + bj) with b tiny beside a tiny a: the real part is a - a²/2 + b²/2 + ...,
        // which rounds to a; the imaginary part b / (1 + a), which rounds to b.
        let (a, b) = (3.1116678757410423e-122, -1.4043089232277057e-183);
        assert_eq!(rounded(UnaryOp::Log1p, a, b), Some([a, b]));
        // log(1 + 2^-300 j) = log1p(2^-600) / 2 + 2^-300 j = 2^-601 + 2^-300 j (next to the
        // unit circle).
        let s = 2f64.powi(-300);
        assert_eq!(rounded(UnaryOp::Log, 1.0, s), Some([2f64.powi(-601), s]));
        // log1p(-1 + 2^-600 j) = log(2^-600) + (π/2) j: |1 + z| is tiny, no log1p.
        let t = 2f64.powi(-600);
        assert_eq!(rounded(UnaryOp::Log1p, -1.0, t), Some([-600.0 * LN_2, PI / 2.0]));
        // expm1(bj) = (cos b - 1) + sin(b) j: the real part is -b²/2 (1 - b²/12 ...), which is
        // b²/2 rounded for b = 2^-40.
        let b = 2f64.powi(-40);
        assert_eq!(rounded(UnaryOp::Expm1, 0.0, b), Some([-b * b / 2.0, b]));
        // exp(1000) overflows f64 and log(0) is -inf: no reference (the rows' results);
        // exp(-1000) underflows to zero, which is a reference.
        assert!(unary(UnaryOp::Exp, Format::F64, [bits(1000.0), 0]).is_none());
        assert!(unary(UnaryOp::Exp, Format::F32, [100f32.to_bits() as u64, 0]).is_none());
        assert!(unary(UnaryOp::Log, Format::F64, [0, 0]).is_none());
        assert!(unary(UnaryOp::Atanh, Format::F64, [bits(1.0), 0]).is_none());
        // e^(2^1000) is beyond MPFR's exponent range too.
        assert!(unary(UnaryOp::Expm1, Format::F64, [bits(2f64.powi(1000)), bits(1.0)]).is_none());
        assert_eq!(rounded(UnaryOp::Exp, -1000.0, 1.0), Some([0.0, 0.0]));
    }

    #[test]
    fn trigonometric_and_hyperbolic_functions_of_known_values() {
        use std::f64::consts::{FRAC_PI_2, FRAC_PI_3, PI};
        let (sinh1, cosh1, tanh1) = (1.1752011936438014, 1.5430806348152437, 0.7615941559557649);
        // ln(2 + √3) = acosh(2) = asinh(√3); ½ ln 3 = atanh(1/2).
        let (acosh2, half_ln3) = (1.3169578969248166, 0.5493061443340548);
        near(UnaryOp::Sin, 0.0, 1.0, [0.0, sinh1]);
        near(UnaryOp::Cos, 0.0, 1.0, [cosh1, 0.0]);
        near(UnaryOp::Tan, 0.0, 1.0, [0.0, tanh1]);
        near(UnaryOp::Sinh, 1.0, 0.0, [sinh1, 0.0]);
        near(UnaryOp::Cosh, 0.0, PI, [-1.0, 0.0]);
        near(UnaryOp::Tanh, 1.0, 0.0, [tanh1, 0.0]);
        // The inverse functions on their branch cuts, the side given by the zero's sign
        // (C99 Annex G: casin(2 + 0i) = π/2 + 1.317i, cacos(2 + 0i) = 0 - 1.317i).
        near(UnaryOp::Asin, 2.0, 0.0, [FRAC_PI_2, acosh2]);
        near(UnaryOp::Asin, 2.0, -0.0, [FRAC_PI_2, -acosh2]);
        near(UnaryOp::Acos, 2.0, 0.0, [0.0, -acosh2]);
        near(UnaryOp::Acosh, -2.0, 0.0, [acosh2, PI]);
        near(UnaryOp::Acosh, 0.5, 0.0, [0.0, FRAC_PI_3]);
        near(UnaryOp::Atan, 0.0, 2.0, [FRAC_PI_2, half_ln3]);
        near(UnaryOp::Asinh, 0.0, 2.0, [acosh2, FRAC_PI_2]);
        near(UnaryOp::Atanh, 2.0, 0.0, [half_ln3, FRAC_PI_2]);
        near(UnaryOp::Atanh, 2.0, -0.0, [half_ln3, -FRAC_PI_2]);
        // atanh(x) = x + x³/3 + ...: x itself for x small enough that x³/3 is below half its ULP.
        assert_eq!(rounded(UnaryOp::Atanh, 1e-10, 0.0), Some([1e-10, 0.0]));
        assert_eq!(rounded(UnaryOp::Atanh, 1e-10, -1e-10), Some([1e-10, -1e-10]));
        // asinh, atan and sin of a subnormal are the subnormal.
        let tiny = f64::from_bits(3);
        for op in [UnaryOp::Asinh, UnaryOp::Atan, UnaryOp::Sin, UnaryOp::Tanh] {
            assert_eq!(rounded(op, tiny, -tiny), Some([tiny, -tiny]), "{op:?}");
        }
    }
}
