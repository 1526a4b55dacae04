//! Case generation: value classes as samplers, edge values, and the inputs of each check.
//! Every generator draws from a [`Generator`] seeded by the run's seed and the check id, so the
//! same check id always gets the same inputs; the enumerations of [`sweep`] (every 16-bit value
//! or pair, dense grids) need no seed.

mod classes;
pub mod complex;
pub mod hard;
mod integer;
pub mod layouts;
mod sampler;
mod scatter;
pub mod shapes;
pub mod sweep;
pub mod unary_sweep;

pub use classes::{ValueSampler, any_value, class_sampler, edge_values, tiny_value};
pub use integer::{IntValues, int_edge_values, int_values};
pub use sampler::Generator;
pub use scatter::scatter_problems;
pub use sweep::{Sweep, grid_values};

use crate::bits::format::Format;
use crate::spec::matching::{condition_holds, governing_rows};
use crate::spec::schema::{Operand, Relation, SpecTable};

/// Inputs of a check: `cases[i]` holds one value per operand.
pub type Cases = Vec<Vec<u64>>;

/// How many draws one case may take before a row is declared unsatisfiable.
const MAX_ATTEMPTS_PER_CASE: usize = 2_000;

/// `n` cases for which row `row` of `table` governs the result: its condition holds and no
/// row that overrides it applies.
pub fn row_cases(
    table: &SpecTable,
    row: usize,
    f: Format,
    n: usize,
    generator: &mut Generator,
) -> Result<Cases, String> {
    let operands = [Operand::X1, Operand::X2, Operand::X3];
    let arity = table.operands.len().min(operands.len());
    let when = &table.rows[row].when;
    // Each operand's sampler, without and with the classes of `either` (which one operand,
    // drawn per case, must also be in).
    let samplers: Vec<[ValueSampler; 2]> = operands[..arity]
        .iter()
        .map(|&operand| {
            let mut classes = when.operand_classes(operand).to_vec();
            classes.extend(when.both.clone());
            let plain = class_sampler(f, &classes);
            classes.extend(when.either.clone());
            [plain, class_sampler(f, &classes)]
        })
        .collect();
    let mut cases = Vec::with_capacity(n);
    let mut case = [0u64; 3];
    let mut attempts = 0;
    while cases.len() < n {
        attempts += 1;
        if attempts > MAX_ATTEMPTS_PER_CASE * (cases.len() + 1) {
            return Err(format!(
                "row `{}`: no {} inputs satisfy its condition after {attempts} draws",
                table.rows[row].id.value, f.name
            ));
        }
        let either_target = match &when.either {
            Some(_) => generator.below(arity),
            None => usize::MAX,
        };
        // Without a stated relation, x2 is sometimes x1 or -x1 (1 in 8 each), so that rows that
        // need equal operands (or that other rows leave only such inputs) are reached too.
        let echo = match when.relation {
            None => [None, Some(false), Some(true)][generator.weighted(&[6, 1, 1])],
            Some(_) => None,
        };
        for k in 0..arity {
            case[k] = match (k, when.relation, echo) {
                (1, Some(Relation::Negation), _) | (1, None, Some(true)) => f.neg(case[0]),
                (1, Some(Relation::Equal), _) | (1, None, Some(false)) => case[0],
                _ => samplers[k][usize::from(k == either_target)].draw(generator)?,
            };
        }
        let case = &case[..arity];
        if condition_holds(f, when, case) && governing_rows(table, f, case).contains(&row) {
            cases.push(case.to_vec());
        }
    }
    Ok(cases)
}

/// The most edge cases one check runs: every combination for two operands (edges² is about
/// 1,500), a spread sample for three (edges³ is about 55,000).
pub const MAX_EDGE_CASES: usize = 8_192;

/// Combinations of the format's edge values, one per operand: all `edges^arity` of them when
/// they are at most [`MAX_EDGE_CASES`], otherwise every `step`-th combination in row-major
/// order, with `step` coprime to the number of edge values so that each operand still takes
/// every edge value, against a different partner each time.
pub fn edge_cases(f: Format, arity: usize) -> Cases {
    let edges = edge_values(f);
    let n = edges.len();
    let (total, step) = edge_spread(n, arity);
    (0..total)
        .step_by(step)
        .map(|mut index| {
            let mut case = vec![0; arity];
            for slot in case.iter_mut().rev() {
                *slot = edges[index % n];
                index /= n;
            }
            case
        })
        .collect()
}

/// How many cases [`edge_cases`] gives, without making them.
pub fn edge_case_count(f: Format, arity: usize) -> usize {
    let (total, step) = edge_spread(edge_values(f).len(), arity);
    total.div_ceil(step)
}

/// The number of combinations of `n` edges in `arity` slots, and the step through them that
/// keeps at most [`MAX_EDGE_CASES`] (coprime with `n`, so every edge reaches every slot).
fn edge_spread(n: usize, arity: usize) -> (usize, usize) {
    let total = n.pow(arity as u32);
    let mut step = total.div_ceil(MAX_EDGE_CASES).max(1);
    while step > 1 && gcd(step, n) != 1 {
        step += 1;
    }
    (total, step)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `n` random cases: each operand from [`any_value`]; half of the later operands are placed
/// within a few binades of the first, so that sums cancel and round in interesting ways.
pub fn random_cases(f: Format, arity: usize, n: usize, generator: &mut Generator) -> Result<Cases, String> {
    let any = any_value(f);
    let reach = f.precision() as i64 + 3;
    (0..n)
        .map(|_| {
            let first = any.draw(generator)?;
            let mut case = Vec::with_capacity(arity);
            case.push(first);
            for _ in 1..arity {
                let value = if generator.coin() && f.is_finite(first) && !f.is_zero(first) {
                    let shift = generator.inclusive_i64(-reach, reach);
                    near_value(f, first, shift, generator.bits())
                } else {
                    any.draw(generator)?
                };
                case.push(value);
            }
            Ok(case)
        })
        .collect()
}

/// A finite value whose exponent is `first`'s shifted by `shift`, with a random sign and
/// significand taken from `noise`.
fn near_value(f: Format, first: u64, shift: i64, noise: u64) -> u64 {
    let max_biased = (1i64 << f.exp_bits) - 2;
    let biased = (f.biased_exp(first) as i64 + shift).clamp(0, max_biased) as u64;
    f.compose(noise >> 63 == 1, biased, noise)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_reproducible() {
        let draw = |label: &str| {
            let mut g = Generator::new(7, label);
            random_cases(Format::F32, 2, 50, &mut g).unwrap()
        };
        assert_eq!(draw("a"), draw("a"));
        assert_ne!(draw("a"), draw("b"));
    }

    #[test]
    fn edge_cases_are_the_cartesian_product() {
        let n = edge_values(Format::F16).len();
        assert_eq!(edge_cases(Format::F16, 2).len(), n * n);
        assert_eq!(edge_cases(Format::F16, 1).len(), n);
        assert_eq!(
            edge_cases(Format::F16, 2)[1],
            vec![edge_values(Format::F16)[0], edge_values(Format::F16)[1]]
        );
    }

    #[test]
    fn three_operand_edges_are_capped_and_reach_every_value_in_every_slot() {
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            let edges = edge_values(f);
            let cases = edge_cases(f, 3);
            assert_eq!(cases.len(), edge_case_count(f, 3), "{}: the count known up front", f.name);
            assert_eq!(edge_cases(f, 2).len(), edge_case_count(f, 2));
            assert!(cases.len() <= MAX_EDGE_CASES && cases.len() > MAX_EDGE_CASES / 2, "{}", cases.len());
            for k in 0..3 {
                for e in &edges {
                    assert!(cases.iter().any(|c| c[k] == *e), "{} slot {k} misses 0x{e:x}", f.name);
                }
            }
        }
    }
}
