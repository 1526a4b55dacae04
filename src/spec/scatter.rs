//! Scatter tables (`specs/scatter/*.yaml`): the serde schema, loading and validation.
//!
//! A scatter table encodes one scatter operation's contract as data: the documents it cites,
//! the dtypes and index dtypes it covers, **literal cases** (every example of the document,
//! and one case per stated rule or error: concrete tensors with the stated result or error
//! kind) and **generators** (named, counted families of seeded random problems). Every case
//! and generator has a permanent id, its source and the text it encodes.
//!
//! Suites choose the behaviour the document leaves to the implementation through their
//! `scatter:` block ([`ScatterParams`]): what happens to out-of-range index vectors, whether
//! negative indices wrap, which index dtypes are accepted and whether results must be
//! bit-identical across runs.

use std::collections::HashSet;
use std::path::Path;

use opspec_adapter::{DType, ErrorKind, ScatterMode};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::Loaded;
use super::limits::{MAX_ELEMENTS, MAX_INDEX_VECTORS, MAX_SCATTER_EXTENT, MAX_SCATTER_PROBLEMS, check_shape};
use super::load::{LoadError, is_valid_id, parse_yaml};
pub use super::schema::TensorLiteral;
use super::source::{NotCovered, Source};
use crate::bits::value::{IntFormat, Literal};

/// One scatter operation's table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterTable {
    /// Operation name used in check ids (`tensor_scatter_add`).
    pub op: String,
    /// The documents the cases cite, by short id.
    pub sources: Vec<Source>,
    /// Element dtypes the table applies to.
    pub dtypes: Vec<String>,
    /// Index dtypes the document accepts (others are a TypeError).
    pub index_dtypes: Vec<String>,
    /// Statements of the sources that are not encoded, so the gap is visible.
    #[serde(default)]
    pub not_covered: Vec<NotCovered>,
    /// The document's sentence on every element's value: what it gives (any summation order,
    /// any rounding, no arithmetic for NaN, infinities or overflow) is the must; opspec's
    /// reference, IEEE 754 addition rounded to nearest, is opspec's bar.
    pub sum: Quoted,
    /// The readings of a negative coordinate the document's words allow, where they leave it
    /// open.
    #[serde(default)]
    pub negative_indices: Option<OpenNegativeIndices>,
    /// Concrete problems with their stated result.
    pub cases: Vec<LiteralCase>,
    /// Families of generated problems.
    pub generators: Vec<GeneratorSpec>,
}

/// A sentence of a source, quoted.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quoted {
    /// Id of the source document.
    pub source: String,
    /// Where in the source.
    pub anchor: String,
    /// The words.
    pub text: String,
}

/// Readings of a negative coordinate that the document's words allow: in `ignore` mode (the
/// document's) an output that one of them gives meets the must, and the suite's own
/// (`scatter.negative_indices`) is opspec's bar.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenNegativeIndices {
    /// The readings.
    pub allows: Vec<NegativeIndices>,
    /// Id of the source document.
    pub source: String,
    /// Where in the source.
    pub anchor: String,
    /// The words that leave the reading open.
    pub text: String,
}

/// What happens to an index vector outside the input (the suite's choice; the document's is
/// `ignore`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The vector's update is not applied and no error is raised.
    Ignore,
    /// The call fails with an out-of-range error.
    Error,
    /// Each coordinate is clamped into its axis.
    Clip,
}

impl Mode {
    /// The adapter API's mode.
    pub fn adapter_mode(self) -> ScatterMode {
        match self {
            Mode::Ignore => ScatterMode::Ignore,
            Mode::Error => ScatterMode::Error,
            Mode::Clip => ScatterMode::Clip,
        }
    }
}

/// How a negative coordinate is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NegativeIndices {
    /// A negative coordinate is out of range (the document's reading).
    #[default]
    OutOfRange,
    /// `-k` means `extent - k`, Python style; still out of range below `-extent`.
    Wrap,
}

/// A suite's scatter parameters: the behaviour it promises where the document is silent or
/// libraries differ.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterParams {
    /// Out-of-range index vectors: `ignore` (the document), `error` or `clip`.
    pub mode: Mode,
    /// Negative coordinates: `out_of_range` (default) or `wrap`.
    #[serde(default)]
    pub negative_indices: NegativeIndices,
    /// Whether repeated calls must give identical bits.
    #[serde(default)]
    pub deterministic: bool,
    /// Index dtypes the implementation accepts; every other dtype must be an index-dtype error.
    pub index_dtypes: Vec<String>,
}

impl ScatterParams {
    /// The accepted index dtypes, parsed (validated at load time).
    pub fn accepted_index_dtypes(&self) -> Vec<DType> {
        self.index_dtypes.iter().filter_map(|d| d.parse().ok()).collect()
    }
}

/// Suite parameters a literal case is limited to (a case written for one mode).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseWhen {
    /// Only in suites with this mode.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Only in suites with this negative-index reading.
    #[serde(default)]
    pub negative_indices: Option<NegativeIndices>,
}

impl CaseWhen {
    /// Whether a suite with `params` runs the case.
    pub fn admits(&self, params: &ScatterParams) -> bool {
        self.mode.is_none_or(|m| m == params.mode)
            && self.negative_indices.is_none_or(|n| n == params.negative_indices)
    }
}

/// An index tensor written out in a table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexLiteral {
    /// The index dtype (`i32`, `i64`, or another dtype for the TypeError cases).
    pub dtype: String,
    /// The shape; the last axis is the index depth.
    pub shape: Vec<usize>,
    /// The coordinates, row-major.
    pub values: Vec<i64>,
}

/// The error kinds a scatter case can require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedError {
    /// Index dtype not accepted (a TypeError).
    IndexDtype,
    /// A rank requirement violated (a ValueError).
    Rank,
    /// `updates` does not have the required shape.
    ShapeMismatch,
    /// An index vector outside the input, in `error` mode.
    OutOfRange,
    /// `updates` has another dtype than `input`.
    DtypeMismatch,
}

impl ExpectedError {
    /// The adapter API's error kind.
    pub fn kind(self) -> ErrorKind {
        match self {
            ExpectedError::IndexDtype => ErrorKind::IndexDType,
            ExpectedError::Rank => ErrorKind::Rank,
            ExpectedError::ShapeMismatch => ErrorKind::ShapeMismatch,
            ExpectedError::OutOfRange => ErrorKind::OutOfRange,
            ExpectedError::DtypeMismatch => ErrorKind::DTypeMismatch,
        }
    }
}

/// What a literal case states.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StatedResult {
    /// The output, row-major, as the source prints it (decimals are read as the nearest value
    /// of the dtype; the table self-check requires that value to be one the contract allows).
    Values(Vec<String>),
    /// The call fails with this kind of error.
    Error(ExpectedError),
}

/// A concrete problem with its stated result.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiteralCase {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    /// Id of the source document.
    pub source: String,
    /// Where in the source (a section or heading).
    pub anchor: String,
    /// The source's text that the case encodes.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// dtypes the case is checked in.
    pub dtypes: Vec<String>,
    /// Suite parameters the case is limited to.
    #[serde(default)]
    pub when: CaseWhen,
    /// The input tensor.
    pub input: TensorLiteral,
    /// The index tensor.
    pub indices: IndexLiteral,
    /// The updates tensor.
    pub updates: TensorLiteral,
    /// The stated result.
    pub result: StatedResult,
}

/// What a generated check demands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeneratedCheck {
    /// Every output element is one the reference allows.
    Values,
    /// Each problem uses another index dtype (every dtype in turn): accepted ones must work,
    /// the others must fail with an index-dtype error.
    IndexDtypes,
    /// As `values`, and each problem is run twice with identical bits required (only in
    /// suites that promise determinism).
    Determinism,
}

/// How generated values are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// Random signs and significands over a window of exponents (floats); any value
    /// (integers, so sums wrap).
    Random,
    /// Integers in [-4, 4] (non-negative for unsigned dtypes): every summation order is
    /// exact, so exact bits are required.
    SmallIntegers,
}

/// The order of a problem's index vectors: what kernels that adapt to their indices (runs of
/// one destination, ascending addresses) see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexOrder {
    /// As drawn.
    Random,
    /// Ascending (by coordinates, first axis first).
    Sorted,
    /// Each vector repeated 8 to 24 times in a row.
    Runs,
}

/// A family of generated problems.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    /// Permanent id, unique in the table (shared with the cases).
    pub id: Spanned<String>,
    /// Id of the source document.
    pub source: String,
    /// Where in the source.
    pub anchor: String,
    /// The source's text the generated problems exercise.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// What is checked.
    pub check: GeneratedCheck,
    /// How values are drawn.
    pub values: ValueKind,
    /// Problems per check (for `index_dtypes`: per index dtype).
    pub problems: usize,
    /// Smallest input rank (1 unless given).
    #[serde(default = "one")]
    pub min_rank: usize,
    /// Largest input rank (at least 1).
    pub max_rank: usize,
    /// Smallest extent of an input axis (1 unless given).
    #[serde(default = "one")]
    pub min_extent: usize,
    /// Largest extent of an input axis.
    pub max_extent: usize,
    /// Smallest number of index vectors in a problem (0 unless given).
    #[serde(default)]
    pub min_index_vectors: usize,
    /// Largest number of index vectors in a problem.
    pub max_index_vectors: usize,
    /// The orders of the index vectors, taken by the problems in turn (`[random]` unless
    /// given).
    #[serde(default = "random_order")]
    pub index_orders: Vec<IndexOrder>,
    /// Range of the share of index vectors that repeat an earlier one.
    pub duplicates: [f64; 2],
    /// Range of the share of index vectors with an out-of-range or negative coordinate.
    pub out_of_range: [f64; 2],
    /// Probability that a problem has no index vectors at all.
    #[serde(default)]
    pub empty_indices: f64,
    /// Probability that a problem's slices have no elements (a zero extent after the depth).
    #[serde(default)]
    pub zero_size: f64,
}

fn one() -> usize {
    1
}

fn random_order() -> Vec<IndexOrder> {
    vec![IndexOrder::Random]
}

/// A scatter table with where it came from.
pub type LoadedScatter = Loaded<ScatterTable>;

impl Loaded<ScatterTable> {
    /// The table's dtypes, parsed (validated at load time).
    pub fn dtypes(&self) -> Vec<DType> {
        self.table.dtypes.iter().filter_map(|d| d.parse().ok()).collect()
    }

    /// The source with id `id`, if declared.
    pub fn source(&self, id: &str) -> Option<&Source> {
        self.table.sources.iter().find(|s| s.id == id)
    }
}

/// Loads and validates one scatter table: the YAML `text` of `path` (relative to the catalog
/// root).
pub fn load_scatter(path: &Path, text: &str) -> Result<LoadedScatter, LoadError> {
    let table: ScatterTable = parse_yaml(path, text)?;
    validate(path, &table)?;
    Ok(LoadedScatter { path: path.to_path_buf(), key: super::key_of(path), table })
}

/// Checks a suite's scatter block (of the suite at `file`): known index dtypes, each once.
pub fn validate_params(file: &Path, params: &ScatterParams) -> Result<(), LoadError> {
    if params.index_dtypes.is_empty() {
        return Err(LoadError::in_field(file, "scatter.index_dtypes", "list at least one index dtype"));
    }
    for (i, d) in params.index_dtypes.iter().enumerate() {
        let field = format!("scatter.index_dtypes[{i}]");
        d.parse::<DType>().map_err(|e| LoadError::in_field(file, &field, e))?;
        if params.index_dtypes[..i].contains(d) {
            return Err(LoadError::in_field(file, &field, format!("`{d}` is listed twice")));
        }
    }
    Ok(())
}

/// Checks what serde cannot: ids valid and unique, sources declared, dtypes known, values
/// readable in every dtype of their case, value counts matching shapes, generator settings
/// in range.
fn validate(file: &Path, table: &ScatterTable) -> Result<(), LoadError> {
    let field = |f: &str, m: String| LoadError::in_field(file, f, m);
    if !is_valid_id(&table.op.replace('_', "-")) {
        return Err(field("op", format!("`{}` is not a lower-case name", table.op)));
    }
    let dtypes = parse_dtypes(file, "dtypes", &table.dtypes)?;
    if let Some(i) = dtypes.iter().position(|&d| d == DType::Bool) {
        return Err(field(&format!("dtypes[{i}]"), "scatter-add is not defined for bool".into()));
    }
    parse_dtypes(file, "index_dtypes", &table.index_dtypes)?;
    let sources: HashSet<&str> = table.sources.iter().map(|s| s.id.as_str()).collect();
    if let Some(i) = table.not_covered.iter().position(|n| !sources.contains(n.source.as_str())) {
        let m = format!("unknown source `{}`", table.not_covered[i].source);
        return Err(field(&format!("not_covered[{i}].source"), m));
    }
    if !sources.contains(table.sum.source.as_str()) {
        return Err(field("sum.source", format!("unknown source `{}`", table.sum.source)));
    }
    if let Some(open) = &table.negative_indices {
        if !sources.contains(open.source.as_str()) {
            return Err(field("negative_indices.source", format!("unknown source `{}`", open.source)));
        }
        if open.allows.is_empty() {
            return Err(field("negative_indices.allows", "list at least one reading".into()));
        }
    }
    let mut seen = HashSet::new();
    let ids = table
        .cases
        .iter()
        .map(|c| (&c.id, c.source.as_str()))
        .chain(table.generators.iter().map(|g| (&g.id, g.source.as_str())));
    for (id, source) in ids {
        let at = |m: String| LoadError::at_location(file, &id.referenced, format!("`{}`: {m}", id.value));
        if !is_valid_id(&id.value) {
            return Err(at("field `id`: use lower-case letters, digits and '-'".into()));
        }
        if !seen.insert(id.value.as_str()) {
            return Err(at("field `id`: duplicate id".into()));
        }
        if !sources.contains(source) {
            return Err(at(format!("field `source`: unknown source `{source}`")));
        }
    }
    for case in &table.cases {
        let at = |m: String| {
            LoadError::at_location(file, &case.id.referenced, format!("case `{}`: {m}", case.id.value))
        };
        validate_case(case, &dtypes).map_err(at)?;
    }
    for g in &table.generators {
        let at = |m: String| {
            LoadError::at_location(file, &g.id.referenced, format!("generator `{}`: {m}", g.id.value))
        };
        validate_generator(g).map_err(at)?;
    }
    Ok(())
}

/// The dtypes listed in `field`, parsed, each listed once.
fn parse_dtypes(file: &Path, field: &str, names: &[String]) -> Result<Vec<DType>, LoadError> {
    let mut dtypes = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let here = format!("{field}[{i}]");
        let dtype = name.parse::<DType>().map_err(|e| LoadError::in_field(file, &here, e))?;
        if dtypes.contains(&dtype) {
            return Err(LoadError::in_field(file, &here, format!("`{name}` is listed twice")));
        }
        dtypes.push(dtype);
    }
    Ok(dtypes)
}

fn validate_case(case: &LiteralCase, table_dtypes: &[DType]) -> Result<(), String> {
    if case.dtypes.is_empty() {
        return Err("field `dtypes`: list at least one dtype".into());
    }
    let index_dtype =
        case.indices.dtype.parse::<DType>().map_err(|e| format!("field `indices.dtype`: {e}"))?;
    if let Some(i) = IntFormat::of(index_dtype)
        && let Some(v) = case.indices.values.iter().find(|&&v| !i.contains(i128::from(v)))
    {
        return Err(format!("field `indices.values`: {v} is not a {index_dtype} value"));
    }
    for (field, shape, len) in [
        ("input", &case.input.shape, case.input.values.len()),
        ("indices", &case.indices.shape, case.indices.values.len()),
        ("updates", &case.updates.shape, case.updates.values.len()),
    ] {
        let count = check_shape(shape).map_err(|m| format!("field `{field}.shape`: {m}"))?;
        if count != len {
            return Err(format!("field `{field}.values`: {len} values for shape {shape:?}"));
        }
    }
    if let StatedResult::Values(v) = &case.result
        && v.len() != case.input.values.len()
    {
        return Err(format!(
            "field `result.values`: {} values for an input of {}",
            v.len(),
            case.input.values.len()
        ));
    }
    for d in &case.dtypes {
        let dtype = d.parse::<DType>().map_err(|e| format!("field `dtypes`: {e}"))?;
        if !table_dtypes.contains(&dtype) {
            return Err(format!("field `dtypes`: {dtype} is not among the table's dtypes"));
        }
        let stated = match &case.result {
            StatedResult::Values(v) => v.as_slice(),
            StatedResult::Error(_) => &[],
        };
        for (field, values) in [
            ("input", case.input.values.as_slice()),
            ("updates", case.updates.values.as_slice()),
            ("result", stated),
        ] {
            for v in values {
                Literal::parse(dtype, v).map_err(|e| format!("field `{field}.values` in {dtype}: {e}"))?;
            }
        }
    }
    Ok(())
}

fn validate_generator(g: &GeneratorSpec) -> Result<(), String> {
    if g.problems == 0 || g.max_rank == 0 || g.max_extent == 0 || g.max_index_vectors == 0 {
        return Err("fields `problems`, `max_rank`, `max_extent` and `max_index_vectors` must be at least 1 \
                    (a check of nothing passes vacuously; `empty_indices` asks for problems without index vectors)"
            .into());
    }
    if g.max_rank > 4
        || g.max_extent > MAX_SCATTER_EXTENT
        || g.max_index_vectors > MAX_INDEX_VECTORS
        || g.problems > MAX_SCATTER_PROBLEMS
    {
        return Err(format!(
            "keep problems small: `max_rank` <= 4, `max_extent` <= {MAX_SCATTER_EXTENT}, `max_index_vectors` <= {MAX_INDEX_VECTORS}, `problems` <= {MAX_SCATTER_PROBLEMS}"
        ));
    }
    if g.min_rank == 0 || g.min_rank > g.max_rank {
        return Err(format!("field `min_rank`: give 1 to `max_rank` {}, not {}", g.max_rank, g.min_rank));
    }
    if g.min_extent == 0 || g.min_extent > g.max_extent {
        return Err(format!(
            "field `min_extent`: give 1 to `max_extent` {}, not {}",
            g.max_extent, g.min_extent
        ));
    }
    if g.min_index_vectors > g.max_index_vectors {
        return Err(format!(
            "field `min_index_vectors`: {} is more than `max_index_vectors` {}",
            g.min_index_vectors, g.max_index_vectors
        ));
    }
    if g.index_orders.is_empty() {
        return Err("field `index_orders`: list at least one order".into());
    }
    // The largest input, and the largest updates (a slice is at most max_extent^(max_rank - 1)).
    let rank = g.max_rank as u32;
    let input = g.max_extent.checked_pow(rank);
    let updates = g.max_extent.checked_pow(rank - 1).and_then(|slice| slice.checked_mul(g.max_index_vectors));
    if input.is_none_or(|n| n > MAX_ELEMENTS) || updates.is_none_or(|n| n > MAX_ELEMENTS) {
        return Err(format!(
            "`max_extent` {} to the power `max_rank` {} (the input), or `max_index_vectors` {} times `max_extent` to the power `max_rank` - 1 (the updates), is more than {MAX_ELEMENTS} elements (the limit per operand)",
            g.max_extent, g.max_rank, g.max_index_vectors
        ));
    }
    for (field, [lo, hi]) in [("duplicates", g.duplicates), ("out_of_range", g.out_of_range)] {
        if !(0.0 <= lo && lo <= hi && hi <= 1.0) {
            return Err(format!("field `{field}`: need 0 <= low <= high <= 1, got [{lo}, {hi}]"));
        }
    }
    for (field, p) in [("empty_indices", g.empty_indices), ("zero_size", g.zero_size)] {
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("field `{field}`: a probability, got {p}"));
        }
    }
    Ok(())
}
