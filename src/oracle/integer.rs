//! The exact reference for integer operands: the mathematical result in unbounded integers,
//! before any contract decides what an overflow or a division by zero gives. The operations
//! that are one line of `rug` (add, the comparisons, ...) are written in the registry,
//! [`ops`](super::ops); the ones with cases of their own are here. Bool operands are the
//! integers 0 and 1 (a one-bit unsigned [`IntFormat`]).

use rug::Integer;
use rug::ops::Pow;

use crate::bits::value::IntFormat;

/// The exact outcome of an integer operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exact {
    /// The mathematical value (it may not fit the dtype).
    Value(Integer),
    /// A value beyond every dtype (`pow` with a large exponent): its sign and its residue
    /// modulo 2^128, which fixes every wrapped result.
    Huge { negative: bool, residue: Integer },
    /// The exact quotient of true division (`divide`), `dividend / divisor` with a nonzero
    /// divisor: not an integer in general; the suite's contract says how it is made one.
    Quotient { dividend: Integer, divisor: Integer },
    /// A comparison's truth value.
    Bool(bool),
    /// Division or remainder by zero.
    DivisionByZero,
    /// A negative exponent (`pow` of integers leaves it unspecified).
    NegativeExponent,
    /// Operands outside the function's domain (a negative shift count: the array API requires
    /// `x2 >= 0`), for which no result is defined.
    OutsideDomain,
}

/// `!x` in the bits of `int`: every bit flipped (for bool, logical not).
pub fn invert(int: IntFormat, x: i128) -> Exact {
    Exact::Value(int.value(int.wrap(!x)).into())
}

/// `x << s` in the bits of `int`: the array API's "appending `s` zeros to the right of `x`",
/// the bits shifted past the width lost (so 0 once `s` reaches the width).
pub fn left_shift(int: IntFormat, x: i128, s: i128) -> Exact {
    match shift_count(int, s) {
        None => Exact::OutsideDomain,
        Some(s) if s == int.bits => Exact::Value(Integer::new()),
        Some(s) => Exact::Value(int.value(int.wrap(x << s)).into()),
    }
}

/// `x >> s`, arithmetic: the array API's "equivalent to floor division by a power of two"
/// (so -1 or 0 once `s` reaches the width).
pub fn right_shift(int: IntFormat, x: i128, s: i128) -> Exact {
    match shift_count(int, s) {
        None => Exact::OutsideDomain,
        Some(s) => Exact::Value((x >> s).into()),
    }
}

/// A shift count capped at the width (every larger count shifts every bit out); `None` for a
/// negative one.
fn shift_count(int: IntFormat, s: i128) -> Option<u32> {
    (s >= 0).then(|| u32::try_from(s).map_or(int.bits, |s| s.min(int.bits)))
}

/// True division `a / b`, left as the exact quotient.
pub fn divide(a: i128, b: i128) -> Exact {
    if b == 0 {
        return Exact::DivisionByZero;
    }
    Exact::Quotient { dividend: a.into(), divisor: b.into() }
}

/// Python's `a // b`: the floor of the quotient.
pub fn floor_divide(a: i128, b: i128) -> Exact {
    if b == 0 {
        return Exact::DivisionByZero;
    }
    Exact::Value(Integer::from(a).div_rem_floor(Integer::from(b)).0)
}

/// Python's `a % b`: the remainder of the floor division, with the sign of the divisor.
pub fn remainder(a: i128, b: i128) -> Exact {
    if b == 0 {
        return Exact::DivisionByZero;
    }
    Exact::Value(Integer::from(a).div_rem_floor(Integer::from(b)).1)
}

/// `a ** b` for a non-negative exponent.
pub fn pow(a: i128, b: i128) -> Exact {
    if b < 0 {
        return Exact::NegativeExponent;
    }
    let x = Integer::from(a);
    // |a| >= 2 and b >= 128: |a^b| >= 2^128, beyond every dtype.
    if b >= 128 && a.unsigned_abs() > 1 {
        let modulus = Integer::from(1) << 128u32;
        let residue = x.pow_mod(&Integer::from(b), &modulus).expect("a non-negative exponent");
        return Exact::Huge { negative: a < 0 && b % 2 == 1, residue };
    }
    Exact::Value(x.pow(b as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(exact: Exact) -> Integer {
        match exact {
            Exact::Value(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn python_floor_division_and_remainder() {
        assert_eq!(value(floor_divide(7, 2)), 3);
        assert_eq!(value(floor_divide(-7, 2)), -4);
        assert_eq!(value(floor_divide(7, -2)), -4);
        assert_eq!(value(remainder(-7, 2)), 1);
        assert_eq!(value(remainder(7, -2)), -1);
        assert_eq!(value(floor_divide(-128, -1)), 128, "overflows i8: the contract decides");
        assert_eq!(remainder(5, 0), Exact::DivisionByZero);
        assert_eq!(floor_divide(5, 0), Exact::DivisionByZero);
        assert_eq!(divide(5, 0), Exact::DivisionByZero);
        assert_eq!(divide(-7, 2), Exact::Quotient { dividend: (-7).into(), divisor: 2.into() });
    }

    #[test]
    fn pow_beyond_any_dtype() {
        assert_eq!(value(pow(3, 4)), 81);
        assert_eq!(value(pow(-1, 1001)), -1);
        assert_eq!(value(pow(0, 0)), 1);
        assert!(value(pow(2, 127)) > u64::MAX);
        let Exact::Huge { negative, residue } = pow(-3, 1001) else { panic!() };
        assert!(negative);
        let expected =
            Integer::from(-3).pow_mod(&Integer::from(1001), &(Integer::from(1) << 128u32)).unwrap();
        assert_eq!(residue, expected);
        assert_eq!(pow(2, -1), Exact::NegativeExponent);
    }

    const I8: IntFormat = IntFormat { bits: 8, signed: true };
    const U8: IntFormat = IntFormat { bits: 8, signed: false };

    #[test]
    fn inversion_stays_in_the_width() {
        assert_eq!(value(invert(I8, 5)), -6);
        assert_eq!(value(invert(I8, -128)), 127);
        assert_eq!(value(invert(U8, 5)), 250);
        assert_eq!(value(invert(IntFormat::BOOL, 1)), 0);
        assert_eq!(value(invert(IntFormat::BOOL, 0)), 1);
    }

    #[test]
    fn shifts_lose_bits_past_the_width() {
        assert_eq!(value(left_shift(I8, 3, 2)), 12);
        assert_eq!(value(left_shift(I8, 1, 7)), -128, "into the sign bit");
        assert_eq!(value(left_shift(I8, 3, 8)), 0);
        assert_eq!(value(left_shift(U8, 255, 1)), 254);
        assert_eq!(value(right_shift(I8, -7, 1)), -4, "floor(-7 / 2)");
        assert_eq!(value(right_shift(I8, -7, 100)), -1);
        assert_eq!(value(right_shift(U8, 200, 3)), 25);
        assert_eq!(value(right_shift(U8, 200, 8)), 0);
        let i64 = IntFormat { bits: 64, signed: true };
        assert_eq!(value(right_shift(i64, -5, i64::MAX.into())), -1, "a count past u32");
        assert_eq!(value(left_shift(i64, -5, i64::MAX.into())), 0);
        assert_eq!(left_shift(I8, 1, -1), Exact::OutsideDomain);
        assert_eq!(right_shift(I8, 1, -1), Exact::OutsideDomain);
    }
}
