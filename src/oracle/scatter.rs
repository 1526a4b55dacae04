//! The scatter-add reference: `output = input`, then for each index vector the matching slice
//! of `updates` is added; duplicates are summed.
//!
//! Every output element is accumulated **exactly** (floats as integers in units of the
//! format's smallest subnormal, integers as wide integers) and rounded once. Because real
//! implementations sum duplicates in an unspecified order, an element with `n` addends (the
//! input element and its updates) and `k = n - 1` additions is not a point but a set:
//!
//! - `n = 1`: the input element's bits; `n = 2`: the correctly rounded sum (one addition);
//! - when every partial sum in every order is representable (small integers, powers of two),
//!   the exact sum's bits;
//! - otherwise any finite `r` with `|r - S| <= γ(k)·Σ|xᵢ|`, `γ(k) = k·u / (1 - k·u)`,
//!   `u = 2^-p`: the rigorous bound for summation in any order or tree. The test is done in
//!   exact integer arithmetic: `|r - S|·(2^p - k) <= k·Σ|xᵢ|`;
//! - NaN and infinities as IEEE addition says (any NaN in, or both infinities: NaN; one
//!   infinity: that infinity, or NaN too where the finite addends of the other sign can
//!   overflow to the other infinity in some order); a zero result is `-0` only when every
//!   addend is `-0`, as exact cancellation gives `+0` under round-to-nearest.
//!
//! Integer dtypes are exact, with two's-complement wrapping.
//!
//! That is opspec's bar ([`ElementRef::expect`]). MindSpore's document says only "the updated
//! result will be the sum of all values", so each element also has what those words give
//! ([`ElementRef::stated`], the must): a floating-point sum of its addends in any order, each
//! addition rounded in any of IEEE 754's directions (the bound with `u = 2^(1-p)`); a zero of
//! either sign where the sum is zero; any value where an addend is NaN or infinite, or where
//! an integer sum can overflow in some order (the document names no arithmetic for either);
//! an element no update reaches keeps the input's value (a zero of either sign).

use std::cmp::Ordering;

use opspec_adapter::{DType, ErrorKind, ScatterMode};
use rug::float::Round;
use rug::{Float, Integer, Rational};

use crate::bits::format::Format;
use crate::bits::value::{IntFormat, Literal, describe_value};
use crate::oracle::rounding::round;

/// The behaviour a suite promises where the document leaves a choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// What happens to out-of-range index vectors.
    pub mode: ScatterMode,
    /// Whether a negative coordinate `-k` means `extent - k`.
    pub wrap_negative: bool,
    /// Index dtypes accepted; others are an [`ErrorKind::IndexDType`] error.
    pub index_dtypes: Vec<DType>,
}

/// One scatter-add problem, values as raw bits (integers: two's complement in the dtype's
/// width).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// dtype of `input` and of the output.
    pub dtype: DType,
    /// Shape of `input`.
    pub input_shape: Vec<usize>,
    /// `input`, row-major bits.
    pub input: Vec<u64>,
    /// dtype of `indices`.
    pub index_dtype: DType,
    /// Shape of `indices`; the last axis is the index depth.
    pub index_shape: Vec<usize>,
    /// The coordinates, row-major.
    pub indices: Vec<i64>,
    /// dtype of `updates` (the input's, except in dtype-mismatch cases).
    pub updates_dtype: DType,
    /// Shape of `updates`.
    pub updates_shape: Vec<usize>,
    /// `updates`, row-major bits.
    pub updates: Vec<u64>,
}

/// The error the reference requires, with the rule that requires it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredError {
    /// The kind.
    pub kind: ErrorKind,
    /// Why, in words.
    pub reason: String,
}

/// What one output element may be, and which updates went into it.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementRef {
    /// Flat positions in `updates` added to this element, in index-vector order.
    pub updates: Vec<usize>,
    /// The accepted results: opspec's bar.
    pub expect: ElementExpect,
    /// The results the document's words give (its must): wider than `expect`.
    pub stated: ElementExpect,
}

/// The accepted results of one output element.
#[derive(Clone, Debug, PartialEq)]
pub enum ElementExpect {
    /// Exactly these bits.
    Bits(u64),
    /// Any NaN.
    AnyNan,
    /// This infinity, or any NaN: the sum of one infinity and finite addends of the other
    /// sign that can overflow to the other infinity in some order.
    InfinityOrNan(u64),
    /// Within the summation bound of the exact sum.
    Bound(SumBound),
    /// A zero of either sign.
    Zero,
    /// Any value.
    Any,
}

/// The exact sum of an element's addends and the bound an order-dependent sum must meet.
#[derive(Clone, Debug, PartialEq)]
pub struct SumBound {
    pub(crate) format: Format,
    /// The exact sum, in units of the format's smallest subnormal.
    pub(crate) exact: Integer,
    /// `Σ|xᵢ|`, in the same units.
    pub(crate) abs_sum: Integer,
    /// `k = n - 1`.
    pub additions: usize,
    /// The exact sum rounded once to the format.
    pub rounded: u64,
    /// Whether some order can overflow (then infinities and NaN are accepted too).
    pub overflow_possible: bool,
    /// Whether each addition may round in any direction (`u = 2^(1-p)`, and a zero result of
    /// either sign), not only to nearest (`u = 2^-p`).
    pub any_rounding: bool,
}

impl ElementExpect {
    /// The expectation in words, values in decimal, hex-float and bits.
    pub fn describe(&self, dtype: DType) -> String {
        match self {
            ElementExpect::Bits(b) => describe_value(dtype, *b),
            ElementExpect::AnyNan => "any NaN".to_string(),
            ElementExpect::InfinityOrNan(b) => format!(
                "{} or any NaN (the finite addends of the other sign can overflow in some order)",
                describe_value(dtype, *b)
            ),
            ElementExpect::Bound(b) => b.describe(),
            ElementExpect::Zero => "+0 or -0".to_string(),
            ElementExpect::Any => "any value".to_string(),
        }
    }

    /// The single value the expectation centres on (for ULP distances).
    pub fn centre(&self) -> Option<u64> {
        match self {
            ElementExpect::Bits(b) => Some(*b),
            ElementExpect::AnyNan => None,
            ElementExpect::InfinityOrNan(b) => Some(*b),
            ElementExpect::Bound(b) => Some(b.rounded),
            ElementExpect::Zero | ElementExpect::Any => None,
        }
    }
}

impl SumBound {
    /// The exact sum as a decimal (rounded to 17 digits).
    pub fn exact_decimal(&self) -> String {
        scaled_decimal(self.format, &self.exact)
    }

    /// `1/u`: `2^p` for additions rounded to nearest, `2^(p-1)` for any direction.
    pub(crate) fn inverse_unit(&self) -> Integer {
        Integer::from(1) << (self.format.precision() - u32::from(self.any_rounding))
    }

    /// The bound `γ(k)·Σ|xᵢ|` as a decimal.
    pub fn bound_decimal(&self) -> String {
        let f = self.format;
        let k = self.additions as u64;
        let two_p = self.inverse_unit();
        if two_p <= k {
            return "unbounded".to_string();
        }
        let scale = Float::with_val(64, 1) << (f.emin() - f.frac_bits as i32);
        let gamma = Rational::from((Integer::from(k), two_p - k));
        let bound = Float::with_val(64, &self.abs_sum) * gamma * scale;
        format!("{:.6e}", bound.to_f64())
    }

    fn describe(&self) -> String {
        let f = self.format;
        let mut text = format!(
            "within γ({k})·Σ|x| = {} of the exact sum {} (rounded once: {}), k = {k} additions",
            self.bound_decimal(),
            self.exact_decimal(),
            f.describe(self.rounded),
            k = self.additions
        );
        if self.any_rounding {
            text += ", each addition rounded in any direction (u = 2^(1-p))";
        }
        if self.overflow_possible {
            text += "; Σ|x| exceeds the largest finite value, so ±inf or NaN are accepted too";
        }
        text
    }
}

/// The bits of `text` read in `dtype` (see [`Literal`]): decimals are rounded once to
/// nearest even; integers must be in range.
pub fn parse_value(dtype: DType, text: &str) -> Result<u64, String> {
    Ok(match Literal::parse(dtype, text)? {
        Literal::Integer(v) => {
            IntFormat::of(dtype).ok_or_else(|| format!("{dtype} holds no integers"))?.wrap(v)
        }
        Literal::Nan { negative } => with_sign(float(dtype)?, negative, float(dtype)?.quiet_nan()),
        Literal::Infinity { negative } => with_sign(float(dtype)?, negative, float(dtype)?.pos_inf()),
        Literal::Decimal(t) => {
            let f = float(dtype)?;
            let parsed = Float::parse(&t).map_err(|e| format!("`{text}`: {e}"))?;
            let (value, ord) = Float::with_val_round(f.precision(), parsed, Round::Nearest);
            round(f, value, ord)
        }
    })
}

fn with_sign(f: Format, negative: bool, x: u64) -> u64 {
    if negative { f.neg(x) } else { x }
}

fn float(dtype: DType) -> Result<Format, String> {
    Format::of(dtype).ok_or_else(|| format!("{dtype} is not a float dtype"))
}

/// The reference for `problem` under `policy`: the required error, or one expectation per
/// output element (row-major).
pub fn reference(problem: &Problem, policy: &Policy) -> Result<Vec<ElementRef>, RequiredError> {
    let plan = plan(problem, policy)?;
    let f = Format::of(problem.dtype);
    let elements = plan
        .into_iter()
        .enumerate()
        .map(|(e, updates)| {
            let input = problem.input[e];
            let values = updates.iter().map(|&u| problem.updates[u]);
            let (expect, stated) = match f {
                Some(f) => float_element(f, input, values),
                None => int_element(problem.dtype, input, values),
            };
            ElementRef { updates, expect, stated }
        })
        .collect();
    Ok(elements)
}

/// Validates the operands and lists, per output element, the flat update positions added to
/// it in index-vector order.
fn plan(p: &Problem, policy: &Policy) -> Result<Vec<Vec<usize>>, RequiredError> {
    let fail = |kind, reason: String| Err(RequiredError { kind, reason });
    if !policy.index_dtypes.contains(&p.index_dtype) {
        let accepted: Vec<&str> = policy.index_dtypes.iter().map(|d| d.name()).collect();
        return fail(
            ErrorKind::IndexDType,
            format!("indices are {}; only {} are accepted", p.index_dtype, accepted.join(", ")),
        );
    }
    if p.updates_dtype != p.dtype {
        return fail(
            ErrorKind::DTypeMismatch,
            format!("updates are {}, input is {}", p.updates_dtype, p.dtype),
        );
    }
    let Some((&depth, batch)) = p.index_shape.split_last().filter(|(_, b)| !b.is_empty()) else {
        return fail(
            ErrorKind::Rank,
            format!("indices have rank {}; the rank must be at least 2", p.index_shape.len()),
        );
    };
    if p.input_shape.len() < depth {
        return fail(
            ErrorKind::Rank,
            format!("input has rank {}, less than the index depth {depth}", p.input_shape.len()),
        );
    }
    let (indexed, sliced) = p.input_shape.split_at(depth);
    let required: Vec<usize> = batch.iter().chain(sliced).copied().collect();
    if p.updates_shape != required {
        return fail(
            ErrorKind::ShapeMismatch,
            format!(
                "updates have shape {:?}; indices.shape[:-1] + input.shape[{depth}:] is {required:?}",
                p.updates_shape
            ),
        );
    }
    let slice: usize = sliced.iter().product();
    let vectors: usize = batch.iter().product();
    let mut sources = vec![Vec::new(); p.input.len()];
    for v in 0..vectors {
        let coords = &p.indices[v * depth..(v + 1) * depth];
        let Some(start) = resolve(coords, indexed, policy)? else { continue };
        for j in 0..slice {
            sources[start * slice + j].push(v * slice + j);
        }
    }
    Ok(sources)
}

/// The slice number of one index vector, `None` when it is skipped.
fn resolve(coords: &[i64], shape: &[usize], policy: &Policy) -> Result<Option<usize>, RequiredError> {
    let mut linear = 0usize;
    for (&c, &extent) in coords.iter().zip(shape) {
        let extent_i = extent as i128;
        let mut c = c as i128;
        if c < 0 && policy.wrap_negative {
            c += extent_i;
        }
        if !(0..extent_i).contains(&c) {
            match policy.mode {
                ScatterMode::Ignore => return Ok(None),
                ScatterMode::Error => {
                    return Err(RequiredError {
                        kind: ErrorKind::OutOfRange,
                        reason: format!("index vector {coords:?} is outside the indexed shape {shape:?}"),
                    });
                }
                ScatterMode::Clip if extent == 0 => return Ok(None),
                ScatterMode::Clip => c = c.clamp(0, extent_i - 1),
            }
        }
        linear = linear * extent + c as usize;
    }
    Ok(Some(linear))
}

/// The signed value of a finite float in units of the format's smallest subnormal.
pub(crate) fn units(f: Format, bits: u64) -> Integer {
    let magnitude = if f.biased_exp(bits) == 0 {
        Integer::from(f.frac(bits))
    } else {
        Integer::from(f.frac(bits) | (1 << f.frac_bits)) << (f.biased_exp(bits) as u32 - 1)
    };
    if f.is_sign_negative(bits) { -magnitude } else { magnitude }
}

/// An exact sum in units, rounded once to the format (non-zero sums only).
fn round_units(f: Format, exact: &Integer) -> u64 {
    let (value, ord): (Float, Ordering) = Float::with_val_round(f.precision(), exact, Round::Nearest);
    // A power-of-two scaling is exact, so the ternary value still describes `value`.
    round(f, value << (f.emin() - f.frac_bits as i32), ord)
}

fn scaled_decimal(f: Format, exact: &Integer) -> String {
    let value = Float::with_val(128, exact) << (f.emin() - f.frac_bits as i32);
    format!("{:.17e}", value.to_f64())
}

/// opspec's bar and the document's must for one float element.
fn float_element(
    f: Format,
    input: u64,
    updates: impl Iterator<Item = u64>,
) -> (ElementExpect, ElementExpect) {
    let addends: Vec<u64> = std::iter::once(input).chain(updates).collect();
    let strict = ieee_sum(f, &addends);
    let stated = match &strict {
        // An element no update reaches keeps the input's value.
        _ if addends.len() == 1 && f.is_zero(input) => ElementExpect::Zero,
        _ if addends.len() == 1 => strict.clone(),
        // "the sum of all values" names no arithmetic for NaN or infinities.
        _ if addends.iter().any(|&x| !f.is_finite(x)) => ElementExpect::Any,
        ElementExpect::Bits(b) if f.is_zero(*b) => ElementExpect::Zero,
        _ => {
            let bound = sum_bound(f, &addends, true);
            match strict {
                // A representable sum that every order reaches exactly, in every direction.
                ElementExpect::Bits(b) if f.is_finite(b) && units(f, b) == bound.exact => strict.clone(),
                _ => ElementExpect::Bound(bound),
            }
        }
    };
    (strict, stated)
}

/// What IEEE 754 addition in round-to-nearest gives, in any order (opspec's bar).
fn ieee_sum(f: Format, addends: &[u64]) -> ElementExpect {
    if addends.iter().any(|&x| f.is_nan(x)) {
        return ElementExpect::AnyNan;
    }
    let max_units = units(f, f.max_finite());
    let infinity = match (addends.contains(&f.pos_inf()), addends.contains(&f.neg_inf())) {
        (true, true) => return ElementExpect::AnyNan,
        (true, false) => Some(f.pos_inf()),
        (false, true) => Some(f.neg_inf()),
        (false, false) => None,
    };
    if let Some(infinity) = infinity {
        // Added before the infinity in some order, the finite addends of the other sign
        // overflow to the other infinity when their magnitudes sum past the largest finite.
        let other_sign = !f.is_sign_negative(infinity);
        let other: Integer = addends
            .iter()
            .filter(|&&x| f.is_finite(x) && f.is_sign_negative(x) == other_sign)
            .map(|&x| units(f, x).abs())
            .sum();
        return if other > max_units {
            ElementExpect::InfinityOrNan(infinity)
        } else {
            ElementExpect::Bits(infinity)
        };
    }
    if addends.len() == 1 {
        return ElementExpect::Bits(addends[0]);
    }
    let bound = sum_bound(f, addends, false);
    if bound.abs_sum == 0 {
        let all_negative = addends.iter().all(|&x| f.is_sign_negative(x));
        return ElementExpect::Bits(if all_negative { f.neg_zero() } else { f.pos_zero() });
    }
    // Every partial sum is a multiple of 2^lowest_bit of magnitude at most Σ|x|: with fewer
    // than p significant bits above lowest_bit, and no overflow, every order is exact.
    let lowest_bit = addends.iter().filter_map(|&x| units(f, x).find_one(0)).min().unwrap_or(0);
    let exact_in_every_order = bound.abs_sum <= max_units
        && Integer::from(&bound.abs_sum >> lowest_bit).significant_bits() <= f.precision();
    if addends.len() == 2 || exact_in_every_order {
        return ElementExpect::Bits(bound.rounded);
    }
    ElementExpect::Bound(bound)
}

/// The exact sum of finite `addends` and its bound: for additions rounded to nearest, or in
/// any direction.
fn sum_bound(f: Format, addends: &[u64], any_rounding: bool) -> SumBound {
    let mut exact = Integer::new();
    let mut abs_sum = Integer::new();
    for &x in addends {
        let u = units(f, x);
        abs_sum += u.clone().abs();
        exact += u;
    }
    let rounded = if exact == 0 { f.pos_zero() } else { round_units(f, &exact) };
    SumBound {
        format: f,
        overflow_possible: abs_sum > units(f, f.max_finite()),
        exact,
        abs_sum,
        additions: addends.len() - 1,
        rounded,
        any_rounding,
    }
}

/// opspec's bar (the wrapping sum) and the document's must for one integer element: the same,
/// unless some order of the additions overflows the dtype (the document does not say what
/// that gives).
fn int_element(
    dtype: DType,
    input: u64,
    updates: impl Iterator<Item = u64>,
) -> (ElementExpect, ElementExpect) {
    let addends: Vec<u64> = std::iter::once(input).chain(updates).collect();
    let strict = ElementExpect::Bits(int_sum(dtype, &addends));
    let format = IntFormat::of(dtype);
    let value = |x: u64| format.map_or(i128::from(x), |f| f.value(x));
    let positive: i128 = addends.iter().map(|&x| value(x).max(0)).sum();
    let negative: i128 = addends.iter().map(|&x| value(x).min(0)).sum();
    let (min, max) = format.map_or((0, i128::from(u64::MAX)), |f| (f.min(), f.max()));
    let stated = if positive > max || negative < min { ElementExpect::Any } else { strict.clone() };
    (strict, stated)
}

/// The wrapping sum of integer addends.
fn int_sum(dtype: DType, addends: &[u64]) -> u64 {
    let sum = addends.iter().fold(0u64, |acc, &u| acc.wrapping_add(u));
    if dtype.size() == 8 { sum } else { sum & ((1u64 << (8 * dtype.size())) - 1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// opspec's bar for a float element.
    fn strict(f: Format, input: u64, updates: impl Iterator<Item = u64>) -> ElementExpect {
        float_element(f, input, updates).0
    }

    /// The document's must for a float element.
    fn stated(f: Format, input: u64, updates: impl Iterator<Item = u64>) -> ElementExpect {
        float_element(f, input, updates).1
    }

    fn policy(mode: ScatterMode) -> Policy {
        Policy { mode, wrap_negative: false, index_dtypes: vec![DType::I32, DType::I64] }
    }

    fn f32_problem(
        input: &[f32],
        shape: &[usize],
        indices: &[i64],
        depth: usize,
        updates: &[f32],
    ) -> Problem {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>();
        let vectors = indices.len() / depth.max(1);
        let slice: usize = shape[depth..].iter().product();
        let mut updates_shape = vec![vectors];
        updates_shape.extend_from_slice(&shape[depth..]);
        assert_eq!(updates.len(), vectors * slice);
        Problem {
            dtype: DType::F32,
            input_shape: shape.to_vec(),
            input: bits(input),
            index_dtype: DType::I32,
            index_shape: vec![vectors, depth],
            indices: indices.to_vec(),
            updates_dtype: DType::F32,
            updates_shape,
            updates: bits(updates),
        }
    }

    #[test]
    fn the_documents_example() {
        // input [[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]], indices [[0, 0], [0, 0]], updates [1.0, 2.2].
        let p = f32_problem(&[-0.1, 0.3, 3.6, 0.4, 0.5, -3.2], &[2, 3], &[0, 0, 0, 0], 2, &[1.0, 2.2]);
        let r = reference(&p, &policy(ScatterMode::Ignore)).unwrap();
        assert_eq!(r[0].updates, vec![0, 1]);
        let ElementExpect::Bound(b) = &r[0].expect else { panic!("{:?}", r[0].expect) };
        // Exact sum 3.1000000461935997...: rounds once to 0x40466667 (3.1000001); the
        // document's in-order sum (-0.1 + 1.0) + 2.2 hits a tie and gives 0x40466666 (3.1).
        assert_eq!(b.rounded, 0x4046_6667);
        let in_order = ((-0.1f32 + 1.0) + 2.2).to_bits() as u64;
        assert_eq!(in_order, 0x4046_6666);
        for ok in [0x4046_6665, 0x4046_6666, 0x4046_6667, 0x4046_6668] {
            assert!(r[0].expect.judge(DType::F32, ok).accepted, "{ok:x}");
        }
        for bad in [0x4046_6664, 0x4046_6669, 0x4046_6000] {
            assert!(!r[0].expect.judge(DType::F32, bad).accepted, "{bad:x}");
        }
        let ratio = r[0].expect.judge(DType::F32, 0x4046_6666).bound_ratio.unwrap();
        assert!(ratio > 0.3 && ratio < 0.4, "{ratio}");
        assert_eq!(r[1].expect, ElementExpect::Bits(0.3f32.to_bits() as u64));
    }

    #[test]
    fn exact_orders_and_single_additions_are_bits() {
        let p = f32_problem(&[1.0, 0.1], &[2], &[0, 0, 0, 1], 1, &[2.0, -0.5, 3.0, 0.2]);
        let r = reference(&p, &policy(ScatterMode::Ignore)).unwrap();
        assert_eq!(r[0].expect, ElementExpect::Bits(5.5f32.to_bits() as u64));
        assert_eq!(r[1].expect, ElementExpect::Bits((0.1f32 + 0.2f32).to_bits() as u64));
        // f16 65504 + 16 + 16: every partial sum is a multiple of 16 but 65536 overflows.
        let f = Format::F16;
        let e = strict(f, 0x7bff, [0x4c00u64, 0x4c00].into_iter());
        assert!(matches!(e, ElementExpect::Bound(SumBound { overflow_possible: true, .. })), "{e:?}");
        assert!(e.judge(DType::F16, f.pos_inf()).accepted);
    }

    #[test]
    fn signed_zeros_infinities_and_nans() {
        let f = Format::F32;
        let (pz, nz) = (f.pos_zero(), f.neg_zero());
        let one = f.one();
        assert_eq!(strict(f, nz, std::iter::empty()), ElementExpect::Bits(nz));
        assert_eq!(strict(f, nz, [nz, nz].into_iter()), ElementExpect::Bits(nz));
        assert_eq!(strict(f, nz, [pz].into_iter()), ElementExpect::Bits(pz));
        assert_eq!(strict(f, nz, [one, f.neg(one)].into_iter()), ElementExpect::Bits(pz));
        assert_eq!(strict(f, one, [f.pos_inf(), one].into_iter()), ElementExpect::Bits(f.pos_inf()));
        assert_eq!(strict(f, f.pos_inf(), [f.neg_inf()].into_iter()), ElementExpect::AnyNan);
        assert_eq!(strict(f, one, [0x7fc0_0001].into_iter()), ElementExpect::AnyNan);
        // -max - max overflows to -inf before +inf is added in some order: NaN as well.
        let max = f.max_finite();
        let (inf, nan) = (f.pos_inf(), f.quiet_nan());
        let e = strict(f, f.neg(max), [f.neg(max), inf].into_iter());
        assert_eq!(e, ElementExpect::InfinityOrNan(inf));
        assert!(e.judge(DType::F32, inf).accepted && e.judge(DType::F32, nan).accepted);
        assert!(!e.judge(DType::F32, f.neg_inf()).accepted && !e.judge(DType::F32, max).accepted);
        // Finite addends of the infinity's own sign, or too small to overflow: that infinity.
        assert_eq!(strict(f, max, [max, inf].into_iter()), ElementExpect::Bits(inf));
        assert_eq!(strict(f, f.neg(max), [inf].into_iter()), ElementExpect::Bits(inf));
        // A bound never accepts -0: it needs every addend to be -0.
        let third = 0x3eaa_aaab;
        let e = strict(f, third, [f.neg(third), third, f.neg(third)].into_iter());
        assert!(e.judge(DType::F32, pz).accepted && !e.judge(DType::F32, nz).accepted, "{e:?}");
    }

    /// A tiny deterministic generator for the property tests.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// MPFR sums rounded after every addition (in the given order, or pairwise).
    fn rounded_sum(f: Format, xs: &[u64], pairwise: bool) -> u64 {
        let add = |a: u64, b: u64| crate::oracle::add(f, a, b);
        if pairwise && xs.len() > 1 {
            let (l, r) = xs.split_at(xs.len() / 2);
            return add(rounded_sum(f, l, true), rounded_sum(f, r, true));
        }
        xs.iter().skip(1).fold(xs[0], |acc, &x| add(acc, x))
    }

    /// 3 to 16 addends of either sign within a few binades of 1.
    fn random_addends(f: Format, state: &mut u64) -> Vec<u64> {
        let n = 3 + (splitmix(state) % 14) as usize;
        (0..n)
            .map(|_| {
                let r = splitmix(state);
                let exp = f.bias() as u64 + (r >> 50) % 9 - 4;
                f.compose(r & 1 == 1, exp, r >> 8)
            })
            .collect()
    }

    #[test]
    fn every_summation_order_is_inside_the_bound() {
        let mut state = 7;
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            for _ in 0..400 {
                let xs = random_addends(f, &mut state);
                let e = strict(f, xs[0], xs[1..].iter().copied());
                let mut reversed = xs.clone();
                reversed.reverse();
                for (name, r) in [
                    ("in order", rounded_sum(f, &xs, false)),
                    ("reversed", rounded_sum(f, &reversed, false)),
                    ("pairwise", rounded_sum(f, &xs, true)),
                ] {
                    let v = e.judge(dtype_of(f), r);
                    assert!(v.accepted, "{} {name}: {xs:x?} gave {r:x}, {}", f.name, e.describe(dtype_of(f)));
                }
            }
        }
    }

    /// `a + b` rounded up or down, where the exact sum is finite and not a zero.
    fn directed_sum(f: Format, a: u64, b: u64, up: bool) -> u64 {
        let exact = units(f, a) + units(f, b);
        let r = crate::oracle::add(f, a, b);
        let below = units(f, r) < exact;
        let above = units(f, r) > exact;
        // Bits step away from zero for a positive value, toward zero for a negative one.
        let away = |r: u64| if f.is_sign_negative(r) { r - 1 } else { r + 1 };
        let toward = |r: u64| if f.is_sign_negative(r) { r + 1 } else { r - 1 };
        match (up, below, above) {
            (true, true, _) if f.is_sign_negative(r) => toward(r),
            (true, true, _) => away(r),
            (false, _, true) if f.is_sign_negative(r) => away(r),
            (false, _, true) => toward(r),
            _ => r,
        }
    }

    #[test]
    fn any_order_in_any_rounding_direction_meets_the_documents_words() {
        let mut state = 11;
        let mut outside_opspec_bar = 0;
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            for _ in 0..400 {
                let xs = random_addends(f, &mut state);
                let (strict, stated) = float_element(f, xs[0], xs[1..].iter().copied());
                for up in [true, false] {
                    let r = xs.iter().skip(1).fold(xs[0], |acc, &x| directed_sum(f, acc, x, up));
                    let dtype = dtype_of(f);
                    assert!(stated.judge(dtype, r).accepted, "{} {xs:x?} gave {r:x}", f.name);
                    outside_opspec_bar += usize::from(!strict.judge(dtype, r).accepted);
                }
            }
        }
        // Rounding every addition one way drifts past the round-to-nearest bound.
        assert!(outside_opspec_bar > 0);
    }

    #[test]
    fn the_documents_words_leave_zero_signs_nan_and_infinities_open() {
        let f = Format::F32;
        let (pz, nz, one) = (f.pos_zero(), f.neg_zero(), f.one());
        let (inf, nan) = (f.pos_inf(), f.quiet_nan());
        // Untouched elements keep their value; a zero its sign only at opspec's bar.
        assert_eq!(stated(f, nz, std::iter::empty()), ElementExpect::Zero);
        assert_eq!(stated(f, one, std::iter::empty()), ElementExpect::Bits(one));
        assert_eq!(stated(f, nan, std::iter::empty()), ElementExpect::AnyNan);
        assert_eq!(stated(f, nz, [nz, nz].into_iter()), ElementExpect::Zero);
        assert_eq!(stated(f, one, [f.neg(one)].into_iter()), ElementExpect::Zero);
        for updates in [[nan, one], [inf, one], [inf, f.neg_inf()]] {
            assert_eq!(stated(f, one, updates.into_iter()), ElementExpect::Any);
        }
        // One addition: either neighbour of the exact sum, not farther.
        let e = stated(f, one, [0x3380_0001].into_iter());
        assert!(matches!(e, ElementExpect::Bound(SumBound { any_rounding: true, .. })), "{e:?}");
        assert!(e.judge(DType::F32, one).accepted && e.judge(DType::F32, one + 1).accepted);
        assert!(!e.judge(DType::F32, one + 3).accepted && !e.judge(DType::F32, pz).accepted);
        // A sum every order gives exactly stays exact bits.
        assert_eq!(stated(f, one, [one, one].into_iter()), ElementExpect::Bits(0x4040_0000));
    }

    fn dtype_of(f: Format) -> DType {
        [DType::F16, DType::BF16, DType::F32, DType::F64]
            .into_iter()
            .find(|&d| Format::of(d) == Some(f))
            .unwrap()
    }

    #[test]
    fn integers_wrap() {
        let p = Problem {
            dtype: DType::I8,
            input_shape: vec![2],
            input: vec![100, 0xff],
            index_dtype: DType::I64,
            index_shape: vec![3, 1],
            indices: vec![0, 0, 1],
            updates_dtype: DType::I8,
            updates_shape: vec![3],
            updates: vec![100, 100, 0xfe],
        };
        let r = reference(&p, &policy(ScatterMode::Ignore)).unwrap();
        // 100 + 100 + 100 = 300 = 44 (mod 256); -1 + -2 = -3.
        assert_eq!(r[0].expect, ElementExpect::Bits(44));
        assert_eq!(r[1].expect, ElementExpect::Bits(0xfd));
        assert_eq!(describe_value(DType::I8, 0xfd), "-3 (0xfd)");
        // The document does not say what an overflowing sum gives; -3 cannot overflow.
        assert_eq!(r[0].stated, ElementExpect::Any);
        assert_eq!(r[1].stated, ElementExpect::Bits(0xfd));
    }

    #[test]
    fn modes_and_negative_indices() {
        let p = f32_problem(
            &[0.0; 6],
            &[2, 3],
            &[0, 1, 2, 0, 1, 3, -1, 0, 1, 2],
            2,
            &[10.0, 20.0, 30.0, 40.0, 50.0],
        );
        let value = |r: &[ElementRef]| -> Vec<f32> {
            r.iter()
                .map(|e| match e.expect {
                    ElementExpect::Bits(b) => f32::from_bits(b as u32),
                    _ => f32::NAN,
                })
                .collect()
        };
        let ignore = reference(&p, &policy(ScatterMode::Ignore)).unwrap();
        assert_eq!(value(&ignore), [0.0, 10.0, 0.0, 0.0, 0.0, 50.0]);
        let clip = reference(&p, &policy(ScatterMode::Clip)).unwrap();
        assert_eq!(value(&clip), [40.0, 10.0, 0.0, 20.0, 0.0, 80.0]);
        let err = reference(&p, &policy(ScatterMode::Error)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutOfRange);
        let wrap = Policy { wrap_negative: true, ..policy(ScatterMode::Ignore) };
        assert_eq!(value(&reference(&p, &wrap).unwrap()), [0.0, 10.0, 0.0, 40.0, 0.0, 50.0]);
    }

    #[test]
    fn operand_errors() {
        let good = f32_problem(&[0.0; 6], &[2, 3], &[0, 0], 2, &[1.0]);
        let kind = |p: &Problem| reference(p, &policy(ScatterMode::Ignore)).unwrap_err().kind;
        assert_eq!(kind(&Problem { index_dtype: DType::F32, ..good.clone() }), ErrorKind::IndexDType);
        assert_eq!(kind(&Problem { index_shape: vec![2], ..good.clone() }), ErrorKind::Rank);
        assert_eq!(
            kind(&Problem { index_shape: vec![1, 3], indices: vec![0; 3], ..good.clone() }),
            ErrorKind::Rank
        );
        assert_eq!(kind(&Problem { updates_shape: vec![1, 1], ..good.clone() }), ErrorKind::ShapeMismatch);
        assert_eq!(kind(&Problem { updates_dtype: DType::F64, ..good.clone() }), ErrorKind::DTypeMismatch);
        // Depth 1 adds whole rows.
        let rows = f32_problem(&[0.0; 6], &[2, 3], &[1], 1, &[1.0, 2.0, 3.0]);
        let r = reference(&rows, &policy(ScatterMode::Ignore)).unwrap();
        assert_eq!(r[3].updates, vec![0]);
        assert_eq!(r[5].updates, vec![2]);
    }

    #[test]
    fn parsing_values() {
        assert_eq!(parse_value(DType::F32, "-0.1"), Ok((-0.1f32).to_bits() as u64));
        assert_eq!(parse_value(DType::F32, "3.1"), Ok(0x4046_6666));
        assert_eq!(parse_value(DType::F16, "-0"), Ok(0x8000));
        assert_eq!(parse_value(DType::F16, "1e5"), Ok(0x7c00));
        assert_eq!(parse_value(DType::BF16, "-inf"), Ok(0xff80));
        assert_eq!(parse_value(DType::F64, "2.2"), Ok(2.2f64.to_bits()));
        assert_eq!(parse_value(DType::I16, "-2"), Ok(0xfffe));
        assert!(parse_value(DType::U8, "-1").is_err());
        assert!(parse_value(DType::I32, "1.5").is_err());
        assert!(parse_value(DType::F32, "0x1p3").is_err());
        assert!(parse_value(DType::F32, "@nan@").is_err());
    }
}
