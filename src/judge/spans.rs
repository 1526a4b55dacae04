//! The runs of a format's bit patterns over which a set of value classes' memberships cannot
//! change, so that a sweep finds a value's classes once per run rather than once per value.
//!
//! On each sign's half of the patterns the value is monotone in the bits, so a class that
//! compares the value (or its magnitude) with a constant changes only where the value crosses
//! that constant; the classes of zeros, infinities, NaNs and signaling NaNs change only at those
//! values' patterns. The integer classes (integer, odd, half-integer) change from value to
//! value between 0.5 and 2^(p+1) in magnitude (`p` the fraction bits): below, no nonzero value
//! is an integer or a half-integer; from there on every finite value is an even integer.

use std::ops::Range;

use crate::bits::format::Format;
use crate::oracle::native;
use crate::spec::schema::Class;

/// Where the memberships of some classes may change, over every pattern of a format.
pub struct Spans {
    /// The patterns at which a run starts, ascending (0 first).
    starts: Vec<u64>,
    /// Patterns whose memberships may differ from each neighbour's: a run of one each.
    varying: Vec<Range<u64>>,
    /// One past the format's last pattern.
    end: u64,
}

impl Spans {
    /// The runs of `f`'s patterns over which membership in each of `classes` is constant.
    pub fn new(f: Format, classes: &[Class]) -> Spans {
        let sign = f.sign_mask();
        let magnitude = |v: f64| first_at_least(f, v);
        let mut starts = vec![0];
        let mut varying = Vec::new();
        for half in [0, sign] {
            // The zero, the smallest subnormal, the infinity, the signaling NaNs, the quiet ones.
            let quiet = f.pos_inf() | 1 << (f.frac_bits - 1);
            starts.extend([half, half + 1, half | f.pos_inf(), (half | f.pos_inf()) + 1, half | quiet]);
        }
        for class in classes {
            let threshold = match class {
                Class::Gt(c) | Class::Lt(c) | Class::Eq(c) | Class::Ne(c) => Some((*c, false)),
                Class::AbsGt(c) | Class::AbsLt(c) | Class::AbsEq(c) => Some((*c, true)),
                Class::Integer
                | Class::OddInteger
                | Class::NotInteger
                | Class::NotOddInteger
                | Class::HalfInteger => {
                    let from = magnitude(0.5);
                    let to = magnitude(2f64.powi(f.frac_bits as i32 + 1));
                    varying.extend([from..to, (sign | from)..(sign | to)]);
                    None
                }
                _ => None,
            };
            if let Some((c, both_signs)) = threshold.filter(|(c, _)| c.is_finite()) {
                // The first pattern of the constant's magnitude or above, and the one after it,
                // on the constant's half (both halves for a magnitude class).
                let q = magnitude(c.abs());
                for half in [0, sign] {
                    if both_signs || (half == sign) == c.is_sign_negative() {
                        starts.extend([half | q, (half | q) + 1]);
                    }
                }
            }
        }
        // A varying range is a run of runs of one.
        starts.extend(varying.iter().flat_map(|r| [r.start, r.end]));
        starts.sort_unstable();
        starts.dedup();
        varying.sort_unstable_by_key(|r| r.start);
        varying.dedup();
        Spans { starts, varying, end: f.all_mask() + 1 }
    }

    /// The run of patterns that holds `x`.
    pub fn run(&self, x: u64) -> Range<u64> {
        if self.varying.iter().any(|r| r.contains(&x)) {
            return x..x + 1;
        }
        let i = self.starts.partition_point(|&s| s <= x);
        let start = self.starts[i - 1];
        start..self.starts.get(i).copied().unwrap_or(self.end)
    }
}

/// The first positive pattern of `f` whose value is `v` or above (the infinity's for a `v`
/// beyond the largest finite value).
fn first_at_least(f: Format, v: f64) -> u64 {
    let (mut low, mut high) = (0, f.pos_inf());
    while low < high {
        let mid = low + (high - low) / 2;
        if native::to_f64(f, mid) >= v {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Catalog;
    use crate::spec::matching::in_class_decoded;

    fn memberships(f: Format, classes: &[Class], x: u64) -> Vec<bool> {
        let v = native::to_f64(f, x);
        let mut m: Vec<bool> = classes.iter().map(|c| in_class_decoded(f, x, v, c)).collect();
        m.extend([f.is_nan(x), f.is_nan(x) && x & (1 << (f.frac_bits - 1)) == 0]);
        m
    }

    /// The classes every element-wise table's rows name, one list per table.
    fn class_lists() -> Vec<Vec<Class>> {
        let catalog = Catalog::builtin().unwrap();
        let mut lists: Vec<Vec<Class>> = catalog
            .elementwise
            .iter()
            .map(|t| {
                let mut classes: Vec<Class> = Vec::new();
                for row in &t.table.rows {
                    for c in row.when.x1.0.iter().chain(&row.when.either).chain(&row.when.both) {
                        if !classes.contains(c) {
                            classes.push(c.clone());
                        }
                    }
                }
                classes
            })
            .collect();
        // Thresholds between patterns, at a subnormal, beyond the range, and negative.
        lists.push(vec![Class::Gt(1e-7), Class::Lt(-3.3), Class::AbsEq(65520.0), Class::AbsLt(1e40)]);
        lists.push(vec![Class::Eq(-0.5), Class::Ne(2.0), Class::AbsGt(1e-45), Class::HalfInteger]);
        lists
    }

    /// Every 16-bit pattern has the memberships of the first pattern of its run, for the
    /// classes of every table in the catalog (and a few more), in f16 and bf16.
    #[test]
    fn every_16_bit_pattern_shares_its_runs_memberships() {
        for classes in class_lists() {
            for f in [Format::F16, Format::BF16] {
                let spans = Spans::new(f, &classes);
                let mut run = 0..0;
                let mut first = Vec::new();
                for x in 0..1u64 << 16 {
                    if !run.contains(&x) {
                        run = spans.run(x);
                        assert_eq!(run.start, x, "{} {classes:?}: runs are contiguous", f.name);
                        first = memberships(f, &classes, x);
                    }
                    assert_eq!(memberships(f, &classes, x), first, "{} {x:#x} {classes:?}", f.name);
                }
            }
        }
    }

    /// In f32: at both ends of every run, around each, and at drawn patterns, a pattern has
    /// the memberships of its run's first pattern; and runs are few outside the integer
    /// classes' range.
    #[test]
    fn f32_patterns_share_their_runs_memberships() {
        let f = Format::F32;
        for classes in class_lists() {
            let spans = Spans::new(f, &classes);
            let mut probes: Vec<u64> =
                spans.starts.iter().flat_map(|&s| s.saturating_sub(3)..s + 3).collect();
            let mut r = 0x9e37_79b9_7f4a_7c15u64;
            probes.extend((0..20_000).map(|_| {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                r & f.all_mask()
            }));
            for x in probes.into_iter().filter(|&x| x <= f.all_mask()) {
                let run = spans.run(x);
                assert!(run.contains(&x));
                for y in [run.start, run.end - 1] {
                    assert_eq!(
                        memberships(f, &classes, x),
                        memberships(f, &classes, y),
                        "{x:#x} {y:#x} {classes:?}"
                    );
                }
            }
            assert!(spans.starts.len() < 64, "{classes:?}");
        }
    }
}
