//! Errors an adapter returns.

use std::fmt;

/// What kind of failure an adapter reports. Suites that expect an error check the kind (and,
/// where the source document defines one, the code). New kinds may be added.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Shapes cannot be broadcast or do not match where they must.
    ShapeMismatch,
    /// Operand dtypes differ where they must agree.
    DTypeMismatch,
    /// Named axes do not line up.
    NameMismatch,
    /// An index tensor has a dtype that is not allowed (a TypeError in Python terms).
    IndexDType,
    /// A rank requirement is violated (a ValueError in Python terms).
    Rank,
    /// An index is outside the indexed axis.
    OutOfRange,
    /// The operation needs a contiguous tensor.
    NotContiguous,
    /// The operation or dtype is not implemented.
    Unsupported,
    /// A step of the adapter's own failed (building an operand, converting a result), not the
    /// operation: see [`AdapterError::at_step`].
    Adapter,
    /// Anything else.
    Other,
    /// No result and no refusal: the process that serves the adapter died (a signal or an
    /// exit), hung or garbled its reply during the call. Hosts return it, never a library: a
    /// call that ends so fails every check it serves, whatever errors the check allows.
    Crashed,
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::ShapeMismatch,
        ErrorKind::DTypeMismatch,
        ErrorKind::NameMismatch,
        ErrorKind::IndexDType,
        ErrorKind::Rank,
        ErrorKind::OutOfRange,
        ErrorKind::NotContiguous,
        ErrorKind::Unsupported,
        ErrorKind::Adapter,
        ErrorKind::Other,
        ErrorKind::Crashed,
    ];

    /// The snake-case name used in specs and reports.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::ShapeMismatch => "shape_mismatch",
            ErrorKind::DTypeMismatch => "dtype_mismatch",
            ErrorKind::NameMismatch => "name_mismatch",
            ErrorKind::IndexDType => "index_dtype",
            ErrorKind::Rank => "rank",
            ErrorKind::OutOfRange => "out_of_range",
            ErrorKind::NotContiguous => "not_contiguous",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Adapter => "adapter",
            ErrorKind::Other => "other",
            ErrorKind::Crashed => "crashed",
        }
    }
}

/// An error returned by an adapter call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterError {
    /// The category of the failure.
    pub kind: ErrorKind,
    /// A code from the source document (e.g. `E0404`), when it defines one.
    pub code: Option<String>,
    /// Human-readable detail.
    pub message: String,
}

impl AdapterError {
    /// An error of `kind` with a message and no document code.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        AdapterError { kind, code: None, message: message.into() }
    }

    /// Shorthand for an [`ErrorKind::Unsupported`] error.
    pub fn unsupported(message: impl Into<String>) -> Self {
        AdapterError::new(ErrorKind::Unsupported, message)
    }

    /// An [`ErrorKind::Adapter`] error: the adapter's own `step` failed, for `why`; its message
    /// reads `adapter error at step STEP: WHY`.
    pub fn at_step(step: &str, why: &str) -> Self {
        AdapterError::new(ErrorKind::Adapter, format!("adapter error at step {step}: {why}"))
    }

    /// Attaches a document error code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.name())?;
        if let Some(code) = &self.code {
            write!(f, " [{code}]")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for AdapterError {}
