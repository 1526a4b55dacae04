//! Loading and validating spec tables and suites.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use opspec_adapter::DType;
use serde::de::DeserializeOwned;

use super::schema::{Condition, Operand, Outcome, SpecTable};

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
/// operands within the table's arity, dtypes known, constants representable.
pub fn validate_table(file: &Path, table: &SpecTable) -> Result<(), LoadError> {
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
