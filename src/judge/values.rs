//! The judge of one-operand sweeps (every value of a format): a value's governing rows found
//! once per combination of the value classes the table's rows name rather than once per value,
//! and, for an approximate function, the error of each finite result measured against the
//! exact value (a correctly rounded result is counted without measuring).

use std::ops::Range;

use opspec_adapter::{OpKind, Tensor};

use crate::bits::format::Format;
use crate::generate::sweep::element;
use crate::judge::accuracy::{UlpTally, ulp_error_of};
use crate::judge::classes::{ChunkTally, constant, in_slices};
use crate::judge::context::Context;
use crate::judge::expect::{Expect, within_steps};
use crate::judge::spans::Spans;
use crate::oracle::fast::UnaryReference;
use crate::oracle::{native, reference};
use crate::spec::LoadedTable;
use crate::spec::authority::Tier;
use crate::spec::matching::{governing_rows, in_class_decoded};
use crate::spec::schema::{Accuracy, Class, SpecTable};
use crate::spec::suite::NanPolicy;

/// Judges the values of a one-operand sweep against one table.
pub struct ValueJudge<'a> {
    table: &'a SpecTable,
    pub ctx: Context<'a>,
    pub nan: NanPolicy,
    format: Format,
    /// The distinct classes the rows name (at most 32: a membership is a `u32` mask).
    classes: Vec<Class>,
    /// The runs of patterns over which the classes' memberships, and so the key, are constant.
    spans: Spans,
    /// Whether the table's results are approximations, whose accuracy is measured.
    approximate: bool,
    /// The fast reference of the operation in this format, where it has one.
    fast: Option<UnaryReference>,
}

/// What governs the values of one key.
struct Governed {
    rows: Vec<usize>,
    verdict: Verdict,
}

/// How a key's values are judged.
enum Verdict {
    /// Every row's outcome is a constant one: this expectation.
    Constant(Expect),
    /// No row governs, and the table's accuracy allows this many steps from the oracle's
    /// result.
    Within(u32),
    /// No row governs, and the result must be the oracle's (any NaN for a NaN).
    Exact,
    /// No row governs; the expectation is found per value from the oracle's result.
    Unruled,
    /// The rows' outcomes depend on the value: the expectation is found per value.
    PerValue,
}

impl<'a> ValueJudge<'a> {
    pub fn new(table: &'a LoadedTable, ctx: Context<'a>, nan: NanPolicy) -> Result<ValueJudge<'a>, String> {
        let mut classes: Vec<Class> = Vec::new();
        for row in &table.table.rows {
            for c in row.when.x1.0.iter().chain(&row.when.either).chain(&row.when.both) {
                if !classes.contains(c) {
                    classes.push(c.clone());
                }
            }
        }
        if classes.len() > 32 {
            return Err(format!(
                "{}: a sweep handles at most 32 distinct value classes in a table's rows",
                table.path.display()
            ));
        }
        Ok(ValueJudge {
            table: &table.table,
            format: ctx.format,
            approximate: table.table.accuracy == Accuracy::Approximate,
            fast: match table.op {
                OpKind::Unary(op) => UnaryReference::new(op, ctx.format),
                _ => None,
            },
            spans: Spans::new(ctx.format, &classes),
            ctx,
            nan,
            classes,
        })
    }

    /// Judges the values `range` (case `i` is the bit pattern `i`), whose results the adapter
    /// returned in `returned`, in parallel slices.
    pub fn batch(
        &self,
        range: Range<u64>,
        returned: &Tensor,
        max_listed: usize,
    ) -> Result<ChunkTally, String> {
        in_slices(range, returned, max_listed, |first, at, result| self.slice(first, at, result, max_listed))
    }

    /// Judges the values from `first` on, whose results are elements `at` of `bytes`.
    fn slice(
        &self,
        first: u64,
        at: Range<usize>,
        (bytes, size): (&[u8], usize),
        max_listed: usize,
    ) -> Result<ChunkTally, String> {
        let f = self.format;
        let mut tally = ChunkTally { cases: at.len() as u64, ..ChunkTally::default() };
        let mut failed_per_row = vec![0u64; self.table.rows.len() + 1];
        // The keys met in this slice and what governs each. A key is found once per run of
        // patterns that share it (the last run's is tried first).
        let mut known: Vec<(u64, Governed)> = Vec::new();
        let mut last = usize::MAX;
        let mut run_end = first;
        let mut correctly_rounded = 0u64;
        let mut ulp = UlpTally::default();
        for (j, x) in at.zip(first..) {
            let actual = element(bytes, j, size);
            if x >= run_end {
                run_end = self.spans.run(x).end;
                let key = self.key(x);
                if known.get(last).is_none_or(|(k, _)| *k != key) {
                    last = match known.iter().position(|(k, _)| *k == key) {
                        Some(i) => i,
                        None => {
                            known.push((key, self.governed_for(x)?));
                            known.len() - 1
                        }
                    };
                }
            }
            let governed = &known[last].1;
            let case = [x];
            let measured = self.approximate && f.is_finite(actual);
            // The oracle's result, where the verdict or the measurement needs it.
            let oracle = match (&governed.verdict, measured) {
                (Verdict::Constant(_) | Verdict::PerValue, false) => None,
                _ => Some(self.oracle(x)?),
            };
            let accepted = match (&governed.verdict, oracle) {
                (Verdict::Constant(expect), _) => expect.accepts(self.ctx.output, actual, self.nan),
                (Verdict::Within(steps), Some(r)) => within_steps(f, r, *steps, actual, self.nan),
                (Verdict::Exact, Some(r)) => Expect::Bits(r).accepts(self.ctx.output, actual, self.nan),
                (Verdict::Unruled, Some(r)) => {
                    self.ctx.unruled_expectation(&case, r)?.accepts(self.ctx.output, actual, self.nan)
                }
                _ => self.ctx.expectation_under(&governed.rows, &case)?.accepts(
                    self.ctx.output,
                    actual,
                    self.nan,
                ),
            };
            if let Some(correct) = oracle.filter(|_| measured) {
                if actual == correct {
                    correctly_rounded += 1;
                } else if let Some(error) = ulp_error_of(self.ctx.op, f, &case, actual) {
                    ulp.add(error, &case, actual);
                }
            }
            if accepted {
                continue;
            }
            let tier = self.ctx.tier_under(&governed.rows, &case, actual, self.nan).unwrap_or(Tier::Must);
            tally.fail(&mut failed_per_row, (&governed.rows, tier), &case, actual, max_listed);
        }
        ulp.add_correctly_rounded(correctly_rounded);
        tally.ulp = ulp;
        tally.count_rows(self.table, &failed_per_row);
        Ok(tally)
    }

    /// The oracle's result at `x`: the fast reference's, MPFR's where it has none.
    #[inline]
    fn oracle(&self, x: u64) -> Result<u64, String> {
        match self.fast.and_then(|fast| fast.at(x)) {
            Some(bits) => Ok(bits),
            None => reference(self.ctx.op, self.format, &[x]),
        }
    }

    /// The key of `x`: the classes it belongs to, as a mask, and bit 32 for a NaN, bit 33 for a
    /// signaling one (which the suite's signaling policy may treat apart).
    #[inline]
    fn key(&self, x: u64) -> u64 {
        let f = self.format;
        let nan = f.is_nan(x);
        let signaling = nan && x & (1 << (f.frac_bits - 1)) == 0;
        let v = native::to_f64(f, x);
        let mut mask = 0;
        for (c, class) in self.classes.iter().enumerate() {
            mask |= u64::from(in_class_decoded(f, x, v, class)) << c;
        }
        mask | u64::from(nan) << 32 | u64::from(signaling) << 33
    }

    /// What governs `x` (and every value of its key).
    fn governed_for(&self, x: u64) -> Result<Governed, String> {
        let rows = governing_rows(self.table, self.format, &[x]);
        let verdict = if rows.is_empty() {
            // Where no row governs, the table's accuracy asks the same of every value of the
            // key, around its own oracle result (a NaN operand's expectation may also allow a
            // NaN for a signaling one, and is found per value).
            match self.ctx.unruled_expectation(&[x], self.oracle(x)?)? {
                _ if self.format.is_nan(x) => Verdict::Unruled,
                Expect::WithinSteps { steps, .. } => Verdict::Within(steps),
                Expect::Bits(_) | Expect::AnyNan => Verdict::Exact,
                _ => Verdict::Unruled,
            }
        } else if rows.iter().all(|&r| constant(&self.table.rows[r].result)) {
            Verdict::Constant(self.ctx.expectation_under(&rows, &[x])?)
        } else {
            Verdict::PerValue
        };
        Ok(Governed { rows, verdict })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Catalog;
    use opspec_adapter::DType;

    /// A batch of every f16 value, each result the oracle's, one step off, a NaN, the operand
    /// or a signed zero (by the value's bits), fails exactly the values whose result the
    /// check's expectations (every governing row, found value by value) reject, for functions
    /// with and without rows that depend on the value, and counts the errors of the results
    /// that are not the correctly rounded one.
    #[test]
    fn a_batch_fails_exactly_the_values_the_expectations_reject() {
        let catalog = Catalog::builtin().unwrap();
        let suite = catalog.suite("array-api").unwrap();
        let f = Format::F16;
        for op in ["exp", "log", "acos", "sqrt", "round", "sign", "isnan"] {
            let table = catalog.elementwise.iter().find(|t| t.table.op == op).unwrap();
            let judge =
                ValueJudge::new(table, Context::new(table, Some(&suite.suite), f), suite.suite.nan).unwrap();
            let (mut bytes, mut rejected, mut not_rounded) = (Vec::new(), 0, 0);
            for x in 0..1u64 << 16 {
                let oracle = crate::oracle::ops::reference(table.op, f, &[x]).unwrap();
                let actual = match x % 7 {
                    0 => oracle + 1,
                    1 => f.quiet_nan(),
                    2 => x,
                    3 => f.neg_zero(),
                    4 if oracle > 2 => oracle - 2,
                    _ => oracle,
                };
                let actual =
                    if judge.ctx.output == crate::bits::value::Domain::Bool { actual & 1 } else { actual };
                let expected = judge.ctx.expectation(&[x]).unwrap();
                rejected += u64::from(!expected.accepts(judge.ctx.output, actual, suite.suite.nan));
                not_rounded += u64::from(judge.approximate && f.is_finite(actual) && actual != oracle);
                let size = if judge.ctx.output == crate::bits::value::Domain::Bool { 1 } else { 2 };
                bytes.extend_from_slice(&actual.to_le_bytes()[..size]);
            }
            let dtype =
                if judge.ctx.output == crate::bits::value::Domain::Bool { DType::Bool } else { DType::F16 };
            let returned = Tensor::from_bytes(dtype, &[1 << 16], bytes).unwrap();
            let tally = judge.batch(0..1 << 16, &returned, 5).unwrap();
            assert!(rejected > 1000, "{op}: {rejected}");
            assert_eq!((tally.cases, tally.failed), (1 << 16, rejected), "{op}");
            let measured: u64 = tally.ulp.histogram().map_or(0, |h| h[1..].iter().sum());
            if judge.approximate {
                assert!(measured > 0 && measured <= not_rounded, "{op}: {measured} of {not_rounded}");
            } else {
                assert_eq!(measured, 0, "{op}: an exact function's errors are not measured");
            }
        }
    }
}
