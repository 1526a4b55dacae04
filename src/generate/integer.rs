//! Integer operands: the edges of a width and a random mix weighted towards them.

use proptest::prelude::*;

use crate::value::IntFormat;

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

/// Random operands: any bit pattern, small values, and values near the extremes.
pub fn int_values(int: IntFormat) -> BoxedStrategy<u64> {
    let (min, max) = (int.min(), int.max());
    prop_oneof![
        2 => any::<u64>().prop_map(move |x| int.wrap(x as i128)),
        2 => (min.max(-64)..=64).prop_map(move |v| int.wrap(v)),
        1 => (0i128..64).prop_map(move |d| int.wrap(max - d)),
        1 => (0i128..64).prop_map(move |d| int.wrap(min + d)),
    ]
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    const I8: IntFormat = IntFormat { bits: 8, signed: true };

    #[test]
    fn edges_stay_in_range() {
        let u8f = IntFormat { bits: 8, signed: false };
        assert_eq!(int_edge_values(u8f), vec![0, 1, 2, 3, 7, 127, 254, 255]);
        assert!(int_edge_values(I8).contains(&0x80));
    }
}
