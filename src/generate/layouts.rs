//! Sizes and memory layouts for the layout checks: the element counts at which kernels change
//! path (vector tails, thread splits, streaming stores), the views an operand or destination
//! can be (offset, reversed, stepped, transposed, broadcast), and which of a check's input
//! pairs each output element gets.
//!
//! Operands are tiled from a small table of pairs (every combination of the edge values)
//! rather than drawn per element, so the expectation is computed once per pair and each of up
//! to 2^24 output elements is compared with its pair's. That is exact: an element-wise
//! operation's result at one position depends only on the operands at that position, and the
//! expectation is a function of those operands alone, so the same pair always has the same
//! expectation wherever it lies. The pair of element `i` varies with `i` in a pattern that no
//! small shift or period repeats, so a result written one place off, or a value read from the
//! wrong position, meets a different pair.

use opspec_adapter::Tensor;

/// The widest vector register the sizes are chosen around: 64 bytes (AVX-512; the CPU
/// adapter's AVX2 kernels use 32).
pub const WIDEST_VECTOR: usize = 64;

/// The largest contiguous size of the default run, in elements.
const SMALL_TOP: usize = 1 << 12;

/// The largest size of the large sweep, in elements.
pub const LARGE_TOP: usize = 1 << 24;

/// Which sizes a check runs: the default run's or the large sweep's (`--layouts-large`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    Small,
    Large,
}

impl Scale {
    /// The case name of the check in ids.
    pub fn case(self) -> &'static str {
        match self {
            Scale::Small => "layouts",
            Scale::Large => "layouts-large",
        }
    }
}

/// How the operands and the destination of one call are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// Row-major, each operand its own whole buffer.
    Contiguous,
    /// Dense, but starting 1 to `WIDEST_VECTOR/size - 1` elements into a larger buffer (each
    /// operand at a different offset, so their misalignments differ).
    Offset,
    /// Stride -1: the buffer holds the values back to front.
    Reversed,
    /// Stride 2: every other element of the buffer, the gaps holding other values.
    Stepped,
    /// A `[r, c]` view with strides `[1, r]` of a buffer holding the transpose.
    Transposed,
    /// `x2` is one row (`[c]`) broadcast down `[r, c]`.
    Row,
    /// `x2` is one column (`[r, 1]`) broadcast across `[r, c]`.
    Column,
    /// `x2` is a `[r, c]` view with strides `[0, 1]` of one row.
    ZeroStride,
    /// `x1` is a rank-0 tensor broadcast against `[n]`.
    ScalarFirst,
    /// The destination starts some elements into a larger buffer.
    OutOffset,
    /// The destination has stride -1.
    OutReversed,
    /// The destination has stride 2 over a buffer whose other elements must stay untouched.
    OutStepped,
}

impl Layout {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Contiguous => "contiguous",
            Layout::Offset => "offset",
            Layout::Reversed => "reversed",
            Layout::Stepped => "stepped",
            Layout::Transposed => "transposed",
            Layout::Row => "row-broadcast",
            Layout::Column => "column-broadcast",
            Layout::ZeroStride => "zero-stride",
            Layout::ScalarFirst => "scalar-first",
            Layout::OutOffset => "out-offset",
            Layout::OutReversed => "out-reversed",
            Layout::OutStepped => "out-stepped",
        }
    }

    /// Whether the layout is about the destination of a destination-passing call.
    pub fn is_destination(self) -> bool {
        matches!(self, Layout::OutOffset | Layout::OutReversed | Layout::OutStepped)
    }

    /// Whether an operand is broadcast (so the operands have different shapes).
    pub fn broadcasts(self) -> bool {
        matches!(self, Layout::Row | Layout::Column | Layout::ZeroStride | Layout::ScalarFirst)
    }
}

/// What a check calls: `arity` tensor operands, and whether the result goes into a destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub arity: usize,
    pub into: bool,
}

/// One call of a layout check: its layout and output shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shot {
    pub layout: Layout,
    pub shape: Vec<usize>,
}

impl Shot {
    /// The number of output elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The output sizes, in bytes, at which kernels typically change path in the large sweep: a
/// thread split (the CPU adapter splits outputs of 1 MiB and more into 256 KiB pieces) and
/// non-temporal stores (the CPU adapter streams outputs of 8 MiB and more).
pub const LARGE_BYTES: [usize; 3] = [256 << 10, 1 << 20, 8 << 20];

/// The contiguous sizes, in elements of `element` bytes: every size up to twice the widest
/// vector, then each power of two up to the scale's top with its neighbours; in the large
/// sweep, past 2^16 elements only each power of two plus one (just past every power-of-two
/// threshold) and, up to 2^20, one and a half times it plus one (thread pieces that end
/// mid-vector).
pub fn sizes(element: usize, scale: Scale) -> Vec<usize> {
    let lanes = WIDEST_VECTOR / element;
    let mut out: Vec<usize> = (0..=2 * lanes).collect();
    let top = match scale {
        Scale::Small => SMALL_TOP,
        Scale::Large => LARGE_TOP,
    };
    let mut p = (2 * lanes).next_power_of_two() * 2;
    while p <= top {
        if p <= 1 << 16 {
            out.extend([p - 1, p, p + 1]);
        } else {
            out.push(p + 1);
        }
        if scale == Scale::Large && p <= 1 << 20 {
            out.push(p + p / 2 + 1);
        }
        p *= 2;
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Every call of a check of `call` in elements of `element` bytes: the contiguous sweep, then
/// each other layout at a few sizes around the vector width and, in the large sweep, just past
/// each of [`LARGE_BYTES`] (and a transposed and a broadcast grid of about 4 M elements).
pub fn shots(call: Call, element: usize, scale: Scale) -> Vec<Shot> {
    let lanes = WIDEST_VECTOR / element;
    let large = scale == Scale::Large;
    let mut shots: Vec<Shot> = sizes(element, scale)
        .into_iter()
        .map(|n| Shot { layout: Layout::Contiguous, shape: vec![n] })
        .collect();
    let mut lengths = vec![0, 1, lanes - 1, lanes + 1, 2 * lanes + 3, 1000, 4097];
    if large {
        lengths.extend(LARGE_BYTES.map(|b| b / element + 3));
    }
    let mut layouts = vec![Layout::Offset, Layout::Reversed, Layout::Stepped];
    if call.into {
        layouts.extend([Layout::OutOffset, Layout::OutReversed, Layout::OutStepped]);
    }
    for layout in layouts {
        shots.extend(lengths.iter().map(|&n| Shot { layout, shape: vec![n] }));
    }
    let mut grids = vec![[1, 7], [3, 5], [lanes + 1, 3], [37, 29], [64, 65]];
    if large {
        grids.push([2049, 2047]);
    }
    shots.extend(grids.iter().map(|g| Shot { layout: Layout::Transposed, shape: g.to_vec() }));
    if call.arity == 2 {
        let mut tiles = vec![[3, lanes + 1], [5, 2 * lanes + 3], [64, 65], [1000, 1]];
        if large {
            tiles.push([2049, 2047]);
        }
        for layout in [Layout::Row, Layout::Column, Layout::ZeroStride] {
            shots.extend(tiles.iter().map(|t| Shot { layout, shape: t.to_vec() }));
        }
        shots.extend([1, lanes + 1, 1000].map(|n| Shot { layout: Layout::ScalarFirst, shape: vec![n] }));
    }
    shots
}

/// The shape operand `k` has in `shot` (the output's, except for a broadcast operand).
pub fn operand_shape(shot: &Shot, k: usize) -> Vec<usize> {
    match (shot.layout, k) {
        (Layout::Row, 1) => vec![shot.shape[1]],
        (Layout::Column, 1) => vec![shot.shape[0], 1],
        (Layout::ScalarFirst, 0) => Vec::new(),
        _ => shot.shape.clone(),
    }
}

/// A check's input pairs (or triples), grouped by the value of each operand so that a
/// broadcast operand's elements find partners that share its value.
pub struct PairTable {
    /// `cases[p][k]` is operand `k` of pair `p`.
    pub cases: Vec<Vec<u64>>,
    /// For each operand, the pairs grouped by that operand's value.
    groups: Vec<Vec<Vec<usize>>>,
}

/// A multiplier coprime with every table size used here (it is prime and larger than any).
const SPREAD: usize = 1_000_003;

impl PairTable {
    /// The table of `cases`, which must not be empty.
    pub fn new(cases: Vec<Vec<u64>>) -> PairTable {
        let arity = cases.first().map_or(0, Vec::len);
        let groups = (0..arity)
            .map(|k| {
                let mut by: std::collections::BTreeMap<u64, Vec<usize>> = Default::default();
                for (p, c) in cases.iter().enumerate() {
                    by.entry(c[k]).or_default().push(p);
                }
                by.into_values().collect()
            })
            .collect();
        PairTable { cases, groups }
    }

    /// The pair of each output element of `shot`, in row-major order: for dense layouts a
    /// position-dependent pattern over all pairs; where an operand is broadcast, every element
    /// it covers gets a pair holding that operand's one value there.
    pub fn pairs(&self, shot: &Shot) -> Vec<usize> {
        let total = shot.numel();
        match shot.layout {
            Layout::Row | Layout::ZeroStride | Layout::Column => {
                let cols = shot.shape[1].max(1);
                let groups = &self.groups[1];
                // The broadcast operand's value depends on the column (row broadcast) or the
                // row (column broadcast); its partners vary with the position.
                let keys: Vec<usize> =
                    spread(groups.len(), if shot.layout == Layout::Column { total / cols } else { cols });
                (0..total)
                    .map(|i| {
                        let key = if shot.layout == Layout::Column { i / cols } else { i % cols };
                        let group = &groups[keys[key]];
                        group[spread_at(i, group.len())]
                    })
                    .collect()
            }
            Layout::ScalarFirst => {
                let group = &self.groups[0][0];
                spread(group.len(), total).into_iter().map(|j| group[j]).collect()
            }
            _ => spread(self.cases.len(), total),
        }
    }
}

/// The `i`-th value of the sequence below `m`: `(i·SPREAD + ⌊i/m⌋) mod m`, which moves by
/// `SPREAD mod m` (coprime with `m`) from one element to the next and shifts by one more every
/// `m` elements, so its period is `m²`, not `m`.
fn spread_at(i: usize, m: usize) -> usize {
    (i.wrapping_mul(SPREAD) + i / m) % m
}

/// The first `count` values of [`spread_at`]'s sequence below `m`, without a division per
/// element.
fn spread(m: usize, count: usize) -> Vec<usize> {
    let m = m.max(1);
    let step = SPREAD % m;
    let (mut value, mut lap) = (0, 0);
    (0..count)
        .map(|_| {
            let out = value;
            value += step;
            lap += 1;
            if lap == m {
                lap = 0;
                value += 1;
            }
            while value >= m {
                value -= m;
            }
            out
        })
        .collect()
}

/// The traits of `t`'s layout, as a process worker's `views` map names them
/// (`docs/PROTOCOL.md`, "Views"); none for a row-major whole buffer: `offset` (its first
/// element in memory is not the buffer's first), `negative`, `zero` (a negative or zero stride
/// on an axis longer than 1), `permuted` (strides not in decreasing order), `gaps` (elements
/// spread out with unused ones between them).
pub fn layout_traits(t: &Tensor) -> Vec<&'static str> {
    let axes: Vec<(usize, isize)> =
        t.shape().iter().copied().zip(t.strides().iter().copied()).filter(|&(n, _)| n > 1).collect();
    if t.numel() == 0 {
        return Vec::new();
    }
    let low = t.offset() as isize + axes.iter().map(|&(n, s)| (n as isize - 1) * s.min(0)).sum::<isize>();
    let moving: Vec<(usize, usize)> =
        axes.iter().filter(|&&(_, s)| s != 0).map(|&(n, s)| (n, s.unsigned_abs())).collect();
    let span = 1 + moving.iter().map(|&(n, s)| (n - 1) * s).sum::<usize>();
    let distinct = moving.iter().map(|&(n, _)| n).product::<usize>();
    [
        ("offset", low > 0),
        ("negative", axes.iter().any(|&(_, s)| s < 0)),
        ("zero", axes.iter().any(|&(_, s)| s == 0)),
        ("permuted", moving.windows(2).any(|w| w[0].1 < w[1].1)),
        ("gaps", span > distinct),
    ]
    .into_iter()
    .filter_map(|(name, has)| has.then_some(name))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_cover_every_tail_and_the_powers_of_two() {
        let small = sizes(4, Scale::Small);
        assert!((0..=32).all(|n| small.contains(&n)), "every f32 size up to twice 16 lanes");
        for p in [64, 128, 4096] {
            assert!([p - 1, p, p + 1].iter().all(|n| small.contains(n)), "{p}");
        }
        assert_eq!(small.last(), Some(&4097));
        let large = sizes(1, Scale::Large);
        assert!((0..=128).all(|n| large.contains(&n)));
        assert!(large.contains(&(LARGE_TOP + 1)));
        assert!(large.contains(&((1 << 20) + (1 << 19) + 1)) && large.contains(&((1 << 17) + 1)));
        assert!(large.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn broadcast_operands_get_one_value_where_they_are_broadcast() {
        let cases: Vec<Vec<u64>> = (0..5).flat_map(|a| (0..7).map(move |b| vec![a, 100 + b])).collect();
        let table = PairTable::new(cases);
        let row = Shot { layout: Layout::Row, shape: vec![4, 6] };
        let pairs = table.pairs(&row);
        for c in 0..6 {
            let column: Vec<u64> = (0..4).map(|r| table.cases[pairs[r * 6 + c]][1]).collect();
            assert!(column.iter().all(|&v| v == column[0]), "column {c}: {column:?}");
        }
        let x1: Vec<u64> = (0..4).map(|r| table.cases[pairs[r * 6]][0]).collect();
        assert!(x1.iter().any(|&v| v != x1[0]), "x1 varies down a column: {x1:?}");
        let col = Shot { layout: Layout::Column, shape: vec![4, 6] };
        let pairs = table.pairs(&col);
        for r in 0..4 {
            assert!((0..6).all(|c| table.cases[pairs[r * 6 + c]][1] == table.cases[pairs[r * 6]][1]));
        }
        let scalar = Shot { layout: Layout::ScalarFirst, shape: vec![9] };
        let pairs = table.pairs(&scalar);
        assert!(pairs.iter().all(|&p| table.cases[p][0] == table.cases[pairs[0]][0]));
    }

    #[test]
    fn layout_traits_name_what_differs_from_row_major() {
        let base = Tensor::from_bits(opspec_adapter::DType::F32, &[12], &[0; 12]).unwrap();
        let traits = |shape: &[usize], strides: &[isize], offset| {
            layout_traits(&base.view(shape, strides, offset).unwrap())
        };
        assert!(traits(&[12], &[1], 0).is_empty());
        assert_eq!(traits(&[11], &[1], 1), ["offset"]);
        assert_eq!(traits(&[12], &[-1], 11), ["negative"]);
        assert_eq!(traits(&[3, 4], &[0, 1], 0), ["zero"]);
        assert_eq!(traits(&[3, 4], &[1, 3], 0), ["permuted"]);
        assert_eq!(traits(&[6], &[2], 0), ["gaps"]);
        assert!(traits(&[1, 7], &[1, 1], 0).is_empty(), "a one-row transpose is row-major");
    }

    #[test]
    fn the_incremental_sequence_is_the_formula() {
        for m in [1, 2, 7, 1521, 8192] {
            let fast = spread(m, 3 * m + 5);
            assert!(fast.iter().enumerate().all(|(i, &v)| v == spread_at(i, m)), "m = {m}");
        }
    }

    #[test]
    fn dense_pairs_differ_from_their_neighbours() {
        let table = PairTable::new((0..1521u64).map(|p| vec![p, p]).collect());
        let pairs = table.pairs(&Shot { layout: Layout::Contiguous, shape: vec![100_000] });
        assert!(pairs.windows(2).all(|w| w[0] != w[1]));
        assert!(pairs.iter().all(|&p| p < 1521));
    }
}
