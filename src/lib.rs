//! opspec: a spec-conformance harness and reference oracle for element-wise tensor operations.
//!
//! The contract lives in YAML tables under `specs/` (see [`spec`]); suites under `suites/`
//! say which tables, dtypes and comparison rules a contract promises. The harness generates
//! inputs for every row ([`generate`]), runs an implementation through the
//! [`Adapter`](opspec_adapter::Adapter) API, and compares each result with what the table
//! and the MPFR reference ([`oracle`]) allow ([`check`], [`expect`]).

pub mod adapters;
pub mod check;
pub mod cli;
pub mod expect;
pub mod ffi;
pub mod format;
pub mod generate;
pub mod harness;
pub mod oracle;
pub mod platform;
pub mod process;
pub mod python;
pub mod report;
pub mod run;
pub mod spec;
pub mod value;
