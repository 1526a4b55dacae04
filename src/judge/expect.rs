//! Expectations and the comparison of actual results with them.

use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::spec::suite::NanPolicy;

/// What a result may be: a set or an interval, never only a point.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// Exactly these bits (signed zeros distinguished).
    Bits(u64),
    /// Any NaN.
    AnyNan,
    /// A NaN with this sign bit (payload free).
    NanWithSign { negative: bool },
    /// Any non-NaN value with this sign bit.
    Sign { negative: bool },
    /// Within `steps` representable steps of the correctly rounded value `reference` (an
    /// infinite reference or result must match exactly; see `docs/ACCURACY.md`).
    WithinSteps { reference: u64, steps: u32 },
    /// At least one of these.
    AnyOf(Vec<Expect>),
    /// Every one of these.
    AllOf(Vec<Expect>),
    /// Any finite value (an approximation to a finite result, where the bound is not asked).
    Finite,
    /// Any value at all (the contract leaves the result open).
    AnyValue,
}

impl Expect {
    /// Whether `actual` meets the expectation under the NaN policy.
    ///
    /// Inlined into its callers (a sweep calls it once per case); the lists' members are judged
    /// by a helper that is not, so the inlining ends there.
    #[inline(always)]
    pub fn accepts(&self, d: Domain, actual: u64, nan: NanPolicy) -> bool {
        let Domain::Float(f) = d else {
            return match self {
                Expect::AnyValue => true,
                Expect::Bits(b) => actual == *b,
                Expect::AnyOf(list) => list.iter().any(|e| e.accepts_member(d, actual, nan)),
                Expect::AllOf(list) => list.iter().all(|e| e.accepts_member(d, actual, nan)),
                _ => false,
            };
        };
        let actual_nan = f.is_nan(actual);
        match self {
            Expect::Bits(b) if f.is_nan(*b) => actual_nan && nan_ok(f, actual, nan),
            Expect::Bits(b) => actual == *b,
            Expect::AnyNan => actual_nan && nan_ok(f, actual, nan),
            Expect::NanWithSign { negative } => {
                actual_nan && nan_ok(f, actual, nan) && f.is_sign_negative(actual) == *negative
            }
            Expect::Sign { negative } => !actual_nan && f.is_sign_negative(actual) == *negative,
            Expect::WithinSteps { reference, steps } => within_steps(f, *reference, *steps, actual, nan),
            Expect::AnyOf(list) => list.iter().any(|e| e.accepts_member(d, actual, nan)),
            Expect::AllOf(list) => list.iter().all(|e| e.accepts_member(d, actual, nan)),
            Expect::Finite => f.is_finite(actual),
            Expect::AnyValue => true,
        }
    }

    /// [`Expect::accepts`] for a member of an `AnyOf` or `AllOf` list.
    #[inline(never)]
    fn accepts_member(&self, d: Domain, actual: u64, nan: NanPolicy) -> bool {
        self.accepts(d, actual, nan)
    }

    /// The expectation as text, with values in decimal, hex-float and bits.
    pub fn describe(&self, d: Domain) -> String {
        match self {
            Expect::Bits(b) => d.describe(*b),
            Expect::AnyNan => "any NaN".to_string(),
            Expect::NanWithSign { negative: true } => "a NaN with the sign bit set".to_string(),
            Expect::NanWithSign { negative: false } => "a NaN with the sign bit clear".to_string(),
            Expect::Sign { negative: true } => "any non-NaN value with the sign bit set".to_string(),
            Expect::Sign { negative: false } => "any non-NaN value with the sign bit clear".to_string(),
            Expect::WithinSteps { reference, steps } => {
                format!("within {steps} representable steps of {}", d.describe(*reference))
            }
            Expect::AnyOf(list) => join(d, list, " or "),
            Expect::AllOf(list) => join(d, list, " and "),
            Expect::Finite => "any finite value".to_string(),
            Expect::AnyValue => "any value".to_string(),
        }
    }

    /// The single value this expectation is centred on, if it has one (for step distances).
    pub fn centre(&self) -> Option<u64> {
        match self {
            Expect::Bits(b) | Expect::WithinSteps { reference: b, .. } => Some(*b),
            Expect::AllOf(list) => list.iter().find_map(Expect::centre),
            _ => None,
        }
    }
}

fn join(d: Domain, list: &[Expect], sep: &str) -> String {
    let parts: Vec<String> = list.iter().map(|e| format!("({})", e.describe(d))).collect();
    parts.join(sep)
}

/// Whether `actual` is within `steps` representable steps of `reference` ([`Expect::WithinSteps`];
/// a sweep calls it without building the expectation).
#[inline(always)]
pub fn within_steps(f: Format, reference: u64, steps: u32, actual: u64, nan: NanPolicy) -> bool {
    let actual_nan = f.is_nan(actual);
    if f.is_nan(reference) || actual_nan {
        return f.is_nan(reference) && actual_nan && nan_ok(f, actual, nan);
    }
    if f.is_infinite(reference) || f.is_infinite(actual) {
        return actual == reference;
    }
    step_distance(f, actual, reference) <= u64::from(steps)
}

fn nan_ok(f: Format, actual: u64, nan: NanPolicy) -> bool {
    match nan {
        NanPolicy::Any => true,
        NanPolicy::Quiet => actual & (1 << (f.frac_bits - 1)) != 0,
    }
}

/// How many representable steps apart two non-NaN values are (the zeros count as one value).
pub fn step_distance(f: Format, a: u64, b: u64) -> u64 {
    f.ordinal(a).abs_diff(f.ordinal(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Domain = Domain::Float(Format::F32);

    #[test]
    fn signed_zeros_are_distinct_bits() {
        assert!(!Expect::Bits(0x8000_0000).accepts(F, 0, NanPolicy::Any));
        assert!(Expect::AnyOf(vec![Expect::Bits(0), Expect::Bits(0x8000_0000)]).accepts(
            F,
            0x8000_0000,
            NanPolicy::Any
        ));
    }

    #[test]
    fn nan_policy() {
        let signalling = 0x7f80_0001;
        assert!(Expect::AnyNan.accepts(F, 0xffc0_0000, NanPolicy::Any));
        assert!(Expect::AnyNan.accepts(F, signalling, NanPolicy::Any));
        assert!(!Expect::AnyNan.accepts(F, signalling, NanPolicy::Quiet));
        assert!(!Expect::AnyNan.accepts(F, 0x7f80_0000, NanPolicy::Any), "infinity is no NaN");
        assert!(Expect::Bits(0x7fc0_0000).accepts(F, 0xffc0_0001, NanPolicy::Any));
    }

    #[test]
    fn sign_and_within() {
        assert!(Expect::Sign { negative: true }.accepts(F, 0xbf80_0000, NanPolicy::Any));
        assert!(!Expect::Sign { negative: true }.accepts(F, 0xffc0_0000, NanPolicy::Any));
        let one = 0x3f80_0000;
        let w = Expect::WithinSteps { reference: one, steps: 2 };
        assert!(w.accepts(F, one + 2, NanPolicy::Any) && w.accepts(F, one - 2, NanPolicy::Any));
        assert!(!w.accepts(F, one + 3, NanPolicy::Any));
        assert_eq!(step_distance(Format::F32, 0x8000_0001, 0x0000_0001), 2);
        assert_eq!(step_distance(Format::F32, 0x8000_0000, 0), 0);
    }
}
