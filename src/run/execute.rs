//! Running one check: generate inputs, compute expectations, call the adapter once for the
//! whole batch, compare.

use std::sync::Arc;
use std::time::{Duration, Instant};

use opspec_adapter::{Adapter, OpKind, Support, Tensor};
use rayon::prelude::*;

use super::call::guarded;
use super::plan::{CaseSet, Check};
use super::result::{CaseFailure, CheckResult, Citation, Status};
use crate::check::{Expect, ulp_distance};
use crate::expect::Context;
use crate::format::Format;
use crate::generate::{Cases, Generator, edge_cases, random_cases, row_cases};
use crate::spec::suite::NanPolicy;
use crate::spec::{Catalog, LoadedTable};

/// Knobs of a run that are not part of a suite.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// How long one adapter call may take.
    pub timeout: Duration,
    /// How many failing inputs a result lists in detail.
    pub max_listed_failures: usize,
    /// Inputs per row for table self-checks.
    pub table_cases_per_row: usize,
    /// Seed for table self-checks.
    pub table_seed: u64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            timeout: Duration::from_secs(120),
            max_listed_failures: 5,
            table_cases_per_row: 512,
            table_seed: 0x0995_ec00,
        }
    }
}

/// Runs `check`; `adapter` must be given for adapter checks and is ignored for table
/// self-checks. Never panics on bad tables or misbehaving adapters: they become failures.
pub fn run_check(
    catalog: &Catalog,
    check: &Check,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
) -> CheckResult {
    let started = Instant::now();
    let table = &catalog.tables[check.table];
    let mut result = CheckResult {
        id: check.id.clone(),
        suite: check.suite.map_or("table".into(), |s| catalog.suites[s].suite.name.clone()),
        adapter: check.adapter.clone().unwrap_or_else(|| "oracle".into()),
        op: table.table.op.clone(),
        dtype: check.dtype.name().into(),
        case: check.case_name(catalog),
        status: Status::Pass,
        inputs: 0,
        failed_inputs: 0,
        citation: citation(table, check.cases),
        message: String::new(),
        failures: Vec::new(),
        seconds: 0.0,
    };
    let outcome = match (check.adapter.as_ref(), adapter) {
        (None, _) => check_table(catalog, check, options, &mut result),
        (Some(_), Some(adapter)) => check_adapter(catalog, check, adapter, options, &mut result),
        (Some(name), None) => Err(format!("adapter `{name}` is not available")),
    };
    if let Err(message) = outcome {
        result.message = message;
        if result.status != Status::Skip {
            result.status = Status::Fail;
        }
    }
    result.seconds = started.elapsed().as_secs_f64();
    result
}

fn citation(table: &LoadedTable, cases: CaseSet) -> Option<Citation> {
    let CaseSet::Row(r) = cases else { return None };
    let row = &table.table.rows[r];
    let source = table.table.sources.iter().find(|s| s.id == row.source);
    Some(Citation {
        row: format!("{}/{}", table.table.op, row.id.value),
        source: format!(
            "{}, {} bullet {}",
            source.map_or(row.source.as_str(), |s| s.title.as_str()),
            table.table.op,
            row.bullet
        ),
        text: row.text.clone(),
        location: format!("{}:{}", table.path.display(), row.id.referenced.line()),
    })
}

/// Inputs for a check, with the per-check seed derived from `seed` and the check id.
fn generate(
    table: &LoadedTable,
    check: &Check,
    f: Format,
    n_row: usize,
    n_random: usize,
    seed: u64,
) -> Result<Cases, String> {
    let arity = table.table.operands.len();
    let mut generator = Generator::new(seed, &check.id);
    match check.cases {
        CaseSet::Row(r) => row_cases(&table.table, r, f, n_row, &mut generator),
        CaseSet::Edges => Ok(edge_cases(f, arity)),
        CaseSet::Random => random_cases(f, arity, n_random, &mut generator),
    }
}

fn context<'a>(catalog: &'a Catalog, check: &Check, f: Format) -> Context<'a> {
    let table = &catalog.tables[check.table];
    let ulp_bound = match check.suite {
        Some(s) => catalog.suites[s]
            .suite
            .ulp_bounds
            .get(&table.table.op)
            .and_then(|b| b.get(check.dtype.name()))
            .copied(),
        // The oracle is correctly rounded: against itself no slack is needed.
        None => Some(0.0),
    };
    Context { table: &table.table, op: table.op, format: f, ulp_bound }
}

/// What each case must give. A row check holds the adapter to that row's rule alone, so a
/// failure names the rule that was broken; edge and random checks apply every governing row.
fn expectations(ctx: &Context, cases: &Cases, set: CaseSet) -> Result<Vec<Expect>, String> {
    match set {
        CaseSet::Row(r) => cases.par_iter().map(|c| ctx.row_expectation(r, c)).collect(),
        CaseSet::Edges | CaseSet::Random => cases.par_iter().map(|c| ctx.expectation(c)).collect(),
    }
}

/// A table self-check: on the row's inputs, the oracle's result must satisfy every governing
/// row (so a wrong row, or two overlapping rows that disagree, fails here).
fn check_table(
    catalog: &Catalog,
    check: &Check,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[check.table];
    let f = Format::of(check.dtype).ok_or("not a float dtype")?;
    let ctx = context(catalog, check, f);
    let cases = generate(table, check, f, options.table_cases_per_row, 0, options.table_seed)?;
    // Every governing row, not only this one: overlapping rows must agree with each other.
    let expected: Vec<Expect> = cases.par_iter().map(|c| ctx.expectation(c)).collect::<Result<_, _>>()?;
    let reference: Vec<u64> =
        cases.par_iter().map(|c| crate::expect::reference(table.op, f, c)).collect::<Result<_, _>>()?;
    result.inputs = cases.len();
    compare(f, &cases, &expected, &reference, NanPolicy::Any, check, options, result);
    Ok(())
}

fn check_adapter(
    catalog: &Catalog,
    check: &Check,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[check.table];
    let suite = &catalog.suites[check.suite.ok_or("adapter check without a suite")?].suite;
    if let Support::Unsupported(reason) = adapter.supports(table.op, check.dtype) {
        result.status = Status::Skip;
        return Err(format!("skipped: {reason}"));
    }
    let f = Format::of(check.dtype).ok_or("not a float dtype")?;
    let ctx = context(catalog, check, f);
    let cases = generate(table, check, f, suite.cases_per_row, suite.random_cases, suite.seed)?;
    let expected = expectations(&ctx, &cases, check.cases)?;
    let actual = call_batch(adapter, table.op, check, &cases, options)?;
    result.inputs = cases.len();
    compare(f, &cases, &expected, &actual, suite.nan, check, options, result);
    Ok(())
}

/// Packs the cases into one tensor per operand and calls the adapter once.
fn call_batch(
    adapter: &Arc<dyn Adapter>,
    op: OpKind,
    check: &Check,
    cases: &Cases,
    options: &RunOptions,
) -> Result<Vec<u64>, String> {
    let arity = cases.first().map_or(0, Vec::len);
    let n = cases.len();
    let operands = (0..arity)
        .map(|k| {
            let column: Vec<u64> = cases.iter().map(|c| c[k]).collect();
            Tensor::from_bits(check.dtype, &[n], &column).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let adapter = Arc::clone(adapter);
    let returned = guarded(options.timeout, move || match op {
        OpKind::Binary(b) => adapter.binary(b, &operands[0], &operands[1]),
        OpKind::Ternary(t) => adapter.ternary(t, &operands[0], &operands[1], &operands[2]),
        other => {
            Err(opspec_adapter::AdapterError::unsupported(format!("{other} is not checked element-wise")))
        }
    })?
    .map_err(|e| format!("the adapter returned an error: {e}"))?;
    if returned.dtype() != check.dtype {
        return Err(format!("the adapter returned dtype {}, expected {}", returned.dtype(), check.dtype));
    }
    if returned.shape() != [n] {
        return Err(format!("the adapter returned shape {:?}, expected [{n}]", returned.shape()));
    }
    Ok(returned.to_bits())
}

#[allow(clippy::too_many_arguments)]
fn compare(
    f: Format,
    cases: &Cases,
    expected: &[Expect],
    actual: &[u64],
    nan: NanPolicy,
    check: &Check,
    options: &RunOptions,
    result: &mut CheckResult,
) {
    let failing: Vec<usize> = (0..cases.len()).filter(|&i| !expected[i].accepts(f, actual[i], nan)).collect();
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
        result.failures.push(CaseFailure {
            inputs: cases[i].iter().zip(names).map(|(&x, n)| format!("{n} = {}", f.describe(x))).collect(),
            expected: expected[i].describe(f),
            actual: f.describe(actual[i]),
            ulp_distance: expected[i]
                .centre()
                .filter(|&c| !f.is_nan(c) && !f.is_nan(actual[i]))
                .map(|c| ulp_distance(f, actual[i], c)),
            reproduce: format!("cargo run --release -- eval {prefix} {}", bits.join(" ")),
        });
    }
}
