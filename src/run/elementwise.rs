//! Element-wise tables: planning their checks and running them (generate inputs, compute
//! expectations, call the adapter once for the whole batch, compare).

use std::sync::Arc;

use opspec_adapter::{Adapter, DType, OpKind, Tensor};
use rayon::prelude::*;
use serde_saphyr::Spanned;

use super::call::guarded;
use super::plan::{Check, PropertyTarget, Target};
use super::result::{CaseFailure, CheckResult, Citation, Status};
use super::{RunOptions, integer};
use crate::check::{Expect, step_distance};
use crate::expect::Context;
use crate::format::Format;
use crate::generate::{Cases, Generator, edge_cases, random_cases, row_cases};
use crate::oracle::{high_precision, ulp_error};
use crate::spec::schema::Accuracy;
use crate::spec::suite::NanPolicy;
use crate::spec::{Catalog, LoadedTable};
use crate::value::Domain;

/// Which inputs a check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseSet {
    /// Inputs generated for one special-case row (index into the table's rows).
    Row(usize),
    /// Every combination of the format's edge values.
    Edges,
    /// Seeded random inputs.
    Random,
    /// A fused (ternary) operation given operands of different but broadcastable shapes,
    /// which it must refuse with a shape-mismatch error (seed 003: "All three tensors must
    /// have the same shape (no broadcasting)").
    NoBroadcast,
    /// A destination-passing operation's rules: a broadcast result into a fitting `out`, and
    /// a mismatched dtype, a mismatched shape and a non-contiguous `out`, which are errors
    /// that leave `out` unchanged.
    IntoRules,
}

/// Operand shapes a fused operation must refuse: each pair would broadcast, so an
/// implementation that silently broadcasts returns a result instead of an error.
const NO_BROADCAST_SHAPES: [[&[usize]; 3]; 5] = [
    [&[2, 3], &[2, 3], &[3]],
    [&[2, 3], &[1, 3], &[2, 3]],
    [&[2, 1], &[2, 3], &[2, 3]],
    [&[4], &[4], &[]],
    [&[1], &[3], &[3]],
];

/// An element-wise check: one case set of one table in one dtype.
#[derive(Clone, Copy, Debug)]
pub struct ElementwiseTarget {
    /// Index into [`Catalog::tables`].
    pub table: usize,
    pub dtype: DType,
    pub cases: CaseSet,
}

fn case_name(table: &LoadedTable, cases: CaseSet) -> String {
    match cases {
        CaseSet::Row(r) => table.table.rows[r].id.value.clone(),
        CaseSet::Edges => "edges".to_string(),
        CaseSet::Random => "random".to_string(),
        CaseSet::NoBroadcast => "no-broadcast".to_string(),
        CaseSet::IntoRules => "into-rules".to_string(),
    }
}

/// The checks of suite `s`'s element-wise tables against `adapter`.
pub fn plan_suite(catalog: &Catalog, s: usize, adapter: &str) -> Vec<Check> {
    let suite = &catalog.suites[s];
    let mut checks = Vec::new();
    for &t in &suite.tables {
        let table = &catalog.tables[t];
        for &dtype in suite.dtypes.iter().filter(|&&d| applies(catalog, t, d)) {
            // Rows and properties are conditions on floats; integers get edges and random.
            let float = dtype.is_float();
            let rows = (0..table.table.rows.len()).filter(|_| float).map(CaseSet::Row);
            let ternary = matches!(table.op, OpKind::Ternary(_)) && float;
            let into = matches!(table.op, OpKind::BinaryInto(_)) && float;
            let shape_rule = ternary.then_some(CaseSet::NoBroadcast).or(into.then_some(CaseSet::IntoRules));
            let sets = rows.chain([CaseSet::Edges, CaseSet::Random]).chain(shape_rule);
            let targets = sets
                .map(|cases| {
                    (
                        case_name(table, cases),
                        Target::Elementwise(ElementwiseTarget { table: t, dtype, cases }),
                    )
                })
                .chain(property_targets(table, t, dtype).filter(|_| float));
            for (case, target) in targets {
                checks.push(Check {
                    id: format!("{}:{adapter}:{}:{dtype}:{case}", suite.suite.name, table.table.op),
                    suite: Some(s),
                    adapter: Some(adapter.to_string()),
                    op: table.table.op.clone(),
                    dtype: dtype.name().to_string(),
                    case,
                    needs: Some((table.op, dtype)),
                    target,
                });
            }
        }
    }
    checks
}

/// The table's stated properties as (case name, target) pairs.
fn property_targets(
    table: &LoadedTable,
    t: usize,
    dtype: DType,
) -> impl Iterator<Item = (String, Target)> + '_ {
    table.table.properties.iter().enumerate().map(move |(property, p)| {
        (p.id.value.clone(), Target::Property(PropertyTarget { table: t, dtype, property }))
    })
}

/// One self-check per (table, dtype, row): the row's stated result must agree with the oracle
/// on the row's generated inputs, and so must every overlapping row.
pub fn plan_tables(catalog: &Catalog) -> Vec<Check> {
    let mut checks = Vec::new();
    for (t, table) in catalog.tables.iter().enumerate() {
        for dtype in
            table.table.dtypes.iter().filter_map(|d| d.parse::<DType>().ok()).filter(|d| d.is_float())
        {
            let rows = (0..table.table.rows.len()).map(|r| {
                let cases = CaseSet::Row(r);
                (case_name(table, cases), Target::Elementwise(ElementwiseTarget { table: t, dtype, cases }))
            });
            for (case, target) in rows.chain(property_targets(table, t, dtype)) {
                checks.push(Check {
                    id: format!("table:{}:{dtype}:{case}", table.table.op),
                    suite: None,
                    adapter: None,
                    op: table.table.op.clone(),
                    dtype: dtype.name().to_string(),
                    case,
                    needs: None,
                    target,
                });
            }
        }
    }
    checks
}

/// Whether table `t` is checked in `dtype`: the table lists it.
fn applies(catalog: &Catalog, t: usize, dtype: DType) -> bool {
    catalog.tables[t].table.dtypes.iter().any(|d| d == dtype.name())
}

/// Runs an element-wise check; `adapter` is `None` for a table self-check.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &ElementwiseTarget,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[target.table];
    result.citation = citation(table, target.cases);
    match adapter {
        None => check_table(catalog, check, target, options, result),
        Some(adapter) if target.cases == CaseSet::NoBroadcast => {
            check_no_broadcast(table, target.dtype, adapter, options, result)
        }
        Some(adapter) if target.cases == CaseSet::IntoRules => {
            super::into::check_into_rules(table, target.dtype, adapter, options, result)
        }
        Some(adapter) if !target.dtype.is_float() => {
            integer::run(catalog, check, target, adapter, options, result)
        }
        Some(adapter) => check_adapter(catalog, check, target, adapter, options, result),
    }
}

fn citation(table: &LoadedTable, cases: CaseSet) -> Option<Citation> {
    let CaseSet::Row(r) = cases else { return None };
    let row = &table.table.rows[r];
    Some(cite(table, &row.id, &row.source, row.bullet, &row.text))
}

/// The citation of a row or stated property of `table`.
pub(super) fn cite(
    table: &LoadedTable,
    id: &Spanned<String>,
    source: &str,
    bullet: u32,
    text: &str,
) -> Citation {
    let title = table.table.sources.iter().find(|s| s.id == source).map_or(source, |s| s.title.as_str());
    Citation {
        row: format!("{}/{}", table.table.op, id.value),
        source: format!("{title}, {} bullet {bullet}", table.table.op),
        text: text.to_string(),
        location: format!("{}:{}", table.path.display(), id.referenced.line()),
    }
}

/// A fused operation on operands of mismatched (broadcastable) shapes must fail with a
/// shape-mismatch error; a result, another error kind or a panic fails the check.
fn check_no_broadcast(
    table: &LoadedTable,
    dtype: DType,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let OpKind::Ternary(op) = table.op else {
        return Err(format!("{} is not a fused operation", table.table.op));
    };
    let mut problems = Vec::new();
    for shapes in NO_BROADCAST_SHAPES {
        let operands = shapes
            .iter()
            .map(|s| Tensor::zeros(dtype, s).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        let adapter = Arc::clone(adapter);
        let returned =
            guarded(options.timeout, move || adapter.ternary(op, &operands[0], &operands[1], &operands[2]));
        let shown = format!("{op}(x1: {:?}, x2: {:?}, x3: {:?})", shapes[0], shapes[1], shapes[2]);
        match returned {
            Ok(Err(e)) if e.kind == opspec_adapter::ErrorKind::ShapeMismatch => {}
            Ok(Err(e)) => problems.push(format!("{shown} failed with {e}, expected a shape_mismatch error")),
            Ok(Ok(t)) => problems.push(format!(
                "{shown} returned a result of shape {:?}: the operands were broadcast, but all three must have the same shape",
                t.shape()
            )),
            Err(e) => problems.push(format!("{shown}: {e}")),
        }
    }
    result.inputs = NO_BROADCAST_SHAPES.len();
    result.failed_inputs = problems.len();
    if !problems.is_empty() {
        result.status = Status::Fail;
        result.message = format!(
            "seed 003 says \"All three tensors must have the same shape (no broadcasting)\"; {}",
            problems.join("; ")
        );
    }
    Ok(())
}

/// Inputs for a check, with the per-check seed derived from `seed` and the check id.
fn generate(
    table: &LoadedTable,
    check: &Check,
    target: &ElementwiseTarget,
    f: Format,
    n_row: usize,
    n_random: usize,
    seed: u64,
) -> Result<Cases, String> {
    let arity = table.table.operands.len();
    let mut generator = Generator::new(seed, &check.id);
    match target.cases {
        CaseSet::Row(r) => row_cases(&table.table, r, f, n_row, &mut generator),
        CaseSet::Edges => Ok(edge_cases(f, arity)),
        CaseSet::Random => random_cases(f, arity, n_random, &mut generator),
        CaseSet::NoBroadcast | CaseSet::IntoRules => {
            Err(format!("the {} check has no element inputs", case_name(table, target.cases)))
        }
    }
}

fn context<'a>(catalog: &'a Catalog, check: &Check, target: &ElementwiseTarget, f: Format) -> Context<'a> {
    let suite = check.suite.map(|s| &catalog.suites[s].suite);
    Context::new(&catalog.tables[target.table], suite, f)
}

/// What each case must give. A row check holds the adapter to that row's rule alone, so a
/// failure names the rule that was broken; edge and random checks apply every governing row.
fn expectations(ctx: &Context, cases: &Cases, set: CaseSet) -> Result<Vec<Expect>, String> {
    match set {
        CaseSet::Row(r) => cases.par_iter().map(|c| ctx.row_expectation(r, c)).collect(),
        CaseSet::Edges | CaseSet::Random | CaseSet::NoBroadcast | CaseSet::IntoRules => {
            cases.par_iter().map(|c| ctx.expectation(c)).collect()
        }
    }
}

/// A table self-check: on the row's inputs, the oracle's result must satisfy every governing
/// row (so a wrong row, or two overlapping rows that disagree, fails here).
fn check_table(
    catalog: &Catalog,
    check: &Check,
    target: &ElementwiseTarget,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[target.table];
    let f = Format::of(target.dtype).ok_or("not a float dtype")?;
    let ctx = context(catalog, check, target, f);
    let cases = generate(table, check, target, f, options.table_cases_per_row, 0, options.table_seed)?;
    // Every governing row, not only this one: overlapping rows must agree with each other.
    let expected: Vec<Expect> = cases.par_iter().map(|c| ctx.expectation(c)).collect::<Result<_, _>>()?;
    let reference: Vec<u64> =
        cases.par_iter().map(|c| crate::expect::reference(table.op, f, c)).collect::<Result<_, _>>()?;
    result.inputs = cases.len();
    if let CaseSet::Row(r) = target.cases
        && let Some(reason) = &table.table.rows[r].oracle_differs
    {
        let differing = (0..cases.len())
            .filter(|&i| !expected[i].accepts(ctx.output, reference[i], NanPolicy::Any))
            .count();
        if differing == 0 {
            return Err(format!(
                "the row says the oracle differs ({reason}), but the oracle agreed on all {} inputs: drop `oracle_differs`",
                cases.len()
            ));
        }
        result.message = format!(
            "the oracle differs on {differing} of {} inputs, as the row states: {reason}",
            cases.len()
        );
        return Ok(());
    }
    let reading = Reading { input: Domain::Float(f), output: ctx.output, nan: NanPolicy::Any };
    compare(&reading, &cases, &expected, &reference, check, options, result);
    Ok(())
}

fn check_adapter(
    catalog: &Catalog,
    check: &Check,
    target: &ElementwiseTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[target.table];
    let suite = &catalog.suites[check.suite.ok_or("adapter check without a suite")?].suite;
    let f = Format::of(target.dtype).ok_or("not a float dtype")?;
    let ctx = context(catalog, check, target, f);
    let cases = generate(table, check, target, f, suite.cases_per_row, suite.random_cases, suite.seed)?;
    let expected = expectations(&ctx, &cases, target.cases)?;
    let output_dtype = if ctx.output == Domain::Bool { DType::Bool } else { target.dtype };
    let actual = call_batch(adapter, table.op, target.dtype, output_dtype, &cases, options)?;
    result.inputs = cases.len();
    let reading = Reading { input: Domain::Float(f), output: ctx.output, nan: suite.nan };
    compare(&reading, &cases, &expected, &actual, check, options, result);
    if table.table.accuracy == Accuracy::Approximate {
        result.max_ulp_error = max_ulp_error(table.op, f, &cases, &actual);
    }
    Ok(())
}

/// Packs the cases into one tensor per operand and calls the adapter once.
pub(super) fn call_batch(
    adapter: &Arc<dyn Adapter>,
    op: OpKind,
    dtype: DType,
    output_dtype: DType,
    cases: &Cases,
    options: &RunOptions,
) -> Result<Vec<u64>, String> {
    let arity = cases.first().map_or(0, Vec::len);
    let n = cases.len();
    let operands = (0..arity)
        .map(|k| {
            let column: Vec<u64> = cases.iter().map(|c| c[k]).collect();
            Tensor::from_bits(dtype, &[n], &column).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let adapter = Arc::clone(adapter);
    let returned = guarded(options.timeout, move || match op {
        OpKind::Binary(b) => adapter.binary(b, &operands[0], &operands[1]),
        OpKind::Ternary(t) => adapter.ternary(t, &operands[0], &operands[1], &operands[2]),
        OpKind::BinaryInto(b) => Tensor::zeros(output_dtype, &[n])
            .and_then(|mut out| adapter.binary_into(b, &operands[0], &operands[1], &mut out).map(|()| out)),
        other => {
            Err(opspec_adapter::AdapterError::unsupported(format!("{other} is not checked element-wise")))
        }
    })?
    .map_err(|e| format!("the adapter returned an error: {e}"))?;
    if returned.dtype() != output_dtype {
        return Err(format!("the adapter returned dtype {}, expected {output_dtype}", returned.dtype()));
    }
    if returned.shape() != [n] {
        return Err(format!("the adapter returned shape {:?}, expected [{n}]", returned.shape()));
    }
    Ok(returned.to_bits())
}

/// The largest error of a finite result against the exact value, in fractional ULPs; `None`
/// when no result was finite.
fn max_ulp_error(op: OpKind, f: Format, cases: &Cases, actual: &[u64]) -> Option<f64> {
    cases
        .par_iter()
        .zip(actual)
        .filter(|&(_, &a)| f.is_finite(a))
        .filter_map(|(c, &a)| {
            let exact = high_precision(op, f, c[0], c[1])?;
            exact.is_finite().then(|| ulp_error(f, a, &exact))
        })
        .reduce_with(f64::max)
}

/// How one batch's values are read and compared.
pub(super) struct Reading {
    /// The operands' domain.
    pub input: Domain,
    /// The result's domain.
    pub output: Domain,
    pub nan: NanPolicy,
}

pub(super) fn compare(
    reading: &Reading,
    cases: &Cases,
    expected: &[Expect],
    actual: &[u64],
    check: &Check,
    options: &RunOptions,
    result: &mut CheckResult,
) {
    let (input, output) = (reading.input, reading.output);
    let failing: Vec<usize> =
        (0..cases.len()).filter(|&i| !expected[i].accepts(output, actual[i], reading.nan)).collect();
    result.failed_inputs = failing.len();
    if failing.is_empty() {
        return;
    }
    result.status = Status::Fail;
    result.message =
        format!("{} of {} inputs gave a result the contract does not allow", failing.len(), cases.len());
    let names = ["x1", "x2", "x3"];
    let prefix = check.id.rsplit_once(':').map_or(check.id.as_str(), |(p, _)| p);
    for &i in failing.iter().take(options.max_listed_failures) {
        let bits: Vec<String> = cases[i].iter().map(|x| format!("0x{x:x}")).collect();
        let distance = match output {
            Domain::Float(f) => expected[i]
                .centre()
                .filter(|&c| !f.is_nan(c) && !f.is_nan(actual[i]))
                .map(|c| step_distance(f, actual[i], c)),
            _ => None,
        };
        result.failures.push(CaseFailure {
            inputs: cases[i]
                .iter()
                .zip(names)
                .map(|(&x, n)| format!("{n} = {}", input.describe(x)))
                .collect(),
            expected: expected[i].describe(output),
            actual: output.describe(actual[i]),
            ulp_distance: distance,
            reproduce: format!("cargo run --release -- eval {prefix} {}", bits.join(" ")),
        });
    }
}
