//! The serde types of a suite (`suites/*.yaml`): which tables, dtypes and comparison rules
//! one contract promises.

use std::collections::BTreeMap;

use opspec_adapter::{DType, OpKind};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

use crate::bits::format::Format;

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
    /// Step bounds for `approximate` operations: op -> float dtype -> how many representable
    /// steps a result may be from the correctly rounded value (a whole number; see
    /// `docs/ACCURACY.md`).
    #[serde(default, deserialize_with = "step_bounds")]
    pub step_bounds: BTreeMap<OpKind, BTreeMap<DType, u32>>,
    /// What integer results outside the exact, in-range ones must be (required when `dtypes`
    /// lists an integer dtype).
    #[serde(default)]
    pub integers: Option<IntegerContract>,
    /// The document-wide clauses: on whose authority the rows' remaining cases are judged
    /// (`docs/AUTHORITY.md`).
    #[serde(default)]
    pub authority: super::authority::Authority,
    /// Scatter parameters (mode, negative indices, determinism, index dtypes); required when
    /// the suite names a scatter table.
    #[serde(default)]
    pub scatter: Option<super::scatter::ScatterParams>,
}

impl Suite {
    /// The step bound the suite sets for `op` in format `f`, if any.
    pub fn step_bound(&self, op: OpKind, f: Format) -> Option<u32> {
        self.step_bounds.get(&op)?.iter().find(|&(&d, _)| Format::of(d) == Some(f)).map(|(_, &n)| n)
    }
}

/// Reads `step_bounds` with typed keys, so that an unknown operation or a dtype other than a
/// float one is an error at its place in the file (as is a bound that is not a `u32`).
fn step_bounds<'de, D: Deserializer<'de>>(de: D) -> Result<BTreeMap<OpKind, BTreeMap<DType, u32>>, D::Error> {
    let named = BTreeMap::<OpName, BTreeMap<FloatDType, u32>>::deserialize(de)?;
    Ok(named
        .into_iter()
        .map(|(op, bounds)| (op.0, bounds.into_iter().map(|(d, n)| (d.0, n)).collect()))
        .collect())
}

/// An operation name as a map key.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct OpName(OpKind);

impl<'de> Deserialize<'de> for OpName {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let name = String::deserialize(de)?;
        super::parse_op(&name)
            .map(OpName)
            .ok_or_else(|| D::Error::custom(format!("unknown operation `{name}`")))
    }
}

/// A float dtype name as a map key.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct FloatDType(DType);

impl<'de> Deserialize<'de> for FloatDType {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let dtype: DType = String::deserialize(de)?.parse().map_err(D::Error::custom)?;
        if !dtype.is_float() {
            return Err(D::Error::custom(format!(
                "`{dtype}` is not a float dtype: integer results are exact"
            )));
        }
        Ok(FloatDType(dtype))
    }
}

/// A contract's rules for integer results that the mathematics leaves open.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntegerContract {
    /// A result outside the dtype's range.
    pub overflow: Overflow,
    /// `floor_divide` or `remainder` by zero; where `undefined`, also a float `divide` by zero
    /// (the document's words are on division, not on integers).
    pub division_by_zero: DivisionByZero,
    /// `pow` with a negative exponent.
    pub negative_exponent: Unspecified,
    /// How true division (`divide`) makes an integer of its quotient. Set, the suite checks
    /// `divide` in its integer dtypes, which the table (the array API's, on floats) does not
    /// list; absent, it does not.
    #[serde(default)]
    pub divide: Option<Quotient>,
}

/// How an integer `divide` rounds the exact quotient to an integer (then `overflow` applies:
/// `MIN / -1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quotient {
    /// Toward zero (Rust's and C's integer `/`).
    Truncate,
    /// Toward -infinity (Python's `//`).
    Floor,
}

impl Quotient {
    /// The other rounding: `a / b`'s words allow either.
    pub fn other(self) -> Quotient {
        match self {
            Quotient::Truncate => Quotient::Floor,
            Quotient::Floor => Quotient::Truncate,
        }
    }

    /// Its name in a suite (`integers.divide`).
    pub fn name(self) -> &'static str {
        match self {
            Quotient::Truncate => "truncate",
            Quotient::Floor => "floor",
        }
    }

    /// What it does to the quotient, in words: "the quotient {words}".
    pub fn words(self) -> &'static str {
        match self {
            Quotient::Truncate => "truncated toward zero",
            Quotient::Floor => "floored",
        }
    }
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

/// What an integer division by zero (`floor_divide`, `remainder`, and `divide` where the
/// suite sets `divide`) must give. Such inputs are judged in a check of their own (`by-zero`),
/// never in a batch with other inputs, so that what the contract allows them fails nothing
/// else. A call that gives no value (an error, a panic, a crash, a hang) fails a must unless
/// the rule says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DivisionByZero {
    /// Zero.
    Zero,
    /// Any value.
    Any,
    /// Any value, or an error returned by the library: the array API's "unspecified and thus
    /// implementation-defined". A panic, a crashed process or a hang gives no result and still
    /// fails a must.
    AnyOrError,
    /// Undefined behaviour (numr's "undefined behavior (implementation-dependent)"): nothing
    /// the call does fails a must; a call that gives no value (an error, a panic, a crash, a
    /// hang) misses opspec's bar (quality), which asks for any value.
    Undefined,
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
