//! The unary functions of the array API standard: each MPFR function evaluated at the format's
//! precision and rounded once, or at high precision for measuring ULP errors; the exact ones
//! (rounding to integers, sign manipulation, the predicates) on the bits.
//!
//! MPFR follows C99 Annex F and IEEE 754-2019 9.2 for the special values these functions share
//! with the standard (`log(±0) = -inf`, `sqrt(-0) = -0`, `expm1(-inf) = -1`, `acos(1) = +0`,
//! `round_even(-0.5) = -0`); where a table states something else, the table wins.

use std::cmp::Ordering;

use opspec_adapter::UnaryOp;
use rug::Float;

use super::rounding::{decode, round};
use crate::bits::format::Format;

/// Extra bits carried by the high-precision values beyond the format's precision (as for the
/// binary functions).
const GUARD_BITS: u32 = 96;

/// `op(x)` evaluated by MPFR at precision `precision`, rounded to nearest, with its ternary
/// value; `None` for the operations computed on the bits ([`exact`]).
fn evaluate(op: UnaryOp, x: &Float, precision: u32) -> Option<(Float, Ordering)> {
    use UnaryOp::*;
    macro_rules! at {
        ($value:expr) => {
            Float::with_val_round(precision, $value, rug::float::Round::Nearest)
        };
    }
    Some(match op {
        Acos => at!(x.acos_ref()),
        Acosh => at!(x.acosh_ref()),
        Asin => at!(x.asin_ref()),
        Asinh => at!(x.asinh_ref()),
        Atan => at!(x.atan_ref()),
        Atanh => at!(x.atanh_ref()),
        Cos => at!(x.cos_ref()),
        Cosh => at!(x.cosh_ref()),
        Exp => at!(x.exp_ref()),
        Expm1 => at!(x.exp_m1_ref()),
        Log => at!(x.ln_ref()),
        Log1p => at!(x.ln_1p_ref()),
        Log2 => at!(x.log2_ref()),
        Log10 => at!(x.log10_ref()),
        Reciprocal => at!(x.recip_ref()),
        Sin => at!(x.sin_ref()),
        Sinh => at!(x.sinh_ref()),
        Sqrt => at!(x.sqrt_ref()),
        Square => at!(x.square_ref()),
        Tan => at!(x.tan_ref()),
        Tanh => at!(x.tanh_ref()),
        Ceil => at!(x.ceil_ref()),
        Floor => at!(x.floor_ref()),
        Round => at!(x.round_even_ref()),
        Trunc => at!(x.trunc_ref()),
        _ => return None,
    })
}

/// The operations fixed on the bits: sign manipulation, `sign` and the predicates (`0` or
/// `1`); `None` for the ones MPFR evaluates.
fn exact(op: UnaryOp, f: Format, x: u64) -> Option<u64> {
    use UnaryOp::*;
    let truth = |b: bool| Some(u64::from(b));
    match op {
        Abs => Some(f.abs(x)),
        Negative => Some(f.neg(x)),
        // A real x is a + 0j: its conjugate's and its real component are x.
        Positive | Conj | Real => Some(x),
        // sign(±0) keeps the zero; NaN stays NaN.
        Sign if f.is_nan(x) || f.is_zero(x) => Some(x),
        Sign if f.is_sign_negative(x) => Some(f.neg(f.one())),
        Sign => Some(f.one()),
        Isfinite => truth(f.is_finite(x)),
        Isinf => truth(f.is_infinite(x)),
        Isnan => truth(f.is_nan(x)),
        Signbit => truth(f.is_sign_negative(x)),
        _ => None,
    }
}

/// `op(x)` in format `f`: correctly rounded (rounded once to nearest even, with subnormals and
/// overflow), or exact; `0` or `1` for a predicate.
pub fn reference(op: UnaryOp, f: Format, x: u64) -> u64 {
    if let Some(bits) = exact(op, f, x) {
        return bits;
    }
    let (value, ord) =
        evaluate(op, &decode(f, x), f.precision()).expect("every operation is exact or evaluated");
    round(f, value, ord)
}

/// `op(x)` with 96 guard bits, for measuring ULP errors; `None` for the exact operations.
pub fn high_precision(op: UnaryOp, f: Format, x: u64) -> Option<Float> {
    evaluate(op, &decode(f, x), f.precision() + GUARD_BITS).map(|(value, _)| value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::round_exact;

    const F32: Format = Format::F32;
    const F16: Format = Format::F16;

    fn bits(v: f32) -> u64 {
        u64::from(v.to_bits())
    }

    #[test]
    fn hand_checked_values() {
        use UnaryOp::*;
        // sqrt 2 = 0x3fb504f3 in f32 (1.4142135); e = 0x402df854 (2.7182817); ln 2 = 0x3f317218.
        assert_eq!(reference(Sqrt, F32, bits(2.0)), 0x3fb5_04f3);
        assert_eq!(reference(Exp, F32, bits(1.0)), 0x402d_f854);
        assert_eq!(reference(Log, F32, bits(2.0)), 0x3f31_7218);
        // 1/3 in f16 is 0x3555; 3^2 = 9.
        assert_eq!(reference(Reciprocal, F16, 0x4200), 0x3555);
        assert_eq!(reference(Square, F32, bits(3.0)), bits(9.0));
        // Ties to even: 2.5 -> 2, 3.5 -> 4, -0.5 -> -0.
        assert_eq!(reference(Round, F32, bits(2.5)), bits(2.0));
        assert_eq!(reference(Round, F32, bits(3.5)), bits(4.0));
        assert_eq!(reference(Round, F32, bits(-0.5)), 0x8000_0000);
        assert_eq!(reference(Ceil, F32, bits(-0.5)), 0x8000_0000);
        assert_eq!(reference(Floor, F32, bits(-0.5)), bits(-1.0));
        assert_eq!(reference(Trunc, F32, bits(-1.75)), bits(-1.0));
        // The smallest f32 subnormal squared underflows to +0; the largest finite overflows.
        assert_eq!(reference(Square, F32, 1), 0);
        assert_eq!(reference(Square, F32, 0x7f7f_ffff), F32.pos_inf());
    }

    #[test]
    fn special_values() {
        use UnaryOp::*;
        let (nan, inf, ninf) = (F32.quiet_nan(), F32.pos_inf(), F32.neg_inf());
        assert_eq!(reference(Log, F32, 0x8000_0000), ninf, "log(-0) = -inf");
        assert_eq!(reference(Sqrt, F32, 0x8000_0000), 0x8000_0000, "sqrt(-0) = -0");
        assert!(F32.is_nan(reference(Sqrt, F32, bits(-1.0))), "sqrt(-1) = NaN");
        assert_eq!(reference(Expm1, F32, ninf), bits(-1.0), "expm1(-inf) = -1");
        assert_eq!(reference(Tanh, F32, inf), bits(1.0), "tanh(inf) = 1");
        assert_eq!(reference(Acos, F32, bits(1.0)), 0, "acos(1) = +0");
        assert_eq!(reference(Atanh, F32, bits(-1.0)), ninf, "atanh(-1) = -inf");
        assert_eq!(reference(Sign, F32, 0x8000_0000), 0x8000_0000);
        assert_eq!(reference(Sign, F32, bits(-3.0)), bits(-1.0));
        assert!(F32.is_nan(reference(Sign, F32, nan)));
        assert_eq!(reference(Signbit, F32, 0xffc0_0000), 1, "a NaN with its sign bit set");
        assert_eq!(reference(Isfinite, F32, inf), 0);
        assert_eq!(reference(Isinf, F32, ninf), 1);
        assert_eq!(reference(Abs, F32, 0x8000_0000), 0);
    }

    #[test]
    fn high_precision_agrees_with_the_rounded_result() {
        for op in [UnaryOp::Sin, UnaryOp::Atan, UnaryOp::Log1p, UnaryOp::Cosh] {
            let value = high_precision(op, F32, bits(0.75)).unwrap();
            assert_eq!(value.prec(), 24 + GUARD_BITS);
            assert_eq!(round_exact(F32, &value), reference(op, F32, bits(0.75)), "{op}");
        }
        assert!(high_precision(UnaryOp::Abs, F32, 0).is_none());
    }
}
