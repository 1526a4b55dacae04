//! Scatter tables: planning their checks and running them.
//!
//! A check is one literal case or one generator of a table, in one dtype, against one adapter
//! (or, for literal cases, against the oracle alone: the table self-check). It packs many
//! problems, but a scatter call is one problem by nature, so the adapter is called once per
//! problem (twice for determinism checks). Each output element is judged against the
//! reference in [`crate::oracle::scatter`]; a failure lists the element, its addends, the
//! exact sum, the bound and how far outside it the actual value was.
//!
//! A failure is graded (`docs/AUTHORITY.md`, rule 6): an element outside opspec's reference
//! but within what the document's words give (the table's `sum:`, or another reading of
//! negative coordinates its `negative_indices:` allows) misses opspec's bar; so does a literal
//! case cited to a source marked `opspec_bar` whose result is an error (a precondition stated
//! without an error), where any outcome the library returns meets the must. An error where the
//! document describes a result, and a dead process, fail a must.

use std::sync::Arc;

use opspec_adapter::{Adapter, AdapterError, DType, OpKind, ScatterMode, Tensor};

use super::call::guarded;
use super::check::{Check, CheckId, RunOptions, ScatterCases, ScatterTarget, Target};
use super::record::{Failure, Recorder, Repro, citation};
use crate::bits::format::Format;
use crate::bits::value::describe_value;
use crate::generate::shapes::unravel;
use crate::generate::{Generator, scatter_problems};
use crate::judge::authority::Grade;
use crate::oracle::scatter::{ElementExpect, ElementRef, Policy, Problem, parse_value, reference};
use crate::results::{CheckResult, Citation};
use crate::spec::scatter::{
    GeneratedCheck, LiteralCase, LoadedScatter, NegativeIndices, ScatterParams, StatedResult,
};
use crate::spec::{Catalog, LoadedSuite};

/// The checks of `suite`'s scatter tables against `adapter`.
pub fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let Some(params) = &suite.suite.scatter else { return Vec::new() };
    let mut checks = Vec::new();
    for &t in &suite.scatter {
        let table = &catalog.scatter[t];
        let dtypes = table.dtypes();
        for &dtype in suite.dtypes.iter().filter(|d| dtypes.contains(d)) {
            let literal = table
                .table
                .cases
                .iter()
                .enumerate()
                .filter(|(_, c)| c.when.admits(params) && c.dtypes.iter().any(|d| d == dtype.name()));
            let mut sets: Vec<(ScatterCases, String)> =
                literal.map(|(i, c)| (ScatterCases::Literal(i), c.id.value.clone())).collect();
            for (i, g) in table.table.generators.iter().enumerate() {
                if g.check != GeneratedCheck::Determinism || params.deterministic {
                    sets.push((ScatterCases::Generated(i), g.id.value.clone()));
                }
            }
            for (cases, case) in sets {
                checks.push(Check {
                    id: CheckId::adapter(&suite.suite.name, adapter, &table.table.op, dtype.name(), &case),
                    needs: Some((OpKind::ScatterAdd, dtype)),
                    planned: None,
                    target: Target::Scatter(ScatterTarget { table: t, dtype, cases }),
                });
            }
        }
    }
    checks
}

/// One self-check per (scatter table, literal case, dtype): the stated result must be one the
/// reference allows.
pub fn plan_tables(catalog: &Catalog) -> Vec<Check> {
    let mut checks = Vec::new();
    for (t, table) in catalog.scatter.iter().enumerate() {
        for (i, case) in table.table.cases.iter().enumerate() {
            for dtype in case.dtypes.iter().filter_map(|d| d.parse::<DType>().ok()) {
                checks.push(Check {
                    id: CheckId::table(&table.table.op, dtype.name(), &case.id.value),
                    needs: None,
                    planned: None,
                    target: Target::Scatter(ScatterTarget {
                        table: t,
                        dtype,
                        cases: ScatterCases::Literal(i),
                    }),
                });
            }
        }
    }
    checks
}

/// Runs a scatter check; `adapter` is `None` for a table self-check.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &ScatterTarget,
    adapter: Option<&Arc<dyn Adapter>>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.scatter[target.table];
    result.citation = Some(case_citation(table, target.cases));
    let rec = Recorder::new(result, options);
    let Some(adapter) = adapter else {
        let ScatterCases::Literal(i) = target.cases else {
            return Err("generators have no table self-check".into());
        };
        return check_stated(table, &table.table.cases[i], target.dtype, rec);
    };
    let suite = &check.adapter_suite(catalog)?.suite;
    let params = suite.scatter.as_ref().ok_or("the suite has no `scatter:` block")?;
    let bars = Bars { table, case: None };
    let mut run = ProblemRun { adapter, options, params, rec, bars, worst_ratio: None };
    match target.cases {
        ScatterCases::Literal(i) => {
            let case = &table.table.cases[i];
            run.bars.case = case_bar(table, case);
            let problem = literal_problem(case, target.dtype)?;
            let policy = policy_of(params, params.accepted_index_dtypes());
            run.problem(&problem, &policy, "the case", false)?;
        }
        ScatterCases::Generated(i) => {
            let spec = &table.table.generators[i];
            let mut generator = Generator::new(suite.seed, &check.id.to_string());
            let problems =
                scatter_problems(spec, target.dtype, &params.accepted_index_dtypes(), &mut generator)?;
            let policy = policy_of(params, params.accepted_index_dtypes());
            let repeat = spec.check == GeneratedCheck::Determinism;
            let n = problems.len();
            for (k, problem) in problems.iter().enumerate() {
                run.problem(problem, &policy, &format!("problem {} of {n}", k + 1), repeat)?;
            }
        }
    }
    run.finish();
    Ok(())
}

fn policy_of(params: &ScatterParams, index_dtypes: Vec<DType>) -> Policy {
    Policy {
        mode: params.mode.adapter_mode(),
        wrap_negative: params.negative_indices == NegativeIndices::Wrap,
        index_dtypes,
    }
}

fn case_citation(table: &LoadedScatter, cases: ScatterCases) -> Citation {
    let (id, source, anchor, text) = match cases {
        ScatterCases::Literal(i) => {
            let c = &table.table.cases[i];
            (&c.id, &c.source, &c.anchor, &c.text)
        }
        ScatterCases::Generated(i) => {
            let g = &table.table.generators[i];
            (&g.id, &g.source, &g.anchor, &g.text)
        }
    };
    let title = table.source(source).map_or(source.as_str(), |s| s.title.as_str());
    citation(&table.table.op, id, &table.path, title, anchor, text.clone())
}

/// The problem a literal case states, in `dtype`.
fn literal_problem(case: &LiteralCase, dtype: DType) -> Result<Problem, String> {
    let read =
        |values: &[String]| values.iter().map(|v| parse_value(dtype, v)).collect::<Result<Vec<_>, _>>();
    Ok(Problem {
        dtype,
        input_shape: case.input.shape.clone(),
        input: read(&case.input.values)?,
        index_dtype: case.indices.dtype.parse()?,
        index_shape: case.indices.shape.clone(),
        indices: case.indices.values.clone(),
        updates_dtype: dtype,
        updates_shape: case.updates.shape.clone(),
        updates: read(&case.updates.values)?,
    })
}

/// The table self-check of a literal case: the stated result must be one the reference
/// allows under the suite parameters the case is written for.
fn check_stated(
    table: &LoadedScatter,
    case: &LiteralCase,
    dtype: DType,
    mut rec: Recorder,
) -> Result<(), String> {
    let problem = literal_problem(case, dtype)?;
    let params = ScatterParams {
        mode: case.when.mode.unwrap_or(crate::spec::scatter::Mode::Ignore),
        negative_indices: case.when.negative_indices.unwrap_or_default(),
        deterministic: false,
        index_dtypes: table.table.index_dtypes.clone(),
    };
    let index_dtypes = table.table.index_dtypes.iter().filter_map(|d| d.parse().ok()).collect();
    let policy = policy_of(&params, index_dtypes);
    let whole = |expected: String, actual: String| Failure {
        inputs: problem_lines(&problem, &policy, "the case"),
        expected,
        actual,
        steps: None,
        actual_bits: None,
        batch: None,
        repro: Repro::Check,
    };
    match (reference(&problem, &policy), &case.result) {
        (Err(required), StatedResult::Error(stated)) => {
            rec.checked(1);
            if required.kind != stated.kind() {
                rec.fail(1, || {
                    whole(
                        format!("a {} error ({})", required.kind.name(), required.reason),
                        format!("the table states a {} error", stated.kind().name()),
                    )
                });
            }
        }
        (Err(required), StatedResult::Values(_)) => {
            rec.checked(1);
            rec.fail(1, || {
                whole(
                    format!("a {} error ({})", required.kind.name(), required.reason),
                    "the table states values".into(),
                )
            });
        }
        (Ok(_), StatedResult::Error(stated)) => {
            rec.checked(1);
            rec.fail(1, || {
                whole("values".into(), format!("the table states a {} error", stated.kind().name()))
            });
        }
        (Ok(elements), StatedResult::Values(stated)) => {
            rec.checked(elements.len());
            for (e, (element, text)) in elements.iter().zip(stated).enumerate() {
                let bits = parse_value(dtype, text)?;
                if element.expect.judge(dtype, bits).accepted {
                    continue;
                }
                rec.fail(1, || Failure {
                    inputs: element_inputs(&problem, &policy, e, element, "the case"),
                    expected: element.expect.describe(dtype),
                    actual: format!("stated {text}: {}", describe_value(dtype, bits)),
                    steps: ulp(dtype, &element.expect, bits),
                    actual_bits: Some(bits),
                    batch: None,
                    repro: Repro::Check,
                });
            }
        }
    }
    rec.finish("stated results");
    Ok(())
}

/// State of an adapter check while its problems run.
struct ProblemRun<'a> {
    adapter: &'a Arc<dyn Adapter>,
    options: &'a RunOptions,
    params: &'a ScatterParams,
    rec: Recorder<'a>,
    bars: Bars<'a>,
    /// The largest `|r - S| / bound` seen among accepted and rejected elements.
    worst_ratio: Option<f64>,
}

/// On whose authority a check's failures are graded.
struct Bars<'a> {
    table: &'a LoadedScatter,
    /// For a literal case cited to a source marked `opspec_bar`: that bar, named.
    case: Option<String>,
}

/// opspec's bar named, for a literal case cited to a source marked `opspec_bar`.
fn case_bar(table: &LoadedScatter, case: &LiteralCase) -> Option<String> {
    let source = table.source(&case.source).filter(|s| s.opspec_bar)?;
    Some(format!(
        "opspec's bar: \"{}\" ({}, {}; {}:{}), which {} does not state",
        case.text,
        source.title,
        case.anchor,
        table.path.display(),
        case.id.referenced.line(),
        document(table)
    ))
}

/// The title of the table's own document: its first source not marked `opspec_bar`.
fn document(table: &LoadedScatter) -> &str {
    table.table.sources.iter().find(|s| !s.opspec_bar).map_or("the document", |s| s.title.as_str())
}

impl Bars<'_> {
    /// The grade of an outcome that is not the error the reference requires.
    fn missed_error(&self) -> Grade {
        self.case.clone().map_or_else(Grade::cited, Grade::opspec)
    }

    /// The grade of an element outside opspec's reference: opspec's bar where the document's
    /// words give the value (`stated`) or the output is one another allowed reading of
    /// negative coordinates gives (`other_reading`), else the must the check cites.
    fn element(&self, dtype: DType, element: &ElementRef, actual: u64, other_reading: Option<&str>) -> Grade {
        if !element.stated.judge(dtype, actual).accepted {
            return other_reading.map_or_else(Grade::cited, |basis| Grade::opspec(basis.to_string()));
        }
        if let Some(case) = &self.case {
            return Grade::opspec(case.clone());
        }
        let sum = &self.table.table.sum;
        let quoted = format!(
            "\"{}\" ({}, {}; {})",
            sum.text,
            self.table.source(&sum.source).map_or(sum.source.as_str(), |s| s.title.as_str()),
            sum.anchor,
            self.table.path.display()
        );
        let bar = match (&element.stated, Format::of(dtype)) {
            (ElementExpect::Zero, _) => {
                "the sign of a zero (IEEE 754-2019 6.3: +0 for an exact \
                 cancellation rounded to nearest, a copied zero keeps its sign)"
            }
            (ElementExpect::Any, Some(_)) => {
                "IEEE 754-2019 addition of NaN and infinite addends (6.1, 6.2, 7.2)"
            }
            (ElementExpect::Any, None) => "integer sums wrap (the suite's `integers.overflow: wrap`)",
            _ => {
                "the sum as IEEE 754-2019 addition rounded to nearest gives it in some order (exact \
                 where every order is exact, else within γ(n-1)·Σ|x| of the exact sum)"
            }
        };
        Grade::opspec(format!(
            "opspec's bar: {bar}; {} says only {quoted}, which any order, any rounding direction, \
             either zero and any value for NaN, infinities or an overflowing integer sum meet",
            document(self.table)
        ))
    }

    /// Where the suite reads negative coordinates as out of range in `ignore` mode (the
    /// document's) and the table's `negative_indices` allows another reading: opspec's bar
    /// named, if `actual` meets the must under that reading.
    fn other_reading(&self, problem: &Problem, policy: &Policy, actual: &[u64]) -> Option<String> {
        let open = self.table.table.negative_indices.as_ref()?;
        if policy.mode != ScatterMode::Ignore || !problem.indices.iter().any(|&c| c < 0) {
            return None;
        }
        let suite = if policy.wrap_negative { NegativeIndices::Wrap } else { NegativeIndices::OutOfRange };
        open.allows.iter().filter(|&&r| r != suite).find_map(|&reading| {
            let other = Policy { wrap_negative: reading == NegativeIndices::Wrap, ..policy.clone() };
            let elements = reference(problem, &other).ok()?;
            let met = elements.iter().zip(actual).all(|(e, &a)| e.stated.judge(problem.dtype, a).accepted);
            met.then(|| {
                let source = self.table.source(&open.source).map_or(open.source.as_str(), |s| s.title.as_str());
                format!(
                    "opspec's bar: negative coordinates read as {} (the suite's `scatter.negative_indices`); \
                     this output reads them as {}, which the document's words also allow: \"{}\" ({source}, {}; {})",
                    reading_name(suite),
                    reading_name(reading),
                    open.text,
                    open.anchor,
                    self.table.path.display()
                )
            })
        })
    }
}

fn reading_name(reading: NegativeIndices) -> &'static str {
    match reading {
        NegativeIndices::OutOfRange => "out of bound (skipped)",
        NegativeIndices::Wrap => "counting from the end of their axis",
    }
}

impl ProblemRun<'_> {
    /// Runs one problem (twice when `repeat`) and judges the outcome.
    fn problem(
        &mut self,
        problem: &Problem,
        policy: &Policy,
        label: &str,
        repeat: bool,
    ) -> Result<(), String> {
        let expected = reference(problem, policy);
        let first = self.call(problem)?;
        let second = if repeat { Some(self.call(problem)?) } else { None };
        match (&expected, &first) {
            (Err(required), Err(actual)) if actual.kind == required.kind => self.rec.checked(1),
            (Err(required), actual) => {
                let actual = match actual {
                    Ok(_) => "a result, no error".to_string(),
                    Err(e) => format!("error {e}"),
                };
                let expected = format!("a {} error: {}", required.kind.name(), required.reason);
                let grade = self.bars.missed_error();
                self.fail_problem(problem, policy, label, (expected, actual), grade);
            }
            (Ok(_), Err(e)) => {
                let what = ("a result".into(), format!("error {e}"));
                self.fail_problem(problem, policy, label, what, Grade::cited());
            }
            (Ok(elements), Ok(actual)) => self.judge(problem, policy, label, elements, actual),
        }
        if let Some(second) = &second {
            let difference = match (&first, second) {
                (Ok(a), Ok(b)) => a.iter().zip(b).position(|(x, y)| x != y).map(|e| {
                    (
                        format!("output element {}", index_text(&problem.input_shape, e)),
                        format!(
                            "run 1 gave {}, run 2 gave {}",
                            describe_value(problem.dtype, a[e]),
                            describe_value(problem.dtype, b[e])
                        ),
                    )
                }),
                (Err(a), Err(b)) if a.kind == b.kind => None,
                (a, b) => {
                    let text = |r: &Result<Vec<u64>, AdapterError>| match r {
                        Ok(_) => "a result".to_string(),
                        Err(e) => format!("error {e}"),
                    };
                    Some((
                        "the outcome".to_string(),
                        format!("run 1 gave {}, run 2 gave {}", text(a), text(b)),
                    ))
                }
            };
            if let Some((what, actual)) = difference {
                let expected = format!("identical bits on every run (the suite is deterministic); {what}");
                let grade = Grade::opspec(
                    "opspec's bar: identical bits on every run (the suite's `deterministic: true`); the document does not promise it".into(),
                );
                self.fail_problem(problem, policy, label, (expected, actual), grade);
            }
        }
        Ok(())
    }

    /// Calls the adapter on `problem`; returns the output bits or its error. A panic, a
    /// time-out, or a tensor that cannot be built ends the check.
    fn call(&self, problem: &Problem) -> Result<Result<Vec<u64>, AdapterError>, String> {
        let (input, indices, updates) = tensors(problem)?;
        let adapter = Arc::clone(self.adapter);
        let mode = self.params.mode.adapter_mode();
        let returned =
            guarded(self.options.timeout, move || adapter.scatter_add(&input, &indices, &updates, mode))?;
        Ok(match returned {
            Err(e) => Err(e),
            Ok(t) if t.dtype() != problem.dtype || t.shape() != problem.input_shape.as_slice() => {
                return Err(format!(
                    "the adapter returned {}{:?}, expected {}{:?}",
                    t.dtype(),
                    t.shape(),
                    problem.dtype,
                    problem.input_shape
                ));
            }
            Ok(t) => Ok(t.to_bits()),
        })
    }

    fn judge(
        &mut self,
        problem: &Problem,
        policy: &Policy,
        label: &str,
        elements: &[ElementRef],
        actual: &[u64],
    ) {
        self.rec.checked(elements.len());
        let mut other_reading = None;
        let mut other_reading_tried = false;
        for (e, (element, &bits)) in elements.iter().zip(actual).enumerate() {
            let verdict = element.expect.judge(problem.dtype, bits);
            if let Some(r) = verdict.bound_ratio {
                self.worst_ratio = Some(self.worst_ratio.map_or(r, |w| w.max(r)));
            }
            if verdict.accepted {
                continue;
            }
            if !other_reading_tried && !element.stated.judge(problem.dtype, bits).accepted {
                other_reading = self.bars.other_reading(problem, policy, actual);
                other_reading_tried = true;
            }
            let grade = self.bars.element(problem.dtype, element, bits, other_reading.as_deref());
            self.rec.fail_graded(1, grade, false, || {
                let how_far = verdict
                    .bound_ratio
                    .map_or(String::new(), |r| format!(" — |r - S| is {r:.3}× the bound (1 is its edge)"));
                Failure {
                    inputs: element_inputs(problem, policy, e, element, label),
                    expected: element.expect.describe(problem.dtype),
                    actual: format!("{}{how_far}", describe_value(problem.dtype, bits)),
                    steps: ulp(problem.dtype, &element.expect, bits),
                    actual_bits: Some(bits),
                    batch: None,
                    repro: Repro::Check,
                }
            });
        }
    }

    fn fail_problem(
        &mut self,
        problem: &Problem,
        policy: &Policy,
        label: &str,
        (expected, actual): (String, String),
        grade: Grade,
    ) {
        self.rec.checked(1);
        self.rec.fail_graded(1, grade, false, || Failure {
            inputs: problem_lines(problem, policy, label),
            expected,
            actual,
            steps: None,
            actual_bits: None,
            batch: None,
            repro: Repro::Check,
        });
    }

    /// Sets the message: on a failure, how many outputs failed; on a pass with order-dependent
    /// sums, how far inside the bound the worst element stayed.
    fn finish(mut self) {
        let worst = self.worst_ratio.map_or(String::new(), |r| {
            format!("the largest |r - S| among order-dependent sums was {:.1} % of γ(n-1)·Σ|x|", 100.0 * r)
        });
        self.rec.finish("outputs (elements, or expected errors)");
        let message = &mut self.rec.result.message;
        match (message.is_empty(), worst.is_empty()) {
            (_, true) => {}
            (true, false) => *message = worst,
            (false, false) => *message = format!("{message}; {worst}"),
        }
    }
}

fn ulp(dtype: DType, expect: &ElementExpect, actual: u64) -> Option<u64> {
    let f = Format::of(dtype)?;
    let centre = expect.centre()?;
    (!f.is_nan(centre) && !f.is_nan(actual)).then(|| crate::judge::expect::step_distance(f, actual, centre))
}

/// `[1, 2]` for the row-major position `flat` of `shape`.
fn index_text(shape: &[usize], flat: usize) -> String {
    format!("{:?}", unravel(flat, shape))
}

fn shape_text(dtype: DType, shape: &[usize]) -> String {
    format!("{dtype}{shape:?}")
}

/// The problem in a few lines: shapes, mode, and the index vectors when they are few.
fn problem_lines(p: &Problem, policy: &Policy, label: &str) -> Vec<String> {
    let depth = p.index_shape.last().copied().unwrap_or(0);
    let mut lines = vec![format!(
        "{label}: input {}, indices {} (depth {depth}), updates {}, mode {:?}, negative indices {}",
        shape_text(p.dtype, &p.input_shape),
        shape_text(p.index_dtype, &p.index_shape),
        shape_text(p.updates_dtype, &p.updates_shape),
        policy.mode,
        if policy.wrap_negative { "wrap" } else { "out of range" },
    )];
    if depth > 0 && p.indices.len() <= 64 {
        let vectors: Vec<String> = p.indices.chunks(depth).map(|v| format!("{v:?}")).collect();
        lines.push(format!("indices = [{}]", vectors.join(", ")));
    }
    if p.input.len() <= 8 {
        let values: Vec<String> = p.input.iter().map(|&b| value_text(p.dtype, b)).collect();
        lines.push(format!("input = [{}]", values.join(", ")));
    }
    if p.updates.len() <= 8 {
        let values: Vec<String> = p.updates.iter().map(|&b| value_text(p.updates_dtype, b)).collect();
        lines.push(format!("updates = [{}]", values.join(", ")));
    }
    lines
}

fn value_text(dtype: DType, bits: u64) -> String {
    match Format::of(dtype) {
        Some(f) => f.decimal(bits),
        None => describe_value(dtype, bits).split(' ').next().unwrap_or_default().to_string(),
    }
}

/// The problem, then the failing element and every addend that went into it.
fn element_inputs(p: &Problem, policy: &Policy, e: usize, element: &ElementRef, label: &str) -> Vec<String> {
    let mut lines = problem_lines(p, policy, label);
    let depth = p.index_shape.last().copied().unwrap_or(0);
    let slice: usize = p.input_shape[depth.min(p.input_shape.len())..].iter().product();
    lines.push(format!(
        "output element {} receives {} update(s); n = {} addends",
        index_text(&p.input_shape, e),
        element.updates.len(),
        element.updates.len() + 1
    ));
    lines.push(format!("input{} = {}", index_text(&p.input_shape, e), describe_value(p.dtype, p.input[e])));
    for &u in element.updates.iter().take(12) {
        let v = u / slice.max(1);
        let coords = &p.indices[v * depth..(v + 1) * depth];
        lines.push(format!(
            "updates{} = {} (index vector {v} = {coords:?})",
            index_text(&p.updates_shape, u),
            describe_value(p.dtype, p.updates[u])
        ));
    }
    if element.updates.len() > 12 {
        lines.push(format!("... and {} more updates", element.updates.len() - 12));
    }
    lines
}

/// The adapter's operands for a problem.
fn tensors(p: &Problem) -> Result<(Tensor, Tensor, Tensor), String> {
    let index_bits =
        p.indices.iter().map(|&v| index_bits(p.index_dtype, v)).collect::<Result<Vec<_>, _>>()?;
    let make = |dtype, shape: &[usize], bits: &[u64]| {
        Tensor::from_bits(dtype, shape, bits).map_err(|e| e.to_string())
    };
    Ok((
        make(p.dtype, &p.input_shape, &p.input)?,
        make(p.index_dtype, &p.index_shape, &index_bits)?,
        make(p.updates_dtype, &p.updates_shape, &p.updates)?,
    ))
}

/// A coordinate stored in an index tensor of `dtype` (floats must represent it exactly).
fn index_bits(dtype: DType, v: i64) -> Result<u64, String> {
    match Format::of(dtype) {
        Some(f) => f.from_f64_exact(v as f64).ok_or_else(|| format!("index {v} is not exact in {dtype}")),
        None if dtype == DType::Bool => Ok(u64::from(v != 0)),
        None => Ok(v as u64),
    }
}
