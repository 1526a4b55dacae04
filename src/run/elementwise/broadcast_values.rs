//! Values of element-wise operations under broadcasting: operands of generated shapes and
//! layouts (contiguous, strided views, named tensors), one adapter call each, and every element
//! compared, bit for bit, with the table's expectation for the explicitly expanded operands.
//! The shape or error of each result is checked first, against the oracle's broadcasting rules.

use std::sync::Arc;

use opspec_adapter::{
    Adapter, AdapterError, Alignment, BinaryOp, DType, ErrorKind, NamedAxis, OpKind, Tensor, shape_text,
};

use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::generate::shapes::{
    PermutationAxes, permutation_axes, shape_pairs, strided_view, swap_pair, unravel,
};
use crate::generate::{Generator, any_value};
use crate::judge::batch::{Grader, Judge, Reading, steps_from};
use crate::judge::context::Context;
use crate::judge::expect::Expect;
use crate::oracle::broadcast as oracle;
use crate::run::call::apply_guarded;
use crate::run::check::{Check, RunOptions, ValueCases};
use crate::run::record::{Failure, Recorder, Repro};
use crate::spec::broadcast::Case;
use crate::spec::{Catalog, LoadedSuite};

/// Default number of generated shape pairs per value check.
const DEFAULT_SHAPES: usize = 16;
/// A failure about shapes, kinds or errors rather than values; it reproduces with the whole
/// check.
pub(in crate::run) fn fail_shape(rec: &mut Recorder, inputs: Vec<String>, expected: String, actual: String) {
    rec.fail(1, || Failure {
        inputs,
        expected,
        actual,
        steps: None,
        actual_bits: None,
        batch: None,
        repro: Repro::Check,
    });
}

/// Calls `adapter.binary` on its own thread (a panic or a hang becomes an error message).
pub(in crate::run) fn call_binary(
    adapter: &Arc<dyn Adapter>,
    op: BinaryOp,
    x: &Tensor,
    y: &Tensor,
    options: &RunOptions,
) -> Result<Result<Tensor, AdapterError>, String> {
    apply_guarded(adapter, OpKind::Binary(op), vec![x.clone(), y.clone()], x.dtype(), options.timeout)
}

/// `dtype[2 3] (strides [1 2], offset 1)`.
pub(in crate::run) fn describe_tensor(t: &Tensor) -> String {
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

/// A named result whose axes were right: the axes and the bits in logical order.
struct NamedResult {
    axes: Vec<NamedAxis>,
    bits: Vec<u64>,
}

/// An operand of a value check: the tensor the adapter gets and its values in logical order.
pub(in crate::run) struct ValueOperand {
    tensor: Tensor,
    values: Vec<u64>,
}

/// Everything a value check of one (operation, dtype) needs.
pub(in crate::run) struct ValueCheck<'a> {
    catalog: &'a Catalog,
    suite: &'a LoadedSuite,
    ctx: Context<'a>,
    pub(in crate::run) op: BinaryOp,
    dtype: DType,
    format: Format,
    adapter: &'a Arc<dyn Adapter>,
    options: &'a RunOptions,
    pub(in crate::run) seed: u64,
}

impl<'a> ValueCheck<'a> {
    pub(in crate::run) fn new(
        catalog: &'a Catalog,
        suite: &'a LoadedSuite,
        t: usize,
        dtype: DType,
        adapter: &'a Arc<dyn Adapter>,
        options: &'a RunOptions,
    ) -> Result<ValueCheck<'a>, String> {
        let table = &catalog.elementwise[t];
        let OpKind::Binary(op) = table.op else {
            return Err(format!("{} is not a binary operation", table.op));
        };
        let format = Format::of(dtype).ok_or_else(|| format!("{dtype} is not a float dtype"))?;
        let ctx = Context::new(table, Some(&suite.suite), format);
        Ok(ValueCheck { catalog, suite, ctx, op, dtype, format, adapter, options, seed: suite.suite.seed })
    }

    pub(in crate::run) fn run(
        &self,
        check: &Check,
        cases: ValueCases,
        rec: &mut Recorder,
    ) -> Result<(), String> {
        let mut generator = Generator::new(self.seed, &check.id.to_string());
        let n = self.suite.suite.broadcast_shapes.unwrap_or(DEFAULT_SHAPES);
        match cases {
            ValueCases::Random | ValueCases::Strided => {
                for (x, y) in shape_pairs(&mut generator, n) {
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
        let (x, y) = swap_pair(g, k);
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
    pub(in crate::run) fn operand(
        &self,
        g: &mut Generator,
        shape: &[usize],
        strided: bool,
    ) -> Result<ValueOperand, String> {
        let any = any_value(self.format);
        let n: usize = shape.iter().product();
        let values = (0..n).map(|_| any.draw(g)).collect::<Result<Vec<u64>, _>>()?;
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
    pub(in crate::run) fn call_numpy(
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
            let case = [xs[i], ys[i]];
            let expected = self.ctx.expectation(&case)?;
            if expected.accepts(self.ctx.output, actual[i], nan) {
                continue;
            }
            let reading = Reading { input: Domain::Float(f), output: self.ctx.output, nan };
            let (grade, allowed) = Judge { grader: Grader::Table(&self.ctx), alone: None }.verdict(
                rec.profile(),
                &reading,
                &case,
                &expected,
                actual[i],
            );
            rec.fail_graded(1, grade, allowed, || {
                let mut lines = inputs();
                lines.push(format!("result index {:?} of {shape:?}", unravel(i, shape)));
                lines.push(format!("x1 = {}", f.describe(xs[i])));
                lines.push(format!("x2 = {}", f.describe(ys[i])));
                Failure {
                    inputs: lines,
                    expected: expected.describe(self.ctx.output),
                    actual: self.ctx.output.describe(actual[i]),
                    steps: steps_from(&expected, self.ctx.output, actual[i]),
                    actual_bits: Some(actual[i]),
                    batch: None,
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

    /// Every vector of the suite's named tables that says `executes: true`, executed.
    fn named_vectors(&self, g: &mut Generator, rec: &mut Recorder) -> Result<(), String> {
        let mut ran = 0;
        for &t in &self.suite.broadcasting {
            for (k, case) in self.catalog.broadcasting[t].cases.iter().enumerate() {
                let Case::Named { operands, .. } = case else { continue };
                // The loader made sure a vector that says so can execute.
                if !self.catalog.broadcasting[t].table.vectors[k].executes {
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
        let PermutationAxes { superset, subset, orders } = permutation_axes(g);
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
                            actual_bits: None,
                            batch: None,
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
