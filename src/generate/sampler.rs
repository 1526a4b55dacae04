//! The seeded random source every generator draws from: xoshiro256++ (Blackman and Vigna),
//! its state spread from the run's seed and the check id by SplitMix64, and the few kinds of
//! draw the generators need. It allocates nothing, so whole batches are drawn at the cost of a
//! few instructions per value.

use crate::bits::hash::fnv1a;

/// A seeded source of random draws.
#[derive(Clone, Debug)]
pub struct Generator {
    state: [u64; 4],
}

/// SplitMix64's step: advances `x` and returns a well-mixed output.
fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Generator {
    /// A generator whose draws depend only on `seed` and `label` (the check id).
    pub fn new(seed: u64, label: &str) -> Generator {
        // Two SplitMix64 streams, one per input, so that no two (seed, label) pairs share a
        // state unless both hashes collide.
        let (mut a, mut b) = (seed, fnv1a(label.as_bytes()));
        let mut state = [0; 4];
        for word in &mut state {
            *word = splitmix64(&mut a) ^ splitmix64(&mut b).rotate_left(17);
        }
        if state == [0; 4] {
            state[0] = 1; // the one state xoshiro cannot leave
        }
        Generator { state }
    }

    /// 64 random bits.
    #[inline]
    pub fn bits(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (0 when `n` is 0), by Lemire's multiply-shift; the bias is below
    /// `n / 2^64`.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.bits() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi` (`lo` when `hi < lo`).
    #[inline]
    pub fn inclusive(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi + 1).saturating_sub(lo))
    }

    /// Uniform in `lo..=hi` over signed integers (`lo` when `hi < lo`).
    #[inline]
    pub fn inclusive_i64(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1).max(0) as usize) as i64
    }

    /// A fair coin.
    #[inline]
    pub fn coin(&mut self) -> bool {
        self.bits() >> 63 == 1
    }

    /// An index into `weights`, each drawn in proportion to its weight.
    #[inline]
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = self.below(total as usize) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }

    /// One of `items`, uniformly; `None` when there are none.
    #[inline]
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }

    /// Puts `items` in a uniformly random order (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Uniform in `[lo, hi)`.
    pub fn between(&mut self, [lo, hi]: [f64; 2]) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of xoshiro256++ from the state 1, 2, 3, 4, as the reference C
    /// implementation (prng.di.unimi.it/xoshiro256plusplus.c) prints them.
    #[test]
    fn matches_the_reference_xoshiro256plusplus() {
        let mut g = Generator { state: [1, 2, 3, 4] };
        let first: Vec<u64> = (0..4).map(|_| g.bits()).collect();
        assert_eq!(first, [41943041, 58720359, 3588806011781223, 3591011842654386]);
    }

    #[test]
    fn draws_depend_on_seed_and_label_only() {
        let draw = |seed, label: &str| {
            let mut g = Generator::new(seed, label);
            (0..8).map(|_| g.bits()).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, "a"), draw(1, "a"));
        assert_ne!(draw(1, "a"), draw(1, "b"));
        assert_ne!(draw(1, "a"), draw(2, "a"));
    }

    /// Each bucket of `below`, `weighted` and `inclusive` gets its share within a few
    /// standard deviations.
    #[test]
    fn draws_are_uniform_and_weighted() {
        let mut g = Generator::new(5, "uniform");
        let n = 80_000;
        let mut counts = [0usize; 8];
        for _ in 0..n {
            counts[g.below(8)] += 1;
        }
        assert!(counts.iter().all(|&c| c.abs_diff(n / 8) < 500), "{counts:?}");
        let mut counts = [0usize; 3];
        for _ in 0..n {
            counts[g.weighted(&[6, 1, 1])] += 1;
        }
        assert!(counts[0].abs_diff(n * 6 / 8) < 600 && counts[1].abs_diff(n / 8) < 500, "{counts:?}");
        let mut seen = [false; 4];
        for _ in 0..1000 {
            let v = g.inclusive(2, 5);
            assert!((2..=5).contains(&v));
            seen[v - 2] = true;
            assert!((-3..=3).contains(&g.inclusive_i64(-3, 3)));
        }
        assert_eq!(seen, [true; 4]);
        assert_eq!(g.inclusive(3, 3), 3);
        assert_eq!(g.pick::<u8>(&[]), None);
        let mut items = [0, 1, 2, 3, 4, 5];
        g.shuffle(&mut items);
        let mut sorted = items;
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2, 3, 4, 5]);
    }
}
