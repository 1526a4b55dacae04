//! Properties a table states about results as a whole (hypot's symmetry, its underflow rule),
//! checked by running the adapter (or, for a table self-check, the oracle) on transformed or
//! chosen operands.

use std::sync::Arc;

use opspec_adapter::{Adapter, DType};
use proptest::prelude::*;

use super::RunOptions;
use super::elementwise::{call_batch, cite};
use super::plan::Check;
use super::result::{CaseFailure, CheckResult, Citation, Status};
use crate::expect::reference;
use crate::format::Format;
use crate::generate::{Cases, Generator, any_value, random_cases};
use crate::spec::schema::{Property, Transform};
use crate::spec::{Catalog, LoadedTable};

/// A property check: one stated property of one table, in one dtype.
#[derive(Clone, Copy, Debug)]
pub struct PropertyTarget {
    /// Index into [`Catalog::tables`].
    pub table: usize,
    pub dtype: DType,
    /// Index into the table's `properties`.
    pub property: usize,
}

/// Runs a property check; `adapter` is `None` for a table self-check.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &PropertyTarget,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.tables[target.table];
    let stated = &table.table.properties[target.property];
    result.citation = Some(citation(table, target.property));
    let f = Format::of(target.dtype).ok_or("not a float dtype")?;
    let n = match check.suite {
        Some(s) => catalog.suites[s].suite.cases_per_row,
        None => options.table_cases_per_row,
    };
    let seed = check.suite.map_or(options.table_seed, |s| catalog.suites[s].suite.seed);
    let mut generator = Generator::new(seed, &check.id);
    let evaluate = |cases: &Cases| -> Result<Vec<u64>, String> {
        match adapter {
            Some(a) => call_batch(a, table.op, target.dtype, target.dtype, cases, options),
            None => cases.iter().map(|c| reference(table.op, f, c)).collect(),
        }
    };
    let violations = match &stated.property {
        Property::InvariantUnder(transforms) => {
            let cases = random_cases(f, 2, n, &mut generator)?;
            let base = evaluate(&cases)?;
            result.inputs = cases.len() * (transforms.len() + 1);
            let mut violations = Vec::new();
            for &t in transforms {
                let moved: Cases = cases.iter().map(|c| transform(f, t, c)).collect();
                let results = evaluate(&moved)?;
                for i in (0..cases.len()).filter(|&i| !same(f, base[i], results[i])) {
                    violations.push(Violation {
                        inputs: vec![cases[i].clone(), moved[i].clone()],
                        expected: format!("{} (the result for the first inputs)", f.describe(base[i])),
                        actual: f.describe(results[i]),
                    });
                }
            }
            violations
        }
        Property::UnderflowOnlyFromSubnormals => {
            let tiny = tiny_values(f);
            let cases: Cases = (0..n)
                .map(|_| generator.draw(&(tiny.clone(), tiny.clone())).map(|(a, b)| vec![a, b]))
                .collect::<Result<_, _>>()?;
            let results = evaluate(&cases)?;
            result.inputs = cases.len();
            let mut violations = Vec::new();
            for (case, &actual) in cases.iter().zip(&results) {
                let correct = reference(table.op, f, case)?;
                let underflowed =
                    f.is_finite(actual) && (f.is_zero(actual) || f.is_subnormal(actual)) && actual != correct;
                let allowed = case.iter().all(|&x| f.is_subnormal(x)) && f.is_subnormal(correct);
                if underflowed && !allowed {
                    violations.push(Violation {
                        inputs: vec![case.clone()],
                        expected: format!("no underflow: {} (correctly rounded)", f.describe(correct)),
                        actual: f.describe(actual),
                    });
                }
            }
            violations
        }
    };
    report(f, violations, options, result);
    Ok(())
}

/// Operands where underflow can happen: zeros, subnormals, the smallest normals, and any value.
fn tiny_values(f: Format) -> BoxedStrategy<u64> {
    let small_normal =
        (any::<bool>(), 1u64..4, any::<u64>()).prop_map(move |(neg, e, frac)| f.compose(neg, e, frac));
    let subnormal = (any::<bool>(), any::<u64>()).prop_map(move |(neg, frac)| f.compose(neg, 0, frac.max(1)));
    prop_oneof![2 => subnormal, 1 => small_normal, 1 => Just(f.pos_zero()), 1 => any_value(f)].boxed()
}

fn transform(f: Format, t: Transform, case: &[u64]) -> Vec<u64> {
    let (x1, x2) = (case[0], case[1]);
    match t {
        Transform::Swap => vec![x2, x1],
        Transform::NegateX1 => vec![f.neg(x1), x2],
        Transform::NegateX2 => vec![x1, f.neg(x2)],
        Transform::NegateBoth => vec![f.neg(x1), f.neg(x2)],
    }
}

/// Bit-identical, or both NaN.
fn same(f: Format, a: u64, b: u64) -> bool {
    a == b || f.is_nan(a) && f.is_nan(b)
}

struct Violation {
    /// The operand lists involved (the original and, for invariance, the transformed ones).
    inputs: Vec<Vec<u64>>,
    expected: String,
    actual: String,
}

fn report(f: Format, violations: Vec<Violation>, options: &RunOptions, result: &mut CheckResult) {
    result.failed_inputs = violations.len();
    if violations.is_empty() {
        return;
    }
    result.status = Status::Fail;
    result.message =
        format!("{} of {} evaluations break the stated property", violations.len(), result.inputs);
    let prefix = result.id.rsplit_once(':').map_or(result.id.clone(), |(p, _)| p.to_string());
    for v in violations.into_iter().take(options.max_listed_failures) {
        let last = v.inputs.last().cloned().unwrap_or_default();
        let bits: Vec<String> = last.iter().map(|x| format!("0x{x:x}")).collect();
        result.failures.push(CaseFailure {
            inputs: v
                .inputs
                .iter()
                .map(|c| format!("(x1, x2) = ({}, {})", f.describe(c[0]), f.describe(c[1])))
                .collect(),
            expected: v.expected,
            actual: v.actual,
            ulp_distance: None,
            reproduce: format!("cargo run --release -- eval {prefix} {}", bits.join(" ")),
        });
    }
}

fn citation(table: &LoadedTable, property: usize) -> Citation {
    let p = &table.table.properties[property];
    cite(table, &p.id, &p.source, p.bullet, &p.text)
}
