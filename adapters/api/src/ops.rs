//! The operations an adapter can be asked to run.

use std::fmt;
use std::str::FromStr;

/// Element-wise binary operations, named as in the Python array API standard. New operations
/// are added as the contract grows.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Pow,
    Maximum,
    Minimum,
    Atan2,
    Copysign,
    FloorDivide,
    Remainder,
    Hypot,
    Logaddexp,
    Nextafter,
    Equal,
    NotEqual,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
}

impl BinaryOp {
    /// Every binary operation.
    pub const ALL: [BinaryOp; 20] = [
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Atan2,
        BinaryOp::Copysign,
        BinaryOp::FloorDivide,
        BinaryOp::Remainder,
        BinaryOp::Hypot,
        BinaryOp::Logaddexp,
        BinaryOp::Nextafter,
        BinaryOp::Equal,
        BinaryOp::NotEqual,
        BinaryOp::Greater,
        BinaryOp::GreaterEqual,
        BinaryOp::Less,
        BinaryOp::LessEqual,
    ];

    /// The name used in specs (the array API's function name).
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Subtract => "subtract",
            BinaryOp::Multiply => "multiply",
            BinaryOp::Divide => "divide",
            BinaryOp::Pow => "pow",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::Copysign => "copysign",
            BinaryOp::FloorDivide => "floor_divide",
            BinaryOp::Remainder => "remainder",
            BinaryOp::Hypot => "hypot",
            BinaryOp::Logaddexp => "logaddexp",
            BinaryOp::Nextafter => "nextafter",
            BinaryOp::Equal => "equal",
            BinaryOp::NotEqual => "not_equal",
            BinaryOp::Greater => "greater",
            BinaryOp::GreaterEqual => "greater_equal",
            BinaryOp::Less => "less",
            BinaryOp::LessEqual => "less_equal",
        }
    }

    /// True for the comparisons, whose results are `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Equal
                | BinaryOp::NotEqual
                | BinaryOp::Greater
                | BinaryOp::GreaterEqual
                | BinaryOp::Less
                | BinaryOp::LessEqual
        )
    }
}

/// Element-wise ternary (fused) operations.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TernaryOp {
    /// `a * b + c` with one rounding.
    FusedMulAdd,
    /// `(a + b) * c` with two roundings.
    FusedAddMul,
}

impl TernaryOp {
    /// Every ternary operation.
    pub const ALL: [TernaryOp; 2] = [TernaryOp::FusedMulAdd, TernaryOp::FusedAddMul];

    /// The name used in specs.
    pub fn name(self) -> &'static str {
        match self {
            TernaryOp::FusedMulAdd => "fused_mul_add",
            TernaryOp::FusedAddMul => "fused_add_mul",
        }
    }
}

/// Any operation, as named in [`Adapter::supports`](crate::Adapter::supports).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    Binary(BinaryOp),
    /// A binary operation writing into a caller-owned output.
    BinaryInto(BinaryOp),
    /// A binary operation with one host (Python) scalar operand.
    BinaryScalar(BinaryOp),
    Ternary(TernaryOp),
    ScatterAdd,
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

macro_rules! name_traits {
    ($ty:ty) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$ty>::ALL
                    .into_iter()
                    .find(|op| op.name() == s)
                    .ok_or_else(|| format!("unknown operation `{s}`"))
            }
        }
    };
}

name_traits!(BinaryOp);
name_traits!(TernaryOp);

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
        assert!("plus".parse::<BinaryOp>().is_err());
    }
}
