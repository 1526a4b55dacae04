//! Hard inputs of a function the fast reference computes: where an implementation (or a
//! reference) most often misses the correctly rounded result. Used by the `hard` checks of
//! `run --exhaustive` (pow, atan2 and hypot in f32: `docs/SCALE.md`, "Hard cases") and by
//! `opspec oracle-agreement`.
//!
//! A case is one of four kinds, a quarter each:
//! - the function's own hard region ([`region`]): for pow, a base within 2^12 steps of 1 (in
//!   f32; 2^(m/2 + 1) steps for m fraction bits) and an exponent of magnitude 1 to 2^(p+1),
//!   half of them integers (results across the whole range, overflow and underflow included,
//!   and the exact powers); for atan2, operands whose exponents differ by at most 2p + 8 (the
//!   quotient near 1, tiny or huge); for hypot, by at most p + 3 (where the smaller operand
//!   still counts), at any magnitude, subnormals and the top binades included; other
//!   functions draw uniform bit patterns;
//! - operands of small or large magnitude ([`far_from_one`]: argument reduction, overflow,
//!   underflow, and functions nearly the identity or 1);
//! - of 32 uniform candidates, the one whose exact value lies nearest a rounding boundary of
//!   the format (a midpoint between two of its values);
//! - of 32 candidates from the function's region, the one nearest a boundary.

use opspec_adapter::{BinaryOp, OpKind};

use crate::bits::format::Format;
use crate::generate::{Cases, Generator};
use crate::oracle::fast;

/// Inputs per `hard` check: 2^20.
pub const HARD_CASES: usize = 1 << 20;

/// `n` seeded hard inputs of `op` in `f`.
pub fn hard_cases(op: OpKind, f: Format, n: usize, g: &mut Generator) -> Cases {
    (0..n).map(|_| case(g, op, f)).collect()
}

/// One hard input of `op` in `f` (the module documentation lists the kinds).
pub fn case(g: &mut Generator, op: OpKind, f: Format) -> Vec<u64> {
    match g.bits() % 4 {
        0 => region(g, op, f),
        1 => (0..op.arity()).map(|_| far_from_one(g, f)).collect(),
        2 => nearest_boundary(op, f, (0..32).map(|_| uniform(g, op, f)).collect()),
        _ => nearest_boundary(op, f, (0..32).map(|_| region(g, op, f)).collect()),
    }
}

fn uniform(g: &mut Generator, op: OpKind, f: Format) -> Vec<u64> {
    (0..op.arity()).map(|_| g.bits() & f.all_mask()).collect()
}

/// A value of magnitude 2^-(b-20) to 1 (f32: 2^-107 to 1; f16, whose bias b is 15: down to
/// its subnormals) or 2^20 to 2^28 (at most the format's largest binade), each binade as
/// likely, with a random sign and significand.
fn far_from_one(g: &mut Generator, f: Format) -> u64 {
    let bias = f.bias() as u64;
    let bits = g.bits();
    let offset = 1 + bits % if bias > 20 { bias - 20 } else { bias };
    let e = if bits >> 40 & 1 == 0 { bias - offset } else { bias + 20 + offset % 8 };
    f.compose(bits >> 63 == 1, e.min(top_exponent(f)), g.bits())
}

/// The largest biased exponent of a finite value.
fn top_exponent(f: Format) -> u64 {
    (1 << f.exp_bits) - 2
}

/// A case from `op`'s own hard region (uniform bit patterns for a function without one).
fn region(g: &mut Generator, op: OpKind, f: Format) -> Vec<u64> {
    let p = i64::from(f.precision());
    let (bias, top) = (i64::from(f.bias()), top_exponent(f) as i64);
    let at = |g: &mut Generator, e: i64| f.compose(g.coin(), e.clamp(0, top) as u64, g.bits());
    match op {
        OpKind::Binary(BinaryOp::Pow) | OpKind::BinaryInto(BinaryOp::Pow) => {
            let one = f.compose(false, bias as u64, 0);
            let steps = 1 + g.bits() % (1 << (f.frac_bits / 2 + 1));
            let base = if g.coin() { one + steps } else { one - steps };
            let e = bias + g.inclusive_i64(0, p);
            let mut exponent = at(g, e);
            if g.coin() {
                // An integer: the fraction bits below the binary point cleared.
                let fraction_bits = (p - 1 - (e - bias)).max(0);
                exponent &= !((1u64 << fraction_bits) - 1);
            }
            vec![base, exponent]
        }
        OpKind::Binary(b @ (BinaryOp::Atan2 | BinaryOp::Hypot))
        | OpKind::BinaryInto(b @ (BinaryOp::Atan2 | BinaryOp::Hypot)) => {
            let span = if b == BinaryOp::Atan2 { 2 * p + 8 } else { p + 3 };
            let e1 = g.inclusive_i64(0, top);
            let e2 = e1 + g.inclusive_i64(-span, span);
            vec![at(g, e1), at(g, e2)]
        }
        _ => uniform(g, op, f),
    }
}

/// Of `candidates`, the one whose exact value ([`fast::value`]) lies nearest a rounding
/// boundary of `f` (the first where none has a value).
fn nearest_boundary(op: OpKind, f: Format, candidates: Vec<Vec<u64>>) -> Vec<u64> {
    let distance = |case: &Vec<u64>| fast::value(op, f, case).map_or(u64::MAX, |v| boundary_distance(f, v));
    candidates.into_iter().min_by_key(distance).expect("at least one candidate")
}

/// How far `v` lies from the nearest rounding boundary of `f` (a midpoint between two of its
/// values), in units of f64's last place at `v`'s exponent: the bits of `v` below `f`'s
/// precision, against the half.
pub fn boundary_distance(f: Format, v: f64) -> u64 {
    let below = 52 - f.frac_bits;
    let rest = v.to_bits() & ((1 << below) - 1);
    rest.abs_diff(1 << (below - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::native::to_f64;

    /// Small and large magnitudes lie in their ranges in each float format, f16's (whose bias
    /// is below 20) included.
    #[test]
    fn values_far_from_one_lie_in_their_ranges() {
        let mut g = Generator::new(7, "far");
        for f in [Format::F16, Format::BF16, Format::F32] {
            let large = 2f64.powi(20.min(f.bias()));
            for _ in 0..2_000 {
                let x = to_f64(f, far_from_one(&mut g, f)).abs();
                assert!(x < 1.0 || (large..2f64.powi(28)).contains(&x), "{}: {x}", f.name);
            }
        }
    }

    /// The hard cases of pow, atan2 and hypot in f32 lie nearer the rounding boundaries than
    /// uniform ones, and each region holds what it says.
    #[test]
    fn hard_cases_lie_near_rounding_boundaries_and_in_their_regions() {
        let f = Format::F32;
        for op in [BinaryOp::Pow, BinaryOp::Atan2, BinaryOp::Hypot].map(OpKind::Binary) {
            let mut g = Generator::new(5, "hard");
            // The share of results within 1/32 of the half step from a midpoint: at most 1/32
            // of uniform cases (fewer where results are exact), many more of the hard ones.
            let near = |cases: &Cases| {
                let close = |v: f64| boundary_distance(f, v) < 1 << (52 - f.frac_bits - 6);
                let values = cases.iter().filter_map(|c| fast::value(op, f, c).filter(|v| v.is_normal()));
                let (n, hits) = values.fold((0, 0), |(n, hits), v| (n + 1, hits + usize::from(close(v))));
                hits as f64 / n as f64
            };
            let hard = hard_cases(op, f, 4_000, &mut g);
            let uniform: Cases = (0..4_000).map(|_| uniform(&mut g, op, f)).collect();
            assert!(
                near(&hard) > 0.1 && near(&hard) > 8.0 * near(&uniform),
                "{op}: {} vs {}",
                near(&hard),
                near(&uniform)
            );
            for _ in 0..1_000 {
                let c = region(&mut g, op, f);
                let (x, y) = (to_f64(f, c[0]), to_f64(f, c[1]));
                if op == OpKind::Binary(BinaryOp::Pow) {
                    assert!((x - 1.0).abs() <= 4096.0 * f32::EPSILON as f64, "{x}");
                    assert!((1.0..=2f64.powi(25)).contains(&y.abs()), "{y}");
                } else if x != 0.0 && y != 0.0 {
                    let apart = (x.abs().log2() - y.abs().log2()).abs();
                    assert!(apart <= 2.0 * 24.0 + 9.0 || x.abs() < 1e-37 || y.abs() < 1e-37, "{x} {y}");
                }
            }
        }
    }
}
