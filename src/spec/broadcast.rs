//! Broadcasting tables (`specs/broadcasting/*.yaml`): the rules as data, the decisions taken
//! where the documents are ambiguous, and literal vectors (shapes in, shape or error out).
//!
//! Two families share one schema. `numpy` tables give shapes as lists of sizes
//! (`x: [2, 1, 3]`) and expect a shape or `error: shape_mismatch`. `named` tables give
//! operands in the named-axis document's notation, `"mask:f16[b n (H Dh)]"`: an optional kind
//! (default `real`) with an optional dtype, then the axes in brackets (none for a rank-0
//! operand): a name (`n`, its size from the vector's `sizes`, or inline as `n=3`), an unnamed
//! size (`3`), or a merged axis `(H Dh)` whose size is the product of its parts. They expect
//! a result in the same notation (a kind there is checked; `number` stands for any numeric
//! tensor kind, `host_number` for either host number) or a document error code, and may state
//! how each operand lines up with the result (`align: {x: "[0 1]", y: "[_ 0]"}`, `_` for a
//! new axis).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use opspec_adapter::{Alignment, NAMED_AXIS_CODES, NamedAxis, NamedOp, Operand, ValueKind};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::limits::check_shape;
use super::load::{LoadError, is_valid_id, parse_yaml};
use super::notation::{parse_alignment, parse_operand};
use super::source::{NotCovered, Source};

/// A broadcasting table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BroadcastTable {
    /// Which notation and rules the vectors use.
    pub family: Family,
    /// One-line title for reports.
    pub title: String,
    /// The documents the rules cite.
    pub sources: Vec<Source>,
    /// Error codes this table owns: each must appear in a vector that expects it and in one
    /// that narrowly avoids it.
    #[serde(default)]
    pub codes: Vec<String>,
    /// The rules, each quoting its document.
    pub rules: Vec<Rule>,
    /// What was decided where the documents are ambiguous, and why.
    #[serde(default)]
    pub decisions: Vec<Decision>,
    /// Parts of the documents not encoded, so that the gap is visible.
    #[serde(default)]
    pub not_covered: Vec<NotCovered>,
    /// The operation of vectors that name none (named tables; default `add`).
    #[serde(default)]
    pub op: Option<String>,
    /// The literal vectors.
    pub vectors: Vec<Vector>,
    /// The element-wise value checks run under this table's rules, each with the rules it
    /// cites.
    #[serde(default)]
    pub value_checks: Vec<ValueCheckRow>,
}

/// A value check a table's rules govern.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueCheckRow {
    /// The case name of the checks (`broadcast-random`).
    pub case: Spanned<ValueCases>,
    /// The rules of this table the check holds an adapter to (at least one).
    pub rules: Vec<String>,
}

/// The element-wise value checks a broadcasting table's rules apply to (`value_checks:`):
/// which broadcast operands each generates. The YAML spells them as the case names of check
/// ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum ValueCases {
    /// Seeded NumPy shape pairs (ranks 0-5, size-1 axes, rows, columns), contiguous operands.
    #[serde(rename = "broadcast-random")]
    Random,
    /// The same kinds of shape pairs on strided views: permuted, sliced with steps, reversed.
    #[serde(rename = "broadcast-strided")]
    Strided,
    /// Every element-wise vector of the suite's named tables, on named tensors.
    #[serde(rename = "named-vectors")]
    NamedVectors,
    /// By name, the superset operand's axes in several orders: the result follows the rule.
    #[serde(rename = "named-permutation")]
    NamedPermutation,
    /// Both operand orders: only the order rule's outcome may change.
    #[serde(rename = "named-swap")]
    NamedSwap,
}

/// Every value check.
const VALUE_CASES: [ValueCases; 5] = [
    ValueCases::Random,
    ValueCases::Strided,
    ValueCases::NamedVectors,
    ValueCases::NamedPermutation,
    ValueCases::NamedSwap,
];

impl ValueCases {
    /// The case name in check ids.
    pub fn name(self) -> &'static str {
        match self {
            ValueCases::Random => "broadcast-random",
            ValueCases::Strided => "broadcast-strided",
            ValueCases::NamedVectors => "named-vectors",
            ValueCases::NamedPermutation => "named-permutation",
            ValueCases::NamedSwap => "named-swap",
        }
    }

    /// The family of tables whose rules the check runs under.
    pub fn family(self) -> Family {
        if self.is_named() { Family::Named } else { Family::Numpy }
    }

    /// Whether the operands are named tensors.
    pub fn is_named(self) -> bool {
        matches!(self, ValueCases::NamedVectors | ValueCases::NamedPermutation | ValueCases::NamedSwap)
    }

    /// Whether `case` (a check id's case) names a value check of named tensors.
    pub fn names_named(case: &str) -> bool {
        VALUE_CASES.iter().any(|v| v.is_named() && v.name() == case)
    }
}

/// The two families of broadcasting tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// NumPy broadcasting of unnamed shapes.
    Numpy,
    /// The named-axis document: the order rule, `masked_fill`, `matmul`, the operator table.
    Named,
}

/// One rule of a document.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Permanent id, unique in the table; vectors cite it.
    pub id: Spanned<String>,
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// Where in the document (`Broadcasting, bullet 2`; `The order rule, From the right`).
    pub section: String,
    /// The rule's text, as the document states it.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
}

/// A decision taken where the text is ambiguous; vectors that pin it name it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// Permanent id, unique in the table; vectors that pin the decision name it.
    pub id: Spanned<String>,
    /// What the text leaves open.
    pub question: String,
    /// What opspec requires.
    pub decision: String,
    /// Why.
    pub reason: String,
    /// A document that answers the question after all, where one does: under a suite that
    /// owns that source the vectors pinning the decision are musts; elsewhere, and without
    /// it, they are opspec's reading.
    #[serde(default)]
    pub settled_by: Option<Settled>,
}

/// The words of a source that settle a decision.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settled {
    pub source: String,
    pub text: String,
}

/// A literal vector.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    /// Rules the vector exercises (ids of the table's `rules`).
    pub rules: Vec<String>,
    /// The decision the vector pins, if any.
    #[serde(default)]
    pub decision: Option<String>,
    /// The document's own example, quoted, where the vector encodes one.
    #[serde(default)]
    pub example: Option<String>,
    /// The operation (named tables; default the table's `op`).
    #[serde(default)]
    pub op: Option<Spanned<String>>,
    /// The first (left) operand.
    pub x: Spanned<ShapeText>,
    #[serde(default)]
    /// The second operand (none for unary operations).
    pub y: Option<Spanned<ShapeText>>,
    /// Sizes of the named axes written without an inline size.
    #[serde(default)]
    pub sizes: BTreeMap<String, usize>,
    /// The expected result (exactly one of `result` and `error`).
    #[serde(default)]
    pub result: Option<Spanned<ShapeText>>,
    /// How each operand lines up with the result (named tables).
    #[serde(default)]
    pub align: Option<AlignText>,
    /// The expected error: a document code, or `shape_mismatch` in numpy tables.
    #[serde(default)]
    pub error: Option<Spanned<String>>,
    /// Errors this vector narrowly avoids (it sits just on the right side of their rule).
    #[serde(default)]
    pub avoids: Vec<String>,
    /// Named tables: whether the suite's `named-vectors` value check runs this vector on
    /// tensors with those axes (only an element-wise operation on executable operands whose
    /// result, or shape-level error, a kernel can give; see [`why_not_executable`]).
    #[serde(default)]
    pub executes: bool,
}

/// A shape as written: a list of sizes (numpy tables) or the named notation (named tables).
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeText {
    /// Sizes of unnamed axes, outermost first (`[2, 1, 3]`).
    Sizes(Vec<usize>),
    /// The named notation (`"mask:f16[b n (H Dh)]"`).
    Named(String),
}

impl<'de> Deserialize<'de> for ShapeText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::value::SeqAccessDeserializer;

        struct ShapeVisitor;

        impl<'de> serde::de::Visitor<'de> for ShapeVisitor {
            type Value = ShapeText;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of sizes or a named shape such as \"[n D]\"")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ShapeText, E> {
                Ok(ShapeText::Named(v.to_string()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<ShapeText, A::Error> {
                Vec::<usize>::deserialize(SeqAccessDeserializer::new(seq)).map(ShapeText::Sizes)
            }
        }

        d.deserialize_any(ShapeVisitor)
    }
}

/// The `align` field: one alignment per operand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlignText {
    /// How the first operand lines up (`"[0 _ 1]"`).
    pub x: Spanned<String>,
    #[serde(default)]
    /// How the second operand lines up.
    pub y: Option<Spanned<String>>,
}

/// A loaded, validated broadcasting table.
#[derive(Debug)]
pub struct LoadedBroadcastTable {
    /// Path relative to the catalog root (`specs/broadcasting/named.yaml`).
    pub path: PathBuf,
    /// The name suites use (`broadcasting/named`).
    pub key: String,
    /// The name used in check ids (`named`).
    pub name: String,
    /// The table as written.
    pub table: BroadcastTable,
    /// The vectors, parsed; one per `table.vectors` entry.
    pub cases: Vec<Case>,
}

/// A vector, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Case {
    /// A NumPy vector.
    Numpy {
        /// The left operand's shape.
        x: Vec<usize>,
        /// The right operand's shape.
        y: Vec<usize>,
        /// The result shape; `None` for a shape mismatch.
        expect: Option<Vec<usize>>,
    },
    /// A named vector.
    Named {
        /// The operation.
        op: NamedOp,
        /// Its operands, in order.
        operands: Vec<Operand>,
        /// What it must give.
        expect: NamedExpect,
    },
}

/// What a named vector expects.
#[derive(Clone, Debug, PartialEq)]
pub enum NamedExpect {
    /// A well-formed expression's result.
    Result {
        /// The result's named shape.
        shape: Vec<NamedAxis>,
        /// Allowed result kinds; `None` when the vector does not constrain the kind.
        kinds: Option<Vec<ValueKind>>,
        /// One alignment per operand, where the vector states them.
        alignment: Option<Vec<Alignment>>,
    },
    /// A document error code.
    Error(String),
}

impl LoadedBroadcastTable {
    /// The rule with id `id`.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.table.rules.iter().find(|r| r.id.value == id)
    }

    /// The decision with id `id`.
    pub fn decision(&self, id: &str) -> Option<&Decision> {
        self.table.decisions.iter().find(|d| d.id.value == id)
    }

    /// The decision the vector with id `vector` pins, if it pins one.
    pub fn decision_of(&self, vector: &str) -> Option<&Decision> {
        let v = self.table.vectors.iter().find(|v| v.id.value == vector)?;
        self.decision(v.decision.as_deref()?)
    }
}

/// Loads and validates a broadcasting table: the YAML `text` of `path` (relative to the
/// catalog root).
pub fn load_table(path: &Path, text: &str) -> Result<LoadedBroadcastTable, LoadError> {
    let table: BroadcastTable = parse_yaml(path, text)?;
    let cases = validate(path, &table)?;
    let key = super::key_of(path);
    let name = key.rsplit('/').next().unwrap_or(&key).to_string();
    Ok(LoadedBroadcastTable { path: path.to_path_buf(), key, name, table, cases })
}

fn at<T>(file: &Path, span: &Spanned<T>, message: String) -> LoadError {
    LoadError::at_location(file, &span.referenced, message)
}

fn known_code(code: &str) -> bool {
    NAMED_AXIS_CODES.iter().any(|(c, _)| *c == code)
}

/// Checks what serde cannot and parses every vector.
fn validate(file: &Path, table: &BroadcastTable) -> Result<Vec<Case>, LoadError> {
    let whole = |m: String| LoadError::whole(file, m);
    let field = |f: &str, m: String| LoadError::in_field(file, f, m);
    let sources: HashSet<&str> = table.sources.iter().map(|s| s.id.as_str()).collect();
    for (i, code) in table.codes.iter().enumerate() {
        let here = format!("codes[{i}]");
        if table.family != Family::Named || !known_code(code) {
            return Err(field(&here, format!("`{code}` is not a named-axis error code")));
        }
        if table.codes[..i].contains(code) {
            return Err(field(&here, format!("`{code}` is listed twice")));
        }
    }
    let mut rule_ids = HashSet::new();
    for rule in &table.rules {
        let err = |m: String| at(file, &rule.id, format!("rule `{}`: {m}", rule.id.value));
        if !is_valid_id(&rule.id.value) || !rule_ids.insert(rule.id.value.as_str()) {
            return Err(err("field `id`: use a unique id of lower-case letters, digits and '-'".into()));
        }
        if !sources.contains(rule.source.as_str()) {
            return Err(err(format!("field `source`: unknown source `{}`", rule.source)));
        }
    }
    let mut decision_ids = HashSet::new();
    for d in &table.decisions {
        if !is_valid_id(&d.id.value) || !decision_ids.insert(d.id.value.as_str()) {
            return Err(at(
                file,
                &d.id,
                format!("decision `{}`: field `id`: use a unique valid id", d.id.value),
            ));
        }
        if let Some(s) = d.settled_by.as_ref().filter(|s| !sources.contains(s.source.as_str())) {
            let m = format!(
                "decision `{}`: field `settled_by.source`: unknown source `{}`",
                d.id.value, s.source
            );
            return Err(at(file, &d.id, m));
        }
    }
    if let Some(i) = table.not_covered.iter().position(|n| !sources.contains(n.source.as_str())) {
        let m = format!("unknown source `{}`", table.not_covered[i].source);
        return Err(field(&format!("not_covered[{i}].source"), m));
    }
    let default_op = match (&table.op, table.family) {
        (None, _) => NamedOp::Add,
        (Some(op), Family::Named) => op.parse::<NamedOp>().map_err(|e| field("op", e.to_string()))?,
        (Some(_), Family::Numpy) => {
            return Err(field("op", "numpy tables apply to every binary operation".into()));
        }
    };
    let mut seen = HashSet::new();
    let mut cases = Vec::with_capacity(table.vectors.len());
    for v in &table.vectors {
        let err = |m: String| at(file, &v.id, format!("vector `{}`: {m}", v.id.value));
        if !is_valid_id(&v.id.value) {
            return Err(err("field `id`: use lower-case letters, digits and '-'".into()));
        }
        if !seen.insert(v.id.value.as_str()) {
            return Err(err("field `id`: duplicate vector id".into()));
        }
        if VALUE_CASES.iter().any(|c| c.name() == v.id.value) {
            return Err(err(
                "field `id`: the case name of a value check; two checks would share an id".into()
            ));
        }
        if v.rules.is_empty() {
            return Err(err("field `rules`: cite at least one rule".into()));
        }
        if let Some(r) = v.rules.iter().find(|r| !rule_ids.contains(r.as_str())) {
            return Err(err(format!("field `rules`: no rule `{r}`")));
        }
        if let Some(d) = v.decision.as_ref().filter(|d| !decision_ids.contains(d.as_str())) {
            return Err(err(format!("field `decision`: no decision `{d}`")));
        }
        if v.result.is_some() == v.error.is_some() {
            return Err(err("give exactly one of `result` and `error`".into()));
        }
        let case = match table.family {
            Family::Numpy => numpy_case(file, v)?,
            Family::Named => named_case(file, v, default_op)?,
        };
        if v.executes {
            match &case {
                Case::Numpy { .. } => return Err(err("field `executes`: NumPy vectors all run".into())),
                Case::Named { op, operands, expect } => {
                    if let Some(why) = why_not_executable(*op, operands, expect) {
                        return Err(err(format!("field `executes`: {why}")));
                    }
                }
            }
        }
        cases.push(case);
    }
    let mut value_cases = HashSet::new();
    for row in &table.value_checks {
        let err = |m: String| at(file, &row.case, format!("value check `{}`: {m}", row.case.value.name()));
        if row.case.value.family() != table.family || !value_cases.insert(row.case.value.name()) {
            return Err(err("field `case`: not a value check of this family, or listed twice".into()));
        }
        if row.rules.is_empty() {
            return Err(err("field `rules`: cite at least one rule".into()));
        }
        if let Some(r) = row.rules.iter().find(|r| !rule_ids.contains(r.as_str())) {
            return Err(err(format!("field `rules`: no rule `{r}`")));
        }
    }
    let gaps = coverage_gaps(table);
    if !gaps.is_empty() {
        return Err(whole(format!("the table breaks its own coverage promises: {}", gaps.join("; "))));
    }
    Ok(cases)
}

/// What a table promises about itself and does not keep: every rule exercised by a vector,
/// every decision pinned by one, every code (and, for NumPy tables, `shape_mismatch`)
/// expected by one vector and narrowly avoided by another.
fn coverage_gaps(t: &BroadcastTable) -> Vec<String> {
    let mut gaps = Vec::new();
    for rule in &t.rules {
        if !t.vectors.iter().any(|v| v.rules.contains(&rule.id.value)) {
            gaps.push(format!("rule `{}` has no vector", rule.id.value));
        }
    }
    for d in &t.decisions {
        if !t.vectors.iter().any(|v| v.decision.as_ref() == Some(&d.id.value)) {
            gaps.push(format!("decision `{}` is pinned by no vector", d.id.value));
        }
    }
    let mut codes: Vec<&str> = t.codes.iter().map(String::as_str).collect();
    if t.family == Family::Numpy {
        codes.push("shape_mismatch");
    }
    for code in codes {
        if !t.vectors.iter().any(|v| v.error.as_ref().is_some_and(|e| e.value == code)) {
            gaps.push(format!("no vector expects {code}"));
        }
        if !t.vectors.iter().any(|v| v.avoids.iter().any(|a| a == code)) {
            gaps.push(format!("no vector narrowly avoids {code}"));
        }
    }
    gaps
}

/// The error codes a kernel raises from the operands' shapes and names alone: mismatched
/// sizes (E0401) and mismatched names (E0404). The others depend on what a DSL's type checker
/// knows and a kernel does not (ranks of operators, kinds, dtypes).
const SHAPE_LEVEL_CODES: [&str; 2] = ["E0401", "E0404"];

/// Why a named vector cannot run as element-wise values, if it cannot: its operation is not
/// element-wise and binary, an operand is a string or a Python value, or it expects an error
/// that is not shape-level.
pub fn why_not_executable(op: NamedOp, operands: &[Operand], expect: &NamedExpect) -> Option<String> {
    if matches!(op, NamedOp::Matmul | NamedOp::MaskedFill | NamedOp::LogicalNot | NamedOp::Negative) {
        return Some(format!("`{op}` is not an element-wise binary operation"));
    }
    if operands.iter().any(|o| matches!(o.kind, ValueKind::Str | ValueKind::Python)) {
        return Some("an operand is a string or a Python value, not a tensor".into());
    }
    match expect {
        NamedExpect::Error(code) if !SHAPE_LEVEL_CODES.contains(&code.as_str()) => Some(format!(
            "{code} is not raised from shapes and names alone ({})",
            SHAPE_LEVEL_CODES.join(", ")
        )),
        _ => None,
    }
}

fn numpy_case(file: &Path, v: &Vector) -> Result<Case, LoadError> {
    let err = |m: String| at(file, &v.id, format!("vector `{}`: {m}", v.id.value));
    if v.op.is_some() || v.align.is_some() || !v.sizes.is_empty() {
        return Err(err("`op`, `align` and `sizes` belong to named tables".into()));
    }
    let sizes = |s: &Spanned<ShapeText>, field: &str| match &s.value {
        ShapeText::Sizes(sizes) => match check_shape(sizes) {
            Ok(_) => Ok(sizes.clone()),
            Err(m) => Err(at(file, s, format!("field `{field}`: {m}"))),
        },
        ShapeText::Named(_) => Err(at(file, s, format!("field `{field}`: a numpy shape is a list of sizes"))),
    };
    let y = v.y.as_ref().ok_or_else(|| err("field `y`: numpy vectors have two operands".into()))?;
    if let Some(e) = v.error.as_ref().filter(|e| e.value != "shape_mismatch") {
        return Err(at(
            file,
            e,
            format!("field `error`: `{}` (numpy tables expect `shape_mismatch`)", e.value),
        ));
    }
    if let Some(a) = v.avoids.iter().find(|a| *a != "shape_mismatch") {
        return Err(err(format!("field `avoids`: `{a}` (numpy tables know only `shape_mismatch`)")));
    }
    Ok(Case::Numpy {
        x: sizes(&v.x, "x")?,
        y: sizes(y, "y")?,
        expect: v.result.as_ref().map(|r| sizes(r, "result")).transpose()?,
    })
}

fn named_case(file: &Path, v: &Vector, default_op: NamedOp) -> Result<Case, LoadError> {
    let err = |m: String| at(file, &v.id, format!("vector `{}`: {m}", v.id.value));
    let op = match &v.op {
        Some(op) => op.value.parse::<NamedOp>().map_err(|e| at(file, op, format!("field `op`: {e}")))?,
        None => default_op,
    };
    let text = |s: &Spanned<ShapeText>, field: &str| match &s.value {
        ShapeText::Named(t) => Ok(t.clone()),
        ShapeText::Sizes(_) => {
            Err(at(file, s, format!("field `{field}`: write a named shape as a string, such as \"[n D]\"")))
        }
    };
    let mut fields = vec![("x", &v.x)];
    match (&v.y, op.arity()) {
        (Some(y), 2) => fields.push(("y", y)),
        (None, 1) => {}
        (_, n) => {
            return Err(err(format!(
                "`{op}` takes {n} operand(s): give {}",
                if n == 1 { "x only" } else { "x and y" }
            )));
        }
    }
    let operands = fields
        .iter()
        .map(|(field, s)| {
            let parsed = parse_operand(&text(s, field)?, &v.sizes, false)
                .map_err(|m| at(file, s, format!("field `{field}`: {m}")))?;
            if parsed.kinds[0].is_scalar() && !parsed.shape.is_empty() {
                return Err(at(file, s, format!("field `{field}`: a {} has no axes", parsed.kinds[0])));
            }
            Ok(Operand { kind: parsed.kinds[0], dtype: parsed.dtype, shape: parsed.shape })
        })
        .collect::<Result<Vec<_>, _>>()?;
    for a in &v.avoids {
        if !known_code(a) || v.error.as_ref().is_some_and(|e| &e.value == a) {
            return Err(err(format!("field `avoids`: `{a}` is not a code this vector avoids")));
        }
    }
    let expect = match (&v.result, &v.error) {
        (Some(r), _) => {
            let parsed = parse_operand(&text(r, "result")?, &v.sizes, true)
                .map_err(|m| at(file, r, format!("field `result`: {m}")))?;
            let alignment =
                v.align.as_ref().map(|a| parse_alignments(file, a, &parsed.shape, &operands)).transpose()?;
            let kinds = (!parsed.kinds.is_empty()).then_some(parsed.kinds);
            NamedExpect::Result { shape: parsed.shape, kinds, alignment }
        }
        (None, Some(e)) if known_code(&e.value) => {
            if v.align.is_some() {
                return Err(err("field `align`: an error has no alignment".into()));
            }
            NamedExpect::Error(e.value.clone())
        }
        (None, Some(e)) => {
            return Err(at(file, e, format!("field `error`: `{}` is not a named-axis error code", e.value)));
        }
        (None, None) => return Err(err("give `result` or `error`".into())),
    };
    Ok(Case::Named { op, operands, expect })
}

fn parse_alignments(
    file: &Path,
    align: &AlignText,
    result: &[NamedAxis],
    operands: &[Operand],
) -> Result<Vec<Alignment>, LoadError> {
    let texts: Vec<&Spanned<String>> = [Some(&align.x), align.y.as_ref()].into_iter().flatten().collect();
    if texts.len() != operands.len() {
        return Err(at(
            file,
            &align.x,
            format!("field `align`: give one alignment per operand ({})", operands.len()),
        ));
    }
    texts
        .iter()
        .zip(operands)
        .map(|(t, o)| {
            parse_alignment(&t.value, result.len(), o.shape.len())
                .map_err(|m| at(file, *t, format!("field `align`: {m}")))
        })
        .collect()
}
