//! The oracle's operation registry: one entry per operation of the adapter API, holding the
//! functions that compute its reference. The harness finds them by the typed operation
//! ([`lookup`]), never by a name, so an operation without an entry is `None` and a misspelt
//! one does not compile.

use std::cmp::Ordering::{Equal, Greater, Less};

use opspec_adapter::{BinaryOp, OpKind, TernaryOp, UnaryOp};
use rug::{Float, Integer};

use super::integer::{self, Exact};
use super::{arith, clip, exact, functions, unary};
use crate::bits::format::Format;
use crate::bits::value::IntFormat;

/// An approximate operation's value on float operands of a format with guard bits beyond its
/// precision; `None` where the operation has none for those operands.
pub type HighPrecision = fn(Format, &[u64]) -> Option<Float>;

/// The exact result of an operation on the integer operands (their values) of a dtype
/// holding integers of type [`IntFormat`] (bool: 0 and 1).
pub type IntegerResult = fn(IntFormat, &[i128]) -> Exact;

/// What the oracle computes for one operation.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// The operation: an `OpKind::Unary`, `OpKind::Binary` or `OpKind::Ternary`.
    pub op: OpKind,
    /// The result for float operands of a format, as bits of that format (`0` or `1` for a
    /// comparison): correctly rounded, or exact where it is representable; `None` for an
    /// operation defined on integers and bools only.
    pub reference: Option<fn(Format, &[u64]) -> u64>,
    /// The exact result for integer or bool operands, where the operation is defined on them.
    pub integer: Option<IntegerResult>,
    /// For an approximate operation, its value with guard bits beyond the format's precision,
    /// against which fractional ULP errors are measured.
    pub high_precision: Option<HighPrecision>,
}

impl OpDef {
    /// An entry with only a float reference.
    const fn new(op: OpKind, reference: fn(Format, &[u64]) -> u64) -> OpDef {
        OpDef { op, reference: Some(reference), integer: None, high_precision: None }
    }

    /// An entry with only an integer result (the bitwise and logical operations).
    const fn integers_only(op: OpKind, integer: IntegerResult) -> OpDef {
        OpDef { op, reference: None, integer: Some(integer), high_precision: None }
    }

    /// An entry with neither: an operation defined on complex operands only (`imag`), whose
    /// results the complex oracle judges.
    const fn complex_only(op: OpKind) -> OpDef {
        OpDef { op, reference: None, integer: None, high_precision: None }
    }

    const fn with_integer(self, integer: IntegerResult) -> OpDef {
        OpDef { integer: Some(integer), ..self }
    }

    const fn with_high_precision(self, value: HighPrecision) -> OpDef {
        OpDef { high_precision: Some(value), ..self }
    }
}

/// The entry of binary operation `$op` whose float reference is `$f(format, x1, x2)` (and,
/// for an approximate one, whose high-precision value is `$value(format, x1, x2)`).
macro_rules! binary {
    ($op:ident, $f:path) => {
        OpDef::new(OpKind::Binary(BinaryOp::$op), |f, x| $f(f, x[0], x[1]))
    };
    ($op:ident, $f:path, $value:path) => {
        binary!($op, $f).with_high_precision(|f, x| Some($value(f, x[0], x[1])))
    };
}

/// The entry of unary operation `$op`: [`unary::reference`], and [`unary::high_precision`]
/// for the approximate ones (`approximate`); with `integer: $g`, also the exact result
/// `$g(x)` on integers.
macro_rules! unary {
    ($op:ident) => {
        OpDef::new(OpKind::Unary(UnaryOp::$op), |f, x| unary::reference(UnaryOp::$op, f, x[0]))
    };
    ($op:ident, approximate) => {
        unary!($op).with_high_precision(|f, x| unary::high_precision(UnaryOp::$op, f, x[0]))
    };
    ($op:ident, integer: $g:expr) => {
        unary!($op).with_integer(|_, x| ($g)(x[0]))
    };
}

/// The entry of an operation on integers and bools only, whose result is `$g(int, x)`.
macro_rules! integers_only {
    (unary $op:ident, $g:expr) => {
        OpDef::integers_only(OpKind::Unary(UnaryOp::$op), $g)
    };
    (binary $op:ident, $g:expr) => {
        OpDef::integers_only(OpKind::Binary(BinaryOp::$op), $g)
    };
}

/// The entry of ternary operation `$op` whose float reference is `$f(format, x1, x2, x3)`.
macro_rules! ternary {
    ($op:ident, $f:path) => {
        OpDef::new(OpKind::Ternary(TernaryOp::$op), |f, x| $f(f, x[0], x[1], x[2]))
    };
}

/// The entry of comparison `$op`, true where the operands' ordering matches `$true_for`
/// (`None`: unordered, a NaN operand). The one pattern judges floats and integers.
macro_rules! comparison {
    ($op:ident, $true_for:pat) => {
        OpDef::new(OpKind::Binary(BinaryOp::$op), |f, x| {
            u64::from(matches!(exact::compare(f, x[0], x[1]), $true_for))
        })
        .with_integer(|_, x| Exact::Bool(matches!(Some(x[0].cmp(&x[1])), $true_for)))
    };
}

/// An integer value as an exact result.
fn value(v: impl Into<Integer>) -> Exact {
    Exact::Value(v.into())
}

/// Every operation the oracle computes (all of [`UnaryOp::ALL`], [`BinaryOp::ALL`] and
/// [`TernaryOp::ALL`]).
pub static OPS: &[OpDef] = &[
    unary!(Abs, integer: |x: i128| value(x.abs())),
    unary!(Acos, approximate),
    unary!(Acosh, approximate),
    unary!(Asin, approximate),
    unary!(Asinh, approximate),
    unary!(Atan, approximate),
    unary!(Atanh, approximate),
    unary!(Ceil, integer: value),
    unary!(Conj, integer: value),
    unary!(Cos, approximate),
    unary!(Cosh, approximate),
    unary!(Exp, approximate),
    unary!(Expm1, approximate),
    unary!(Floor, integer: value),
    OpDef::complex_only(OpKind::Unary(UnaryOp::Imag)),
    unary!(Isfinite, integer: |_| Exact::Bool(true)),
    unary!(Isinf, integer: |_| Exact::Bool(false)),
    unary!(Isnan, integer: |_| Exact::Bool(false)),
    unary!(Log, approximate),
    unary!(Log1p, approximate),
    unary!(Log2, approximate),
    unary!(Log10, approximate),
    unary!(Negative, integer: |x: i128| value(-x)),
    unary!(Positive, integer: value),
    unary!(Real, integer: value),
    unary!(Reciprocal),
    unary!(Round, integer: value),
    unary!(Sign, integer: |x: i128| value(x.signum())),
    unary!(Signbit),
    unary!(Sin, approximate),
    unary!(Sinh, approximate),
    unary!(Sqrt),
    unary!(Square, integer: |x: i128| value(Integer::from(x) * x)),
    unary!(Tan, approximate),
    unary!(Tanh, approximate),
    unary!(Trunc, integer: value),
    binary!(Add, arith::add).with_integer(|_, x| value(Integer::from(x[0]) + x[1])),
    binary!(Subtract, arith::subtract).with_integer(|_, x| value(Integer::from(x[0]) - x[1])),
    binary!(Multiply, arith::multiply).with_integer(|_, x| value(Integer::from(x[0]) * x[1])),
    binary!(Divide, arith::divide).with_integer(|_, x| integer::divide(x[0], x[1])),
    binary!(Pow, functions::pow, functions::pow_value).with_integer(|_, x| integer::pow(x[0], x[1])),
    binary!(Maximum, exact::maximum).with_integer(|_, x| value(x[0].max(x[1]))),
    binary!(Minimum, exact::minimum).with_integer(|_, x| value(x[0].min(x[1]))),
    binary!(Atan2, functions::atan2, functions::atan2_value),
    binary!(Copysign, exact::copysign),
    binary!(FloorDivide, exact::floor_divide).with_integer(|_, x| integer::floor_divide(x[0], x[1])),
    binary!(Remainder, exact::remainder).with_integer(|_, x| integer::remainder(x[0], x[1])),
    binary!(Hypot, functions::hypot, functions::hypot_value),
    binary!(Logaddexp, functions::logaddexp, functions::logaddexp_value),
    binary!(Nextafter, exact::nextafter),
    comparison!(Equal, Some(Equal)),
    comparison!(NotEqual, Some(Less | Greater) | None),
    comparison!(Greater, Some(Greater)),
    comparison!(GreaterEqual, Some(Greater | Equal)),
    comparison!(Less, Some(Less)),
    comparison!(LessEqual, Some(Less | Equal)),
    ternary!(FusedMulAdd, arith::fused_mul_add),
    ternary!(FusedAddMul, arith::fused_add_mul),
    ternary!(Clip, clip::clip),
    integers_only!(unary BitwiseInvert, |int, x| integer::invert(int, x[0])),
    integers_only!(binary BitwiseAnd, |_, x| value(x[0] & x[1])),
    integers_only!(binary BitwiseOr, |_, x| value(x[0] | x[1])),
    integers_only!(binary BitwiseXor, |_, x| value(x[0] ^ x[1])),
    integers_only!(binary BitwiseLeftShift, |int, x| integer::left_shift(int, x[0], x[1])),
    integers_only!(binary BitwiseRightShift, |int, x| integer::right_shift(int, x[0], x[1])),
    integers_only!(unary LogicalNot, |_, x| Exact::Bool(x[0] == 0)),
    integers_only!(binary LogicalAnd, |_, x| Exact::Bool(x[0] != 0 && x[1] != 0)),
    integers_only!(binary LogicalOr, |_, x| Exact::Bool(x[0] != 0 || x[1] != 0)),
    integers_only!(binary LogicalXor, |_, x| Exact::Bool((x[0] != 0) != (x[1] != 0))),
];

/// The entry that computes `op`. Writing into a destination (`BinaryInto`) computes the
/// binary operation itself; scalar operands and scatter have no entry.
pub fn lookup(op: OpKind) -> Option<&'static OpDef> {
    let op = match op {
        OpKind::BinaryInto(b) => OpKind::Binary(b),
        other => other,
    };
    OPS.iter().find(|def| def.op == op)
}

/// The float reference of `op` on `inputs` in format `f`; `None` for an operation without one.
pub fn reference(op: OpKind, f: Format, inputs: &[u64]) -> Option<u64> {
    lookup(op)?.reference.map(|r| r(f, inputs))
}

/// The exact result of `op` on integer or bool operands (their values, held by `int`); `None`
/// where it is not defined on them.
pub fn exact_integer(op: OpKind, int: IntFormat, operands: &[i128]) -> Option<Exact> {
    lookup(op)?.integer.map(|g| g(int, operands))
}

/// The high-precision value of `op` on `inputs` in format `f`; `None` unless `op` is
/// approximate.
pub fn high_precision(op: OpKind, f: Format, inputs: &[u64]) -> Option<Float> {
    lookup(op)?.high_precision.and_then(|g| g(f, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Format = Format::F32;
    const I64: IntFormat = IntFormat { bits: 64, signed: true };

    fn binary(op: BinaryOp) -> OpKind {
        OpKind::Binary(op)
    }

    #[test]
    fn every_operation_has_exactly_one_entry() {
        let ops = BinaryOp::ALL.map(binary).into_iter().chain(TernaryOp::ALL.map(OpKind::Ternary));
        for op in ops.chain(UnaryOp::ALL.map(OpKind::Unary)) {
            assert_eq!(OPS.iter().filter(|def| def.op == op).count(), 1, "{op}");
        }
        assert_eq!(OPS.len(), UnaryOp::ALL.len() + BinaryOp::ALL.len() + TernaryOp::ALL.len());
    }

    #[test]
    fn into_computes_the_binary_operation() {
        let (one, two) = (F32.one(), 0x4000_0000);
        assert_eq!(reference(OpKind::BinaryInto(BinaryOp::Add), F32, &[one, one]), Some(two));
        assert_eq!(
            exact_integer(OpKind::BinaryInto(BinaryOp::Add), I64, &[2, 3]),
            Some(Exact::Value(5.into()))
        );
        assert!(lookup(OpKind::ScatterAdd).is_none());
        assert!(lookup(OpKind::BinaryScalar(BinaryOp::Add)).is_none());
    }

    #[test]
    fn entries_call_their_own_functions() {
        // 2 - 3 and 3 - 2 tell the operand order; 2 * 3 + 1 and (2 + 3) * 1 tell the two fused ops.
        let bits = |v: f32| u64::from(v.to_bits());
        let (one, two, three) = (bits(1.0), bits(2.0), bits(3.0));
        assert_eq!(reference(binary(BinaryOp::Subtract), F32, &[two, three]), Some(bits(-1.0)));
        assert_eq!(reference(binary(BinaryOp::Divide), F32, &[three, two]), Some(bits(1.5)));
        assert_eq!(reference(binary(BinaryOp::Pow), F32, &[two, three]), Some(bits(8.0)));
        assert_eq!(reference(binary(BinaryOp::Minimum), F32, &[two, three]), Some(two));
        assert_eq!(reference(binary(BinaryOp::Hypot), F32, &[bits(3.0), bits(4.0)]), Some(bits(5.0)));
        let fma = OpKind::Ternary(TernaryOp::FusedMulAdd);
        let fam = OpKind::Ternary(TernaryOp::FusedAddMul);
        assert_eq!(reference(fma, F32, &[two, three, one]), Some(bits(7.0)));
        assert_eq!(reference(fam, F32, &[two, three, one]), Some(bits(5.0)));
        let value = |op, a, b| exact_integer(binary(op), I64, &[a, b]);
        assert_eq!(value(BinaryOp::Subtract, 2, 3), Some(Exact::Value((-1).into())));
        assert_eq!(
            value(BinaryOp::Multiply, i64::MAX.into(), 2),
            Some(Exact::Value(Integer::from(i64::MAX) * 2))
        );
        assert_eq!(value(BinaryOp::Maximum, -1, -7), Some(Exact::Value((-1).into())));
        assert_eq!(value(BinaryOp::Minimum, -1, -7), Some(Exact::Value((-7).into())));
        assert_eq!(value(BinaryOp::Remainder, -7, 2), Some(Exact::Value(1.into())));
        assert_eq!(value(BinaryOp::Atan2, 1, 1), None);
    }

    #[test]
    fn comparisons_agree_on_floats_and_integers() {
        let comparisons = [
            BinaryOp::Equal,
            BinaryOp::NotEqual,
            BinaryOp::Greater,
            BinaryOp::GreaterEqual,
            BinaryOp::Less,
            BinaryOp::LessEqual,
        ];
        let float = |v: i128| u64::from((v as f32).to_bits());
        for (a, b) in [(1, 2), (2, 2), (3, 2), (-1, 1)] {
            let truth = [a == b, a != b, a > b, a >= b, a < b, a <= b];
            for (op, expected) in comparisons.into_iter().zip(truth) {
                let context = format!("{op}({a}, {b})");
                let bits = reference(binary(op), F32, &[float(a), float(b)]);
                assert_eq!(bits, Some(u64::from(expected)), "{context}");
                assert_eq!(exact_integer(binary(op), I64, &[a, b]), Some(Exact::Bool(expected)), "{context}");
            }
        }
        // A NaN is unordered: only not_equal holds.
        let unordered = [false, true, false, false, false, false];
        for (op, expected) in comparisons.into_iter().zip(unordered) {
            let bits = reference(binary(op), F32, &[F32.quiet_nan(), F32.quiet_nan()]);
            assert_eq!(bits, Some(u64::from(expected)), "{op}(NaN, NaN)");
        }
    }

    #[test]
    fn high_precision_values_are_looked_up() {
        let value = high_precision(binary(BinaryOp::Logaddexp), Format::F64, &[0, 0]).unwrap();
        assert_eq!(crate::oracle::round_exact(Format::F64, &value), 0x3fe6_2e42_fefa_39ef, "ln 2");
        assert!(high_precision(binary(BinaryOp::Add), F32, &[0, 0]).is_none());
        // exp(0) = 1; sqrt is correctly rounded, so it has no high-precision value.
        let exp = high_precision(OpKind::Unary(UnaryOp::Exp), F32, &[0]).unwrap();
        assert_eq!(crate::oracle::round_exact(F32, &exp), F32.one());
        assert!(high_precision(OpKind::Unary(UnaryOp::Sqrt), F32, &[0]).is_none());
    }
}
