//! The accuracy of an approximate function's results over the inputs a check judged: the
//! largest error in fractional ULPs against the exact value, the input where it occurs, and
//! how many results fall in each bucket of [`ULP_BUCKETS`] (what the report's accuracy table
//! shows per adapter, function and dtype).

/// Upper edges, in ULPs, of the buckets of a check's ULP histogram: at most 0.5 (correctly
/// rounded), at most 1, 2, 4, …; the last bucket takes every larger error.
pub const ULP_BUCKETS: [f64; 10] = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 256.0, 1024.0, f64::INFINITY];

use opspec_adapter::OpKind;
use serde::{Deserialize, Serialize};

use crate::bits::format::Format;
use crate::oracle::{fast, high_precision, ulp_error, ulp_error_f64};

/// Errors measured so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UlpTally {
    /// Results measured per bucket (empty until the first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    histogram: Vec<u64>,
    /// The largest error, with its operands' and result's bits (the first input that had it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    worst: Option<(f64, Vec<u64>, u64)>,
}

impl UlpTally {
    /// Counts `error`, the error of result `actual` on operands `inputs`.
    pub fn add(&mut self, error: f64, inputs: &[u64], actual: u64) {
        if self.histogram.is_empty() {
            self.histogram = vec![0; ULP_BUCKETS.len()];
        }
        let bucket = ULP_BUCKETS.iter().position(|&edge| error <= edge).unwrap_or(ULP_BUCKETS.len() - 1);
        self.histogram[bucket] += 1;
        if self.worst.as_ref().is_none_or(|(e, _, _)| error > *e) {
            self.worst = Some((error, inputs.to_vec(), actual));
        }
    }

    /// Counts `n` results known to be correctly rounded (at most half an ULP off) without
    /// measuring each: they change no maximum above 0.5.
    pub fn add_correctly_rounded(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        if self.histogram.is_empty() {
            self.histogram = vec![0; ULP_BUCKETS.len()];
        }
        self.histogram[0] += n;
    }

    /// Adds `other`'s counts; of two equal maxima the earlier (`self`'s) input stays.
    pub fn merge(&mut self, other: UlpTally) {
        if other.histogram.is_empty() {
            return;
        }
        if self.histogram.is_empty() {
            self.histogram = vec![0; ULP_BUCKETS.len()];
        }
        self.histogram.iter_mut().zip(&other.histogram).for_each(|(a, b)| *a += b);
        if let Some((e, inputs, actual)) = other.worst
            && self.worst.as_ref().is_none_or(|(mine, _, _)| e > *mine)
        {
            self.worst = Some((e, inputs, actual));
        }
    }

    /// What is wrong with a tally read from a file for `cases` cases of `arity` operands
    /// (where known): a histogram of the wrong size or counting more than the cases, or a
    /// largest error with another number of operands, or one that is no error.
    pub fn contradiction(&self, cases: u64, arity: Option<usize>) -> Option<String> {
        if self.histogram.is_empty() {
            return self.worst.is_some().then(|| "a largest ULP error without a histogram".to_string());
        }
        if self.histogram.len() != ULP_BUCKETS.len() {
            return Some(format!(
                "a ULP histogram of {} buckets, not {}",
                self.histogram.len(),
                ULP_BUCKETS.len()
            ));
        }
        match self.histogram.iter().try_fold(0u64, |sum, &n| sum.checked_add(n)) {
            Some(sum) if sum <= cases => {}
            _ => return Some(format!("a ULP histogram counting more than its {cases} cases")),
        }
        match &self.worst {
            Some((_, inputs, _)) if arity.is_some_and(|a| a != inputs.len()) => {
                Some(format!("a largest ULP error at {} operands, not {}", inputs.len(), arity.unwrap_or(0)))
            }
            Some((e, _, _)) if e.is_nan() || *e < 0.0 => Some(format!("a largest ULP error of {e}")),
            _ => None,
        }
    }

    /// Whether no result was counted.
    pub fn is_empty(&self) -> bool {
        self.histogram.is_empty()
    }

    /// Results measured per bucket of [`ULP_BUCKETS`], or `None` where none was.
    pub fn histogram(&self) -> Option<&[u64]> {
        (!self.histogram.is_empty()).then_some(self.histogram.as_slice())
    }

    /// The largest error measured, with the operands and the result where it first occurred
    /// (`None` where every result was counted as correctly rounded without measuring).
    pub fn worst(&self) -> Option<(f64, &[u64], u64)> {
        self.worst.as_ref().map(|(e, inputs, actual)| (*e, inputs.as_slice(), *actual))
    }
}

/// The error of `actual`, a finite result of `op` on `inputs` in `f`, against the exact value:
/// the fast reference's f64 value where it has one, else MPFR's; `None` where the exact value
/// is not finite.
pub fn ulp_error_of(op: OpKind, f: Format, inputs: &[u64], actual: u64) -> Option<f64> {
    if let Some(value) = fast::value(op, f, inputs) {
        return Some(ulp_error_f64(f, actual, value));
    }
    let exact = high_precision(op, f, inputs)?;
    exact.is_finite().then(|| ulp_error(f, actual, &exact))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_error_and_its_first_input_are_kept() {
        let mut t = UlpTally::default();
        t.add(0.3, &[1], 10);
        t.add(2.5, &[2], 20);
        t.add(2.5, &[3], 30);
        let mut other = UlpTally::default();
        other.add(2.5, &[4], 40);
        other.add_correctly_rounded(5);
        t.merge(other);
        assert_eq!(t.worst(), Some((2.5, &[2u64][..], 20)));
        assert_eq!(t.histogram().unwrap()[..4], [6, 0, 0, 3]);
        let mut rounded = UlpTally::default();
        rounded.add_correctly_rounded(3);
        assert_eq!((rounded.worst(), rounded.histogram().map(|h| h[0])), (None, Some(3)));
        assert_eq!(UlpTally::default().histogram(), None);
    }
}
