//! The two readings of float floor division that the array API allows besides the exact
//! quotient's floor ([`super::exact::floor_divide`]): `floor(divide(x1, x2))`, which its page
//! prefers, and Python's `//`, which it allows. Both are computed here from the operands with
//! MPFR, each step rounded as the reading prescribes, independently of any kernel.

use rug::Float;

use super::arith::{divide, evaluate};
use super::rounding::{decode, round_exact};
use crate::bits::format::Format;

/// `floor(divide(x1, x2))`: the quotient rounded to nearest even in the format, then floored.
pub fn floor_of_divide(f: Format, a: u64, b: u64) -> u64 {
    round_exact(f, &decode(f, divide(f, a, b)).floor())
}

/// Python's `x1 // x2` for floats, as CPython's `float_floor_div` computes it in the format's
/// arithmetic (`_float_div_mod`): `div = (x1 - fmod(x1, x2)) / x2`, less one when the
/// remainder's sign differs from `x2`'s, then floored and raised by one when `div` is more than
/// one half above its floor; a zero takes the quotient's sign. Every step is rounded to nearest
/// even in the format, as C's double arithmetic is.
pub fn python_floor_divide(f: Format, a: u64, b: u64) -> u64 {
    let (x, y) = (decode(f, a), decode(f, b));
    let at = |value: Float| decode(f, round_exact(f, &value));
    let rem = Float::with_val(f.precision(), &x % &y);
    let mut div = at(Float::with_val(f.precision(), &x - &rem) / &y);
    if !rem.is_zero() && rem.is_sign_negative() != y.is_sign_negative() {
        div = at(div - 1u32);
    }
    if div.is_zero() {
        let negative = x.is_sign_negative() != y.is_sign_negative();
        return if negative { f.neg_zero() } else { f.pos_zero() };
    }
    let floor = Float::with_val(f.precision(), div.floor_ref());
    let above = at(Float::with_val(f.precision(), &div - &floor));
    if above > 0.5 { evaluate(f, &floor + 1u32) } else { round_exact(f, &floor) }
}

/// The values a reading of floor division gives for `a // b` in format `f`: computed in the
/// format and, for a 16-bit format, also in f32 and rounded once to the format (as NumPy's
/// `npy_half_divmod` and PyTorch's half-precision kernels compute it).
pub fn in_widths(reading: fn(Format, u64, u64) -> u64, f: Format, a: u64, b: u64) -> Vec<u64> {
    let mut values = vec![reading(f, a, b)];
    if f.bits == 16 {
        let wide = |x: u64| round_exact(Format::F32, &decode(f, x));
        let value = round_exact(f, &decode(Format::F32, reading(Format::F32, wide(a), wide(b))));
        if value != values[0] {
            values.push(value);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    const F64: Format = Format::F64;
    const F16: Format = Format::F16;

    /// `reading(a, b)` in f64, as an f64.
    fn at64(reading: fn(Format, u64, u64) -> u64, a: f64, b: f64) -> f64 {
        f64::from_bits(reading(F64, a.to_bits(), b.to_bits()))
    }

    /// The three readings disagree (docs/AUTHORITY.md, 3.1); the Python values are CPython's.
    #[test]
    fn the_readings_differ_where_the_page_says() {
        assert_eq!(at64(floor_of_divide, 1.0, 0.1), 10.0, "1 / 0.1 rounds to 10");
        assert_eq!(at64(python_floor_divide, 1.0, 0.1), 9.0, "CPython: 1 // 0.1 == 9.0");
        assert_eq!(at64(floor_of_divide, -1e-320, 1e10).to_bits(), (-0.0f64).to_bits());
        assert_eq!(at64(python_floor_divide, -1e-320, 1e10), -1.0);
        let (x, y) = (1.0481072567994934e21, 4.6436129097252085e-06);
        assert_eq!(at64(python_floor_divide, x, y), 2.2570943727984347e26);
        assert_eq!(at64(floor_of_divide, x, y), 2.2570943727984347e26);
    }

    #[test]
    fn python_floor_division_follows_cpython() {
        // Values from CPython 3: 7.0 // 2.0, -7.0 // 2.0, 7.5 // -2.0, 1e308 // 1e-308, 0.5 // 3.
        assert_eq!(at64(python_floor_divide, 7.0, 2.0), 3.0);
        assert_eq!(at64(python_floor_divide, -7.0, 2.0), -4.0);
        assert_eq!(at64(python_floor_divide, 7.5, -2.0), -4.0);
        assert_eq!(at64(python_floor_divide, 1e308, 1e-308), f64::INFINITY);
        assert_eq!(at64(python_floor_divide, 0.5, 3.0).to_bits(), 0, "+0");
        assert_eq!(at64(python_floor_divide, -0.5, -3.0).to_bits(), 0, "+0");
        assert_eq!(at64(python_floor_divide, 0.5, -3.0), -1.0);
    }

    #[test]
    fn a_16_bit_reading_also_counts_in_f32() {
        let h = |v: f64| F16.from_f64_exact(v).unwrap();
        assert_eq!(in_widths(floor_of_divide, F16, h(7.0), h(2.0)), vec![h(3.0)]);
        // 2048 / (1 - 2^-11) = 2049.0005: f16 divide rounds it to 2050, whose floor is 2050;
        // f32 keeps 2049.0005, floors it to 2049, a tie that rounds to 2048 in f16.
        let values = in_widths(floor_of_divide, F16, h(2048.0), h(1.0 - 2f64.powi(-11)));
        assert_eq!(values, vec![h(2050.0), h(2048.0)]);
    }
}
