//! Promotion tables: each literal case is one adapter call whose result dtype and values are
//! compared exactly with the table.

use std::sync::Arc;

use opspec_adapter::{Adapter, BinaryOp, DType, OpKind, Scalar, ScalarSide, Tensor};

use super::RunOptions;
use super::call::guarded;
use super::plan::{Check, Target};
use super::result::{CaseFailure, CheckResult, Citation, Status};
use crate::format::Format;
use crate::spec::promotion::{Literal, Operand};
use crate::spec::{Catalog, LoadedPromotion};
use crate::value::{Domain, IntFormat};

/// A promotion check: one literal case of one promotion table.
#[derive(Clone, Copy, Debug)]
pub struct PromotionTarget {
    /// Index into [`Catalog::promotions`].
    pub table: usize,
    /// Index into the table's cases.
    pub case: usize,
}

/// The checks of suite `s`'s promotion tables against `adapter`.
pub fn plan_suite(catalog: &Catalog, s: usize, adapter: &str) -> Vec<Check> {
    let suite = &catalog.suites[s];
    let mut checks = Vec::new();
    for &t in &suite.promotions {
        for (c, case) in catalog.promotions[t].table.cases.iter().enumerate() {
            let Ok(op) = case.op.parse::<BinaryOp>() else { continue };
            let dtype = format!("{}+{}", case.x1.label(), case.x2.label());
            let (tensor, scalar) = tensor_and_scalar(&case.x1, &case.x2);
            let needs = tensor
                .and_then(|l| l.dtype.parse::<DType>().ok())
                .map(|d| (if scalar.is_some() { OpKind::BinaryScalar(op) } else { OpKind::Binary(op) }, d));
            checks.push(Check {
                id: format!("{}:{adapter}:{}:{dtype}:{}", suite.suite.name, case.op, case.id.value),
                suite: Some(s),
                adapter: Some(adapter.to_string()),
                op: case.op.clone(),
                dtype,
                case: case.id.value.clone(),
                needs,
                target: Target::Promotion(PromotionTarget { table: t, case: c }),
            });
        }
    }
    checks
}

/// The tensor literal of a case, and its scalar with the side it stands on, if it has one.
fn tensor_and_scalar<'a>(
    x1: &'a Operand,
    x2: &'a Operand,
) -> (Option<&'a Literal>, Option<(Scalar, ScalarSide)>) {
    let scalar = |o: &Operand| match o {
        Operand::PythonInt(i) => Some(Scalar::Int(*i)),
        Operand::PythonFloat(f) => Some(Scalar::Float(*f)),
        Operand::Tensor(_) => None,
    };
    match (x1, x2) {
        (Operand::Tensor(l), Operand::Tensor(_)) => (Some(l), None),
        (Operand::Tensor(l), other) => (Some(l), scalar(other).map(|s| (s, ScalarSide::Right))),
        (other, Operand::Tensor(l)) => (Some(l), scalar(other).map(|s| (s, ScalarSide::Left))),
        _ => (None, None),
    }
}

/// Runs one promotion case against `adapter`.
pub fn run(
    catalog: &Catalog,
    target: &PromotionTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.promotions[target.table];
    let case = &table.table.cases[target.case];
    result.citation = Some(citation(table, target.case));
    let op: BinaryOp = case.op.parse()?;
    let tensor = |o: &Operand| match o {
        Operand::Tensor(l) => tensor_of(l).map(Some),
        _ => Ok(None),
    };
    let (a, b) = (tensor(&case.x1)?, tensor(&case.x2)?);
    let (_, scalar) = tensor_and_scalar(&case.x1, &case.x2);
    let expected = tensor_of(&case.result)?;
    let adapter = Arc::clone(adapter);
    let returned = guarded(options.timeout, move || match (a, b, scalar) {
        (Some(a), Some(b), _) => adapter.binary(op, &a, &b),
        (Some(t), None, Some((s, side))) | (None, Some(t), Some((s, side))) => {
            adapter.binary_scalar(op, &t, s, side)
        }
        _ => Err(opspec_adapter::AdapterError::unsupported("a case needs a tensor operand")),
    })?
    .map_err(|e| format!("the adapter returned an error: {e}"))?;
    result.inputs = 1;
    let mismatch = if returned.dtype() != expected.dtype() {
        Some(format!("dtype {}", returned.dtype()))
    } else if returned.shape() != expected.shape() || returned.to_bits() != expected.to_bits() {
        Some(format!("{} with shape {:?}", values_text(&returned), returned.shape()))
    } else {
        None
    };
    if let Some(actual) = mismatch {
        result.status = Status::Fail;
        result.failed_inputs = 1;
        result.message = "the result's dtype or values differ from the table".into();
        result.failures.push(CaseFailure {
            inputs: vec![format!("x1 = {:?}", case.x1), format!("x2 = {:?}", case.x2)],
            expected: format!(
                "dtype {}, {} with shape {:?}",
                expected.dtype(),
                values_text(&expected),
                expected.shape()
            ),
            actual,
            ulp_distance: None,
            reproduce: format!("cargo test --release --test conformance -- --exact {}", result.id),
        });
    }
    Ok(())
}

/// The literal as a tensor; its numbers must be exact in its dtype.
fn tensor_of(l: &Literal) -> Result<Tensor, String> {
    let dtype: DType = l.dtype.parse()?;
    let (shape, values) = l.values.flatten()?;
    let bits = values
        .iter()
        .map(|&v| {
            let exact = match Domain::of(dtype) {
                Domain::Float(f) => f.from_f64_exact(v),
                Domain::Int(i) => (v.fract() == 0.0 && i.contains(v as i128)).then(|| i.wrap(v as i128)),
                Domain::Bool => (v == 0.0 || v == 1.0).then_some(v as u64),
            };
            exact.ok_or_else(|| format!("{v} is not exactly a {dtype} value"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Tensor::from_bits(dtype, &shape, &bits).map_err(|e| e.to_string())
}

fn values_text(t: &Tensor) -> String {
    let d = Domain::of(t.dtype());
    let shown: Vec<String> = t
        .to_bits()
        .iter()
        .map(|&x| match d {
            Domain::Float(f) => Format::decimal(f, x),
            Domain::Int(i) => IntFormat::value(i, x).to_string(),
            Domain::Bool => (x != 0).to_string(),
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

fn citation(table: &LoadedPromotion, case: usize) -> Citation {
    let c = &table.table.cases[case];
    let source = table.table.sources.iter().find(|s| s.id == c.source);
    Citation {
        row: format!("{}/{}", table.key, c.id.value),
        source: source.map_or(c.source.clone(), |s| s.title.clone()),
        text: c.text.clone(),
        location: format!("{}:{}", table.path.display(), c.id.referenced.line()),
    }
}
