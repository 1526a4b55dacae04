//! The serde types of a suite (`suites/*.yaml`): which tables, dtypes and comparison rules
//! one contract promises.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A suite: specs × dtypes × comparison rules × case counts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// Short name used in check ids (`array-api`).
    pub name: String,
    /// One-line title for reports.
    pub title: String,
    /// Tables, as paths under `specs/` without the `.yaml` extension.
    pub specs: Vec<String>,
    /// dtypes every table is checked in (intersected with each table's own list).
    pub dtypes: Vec<String>,
    /// How NaN results are compared.
    #[serde(default)]
    pub nan: NanPolicy,
    /// Generated inputs per special-case row.
    pub cases_per_row: usize,
    /// Random inputs per (operation, dtype), checked against the oracle.
    pub random_cases: usize,
    /// Base seed; each check derives its own from this and its id.
    pub seed: u64,
    /// ULP bounds for `approximate` operations: op -> dtype -> bound.
    #[serde(default)]
    pub ulp_bounds: BTreeMap<String, BTreeMap<String, f64>>,
    /// Scatter parameters (mode, negative indices, determinism, index dtypes); required when
    /// the suite names a scatter table.
    #[serde(default)]
    pub scatter: Option<super::scatter::ScatterParams>,
}

/// NaN comparison policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NanPolicy {
    /// Any NaN matches an expected NaN (sign and payload free).
    #[default]
    Any,
    /// A NaN result must also be quiet.
    Quiet,
}
