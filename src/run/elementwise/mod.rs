//! The element-wise family (`specs/elementwise`): planning every check of its tables, and
//! running the float row checks here: generate inputs, compute expectations, call the adapter
//! once for the whole batch, compare. The other kinds of check of the same tables have a file
//! each: [`integer`] dtypes, [`property`] checks, [`shape_rules`] (fused and `_into` forms),
//! [`layouts`], [`broadcast_values`] and the [`sweep`]s of `--exhaustive`.

pub mod broadcast_values;
pub mod integer;
pub mod layouts;
pub mod property;
pub mod shape_rules;
pub mod sweep;

use std::sync::Arc;

use opspec_adapter::{Adapter, BinaryOp, DType, OpKind};
use rayon::prelude::*;

use crate::bits::format::Format;
use crate::bits::value::{Domain, IntFormat};
use crate::generate::hard::{HARD_CASES, hard_cases};
use crate::generate::unary_sweep;
use crate::generate::{
    Cases, Generator, edge_case_count, edge_cases, int_edge_values, random_cases, row_cases,
};
use crate::judge::accuracy::{UlpTally, ulp_error_of};
use crate::judge::batch::{Grader, Judge, Reading};
use crate::judge::context::Context;
use crate::judge::expect::Expect;
use crate::oracle::ReferenceKind;
use crate::oracle::integer::Exact;
use crate::oracle::ops::exact_integer;
use crate::results::{CheckResult, Citation};
use crate::run::batch::Batch;
use crate::run::check::ElementwiseKind;
use crate::run::check::{
    CaseSet, Check, CheckId, FloatTarget, IntegerCases, IntegerTarget, PropertyTarget, RunOptions,
    ShapeRuleTarget, Target,
};
use crate::run::record::{Recorder, citation, write_accuracy};
use crate::spec::schema::{Accuracy, Property};
use crate::spec::suite::Suite;
use crate::spec::suite::{DivisionByZero, NanPolicy};
use crate::spec::{Catalog, LoadedSuite, LoadedTable};

fn case_name(table: &LoadedTable, cases: CaseSet) -> String {
    match cases {
        CaseSet::Row(r) => table.table.rows[r].id.value.clone(),
        CaseSet::Edges => "edges".to_string(),
        CaseSet::Random => "random".to_string(),
        CaseSet::Hard => "hard".to_string(),
    }
}

/// The checks of `suite`'s element-wise tables against `adapter`: in float dtypes every row,
/// edges, random inputs, the stated properties and the shape rule the table states; in integer
/// dtypes edges and random inputs (rows and properties are conditions on floats).
pub fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    for &t in &suite.tables {
        let table = &catalog.elementwise[t];
        for &dtype in suite.dtypes.iter().filter(|&&d| applies(table, &suite.suite, d)) {
            let id = |case: &str| {
                CheckId::adapter(&suite.suite.name, adapter, &table.table.op, dtype.name(), case)
            };
            let mut targets: Vec<(String, Target)> = Vec::new();
            if dtype.is_float() {
                targets.extend(float_targets(table, t, dtype));
                targets.extend(shape_rules::rule_of(table).map(|rule| {
                    (
                        rule.name().to_string(),
                        Target::Elementwise(ElementwiseKind::ShapeRule(ShapeRuleTarget {
                            table: t,
                            dtype,
                            rule,
                        })),
                    )
                }));
            } else {
                let by_zero = divides(table, dtype) && judges_division_by_zero(&suite.suite);
                let sets = [("edges", IntegerCases::Edges), ("random", IntegerCases::Random)];
                for (name, cases) in
                    sets.into_iter().chain(by_zero.then_some(("by-zero", IntegerCases::ByZero)))
                {
                    targets.push((
                        name.to_string(),
                        Target::Elementwise(ElementwiseKind::Integer(IntegerTarget {
                            table: t,
                            dtype,
                            cases,
                        })),
                    ));
                }
            }
            for (case, target) in targets {
                let planned = planned(table, &target, Some(&suite.suite));
                checks.push(Check { id: id(&case), needs: Some((table.op, dtype)), target, planned });
            }
        }
    }
    checks
}

/// Rows, edges, random inputs and stated properties of `table` in float `dtype`, with their
/// case names.
fn float_targets(table: &LoadedTable, t: usize, dtype: DType) -> impl Iterator<Item = (String, Target)> + '_ {
    let sets = (0..table.table.rows.len()).map(CaseSet::Row).chain([CaseSet::Edges, CaseSet::Random]);
    sets.map(move |cases| {
        (
            case_name(table, cases),
            Target::Elementwise(ElementwiseKind::Float(FloatTarget { table: t, dtype, cases })),
        )
    })
    .chain(property_targets(table, t, dtype))
}

/// The table's stated properties as (case name, target) pairs.
fn property_targets(
    table: &LoadedTable,
    t: usize,
    dtype: DType,
) -> impl Iterator<Item = (String, Target)> + '_ {
    table.table.properties.iter().enumerate().map(move |(property, p)| {
        (
            p.id.value.clone(),
            Target::Elementwise(ElementwiseKind::Property(PropertyTarget { table: t, dtype, property })),
        )
    })
}

/// One self-check per (table, float dtype, row or property): the row's stated result must
/// agree with the oracle on the row's generated inputs, and so must every overlapping row.
pub fn plan_tables(catalog: &Catalog) -> Vec<Check> {
    let mut checks = Vec::new();
    for (t, table) in catalog.elementwise.iter().enumerate() {
        for dtype in
            table.table.dtypes.iter().filter_map(|d| d.parse::<DType>().ok()).filter(|d| d.is_float())
        {
            let rows = (0..table.table.rows.len()).map(|r| {
                let cases = CaseSet::Row(r);
                (
                    case_name(table, cases),
                    Target::Elementwise(ElementwiseKind::Float(FloatTarget { table: t, dtype, cases })),
                )
            });
            for (case, target) in rows.chain(property_targets(table, t, dtype)) {
                checks.push(Check {
                    id: CheckId::table(&table.table.op, dtype.name(), &case),
                    needs: None,
                    planned: planned(table, &target, None),
                    target,
                });
            }
        }
    }
    checks
}

/// How many inputs the check of `target` makes: counted from the suite's numbers (or, for a
/// table self-check, the default run options') before anything is generated. An integer
/// check counts the operands drawn or enumerated, before the contract leaves some out.
fn planned(table: &LoadedTable, target: &Target, suite: Option<&Suite>) -> Option<usize> {
    let (per_row, _) = RunOptions::default().per_row_and_seed(suite);
    Some(match target {
        Target::Elementwise(ElementwiseKind::Float(t)) => match t.cases {
            CaseSet::Row(_) => per_row,
            CaseSet::Edges => edge_input_count(Format::of(t.dtype)?, table.table.operands.len()),
            CaseSet::Random => suite?.random_cases,
            CaseSet::Hard => HARD_CASES,
        },
        Target::Elementwise(ElementwiseKind::Property(t)) => {
            match &table.table.properties[t.property].property {
                Property::InvariantUnder(transforms) => per_row * (transforms.len() + 1),
                Property::Parity(_) => per_row * 2,
                Property::UnderflowOnlyFromSubnormals => per_row,
            }
        }
        Target::Elementwise(ElementwiseKind::Integer(t)) => match t.cases {
            IntegerCases::Edges => {
                int_edge_values(IntFormat::holding(t.dtype)?).len().pow(table.table.operands.len() as u32)
            }
            IntegerCases::Random => suite?.random_cases,
            IntegerCases::ByZero => int_edge_values(IntFormat::holding(t.dtype)?).len(),
        },
        Target::Elementwise(ElementwiseKind::ShapeRule(t)) => shape_rules::scenarios(table, t.rule),
        _ => return None,
    })
}

/// The inputs of an `edges` check: for one-operand tables every 16-bit value, or the dense
/// grid and the edges of a wider format ([`unary_sweep`]); otherwise every combination of the
/// format's edge values (zeros, subnormals, the smallest and largest normals, ±1,
/// infinities, NaNs, ...), one per operand.
fn edge_inputs(f: Format, arity: usize) -> Cases {
    if arity == 1 { unary_sweep::inputs(f) } else { edge_cases(f, arity) }
}

/// How many inputs [`edge_inputs`] makes, before anything is generated.
fn edge_input_count(f: Format, arity: usize) -> usize {
    if arity == 1 { unary_sweep::count(f) } else { edge_case_count(f, arity) }
}

/// True when `table`'s operation divides integers of `dtype` (`x / 0` has no value).
fn divides(table: &LoadedTable, dtype: DType) -> bool {
    IntFormat::holding(dtype)
        .is_some_and(|int| exact_integer(table.op, int, &[1, 0]).is_some_and(|e| e == Exact::DivisionByZero))
}

/// True when `suite` has integer divisions by zero judged (its rule is not `avoid`).
fn judges_division_by_zero(suite: &Suite) -> bool {
    suite.integers.is_some_and(|c| c.division_by_zero != DivisionByZero::Avoid)
}

/// Whether `table` is checked in `dtype` under `suite`: the table lists it, or it is `divide`
/// in an integer dtype and the suite says how integer quotients round (`integers.divide`).
fn applies(table: &LoadedTable, suite: &Suite, dtype: DType) -> bool {
    table.table.dtypes.iter().any(|d| d == dtype.name())
        || (dtype.is_integer()
            && table.op == OpKind::Binary(BinaryOp::Divide)
            && suite.integers.is_some_and(|c| c.divide.is_some()))
}

/// Runs an element-wise check of kind `kind` against `adapter` (none: a table self-check,
/// which only float rows and properties have), recording into `result`.
pub fn run_kind(
    catalog: &Catalog,
    check: &Check,
    kind: &ElementwiseKind,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let needs_adapter = |what: &str| format!("{}: a {what} check needs an adapter", check.id);
    match (kind, adapter) {
        (ElementwiseKind::Float(t), a) => run(catalog, check, t, a, options, result),
        (ElementwiseKind::Property(t), a) => property::run(catalog, check, t, a, options, result),
        (ElementwiseKind::Integer(t), Some(a)) => integer::run(catalog, check, t, a, options, result),
        (ElementwiseKind::ShapeRule(t), Some(a)) => shape_rules::run(catalog, t, a, options, result),
        (ElementwiseKind::Layouts(t), Some(a)) => layouts::run(catalog, check, t, a, options, result),
        (ElementwiseKind::Sweep(t), Some(a)) => sweep::run(catalog, check, t, a, options, result),
        (ElementwiseKind::Integer(_), None) => Err(needs_adapter("integer")),
        (ElementwiseKind::ShapeRule(_), None) => Err(needs_adapter("shape-rule")),
        (ElementwiseKind::Layouts(_), None) => Err(needs_adapter("layout")),
        (ElementwiseKind::Sweep(_), None) => Err(needs_adapter("sweep")),
    }
}

/// Runs an element-wise check; `adapter` is `None` for a table self-check.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &FloatTarget,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.elementwise[target.table];
    result.citation = row_citation(table, target.cases);
    let floats = FloatBatch::prepare(catalog, check, target, options)?;
    result.reference = Some(ReferenceKind::of(table.op, floats.format));
    let mut rec = Recorder::new(result, options);
    match adapter {
        None => check_table(&floats, &mut rec),
        Some(adapter) => {
            let actual = floats.batch.call(adapter, options)?;
            let alone = |case: &[u64]| floats.batch.call_alone(adapter, options, case);
            let judge = Judge { grader: Grader::Table(&floats.ctx), alone: Some(&alone) };
            floats.batch.compare(&actual, &mut rec, Some(&judge));
            if table.table.accuracy == Accuracy::Approximate {
                let tally = ulp_tally(table.op, floats.format, &floats.batch.cases, &actual);
                write_accuracy(&tally, floats.format, rec.result);
            }
            Ok(())
        }
    }
}

fn row_citation(table: &LoadedTable, cases: CaseSet) -> Option<Citation> {
    let CaseSet::Row(r) = cases else { return None };
    let row = &table.table.rows[r];
    Some(cite(table, &row.id, &row.source, row.bullet, &row.text))
}

/// The citation of a row or stated property of `table`.
pub fn cite(
    table: &LoadedTable,
    id: &serde_saphyr::Spanned<String>,
    source: &str,
    bullet: u32,
    text: &str,
) -> Citation {
    let title = table.table.source(source).map_or(source, |s| s.title.as_str());
    let anchor = format!("{} bullet {bullet}", table.table.op);
    citation(&table.table.op, id, &table.path, title, &anchor, text.to_string())
}

/// An element-wise check's float inputs and what each must give, ready to be run.
pub struct FloatBatch<'a> {
    pub batch: Batch,
    pub table: &'a LoadedTable,
    pub format: Format,
    pub ctx: Context<'a>,
    /// The row an adapter check holds results to alone, if it is a row check.
    row: Option<usize>,
    /// The row whose self-check the batch is, if it is one.
    self_check_row: Option<usize>,
}

impl<'a> FloatBatch<'a> {
    /// Generates the check's inputs (seeded by the suite's seed, or the table seed for a
    /// self-check, and the check id) and their expectations. A row check holds the adapter to
    /// that row's rule alone, so a failure names the rule that was broken; edge and random
    /// checks and the table self-checks apply every governing row, so overlapping rows must
    /// agree.
    pub fn prepare(
        catalog: &'a Catalog,
        check: &Check,
        target: &FloatTarget,
        options: &RunOptions,
    ) -> Result<FloatBatch<'a>, String> {
        let table = &catalog.elementwise[target.table];
        let f = Format::of(target.dtype).ok_or("not a float dtype")?;
        let suite = check.suite(catalog).map(|s| &s.suite);
        let (n_row, seed) = options.per_row_and_seed(suite);
        let (n_random, nan) = suite.map_or((0, NanPolicy::Any), |s| (s.random_cases, s.nan));
        let ctx = Context::new(table, suite, f);
        let arity = table.table.operands.len();
        let mut generator = Generator::new(seed, &check.id.to_string());
        let cases = match target.cases {
            CaseSet::Row(r) => row_cases(&table.table, r, f, n_row, &mut generator)?,
            CaseSet::Edges => edge_inputs(f, arity),
            CaseSet::Random => random_cases(f, arity, n_random, &mut generator)?,
            CaseSet::Hard => hard_cases(table.op, f, HARD_CASES, &mut generator),
        };
        let row = match target.cases {
            CaseSet::Row(r) => Some(r),
            _ => None,
        };
        let mut floats = FloatBatch {
            batch: Batch {
                op: table.op,
                dtype: target.dtype,
                cases: Cases::new(),
                expected: Vec::new(),
                reading: Reading { input: Domain::Float(f), output: ctx.output, nan },
            },
            table,
            format: f,
            row: row.filter(|_| suite.is_some()),
            self_check_row: row.filter(|_| suite.is_none()),
            ctx,
        };
        floats.batch.expected = cases.par_iter().map(|c| floats.expectation(c)).collect::<Result<_, _>>()?;
        floats.batch.cases = cases;
        Ok(floats)
    }

    /// What the result for `case` must be in this check.
    pub fn expectation(&self, case: &[u64]) -> Result<Expect, String> {
        match self.row {
            Some(r) => self.ctx.row_expectation(r, case),
            None => self.ctx.expectation(case),
        }
    }

    /// The oracle's result for every case.
    fn reference(&self) -> Result<Vec<u64>, String> {
        let op = self.table.op;
        self.batch.cases.par_iter().map(|c| crate::oracle::reference(op, self.format, c)).collect()
    }
}

/// A table self-check: on the row's inputs, the oracle's result must satisfy every governing
/// row (so a wrong row, or two overlapping rows that disagree, fails here).
fn check_table(floats: &FloatBatch, rec: &mut Recorder) -> Result<(), String> {
    let reference = floats.reference()?;
    let batch = &floats.batch;
    if let Some(r) = floats.self_check_row
        && let Some(reason) = &floats.table.table.rows[r].oracle_differs
    {
        let n = batch.cases.len();
        let differing = (0..n)
            .filter(|&i| !batch.expected[i].accepts(batch.reading.output, reference[i], NanPolicy::Any))
            .count();
        if differing == 0 {
            return Err(format!(
                "the row says the oracle differs ({reason}), but the oracle agreed on all {n} inputs: drop `oracle_differs`"
            ));
        }
        rec.checked(n);
        rec.result.message =
            format!("the oracle differs on {differing} of {n} inputs, as the row states: {reason}");
        return Ok(());
    }
    batch.compare(&reference, rec, None);
    Ok(())
}

/// The errors of the finite results against the exact values, in fractional ULPs.
fn ulp_tally(op: OpKind, f: Format, cases: &Cases, actual: &[u64]) -> UlpTally {
    let measured: Vec<Option<f64>> = cases
        .par_iter()
        .zip(actual)
        .map(|(c, &a)| if f.is_finite(a) { ulp_error_of(op, f, c, a) } else { None })
        .collect();
    let mut tally = UlpTally::default();
    for ((c, &a), error) in cases.iter().zip(actual).zip(measured) {
        if let Some(error) = error {
            tally.add(error, c, a);
        }
    }
    tally
}
