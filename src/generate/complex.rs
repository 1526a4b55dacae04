//! Complex operands: each component drawn from the value classes the rows name (±0, ±inf,
//! NaN, finite, nonzero, positive, ...), with the real generators of [`classes`](super::classes).
//!
//! An operand's components are `a, b` (and `c, d` for a second operand); an input is the four
//! components' bits of the parts' format (`c` and `d` unused by one-operand functions).

use super::Generator;
use super::classes::{ValueSampler, class_sampler};
use crate::bits::format::Format;
use crate::spec::complex::ComplexCondition;
use crate::spec::matching::in_class;

/// The components `a, b, c, d` of one input, as bits.
pub type Components = [u64; 4];

/// Whether `x` meets `condition` (the first `2 * arity` components).
pub fn meets(f: Format, condition: &ComplexCondition, arity: usize, x: &Components) -> bool {
    let parts = &x[..2 * arity];
    let each =
        parts.iter().enumerate().all(|(k, &v)| condition.component(k).iter().all(|c| in_class(f, v, c)));
    each && condition.either.as_ref().is_none_or(|c| parts.iter().any(|&v| in_class(f, v, c)))
}

/// `n` inputs meeting `condition` and none of `unless`, drawn with `rng`; an error when the
/// conditions leave (almost) nothing to draw.
pub fn row_inputs(
    f: Format,
    condition: &ComplexCondition,
    unless: &[&ComplexCondition],
    arity: usize,
    n: usize,
    rng: &mut Generator,
) -> Result<Vec<Components>, String> {
    let samplers: Vec<ValueSampler> =
        (0..2 * arity).map(|k| class_sampler(f, condition.component(k))).collect();
    // Per component, its classes and the `either` class: built once, like `samplers`.
    let either: Vec<ValueSampler> = match &condition.either {
        Some(class) => (0..2 * arity)
            .map(|k| {
                let mut classes = condition.component(k).to_vec();
                classes.push(class.clone());
                class_sampler(f, &classes)
            })
            .collect(),
        None => Vec::new(),
    };
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n {
        tries += 1;
        if tries > 200 * n.max(1) {
            return Err(format!(
                "only {} of {n} inputs meet the row's conditions after {tries} draws",
                out.len()
            ));
        }
        let mut x = [0u64; 4];
        for (k, s) in samplers.iter().enumerate() {
            x[k] = s.draw(rng)?;
        }
        if !either.is_empty() {
            // Put the `either` class on one component, chosen at random.
            let k = (rng.bits() % (2 * arity) as u64) as usize;
            x[k] = either[k].draw(rng)?;
        }
        if meets(f, condition, arity, &x) && !unless.iter().any(|u| meets(f, u, arity, &x)) {
            out.push(x);
        }
    }
    Ok(out)
}

/// `n` inputs of finite components of moderate magnitude (`2^-20` to `2^21`, or a zero of
/// either sign one time in eight), where textbook formulas neither overflow nor underflow:
/// the inputs of the checks against the oracle.
pub fn moderate_inputs(f: Format, arity: usize, n: usize, rng: &mut Generator) -> Vec<Components> {
    (0..n)
        .map(|_| {
            let mut x = [0u64; 4];
            for part in x.iter_mut().take(2 * arity) {
                let r = rng.bits();
                let negative = r & 1 == 1;
                *part = if (r >> 1).is_multiple_of(8) {
                    f.compose(negative, 0, 0)
                } else {
                    let exponent = ((r >> 4) % 41) as i32 - 20;
                    f.compose(negative, (f.bias() + exponent) as u64, (r >> 12) & f.frac_mask())
                };
            }
            x
        })
        .collect()
}

/// `n` inputs of `pow`: a base as [`moderate_inputs`] draws one (`2^-20` to `2^21`, or a zero
/// part), and an exponent whose parts are below 8 in magnitude (`2^-20` to `2^3`, or zero), so
/// that most results are within the format's range.
pub fn pow_inputs(f: Format, n: usize, rng: &mut Generator) -> Vec<Components> {
    let mut inputs = moderate_inputs(f, 2, n, rng);
    for x in &mut inputs {
        for part in &mut x[2..] {
            let r = rng.bits();
            let exponent = ((r >> 4) % 23) as i32 - 20;
            *part = if (r >> 1).is_multiple_of(8) {
                f.compose(r & 1 == 1, 0, 0)
            } else {
                f.compose(r & 1 == 1, (f.bias() + exponent) as u64, (r >> 12) & f.frac_mask())
            };
        }
    }
    inputs
}

/// `n` one-operand inputs of finite parts for the transcendental functions. Each part is, out
/// of sixteen draws: a zero of either sign twice; `±(1 ± δ)` with `δ` from half down to the
/// last bit once (near the branch points ±1 and ±i, and `|x| ≈ 1`, where `log`, `log1p` and the
/// inverse functions cancel); of moderate magnitude (as [`moderate_inputs`]) six times; and
/// with a biased exponent drawn uniformly from the format's whole range, subnormals included,
/// seven times (tiny parts, where `expm1` and `log1p` cancel, and huge ones, where textbook
/// formulas overflow and `sin` and `cos` need their arguments reduced).
pub fn wide_inputs(f: Format, n: usize, rng: &mut Generator) -> Vec<Components> {
    let biased_exponents = (1u64 << f.exp_bits) - 1;
    let bias = f.bias() as u64;
    (0..n)
        .map(|_| {
            let mut x = [0u64; 4];
            for part in x.iter_mut().take(2) {
                let r = rng.bits();
                let negative = r & 1 == 1;
                let frac = (r >> 12) & f.frac_mask();
                *part = match (r >> 1) % 16 {
                    0 | 1 => f.compose(negative, 0, 0),
                    2 => {
                        // 1 + δ keeps the low `frac_bits - k` bits of `frac`; 1 - δ sets the
                        // `k` bits above them.
                        let s = rng.bits();
                        let k = s % (f.frac_bits as u64 + 1);
                        let low = frac & (f.frac_mask() >> k);
                        if (s >> 8) & 1 == 0 {
                            f.compose(negative, bias, low)
                        } else {
                            f.compose(negative, bias - 1, f.frac_mask() ^ low)
                        }
                    }
                    3..=8 => {
                        let exponent = ((r >> 5) % 41) as i32 - 20;
                        f.compose(negative, (f.bias() + exponent) as u64, frac)
                    }
                    _ => f.compose(negative, (r >> 5) % biased_exponents, frac),
                };
            }
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::schema::{Class, Classes};

    #[test]
    fn row_inputs_meet_their_conditions() {
        let f = Format::F32;
        let condition = ComplexCondition {
            a: Classes(vec![Class::PosInfinity]),
            b: Classes(vec![Class::PositiveFinite]),
            ..ComplexCondition::default()
        };
        let mut rng = Generator::new(1, "complex");
        for x in row_inputs(f, &condition, &[], 1, 50, &mut rng).unwrap() {
            assert_eq!(x[0], f.pos_inf());
            assert!(f.is_finite(x[1]) && !f.is_sign_negative(x[1]) && !f.is_zero(x[1]));
        }
        let either = ComplexCondition { either: Some(Class::Nan), ..ComplexCondition::default() };
        let zeros = ComplexCondition { a: Classes(vec![Class::Zero]), ..ComplexCondition::default() };
        for x in row_inputs(f, &either, &[&zeros], 2, 50, &mut rng).unwrap() {
            assert!(x.iter().any(|&v| f.is_nan(v)) && !f.is_zero(x[0]));
        }
        let never =
            ComplexCondition { a: Classes(vec![Class::Nan, Class::Zero]), ..ComplexCondition::default() };
        assert!(row_inputs(f, &never, &[], 1, 5, &mut rng).is_err());
    }

    #[test]
    fn moderate_inputs_are_finite_and_moderate() {
        let f = Format::F64;
        let mut rng = Generator::new(2, "moderate");
        for x in moderate_inputs(f, 2, 200, &mut rng) {
            for &v in &x {
                let m = f.to_f64(v).abs();
                assert!(m == 0.0 || (2f64.powi(-20)..2f64.powi(21)).contains(&m), "{m}");
            }
        }
    }

    #[test]
    fn wide_inputs_reach_tiny_moderate_and_huge_parts() {
        let f = Format::F32;
        let mut rng = Generator::new(3, "wide");
        let inputs = wide_inputs(f, 2000, &mut rng);
        let parts: Vec<f64> = inputs.iter().flat_map(|x| [x[0], x[1]]).map(|v| f.to_f64(v).abs()).collect();
        assert!(inputs.iter().all(|x| f.is_finite(x[0]) && f.is_finite(x[1]) && x[2] == 0 && x[3] == 0));
        let share =
            |p: &dyn Fn(f64) -> bool| parts.iter().filter(|&&m| p(m)).count() as f64 / parts.len() as f64;
        assert!((0.08..0.2).contains(&share(&|m| m == 0.0)));
        assert!(share(&|m| m > 0.0 && m < 1e-30) > 0.03);
        assert!(share(&|m| (2f64.powi(-20)..2f64.powi(21)).contains(&m)) > 0.4);
        assert!(share(&|m| m > 1e30) > 0.03);
        assert!(share(&|m| m != 1.0 && (m - 1.0).abs() < 1e-4) > 0.02);
    }
}
