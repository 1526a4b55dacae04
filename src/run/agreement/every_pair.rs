//! `opspec oracle-agreement --exhaustive`: a reference against MPFR on every pair of 16-bit
//! operands of a two-operand operation (2^32 pairs), where the random inputs are a sample.
//!
//! MPFR costs 0.2 µs (hypot in bf16) to 1 µs (atan2 and pow in f16) per pair on one core
//! here, so where the exact function has a symmetry, MPFR evaluates one pair of each class
//! and its result stands for the others; the reference under test still evaluates every pair:
//!
//! - `hypot(±x, ±y) = hypot(±y, ±x)`: up to 8 pairs per class;
//! - `atan2(−y, x) = −atan2(y, x)`: 2 pairs;
//! - `pow(−x, n) = (−1)^n · pow(x, n)` for a finite integer `n`: 2 pairs.
//!
//! They hold for every operand, zeros, infinities and NaN included (C99 Annex F, which MPFR
//! follows, and any NaN counts as any NaN), and rounding to nearest commutes with negation,
//! so the correctly rounded results obey them too. Other operations: one pair per class.
//!
//! The units of work are the rows of representative pairs by first operand (65,536 per
//! operation and format), shared among shards as `run --shard` shares its units, so the
//! run splits across processes, machines or a scheduler's array.

use std::sync::Mutex;

use opspec_adapter::{BinaryOp, OpKind};
use rayon::prelude::*;

use super::{Agreement, under_test};
use crate::bits::format::Format;
use crate::oracle::{fpenv, native, ops};
use crate::results::shard::Shard;
use crate::run::progress::Progress;

/// How `--exhaustive` went for one operation and format.
#[derive(Default)]
pub struct Exhaustive {
    pub agreement: Agreement,
    /// How many pairs MPFR evaluated (one per class).
    pub mpfr_calls: u64,
}

/// The pair that stands for `pair`'s class, and whether `op`'s exact result on `pair` is the
/// negation of its result on that pair.
fn representative(op: OpKind, f: Format, [x, y]: [u64; 2]) -> ([u64; 2], bool) {
    let sign = f.sign_mask();
    match op {
        OpKind::Binary(BinaryOp::Hypot) => {
            let (a, b) = (x & !sign, y & !sign);
            ([a.min(b), a.max(b)], false)
        }
        OpKind::Binary(BinaryOp::Atan2) if x & sign != 0 => ([x & !sign, y], true),
        OpKind::Binary(BinaryOp::Pow) if x & sign != 0 => match integer_parity(f, y) {
            Some(odd) => ([x & !sign, y], odd),
            None => ([x, y], false),
        },
        _ => ([x, y], false),
    }
}

/// Whether `y` is odd, where it is a finite integer.
fn integer_parity(f: Format, y: u64) -> Option<bool> {
    let v = native::to_f64(f, y);
    (v.is_finite() && v == v.trunc()).then(|| v % 2.0 != 0.0)
}

/// The pairs of the class `rep` stands for: the sign and order variants of its operands that
/// [`representative`] maps to it.
fn members(op: OpKind, f: Format, rep: [u64; 2]) -> impl Iterator<Item = ([u64; 2], bool)> {
    let sign = f.sign_mask();
    let [x, y] = rep;
    let variants = [[x, y], [y, x]]
        .into_iter()
        .flat_map(move |[a, b]| [[a, b], [a ^ sign, b], [a, b ^ sign], [a ^ sign, b ^ sign]]);
    let mut seen = Vec::with_capacity(8);
    variants.filter_map(move |pair| {
        let (r, negated) = representative(op, f, pair);
        (r == rep && !seen.contains(&pair)).then(|| {
            seen.push(pair);
            (pair, negated)
        })
    })
}

/// Compares the reference under test with MPFR on every pair of operands of `op` in the
/// 16-bit format `f`, or on the rows `shard` owns.
pub fn compare(op: OpKind, f: Format, shard: Option<Shard>) -> Result<Exhaustive, String> {
    if op.arity() != 2 || f.bits != 16 {
        return Err(format!(
            "{op} {}: every pair is swept for two-operand operations in f16 and bf16",
            f.name
        ));
    }
    let rows: Vec<u64> = (0..1 << 16).filter(|&x| shard.is_none_or(|s| s.owns(&row_key(op, f, x)))).collect();
    let label = format!("{op} {} (rows of representatives by first operand)", f.name);
    let progress = Mutex::new(Progress::new(label, "rows", rows.len() as u64));
    let parts = rows
        .into_par_iter()
        .map(|x| {
            fpenv::check()?;
            let part = row(op, f, x, &|pair| under_test(op, f, pair))?;
            progress.lock().map_err(|_| "progress poisoned")?.advance(1);
            Ok(part)
        })
        .collect::<Result<Vec<_>, String>>()?;
    progress.lock().map_err(|_| "progress poisoned")?.finish();
    let mut all = Exhaustive::default();
    for p in parts {
        all.mpfr_calls += p.mpfr_calls;
        all.agreement.absorb(p.agreement);
    }
    if shard.is_none() && all.agreement.cases != 1 << 32 {
        return Err(format!("{op} {}: the classes held {} pairs, not 2^32", f.name, all.agreement.cases));
    }
    Ok(all)
}

/// The key of the row of representatives whose first operand is `x`, as shards own it.
fn row_key(op: OpKind, f: Format, x: u64) -> String {
    format!("oracle-agreement {op} {} {x:#06x}", f.name)
}

/// Every class whose representative's first operand is `x`, with `reference` under test.
fn row(
    op: OpKind,
    f: Format,
    x: u64,
    reference: &dyn Fn(&[u64]) -> Option<u64>,
) -> Result<Exhaustive, String> {
    let mut part = Exhaustive::default();
    for y in 0..1 << 16 {
        let rep = [x, y];
        if representative(op, f, rep).0 != rep {
            continue;
        }
        let mpfr = ops::reference(op, f, &rep).ok_or("no MPFR reference")?;
        part.mpfr_calls += 1;
        for (pair, negated) in members(op, f, rep) {
            let expected = if negated { f.neg(mpfr) } else { mpfr };
            match reference(&pair) {
                Some(result) => part.agreement.judge(&pair, result, expected, f),
                None => part.agreement.defer(),
            }
        }
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    const SYMMETRIC: [BinaryOp; 3] = [BinaryOp::Hypot, BinaryOp::Atan2, BinaryOp::Pow];

    /// Every pair is a member of the class of its representative, which stands for itself:
    /// so the classes cover each pair exactly once.
    #[test]
    fn every_pair_is_in_its_representative_s_class() {
        for f in [Format::F16, Format::BF16] {
            for op in SYMMETRIC.map(OpKind::Binary) {
                let mut g = Generator::new(3, &format!("classes {op} {}", f.name));
                let specials = [0, f.neg_zero(), f.one(), f.neg(f.one()), f.pos_inf(), f.quiet_nan()];
                let pairs = (0..20_000).map(|_| [g.bits() & 0xffff, g.bits() & 0xffff]);
                let specials = specials.into_iter().flat_map(|a| specials.map(|b| [a, b]));
                for pair in pairs.chain(specials) {
                    let (rep, negated) = representative(op, f, pair);
                    assert_eq!(representative(op, f, rep), (rep, false), "{op} {pair:x?}");
                    let found: Vec<_> = members(op, f, rep).filter(|&(p, _)| p == pair).collect();
                    assert_eq!(found, vec![(pair, negated)], "{op} {} {pair:x?}", f.name);
                }
            }
        }
    }

    /// MPFR's own results obey each symmetry the run relies on, on pairs of every kind.
    #[test]
    fn mpfr_obeys_the_symmetries() {
        for f in [Format::F16, Format::BF16] {
            let mut g = Generator::new(5, &format!("symmetries {}", f.name));
            let specials =
                [0, f.neg_zero(), f.one(), f.neg(f.one()), f.pos_inf(), f.neg_inf(), f.quiet_nan()];
            let integers = [2.0, 3.0, -3.0, 129.0, 1024.0].map(|v| f.from_f64_exact(v).unwrap());
            let ys = specials.into_iter().chain(integers);
            let pairs: Vec<[u64; 2]> = (0..3_000)
                .map(|_| [g.bits() & 0xffff, g.bits() & 0xffff])
                .chain(specials.into_iter().flat_map(|a| ys.clone().map(move |b| [a, b])))
                .collect();
            for op in SYMMETRIC.map(OpKind::Binary) {
                for &pair in &pairs {
                    // Every pair's class, whether or not the pair is its representative.
                    let rep = representative(op, f, pair).0;
                    for (member, negated) in members(op, f, rep) {
                        let of = |p: [u64; 2]| ops::reference(op, f, &p).unwrap();
                        let expected = if negated { f.neg(of(rep)) } else { of(rep) };
                        let got = of(member);
                        assert!(got == expected || f.is_nan(got) && f.is_nan(expected), "{op} {member:x?}");
                    }
                }
            }
        }
    }

    /// A reference that errs on a pair MPFR does not evaluate itself (another member of its
    /// class) is caught, and so is one that errs in the sign the symmetry carries.
    #[test]
    fn a_row_judges_every_member_of_each_class() {
        let f = Format::F16;
        let [three, five] = [3.0, 5.0].map(|v| f.from_f64_exact(v).unwrap());
        for (op, wrong) in [(BinaryOp::Hypot, [f.neg(five), three]), (BinaryOp::Atan2, [f.neg(three), five])]
        {
            let op = OpKind::Binary(op);
            let honest = |pair: &[u64]| ops::reference(op, f, pair);
            let part = row(op, f, three, &honest).unwrap();
            assert_eq!(part.agreement.mismatched, 0);
            assert!(
                part.agreement.cases > part.mpfr_calls,
                "{op}: {} {}",
                part.agreement.cases,
                part.mpfr_calls
            );
            let errs = |pair: &[u64]| honest(pair).map(|r| if pair == wrong { f.neg(r) } else { r });
            let part = row(op, f, three, &errs).unwrap();
            assert_eq!(part.agreement.mismatched, 1, "{op}");
            assert_eq!(part.agreement.mismatches[0].0, wrong.to_vec(), "{op}");
        }
    }
}
