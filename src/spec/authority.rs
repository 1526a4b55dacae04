//! On whose authority a check fails a library: the tiers of authority, and a suite's
//! document-wide clauses (its `authority:` block), each quoted and cited.
//!
//! A special-case row is a **must** of its document (the bullets are stated as facts). What a
//! row does not govern rests on a clause of the suite: the rounding the document requires
//! (must) and recommends (should), the latitudes it grants (subnormal support may vary; the
//! accuracy of approximations and of complex results is left to the implementation), and
//! everything else opspec asks is **quality**: opspec's own bar. `docs/AUTHORITY.md` lists
//! every reading that goes beyond the words. How results are graded: [`crate::judge::authority`].

use std::fmt;
use std::str::FromStr;

use opspec_adapter::OpKind;
use serde::{Deserialize, Serialize};

use super::source::Citation;

/// The authority of the bar a failing result misses, most authoritative first. A check's
/// verdict ladder: it **conforms** when no must fails, meets the **recommendations** when no
/// should fails either, and meets opspec's **quality** bars when nothing fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// The document requires it.
    Must,
    /// The document recommends it.
    Should,
    /// opspec's own bar: step bounds, IEEE 754 behaviour the document does not state, readings
    /// where the words are ambiguous, full subnormal support where the document lets it vary.
    Quality,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Must, Tier::Should, Tier::Quality];

    /// The tier as results and reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Must => "must",
            Tier::Should => "should",
            Tier::Quality => "quality",
        }
    }

    /// What failing this tier means, for reports: "does not conform", ….
    pub fn verdict(self) -> &'static str {
        match self {
            Tier::Must => "does not conform (a must of the document)",
            Tier::Should => "conforms, but misses a recommendation (a should of the document)",
            Tier::Quality => "conforms, but misses opspec's own bar",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Tier {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Tier::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown tier `{s}` (known: must, should, quality)"))
    }
}

/// A suite's document-wide clauses. Every operation a suite checks as `approximate` must be
/// named by `approximations`, and a suite with complex tables needs `complex`: a bar without
/// an authority does not load. Outside the rounding clause, a correctly rounded table's result
/// is the oracle's at every tier (its rows' own words).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Authority {
    /// Where the clauses' quotes are (the array API's Accuracy page).
    #[serde(default)]
    pub cites: Option<Citation>,
    /// The rounding of correctly rounded operations (their `correctly_rounded` rows and the
    /// inputs no row governs).
    #[serde(default)]
    pub rounding: Option<Rounding>,
    /// The latitude over subnormal numbers: where granted, results as if subnormal inputs
    /// were zeros (DAZ) or subnormal results flushed to zeros (FTZ) conform.
    #[serde(default)]
    pub subnormals: Option<Quote>,
    /// Operations whose accuracy outside their rows the document leaves open: any result
    /// conforms there; the suite's `step_bounds` are opspec's bar.
    #[serde(default)]
    pub approximations: Option<Approximations>,
    /// The document sets no accuracy for complex results: outside the rows, the tables'
    /// bounds are opspec's bar.
    #[serde(default)]
    pub complex: Option<Quote>,
    /// The ids of the tables' sources that are this suite's own document. A row cited to none
    /// of them (by `source` or `also`) is borrowed from another document: under this suite it
    /// is opspec's bar, as a row of an `opspec_bar` source is. Absent: every source is the
    /// suite's own.
    #[serde(default)]
    pub own_sources: Option<Vec<String>>,
    /// dtypes the document does not name, which the suite checks by the document's rules all
    /// the same: every bar of such a check is opspec's, except that a call which gives no
    /// result at all (a crash, a hang) still fails a must.
    #[serde(default)]
    pub unnamed_dtypes: Option<UnnamedDtypes>,
}

/// dtypes outside the document, and its words that leave them to the implementation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnnamedDtypes {
    pub dtypes: Vec<String>,
    pub says: Quote,
    /// Where `says` is (the document's data types page).
    pub cites: Citation,
}

impl UnnamedDtypes {
    /// The words and where they are, for failure texts.
    pub fn quoted(&self) -> String {
        format!("\"{}\"{}", self.says.0, cited(&self.cites))
    }
}

/// The rounding clauses.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rounding {
    /// The operations they govern.
    pub ops: Vec<String>,
    /// What the document requires: the nearest representable value, with either of IEEE
    /// 754-2019's tie rules (roundTiesToEven, roundTiesToAway).
    pub must: Quote,
    /// What it recommends: ties to even. Without it, ties are free at the should tier too.
    #[serde(default)]
    pub should: Option<Quote>,
    /// The operations (among `ops`) that no row holds to the nearest value: a result correctly
    /// rounded in any of IEEE 754-2019's rounding directions (roundTowardZero,
    /// roundTowardPositive and roundTowardNegative too) is "a correctly rounded value ... and a
    /// supported rounding mode", so their must also accepts the exact result's other
    /// neighbour.
    #[serde(default)]
    pub directed: Vec<String>,
}

/// Operations whose accuracy the document leaves open.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approximations {
    pub ops: Vec<String>,
    /// The document's words.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub says: String,
    /// What it recommends there: approximations of the results. A NaN or an infinity where the
    /// exact result is finite misses it.
    #[serde(default)]
    pub should: Option<Quote>,
}

/// Another reading of a table's `correctly_rounded` rows that the table's own document
/// prefers or allows (floor_divide's Note: `floor(divide(x1, x2))` preferred, Python's `//`
/// allowed). Its value meets every tier down to `meets`; the oracle's value stays opspec's
/// reading, and meets every tier.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    /// How the value is computed.
    pub value: ReadingValue,
    /// The lowest tier the value meets: `should` where the document prefers it, `must` where
    /// it only allows it.
    pub meets: Tier,
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// The document's words, quoted.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
}

/// The values a [`Reading`] can name (computed in `crate::oracle::floor_division` and
/// `crate::oracle::fused_readings`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadingValue {
    /// `floor(divide(x1, x2))`: the quotient correctly rounded, then floored.
    FloorOfDivide,
    /// Python's `x1 // x2` (CPython's float floor division).
    PythonFloorDivide,
    /// `x1 * x2 + x3` with the product rounded before the sum (no FMA).
    MultiplyThenAdd,
    /// `(x1 + x2) * x3` rounded once.
    AddMultiplyOnce,
    /// `(x1 + x2) * x3` with the sum and the product in the next wider format.
    AddMultiplyWide,
}

impl ReadingValue {
    /// The operation whose result it reads.
    pub fn op(self) -> OpKind {
        use opspec_adapter::{BinaryOp, TernaryOp};
        match self {
            ReadingValue::FloorOfDivide | ReadingValue::PythonFloorDivide => {
                OpKind::Binary(BinaryOp::FloorDivide)
            }
            ReadingValue::MultiplyThenAdd => OpKind::Ternary(TernaryOp::FusedMulAdd),
            ReadingValue::AddMultiplyOnce | ReadingValue::AddMultiplyWide => {
                OpKind::Ternary(TernaryOp::FusedAddMul)
            }
        }
    }
}

/// A sentence of the cited document, as it stands.
#[derive(Clone, Debug, Deserialize)]
#[serde(transparent)]
pub struct Quote(#[serde(deserialize_with = "crate::spec::source::quoted")] pub String);

impl Authority {
    /// Whether the rounding clause governs `op`.
    pub fn rounds(&self, op: OpKind) -> bool {
        self.rounding.as_ref().is_some_and(|r| names(&r.ops, op))
    }

    /// Whether the rounding clause lets `op` round in any direction ([`Rounding::directed`]).
    pub fn rounds_any_direction(&self, op: OpKind) -> bool {
        self.rounding.as_ref().is_some_and(|r| names(&r.ops, op) && names(&r.directed, op))
    }

    /// Whether the document leaves `op`'s accuracy open.
    pub fn approximates(&self, op: OpKind) -> bool {
        self.approximations.as_ref().is_some_and(|a| names(&a.ops, op))
    }

    /// Whether `row` is borrowed from a document that is not the suite's ([`Authority::own_sources`]).
    pub fn borrows(&self, row: &super::schema::Row) -> bool {
        !std::iter::once(&row.source).chain(row.also.iter().map(|a| &a.source)).any(|s| self.owns(s))
    }

    /// Whether the source with id `source` is the suite's own document.
    pub fn owns(&self, source: &str) -> bool {
        self.own_sources.as_ref().is_none_or(|own| own.iter().any(|s| s == source))
    }

    /// The document's words on `dtype`, where it is one the document does not name.
    pub fn unnamed(&self, dtype: &str) -> Option<&UnnamedDtypes> {
        self.unnamed_dtypes.as_ref().filter(|u| u.dtypes.iter().any(|d| d == dtype))
    }

    /// Where the quotes come from, for failure texts.
    pub fn cited(&self) -> String {
        self.cites.as_ref().map_or_else(String::new, cited)
    }

    /// Checks the clauses against the suite's tables: `ops` are the (operation, accuracy
    /// class) of its element-wise tables, `complex` whether it has complex tables. The error
    /// names the field.
    pub fn validate(
        &self,
        ops: &[(OpKind, super::schema::Accuracy)],
        complex: bool,
    ) -> Result<(), (String, String)> {
        use super::schema::Accuracy;
        let err = |field: &str, m: String| {
            Err((if field.is_empty() { "authority".into() } else { format!("authority.{field}") }, m))
        };
        let quotes = [
            self.rounding.as_ref().map(|r| &r.must.0),
            self.rounding.as_ref().and_then(|r| r.should.as_ref().map(|q| &q.0)),
            self.subnormals.as_ref().map(|q| &q.0),
            self.approximations.as_ref().map(|a| &a.says),
            self.approximations.as_ref().and_then(|a| a.should.as_ref().map(|q| &q.0)),
            self.complex.as_ref().map(|q| &q.0),
            self.unnamed_dtypes.as_ref().map(|u| &u.says.0),
        ];
        if quotes.iter().flatten().next().is_some() && self.cites.is_none() {
            return err(
                "cites",
                "the clauses quote a document: cite it (document, version, section, url)".into(),
            );
        }
        if let Some(r) = &self.rounding
            && let Some(i) = r.directed.iter().position(|d| !r.ops.contains(d))
        {
            return err(
                &format!("rounding.directed[{i}]"),
                format!("`{}` is not in `rounding.ops`", r.directed[i]),
            );
        }
        for (field, list) in [
            ("rounding.ops", self.rounding.as_ref().map(|r| &r.ops)),
            ("approximations.ops", self.approximations.as_ref().map(|a| &a.ops)),
        ] {
            for (i, name) in list.into_iter().flatten().enumerate() {
                if !ops.iter().any(|(op, _)| op.to_string() == *name) {
                    return err(&format!("{field}[{i}]"), format!("`{name}` is not among the suite's specs"));
                }
            }
        }
        for &(op, accuracy) in ops {
            if self.rounds(op) && accuracy != Accuracy::CorrectlyRounded {
                return err("rounding.ops", format!("`{op}` is not correctly rounded"));
            }
            if accuracy == Accuracy::Approximate && !self.approximates(op) {
                return err(
                    "approximations",
                    format!(
                        "`{op}` is checked as an approximation within `step_bounds`, but no clause says on whose authority: name it in `authority.approximations.ops`, quoting the document"
                    ),
                );
            }
        }
        if complex && self.complex.is_none() {
            return err(
                "complex",
                "the suite has complex tables: say what the document sets for their accuracy".into(),
            );
        }
        Ok(())
    }
}

/// ` (document version, section, url)`.
fn cited(c: &Citation) -> String {
    let url = c.url.as_ref().map_or_else(String::new, |u| format!(", {}", u.as_str()));
    format!(" ({} {}, {}{url})", c.document.as_str(), c.version.as_str(), c.section.as_str())
}

fn names(list: &[String], op: OpKind) -> bool {
    let name = op.to_string();
    list.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_order_by_authority_and_round_trip() {
        assert!(Tier::Must < Tier::Should && Tier::Should < Tier::Quality);
        for t in Tier::ALL {
            assert_eq!(t.name().parse::<Tier>(), Ok(t));
        }
        assert!("latitude".parse::<Tier>().unwrap_err().contains("must, should, quality"));
    }
}
