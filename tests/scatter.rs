//! The scatter checks catch bugs: deliberately wrong scatter-add adapters fail on the checks
//! that cover what they break, and nowhere else; adapters that sum duplicates correctly in
//! another order (reversed, pairwise) pass everything. Also: malformed scatter tables are
//! located errors.

#[macro_use]
mod common;

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::Arc;

use half::{bf16, f16};
use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, DType, ScatterMode, Tensor};
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

/// Correct sums as a pairwise tree: each element is `input + (pairwise sum of its updates)`.
fn pairwise(i: &Tensor, x: &Tensor, u: &Tensor, m: ScatterMode) -> Result<Tensor, AdapterError> {
    let checked = CpuAdapter.scatter_add(i, x, u, m)?;
    let Some(ops) = Operands::read(i, x, u) else { return Ok(checked) };
    assert_eq!(m, ScatterMode::Ignore, "the pairwise variant implements the mindspore suite's mode");
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
    let bits: Vec<u64> = i
        .to_bits()
        .into_iter()
        .zip(&addends)
        .map(|(x, a)| if a.is_empty() { x } else { add_bits(i.dtype(), x, pairwise_sum(i.dtype(), a)) })
        .collect();
    Tensor::from_bits(i.dtype(), i.shape(), &bits)
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
    let (failed, _) = failures(variant("last-dup", last_duplicate_only));
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

#[test]
fn wrapping_negative_indices_in_ignore_mode() {
    let (failed, _) = failures(variant("wraps", wraps_negative));
    assert_caught(&failed, "wraps", &ALL, &["out-of-bound-skipped", "out-of-range"]);
    assert_only(&failed, &OUT_OF_RANGE_CHECKS);
}

#[test]
fn accepting_float_indices() {
    let (failed, _) = failures(variant("float-idx", accepts_float_indices));
    assert_caught(&failed, "float-idx", &ALL, &["float-indices-type-error", "index-dtypes"]);
    assert_only(&failed, &["float-indices-type-error", "index-dtypes"]);
}

#[test]
fn duplicate_sums_outside_the_bound() {
    let (failed, results) = failures(variant("low-bits", drops_low_bits));
    assert_caught(&failed, "low-bits", &FLOATS, &["random", "heavy-duplicates", "large", "large-slices"]);
    assert_caught(&failed, "low-bits", &["f32"], &["example-duplicate-index"]);
    assert!(failed.iter().all(|id| FLOATS.iter().any(|d| id.contains(&format!(":{d}:")))), "{failed:?}");
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
