//! The exact reference for integer operands: the mathematical result in unbounded integers,
//! before any contract decides what an overflow or a division by zero gives. The operations
//! that are one line of `rug` (add, the comparisons, ...) are written in the registry,
//! [`ops`](super::ops); the ones with cases of their own are here.

use rug::Integer;
use rug::ops::Pow;

/// The exact outcome of an integer operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exact {
    /// The mathematical value (it may not fit the dtype).
    Value(Integer),
    /// A value beyond every dtype (`pow` with a large exponent): its sign and its residue
    /// modulo 2^128, which fixes every wrapped result.
    Huge { negative: bool, residue: Integer },
    /// A comparison's truth value.
    Bool(bool),
    /// Division or remainder by zero.
    DivisionByZero,
    /// A negative exponent (`pow` of integers leaves it unspecified).
    NegativeExponent,
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
}
