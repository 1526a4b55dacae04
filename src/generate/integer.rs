//! Integer operands: the edges of a width and a random mix weighted towards them.

use super::Generator;
use crate::bits::value::IntFormat;

/// Zero, one and two with their negations, the extremes and their neighbours, halves.
pub fn int_edge_values(int: IntFormat) -> Vec<u64> {
    let candidates = [
        0,
        1,
        2,
        3,
        7,
        -1,
        -2,
        -3,
        -7,
        int.max(),
        int.max() - 1,
        int.max() / 2,
        int.min(),
        int.min() + 1,
        int.min() / 2,
    ];
    let mut values: Vec<u64> =
        candidates.iter().filter(|&&v| int.contains(v)).map(|&v| int.wrap(v)).collect();
    values.sort();
    values.dedup();
    values
}

/// Random operands of one integer width: 2 : 2 : 1 : 1 any bit pattern, a small value
/// (-64 to 64, from 0 when unsigned), one of the 64 largest, one of the 64 smallest.
#[derive(Clone, Copy, Debug)]
pub struct IntValues {
    int: IntFormat,
}

/// The random operands of `int`.
pub fn int_values(int: IntFormat) -> IntValues {
    IntValues { int }
}

impl IntValues {
    /// One operand, as raw bits.
    pub fn draw(&self, g: &mut Generator) -> u64 {
        let int = self.int;
        let (min, max) = (int.min(), int.max());
        let below = |g: &mut Generator, n: i128| g.below(n as usize) as i128;
        int.wrap(match g.weighted(&[2, 2, 1, 1]) {
            0 => g.bits() as i128,
            1 => {
                let lo = min.max(-64);
                lo + below(g, 64 - lo + 1)
            }
            2 => max - below(g, 64),
            _ => min + below(g, 64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I8: IntFormat = IntFormat { bits: 8, signed: true };

    #[test]
    fn random_operands_reach_every_kind() {
        let values = int_values(I8);
        let mut g = Generator::new(1, "ints");
        let drawn: Vec<i128> = (0..4000).map(|_| I8.value(values.draw(&mut g))).collect();
        assert!(drawn.iter().all(|v| (-128..=127).contains(v)));
        for v in [-128, -65, -64, 0, 64, 65, 127] {
            assert!(drawn.contains(&v), "never drew {v}");
        }
    }

    #[test]
    fn edges_stay_in_range() {
        let u8f = IntFormat { bits: 8, signed: false };
        assert_eq!(int_edge_values(u8f), vec![0, 1, 2, 3, 7, 127, 254, 255]);
        assert!(int_edge_values(I8).contains(&0x80));
    }
}
