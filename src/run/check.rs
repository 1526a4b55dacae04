//! The vocabulary of a run: planned checks, what each check exercises, and the
//! knobs of a run. Every other module of `run` builds on this one; it imports none of them.

use std::path::PathBuf;
use std::time::Duration;

use opspec_adapter::{DType, OpKind};

use crate::results::Rerun;
pub use crate::spec::broadcast::ValueCases;
pub use crate::spec::id::{CheckId, NO_DTYPE, Scope, is_name};
use crate::spec::suite::Suite;
use crate::spec::{Catalog, LoadedSuite};

/// One check: a set of cases run against one adapter (or, for table self-checks, against the
/// oracle alone).
#[derive(Clone, Debug)]
pub struct Check {
    pub id: CheckId,
    /// The (operation, dtype) the adapter must support for the check to run.
    pub needs: Option<(OpKind, DType)>,
    pub target: Target,
    /// How many inputs the check's generator makes, where that is known before it runs
    /// (element-wise, integer, property, shape-rule and promotion checks, and named-axis
    /// checker vectors). Broadcasting value checks draw their shapes, and scatter checks their
    /// problems, as they run.
    pub planned: Option<usize>,
}

impl Check {
    /// The suite the check belongs to; `None` for a table self-check.
    pub fn suite<'c>(&self, catalog: &'c Catalog) -> Option<&'c LoadedSuite> {
        self.id.suite().and_then(|name| catalog.suite(name))
    }

    /// The suite of an adapter check, or an error for a table self-check.
    pub fn adapter_suite<'c>(&self, catalog: &'c Catalog) -> Result<&'c LoadedSuite, String> {
        self.suite(catalog).ok_or_else(|| format!("{}: an adapter check needs a suite", self.id))
    }
}

/// What a check exercises: its family of tables, then what it checks of a table of that
/// family. Indices point into the [`Catalog`](crate::spec::Catalog)'s vectors.
#[derive(Clone, Debug)]
pub enum Target {
    /// A check of an element-wise table (`specs/elementwise`, `specs/fused`), of one kind.
    Elementwise(ElementwiseKind),
    /// A literal case of a promotion table.
    Promotion(PromotionTarget),
    /// A broadcasting table's vector, or values under broadcasting.
    Broadcast(BroadcastTarget),
    /// A scatter table's literal case or generator (`specs/scatter`).
    Scatter(ScatterTarget),
    /// A row, the oracle comparison or a stated property of a complex table (`specs/complex`).
    Complex(ComplexTarget),
}

/// The kinds of check of an element-wise table.
#[derive(Clone, Debug)]
pub enum ElementwiseKind {
    /// Float inputs: a row, the edges or random inputs.
    Float(FloatTarget),
    /// Integer inputs: exact results under the suite's contract.
    Integer(IntegerTarget),
    /// A property the table states about results as a whole.
    Property(PropertyTarget),
    /// A rule about operand and destination shapes that the operation keeps (fused
    /// operations do not broadcast; `_into` writes only a fitting `out`).
    ShapeRule(ShapeRuleTarget),
    /// The table at generated sizes and memory layouts.
    Layouts(LayoutTarget),
    /// Every pair of 16-bit values, or the dense f32/f64 grid, of a binary table
    /// (`run --exhaustive`).
    Sweep(SweepTarget),
}

/// A complex check: one case set of one complex table in one complex dtype.
#[derive(Clone, Copy, Debug)]
pub struct ComplexTarget {
    /// Index into `Catalog::complex`.
    pub table: usize,
    /// `c64` or `c128`.
    pub dtype: DType,
    pub cases: ComplexCases,
}

/// Which inputs a complex check makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComplexCases {
    /// The inputs of one row (an index into the table's `rows`).
    Row(usize),
    /// Finite operands of moderate magnitude, against the oracle.
    Random,
    /// One stated property (an index into the table's `properties`).
    Property(usize),
    /// One component rule (an index into the table's `component_rules`), on operands of
    /// every class.
    Rule(usize),
}

/// A layout check: one element-wise table in one dtype, at the sizes and layouts of `scale`.
#[derive(Clone, Copy, Debug)]
pub struct LayoutTarget {
    /// Index into `Catalog::elementwise`.
    pub table: usize,
    pub dtype: DType,
    pub scale: crate::generate::layouts::Scale,
}

/// Which float inputs an element-wise check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseSet {
    /// Inputs generated for one special-case row (index into the table's rows).
    Row(usize),
    /// Every combination of the format's edge values.
    Edges,
    /// Seeded random inputs.
    Random,
    /// Seeded hard inputs ([`crate::generate::hard`]): a `--exhaustive` check of the
    /// approximate two-operand functions in f32.
    Hard,
}

/// An element-wise check: one case set of one table in one float dtype.
#[derive(Clone, Copy, Debug)]
pub struct FloatTarget {
    /// Index into `Catalog::elementwise`.
    pub table: usize,
    pub dtype: DType,
    pub cases: CaseSet,
}

/// A sweep check: one element-wise table of one or two operands in one float dtype, every
/// case enumerated.
#[derive(Clone, Debug)]
pub struct SweepTarget {
    /// Index into `Catalog::elementwise`.
    pub table: usize,
    pub dtype: DType,
    /// The table's operands: one (every value of the dtype) or two (every pair, or the grid).
    pub arity: usize,
    /// The chunks to check, ascending: every chunk of the sweep, or those `run --chunks` and
    /// `run --shard` keep.
    pub chunks: Vec<u64>,
}

/// Which integer inputs an integer check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerCases {
    /// Every combination of the dtype's edge values, one per operand.
    Edges,
    /// Seeded random pairs.
    Random,
    /// Every edge value divided by zero (`floor_divide`, `remainder`): the suite's
    /// `division_by_zero` rule, in a check of its own.
    ByZero,
}

/// An element-wise table in an integer dtype.
#[derive(Clone, Copy, Debug)]
pub struct IntegerTarget {
    /// Index into `Catalog::elementwise`.
    pub table: usize,
    pub dtype: DType,
    pub cases: IntegerCases,
}

/// A property check: one stated property of one table, in one dtype.
#[derive(Clone, Copy, Debug)]
pub struct PropertyTarget {
    /// Index into `Catalog::elementwise`.
    pub table: usize,
    pub dtype: DType,
    /// Index into the table's `properties`.
    pub property: usize,
}

/// A shape rule of an element-wise operation: a block of its table's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeRule {
    /// A fused (ternary) operation refuses the operand shapes of its table's `no_broadcast:`
    /// rows with the stated error (seed 003: "All three tensors must have the same shape (no
    /// broadcasting)").
    NoBroadcast,
    /// A destination-passing operation writes its table's `into_rules:` operands into each
    /// listed destination: a fitting `out` gets the stated values, any other is refused and
    /// left unchanged.
    IntoRules,
}

impl ShapeRule {
    /// The case name in check ids.
    pub fn name(self) -> &'static str {
        match self {
            ShapeRule::NoBroadcast => "no-broadcast",
            ShapeRule::IntoRules => "into-rules",
        }
    }
}

/// A shape-rule check: one rule of one table, in one dtype.
#[derive(Clone, Copy, Debug)]
pub struct ShapeRuleTarget {
    /// Index into `Catalog::elementwise`.
    pub table: usize,
    pub dtype: DType,
    pub rule: ShapeRule,
}

/// A promotion check: one literal case of one promotion table.
#[derive(Clone, Copy, Debug)]
pub struct PromotionTarget {
    /// Index into `Catalog::promotions`.
    pub table: usize,
    /// Index into the table's cases.
    pub case: usize,
}

/// A broadcasting check.
#[derive(Clone, Debug)]
pub enum BroadcastTarget {
    /// One vector of a broadcasting table.
    Vector {
        /// Index into `Catalog::broadcasting`.
        table: usize,
        /// Index into the table's vectors.
        vector: usize,
    },
    /// Values of an element-wise operation under broadcasting.
    Values {
        /// Index into `Catalog::elementwise` (an element-wise binary table).
        table: usize,
        /// The operands' dtype.
        dtype: DType,
        /// Which operands are generated.
        cases: ValueCases,
    },
}

/// Which problems a scatter check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterCases {
    /// A literal case (index into the table's `cases`).
    Literal(usize),
    /// A generator (index into the table's `generators`).
    Generated(usize),
}

/// A scatter check: one case set of one scatter table in one dtype.
#[derive(Clone, Copy, Debug)]
pub struct ScatterTarget {
    /// Index into `Catalog::scatter`.
    pub table: usize,
    /// The element dtype.
    pub dtype: DType,
    /// The problems.
    pub cases: ScatterCases,
}

/// Knobs of a run that are not part of a suite.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// How long one adapter call may take.
    pub timeout: Duration,
    /// How many failing inputs a result lists in detail.
    pub max_listed_failures: usize,
    /// Inputs per row for table self-checks.
    pub table_cases_per_row: usize,
    /// Seed for table self-checks.
    pub table_seed: u64,
    /// Where sweeps keep their finished chunks, to resume from (none: not kept).
    pub state_dir: Option<PathBuf>,
    /// How many of the chunks a sweep resumes from its state file it runs again, drawn at
    /// random, to check the file's counts (`docs/SCALE.md`).
    pub verify_resumed: usize,
    /// How the commands a failure prints rerun it (recorded in the run's [`RunInfo`]).
    ///
    /// [`RunInfo`]: crate::results::RunInfo
    pub rerun: Rerun,
}

impl RunOptions {
    /// Inputs per row and the seed of a check: its suite's, or, for a table self-check
    /// (no suite), the run's.
    pub fn per_row_and_seed(&self, suite: Option<&Suite>) -> (usize, u64) {
        suite.map_or((self.table_cases_per_row, self.table_seed), |s| (s.cases_per_row, s.seed))
    }
}

impl Default for RunOptions {
    /// A call gets two minutes: far above the slowest honest batch seen here (a few seconds
    /// for the largest scatter problems on a busy 2-core machine), so only a hang reaches it.
    /// Five listed failures show a pattern without flooding a report. 512 inputs per row are
    /// enough for a row to meet each of its operand classes' special values; the seed is
    /// arbitrary and fixed, so the self-checks see the same inputs every run. One resumed chunk
    /// run again costs at most one chunk's time (1/128 of a 16-bit sweep) and catches a state
    /// file that is wrong throughout.
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(120),
            max_listed_failures: 5,
            table_cases_per_row: 512,
            table_seed: 0x0995_ec00,
            state_dir: None,
            verify_resumed: 1,
            rerun: Rerun::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_bad_ones_say_why() {
        for text in [
            "array-api:cpu:add:f32:nzero-plus-nzero",
            "table:multiply:bf16:nan-either",
            "array-api:numr:add:i8+u8:promote-mixed",
            "numr:cpu:numpy:-:row-broadcast",
            "mindspore:cuda-deterministic:tensor_scatter_add:f32:random",
        ] {
            let id: CheckId = text.parse().unwrap();
            assert_eq!(id.to_string(), text);
        }
        let id: CheckId = "array-api:cpu:add:f32:edges".parse().unwrap();
        assert_eq!(id.suite(), Some("array-api"));
        assert_eq!(id.adapter_name(), Some("cpu"));
        for (bad, says) in [
            ("array-api:cpu:add:f32", "suite:adapter:op:dtype:case"),
            ("table:add:f32:edges:x", "4 segments"),
            ("Array-API:cpu:add:f32:edges", "the suite `Array-API`"),
            ("array-api:cpu:add:f32:Edges", "the case `Edges`"),
            ("array-api:cpu:add:f32+f16+i8:edges", "`f32+f16+i8` is not a dtype"),
            ("array-api:cpu:add-x:f32:edges", "`add-x` is not an operation"),
            ("", "suite:adapter:op:dtype:case"),
        ] {
            let e = bad.parse::<CheckId>().unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn ids_are_written_with_their_parts() {
        let id = CheckId::adapter("numr", "cpu", "add", "f32", "edges");
        let json = serde_json::to_value(&id).unwrap();
        assert_eq!(json["id"], "numr:cpu:add:f32:edges");
        assert_eq!(json["suite"], "numr");
        assert_eq!(json["case"], "edges");
        assert_eq!(serde_json::from_value::<CheckId>(json).unwrap(), id);
        let table = serde_json::to_value(CheckId::table("add", "f32", "edges")).unwrap();
        assert!(table["suite"].is_null());
    }
}
