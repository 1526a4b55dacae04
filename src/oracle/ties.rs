//! Ties: where the exact result of a correctly rounded operation lies exactly halfway between
//! two representable values, the result under IEEE 754-2019's other tie rule,
//! roundTiesToAway. A document that asks for "the nearest representable value according to
//! IEEE 754-2019 and a supported rounding mode" accepts it as well as roundTiesToEven's.

use opspec_adapter::{BinaryOp, OpKind, UnaryOp};
use rug::Float;

use crate::bits::format::Format;
use crate::oracle::rounding::decode;

/// Bits enough to hold the exact sum, difference or product of two binary64 values (their
/// exponents span under 2,200 bits), and to tell an inexact quotient or root from a midpoint
/// of any of the formats (it differs from one by more than 2^-110 of its value).
const PRECISION: u32 = 4400;

/// The roundTiesToAway result of `op` on `inputs` where it differs from the
/// roundTiesToEven result `nearest_even` (the operation's exact result is a tie); `None`
/// where they agree, and for the operations this module does not cover.
pub fn away(op: OpKind, f: Format, inputs: &[u64], nearest_even: u64) -> Option<u64> {
    if !f.is_finite(nearest_even) {
        return None;
    }
    let exact = exact(op, f, inputs)?;
    let r = decode(f, nearest_even);
    let larger = exact.clone().abs() > r.clone().abs();
    if !exact.is_finite() || exact == r || !larger {
        // Exact, or the even neighbour is already the one further from zero.
        return None;
    }
    let away = nearest_even + 1;
    if !f.is_finite(away) {
        return None;
    }
    let midpoint = (Float::with_val(PRECISION, &r + &decode(f, away))) / 2u32;
    (exact == midpoint).then_some(away)
}

/// The representable value on the other side of `op`'s exact result from `nearest`, its
/// correct rounding to nearest: the result of the directed rounding (roundTowardZero,
/// roundTowardPositive or roundTowardNegative) that does not give `nearest`. `None` where the
/// result is exact or not a number, and for the operations this module does not cover.
pub fn other_neighbour(op: OpKind, f: Format, inputs: &[u64], nearest: u64) -> Option<u64> {
    if f.is_nan(nearest) {
        return None;
    }
    let exact = exact(op, f, inputs)?;
    let r = decode(f, nearest);
    if !exact.is_finite() || exact == r {
        return None;
    }
    // Sign and magnitude: one more is one step further from zero (the largest finite value's
    // next is the infinity).
    Some(if exact.abs() > r.abs() { nearest + 1 } else { nearest - 1 })
}

/// The exact result (for a quotient or root, a close enough one: see [`PRECISION`]).
fn exact(op: OpKind, f: Format, inputs: &[u64]) -> Option<Float> {
    let x = |i: usize| Float::with_val(PRECISION, decode(f, inputs[i]));
    Some(match op {
        OpKind::Binary(BinaryOp::Add) => x(0) + x(1),
        OpKind::Binary(BinaryOp::Subtract) => x(0) - x(1),
        OpKind::Binary(BinaryOp::Multiply) => x(0) * x(1),
        OpKind::Binary(BinaryOp::Divide) => x(0) / x(1),
        OpKind::Binary(BinaryOp::Remainder) => {
            // Python's remainder: fmod (exact), moved into x2's sign.
            let (a, b) = (x(0), x(1));
            let rem = Float::with_val(PRECISION, &a % &b);
            if !rem.is_zero() && rem.is_sign_negative() != b.is_sign_negative() { rem + b } else { rem }
        }
        OpKind::Unary(UnaryOp::Reciprocal) => x(0).recip(),
        OpKind::Unary(UnaryOp::Sqrt) => x(0).sqrt(),
        OpKind::Unary(UnaryOp::Square) => x(0).square(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const F16: Format = Format::F16;

    #[test]
    fn a_tie_has_the_away_result_and_nothing_else_has() {
        let add = OpKind::Binary(BinaryOp::Add);
        let bits = |v: f64| F16.from_f64_exact(v).unwrap();
        // 2048 + 1 in f16: exactly halfway between 2048 and 2050; ties to even give 2048.
        let (a, one) = (bits(2048.0), F16.one());
        assert_eq!(crate::oracle::add(F16, a, one), a);
        assert_eq!(away(add, F16, &[a, one], a), Some(bits(2050.0)));
        // 2050 + 1 = 2051: the even neighbour, 2052, is already the one away from zero.
        assert_eq!(away(add, F16, &[bits(2050.0), one], bits(2052.0)), None);
        // Not a tie: 2048 + 0.5 rounds to 2048 under both rules.
        assert_eq!(away(add, F16, &[a, bits(0.5)], a), None);
        // Negative ties round away from zero too: -2048 - 1 -> -2050.
        assert_eq!(away(add, F16, &[F16.neg(a), F16.neg(one)], F16.neg(a)), Some(bits(-2050.0)));
    }
}
