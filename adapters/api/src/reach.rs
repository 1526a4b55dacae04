//! Whether an operand reached the library as the view it was given or as a copy, so that a
//! passing layout check is not mistaken for coverage of the library's strided code.

use std::fmt;

/// How one operand (or destination) of a call reached the library under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reach {
    /// The library got the operand with the shape, strides and start it was given (its bytes
    /// may have been moved whole, e.g. across a process boundary, but not laid out anew).
    View,
    /// The adapter copied it into another layout (usually contiguous) before the library saw it.
    Copy,
    /// The adapter does not say.
    Unknown,
}

impl Reach {
    /// The word reports use: `view`, `copy`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Reach::View => "view",
            Reach::Copy => "copy",
            Reach::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
