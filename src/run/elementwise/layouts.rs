//! Layout checks (`<suite>:<adapter>:<op>:<dtype>:layouts`, and `layouts-large` with
//! `--layouts-large`): an element-wise operation at the sizes and memory layouts of
//! [`generate::layouts`](crate::generate::layouts), every output element compared with the
//! expectation of its input pair, and, per layout, whether the adapter passed it to the
//! library as a view or copied it first ([`Adapter::reach`]), so that a pass on a copied
//! layout is not read as coverage of the library's strided code.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use opspec_adapter::{Adapter, AdapterError, DType, OpKind, Reach, Tensor};
use rayon::prelude::*;

use super::FloatBatch;
use super::integer::IntegerBatch;
use crate::generate::layouts::{Call, Layout, PairTable, Scale, Shot, layout_traits, operand_shape, shots};
use crate::judge::authority::Grade;
use crate::judge::batch::{Grader, Judge, Reading, steps_from};
use crate::judge::context::Context;
use crate::judge::expect::Expect;
use crate::results::CheckResult;
use crate::run::batch::Batch;
use crate::run::call::{apply_guarded, guarded};
use crate::run::check::ElementwiseKind;
use crate::run::check::{
    CaseSet, Check, CheckId, FloatTarget, IntegerCases, IntegerTarget, LayoutTarget, RunOptions, Target,
};
use crate::run::record::{Failure, Recorder, Repro};
use crate::spec::{Catalog, LoadedSuite};

/// The layout checks of `suite`'s element-wise tables against `adapter` at `scale`: one per
/// (table, dtype) that the suite's element-wise checks cover, for tables whose operation is
/// called on tensors alone (binary, `_into`, fused).
pub fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str, scale: Scale) -> Vec<Check> {
    let mut checks = Vec::new();
    for &t in &suite.tables {
        let table = &catalog.elementwise[t];
        let Some(call) = call_of(table.op) else { continue };
        for &dtype in &suite.dtypes {
            let listed = table.table.dtypes.iter().any(|d| d == dtype.name());
            let judged = dtype.is_float() || (dtype != DType::Bool && suite.suite.integers.is_some());
            if !listed || !judged {
                continue;
            }
            let planned = shots(call, dtype.size(), scale).iter().map(Shot::numel).sum();
            checks.push(Check {
                id: CheckId::adapter(&suite.suite.name, adapter, &table.table.op, dtype.name(), scale.case()),
                needs: Some((table.op, dtype)),
                target: Target::Elementwise(ElementwiseKind::Layouts(LayoutTarget {
                    table: t,
                    dtype,
                    scale,
                })),
                planned: Some(planned),
            });
        }
    }
    checks
}

/// How a table's operation is called, if it is called on tensors alone.
fn call_of(op: OpKind) -> Option<Call> {
    match op {
        OpKind::Binary(_) => Some(Call { arity: 2, into: false }),
        OpKind::BinaryInto(_) => Some(Call { arity: 2, into: true }),
        OpKind::Ternary(_) => Some(Call { arity: 3, into: false }),
        _ => None,
    }
}

/// What fills the gaps of a strided buffer and a destination before the call: a bit pattern
/// no edge value has, so a read from a gap or an element left unwritten shows.
fn filler(dtype: DType) -> u64 {
    0x5a5a_5a5a_5a5a_5a5a >> (64 - 8 * dtype.size())
}

/// The pairs of the check (every combination of the dtype's edge values, as the `edges`
/// check has them, with the contract's exclusions for integers), their expectations and how
/// results are read, with what grades a failing result: the table's context for floats, the
/// integer batch for integers.
fn pair_inputs<'a>(
    catalog: &'a Catalog,
    check: &Check,
    target: &LayoutTarget,
    options: &RunOptions,
) -> Result<(Batch, Option<Context<'a>>, Option<IntegerBatch<'a>>), String> {
    let (batch, ctx, ints) = if target.dtype.is_float() {
        let t = FloatTarget { table: target.table, dtype: target.dtype, cases: CaseSet::Edges };
        let floats = FloatBatch::prepare(catalog, check, &t, options)?;
        (floats.batch, Some(floats.ctx), None)
    } else {
        let t = IntegerTarget { table: target.table, dtype: target.dtype, cases: IntegerCases::Edges };
        let ints = IntegerBatch::prepare(catalog, check, &t)?;
        let batch =
            Batch { cases: ints.batch.cases.clone(), expected: ints.batch.expected.clone(), ..ints.batch };
        (batch, None, Some(ints))
    };
    if batch.cases.is_empty() {
        return Err("the contract leaves every edge input out".into());
    }
    Ok((batch, ctx, ints))
}

/// Runs a layout check against `adapter`.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &LayoutTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let op = catalog.elementwise[target.table].op;
    let call = call_of(op).ok_or_else(|| format!("{op} is not called on tensors alone"))?;
    let (Batch { cases, expected, reading, .. }, ctx, ints) = pair_inputs(catalog, check, target, options)?;
    let table = PairTable::new(cases);
    let grade =
        |case: &[u64], actual: u64| ints.as_ref().map_or_else(Grade::cited, |i| i.grader.grade(case, actual));
    let grader = ctx.as_ref().map_or(Grader::Case(&grade), Grader::Table);
    let judge = Judge { grader, alone: None };
    let run = LayoutRun {
        op,
        dtype: target.dtype,
        table: &table,
        expected: &expected,
        reading,
        judge: &judge,
        adapter,
        options,
    };
    let mut reached: BTreeMap<Layout, BTreeSet<&'static str>> = BTreeMap::new();
    let mut rec = Recorder::new(result, options);
    let mut calls = 0;
    for shot in shots(call, target.dtype.size(), target.scale) {
        if let Some(word) = run.shot(&shot, call, &mut rec)? {
            reached.entry(shot.layout).or_default().insert(word);
        }
        calls += 1;
    }
    rec.finish("elements");
    let summary: BTreeMap<String, String> = reached
        .iter()
        .map(|(layout, words)| {
            (layout.name().to_string(), words.iter().copied().collect::<Vec<_>>().join("+"))
        })
        .collect();
    let coverage = crate::results::coverage::coverage_text(&summary);
    let message = &mut rec.result.message;
    *message = if message.is_empty() {
        format!("{} elements in {calls} calls; {coverage}", rec.result.inputs)
    } else {
        format!("{message}; {coverage}")
    };
    rec.result.layouts = summary;
    Ok(())
}

/// Everything the calls of one layout check share.
struct LayoutRun<'a> {
    op: OpKind,
    dtype: DType,
    table: &'a PairTable,
    expected: &'a [Expect],
    reading: Reading,
    /// Grades a failing result: the table's context for floats, the integer batch for integers.
    judge: &'a Judge<'a>,
    adapter: &'a Arc<dyn Adapter>,
    options: &'a RunOptions,
}

/// An operand or destination as built: the tensor and how it was placed in its buffer.
struct Placed {
    tensor: Tensor,
    /// In words, for failure reports.
    text: String,
}

impl LayoutRun<'_> {
    /// Runs one call and compares every element; returns how the layout reached the library
    /// (`view`, `copy`, `unknown`, or `refused` for a destination the adapter declined).
    fn shot(&self, shot: &Shot, call: Call, rec: &mut Recorder) -> Result<Option<&'static str>, String> {
        let pairs = self.table.pairs(shot);
        let operands = (0..call.arity)
            .map(|k| self.operand(shot, k, &pairs))
            .collect::<Result<Vec<Placed>, String>>()?;
        let destination = call.into.then(|| self.destination(shot)).transpose()?;
        let mut all: Vec<&Tensor> = operands.iter().map(|p| &p.tensor).collect();
        all.extend(destination.iter().map(|p| &p.tensor));
        let reach = self.adapter.reach(self.op, &all);
        // The operands whose layout the shot is about.
        let about: Vec<usize> = match shot.layout {
            Layout::Row | Layout::Column | Layout::ZeroStride => vec![1],
            Layout::ScalarFirst => vec![0],
            l if l.is_destination() => vec![call.arity],
            _ => (0..call.arity).collect(),
        };
        // A strided tensor too small to differ from a contiguous one (one element, a single
        // row) says nothing about its layout; an operand broadcast by its shape always does.
        let by_shape =
            matches!(shot.layout, Layout::Contiguous | Layout::Row | Layout::Column | Layout::ScalarFirst);
        let telling = |k: usize| by_shape || all.get(k).is_some_and(|t| !layout_traits(t).is_empty());
        let words: BTreeSet<Reach> =
            about.iter().filter(|&&k| telling(k)).filter_map(|&k| reach.get(k).copied()).collect();
        let word = match (words.len(), words.iter().next()) {
            (1, Some(r)) => Some(r.name()),
            (0, _) => None,
            _ => Some("view+copy"),
        };
        let texts: Vec<String> = operands.iter().chain(&destination).map(|p| p.text.clone()).collect();
        let describe = move || texts.clone();
        let out_dtype = self.reading.output_dtype(self.dtype);
        match destination {
            None => {
                let tensors = operands.into_iter().map(|p| p.tensor).collect();
                let returned = apply_guarded(self.adapter, self.op, tensors, out_dtype, self.options.timeout);
                match returned {
                    Ok(Ok(t)) if t.dtype() == out_dtype && t.shape() == shot.shape.as_slice() => {
                        self.compare(shot, &pairs, &bits(&t), &describe, rec);
                    }
                    Ok(Ok(t)) => self.fail_call(
                        shot,
                        rec,
                        &describe,
                        format!("a result of dtype {} and shape {:?}", t.dtype(), t.shape()),
                    ),
                    Ok(Err(e)) => self.fail_call(shot, rec, &describe, format!("error {e}")),
                    Err(e) => self.fail_call(shot, rec, &describe, e),
                }
                Ok(word)
            }
            Some(out) => self.shot_into(shot, operands, out, &pairs, word, &describe, rec),
        }
    }

    /// A destination-passing call: the adapter may refuse the destination (leaving its buffer
    /// unchanged) or write every element of the view and nothing else of its buffer.
    #[allow(clippy::too_many_arguments)]
    fn shot_into(
        &self,
        shot: &Shot,
        operands: Vec<Placed>,
        out: Placed,
        pairs: &[usize],
        word: Option<&'static str>,
        describe: &dyn Fn() -> Vec<String>,
        rec: &mut Recorder,
    ) -> Result<Option<&'static str>, String> {
        let OpKind::BinaryInto(b) = self.op else { return Err(format!("{} has no destination", self.op)) };
        let adapter = Arc::clone(self.adapter);
        let [x, y]: [Placed; 2] = operands.try_into().map_err(|_| "an _into call takes two operands")?;
        let (before, positions): (Vec<u8>, Vec<usize>) =
            (out.tensor.buffer().to_vec(), out.tensor.element_positions().collect());
        let mut written = out.tensor;
        let returned = guarded(self.options.timeout, move || {
            let r = adapter.binary_into(b, &x.tensor, &y.tensor, &mut written);
            (r, written)
        });
        let (outcome, written) = match returned {
            Ok(pair) => pair,
            Err(e) => {
                self.fail_call(shot, rec, describe, e);
                return Ok(word);
            }
        };
        let size = self.dtype.size();
        let same_layout = written.shape() == shot.shape.as_slice()
            && written.buffer().len() == before.len()
            && written.element_positions().eq(positions.iter().copied());
        match outcome {
            Err(AdapterError { .. }) if written.buffer() == before.as_slice() => Ok(Some("refused")),
            Err(e) => {
                let n = shot.numel().max(1);
                rec.checked(n);
                rec.fail_graded(n, Grade::changed_on_refusal(), false, || Failure {
                    inputs: describe(),
                    expected: "a refusal that leaves the destination's buffer unchanged".into(),
                    actual: format!("error {e}, with the destination's buffer changed"),
                    steps: None,
                    actual_bits: None,
                    batch: None,
                    repro: Repro::Check,
                });
                Ok(Some("refused"))
            }
            Ok(()) if !same_layout => {
                self.fail_call(
                    shot,
                    rec,
                    describe,
                    "a destination with another layout than the one given".into(),
                );
                Ok(word)
            }
            Ok(()) => {
                self.compare(shot, pairs, &written.to_bits(), describe, rec);
                let mut inside = vec![false; before.len() / size];
                for &p in &positions {
                    inside[p] = true;
                }
                let touched = (0..inside.len())
                    .filter(|&p| {
                        !inside[p]
                            && written.buffer()[p * size..(p + 1) * size] != before[p * size..(p + 1) * size]
                    })
                    .count();
                if touched > 0 {
                    rec.fail(touched, || Failure {
                        inputs: describe(),
                        expected: "the destination's buffer unchanged outside its view".into(),
                        actual: format!("{touched} elements outside the view changed"),
                        steps: None,
                        actual_bits: None,
                        batch: None,
                        repro: Repro::Check,
                    });
                }
                Ok(word)
            }
        }
    }

    /// A call that gave no comparable result: every element of the shot fails.
    fn fail_call(&self, shot: &Shot, rec: &mut Recorder, describe: &dyn Fn() -> Vec<String>, actual: String) {
        let n = shot.numel().max(1);
        rec.checked(n);
        let out_dtype = self.reading.output_dtype(self.dtype);
        rec.fail(n, || Failure {
            inputs: describe(),
            expected: format!("{}: a {out_dtype} result of shape {:?}", self.op, shot.shape),
            actual,
            steps: None,
            actual_bits: None,
            batch: None,
            repro: Repro::Check,
        });
    }

    /// Compares every element of `actual` with its pair's expectation.
    fn compare(
        &self,
        shot: &Shot,
        pairs: &[usize],
        actual: &[u64],
        describe: &dyn Fn() -> Vec<String>,
        rec: &mut Recorder,
    ) {
        let (output, nan) = (self.reading.output, self.reading.nan);
        rec.checked(actual.len());
        let bad: Vec<usize> = (0..actual.len())
            .into_par_iter()
            .filter(|&i| !self.expected[pairs[i]].accepts(output, actual[i], nan))
            .collect();
        let names = ["x1", "x2", "x3"];
        for &i in &bad {
            let case = &self.table.cases[pairs[i]];
            let expected = &self.expected[pairs[i]];
            let (grade, allowed) =
                self.judge.verdict(rec.profile(), &self.reading, case, expected, actual[i]);
            rec.fail_graded(1, grade, allowed, || {
                let mut inputs = describe();
                inputs.push(format!("element {i} of {:?} ({} layout)", shot.shape, shot.layout.name()));
                inputs.extend(
                    case.iter().zip(names).map(|(&x, n)| format!("{n} = {}", self.reading.input.describe(x))),
                );
                Failure {
                    inputs,
                    expected: expected.describe(output),
                    actual: output.describe(actual[i]),
                    steps: steps_from(expected, output, actual[i]),
                    actual_bits: Some(actual[i]),
                    batch: None,
                    repro: Repro::Check,
                }
            });
        }
    }

    /// Operand `k` of `shot`: its values in logical order (from the pairs of the output
    /// elements it covers), placed in a buffer as the layout says.
    fn operand(&self, shot: &Shot, k: usize, pairs: &[usize]) -> Result<Placed, String> {
        let shape = operand_shape(shot, k);
        let cols = shot.shape.get(1).copied().unwrap_or(1);
        let value = |i: usize| self.table.cases[pairs[i]][k];
        let n: usize = shape.iter().product();
        let broadcast = shot.layout.broadcasts() && shape != shot.shape;
        let values: Vec<u64> = match (shot.layout, broadcast) {
            (Layout::Row, true) => (0..n).map(value).collect(),
            (Layout::Column, true) => (0..n).map(|r| value(r * cols)).collect(),
            (Layout::ScalarFirst, true) => vec![value(0)],
            (Layout::ZeroStride, _) if k == 1 => (0..cols).map(value).collect(),
            _ => (0..n).map(value).collect(),
        };
        let placement = match shot.layout {
            Layout::Offset => Placement::Offset(1 + (k + shot.numel()) % (self.lanes() - 1).max(1)),
            Layout::Reversed => Placement::Reversed,
            Layout::Stepped => Placement::Stepped,
            Layout::Transposed => Placement::Transposed,
            Layout::ZeroStride if k == 1 => Placement::ZeroStride,
            _ => Placement::Contiguous,
        };
        self.place(&values, &shape, placement)
    }

    /// The destination of `shot`, every element of its buffer the filler.
    fn destination(&self, shot: &Shot) -> Result<Placed, String> {
        let n = shot.numel();
        let placement = match shot.layout {
            Layout::OutOffset => Placement::Offset(1 + n % (self.lanes() - 1).max(1)),
            Layout::OutReversed => Placement::Reversed,
            Layout::OutStepped => Placement::Stepped,
            _ => Placement::Contiguous,
        };
        self.place(&vec![filler(self.dtype); n], &shot.shape, placement)
    }

    fn lanes(&self) -> usize {
        crate::generate::layouts::WIDEST_VECTOR / self.dtype.size()
    }

    /// `values` (logical order, row-major over `shape`) as a tensor laid out by `placement`.
    fn place(&self, values: &[u64], shape: &[usize], placement: Placement) -> Result<Placed, String> {
        let fill = filler(self.dtype);
        let n = values.len();
        let (buffer, strides, offset): (Vec<u64>, Vec<isize>, usize) = match placement {
            Placement::Contiguous => {
                let t = Tensor::from_bits(self.dtype, shape, values).map_err(|e| e.to_string())?;
                return Ok(Placed { text: format!("{shape:?} contiguous"), tensor: t });
            }
            Placement::Offset(o) => {
                let mut b = vec![fill; o];
                b.extend_from_slice(values);
                b.extend(std::iter::repeat_n(fill, self.lanes()));
                (b, vec![1], o)
            }
            Placement::Reversed => (values.iter().rev().copied().collect(), vec![-1], n.saturating_sub(1)),
            Placement::Stepped => (values.iter().flat_map(|&v| [v, fill]).collect(), vec![2], 0),
            Placement::Transposed => {
                let (r, c) = (shape[0], shape[1]);
                let mut b = vec![fill; n];
                for (i, &v) in values.iter().enumerate() {
                    b[(i % c) * r + i / c] = v;
                }
                (b, vec![1, r as isize], 0)
            }
            Placement::ZeroStride => (values.to_vec(), vec![0, 1], 0),
        };
        let len = buffer.len();
        let base = Tensor::from_bits(self.dtype, &[len], &buffer).map_err(|e| e.to_string())?;
        drop(buffer);
        let tensor = base.view(shape, &strides, offset).map_err(|e| e.to_string())?;
        Ok(Placed {
            text: format!("{shape:?} with strides {strides:?} at offset {offset} of {len} elements"),
            tensor,
        })
    }
}

/// The bits of `t`'s elements in logical order (a contiguous tensor read without walking its
/// positions).
fn bits(t: &Tensor) -> Vec<u64> {
    let size = t.dtype().size();
    match t.contiguous_bytes() {
        Some(bytes) => bytes
            .par_chunks_exact(size)
            .map(|e| {
                let mut raw = [0u8; 8];
                raw[..size].copy_from_slice(e);
                u64::from_le_bytes(raw)
            })
            .collect(),
        None => t.to_bits(),
    }
}

/// How a tensor's values are placed in its buffer.
#[derive(Clone, Copy, Debug)]
enum Placement {
    Contiguous,
    /// Dense, starting this many elements in.
    Offset(usize),
    Reversed,
    Stepped,
    /// `[r, c]` with strides `[1, r]`.
    Transposed,
    /// `[r, c]` with strides `[0, 1]` over one row.
    ZeroStride,
}
