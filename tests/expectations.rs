//! Known deviations as data (`expectations/<adapter>.yaml`): a listed check that fails is an
//! expected failure, a listed check that passes fails the run, and an entry that names no
//! check is a load error, so the file cannot rot.

#[macro_use]
mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use opspec::results::Status;
use opspec::run::{RunOptions, adapter_checks, run_all, validate_expectations};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter, except that `-0 + -0` gives `+0` in every float dtype.
struct ZeroSign;

impl Adapter for ZeroSign {
    fn name(&self) -> &str {
        "zero-sign"
    }

    wraps_cpu!("deliberately wrong");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.binary(op, a, b)?;
        let sign = 1u64 << (right.dtype().size() * 8 - 1);
        let bits: Vec<u64> = (a.to_bits().iter().zip(b.to_bits()))
            .zip(right.to_bits())
            .map(|((&x, y), r)| if x == sign && y == sign { 0 } else { r })
            .collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

/// A catalog root with the add table, a small suite, and `expectations` as
/// `expectations/zero-sign.yaml`.
fn root_with(label: &str, expectations: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("opspec-expectations-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["specs/elementwise", "suites", "expectations"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let add = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/elementwise/add.yaml");
    std::fs::copy(add, root.join("specs/elementwise/add.yaml")).unwrap();
    let suite = "name: small\ntitle: add in f32\nspecs: [elementwise/add]\ndtypes: [f32]\n\
                 cases_per_row: 16\nrandom_cases: 256\nseed: 1\n";
    std::fs::write(root.join("suites/small.yaml"), suite).unwrap();
    std::fs::write(root.join("expectations/zero-sign.yaml"), expectations).unwrap();
    root
}

#[test]
fn listed_failures_are_expected_and_listed_passes_fail() {
    let root = root_with(
        "judged",
        "adapter: zero-sign\ndeviations:\n\
         \x20 - id: small:zero-sign:add:f32:nzero-plus-nzero\n    does: gives +0\n    why: the table says -0\n    fails: values\n    tier: must\n\
         \x20 - id: \"small:zero-sign:add:f32:{pinf-plus-ninf,nan-either}\"\n    does: nothing wrong\n    why: listed by mistake\n    fails: values\n    tier: must\n",
    );
    let catalog = Catalog::load(&root).unwrap();
    let name = "zero-sign".to_string();
    let checks = adapter_checks(&catalog, std::slice::from_ref(&name));
    let results = run_all(&catalog, &checks, &[(name, Arc::new(ZeroSign))], &RunOptions::default(), 0);
    let status = |case: &str| {
        results
            .iter()
            .find(|r| r.id.to_string() == format!("small:zero-sign:add:f32:{case}"))
            .map(|r| r.status)
            .unwrap()
    };
    assert_eq!(status("nzero-plus-nzero"), Status::KnownDeviation);
    let known = results.iter().find(|r| r.id.case == "nzero-plus-nzero").unwrap().report(&Default::default());
    assert!(known.contains("known deviation (expectations/zero-sign.yaml:3): gives +0"), "{known}");
    // Listed but passing: the run fails, and says to remove the entry.
    for case in ["pinf-plus-ninf", "nan-either"] {
        assert_eq!(status(case), Status::Fail);
        let r = results.iter().find(|r| r.id.to_string().ends_with(case)).unwrap();
        assert!(r.message.contains("but passed"), "{}", r.message);
    }
    // Not listed, and failing (edges hold -0 + -0): a plain failure.
    assert_eq!(status("edges"), Status::Fail);
    assert_eq!(status("pzero-plus-pzero"), Status::Pass);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_flaky_entry_allows_a_pass_and_still_lists_a_failure() {
    let root = root_with(
        "flaky",
        "adapter: zero-sign\ndeviations:\n\
         \x20 - id: \"small:zero-sign:add:f32:{nzero-plus-nzero,nan-either}\"\n    does: sometimes +0\n    why: the table says -0\n    fails: values\n    tier: must\n    flaky: true\n",
    );
    let catalog = Catalog::load(&root).unwrap();
    let name = "zero-sign".to_string();
    let checks = adapter_checks(&catalog, std::slice::from_ref(&name));
    let results = run_all(&catalog, &checks, &[(name, Arc::new(ZeroSign))], &RunOptions::default(), 0);
    let find = |case: &str| results.iter().find(|r| r.id.case == case).unwrap();
    assert_eq!(find("nzero-plus-nzero").status, Status::KnownDeviation);
    let passed = find("nan-either");
    assert_eq!(passed.status, Status::Pass, "{}", passed.message);
    assert!(
        passed.message.contains("flaky deviation in expectations/zero-sign.yaml:3"),
        "{}",
        passed.message
    );
    assert!(passed.deviation.is_some(), "the entry is shown with the pass");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_entry_that_names_no_check_is_a_load_error() {
    let root = root_with(
        "unknown",
        "adapter: zero-sign\ndeviations:\n\
         \x20 - id: small:zero-sign:add:f32:no-such-row\n    does: x\n    why: y\n    fails: values\n    tier: must\n",
    );
    let err = validate_expectations(&Catalog::load(&root).unwrap()).unwrap_err();
    assert_eq!(err.file, Path::new("expectations/zero-sign.yaml"));
    assert_eq!(err.line, Some(3));
    assert!(err.message.contains("matches no check"), "{err}");
    std::fs::remove_dir_all(&root).unwrap();
}

/// The CPU adapter, except that subnormal f32 results are flushed to zero (FTZ).
struct Flush;

impl Adapter for Flush {
    fn name(&self) -> &str {
        "flush"
    }

    wraps_cpu!("flushes subnormal results");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let right = CpuAdapter.binary(op, a, b)?;
        let flushed = |r: u64| if r & 0x7f80_0000 == 0 { r & 0x8000_0000 } else { r };
        let bits: Vec<u64> = right.to_bits().into_iter().map(flushed).collect();
        Tensor::from_bits(right.dtype(), right.shape(), &bits)
    }
}

#[test]
fn a_flaky_entry_accepts_a_weaker_tier_and_a_plain_one_does_not() {
    // A suite that grants the subnormal latitude: a flushed result misses only opspec's bar.
    let entry = |flaky: &str| {
        format!(
            "adapter: flush\ndeviations:\n\
             \x20 - id: small:flush:add:f32:edges\n    does: flushes, and sometimes worse\n    why: w\n    fails: values\n    tier: must\n{flaky}"
        )
    };
    for (flaky, expected) in [("    flaky: true\n", Status::KnownDeviation), ("", Status::Fail)] {
        let root = root_with("weaker", &entry(flaky));
        std::fs::rename(root.join("expectations/zero-sign.yaml"), root.join("expectations/flush.yaml"))
            .unwrap();
        let suite = std::fs::read_to_string(root.join("suites/small.yaml")).unwrap()
            + "authority:\n  cites:\n    document: d\n    version: \"1\"\n    section: Accuracy\n    url: https://example.org/accuracy\n  \
               subnormals: conforming implementations may vary in their support for subnormal numbers.\n";
        std::fs::write(root.join("suites/small.yaml"), suite).unwrap();
        let catalog = Catalog::load(&root).unwrap();
        let name = "flush".to_string();
        let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
            .into_iter()
            .filter(|c| c.id.case == "edges")
            .collect();
        let results = run_all(&catalog, &checks, &[(name, Arc::new(Flush))], &RunOptions::default(), 0);
        let edges = &results[0];
        assert_eq!(edges.status, expected, "flaky: {flaky:?}; {}", edges.message);
        if expected == Status::Fail {
            assert!(edges.message.contains("fails a quality: correct the entry's tier"), "{}", edges.message);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
