//! Check ids, the contract's names for its checks, and the version of that contract.
//!
//! Every check has one query-style id (`suite:adapter:op:dtype:case`, or
//! `table:op:dtype:case` for a table's self-check), used by `list`, `run --filter`/`--exact`,
//! `eval`, the expectations files, libtest trial names, `results.jsonl` and the HTML anchors.
//! The grammar is written once, in `docs/RESULTS.md` ("Check ids"); [`CheckId::from_str`]
//! enforces it.
//!
//! The grammar is a contract (`docs/RESULTS.md`): [`CONTRACT_VERSION`] says which.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The version of the check-id contract. Adding checks or an alias keeps it; a check id
/// that goes away without an alias that keeps it bumps it.
pub const CONTRACT_VERSION: u32 = 1;

/// What a check is run against: an adapter in a suite, or the oracle (a table self-check).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `table:…`: the table against the oracle.
    Table,
    /// `suite:adapter:…`.
    Adapter { suite: String, adapter: String },
}

/// A check's id; see the [module documentation](self) for the grammar.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CheckId {
    pub scope: Scope,
    pub op: String,
    pub dtype: String,
    pub case: String,
}

/// The dtype segment of checks that are about no one dtype.
pub const NO_DTYPE: &str = "-";

impl CheckId {
    /// The id of an adapter check.
    pub fn adapter(suite: &str, adapter: &str, op: &str, dtype: &str, case: &str) -> CheckId {
        CheckId {
            scope: Scope::Adapter { suite: suite.into(), adapter: adapter.into() },
            op: op.into(),
            dtype: dtype.into(),
            case: case.into(),
        }
    }

    /// The id of a table self-check.
    pub fn table(op: &str, dtype: &str, case: &str) -> CheckId {
        CheckId { scope: Scope::Table, op: op.into(), dtype: dtype.into(), case: case.into() }
    }

    /// The suite's name; `None` for a table self-check.
    pub fn suite(&self) -> Option<&str> {
        match &self.scope {
            Scope::Table => None,
            Scope::Adapter { suite, .. } => Some(suite),
        }
    }

    /// The adapter's name; `None` for a table self-check.
    pub fn adapter_name(&self) -> Option<&str> {
        match &self.scope {
            Scope::Table => None,
            Scope::Adapter { adapter, .. } => Some(adapter),
        }
    }

    /// The suite's name, or `table` for a table self-check: how summaries group results.
    pub fn suite_label(&self) -> &str {
        self.suite().unwrap_or("table")
    }

    /// The adapter's name, or `oracle` for a table self-check: how summaries group results.
    pub fn adapter_label(&self) -> &str {
        self.adapter_name().unwrap_or("oracle")
    }

    /// The same check's id for `adapter` (a table self-check's id is its own).
    pub fn of_adapter(&self, adapter: &str) -> CheckId {
        let scope = match &self.scope {
            Scope::Table => Scope::Table,
            Scope::Adapter { suite, .. } => Scope::Adapter { suite: suite.clone(), adapter: adapter.into() },
        };
        CheckId { scope, ..self.clone() }
    }

    /// The id's `:`-separated segments.
    pub fn segments(&self) -> Vec<&str> {
        let mut parts = match &self.scope {
            Scope::Table => vec!["table"],
            Scope::Adapter { suite, adapter } => vec![suite.as_str(), adapter.as_str()],
        };
        parts.extend([self.op.as_str(), self.dtype.as_str(), self.case.as_str()]);
        parts
    }
}

impl fmt::Display for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.segments().join(":"))
    }
}

/// Whether `s` is a name: lowercase ASCII letters, digits and `-`, not empty (the tables'
/// permanent ids follow the same rule).
pub use super::load::is_valid_id as is_name;

fn is_op(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn is_dtype(s: &str) -> bool {
    let word = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    s == NO_DTYPE || s.split('+').count() <= 2 && s.split('+').all(word)
}

impl FromStr for CheckId {
    type Err = String;

    fn from_str(text: &str) -> Result<CheckId, String> {
        let grammar = "a check id is suite:adapter:op:dtype:case or table:op:dtype:case";
        let parts: Vec<&str> = text.split(':').collect();
        let (scope, rest) = match parts.as_slice() {
            ["table", rest @ ..] if rest.len() == 3 => (Scope::Table, rest),
            ["table", ..] => return Err(format!("`{text}`: {grammar} (`table` ids have 4 segments)")),
            [suite, adapter, rest @ ..] if rest.len() == 3 => {
                for (what, name) in [("suite", suite), ("adapter", adapter)] {
                    if !is_name(name) {
                        return Err(format!(
                            "`{text}`: the {what} `{name}` is not a name (lowercase letters, digits, `-`)"
                        ));
                    }
                }
                (Scope::Adapter { suite: suite.to_string(), adapter: adapter.to_string() }, rest)
            }
            _ => return Err(format!("`{text}`: {grammar}")),
        };
        let [op, dtype, case] = [rest[0], rest[1], rest[2]];
        if !is_op(op) {
            return Err(format!("`{text}`: `{op}` is not an operation or table name"));
        }
        if !is_dtype(dtype) {
            return Err(format!("`{text}`: `{dtype}` is not a dtype, two joined by `+`, or `-`"));
        }
        if !is_name(case) {
            return Err(format!(
                "`{text}`: the case `{case}` is not a name (lowercase letters, digits, `-`)"
            ));
        }
        Ok(CheckId { scope, op: op.into(), dtype: dtype.into(), case: case.into() })
    }
}

/// In `results.jsonl` an id is written as its string and its parts
/// (`{"id": "...", "suite": ..., "adapter": ..., "op": ..., "dtype": ..., "case": ...}`,
/// flattened into the result); it is read back from the string.
impl Serialize for CheckId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(6))?;
        map.serialize_entry("id", &self.to_string())?;
        map.serialize_entry("suite", &self.suite())?;
        map.serialize_entry("adapter", &self.adapter_name())?;
        map.serialize_entry("op", &self.op)?;
        map.serialize_entry("dtype", &self.dtype)?;
        map.serialize_entry("case", &self.case)?;
        map.end()
    }
}

impl<'de> Deserialize<'de> for CheckId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CheckId, D::Error> {
        #[derive(Deserialize)]
        struct Written {
            id: String,
        }
        let written = Written::deserialize(deserializer)?;
        written.id.parse().map_err(serde::de::Error::custom)
    }
}
