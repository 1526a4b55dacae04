//! The exact reference for integer operands: the mathematical result in unbounded integers,
//! before any contract decides what an overflow or a division by zero gives.

use std::cmp::Ordering;

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
    /// The operation is not defined on integers here.
    Undefined,
}

/// `op(a, b)` on exact integers, with Python's semantics for `floor_divide` (floor of the
/// quotient) and `remainder` (the sign of the divisor).
pub fn evaluate(op: &str, a: i128, b: i128) -> Exact {
    let (x, y) = (Integer::from(a), Integer::from(b));
    let ordering = x.cmp(&y);
    match op {
        "add" => Exact::Value(x + y),
        "subtract" => Exact::Value(x - y),
        "multiply" => Exact::Value(x * y),
        "maximum" => Exact::Value(x.max(y)),
        "minimum" => Exact::Value(x.min(y)),
        "floor_divide" | "remainder" if b == 0 => Exact::DivisionByZero,
        "floor_divide" => Exact::Value(x.div_rem_floor(y).0),
        "remainder" => Exact::Value(x.div_rem_floor(y).1),
        "pow" if b < 0 => Exact::NegativeExponent,
        // |a| >= 2 and b >= 128: |a^b| >= 2^128, beyond every dtype.
        "pow" if b >= 128 && a.unsigned_abs() > 1 => {
            let modulus = Integer::from(1) << 128u32;
            let residue = x.pow_mod(&y, &modulus).expect("a non-negative exponent");
            Exact::Huge { negative: a < 0 && b % 2 == 1, residue }
        }
        "pow" => Exact::Value(x.pow(b as u32)),
        "equal" => Exact::Bool(ordering == Ordering::Equal),
        "not_equal" => Exact::Bool(ordering != Ordering::Equal),
        "greater" => Exact::Bool(ordering == Ordering::Greater),
        "greater_equal" => Exact::Bool(ordering != Ordering::Less),
        "less" => Exact::Bool(ordering == Ordering::Less),
        "less_equal" => Exact::Bool(ordering != Ordering::Greater),
        _ => Exact::Undefined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(op: &str, a: i128, b: i128) -> Integer {
        match evaluate(op, a, b) {
            Exact::Value(v) => v,
            other => panic!("{op}({a}, {b}) = {other:?}"),
        }
    }

    #[test]
    fn python_floor_division_and_remainder() {
        assert_eq!(value("floor_divide", 7, 2), 3);
        assert_eq!(value("floor_divide", -7, 2), -4);
        assert_eq!(value("floor_divide", 7, -2), -4);
        assert_eq!(value("remainder", -7, 2), 1);
        assert_eq!(value("remainder", 7, -2), -1);
        assert_eq!(value("floor_divide", -128, -1), 128, "overflows i8: the contract decides");
        assert_eq!(evaluate("remainder", 5, 0), Exact::DivisionByZero);
    }

    #[test]
    fn exact_beyond_any_dtype() {
        assert_eq!(value("multiply", i64::MAX as i128, i64::MAX as i128), Integer::from(i64::MAX).square());
        assert_eq!(value("pow", 3, 4), 81);
        assert_eq!(value("pow", -1, 1001), -1);
        assert!(value("pow", 2, 127) > u64::MAX);
        let Exact::Huge { negative, residue } = evaluate("pow", -3, 1001) else { panic!() };
        assert!(negative);
        let expected =
            Integer::from(-3).pow_mod(&Integer::from(1001), &(Integer::from(1) << 128u32)).unwrap();
        assert_eq!(residue, expected);
        assert_eq!(evaluate("pow", 2, -1), Exact::NegativeExponent);
        assert_eq!(evaluate("less", -1, 0), Exact::Bool(true));
        assert_eq!(evaluate("atan2", 1, 1), Exact::Undefined);
    }
}
