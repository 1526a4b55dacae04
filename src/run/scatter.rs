//! Scatter tables: planning their checks and running them.
//!
//! A check is one literal case or one generator of a table, in one dtype, against one adapter
//! (or, for literal cases, against the oracle alone: the table self-check). It packs many
//! problems, but a scatter call is one problem by nature, so the adapter is called once per
//! problem (twice for determinism checks). Each output element is judged against the
//! reference in [`crate::oracle::scatter`]; a failure lists the element, its addends, the
//! exact sum, the bound and how far outside it the actual value was.

use std::sync::Arc;

use opspec_adapter::{Adapter, AdapterError, DType, OpKind, Tensor};

use super::RunOptions;
use super::call::guarded;
use super::plan::{Check, Target};
use super::result::{CaseFailure, CheckResult, Citation, Status};
use crate::format::Format;
use crate::generate::fnv1a;
use crate::oracle::scatter::{
    ElementExpect, ElementRef, Policy, Problem, describe_value, parse_value, reference,
};
use crate::spec::Catalog;
use crate::spec::scatter::{
    GeneratedCheck, GeneratorSpec, LiteralCase, LoadedScatter, NegativeIndices, ScatterParams, StatedResult,
    ValueKind,
};

/// Which problems a scatter check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterCases {
    /// A literal case (index into the table's `cases`).
    Literal(usize),
    /// A generator (index into the table's `generators`).
    Generated(usize),
}

/// A scatter check: one case set of one scatter table in one dtype.
#[derive(Clone, Copy, Debug)]
pub struct ScatterTarget {
    /// Index into [`Catalog::scatter`].
    pub table: usize,
    /// The element dtype.
    pub dtype: DType,
    /// The problems.
    pub cases: ScatterCases,
}

/// The checks of suite `s`'s scatter tables against `adapter`.
pub fn plan_suite(catalog: &Catalog, s: usize, adapter: &str) -> Vec<Check> {
    let suite = &catalog.suites[s];
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
                    id: format!("{}:{adapter}:{}:{dtype}:{case}", suite.suite.name, table.table.op),
                    suite: Some(s),
                    adapter: Some(adapter.to_string()),
                    op: table.table.op.clone(),
                    dtype: dtype.name().to_string(),
                    case,
                    needs: Some((OpKind::ScatterAdd, dtype)),
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
                    id: format!("table:{}:{dtype}:{}", table.table.op, case.id.value),
                    suite: None,
                    adapter: None,
                    op: table.table.op.clone(),
                    dtype: dtype.name().to_string(),
                    case: case.id.value.clone(),
                    needs: None,
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
    result.citation = Some(citation(table, target.cases));
    let Some(adapter) = adapter else {
        let ScatterCases::Literal(i) = target.cases else {
            return Err("generators have no table self-check".into());
        };
        return check_stated(table, &table.table.cases[i], target.dtype, check, result);
    };
    let s = check.suite.ok_or("adapter check without a suite")?;
    let suite = &catalog.suites[s].suite;
    let params = suite.scatter.as_ref().ok_or("the suite has no `scatter:` block")?;
    let mut run = ProblemRun { check, adapter, options, params, result, worst_ratio: None };
    match target.cases {
        ScatterCases::Literal(i) => {
            let case = &table.table.cases[i];
            let problem = literal_problem(case, target.dtype)?;
            let policy = policy_of(params, params.accepted_index_dtypes());
            run.problem(&problem, &policy, "the case", false)?;
        }
        ScatterCases::Generated(i) => {
            let spec = &table.table.generators[i];
            let mut rng = Rng::new(suite.seed, &check.id);
            let problems = generate(spec, target.dtype, params, &mut rng)?;
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

fn citation(table: &LoadedScatter, cases: ScatterCases) -> Citation {
    let (id, source, anchor, text, line) = match cases {
        ScatterCases::Literal(i) => {
            let c = &table.table.cases[i];
            (&c.id.value, &c.source, &c.anchor, &c.text, c.id.referenced.line())
        }
        ScatterCases::Generated(i) => {
            let g = &table.table.generators[i];
            (&g.id.value, &g.source, &g.anchor, &g.text, g.id.referenced.line())
        }
    };
    let title = table.source(source).map_or(source.as_str(), |s| s.title.as_str());
    Citation {
        row: format!("{}/{id}", table.table.op),
        source: format!("{title}, {anchor}"),
        text: text.clone(),
        location: format!("{}:{line}", table.path.display()),
    }
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
    check: &Check,
    result: &mut CheckResult,
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
    let reproduce = format!("cargo test --release --test conformance -- --exact {}", check.id);
    let fail = |result: &mut CheckResult, message: String| {
        result.status = Status::Fail;
        result.failed_inputs += 1;
        result.message = message;
    };
    match (reference(&problem, &policy), &case.result) {
        (Err(required), StatedResult::Error(stated)) => {
            result.inputs = 1;
            if required.kind != stated.kind() {
                fail(
                    result,
                    format!(
                        "the table states a {} error, the reference requires {} ({})",
                        stated.kind().name(),
                        required.kind.name(),
                        required.reason
                    ),
                );
            }
        }
        (Err(required), StatedResult::Values(_)) => {
            result.inputs = 1;
            fail(
                result,
                format!(
                    "the table states values, the reference requires a {} error ({})",
                    required.kind.name(),
                    required.reason
                ),
            );
        }
        (Ok(_), StatedResult::Error(stated)) => {
            result.inputs = 1;
            fail(
                result,
                format!("the table states a {} error, the reference gives values", stated.kind().name()),
            );
        }
        (Ok(elements), StatedResult::Values(stated)) => {
            result.inputs = elements.len();
            for (e, (element, text)) in elements.iter().zip(stated).enumerate() {
                let bits = parse_value(dtype, text)?;
                if element.expect.judge(dtype, bits).accepted {
                    continue;
                }
                result.status = Status::Fail;
                result.failed_inputs += 1;
                if result.failures.len() < 5 {
                    result.failures.push(CaseFailure {
                        inputs: element_inputs(&problem, &policy, e, element, "the case"),
                        expected: element.expect.describe(dtype),
                        actual: format!("stated {text}: {}", describe_value(dtype, bits)),
                        ulp_distance: ulp(dtype, &element.expect, bits),
                        reproduce: reproduce.clone(),
                    });
                }
            }
            if result.status == Status::Fail {
                result.message = format!(
                    "{} of {} stated values are not results the reference allows",
                    result.failed_inputs, result.inputs
                );
            }
        }
    }
    Ok(())
}

/// State of an adapter check while its problems run.
struct ProblemRun<'a> {
    check: &'a Check,
    adapter: &'a Arc<dyn Adapter>,
    options: &'a RunOptions,
    params: &'a ScatterParams,
    result: &'a mut CheckResult,
    /// The largest `|r - S| / bound` seen among accepted and rejected elements.
    worst_ratio: Option<f64>,
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
            (Err(required), Err(actual)) if actual.kind == required.kind => self.result.inputs += 1,
            (Err(required), actual) => {
                let actual = match actual {
                    Ok(_) => "a result, no error".to_string(),
                    Err(e) => format!("error {e}"),
                };
                self.fail_problem(
                    problem,
                    policy,
                    label,
                    format!("a {} error: {}", required.kind.name(), required.reason),
                    actual,
                );
            }
            (Ok(_), Err(e)) => {
                self.fail_problem(problem, policy, label, "a result".into(), format!("error {e}"));
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
                self.fail_problem(problem, policy, label, expected, actual);
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
        self.result.inputs += elements.len();
        for (e, (element, &bits)) in elements.iter().zip(actual).enumerate() {
            let verdict = element.expect.judge(problem.dtype, bits);
            if let Some(r) = verdict.bound_ratio {
                self.worst_ratio = Some(self.worst_ratio.map_or(r, |w| w.max(r)));
            }
            if verdict.accepted {
                continue;
            }
            self.result.status = Status::Fail;
            self.result.failed_inputs += 1;
            if self.result.failures.len() < self.options.max_listed_failures {
                let how_far = verdict
                    .bound_ratio
                    .map_or(String::new(), |r| format!(" — |r - S| is {r:.3}× the bound (1 is its edge)"));
                let failure = CaseFailure {
                    inputs: element_inputs(problem, policy, e, element, label),
                    expected: element.expect.describe(problem.dtype),
                    actual: format!("{}{how_far}", describe_value(problem.dtype, bits)),
                    ulp_distance: ulp(problem.dtype, &element.expect, bits),
                    reproduce: self.reproduce(label),
                };
                self.result.failures.push(failure);
            }
        }
    }

    fn fail_problem(
        &mut self,
        problem: &Problem,
        policy: &Policy,
        label: &str,
        expected: String,
        actual: String,
    ) {
        self.result.inputs += 1;
        self.result.failed_inputs += 1;
        self.result.status = Status::Fail;
        if self.result.failures.len() < self.options.max_listed_failures {
            let failure = CaseFailure {
                inputs: problem_lines(problem, policy, label),
                expected,
                actual,
                ulp_distance: None,
                reproduce: self.reproduce(label),
            };
            self.result.failures.push(failure);
        }
    }

    fn reproduce(&self, label: &str) -> String {
        format!("cargo test --release --test conformance -- --exact {}   ({label})", self.check.id)
    }

    /// Sets the message: on a failure, how many outputs failed; on a pass with order-dependent
    /// sums, how far inside the bound the worst element stayed.
    fn finish(&mut self) {
        let worst = self.worst_ratio.map_or(String::new(), |r| {
            format!("the largest |r - S| among order-dependent sums was {:.1} % of γ(n-1)·Σ|x|", 100.0 * r)
        });
        if self.result.status == Status::Fail {
            let sep = if worst.is_empty() { "" } else { "; " };
            self.result.message = format!(
                "{} of {} outputs (elements, or expected errors) are not what the contract allows{sep}{worst}",
                self.result.failed_inputs, self.result.inputs
            );
        } else {
            self.result.message = worst;
        }
    }
}

fn ulp(dtype: DType, expect: &ElementExpect, actual: u64) -> Option<u64> {
    let f = Format::of(dtype)?;
    let centre = expect.centre()?;
    (!f.is_nan(centre) && !f.is_nan(actual)).then(|| crate::check::step_distance(f, actual, centre))
}

/// `[1, 2]` for the row-major position `flat` of `shape`.
fn index_text(shape: &[usize], flat: usize) -> String {
    let mut coords = vec![0; shape.len()];
    let mut rest = flat;
    for (c, &n) in coords.iter_mut().zip(shape).rev() {
        *c = rest % n.max(1);
        rest /= n.max(1);
    }
    format!("{coords:?}")
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

/// A small deterministic generator (SplitMix64), seeded from the suite seed and the check id.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, label: &str) -> Rng {
        Rng(seed ^ fnv1a(label.as_bytes()))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn between(&mut self, [lo, hi]: [f64; 2]) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// The problems of a generator in `dtype`.
fn generate(
    spec: &GeneratorSpec,
    dtype: DType,
    params: &ScatterParams,
    rng: &mut Rng,
) -> Result<Vec<Problem>, String> {
    let accepted = params.accepted_index_dtypes();
    if spec.check == GeneratedCheck::IndexDtypes {
        let mut problems = Vec::new();
        for index_dtype in DType::ALL {
            for _ in 0..spec.problems {
                problems.push(random_problem(spec, dtype, index_dtype, rng));
            }
        }
        return Ok(problems);
    }
    if accepted.is_empty() {
        return Err("the suite accepts no index dtype".into());
    }
    Ok((0..spec.problems).map(|k| random_problem(spec, dtype, accepted[k % accepted.len()], rng)).collect())
}

fn random_problem(spec: &GeneratorSpec, dtype: DType, index_dtype: DType, rng: &mut Rng) -> Problem {
    let rank = 1 + rng.below(spec.max_rank);
    let mut input_shape: Vec<usize> = (0..rank).map(|_| 1 + rng.below(spec.max_extent)).collect();
    let depth = 1 + rng.below(rank);
    if depth < rank && rng.chance(spec.zero_size) {
        input_shape[depth + rng.below(rank - depth)] = 0;
    }
    let mut vectors = rng.below(spec.max_index_vectors + 1);
    let mut batch = if rng.chance(0.3) && vectors > 1 {
        let a = 2 + rng.below(2);
        vectors = vectors.div_ceil(a);
        vec![a, vectors]
    } else {
        vec![vectors]
    };
    if rng.chance(spec.empty_indices) {
        let axis = rng.below(batch.len());
        batch[axis] = 0;
    }
    let count: usize = batch.iter().product();
    let (dup, oor) = (rng.between(spec.duplicates), rng.between(spec.out_of_range));
    let narrow = index_dtype != DType::I64;
    let mut indices: Vec<i64> = Vec::with_capacity(count * depth);
    for v in 0..count {
        if v > 0 && rng.chance(dup) {
            let from = rng.below(v) * depth;
            indices.extend_from_within(from..from + depth);
            continue;
        }
        let start = indices.len();
        for &extent in &input_shape[..depth] {
            indices.push(rng.below(extent) as i64);
        }
        if rng.chance(oor) {
            let axis = rng.below(depth);
            let extent = input_shape[axis] as i64;
            indices[start + axis] = match rng.below(5) {
                0 | 1 => extent + rng.below(3) as i64,
                2 | 3 => -1 - rng.below(input_shape[axis] + 2) as i64,
                _ if narrow => [i64::from(i32::MAX), i64::from(i32::MIN)][rng.below(2)],
                _ => [i64::MAX, i64::MIN][rng.below(2)],
            };
        }
    }
    if index_dtype != DType::I32 && index_dtype != DType::I64 {
        // Other index dtypes only need representable, in-range coordinates.
        for (k, c) in indices.iter_mut().enumerate() {
            *c = (*c).clamp(0, input_shape[k % depth].saturating_sub(1) as i64).min(1);
        }
    }
    let sliced = &input_shape[depth..];
    let updates_shape: Vec<usize> = batch.iter().chain(sliced).copied().collect();
    let input_len: usize = input_shape.iter().product();
    let updates_len: usize = updates_shape.iter().product();
    Problem {
        dtype,
        input: (0..input_len).map(|_| random_value(dtype, spec.values, rng)).collect(),
        input_shape,
        index_dtype,
        index_shape: batch.iter().copied().chain([depth]).collect(),
        indices,
        updates_dtype: dtype,
        updates: (0..updates_len).map(|_| random_value(dtype, spec.values, rng)).collect(),
        updates_shape,
    }
}

fn random_value(dtype: DType, kind: ValueKind, rng: &mut Rng) -> u64 {
    let mask = if dtype.size() == 8 { u64::MAX } else { (1u64 << (8 * dtype.size())) - 1 };
    let unsigned = matches!(dtype, DType::U8 | DType::U16 | DType::U32 | DType::U64);
    match (Format::of(dtype), kind) {
        (None, ValueKind::Random) => rng.next() & mask,
        (None, ValueKind::SmallIntegers) => {
            let v = if unsigned { rng.below(5) as i64 } else { rng.below(9) as i64 - 4 };
            v as u64 & mask
        }
        (Some(f), ValueKind::SmallIntegers) => {
            let v = rng.below(9) as f64 - 4.0;
            // -0 now and then: small integers include both zeros.
            let v = if v == 0.0 && rng.chance(0.5) { -0.0 } else { v };
            f.from_f64_exact(v).unwrap_or(0)
        }
        (Some(f), ValueKind::Random) => {
            let r = rng.next();
            match r % 64 {
                0 => r >> 63 << (f.bits - 1),                     // ±0
                1 => f.compose(r >> 63 == 1, 0, (r >> 8).max(1)), // subnormal
                _ => f.compose(r >> 63 == 1, (f.bias() - 8 + (r >> 8) as i32 % 12) as u64, r >> 20),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_text_is_row_major() {
        assert_eq!(index_text(&[2, 3], 4), "[1, 1]");
        assert_eq!(index_text(&[3], 2), "[2]");
        assert_eq!(index_text(&[], 0), "[]");
    }

    #[test]
    fn generated_problems_are_well_formed_and_reproducible() {
        let yaml = "{id: x, source: s, anchor: a, text: t, check: values, values: random, problems: 50, \
                    max_rank: 3, max_extent: 5, max_index_vectors: 40, duplicates: [0.0, 0.6], \
                    out_of_range: [0.0, 0.2], empty_indices: 0.1, zero_size: 0.1}";
        let spec: GeneratorSpec =
            crate::spec::load::parse_yaml(std::path::Path::new("test.yaml"), yaml).unwrap();
        let params = ScatterParams {
            mode: crate::spec::scatter::Mode::Ignore,
            negative_indices: NegativeIndices::OutOfRange,
            deterministic: false,
            index_dtypes: vec!["i32".into(), "i64".into()],
        };
        for dtype in [DType::F16, DType::F64, DType::U8, DType::I64] {
            let a = generate(&spec, dtype, &params, &mut Rng::new(1, "id")).unwrap();
            let b = generate(&spec, dtype, &params, &mut Rng::new(1, "id")).unwrap();
            assert_eq!(a, b);
            let policy = policy_of(&params, params.accepted_index_dtypes());
            for p in &a {
                let elements = reference(p, &policy).unwrap();
                assert_eq!(elements.len(), p.input.len());
                tensors(p).unwrap();
            }
            assert!(a.iter().any(|p| p.updates.is_empty()), "no empty problem");
        }
    }
}
