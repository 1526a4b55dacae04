//! The checker surface: for implementations that are type checkers rather than executors.
//!
//! A DSL compiler decides, without running a kernel, what shape and kind an expression has or
//! which error it reports. Such an implementation answers [`ShapeChecker::check`]: named shapes
//! and operand kinds in, the result's named shape and kind (and how each operand lines up with
//! it) or an error with its document code (`E0404`) out. The named-axis suite asks these
//! questions through [`Adapter::checker`](crate::Adapter::checker), so a checker can be tested
//! with no tensors at all; an executor answers them too.

use std::fmt;
use std::str::FromStr;

use crate::{AdapterError, DType, ErrorKind};

/// One axis of a named shape: an optional name and a size.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NamedAxis {
    /// The axis name (`n`, `D`, or a merged axis such as `(H Dh)`); `None` for an unnamed axis.
    pub name: Option<String>,
    /// The number of elements along the axis.
    pub size: usize,
}

impl NamedAxis {
    /// A named axis.
    pub fn named(name: impl Into<String>, size: usize) -> NamedAxis {
        NamedAxis { name: Some(name.into()), size }
    }

    /// An unnamed axis.
    pub fn unnamed(size: usize) -> NamedAxis {
        NamedAxis { name: None, size }
    }
}

impl fmt::Display for NamedAxis {
    /// `n=3` for a named axis, `3` for an unnamed one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{name}={}", self.size),
            None => write!(f, "{}", self.size),
        }
    }
}

/// A named shape as text: `[b=2 n=3 4]`, `[]` for rank 0.
pub fn shape_text(axes: &[NamedAxis]) -> String {
    let parts: Vec<String> = axes.iter().map(NamedAxis::to_string).collect();
    format!("[{}]", parts.join(" "))
}

/// What kind of value an operand is, in the terms of the named-axis document's operator table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueKind {
    /// An integer tensor.
    Int,
    /// A floating-point tensor (`Real`).
    Real,
    /// A floating-point tensor of logits (a refinement of `Real`).
    Logits,
    /// A boolean tensor.
    Mask,
    /// An integer known on the host (a compile-time scalar).
    HostInt,
    /// A floating-point number known on the host.
    HostReal,
    /// A boolean known on the host.
    HostBool,
    /// A string.
    Str,
    /// A Python value (interop): its type is not known to the checker.
    Python,
}

impl ValueKind {
    /// Every kind.
    pub const ALL: [ValueKind; 9] = [
        ValueKind::Int,
        ValueKind::Real,
        ValueKind::Logits,
        ValueKind::Mask,
        ValueKind::HostInt,
        ValueKind::HostReal,
        ValueKind::HostBool,
        ValueKind::Str,
        ValueKind::Python,
    ];

    /// The name used in tables (`int`, `real`, `logits`, `mask`, `host_int`, `host_real`,
    /// `host_bool`, `string`, `python`).
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Int => "int",
            ValueKind::Real => "real",
            ValueKind::Logits => "logits",
            ValueKind::Mask => "mask",
            ValueKind::HostInt => "host_int",
            ValueKind::HostReal => "host_real",
            ValueKind::HostBool => "host_bool",
            ValueKind::Str => "string",
            ValueKind::Python => "python",
        }
    }

    /// True for the host scalars, strings and Python values: operands that have no axes.
    pub fn is_scalar(self) -> bool {
        !matches!(self, ValueKind::Int | ValueKind::Real | ValueKind::Logits | ValueKind::Mask)
    }
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ValueKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ValueKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = ValueKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown value kind `{s}` (expected one of {})", names.join(", "))
        })
    }
}

/// An operand as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// What the operand is (a tensor kind, a host scalar, a string, a Python value).
    pub kind: ValueKind,
    /// The element type, where the program states it; `None` when only the kind is known.
    pub dtype: Option<DType>,
    /// The named shape (rank 0 for host scalars, strings and Python values).
    pub shape: Vec<NamedAxis>,
}

/// The operations whose shape and type rules the named-axis document states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NamedOp {
    /// `+`.
    Add,
    /// Binary `-`.
    Subtract,
    /// `*`.
    Multiply,
    /// `/`.
    Divide,
    /// `x @ y`, `matmul(x, y)`.
    Matmul,
    /// `==`.
    Equal,
    /// `!=`.
    NotEqual,
    /// `<`.
    Less,
    /// `<=`.
    LessEqual,
    /// `>`.
    Greater,
    /// `>=`.
    GreaterEqual,
    /// `and`.
    LogicalAnd,
    /// `or`.
    LogicalOr,
    /// `!`.
    LogicalNot,
    /// Unary `-`.
    Negative,
    /// `masked_fill(x, mask, value)`: the shape rule between `x` and `mask`.
    MaskedFill,
}

impl NamedOp {
    /// Every operation.
    pub const ALL: [NamedOp; 16] = [
        NamedOp::Add,
        NamedOp::Subtract,
        NamedOp::Multiply,
        NamedOp::Divide,
        NamedOp::Matmul,
        NamedOp::Equal,
        NamedOp::NotEqual,
        NamedOp::Less,
        NamedOp::LessEqual,
        NamedOp::Greater,
        NamedOp::GreaterEqual,
        NamedOp::LogicalAnd,
        NamedOp::LogicalOr,
        NamedOp::LogicalNot,
        NamedOp::Negative,
        NamedOp::MaskedFill,
    ];

    /// The name used in tables (the array API's function name where it has one).
    pub fn name(self) -> &'static str {
        match self {
            NamedOp::Add => "add",
            NamedOp::Subtract => "subtract",
            NamedOp::Multiply => "multiply",
            NamedOp::Divide => "divide",
            NamedOp::Matmul => "matmul",
            NamedOp::Equal => "equal",
            NamedOp::NotEqual => "not_equal",
            NamedOp::Less => "less",
            NamedOp::LessEqual => "less_equal",
            NamedOp::Greater => "greater",
            NamedOp::GreaterEqual => "greater_equal",
            NamedOp::LogicalAnd => "logical_and",
            NamedOp::LogicalOr => "logical_or",
            NamedOp::LogicalNot => "logical_not",
            NamedOp::Negative => "negative",
            NamedOp::MaskedFill => "masked_fill",
        }
    }

    /// The operator as the document writes it (`+`, `@`, `and`, `!`).
    pub fn symbol(self) -> &'static str {
        match self {
            NamedOp::Add => "+",
            NamedOp::Subtract => "-",
            NamedOp::Multiply => "*",
            NamedOp::Divide => "/",
            NamedOp::Matmul => "@",
            NamedOp::Equal => "==",
            NamedOp::NotEqual => "!=",
            NamedOp::Less => "<",
            NamedOp::LessEqual => "<=",
            NamedOp::Greater => ">",
            NamedOp::GreaterEqual => ">=",
            NamedOp::LogicalAnd => "and",
            NamedOp::LogicalOr => "or",
            NamedOp::LogicalNot => "!",
            NamedOp::Negative => "unary -",
            NamedOp::MaskedFill => "masked_fill",
        }
    }

    /// Number of operands (`masked_fill` counts the tensor and the mask).
    pub fn arity(self) -> usize {
        match self {
            NamedOp::LogicalNot | NamedOp::Negative => 1,
            _ => 2,
        }
    }
}

impl fmt::Display for NamedOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for NamedOp {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NamedOp::ALL.into_iter().find(|op| op.name() == s).ok_or_else(|| {
            let names: Vec<_> = NamedOp::ALL.iter().map(|op| op.name()).collect();
            format!("unknown named-axis operation `{s}` (expected one of {})", names.join(", "))
        })
    }
}

/// How one operand lines up with the result: for each result axis, the operand's axis that
/// supplies it, or `None` where the operand gets a new axis (an unsqueeze). Applying it is a
/// permutation plus unsqueezes; size-1 axes then broadcast.
pub type Alignment = Vec<Option<usize>>;

/// A checker's answer for a well-formed expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The result's named shape.
    pub shape: Vec<NamedAxis>,
    /// The result's kind.
    pub kind: ValueKind,
    /// One alignment per operand for element-wise operations and `masked_fill`; `None` where
    /// the operation does not line operands up axis by axis (`matmul`).
    pub alignment: Option<Vec<Alignment>>,
}

/// An implementation that answers the named-axis document's shape and type questions.
pub trait ShapeChecker: Send + Sync {
    /// The result of `op` on `operands`, or an error carrying the document's code.
    fn check(&self, op: NamedOp, operands: &[Operand]) -> Result<Checked, AdapterError>;
}

/// The error codes of the named-axis document, with the kind each is reported under.
pub const NAMED_AXIS_CODES: [(&str, ErrorKind); 7] = [
    ("E0401", ErrorKind::ShapeMismatch),
    ("E0403", ErrorKind::Rank),
    ("E0404", ErrorKind::NameMismatch),
    ("E0412", ErrorKind::Other),
    ("E0501", ErrorKind::Other),
    ("E0502", ErrorKind::DTypeMismatch),
    ("E0505", ErrorKind::Other),
];

/// An error with a named-axis document code and the kind that goes with it.
pub fn named_axis_error(code: &str, message: impl Into<String>) -> AdapterError {
    let kind = NAMED_AXIS_CODES.iter().find(|(c, _)| *c == code).map_or(ErrorKind::Other, |&(_, k)| k);
    AdapterError::new(kind, message).with_code(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back() {
        for op in NamedOp::ALL {
            assert_eq!(op.name().parse::<NamedOp>(), Ok(op));
        }
        for k in ValueKind::ALL {
            assert_eq!(k.name().parse::<ValueKind>(), Ok(k));
        }
        assert!("plus".parse::<NamedOp>().is_err());
    }

    #[test]
    fn shapes_as_text() {
        let s = [NamedAxis::named("n", 3), NamedAxis::unnamed(4)];
        assert_eq!(shape_text(&s), "[n=3 4]");
        assert_eq!(shape_text(&[]), "[]");
        let e = named_axis_error("E0404", "n vs k");
        assert_eq!((e.kind, e.code.as_deref()), (ErrorKind::NameMismatch, Some("E0404")));
    }
}
