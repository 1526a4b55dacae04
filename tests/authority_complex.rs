//! On whose authority a complex check fails: deliberately faulty complex kernels, each doing a
//! reading or using a latitude of the document, graded at the tier that reading has
//! (`docs/AUTHORITY.md` 3.4, 3.5, 3.9, 3.19).

#[macro_use]
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use opspec::bits::format::Format;
use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, Tensor, UnaryOp};
use opspec_cpu::CpuAdapter;

/// The CPU adapter with one deliberate fault in its complex kernels.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// A part that approximates a multiple of π/4 (for an input with a non-finite component)
    /// is that constant moved by this many representable steps, away from zero.
    ConstantOff(u64),
    /// abs of an input with a signaling NaN component is NaN (IEEE 754's invalid operation).
    AbsSignalingNan,
    /// abs of an input with any NaN component is NaN, a quiet one included.
    AbsAnyNan,
    /// Subnormal parts of operands read as zeros and subnormal result parts flushed, in every
    /// call.
    Flushing,
    /// multiply of finite operands with `|a| > 1` is NaN + NaN j.
    NanProduct,
}

/// How many results each fault changed, so a test sees that its fault was reached.
static CHANGED: AtomicUsize = AtomicUsize::new(0);

struct Faulty(Fault);

/// The nonzero multiples of π/4 up to π, correctly rounded, with both signs.
fn quarter_pis(f: Format) -> Vec<u64> {
    let values: Vec<u64> = match f.bits {
        32 => {
            use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
            [FRAC_PI_4, FRAC_PI_2, 3.0 * FRAC_PI_4, PI].iter().map(|v| u64::from(v.to_bits())).collect()
        }
        _ => {
            use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
            [FRAC_PI_4, FRAC_PI_2, 3.0 * FRAC_PI_4, PI].iter().map(|v| v.to_bits()).collect()
        }
    };
    values.iter().flat_map(|&v| [v, f.neg(v)]).collect()
}

/// The constant `v` approximates, moved `steps` away from zero; `None` where it is none.
fn constant_off(f: Format, v: u64, steps: u64) -> Option<u64> {
    let near = |c: u64| f.is_finite(v) && (f.to_f64(v) - f.to_f64(c)).abs() <= 1e-3 * f.to_f64(c).abs();
    quarter_pis(f).into_iter().find(|&c| near(c)).map(|c| c + steps)
}

fn is_signaling(f: Format, v: u64) -> bool {
    f.is_nan(v) && v & (1 << (f.frac_bits - 1)) == 0
}

fn changed(count: usize) {
    CHANGED.fetch_add(count, Ordering::Relaxed);
}

/// `t` with every subnormal part flushed to a zero of its sign (complex and real tensors).
fn flushed(t: &Tensor) -> Result<Tensor, AdapterError> {
    let Some(f) = Format::of(t.dtype().component().unwrap_or(t.dtype())) else {
        return Ok(t.clone());
    };
    if t.dtype().is_complex() {
        let pairs: Vec<[u64; 2]> = t.to_pairs()?.iter().map(|p| p.map(|v| f.flush_subnormal(v))).collect();
        return Tensor::from_pairs(t.dtype(), t.shape(), &pairs);
    }
    let bits: Vec<u64> = t.to_bits().iter().map(|&v| f.flush_subnormal(v)).collect();
    Tensor::from_bits(t.dtype(), t.shape(), &bits)
}

impl Adapter for Faulty {
    fn name(&self) -> &str {
        "faulty"
    }

    wraps_cpu!("deliberately faulty complex kernels");

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        if self.0 == Fault::Flushing {
            return flushed(&CpuAdapter.unary(op, &flushed(x)?)?);
        }
        let result = CpuAdapter.unary(op, x)?;
        let Some(f) = x.dtype().component().and_then(Format::of) else { return Ok(result) };
        let inputs = x.to_pairs()?;
        match (self.0, op) {
            (Fault::ConstantOff(steps), _) if result.dtype() == x.dtype() => {
                let mut pairs = result.to_pairs()?;
                for (input, pair) in inputs.iter().zip(&mut pairs) {
                    if input.iter().all(|&v| f.is_finite(v)) {
                        continue;
                    }
                    for part in pair.iter_mut() {
                        if let Some(off) = constant_off(f, *part, steps) {
                            *part = off;
                            changed(1);
                        }
                    }
                }
                Tensor::from_pairs(result.dtype(), result.shape(), &pairs)
            }
            (Fault::AbsSignalingNan | Fault::AbsAnyNan, UnaryOp::Abs) => {
                let nan = |v: u64| if self.0 == Fault::AbsAnyNan { f.is_nan(v) } else { is_signaling(f, v) };
                let mut bits = result.to_bits();
                for (input, r) in inputs.iter().zip(&mut bits) {
                    if input.iter().any(|&v| nan(v)) && !f.is_nan(*r) {
                        *r = f.quiet_nan();
                        changed(1);
                    }
                }
                Tensor::from_bits(result.dtype(), result.shape(), &bits)
            }
            _ => Ok(result),
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if self.0 == Fault::Flushing {
            return flushed(&CpuAdapter.binary(op, &flushed(a)?, &flushed(b)?)?);
        }
        let result = CpuAdapter.binary(op, a, b)?;
        let complex = a.dtype().is_complex() && b.dtype().is_complex() && a.shape() == b.shape();
        if (self.0, op) != (Fault::NanProduct, BinaryOp::Multiply) || !complex {
            return Ok(result);
        }
        let f = Format::of(a.dtype().component().expect("a complex dtype")).expect("a float part");
        let mut pairs = result.to_pairs()?;
        for ((x, y), r) in a.to_pairs()?.iter().zip(b.to_pairs()?).zip(&mut pairs) {
            let finite = x.iter().chain(&y).all(|&v| f.is_finite(v));
            if finite && f.to_f64(x[0]).abs() > 1.0 {
                *r = [f.quiet_nan(), f.quiet_nan()];
                changed(1);
            }
        }
        Tensor::from_pairs(result.dtype(), result.shape(), &pairs)
    }
}

/// The array-api suite's complex checks of `ops` against the faulty adapter, and how many
/// results the fault changed.
fn run(fault: Fault, ops: &[&str]) -> (Vec<CheckResult>, usize) {
    let catalog = Catalog::builtin().unwrap();
    let name = "faulty".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some("array-api") && ops.contains(&c.id.op.as_str()))
        .filter(|c| c.id.dtype.parse::<DType>().is_ok_and(DType::is_complex))
        .collect();
    assert!(!checks.is_empty());
    let before = CHANGED.load(Ordering::Relaxed);
    let results = run_all(&catalog, &checks, &[(name, Arc::new(Faulty(fault)))], &RunOptions::default(), 0);
    (results, CHANGED.load(Ordering::Relaxed) - before)
}

fn failed(results: &[CheckResult]) -> Vec<&CheckResult> {
    results.iter().filter(|r| r.status == Status::Fail).collect()
}

/// Which gates the results fail: must, should, quality.
fn gates(results: &[CheckResult]) -> [bool; 3] {
    Tier::ALL.map(|gate| results.iter().any(|r| r.fails(gate)))
}

/// The complex functions whose rows name "an implementation-dependent approximation to" a
/// constant.
const APPROXIMATING: [&str; 6] = ["acos", "acosh", "asinh", "atanh", "log", "log1p"];

/// The failed row checks (not `random`, properties or rules) of `results`.
fn failed_rows<'r>(results: &'r [CheckResult], catalog: &Catalog) -> Vec<&'r CheckResult> {
    let is_row = |r: &CheckResult| {
        catalog.complex.iter().any(|t| {
            let table = &t.loaded.table;
            table.op == r.id.op && table.rows.iter().any(|row| row.id.value == r.id.case)
        })
    };
    failed(results).into_iter().filter(|r| is_row(r)).collect()
}

#[test]
fn a_constant_beyond_the_step_bound_misses_only_opspecs_bar() {
    let catalog = Catalog::builtin().unwrap();
    let (results, changed) = run(Fault::ConstantOff(5), &APPROXIMATING);
    assert!(changed > 0, "the fault is reached");
    let rows = failed_rows(&results, &catalog);
    assert!(
        rows.iter().any(|r| r.id.dtype == "c64") && rows.iter().any(|r| r.id.dtype == "c128"),
        "{rows:?}"
    );
    for r in &rows {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
        let f = &r.failures[0];
        assert!(
            f.authority.starts_with("opspec's bar: within 2 representable steps of the constant")
                && f.authority.contains("step_bounds"),
            "{}",
            f.authority
        );
    }
}

#[test]
fn a_constant_within_the_step_bound_passes() {
    let catalog = Catalog::builtin().unwrap();
    let (results, changed) = run(Fault::ConstantOff(2), &APPROXIMATING);
    assert!(changed > 0, "the fault is reached");
    let rows = failed_rows(&results, &catalog);
    assert!(rows.is_empty(), "{:?}", rows.iter().map(|r| r.id.to_string()).collect::<Vec<_>>());
}

#[test]
fn a_value_far_from_the_constant_is_no_approximation_to_it() {
    let catalog = Catalog::builtin().unwrap();
    // 2^20 steps: 8 % of the constant in c64's f32 parts (opspec reads "an approximation to" as
    // within 2^17 steps there); c128's f64 parts allow 2^32 - 1 steps, so they pass.
    let (results, changed) = run(Fault::ConstantOff(1 << 20), &APPROXIMATING);
    assert!(changed > 0, "the fault is reached");
    let rows = failed_rows(&results, &catalog);
    assert!(!rows.is_empty());
    for r in &rows {
        let expected = if r.id.dtype == "c64" { Tier::Must } else { Tier::Quality };
        assert_eq!(r.tier, Some(expected), "{}", r.report(&Default::default()));
    }
    assert!(gates(&results)[0], "c64 does not conform");
}

#[test]
fn a_signaling_nan_may_propagate_through_complex_abs() {
    let (results, changed) = run(Fault::AbsSignalingNan, &["abs"]);
    assert!(changed > 0, "the fault is reached");
    let failed = failed(&results);
    assert!(
        failed.is_empty(),
        "{:?}",
        failed.iter().map(|r| r.report(&Default::default())).collect::<Vec<_>>()
    );
}

#[test]
fn a_quiet_nan_does_not_propagate_where_a_row_says_infinity() {
    let (results, changed) = run(Fault::AbsAnyNan, &["abs"]);
    assert!(changed > 0, "the fault is reached");
    for case in ["a-inf", "b-inf"] {
        for dtype in ["c64", "c128"] {
            let id = format!("array-api:faulty:abs:{dtype}:{case}");
            let r = results.iter().find(|r| r.id.to_string() == id).unwrap();
            assert_eq!((r.status, r.tier), (Status::Fail, Some(Tier::Must)), "{id}");
        }
    }
}

#[test]
fn flushing_complex_subnormals_conforms_and_misses_only_opspecs_bar() {
    let (results, _) = run(Fault::Flushing, &["add", "multiply", "abs", "exp", "sqrt", "equal"]);
    let failed = failed(&results);
    assert!(failed.iter().any(|r| r.id.case == "random"), "flushing shows in random checks");
    assert!(failed.iter().any(|r| r.id.case != "random"), "flushing shows in row and rule checks");
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
    }
    let quoted = failed
        .iter()
        .flat_map(|r| &r.failures)
        .any(|f| f.authority.contains("may vary in their support for subnormal numbers"));
    assert!(quoted, "the latitude is quoted");
    assert_eq!(gates(&results), [false, false, true]);
}

#[test]
fn a_nan_product_of_finite_operands_misses_the_textbook_formulas_should() {
    let (results, changed) = run(Fault::NanProduct, &["multiply"]);
    assert!(changed > 0, "the fault is reached");
    let failed = failed(&results);
    assert!(!failed.is_empty());
    for r in &failed {
        assert_eq!((r.id.case.as_str(), r.tier), ("random", Some(Tier::Should)), "{}", r.id);
        let f = &r.failures[0];
        assert!(
            f.authority.starts_with("should: \"When a, b, c, or d are all finite numbers")
                && f.authority.contains("textbook formula for complex number multiplication"),
            "{}",
            f.authority
        );
    }
    assert_eq!(gates(&results), [false, true, true]);
}
