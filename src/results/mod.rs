//! The record of a run, below the runner and the report: what one check found ([`record`]),
//! what the run was and how to rerun it ([`info`]), the `results.jsonl` file ([`file`]) and the
//! layout coverage they show ([`coverage`]); what they amount to is [`verdict`](crate::verdict)'s. The runner writes these; the report, `diff` and `merge` read them.

pub mod coverage;
pub mod file;
pub mod info;
pub mod record;
pub mod rerun;
pub mod shard;

pub use file::{FORMAT, ResultsWriter, Run, VERSION, distinct, read};
pub use info::{Gap, RunInfo};
pub use record::{
    BatchPlace, CaseFailure, CheckResult, ChunkResult, Citation, KnownDeviation, ProfileVerdict, Resumed,
    Status, ULP_BUCKETS, UlpWorst,
};
pub use rerun::Rerun;
