//! Broadcasting tables: planning their checks and running them.
//!
//! - Vector checks run one literal vector of a table: against the oracle (the table's self-check,
//!   `table:<table>:-:<vector>`), or against an adapter (`<suite>:<adapter>:<table>:-:<vector>`):
//!   numpy vectors through every binary operation and float dtype the adapter supports (result
//!   shape, or a shape-mismatch error, and every value), named vectors through the adapter's
//!   checker.
//! - Coverage checks (`table:<table>:-:coverage`) hold a table to its own promises: every rule
//!   exercised, every decision pinned, every code expected by one vector and narrowly avoided by
//!   another.
//! - Value checks (`<suite>:<adapter>:<op>:<dtype>:<case>`) run an element-wise operation on
//!   broadcast operands and compare every element, bit for bit, with the table's expectation
//!   for the explicitly expanded operands: generated NumPy shapes on contiguous operands
//!   (`broadcast-random`) and on strided views (`broadcast-strided`), and named tensors lined up
//!   by the order rule (`named-vectors`, `named-permutation`, `named-swap`).

use std::sync::Arc;

use opspec_adapter::{
    Adapter, AdapterError, Alignment, BinaryOp, Checked, DType, ErrorKind, NamedAxis, NamedOp, OpKind,
    Operand, Support, Tensor, ValueKind, shape_text,
};

use super::batch::steps_from;
use super::call::{apply_guarded, guarded};
use super::check::{BroadcastTarget, Check, CheckId, NO_DTYPE, RunOptions, Target, ValueCases};
use super::record::{Failure, Recorder, Repro, citation};
use super::result::{CheckResult, Citation};
use crate::check::Expect;
use crate::expect::Context;
use crate::format::Format;
use crate::generate::shapes::{
    PermutationAxes, permutation_axes, shape_pairs, strided_view, swap_pair, unravel,
};
use crate::generate::{Generator, any_value};
use crate::oracle::broadcast as oracle;
use crate::spec::broadcast::{Case, Family, LoadedBroadcastTable, NamedExpect};
use crate::spec::schema::Accuracy;
use crate::spec::{Catalog, LoadedSuite};
use crate::value::Domain;

/// Default number of generated shape pairs per value check.
const DEFAULT_SHAPES: usize = 16;
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
        let family = match table.table.family {
            Family::Numpy => [ValueCases::Random, ValueCases::Strided].as_slice(),
            Family::Named => &[ValueCases::NamedVectors, ValueCases::NamedPermutation, ValueCases::NamedSwap],
        };
        for c in family {
            if !cases.contains(c) {
                cases.push(*c);
            }
        }
    }
    for (t, dtype) in binary_tables(catalog, suite) {
        let table = &catalog.tables[t];
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
    for (t, table) in catalog.tables.iter().enumerate() {
        // An approximate operation can only be judged where the suite bounds its error.
        let judged = table.table.accuracy != Accuracy::Approximate
            || matches!(table.op, OpKind::Binary(b) if suite.suite.step_bounds.contains_key(&b));
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

/// The broadcasting tables' self-checks: every vector against the oracle, and coverage.
pub fn plan_tables(catalog: &Catalog) -> Vec<Check> {
    let mut checks = Vec::new();
    for (b, table) in catalog.broadcasting.iter().enumerate() {
        let targets = (0..table.table.vectors.len())
            .map(|v| {
                (table.table.vectors[v].id.value.clone(), BroadcastTarget::Vector { table: b, vector: v })
            })
            .chain([("coverage".to_string(), BroadcastTarget::Coverage { table: b })]);
        for (case, target) in targets {
            checks.push(Check {
                id: CheckId::table(&table.name, NO_DTYPE, &case),
                needs: None,
                planned: matches!(target, BroadcastTarget::Vector { .. }).then_some(1),
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
        (BroadcastTarget::Coverage { table }, _) => {
            let table = &catalog.broadcasting[*table];
            let gaps = coverage_gaps(table);
            rec.checked(table.table.vectors.len());
            if !gaps.is_empty() {
                rec.fail(gaps.len(), || Failure {
                    inputs: vec![format!("{}", table.path.display())],
                    expected: "every rule exercised, every decision pinned, every code expected and narrowly avoided".into(),
                    actual: gaps.join("; "),
                    steps: None,
                    repro: Repro::Check,
                });
                rec.result.message = format!("{}: {}", table.path.display(), gaps.join("; "));
            }
            Ok(())
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
                .any(|(t, dtype)| adapter.supports(catalog.tables[t].op, dtype) == Support::Supported);
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

/// A failure about shapes, kinds or errors rather than values; it reproduces with the whole
/// check.
fn fail_shape(rec: &mut Recorder, inputs: Vec<String>, expected: String, actual: String) {
    rec.fail(1, || Failure { inputs, expected, actual, steps: None, repro: Repro::Check });
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

fn value_citation(catalog: &Catalog, suite: &LoadedSuite, cases: ValueCases) -> Option<Citation> {
    let family = match cases {
        ValueCases::Random | ValueCases::Strided => Family::Numpy,
        _ => Family::Named,
    };
    let table =
        suite.broadcasting.iter().map(|&b| &catalog.broadcasting[b]).find(|t| t.table.family == family)?;
    let rules: &[&str] = match cases {
        ValueCases::Random | ValueCases::Strided => &["trailing", "compatible", "stretch", "result-shape"],
        ValueCases::NamedPermutation => &["by-name", "both-qualify"],
        ValueCases::NamedVectors | ValueCases::NamedSwap => &["by-name", "both-qualify", "from-right"],
    };
    let found: Vec<_> = rules.iter().filter_map(|r| table.rule(r)).collect();
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

/// What a table promises about itself and does not keep.
pub fn coverage_gaps(table: &LoadedBroadcastTable) -> Vec<String> {
    let t = &table.table;
    let mut gaps = Vec::new();
    for rule in &t.rules {
        if !t.vectors.iter().any(|v| v.rules.contains(&rule.id.value)) {
            gaps.push(format!("rule `{}` has no vector", rule.id.value));
        }
    }
    for d in &t.decisions {
        if !t.vectors.iter().any(|v| v.decision.as_ref() == Some(&d.id.value)) {
            gaps.push(format!("decision `{}` is pinned by no vector", d.id.value));
        }
    }
    let mut codes: Vec<&str> = t.codes.iter().map(String::as_str).collect();
    if t.family == Family::Numpy {
        codes.push("shape_mismatch");
    }
    for code in codes {
        if !t.vectors.iter().any(|v| v.error.as_ref().is_some_and(|e| e.value == code)) {
            gaps.push(format!("no vector expects {code}"));
        }
        if !t.vectors.iter().any(|v| v.avoids.iter().any(|a| a == code)) {
            gaps.push(format!("no vector narrowly avoids {code}"));
        }
    }
    gaps
}

/// Calls `adapter.binary` on its own thread (a panic or a hang becomes an error message).
fn call_binary(
    adapter: &Arc<dyn Adapter>,
    op: BinaryOp,
    x: &Tensor,
    y: &Tensor,
    options: &RunOptions,
) -> Result<Result<Tensor, AdapterError>, String> {
    apply_guarded(adapter, OpKind::Binary(op), vec![x.clone(), y.clone()], x.dtype(), options.timeout)
}

/// `dtype[2 3] (strides [1 2], offset 1)`.
fn describe_tensor(t: &Tensor) -> String {
    let layout = if t.is_contiguous() {
        "contiguous".to_string()
    } else {
        format!(
            "a view with strides {:?} and offset {} into {} elements",
            t.strides(),
            t.offset(),
            t.buffer().len() / t.dtype().size()
        )
    };
    let names = t.names().map_or(String::new(), |n| {
        let parts: Vec<&str> = n.iter().map(|a| a.as_deref().unwrap_or("_")).collect();
        format!(" named [{}]", parts.join(" "))
    });
    format!("{}{:?}{names}, {layout}", t.dtype(), t.shape())
}

/// The operation a NumPy vector runs: one exact operation, so a value bug of some other
/// operation fails that operation's value checks, not every shape vector.
const VECTOR_OP: BinaryOp = BinaryOp::Add;

/// The (table, dtype) pairs a NumPy vector runs in: [`VECTOR_OP`] in each of the suite's float
/// dtypes.
fn vector_tables(catalog: &Catalog, suite: &LoadedSuite) -> Vec<(usize, DType)> {
    let add = OpKind::Binary(VECTOR_OP);
    binary_tables(catalog, suite).into_iter().filter(|&(t, _)| catalog.tables[t].op == add).collect()
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
        if adapter.supports(catalog.tables[t].op, dtype) != Support::Supported {
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

/// A named result whose axes were right: the axes and the bits in logical order.
struct NamedResult {
    axes: Vec<NamedAxis>,
    bits: Vec<u64>,
}

/// An operand of a value check: the tensor the adapter gets and its values in logical order.
struct ValueOperand {
    tensor: Tensor,
    values: Vec<u64>,
}

/// Everything a value check of one (operation, dtype) needs.
struct ValueCheck<'a> {
    catalog: &'a Catalog,
    suite: &'a LoadedSuite,
    ctx: Context<'a>,
    op: BinaryOp,
    dtype: DType,
    format: Format,
    adapter: &'a Arc<dyn Adapter>,
    options: &'a RunOptions,
    seed: u64,
}

impl<'a> ValueCheck<'a> {
    fn new(
        catalog: &'a Catalog,
        suite: &'a LoadedSuite,
        t: usize,
        dtype: DType,
        adapter: &'a Arc<dyn Adapter>,
        options: &'a RunOptions,
    ) -> Result<ValueCheck<'a>, String> {
        let table = &catalog.tables[t];
        let OpKind::Binary(op) = table.op else {
            return Err(format!("{} is not a binary operation", table.op));
        };
        let format = Format::of(dtype).ok_or_else(|| format!("{dtype} is not a float dtype"))?;
        let ctx = Context::new(table, Some(&suite.suite), format);
        Ok(ValueCheck { catalog, suite, ctx, op, dtype, format, adapter, options, seed: suite.suite.seed })
    }

    fn run(&self, check: &Check, cases: ValueCases, rec: &mut Recorder) -> Result<(), String> {
        let mut generator = Generator::new(self.seed, &check.id.to_string());
        let n = self.suite.suite.broadcast_shapes.unwrap_or(DEFAULT_SHAPES);
        match cases {
            ValueCases::Random | ValueCases::Strided => {
                for (x, y) in shape_pairs(&mut generator, n)? {
                    let strided = cases == ValueCases::Strided;
                    let a = self.operand(&mut generator, &x, strided)?;
                    let b = self.operand(&mut generator, &y, strided)?;
                    let expect =
                        oracle::numpy_shape(&x, &y).ok_or("generated shapes that do not broadcast")?;
                    self.call_numpy(&a, &b, Some(&expect), rec)?;
                }
            }
            ValueCases::NamedVectors => self.named_vectors(&mut generator, rec)?,
            ValueCases::NamedPermutation => {
                for _ in 0..n.div_ceil(2) {
                    self.permutation_case(&mut generator, rec)?;
                }
            }
            ValueCases::NamedSwap => {
                for k in 0..n {
                    self.swap_case(&mut generator, k, rec)?;
                }
            }
        }
        rec.finish("inputs");
        Ok(())
    }

    /// One swap property case: `op(x, y)` and `op(y, x)` each follow the rule (checked against
    /// the oracle), and have the same axes, at most in another order.
    fn swap_case(&self, g: &mut Generator, k: usize, rec: &mut Recorder) -> Result<(), String> {
        let (x, y) = swap_pair(g, k)?;
        let strided = k % 2 == 1;
        let a = self.named_operand(g, &x, strided)?;
        let b = self.named_operand(g, &y, strided)?;
        let xy = self.call_named(&a, &x, &b, &y, rec)?;
        let yx = self.call_named(&b, &y, &a, &x, rec)?;
        let (Some(NamedResult { axes: p, .. }), Some(NamedResult { axes: q, .. })) = (xy, yx) else {
            return Ok(());
        };
        let (mut sp, mut sq) = (p.clone(), q.clone());
        sp.sort();
        sq.sort();
        if sp != sq {
            fail_shape(
                rec,
                vec![format!("x = {}", shape_text(&x)), format!("y = {}", shape_text(&y))],
                "op(x, y) and op(y, x) with the same axes, at most in another order".into(),
                format!("op(x, y) has {}, op(y, x) has {}", shape_text(&p), shape_text(&q)),
            );
        }
        Ok(())
    }

    /// Random values of the format, as a contiguous tensor of `shape` or a strided view.
    fn operand(&self, g: &mut Generator, shape: &[usize], strided: bool) -> Result<ValueOperand, String> {
        let any = any_value(self.format);
        let n: usize = shape.iter().product();
        let values = (0..n).map(|_| g.draw(&any)).collect::<Result<Vec<u64>, _>>()?;
        let tensor = if strided {
            strided_view(g, self.format, self.dtype, shape, &values)?
        } else {
            Tensor::from_bits(self.dtype, shape, &values).map_err(|e| e.to_string())?
        };
        Ok(ValueOperand { tensor, values })
    }

    /// An operand with axis names.
    fn named_operand(
        &self,
        g: &mut Generator,
        axes: &[NamedAxis],
        strided: bool,
    ) -> Result<ValueOperand, String> {
        let shape: Vec<usize> = axes.iter().map(|a| a.size).collect();
        let mut o = self.operand(g, &shape, strided)?;
        o.tensor =
            o.tensor.with_names(axes.iter().map(|a| a.name.clone()).collect()).map_err(|e| e.to_string())?;
        Ok(o)
    }

    /// Calls the adapter on two unnamed operands; checks the result's shape (or the error) and
    /// every value against the expectation for the expanded operands.
    fn call_numpy(
        &self,
        a: &ValueOperand,
        b: &ValueOperand,
        expect: Option<&[usize]>,
        rec: &mut Recorder,
    ) -> Result<(), String> {
        let inputs = || {
            vec![format!("x1: {}", describe_tensor(&a.tensor)), format!("x2: {}", describe_tensor(&b.tensor))]
        };
        let returned = call_binary(self.adapter, self.op, &a.tensor, &b.tensor, self.options)?;
        let Some(shape) = expect else {
            rec.checked(1);
            match returned {
                Err(e) if e.kind == ErrorKind::ShapeMismatch => {}
                Err(e) => fail_shape(
                    rec,
                    inputs(),
                    format!("{}: a shape_mismatch error", self.op),
                    format!("error {e}"),
                ),
                Ok(t) => fail_shape(
                    rec,
                    inputs(),
                    format!("{}: a shape_mismatch error", self.op),
                    format!("a result of shape {:?}", t.shape()),
                ),
            }
            return Ok(());
        };
        let lined = |o: &ValueOperand| {
            oracle::expand(
                &o.values,
                o.tensor.shape(),
                &oracle::numpy_alignment(o.tensor.shape().len(), shape.len()),
                shape,
            )
        };
        let got = self.checked_result(returned, shape, None, &inputs, rec)?;
        if let Some(actual) = got {
            self.compare(&lined(a), &lined(b), &actual, shape, &inputs, rec)?;
        }
        Ok(())
    }

    /// The dtype results must have: bool for comparisons, else the operands'.
    fn result_dtype(&self) -> DType {
        if self.ctx.output == Domain::Bool { DType::Bool } else { self.dtype }
    }

    /// Checks a returned tensor's dtype, shape and names; its bits when they match.
    fn checked_result(
        &self,
        returned: Result<Tensor, AdapterError>,
        shape: &[usize],
        names: Option<&[Option<String>]>,
        inputs: &dyn Fn() -> Vec<String>,
        rec: &mut Recorder,
    ) -> Result<Option<Vec<u64>>, String> {
        let expected = || match names {
            Some(n) => format!("{} {}", self.result_dtype(), shape_text(&named_axes(shape, n))),
            None => format!("{}{shape:?}", self.result_dtype()),
        };
        let t = match returned {
            Ok(t) => t,
            Err(e) => {
                rec.checked(1);
                fail_shape(
                    rec,
                    inputs(),
                    format!("{}: a result {}", self.op, expected()),
                    format!("error {e}"),
                );
                return Ok(None);
            }
        };
        let names_ok = names.is_none_or(|n| {
            let got: Vec<Option<String>> = t.names().map_or(vec![None; t.shape().len()], <[_]>::to_vec);
            got == n
        });
        if t.dtype() != self.result_dtype() || t.shape() != shape || !names_ok {
            rec.checked(1);
            fail_shape(rec, inputs(), format!("{}: a result {}", self.op, expected()), describe_tensor(&t));
            return Ok(None);
        }
        Ok(Some(t.to_bits()))
    }

    /// Compares each element with the table's expectation for the lined-up operand values.
    fn compare(
        &self,
        xs: &[u64],
        ys: &[u64],
        actual: &[u64],
        shape: &[usize],
        inputs: &dyn Fn() -> Vec<String>,
        rec: &mut Recorder,
    ) -> Result<(), String> {
        let f = self.format;
        rec.checked(actual.len().max(1));
        let nan = self.suite.suite.nan;
        for i in 0..actual.len() {
            let expected = self.ctx.expectation(&[xs[i], ys[i]])?;
            if expected.accepts(self.ctx.output, actual[i], nan) {
                continue;
            }
            rec.fail(1, || {
                let mut lines = inputs();
                lines.push(format!("result index {:?} of {shape:?}", unravel(i, shape)));
                lines.push(format!("x1 = {}", f.describe(xs[i])));
                lines.push(format!("x2 = {}", f.describe(ys[i])));
                Failure {
                    inputs: lines,
                    expected: expected.describe(self.ctx.output),
                    actual: self.ctx.output.describe(actual[i]),
                    steps: steps_from(&expected, self.ctx.output, actual[i]),
                    repro: Repro::Check,
                }
            });
        }
        Ok(())
    }

    /// Calls the adapter on named operands; checks against the oracle's order rule: the result
    /// axes (names, sizes, order) or the error code, and every value. Returns the result's
    /// axes and bits when its axes are right.
    fn call_named(
        &self,
        a: &ValueOperand,
        x: &[NamedAxis],
        b: &ValueOperand,
        y: &[NamedAxis],
        rec: &mut Recorder,
    ) -> Result<Option<NamedResult>, String> {
        let inputs = || {
            vec![format!("x1: {}", describe_tensor(&a.tensor)), format!("x2: {}", describe_tensor(&b.tensor))]
        };
        let returned = call_binary(self.adapter, self.op, &a.tensor, &b.tensor, self.options)?;
        match oracle::order_rule(x, y) {
            Err(code) => {
                rec.checked(1);
                match returned {
                    Err(e) if e.code.as_deref() == Some(code) => {}
                    Err(e) => {
                        fail_shape(rec, inputs(), format!("{}: error {code}", self.op), format!("error {e}"))
                    }
                    Ok(t) => {
                        fail_shape(rec, inputs(), format!("{}: error {code}", self.op), describe_tensor(&t))
                    }
                }
                Ok(None)
            }
            Ok(lined) => {
                let shape: Vec<usize> = lined.shape.iter().map(|a| a.size).collect();
                let names: Vec<Option<String>> = lined.shape.iter().map(|a| a.name.clone()).collect();
                let Some(actual) = self.checked_result(returned, &shape, Some(&names), &inputs, rec)? else {
                    return Ok(None);
                };
                let xs = oracle::expand(&a.values, a.tensor.shape(), &lined.alignment[0], &shape);
                let ys = oracle::expand(&b.values, b.tensor.shape(), &lined.alignment[1], &shape);
                self.compare(&xs, &ys, &actual, &shape, &inputs, rec)?;
                Ok(Some(NamedResult { axes: lined.shape, bits: actual }))
            }
        }
    }

    /// Every element-wise order-rule vector of the suite's named tables, executed.
    fn named_vectors(&self, g: &mut Generator, rec: &mut Recorder) -> Result<(), String> {
        let mut ran = 0;
        for &t in &self.suite.broadcasting {
            for (k, case) in self.catalog.broadcasting[t].cases.iter().enumerate() {
                let Case::Named { op, operands, expect } = case else { continue };
                let elementwise = !matches!(
                    op,
                    NamedOp::Matmul | NamedOp::MaskedFill | NamedOp::LogicalNot | NamedOp::Negative
                );
                let shape_level = match expect {
                    NamedExpect::Result { .. } => true,
                    NamedExpect::Error(code) => code == "E0401" || code == "E0404",
                };
                let executable =
                    operands.iter().all(|o| !matches!(o.kind, ValueKind::Str | ValueKind::Python));
                if !(elementwise && shape_level && executable) {
                    continue;
                }
                ran += 1;
                let strided = k % 2 == 1;
                let a = self.named_operand(g, &operands[0].shape, strided)?;
                let b = self.named_operand(g, &operands[1].shape, strided)?;
                self.call_named(&a, &operands[0].shape, &b, &operands[1].shape, rec)?;
            }
        }
        if ran == 0 {
            return Err("the suite's named tables have no element-wise vectors to execute".into());
        }
        Ok(())
    }

    /// One permutation property case: a superset operand `y` (distinct names), a subset `x`
    /// in its own order, and `y`'s axes in several orders (views of the same data). Each
    /// result follows the rule (checked against the oracle), and all of them hold the same
    /// value at the same named coordinates.
    fn permutation_case(&self, g: &mut Generator, rec: &mut Recorder) -> Result<(), String> {
        let PermutationAxes { superset, subset, orders } = permutation_axes(g)?;
        let x = self.named_operand(g, &subset, true)?;
        let base = self.named_operand(g, &superset, false)?;
        let mut reference: Option<(Vec<NamedAxis>, Vec<u64>)> = None;
        for order in orders {
            let axes: Vec<NamedAxis> = order.iter().map(|&j| superset[j].clone()).collect();
            let shape: Vec<usize> = axes.iter().map(|a| a.size).collect();
            let strides: Vec<isize> = order.iter().map(|&j| base.tensor.strides()[j]).collect();
            let view = base
                .tensor
                .view(&shape, &strides, base.tensor.offset())
                .and_then(|v| v.with_names(axes.iter().map(|a| a.name.clone()).collect()))
                .map_err(|e| e.to_string())?;
            let align: Alignment = order.iter().map(|&j| Some(j)).collect();
            let values = oracle::expand(&base.values, base.tensor.shape(), &align, &shape);
            let y = ValueOperand { tensor: view, values };
            let failures_before = rec.result.failed_inputs;
            let Some(NamedResult { axes: result_axes, bits }) =
                self.call_named(&x, &subset, &y, &axes, rec)?
            else {
                continue;
            };
            if rec.result.failed_inputs > failures_before {
                continue;
            }
            match &reference {
                None => reference = Some((result_axes, bits)),
                Some((ref_axes, ref_bits)) => {
                    // The reference result, read in this result's axis order.
                    let align: Alignment =
                        result_axes.iter().map(|a| ref_axes.iter().position(|r| r.name == a.name)).collect();
                    let ref_shape: Vec<usize> = ref_axes.iter().map(|a| a.size).collect();
                    let out_shape: Vec<usize> = result_axes.iter().map(|a| a.size).collect();
                    let expected = oracle::expand(ref_bits, &ref_shape, &align, &out_shape);
                    let nan = self.suite.suite.nan;
                    let differ = (0..bits.len())
                        .filter(|&i| !Expect::Bits(expected[i]).accepts(self.ctx.output, bits[i], nan))
                        .count();
                    if differ > 0 {
                        let inputs = vec![
                            format!("x1: {}", describe_tensor(&x.tensor)),
                            format!("x2: {}", describe_tensor(&y.tensor)),
                            format!("the same x2 data with its axes as {}", shape_text(ref_axes)),
                        ];
                        rec.fail(differ, || Failure {
                            inputs,
                            expected:
                                "the same value at the same named coordinates for every order of x2's axes"
                                    .into(),
                            actual: format!("{differ} elements differ"),
                            steps: None,
                            repro: Repro::Check,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

fn named_axes(shape: &[usize], names: &[Option<String>]) -> Vec<NamedAxis> {
    shape.iter().zip(names).map(|(&size, name)| NamedAxis { name: name.clone(), size }).collect()
}
