//! The reference for complex operations on finite operands, by exact component arithmetic.
//!
//! Why not MPC: `add`, `subtract`, `multiply` and `divide` of complex numbers with
//! floating-point parts have exact results in the rationals (`(ac + bd) / (c² + d²)` is a
//! quotient of exact products), so rug's `Rational` computes them exactly and MPFR rounds each
//! part once (`mpfr_set_q` is correctly rounded); MPC would give the same parts and needs the
//! MPC C library built as well. `abs` and `sign` (`x / |x|`) are not rational: they are
//! computed with MPFR at [`PRECISION`] bits, far beyond any format's, which is exact enough to
//! measure an adapter's error in ULPs (they are judged against a bound, never bit for bit).
//! The transcendental functions (exp, log, the trigonometric and hyperbolic ones) have no
//! reference here yet: their tables are checked on their rows only.
//!
//! Special operands (infinities, NaNs, a zero divisor) have no reference: the tables' rows
//! state those results. Values go in and come out as raw bits read through
//! [`Format`](crate::format::Format), the parts' format.

use std::cmp::Ordering;

use opspec_adapter::{BinaryOp, UnaryOp};
use rug::float::Round;
use rug::{Float, Rational};

use crate::format::Format;
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

/// `op(x)` of a finite complex operand; `None` for a non-finite part or an operation without
/// a reference (`sign(0)` has a row, not a reference).
pub fn unary(op: UnaryOp, f: Format, x: [u64; 2]) -> Option<Reference> {
    let [a, b] = [rational(f, x[0])?, rational(f, x[1])?];
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
}
