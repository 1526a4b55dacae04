//! One input of a check in detail (`opspec eval <check-id> <operand bits>…`): the operands,
//! the expectation, the oracle, the adapter's result and the verdict.
//!
//! The adapter is called the way the check called it: when the operands are among the check's
//! generated inputs, with the check's whole batch, and the result at that position is shown
//! (an implementation may compute a batch differently from a single element). Other operands
//! are evaluated alone, and the output says so. For a property check the property itself is
//! evaluated (the input and its transforms), not a single result.

use super::batch::Batch;
use super::check::{Check, RunOptions, Target};
use super::elementwise::FloatBatch;
use super::elementwise::integer::IntegerBatch;
use super::elementwise::property::PropertyRun;
use crate::bits::value::Domain;
use crate::host::{NamedAdapter, find_adapter};
use crate::judge::batch::steps_from;
use crate::judge::expect::Expect;
use crate::run::check::ElementwiseKind;
use crate::spec::Catalog;

/// What `eval` found.
pub struct Evaluation {
    /// The report, line by line.
    pub lines: Vec<String>,
    /// Whether the adapter's (or, for a table self-check, the oracle's) result is allowed.
    pub pass: bool,
}

/// Evaluates `operands` (bits) in `check` (as `select::exact_check` finds it) against the
/// adapter its id names, found among `adapters`.
pub fn eval(
    catalog: &Catalog,
    adapters: &[NamedAdapter],
    check: &Check,
    operands: &[u64],
    options: &RunOptions,
) -> Result<Evaluation, String> {
    let adapter = check.id.adapter_name().and_then(|n| find_adapter(adapters, n)).map(|(_, a)| a);
    let mut lines = Vec::new();
    let actual = |batch: &Batch, lines: &mut Vec<String>| -> Result<Option<u64>, String> {
        let Some(adapter) = adapter else { return Ok(None) };
        let position = batch.position(operands).ok_or("the case is not in its batch")?;
        lines.push(format!(
            "called {} ({}) with a batch of {} inputs, this one at position {position}",
            adapter.name(),
            adapter.version(),
            batch.cases.len()
        ));
        let (returned, warned) = crate::host::warnings::collect(|| batch.call(adapter, options));
        lines.extend(warned.iter().map(|w| format!("library warning: {w}")));
        Ok(Some(returned?[position]))
    };
    let pass = match &check.target {
        Target::Elementwise(ElementwiseKind::Float(t)) => {
            let mut floats = FloatBatch::prepare(catalog, check, t, options)?;
            describe_operands(&floats.batch, operands, &mut lines)?;
            if floats.batch.position(operands).is_none() {
                lines.push("these operands are not among the check's inputs: evaluated alone".into());
                floats.batch.expected = vec![floats.expectation(operands)?];
                floats.batch.cases = vec![operands.to_vec()];
            }
            let p = floats.batch.position(operands).unwrap_or(0);
            let expected = floats.batch.expected[p].clone();
            let output = floats.batch.reading.output;
            lines.push(format!("expected: {}", expected.describe(output)));
            let oracle = crate::oracle::reference(floats.table.op, floats.format, operands);
            if let Ok(r) = &oracle {
                lines.push(format!("oracle:   {}", output.describe(*r)));
            }
            match actual(&floats.batch, &mut lines)? {
                Some(a) => verdict(&expected, &floats.batch, a, &mut lines),
                None => {
                    lines.push("a table self-check: the oracle's result is judged against the table".into());
                    verdict(&expected, &floats.batch, oracle?, &mut lines)
                }
            }
        }
        Target::Elementwise(ElementwiseKind::Integer(t)) => {
            let mut ints = IntegerBatch::prepare(catalog, check, t)?;
            describe_operands(&ints.batch, operands, &mut lines)?;
            if ints.batch.position(operands).is_none() {
                lines.push("these operands are not among the check's inputs: evaluated alone".into());
                let Some(e) = ints.expectation(operands)? else {
                    lines.push("the suite's integer contract leaves this input out (`avoid`)".into());
                    return Ok(Evaluation { lines, pass: true });
                };
                ints.batch.expected = vec![e];
                ints.batch.cases = vec![operands.to_vec()];
            }
            let p = ints.batch.position(operands).unwrap_or(0);
            let expected = ints.batch.expected[p].clone();
            lines.push(format!("expected: {}", expected.describe(ints.batch.reading.output)));
            let a = actual(&ints.batch, &mut lines)?.ok_or("an integer check needs an adapter")?;
            verdict(&expected, &ints.batch, a, &mut lines)
        }
        Target::Elementwise(ElementwiseKind::Property(t)) => {
            eval_property(catalog, check, t, adapter, operands, options, &mut lines)?
        }
        _ => {
            return Err(format!(
                "`eval` shows one input of an element-wise or property check; `{}` is checked as a whole: {}",
                check.id,
                options.rerun.run_command(&check.id)
            ));
        }
    };
    Ok(Evaluation { lines, pass })
}

/// Checks the operands' count and width, and describes them.
fn describe_operands(batch: &Batch, operands: &[u64], lines: &mut Vec<String>) -> Result<(), String> {
    let arity = batch.cases.first().map_or(operands.len(), Vec::len);
    if operands.len() != arity {
        return Err(format!("the operation takes {arity} operands, {} given", operands.len()));
    }
    let bits = 8 * batch.dtype.size();
    for (i, &x) in operands.iter().enumerate() {
        if bits < 64 && x >> bits != 0 {
            return Err(format!("operand {} (0x{x:x}) has more than {bits} bits", i + 1));
        }
        if batch.dtype == opspec_adapter::DType::Bool && x > 1 {
            return Err(format!("operand {} (0x{x:x}) is not a bool: 0x0 (false) or 0x1 (true)", i + 1));
        }
        // A one-operand table calls its operand `x`.
        let name = if arity == 1 { "x".to_string() } else { format!("x{}", i + 1) };
        lines.push(format!("{name} = {}", batch.reading.input.describe(x)));
    }
    Ok(())
}

/// Appends the actual result, its distance and the verdict; returns whether it is allowed.
fn verdict(expected: &Expect, batch: &Batch, actual: u64, lines: &mut Vec<String>) -> bool {
    let output = batch.reading.output;
    let ok = expected.accepts(output, actual, batch.reading.nan);
    lines.push(format!("actual:   {}", output.describe(actual)));
    if let Some(d) = steps_from(expected, output, actual) {
        lines.push(format!("distance: {d} steps from the expectation's centre"));
    }
    lines.push(format!("verdict:  {}", if ok { "pass" } else { "FAIL" }));
    ok
}

/// Evaluates the property on the operands: with the check's whole batch when they are among
/// its inputs, alone otherwise; lists every violation that involves them.
fn eval_property(
    catalog: &Catalog,
    check: &Check,
    target: &super::check::PropertyTarget,
    adapter: Option<&std::sync::Arc<dyn opspec_adapter::Adapter>>,
    operands: &[u64],
    options: &RunOptions,
    lines: &mut Vec<String>,
) -> Result<bool, String> {
    let mut run = PropertyRun::prepare(catalog, check, target, options)?;
    let f = crate::bits::format::Format::of(target.dtype).ok_or("not a float dtype")?;
    if operands.len() != 2 {
        return Err(format!("the property takes 2 operands, {} given", operands.len()));
    }
    for (i, &x) in operands.iter().enumerate() {
        lines.push(format!("x{} = {}", i + 1, Domain::Float(f).describe(x)));
    }
    match run.cases.iter().position(|c| c == operands) {
        Some(p) => lines.push(format!(
            "evaluated as the check does: batches of {} inputs (the inputs, then each transform), this one at position {p}",
            run.cases.len()
        )),
        None => {
            lines.push("these operands are not among the check's inputs: evaluated alone".into());
            run.cases = vec![operands.to_vec()];
        }
    }
    let violations: Vec<_> =
        run.evaluate(adapter, options)?.into_iter().filter(|v| v.inputs[0] == operands).collect();
    let ok = violations.is_empty();
    for v in violations {
        let failure = run.failure(v);
        lines.extend(failure.inputs.iter().map(|i| format!("  {i}")));
        lines.push(format!("  expected: {}", failure.expected));
        lines.push(format!("  actual:   {}", failure.actual));
    }
    lines.push(format!(
        "verdict:  {}",
        if ok { "pass (the property holds for these operands)" } else { "FAIL (the property is violated)" }
    ));
    Ok(ok)
}
