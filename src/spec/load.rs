//! Loading and validating spec tables and suites.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use opspec_adapter::{DType, OpKind};
use serde::de::DeserializeOwned;
use serde_saphyr::{Location, Spanned};

use super::schema::{Condition, IntoResult, Layout, Operand, OutDtype, Outcome, SpecTable};
use crate::value::Literal;

/// A load or validation error, located in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub line: Option<u64>,
    pub column: Option<u64>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    fn at(file: &Path, line: u64, column: u64, message: String) -> Self {
        LoadError { file: file.to_path_buf(), line: Some(line), column: Some(column), message }
    }

    /// An error about `file` as a whole (no line or column).
    pub(super) fn whole(file: &Path, message: String) -> Self {
        LoadError { file: file.to_path_buf(), line: None, column: None, message }
    }
}

/// Parses the YAML text of `file` (its path relative to the catalog root) into `T`; errors
/// carry `file`, the line and column, the path of the field (`rows[3].when.x1`) and a snippet
/// of the source.
pub fn parse_yaml<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, LoadError> {
    let mut field = String::new();
    let parsed = serde_saphyr::with_deserializer_from_str(text, |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            field = e.path().to_string();
            e.into_inner()
        })
    });
    parsed.map_err(|e| {
        let (line, column) = match e.location() {
            Some(loc) => (Some(loc.line()), Some(loc.column())),
            None => (None, None),
        };
        let detail = e.to_string().replace("<input>", &file.display().to_string());
        let message =
            if field.is_empty() || field == "." { detail } else { format!("in field `{field}`: {detail}") };
        LoadError { file: file.to_path_buf(), line, column, message }
    })
}

/// Checks what serde cannot: ids unique and cited sources declared, overrides naming rows,
/// operands within the table's arity, dtypes known, constants representable, and shape rules
/// only where the operation `op` has them (`no_broadcast` on a fused operation, `into_rules`
/// on a destination-passing one), well formed.
pub fn validate_table(file: &Path, table: &SpecTable, op: OpKind) -> Result<(), LoadError> {
    let first_line = |m: String| LoadError::whole(file, m);
    if table.operands.is_empty() || table.operands.len() > 3 {
        return Err(first_line(format!(
            "`operands` must list 1 to 3 operands, not {}",
            table.operands.len()
        )));
    }
    for (i, op) in table.operands.iter().enumerate() {
        if op.index() != i {
            return Err(first_line(format!(
                "`operands` must be x1, x2, x3 in order; found {} at {}",
                op.name(),
                i + 1
            )));
        }
    }
    for d in &table.dtypes {
        d.parse::<DType>().map_err(|e| first_line(format!("field `dtypes`: {e}")))?;
    }
    let sources: HashSet<&str> = table.sources.iter().map(|s| s.id.as_str()).collect();
    if let Some(def) = &table.defined_as
        && !sources.contains(def.source.as_str())
    {
        return Err(first_line(format!("field `defined_as.source`: unknown source `{}`", def.source)));
    }
    let ids: HashSet<&str> = table.rows.iter().map(|r| r.id.value.as_str()).collect();
    let mut seen = HashSet::new();
    for p in &table.properties {
        let loc = &p.id.referenced;
        let err = |m: String| {
            LoadError::at(file, loc.line(), loc.column(), format!("property `{}`: {m}", p.id.value))
        };
        if !is_valid_id(&p.id.value) || ids.contains(p.id.value.as_str()) || !seen.insert(p.id.value.as_str())
        {
            return Err(err("field `id`: not a fresh lower-case id".into()));
        }
        if !sources.contains(p.source.as_str()) {
            return Err(err(format!("field `source`: unknown source `{}`", p.source)));
        }
        if table.operands.len() != 2 {
            return Err(err("field `property`: properties are defined for binary operations".into()));
        }
    }
    for row in &table.rows {
        let loc = &row.id.referenced;
        let err =
            |m: String| LoadError::at(file, loc.line(), loc.column(), format!("row `{}`: {m}", row.id.value));
        if !is_valid_id(&row.id.value) {
            return Err(err("field `id`: use lower-case letters, digits and '-'".into()));
        }
        if !seen.insert(row.id.value.as_str()) {
            return Err(err("field `id`: duplicate row id".into()));
        }
        if !sources.contains(row.source.as_str()) {
            return Err(err(format!("field `source`: unknown source `{}`", row.source)));
        }
        if let Some(a) = row.also.iter().find(|a| !sources.contains(a.source.as_str())) {
            return Err(err(format!("field `also.source`: unknown source `{}`", a.source)));
        }
        for o in &row.overrides {
            if !ids.contains(o.as_str()) || o == &row.id.value {
                return Err(err(format!("field `overrides`: no other row `{o}`")));
            }
        }
        check_operands(table.operands.len(), &row.when, &row.result).map_err(err)?;
    }
    validate_no_broadcast(file, table, op, &sources, &mut seen)?;
    validate_into_rules(file, table, op, &sources, &mut seen)
}

/// An error at `loc` about the field `field` of the shape-rule row `id`.
fn rule_error(file: &Path, loc: &Location, id: &str, field: &str, message: &str) -> LoadError {
    LoadError::at(file, loc.line(), loc.column(), format!("row `{id}`: field `{field}`: {message}"))
}

/// Checks a shape-rule row's id (a name, fresh in the table) and source; `field` is the row's
/// path (`no_broadcast[0]`).
fn check_rule_row<'t>(
    file: &Path,
    id: &'t Spanned<String>,
    source: &str,
    field: &str,
    sources: &HashSet<&str>,
    seen: &mut HashSet<&'t str>,
) -> Result<(), LoadError> {
    let err = |f: &str, m: &str| rule_error(file, &id.referenced, &id.value, &format!("{field}.{f}"), m);
    if !is_valid_id(&id.value) {
        return Err(err("id", "use lower-case letters, digits and '-'"));
    }
    if !seen.insert(id.value.as_str()) {
        return Err(err("id", "duplicate id (ids are unique among a table's rows, properties and rules)"));
    }
    if !sources.contains(source) {
        return Err(err("source", &format!("unknown source `{source}`")));
    }
    Ok(())
}

/// The `no_broadcast:` rows: only on a fused operation; each cites a source and lists sets of
/// operand shapes (one shape per operand, serde checks the count), not all equal.
fn validate_no_broadcast<'t>(
    file: &Path,
    table: &'t SpecTable,
    op: OpKind,
    sources: &HashSet<&str>,
    seen: &mut HashSet<&'t str>,
) -> Result<(), LoadError> {
    if let Some(first) = table.no_broadcast.first()
        && !matches!(op, OpKind::Ternary(_))
    {
        let m = format!("`{}` is not a fused (ternary) operation; only those have this rule", table.op);
        return Err(rule_error(file, &first.id.referenced, &first.id.value, "no_broadcast", &m));
    }
    for (i, row) in table.no_broadcast.iter().enumerate() {
        let field = format!("no_broadcast[{i}]");
        check_rule_row(file, &row.id, &row.source, &field, sources, seen)?;
        let err = |f: String, m: &str| rule_error(file, &row.id.referenced, &row.id.value, &f, m);
        if row.shapes.is_empty() {
            return Err(err(format!("{field}.shapes"), "list at least one set of operand shapes"));
        }
        if let Some(k) = row.shapes.iter().position(|set| set.iter().all(|s| s == &set[0])) {
            let m = "the shapes are equal, and the rule refuses only unequal ones";
            return Err(err(format!("{field}.shapes[{k}]"), m));
        }
    }
    Ok(())
}

/// The `into_rules:` block: only on a destination-passing operation; the operands and every
/// stated result are numbers in each of the table's float dtypes and fill their shapes; a
/// destination that must be written has the operands' dtype and a contiguous layout; a
/// transposed one has two axes longer than 1.
fn validate_into_rules<'t>(
    file: &Path,
    table: &'t SpecTable,
    op: OpKind,
    sources: &HashSet<&str>,
    seen: &mut HashSet<&'t str>,
) -> Result<(), LoadError> {
    let Some(rules) = &table.into_rules else { return Ok(()) };
    let Some(first) = rules.destinations.first() else {
        return Err(LoadError::whole(
            file,
            "field `into_rules.destinations`: list at least one destination".into(),
        ));
    };
    // The block has no line of its own: its errors point at its first destination.
    let block_err = |field: &str, m: &str| rule_error(file, &first.id.referenced, &first.id.value, field, m);
    if !matches!(op, OpKind::BinaryInto(_)) {
        let m = format!(
            "`{}` does not write into a destination (`_into`); only such operations have these rules",
            table.op
        );
        return Err(block_err("into_rules", &m));
    }
    let floats: Vec<DType> =
        table.dtypes.iter().filter_map(|d| d.parse::<DType>().ok()).filter(|d| d.is_float()).collect();
    for (name, operand) in [("a", &rules.a), ("b", &rules.b)] {
        check_literal(&operand.values, &operand.shape, &floats)
            .map_err(|m| block_err(&format!("into_rules.{name}.values"), &m))?;
    }
    for (i, row) in rules.destinations.iter().enumerate() {
        let field = format!("into_rules.destinations[{i}]");
        check_rule_row(file, &row.id, &row.source, &field, sources, seen)?;
        let err = |f: &str, m: &str| {
            rule_error(file, &row.id.referenced, &row.id.value, &format!("{field}.{f}"), m)
        };
        let out = &row.out;
        if out.layout == Layout::Transposed && out.shape.iter().filter(|&&n| n > 1).count() < 2 {
            return Err(err(
                "out.layout",
                "a transposed out needs two axes longer than 1 (with fewer, the transpose is laid out contiguously)",
            ));
        }
        if let IntoResult::Values(values) = &row.result {
            if out.dtype != OutDtype::Same || out.layout != Layout::Contiguous {
                return Err(err(
                    "result",
                    "an out that is written must have `dtype: same` and `layout: contiguous`: the rules refuse any other",
                ));
            }
            check_literal(values, &out.shape, &floats).map_err(|m| err("result.values", &m))?;
        }
    }
    Ok(())
}

/// Checks that `values` fill `shape` row-major and are numbers in each of `dtypes`.
fn check_literal(values: &[String], shape: &[usize], dtypes: &[DType]) -> Result<(), String> {
    if shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) != Some(values.len()) {
        return Err(format!("{} values for shape {shape:?}", values.len()));
    }
    for &dtype in dtypes {
        for v in values {
            Literal::parse(dtype, v).map_err(|e| format!("in {dtype}: {e}"))?;
        }
    }
    Ok(())
}

/// Whether `id` is a permanent id: lowercase ASCII letters, digits and `-`, not empty (the
/// `case` segment of a check id).
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn check_operands(arity: usize, when: &Condition, result: &Outcome) -> Result<(), String> {
    for operand in [Operand::X1, Operand::X2, Operand::X3] {
        if operand.index() >= arity && !when.operand_classes(operand).is_empty() {
            return Err(format!("field `when.{}`: the operation has {arity} operands", operand.name()));
        }
    }
    if when.relation.is_some() && arity < 2 {
        return Err("field `when.relation`: needs two operands".into());
    }
    check_outcome(arity, result)
}

fn check_outcome(arity: usize, result: &Outcome) -> Result<(), String> {
    match result {
        Outcome::Operand(o) | Outcome::NegOperand(o) | Outcome::AbsOperand(o) | Outcome::NegAbsOperand(o)
            if o.index() >= arity =>
        {
            Err(format!("field `result`: operand {} does not exist", o.name()))
        }
        Outcome::AnyOf(list) if list.is_empty() => Err("field `result.any_of`: empty".into()),
        Outcome::AnyOf(list) => list.iter().try_for_each(|o| check_outcome(arity, o)),
        _ => Ok(()),
    }
}
