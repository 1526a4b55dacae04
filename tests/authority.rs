//! On whose authority a check fails: one deliberately wrong library per tier gets exactly the
//! verdicts and gates that tier means (`docs/AUTHORITY.md`, `docs/RESULTS.md`).

#[macro_use]
mod common;

use std::sync::Arc;

use opspec::bits::format::Format;
use opspec::results::{CheckResult, Status};
use opspec::run::{RunOptions, adapter_checks, run_all};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec::verdict::verdicts;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, ErrorKind, Tensor, TernaryOp, UnaryOp};
use opspec_cpu::CpuAdapter;

/// The CPU adapter with one deliberate fault.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// A must broken: `-0 + -0` is `+0` (add's special case says `-0`).
    ZeroSign,
    /// Only a should broken: add rounds ties away from zero (the standard asks for "a
    /// supported rounding mode" and recommends ties to even).
    TiesAway,
    /// Only the document's latitude used: subnormal operands read as zeros and subnormal
    /// results flushed, in every call.
    Flushing,
    /// Only opspec's bar missed: exp of a finite nonzero input is 3 steps from the correctly
    /// rounded value (the standard sets no accuracy for exp; the suite's bar is 2).
    ExpThreeSteps,
    /// No value to grade: sqrt of f32 gives an f64 result.
    WrongDtype,
    /// floor_divide in f32 and f64 is `floor(x1 / x2)` in the hardware's division (the reading
    /// the page prefers, not opspec's exact floor).
    FloorOfDivide,
    /// floor_divide in f64 is CPython's `//` (the reading the page allows).
    PythonFloorDivide,
    /// floor_divide of an infinity by a finite number is NaN, and of a finite number by an
    /// infinity of the other sign -1 (the values the bullets' notes allow, not the ones they
    /// state).
    PythonInfinities,
    /// atan2(+0, -0) is +0, which is no approximation to +π.
    Atan2Zero,
    /// square in f16 rounds ties away from zero (multiply's terms: a must met, the should
    /// missed).
    SquareTiesAway,
    /// square in f32 rounds toward zero: not the nearest value, which multiply's terms ask.
    SquareTowardZero,
    /// sqrt in f32 rounds toward zero: a correctly rounded value under a supported rounding
    /// mode, not the recommended roundTiesToEven.
    SqrtTowardZero,
    /// not_equal of an infinity and a finite number is False, as the literal "In the remaining
    /// cases, the result is False." gives (IEEE 754 and opspec: True).
    NotEqualLiteral,
    /// A left shift by the width or more shifts by the count modulo the width (x86's `shl`),
    /// not to 0.
    ShiftModulo,
    /// exp in f32 gives NaN where the exact result is finite and not 1: no approximation.
    ExpNan,
    /// maximum and minimum in f32 return the operand that is not NaN (IEEE 754-2008's maxNum).
    MaxNum,
    /// divide in f32 gives +0 for any divisor that is zero.
    DivideByZeroIsZero,
    /// fused_mul_add in f32 rounds the product, then the sum (no FMA).
    MulThenAdd,
    /// add_into writes zeros into `out` before refusing it.
    DirtyRefusal,
    /// multiply in f32 gives -infinity for two infinities of one sign.
    NegativeInfinitySquared,
    /// cosh in f32 of a negative operand is one step above the correctly rounded result.
    CoshNotEven,
    /// exp of bfloat16 returns float64 (TensorFlow's `tf.experimental.numpy`).
    Bf16ExpWidens,
    /// add refuses a rank-0 operand beside a higher-rank one (no missing leading axes).
    NoRankZero,
    /// add in i8 saturates instead of wrapping.
    Saturating,
    /// floor_divide in f32 is `floor(x1 / x2)` with a subnormal quotient flushed to zero
    /// (TensorFlow's, under FTZ): -1e-39 / 2 floors to -0, not -1.
    FloorOfFlushedDivide,
}

/// The left shifts of `x` by `s` in `dtype` under [`Fault::ShiftModulo`].
fn shift_modulo(dtype: DType, x: u64, s: u64) -> u64 {
    let width = 8 * dtype.size() as u64;
    let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
    if (s & mask) >= width { (x << (s % width)) & mask } else { (x << s) & mask }
}

/// CPython's `float_floor_div` (`Objects/floatobject.c`, `_float_div_mod`), in f64.
fn cpython_floor_div(vx: f64, wx: f64) -> f64 {
    let rem = vx % wx;
    let mut div = (vx - rem) / wx;
    if rem != 0.0 && (wx < 0.0) != (rem < 0.0) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0f64.copysign(vx / wx);
    }
    let floor = div.floor();
    if div - floor > 0.5 { floor + 1.0 } else { floor }
}

/// `r`, the nearest value to `exact`, rounded away from zero where `exact` is a tie.
fn tie_away(f: Format, exact: f64, r: u64) -> u64 {
    let away = r + 1;
    let tie = f.is_finite(r)
        && f.is_finite(away)
        && exact.abs() > f.to_f64(r).abs()
        && exact == (f.to_f64(r) + f.to_f64(away)) / 2.0;
    if tie { away } else { r }
}

/// `r`, the nearest value to `exact`, rounded toward zero instead.
fn toward_zero(f: Format, exact: f64, r: u64) -> u64 {
    if f.to_f64(r).abs() > exact.abs() { r - 1 } else { r }
}

/// The floor_divide faults, element by element (`None`: the right result).
fn floor_divide_fault(fault: Fault, f: Format, x: u64, y: u64) -> Option<u64> {
    let finite = f.is_finite(x) && f.is_finite(y) && !f.is_zero(x) && !f.is_zero(y);
    match (fault, f.bits) {
        (Fault::FloorOfDivide, 64) if finite => {
            Some((f64::from_bits(x) / f64::from_bits(y)).floor().to_bits())
        }
        (Fault::FloorOfDivide, 32) if finite => {
            Some(u64::from((f32::from_bits(x as u32) / f32::from_bits(y as u32)).floor().to_bits()))
        }
        (Fault::FloorOfFlushedDivide, 32) if finite => {
            let q = f32::from_bits(x as u32) / f32::from_bits(y as u32);
            let flushed = if q.is_subnormal() { 0f32.copysign(q) } else { q };
            Some(u64::from(flushed.floor().to_bits()))
        }
        (Fault::PythonFloorDivide, 64) if finite => {
            Some(cpython_floor_div(f64::from_bits(x), f64::from_bits(y)).to_bits())
        }
        (Fault::PythonInfinities, _) if f.is_infinite(x) && f.is_finite(y) && !f.is_zero(y) => {
            Some(f.quiet_nan())
        }
        (Fault::PythonInfinities, _)
            if f.is_finite(x)
                && !f.is_zero(x)
                && f.is_infinite(y)
                && f.is_sign_negative(x) != f.is_sign_negative(y) =>
        {
            f.from_f64_exact(-1.0)
        }
        _ => None,
    }
}

struct Faulty(Fault);

fn map_bits(t: &Tensor, f: impl Fn(Format, usize, u64) -> u64) -> Result<Tensor, AdapterError> {
    let Some(format) = Format::of(t.dtype()) else { return Ok(t.clone()) };
    let bits: Vec<u64> = t.to_bits().iter().enumerate().map(|(i, &x)| f(format, i, x)).collect();
    Tensor::from_bits(t.dtype(), t.shape(), &bits)
}

fn flushed(t: &Tensor) -> Result<Tensor, AdapterError> {
    map_bits(t, |f, _, x| f.flush_subnormal(x))
}

impl Adapter for Faulty {
    fn name(&self) -> &str {
        "faulty"
    }

    wraps_cpu!("deliberately faulty");

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if self.0 == Fault::Flushing {
            return flushed(&CpuAdapter.binary(op, &flushed(a)?, &flushed(b)?)?);
        }
        if self.0 == Fault::NoRankZero
            && op == BinaryOp::Add
            && (a.shape().is_empty() != b.shape().is_empty())
        {
            return Err(AdapterError::new(ErrorKind::ShapeMismatch, "no rank-0 broadcasting"));
        }
        if (self.0, op, a.dtype()) == (Fault::Saturating, BinaryOp::Add, DType::I8) && a.shape() == b.shape()
        {
            let (xs, ys) = (a.to_bits(), b.to_bits());
            let sum = |i: usize| (xs[i] as u8 as i8).saturating_add(ys[i] as u8 as i8) as u8 as u64;
            return Tensor::from_bits(DType::I8, a.shape(), &(0..xs.len()).map(sum).collect::<Vec<_>>());
        }
        let result = CpuAdapter.binary(op, a, b)?;
        // The faults are element-wise: broadcast calls are left right.
        if a.shape() != result.shape() || b.shape() != result.shape() {
            return Ok(result);
        }
        let (xs, ys) = (a.to_bits(), b.to_bits());
        if (self.0, op) == (Fault::ShiftModulo, BinaryOp::BitwiseLeftShift) {
            let bits: Vec<u64> = xs.iter().zip(&ys).map(|(&x, &s)| shift_modulo(a.dtype(), x, s)).collect();
            return Tensor::from_bits(a.dtype(), a.shape(), &bits);
        }
        match (self.0, op) {
            (_, BinaryOp::FloorDivide) => {
                return map_bits(&result, |f, i, r| floor_divide_fault(self.0, f, xs[i], ys[i]).unwrap_or(r));
            }
            (Fault::Atan2Zero, BinaryOp::Atan2) => {
                return map_bits(&result, |f, i, r| {
                    if xs[i] == f.pos_zero() && ys[i] == f.neg_zero() { f.pos_zero() } else { r }
                });
            }
            (Fault::MaxNum, BinaryOp::Maximum | BinaryOp::Minimum) if a.dtype() == DType::F32 => {
                return map_bits(&result, |f, i, r| match (f.is_nan(xs[i]), f.is_nan(ys[i])) {
                    (true, false) => ys[i],
                    (false, true) => xs[i],
                    _ => r,
                });
            }
            (Fault::DivideByZeroIsZero, BinaryOp::Divide) if a.dtype() == DType::F32 => {
                return map_bits(&result, |f, i, r| if f.is_zero(ys[i]) { f.pos_zero() } else { r });
            }
            (Fault::NegativeInfinitySquared, BinaryOp::Multiply) if a.dtype() == DType::F32 => {
                return map_bits(&result, |f, i, r| {
                    let same = f.is_sign_negative(xs[i]) == f.is_sign_negative(ys[i]);
                    if f.is_infinite(xs[i]) && f.is_infinite(ys[i]) && same { f.neg_inf() } else { r }
                });
            }
            (Fault::NotEqualLiteral, BinaryOp::NotEqual) => {
                let f = Format::of(a.dtype()).expect("a float dtype");
                let literal =
                    |x: u64, y: u64| !f.is_nan(x) && !f.is_nan(y) && f.is_infinite(x) != f.is_infinite(y);
                let bits: Vec<u64> = result
                    .to_bits()
                    .iter()
                    .enumerate()
                    .map(|(i, &r)| if literal(xs[i], ys[i]) { 0 } else { r })
                    .collect();
                return Tensor::from_bits(result.dtype(), result.shape(), &bits);
            }
            (_, BinaryOp::Add) => {}
            _ => return Ok(result),
        }
        match self.0 {
            Fault::ZeroSign => map_bits(&result, |f, i, r| {
                if xs[i] == f.neg_zero() && ys[i] == f.neg_zero() { f.pos_zero() } else { r }
            }),
            // In f16 the exact sum of two values fits an f64, so a tie is seen exactly.
            Fault::TiesAway if a.dtype() == DType::F16 => {
                map_bits(&result, |f, i, r| tie_away(f, f.to_f64(xs[i]) + f.to_f64(ys[i]), r))
            }
            _ => Ok(result),
        }
    }

    fn ternary(&self, op: TernaryOp, a: &Tensor, b: &Tensor, c: &Tensor) -> Result<Tensor, AdapterError> {
        let result = CpuAdapter.ternary(op, a, b, c)?;
        if (self.0, op, a.dtype()) != (Fault::MulThenAdd, TernaryOp::FusedMulAdd, DType::F32) {
            return Ok(result);
        }
        let [xs, ys, zs] = [a, b, c].map(|t| t.to_bits());
        let at = |v: &[u64], i: usize| f32::from_bits(v[i] as u32);
        map_bits(&result, |_, i, _| u64::from((at(&xs, i) * at(&ys, i) + at(&zs, i)).to_bits()))
    }

    fn binary_into(
        &self,
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        out: &mut Tensor,
    ) -> Result<(), AdapterError> {
        let refused = CpuAdapter.binary_into(op, a, b, out);
        if self.0 == Fault::DirtyRefusal && refused.is_err() {
            *out = Tensor::from_bits(out.dtype(), out.shape(), &vec![0; out.to_bits().len()])?;
        }
        refused
    }

    fn unary(&self, op: UnaryOp, x: &Tensor) -> Result<Tensor, AdapterError> {
        if self.0 == Fault::Flushing {
            return flushed(&CpuAdapter.unary(op, &flushed(x)?)?);
        }
        if self.0 == Fault::WrongDtype && op == UnaryOp::Sqrt && x.dtype() == DType::F32 {
            return Tensor::from_bits(DType::F64, x.shape(), &vec![0; x.to_bits().len()]);
        }
        if self.0 == Fault::Bf16ExpWidens && op == UnaryOp::Exp && x.dtype() == DType::BF16 {
            let bf16 = Format::of(DType::BF16).expect("a float dtype");
            let wide: Vec<u64> = x.to_bits().iter().map(|&v| bf16.to_f64(v).exp().to_bits()).collect();
            return Tensor::from_bits(DType::F64, x.shape(), &wide);
        }
        let result = CpuAdapter.unary(op, x)?;
        let xs = x.to_bits();
        // Exact in f64: the square of an f16 or f32 value; never an f32 value unless exact: the
        // f64 root of an f32 value.
        let square = |f: Format, i: usize| f.to_f64(xs[i]) * f.to_f64(xs[i]);
        match (self.0, op, x.dtype()) {
            (Fault::ExpThreeSteps, UnaryOp::Exp, DType::F32) => map_bits(&result, |f, i, r| {
                let off = f.is_finite(xs[i]) && !f.is_zero(xs[i]) && f.is_finite(r) && r > f.min_normal();
                if off && f.is_finite(r + 3) { r + 3 } else { r }
            }),
            (Fault::SquareTiesAway, UnaryOp::Square, DType::F16) => {
                map_bits(&result, |f, i, r| tie_away(f, square(f, i), r))
            }
            (Fault::SquareTowardZero, UnaryOp::Square, DType::F32) => {
                map_bits(&result, |f, i, r| toward_zero(f, square(f, i), r))
            }
            (Fault::SqrtTowardZero, UnaryOp::Sqrt, DType::F32) => {
                map_bits(&result, |f, i, r| toward_zero(f, f.to_f64(xs[i]).sqrt(), r))
            }
            (Fault::ExpNan, UnaryOp::Exp, DType::F32) => map_bits(&result, |f, i, r| {
                if f.is_finite(xs[i]) && f.is_finite(r) && !f.is_zero(xs[i]) { f.quiet_nan() } else { r }
            }),
            (Fault::CoshNotEven, UnaryOp::Cosh, DType::F32) => map_bits(&result, |f, i, r| {
                let off = f.is_sign_negative(xs[i]) && f.is_finite(r) && f.is_finite(r + 1);
                if off && !f.is_nan(xs[i]) { r + 1 } else { r }
            }),
            _ => Ok(result),
        }
    }
}

/// The array-api suite's float checks of `ops` against the faulty adapter, every family, in
/// the dtypes the standard names (bfloat16, which it puts out of scope, is opspec's bar as a
/// whole: `bfloat16_is_opspecs_bar_under_the_array_api`).
fn run(fault: Fault, ops: &[&str]) -> Vec<CheckResult> {
    run_in(fault, ops, |d| d.is_float() && d != DType::BF16)
}

/// The array-api suite's checks of `ops` in the dtypes `keep` keeps.
fn run_in(fault: Fault, ops: &[&str], keep: fn(DType) -> bool) -> Vec<CheckResult> {
    run_suite(fault, "array-api", ops, keep)
}

/// `suite`'s checks of `ops` (operations or broadcasting tables) in the dtypes `keep` keeps
/// (and the checks of no dtype).
fn run_suite(fault: Fault, suite: &str, ops: &[&str], keep: fn(DType) -> bool) -> Vec<CheckResult> {
    let catalog = Catalog::builtin().unwrap();
    let name = "faulty".to_string();
    let checks: Vec<_> = adapter_checks(&catalog, std::slice::from_ref(&name))
        .into_iter()
        .filter(|c| c.id.suite() == Some(suite) && ops.contains(&c.id.op.as_str()))
        // The faults are in the element-wise kernels; promotion checks call other entry points.
        .filter(|c| c.id.dtype.parse::<DType>().map_or(c.id.dtype == "-", keep))
        .collect();
    assert!(!checks.is_empty());
    run_all(&catalog, &checks, &[(name, Arc::new(Faulty(fault)))], &RunOptions::default(), 0)
}

fn failed(results: &[CheckResult]) -> Vec<&CheckResult> {
    results.iter().filter(|r| r.status == Status::Fail).collect()
}

/// Which gates the results fail: must, should, quality.
fn gates(results: &[CheckResult]) -> [bool; 3] {
    Tier::ALL.map(|gate| results.iter().any(|r| r.fails(gate)))
}

fn ladder(results: &[CheckResult]) -> String {
    verdicts(results).remove(&("array-api".to_string(), "faulty".to_string())).expect("a verdict").text()
}

#[test]
fn a_broken_must_does_not_conform_and_fails_every_gate() {
    let results = run(Fault::ZeroSign, &["add"]);
    let row =
        results.iter().find(|r| r.id.to_string() == "array-api:faulty:add:f32:nzero-plus-nzero").unwrap();
    assert_eq!((row.status, row.tier), (Status::Fail, Some(Tier::Must)));
    let text = row.report(&Default::default());
    assert!(text.contains("fail (must)") && text.contains("does not conform"), "{text}");
    assert_eq!(gates(&results), [true, true, true]);
    assert!(ladder(&results).starts_with("does not conform"), "{}", ladder(&results));
}

#[test]
fn ties_away_from_zero_conform_and_miss_only_the_recommendation() {
    let results = run(Fault::TiesAway, &["add"]);
    let failed = failed(&results);
    assert!(!failed.is_empty(), "the f16 checks meet ties");
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Should), "{}: {:?}", r.id, r.failed_by_tier);
        let f = &r.failures[0];
        assert!(
            f.authority.starts_with("should: \"By default, the rounding mode should be roundTiesToEven"),
            "{}",
            f.authority
        );
    }
    assert_eq!(gates(&results), [false, true, true]);
    let text = ladder(&results);
    assert!(text.starts_with("conforms;") && text.contains("miss a recommendation"), "{text}");
}

#[test]
fn flushing_subnormals_everywhere_conforms_and_misses_only_opspecs_bar() {
    let results = run(Fault::Flushing, &["add", "multiply", "exp", "equal", "hypot"]);
    let underflow =
        results.iter().find(|r| r.id.to_string() == "array-api:faulty:hypot:f32:underflow").unwrap();
    assert_eq!(underflow.tier, Some(Tier::Quality), "hypot's underflow rule: {}", underflow.message);
    let failed = failed(&results);
    let families = ["edges", "random", "layouts", "broadcast-random", "remaining"];
    for family in families {
        assert!(failed.iter().any(|r| r.id.case == family), "flushing shows in {family} checks");
    }
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
    }
    let quoted = failed
        .iter()
        .flat_map(|r| &r.failures)
        .any(|f| f.authority.contains("may vary in their support for subnormal numbers"));
    assert!(quoted, "the latitude is quoted");
    assert_eq!(gates(&results), [false, false, true]);
    assert!(ladder(&results).starts_with("conforms; recommendations met;"), "{}", ladder(&results));
}

#[test]
fn an_inaccurate_approximation_misses_only_opspecs_bar() {
    let results = run(Fault::ExpThreeSteps, &["exp"]);
    let random = results.iter().find(|r| r.id.to_string() == "array-api:faulty:exp:f32:random").unwrap();
    assert_eq!((random.status, random.tier), (Status::Fail, Some(Tier::Quality)));
    let f = &random.failures[0];
    assert!(
        f.authority.contains("opspec's bar") && f.authority.contains("sets no accuracy for exp"),
        "{}",
        f.authority
    );
    assert_eq!(f.batch.as_ref().and_then(|b| b.alone_passes), Some(false), "alone it fails the same way");
    for r in failed(&results) {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.id);
    }
    assert_eq!(gates(&results), [false, false, true]);
}

#[test]
fn a_failure_with_no_graded_input_is_a_must() {
    let results = run(Fault::WrongDtype, &["sqrt"]);
    let edges = results.iter().find(|r| r.id.to_string() == "array-api:faulty:sqrt:f32:edges").unwrap();
    assert_eq!((edges.status, edges.tier), (Status::Fail, Some(Tier::Must)), "{}", edges.message);
    assert!(edges.failed_by_tier.is_empty() && edges.message.contains("dtype f64"), "{}", edges.message);
    assert!(edges.report(&Default::default()).contains("fail (must)"));
    assert_eq!(gates(&results), [true, true, true]);
}

/// The floor_divide results of `fault`, failed ones only, each checked to be graded at a tier in
/// `tiers`; none is a must.
fn floor_divide_failures(fault: Fault, tiers: &[Tier]) -> Vec<CheckResult> {
    let results = run(fault, &["floor_divide"]);
    let failed: Vec<CheckResult> = failed(&results).into_iter().cloned().collect();
    assert!(!failed.is_empty(), "the fault shows");
    for r in &failed {
        assert!(r.tier.is_some_and(|t| tiers.contains(&t)), "{}", r.report(&Default::default()));
    }
    assert!(!gates(&results)[0], "conforms");
    failed
}

#[test]
fn floor_of_divide_meets_the_must_and_the_should_but_not_opspecs_reading() {
    let failed = floor_divide_failures(Fault::FloorOfDivide, &[Tier::Quality]);
    let f = &failed[0].failures[0];
    assert!(f.authority.starts_with("opspec's reading"), "{}", f.authority);
}

#[test]
fn pythons_floor_division_conforms() {
    floor_divide_failures(Fault::PythonFloorDivide, &[Tier::Should, Tier::Quality]);
}

#[test]
fn the_python_values_for_infinite_operands_miss_only_the_recommendation() {
    let failed = floor_divide_failures(Fault::PythonInfinities, &[Tier::Should]);
    let ids: Vec<String> = failed.iter().map(|r| r.id.to_string()).collect();
    for row in ["pinf-by-positive-finite", "ninf-by-negative-finite", "positive-finite-by-ninf"] {
        assert!(ids.contains(&format!("array-api:faulty:floor_divide:f32:{row}")), "{row}: {ids:?}");
    }
    let f = &failed.iter().find(|r| r.id.case == "positive-finite-by-ninf").unwrap().failures[0];
    assert!(f.authority.starts_with("should: the result the bullet states"), "{}", f.authority);
}

#[test]
fn zero_is_no_approximation_to_pi() {
    let results = run(Fault::Atan2Zero, &["atan2"]);
    let row = results.iter().find(|r| r.id.to_string() == "array-api:faulty:atan2:f32:pzero-nzero").unwrap();
    assert_eq!((row.status, row.tier), (Status::Fail, Some(Tier::Must)), "{}", row.message);
    let f = &row.failures[0];
    assert!(f.authority.contains("approximation to +π") && f.authority.contains("131072"), "{}", f.authority);
}

#[test]
fn a_left_shift_past_the_width_that_is_not_zero_misses_only_opspecs_reading() {
    let results = run_in(Fault::ShiftModulo, &["bitwise_left_shift"], |d| !d.is_float() && d != DType::Bool);
    let failed = failed(&results);
    assert!(failed.iter().any(|r| r.id.case == "edges"), "the edges shift by the width or more");
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
        let f = &r.failures[0];
        assert!(f.authority.starts_with("opspec's reading of \"appending zeros\""), "{}", f.authority);
    }
    assert_eq!(gates(&results), [false, false, true]);
}

/// The results of `fault` on `op`, failed ones only, each graded at `tier` by an authority that
/// starts with `basis`.
fn failures_at(fault: Fault, op: &str, tier: Tier, basis: &str) -> Vec<CheckResult> {
    let results = run(fault, &[op]);
    let failed: Vec<CheckResult> = failed(&results).into_iter().cloned().collect();
    assert!(!failed.is_empty(), "the fault shows");
    for r in &failed {
        assert_eq!(r.tier, Some(tier), "{}", r.report(&Default::default()));
        assert!(r.failures[0].authority.starts_with(basis), "{}", r.failures[0].authority);
    }
    failed
}

const TIES_TO_EVEN: &str = "should: \"By default, the rounding mode should be roundTiesToEven";

#[test]
fn square_rounding_ties_away_conforms_and_misses_only_the_recommendation() {
    failures_at(Fault::SquareTiesAway, "square", Tier::Should, TIES_TO_EVEN);
}

#[test]
fn square_rounded_toward_zero_is_not_on_multiplys_terms() {
    let failed =
        failures_at(Fault::SquareTowardZero, "square", Tier::Must, "must: \"The results of element-wise");
    assert!(
        failed[0].failures[0].authority.contains("on multiply's terms"),
        "{}",
        failed[0].failures[0].authority
    );
}

#[test]
fn sqrt_rounded_toward_zero_conforms_and_misses_only_the_recommendation() {
    failures_at(Fault::SqrtTowardZero, "sqrt", Tier::Should, TIES_TO_EVEN);
}

#[test]
fn not_equal_by_the_remaining_bullet_conforms_and_misses_only_opspecs_bar() {
    let failed = failures_at(
        Fault::NotEqualLiteral,
        "not_equal",
        Tier::Quality,
        "opspec's bar: \"An infinity is unequal",
    );
    let ids: Vec<String> = failed.iter().map(|r| r.id.case.clone()).collect();
    assert!(
        ids.iter().any(|c| c == "infinity-vs-finite") && ids.iter().any(|c| c == "finite-vs-infinity"),
        "{ids:?}"
    );
}

/// `fault`'s failed checks of `ops` under `suite` in f32 (and of no dtype), each graded at
/// `tier`; the authority of the first failure of the first check.
fn graded(fault: Fault, suite: &str, ops: &[&str], tier: Tier) -> (Vec<CheckResult>, String) {
    let results = run_suite(fault, suite, ops, |d| d == DType::F32);
    let failed: Vec<CheckResult> = failed(&results).into_iter().cloned().collect();
    assert!(!failed.is_empty(), "{suite}: the fault shows");
    for r in &failed {
        assert_eq!(r.tier, Some(tier), "{}", r.report(&Default::default()));
    }
    let basis = failed[0].failures.first().map_or(String::new(), |f| f.authority.clone());
    (failed, basis)
}

#[test]
fn a_nan_where_exp_is_finite_is_no_approximation_and_misses_the_should() {
    let (_, basis) = graded(Fault::ExpNan, "array-api", &["exp"], Tier::Should);
    assert!(basis.contains("should compute approximations"), "{basis}");
}

#[test]
fn rows_numr_borrows_from_the_array_api_are_opspecs_bar_there() {
    let (_, basis) = graded(Fault::MaxNum, "numr", &["maximum", "minimum"], Tier::Quality);
    assert!(basis.contains("which the numr suite borrows"), "{basis}");
    graded(Fault::MaxNum, "array-api", &["maximum", "minimum"], Tier::Must);
}

#[test]
fn a_float_division_by_zero_is_undefined_under_numr_only() {
    let (failed, _) = graded(Fault::DivideByZeroIsZero, "numr", &["divide"], Tier::Quality);
    assert!(failed.iter().any(|r| r.id.case == "positive-by-pzero"), "the zero-divisor rows show");
    graded(Fault::DivideByZeroIsZero, "array-api", &["divide"], Tier::Must);
}

#[test]
fn a_fused_multiply_add_without_fma_conforms_and_misses_only_opspecs_reading() {
    let (_, basis) = graded(Fault::MulThenAdd, "numr", &["fused_mul_add"], Tier::Quality);
    assert!(basis.starts_with("opspec's reading: the oracle's value, one rounding"), "{basis}");
}

#[test]
fn add_into_writing_out_before_refusing_misses_only_opspecs_bar() {
    let (failed, basis) = graded(Fault::DirtyRefusal, "numr", &["add_into"], Tier::Quality);
    for case in ["into-rules", "layouts"] {
        assert!(failed.iter().any(|r| r.id.case == case), "the refusals of {case} show");
    }
    assert!(basis.starts_with("opspec's bar: a refused call leaves out unchanged"), "{basis}");
}

#[test]
fn two_infinities_of_one_sign_may_give_either_infinity_under_megengine() {
    graded(Fault::NegativeInfinitySquared, "megengine", &["multiply"], Tier::Quality);
    graded(Fault::NegativeInfinitySquared, "array-api", &["multiply"], Tier::Must);
}

#[test]
fn a_cosh_that_is_not_even_fails_the_must() {
    let results = run_suite(Fault::CoshNotEven, "array-api", &["cosh"], |d| d == DType::F32);
    let even = results.iter().find(|r| r.id.to_string() == "array-api:faulty:cosh:f32:even").unwrap();
    assert_eq!((even.status, even.tier), (Status::Fail, Some(Tier::Must)), "{}", even.message);
    assert!(even.citation.as_ref().is_some_and(|c| c.text.contains("cosh(x) must equal cosh(-x)")));
}

#[test]
fn bfloat16_is_opspecs_bar_under_the_array_api() {
    let results = run_suite(Fault::Bf16ExpWidens, "array-api", &["exp"], |d| d == DType::BF16);
    let failed = failed(&results);
    assert!(!failed.is_empty(), "the fault shows");
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
        assert!(r.message.contains("dtype f64"), "{}", r.message);
    }
    assert_eq!(gates(&results), [false, false, true]);
}

#[test]
fn a_missing_leading_axis_is_a_must_where_the_array_apis_algorithm_settles_it() {
    let rank0 = |r: &&CheckResult| r.id.case.starts_with("rank0");
    let numr = run_suite(Fault::NoRankZero, "numr", &["numpy"], |d| d == DType::F32);
    let under_numr: Vec<_> = failed(&numr).into_iter().filter(rank0).collect();
    assert!(!under_numr.is_empty(), "the fault shows");
    for r in under_numr {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
    }
    let array_api = run_suite(Fault::NoRankZero, "array-api", &["numpy"], |d| d == DType::F32);
    for r in failed(&array_api).into_iter().filter(rank0) {
        assert_eq!(r.tier, Some(Tier::Must), "{}", r.report(&Default::default()));
    }
}

#[test]
fn a_saturating_integer_add_misses_only_opspecs_reading_of_numrs_overflow() {
    let results = run_suite(Fault::Saturating, "numr", &["add"], |d| d == DType::I8);
    let failed = failed(&results);
    assert!(failed.iter().any(|r| r.id.case == "edges"), "the edges overflow");
    for r in &failed {
        assert_eq!(r.tier, Some(Tier::Quality), "{}", r.report(&Default::default()));
        assert!(r.failures[0].authority.contains("integers.overflow: wrap"), "{}", r.failures[0].authority);
    }
}

#[test]
fn floor_of_a_flushed_quotient_conforms_where_the_suite_grants_the_subnormal_latitude() {
    let failed = floor_divide_failures(Fault::FloorOfFlushedDivide, &[Tier::Quality]);
    let tiny_quotient = failed.iter().flat_map(|r| &r.failures).any(|f| f.actual.starts_with("-0"));
    assert!(tiny_quotient, "a subnormal negative quotient floors to -0 somewhere");
}
