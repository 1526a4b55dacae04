//! opspec: a spec-conformance harness and reference oracle for element-wise tensor operations.
//!
//! The contract lives in YAML tables under `specs/` (see [`spec`]); suites under `suites/`
//! say which tables, dtypes and comparison rules a contract promises. The harness generates
//! inputs for every row ([`generate`]), runs an implementation through the
//! [`Adapter`](opspec_adapter::Adapter) API ([`host`]), and judges each result against what the
//! table and the MPFR reference ([`oracle`]) allow ([`judge`]); [`run`] drives it, [`results`]
//! records it and [`report`] renders it. The rooms, bottom up, and what each may import:
//! `docs/ARCHITECTURE.md` (checked by `scripts/layers.py`).

pub mod bits;
pub mod cli;
pub mod generate;
pub mod harness;
pub mod host;
pub mod judge;
pub mod oracle;
pub mod platform;
pub mod report;
pub mod results;
pub mod run;
pub mod spec;
pub mod verdict;
