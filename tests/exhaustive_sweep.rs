//! Why the one-operand sweep exists: an adapter whose `exp` is 3 ULPs off on a single f32
//! input passes every sampled check of `exp` in f32, and the sweep of every f32 value finds
//! that input, with its error measured.

#[macro_use]
mod common;

use std::sync::Arc;

use opspec::results::{CheckResult, Status};
use opspec::run::{ElementwiseKind, RunOptions, Target, adapter_checks, run_all, sweep_checks};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, ErrorKind, Tensor, UnaryOp};
use opspec_cpu::CpuAdapter;

/// The one input the adapter gets wrong: 1.23 in f32, an ordinary value no edge list holds.
const WRONG: u64 = 0x3f9d_70a4;

/// The CPU adapter, but `exp` of [`WRONG`] is 3 ULPs above its result.
struct OneWrongInput;

impl Adapter for OneWrongInput {
    fn name(&self) -> &str {
        "one-wrong"
    }

    wraps_cpu!("deliberately wrong on one input");

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.unary(op, x)?;
        if op != UnaryOp::Exp || x.dtype() != DType::F32 {
            return Ok(right);
        }
        let xs = x.to_bits();
        let bits: Vec<u64> =
            right.to_bits().iter().zip(&xs).map(|(&r, &x)| if x == WRONG { r + 3 } else { r }).collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

fn run(checks: &[opspec::run::Check]) -> Vec<CheckResult> {
    let catalog = Catalog::builtin().unwrap();
    let adapters: Vec<(String, Arc<dyn Adapter>)> = vec![("one-wrong".to_string(), Arc::new(OneWrongInput))];
    run_all(&catalog, checks, &adapters, &RunOptions::default(), 0)
}

#[test]
fn the_sampled_checks_miss_the_wrong_input() {
    let catalog = Catalog::builtin().unwrap();
    let checks: Vec<_> = adapter_checks(&catalog, &["one-wrong".to_string()])
        .into_iter()
        .filter(|c| c.id.to_string().starts_with("array-api:one-wrong:exp:f32:"))
        .collect();
    assert!(checks.len() >= 3, "{} checks", checks.len());
    for r in run(&checks) {
        assert_eq!(r.status, Status::Pass, "{}: {}", r.id, r.message);
    }
}

#[test]
fn the_sweep_of_every_f32_value_finds_it_and_measures_it() {
    let catalog = Catalog::builtin().unwrap();
    let mut sweep = sweep_checks(&catalog, &["one-wrong".to_string()])
        .into_iter()
        .find(|c| c.id.to_string() == "array-api:one-wrong:exp:f32:exhaustive")
        .expect("a sweep of exp in f32");
    // The sweep has 128 chunks of 2^25 values; the chunk holding the wrong input is enough.
    let Target::Elementwise(ElementwiseKind::Sweep(target)) = &mut sweep.target else {
        panic!("not a sweep")
    };
    assert_eq!(target.chunks.len(), 128);
    target.chunks = vec![WRONG >> 25];
    sweep.planned = Some(1 << 25);
    let r = run(&[sweep]).pop().unwrap();
    assert_eq!((r.status, r.inputs, r.failed_inputs), (Status::Fail, 1 << 25, 1), "{}", r.message);
    assert!(
        r.failures[0].input_bits.contains(&format!("{WRONG:#010x}"))
            || r.failures[0].inputs[0].contains("0x3f9d70a4")
    );
    let at = r.max_ulp_at.as_ref().expect("where the largest error is");
    assert_eq!(at.inputs, vec![format!("{WRONG:#010x}")]);
    let max = r.max_ulp_error.unwrap();
    assert!((2.5..=3.5).contains(&max), "largest error {max} ULP");
    let histogram = r.ulp_histogram.as_ref().unwrap();
    assert_eq!(histogram[3], 1, "one result between 2 and 4 ULPs: {histogram:?}");
}

/// The CPU adapter, but its second `add` call panics and its second `multiply` call returns an
/// error.
#[derive(Default)]
struct FailsOnSecondCall {
    calls: [std::sync::atomic::AtomicUsize; 2],
}

impl Adapter for FailsOnSecondCall {
    fn name(&self) -> &str {
        "fails-later"
    }

    wraps_cpu!("fails on its second call");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let slot = match op {
            BinaryOp::Add => 0,
            BinaryOp::Multiply => 1,
            _ => return CpuAdapter.binary(op, a, b),
        };
        if self.calls[slot].fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            if op == BinaryOp::Add {
                panic!("add broke on its second call");
            }
            return Err(AdapterError::new(ErrorKind::Other, "multiply broke on its second call"));
        }
        CpuAdapter.binary(op, a, b)
    }
}

/// A sweep whose adapter panics or errors after its first batch of a chunk fails with the
/// adapter's reason and the chunk, and the run goes on to the next check, which also ends.
#[test]
fn a_sweep_whose_adapter_fails_mid_chunk_fails_with_the_reason_and_the_run_goes_on() {
    let catalog = Catalog::builtin().unwrap();
    let checks: Vec<_> = sweep_checks(&catalog, &["fails-later".to_string()])
        .into_iter()
        .filter(|c| {
            let id = c.id.to_string();
            ["add", "multiply", "subtract"]
                .iter()
                .any(|op| id == format!("array-api:fails-later:{op}:f16:exhaustive"))
        })
        .map(|mut c| {
            // The first chunk (2^25 pairs, several adapter calls) is enough.
            let Target::Elementwise(ElementwiseKind::Sweep(target)) = &mut c.target else {
                panic!("not a sweep")
            };
            target.chunks = vec![0];
            c.planned = Some(1 << 25);
            c
        })
        .collect();
    assert_eq!(checks.len(), 3);
    let adapters: Vec<(String, Arc<dyn Adapter>)> =
        vec![("fails-later".to_string(), Arc::new(FailsOnSecondCall::default()))];
    let results = run_all(&catalog, &checks, &adapters, &RunOptions::default(), 0);
    for r in &results {
        let op = r.id.to_string().split(':').nth(2).unwrap().to_string();
        match op.as_str() {
            "subtract" => assert_eq!(r.status, Status::Pass, "{}: {}", r.id, r.message),
            _ => {
                assert_eq!(r.status, Status::Fail, "{}: {}", r.id, r.message);
                assert!(r.message.contains("chunk 0"), "{}: {}", r.id, r.message);
                assert!(
                    r.message.contains(&format!("{op} broke on its second call")),
                    "{}: {}",
                    r.id,
                    r.message
                );
            }
        }
    }
}

/// The CPU adapter, but `add` in f16 of any pair whose second operand is 1.0 (0x3c00: chunk 30
/// of the f16 pair sweep, whose case `i` pairs `i mod 2^16` with `i / 2^16`) has its last bit
/// flipped.
struct WrongInChunk30;

impl Adapter for WrongInChunk30 {
    fn name(&self) -> &str {
        "resumer"
    }

    wraps_cpu!("wrong on x + 1.0");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.binary(op, a, b)?;
        if op != BinaryOp::Add || a.dtype() != DType::F16 {
            return Ok(right);
        }
        let bits: Vec<u64> = right
            .to_bits()
            .iter()
            .zip(b.to_bits())
            .map(|(&r, y)| if y == 0x3c00 { r ^ 1 } else { r })
            .collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

/// A state folder of its own for test `label`, empty.
fn state_dir(label: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("opspec-resume-{}-{label}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The f16 `add` sweep of [`WrongInChunk30`], only `chunks`, run with its state in `dir`,
/// running `verify` resumed chunks again.
fn resumed_sweep(chunks: &[u64], dir: &std::path::Path, verify: usize) -> CheckResult {
    let catalog = Catalog::builtin().unwrap();
    let mut check = sweep_checks(&catalog, &["resumer".to_string()])
        .into_iter()
        .find(|c| c.id.to_string() == "array-api:resumer:add:f16:exhaustive")
        .expect("a sweep of add in f16");
    let Target::Elementwise(ElementwiseKind::Sweep(target)) = &mut check.target else {
        panic!("not a sweep")
    };
    target.chunks = chunks.to_vec();
    check.planned = Some(chunks.len() << 25);
    let adapters: Vec<(String, Arc<dyn Adapter>)> = vec![("resumer".to_string(), Arc::new(WrongInChunk30))];
    let options =
        RunOptions { state_dir: Some(dir.to_path_buf()), verify_resumed: verify, ..RunOptions::default() };
    run_all(&catalog, &[check], &adapters, &options, 0).pop().unwrap()
}

const STATE_FILE: &str = "array-api_resumer_add_f16_exhaustive.jsonl";

/// A state file that claims a chunk it never ran, with a real chunk's counts, is taken
/// without `--verify-resumed` (the record and message say which chunks came from which
/// file), and fails the check when the chunk is run again: the file is then set aside.
#[test]
fn a_forged_state_file_is_named_in_the_record_and_caught_when_its_chunks_run_again() {
    let dir = state_dir("forged");
    let honest = resumed_sweep(&[0], &dir, 0);
    assert_eq!((honest.status, honest.inputs), (Status::Pass, 1 << 25), "{}", honest.message);
    assert!(honest.resumed.is_empty());
    let path = dir.join(STATE_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let chunk_0 = text.lines().nth(1).expect("chunk 0's line");
    let forged = format!("{text}{}\n", chunk_0.replace(r#""chunk":0,"#, r#""chunk":30,"#));
    std::fs::write(&path, &forged).unwrap();

    let taken = resumed_sweep(&[0, 30], &dir, 0);
    assert_eq!((taken.status, taken.inputs), (Status::Pass, 1 << 26), "{}", taken.message);
    let [resumed] = taken.resumed.as_slice() else { panic!("{:?}", taken.resumed) };
    assert_eq!(
        (resumed.from.as_str(), resumed.chunks.as_slice()),
        (path.to_str().unwrap(), &[[0, 1], [30, 31]][..])
    );
    assert!(resumed.verified.is_empty());
    let says = format!("chunks 0, 30 (2) resumed from {}; none run again", path.display());
    assert!(taken.message.contains(&says), "{}", taken.message);

    let checked = resumed_sweep(&[0, 30], &dir, 2);
    assert_eq!((checked.status, checked.tier), (Status::Fail, Some(opspec::spec::authority::Tier::Must)));
    assert_eq!(checked.resumed[0].verified, [0, 30]);
    let says = format!(
        "resumed chunk 30 of {} disagrees with its rerun (cases and failures: the file says 0 failures of 33554432 cases, the rerun found",
        path.display()
    );
    assert!(checked.message.contains(&says), "{}", checked.message);
    let aside = dir.join(format!("{STATE_FILE}.refused"));
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), forged, "set aside as it was");
    assert!(!path.exists(), "no later run resumes it");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A state file written for another version of the adapter is not resumed: it is set aside,
/// the message says why, and the chunk runs afresh.
#[test]
fn a_state_file_of_another_adapter_version_is_set_aside() {
    let dir = state_dir("adapter");
    assert_eq!(resumed_sweep(&[], &dir, 0).status, Status::Pass, "no chunk: the key alone");
    let path = dir.join(STATE_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut key: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(key["adapter"], "resumer: wrong on x + 1.0");
    key["adapter"] = "resumer: 2.0".into();
    let claimed = r#"{"chunk":0,"cases":33554432,"failed":0,"by_row":{},"listed":[]}"#;
    std::fs::write(&path, format!("{key}\n{claimed}\n")).unwrap();
    let r = resumed_sweep(&[0], &dir, 0);
    assert_eq!((r.status, r.inputs), (Status::Pass, 1 << 25), "{}", r.message);
    assert!(r.resumed.is_empty());
    let says = format!(
        "{} was not resumed: its adapter is `resumer: 2.0`, not this run's `resumer: wrong on x + 1.0`",
        path.display()
    );
    assert!(r.message.contains(&says), "{}", r.message);
    assert!(dir.join(format!("{STATE_FILE}.refused")).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A state file of this run whose chunk's counts contradict each other fails the check at
/// its line, before anything runs.
#[test]
fn a_state_file_with_an_inconsistent_chunk_fails_the_check_at_its_line() {
    let dir = state_dir("inconsistent");
    resumed_sweep(&[], &dir, 0);
    let path = dir.join(STATE_FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    let wrong = r#"{"chunk":0,"cases":33554432,"failed":1,"by_row":{},"by_tier":{"must":1},"listed":[]}"#;
    std::fs::write(&path, format!("{text}{wrong}\n")).unwrap();
    let r = resumed_sweep(&[0], &dir, 0);
    assert_eq!((r.status, r.inputs), (Status::Fail, 0), "{}", r.message);
    let says = format!("{}:2: field `by_row`: fewer failures per row than the 1 failures", path.display());
    assert!(r.message.contains(&says), "{}", r.message);
    std::fs::remove_dir_all(&dir).unwrap();
}
