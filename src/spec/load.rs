//! Loading and validating spec tables and suites.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use opspec_adapter::{DType, OpKind};
use serde::de::DeserializeOwned;
use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::{Location, Spanned};

use super::authority::Tier;
use super::locate::locate;

use super::limits::check_shape;
use super::schema::{
    Accuracy, Class, Condition, IntoResult, Layout, Operand, OutDtype, Outcome, Property, SpecTable,
};
use crate::bits::format::Format;
use crate::bits::value::Literal;

/// A load or validation error, located in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub line: Option<u64>,
    pub column: Option<u64>,
    /// The field the error is about (`rows[3].when.x1`), where validation names one; the
    /// loader, which has the file's text, finds its line and column ([`LoadError::located`]).
    pub field: Option<String>,
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
    /// An error at a line and column of `file`.
    pub(super) fn at(file: &Path, line: u64, column: u64, message: String) -> Self {
        LoadError { file: file.to_path_buf(), line: Some(line), column: Some(column), field: None, message }
    }

    /// An error at the location `loc` of `file`.
    pub(super) fn at_location(file: &Path, loc: &Location, message: String) -> Self {
        LoadError::at(file, loc.line(), loc.column(), message)
    }

    /// An error about `file` as a whole (placed at its start once located).
    pub(super) fn whole(file: &Path, message: String) -> Self {
        LoadError { file: file.to_path_buf(), line: None, column: None, field: None, message }
    }

    /// An error about the field `field` of `file` (`dtypes[1]`, `rows[3].bullet`): the message
    /// names it, and [`LoadError::located`] finds its line and column.
    pub(super) fn in_field(file: &Path, field: &str, message: impl fmt::Display) -> Self {
        LoadError {
            file: file.to_path_buf(),
            line: None,
            column: None,
            field: Some(field.to_string()),
            message: format!("field `{field}`: {message}"),
        }
    }

    /// The error with a line and column, found from its field in `text` (the file's YAML):
    /// the field's key, the deepest part of its path the file has, or the file's start.
    pub(super) fn located(mut self, text: &str) -> Self {
        if self.line.is_none() {
            let (line, column) = self.field.as_deref().and_then(|f| locate(text, f)).unwrap_or((1, 1));
            (self.line, self.column) = (Some(line), Some(column));
        }
        self
    }
}

/// Parses the YAML text of `file` (its path relative to the catalog root) into `T`; errors
/// carry `file`, the line and column, the path of the field (`rows[3].when.x1`) and a snippet
/// of the source.
pub fn parse_yaml<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, LoadError> {
    if text.lines().all(|l| matches!(l.trim(), "" | "---" | "...") || l.trim_start().starts_with('#')) {
        return Err(LoadError::at(
            file,
            1,
            1,
            "the file is empty: it has no YAML document, only blank lines or comments".into(),
        ));
    }
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
        let detail = match e.without_snippet() {
            serde_saphyr::Error::Budget { breach, .. } => budget_message(breach),
            serde_saphyr::Error::NonFiniteFloat { value, .. } => format!("`{value}` is not a finite number"),
            _ => e.to_string().replace("<input>", &file.display().to_string()),
        };
        let message = if field.is_empty() || field == "." || field == "?" {
            detail
        } else {
            format!("in field `{field}`: {detail}")
        };
        let field = (!field.is_empty() && field != "." && field != "?").then_some(field);
        // serde reports a missing field where its map ends; the map's start is clearer.
        let (line, column) = match (e.without_snippet(), &field) {
            (serde_saphyr::Error::SerdeMissingField { .. }, Some(f)) => {
                locate(text, f).map_or((line, column), |(l, c)| (Some(l), Some(c)))
            }
            _ => (line, column),
        };
        LoadError { file: file.to_path_buf(), line, column, field, message }
    })
}

/// The case names of the checks an element-wise table's generators and shape rules make: a
/// row, property or rule of that name would give two checks one id.
const RESERVED_CASES: [&str; 7] =
    ["edges", "random", "hard", "no-broadcast", "into-rules", "layouts", "layouts-large"];

fn reserved(id: &str) -> String {
    format!(
        "field `id`: `{id}` is the case name of a generated check ({}); two checks would share an id",
        RESERVED_CASES.join(", ")
    )
}

/// What a refusal of the YAML parser's limits says: which limit, and the limits.
fn budget_message(breach: &BudgetBreach) -> String {
    let what = match breach {
        BudgetBreach::Nodes { nodes } => format!("more than {nodes} nodes"),
        BudgetBreach::Events { events } => format!("more than {events} parser events"),
        BudgetBreach::Depth { depth } => format!("nesting {depth} deep"),
        BudgetBreach::Aliases { aliases } => format!("more than {aliases} aliases"),
        BudgetBreach::Anchors { anchors } => format!("more than {anchors} anchors"),
        BudgetBreach::ScalarBytes { total_scalar_bytes } => format!("{total_scalar_bytes} bytes of scalars"),
        BudgetBreach::Documents { documents } => format!("{documents} documents"),
        _ => "a structure past the parser's limits".to_string(),
    };
    format!(
        "the file is too large or too deeply nested to be a table ({what}); the YAML parser refuses \
         more than 250,000 nodes, 1,000,000 events, 50,000 aliases or a nesting depth of 64"
    )
}

/// Checks what serde cannot: ids unique and cited sources declared, overrides naming rows,
/// operands within the table's arity, dtypes known, constants representable, and shape rules
/// only where the operation `op` has them (`no_broadcast` on a fused operation, `into_rules`
/// on a destination-passing one), well formed.
pub fn validate_table(file: &Path, table: &SpecTable, op: OpKind) -> Result<(), LoadError> {
    let field = |f: &str, m: String| LoadError::in_field(file, f, m);
    for (i, op) in table.operands.iter().enumerate() {
        if op.index() != i {
            return Err(field(
                &format!("operands[{i}]"),
                format!("operands are x1, x2, x3 in order; found {} at {}", op.name(), i + 1),
            ));
        }
    }
    if table.dtypes.is_empty() {
        return Err(field("dtypes", "list at least one dtype".into()));
    }
    let mut dtypes = Vec::new();
    for (i, d) in table.dtypes.iter().enumerate() {
        let dtype = d.parse::<DType>().map_err(|e| field(&format!("dtypes[{i}]"), e.to_string()))?;
        if dtypes.contains(&dtype) {
            return Err(field(&format!("dtypes[{i}]"), format!("`{d}` is listed twice")));
        }
        dtypes.push(dtype);
    }
    let mut sources = HashSet::new();
    for (i, s) in table.sources.iter().enumerate() {
        if !sources.insert(s.id.as_str()) {
            return Err(field(&format!("sources[{i}].id"), format!("`{}` is declared twice", s.id)));
        }
    }
    if let Some(def) = &table.defined_as
        && !sources.contains(def.source.as_str())
    {
        return Err(field("defined_as.source", format!("unknown source `{}`", def.source)));
    }
    if let Some(i) = table.not_covered.iter().position(|n| !sources.contains(n.source.as_str())) {
        let m = format!("unknown source `{}`", table.not_covered[i].source);
        return Err(field(&format!("not_covered[{i}].source"), m));
    }
    if let Some(name) = &table.rounds_as {
        let problem = if super::parse_op(name).is_none() {
            Some(format!("unknown operation `{name}`"))
        } else if table.accuracy != Accuracy::CorrectlyRounded {
            Some("only a `correctly_rounded` table rounds".into())
        } else if table.defined_as.is_none() {
            Some(format!("quote the words that define `{op}` by `{name}` (`defined_as`)"))
        } else {
            None
        };
        if let Some(m) = problem {
            return Err(field("rounds_as", m));
        }
    }
    if !table.readings.is_empty() && table.opspec_reading.as_deref().is_none_or(|t| t.trim().is_empty()) {
        let m = "the table names other `readings`: say in words which one the oracle computes";
        return Err(field("opspec_reading", m.into()));
    }
    for (i, r) in table.readings.iter().enumerate() {
        if !sources.contains(r.source.as_str()) {
            return Err(field(&format!("readings[{i}].source"), format!("unknown source `{}`", r.source)));
        }
        if r.value.op() != op {
            return Err(field(&format!("readings[{i}].value"), format!("not a reading of `{op}`")));
        }
        if r.meets == Tier::Quality {
            return Err(field(
                &format!("readings[{i}].meets"),
                "`must` or `should`: opspec's own reading is the oracle's".into(),
            ));
        }
    }
    let ids: HashSet<&str> = table.rows.iter().map(|r| r.id.value.as_str()).collect();
    let mut seen = HashSet::new();
    for (i, p) in table.properties.iter().enumerate() {
        let loc = &p.id.referenced;
        let err = |m: String| {
            LoadError::at(file, loc.line(), loc.column(), format!("property `{}`: {m}", p.id.value))
        };
        if !is_valid_id(&p.id.value) || ids.contains(p.id.value.as_str()) || !seen.insert(p.id.value.as_str())
        {
            return Err(err("field `id`: not a fresh lower-case id".into()));
        }
        if RESERVED_CASES.contains(&p.id.value.as_str()) {
            return Err(err(reserved(&p.id.value)));
        }
        if !sources.contains(p.source.as_str()) {
            return Err(err(format!("field `source`: unknown source `{}`", p.source)));
        }
        let name = format!("property `{}`: ", p.id.value);
        check_bullet(table, &p.source, p.bullet)
            .map_err(|m| LoadError::in_field(file, &format!("properties[{i}].bullet"), name + &m))?;
        let arity = if matches!(p.property, Property::Parity(_)) { 1 } else { 2 };
        if table.operands.len() != arity {
            let m =
                format!("field `property`: this property is defined for operations of {arity} operand(s)");
            return Err(err(m));
        }
        if let Property::InvariantUnder(transforms) = &p.property
            && (transforms.is_empty()
                || transforms.iter().enumerate().any(|(k, t)| transforms[..k].contains(t)))
        {
            return Err(err(
                "field `property.invariant_under`: list each transformation once, at least one".into()
            ));
        }
    }
    let floats: Vec<Format> = dtypes.iter().filter_map(|&d| Format::of(d)).collect();
    for (i, row) in table.rows.iter().enumerate() {
        let loc = &row.id.referenced;
        let err =
            |m: String| LoadError::at(file, loc.line(), loc.column(), format!("row `{}`: {m}", row.id.value));
        let in_field = |f: String, m: String| {
            LoadError::in_field(file, &format!("rows[{i}].{f}"), format!("row `{}`: {m}", row.id.value))
        };
        if !is_valid_id(&row.id.value) {
            return Err(err("field `id`: use lower-case letters, digits and '-'".into()));
        }
        if RESERVED_CASES.contains(&row.id.value.as_str()) {
            return Err(err(reserved(&row.id.value)));
        }
        if !seen.insert(row.id.value.as_str()) {
            return Err(err("field `id`: duplicate row id".into()));
        }
        for a in &row.aliases {
            let at = |m: String| {
                LoadError::at_location(
                    file,
                    &a.referenced,
                    format!("row `{}`: field `aliases`: {m}", row.id.value),
                )
            };
            if !is_valid_id(&a.value) || RESERVED_CASES.contains(&a.value.as_str()) {
                return Err(at(format!(
                    "`{}` is not a row id (lower-case letters, digits and '-')",
                    a.value
                )));
            }
            if ids.contains(a.value.as_str()) || !seen.insert(a.value.as_str()) {
                return Err(at(format!(
                    "`{}` is already a row's or a property's id or an alias in this table: an old id names one row",
                    a.value
                )));
            }
        }
        if !sources.contains(row.source.as_str()) {
            return Err(err(format!("field `source`: unknown source `{}`", row.source)));
        }
        check_bullet(table, &row.source, row.bullet).map_err(|m| in_field("bullet".into(), m))?;
        for (j, a) in row.also.iter().enumerate() {
            if !sources.contains(a.source.as_str()) {
                return Err(in_field(format!("also[{j}].source"), format!("unknown source `{}`", a.source)));
            }
            check_bullet(table, &a.source, a.bullet).map_err(|m| in_field(format!("also[{j}].bullet"), m))?;
        }
        for (i, o) in row.overrides.iter().enumerate() {
            if !ids.contains(o.as_str()) || o == &row.id.value {
                return Err(err(format!("field `overrides`: no other row `{o}`")));
            }
            if row.overrides[..i].contains(o) {
                return Err(err(format!("field `overrides`: `{o}` is listed twice")));
            }
        }
        check_operands(table.operands.len(), &row.when, &row.result).map_err(&err)?;
        let approximate = table.accuracy == Accuracy::Approximate;
        check_constants(&row.when, &row.result, &floats, approximate)
            .map_err(|(f, m)| in_field(f.into(), m))?;
    }
    check_precedence(file, table)?;
    validate_no_broadcast(file, table, op, &sources, &mut seen)?;
    validate_into_rules(file, table, op, &sources, &mut seen)
}

/// Checks that bullet `bullet` of source `source` exists: the source says how many bullets
/// its section has (`bullets:`), and bullets count from 1.
fn check_bullet(table: &SpecTable, source: &str, bullet: u32) -> Result<(), String> {
    let Some(count) = table.source(source).and_then(|s| s.bullets) else {
        return Err(format!(
            "source `{source}` does not say how many bullets its section has (add `bullets:` to it)"
        ));
    };
    if bullet == 0 || bullet > count {
        return Err(format!("bullet {bullet} is not one of `{source}`'s bullets 1 to {count}"));
    }
    Ok(())
}

/// Checks that `overrides` has no cycle (a row that, through the rows it overrides, overrides
/// itself): precedence must be an order, or no row wins where they overlap.
fn check_precedence(file: &Path, table: &SpecTable) -> Result<(), LoadError> {
    let index = |id: &str| table.rows.iter().position(|r| r.id.value == id);
    // Depth-first, with each row's state: 0 unvisited, 1 on the current path, 2 done.
    let mut state = vec![0u8; table.rows.len()];
    for start in 0..table.rows.len() {
        let mut stack = vec![(start, 0usize)];
        while let Some(&mut (row, ref mut next)) = stack.last_mut() {
            if *next == 0 {
                state[row] = 1;
            }
            let overrides = &table.rows[row].overrides;
            match overrides.get(*next).and_then(|o| index(o)) {
                Some(child) => {
                    *next += 1;
                    if state[child] == 1 {
                        let path: Vec<&str> =
                            stack.iter().map(|&(r, _)| table.rows[r].id.value.as_str()).collect();
                        let cycle = path
                            [path.iter().position(|&id| id == table.rows[child].id.value).unwrap_or(0)..]
                            .join(" -> ");
                        let r = &table.rows[row].id;
                        return Err(LoadError::at_location(
                            file,
                            &r.referenced,
                            format!(
                                "row `{}`: field `overrides`: the rows override each other in a circle ({cycle} -> {}); precedence must be an order",
                                r.value, table.rows[child].id.value
                            ),
                        ));
                    }
                    if state[child] == 0 {
                        stack.push((child, 0));
                    }
                }
                None if *next < overrides.len() => *next += 1,
                None => {
                    state[row] = 2;
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}

/// Checks a row's constants: a class constant is not NaN (NaN compares false with every
/// value, so the class would be empty or everything: write `nan` or `not_nan`); a stated
/// value is a number representable in each float format of the table; an approximation
/// (`approx`) only in an `approximate` table (others have no step bound). An error gives the
/// field (`when`, `result`) and what is wrong.
fn check_constants(
    when: &Condition,
    result: &Outcome,
    floats: &[Format],
    approximate: bool,
) -> Result<(), (&'static str, String)> {
    let classes = [Operand::X1, Operand::X2, Operand::X3]
        .into_iter()
        .flat_map(|o| when.operand_classes(o).iter())
        .chain(when.either.iter())
        .chain(when.both.iter());
    for class in classes {
        if let Class::Gt(c)
        | Class::Lt(c)
        | Class::Eq(c)
        | Class::Ne(c)
        | Class::AbsGt(c)
        | Class::AbsLt(c)
        | Class::AbsEq(c) = class
            && c.is_nan()
        {
            return Err((
                "when",
                "a class compares with NaN, which nothing equals or orders with (write `nan` or `not_nan`)"
                    .into(),
            ));
        }
    }
    let mut values = vec![result];
    while let Some(outcome) = values.pop() {
        match outcome {
            Outcome::Value(v) => {
                if let Some(f) = floats.iter().find(|f| f.from_f64_exact(*v).is_none() || v.is_nan()) {
                    return Err((
                        "result",
                        format!(
                            "{v} is not a number representable in {} (write `nan`, or a value every dtype of the table holds exactly)",
                            f.name
                        ),
                    ));
                }
            }
            Outcome::Approx(_) if !approximate => {
                return Err((
                    "result",
                    "an approximation has a step bound only in an `approximate` table".into(),
                ));
            }
            Outcome::AnyOf(list) | Outcome::Prefer(list) => values.extend(list),
            _ => {}
        }
    }
    Ok(())
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
    if RESERVED_CASES.contains(&id.value.as_str()) {
        return Err(err("id", &reserved(&id.value)));
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
        for (k, set) in row.shapes.iter().enumerate() {
            if let Some(m) = set.iter().find_map(|s| check_shape(s).err()) {
                return Err(err(format!("{field}.shapes[{k}]"), &m));
            }
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
        return Err(LoadError::in_field(file, "into_rules.destinations", "list at least one destination"));
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
            .map_err(|m| LoadError::in_field(file, &format!("into_rules.{name}.values"), m))?;
    }
    let Some(fitting) = broadcast_shape(&rules.a.shape, &rules.b.shape) else {
        let m = format!("shapes {:?} and {:?} do not broadcast (NumPy rules)", rules.a.shape, rules.b.shape);
        return Err(LoadError::in_field(file, "into_rules.b.shape", m));
    };
    for (i, row) in rules.destinations.iter().enumerate() {
        let field = format!("into_rules.destinations[{i}]");
        check_rule_row(file, &row.id, &row.source, &field, sources, seen)?;
        let err = |f: &str, m: &str| {
            rule_error(file, &row.id.referenced, &row.id.value, &format!("{field}.{f}"), m)
        };
        let out = &row.out;
        check_shape(&out.shape).map_err(|m| err("out.shape", &m))?;
        if out.layout == Layout::Transposed && out.shape.iter().filter(|&&n| n > 1).count() < 2 {
            return Err(err(
                "out.layout",
                "a transposed out needs two axes longer than 1 (with fewer, the transpose is laid out contiguously)",
            ));
        }
        if let IntoResult::Values(values) = &row.result {
            if out.shape != fitting {
                let m = format!("an out that is written has the shape of a and b broadcast, {fitting:?}");
                return Err(err("out.shape", &m));
            }
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

/// The NumPy broadcast of shapes `a` and `b`, if they broadcast.
pub(super) fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let axis = |s: &[usize], k: usize| if k < rank - s.len() { 1 } else { s[k - (rank - s.len())] };
    (0..rank)
        .map(|k| match (axis(a, k), axis(b, k)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

/// Checks that `values` fill `shape` row-major and are numbers in each of `dtypes`.
fn check_literal(values: &[String], shape: &[usize], dtypes: &[DType]) -> Result<(), String> {
    if check_shape(shape)? != values.len() {
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
    if let Some(pair) = when.greater {
        if let Some(o) = pair.iter().find(|o| o.index() >= arity) {
            return Err(format!(
                "field `when.greater`: the operation has {arity} operands, not {}",
                o.name()
            ));
        }
        if pair[0] == pair[1] {
            return Err("field `when.greater`: names one operand twice".into());
        }
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
        Outcome::Prefer(list) if list.len() < 2 => {
            Err("field `result.prefer`: name the preferred result and at least one other".into())
        }
        Outcome::AnyOf(list) | Outcome::Prefer(list) => list.iter().try_for_each(|o| check_outcome(arity, o)),
        _ => Ok(()),
    }
}
