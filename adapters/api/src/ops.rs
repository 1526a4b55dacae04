//! The operations an adapter can be asked to run.

use std::fmt;
use std::str::FromStr;

/// Declares an operation enum from one line per operation: the variant, the name used in
/// specs (the array API's function name) and, for the comparisons, `comparison` (their
/// results are `bool`). It generates the enum, `ALL`, `name()`, `is_comparison()`, `Display`
/// and `FromStr`, so that an operation is written down once.
macro_rules! operations {
    (
        $(#[$meta:meta])*
        pub enum $ty:ident {
            $($(#[$doc:meta])* $variant:ident = $name:literal $(($comparison:ident))?,)*
        }
    ) => {
        $(#[$meta])*
        #[non_exhaustive]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $ty {
            $($(#[$doc])* $variant,)*
        }

        impl $ty {
            /// Every operation, in declaration order.
            pub const ALL: [$ty; [$($ty::$variant),*].len()] = [$($ty::$variant),*];

            /// The name used in specs (the array API's function name).
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)*
                }
            }

            /// True for the comparisons (and the unary predicates), whose results are `bool`.
            pub fn is_comparison(self) -> bool {
                match self {
                    $($ty::$variant => operations!(@comparison $($comparison)?),)*
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL
                    .into_iter()
                    .find(|op| op.name() == s)
                    .ok_or_else(|| format!("unknown operation `{s}`"))
            }
        }
    };
    (@comparison comparison) => { true };
    (@comparison) => { false };
}

operations! {
    /// Element-wise binary operations, named as in the Python array API standard. New
    /// operations are added as the contract grows.
    pub enum BinaryOp {
        Add = "add",
        Subtract = "subtract",
        Multiply = "multiply",
        Divide = "divide",
        Pow = "pow",
        Maximum = "maximum",
        Minimum = "minimum",
        Atan2 = "atan2",
        Copysign = "copysign",
        FloorDivide = "floor_divide",
        Remainder = "remainder",
        Hypot = "hypot",
        Logaddexp = "logaddexp",
        Nextafter = "nextafter",
        Equal = "equal" (comparison),
        NotEqual = "not_equal" (comparison),
        Greater = "greater" (comparison),
        GreaterEqual = "greater_equal" (comparison),
        Less = "less" (comparison),
        LessEqual = "less_equal" (comparison),
        BitwiseAnd = "bitwise_and",
        BitwiseOr = "bitwise_or",
        BitwiseXor = "bitwise_xor",
        /// `x1` shifted left by `x2` bits (zeros in at the right); `x2 >= 0`.
        BitwiseLeftShift = "bitwise_left_shift",
        /// `x1` shifted right by `x2` bits, arithmetically (the sign copied in); `x2 >= 0`.
        BitwiseRightShift = "bitwise_right_shift",
        LogicalAnd = "logical_and",
        LogicalOr = "logical_or",
        LogicalXor = "logical_xor",
    }
}

operations! {
    /// Element-wise unary operations, named as in the Python array API standard. The four
    /// predicates (`isfinite`, `isinf`, `isnan`, `signbit`) return `bool`, marked like the
    /// binary comparisons.
    pub enum UnaryOp {
        Abs = "abs",
        Acos = "acos",
        Acosh = "acosh",
        Asin = "asin",
        Asinh = "asinh",
        Atan = "atan",
        Atanh = "atanh",
        BitwiseInvert = "bitwise_invert",
        Ceil = "ceil",
        /// The complex conjugate `a - bj`; a real operand is its own conjugate.
        Conj = "conj",
        Cos = "cos",
        Cosh = "cosh",
        Exp = "exp",
        Expm1 = "expm1",
        Floor = "floor",
        /// The imaginary component of a complex operand, in the parts' real dtype.
        Imag = "imag",
        Isfinite = "isfinite" (comparison),
        Isinf = "isinf" (comparison),
        Isnan = "isnan" (comparison),
        Log = "log",
        Log1p = "log1p",
        Log2 = "log2",
        Log10 = "log10",
        LogicalNot = "logical_not",
        Negative = "negative",
        Positive = "positive",
        /// The real component of a complex operand, in the parts' real dtype; a real operand
        /// is its own real component.
        Real = "real",
        Reciprocal = "reciprocal",
        Round = "round",
        Sign = "sign",
        Signbit = "signbit" (comparison),
        Sin = "sin",
        Sinh = "sinh",
        Sqrt = "sqrt",
        Square = "square",
        Tan = "tan",
        Tanh = "tanh",
        Trunc = "trunc",
    }
}

operations! {
    /// Element-wise ternary operations: the fused ones, and `clip` with tensor bounds.
    pub enum TernaryOp {
        /// `a * b + c` with one rounding.
        FusedMulAdd = "fused_mul_add",
        /// `(a + b) * c` with two roundings.
        FusedAddMul = "fused_add_mul",
        /// The array API's `clip(x, min, max)`: `x` clamped to `[min, max]`, the three
        /// operands broadcast together. An absent bound is not expressible here; a caller
        /// passes `-inf` or `+inf` for it.
        Clip = "clip",
    }
}

/// Any operation, as named in [`Adapter::supports`](crate::Adapter::supports).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    Unary(UnaryOp),
    Binary(BinaryOp),
    /// A binary operation writing into a caller-owned output.
    BinaryInto(BinaryOp),
    /// A binary operation with one host (Python) scalar operand.
    BinaryScalar(BinaryOp),
    Ternary(TernaryOp),
    ScatterAdd,
}

impl OpKind {
    /// How many operands the operation takes: its tensors, a scalar form's scalar included
    /// (scatter-add: the input, the indices and the updates).
    pub const fn arity(self) -> usize {
        match self {
            OpKind::Unary(_) => 1,
            OpKind::Ternary(_) | OpKind::ScatterAdd => 3,
            _ => 2,
        }
    }
}

/// A host scalar operand with Python's semantics: a Python `int` or `float`, which takes part
/// in dtype promotion by its kind, not by a dtype of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
}

/// Which operand a scalar is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarSide {
    /// `op(scalar, tensor)`.
    Left,
    /// `op(tensor, scalar)`.
    Right,
}

/// How scatter-add treats index vectors that fall outside the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterMode {
    /// Out-of-range (and negative) index vectors are skipped without an error.
    Ignore,
    /// Out-of-range index vectors are an error.
    Error,
    /// Indices are clamped into range.
    Clip,
}

/// Whether an adapter implements an (operation, dtype) pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    Supported,
    /// Not implemented, with the reason shown in reports.
    Unsupported(String),
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpKind::Unary(op) => write!(f, "{op}"),
            OpKind::Binary(op) => write!(f, "{op}"),
            OpKind::BinaryInto(op) => write!(f, "{op}_into"),
            OpKind::BinaryScalar(op) => write!(f, "{op} with a scalar"),
            OpKind::Ternary(op) => write!(f, "{op}"),
            OpKind::ScatterAdd => f.write_str("scatter_add"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_parse_back() {
        for op in BinaryOp::ALL {
            assert_eq!(op.name().parse::<BinaryOp>(), Ok(op));
        }
        for op in TernaryOp::ALL {
            assert_eq!(op.name().parse::<TernaryOp>(), Ok(op));
        }
        for op in UnaryOp::ALL {
            assert_eq!(op.name().parse::<UnaryOp>(), Ok(op));
        }
        assert!("plus".parse::<BinaryOp>().is_err());
        assert_eq!(BinaryOp::FloorDivide.to_string(), "floor_divide");
    }

    #[test]
    fn the_comparisons_are_the_six_bool_ops() {
        let comparisons: Vec<&str> =
            BinaryOp::ALL.into_iter().filter(|op| op.is_comparison()).map(BinaryOp::name).collect();
        assert_eq!(comparisons, ["equal", "not_equal", "greater", "greater_equal", "less", "less_equal"]);
        assert!(!TernaryOp::FusedMulAdd.is_comparison());
        let predicates: Vec<&str> =
            UnaryOp::ALL.into_iter().filter(|op| op.is_comparison()).map(UnaryOp::name).collect();
        assert_eq!(predicates, ["isfinite", "isinf", "isnan", "signbit"]);
    }
}
