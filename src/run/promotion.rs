//! Promotion tables: each literal case is one adapter call whose result dtype and values are
//! compared exactly with the table.

use std::sync::Arc;

use opspec_adapter::{Adapter, BinaryOp, DType, OpKind, Scalar, ScalarSide, Support, Tensor};

use super::call::{apply, guarded};
use super::check::{Check, CheckId, PromotionTarget, RunOptions, Target};
use super::record::{Failure, Recorder, Repro, citation};
use crate::bits::format::Format;
use crate::bits::value::{Domain, IntFormat};
use crate::results::{CheckResult, Citation};
use crate::spec::promotion::{Literal, Operand, literal_bits};
use crate::spec::{Catalog, LoadedPromotion, LoadedSuite};

/// The checks of `suite`'s promotion tables against `adapter`: one per literal case, with the
/// case's operand dtypes (or `int`/`float` for a Python scalar) joined by `+` as the dtype.
pub fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    for &t in &suite.promotions {
        for (c, case) in catalog.promotions[t].table.cases.iter().enumerate() {
            if case.op.parse::<BinaryOp>().is_err() {
                continue;
            }
            let dtype = format!("{}+{}", case.x1.label(), case.x2.label());
            checks.push(Check {
                id: CheckId::adapter(&suite.suite.name, adapter, &case.op, &dtype, &case.id.value),
                // Each operand's dtype must be supported: `skip_reason` asks for every one.
                needs: None,
                target: Target::Promotion(PromotionTarget { table: t, case: c }),
                planned: Some(1),
            });
        }
    }
    checks
}

/// Why `adapter` cannot run a case: a tensor operand's dtype it does not support for the
/// operation (with a Python scalar, in its scalar form); a mixed or real-complex case names
/// two dtypes, and either may be missing.
pub fn skip_reason(catalog: &Catalog, target: &PromotionTarget, adapter: &dyn Adapter) -> Option<String> {
    let case = &catalog.promotions[target.table].table.cases[target.case];
    let op: BinaryOp = case.op.parse().ok()?;
    let (_, scalar) = tensor_and_scalar(&case.x1, &case.x2);
    let kind = if scalar.is_some() { OpKind::BinaryScalar(op) } else { OpKind::Binary(op) };
    [&case.x1, &case.x2].into_iter().find_map(|o| match o {
        Operand::Tensor(l) => match adapter.supports(kind, l.dtype.parse().ok()?) {
            Support::Unsupported(reason) => Some(reason),
            Support::Supported => None,
        },
        _ => None,
    })
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
    result.citation = Some(case_citation(table, target.case));
    let op: BinaryOp = case.op.parse()?;
    let tensor = |o: &Operand| match o {
        Operand::Tensor(l) => tensor_of(l).map(Some),
        _ => Ok(None),
    };
    let (a, b) = (tensor(&case.x1)?, tensor(&case.x2)?);
    let (_, scalar) = tensor_and_scalar(&case.x1, &case.x2);
    let expected = tensor_of(&case.result)?;
    let (adapter, out) = (Arc::clone(adapter), expected.dtype());
    let returned = guarded(options.timeout, move || match (a, b, scalar) {
        (Some(a), Some(b), _) => apply(adapter.as_ref(), OpKind::Binary(op), &[a, b], out),
        (Some(t), None, Some((s, side))) | (None, Some(t), Some((s, side))) => {
            adapter.binary_scalar(op, &t, s, side)
        }
        _ => Err(opspec_adapter::AdapterError::unsupported("a case needs a tensor operand")),
    })?
    .map_err(|e| format!("the adapter returned an error: {e}"))?;
    let mut rec = Recorder::new(result, options);
    rec.checked(1);
    let mismatch = if returned.dtype() != expected.dtype() {
        Some(format!("dtype {}", returned.dtype()))
    } else if returned.shape() != expected.shape()
        || returned.to_contiguous().buffer() != expected.to_contiguous().buffer()
    {
        Some(format!("{} with shape {:?}", values_text(&returned), returned.shape()))
    } else {
        None
    };
    if let Some(actual) = mismatch {
        rec.fail(1, || Failure {
            inputs: vec![format!("x1 = {:?}", case.x1), format!("x2 = {:?}", case.x2)],
            expected: format!(
                "dtype {}, {} with shape {:?}",
                expected.dtype(),
                values_text(&expected),
                expected.shape()
            ),
            actual,
            steps: None,
            actual_bits: None,
            batch: None,
            repro: Repro::Check,
        });
        rec.result.message = "the result's dtype or values differ from the table".into();
    }
    Ok(())
}

/// The literal as a tensor; its numbers must be exact in its dtype (a complex dtype's are real
/// parts, with +0 imaginary parts).
fn tensor_of(l: &Literal) -> Result<Tensor, String> {
    let dtype: DType = l.dtype.parse()?;
    let (shape, values) = l.values.flatten()?;
    let bits = values
        .iter()
        .map(|&v| literal_bits(dtype, v).ok_or_else(|| format!("{v} is not exactly a {dtype} value")))
        .collect::<Result<Vec<_>, _>>()?;
    let tensor = if dtype.is_complex() {
        let pairs: Vec<[u64; 2]> = bits.iter().map(|&re| [re, 0]).collect();
        Tensor::from_pairs(dtype, &shape, &pairs)
    } else {
        Tensor::from_bits(dtype, &shape, &bits)
    };
    tensor.map_err(|e| e.to_string())
}

/// The elements of `t` as text: decimal numbers, `true`/`false`, or `re+imj` for complex ones.
fn values_text(t: &Tensor) -> String {
    let text = |d: DType, x: u64| match Domain::of(d) {
        Domain::Float(f) => Format::decimal(f, x),
        Domain::Int(i) => IntFormat::value(i, x).to_string(),
        Domain::Bool => (x != 0).to_string(),
    };
    let shown: Vec<String> = match (t.dtype().component(), t.to_pairs()) {
        (Some(part), Ok(pairs)) => {
            let signed = |s: String| if s.starts_with('-') { s } else { format!("+{s}") };
            pairs.iter().map(|&[re, im]| format!("{}{}j", text(part, re), signed(text(part, im)))).collect()
        }
        _ => t.to_bits().iter().map(|&x| text(t.dtype(), x)).collect(),
    };
    format!("[{}]", shown.join(", "))
}

fn case_citation(table: &LoadedPromotion, case: usize) -> Citation {
    let c = &table.table.cases[case];
    let title = table.table.sources.iter().find(|s| s.id == c.source).map_or(c.source.as_str(), |s| &s.title);
    citation(&table.key, &c.id, &table.path, title, "", c.text.clone())
}
