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
    /// What a signaling NaN operand allows.
    #[serde(default)]
    pub signaling_nans: SignalingPolicy,
    /// Generated inputs per special-case row.
    pub cases_per_row: usize,
    /// Random inputs per (operation, dtype), checked against the oracle.
    pub random_cases: usize,
    /// Base seed; each check derives its own from this and its id.
    pub seed: u64,
    /// Generated shape pairs per broadcasting value check (default 16; each runs in both
    /// operand orders).
    #[serde(default)]
    pub broadcast_shapes: Option<usize>,
    /// ULP bounds for `approximate` operations: op -> dtype -> bound.
    #[serde(default)]
    pub ulp_bounds: BTreeMap<String, BTreeMap<String, f64>>,
    /// What integer results outside the exact, in-range ones must be (required when `dtypes`
    /// lists an integer dtype).
    #[serde(default)]
    pub integers: Option<IntegerContract>,
    /// Scatter parameters (mode, negative indices, determinism, index dtypes); required when
    /// the suite names a scatter table.
    #[serde(default)]
    pub scatter: Option<super::scatter::ScatterParams>,
}

/// A contract's rules for integer results that the mathematics leaves open.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegerContract {
    /// A result outside the dtype's range.
    pub overflow: Overflow,
    /// `floor_divide` or `remainder` by zero.
    pub division_by_zero: Unspecified,
    /// `pow` with a negative exponent.
    pub negative_exponent: Unspecified,
}

/// What an out-of-range integer result must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// Two's-complement wrapping (the exact result modulo 2^bits).
    Wrap,
    /// Clamped to the dtype's minimum or maximum.
    Saturate,
    /// Any value (but the call must not fail).
    Any,
    /// Unspecified: such inputs are not generated.
    Avoid,
}

/// What a case the mathematics leaves open (x / 0, x ** -1) must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unspecified {
    /// Zero.
    Zero,
    /// Any value (but the call must not fail).
    Any,
    /// Unspecified: such inputs are not generated.
    Avoid,
}

/// Where an operand is a signaling NaN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalingPolicy {
    /// A quiet NaN result is accepted too, wherever a table gives another result for a NaN
    /// operand (IEEE 754-2019 §6.2 and §9.2.1: an operation on a signaling NaN signals invalid
    /// and delivers a quiet NaN; "pow(x, ±0) is 1 for any x (even a ... quiet NaN ...)").
    #[default]
    MayPropagate,
    /// Signaling NaNs are held to the same results as quiet ones.
    AsQuiet,
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
