//! Promotion tables (`specs/promotion/*.yaml`): literal cases that fix the result dtype (and
//! values) of binary operations on mixed dtypes and Python scalars.

use std::collections::HashSet;
use std::path::Path;

use opspec_adapter::{BinaryOp, DType};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::LoadError;
use super::limits::check_shape;
use super::load::is_valid_id;
use super::source::Source;
use crate::bits::value::Domain;

/// One promotion table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionTable {
    /// Short name (`array_api`, `megengine`).
    pub name: String,
    pub sources: Vec<Source>,
    pub cases: Vec<PromotionCase>,
}

/// A literal case: `op(x1, x2)` must give exactly `result`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionCase {
    /// Permanent id, unique in the table.
    pub id: Spanned<String>,
    /// Id of the source document.
    pub source: String,
    /// The rule or example, as the source states it.
    #[serde(deserialize_with = "crate::spec::source::quoted")]
    pub text: String,
    /// The binary operation (`add`, `multiply`, `divide`).
    pub op: String,
    pub x1: Operand,
    pub x2: Operand,
    pub result: Literal,
}

/// An operand: a tensor literal or a Python scalar.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operand {
    Tensor(Literal),
    PythonInt(i64),
    PythonFloat(f64),
}

/// A tensor literal: a dtype and nested lists of numbers (a bare number is rank 0).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Literal {
    pub dtype: String,
    pub values: Nested,
}

/// Nested lists of numbers.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Nested {
    Number(f64),
    List(Vec<Nested>),
}

impl Nested {
    /// The shape and the row-major values; an error for ragged lists.
    pub fn flatten(&self) -> Result<(Vec<usize>, Vec<f64>), String> {
        match self {
            Nested::Number(v) => Ok((vec![], vec![*v])),
            Nested::List(items) => {
                let mut shape = None;
                let mut values = Vec::new();
                for item in items {
                    let (s, v) = item.flatten()?;
                    if shape.get_or_insert_with(|| s.clone()) != &s {
                        return Err("ragged nested lists".into());
                    }
                    values.extend(v);
                }
                let mut full = vec![items.len()];
                full.extend(shape.unwrap_or_default());
                Ok((full, values))
            }
        }
    }
}

impl Operand {
    /// Short label for check ids: the tensor's dtype, or `int` / `float` for Python scalars.
    pub fn label(&self) -> String {
        match self {
            Operand::Tensor(l) => l.dtype.clone(),
            Operand::PythonInt(_) => "int".into(),
            Operand::PythonFloat(_) => "float".into(),
        }
    }
}

/// Checks ids, sources, operations, dtypes and literal shapes.
pub fn validate(file: &Path, table: &PromotionTable) -> Result<(), LoadError> {
    let sources: HashSet<&str> = table.sources.iter().map(|s| s.id.as_str()).collect();
    let mut seen = HashSet::new();
    for case in &table.cases {
        let err = |m: String| {
            LoadError::at_location(file, &case.id.referenced, format!("case `{}`: {m}", case.id.value))
        };
        if !is_valid_id(&case.id.value) {
            return Err(err("field `id`: use lower-case letters, digits and '-'".into()));
        }
        if !seen.insert(case.id.value.as_str()) {
            return Err(err("field `id`: duplicate case id".into()));
        }
        if !sources.contains(case.source.as_str()) {
            return Err(err(format!("field `source`: unknown source `{}`", case.source)));
        }
        case.op.parse::<BinaryOp>().map_err(|e| err(format!("field `op`: {e}")))?;
        let mut literals = vec![("result", &case.result)];
        for (name, operand) in [("x1", &case.x1), ("x2", &case.x2)] {
            if let Operand::Tensor(l) = operand {
                literals.push((name, l));
            }
        }
        if literals.len() == 1 {
            return Err(err("fields `x1`, `x2`: at least one operand must be a tensor".into()));
        }
        let mut shapes = Vec::new();
        for (name, l) in literals {
            let dtype = l.dtype.parse::<DType>().map_err(|e| err(format!("field `{name}.dtype`: {e}")))?;
            let (shape, values) =
                l.values.flatten().map_err(|e| err(format!("field `{name}.values`: {e}")))?;
            check_shape(&shape).map_err(|e| err(format!("field `{name}.values`: {e}")))?;
            if let Some(v) = values.iter().find(|&&v| literal_bits(dtype, v).is_none()) {
                return Err(err(format!("field `{name}.values`: {v} is not exactly a {dtype} value")));
            }
            shapes.push(shape);
        }
        // The result of a well-formed case has the operands' broadcast shape; otherwise the run
        // would blame the adapter for the table's mistake.
        let operands = shapes.split_off(1);
        let broadcast = operands.iter().try_fold(Vec::new(), |acc, s| super::load::broadcast_shape(&acc, s));
        match broadcast {
            None => return Err(err(format!("fields `x1`, `x2`: shapes {:?} do not broadcast", operands))),
            Some(b) if b != shapes[0] => {
                let m = format!(
                    "field `result.values`: shape {:?}, but the operands broadcast to {b:?}",
                    shapes[0]
                );
                return Err(err(m));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The bits of literal value `v` in `dtype` if it holds `v` exactly; for a complex dtype, the
/// bits of its real part (the imaginary part is +0).
pub fn literal_bits(dtype: DType, v: f64) -> Option<u64> {
    Domain::of(dtype.component().unwrap_or(dtype)).exact_bits(v)
}
