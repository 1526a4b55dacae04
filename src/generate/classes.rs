//! Value classes as proptest strategies over raw bits.

use proptest::prelude::*;
use proptest::sample::select;

use crate::format::Format;
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

/// Any value of the format: edge values, NaNs and infinities, subnormals, and uniformly
/// random bit patterns.
pub fn any_value(f: Format) -> BoxedStrategy<u64> {
    prop_oneof![
        2 => select(edge_values(f)),
        1 => nan(f),
        1 => subnormal(f),
        6 => finite(f),
    ]
    .boxed()
}

/// Values that are in every class of `classes` (any value when the list is empty).
///
/// The most specific class decides how values are built; all of them filter the result.
pub fn class_strategy(f: Format, classes: &[Class]) -> BoxedStrategy<u64> {
    let Some(base) = classes.iter().max_by_key(|c| specificity(c)) else {
        return any_value(f);
    };
    let all = classes.to_vec();
    build(f, base)
        .prop_filter("value outside the row's classes", move |&x| all.iter().all(|c| in_class(f, x, c)))
        .boxed()
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

fn build(f: Format, class: &Class) -> BoxedStrategy<u64> {
    let signed = move |s: BoxedStrategy<u64>| {
        (any::<bool>(), s).prop_map(move |(neg, x)| if neg { f.neg(x) } else { x })
    };
    match class {
        Class::Any | Class::Ne(_) | Class::NotOddInteger => any_value(f),
        Class::Nan => nan(f),
        Class::NanPositiveSign => nan(f).prop_map(move |x| f.abs(x)).boxed(),
        Class::NanNegativeSign => nan(f).prop_map(move |x| f.abs(x) | f.sign_mask()).boxed(),
        Class::NotNan => any_value(f).prop_filter("NaN", move |&x| !f.is_nan(x)).boxed(),
        Class::PosInfinity => Just(f.pos_inf()).boxed(),
        Class::NegInfinity => Just(f.neg_inf()).boxed(),
        Class::Infinity => select(vec![f.pos_inf(), f.neg_inf()]).boxed(),
        Class::PosZero => Just(f.pos_zero()).boxed(),
        Class::NegZero => Just(f.neg_zero()).boxed(),
        Class::Zero => select(vec![f.pos_zero(), f.neg_zero()]).boxed(),
        Class::Finite => {
            prop_oneof![1 => select(vec![f.pos_zero(), f.neg_zero()]), 9 => nonzero_finite(f)].boxed()
        }
        Class::NonzeroFinite | Class::NotInteger => nonzero_finite(f),
        Class::PositiveFinite => nonzero_finite(f).prop_map(move |x| f.abs(x)).boxed(),
        Class::NegativeFinite => nonzero_finite(f).prop_map(move |x| f.abs(x) | f.sign_mask()).boxed(),
        Class::Gt(_) | Class::Lt(_) | Class::AbsGt(_) | Class::AbsLt(_) => any_value(f),
        Class::Eq(c) => exact_constant(f, *c, false),
        Class::AbsEq(c) => exact_constant(f, *c, true),
        Class::Integer => {
            signed(prop_oneof![1 => Just(f.pos_zero()), 9 => integer(f, false)].boxed()).boxed()
        }
        Class::OddInteger => signed(integer(f, true)).boxed(),
        Class::HalfInteger => signed(half_integer(f)).boxed(),
    }
}

/// `c` exactly (with both zeros for 0, and both signs when `either_sign`); a constant the
/// format cannot represent yields no values, which the row generator reports.
fn exact_constant(f: Format, c: f64, either_sign: bool) -> BoxedStrategy<u64> {
    let Some(x) = f.from_f64_exact(c) else {
        return Just(f.quiet_nan()).prop_filter("constant not representable", |_| false).boxed();
    };
    if either_sign || f.is_zero(x) { select(vec![x, f.neg(x)]).boxed() } else { Just(x).boxed() }
}

fn nan(f: Format) -> BoxedStrategy<u64> {
    (any::<bool>(), any::<u64>())
        .prop_map(move |(neg, payload)| {
            let frac = (payload & f.frac_mask()).max(1);
            f.compose(neg, (1 << f.exp_bits) - 1, frac)
        })
        .boxed()
}

fn subnormal(f: Format) -> BoxedStrategy<u64> {
    (any::<bool>(), any::<u64>()).prop_map(move |(neg, frac)| f.compose(neg, 0, frac.max(1))).boxed()
}

fn finite(f: Format) -> BoxedStrategy<u64> {
    any::<u64>()
        .prop_map(move |bits| {
            let x = bits & f.all_mask();
            if f.is_finite(x) { x } else { x & !(1 << f.frac_bits) } // drop one exponent bit
        })
        .boxed()
}

fn nonzero_finite(f: Format) -> BoxedStrategy<u64> {
    prop_oneof![
        1 => select(edge_values(f).into_iter().filter(|&x| f.is_finite(x) && !f.is_zero(x)).collect::<Vec<_>>()),
        1 => subnormal(f),
        6 => finite(f).prop_map(move |x| if f.is_zero(x) { x | 1 } else { x }),
    ]
    .boxed()
}

/// Integer values: exponents from 0 up past the precision (odd ones need a unit bit, so
/// they stay below 2^precision) with the fraction bits below the binary point cleared.
fn integer(f: Format, odd: bool) -> BoxedStrategy<u64> {
    let top = if odd { f.frac_bits } else { f.frac_bits + 4 };
    (0..=top, any::<u64>())
        .prop_map(move |(e, frac)| {
            let below_point = f.frac_bits.saturating_sub(e);
            let mut frac = frac & f.frac_mask() & !((1u64 << below_point) - 1);
            if odd && e > 0 {
                frac |= 1 << below_point;
            }
            f.compose(false, (f.bias() + e as i32) as u64, frac)
        })
        .boxed()
}

/// Positive values midway between two integers: exponents from -1 (0.5) up to the last one
/// with a bit worth 1/2, that bit set and the bits below it clear.
fn half_integer(f: Format) -> BoxedStrategy<u64> {
    (0..=f.frac_bits, any::<u64>())
        .prop_map(move |(k, frac)| {
            if k == 0 {
                return f.compose(false, (f.bias() - 1) as u64, 0);
            }
            // Exponent k - 1: the fraction bit worth 1/2 is bit frac_bits - k.
            let half = f.frac_bits - k;
            let frac = (frac & f.frac_mask() & !((1u64 << half) - 1)) | (1 << half);
            f.compose(false, (f.bias() + k as i32 - 1) as u64, frac)
        })
        .boxed()
}

/// Operands where underflow can happen: zeros, subnormals, the smallest normals, and any value.
pub fn tiny_value(f: Format) -> BoxedStrategy<u64> {
    let small_normal =
        (any::<bool>(), 1u64..4, any::<u64>()).prop_map(move |(neg, e, frac)| f.compose(neg, e, frac));
    let subnormal = (any::<bool>(), any::<u64>()).prop_map(move |(neg, frac)| f.compose(neg, 0, frac.max(1)));
    prop_oneof![2 => subnormal, 1 => small_normal, 1 => Just(f.pos_zero()), 1 => any_value(f)].boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    /// Every class's strategy yields only members of the class, in every format.
    #[test]
    fn class_strategies_stay_inside_their_class() {
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
                let s = class_strategy(f, std::slice::from_ref(class));
                for _ in 0..300 {
                    let x = g.draw(&s).unwrap();
                    assert!(in_class(f, x, class), "{} {class:?} gave {}", f.name, f.describe(x));
                }
            }
        }
    }

    #[test]
    fn class_strategies_reach_the_edges() {
        let f = Format::F32;
        let mut g = Generator::new(2, "edges");
        let s = class_strategy(f, &[Class::NonzeroFinite]);
        let draws: Vec<u64> = (0..3000).map(|_| g.draw(&s).unwrap()).collect();
        for edge in [f.min_subnormal(), f.max_finite(), f.neg(f.min_normal())] {
            assert!(draws.contains(&edge), "never drew {}", f.describe(edge));
        }
        assert!(draws.iter().any(|&x| f.is_subnormal(x)));
        let nans: Vec<u64> = (0..300).map(|_| g.draw(&class_strategy(f, &[Class::Nan])).unwrap()).collect();
        assert!(nans.iter().any(|&x| f.is_sign_negative(x)) && nans.iter().any(|&x| !f.is_sign_negative(x)));
        assert!(nans.iter().any(|&x| x & (1 << (f.frac_bits - 1)) == 0), "no signalling NaN");
    }

    #[test]
    fn conjunctions_filter() {
        let f = Format::F64;
        let mut g = Generator::new(3, "and");
        let classes = [Class::Lt(0.0), Class::OddInteger];
        let s = class_strategy(f, &classes);
        for _ in 0..200 {
            let x = g.draw(&s).unwrap();
            assert!(f.to_f64(x) < 0.0 && in_class(f, x, &Class::OddInteger));
        }
    }
}
