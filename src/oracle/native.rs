//! The native reference: the correctly rounded basic operations (add, subtract, multiply,
//! divide, fused multiply-add, fused add-multiply, floor_divide, remainder) in f16, bf16 and
//! f32, and the exact operations (maximum, minimum, copysign, nextafter, the comparisons) in
//! every float format, computed
//! with the host's f64 arithmetic and one correctly rounding narrowing of our own. It gives
//! the MPFR oracle's bits (tests below and `opspec oracle-agreement`) at a few nanoseconds per
//! result instead of about a microsecond; MPFR stays the reference for everything else and for
//! f64 arithmetic.
//!
//! # Why it is exact
//!
//! Decoding. Every f16, bf16 and f32 value is an f64 value: f16 through integer bit
//! arithmetic, bf16 and f32 through the hardware's f32-to-f64 conversion, which is exact as
//! long as denormals-are-zero is off ([`super::fpenv`] checks this).
//!
//! Add, subtract, multiply, divide. The f64 operation rounds the exact result once to 53
//! bits. For target precision p, rounding first to q ≥ 2p + 2 bits and then to p bits gives
//! the correctly rounded p-bit result, subnormal targets included (Figueroa 1995; Roux,
//! "Innocuous Double Rounding of Basic Arithmetic Operations", JFR 7(1), 2014, in Coq). Here
//! p = 24, 11, 8 and 2p + 2 = 50, 24, 18 ≤ 53. The f64 step itself never overflows or
//! underflows: the largest magnitude is 2^128 · 2^149 = 2^277 (f32 max divided by its smallest
//! subnormal), the smallest nonzero 2^-298, both normal f64. (Products and f16 sums are even
//! exact in f64.) The rounding mode must be round-to-nearest-even; `fpenv` checks it.
//!
//! Fused multiply-add. Double rounding is *not* innocuous here (bf16 `fma(17, 17, 2^-60)` via
//! one f64 fma gives 288, the exact 289 + 2^-60 rounds to 290). Instead: the product
//! `p = a·b` is exact in f64 (at most 2 × 24 = 48 significant bits, magnitudes within
//! [2^-298, 2^256]); `s = p + c` rounds, and TwoSum recovers the exact error `e`, so
//! `a·b + c = s + e` exactly (no overflow, round to nearest). No f64 value lies strictly
//! between `s` and `s + e` (else it would be nearer to `s + e` than `s` is). Every rounding
//! boundary of the target (the midpoint between two neighbours, and the overflow threshold
//! (2 − 2^-p)·2^emax) is an f64 value, as it has at most p + 1 significant bits and lies in
//! f64's normal range. So `s + e` and `s` round alike unless `s` *is* a boundary; then the
//! sign of `e` decides (towards `s + e`), and only `e = 0` is a true tie, broken to even.
//! [`narrow`] takes that direction. Fused add-multiply is two correctly rounded operations.
//!
//! Floor division (the oracle's: the quotient rounded to nearest where that is infinite, NaN,
//! or the zero of a zero dividend or an infinite divisor; else the exact quotient's floor
//! rounded down). With `q` the f64 quotient: where |q| < 2^53, `n = floor(q)` is the exact
//! quotient's floor or one above it (rounding is monotonic and the integers there are f64
//! values, so the quotient lies in [n − 1, n + 1)), and the sign of `x − n·y` rounded once
//! (one fma: rounding keeps a sign, and a nonzero difference of these operands is far above
//! f64's underflow) says which; the floor, an integer f64, is then rounded down by cutting
//! its significand at the format's quantum (toward −∞: the cut bits dropped above zero, one
//! unit more in magnitude below it where any were cut). Where |q| ≥ 2^53 every value of the
//! format near it is an integer, so rounding the floor down is rounding the quotient down,
//! and that is `q` rounded down: no value of the format lies between the quotient and `q`.
//! (Were `q` one and not the quotient, `x − q·y` would be a nonzero multiple of the quantum
//! of `x` or of the 2p-bit product `q·y`, more than 2^-2p·|q·y| in magnitude, putting the
//! quotient more than 2^-2p·|q| from `q`; `q` lies within 2^-53·|q| of it, and 2p ≤ 48.) A
//! positive floor past the largest finite value (below 2^(emax+1), as the quotient rounded to
//! a finite value) rounds down to it, a negative one to −∞, as the oracle's overflow gives.
//! Whether the quotient rounds to an infinity or a zero is a comparison of `q` with the
//! overflow threshold.
//!
//! Remainder (Python's `%`: `fmod(x, y)`, moved into `y`'s sign by one correctly rounded
//! addition of `y` where the signs differ). Of the values congruent to `x` modulo `y` and
//! below `|y|` in magnitude, the one in `y`'s sign is then the result (exact, a value of the
//! format) and the other `m` gives it as `m + y` rounded once; so any such `m`, exact, will
//! do: zero gives `y`'s zero, `m` in `y`'s sign itself, another `m` the rounded `m + y`. It is
//! `x − q·y` for `q` the integer nearest to `x` times `1/y` (rounded once) where the
//! quotient is below 2^50: two roundings put that product within 2^-52 of the quotient
//! relative to it, so `q` lies within 0.76 of the quotient (a dividend that is a multiple of
//! `y` gives that multiple, not one less as truncation could), and `x − q·y`, below `|y|` in
//! either sign and a multiple of the smaller operand's quantum, has under 53 bits: one fma
//! gives it exactly. A larger quotient is first reduced the same way by `y·2^k` (an exact
//! scaling, its reciprocal rounded once), which keeps the residue modulo `y` and takes 49
//! bits off the quotient per step; a block of dividends takes the steps its largest quotient
//! needs, each with one division (`y` is one per run), and none where every dividend lies in
//! a binade below `y`'s. The final addition of `y` rounds once in f64, then to the format:
//! innocuous double rounding.
//!
//! Narrowing. [`narrow`] rounds an f64 to the target with integer arithmetic only (no FP
//! instruction, so it does not depend on the FP environment): the significand is shifted to
//! the target's quantum at the value's exponent (the subnormal quantum below the normal
//! range), rounded to nearest with ties to even, and a carry or a magnitude at or above
//! 2^(emax+1) becomes the next binade or infinity. That is one rounding. (`half`'s
//! `f16::from_f64` is not: with the F16C instructions it converts to f32 first and rounds
//! twice, so this module does not use it.)
//!
//! Exact operations. Maximum and minimum follow MPFR's `max`/`min` (the oracle's, IEEE
//! 754-2008 maxNum: a NaN operand gives the other operand; +0 is the maximum of ±0); copysign
//! is a bit operation, and so is nextafter (one step of the bit pattern); a comparison is the
//! IEEE comparison of the exact f64 values.
//!
//! NaN results are the format's default quiet NaN, as the oracle's are.

use std::cmp::Ordering;

use opspec_adapter::{BinaryOp, OpKind, TernaryOp};

use crate::bits::format::Format;

/// Whether the native reference computes `op` in `f` (on a target whose FP control state it
/// can check).
pub fn covers(op: OpKind, f: Format) -> bool {
    let arithmetic = matches!(f, Format::F16 | Format::BF16 | Format::F32);
    super::fpenv::READABLE
        && match op {
            OpKind::Binary(b) | OpKind::BinaryInto(b) => match b {
                BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply | BinaryOp::Divide => arithmetic,
                BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::Copysign | BinaryOp::Nextafter => true,
                BinaryOp::FloorDivide | BinaryOp::Remainder => arithmetic,
                b => b.is_comparison(),
            },
            OpKind::Ternary(TernaryOp::FusedMulAdd | TernaryOp::FusedAddMul) => arithmetic,
            _ => false,
        }
}

/// The result of `op` on `inputs` in format `f`, bit for bit the MPFR oracle's, or `None`
/// where [`covers`] is false. The caller checks the thread's FP state ([`super::fpenv::check`])
/// before a batch of calls.
pub fn reference(op: OpKind, f: Format, inputs: &[u64]) -> Option<u64> {
    if !covers(op, f) {
        return None;
    }
    Some(match op {
        OpKind::Binary(b) | OpKind::BinaryInto(b) => binary(b, f, inputs[0], inputs[1]),
        OpKind::Ternary(TernaryOp::FusedMulAdd) => fused_mul_add(f, inputs[0], inputs[1], inputs[2]),
        OpKind::Ternary(TernaryOp::FusedAddMul) => {
            binary(BinaryOp::Multiply, f, binary(BinaryOp::Add, f, inputs[0], inputs[1]), inputs[2])
        }
        _ => return None,
    })
}

/// `out[i] = body` for each first operand `a` (`first[i]`) and its value `x` (`values[i]`)
/// of `binary_run`: a macro, so that the body is written into the loop (a closure as large as
/// `floor_divide`'s need not be inlined into it, and is then not vectorised). By index over
/// slices of one length: a zip of three iterators has an exit per iterator, and a loop with
/// several exits is vectorised with a scalar tail of up to a whole vector's elements.
macro_rules! each {
    ($out:expr, $first:expr, $values:expr, |$a:pat_param, $x:pat_param| $body:expr) => {{
        let out: &mut [u64] = $out;
        let n = out.len();
        let (first, values): (&[u64], &[f64]) = (&$first[..n], &$values[..n]);
        for i in 0..n {
            let (&$a, &$x) = (&first[i], &values[i]);
            out[i] = $body;
        }
    }};
}

/// A binary operation [`covers`] accepts.
#[inline]
pub fn binary(op: BinaryOp, f: Format, a: u64, b: u64) -> u64 {
    binary_decoded(op, f, a, b, to_f64(f, a), to_f64(f, b))
}

/// [`binary`] of `a` and `b` whose values [`to_f64`] gave as `x` and `y`.
#[inline(always)]
pub fn binary_decoded(op: BinaryOp, f: Format, a: u64, b: u64, x: f64, y: f64) -> u64 {
    match op {
        BinaryOp::Add => narrow(f, x + y),
        BinaryOp::Subtract => narrow(f, x - y),
        BinaryOp::Multiply => narrow(f, x * y),
        BinaryOp::Divide => narrow(f, x / y),
        BinaryOp::Maximum => max_num(f, a, b, x, y, true),
        BinaryOp::Minimum => max_num(f, a, b, x, y, false),
        BinaryOp::Copysign => f.abs(a) | (b & f.sign_mask()),
        BinaryOp::Nextafter => next_after(f, a, b, x, y),
        BinaryOp::FloorDivide | BinaryOp::Remainder if f.bits < 64 => {
            // The run's implementation, on a run of one.
            let mut out = [0];
            binary_run(op, f, (&[a], &[x]), (b, y), &mut out);
            out[0]
        }
        BinaryOp::Equal => u64::from(x == y),
        BinaryOp::NotEqual => u64::from(x != y),
        BinaryOp::Greater => u64::from(x > y),
        BinaryOp::GreaterEqual => u64::from(x >= y),
        BinaryOp::Less => u64::from(x < y),
        BinaryOp::LessEqual => u64::from(x <= y),
        other => unreachable!("the native reference does not compute {other}"),
    }
}

/// [`binary_decoded`] of each first operand `a[i]` (its value `x[i]`) with one second operand
/// `b` (its value `y`), into `out[i]`; `a`, `x` and `out` have one length. The operation and
/// the format are chosen once, outside the loop, so that the arithmetic and the comparisons
/// are vectorised. Inlined, so that a caller compiled for wider vectors (the pair judge's
/// AVX-512 and AVX2 copies) vectorises it with them.
#[inline(always)]
pub fn binary_run(op: BinaryOp, f: Format, (a, x): (&[u64], &[f64]), (b, y): (u64, f64), out: &mut [u64]) {
    match (f.exp_bits, f.frac_bits) {
        (5, 10) => run_to::<5, 10>(op, f, (a, x), (b, y), out),
        (8, 7) => run_to::<8, 7>(op, f, (a, x), (b, y), out),
        (8, 23) => run_to::<8, 23>(op, f, (a, x), (b, y), out),
        _ => each!(out, a, x, |a, x| binary_decoded(op, f, a, b, x, y)),
    }
}

/// [`binary_run`] in the format with `EXP` exponent and `FRAC` fraction bits.
#[inline(always)]
fn run_to<const EXP: u32, const FRAC: u32>(
    op: BinaryOp,
    f: Format,
    (a, x): (&[u64], &[f64]),
    (b, y): (u64, f64),
    out: &mut [u64],
) {
    let round = |v: f64| narrow_to::<EXP, FRAC>(v, Ordering::Equal);
    match op {
        BinaryOp::Add => each!(out, a, x, |_, x| round(x + y)),
        BinaryOp::Subtract => each!(out, a, x, |_, x| round(x - y)),
        BinaryOp::Multiply => each!(out, a, x, |_, x| round(x * y)),
        BinaryOp::Divide => each!(out, a, x, |_, x| round(x / y)),
        BinaryOp::Equal => each!(out, a, x, |_, x| u64::from(x == y)),
        BinaryOp::NotEqual => each!(out, a, x, |_, x| u64::from(x != y)),
        BinaryOp::Greater => each!(out, a, x, |_, x| u64::from(x > y)),
        BinaryOp::GreaterEqual => each!(out, a, x, |_, x| u64::from(x >= y)),
        BinaryOp::Less => each!(out, a, x, |_, x| u64::from(x < y)),
        BinaryOp::LessEqual => each!(out, a, x, |_, x| u64::from(x <= y)),
        BinaryOp::FloorDivide => each!(out, a, x, |_, x| floor_divide::<EXP, FRAC>(x, y)),
        BinaryOp::Remainder => remainder::<EXP, FRAC>(b, x, y, out),
        BinaryOp::Nextafter => each!(out, a, x, |a, x| next_after(f, a, b, x, y)),
        _ => each!(out, a, x, |a, x| binary_decoded(op, f, a, b, x, y)),
    }
}

/// MPFR's `max` (`larger`) or `min`: a NaN operand gives the other operand, two NaNs the quiet
/// NaN; of two zeros of different signs the maximum is +0 and the minimum −0.
fn max_num(f: Format, a: u64, b: u64, x: f64, y: f64, larger: bool) -> u64 {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => f.quiet_nan(),
        (true, false) => b,
        (false, true) => a,
        _ if x == y && f.is_zero(a) => {
            let negative = if larger { a & b } else { a | b };
            negative & f.sign_mask()
        }
        _ => {
            if (x > y) == larger || x == y {
                a
            } else {
                b
            }
        }
    }
}

/// The value next to `a` in the direction of `b` (`b` where they are equal, a NaN where
/// either is), as the oracle's `nextafter`.
#[inline(always)]
fn next_after(f: Format, a: u64, b: u64, x: f64, y: f64) -> u64 {
    if x.is_nan() || y.is_nan() {
        f.quiet_nan()
    } else if x == y {
        b
    } else if x == 0.0 {
        f.min_subnormal() | (b & f.sign_mask())
    } else if (x < y) != f.is_sign_negative(a) {
        // Away from zero: one step up in magnitude.
        a + 1
    } else {
        a - 1
    }
}

/// The oracle's `floor_divide` in the format with `EXP` exponent and `FRAC` fraction bits: the
/// quotient rounded to nearest where that is not finite, or is a zero of a zero dividend or an
/// infinite divisor; otherwise the exact quotient's floor rounded down (see the module
/// documentation). Without a branch, so that a run of them is vectorised.
#[inline(always)]
fn floor_divide<const EXP: u32, const FRAC: u32>(x: f64, y: f64) -> u64 {
    let f = format::<EXP, FRAC>();
    let q = x / y;
    // The quotient rounded to nearest, where that is a NaN, an infinity (at the overflow
    // threshold (2 − 2^-p)·2^emax on) or the zero of a zero dividend or an infinite
    // divisor (then the quotient is a zero itself).
    let emax = (1 << (EXP - 1)) - 1;
    let overflow = power_of_two(emax + 1) - power_of_two(emax - FRAC as i64 - 1);
    let infinite = q.abs() >= overflow;
    let special = q.is_nan() | infinite | (x == 0.0) | y.is_infinite();
    let sign = (q.to_bits() >> 63) << (EXP + FRAC);
    let quotient = if q.is_nan() { f.quiet_nan() } else { sign | if infinite { f.pos_inf() } else { 0 } };
    let small = q.abs() < 2.0 * TWO_52;
    let n = if small { q.floor() } else { q };
    // Whether the exact quotient x/y lies below n: x - n·y, rounded once, keeps its sign.
    let r = (-n).mul_add(y, x);
    let below = if y > 0.0 { r < 0.0 } else { r > 0.0 };
    let floor = floor_integer_to::<EXP, FRAC>(if small & below { n - 1.0 } else { n });
    if special { quotient } else { floor }
}

/// 2^e, for `e` in f64's normal range.
#[inline(always)]
fn power_of_two(e: i64) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The oracle's `remainder` (Python's `%`) of each `x[i]` by `y` (whose bits are `b`), into
/// `out[i]`: the value congruent to `x` modulo `y` in `y`'s sign below `|y|`, from any one
/// below `|y|` (see the module documentation); a zero takes `y`'s sign.
#[inline(always)]
fn remainder<const EXP: u32, const FRAC: u32>(b: u64, x: &[f64], y: f64, out: &mut [u64]) {
    let f = format::<EXP, FRAC>();
    let mut m = [0.0; REMAINDER_BLOCK];
    // By index: a zip of the two chunk iterators is not inlined, a cost per call of one block.
    for from in (0..x.len()).step_by(REMAINDER_BLOCK) {
        let to = (from + REMAINDER_BLOCK).min(x.len());
        let (x, out, m) = (&x[from..to], &mut out[from..to], &mut m[..to - from]);
        residues(x, y, m);
        for (o, &m) in out.iter_mut().zip(&*m) {
            let moved = if m.is_sign_negative() == y.is_sign_negative() { m } else { m + y };
            let nonzero = narrow_to::<EXP, FRAC>(moved, Ordering::Equal);
            let value = if m == 0.0 { b & f.sign_mask() } else { nonzero };
            *o = if m.is_nan() { f.quiet_nan() } else { value };
        }
    }
}

/// [`remainder`] reduces the dividends in blocks of this many: a block takes as many steps as
/// its largest quotient needs.
const REMAINDER_BLOCK: usize = 64;

/// 2^52: from here on every f64 is an integer.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// Into `m[i]`, a value congruent to `x[i]` modulo `y`, below `|y|` in magnitude, exact, for
/// operands of the formats here (see the module documentation); a NaN where `x` is not finite
/// or `y` is a NaN or a zero, and `x` where `y` is infinite.
#[inline(always)]
fn residues(x: &[f64], y: f64, m: &mut [f64]) {
    if !y.is_finite() || y == 0.0 {
        for (m, &x) in m.iter_mut().zip(x) {
            *m = if y.is_infinite() & x.is_finite() { x } else { f64::NAN };
        }
        return;
    }
    // The binade distance d of |m| above |y| bounds the quotient: below 2^(d+1).
    let field = |v: f64| (v.to_bits() >> 52 & 0x7ff) as i64;
    let distance = |v: f64| field(v) - field(y);
    // A non-finite dividend takes part as a zero, and comes out a NaN.
    for (m, &x) in m.iter_mut().zip(x) {
        *m = if x.is_finite() { x } else { 0.0 };
    }
    // A step reduces every m by s = y·2^k, k = max(d − 49, 0) for the block's largest d, so
    // that each quotient Q = m/s is below 2^50: q, the product of m and 1/s (rounded once)
    // rounded to the nearest integer, lies within 0.76 of Q (two roundings, each within
    // 2^-53 of it), so m − q·s, one fma, keeps the residue modulo y below s: every d is at
    // most k after it. Steps continue to k = 0, which leaves m below |y|. A block whose every
    // d is negative is below |y| already and takes none.
    let mut reach = m.iter().fold(-1, |d, &v| d.max(distance(v)));
    while reach >= 0 {
        let k = (reach - 49).max(0);
        let s = y * power_of_two(k);
        let reciprocal = 1.0 / s;
        for m in m.iter_mut() {
            *m = (-(*m * reciprocal).round_ties_even()).mul_add(s, *m);
        }
        reach = if k == 0 { -1 } else { k };
    }
    for (m, &x) in m.iter_mut().zip(x) {
        *m = if x.is_finite() { *m } else { f64::NAN };
    }
}

/// `a·b + c` rounded once (see the module documentation).
fn fused_mul_add(f: Format, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (to_f64(f, a), to_f64(f, b), to_f64(f, c));
    let p = x * y;
    let s = p + z;
    if !s.is_finite() {
        return narrow(f, s);
    }
    // TwoSum (Knuth): s + e = p + z exactly.
    let pz = s - p;
    let e = (p - (s - pz)) + (z - pz);
    let beyond = match (e == 0.0, (e > 0.0) == (s > 0.0)) {
        (true, _) => Ordering::Equal,
        (false, true) => Ordering::Greater,
        (false, false) => Ordering::Less,
    };
    narrow_toward(f, s, beyond)
}

/// The exact f64 value of `x` (bits of format `f`).
#[inline(always)]
pub fn to_f64(f: Format, x: u64) -> f64 {
    // By the widths: `Format`'s `==` compares the names too, and a sweep decodes every value.
    match (f.bits, f.exp_bits) {
        (64, _) => f64::from_bits(x),
        (32, _) => f64::from(f32::from_bits(x as u32)),
        (16, 8) => f64::from(f32::from_bits((x as u32) << 16)),
        _ => f64::from(f32::from_bits(f16_to_f32_bits(x as u32))),
    }
}

/// The f32 bits of an f16 value, by integer arithmetic.
#[inline]
fn f16_to_f32_bits(h: u32) -> u32 {
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1f;
    let frac = h & 0x3ff;
    match exp {
        0 if frac == 0 => sign,
        // frac × 2^-24: normalise so the leading one becomes the hidden bit.
        0 => {
            let shift = frac.leading_zeros() - 21; // moves the top bit to position 10
            let e = 113 - shift; // biased f32 exponent of frac × 2^-24
            sign | (e << 23) | ((frac << shift) & 0x3ff) << 13
        }
        0x1f => sign | 0x7f80_0000 | (frac << 13),
        _ => sign | ((exp + 112) << 23) | (frac << 13),
    }
}

/// `x` rounded once to format `f` (f16, bf16 or f32), to nearest with ties to even.
#[inline(always)]
pub fn narrow(f: Format, x: f64) -> u64 {
    narrow_toward(f, x, Ordering::Equal)
}

/// `x` rounded once to `f`, where the exact value is `x` itself (`Equal`) or lies just beyond
/// `x` in magnitude (`Greater`) or just short of it (`Less`), closer to `x` than any other
/// f64: only a tie of `x` itself is resolved by that direction instead of to even.
#[inline(always)]
pub(super) fn narrow_toward(f: Format, x: f64, beyond: Ordering) -> u64 {
    // The format's numbers as constants, so each case compiles to straight-line code.
    match (f.exp_bits, f.frac_bits) {
        (5, 10) => narrow_to::<5, 10>(x, beyond),
        (8, 7) => narrow_to::<8, 7>(x, beyond),
        (8, 23) => narrow_to::<8, 23>(x, beyond),
        _ => unreachable!("the native reference narrows to f16, bf16 and f32 only"),
    }
}

/// The format with `EXP` exponent and `FRAC` fraction bits.
const fn format<const EXP: u32, const FRAC: u32>() -> Format {
    Format { name: "", bits: 1 + EXP + FRAC, exp_bits: EXP, frac_bits: FRAC }
}

/// [`narrow_toward`] for the format with `EXP` exponent and `FRAC` fraction bits, without a
/// branch (selects only), so that a loop of them is vectorised ([`binary_run`]).
#[inline(always)]
fn narrow_to<const EXP: u32, const FRAC: u32>(x: f64, beyond: Ordering) -> u64 {
    let f = format::<EXP, FRAC>();
    let Split { sign, encoded, units, rest, half } = split::<EXP, FRAC>(x);
    let tie_up = match beyond {
        Ordering::Equal => units & 1 == 1,
        o => o == Ordering::Greater,
    };
    let up = rest > half || rest == half && tie_up;
    let magnitude = (encoded + units + u64::from(up)).min(f.pos_inf());
    if x.is_nan() { f.quiet_nan() } else { sign | magnitude }
}

/// `x`, an integer f64 (zero, or at least 1 in magnitude: normal in f64 and in the format),
/// rounded down (toward −∞) to the format with `EXP` exponent and `FRAC` fraction bits. The
/// quantum is then always the significand's `52 − FRAC`th bit, so the cut is a fixed shift.
/// Without a branch.
#[inline(always)]
fn floor_integer_to<const EXP: u32, const FRAC: u32>(x: f64) -> u64 {
    let f = format::<EXP, FRAC>();
    let bits = x.to_bits();
    let sign = (bits >> 63) << (EXP + FRAC);
    let drop = 52 - FRAC;
    let magnitude = bits & !(1 << 63);
    let exact = magnitude & ((1 << drop) - 1) == 0;
    // The significand cut at the quantum, its exponent field moved from f64's bias to the
    // format's (nonsense for a zero, which is selected out below).
    let cut = (magnitude >> drop).wrapping_sub(((1023 - f.bias()) as u64) << FRAC);
    // Down is toward a larger magnitude below zero, a smaller one above it; a positive value
    // beyond the range rounds down to the largest finite one, a negative one to −∞.
    let rounded =
        if sign != 0 { (cut + u64::from(!exact)).min(f.pos_inf()) } else { cut.min(f.pos_inf() - 1) };
    if x == 0.0 { sign } else { sign | rounded }
}

/// An f64 cut at the quantum of a narrower format: its sign in the format, the format's
/// exponent field at its magnitude (shifted into place), and the magnitude's units of the
/// quantum and the `rest` below it, to compare with `half` a unit.
struct Split {
    sign: u64,
    encoded: u64,
    units: u64,
    rest: u64,
    half: u64,
}

/// `x` cut at the quantum of the format with `EXP` exponent and `FRAC` fraction bits.
#[inline(always)]
fn split<const EXP: u32, const FRAC: u32>(x: f64) -> Split {
    let f = format::<EXP, FRAC>();
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1 << 52) - 1);
    // |x| = m × 2^(e - 52), with the hidden bit where x is normal. An f64 subnormal (m < 2^52,
    // e = -1022) lies far below the target's smallest subnormal: no units, a nonzero rest.
    let m = frac | u64::from(field != 0) << 52;
    let e = field.max(1) - 1023;
    // The target's exponent field at e, and the bits below its quantum: 52 - FRAC in the
    // normal range, more below it (the subnormal quantum), at most 54, as m < 2^53 lies below
    // a quarter of the quantum from there on.
    let biased = e + i64::from(f.bias());
    let drop = (52 - i64::from(FRAC) + (1 - biased).max(0)).min(54) as u32;
    // A normal value's units include the hidden bit, which adds one to the exponent field;
    // a carry out of the significand moves to the next binade (or to infinity) by itself, and
    // so does a magnitude at or above 2^(emax+1) (an infinite x included).
    Split {
        sign: (bits >> 63) << (EXP + FRAC),
        encoded: ((biased.max(1) - 1) as u64) << FRAC,
        units: m >> drop,
        rest: m & ((1 << drop) - 1),
        half: 1 << (drop - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_mul_add_breaks_the_midpoint_by_the_lost_addend() {
        // bf16 17² + 2^-60 = 289 + 2^-60 is above the tie 289 between 288 and 290, so 290; one
        // f64 fma rounds to 289, which then ties to the even 288.
        let fma = |f, a, b, c| reference(OpKind::Ternary(TernaryOp::FusedMulAdd), f, &[a, b, c]).unwrap();
        assert_eq!(fma(Format::BF16, 0x4188, 0x4188, 0x2180), 0x4391);
        assert_eq!(fma(Format::BF16, 0x4188, 0x4188, 0xa180), 0x4390, "below the tie: 288");
        assert_eq!(fma(Format::BF16, 0x4188, 0x4188, 0x0000), 0x4390, "the tie itself: even");
        // f32 4097² + 2^-30 = 16785409 + 2^-30 rounds up to 16785410.
        assert_eq!(fma(Format::F32, 0x4580_0800, 0x4580_0800, 0x3080_0000), 0x4b80_1001);
    }

    #[test]
    fn narrowing_rounds_once() {
        // 1 + 2^-11 + 2^-30 is just above the f16 tie between 1 and 1 + 2^-10: it rounds up.
        // Rounding to f32 first (24 bits) drops the 2^-30 and leaves the tie, which goes to 1.
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-30);
        assert_eq!(narrow(Format::F16, x), 0x3c01);
        assert_eq!(narrow(Format::F16, f64::from(x as f32)), 0x3c00, "the double rounding");
        // The subnormal tie 2^-25 goes to +0, just above it to the smallest subnormal.
        assert_eq!(narrow(Format::F16, 2f64.powi(-25)), 0x0000);
        assert_eq!(narrow(Format::F16, 2f64.powi(-25) * (1.0 + f64::EPSILON)), 0x0001);
        assert_eq!(narrow(Format::F16, -3.0 * 2f64.powi(-25)), 0x8002, "1.5 ulp ties to 2");
        // Overflow: 65520 is the f16 threshold (ties away from the odd max), just below stays.
        assert_eq!(narrow(Format::F16, 65520.0), 0x7c00);
        assert_eq!(narrow(Format::F16, 65519.99), 0x7bff);
        assert_eq!(narrow(Format::F32, f64::from(f32::MAX) * 2.0), 0x7f80_0000);
        assert_eq!(narrow(Format::BF16, f64::MIN_POSITIVE), 0, "far below the bf16 subnormals");
        assert_eq!(narrow(Format::F32, -0.0), 0x8000_0000);
        assert_eq!(narrow(Format::BF16, f64::NAN), Format::BF16.quiet_nan());
        // A carry out of the largest subnormal lands on the smallest normal.
        assert_eq!(narrow(Format::F16, 2f64.powi(-14) - 2f64.powi(-26)), 0x0400);
    }

    #[test]
    fn decoding_is_exact() {
        for f in [Format::F16, Format::BF16, Format::F32] {
            for x in (0..1u64 << 16).map(|k| if f == Format::F32 { k << 16 | k } else { k }) {
                let expected = f.to_f64(x);
                let got = to_f64(f, x);
                assert!(got.to_bits() == expected.to_bits() || got.is_nan() && expected.is_nan(), "{x:#x}");
            }
        }
    }

    /// The vectorised run gives [`binary`]'s bits for every operation it computes, in every
    /// format, on the grid's values (signed zeros, subnormals, infinities, NaNs) against each
    /// grid value as the second operand.
    #[test]
    fn a_run_gives_what_each_case_gives() {
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            let a = crate::generate::grid_values(f);
            let x: Vec<f64> = a.iter().map(|&a| to_f64(f, a)).collect();
            let ops = BinaryOp::ALL.into_iter().filter(|&op| covers(OpKind::Binary(op), f));
            for op in ops {
                let mut out = vec![0; a.len()];
                for &b in &a {
                    binary_run(op, f, (&a, &x), (b, to_f64(f, b)), &mut out);
                    for (&a, &got) in a.iter().zip(&out) {
                        assert_eq!(got, binary(op, f, a, b), "{op} {} {a:#x} {b:#x}", f.name);
                    }
                }
            }
        }
    }

    #[test]
    fn covers_the_exact_and_basic_operations_only() {
        let add = OpKind::Binary(BinaryOp::Add);
        assert!(covers(add, Format::BF16) && !covers(add, Format::F64));
        assert!(covers(OpKind::Binary(BinaryOp::Less), Format::F64));
        assert!(!covers(OpKind::Binary(BinaryOp::Pow), Format::F32));
        assert!(!covers(OpKind::Binary(BinaryOp::FloorDivide), Format::F64));
        assert_eq!(reference(OpKind::Binary(BinaryOp::Atan2), Format::F32, &[0, 0]), None);
    }
}
