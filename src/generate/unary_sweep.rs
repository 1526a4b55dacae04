//! The inputs of a one-operand table's `edges` check: every value of a 16-bit format (all
//! 2^16 bit patterns of f16 and bf16, through [`Sweep::exhaustive`]), and for f32 and f64 the
//! dense grid of [`Sweep::grid`] together with the format's edge values. A unary function is
//! cheap enough that the default run and the default test run afford this; the binary
//! tables keep their edge pairs here (their sweeps are `opspec run --exhaustive`).

use std::sync::OnceLock;

use super::sweep::once_per_format;
use super::{Cases, Sweep, edge_values};
use crate::bits::format::Format;

/// Every input of the sweep, one operand each, in ascending bit order without repeats.
pub fn inputs(f: Format) -> Cases {
    values(f).into_iter().map(|x| vec![x]).collect()
}

/// How many inputs [`inputs`] makes (counted once per format).
pub fn count(f: Format) -> usize {
    static COUNTS: OnceLock<[(Format, usize); 4]> = OnceLock::new();
    once_per_format(&COUNTS, f, |f| values(f).len())
}

fn values(f: Format) -> Vec<u64> {
    let sweep = Sweep::exhaustive(f, 1).unwrap_or_else(|| Sweep::grid(f, 1));
    let mut values: Vec<u64> = (0..sweep.len()).map(|i| sweep.operand(i, 0)).collect();
    if f.bits != 16 {
        values.extend(edge_values(f));
        values.sort_unstable();
        values.dedup();
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bit_formats_give_every_value_once() {
        for f in [Format::F16, Format::BF16] {
            let cases = inputs(f);
            assert_eq!((cases.len(), count(f)), (1 << 16, 1 << 16));
            assert!(cases.iter().enumerate().all(|(i, c)| c == &[i as u64]), "{}", f.name);
        }
    }

    #[test]
    fn wide_formats_give_the_grid_and_every_edge() {
        for f in [Format::F32, Format::F64] {
            let cases = inputs(f);
            assert_eq!(cases.len(), count(f));
            assert!(cases.len() > 1000, "{}: {}", f.name, cases.len());
            for e in edge_values(f) {
                assert!(cases.contains(&vec![e]), "{}: edge {e:#x} missing", f.name);
            }
            for g in [f.min_subnormal(), f.max_subnormal(), f.one(), f.neg(f.one())] {
                assert!(cases.contains(&vec![g]), "{}: {g:#x} missing", f.name);
            }
            assert!(cases.windows(2).all(|w| w[0] < w[1]), "{}: sorted without repeats", f.name);
        }
    }
}
