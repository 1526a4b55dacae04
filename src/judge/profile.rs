//! How a relaxation profile an adapter declares judges its results a second time: the results
//! it allows beyond the strict expectation (subnormals read as zeros, results flushed to
//! zero, a NaN's sign).

use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::judge::expect::Expect;
use crate::spec::profile::{Profile, Relaxation};
use crate::spec::suite::NanPolicy;

impl Profile {
    /// Whether `actual` is a result this profile allows for `case`, whose strict expectation
    /// is `strict`. `full` gives the expectation of any input under every governing row: with
    /// `daz`, the result may be the one for the input with its subnormal operands read as
    /// zeros (a row check's own row may not cover that input, so the whole table decides).
    pub fn accepts(
        &self,
        reading: (Domain, Domain, NanPolicy),
        case: &[u64],
        strict: &Expect,
        actual: u64,
        full: &dyn Fn(&[u64]) -> Option<Expect>,
    ) -> bool {
        let (input, output, nan) = reading;
        let mut candidates = vec![strict.clone()];
        if self.has(Relaxation::Daz)
            && let Domain::Float(f) = input
            && case.iter().any(|&x| f.is_subnormal(x))
        {
            let flushed: Vec<u64> = case.iter().map(|&x| f.flush_subnormal(x)).collect();
            candidates.extend(full(&flushed));
        }
        let Domain::Float(f) = output else {
            return candidates.iter().any(|e| e.accepts(output, actual, nan));
        };
        let mut readings = vec![actual];
        if self.has(Relaxation::NanSign) && f.is_nan(actual) {
            readings.push(f.neg(actual));
        }
        candidates.iter().any(|e| {
            readings.iter().any(|&a| e.accepts(output, a, nan))
                || (self.has(Relaxation::Ftz) && f.is_zero(actual) && allows_subnormal(e, f, actual, nan))
        })
    }
}

/// Whether `e` allows a result of the sign of `zero` that flushing would turn into `zero`: a
/// subnormal, or the smallest normal (which an exact result below it may round to; a library
/// that detects tininess before rounding flushes it, as IEEE 754 allows). Every expectation
/// that allows some subnormal of a sign allows one of the values it names (when subnormal),
/// the largest or the smallest subnormal of that sign: a set of bits names its members, and a
/// range of steps that reaches the subnormals from a normal centre contains the largest, from
/// a zero centre the smallest.
fn allows_subnormal(e: &Expect, f: Format, zero: u64, nan: NanPolicy) -> bool {
    let sign = zero & f.sign_mask();
    let mut points = Vec::new();
    values_named(e, &mut points);
    points.retain(|&c| f.is_subnormal(c) && c & f.sign_mask() == sign);
    points.extend([f.max_subnormal() | sign, f.min_subnormal() | sign, f.min_normal() | sign]);
    points.into_iter().any(|s| e.accepts(Domain::Float(f), s, nan))
}

/// Every value `e` names: its bits and the centres of its ranges, in its lists too.
fn values_named(e: &Expect, out: &mut Vec<u64>) {
    match e {
        Expect::Bits(b) | Expect::WithinSteps { reference: b, .. } => out.push(*b),
        Expect::AnyOf(list) | Expect::AllOf(list) => list.iter().for_each(|m| values_named(m, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Format = Format::F32;
    const FLOAT: Domain = Domain::Float(F);
    const READING: (Domain, Domain, NanPolicy) = (FLOAT, FLOAT, NanPolicy::Any);

    fn profile(s: &str) -> Profile {
        s.parse().unwrap()
    }

    fn none(_: &[u64]) -> Option<Expect> {
        None
    }

    #[test]
    fn ftz_allows_the_zero_of_a_subnormal_results_sign_only() {
        let tiny = 0x0000_0003; // a subnormal
        let strict = Expect::Bits(tiny);
        let ftz = profile("ftz");
        assert!(ftz.accepts(READING, &[tiny, 0], &strict, F.pos_zero(), &none));
        assert!(!ftz.accepts(READING, &[tiny, 0], &strict, F.neg_zero(), &none), "wrong sign");
        assert!(!profile("daz").accepts(READING, &[tiny, 0], &strict, F.pos_zero(), &none));
        let normal = Expect::Bits(F.one());
        assert!(!ftz.accepts(READING, &[F.one(), 0], &normal, F.pos_zero(), &none));
        // The smallest normal, which a tiny exact result may round up to (tininess before rounding).
        let smallest = Expect::Bits(F.min_normal());
        assert!(ftz.accepts(READING, &[0, 0], &smallest, F.pos_zero(), &none));
        let next = Expect::Bits(F.min_normal() + 1);
        assert!(!ftz.accepts(READING, &[0, 0], &next, F.pos_zero(), &none));
        // A range whose normal centre reaches down into the subnormals.
        let near = Expect::WithinSteps { reference: F.min_normal(), steps: 2 };
        assert!(ftz.accepts(READING, &[0, 0], &near, F.pos_zero(), &none));
        let far = Expect::WithinSteps { reference: F.min_normal() + 4, steps: 2 };
        assert!(!ftz.accepts(READING, &[0, 0], &far, F.pos_zero(), &none));
    }

    #[test]
    fn daz_judges_the_input_read_with_zeros_by_the_whole_table() {
        let tiny = 0x8000_0005; // a negative subnormal
        let one = F.one();
        // The full table's answer for (-0, 1) in a made-up op: +0.
        let full = |case: &[u64]| (case == [F.neg_zero(), one]).then_some(Expect::Bits(F.pos_zero()));
        let strict = Expect::Bits(tiny);
        let daz = profile("daz");
        assert!(daz.accepts(READING, &[tiny, one], &strict, F.pos_zero(), &full));
        assert!(!daz.accepts(READING, &[tiny, one], &strict, F.neg_zero(), &full));
        assert!(!daz.accepts(READING, &[one, one], &Expect::Bits(one), F.pos_zero(), &full), "no subnormal");
    }

    #[test]
    fn nan_sign_frees_only_the_sign_of_a_nan() {
        let strict = Expect::NanWithSign { negative: false };
        let negative_nan = F.neg(F.quiet_nan());
        assert!(profile("nan-sign").accepts(READING, &[0, 0], &strict, negative_nan, &none));
        assert!(!profile("ftz").accepts(READING, &[0, 0], &strict, negative_nan, &none));
        assert!(!profile("nan-sign").accepts(
            READING,
            &[0, 0],
            &Expect::Bits(F.one()),
            F.neg(F.one()),
            &none
        ));
    }
}
