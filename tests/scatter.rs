//! The scatter checks catch bugs: deliberately wrong scatter-add adapters fail on the checks
//! that cover what they break, and nowhere else, at the tier the document's words give
//! (`docs/AUTHORITY.md`, 3.16: a must where MindSpore's page states the bar, opspec's bar where
//! IEEE 754 or opspec sets it); adapters that sum duplicates correctly in another order
//! (reversed, pairwise) pass everything. Also: malformed scatter tables are located errors.

#[macro_use]
mod common;

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::Arc;

use half::{bf16, f16};
use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec_adapter::{Adapter, AdapterError, DType, ErrorKind, ScatterMode, Tensor};
use opspec_cpu::CpuAdapter;

const FLOATS: [&str; 4] = ["f16", "bf16", "f32", "f64"];
const ALL: [&str; 12] = ["f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"];

/// The operands of a scatter call in plain form: coordinates as `i64`, values as bits.
struct Operands {
    depth: usize,
    vectors: Vec<Vec<i64>>,
    /// One slice of update bits per index vector.
    slices: Vec<Vec<u64>>,
}

impl Operands {
    /// `None` when the operands are not a well-formed int32/int64 scatter (the CPU adapter
    /// then gives the right error).
    fn read(input: &Tensor, indices: &Tensor, updates: &Tensor) -> Option<Operands> {
        let coords: Vec<i64> = match indices.dtype() {
            DType::I32 => indices.to_vec::<i32>().ok()?.into_iter().map(i64::from).collect(),
            DType::I64 => indices.to_vec::<i64>().ok()?,
            _ => return None,
        };
        let (&depth, batch) = indices.shape().split_last()?;
        let n: usize = batch.iter().product();
        if depth == 0 || batch.is_empty() || n == 0 || depth > input.shape().len() {
            return None;
        }
        let required: Vec<usize> = batch.iter().chain(&input.shape()[depth..]).copied().collect();
        if updates.shape() != required.as_slice() {
            return None;
        }
        let bits = updates.to_bits();
        let slice = bits.len() / n;
        Some(Operands {
            depth,
            vectors: coords.chunks(depth).map(<[i64]>::to_vec).collect(),
            slices: (0..n).map(|v| bits[v * slice..(v + 1) * slice].to_vec()).collect(),
        })
    }

    /// Index and update tensors for `input`, the index vectors along one batch axis.
    fn tensors(&self, input: &Tensor) -> (Tensor, Tensor) {
        let n = self.vectors.len();
        let coords: Vec<i64> = self.vectors.concat();
        let index_tensor = Tensor::from_slice(&coords, &[n, self.depth]).unwrap();
        let mut shape = vec![n];
        shape.extend_from_slice(&input.shape()[self.depth.min(input.shape().len())..]);
        (index_tensor, Tensor::from_bits(input.dtype(), &shape, &self.slices.concat()).unwrap())
    }
}

/// A wrong (or differently ordered) scatter-add built around the CPU adapter.
struct Variant {
    name: &'static str,
    call: fn(&Tensor, &Tensor, &Tensor, ScatterMode) -> Result<Tensor, AdapterError>,
}

impl Adapter for Variant {
    fn name(&self) -> &str {
        self.name
    }

    wraps_cpu!("deliberate variant");

    fn scatter_add(
        &self,
        input: &Tensor,
        indices: &Tensor,
        updates: &Tensor,
        mode: ScatterMode,
    ) -> Result<Tensor, AdapterError> {
        (self.call)(input, indices, updates, mode)
    }
}

/// Duplicates overwrite instead of adding: only the last update of each index vector counts.
fn last_duplicate_only(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let Some(mut ops) = Operands::read(i, x, u) else { return CpuAdapter.scatter_add(i, x, u, m) };
    // From the last vector back: kept where no later vector repeats it.
    let mut later = HashSet::new();
    let mut keep: Vec<bool> = ops.vectors.iter().rev().map(|v| later.insert(v.clone())).collect();
    keep.reverse();
    let mut k = keep.iter();
    ops.vectors.retain(|_| *k.next().unwrap());
    let mut k = keep.iter();
    ops.slices.retain(|_| *k.next().unwrap());
    let (x, u) = ops.tensors(i);
    CpuAdapter.scatter_add(i, &x, &u, m)
}

/// Raises on out-of-range index vectors even in `ignore` mode.
fn raises_out_of_range(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let mode = if m == ScatterMode::Ignore { ScatterMode::Error } else { m };
    CpuAdapter.scatter_add(i, x, u, mode)
}

/// Reads a negative coordinate `-k` as `extent - k` in `ignore` mode.
fn wraps_negative(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let Some(mut ops) = Operands::read(i, x, u) else { return CpuAdapter.scatter_add(i, x, u, m) };
    for v in &mut ops.vectors {
        for (c, &extent) in v.iter_mut().zip(i.shape()) {
            if *c < 0 && *c >= -(extent as i64) {
                *c += extent as i64;
            }
        }
    }
    let (x, u) = ops.tensors(i);
    CpuAdapter.scatter_add(i, &x, &u, m)
}

/// Accepts float (and every other) index dtype by converting the coordinates to int64.
fn accepts_float_indices(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let coords: Vec<i64> = match x.dtype() {
        DType::F16 => x.to_vec::<f16>()?.iter().map(|c| c.to_f32() as i64).collect(),
        DType::BF16 => x.to_vec::<bf16>()?.iter().map(|c| c.to_f32() as i64).collect(),
        DType::F32 => x.to_vec::<f32>()?.iter().map(|&c| c as i64).collect(),
        DType::F64 => x.to_vec::<f64>()?.iter().map(|&c| c as i64).collect(),
        _ => return CpuAdapter.scatter_add(i, x, u, m),
    };
    CpuAdapter.scatter_add(i, &Tensor::from_slice(&coords, x.shape())?, u, m)
}

/// Drops the low bits of every update after the first for the same index vector: duplicate
/// sums come out far outside the bound.
fn drops_low_bits(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let Some(mut ops) = Operands::read(i, x, u) else { return CpuAdapter.scatter_add(i, x, u, m) };
    let low = match i.dtype() {
        DType::F16 => 0x3f,
        DType::BF16 => 0x7,
        DType::F32 => 0xfff,
        DType::F64 => 0x3fff_ffff,
        _ => 0,
    };
    let mut earlier = HashSet::new();
    for (v, slice) in ops.vectors.iter().zip(&mut ops.slices) {
        if !earlier.insert(v.clone()) {
            slice.iter_mut().for_each(|b| *b &= !low);
        }
    }
    let (x, u) = ops.tensors(i);
    CpuAdapter.scatter_add(i, &x, &u, m)
}

/// Correct sums in reverse index order.
fn reversed(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let Some(mut ops) = Operands::read(i, x, u) else { return CpuAdapter.scatter_add(i, x, u, m) };
    ops.vectors.reverse();
    ops.slices.reverse();
    let (x, u) = ops.tensors(i);
    CpuAdapter.scatter_add(i, &x, &u, m)
}

/// `a + b` in the dtype's arithmetic, on bits.
fn add_bits(dtype: DType, a: u64, b: u64) -> u64 {
    let via = |f: fn(u64) -> f32, t: fn(f32) -> u64| t(f(a) + f(b));
    match dtype {
        DType::F16 => via(|x| f16::from_bits(x as u16).to_f32(), |y| f16::from_f32(y).to_bits() as u64),
        DType::BF16 => via(|x| bf16::from_bits(x as u16).to_f32(), |y| bf16::from_f32(y).to_bits() as u64),
        DType::F32 => (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64,
        DType::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        other => a.wrapping_add(b) & (u64::MAX >> (64 - 8 * other.size())),
    }
}

fn pairwise_sum(dtype: DType, xs: &[u64]) -> u64 {
    if xs.len() == 1 {
        return xs[0];
    }
    let (l, r) = xs.split_at(xs.len() / 2);
    add_bits(dtype, pairwise_sum(dtype, l), pairwise_sum(dtype, r))
}

/// Each output element's updates in index order, in the mindspore suite's mode (out-of-range
/// index vectors and negative coordinates skipped); `None` for operands the CPU adapter refuses.
fn addends(i: &Tensor, x: &Tensor, u: &Tensor) -> Option<Vec<Vec<u64>>> {
    let ops = Operands::read(i, x, u)?;
    let (indexed, sliced) = i.shape().split_at(ops.depth);
    let slice: usize = sliced.iter().product();
    let mut addends: Vec<Vec<u64>> = vec![Vec::new(); i.numel()];
    for (v, coords) in ops.vectors.iter().enumerate() {
        let mut linear = 0usize;
        let mut inside = true;
        for (&c, &extent) in coords.iter().zip(indexed) {
            inside &= (0..extent as i64).contains(&c);
            linear = linear * extent + c.max(0) as usize;
        }
        if inside {
            for j in 0..slice {
                addends[linear * slice + j].push(ops.slices[v][j]);
            }
        }
    }
    Some(addends)
}

/// Each element that receives updates is `sum(dtype, input element, its updates)`; operands the
/// CPU adapter refuses get its error.
fn summed(
    i: &Tensor,
    x: &Tensor,
    u: &Tensor,
    m: ScatterMode,
    sum: impl Fn(DType, u64, &[u64]) -> u64,
) -> Result<Tensor, AdapterError> {
    let checked = CpuAdapter.scatter_add(i, x, u, m)?;
    let Some(addends) = addends(i, x, u) else { return Ok(checked) };
    assert_eq!(m, ScatterMode::Ignore, "the variants implement the mindspore suite's mode");
    let bits: Vec<u64> = i
        .to_bits()
        .into_iter()
        .zip(&addends)
        .map(|(x, a)| if a.is_empty() { x } else { sum(i.dtype(), x, a) })
        .collect();
    Tensor::from_bits(i.dtype(), i.shape(), &bits)
}

/// Correct sums as a pairwise tree: each element is `input + (pairwise sum of its updates)`.
fn pairwise(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    summed(i, x, u, m, |d, x, a| add_bits(d, x, pairwise_sum(d, a)))
}

/// `a + b` rounded toward -inf (TwoSum gives the rounding error exactly).
macro_rules! add_down {
    ($t:ty, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        let s = a + b;
        let bb = s - a;
        let error = (a - (s - bb)) + (b - bb);
        if !s.is_finite() {
            s
        } else if s == 0.0 {
            // An exact zero sum is -0 rounded toward -inf, unless both operands are +0.
            if a.is_sign_positive() && b.is_sign_positive() && a == 0.0 { 0.0 } else { -0.0 }
        } else if error < 0.0 {
            s.next_down()
        } else {
            s
        }
    }};
}

/// Sums in index order with every addition rounded toward -inf in f32 and f64 (a rounding
/// direction the document does not exclude, not IEEE 754's default).
fn rounded_down(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    summed(i, x, u, m, |d, x, a| match d {
        DType::F32 => a.iter().fold(x, |acc, &b| {
            add_down!(f32, f32::from_bits(acc as u32), f32::from_bits(b as u32)).to_bits() as u64
        }),
        DType::F64 => {
            a.iter().fold(x, |acc, &b| add_down!(f64, f64::from_bits(acc), f64::from_bits(b)).to_bits())
        }
        _ => a.iter().fold(x, |acc, &b| add_bits(d, acc, b)),
    })
}

/// Integer sums saturate at the dtype's range instead of wrapping.
fn saturating(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    summed(i, x, u, m, |d, x, a| {
        let width = 8 * d.size() as u32;
        let signed = matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64);
        if matches!(d, DType::F16 | DType::BF16 | DType::F32 | DType::F64) {
            return a.iter().fold(x, |acc, &b| add_bits(d, acc, b));
        }
        let value = |b: u64| -> i128 {
            if signed { i128::from(((b << (64 - width)) as i64) >> (64 - width)) } else { i128::from(b) }
        };
        let (min, max) = if signed {
            (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
        } else {
            (0, (1i128 << width) - 1)
        };
        let total = a.iter().fold(value(x), |acc, &b| (acc + value(b)).clamp(min, max));
        (total as u64) & (u64::MAX >> (64 - width))
    })
}

/// The CPU adapter's result with `map` applied to every output element's bits.
fn mapped(
    i: &Tensor,
    x: &Tensor,
    u: &Tensor,
    m: ScatterMode,
    map: impl Fn(DType, u64) -> u64,
) -> Result<Tensor, AdapterError> {
    let right = CpuAdapter.scatter_add(i, x, u, m)?;
    let bits: Vec<u64> = right.to_bits().into_iter().map(|b| map(right.dtype(), b)).collect();
    Tensor::from_bits(right.dtype(), right.shape(), &bits)
}

/// Every float output that is -0 comes out +0 (as `input + scatter(zeros, ...)` gives).
fn positive_zeros(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    mapped(i, x, u, m, |d, b| {
        let sign = 1u64 << (8 * d.size() - 1);
        if is_float(d) && b == sign { 0 } else { b }
    })
}

/// Every NaN or infinite float output comes out +0.
fn finite_only(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    mapped(i, x, u, m, |d, b| {
        let exponent = match d {
            DType::F16 => 0x7c00,
            DType::BF16 => 0x7f80,
            DType::F32 => 0x7f80_0000,
            DType::F64 => 0x7ff0_0000_0000_0000,
            _ => return b,
        };
        if b & exponent == exponent { 0 } else { b }
    })
}

fn is_float(d: DType) -> bool {
    matches!(d, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
}

/// Returns the input unchanged where the operands' ranks or shapes are wrong, instead of
/// raising.
fn lenient_shapes(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    match CpuAdapter.scatter_add(i, x, u, m) {
        Err(e) if matches!(e.kind, ErrorKind::Rank | ErrorKind::ShapeMismatch) => {
            Tensor::from_bits(i.dtype(), i.shape(), &i.to_bits())
        }
        other => other,
    }
}

/// Runs the mindspore suite against `adapter`; returns the failed check ids and every result.
fn failures(adapter: Arc<dyn Adapter>) -> (BTreeSet<String>, Vec<CheckResult>) {
    let catalog = Catalog::builtin().unwrap();
    let name = adapter.name().to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("mindspore"))
        .collect();
    assert!(checks.len() > 200, "only {} checks", checks.len());
    let results = run_all(&catalog, &checks, &[(name, adapter)], &RunOptions::default(), 0);
    let failed = results.iter().filter(|r| r.status == Status::Fail).map(|r| r.id.to_string()).collect();
    (failed, results)
}

fn variant(
    name: &'static str,
    call: fn(&Tensor, &Tensor, &Tensor, ScatterMode) -> Result<Tensor, AdapterError>,
) -> Arc<dyn Adapter> {
    Arc::new(Variant { name, call })
}

fn id(adapter: &str, dtype: &str, case: &str) -> String {
    format!("mindspore:{adapter}:tensor_scatter_add:{dtype}:{case}")
}

/// Every `(dtype, case)` must have failed.
fn assert_caught(failed: &BTreeSet<String>, adapter: &str, dtypes: &[&str], cases: &[&str]) {
    for dtype in dtypes {
        for case in cases {
            assert!(
                failed.contains(&id(adapter, dtype, case)),
                "{} passed; failures: {failed:#?}",
                id(adapter, dtype, case)
            );
        }
    }
}

/// Every failure is one of `allowed` cases.
fn assert_only(failed: &BTreeSet<String>, allowed: &[&str]) {
    for id in failed {
        let case = id.rsplit(':').next().unwrap();
        assert!(allowed.contains(&case), "{id} failed, but the bug should only break {allowed:?}");
    }
}

/// The tier of the failed check `id`.
fn tier(results: &[CheckResult], id: &str) -> Option<Tier> {
    results.iter().find(|r| r.id.to_string() == id).and_then(|r| r.tier)
}

/// Every failed check fails at `expected` (and no more authoritative tier).
fn assert_every_tier(results: &[CheckResult], expected: Tier) {
    for r in results.iter().filter(|r| r.status == Status::Fail) {
        assert_eq!(r.tier, Some(expected), "{}", r.report(&Default::default()));
    }
}

/// Which gates the results fail: must, should, quality.
fn gates(results: &[CheckResult]) -> [bool; 3] {
    Tier::ALL.map(|gate| results.iter().any(|r| r.fails(gate)))
}

/// The authority of the first failure listed for `id`.
fn authority(results: &[CheckResult], id: &str) -> String {
    let result = results.iter().find(|r| r.id.to_string() == id).unwrap();
    result.failures.first().map(|f| f.authority.clone()).unwrap_or_default()
}

#[test]
fn correct_adapters_pass_whatever_their_order() {
    for adapter in [
        Arc::new(CpuAdapter) as Arc<dyn Adapter>,
        variant("reversed", reversed),
        variant("pairwise", pairwise),
    ] {
        let (failed, results) = failures(adapter);
        let reports: Vec<String> = results
            .iter()
            .filter(|r| r.status == Status::Fail)
            .map(|r| r.report(&Default::default()))
            .collect();
        assert!(failed.is_empty(), "{}", reports.join("\n"));
        assert!(results.iter().all(|r| r.status == Status::Pass && r.inputs > 0));
    }
}

#[test]
fn keeping_only_the_last_duplicate() {
    let (failed, results) = failures(variant("last-dup", last_duplicate_only));
    // "the sum of all values" is MindSpore's own words: a must.
    for case in ["duplicates-summed", "random", "small-integers", "heavy-duplicates"] {
        assert_eq!(tier(&results, &id("last-dup", "i32", case)), Some(Tier::Must), "{case}");
        assert_eq!(tier(&results, &id("last-dup", "f32", case)), Some(Tier::Must), "{case}");
    }
    assert_caught(
        &failed,
        "last-dup",
        &ALL,
        &["duplicates-summed", "small-integers", "random", "heavy-duplicates", "large", "large-slices"],
    );
    assert_caught(&failed, "last-dup", &["f32"], &["example-duplicate-index"]);
    assert_only(
        &failed,
        &[
            "example-duplicate-index",
            "duplicates-summed",
            "cancellation-gives-positive-zero",
            "negative-zero-plus-negative-zeros",
            "negative-zero-plus-positive-zeros",
            "infinities",
            "depth-one-adds-rows",
            "batched-index-vectors",
            "small-integers",
            "random",
            "heavy-duplicates",
            "out-of-range",
            "empty",
            "index-dtypes",
            "deterministic",
            "large",
            "large-slices",
        ],
    );
}

/// The checks whose problems hold out-of-range or negative index vectors: where a bug in
/// their handling may show.
const OUT_OF_RANGE_CHECKS: [&str; 9] = [
    "out-of-bound-skipped",
    "out-of-range",
    "random",
    "small-integers",
    "heavy-duplicates",
    "empty",
    "deterministic",
    "large",
    "large-slices",
];

#[test]
fn raising_on_out_of_range_in_ignore_mode() {
    let (failed, results) = failures(variant("raises", raises_out_of_range));
    assert_caught(
        &failed,
        "raises",
        &ALL,
        &["out-of-bound-skipped", "out-of-range", "large", "large-slices"],
    );
    assert_only(&failed, &OUT_OF_RANGE_CHECKS);
    // The Note says so ("instead of raising an index error"): a must.
    assert_every_tier(&results, Tier::Must);
    let report = results
        .iter()
        .find(|r| r.id.to_string() == id("raises", "i32", "out-of-bound-skipped"))
        .unwrap()
        .report(&Default::default());
    for part in [
        "tensor_scatter_add/out-of-bound-skipped",
        "instead of raising an index error, the corresponding updates will not be updated",
        "specs/scatter/tensor_scatter_add.yaml:",
        "indices = [[0, 1], [2, 0], [1, 3], [-1, 0], [1, 2]]",
        "expected: a result",
        "actual:   error out_of_range",
        "reproduce: opspec run --exact mindspore:raises:tensor_scatter_add:i32:out-of-bound-skipped",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }
}

/// Whether a negative coordinate is "out of bound" the Note does not say: a library reading it
/// from the end of its axis misses only the suite's reading, opspec's bar.
#[test]
fn wrapping_negative_indices_in_ignore_mode() {
    let (failed, results) = failures(variant("wraps", wraps_negative));
    assert_caught(&failed, "wraps", &ALL, &["out-of-bound-skipped", "out-of-range"]);
    assert_only(&failed, &OUT_OF_RANGE_CHECKS);
    assert_every_tier(&results, Tier::Quality);
    assert_eq!(gates(&results), [false, false, true]);
    let basis = authority(&results, &id("wraps", "f32", "out-of-bound-skipped"));
    for part in [
        "opspec's bar: negative coordinates read as out of bound",
        "counting from the end",
        "If some values of the indices are out of bound",
    ] {
        assert!(basis.contains(part), "{part:?} missing from {basis}");
    }
}

#[test]
fn accepting_float_indices() {
    let (failed, results) = failures(variant("float-idx", accepts_float_indices));
    assert_caught(&failed, "float-idx", &ALL, &["float-indices-type-error", "index-dtypes"]);
    assert_only(&failed, &["float-indices-type-error", "index-dtypes"]);
    // Raises: "TypeError - If dtype of indices is neither int32 nor int64.": a must.
    assert_every_tier(&results, Tier::Must);
}

/// The document names no rounding: sums rounded toward -inf meet "the sum of all values" and
/// miss only opspec's bar (IEEE 754's round to nearest), in single additions and exact
/// cancellations (-0).
#[test]
fn rounding_every_addition_down() {
    let (failed, results) = failures(variant("round-down", rounded_down));
    assert_caught(&failed, "round-down", &["f32", "f64"], &["random", "cancellation-gives-positive-zero"]);
    assert!(failed.iter().all(|id| id.contains(":f32:") || id.contains(":f64:")), "{failed:?}");
    assert_every_tier(&results, Tier::Quality);
    assert_eq!(gates(&results), [false, false, true]);
    let basis = authority(&results, &id("round-down", "f32", "random"));
    for part in [
        "opspec's bar: the sum as IEEE 754-2019 addition rounded to nearest",
        "the updated result will be the sum of all values",
    ] {
        assert!(basis.contains(part), "{part:?} missing from {basis}");
    }
    let basis = authority(&results, &id("round-down", "f64", "cancellation-gives-positive-zero"));
    assert!(basis.contains("IEEE 754-2019, 6.1 (infinities), 6.2 (NaN), 6.3"), "{basis}");
}

/// Every -0 result +0: the sign of a zero is IEEE 754's, opspec's bar.
#[test]
fn zero_signs_are_opspecs_bar() {
    let (failed, results) = failures(variant("plus-zero", positive_zeros));
    assert_caught(
        &failed,
        "plus-zero",
        &FLOATS,
        &[
            "negative-zero-untouched",
            "negative-zero-plus-negative-zeros",
            "negative-zero-plus-positive-zeros",
        ],
    );
    assert_every_tier(&results, Tier::Quality);
    assert_eq!(gates(&results), [false, false, true]);
}

/// NaN and infinite results +0: the document gives no arithmetic for NaN or infinities.
#[test]
fn ieee_special_values_are_opspecs_bar() {
    let (failed, results) = failures(variant("finite", finite_only));
    assert_caught(&failed, "finite", &FLOATS, &["nan-propagates", "infinities"]);
    assert_only(&failed, &["nan-propagates", "infinities"]);
    assert_every_tier(&results, Tier::Quality);
}

/// Integer sums that saturate: what an overflowing sum gives the document does not say.
#[test]
fn saturating_integer_sums_miss_only_opspecs_bar() {
    let (failed, results) = failures(variant("saturating", saturating));
    assert_caught(&failed, "saturating", &["i8", "i16", "u8", "u16"], &["random"]);
    assert!(failed.iter().all(|id| !FLOATS.iter().any(|d| id.contains(&format!(":{d}:")))), "{failed:?}");
    assert_every_tier(&results, Tier::Quality);
}

/// Preconditions the document states without naming an error (indices of rank 1, updates of
/// another shape) are opspec's bar when a library returns a result; the error Raises states
/// (an index depth above the input's rank) stays a must.
#[test]
fn precondition_errors_by_the_words() {
    let (failed, results) = failures(variant("lenient", lenient_shapes));
    assert_caught(
        &failed,
        "lenient",
        &ALL,
        &["indices-rank-below-two", "updates-shape-mismatch", "index-depth-exceeds-rank"],
    );
    assert_only(&failed, &["indices-rank-below-two", "updates-shape-mismatch", "index-depth-exceeds-rank"]);
    for dtype in ALL {
        assert_eq!(tier(&results, &id("lenient", dtype, "index-depth-exceeds-rank")), Some(Tier::Must));
        for case in ["indices-rank-below-two", "updates-shape-mismatch"] {
            assert_eq!(tier(&results, &id("lenient", dtype, case)), Some(Tier::Quality), "{dtype} {case}");
        }
    }
    let basis = authority(&results, &id("lenient", "f32", "updates-shape-mismatch"));
    assert!(
        basis.starts_with("opspec's bar: \"MindSpore, Inputs:") && basis.contains("names no error"),
        "{basis}"
    );
}

#[test]
fn duplicate_sums_outside_the_bound() {
    let (failed, results) = failures(variant("low-bits", drops_low_bits));
    assert_caught(&failed, "low-bits", &FLOATS, &["random", "heavy-duplicates", "large", "large-slices"]);
    assert_caught(&failed, "low-bits", &["f32"], &["example-duplicate-index"]);
    assert!(failed.iter().all(|id| FLOATS.iter().any(|d| id.contains(&format!(":{d}:")))), "{failed:?}");
    // Far outside any order's sum, in any rounding direction: a must. (In bf16, the bound of
    // dozens of additions each rounded either way, u = 2^-7, is wide enough to hold
    // heavy-duplicates' sums: there they miss only opspec's bar.)
    for case in ["random", "heavy-duplicates", "large", "large-slices"] {
        for dtype in FLOATS.into_iter().filter(|&d| d != "bf16" || case != "heavy-duplicates") {
            assert_eq!(tier(&results, &id("low-bits", dtype, case)), Some(Tier::Must), "{dtype} {case}");
        }
    }
    assert_eq!(tier(&results, &id("low-bits", "bf16", "heavy-duplicates")), Some(Tier::Quality));
    assert_only(
        &failed,
        &[
            "example-duplicate-index",
            "random",
            "heavy-duplicates",
            "empty",
            "deterministic",
            "large",
            "large-slices",
        ],
    );
    let report = results
        .iter()
        .find(|r| r.id.to_string() == id("low-bits", "f32", "example-duplicate-index"))
        .unwrap()
        .report(&Default::default());
    for part in [
        "tensor_scatter_add/example-duplicate-index",
        "MindSpore mindspore.ops.TensorScatterAdd documentation, Examples",
        "output element [0, 0] receives 2 update(s); n = 3 addends",
        "input[0, 0] = -0.10000000149011612",
        "updates[1] = 2.200000047683716",
        "within γ(2)·Σ|x| = ",
        "of the exact sum 3.10000004619359970e0",
        "|r - S| is 1985.814× the bound",
        "reproduce: opspec run --exact mindspore:low-bits:tensor_scatter_add:f32:example-duplicate-index",
    ] {
        assert!(report.contains(part), "{part:?} missing from:\n{report}");
    }
}

#[test]
fn nondeterminism_is_caught() {
    use std::collections::HashMap;
    use std::sync::Mutex;
    /// Calls so far, per operands (dtype and the bits of input, indices and updates).
    type Calls = HashMap<(DType, Vec<u64>), u64>;
    static SEEN: Mutex<Option<Calls>> = Mutex::new(None);
    // The first call with given operands sums in index order, the next one in reverse order,
    // and so on (counted per operands, so parallel checks do not disturb the alternation).
    fn flaky(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
        let key = (i.dtype(), [i.to_bits(), x.to_bits(), u.to_bits()].concat());
        let calls = {
            let mut seen = SEEN.lock().unwrap();
            let count = seen.get_or_insert_with(HashMap::new).entry(key).or_insert(0);
            *count += 1;
            *count
        };
        if calls % 2 == 1 { CpuAdapter.scatter_add(i, x, u, m) } else { reversed(i, x, u, m) }
    }
    let (failed, results) = failures(variant("flaky", flaky));
    // Integer sums wrap, so their order cannot show; every float dtype must be caught.
    assert_caught(&failed, "flaky", &FLOATS, &["deterministic"]);
    assert_only(&failed, &["deterministic"]);
    let report = results
        .iter()
        .find(|r| r.id.to_string() == id("flaky", "f32", "deterministic"))
        .unwrap()
        .report(&Default::default());
    assert!(report.contains("identical bits on every run") && report.contains("run 1 gave"), "{report}");
}

/// A catalog root whose only table is the scatter table with `text`, and the mindspore suite.
fn load_broken(name: &str, text: &str) -> opspec::spec::LoadError {
    let root = std::env::temp_dir().join(format!("opspec-scatter-errors-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("specs/scatter")).unwrap();
    std::fs::create_dir_all(root.join("suites")).unwrap();
    std::fs::write(root.join("specs/scatter/tensor_scatter_add.yaml"), text).unwrap();
    let err = Catalog::load(&root).expect_err("the malformed table loaded");
    std::fs::remove_dir_all(&root).unwrap();
    err
}

#[test]
fn malformed_scatter_tables_are_located_errors() {
    let table = include_str!("../specs/scatter/tensor_scatter_add.yaml");
    let line_of =
        |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1;
    let cases = [
        ("unknown-field", "    anchor: Note\n", "    anchr: Note\n", "anchr", "unknown field"),
        (
            "bad-value",
            "values: [1, 12, 3, 4, 5, 56]",
            "values: [1, 12, 3, 4, 5, 5x6]",
            "- id: out-of-bound-skipped",
            "`5x6` is not",
        ),
        ("bad-kind", "result: {error: rank}", "result: {error: rank_error}", "rank_error", "unknown variant"),
        (
            "bad-count",
            "values: [8, 2, 3, 4, 5, 9]",
            "values: [8, 2, 3, 4, 5]",
            "- id: duplicates-summed",
            "5 values for an input of 6",
        ),
    ];
    for (name, from, to, needle, says) in cases {
        assert!(table.contains(from), "{from:?}");
        let text = table.replacen(from, to, 1);
        let err = load_broken(name, &text);
        let message = err.to_string();
        assert!(err.file.ends_with(Path::new("specs/scatter/tensor_scatter_add.yaml")), "{message}");
        assert_eq!(err.line, Some(line_of(&text, needle)), "{name}: {message}");
        assert!(err.column.is_some() && message.contains(says), "{name}: {message}");
    }
    let suite = "name: s\ntitle: t\nspecs: [scatter/tensor_scatter_add]\ndtypes: [f32]\ncases_per_row: 0\nrandom_cases: 0\nseed: 1\n";
    let root = std::env::temp_dir().join(format!("opspec-scatter-suite-{}", std::process::id()));
    std::fs::create_dir_all(root.join("specs/scatter")).unwrap();
    std::fs::create_dir_all(root.join("suites")).unwrap();
    std::fs::write(root.join("specs/scatter/tensor_scatter_add.yaml"), table).unwrap();
    std::fs::write(root.join("suites/s.yaml"), suite).unwrap();
    let err = Catalog::load(&root).unwrap_err().to_string();
    std::fs::remove_dir_all(&root).unwrap();
    assert!(err.contains("needs a `scatter:` block"), "{err}");
}

/// A value of `OPSPEC_CPU_SCATTER` that is no way fails each scatter check against cpu with an
/// error that names the variable and the value; the run goes on and writes every result.
#[test]
fn an_unknown_scatter_way_fails_the_checks_naming_the_variable() {
    let out = std::env::temp_dir().join(format!("opspec-scatter-ways-{}", std::process::id()));
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_opspec"))
        .env("OPSPEC_CPU_SCATTER", "fastest")
        .args(["run", "--adapter", "cpu", "--no-tables", "--out"])
        .arg(&out)
        .args(["--filter", "mindspore:cpu:tensor_scatter_add:{f32,i32}:deterministic"])
        .output()
        .unwrap();
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    let failed: Vec<&str> = results.lines().filter(|l| l.contains(r#""status":"fail""#)).collect();
    assert_eq!(failed.len(), 2, "{results}");
    for line in failed {
        assert!(line.contains(r#"OPSPEC_CPU_SCATTER is \"fastest\": give timed, plain or tuned"#), "{line}");
    }
}
