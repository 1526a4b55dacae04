//! The record of a run, below the runner and the report: what one check found ([`record`]),
//! what the run was and how to rerun it ([`info`]), the `results.jsonl` file ([`file`]), the
//! exit codes its results amount to ([`exit`]) and the layout coverage they show
//! ([`coverage`]). The runner writes these; the report, `diff` and `merge` read them.

pub mod coverage;
pub mod exit;
pub mod file;
pub mod info;
pub mod record;
pub mod rerun;
pub mod shard;

pub use exit::{
    EXIT_BAD_INPUT, EXIT_FAIL, EXIT_INCOMPLETE, EXIT_NOTHING_CHECKED, SkippedAdapters, Verdict, verdict,
};
pub use file::{FORMAT, ResultsWriter, Run, VERSION, read};
pub use info::{Gap, RunInfo};
pub use record::{
    BatchPlace, CaseFailure, CheckResult, ChunkResult, Citation, KnownDeviation, ProfileVerdict, Resumed,
    Status, ULP_BUCKETS, UlpWorst,
};
pub use rerun::Rerun;
