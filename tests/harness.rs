//! The Rust vendor harness: a vendor's adapter, through `Harness::main_with`, runs the
//! `opspec` commands with the vendor's expectations file, and the exit code says what
//! happened (`docs/RESULTS.md`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use opspec::harness::{Harness, Isolate};
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, OpKind, Support, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter under a vendor's name, with f32 `maximum` as Rust's `f32::max` computes
/// it (a NaN operand gives the other operand).
struct MyLib;

impl Adapter for MyLib {
    fn name(&self) -> &str {
        "mylib"
    }

    fn version(&self) -> String {
        "mylib 0.1.0".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        CpuAdapter.supports(op, dtype)
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if op != BinaryOp::Maximum || a.dtype() != DType::F32 || a.shape() != b.shape() {
            return CpuAdapter.binary(op, a, b);
        }
        let (x, y) = (a.to_vec::<f32>()?, b.to_vec::<f32>()?);
        let max: Vec<f32> = x.iter().zip(&y).map(|(x, y)| x.max(*y)).collect();
        Tensor::from_slice(&max, a.shape())
    }
}

/// A folder of its own for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opspec-harness-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the harness over `MyLib` in this process with `args` (after the program's name).
fn harness(dir: &Path, expectations: Option<&str>, args: &[&str]) -> ExitCode {
    let mut harness = Harness::new(MyLib).isolate(Isolate::None).out(dir.join("report"));
    if let Some(text) = expectations {
        let path = dir.join("mylib.yaml");
        std::fs::write(&path, text).unwrap();
        harness = harness.expectations(path);
    }
    harness.main_with(std::iter::once("conformance").chain(args.iter().copied()).map(OsString::from))
}

const MAXIMUM: &str = "array-api:mylib:maximum:f32:edges";

#[test]
fn a_check_passes_or_fails_with_the_clis_exit_codes_and_writes_the_report() {
    let dir = scratch("exit");
    assert_eq!(harness(&dir, None, &["--exact", "array-api:mylib:add:f32:edges"]), ExitCode::SUCCESS);
    assert!(dir.join("report/index.html").is_file(), "the run writes its report to Harness::out");
    assert_eq!(harness(&dir, None, &["--exact", MAXIMUM]), ExitCode::FAILURE);
    assert_eq!(harness(&dir, None, &["maximum:f32:nan-either"]), ExitCode::FAILURE, "a filter");
    assert_eq!(harness(&dir, None, &["--list", "maximum:f32"]), ExitCode::SUCCESS);
    assert_eq!(harness(&dir, None, &["eval", MAXIMUM, "0x0", "0x7fc00000"]), ExitCode::FAILURE);
    assert_eq!(harness(&dir, None, &["eval", MAXIMUM, "0x0", "0x3f800000"]), ExitCode::SUCCESS);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_vendors_expectations_file_lists_its_deviations() {
    let dir = scratch("expectations");
    let listed = format!(
        "adapter: mylib\ndeviations:\n  - id: \"{MAXIMUM}\"\n    does: f32::max drops NaN\n    why: \"If either x1_i or x2_i is NaN, the result is NaN.\"\n    fails: values\n    tier: must\n"
    );
    assert_eq!(harness(&dir, Some(&listed), &["--exact", MAXIMUM]), ExitCode::SUCCESS);
    let stale = listed.replace("maximum", "add");
    assert_eq!(
        harness(&dir, Some(&stale), &["--exact", "array-api:mylib:add:f32:edges"]),
        ExitCode::FAILURE,
        "a listed check that passes fails"
    );
    let unknown = listed.replace("maximum", "maximun");
    assert_eq!(harness(&dir, Some(&unknown), &[]), ExitCode::from(2), "an entry naming no check");
    let other = listed.replace("adapter: mylib", "adapter: theirs");
    assert_eq!(harness(&dir, Some(&other), &[]), ExitCode::from(2), "a file of another adapter");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_and_names_are_usage_errors() {
    let dir = scratch("usage");
    assert_eq!(harness(&dir, None, &["--ignored"]), ExitCode::from(2));
    assert_eq!(harness(&dir, None, &["--exact", "array-api:nope:add:f32:edges"]), ExitCode::from(2));
    assert_eq!(harness(&dir, None, &["run", "--frobnicate"]), ExitCode::from(2));
    assert_eq!(harness(&dir, None, &["--help"]), ExitCode::SUCCESS);

    /// A vendor adapter under a built-in adapter's name.
    struct Cpu;
    impl Adapter for Cpu {
        fn name(&self) -> &str {
            "cpu"
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn supports(&self, _: OpKind, _: DType) -> Support {
            Support::Supported
        }
    }
    let taken = Harness::new(Cpu).isolate(Isolate::None).out(dir.join("report"));
    assert_eq!(taken.main_with(["conformance"].map(OsString::from)), ExitCode::from(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
