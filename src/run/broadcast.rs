//! Broadcasting tables: planning their checks and running their vectors (the values under
//! broadcasting are in `broadcast_values`).
//!
//! - Vector checks run one literal vector of a table: against the oracle (the table's self-check,
//!   `table:<table>:-:<vector>`), or against an adapter (`<suite>:<adapter>:<table>:-:<vector>`):
//!   numpy vectors through every binary operation and float dtype the adapter supports (result
//!   shape, or a shape-mismatch error, and every value), named vectors through the adapter's
//!   checker.
//! - Value checks (`<suite>:<adapter>:<op>:<dtype>:<case>`) run an element-wise operation on
//!   broadcast operands and compare every element, bit for bit, with the table's expectation
//!   for the explicitly expanded operands: generated NumPy shapes on contiguous operands
//!   (`broadcast-random`) and on strided views (`broadcast-strided`), and named tensors lined up
//!   by the order rule (`named-vectors`, `named-permutation`, `named-swap`).

use std::sync::Arc;

use opspec_adapter::{
    Adapter, AdapterError, Alignment, BinaryOp, Checked, DType, NamedOp, OpKind, Operand, Support, shape_text,
};

use super::call::guarded;
use super::check::{BroadcastTarget, Check, CheckId, NO_DTYPE, RunOptions, Target, ValueCases};
use super::elementwise::broadcast_values::{ValueCheck, fail_shape};
use super::record::{Recorder, citation};
use crate::bits::format::Format;
use crate::generate::Generator;
use crate::oracle::broadcast as oracle;
use crate::results::{CheckResult, Citation};
use crate::spec::broadcast::{Case, LoadedBroadcastTable, NamedExpect};
use crate::spec::schema::Accuracy;
use crate::spec::{Catalog, LoadedSuite};

/// The broadcasting checks of `suite` against `adapter`.
pub fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let name = &suite.suite.name;
    let mut checks = Vec::new();
    let mut cases = Vec::new();
    for &b in &suite.broadcasting {
        let table = &catalog.broadcasting[b];
        for (v, vector) in table.table.vectors.iter().enumerate() {
            // A named vector is one checker question; a NumPy vector's inputs depend on the
            // dtypes the adapter supports.
            let planned = matches!(table.cases[v], Case::Named { .. }).then_some(1);
            checks.push(Check {
                id: CheckId::adapter(name, adapter, &table.name, NO_DTYPE, &vector.id.value),
                needs: None,
                target: Target::Broadcast(BroadcastTarget::Vector { table: b, vector: v }),
                planned,
            });
        }
        for row in &table.table.value_checks {
            if !cases.contains(&row.case.value) {
                cases.push(row.case.value);
            }
        }
    }
    for (t, dtype) in binary_tables(catalog, suite) {
        let table = &catalog.elementwise[t];
        for &c in &cases {
            checks.push(Check {
                id: CheckId::adapter(name, adapter, &table.table.op, dtype.name(), c.name()),
                needs: Some((table.op, dtype)),
                target: Target::Broadcast(BroadcastTarget::Values { table: t, dtype, cases: c }),
                planned: None,
            });
        }
    }
    checks
}

/// Every (element-wise binary table, float dtype) pair a suite's broadcasting applies to: each
/// binary table of the catalog, in the suite's dtypes that the table lists.
fn binary_tables(catalog: &Catalog, suite: &LoadedSuite) -> Vec<(usize, DType)> {
    let mut pairs = Vec::new();
    for (t, table) in catalog.elementwise.iter().enumerate() {
        // An approximate operation can only be judged where the suite bounds its error.
        let judged =
            table.table.accuracy != Accuracy::Approximate || suite.suite.step_bounds.contains_key(&table.op);
        if !matches!(table.op, OpKind::Binary(_)) || !judged {
            continue;
        }
        for &dtype in &suite.dtypes {
            if Format::of(dtype).is_some() && table.table.dtypes.iter().any(|d| d == dtype.name()) {
                pairs.push((t, dtype));
            }
        }
    }
    pairs
}

/// The broadcasting tables' self-checks: every vector against the oracle. (A table's
/// coverage of its own rules, decisions and codes is checked when it loads.)
pub fn plan_tables(catalog: &Catalog) -> Vec<Check> {
    let mut checks = Vec::new();
    for (b, table) in catalog.broadcasting.iter().enumerate() {
        let targets = (0..table.table.vectors.len()).map(|v| {
            (table.table.vectors[v].id.value.clone(), BroadcastTarget::Vector { table: b, vector: v })
        });
        for (case, target) in targets {
            checks.push(Check {
                id: CheckId::table(&table.name, NO_DTYPE, &case),
                needs: None,
                planned: Some(1),
                target: Target::Broadcast(target),
            });
        }
    }
    checks
}

/// Runs a broadcasting check; `adapter` is `None` for a table self-check.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &BroadcastTarget,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let mut rec = Recorder::new(result, options);
    match (target, adapter) {
        (BroadcastTarget::Vector { table, vector }, None) => {
            let table = &catalog.broadcasting[*table];
            rec.result.citation = Some(vector_citation(table, *vector));
            vector_against_oracle(table, *vector, &mut rec);
            Ok(())
        }
        (BroadcastTarget::Vector { table, vector }, Some(adapter)) => {
            let table = &catalog.broadcasting[*table];
            rec.result.citation = Some(vector_citation(table, *vector));
            match &table.cases[*vector] {
                Case::Numpy { x, y, expect } => {
                    numpy_vector(catalog, check, x, y, expect.as_deref(), adapter, options, &mut rec)
                }
                Case::Named { op, operands, expect } => {
                    named_vector(*op, operands, expect, adapter, options, &mut rec)
                }
            }
        }
        (BroadcastTarget::Values { .. }, None) => Err("a value check needs an adapter".into()),
        (BroadcastTarget::Values { table, dtype, cases }, Some(adapter)) => {
            let suite = check.adapter_suite(catalog)?;
            let values = ValueCheck::new(catalog, suite, *table, *dtype, adapter, options)?;
            rec.result.citation = value_citation(catalog, suite, *cases);
            values.run(check, *cases, &mut rec)
        }
    }
}

/// Why `adapter` cannot take a broadcasting check, if it cannot: NumPy vectors need some
/// binary operation in the suite's dtypes, named vectors need a shape checker.
pub fn skip_reason(
    catalog: &Catalog,
    check: &Check,
    target: &BroadcastTarget,
    adapter: &dyn Adapter,
) -> Option<String> {
    if let BroadcastTarget::Values { cases, .. } = target
        && cases.is_named()
        && adapter.checker().is_none()
    {
        return Some(format!(
            "adapter `{}` has no named axes (no checker): named-tensor values do not apply",
            adapter.name()
        ));
    }
    let BroadcastTarget::Vector { table, vector } = target else { return None };
    match &catalog.broadcasting[*table].cases[*vector] {
        Case::Numpy { .. } => {
            let suite = check.suite(catalog)?;
            let any = vector_tables(catalog, suite)
                .into_iter()
                .any(|(t, dtype)| adapter.supports(catalog.elementwise[t].op, dtype) == Support::Supported);
            (!any).then(|| {
                format!(
                    "adapter `{}` supports {VECTOR_OP} in none of the suite's float dtypes",
                    adapter.name()
                )
            })
        }
        Case::Named { .. } => adapter
            .checker()
            .is_none()
            .then(|| format!("adapter `{}` answers no named-axis questions (no checker)", adapter.name())),
    }
}

fn vector_citation(table: &LoadedBroadcastTable, v: usize) -> Citation {
    let vector = &table.table.vectors[v];
    let mut text: Vec<String> =
        vector.rules.iter().filter_map(|r| table.rule(r)).map(|r| sentence(&r.text)).collect();
    if let Some(example) = &vector.example {
        text.push(format!("Example: {example}"));
    }
    if let Some(d) = vector.decision.as_deref().and_then(|d| table.decision(d)) {
        text.push(format!("Decision `{}`: {}", d.id.value, d.decision));
    }
    let first = vector.rules.first().and_then(|r| table.rule(r));
    let source = first.map_or(String::new(), |r| {
        let title =
            table.table.sources.iter().find(|s| s.id == r.source).map_or(r.source.as_str(), |s| &s.title);
        format!("{title}, {}", r.section)
    });
    citation(&table.name, &vector.id, &table.path, &source, "", text.join(" "))
}

/// The citation of a value check: the rules the first of the suite's tables that declares it
/// lists for it (`value_checks:`).
fn value_citation(catalog: &Catalog, suite: &LoadedSuite, cases: ValueCases) -> Option<Citation> {
    let (table, row) = suite
        .broadcasting
        .iter()
        .map(|&b| &catalog.broadcasting[b])
        .find_map(|t| t.table.value_checks.iter().find(|r| r.case.value == cases).map(|row| (t, row)))?;
    // The loader made sure every rule named exists.
    let found: Vec<_> = row.rules.iter().filter_map(|r| table.rule(r)).collect();
    let first = found.first()?;
    let text = found.iter().map(|r| sentence(&r.text)).collect::<Vec<_>>().join(" ");
    let mut c = citation(&table.name, &first.id, &table.path, &table.table.title, &first.section, text);
    c.row = format!("{}/{}", table.name, cases.name());
    Some(c)
}

/// A rule's text as a sentence (the NumPy bullets have no full stop).
fn sentence(text: &str) -> String {
    if text.ends_with(['.', ')', '?', '!']) { text.to_string() } else { format!("{text}.") }
}

/// `real:f16 [n=3 D=6]`.
fn describe_operand(o: &Operand) -> String {
    let dtype = o.dtype.map_or(String::new(), |d| format!(":{d}"));
    format!("{}{dtype} {}", o.kind, shape_text(&o.shape))
}

fn describe_alignment(align: &Alignment) -> String {
    let parts: Vec<String> = align.iter().map(|a| a.map_or("_".to_string(), |j| j.to_string())).collect();
    format!("[{}]", parts.join(" "))
}

fn describe_checked(c: &Checked) -> String {
    let mut text = format!("{} {}", c.kind, shape_text(&c.shape));
    if let Some(align) = &c.alignment {
        let parts: Vec<String> = align.iter().map(describe_alignment).collect();
        text += &format!(", operands lined up as {}", parts.join(" and "));
    }
    text
}

fn describe_expect(e: &NamedExpect) -> String {
    match e {
        NamedExpect::Error(code) => format!("error {code}"),
        NamedExpect::Result { shape, kinds, alignment } => {
            let kind = match kinds {
                Some(k) => k.iter().map(|k| k.name()).collect::<Vec<_>>().join(" or "),
                None => "any kind".to_string(),
            };
            let mut text = format!("{kind} {}", shape_text(shape));
            if let Some(align) = alignment {
                let parts: Vec<String> = align.iter().map(describe_alignment).collect();
                text += &format!(", operands lined up as {}", parts.join(" and "));
            }
            text
        }
    }
}

/// Where `actual` departs from `expect`, if it does.
fn named_mismatch(expect: &NamedExpect, actual: &Result<Checked, AdapterError>) -> Option<String> {
    match (expect, actual) {
        (NamedExpect::Result { shape, kinds, alignment }, Ok(c)) => {
            let kind_ok = kinds.as_ref().is_none_or(|k| k.contains(&c.kind));
            let align_ok = alignment.as_ref().is_none_or(|a| c.alignment.as_ref() == Some(a));
            (c.shape != *shape || !kind_ok || !align_ok).then(|| describe_checked(c))
        }
        (NamedExpect::Result { .. }, Err(e)) => Some(format!("error {e}")),
        (NamedExpect::Error(_), Ok(c)) => Some(describe_checked(c)),
        (NamedExpect::Error(code), Err(e)) => (e.code.as_deref() != Some(code)).then(|| format!("error {e}")),
    }
}

fn vector_against_oracle(table: &LoadedBroadcastTable, v: usize, rec: &mut Recorder) {
    rec.checked(1);
    match &table.cases[v] {
        Case::Numpy { x, y, expect } => {
            let actual = oracle::numpy_shape(x, y);
            if actual != *expect {
                let show = |s: &Option<Vec<usize>>| {
                    s.as_ref().map_or("shape_mismatch".to_string(), |s| format!("{s:?}"))
                };
                fail_shape(
                    rec,
                    vec![format!("x = {x:?}"), format!("y = {y:?}")],
                    show(expect),
                    show(&actual),
                );
            }
        }
        Case::Named { op, operands, expect } => {
            let actual = oracle::check(*op, operands)
                .map_err(|code| opspec_adapter::named_axis_error(code, "the oracle's answer"));
            if let Some(got) = named_mismatch(expect, &actual) {
                fail_shape(rec, named_inputs(*op, operands), describe_expect(expect), got);
            }
        }
    }
    rec.finish("vectors");
}

fn named_inputs(op: NamedOp, operands: &[Operand]) -> Vec<String> {
    let mut inputs = vec![format!("operation: {op} ({})", op.symbol())];
    inputs.extend(operands.iter().zip(["x", "y"]).map(|(o, n)| format!("{n} = {}", describe_operand(o))));
    inputs
}

fn named_vector(
    op: NamedOp,
    operands: &[Operand],
    expect: &NamedExpect,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    rec: &mut Recorder,
) -> Result<(), String> {
    // `skip_reason` has made sure the adapter has a checker.
    let (a, owned) = (Arc::clone(adapter), operands.to_vec());
    let actual = guarded(options.timeout, move || match a.checker() {
        Some(checker) => checker.check(op, &owned),
        None => Err(AdapterError::unsupported("the adapter has no shape checker")),
    })?;
    rec.checked(1);
    if let Some(got) = named_mismatch(expect, &actual) {
        fail_shape(rec, named_inputs(op, operands), describe_expect(expect), got);
    }
    rec.finish("vectors");
    Ok(())
}

/// The operation a NumPy vector runs: one exact operation, so a value bug of some other
/// operation fails that operation's value checks, not every shape vector.
const VECTOR_OP: BinaryOp = BinaryOp::Add;

/// The (table, dtype) pairs a NumPy vector runs in: [`VECTOR_OP`] in each of the suite's float
/// dtypes.
fn vector_tables(catalog: &Catalog, suite: &LoadedSuite) -> Vec<(usize, DType)> {
    let add = OpKind::Binary(VECTOR_OP);
    binary_tables(catalog, suite).into_iter().filter(|&(t, _)| catalog.elementwise[t].op == add).collect()
}

/// A NumPy vector through [`VECTOR_OP`] in every float dtype of the suite that the adapter
/// supports: the result shape or the shape-mismatch error, and every value.
#[allow(clippy::too_many_arguments)] // the vector's parts, and where to run and record it
fn numpy_vector(
    catalog: &Catalog,
    check: &Check,
    x: &[usize],
    y: &[usize],
    expect: Option<&[usize]>,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    rec: &mut Recorder,
) -> Result<(), String> {
    let suite = check.adapter_suite(catalog)?;
    // `skip_reason` has made sure the adapter supports at least one pair.
    for (t, dtype) in vector_tables(catalog, suite) {
        if adapter.supports(catalog.elementwise[t].op, dtype) != Support::Supported {
            continue;
        }
        let values = ValueCheck::new(catalog, suite, t, dtype, adapter, options)?;
        let label = format!("{}:{}:{dtype}", check.id, values.op);
        let mut generator = Generator::new(values.seed, &label);
        let a = values.operand(&mut generator, x, false)?;
        let b = values.operand(&mut generator, y, false)?;
        values.call_numpy(&a, &b, expect, rec)?;
    }
    rec.finish("inputs");
    Ok(())
}
