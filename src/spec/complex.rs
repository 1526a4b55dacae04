//! Complex tables (`specs/complex/*.yaml`): the serde schema, loading and validation.
//!
//! A complex table encodes the complex section of one element-wise function of a document:
//! its rows (one per bullet, conditions on the operands' **components**, `a = real(x1)`,
//! `b = imag(x1)`, `c = real(x2)`, `d = imag(x2)`, and the result's components), its stated
//! **delegations** (`asin(x)` "as if" `-1j * asinh(x*1j)`, checked as properties on the
//! adapter's own results), its **component rules** (each part of the result one of the
//! operands' components or a real operation on two of them: `conj(x) = a - bj`, or
//! `a + (c + dj) = (a + c) + dj` for a real-valued `x1`) and, for the operations opspec has an
//! oracle for, how finite results are judged (`accuracy`).

use std::path::Path;

use opspec_adapter::{BinaryOp, DType, UnaryOp};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::Loaded;
use super::load::{LoadError, is_valid_id, parse_yaml};
use super::schema::{Classes, NamedConstant};
use super::source::{NotCovered, Source};
use crate::spec::schema::Class;

/// The complex section of one element-wise function.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComplexTable {
    /// The function (`add`, `exp`), as the adapter API names it.
    pub op: String,
    /// Complex dtypes the table applies to (`c64`, `c128`).
    pub dtypes: Vec<String>,
    /// The documents the rows cite, by short id.
    pub sources: Vec<Source>,
    /// Statements of the sources that are not encoded, so the gap is visible.
    #[serde(default)]
    pub not_covered: Vec<NotCovered>,
    /// How results on finite operands are judged against the oracle, where opspec has one
    /// for the function; without it the table has no `random` check.
    #[serde(default)]
    pub accuracy: Option<ComplexAccuracy>,
    /// The document's words on how results on finite operands are computed (multiply and
    /// divide: "as if calculated according to the textbook formula"), and their tier.
    #[serde(default)]
    pub textbook: Option<Textbook>,
    #[serde(default)]
    pub rows: Vec<ComplexRow>,
    #[serde(default)]
    pub properties: Vec<ComplexProperty>,
    #[serde(default)]
    pub component_rules: Vec<ComponentRule>,
}

/// A sentence that says results on finite operands are computed "as if calculated according
/// to the textbook formula". The formula's value (at any accuracy, where the suite says the
/// document sets none) and the formula evaluated in the parts' format, each operation rounded,
/// meet the tiers from `tier` up to opspec's bar; a result that is neither (a NaN or an
/// infinite part where the exact result is finite) misses `tier`. Below `tier` any result
/// conforms: the document states nothing else of these operands.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Textbook {
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// The sentence's tier: `should`, or `must`.
    pub tier: super::authority::Tier,
    /// The document's words, quoted.
    pub text: String,
}

/// How a result on finite operands is judged.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComplexAccuracy {
    /// Each component is the exact component's value rounded once to nearest even.
    CorrectlyRounded,
    /// The error of each component is at most this many ULPs of the larger component of the
    /// exact result (a normwise bound: see docs/ACCURACY.md).
    NormwiseUlps(f64),
    /// `pow`'s bound: this many ULPs of the larger part, times `max(1, |x2 * log(x1)|)`, the
    /// condition number of `exp` at the exponent of `exp(x2*log(x1))` (the standard's
    /// definition): the rounding of that exponent, which the definition computes, is amplified
    /// that much (docs/ACCURACY.md).
    ConditionedUlps(f64),
}

/// One bullet of a complex section.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComplexRow {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    /// Id of the source document (one of the table's `sources`).
    pub source: String,
    /// Bullet number within the function's complex section (1-based).
    pub bullet: u32,
    /// The bullet's text, as the source states it.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// When the row applies.
    pub when: ComplexCondition,
    /// Rows (by id) whose inputs this row's generator leaves out: "in the remaining cases".
    #[serde(default)]
    pub unless: Vec<String>,
    /// What the result must be.
    pub result: ComplexResult,
}

/// Conditions on the operands' components; every listed one must hold.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComplexCondition {
    /// `real(x1)` (`real(x)` of a one-operand function).
    #[serde(default)]
    pub a: Classes,
    /// `imag(x1)`.
    #[serde(default)]
    pub b: Classes,
    /// `real(x2)`.
    #[serde(default)]
    pub c: Classes,
    /// `imag(x2)`.
    #[serde(default)]
    pub d: Classes,
    /// At least one component is in this class ("if a, b, c, or d is NaN").
    #[serde(default)]
    pub either: Option<Class>,
}

impl ComplexCondition {
    /// The classes of component `k` (0 = a, 1 = b, 2 = c, 3 = d).
    pub fn component(&self, k: usize) -> &[Class] {
        match k {
            0 => &self.a.0,
            1 => &self.b.0,
            2 => &self.c.0,
            _ => &self.d.0,
        }
    }
}

/// A component of the operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Component {
    A,
    B,
    C,
    D,
}

impl Component {
    /// Its index among `a, b, c, d`.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The imaginary component of operand 1 (`b`) or 2 (`d`).
    pub fn imaginary_of(operand: usize) -> Component {
        if operand == 1 { Component::B } else { Component::D }
    }
}

/// What one real value of a result must be.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Any NaN.
    Nan,
    PosZero,
    NegZero,
    /// A zero of either sign ("the sign ... is unspecified", or "0" without a sign).
    Zero,
    PosInfinity,
    NegInfinity,
    /// An infinity of either sign.
    Infinity,
    /// This value exactly (it must be representable).
    Value(f64),
    /// The named constant, correctly rounded or one step from it.
    Approx(NamedConstant),
    /// `abs` of the component, bit for bit (any NaN where the component is NaN).
    AbsOf(Component),
    /// The component itself, bit for bit (any NaN where it is NaN).
    Of(Component),
    /// The component negated, bit for bit (any NaN where it is NaN).
    Negated(Component),
    /// The function's real-valued result on the two components (`a + c`, `a * d`), as the
    /// oracle computes it for the real dtype: the real special cases apply to each part.
    RealOp(Component, Component),
    /// `+infinity * cos(v)`: an infinity with the sign of `cos(v)` (`+infinity * cis(v)`).
    InfinityTimesCos(Component),
    /// `+infinity * sin(v)`.
    InfinityTimesSin(Component),
    /// `+0 * cos(v)`: a zero with the sign of `cos(v)`.
    ZeroTimesCos(Component),
    /// `+0 * sin(v)`: a zero with the sign of `sin(v)`.
    ZeroTimesSin(Component),
    /// Any value (a component the row says nothing about).
    Any,
    /// Any of the listed parts ("`NaN ± πj/2`").
    AnyOf(Vec<Part>),
}

/// What a row's result must be.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComplexResult {
    /// A complex result: `[real part, imaginary part]`.
    Complex(Box<[Part; 2]>),
    /// A real result (`abs`).
    Real(Part),
    /// A boolean result (`equal`, the predicates).
    Boolean(bool),
    /// The oracle's result, judged by the table's `accuracy`.
    Reference,
    /// Whatever the adapter returns ("the result is implementation dependent"): the check
    /// demands only a result of the right dtype and shape.
    Unspecified,
}

/// A statement that gives each part of the result as an operand's component or a real
/// operation on two components, checked bit for bit on operands of every class.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentRule {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    pub source: String,
    /// The statement, quoted (a sentence, or a cell of the document's component table).
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// The operand (1 or 2) that is a real-valued array of the parts' dtype (`f32` beside
    /// `c64`), where the rule is one for a real operand: its imaginary component does not
    /// exist.
    #[serde(default)]
    pub real_operand: Option<usize>,
    /// The result, stated with `of`, `negated` and `real_op` parts.
    pub result: ComplexResult,
}

impl ComponentRule {
    /// The component the real operand lacks (`b` for `x1`, `d` for `x2`).
    pub fn absent(&self) -> Option<Component> {
        self.real_operand.map(Component::imaginary_of)
    }
}

/// A stated property of the function's complex results.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComplexProperty {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    pub source: String,
    /// The statement, quoted.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    pub rule: Delegation,
}

/// How a function's complex special cases follow another's.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delegation {
    /// `op(x) = -1j * other(x*1j)`.
    MinusITimesOfITimes(String),
    /// `op(x) = other(x*1j)`.
    OfITimes(String),
    /// `op(x) = multiply(x, x)`.
    SelfProduct,
    /// `op(conj(x)) = conj(op(x))`.
    Conjugate,
    /// `op(x) = log(x) / log(base)`, the change of base formula (`log2`, `log10`).
    ChangeOfBase(u32),
    /// `op(x) = 1.0 / x`, complex division of `1 + 0j` by `x` (`reciprocal`).
    OneOver,
}

/// The operation a complex table specifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComplexOp {
    Unary(UnaryOp),
    Binary(BinaryOp),
}

impl ComplexOp {
    /// The number of complex operands.
    pub fn arity(self) -> usize {
        match self {
            ComplexOp::Unary(_) => 1,
            ComplexOp::Binary(_) => 2,
        }
    }
}

/// A complex table with where it came from and its parsed operation and dtypes.
#[derive(Debug)]
pub struct LoadedComplex {
    pub loaded: Loaded<ComplexTable>,
    pub op: ComplexOp,
    pub dtypes: Vec<DType>,
}

/// Parses and validates the complex table at `path`.
pub fn load_complex(path: &Path, text: &str) -> Result<LoadedComplex, LoadError> {
    let table: ComplexTable = parse_yaml(path, text)?;
    let field = |name: &str, message: String| LoadError::in_field(path, name, message);
    let op = if let Ok(u) = table.op.parse::<UnaryOp>() {
        ComplexOp::Unary(u)
    } else if let Ok(b) = table.op.parse::<BinaryOp>() {
        ComplexOp::Binary(b)
    } else {
        return Err(field("op", format!("`{}` is not an element-wise operation", table.op)));
    };
    let mut dtypes = Vec::new();
    for (i, d) in table.dtypes.iter().enumerate() {
        let dtype = d.parse::<DType>().map_err(|e| field(&format!("dtypes[{i}]"), e))?;
        if !dtype.is_complex() || dtypes.contains(&dtype) {
            return Err(field(
                &format!("dtypes[{i}]"),
                format!("`{d}` is not a new complex dtype (c64, c128)"),
            ));
        }
        dtypes.push(dtype);
    }
    if dtypes.is_empty() {
        return Err(field("dtypes", "list at least one complex dtype".into()));
    }
    if matches!(table.accuracy, Some(ComplexAccuracy::ConditionedUlps(_)))
        && op != ComplexOp::Binary(BinaryOp::Pow)
    {
        return Err(field("accuracy", "`conditioned_ulps` is pow's bound".into()));
    }
    let sources: Vec<&str> = table.sources.iter().map(|s| s.id.as_str()).collect();
    if let Some(textbook) = &table.textbook {
        if !matches!(op, ComplexOp::Binary(BinaryOp::Multiply | BinaryOp::Divide)) {
            return Err(field("textbook", "a textbook formula is multiply's or divide's".into()));
        }
        if textbook.tier == super::authority::Tier::Quality {
            return Err(field("textbook.tier", "the document's sentence is a `must` or a `should`".into()));
        }
        if !sources.contains(&textbook.source.as_str()) {
            return Err(field(
                "textbook.source",
                format!("`{}` is not one of the table's sources", textbook.source),
            ));
        }
    }
    // Every row, property and rule names a check of its own, beside `random`.
    let mut ids = vec!["random".to_string()];
    let mut claim = |at: &str, id: &str, source: &str| -> Result<(), LoadError> {
        if !is_valid_id(id) || ids.iter().any(|taken| taken == id) {
            return Err(field(
                &format!("{at}.id"),
                format!("`{id}` is not a new permanent id (lowercase, digits, `-`)"),
            ));
        }
        if !sources.contains(&source) {
            return Err(field(
                &format!("{at}.source"),
                format!("`{source}` is not one of the table's sources"),
            ));
        }
        ids.push(id.to_string());
        Ok(())
    };
    for (i, row) in table.rows.iter().enumerate() {
        let here = |f: &str| format!("rows[{i}].{f}");
        let id = row.id.value.as_str();
        claim(&format!("rows[{i}]"), id, &row.source)?;
        let bullets = table.sources.iter().find(|s| s.id == row.source).and_then(|s| s.bullets);
        if row.bullet == 0 || bullets.is_some_and(|n| row.bullet > n) {
            return Err(field(&here("bullet"), format!("bullet {} is not in the section", row.bullet)));
        }
        if op.arity() == 1 && (!row.when.c.0.is_empty() || !row.when.d.0.is_empty()) {
            return Err(field(&here("when"), "a one-operand function has components a and b only".into()));
        }
        for other in &row.unless {
            if !table.rows.iter().any(|r| &r.id.value == other) || other == id {
                return Err(field(&here("unless"), format!("`{other}` is not another row of the table")));
            }
        }
        if row.result == ComplexResult::Reference && table.accuracy.is_none() {
            return Err(field(&here("result"), "`reference` needs the table's `accuracy`".into()));
        }
        check_parts(&row.result, op.arity()).map_err(|m| field(&here("result"), m))?;
    }
    for (i, p) in table.properties.iter().enumerate() {
        claim(&format!("properties[{i}]"), &p.id.value, &p.source)?;
        if let Delegation::ChangeOfBase(base @ 0..=1) = p.rule {
            return Err(field(
                &format!("properties[{i}].rule"),
                format!("a logarithm's base is at least 2, not {base}"),
            ));
        }
        if let Delegation::MinusITimesOfITimes(other) | Delegation::OfITimes(other) = &p.rule
            && other.parse::<UnaryOp>().is_err()
        {
            return Err(field(
                &format!("properties[{i}].rule"),
                format!("`{other}` is not a unary operation"),
            ));
        }
    }
    for (i, rule) in table.component_rules.iter().enumerate() {
        let here = |f: &str| format!("component_rules[{i}].{f}");
        claim(&format!("component_rules[{i}]"), &rule.id.value, &rule.source)?;
        if let Some(k) = rule.real_operand
            && (op.arity() != 2 || !(1..=2).contains(&k))
        {
            return Err(field(
                &here("real_operand"),
                format!("operand {k} is not an operand of a two-operand function"),
            ));
        }
        if !matches!(rule.result, ComplexResult::Complex(_) | ComplexResult::Real(_)) {
            return Err(field(&here("result"), "a component rule states a complex or a real result".into()));
        }
        check_parts(&rule.result, op.arity()).map_err(|m| field(&here("result"), m))?;
        let named = named_components(&rule.result);
        if let Some(absent) = rule.absent()
            && named.contains(&absent)
        {
            return Err(field(
                &here("result"),
                format!("{absent:?} is the real operand's absent imaginary component"),
            ));
        }
    }
    let key = super::key_of(path);
    Ok(LoadedComplex { loaded: Loaded { path: path.to_path_buf(), key, table }, op, dtypes })
}

/// A result's parts, with the options of `any_of` in place of it.
fn parts(result: &ComplexResult) -> Vec<&Part> {
    let parts: &[Part] = match result {
        ComplexResult::Complex(parts) => &parts[..],
        ComplexResult::Real(part) => std::slice::from_ref(part),
        _ => &[],
    };
    let mut flat: Vec<&Part> = Vec::new();
    for part in parts {
        match part {
            Part::AnyOf(options) => flat.extend(options),
            _ => flat.push(part),
        }
    }
    flat
}

/// The components a result's parts name.
fn named_components(result: &ComplexResult) -> Vec<Component> {
    parts(result)
        .into_iter()
        .flat_map(|part| match *part {
            Part::AbsOf(c)
            | Part::Of(c)
            | Part::Negated(c)
            | Part::InfinityTimesCos(c)
            | Part::InfinityTimesSin(c)
            | Part::ZeroTimesCos(c)
            | Part::ZeroTimesSin(c) => vec![c],
            Part::RealOp(x, y) => vec![x, y],
            _ => Vec::new(),
        })
        .collect()
}

/// A result's parts name components the operation has (and `real_op` two operands).
fn check_parts(result: &ComplexResult, arity: usize) -> Result<(), String> {
    if arity == 1 && parts(result).iter().any(|p| matches!(p, Part::RealOp(..))) {
        return Err("`real_op` needs a two-operand function".into());
    }
    match named_components(result).into_iter().find(|c| c.index() >= 2 * arity) {
        Some(c) => Err(format!("{c:?} is not a component of a {arity}-operand function")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADD: &str = include_str!("../../specs/complex/add.yaml");
    const CONJ: &str = include_str!("../../specs/complex/conj.yaml");

    fn load(text: &str) -> Result<LoadedComplex, LoadError> {
        let path = Path::new("specs/complex/add.yaml");
        load_complex(path, text).map_err(|e| e.located(text))
    }

    #[test]
    fn component_rules_load() {
        let add = load(ADD).unwrap();
        let rules = &add.loaded.table.component_rules;
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].absent(), Some(Component::B));
        let parts = [Part::RealOp(Component::A, Component::C), Part::Of(Component::D)];
        assert_eq!(rules[0].result, ComplexResult::Complex(Box::new(parts)));
        let conj = load(CONJ).unwrap();
        assert_eq!(conj.loaded.table.component_rules[0].absent(), None);
    }

    #[test]
    fn a_rule_may_not_name_the_real_operands_absent_component() {
        let text = ADD.replacen("{real_op: [a, c]}, {of: d}", "{real_op: [a, c]}, {of: b}", 1);
        let err = load(&text).unwrap_err().to_string();
        assert!(err.contains("component_rules[0].result") && err.contains("absent imaginary"), "{err}");
        let line = text.lines().position(|l| l.contains("{of: b}")).unwrap() + 1;
        assert!(err.contains(&format!(":{line}:")), "{err}");
    }

    #[test]
    fn every_check_id_is_new_and_every_source_listed() {
        // `random` is the table's own check; a rule may not take its id.
        let err = load(&CONJ.replacen("id: definition", "id: random", 1)).unwrap_err().to_string();
        assert!(err.contains("component_rules[0].id") && err.contains("`random`"), "{err}");
        let err = load(&CONJ.replacen("    source: array-api\n    text", "    source: numpy\n    text", 1))
            .unwrap_err()
            .to_string();
        assert!(err.contains("component_rules[0].source") && err.contains("`numpy`"), "{err}");
    }

    #[test]
    fn a_real_operand_is_one_of_two() {
        let text = ADD.replacen("real_operand: 1", "real_operand: 3", 1);
        let err = load(&text).unwrap_err().to_string();
        assert!(err.contains("component_rules[0].real_operand"), "{err}");
        let text = CONJ.replacen("    result:", "    real_operand: 1\n    result:", 1);
        let err = load(&text).unwrap_err().to_string();
        assert!(err.contains("not an operand of a two-operand function"), "{err}");
        let text = CONJ.replacen("{negated: b}", "{real_op: [a, b]}", 1);
        assert!(load(&text).unwrap_err().to_string().contains("`real_op` needs a two-operand function"));
    }
}
