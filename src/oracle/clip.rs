//! `clip(x, min, max)`: `x` clamped to `[min, max]`, decided by exact comparisons of the
//! decoded values (no arithmetic, so no rounding).
//!
//! The array API standard fixes the NaN cases and leaves `min_i > max_i` unspecified; the
//! table says so (a row whose result is `unspecified`), so the value given here for crossed
//! bounds is only the oracle's choice, which no check holds an adapter to.

use std::cmp::Ordering;

use super::exact::compare;
use crate::bits::format::Format;

/// `x` clamped to `[lo, hi]`: a NaN operand gives the quiet NaN; below `lo` gives `lo`, above
/// `hi` gives `hi`, and otherwise `x` itself, bit for bit (so a zero `x` at a zero bound keeps
/// its own sign). With `lo > hi`, `hi` (as `minimum(maximum(x, lo), hi)` gives).
pub fn clip(f: Format, x: u64, lo: u64, hi: u64) -> u64 {
    if [x, lo, hi].iter().any(|&v| f.is_nan(v)) {
        return f.quiet_nan();
    }
    if compare(f, lo, hi) == Some(Ordering::Greater) {
        return hi;
    }
    match (compare(f, x, lo), compare(f, x, hi)) {
        (Some(Ordering::Less), _) => lo,
        (_, Some(Ordering::Greater)) => hi,
        _ => x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Format = Format::F32;

    fn bits(v: f32) -> u64 {
        u64::from(v.to_bits())
    }

    #[test]
    fn hand_checked_values() {
        let c = |x: f32, lo: f32, hi: f32| clip(F32, bits(x), bits(lo), bits(hi));
        assert_eq!(c(5.0, 1.0, 3.0), bits(3.0));
        assert_eq!(c(-5.0, 1.0, 3.0), bits(1.0));
        assert_eq!(c(2.5, 1.0, 3.0), bits(2.5));
        assert_eq!(c(-0.0, 0.0, 1.0), 0x8000_0000, "-0 is not below +0: x itself");
        assert_eq!(c(f32::INFINITY, f32::NEG_INFINITY, f32::INFINITY), F32.pos_inf());
        assert_eq!(c(1e30, f32::NEG_INFINITY, 7.0), bits(7.0));
        assert_eq!(c(0.5, 3.0, 1.0), bits(1.0), "crossed bounds: the upper one");
        assert!(F32.is_nan(c(f32::NAN, 1.0, 3.0)));
        assert!(F32.is_nan(c(2.0, f32::NAN, 3.0)));
        assert!(F32.is_nan(c(2.0, 1.0, f32::NAN)));
        // f16: 0x3c00 is 1, 0x4000 is 2, 0x4200 is 3.
        assert_eq!(clip(Format::F16, 0x4200, 0x3c00, 0x4000), 0x4000);
    }
}
