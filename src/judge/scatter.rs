//! Judging scatter-add results: each output element against its reference (exact bits, any
//! NaN, a zero of either sign, any value, or the summation bound of an order-dependent sum of
//! duplicates).

use opspec_adapter::DType;
use rug::{Integer, Rational};

use crate::bits::format::Format;
use crate::oracle::scatter::{ElementExpect, SumBound, units};

/// The judgement of one actual element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterVerdict {
    /// Whether the contract allows the value.
    pub accepted: bool,
    /// `|r - S| / (γ(k)·Σ|xᵢ|)` for a finite `r` under a bound: at most 1 inside the bound.
    pub bound_ratio: Option<f64>,
}

impl ElementExpect {
    /// Judges `actual` (bits) in `dtype`.
    pub fn judge(&self, dtype: DType, actual: u64) -> ScatterVerdict {
        let plain = |accepted| ScatterVerdict { accepted, bound_ratio: None };
        match self {
            ElementExpect::Bits(b) => plain(*b == actual),
            ElementExpect::AnyNan => plain(Format::of(dtype).is_some_and(|f| f.is_nan(actual))),
            ElementExpect::InfinityOrNan(b) => {
                plain(*b == actual || Format::of(dtype).is_some_and(|f| f.is_nan(actual)))
            }
            ElementExpect::Bound(bound) => bound.judge(actual),
            ElementExpect::Zero => plain(Format::of(dtype).is_some_and(|f| f.is_zero(actual))),
            ElementExpect::Any => plain(true),
        }
    }
}

impl SumBound {
    /// Whether `actual` is within the bound of an order-dependent sum.
    fn judge(&self, actual: u64) -> ScatterVerdict {
        let f = self.format;
        if !f.is_finite(actual) {
            return ScatterVerdict { accepted: self.overflow_possible, bound_ratio: None };
        }
        if f.is_zero(actual) && f.is_sign_negative(actual) && !self.any_rounding {
            // Rounded to nearest, -0 needs every addend to be -0, and then the expectation is
            // exact bits; rounded toward -inf, an exact cancellation gives -0.
            return ScatterVerdict { accepted: false, bound_ratio: None };
        }
        let k = self.additions as u64;
        let two_p = self.inverse_unit();
        if two_p <= k {
            // k·u >= 1: γ(k) is unbounded, every finite value is allowed.
            return ScatterVerdict { accepted: true, bound_ratio: None };
        }
        let lhs = (units(f, actual) - &self.exact).abs() * (two_p - k);
        let rhs = Integer::from(&self.abs_sum * k);
        let ratio = if rhs == 0 {
            if lhs == 0 { 0.0 } else { f64::INFINITY }
        } else {
            Rational::from((lhs.clone(), rhs.clone())).to_f64()
        };
        ScatterVerdict { accepted: lhs <= rhs, bound_ratio: Some(ratio) }
    }
}
