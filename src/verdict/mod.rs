//! What results amount to: the second level of acceptance, above [`judge`](crate::judge)'s
//! "may this result stand?". Under a gate, what a check amounts to ([`check`]: its
//! expectations entry, its adapter's profile, whether it fails the gate), what a set of checks
//! amounts to on the verdict ladder ([`ladder`]: a library × function cell, a suite × adapter
//! pair in [`suite`]), and what a run amounts to ([`exit`]: the exit code). The terminal, the
//! HTML report, the compliance table, JUnit and the exit code all ask this room.

pub mod check;
pub mod exit;
pub mod ladder;
pub mod suite;

pub use exit::{
    EXIT_BAD_INPUT, EXIT_FAIL, EXIT_INCOMPLETE, EXIT_NOTHING_CHECKED, Exit, SkippedAdapters, exit,
};
pub use ladder::{Counts, Rung};
pub use suite::{Conformance, Verdicts, verdicts};
