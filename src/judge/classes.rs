//! The sweep's keyed judge: what a sweep case's governing rows accept, found once per
//! combination of the value classes and relations the table's rows name rather than once per
//! case, and the counts of what one chunk found.

use crate::generate::sweep::{Digits, elements};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::OnceLock;

use opspec_adapter::{BinaryOp, OpKind, Tensor};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bits::format::Format;
use crate::bits::value::Domain;
use crate::generate::sweep::Sweep;
use crate::judge::accuracy::UlpTally;
use crate::judge::context::Context;
use crate::judge::expect::Expect;
use crate::oracle::fpenv;
use crate::oracle::native::{self};
use crate::spec::LoadedTable;
use crate::spec::authority::Tier;
use crate::spec::matching::{governing_rows, in_class};
use crate::spec::schema::{Accuracy, Class, Outcome, Relation, SignRule, SpecTable};
use crate::spec::suite::NanPolicy;

/// What one chunk found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ChunkTally {
    pub cases: u64,
    pub failed: u64,
    /// Failed cases per governing row id (`(no row)`: where only the table's accuracy governs).
    pub by_row: BTreeMap<String, u64>,
    /// Failed cases per tier of the bar they miss.
    #[serde(default)]
    pub by_tier: BTreeMap<Tier, u64>,
    /// The first failing cases: operands and the actual result.
    pub listed: Vec<(Vec<u64>, u64)>,
    /// The errors of an approximate function's results (one-operand sweeps).
    #[serde(default)]
    pub ulp: UlpTally,
}

impl ChunkTally {
    /// Adds `other`'s counts, listing its failures while fewer than `max_listed` are.
    pub fn merge(&mut self, other: ChunkTally, max_listed: usize) {
        self.cases += other.cases;
        self.failed += other.failed;
        for (row, n) in other.by_row {
            *self.by_row.entry(row).or_default() += n;
        }
        for (tier, n) in other.by_tier {
            *self.by_tier.entry(tier).or_default() += n;
        }
        let room = max_listed.saturating_sub(self.listed.len());
        self.listed.extend(other.listed.into_iter().take(room));
        self.ulp.merge(other.ulp);
    }

    /// Counts a failing case governed by `rows`, which misses `tier`: under each row in
    /// `per_row` (its last slot where no row governs), and listed while fewer than
    /// `max_listed` are.
    pub(crate) fn fail(
        &mut self,
        per_row: &mut [u64],
        (rows, tier): (&[usize], Tier),
        case: &[u64],
        actual: u64,
        max_listed: usize,
    ) {
        self.failed += 1;
        *self.by_tier.entry(tier).or_default() += 1;
        if rows.is_empty() {
            per_row[per_row.len() - 1] += 1;
        }
        for &r in rows {
            per_row[r] += 1;
        }
        if self.listed.len() < max_listed {
            self.listed.push((case.to_vec(), actual));
        }
    }

    /// Sets `by_row` from the counts [`ChunkTally::fail`] kept in `per_row` for `table`'s rows.
    pub(crate) fn count_rows(&mut self, table: &SpecTable, per_row: &[u64]) {
        for (r, &n) in per_row.iter().enumerate().filter(|(_, n)| **n > 0) {
            let row = table.rows.get(r).map_or(NO_ROW, |row| row.id.value.as_str());
            self.by_row.insert(row.to_string(), n);
        }
    }
}

/// The row id failures outside every row are counted under.
pub(crate) const NO_ROW: &str = "(no row)";

/// Cases judged between two checks of the FP control state.
const SLICE: u64 = 1 << 16;

/// Cases given the quick test at once ([`ClassJudge::quick`]).
const BLOCK: usize = 64;

/// Judges sweep cases: finds each case's governing rows, and what they accept, once per
/// combination of the value classes and relations the table's rows name (and whether an
/// operand is a NaN, a signaling one), not once per case; where that is the native reference,
/// a case costs one reference result and a comparison.
pub struct ClassJudge<'a> {
    table: &'a SpecTable,
    pub ctx: Context<'a>,
    pub nan: NanPolicy,
    format: Format,
    /// Which of the three relation pairs the rows name, as a mask of [`ClassJudge::key`]'s
    /// relation bits.
    relations: usize,
    /// The values each operand ranges over ([`Sweep::domain`]).
    pub domain: Vec<u64>,
    /// Per value of `domain`: the index into `masks` of its class membership, its exact f64
    /// value, and bit 0 (a signaling NaN) and bit 1 (a NaN) of its part of the key.
    mask_of: Vec<u16>,
    value_of: Vec<f64>,
    nan_of: Vec<u8>,
    /// The distinct class memberships (bit `c`: in the `c`th class the rows name).
    masks: Vec<u32>,
    /// Per position of `domain`: the next position whose membership, NaN bits or sign differ
    /// (`domain.len()` where none does), so that a case's key holds up to there or up to the
    /// next operand in a relation the rows name with the other ([`ClassJudge::related_at`]).
    next_change: Vec<usize>,
    /// The positions of each value of `domain`, for finding the operands in a relation.
    positions: HashMap<u64, Vec<usize>>,
    /// What governs, per key ([`ClassJudge::key`]).
    governed: Vec<OnceLock<Governed>>,
    /// The binary operation, where the native reference computes it and the table is not
    /// approximate.
    fast: Option<BinaryOp>,
}

impl<'a> ClassJudge<'a> {
    pub fn new(
        table: &'a LoadedTable,
        ctx: Context<'a>,
        nan: NanPolicy,
        sweep: &Sweep,
    ) -> Result<ClassJudge<'a>, String> {
        let f = ctx.format;
        let mut classes: Vec<Class> = Vec::new();
        let mut relations = 0;
        for row in &table.table.rows {
            let when = &row.when;
            let named = when.x1.0.iter().chain(&when.x2.0).chain(&when.either).chain(&when.both);
            for c in named {
                if !classes.contains(c) {
                    classes.push(c.clone());
                }
            }
            relations |= when.relation.map_or(0, relation_bit);
        }
        if classes.len() > 32 {
            return Err(format!(
                "{}: a sweep handles at most 32 distinct value classes in a table's rows",
                table.path.display()
            ));
        }
        let domain = sweep.domain();
        let mut masks: Vec<u32> = Vec::new();
        let mut mask_of = Vec::with_capacity(domain.len());
        for &x in &domain {
            let mask =
                classes.iter().enumerate().fold(0, |m, (c, class)| m | u32::from(in_class(f, x, class)) << c);
            let i = masks.iter().position(|&m| m == mask).unwrap_or_else(|| {
                masks.push(mask);
                masks.len() - 1
            });
            mask_of.push(u16::try_from(i).map_err(|_| "too many distinct class memberships")?);
        }
        let quiet = 1 << (f.frac_bits - 1);
        let nan_of: Vec<u8> =
            domain.iter().map(|&x| if f.is_nan(x) { 2 | u8::from(x & quiet == 0) } else { 0 }).collect();
        let value_of = domain.iter().map(|&x| native::to_f64(f, x)).collect();
        let keys = (masks.len() * masks.len()) << (RELATION_BITS + 2);
        let part = |p: usize| (mask_of[p], nan_of[p], f.is_sign_negative(domain[p]));
        let mut next_change = vec![domain.len(); domain.len()];
        for p in (0..domain.len().saturating_sub(1)).rev() {
            next_change[p] = if part(p + 1) != part(p) { p + 1 } else { next_change[p + 1] };
        }
        let mut positions: HashMap<u64, Vec<usize>> = HashMap::new();
        for (p, &x) in domain.iter().enumerate() {
            positions.entry(x).or_default().push(p);
        }
        Ok(ClassJudge {
            table: &table.table,
            nan,
            format: f,
            fast: match ctx.op {
                OpKind::Binary(op) | OpKind::BinaryInto(op)
                    if table.table.accuracy != Accuracy::Approximate && native::covers(ctx.op, f) =>
                {
                    Some(op)
                }
                _ => None,
            },
            ctx,
            relations,
            domain,
            mask_of,
            value_of,
            nan_of,
            masks,
            next_change,
            positions,
            governed: std::iter::repeat_with(OnceLock::new).take(keys).collect(),
        })
    }

    /// The key of the case at positions `p1`, `p2` of the domain: both memberships, the
    /// relation pairs that hold (of those the rows name: bit 0 negation, bit 1 numerical
    /// equality, bit 2 the same sign bit; a pair's other relation holds where its bit is
    /// clear), and the NaN bits of both operands.
    #[inline]
    fn key(&self, p1: usize, p2: usize) -> usize {
        let (x1, x2, v1, v2) = (self.domain[p1], self.domain[p2], self.value_of[p1], self.value_of[p2]);
        let f = self.format;
        // `matching::related`, on the decoded values, without a branch.
        let holding = (usize::from(x2 == f.neg(x1))
            | usize::from(v1 == v2) << 1
            | usize::from((x1 ^ x2) & f.sign_mask() == 0) << 2)
            & self.relations;
        let combination = usize::from(self.mask_of[p1]) * self.masks.len() + usize::from(self.mask_of[p2]);
        let nans = usize::from(self.nan_of[p1] | self.nan_of[p2]);
        (((combination << RELATION_BITS) | holding) << 2) | nans
    }

    /// Judges the cases `range`, whose results the adapter returned in `returned`, in
    /// parallel slices.
    pub fn batch(
        &self,
        range: Range<u64>,
        returned: &Tensor,
        max_listed: usize,
    ) -> Result<ChunkTally, String> {
        in_slices(range, returned, max_listed, |first, at, result| self.slice(first, at, result, max_listed))
    }

    /// Judges the cases from index `first` on, whose results are elements `at` of `bytes`,
    /// one run of cases with the same second operand at a time, and within it one run of
    /// first operands that share a key at a time.
    fn slice(
        &self,
        first: u64,
        at: Range<usize>,
        (bytes, size): (&[u8], usize),
        max_listed: usize,
    ) -> Result<ChunkTally, String> {
        let mut failed_per_row = vec![0u64; self.table.rows.len() + 1];
        let mut tally = ChunkTally { cases: at.len() as u64, ..ChunkTally::default() };
        let n = self.domain.len();
        let mut position = Digits::new(first, n as u64);
        let mut j = at.start;
        // Neighbouring runs mostly share a key: the last one's is kept at hand.
        let mut last: Option<(usize, &Governed)> = None;
        let (mut actual, mut reference) = ([0u64; BLOCK], [0u64; BLOCK]);
        while j < at.end {
            let (low, p2) = (position.low, position.high);
            let end = low + (n - low).min(at.end - j);
            let related = self.related_at(p2);
            let mut p1 = low;
            while p1 < end {
                let key = self.key(p1, p2);
                let governed = match last {
                    Some((k, governed)) if k == key => governed,
                    _ => {
                        let governed = self.governed[key].get_or_init(|| self.governed_for(p1, p2));
                        last = Some((key, governed));
                        governed
                    }
                };
                // The key holds up to the next change of the first operand's part of it, and
                // a first operand in a relation with the second has a run of its own.
                let mut run_end = self.next_change[p1].min(end);
                for &q in &related {
                    run_end = if q == p1 {
                        p1 + 1
                    } else if q > p1 {
                        run_end.min(q)
                    } else {
                        run_end
                    };
                }
                let mut fail = |q: usize, actual: u64| {
                    let case = [self.domain[q], self.domain[p2]];
                    let tier =
                        self.ctx.tier_under(&governed.rows, &case, actual, self.nan).unwrap_or(Tier::Must);
                    tally.fail(&mut failed_per_row, (&governed.rows, tier), &case, actual, max_listed);
                };
                // A block whose every case passes the quick test passes; any other is judged
                // case by case.
                for from in (p1..run_end).step_by(BLOCK) {
                    let to = (from + BLOCK).min(run_end);
                    let actual = &mut actual[..to - from];
                    let results = (bytes, j + (from - low), size);
                    let block = Block { run: from..to, p2, results, actual, reference: &mut reference };
                    if !self.quick(governed, block) {
                        for (q, &actual) in (from..to).zip(actual.iter()) {
                            if !self.accepts(governed, q, p2, actual)? {
                                fail(q, actual);
                            }
                        }
                    }
                }
                p1 = run_end;
            }
            j += end - low;
            position = Digits { low: 0, high: p2 + 1 };
        }
        tally.count_rows(self.table, &failed_per_row);
        Ok(tally)
    }

    /// The positions of the first operands that stand in a relation the rows name with the
    /// second operand at `p2`: its negation (bit for bit), and the values numerically equal to
    /// it (itself, and the other zero for a zero; none for a NaN). Of the relations the key
    /// holds, only these change from one first operand to its neighbour.
    fn related_at(&self, p2: usize) -> Vec<usize> {
        let (f, x2) = (self.format, self.domain[p2]);
        let mut values = Vec::new();
        if self.relations & relation_bit(Relation::Negation) != 0 {
            values.push(f.neg(x2));
        }
        if self.relations & relation_bit(Relation::Equal) != 0 && !f.is_nan(x2) {
            values.push(x2);
            if f.is_zero(x2) {
                values.push(f.neg(x2));
            }
        }
        values.iter().filter_map(|x| self.positions.get(x)).flatten().copied().collect()
    }

    /// What governs the case at `p1`, `p2` (and every case of its key).
    fn governed_for(&self, p1: usize, p2: usize) -> Governed {
        let case = [self.domain[p1], self.domain[p2]];
        let rows = governing_rows(self.table, self.format, &case);
        // A NaN operand changes what a float result may be (any NaN, the signaling NaN's
        // latitude), not a boolean one.
        let with_nan = self.nan_of[p1] | self.nan_of[p2] != 0 && matches!(self.ctx.output, Domain::Float(_));
        let is_rounded = |&r: &usize| matches!(self.table.rows[r].result, Outcome::CorrectlyRounded);
        let others: Vec<usize> = rows.iter().copied().filter(|r| !is_rounded(r)).collect();
        let rounded = rows.is_empty() || rows.iter().any(is_rounded);
        let verdict = if !rows.is_empty() && rows.iter().all(|&r| constant(&self.table.rows[r].result)) {
            match self.ctx.expectation_under(&rows, &case) {
                Ok(expect) => KeyVerdict::Constant(expect),
                Err(_) => KeyVerdict::General,
            }
        } else if self.fast.is_some() && !with_nan && others.is_empty() {
            KeyVerdict::Reference
        } else if !rounded || self.fast.is_some() && !with_nan {
            let (fixed, per_case): (Vec<usize>, Vec<usize>) =
                others.iter().partition(|&&r| constant(&self.table.rows[r].result));
            let per_case =
                per_case.into_iter().map(|r| PerCase::of(self.format, &self.table.rows[r].result, r));
            match fixed.iter().map(|&r| self.ctx.row_expectation(r, &case)).collect() {
                Ok(fixed) => KeyVerdict::Mixed {
                    rounded,
                    fixed,
                    per_case: per_case.collect(),
                    any_nan: self.ctx.signaling_allows_nan(&case),
                },
                Err(_) => KeyVerdict::General,
            }
        } else {
            KeyVerdict::General
        };
        Governed { rows, quick: Quick::of(&verdict, self.format), verdict }
    }

    /// Whether `actual` is accepted for the case at `p1`, `p2`, which `governed` governs.
    #[inline]
    fn accepts(&self, governed: &Governed, p1: usize, p2: usize, actual: u64) -> Result<bool, String> {
        Ok(match &governed.verdict {
            KeyVerdict::Reference => self.is_reference(p1, p2, actual),
            KeyVerdict::Constant(expect) => expect.accepts(self.ctx.output, actual, self.nan),
            KeyVerdict::Mixed { rounded, fixed, per_case, any_nan } => {
                let output = self.ctx.output;
                let case = [self.domain[p1], self.domain[p2]];
                let mut accepted = (!rounded || self.is_reference(p1, p2, actual))
                    && fixed.iter().all(|expect| expect.accepts(output, actual, self.nan));
                let nan_allowed = *any_nan && Expect::AnyNan.accepts(output, actual, self.nan);
                for row in per_case {
                    accepted &= match *row {
                        PerCase::Operand(operand) => {
                            nan_allowed || Expect::Bits(operand.of(case)).accepts(output, actual, self.nan)
                        }
                        PerCase::Row(r) => {
                            self.ctx.row_expectation(r, &case)?.accepts(output, actual, self.nan)
                        }
                    };
                }
                accepted
            }
            KeyVerdict::General => {
                let case = [self.domain[p1], self.domain[p2]];
                self.ctx.expectation_under(&governed.rows, &case)?.accepts(self.ctx.output, actual, self.nan)
            }
        })
    }

    /// Whether every case of `block` passes `governed`'s quick test. Compiled for AVX-512 or
    /// for AVX2 and FMA where the CPU has them: the native reference's narrowing is vectorised
    /// only with variable shifts of 64-bit lanes, and AVX-512 has twice the lanes and the
    /// 64-bit minimum and comparisons into masks that AVX2 lacks.
    #[inline(always)]
    fn quick(&self, governed: &Governed, block: Block) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx512 = has!("avx512f") && has!("avx512vl") && has!("avx512dq") && has!("avx512bw");
            if avx512 && has!("fma") {
                // SAFETY: the CPU has these AVX-512 subsets and FMA, as just checked.
                return unsafe { self.quick_avx512(governed, block) };
            }
            if has!("avx2") && has!("fma") {
                // SAFETY: the CPU has AVX2 and FMA, as just checked.
                return unsafe { self.quick_avx2(governed, block) };
            }
        }
        self.quick_in(governed, block)
    }

    /// [`ClassJudge::quick_in`] compiled for AVX-512 (F, VL, DQ and BW, with FMA).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx512bw,fma")]
    fn quick_avx512(&self, governed: &Governed, block: Block) -> bool {
        self.quick_in(governed, block)
    }

    /// [`ClassJudge::quick_in`] compiled for AVX2 and FMA (which `floor_divide` and
    /// `remainder`'s reference use).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn quick_avx2(&self, governed: &Governed, block: Block) -> bool {
        self.quick_in(governed, block)
    }

    /// [`ClassJudge::quick`] for any CPU.
    #[inline(always)]
    fn quick_in(&self, governed: &Governed, block: Block) -> bool {
        let Block { run, p2, results: (bytes, from, size), actual, reference } = block;
        elements(bytes, from, size, actual);
        let actual = &*actual;
        // A NaN's magnitude bits lie above infinity's; a boolean result is never a NaN.
        let (magnitude, infinity) = match self.ctx.output {
            Domain::Float(f) => (!f.sign_mask(), f.pos_inf()),
            _ => (0, 0),
        };
        let not_nan = |x: u64| x & magnitude <= infinity;
        let x2 = self.domain[p2];
        match &governed.quick {
            Quick::Reference { mask, value } => {
                let Some(op) = self.fast else { return false };
                let reference = &mut reference[..actual.len()];
                let first = (&self.domain[run.clone()], &self.value_of[run]);
                native::binary_run(op, self.format, first, (x2, self.value_of[p2]), reference);
                let pass = |(&r, &a): (&u64, &u64)| (a == r) & (a & mask == *value) & not_nan(a);
                reference.iter().zip(actual).fold(true, |all, case| all & pass(case))
            }
            Quick::Bits(b) => actual.iter().fold(true, |all, &a| all & (a == *b)),
            Quick::Constant(expect) => {
                actual.iter().fold(true, |all, &a| all & expect.accepts(self.ctx.output, a, self.nan))
            }
            Quick::Operand(operand) => {
                let pass = |(&x1, &a): (&u64, &u64)| (a == operand.of([x1, x2])) & not_nan(a);
                self.domain[run].iter().zip(actual).fold(true, |all, case| all & pass(case))
            }
            Quick::None => false,
        }
    }

    /// Whether `actual` is the native reference's result for the case at `p1`, `p2` (any NaN,
    /// a quiet one where the suite asks, for a NaN result).
    #[inline(always)]
    fn is_reference(&self, p1: usize, p2: usize, actual: u64) -> bool {
        let Some(op) = self.fast else { return false };
        let f = self.format;
        let (x1, x2) = (self.domain[p1], self.domain[p2]);
        let reference = native::binary_decoded(op, f, x1, x2, self.value_of[p1], self.value_of[p2]);
        match self.ctx.output {
            Domain::Float(_) if f.is_nan(reference) => {
                f.is_nan(actual) && (self.nan == NanPolicy::Any || actual & (1 << (f.frac_bits - 1)) != 0)
            }
            _ => actual == reference,
        }
    }
}

/// Judges the cases `range`, whose results are `returned`, in parallel slices of [`SLICE`]
/// cases, each after a check of its thread's FP state: `slice` judges the cases from index
/// `first` on, whose results are elements `at` of the result's bytes (of the given size); the
/// slices' tallies are merged in order.
pub(crate) fn in_slices(
    range: Range<u64>,
    returned: &Tensor,
    max_listed: usize,
    slice: impl Fn(u64, Range<usize>, (&[u8], usize)) -> Result<ChunkTally, String> + Sync,
) -> Result<ChunkTally, String> {
    let bytes = returned.contiguous_bytes().ok_or("the adapter's result is not contiguous")?;
    let size = returned.dtype().size();
    let n = range.end - range.start;
    let tallies = (0..n.div_ceil(SLICE))
        .into_par_iter()
        .map(|s| {
            fpenv::check()?;
            let (from, to) = (s * SLICE, ((s + 1) * SLICE).min(n));
            slice(range.start + from, from as usize..to as usize, (bytes, size))
        })
        .collect::<Result<Vec<ChunkTally>, String>>()?;
    let mut chunk = ChunkTally::default();
    for t in tallies {
        chunk.merge(t, max_listed);
    }
    Ok(chunk)
}

/// The key bits of the relation pairs ([`ClassJudge::key`]).
const RELATION_BITS: usize = 3;

/// The key bit of `relation`'s pair.
fn relation_bit(relation: Relation) -> usize {
    match relation {
        Relation::Negation | Relation::NotNegation => 1,
        Relation::Equal | Relation::NotEqual => 2,
        Relation::SameSign | Relation::DifferentSign => 4,
    }
}

/// Whether `outcome` asks the same of every input (no operand, no product of signs, no
/// reference result in it).
pub(crate) fn constant(outcome: &Outcome) -> bool {
    match outcome {
        Outcome::Nan
        | Outcome::Boolean(_)
        | Outcome::PosZero
        | Outcome::NegZero
        | Outcome::PosInfinity
        | Outcome::NegInfinity
        | Outcome::Value(_)
        | Outcome::Approx(_)
        | Outcome::Unspecified => true,
        Outcome::NanWithSign(rule) | Outcome::Sign(rule) | Outcome::SignedInfinity(rule) => {
            *rule != SignRule::ProductOfSigns
        }
        Outcome::AnyOf(list) | Outcome::Prefer(list) => list.iter().all(constant),
        Outcome::Operand(_)
        | Outcome::NegOperand(_)
        | Outcome::AbsOperand(_)
        | Outcome::NegAbsOperand(_)
        | Outcome::CorrectlyRounded => false,
    }
}

/// The rows that govern a key's cases, and how a result is judged there.
#[derive(Clone, Debug)]
struct Governed {
    rows: Vec<usize>,
    verdict: KeyVerdict,
    quick: Quick,
}

/// A block of cases for [`ClassJudge::quick`]: the first-operand positions `run` against
/// `p2`, whose results are elements `from ..` of `bytes` (of `size` bytes each) in `results`,
/// read into `actual` (as many as it holds), and `reference`, room for the native reference's
/// results.
struct Block<'b> {
    run: Range<usize>,
    p2: usize,
    results: (&'b [u8], usize, usize),
    actual: &'b mut [u64],
    reference: &'b mut [u64; BLOCK],
}

/// A test of a key's results cheap enough to run on a block of cases at once, which never
/// passes a result the key's verdict rejects: a block whose every case passes it passes, and
/// any other block is judged case by case ([`ClassJudge::accepts`]).
#[derive(Clone, Debug)]
enum Quick {
    /// The native reference's bits, not a NaN, whose bits `mask` are `value`: a verdict of
    /// the reference alone, or with rows that ask for a sign or a (non-NaN) value beside it.
    Reference { mask: u64, value: u64 },
    /// These bits (not a NaN): the key's constant expectation, exactly.
    Bits(u64),
    /// The key's constant expectation, judged exactly.
    Constant(Expect),
    /// The operand's bits, not a NaN: the one governing row's result is an operand
    /// transformed ([`PerCase::Operand`]).
    Operand(OperandBits),
    /// None: every case is judged whole.
    None,
}

impl Quick {
    /// The quick test of `verdict` in format `f`.
    fn of(verdict: &KeyVerdict, f: Format) -> Quick {
        match verdict {
            KeyVerdict::Reference => Quick::Reference { mask: 0, value: 0 },
            KeyVerdict::Constant(Expect::Bits(b)) if !f.is_nan(*b) => Quick::Bits(*b),
            KeyVerdict::Constant(expect) => Quick::Constant(expect.clone()),
            KeyVerdict::Mixed { rounded: true, fixed, per_case, .. } if per_case.is_empty() => {
                let tests: Option<Vec<(u64, u64)>> = fixed.iter().map(|e| bit_test(e, f)).collect();
                let Some(tests) = tests else { return Quick::None };
                let (mask, value) = tests.iter().fold((0, 0), |(m, v), &(tm, tv)| (m | tm, v | tv));
                // Rows that ask for different bits: nothing passes quickly.
                if tests.iter().any(|&(tm, tv)| value & tm != tv) {
                    return Quick::None;
                }
                Quick::Reference { mask, value }
            }
            KeyVerdict::Mixed { rounded: false, fixed, per_case, .. } if fixed.is_empty() => {
                match per_case[..] {
                    [PerCase::Operand(operand)] => Quick::Operand(operand),
                    _ => Quick::None,
                }
            }
            _ => Quick::None,
        }
    }
}

/// `(mask, value)` such that a non-NaN result whose bits `mask` are `value` meets `expect`,
/// where `expect` asks for a sign or for the bits of a number.
fn bit_test(expect: &Expect, f: Format) -> Option<(u64, u64)> {
    match *expect {
        Expect::Sign { negative } => Some((f.sign_mask(), if negative { f.sign_mask() } else { 0 })),
        Expect::Bits(b) if !f.is_nan(b) => Some((u64::MAX, b)),
        _ => None,
    }
}

/// How the results of one key's cases are judged.
#[derive(Clone, Debug)]
enum KeyVerdict {
    /// The native reference's result: no row governs, or only rows whose result is
    /// `correctly_rounded`, and neither operand is a NaN (or the result is a boolean).
    Reference,
    /// This expectation: every governing row asks the same of every input.
    Constant(Expect),
    /// The native reference's result where `rounded`, the expectations `fixed` of the rows
    /// that ask the same of every input (built once), and every row of `per_case`, case by
    /// case, each of which also allows any NaN where `any_nan` (a signaling NaN operand).
    Mixed { rounded: bool, fixed: Vec<Expect>, per_case: Vec<PerCase>, any_nan: bool },
    /// The expectation under the governing rows, case by case.
    General,
}

/// A row whose result depends on the case, as [`KeyVerdict::Mixed`] judges it.
#[derive(Clone, Debug)]
enum PerCase {
    /// A row whose result is an operand, its negation, its magnitude or its negated magnitude
    /// (any NaN where that is a NaN, as [`Expect::Bits`] of a NaN accepts).
    Operand(OperandBits),
    /// Row `.0`, through its expectation for the case.
    Row(usize),
}

impl PerCase {
    /// How row `row`, whose result is `outcome`, is judged case by case in `f`.
    fn of(f: Format, outcome: &Outcome, row: usize) -> PerCase {
        let sign = f.sign_mask();
        let (o, clear, flip) = match outcome {
            Outcome::Operand(o) => (o, 0, 0),
            Outcome::NegOperand(o) => (o, 0, sign),
            Outcome::AbsOperand(o) => (o, sign, 0),
            Outcome::NegAbsOperand(o) => (o, sign, sign),
            _ => return PerCase::Row(row),
        };
        PerCase::Operand(OperandBits { slot: o.index(), clear, flip })
    }
}

/// Operand `slot` of a case with the bits `clear` cleared, then the bits `flip` flipped.
#[derive(Clone, Copy, Debug)]
struct OperandBits {
    slot: usize,
    clear: u64,
    flip: u64,
}

impl OperandBits {
    /// The bits for `case`.
    #[inline(always)]
    fn of(self, case: [u64; 2]) -> u64 {
        case[self.slot] & !self.clear ^ self.flip
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Catalog;
    use opspec_adapter::DType;

    /// The keyed verdicts (the native reference, constant expectations) accept exactly what
    /// the check's expectations (every governing row, found case by case) accept: on every
    /// pair of edge values and on random pairs, for 16-bit sweeps and the f32 grid.
    #[test]
    fn the_keyed_judge_accepts_what_the_expectations_accept() {
        let catalog = Catalog::builtin().unwrap();
        let suite = catalog.suite("array-api").unwrap();
        let ops = [
            "add",
            "subtract",
            "multiply",
            "divide",
            "maximum",
            "minimum",
            "less",
            "equal",
            "copysign",
            "pow",
            "nextafter",
            "floor_divide",
            "remainder",
        ];
        for (op, f) in ops.iter().flat_map(|&op| [Format::F16, Format::BF16, Format::F32].map(|f| (op, f))) {
            let table = catalog.elementwise.iter().find(|t| t.table.op == op).unwrap();
            let sweep = Sweep::binary(f);
            let ctx = Context::new(table, Some(&suite.suite), f);
            let judge = ClassJudge::new(table, ctx, suite.suite.nan, &sweep).unwrap();
            let n = judge.domain.len();
            let edges: Vec<usize> = crate::generate::edge_values(f)
                .iter()
                .filter_map(|x| judge.domain.iter().position(|d| d == x))
                .collect();
            let mut g = crate::generate::Generator::new(3, op);
            let mut positions: Vec<(usize, usize)> =
                edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
            positions.extend((0..3_000).map(|_| (g.bits() as usize % n, g.bits() as usize % n)));
            for (p1, p2) in positions {
                let case = [judge.domain[p1], judge.domain[p2]];
                let expected = judge.ctx.expectation(&case).unwrap();
                let oracle = crate::oracle::ops::reference(table.op, f, &case).unwrap();
                let nans = [f.quiet_nan(), f.quiet_nan() ^ 1, f.neg(f.quiet_nan()), f.pos_inf() | 1];
                for actual in
                    [oracle, oracle ^ 1, case[0], f.neg(case[0]), f.neg_zero()].into_iter().chain(nans)
                {
                    let governed =
                        judge.governed[judge.key(p1, p2)].get_or_init(|| judge.governed_for(p1, p2));
                    let judged = judge.accepts(governed, p1, p2, actual).unwrap();
                    let accepted = expected.accepts(judge.ctx.output, actual, suite.suite.nan);
                    assert_eq!(judged, accepted, "{op} {} {case:x?} -> {actual:#x}", f.name);
                }
            }
        }
    }

    /// A batch judged the way a sweep judges it (in runs of first operands that share a key,
    /// the last key kept at hand) fails exactly the cases whose result the expectations
    /// reject: every f16 first operand against second operands at the zeros, ±1, the largest
    /// finite value, +infinity and NaNs (quiet of either sign, signaling), for operations whose rows name relations (add's
    /// `x1 = -x2`, equal's) and not, every 97th and 89th result corrupted and so the results
    /// where the first operand is the second's negation or equal to it.
    #[test]
    fn a_batch_fails_exactly_the_cases_the_expectations_reject() {
        let catalog = Catalog::builtin().unwrap();
        let suite = catalog.suite("array-api").unwrap();
        let f = Format::F16;
        for op in ["multiply", "add", "equal", "copysign"] {
            let table = catalog.elementwise.iter().find(|t| t.table.op == op).unwrap();
            let ctx = Context::new(table, Some(&suite.suite), f);
            let judge = ClassJudge::new(table, ctx, suite.suite.nan, &Sweep::binary(f)).unwrap();
            let bool_output = judge.ctx.output == crate::bits::value::Domain::Bool;
            for x2 in [0x0000u64, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0x7e01, 0xfe00, 0x7c01] {
                let cases = x2 << 16..(x2 + 1) << 16;
                let (mut bytes, mut rejected) = (Vec::new(), 0);
                for i in cases.clone() {
                    let case = [i & 0xffff, x2];
                    let mut actual = crate::oracle::ops::reference(table.op, f, &case).unwrap();
                    // One step off, or (where a NaN is due) far off.
                    if i % 97 == 0 {
                        actual ^= 1;
                    } else if i % 89 == 0 || case[0] == f.neg(x2) || case[0] == x2 {
                        actual ^= if bool_output { 1 } else { 0x7c00 };
                    }
                    let expected = judge.ctx.expectation(&case).unwrap();
                    rejected += u64::from(!expected.accepts(judge.ctx.output, actual, suite.suite.nan));
                    if bool_output {
                        bytes.push(actual as u8);
                    } else {
                        bytes.extend_from_slice(&(actual as u16).to_le_bytes());
                    }
                }
                let dtype = if bool_output { DType::Bool } else { DType::F16 };
                let returned = Tensor::from_bytes(dtype, &[1 << 16], bytes).unwrap();
                let tally = judge.batch(cases, &returned, 5).unwrap();
                assert!(rejected > 600, "{op} {x2:#x}: {rejected}");
                assert_eq!((tally.cases, tally.failed), (1 << 16, rejected), "{op} {x2:#x}");
                // A failing case counts once under each governing row (or under `(no row)`).
                assert!(tally.by_row.values().sum::<u64>() >= rejected);
            }
        }
    }
}
