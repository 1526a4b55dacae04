//! Which rows of a table apply to given operand values.

use crate::bits::format::Format;

use super::schema::{Class, Condition, Operand, Relation, Row, SpecTable};

/// True when the value `x` (bits in format `f`) is in `class`.
pub fn in_class(f: Format, x: u64, class: &Class) -> bool {
    in_class_decoded(f, x, f.to_f64(x), class)
}

/// [`in_class`] of `x`, whose exact value is `v` (a sweep decodes each value once).
#[inline(always)]
pub fn in_class_decoded(f: Format, x: u64, v: f64, class: &Class) -> bool {
    let finite = f.is_finite(x);
    // With integer conversions only: `%`, `floor` and `trunc` are library calls on baseline
    // x86_64, which the optimiser may hoist out of the match into every sweep value's key.
    let integer = || finite && integral(v);
    let odd = || integer() && v.abs() < TWO_53 && (v as i64) & 1 == 1;
    match class {
        Class::Any => true,
        Class::Nan => f.is_nan(x),
        Class::NanPositiveSign => f.is_nan(x) && !f.is_sign_negative(x),
        Class::NanNegativeSign => f.is_nan(x) && f.is_sign_negative(x),
        Class::NotNan => !f.is_nan(x),
        Class::PosInfinity => f.is_infinite(x) && !f.is_sign_negative(x),
        Class::NegInfinity => f.is_infinite(x) && f.is_sign_negative(x),
        Class::Infinity => f.is_infinite(x),
        Class::PosZero => f.is_zero(x) && !f.is_sign_negative(x),
        Class::NegZero => f.is_zero(x) && f.is_sign_negative(x),
        Class::Zero => f.is_zero(x),
        Class::Finite => finite,
        Class::NonzeroFinite => finite && !f.is_zero(x),
        Class::PositiveFinite => finite && v > 0.0,
        Class::NegativeFinite => finite && v < 0.0,
        Class::Gt(c) => v > *c,
        Class::Lt(c) => v < *c,
        Class::Eq(c) => v == *c,
        Class::Ne(c) => v != *c,
        Class::AbsGt(c) => v.abs() > *c,
        Class::AbsLt(c) => v.abs() < *c,
        Class::AbsEq(c) => v.abs() == *c,
        Class::Integer => integer(),
        Class::OddInteger => odd(),
        Class::NotInteger => finite && !integer(),
        Class::NotOddInteger => !odd(),
        Class::HalfInteger => finite && !integral(v) && integral(2.0 * v),
    }
}

/// 2^53: from here on every f64 is an even integer.
const TWO_53: f64 = 9_007_199_254_740_992.0;

/// Whether the finite `v` is an integer (from 2^52 on, every f64 is one).
#[inline(always)]
fn integral(v: f64) -> bool {
    v.abs() >= TWO_53 / 2.0 || (v as i64) as f64 == v
}

/// True when `x1` and `x2` stand in `relation`.
pub fn related(f: Format, x1: u64, x2: u64, relation: Relation) -> bool {
    match relation {
        Relation::Negation => x2 == f.neg(x1),
        Relation::NotNegation => x2 != f.neg(x1),
        Relation::Equal => f.to_f64(x1) == f.to_f64(x2),
        Relation::NotEqual => f.to_f64(x1) != f.to_f64(x2),
        Relation::SameSign => f.is_sign_negative(x1) == f.is_sign_negative(x2),
        Relation::DifferentSign => f.is_sign_negative(x1) != f.is_sign_negative(x2),
    }
}

/// True when every constraint of `when` holds for `inputs` (one value per operand).
pub fn condition_holds(f: Format, when: &Condition, inputs: &[u64]) -> bool {
    let operands = [Operand::X1, Operand::X2, Operand::X3];
    let per_operand =
        operands.iter().zip(inputs).all(|(&o, &x)| when.operand_classes(o).iter().all(|c| in_class(f, x, c)));
    let either = when.either.as_ref().is_none_or(|c| inputs.iter().any(|&x| in_class(f, x, c)));
    let both = when.both.as_ref().is_none_or(|c| inputs.iter().all(|&x| in_class(f, x, c)));
    let relation = when.relation.is_none_or(|r| related(f, inputs[0], inputs[1], r));
    let greater = when.greater.is_none_or(|[a, b]| f.to_f64(inputs[a.index()]) > f.to_f64(inputs[b.index()]));
    per_operand && either && both && relation && greater
}

/// Indices of the rows that govern `inputs`: those whose condition holds, less those
/// overridden by another row whose condition also holds.
pub fn governing_rows(table: &SpecTable, f: Format, inputs: &[u64]) -> Vec<usize> {
    governing_rows_among(table, f, inputs, |_| true)
}

/// [`governing_rows`] as if the table had only the rows `keep` keeps.
pub fn governing_rows_among(
    table: &SpecTable,
    f: Format,
    inputs: &[u64],
    keep: impl Fn(&Row) -> bool,
) -> Vec<usize> {
    let holding: Vec<usize> = (0..table.rows.len())
        .filter(|&i| keep(&table.rows[i]) && condition_holds(f, &table.rows[i].when, inputs))
        .collect();
    holding
        .iter()
        .copied()
        .filter(|&i| !holding.iter().any(|&j| overrides(&table.rows[j], &table.rows[i])))
        .collect()
}

fn overrides(winner: &Row, loser: &Row) -> bool {
    winner.overrides.contains(&loser.id.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_on_f32_values() {
        let f = Format::F32;
        let bits = |v: f32| v.to_bits() as u64;
        assert!(in_class(f, bits(3.0), &Class::OddInteger));
        assert!(!in_class(f, bits(4.0), &Class::OddInteger));
        assert!(in_class(f, bits(f32::MAX), &Class::Integer));
        assert!(!in_class(f, bits(f32::MAX), &Class::OddInteger), "huge integers are even");
        assert!(in_class(f, bits(0.5), &Class::NotInteger));
        assert!(!in_class(f, bits(f32::INFINITY), &Class::NotInteger));
        assert!(in_class(f, bits(f32::INFINITY), &Class::NotOddInteger));
        assert!(in_class(f, bits(-2.5), &Class::HalfInteger));
        assert!(!in_class(f, bits(2.25), &Class::HalfInteger));
        assert!(in_class(f, bits(f32::INFINITY), &Class::Gt(0.0)));
        assert!(in_class(f, bits(f32::NAN), &Class::Ne(1.0)));
        assert!(!in_class(f, bits(f32::NAN), &Class::Gt(0.0)));
        assert!(in_class(f, bits(-0.0), &Class::Eq(0.0)));
        assert!(in_class(f, bits(-1.0), &Class::AbsEq(1.0)));
        assert!(in_class(f, 0xffc0_0001, &Class::NanNegativeSign));
    }

    /// The integer classes agree with their definitions by `trunc`, `%` and `floor` on every
    /// f16 value and on f32 values around the powers of two up to 2^64.
    #[test]
    fn integer_classes_agree_with_their_definitions() {
        let f16 = (0..1u64 << 16).map(|x| (Format::F16, x));
        let f32 = (0..64).flat_map(|e| {
            let p = 2f32.powi(e);
            [
                p,
                -p,
                p * 1.5,
                p + 0.5,
                p - 0.5,
                p * 0.75,
                f32::from_bits(p.to_bits() + 1),
                f32::from_bits(p.to_bits() - 1),
            ]
        });
        let f32 = f32.map(|v| (Format::F32, u64::from(v.to_bits())));
        for (f, x) in f16.chain(f32) {
            let v = f.to_f64(x);
            let finite = v.is_finite();
            let integer = finite && v.trunc() == v;
            let odd = integer && v.abs() < TWO_53 && v % 2.0 != 0.0;
            let half = finite && v - v.floor() == 0.5;
            let classes = [Class::Integer, Class::OddInteger, Class::NotOddInteger, Class::HalfInteger];
            let got = classes.map(|c| in_class(f, x, &c));
            assert_eq!(got, [integer, odd, !odd, half], "{} {x:#x} ({v})", f.name);
        }
    }

    #[test]
    fn relations() {
        let f = Format::F16;
        assert!(related(f, 0x3c00, 0xbc00, Relation::Negation));
        assert!(!related(f, 0x3c00, 0x3c00, Relation::Negation));
        assert!(related(f, 0x0000, 0x8000, Relation::Equal), "+0 == -0");
        assert!(related(f, 0x7e00, 0x7e00, Relation::NotEqual), "NaN != NaN");
        assert!(related(f, 0x8000, 0xbc00, Relation::SameSign));
        // clip's crossed bounds: min (x2) > max (x3), numerically; NaN orders with nothing.
        let crossed = Condition { greater: Some([Operand::X2, Operand::X3]), ..Condition::default() };
        assert!(condition_holds(f, &crossed, &[0x7e00, 0x4000, 0x3c00]), "2 > 1");
        assert!(!condition_holds(f, &crossed, &[0, 0x3c00, 0x3c00]), "1 > 1 is false");
        assert!(!condition_holds(f, &crossed, &[0, 0x0000, 0x8000]), "+0 > -0 is false");
        assert!(!condition_holds(f, &crossed, &[0, 0x7e00, 0x3c00]), "NaN > 1 is false");
    }
}
