//! Element-wise batches: many cases packed into one tensor per operand, one adapter call, and
//! every result compared with its expectation and recorded (graded by [`crate::judge::batch`]).

use std::sync::Arc;

use opspec_adapter::{Adapter, DType, OpKind, Tensor};

use super::call::apply_guarded;
use super::check::RunOptions;
use super::record::{Failure, Recorder, Repro};
use crate::generate::Cases;
use crate::judge::authority::Grade;
use crate::judge::batch::{Judge, Reading, steps_from};
use crate::judge::expect::Expect;
use crate::results::BatchPlace;

/// A batch of cases with what each must give.
pub struct Batch {
    pub op: OpKind,
    /// The operands' dtype.
    pub dtype: DType,
    pub cases: Cases,
    pub expected: Vec<Expect>,
    pub reading: Reading,
}

impl Batch {
    /// Calls the adapter once on the whole batch.
    pub fn call(&self, adapter: &Arc<dyn Adapter>, options: &RunOptions) -> Result<Vec<u64>, CallError> {
        call_batch(adapter, self.op, self.dtype, self.reading.output_dtype(self.dtype), &self.cases, options)
    }

    /// Compares `actual` (one result per case) with the expectations; see [`compare`].
    pub fn compare(&self, actual: &[u64], rec: &mut Recorder, judge: Option<&Judge>) {
        compare(&self.reading, &self.cases, &self.expected, actual, rec, judge);
    }

    /// Calls the adapter on `case` alone: its one result, or `None` where the call failed.
    pub fn call_alone(&self, adapter: &Arc<dyn Adapter>, options: &RunOptions, case: &[u64]) -> Option<u64> {
        let one: Cases = vec![case.to_vec()];
        call_batch(adapter, self.op, self.dtype, self.reading.output_dtype(self.dtype), &one, options)
            .ok()
            .and_then(|r| r.first().copied())
    }

    /// Where `case` is in the batch, if it is.
    pub fn position(&self, case: &[u64]) -> Option<usize> {
        self.cases.iter().position(|c| c == case)
    }
}

/// Packs `cases` into one tensor per operand of `dtype` and calls the adapter once; the result
/// must be a vector of `output_dtype` with one element per case.
pub fn call_batch(
    adapter: &Arc<dyn Adapter>,
    op: OpKind,
    dtype: DType,
    output_dtype: DType,
    cases: &Cases,
    options: &RunOptions,
) -> Result<Vec<u64>, CallError> {
    let arity = cases.first().map_or(0, Vec::len);
    let n = cases.len();
    let operands = (0..arity)
        .map(|k| {
            let column: Vec<u64> = cases.iter().map(|c| c[k]).collect();
            Tensor::from_bits(dtype, &[n], &column).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let returned = apply_guarded(adapter, op, operands, output_dtype, options.timeout)?
        .map_err(|e| CallError::Refused(format!("the adapter returned an error: {e}")))?;
    if returned.dtype() != output_dtype {
        return Err(
            format!("the adapter returned dtype {}, expected {output_dtype}", returned.dtype()).into()
        );
    }
    if returned.shape() != [n] {
        return Err(format!("the adapter returned shape {:?}, expected [{n}]", returned.shape()).into());
    }
    Ok(returned.to_bits())
}

/// Why a batch call gave no results.
#[derive(Debug)]
pub enum CallError {
    /// The adapter returned an error.
    Refused(String),
    /// Anything else: a panic, a crash, a hang, a result of the wrong dtype or shape.
    Failed(String),
}

impl From<String> for CallError {
    fn from(reason: String) -> CallError {
        CallError::Failed(reason)
    }
}

impl From<CallError> for String {
    fn from(e: CallError) -> String {
        match e {
            CallError::Refused(reason) | CallError::Failed(reason) => reason,
        }
    }
}

/// Compares every case's result with its expectation and records the failures; each
/// reproduces with `eval` of the check and the case's operands. With a `judge`, each failure
/// is graded by the authority of the bar it misses, judged under the relaxation profile the
/// adapter declares, if it declares one (see [`crate::spec::profile::Profile`]), and, where it
/// is listed, retried alone; without one, it fails what the check cites.
pub fn compare(
    reading: &Reading,
    cases: &Cases,
    expected: &[Expect],
    actual: &[u64],
    rec: &mut Recorder,
    judge: Option<&Judge>,
) {
    let (input, output) = (reading.input, reading.output);
    rec.checked(cases.len());
    let names: &[&str] =
        if cases.first().is_some_and(|c| c.len() == 1) { &["x"] } else { &["x1", "x2", "x3"] };
    for i in (0..cases.len()).filter(|&i| !expected[i].accepts(output, actual[i], reading.nan)) {
        let (grade, allowed) = match judge {
            Some(j) => j.verdict(rec.profile(), reading, &cases[i], &expected[i], actual[i]),
            None => (Grade::cited(), false),
        };
        rec.fail_graded(1, grade, allowed, || Failure {
            inputs: cases[i]
                .iter()
                .zip(names)
                .map(|(&x, &n)| format!("{n} = {}", input.describe(x)))
                .collect(),
            expected: expected[i].describe(output),
            actual: output.describe(actual[i]),
            steps: steps_from(&expected[i], output, actual[i]),
            actual_bits: Some(actual[i]),
            batch: (cases.len() > 1).then(|| BatchPlace {
                size: cases.len(),
                position: i,
                alone_passes: judge
                    .and_then(|j| j.alone)
                    .and_then(|alone| alone(&cases[i]))
                    .map(|a| expected[i].accepts(output, a, reading.nan)),
            }),
            repro: Repro::Element(cases[i].clone()),
        });
    }
    rec.finish("inputs");
}
