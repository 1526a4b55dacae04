//! Properties a table states about results as a whole (hypot's symmetry, its underflow rule),
//! checked by running the adapter (or, for a table self-check, the oracle) on transformed or
//! chosen operands.

use std::sync::Arc;

use opspec_adapter::{Adapter, DType};

use super::cite;
use crate::bits::format::Format;
use crate::generate::{Cases, Generator, random_cases, tiny_value};
use crate::judge::authority::Grade;
use crate::oracle::reference;
use crate::results::CheckResult;
use crate::run::batch::call_batch;
use crate::run::check::{Check, PropertyTarget, RunOptions};
use crate::run::record::{Failure, Recorder, Repro};
use crate::spec::authority::Quote;
use crate::spec::schema::{Parity, Property, PropertyRow, Transform};
use crate::spec::{Catalog, LoadedTable};

/// Runs a property check; `adapter` is `None` for a table self-check.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &PropertyTarget,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let run = PropertyRun::prepare(catalog, check, target, options)?;
    let p = run.stated;
    result.citation = Some(cite(run.table, &p.id, &p.source, p.bullet, &p.text));
    if let Some(f) = crate::bits::format::Format::of(target.dtype) {
        result.reference = Some(crate::oracle::ReferenceKind::of(run.table.op, f));
    }
    let violations = run.evaluate(adapter, options)?;
    let mut rec = Recorder::new(result, options);
    rec.checked(run.inputs());
    for v in violations {
        let grade = v.grade.clone();
        rec.fail_graded(1, grade, false, || run.failure(v));
    }
    rec.finish("evaluations");
    Ok(())
}

/// A property check's operands, ready to be evaluated.
pub struct PropertyRun<'a> {
    table: &'a LoadedTable,
    stated: &'a PropertyRow,
    dtype: DType,
    format: Format,
    /// The operands the property is checked on (before any transform).
    pub cases: Cases,
    /// The suite's subnormal latitude, where it grants one.
    subnormals: Option<&'a Quote>,
}

/// One input on which the property does not hold.
pub struct Violation {
    /// The operand lists involved: the original and, for invariance, the transformed ones.
    pub inputs: Vec<Vec<u64>>,
    pub expected: String,
    pub actual: String,
    /// The bar the result misses.
    pub grade: Grade,
}

impl<'a> PropertyRun<'a> {
    /// The check's operands, seeded by the suite's seed (or the table seed) and the check id.
    pub fn prepare(
        catalog: &'a Catalog,
        check: &Check,
        target: &PropertyTarget,
        options: &RunOptions,
    ) -> Result<PropertyRun<'a>, String> {
        let table = &catalog.elementwise[target.table];
        let stated = &table.table.properties[target.property];
        let f = Format::of(target.dtype).ok_or("not a float dtype")?;
        let (n, seed) = options.per_row_and_seed(check.suite(catalog).map(|s| &s.suite));
        let mut generator = Generator::new(seed, &check.id.to_string());
        let cases = match &stated.property {
            Property::InvariantUnder(_) => random_cases(f, 2, n, &mut generator)?,
            Property::Parity(_) => random_cases(f, 1, n, &mut generator)?,
            Property::UnderflowOnlyFromSubnormals => {
                let tiny = tiny_value(f);
                (0..n)
                    .map(|_| Ok::<_, String>(vec![tiny.draw(&mut generator)?, tiny.draw(&mut generator)?]))
                    .collect::<Result<_, _>>()?
            }
        };
        let subnormals = check.suite(catalog).and_then(|s| s.suite.authority.subnormals.as_ref());
        Ok(PropertyRun { table, stated, dtype: target.dtype, format: f, cases, subnormals })
    }

    /// How many evaluations the check makes.
    pub fn inputs(&self) -> usize {
        match &self.stated.property {
            Property::InvariantUnder(transforms) => self.cases.len() * (transforms.len() + 1),
            Property::Parity(_) => self.cases.len() * 2,
            Property::UnderflowOnlyFromSubnormals => self.cases.len(),
        }
    }

    /// Evaluates the property on every case, calling `adapter` once per batch of operands (the
    /// cases, then each transform of them), or the oracle without one.
    pub fn evaluate(
        &self,
        adapter: Option<&Arc<dyn Adapter>>,
        options: &RunOptions,
    ) -> Result<Vec<Violation>, String> {
        let (f, op, dtype) = (self.format, self.table.op, self.dtype);
        let results = |cases: &Cases| -> Result<Vec<u64>, String> {
            match adapter {
                Some(a) => Ok(call_batch(a, op, dtype, dtype, cases, options)?),
                None => cases.iter().map(|c| reference(op, f, c)).collect(),
            }
        };
        let mut violations = Vec::new();
        match &self.stated.property {
            Property::InvariantUnder(transforms) => {
                let base = results(&self.cases)?;
                for &t in transforms {
                    let moved: Cases = self.cases.iter().map(|c| transform(f, t, c)).collect();
                    let moved_results = results(&moved)?;
                    for i in (0..self.cases.len()).filter(|&i| !same(f, base[i], moved_results[i])) {
                        violations.push(Violation {
                            inputs: vec![self.cases[i].clone(), moved[i].clone()],
                            expected: format!("{} (the result for the first inputs)", f.describe(base[i])),
                            actual: f.describe(moved_results[i]),
                            grade: Grade::cited(),
                        });
                    }
                }
            }
            Property::Parity(parity) => {
                let base = results(&self.cases)?;
                let negated: Cases = self.cases.iter().map(|c| vec![f.neg(c[0])]).collect();
                let negated_results = results(&negated)?;
                for i in 0..self.cases.len() {
                    let (expected, relation) = match parity {
                        Parity::Even => (base[i], "f(x)"),
                        Parity::Odd => (f.neg(base[i]), "-f(x)"),
                    };
                    if !same(f, expected, negated_results[i]) {
                        violations.push(Violation {
                            inputs: vec![self.cases[i].clone(), negated[i].clone()],
                            expected: format!(
                                "f(-x) = {} ({relation}, f(x) being {})",
                                f.describe(expected),
                                f.describe(base[i])
                            ),
                            actual: format!("f(-x) = {}", f.describe(negated_results[i])),
                            grade: Grade::cited(),
                        });
                    }
                }
            }
            Property::UnderflowOnlyFromSubnormals => {
                for (case, &actual) in self.cases.iter().zip(&results(&self.cases)?) {
                    let correct = reference(op, f, case)?;
                    let underflowed = f.is_finite(actual)
                        && (f.is_zero(actual) || f.is_subnormal(actual))
                        && actual != correct;
                    let allowed = case.iter().all(|&x| f.is_subnormal(x)) && f.is_subnormal(correct);
                    if underflowed && !allowed {
                        violations.push(Violation {
                            inputs: vec![case.clone()],
                            expected: format!("no underflow: {} (correctly rounded)", f.describe(correct)),
                            actual: f.describe(actual),
                            grade: self.underflow_grade(case, correct, actual)?,
                        });
                    }
                }
            }
        }
        Ok(violations)
    }

    /// The bar a tiny `actual` misses where the correctly rounded result is `correct`. The
    /// sentence forbids underflow where the correct result is normal: a zero or subnormal
    /// result there fails its must, unless the suite's subnormal latitude explains it (the
    /// result for the operands read with subnormals as zeros, or that result flushed). Where
    /// the correct result is itself zero or subnormal, counting a result some steps from it as
    /// an underflow is opspec's reading of the word.
    fn underflow_grade(&self, case: &[u64], correct: u64, actual: u64) -> Result<Grade, String> {
        let f = self.format;
        if f.is_zero(correct) || f.is_subnormal(correct) {
            return Ok(Grade::opspec(
                "opspec's reading: a subnormal or zero result other than the correctly rounded one counts as an underflow, where the correct result is itself subnormal or zero".into(),
            ));
        }
        if let Some(latitude) = self.subnormals {
            let flushed: Vec<u64> = case.iter().map(|&x| f.flush_subnormal(x)).collect();
            let read_as_zeros = reference(self.table.op, f, &flushed)?;
            if actual == read_as_zeros || actual == f.flush_subnormal(read_as_zeros) {
                return Ok(Grade::opspec(format!(
                    "opspec's bar: full subnormal support, which the document lets vary: \"{}\"",
                    latitude.0
                )));
            }
        }
        Ok(Grade::cited())
    }

    /// A violation as a listed failure; it reproduces with `eval` of the original operands.
    pub fn failure(&self, v: Violation) -> Failure {
        let f = self.format;
        let show = |c: &Vec<u64>| match c.as_slice() {
            [x] => format!("x = {}", f.describe(*x)),
            _ => format!("(x1, x2) = ({}, {})", f.describe(c[0]), f.describe(c[1])),
        };
        Failure {
            inputs: v.inputs.iter().map(show).collect(),
            expected: v.expected,
            actual: v.actual,
            steps: None,
            actual_bits: None,
            batch: None,
            repro: Repro::Element(v.inputs[0].clone()),
        }
    }
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
