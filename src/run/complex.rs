//! Complex tables (`specs/complex`): planning their checks and running them.
//!
//! Per table and complex dtype: one check per row (inputs drawn from the row's component
//! classes, the result judged part by part), `random` where the table has an `accuracy`
//! (finite operands against [`oracle::complex`](crate::oracle::complex): of moderate magnitude,
//! or for the transcendental functions from tiny to huge), and one check per stated property
//! (a delegation such as `asin(x) = -1j * asinh(x*1j)`, judged on the adapter's own results)
//! and one per component rule (`conj(x) = a - bj`; `a + (c + dj) = (a + c) + dj` with `x1` a
//! real-valued array), on operands of every class. Complex rows have no table self-checks: the
//! oracle covers finite operands only, and the rows state special values.

use std::sync::Arc;

use opspec_adapter::{Adapter, BinaryOp, DType, OpKind, Support, Tensor, UnaryOp};
use rayon::prelude::*;
use rug::Float;

use super::call::apply_guarded;
use super::check::{Check, CheckId, ComplexCases, ComplexTarget, RunOptions, Target};
use super::record::{Failure, Recorder, Repro, citation};
use crate::bits::format::Format;
use crate::generate::Generator;
use crate::generate::complex::{Components, moderate_inputs, pow_inputs, row_inputs, wide_inputs};
use crate::judge::complex::{COMPONENTS, ComplexJudge, ComplexValues};
use crate::judge::expect::step_distance;
use crate::oracle::complex::{PRECISION, Reference, TRANSCENDENTAL};
use crate::oracle::{decode, round_exact};
use crate::results::{CheckResult, Status};
use crate::spec::complex::{
    ComplexCondition, ComplexOp, ComplexResult, Component, Delegation, LoadedComplex,
};
use crate::spec::{Catalog, LoadedSuite};

/// The checks of `suite`'s complex tables against `adapter`.
pub fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    let (per_row, _) = RunOptions::default().per_row_and_seed(Some(&suite.suite));
    for &t in &suite.complex {
        let table = &catalog.complex[t];
        let spec = &table.loaded.table;
        for &dtype in &table.dtypes {
            let mut cases: Vec<(String, ComplexCases, usize)> = spec
                .rows
                .iter()
                .enumerate()
                .map(|(r, row)| (row.id.value.clone(), ComplexCases::Row(r), per_row))
                .collect();
            if spec.accuracy.is_some() {
                cases.push(("random".into(), ComplexCases::Random, suite.suite.random_cases));
            }
            cases.extend(
                spec.properties
                    .iter()
                    .enumerate()
                    .map(|(p, prop)| (prop.id.value.clone(), ComplexCases::Property(p), per_row)),
            );
            cases.extend(
                spec.component_rules
                    .iter()
                    .enumerate()
                    .map(|(r, rule)| (rule.id.value.clone(), ComplexCases::Rule(r), per_row)),
            );
            for (case, cases, planned) in cases {
                checks.push(Check {
                    id: CheckId::adapter(&suite.suite.name, adapter, &spec.op, dtype.name(), &case),
                    needs: Some((op_kind(table.op), dtype)),
                    target: Target::Complex(ComplexTarget { table: t, dtype, cases }),
                    planned: Some(planned),
                });
            }
        }
    }
    checks
}

fn op_kind(op: ComplexOp) -> OpKind {
    match op {
        ComplexOp::Unary(u) => OpKind::Unary(u),
        ComplexOp::Binary(b) => OpKind::Binary(b),
    }
}

/// Runs a complex check against `adapter`.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &ComplexTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.complex[target.table];
    let spec = &table.loaded.table;
    let suite = &check.adapter_suite(catalog)?.suite;
    let (per_row, seed) = options.per_row_and_seed(Some(suite));
    let f = target.dtype.component().and_then(Format::of).ok_or("a complex check needs a complex dtype")?;
    let mut rng = Generator::new(seed, &check.id.to_string());
    let arity = table.op.arity();
    let judge = ComplexJudge { table, f, suite, component_rule: false };
    let run = ComplexRun { table, adapter, options, dtype: target.dtype, f, judge, real_operand: None };
    match target.cases {
        ComplexCases::Row(r) => {
            let row = &spec.rows[r];
            let text = format!("bullet {}", row.bullet);
            result.citation = Some(citation(
                &table.loaded.key,
                &row.id,
                &table.loaded.path,
                &source_title(table, &row.source),
                &text,
                row.text.clone(),
            ));
            let unless: Vec<_> = spec
                .rows
                .iter()
                .filter(|other| row.unless.contains(&other.id.value))
                .map(|other| &other.when)
                .collect();
            let inputs = row_inputs(f, &row.when, &unless, arity, per_row, &mut rng)?;
            let mut rec = Recorder::new(result, options);
            run.judge(&inputs, &row.result, None, &mut rec)?;
            rec.finish("inputs");
        }
        ComplexCases::Rule(r) => {
            let rule = &spec.component_rules[r];
            result.citation = Some(citation(
                &table.loaded.key,
                &rule.id,
                &table.loaded.path,
                &source_title(table, &rule.source),
                "",
                rule.text.clone(),
            ));
            let mut inputs = row_inputs(f, &ComplexCondition::default(), &[], arity, per_row, &mut rng)?;
            let judge = ComplexJudge { table, f, suite, component_rule: true };
            let run = ComplexRun { real_operand: rule.real_operand, judge, ..run };
            if let Some(absent) = rule.absent() {
                for x in &mut inputs {
                    x[absent.index()] = f.pos_zero();
                }
            }
            let mut rec = Recorder::new(result, options);
            run.judge(&inputs, &rule.result, None, &mut rec)?;
            rec.finish("inputs");
        }
        ComplexCases::Random => {
            // Inputs without a reference (a zero divisor, `sign(0)`, a result beyond the
            // format's range) are a row's or no one's, not these: they are drawn again, so that
            // the check makes the planned number.
            let comparison = matches!(table.op, ComplexOp::Binary(BinaryOp::Equal | BinaryOp::NotEqual));
            let wide = matches!(table.op, ComplexOp::Unary(u) if TRANSCENDENTAL.contains(&u));
            let n = suite.random_cases;
            let mut inputs = Vec::with_capacity(n);
            let mut references = Vec::with_capacity(n);
            while inputs.len() < n {
                let want = (n - inputs.len()).max(64);
                let batch = if wide {
                    wide_inputs(f, want, &mut rng)
                } else if table.op == ComplexOp::Binary(BinaryOp::Pow) {
                    pow_inputs(f, want, &mut rng)
                } else {
                    moderate_inputs(f, arity, want, &mut rng)
                };
                let drawn = inputs.len();
                if comparison {
                    inputs.extend(batch);
                } else {
                    let judged: Vec<_> = batch.par_iter().map(|x| run.judge.reference(x)).collect();
                    for (x, reference) in batch.into_iter().zip(judged) {
                        if let Some(r) = reference {
                            inputs.push(x);
                            references.push(r);
                        }
                    }
                }
                if inputs.len() == drawn {
                    return Err(format!("{} has no reference on finite operands", spec.op));
                }
            }
            inputs.truncate(n);
            references.truncate(n);
            let mut rec = Recorder::new(result, options);
            let references = (!comparison).then_some(&references[..]);
            run.judge(&inputs, &ComplexResult::Reference, references, &mut rec)?;
            rec.finish("inputs");
        }
        ComplexCases::Property(p) => {
            let property = &spec.properties[p];
            let inputs = special_inputs(f, per_row, &mut rng);
            let mut rec = Recorder::new(result, options);
            if let Some(reason) = run.property(&property.rule, &inputs, &mut rec)? {
                rec.result.status = Status::Skip;
                return Err(format!("skipped: {reason}"));
            }
            rec.finish("inputs");
        }
    }
    Ok(())
}

fn source_title(table: &LoadedComplex, source: &str) -> String {
    let sources = &table.loaded.table.sources;
    sources.iter().find(|s| s.id == source).map_or_else(|| source.to_string(), |s| s.title.clone())
}

/// Inputs whose parts are special values or small integers: the inputs of the properties.
fn special_inputs(f: Format, n: usize, rng: &mut Generator) -> Vec<Components> {
    let one = f.one();
    let values = [
        f.pos_zero(),
        f.neg_zero(),
        f.pos_inf(),
        f.neg_inf(),
        f.quiet_nan(),
        one,
        f.neg(one),
        one + (1 << f.frac_bits), // 2
    ];
    (0..n)
        .map(|_| {
            let mut x = [0u64; 4];
            for part in &mut x {
                *part = values[(rng.bits() % values.len() as u64) as usize];
            }
            x
        })
        .collect()
}

/// How a delegate's result (the parts' bits) maps back to the function's.
type MapBack = Box<dyn Fn(Format, [u64; 2]) -> [u64; 2]>;

/// What one complex check calls and judges with.
struct ComplexRun<'a> {
    table: &'a LoadedComplex,
    adapter: &'a Arc<dyn Adapter>,
    options: &'a RunOptions,
    dtype: DType,
    f: Format,
    judge: ComplexJudge<'a>,
    /// The operand (1 or 2) passed as a real-valued array of the parts' dtype: the first
    /// component of its input, its imaginary one left out.
    real_operand: Option<usize>,
}

impl ComplexRun<'_> {
    /// Calls `op` on the inputs' operands (one or two complex tensors of `inputs.len()`
    /// elements) and reads the result.
    fn call(&self, op: OpKind, inputs: &[Components]) -> Result<ComplexValues, String> {
        let arity = match op {
            OpKind::Unary(_) => 1,
            _ => 2,
        };
        let n = inputs.len();
        let part = self.dtype.component().unwrap_or(self.dtype);
        let operands = (0..arity)
            .map(|k| {
                if self.operand_dtype(k) == part {
                    let real: Vec<u64> = inputs.iter().map(|x| x[2 * k]).collect();
                    return Tensor::from_bits(part, &[n], &real).map_err(|e| e.to_string());
                }
                let pairs: Vec<[u64; 2]> = inputs.iter().map(|x| [x[2 * k], x[2 * k + 1]]).collect();
                Tensor::from_pairs(self.dtype, &[n], &pairs).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let out = apply_guarded(self.adapter, op, operands, self.dtype, self.options.timeout)?
            .map_err(|e| format!("the adapter's {op} failed: {e}"))?;
        if out.shape() != [n] {
            return Err(format!("{op} of {n} elements gave shape {:?}", out.shape()));
        }
        match out.dtype() {
            DType::Bool => Ok(ComplexValues::Booleans(out.to_vec::<bool>().map_err(|e| e.to_string())?)),
            d if d == self.dtype => Ok(ComplexValues::Parts(
                out.to_pairs().map_err(|e| e.to_string())?.into_iter().map(Vec::from).collect(),
            )),
            d if d == part => Ok(ComplexValues::Parts(out.to_bits().into_iter().map(|b| vec![b]).collect())),
            d => Err(format!("{op} of {} gave {d}", self.dtype)),
        }
    }

    /// The dtype of operand `k` (0-based) as [`call`](Self::call) passes it.
    fn operand_dtype(&self, k: usize) -> DType {
        match self.real_operand {
            Some(r) if r == k + 1 => self.dtype.component().unwrap_or(self.dtype),
            _ => self.dtype,
        }
    }

    /// Calls the table's operation on `inputs` and judges every result by `expected`; a
    /// `reference` result by `references` (one per input) where given, else by the oracle.
    fn judge(
        &self,
        inputs: &[Components],
        expected: &ComplexResult,
        references: Option<&[Reference]>,
        rec: &mut Recorder,
    ) -> Result<(), String> {
        let op = op_kind(self.table.op);
        let values = self.call(op, inputs)?;
        rec.checked(inputs.len());
        let mut worst: Option<f64> = None;
        for (i, x) in inputs.iter().enumerate() {
            let reference = references.map(|r| &r[i]);
            let (ok, want) = self.judge.verdict(&values, i, x, expected, reference, &mut worst)?;
            if !ok {
                let actual = match &values {
                    ComplexValues::Booleans(b) => b[i].to_string(),
                    ComplexValues::Parts(p) => self.judge.describe_parts(&p[i]),
                };
                let grade = self.judge.grade(&values, i, x, expected, reference)?;
                rec.fail_graded(1, grade, false, || Failure {
                    inputs: self.describe_input(x),
                    expected: want(),
                    actual,
                    steps: None,
                    actual_bits: None,
                    batch: None,
                    repro: Repro::Check,
                });
            }
        }
        rec.result.max_ulp_error = worst;
        Ok(())
    }

    /// The input's components, a real operand's absent imaginary one left out, and the
    /// operands' dtypes where one is real.
    fn describe_input(&self, x: &Components) -> Vec<String> {
        let absent = self.real_operand.map(|k| Component::imaginary_of(k).index());
        let mut described: Vec<String> = (0..2 * self.table.op.arity())
            .filter(|&k| Some(k) != absent)
            .map(|k| format!("{} = {}", COMPONENTS[k], self.f.describe(x[k])))
            .collect();
        if self.real_operand.is_some() {
            let dtypes: Vec<String> = (0..self.table.op.arity())
                .map(|k| format!("x{} is {}", k + 1, self.operand_dtype(k)))
                .collect();
            described.push(dtypes.join(", "));
        }
        described
    }

    /// Checks a delegation on `inputs`; `Some(reason)` where the adapter lacks the operation
    /// it delegates to.
    fn property(
        &self,
        rule: &Delegation,
        inputs: &[Components],
        rec: &mut Recorder,
    ) -> Result<Option<String>, String> {
        let ComplexOp::Unary(op) = self.table.op else {
            return Err("properties are defined for unary functions".into());
        };
        let f = self.f;
        // Each transformed input and how the delegate's result maps back.
        let (other, transformed, back): (OpKind, Vec<Components>, MapBack) = match rule {
            Delegation::MinusITimesOfITimes(name) | Delegation::OfITimes(name) => {
                let u: UnaryOp = name.parse()?;
                // x*1j = -b + aj, exactly.
                let rotated = inputs.iter().map(|x| [f.neg(x[1]), x[0], 0, 0]).collect();
                let back: MapBack = if matches!(rule, Delegation::OfITimes(_)) {
                    Box::new(|_, w| w)
                } else {
                    // -1j * (p + qj) = q - pj, exactly.
                    Box::new(|f, w| [w[1], f.neg(w[0])])
                };
                (OpKind::Unary(u), rotated, back)
            }
            Delegation::SelfProduct => {
                let squared = inputs.iter().map(|x| [x[0], x[1], x[0], x[1]]).collect();
                (OpKind::Binary(BinaryOp::Multiply), squared, Box::new(|_, w| w))
            }
            Delegation::Conjugate => {
                let conjugated = inputs.iter().map(|x| [x[0], f.neg(x[1]), 0, 0]).collect();
                (OpKind::Unary(op), conjugated, Box::new(|f, w| [w[0], f.neg(w[1])]))
            }
            Delegation::ChangeOfBase(base) => {
                // log(x) / log(base): each part divided by the real log(base), correctly rounded.
                let ln_base = Float::with_val(PRECISION, *base).ln();
                let divided = move |f: Format, p: u64| {
                    round_exact(f, &(Float::with_val(PRECISION, decode(f, p)) / &ln_base))
                };
                let back: MapBack = Box::new(move |f, w| [divided(f, w[0]), divided(f, w[1])]);
                (OpKind::Unary(UnaryOp::Log), inputs.to_vec(), back)
            }
            Delegation::OneOver => {
                let over = inputs.iter().map(|x| [f.one(), 0, x[0], x[1]]).collect();
                (OpKind::Binary(BinaryOp::Divide), over, Box::new(|_, w| w))
            }
        };
        if let Support::Unsupported(reason) = self.adapter.supports(other, self.dtype) {
            return Ok(Some(format!("{other}: {reason}")));
        }
        let (ComplexValues::Parts(direct), ComplexValues::Parts(delegated)) =
            (self.call(OpKind::Unary(op), inputs)?, self.call(other, &transformed)?)
        else {
            return Err("the property compares complex results".into());
        };
        rec.checked(inputs.len());
        // `1.0 / x` divides a real 1.0 by x: the component table's cell for a real x1 over a
        // complex x2 is "special rules", which do not say whether 1.0 counts as 1 + 0j. The
        // readings differ in the signs of zero parts, so either sign is accepted there.
        let any_zero_sign = matches!(rule, Delegation::OneOver);
        for (i, x) in inputs.iter().enumerate() {
            let (got, want) = match rule {
                // conj(op(x)) against op(conj(x)).
                Delegation::Conjugate => {
                    (back(f, [direct[i][0], direct[i][1]]), [delegated[i][0], delegated[i][1]])
                }
                _ => ([direct[i][0], direct[i][1]], back(f, [delegated[i][0], delegated[i][1]])),
            };
            let same = |p: u64, q: u64| {
                p == q
                    || f.is_nan(p) && f.is_nan(q)
                    || any_zero_sign && f.is_zero(p) && f.is_zero(q)
                    || f.is_finite(p)
                        && f.is_finite(q)
                        && !f.is_zero(p)
                        && !f.is_zero(q)
                        && step_distance(f, p, q) <= 2
            };
            if !(same(got[0], want[0]) && same(got[1], want[1])) {
                rec.fail(1, || Failure {
                    inputs: self.describe_input(x),
                    expected: format!("{} (by the delegation)", self.judge.describe_parts(&want)),
                    actual: self.judge.describe_parts(&got),
                    steps: None,
                    actual_bits: None,
                    batch: None,
                    repro: Repro::Check,
                });
            }
        }
        Ok(None)
    }
}
