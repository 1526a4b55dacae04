//! Sweeps (`run --exhaustive`): every pair of 16-bit values of a binary element-wise
//! operation (2^32 cases), or the dense TestFloat-style grid of f32 and f64 pairs; and every
//! value of a one-operand function in f16, bf16 and f32 (2^32 cases); checked in fixed chunks
//! of [`CHUNK`] cases against the same expectations as the sampled checks.
//!
//! A chunk is judged in batches of [`BATCH`] cases, one adapter call each (the next batch's
//! call runs while this one is judged on every core); a finished chunk is appended to the
//! check's state file (`<out>/sweeps/<id>.jsonl`), so a killed sweep resumes after its last
//! finished chunk when the same command runs again. A chunk is also a shard unit
//! (`ID#CHUNK`, [`crate::results::shard`]), and the result lists each chunk's counts for `merge`. A progress line shows the rate and the time
//! left. Failures are counted per governing table row; the first few are listed in full. A
//! one-operand sweep of an approximate function also measures the error of every result
//! (the accuracy table of `docs/ACCURACY.md`).
//!
//! The keyed judges are [`crate::judge::classes`] (pairs) and [`crate::judge::values`]; the
//! operands come from [`crate::generate::sweep`].

mod state;

use crate::generate::hard::HARD_CASES;
use crate::generate::sweep::{chunk_count, operand_tensor};
use crate::judge::classes::{ChunkTally, ClassJudge, NO_ROW};
use crate::judge::values::ValueJudge;
use crate::oracle::fast;
use crate::run::check::ElementwiseKind;
use crate::run::progress::group;
use crate::spec::schema::Accuracy;
use crate::spec::suite::NanPolicy;
use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use opspec_adapter::{Adapter, DType, OpKind, Tensor};

use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::generate::sweep::Sweep;
use crate::host::warnings;
use crate::judge::authority::Grade;
use crate::judge::context::Context;
use crate::oracle::ReferenceKind;
use crate::results::{CheckResult, ChunkResult, Resumed};
use crate::run::call::apply_guarded;
use crate::run::check::{CaseSet, Check, CheckId, FloatTarget, RunOptions, SweepTarget, Target};
use crate::run::record::{Failure, Recorder, Repro, write_accuracy};
use crate::spec::{Catalog, LoadedSuite};

use crate::run::progress::Progress;
use state::State;

/// Every sweep check of every suite against each named adapter, in a stable order.
pub fn sweep_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let suites = catalog.suites.iter();
    suites.flat_map(|s| adapters.iter().flat_map(move |a| plan_suite(catalog, s, a))).collect()
}

/// The sweep checks of `suite`'s element-wise tables against `adapter`: for a binary table,
/// `exhaustive` in each 16-bit dtype and `grid` in f32 and f64, and for an approximate one the
/// fast reference computes, `hard` in f32 ([`crate::generate::hard`]: a sampled check, planned
/// here); for a unary one, `exhaustive` in f16, bf16 and f32.
fn plan_suite(catalog: &Catalog, suite: &LoadedSuite, adapter: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    for &t in &suite.tables {
        let table = &catalog.elementwise[t];
        let arity = match (table.table.operands.len(), table.op) {
            (1, OpKind::Unary(_)) => 1,
            (2, OpKind::Binary(_) | OpKind::BinaryInto(_)) => 2,
            _ => continue,
        };
        let dtypes =
            suite.dtypes.iter().filter(|d| d.is_float() && table.table.dtypes.iter().any(|x| x == d.name()));
        for &dtype in dtypes {
            let Some(f) = Format::of(dtype) else { continue };
            let len = match arity {
                1 => match Sweep::every_value(f) {
                    Some(sweep) => sweep.len(),
                    None => continue,
                },
                _ => Sweep::binary_len(f),
            };
            let case = if f.bits == 16 || arity == 1 { "exhaustive" } else { "grid" };
            let id = |case| CheckId::adapter(&suite.suite.name, adapter, &table.table.op, dtype.name(), case);
            if arity == 2
                && f == Format::F32
                && table.table.accuracy == Accuracy::Approximate
                && fast::covers(table.op, f)
            {
                checks.push(Check {
                    id: id("hard"),
                    needs: Some((table.op, dtype)),
                    target: Target::Elementwise(ElementwiseKind::Float(FloatTarget {
                        table: t,
                        dtype,
                        cases: CaseSet::Hard,
                    })),
                    planned: Some(HARD_CASES),
                });
            }
            let id = id(case);
            checks.push(Check {
                id,
                needs: Some((table.op, dtype)),
                target: Target::Elementwise(ElementwiseKind::Sweep(SweepTarget {
                    table: t,
                    dtype,
                    arity,
                    chunks: (0..chunk_count(len)).collect(),
                })),
                planned: usize::try_from(len).ok(),
            });
        }
    }
    checks
}

/// `check` with only the sweep chunks `keep` selects (its planned inputs counted again), or
/// `None` when it keeps none; any other check (a `hard` one) is one chunk, 0.
pub fn keep_chunks(mut check: Check, keep: impl Fn(u64) -> bool) -> Option<Check> {
    let Target::Elementwise(ElementwiseKind::Sweep(target)) = &mut check.target else {
        return keep(0).then_some(check);
    };
    target.chunks.retain(|&k| keep(k));
    if target.chunks.is_empty() {
        return None;
    }
    let sweep = Format::of(target.dtype).and_then(|f| Sweep::of(target.arity, f))?;
    let cases: u64 = target.chunks.iter().map(|&k| sweep.chunk(k).end - sweep.chunk(k).start).sum();
    check.planned = usize::try_from(cases).ok();
    Some(check)
}

/// The message of a sweep check's result in `dtype`: the cases checked of the sweep's (values
/// of a one-operand sweep, pairs of a two-operand one), and the failures per governing row
/// (`by_row`) where there are any.
pub fn sweep_message(
    dtype: &str,
    arity: usize,
    checked: u64,
    failed: u64,
    by_row: &BTreeMap<String, u64>,
) -> String {
    let sweep = dtype.parse::<DType>().ok().and_then(Format::of).and_then(|f| Sweep::of(arity, f));
    let of = sweep.map_or(checked, |s| s.len());
    let noun = if arity == 1 { "values" } else { "pairs" };
    let mut message = format!("{} of {} {noun} checked", group(checked), group(of));
    if failed > 0 {
        let rows: Vec<String> = by_row.iter().map(|(row, n)| format!("{row}: {}", group(*n))).collect();
        message = format!(
            "{message}; {} gave a result the contract does not allow ({})",
            group(failed),
            rows.join(", ")
        );
    }
    message
}

/// A sweep's judge: of the pairs of a binary table, or of the values of a one-operand one.
enum SweepJudge<'a> {
    Pairs(ClassJudge<'a>),
    Values(ValueJudge<'a>),
}

impl<'a> SweepJudge<'a> {
    fn ctx(&self) -> &Context<'a> {
        match self {
            SweepJudge::Pairs(j) => &j.ctx,
            SweepJudge::Values(j) => &j.ctx,
        }
    }

    fn nan(&self) -> NanPolicy {
        match self {
            SweepJudge::Pairs(j) => j.nan,
            SweepJudge::Values(j) => j.nan,
        }
    }

    fn batch(&self, cases: Range<u64>, returned: &Tensor, max_listed: usize) -> Result<ChunkTally, String> {
        match self {
            SweepJudge::Pairs(j) => j.batch(cases, returned, max_listed),
            SweepJudge::Values(j) => j.batch(cases, returned, max_listed),
        }
    }
}

/// Runs a sweep check's chunks, resuming from its state file in `options.state_dir` if there
/// is one.
pub fn run(
    catalog: &Catalog,
    check: &Check,
    target: &SweepTarget,
    adapter: &Arc<dyn Adapter>,
    options: &RunOptions,
    result: &mut CheckResult,
) -> Result<(), String> {
    let table = &catalog.elementwise[target.table];
    let f = Format::of(target.dtype).ok_or("not a float dtype")?;
    let suite = check.adapter_suite(catalog)?;
    let sweep = Sweep::of(target.arity, f).ok_or("no sweep of this arity and dtype")?;
    let ctx = Context::new(table, Some(&suite.suite), f);
    let judge = match target.arity {
        1 => SweepJudge::Values(ValueJudge::new(table, ctx, suite.suite.nan)?),
        _ => SweepJudge::Pairs(ClassJudge::new(table, ctx, suite.suite.nan, &sweep)?),
    };
    result.reference = Some(ReferenceKind::of(table.op, f));
    let key = state::Key {
        check: check.id.to_string(),
        opspec: format!("{} {}", env!("CARGO_PKG_VERSION"), state::build()),
        catalog: catalog.revision.clone(),
        adapter: format!("{}: {}", adapter.name(), adapter.version()),
        cases: sweep.len(),
    };
    let rows = table.table.rows.iter().map(|r| r.id.value.as_str()).chain([NO_ROW]).collect();
    let expected = state::Expected { sweep: &sweep, rows };
    let mut state = State::open(options.state_dir.as_deref(), &key, &expected)?;
    let mut done: BTreeMap<u64, ChunkTally> =
        target.chunks.iter().filter_map(|k| state.finished.remove(k).map(|t| (*k, t))).collect();
    let seed = state::fresh_seed();
    let resumed: Vec<u64> = done.keys().copied().collect();
    let verify = state::chosen(&resumed, options.verify_resumed, seed);
    if !resumed.is_empty() {
        let chunks = ranges(&resumed);
        let from = state.path.display().to_string();
        result.resumed.push(Resumed { from, chunks, verified: verify.clone(), seed });
        eprintln!("  {}: {}", check.id, result.resumed[0].describe());
    }
    // The chunks to run: those not finished, and the finished ones drawn to be checked.
    let todo: Vec<u64> =
        target.chunks.iter().copied().filter(|k| !done.contains_key(k) || verify.contains(k)).collect();
    let cases = |k: u64| sweep.chunk(k).end - sweep.chunk(k).start;
    let mut progress = Progress::new(
        check.id.to_string(),
        "cases",
        target.chunks.iter().chain(&verify).map(|&k| cases(k)).sum(),
    );
    // Each chunk's count is its chunk's size (checked on reading), so the sum is at most the
    // sweep's; it is added with a check all the same.
    let skipped = done
        .iter()
        .filter(|(k, _)| !verify.contains(k))
        .try_fold(0u64, |sum, (_, t)| sum.checked_add(t.cases));
    progress.advance(skipped.ok_or("the resumed chunks' cases overflow a count")?);
    // The chunks' batches, in order; the adapter computes the next batch while this one is
    // judged.
    let batches: Vec<(u64, Range<u64>)> = todo
        .iter()
        .flat_map(|&k| {
            let r = sweep.chunk(k);
            (r.start..r.end).step_by(BATCH as usize).map(move |b| (k, b..(b + BATCH).min(r.end)))
        })
        .collect();
    let (op, output) = (judge.ctx().op, judge.ctx().output);
    let size = target.dtype.size();
    let domain: Vec<u8> = match &judge {
        SweepJudge::Pairs(j) => j.domain.iter().flat_map(|x| x.to_le_bytes()[..size].to_vec()).collect(),
        SweepJudge::Values(_) => Vec::new(),
    };
    let operands = |cases: Range<u64>| -> Result<Vec<Tensor>, String> {
        let n = (cases.end - cases.start) as usize;
        match target.arity {
            1 => Ok(vec![values_tensor(cases, target.dtype)?]),
            _ => {
                let slot = |slot| operand_tensor(&domain, cases.start, n, slot, target.dtype);
                let (x, y) = rayon::join(|| slot(0), || slot(1));
                Ok(vec![x?, y?])
            }
        }
    };
    let call = |cases: Range<u64>| {
        call_chunk(operands(cases.clone())?, cases, op, output, adapter, target.dtype, options)
    };
    std::thread::scope(|scope| -> Result<(), String> {
        // One thread makes the calls, one batch ahead of the judge: a thread of its own per
        // call would also start a new adapter thread per call ([`crate::run::call`] keeps one
        // per calling thread). Each call's library warnings come back with it, to be this
        // thread's (the check's).
        let (send, receive) = std::sync::mpsc::sync_channel(0);
        let calls = &batches;
        scope.spawn(move || {
            for (_, r) in calls {
                let returned = catch_unwind(AssertUnwindSafe(|| warnings::collect(|| call(r.clone()))));
                if send.send(returned).is_err() {
                    break;
                }
            }
        });
        let mut tally = ChunkTally::default();
        for (i, (k, cases)) in batches.iter().enumerate() {
            let returned = receive.recv().map_err(|_| format!("chunk {k}: no adapter call"))?;
            let (returned, warned) = returned.map_err(|_| format!("chunk {k}: the adapter call panicked"))?;
            warnings::raise(warned);
            let returned = returned.map_err(|e| format!("chunk {k}: {e}"))?;
            let batch = judge.batch(cases.clone(), &returned, options.max_listed_failures)?;
            progress.advance(batch.cases);
            tally.merge(batch, options.max_listed_failures);
            if batches.get(i + 1).is_none_or(|(later, _)| later != k) {
                let finished = std::mem::take(&mut tally);
                match done.get(k) {
                    Some(stored) => {
                        if let Some(what) = state::disagreement(stored, &finished) {
                            let aside = state.put_aside()?;
                            return Err(format!(
                                "resumed chunk {k} of {} disagrees with its rerun ({what}); the file is moved to {}",
                                state.path.display(),
                                aside.display()
                            ));
                        }
                    }
                    None => {
                        state.record(*k, &finished)?;
                        done.insert(*k, finished);
                    }
                }
            }
        }
        Ok(())
    })?;
    progress.finish();
    let mut total = ChunkTally::default();
    let ctx = judge.ctx();
    for (k, tally) in done {
        let (before, failed, by_row) = (total.listed.len(), tally.failed, tally.by_row.clone());
        let (chunk_cases, ulp) = (tally.cases, tally.ulp.clone());
        total.merge(tally, options.max_listed_failures);
        let listed = total.listed.len() - before;
        result.chunks.push(ChunkResult { chunk: k, cases: chunk_cases, failed, by_row, listed, ulp });
    }
    let mut rec = Recorder::new(result, options);
    rec.checked(usize::try_from(total.cases).map_err(|_| "too many cases for this platform")?);
    let random = CheckId { case: "random".to_string(), ..check.id.clone() };
    let (input, output) = (Domain::Float(f), ctx.output);
    let names: &[&str] = if target.arity == 1 { &["x"] } else { &["x1", "x2"] };
    for (operands, actual) in &total.listed {
        let expected = ctx.expectation(operands)?;
        let grade = ctx.grade(operands, *actual, judge.nan()).unwrap_or_else(|_| Grade::cited());
        rec.fail_graded(0, grade, false, || Failure {
            inputs: operands
                .iter()
                .zip(names)
                .map(|(&x, n)| format!("{n} = {}", input.describe(x)))
                .collect(),
            expected: expected.describe(output),
            actual: output.describe(*actual),
            steps: crate::judge::batch::steps_from(&expected, output, *actual),
            actual_bits: Some(*actual),
            batch: None,
            repro: Repro::Eval { id: random.clone(), operands: operands.clone() },
        });
    }
    rec.result.failed_inputs = usize::try_from(total.failed).unwrap_or(usize::MAX);
    rec.result.failed_by_tier = total.by_tier.clone();
    rec.result.tier = total.by_tier.keys().next().copied();
    if total.failed > 0 {
        rec.result.status = crate::results::Status::Fail;
    }
    rec.result.message =
        sweep_message(target.dtype.name(), target.arity, total.cases, total.failed, &total.by_row);
    for note in rec.result.resumed.iter().map(Resumed::describe).chain(state.set_aside.clone()) {
        rec.result.message += &format!("; {note}");
    }
    write_accuracy(&total.ulp, f, rec.result);
    rec.result.failed_by_row = total.by_row;
    Ok(())
}

/// `chunks`, in order, as half-open ranges of consecutive chunks.
fn ranges(chunks: &[u64]) -> Vec<[u64; 2]> {
    let mut ranges: Vec<[u64; 2]> = Vec::new();
    for &k in chunks {
        match ranges.last_mut() {
            Some(last) if last[1] == k => last[1] = k + 1,
            _ => ranges.push([k, k + 1]),
        }
    }
    ranges
}

/// Cases per adapter call: a chunk is called and judged in batches this large, whose buffers
/// the allocator reuses (a whole chunk's would be mapped and zeroed afresh each time). 2^22
/// rather than 2^20 took remainder's bf16 sweep from 10.2 s to 9.8 s here, with half the
/// system time (docs/SCALE.md).
const BATCH: u64 = 1 << 22;

/// The values `cases` of a one-operand sweep (case `i` is the bit pattern `i`) as a tensor.
fn values_tensor(cases: Range<u64>, dtype: DType) -> Result<Tensor, String> {
    let size = dtype.size();
    let n = (cases.end - cases.start) as usize;
    let mut bytes = vec![0u8; n * size];
    for (out, x) in bytes.chunks_exact_mut(size).zip(cases) {
        out.copy_from_slice(&x.to_le_bytes()[..size]);
    }
    Tensor::from_bytes(dtype, &[n], bytes).map_err(|e| e.to_string())
}

/// Calls the adapter on the `operands` of `cases`: its result, checked for dtype and shape.
fn call_chunk(
    operands: Vec<Tensor>,
    cases: Range<u64>,
    op: OpKind,
    output: Domain,
    adapter: &Arc<dyn Adapter>,
    dtype: DType,
    options: &RunOptions,
) -> Result<Tensor, String> {
    let n = (cases.end - cases.start) as usize;
    let out_dtype = if output == Domain::Bool { DType::Bool } else { dtype };
    let returned = apply_guarded(adapter, op, operands, out_dtype, options.timeout)?
        .map_err(|e| format!("the adapter returned an error: {e}"))?;
    if returned.dtype() != out_dtype || returned.shape() != [n] {
        return Err(format!(
            "the adapter returned {} {:?}, expected {out_dtype} [{n}]",
            returned.dtype(),
            returned.shape()
        ));
    }
    Ok(if returned.contiguous_bytes().is_some() { returned } else { returned.to_contiguous() })
}
