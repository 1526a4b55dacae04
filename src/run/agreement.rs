//! `opspec oracle-agreement`: the native and the fast reference against MPFR on many random
//! inputs, as evidence beyond the edge and grid inputs the unit tests compare (and, for the
//! fast reference's one-operand functions, every 16-bit input: `oracle::fast`'s tests), or
//! with `--exhaustive` on every pair of 16-bit operands ([`every_pair`]).
//!
//! Inputs are seeded and mix kinds: uniform bit patterns; a second operand within a few
//! binades of the first (cancellation, ties); for fused multiply-add, an addend far below the
//! product (the midpoint cases that break a single f64 fma); and for the fast reference's
//! functions, hard cases: of 32 uniform candidates, the one whose exact value (CORE-MATH's
//! f64 result) lies nearest a rounding boundary of the format, operands of small or large
//! magnitude, and the function's own hard region ([`hard`]).

use opspec_adapter::{BinaryOp, OpKind, TernaryOp, UnaryOp};
use rayon::prelude::*;

use crate::bits::format::Format;
use crate::generate::{Generator, hard};
use crate::oracle::{fast, fpenv, native, ops};

pub mod every_pair;

/// The operations and formats the native reference computes (every one [`native::covers`]),
/// and those the fast reference computes ([`fast::covers`]) but its one-operand functions in
/// f16 and bf16, whose every input its tests compare.
pub fn covered() -> Vec<(OpKind, Format)> {
    let ops = BinaryOp::ALL.into_iter().map(OpKind::Binary).chain(TernaryOp::ALL.map(OpKind::Ternary));
    let formats = [Format::F16, Format::BF16, Format::F32, Format::F64];
    let unary = UnaryOp::ALL.into_iter().map(OpKind::Unary);
    ops.chain(unary)
        .flat_map(|op| formats.into_iter().map(move |f| (op, f)))
        .filter(|&(op, f)| {
            native::covers(op, f) || fast::covers(op, f) && (op.arity() == 2 || f == Format::F32)
        })
        .collect()
}

/// The reference under test: the native one where it covers `op`, else the fast one; `None`
/// where the fast one leaves the input to MPFR.
fn under_test(op: OpKind, f: Format, case: &[u64]) -> Option<u64> {
    native::reference(op, f, case).or_else(|| fast::reference(op, f, case))
}

/// The outcome of one comparison run.
#[derive(Default)]
pub struct Agreement {
    pub cases: u64,
    /// The first disagreeing inputs (at most 10), with the native and the MPFR result.
    pub mismatches: Vec<(Vec<u64>, u64, u64)>,
    /// How many disagreed.
    pub mismatched: u64,
    /// How many the fast reference left to MPFR (a 16-bit result it cannot prove).
    pub deferred: u64,
}

impl Agreement {
    /// Counts one input the reference under test left to MPFR.
    fn defer(&mut self) {
        self.cases += 1;
        self.deferred += 1;
    }

    /// Counts one input: the result under test against MPFR's.
    fn judge(&mut self, case: &[u64], result: u64, mpfr: u64, f: Format) {
        self.cases += 1;
        if result != mpfr && !(f.is_nan(result) && f.is_nan(mpfr)) {
            self.mismatched += 1;
            if self.mismatches.len() < 10 {
                self.mismatches.push((case.to_vec(), result, mpfr));
            }
        }
    }

    /// Adds another part's counts and its first mismatches (up to 10 in all).
    fn absorb(&mut self, part: Agreement) {
        self.cases += part.cases;
        self.mismatched += part.mismatched;
        self.deferred += part.deferred;
        let room = 10 - self.mismatches.len().min(10);
        self.mismatches.extend(part.mismatches.into_iter().take(room));
    }
}

/// Compares the native or fast reference with MPFR on `n` seeded random inputs of `op` in `f`.
pub fn compare(op: OpKind, f: Format, n: u64, seed: u64) -> Result<Agreement, String> {
    let arity = op.arity();
    const BLOCK: u64 = 1 << 16;
    let blocks = n.div_ceil(BLOCK);
    let parts = (0..blocks)
        .into_par_iter()
        .map(|b| {
            fpenv::check()?;
            let mut g = Generator::new(seed, &format!("oracle-agreement {op} {} {b}", f.name));
            let mut part = Agreement::default();
            for _ in b * BLOCK..((b + 1) * BLOCK).min(n) {
                let case =
                    if native::covers(op, f) { draw(&mut g, f, arity) } else { hard::case(&mut g, op, f) };
                let Some(result) = under_test(op, f, &case) else {
                    part.defer();
                    continue;
                };
                let mpfr = ops::reference(op, f, &case).ok_or("no MPFR reference")?;
                part.judge(&case, result, mpfr, f);
            }
            Ok(part)
        })
        .collect::<Result<Vec<_>, String>>()?;
    let mut all = Agreement::default();
    parts.into_iter().for_each(|p| all.absorb(p));
    Ok(all)
}

/// One random case: uniform bits, or later operands near the first, or (three operands) an
/// addend 0 to 80 binades below the product.
fn draw(g: &mut Generator, f: Format, arity: usize) -> Vec<u64> {
    let mut case: Vec<u64> = (0..arity).map(|_| g.bits() & f.all_mask()).collect();
    let kind = g.bits() % 4;
    let exp = |x: u64| f.biased_exp(x) as i64;
    let top = (1i64 << f.exp_bits) - 2;
    let place = |bits: u64, e: i64| f.compose(bits >> 63 == 1, e.clamp(0, top) as u64, bits);
    match (kind, arity) {
        (1 | 2, 2) => case[1] = place(g.bits(), exp(case[0]) + (g.bits() % 32) as i64 - 16),
        (1, 3) => {
            let product = exp(case[0]) + exp(case[1]) - i64::from(f.bias());
            case[2] = place(g.bits(), product - (g.bits() % 81) as i64);
        }
        _ => {}
    }
    case
}

/// The native reference against MPFR on every edge pair, edge against grid, and random inputs.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{edge_values, grid_values, random_cases};

    const FORMATS: [Format; 4] = [Format::F16, Format::BF16, Format::F32, Format::F64];

    fn covered() -> Vec<OpKind> {
        let binary = BinaryOp::ALL.into_iter().map(OpKind::Binary);
        binary.chain(TernaryOp::ALL.map(OpKind::Ternary)).collect()
    }

    /// Every covered operation agrees bit for bit with the MPFR oracle on `cases`.
    fn agrees(f: Format, op: OpKind, cases: impl Iterator<Item = Vec<u64>>) {
        for case in cases {
            let native = native::reference(op, f, &case).unwrap();
            let mpfr = ops::reference(op, f, &case).unwrap();
            let hex: Vec<String> = case.iter().map(|x| format!("{x:#x}")).collect();
            assert_eq!(native, mpfr, "{op} {} ({})", f.name, hex.join(", "));
        }
    }

    /// Every special pair (edge × edge) and every edge against every grid value, both ways.
    #[test]
    fn agrees_with_mpfr_on_every_edge_pair_and_edge_grid_pair() {
        for f in FORMATS {
            let edges = &edge_values(f);
            let grid = &grid_values(f);
            for op in covered().into_iter().filter(|&op| native::covers(op, f)) {
                match op.arity() {
                    2 => {
                        let both = edges.iter().chain(grid);
                        let pairs = edges
                            .iter()
                            .flat_map(|&a| both.clone().flat_map(move |&b| [vec![a, b], vec![b, a]]));
                        agrees(f, op, pairs);
                    }
                    _ => {
                        let triples = edges.iter().flat_map(|&a| {
                            edges.iter().flat_map(move |&b| edges.iter().map(move |&c| vec![a, b, c]))
                        });
                        agrees(f, op, triples);
                    }
                }
            }
        }
    }

    /// floor_divide and remainder where the dividend is a small multiple of the divisor: an
    /// integer quotient, the floor with no step down and the zero remainder in the divisor's
    /// sign (a quotient computed from the divisor's reciprocal falls just short of it for many
    /// of these pairs: truncated, it would leave a whole divisor).
    #[test]
    fn agrees_with_mpfr_on_multiples_of_the_divisor() {
        for f in [Format::F16, Format::BF16, Format::F32] {
            let divisors = grid_values(f).into_iter().filter(|&y| f.is_finite(y) && !f.is_zero(y));
            let pairs = divisors.flat_map(|y| {
                (2..=64).filter_map(move |n: i32| {
                    let x = f64::from(n) * native::to_f64(f, y);
                    let bits = native::narrow(f, x);
                    (native::to_f64(f, bits) == x).then(|| vec![bits, y])
                })
            });
            let pairs: Vec<Vec<u64>> = pairs.collect();
            assert!(pairs.len() > 1000, "{}: {} pairs", f.name, pairs.len());
            for op in [BinaryOp::FloorDivide, BinaryOp::Remainder] {
                agrees(f, OpKind::Binary(op), pairs.iter().cloned());
            }
        }
    }

    #[test]
    fn agrees_with_mpfr_on_random_inputs() {
        for f in FORMATS {
            for op in covered().into_iter().filter(|&op| native::covers(op, f)) {
                let mut g = Generator::new(7, &format!("native {op} {}", f.name));
                agrees(f, op, random_cases(f, op.arity(), 3_000, &mut g).unwrap().into_iter());
            }
        }
    }
}
