//! Value classes as samplers over raw bits: how each class is built, and with what weights.

use super::Generator;
use crate::bits::format::Format;
use crate::spec::matching::in_class;
use crate::spec::schema::Class;

/// The format's edge values: both zeros, the subnormal and normal boundaries, the largest
/// finite values, both infinities, NaNs with both signs and several payloads (quiet and
/// signalling), one and its neighbours, and a few small integers and halves.
pub fn edge_values(f: Format) -> Vec<u64> {
    let quiet = f.quiet_nan();
    let positive = [
        f.pos_zero(),
        f.min_subnormal(),
        f.min_subnormal() + 1,
        f.max_subnormal(),
        f.min_normal(),
        f.min_normal() + 1,
        f.max_finite() - 1,
        f.max_finite(),
        f.pos_inf(),
        f.one() - 1,
        f.one(),
        f.one() + 1,
        f.one() - (1 << f.frac_bits),                            // 0.5
        f.one() + (1 << f.frac_bits),                            // 2
        f.one() + (1 << f.frac_bits) + (1 << (f.frac_bits - 1)), // 3
        quiet,
        quiet | 1,                    // quiet with a payload
        f.exp_mask() | 1,             // signalling, smallest payload
        f.exp_mask() | f.frac_mask(), // all ones
    ];
    positive.iter().flat_map(|&x| [x, f.neg(x)]).collect()
}

/// Most draws one value may take before its classes are declared unsatisfiable (proptest's
/// default local rejection limit, which the generators used before this sampler).
const MAX_REJECTS: usize = 65_536;

/// Draws values of one format that are in every class of a list: built from the most
/// specific class, then filtered by all of them. Made once per check (or per operand of a
/// row), then drawn from without allocating.
#[derive(Clone, Debug)]
pub struct ValueSampler {
    f: Format,
    build: Build,
    /// Every value drawn must be in all of these.
    filter: Vec<Class>,
    edges: Vec<u64>,
    /// The finite nonzero edge values.
    nonzero_edges: Vec<u64>,
}

/// How values are built before the filter.
#[derive(Clone, Debug)]
enum Build {
    /// 2 : 1 : 1 : 6 an edge value, a NaN, a subnormal, a uniformly random finite pattern.
    Any,
    /// One of these values, uniformly.
    Pick(Vec<u64>),
    /// No value can be built: the reason.
    Never(String),
    /// A NaN with a random sign and payload (quiet or signalling).
    Nan,
    NanPositive,
    NanNegative,
    /// 1 : 9 a zero of either sign, a nonzero finite value.
    Finite,
    /// 1 : 1 : 6 a finite nonzero edge value, a subnormal, a random finite nonzero pattern.
    NonzeroFinite,
    PositiveFinite,
    NegativeFinite,
    /// Either sign of 1 : 9 `+0`, an integer.
    Integer,
    /// Either sign of an odd integer.
    OddInteger,
    /// Either sign of a value midway between two integers.
    HalfInteger,
    /// 2 : 1 : 1 : 1 a subnormal, a small normal, `+0`, any value.
    Tiny,
}

impl ValueSampler {
    fn new(f: Format, build: Build, filter: Vec<Class>) -> ValueSampler {
        let edges = edge_values(f);
        let nonzero_edges = edges.iter().copied().filter(|&x| f.is_finite(x) && !f.is_zero(x)).collect();
        ValueSampler { f, build, filter, edges, nonzero_edges }
    }

    /// One value in every class of the list; an error if none is found in [`MAX_REJECTS`]
    /// draws, or none can be built at all (a constant the format cannot represent).
    #[inline]
    pub fn draw(&self, g: &mut Generator) -> Result<u64, String> {
        for _ in 0..MAX_REJECTS {
            let x = self.build(g)?;
            if self.filter.iter().all(|c| in_class(self.f, x, c)) {
                return Ok(x);
            }
        }
        Err(format!("no {} value in every class of {:?} after {MAX_REJECTS} draws", self.f.name, self.filter))
    }

    fn build(&self, g: &mut Generator) -> Result<u64, String> {
        let f = self.f;
        let signed = |g: &mut Generator, x: u64| if g.coin() { f.neg(x) } else { x };
        Ok(match &self.build {
            Build::Any => self.any(g),
            Build::Pick(values) => g.pick(values).ok_or("no values to pick from")?,
            Build::Never(reason) => return Err(reason.clone()),
            Build::Nan => nan(f, g),
            Build::NanPositive => f.abs(nan(f, g)),
            Build::NanNegative => f.abs(nan(f, g)) | f.sign_mask(),
            Build::Finite => match g.weighted(&[1, 9]) {
                0 => signed(g, f.pos_zero()),
                _ => self.nonzero_finite(g),
            },
            Build::NonzeroFinite => self.nonzero_finite(g),
            Build::PositiveFinite => f.abs(self.nonzero_finite(g)),
            Build::NegativeFinite => f.abs(self.nonzero_finite(g)) | f.sign_mask(),
            Build::Integer => {
                let x = match g.weighted(&[1, 9]) {
                    0 => f.pos_zero(),
                    _ => integer(f, false, g),
                };
                signed(g, x)
            }
            Build::OddInteger => {
                let x = integer(f, true, g);
                signed(g, x)
            }
            Build::HalfInteger => {
                let x = half_integer(f, g);
                signed(g, x)
            }
            Build::Tiny => match g.weighted(&[2, 1, 1, 1]) {
                0 => subnormal(f, g),
                1 => {
                    let (neg, e) = (g.coin(), g.inclusive(1, 3) as u64);
                    f.compose(neg, e, g.bits())
                }
                2 => f.pos_zero(),
                _ => self.any(g),
            },
        })
    }

    fn any(&self, g: &mut Generator) -> u64 {
        match g.weighted(&[2, 1, 1, 6]) {
            0 => self.edges[g.below(self.edges.len())],
            1 => nan(self.f, g),
            2 => subnormal(self.f, g),
            _ => finite(self.f, g),
        }
    }

    fn nonzero_finite(&self, g: &mut Generator) -> u64 {
        let f = self.f;
        match g.weighted(&[1, 1, 6]) {
            0 => self.nonzero_edges[g.below(self.nonzero_edges.len())],
            1 => subnormal(f, g),
            _ => {
                let x = finite(f, g);
                if f.is_zero(x) { x | 1 } else { x }
            }
        }
    }
}

/// Any value of the format: edge values, NaNs and infinities, subnormals, and uniformly
/// random bit patterns.
pub fn any_value(f: Format) -> ValueSampler {
    ValueSampler::new(f, Build::Any, Vec::new())
}

/// Values that are in every class of `classes` (any value when the list is empty).
///
/// The most specific class decides how values are built; all of them filter the result.
pub fn class_sampler(f: Format, classes: &[Class]) -> ValueSampler {
    let Some(base) = classes.iter().max_by_key(|c| specificity(c)) else {
        return any_value(f);
    };
    ValueSampler::new(f, build(f, base), classes.to_vec())
}

/// Operands where underflow can happen: zeros, subnormals, the smallest normals, and any value.
pub fn tiny_value(f: Format) -> ValueSampler {
    ValueSampler::new(f, Build::Tiny, Vec::new())
}

/// Higher ranks construct values more narrowly and so are preferred as the base.
fn specificity(class: &Class) -> u8 {
    match class {
        Class::Eq(_)
        | Class::AbsEq(_)
        | Class::PosZero
        | Class::NegZero
        | Class::PosInfinity
        | Class::NegInfinity => 9,
        Class::Zero | Class::Infinity | Class::NanPositiveSign | Class::NanNegativeSign => 8,
        Class::Nan => 7,
        Class::OddInteger | Class::HalfInteger => 6,
        Class::Integer => 5,
        Class::PositiveFinite | Class::NegativeFinite => 4,
        Class::NonzeroFinite | Class::NotInteger => 3,
        Class::Finite => 2,
        Class::Gt(_) | Class::Lt(_) | Class::AbsGt(_) | Class::AbsLt(_) => 1,
        Class::Ne(_) | Class::NotNan | Class::NotOddInteger | Class::Any => 0,
    }
}

/// How values of `class` are built; classes that only narrow (not NaN, comparisons with a
/// constant) build any value and leave the rest to the filter.
fn build(f: Format, class: &Class) -> Build {
    match class {
        Class::Any
        | Class::Ne(_)
        | Class::NotOddInteger
        | Class::NotNan
        | Class::Gt(_)
        | Class::Lt(_)
        | Class::AbsGt(_)
        | Class::AbsLt(_) => Build::Any,
        Class::Nan => Build::Nan,
        Class::NanPositiveSign => Build::NanPositive,
        Class::NanNegativeSign => Build::NanNegative,
        Class::PosInfinity => Build::Pick(vec![f.pos_inf()]),
        Class::NegInfinity => Build::Pick(vec![f.neg_inf()]),
        Class::Infinity => Build::Pick(vec![f.pos_inf(), f.neg_inf()]),
        Class::PosZero => Build::Pick(vec![f.pos_zero()]),
        Class::NegZero => Build::Pick(vec![f.neg_zero()]),
        Class::Zero => Build::Pick(vec![f.pos_zero(), f.neg_zero()]),
        Class::Finite => Build::Finite,
        Class::NonzeroFinite | Class::NotInteger => Build::NonzeroFinite,
        Class::PositiveFinite => Build::PositiveFinite,
        Class::NegativeFinite => Build::NegativeFinite,
        Class::Eq(c) => exact_constant(f, *c, false),
        Class::AbsEq(c) => exact_constant(f, *c, true),
        Class::Integer => Build::Integer,
        Class::OddInteger => Build::OddInteger,
        Class::HalfInteger => Build::HalfInteger,
    }
}

/// `c` exactly (with both zeros for 0, and both signs when `either_sign`); a constant the
/// format cannot represent yields no values, which the row generator reports.
fn exact_constant(f: Format, c: f64, either_sign: bool) -> Build {
    match f.from_f64_exact(c) {
        None => Build::Never(format!("the constant {c} is not representable in {}", f.name)),
        Some(x) if either_sign || f.is_zero(x) => Build::Pick(vec![x, f.neg(x)]),
        Some(x) => Build::Pick(vec![x]),
    }
}

/// A NaN with a random sign and a random nonzero payload.
fn nan(f: Format, g: &mut Generator) -> u64 {
    let neg = g.coin();
    let frac = (g.bits() & f.frac_mask()).max(1);
    f.compose(neg, (1 << f.exp_bits) - 1, frac)
}

/// A subnormal with a random sign and a random nonzero fraction.
fn subnormal(f: Format, g: &mut Generator) -> u64 {
    let neg = g.coin();
    f.compose(neg, 0, (g.bits() & f.frac_mask()).max(1))
}

/// A uniformly random finite bit pattern (a non-finite one loses its lowest exponent bit).
fn finite(f: Format, g: &mut Generator) -> u64 {
    let x = g.bits() & f.all_mask();
    if f.is_finite(x) { x } else { x & !(1 << f.frac_bits) }
}

/// Integer values: exponents from 0 up past the precision (odd ones need a unit bit, so
/// they stay below 2^precision) with the fraction bits below the binary point cleared.
fn integer(f: Format, odd: bool, g: &mut Generator) -> u64 {
    let top = if odd { f.frac_bits } else { f.frac_bits + 4 };
    let e = g.inclusive(0, top as usize) as u32;
    let below_point = f.frac_bits.saturating_sub(e);
    let mut frac = g.bits() & f.frac_mask() & !((1u64 << below_point) - 1);
    if odd && e > 0 {
        frac |= 1 << below_point;
    }
    f.compose(false, (f.bias() + e as i32) as u64, frac)
}

/// Positive values midway between two integers: exponents from -1 (0.5) up to the last one
/// with a bit worth 1/2, that bit set and the bits below it clear.
fn half_integer(f: Format, g: &mut Generator) -> u64 {
    let k = g.inclusive(0, f.frac_bits as usize) as u32;
    if k == 0 {
        return f.compose(false, (f.bias() - 1) as u64, 0);
    }
    // Exponent k - 1: the fraction bit worth 1/2 is bit frac_bits - k.
    let half = f.frac_bits - k;
    let frac = (g.bits() & f.frac_mask() & !((1u64 << half) - 1)) | (1 << half);
    f.compose(false, (f.bias() + k as i32 - 1) as u64, frac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    /// Every class's sampler yields only members of the class, in every format.
    #[test]
    fn class_samplers_stay_inside_their_class() {
        let classes = [
            Class::Any,
            Class::Nan,
            Class::NanPositiveSign,
            Class::NanNegativeSign,
            Class::NotNan,
            Class::PosInfinity,
            Class::NegInfinity,
            Class::Infinity,
            Class::PosZero,
            Class::NegZero,
            Class::Zero,
            Class::Finite,
            Class::NonzeroFinite,
            Class::PositiveFinite,
            Class::NegativeFinite,
            Class::Gt(0.0),
            Class::Lt(0.0),
            Class::Eq(1.0),
            Class::Ne(1.0),
            Class::AbsGt(1.0),
            Class::AbsLt(1.0),
            Class::AbsEq(1.0),
            Class::Integer,
            Class::OddInteger,
            Class::NotInteger,
            Class::NotOddInteger,
            Class::HalfInteger,
        ];
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            let mut g = Generator::new(1, f.name);
            for class in &classes {
                let s = class_sampler(f, std::slice::from_ref(class));
                for _ in 0..300 {
                    let x = s.draw(&mut g).unwrap();
                    assert!(in_class(f, x, class), "{} {class:?} gave {}", f.name, f.describe(x));
                }
            }
        }
    }

    #[test]
    fn class_samplers_reach_the_edges() {
        let f = Format::F32;
        let mut g = Generator::new(2, "edges");
        let s = class_sampler(f, &[Class::NonzeroFinite]);
        let draws: Vec<u64> = (0..3000).map(|_| s.draw(&mut g).unwrap()).collect();
        for edge in [f.min_subnormal(), f.max_finite(), f.neg(f.min_normal())] {
            assert!(draws.contains(&edge), "never drew {}", f.describe(edge));
        }
        assert!(draws.iter().any(|&x| f.is_subnormal(x)));
        let nans: Vec<u64> =
            (0..300).map(|_| class_sampler(f, &[Class::Nan]).draw(&mut g).unwrap()).collect();
        assert!(nans.iter().any(|&x| f.is_sign_negative(x)) && nans.iter().any(|&x| !f.is_sign_negative(x)));
        assert!(nans.iter().any(|&x| x & (1 << (f.frac_bits - 1)) == 0), "no signalling NaN");
    }

    /// `any_value` mixes edges, NaNs, subnormals and random patterns 2 : 1 : 1 : 6. In f32, 8 of
    /// the 38 edge values are NaNs and 6 subnormal, and a random finite pattern is subnormal
    /// 1 time in 256, so NaNs make 0.1 + 0.2 * 8/38 = 14.2 % of the draws and subnormals
    /// 0.1 + 0.2 * 6/38 + 0.6/256 = 13.4 %.
    #[test]
    fn any_value_draws_the_documented_shares() {
        let f = Format::F32;
        assert_eq!(edge_values(f).len(), 38);
        let any = any_value(f);
        let mut g = Generator::new(4, "shares");
        let n = 200_000;
        let draws: Vec<u64> = (0..n).map(|_| any.draw(&mut g).unwrap()).collect();
        let share = |pred: &dyn Fn(u64) -> bool| draws.iter().filter(|&&x| pred(x)).count() as f64 / n as f64;
        let nan = share(&|x| f.is_nan(x));
        let subnormal = share(&|x| f.is_subnormal(x));
        assert!((nan - (0.1 + 0.2 * 8.0 / 38.0)).abs() < 0.004, "NaN share {nan}");
        assert!(
            (subnormal - (0.1 + 0.2 * 6.0 / 38.0 + 0.6 / 256.0)).abs() < 0.004,
            "subnormal share {subnormal}"
        );
        let tiny = tiny_value(f);
        let zeros = (0..n).filter(|_| f.is_zero(tiny.draw(&mut g).unwrap())).count() as f64 / n as f64;
        // 1 in 5 `+0`, and the any-value fifth's zero edges (2 of 38, a fifth of its draws).
        assert!((zeros - (0.2 + 0.2 * 0.2 * 2.0 / 38.0)).abs() < 0.004, "zero share {zeros}");
    }

    #[test]
    fn conjunctions_filter() {
        let f = Format::F64;
        let mut g = Generator::new(3, "and");
        let classes = [Class::Lt(0.0), Class::OddInteger];
        let s = class_sampler(f, &classes);
        for _ in 0..200 {
            let x = s.draw(&mut g).unwrap();
            assert!(f.to_f64(x) < 0.0 && in_class(f, x, &Class::OddInteger));
        }
    }
}
