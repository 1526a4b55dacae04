//! Relaxation profiles, for what a document does not grant: under the megengine suite (whose
//! docstrings grant no subnormal latitude), an adapter that flushes subnormals fails musts, and
//! conforms under the profile its expectations file declares; a real bug fails under the
//! profile too. (Under the array-api suite, which grants the latitude, flushing conforms with
//! no profile: `tests/authority.rs`.)

#[macro_use]
mod common;

use std::path::Path;
use std::sync::Arc;

use opspec::bits::format::Format;
use opspec::results::{CheckResult, Status};
use opspec::run::{ElementwiseKind, RunOptions, Target, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec::verdict::{Conformance, verdicts};
use opspec_adapter::{Adapter, AdapterError, BinaryOp, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter as a library running with denormals-are-zero and flush-to-zero: subnormal
/// operands are read as zeros and subnormal results written as zeros (signs kept), and, if
/// `zero_sign_bug`, `-0 + -0` gives `+0` as well.
struct Flushing {
    zero_sign_bug: bool,
}

fn flushed(t: &Tensor) -> Result<Tensor, AdapterError> {
    let Some(f) = Format::of(t.dtype()) else { return Ok(t.clone()) };
    let bits: Vec<u64> = t.to_bits().iter().map(|&x| f.flush_subnormal(x)).collect();
    Tensor::from_bits(t.dtype(), t.shape(), &bits)
}

impl Adapter for Flushing {
    fn name(&self) -> &str {
        "flushing"
    }

    wraps_cpu!("deliberately flushing");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        let result = flushed(&CpuAdapter.binary(op, &flushed(a)?, &flushed(b)?)?)?;
        let Some(f) = Format::of(a.dtype()).filter(|_| self.zero_sign_bug && op == BinaryOp::Add) else {
            return Ok(result);
        };
        let (xs, ys) = (a.to_bits(), b.to_bits());
        let bits: Vec<u64> = (result.to_bits().iter().enumerate())
            .map(|(i, &r)| if xs[i] == f.neg_zero() && ys[i] == f.neg_zero() { f.pos_zero() } else { r })
            .collect();
        Tensor::from_bits(result.dtype(), result.shape(), &bits)
    }
}

/// The array-api suite's element-wise float checks of add, multiply and divide against
/// `adapter`, with `profile` declared in its expectations file (no deviations listed).
fn run(adapter: Flushing, profile: Option<&str>) -> Vec<CheckResult> {
    let mut catalog = Catalog::builtin().unwrap();
    if let Some(p) = profile {
        let text = format!("adapter: flushing\nprofile: {p}\ndeviations: []\n");
        catalog.expectations.add_file(Path::new("flushing.yaml"), &text).unwrap();
    }
    let name = "flushing".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("megengine") && ["add", "multiply"].contains(&c.id.op.as_str()))
        .filter(|c| {
            matches!(c.target, Target::Elementwise(ElementwiseKind::Float(_)))
                && c.needs.is_some_and(|(_, d)| d.is_float())
        })
        .collect();
    run_all(&catalog, &checks, &[(name, Arc::new(adapter))], &RunOptions::default(), 0)
}

fn verdict(results: &[CheckResult]) -> Conformance {
    verdicts(results)
        .remove(&("megengine".to_string(), "flushing".to_string()))
        .expect("a verdict for the pair")
}

fn failed(results: &[CheckResult]) -> Vec<&CheckResult> {
    results.iter().filter(|r| r.status == Status::Fail).collect()
}

#[test]
fn a_flushing_library_fails_musts_and_conforms_under_daz_and_ftz() {
    let results = run(Flushing { zero_sign_bug: false }, Some("[daz, ftz]"));
    let failed = failed(&results);
    assert!(
        failed.iter().any(|r| r.id.to_string() == "megengine:flushing:add:f32:zero-plus-nonzero"),
        "a subnormal x2 read as zero makes 0 + x2 a zero: {:?}",
        failed.iter().map(|r| r.id.to_string()).collect::<Vec<_>>()
    );
    assert!(failed.len() > 10, "flushing breaks many checks: {}", failed.len());
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Must), "{}: MegEngine grants no subnormal latitude", r.id);
        let v = r.under_profile.as_ref().expect("a profile verdict");
        assert!(v.passes && v.failed_inputs == 0, "{} should pass under daz+ftz: {v:?}", r.id);
        assert_eq!(v.profile.to_string(), "daz+ftz");
    }
    let verdict = verdict(&results);
    assert!(verdict.conforms(), "{}", verdict.text());
    let p = verdict.profile.as_ref().unwrap();
    assert_eq!((p.profile.as_str(), p.passing.len(), p.failing), ("daz+ftz", failed.len(), 0));
    assert!(verdict.text().starts_with("conforms under profile daz+ftz"), "{}", verdict.text());
}

#[test]
fn half_the_profile_leaves_the_other_half_failing() {
    let results = run(Flushing { zero_sign_bug: false }, Some("[ftz]"));
    let fails_under =
        |r: &&CheckResult| r.under_profile.as_ref().is_some_and(|v| !v.passes && v.failed_inputs > 0);
    assert!(results.iter().any(|r| fails_under(&r)), "an operand read as zero is no flushed result");
    let verdict = verdict(&results);
    assert!(!verdict.conforms(), "{}", verdict.text());
    assert!(verdict.profile.as_ref().is_some_and(|p| p.failing > 0));
}

#[test]
fn a_real_bug_fails_under_the_profile_too() {
    let results = run(Flushing { zero_sign_bug: true }, Some("[daz, ftz]"));
    let bug =
        results.iter().find(|r| r.id.to_string() == "megengine:flushing:add:f32:nzero-plus-nzero").unwrap();
    assert_eq!(bug.status, Status::Fail);
    assert!(!bug.under_profile.as_ref().unwrap().passes);
    let verdict = verdict(&results);
    let p = verdict.profile.as_ref().unwrap();
    assert!(
        p.failing >= 2 && p.failing < verdict.count(Tier::Must),
        "the zero-sign rows (and edges) fail under the profile: {}",
        verdict.text()
    );
    assert!(verdict.text().starts_with("does not conform"), "{}", verdict.text());
}

#[test]
fn without_a_profile_there_is_one_verdict() {
    let results = run(Flushing { zero_sign_bug: false }, None);
    assert!(results.iter().all(|r| r.under_profile.is_none()));
    let verdict: Conformance = verdict(&results);
    assert!(verdict.profile.is_none() && !verdict.conforms(), "{}", verdict.text());
}

#[test]
fn an_unknown_relaxation_is_a_located_load_error() {
    let mut catalog = Catalog::builtin().unwrap();
    let text = "adapter: flushing\nprofile: [daz, fast-math]\ndeviations: []\n";
    let e = catalog.expectations.add_file(Path::new("flushing.yaml"), text).unwrap_err().to_string();
    assert!(e.contains("flushing.yaml") && e.contains("fast-math") && e.contains("line 2"), "{e}");
}
