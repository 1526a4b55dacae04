//! Scatter-add (MindSpore `TensorScatterAdd` semantics) for every numeric dtype and mode.
//!
//! The result is deterministic: every destination element receives its updates **in index
//! order**, exactly as a plain sequential loop would add them, whatever the number of threads.
//! Parallelism needs no atomics: the output is cut into one contiguous range of destinations
//! per thread of rayon's current pool (the global pool, as for the element-wise kernels, unless
//! the caller installs another), and each range's job walks the index vectors and applies only
//! those that land in its own range, so no two threads ever touch the same element.
//!
//! The sequential kernel adapts per block of index vectors: where most neighbouring index
//! vectors repeat the same destination (runs of duplicates), it can keep the running sum in a
//! register instead of going through memory for every update (the same additions in the same
//! order, so the same bits), which removes the store-to-load dependency chain that makes a
//! plain loop slow on such inputs on some processors. Elsewhere it applies the updates one by
//! one in index order, and can prefetch (into L2) the destination of the update
//! `SCATTERED_AHEAD` places ahead, so that the cache misses of scattered destinations overlap.
//! Whether either pays depends on the processor (the prefetches made the kernel 1.6× a plain
//! loop on a Zen 4 and 1.3–1.5× slower on a Zen 5, docs/runs/2026-12-02-zen5/NOTES.md), so each call times
//! its first blocks of each kind both ways, alternating (`Trial`), and keeps the faster way.
//! Every way gives the same bits. [`Ways`] forces one way for every call instead
//! (`OPSPEC_CPU_SCATTER`), so that a check reaches each way whatever the timings say.

use std::sync::{Mutex, OnceLock, PoisonError};

use half::{bf16, f16};
use opspec_adapter::{AdapterError, DType, Element, ErrorKind, ScatterMode, Tensor};
use rayon::prelude::*;

/// Index vectors per block of the adaptive kernel.
const BLOCK: usize = 1024;

/// How many index vectors ahead the run kernel prefetches destinations.
const PREFETCH_AHEAD: usize = 32;

/// How many updates ahead the one-by-one kernels prefetch destinations into L2. On the
/// machine of docs/runs/2026-12-01-zen4/NOTES.md (uniform indices into 4 MiB of f32), prefetching into L2
/// 64 or 128 ahead gained 1.6–1.8× over a plain loop, into L1 32 ahead 1.2–1.4×: the L2 keeps
/// more misses in flight.
const SCATTERED_AHEAD: usize = 128;

/// How many blocks of each kind a call times to choose how it runs them (half each way,
/// alternating; see `Trial`): 8 blocks are some 10 µs of a call's milliseconds at the bench's
/// size.
const TRIAL_BLOCKS: usize = 8;

/// Below this many update elements a call stays on one thread.
const PARALLEL_MIN: usize = 1 << 16;

/// How the adaptive kernel chooses between the two ways of running a kind of block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ways {
    /// Per call, by timing its first blocks of each kind both ways (the default).
    Timed,
    /// Every update one at a time through memory: no prefetches, no register kernel.
    Plain,
    /// Prefetches in scattered blocks, the register kernel in blocks of runs.
    Tuned,
}

/// The [`Ways`] [`force_ways`] set, if it was called.
static FORCED: Mutex<Option<Ways>> = Mutex::new(None);

/// The [`Ways`] [`WAYS_VARIABLE`] gives, read once; an error names a value that is no way.
static FROM_VARIABLE: OnceLock<Result<Ways, String>> = OnceLock::new();

/// The environment variable that sets [`Ways`]: `timed`, `plain` or `tuned`.
pub const WAYS_VARIABLE: &str = "OPSPEC_CPU_SCATTER";

/// Makes every later call in this process run its blocks `ways`, whatever
/// [`WAYS_VARIABLE`] says.
pub fn force_ways(ways: Ways) {
    *FORCED.lock().unwrap_or_else(PoisonError::into_inner) = Some(ways);
}

/// The ways of this call: as forced, else as [`WAYS_VARIABLE`] says (timed when unset).
fn ways() -> Result<Ways, AdapterError> {
    if let Some(ways) = *FORCED.lock().unwrap_or_else(PoisonError::into_inner) {
        return Ok(ways);
    }
    let from_variable = FROM_VARIABLE.get_or_init(|| match std::env::var(WAYS_VARIABLE).as_deref() {
        Err(_) | Ok("timed") => Ok(Ways::Timed),
        Ok("plain") => Ok(Ways::Plain),
        Ok("tuned") => Ok(Ways::Tuned),
        Ok(other) => Err(format!("{WAYS_VARIABLE} is {other:?}: give timed, plain or tuned")),
    });
    from_variable.clone().map_err(|message| AdapterError::new(ErrorKind::Adapter, message))
}

/// An element type scatter-add accumulates.
pub trait Accumulate: Element {
    /// `self + other` as the dtype's own addition: IEEE round-to-nearest-even for floats
    /// (f16 and bf16 through f32, which is exact before the one rounding), wrapping for
    /// integers.
    fn accumulate(self, other: Self) -> Self;
}

macro_rules! accumulate_native {
    ($($ty:ty),*) => {$(
        impl Accumulate for $ty {
            #[inline(always)]
            fn accumulate(self, other: Self) -> Self {
                self + other
            }
        }
    )*};
}
accumulate_native!(f32, f64);

macro_rules! accumulate_via_f32 {
    ($($ty:ty),*) => {$(
        impl Accumulate for $ty {
            #[inline(always)]
            fn accumulate(self, other: Self) -> Self {
                <$ty>::from_f32(self.to_f32() + other.to_f32())
            }
        }
    )*};
}
accumulate_via_f32!(f16, bf16);

macro_rules! accumulate_wrapping {
    ($($ty:ty),*) => {$(
        impl Accumulate for $ty {
            #[inline(always)]
            fn accumulate(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
        }
    )*};
}
accumulate_wrapping!(i8, i16, i32, i64, u8, u16, u32, u64);

/// An index element type (the document allows int32 and int64).
pub trait Coordinate: Element {
    /// The coordinate as `i64`.
    fn get(self) -> i64;
}

impl Coordinate for i32 {
    #[inline(always)]
    fn get(self) -> i64 {
        i64::from(self)
    }
}

impl Coordinate for i64 {
    #[inline(always)]
    fn get(self) -> i64 {
        self
    }
}

/// The adapter entry point: checks the operands, then returns `input` with the slices of
/// `updates` added at the index vectors of `indices`.
pub fn scatter_add(
    input: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    mode: ScatterMode,
) -> Result<Tensor, AdapterError> {
    if !matches!(indices.dtype(), DType::I32 | DType::I64) {
        return Err(AdapterError::new(
            ErrorKind::IndexDType,
            format!("indices must be int32 or int64, not {}", indices.dtype()),
        ));
    }
    if updates.dtype() != input.dtype() {
        return Err(AdapterError::new(
            ErrorKind::DTypeMismatch,
            format!("updates are {}, input is {}", updates.dtype(), input.dtype()),
        ));
    }
    let depth = check_shapes(input.shape(), indices.shape(), updates.shape())?;
    match input.dtype() {
        DType::F16 => typed::<f16>(input, indices, updates, depth, mode),
        DType::BF16 => typed::<bf16>(input, indices, updates, depth, mode),
        DType::F32 => typed::<f32>(input, indices, updates, depth, mode),
        DType::F64 => typed::<f64>(input, indices, updates, depth, mode),
        DType::I8 => typed::<i8>(input, indices, updates, depth, mode),
        DType::I16 => typed::<i16>(input, indices, updates, depth, mode),
        DType::I32 => typed::<i32>(input, indices, updates, depth, mode),
        DType::I64 => typed::<i64>(input, indices, updates, depth, mode),
        DType::U8 => typed::<u8>(input, indices, updates, depth, mode),
        DType::U16 => typed::<u16>(input, indices, updates, depth, mode),
        DType::U32 => typed::<u32>(input, indices, updates, depth, mode),
        DType::U64 => typed::<u64>(input, indices, updates, depth, mode),
        DType::Bool => Err(AdapterError::unsupported("scatter_add is not defined for bool")),
        other => Err(AdapterError::unsupported(format!("scatter_add is not implemented for {other}"))),
    }
}

/// The index depth, after checking the document's shape rules.
fn check_shapes(input: &[usize], indices: &[usize], updates: &[usize]) -> Result<usize, AdapterError> {
    let (depth, batch) = match indices.split_last() {
        Some((&depth, batch)) if !batch.is_empty() => (depth, batch),
        _ => {
            return Err(AdapterError::new(
                ErrorKind::Rank,
                format!("indices must have rank >= 2, got shape {indices:?}"),
            ));
        }
    };
    if input.len() < depth {
        return Err(AdapterError::new(
            ErrorKind::Rank,
            format!("input of rank {} is indexed with depth {depth}", input.len()),
        ));
    }
    let expected: Vec<usize> = batch.iter().chain(&input[depth..]).copied().collect();
    if updates != expected.as_slice() {
        return Err(AdapterError::new(
            ErrorKind::ShapeMismatch,
            format!("updates have shape {updates:?}, expected {expected:?}"),
        ));
    }
    Ok(depth)
}

fn typed<T: Accumulate>(
    input: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    depth: usize,
    mode: ScatterMode,
) -> Result<Tensor, AdapterError> {
    let mut out = elements::<T>(input)?;
    let values = elements::<T>(updates)?;
    match indices.dtype() {
        DType::I32 => {
            let coords = elements::<i32>(indices)?;
            scatter_add_in_place(&mut out, input.shape(), &coords, depth, &values, mode)?
        }
        _ => {
            let coords = elements::<i64>(indices)?;
            scatter_add_in_place(&mut out, input.shape(), &coords, depth, &values, mode)?
        }
    }
    Tensor::from_slice(&out, input.shape())
}

/// The elements of `t` in row-major order; contiguous tensors are decoded in one pass.
fn elements<T: Element>(t: &Tensor) -> Result<Vec<T>, AdapterError> {
    match t.contiguous_bytes() {
        Some(bytes) if t.dtype() == T::DTYPE => {
            Ok(bytes.chunks_exact(T::DTYPE.size()).map(T::read_le).collect())
        }
        _ => t.to_vec::<T>(),
    }
}

/// Scatter-add in place on row-major slices: `out` (of `shape`) receives, for each index
/// vector (`depth` coordinates of `indices`), the matching slice of `updates`.
///
/// From 2^16 update elements on (`PARALLEL_MIN`), the work is split across the threads of
/// rayon's current pool; the result does not depend on their number: each destination element
/// gets its updates in index order. In [`ScatterMode::Error`] nothing is written when an index
/// vector is out of range.
pub fn scatter_add_in_place<T: Accumulate, I: Coordinate>(
    out: &mut [T],
    shape: &[usize],
    indices: &[I],
    depth: usize,
    updates: &[T],
    mode: ScatterMode,
) -> Result<(), AdapterError> {
    let mismatch = |m: String| Err(AdapterError::new(ErrorKind::ShapeMismatch, m));
    if shape.iter().product::<usize>() != out.len() || depth > shape.len() {
        return mismatch(format!("{} elements and depth {depth} for shape {shape:?}", out.len()));
    }
    let (indexed, sliced) = shape.split_at(depth);
    let slice: usize = sliced.iter().product();
    // Depth 0: every index vector selects the whole input; count them through the updates.
    let vectors = indices.len().checked_div(depth).unwrap_or(updates.len() / slice.max(1));
    if indices.len() != vectors * depth || updates.len() != vectors * slice {
        return mismatch(format!(
            "{} coordinates and {} update elements do not make whole index vectors and slices",
            indices.len(),
            updates.len()
        ));
    }
    if mode == ScatterMode::Error
        && let Some(v) =
            (0..vectors).find(|&v| resolve(&indices[v * depth..][..depth], indexed, mode).is_none())
    {
        return Err(AdapterError::new(
            ErrorKind::OutOfRange,
            format!(
                "index vector {:?} is outside the indexed shape {indexed:?}",
                indices[v * depth..][..depth].iter().map(|c| c.get()).collect::<Vec<_>>()
            ),
        ));
    }
    let ways = ways()?;
    if slice == 0 || vectors == 0 {
        return Ok(());
    }
    let threads = if updates.len() >= PARALLEL_MIN { rayon::current_num_threads() } else { 1 };
    if depth == 1 && slice == 1 {
        let extent = indexed[0];
        parallel(out, 1, threads, |part, lo| flat_kernel(part, lo, indices, updates, extent, mode, ways));
        return Ok(());
    }
    let dests: Vec<usize> = (0..vectors)
        .map(|v| resolve(&indices[v * depth..][..depth], indexed, mode).unwrap_or(usize::MAX))
        .collect();
    parallel(out, slice, threads, |part, lo| slice_kernel(part, lo, slice, &dests, updates));
    Ok(())
}

/// The slice number of an index vector under `mode`, `None` when it is not applied (or, in
/// `Error` mode, when it is out of range).
#[inline]
fn resolve<I: Coordinate>(coords: &[I], shape: &[usize], mode: ScatterMode) -> Option<usize> {
    coords.iter().zip(shape).try_fold(0usize, |linear, (c, &extent)| {
        resolve_coordinate(c.get(), extent, mode).map(|c| linear * extent + c)
    })
}

#[inline(always)]
fn resolve_coordinate(c: i64, extent: usize, mode: ScatterMode) -> Option<usize> {
    if (c as u64) < extent as u64 {
        return Some(c as usize);
    }
    match mode {
        ScatterMode::Clip if extent > 0 => Some(c.clamp(0, extent as i64 - 1) as usize),
        _ => None,
    }
}

/// Runs `kernel` on `threads` disjoint ranges of whole slices of `out` (fewer when `out` has
/// fewer slices), as jobs on rayon's current pool; each call gets its part and the slice number
/// its part starts at. Every job walks all the updates, so there is one job per thread, not
/// more.
fn parallel<T: Send>(out: &mut [T], slice: usize, threads: usize, kernel: impl Fn(&mut [T], usize) + Sync) {
    let slices = out.len() / slice;
    if threads <= 1 || slices <= 1 {
        return kernel(out, 0);
    }
    let per = slices.div_ceil(threads);
    out.par_chunks_mut(per * slice).enumerate().for_each(|(t, part)| kernel(part, t * per));
}

/// Depth-1 scatter of single elements into `part`, which holds destinations `lo..lo + len`
/// of an axis of `extent` elements. Blocks dominated by runs of one destination keep the
/// running sum in a register.
fn flat_kernel<T: Accumulate, I: Coordinate>(
    part: &mut [T],
    lo: usize,
    indices: &[I],
    updates: &[T],
    extent: usize,
    mode: ScatterMode,
    ways: Ways,
) {
    if mode == ScatterMode::Clip {
        flat_blocks::<T, I, true>(part, lo, indices, updates, extent, ways);
    } else {
        flat_blocks::<T, I, false>(part, lo, indices, updates, extent, ways);
    }
}

/// The destination of coordinate `c` relative to `lo`, as an unsigned number that is below
/// the part's length exactly when the update belongs to this part (negative and too-large
/// coordinates wrap to huge values unless `CLIP` clamps them first).
#[inline(always)]
fn local<I: Coordinate, const CLIP: bool>(c: I, lo: usize, extent: usize) -> usize {
    let c = c.get();
    let c = if CLIP { c.clamp(0, extent as i64 - 1) } else { c };
    (c as usize).wrapping_sub(lo)
}

fn flat_blocks<T: Accumulate, I: Coordinate, const CLIP: bool>(
    part: &mut [T],
    lo: usize,
    indices: &[I],
    updates: &[T],
    extent: usize,
    ways: Ways,
) {
    if extent == 0 {
        return;
    }
    // Every fourth block, a sample of its (now cached) coordinates says whether it was made of
    // long runs; when two samples in a row say so, the following blocks count as runs, for the
    // register kernel (one sample alone is fooled by a few per cent of the blocks of sorted
    // indices, whose runs are too short to gain). Either kernel gives the same bits; the choice
    // only matters for speed, and sampling rarely keeps its cost small next to the scatter.
    // A sample in ascending order (sorted indices) turns the prefetches off (untimed) until the
    // next sample: the processor's own prefetcher follows such addresses.
    let (mut runs, mut last_had_runs, mut ascending) = (false, false, false);
    // A thread that owns part of the output skips the other threads' updates; that test is
    // unpredictable for scattered indices, so such parts first gather their own updates into a
    // small buffer without branching, then apply them.
    let whole = lo == 0 && part.len() >= extent;
    let mut owned: Vec<(usize, T)> = Vec::new();
    // Whether the prefetches and the register kernel pay depends on the processor (the
    // register kernel gained 1.1× on runs on a Zen 4 and ran at half a plain loop's speed on a
    // Zen 5), so each is timed against updating one by one without prefetches in every call.
    let (mut prefetches, mut registers) = (Trial::new(ways), Trial::new(ways));
    for (b, start) in (0..indices.len()).step_by(BLOCK).enumerate() {
        let end = (start + BLOCK).min(indices.len());
        let (block, values) = (&indices[start..end], &updates[start..end]);
        // One update at a time, prefetching or not.
        let mut one_by_one = |part: &mut [T], prefetch: bool| {
            if whole {
                // The coordinates SCATTERED_AHEAD places after each of the block's.
                let ahead = if prefetch {
                    &indices[(start + SCATTERED_AHEAD).min(end)..(end + SCATTERED_AHEAD).min(indices.len())]
                } else {
                    &[]
                };
                plain_block::<T, I, CLIP>(part, block, values, extent, ahead)
            } else {
                owned_block::<T, I, CLIP>(part, lo, block, values, extent, &mut owned, prefetch)
            }
        };
        match (runs, ascending) {
            (true, _) => registers.run(|first| {
                if first {
                    run_block::<T, I, CLIP>(part, lo, block, values, extent)
                } else {
                    one_by_one(part, false)
                }
            }),
            // No prefetches in ascending stretches.
            (false, true) => one_by_one(part, false),
            (false, false) => prefetches.run(|prefetch| one_by_one(part, prefetch)),
        }
        if b % 4 == 3 {
            let (has_runs, in_order) = sample(block);
            runs = has_runs && last_had_runs;
            last_had_runs = has_runs;
            ascending = in_order;
        }
    }
}

/// The faster of two ways to run one kind of block, chosen per call: the first
/// [`TRIAL_BLOCKS`] such blocks alternate between the ways and are timed, and the rest go the
/// way that took less time (ties: the first). Both ways give the same bits. The first way is
/// the tuned one (prefetches, the register kernel).
struct Trial {
    /// The way of every block when [`Ways`] forces one (`true`: the first).
    forced: Option<bool>,
    /// Blocks timed so far.
    trials: usize,
    /// Time spent in the timed blocks the second way and the first way.
    spent: [std::time::Duration; 2],
}

impl Trial {
    fn new(ways: Ways) -> Trial {
        let forced = match ways {
            Ways::Timed => None,
            Ways::Plain => Some(false),
            Ways::Tuned => Some(true),
        };
        Trial { forced, trials: 0, spent: Default::default() }
    }

    /// Runs `block(first)`, where `first` says which way.
    fn run(&mut self, block: impl FnOnce(bool)) {
        if let Some(first) = self.forced {
            return block(first);
        }
        if self.trials >= TRIAL_BLOCKS {
            return block(self.spent[1] <= self.spent[0]);
        }
        let first = self.trials.is_multiple_of(2);
        let started = std::time::Instant::now();
        block(first);
        self.spent[usize::from(first)] += started.elapsed();
        self.trials += 1;
    }
}

/// Of 128 sampled neighbouring pairs of `block`: whether at least 106 repeat a coordinate
/// (runs averaging more than about six, where the register kernel wins: on shorter runs its
/// mispredicted branches cost more than the memory round trips it saves), and whether every
/// pair is in ascending order. A block too short to sample is neither.
#[inline]
fn sample<I: Coordinate>(block: &[I]) -> (bool, bool) {
    // The last sampled pair starts at 127·stride <= block.len() - 2.
    let stride = block.len().saturating_sub(1) / 128;
    if stride == 0 {
        return (false, false);
    }
    let (mut equal, mut ascending) = (0, 0);
    for k in 0..128 {
        let (a, b) = (block[k * stride].get(), block[k * stride + 1].get());
        equal += usize::from(a == b);
        ascending += usize::from(a <= b);
    }
    (equal >= 106, ascending == 128)
}

/// One update at a time, through memory, in index order; before update `i`, a prefetch into
/// L2 of the destination of `ahead[i]` (the coordinate `SCATTERED_AHEAD` places later, while
/// there is one). The updates past `ahead` (all of them in ascending stretches) run unrolled by
/// four: a short loop body lets the processor keep more read-modify-writes in flight. `part` is
/// the whole output.
#[inline(never)]
fn plain_block<T: Accumulate, I: Coordinate, const CLIP: bool>(
    part: &mut [T],
    block: &[I],
    values: &[T],
    extent: usize,
    ahead: &[I],
) {
    let len = part.len();
    let base = part.as_ptr();
    let mut add = |c: I, v: T| {
        let d = local::<I, CLIP>(c, 0, extent);
        if d < len {
            part[d] = part[d].accumulate(v);
        }
    };
    let far = ahead.len().min(block.len());
    // The injected fault: the prefetching loop skips its last update.
    #[cfg(feature = "fault-injection")]
    let ahead =
        &ahead[..far - usize::from(far > 0 && crate::fault::active(crate::fault::Fault::ScatterPrefetch))];
    for ((&c, &v), &a) in block.iter().zip(values).zip(ahead) {
        prefetch::<L2, T>(base.wrapping_add(local::<I, CLIP>(a, 0, extent)));
        add(c, v);
    }
    let (coords, vals) = (block[far..].chunks_exact(4), values[far..].chunks_exact(4));
    let (coord_tail, value_tail) = (coords.remainder(), vals.remainder());
    for (c, v) in coords.zip(vals) {
        add(c[0], v[0]);
        add(c[1], v[1]);
        add(c[2], v[2]);
        add(c[3], v[3]);
    }
    for (&c, &v) in coord_tail.iter().zip(value_tail) {
        add(c, v);
    }
}

/// The updates of `block` that land in `part` (destinations `lo..`), gathered without
/// branches into `owned`, then applied in order, with destinations prefetched into L2
/// `SCATTERED_AHEAD` updates ahead when `prefetching`.
#[inline(never)]
fn owned_block<T: Accumulate, I: Coordinate, const CLIP: bool>(
    part: &mut [T],
    lo: usize,
    block: &[I],
    values: &[T],
    extent: usize,
    owned: &mut Vec<(usize, T)>,
    prefetching: bool,
) {
    let Some(&first) = values.first() else { return };
    owned.clear();
    owned.resize(block.len(), (0, first));
    let len = part.len();
    let mut kept = 0;
    for (&c, &v) in block.iter().zip(values) {
        let d = local::<I, CLIP>(c, lo, extent);
        owned[kept] = (d, v);
        kept += usize::from(d < len);
    }
    // The injected fault: a thread's part drops the last of its updates in each block.
    #[cfg(feature = "fault-injection")]
    let kept = kept - usize::from(kept > 0 && crate::fault::active(crate::fault::Fault::ScatterOwned));
    let owned = &owned[..kept];
    for (i, &(d, v)) in owned.iter().enumerate() {
        if prefetching && let Some(&(a, _)) = owned.get(i + SCATTERED_AHEAD) {
            prefetch::<L2, T>(part.as_ptr().wrapping_add(a));
        }
        part[d] = part[d].accumulate(v);
    }
}

/// A block with long runs of equal coordinates: one load and one store per run, the running
/// sum kept in a register (the same additions in the same order as the plain loop).
#[inline(never)]
fn run_block<T: Accumulate, I: Coordinate, const CLIP: bool>(
    part: &mut [T],
    lo: usize,
    block: &[I],
    values: &[T],
    extent: usize,
) {
    let len = part.len();
    let Some(&first) = values.first() else { return };
    // `current` is the destination being accumulated (>= len: none in this part).
    let (mut current, mut acc) = (usize::MAX, first);
    for (i, (&c, &v)) in block.iter().zip(values).enumerate() {
        // Each run ends in a mispredicted branch, which also discards the loads in flight;
        // fetching the destination of a run further ahead keeps the memory system busy.
        if let Some(&ahead) = block.get(i + PREFETCH_AHEAD) {
            prefetch::<L1, T>(part.as_ptr().wrapping_add(local::<I, CLIP>(ahead, lo, extent)));
        }
        let d = local::<I, CLIP>(c, lo, extent);
        if d == current {
            acc = acc.accumulate(v);
            continue;
        }
        if current < len {
            part[current] = acc;
        }
        current = d;
        if d < len {
            acc = part[d].accumulate(v);
        }
    }
    // The injected fault: the block's last run is not stored.
    #[cfg(feature = "fault-injection")]
    if crate::fault::active(crate::fault::Fault::ScatterRuns) {
        return;
    }
    if current < len {
        part[current] = acc;
    }
}

/// [`prefetch`] into every cache level (`prefetcht0`).
const L1: i32 = 3;
/// [`prefetch`] into L2 and below (`prefetcht1`).
const L2: i32 = 2;
#[cfg(target_arch = "x86_64")]
const _: () = assert!(L1 == std::arch::x86_64::_MM_HINT_T0 && L2 == std::arch::x86_64::_MM_HINT_T1);

/// A hint to fetch the cache line at `p` into the cache level `LEVEL` ([`L1`] or [`L2`], the
/// values of `_MM_HINT_T0` and `_MM_HINT_T1`); the address may lie outside any allocation (a
/// prefetch never faults), which is why it is computed with `wrapping_add`.
#[inline(always)]
fn prefetch<const LEVEL: i32, T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0`/`prefetcht1` only hint the cache; they read nothing and never fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<LEVEL>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Scatter of whole slices into `part`, which holds slice numbers `lo..` (`dests` are slice
/// numbers, `usize::MAX` for vectors that are not applied).
fn slice_kernel<T: Accumulate>(part: &mut [T], lo: usize, slice: usize, dests: &[usize], updates: &[T]) {
    let hi = lo + part.len() / slice;
    for (v, &d) in dests.iter().enumerate() {
        if d < lo || d >= hi {
            continue;
        }
        // The injected fault: a part after the first skips the updates of its first slice.
        #[cfg(feature = "fault-injection")]
        if d == lo && lo > 0 && crate::fault::active(crate::fault::Fault::ScatterSlices) {
            continue;
        }
        let target = &mut part[(d - lo) * slice..][..slice];
        for (o, &u) in target.iter_mut().zip(&updates[v * slice..][..slice]) {
            *o = o.accumulate(u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        input: &[f32],
        shape: &[usize],
        idx: &[i64],
        depth: usize,
        upd: &[f32],
        mode: ScatterMode,
    ) -> Vec<f32> {
        let mut out = input.to_vec();
        scatter_add_in_place(&mut out, shape, idx, depth, upd, mode).unwrap();
        out
    }

    /// Runs `f` on a rayon pool of `threads` threads.
    fn on_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a rayon pool").install(f)
    }

    #[test]
    fn the_documents_example_sums_in_index_order() {
        let out = run(
            &[-0.1, 0.3, 3.6, 0.4, 0.5, -3.2],
            &[2, 3],
            &[0, 0, 0, 0],
            2,
            &[1.0, 2.2],
            ScatterMode::Ignore,
        );
        assert_eq!(out[0], (-0.1f32 + 1.0) + 2.2);
        assert_eq!(out[0].to_bits(), 0x4046_6666);
    }

    #[test]
    fn modes() {
        let idx = [0, 1, 2, 0, 1, 3, -1, 0, 1, 2];
        let upd = [10.0, 20.0, 30.0, 40.0, 50.0];
        assert_eq!(
            run(&[0.0; 6], &[2, 3], &idx, 2, &upd, ScatterMode::Ignore),
            [0.0, 10.0, 0.0, 0.0, 0.0, 50.0]
        );
        assert_eq!(
            run(&[0.0; 6], &[2, 3], &idx, 2, &upd, ScatterMode::Clip),
            [40.0, 10.0, 0.0, 20.0, 0.0, 80.0]
        );
        let mut out = [0.0f32; 6];
        let err = scatter_add_in_place(&mut out, &[2, 3], &idx, 2, &upd, ScatterMode::Error).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutOfRange);
        assert_eq!(out, [0.0; 6], "nothing is written on an error");
    }

    #[test]
    fn operand_errors_have_kinds() {
        let input = Tensor::from_slice(&[0f32; 6], &[2, 3]).unwrap();
        let one = Tensor::from_slice(&[1f32], &[1]).unwrap();
        let kind = |i: &Tensor, u: &Tensor| scatter_add(&input, i, u, ScatterMode::Ignore).unwrap_err().kind;
        assert_eq!(kind(&Tensor::from_slice(&[0f32, 0.0], &[1, 2]).unwrap(), &one), ErrorKind::IndexDType);
        assert_eq!(kind(&Tensor::from_slice(&[0i32, 0, 0], &[1, 3]).unwrap(), &one), ErrorKind::Rank);
        assert_eq!(kind(&Tensor::from_slice(&[0i32, 0], &[2]).unwrap(), &one), ErrorKind::Rank);
        let two = Tensor::from_slice(&[1f32, 2.0], &[2]).unwrap();
        assert_eq!(kind(&Tensor::from_slice(&[0i64, 0], &[1, 2]).unwrap(), &two), ErrorKind::ShapeMismatch);
        let ints = Tensor::from_slice(&[1i32], &[1]).unwrap();
        assert_eq!(kind(&Tensor::from_slice(&[0i64, 0], &[1, 2]).unwrap(), &ints), ErrorKind::DTypeMismatch);
    }

    #[test]
    fn every_dtype_and_strided_input() {
        let indices = Tensor::from_slice(&[1i32, 1], &[2, 1]).unwrap();
        let input = Tensor::from_slice(&[100u8, 200], &[2]).unwrap();
        let updates = Tensor::from_slice(&[50u8, 10], &[2]).unwrap();
        let out = scatter_add(&input, &indices, &updates, ScatterMode::Ignore).unwrap();
        assert_eq!(out.to_vec::<u8>().unwrap(), [100, 4], "200 + 50 + 10 wraps to 4");
        let input = Tensor::from_slice(&[f16::ONE, f16::ZERO], &[2]).unwrap();
        let updates = Tensor::from_slice(&[f16::ONE, f16::ONE], &[2]).unwrap();
        let out = scatter_add(&input, &indices, &updates, ScatterMode::Ignore).unwrap();
        assert_eq!(out.to_vec::<f16>().unwrap(), [f16::ONE, f16::from_f32(2.0)]);
        // A reversed view of the input: logical [2, 1].
        let reversed = Tensor::from_slice(&[1i64, 2], &[2]).unwrap().view(&[2], &[-1], 1).unwrap();
        let updates = Tensor::from_slice(&[5i64, 5], &[2]).unwrap();
        let out = scatter_add(&reversed, &indices, &updates, ScatterMode::Ignore).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [2, 11]);
    }

    #[test]
    fn forced_ways_run_every_block_their_way() {
        for (ways, first) in [(Ways::Plain, false), (Ways::Tuned, true)] {
            let mut trial = Trial::new(ways);
            for _ in 0..3 * TRIAL_BLOCKS {
                trial.run(|way| assert_eq!(way, first, "{ways:?}"));
            }
        }
        // Timed: the trial blocks alternate, the first way first.
        let (mut trial, mut ways) = (Trial::new(Ways::Timed), Vec::new());
        for _ in 0..TRIAL_BLOCKS {
            trial.run(|way| ways.push(way));
        }
        assert_eq!(ways, [true, false].repeat(TRIAL_BLOCKS / 2));
    }

    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn same_bits_as_a_sequential_loop_for_every_thread_count() {
        let mut s = 3;
        let n = 1000usize;
        let m = PARALLEL_MIN * 2;
        let values: Vec<f32> = (0..m).map(|_| (splitmix(&mut s) % 10_000) as f32 * 1.37e-3 - 6.0).collect();
        // Uniform, sorted, and runs of repeats, with out-of-range coordinates mixed in.
        let uniform: Vec<i64> = (0..m).map(|_| (splitmix(&mut s) % (n as u64 + 20)) as i64 - 10).collect();
        let mut sorted = uniform.clone();
        sorted.sort_unstable();
        let runs: Vec<i64> = (0..m).map(|i| uniform[i / 13]).collect();
        let patterns = [&uniform, &sorted, &runs];
        for (indices, mode) in
            patterns.iter().flat_map(|&i| [(i, ScatterMode::Ignore), (i, ScatterMode::Clip)])
        {
            let mut sequential = vec![0.5f32; n];
            for (&c, &v) in indices.iter().zip(&values) {
                if mode == ScatterMode::Clip || (0..n as i64).contains(&c) {
                    sequential[c.clamp(0, n as i64 - 1) as usize] += v;
                }
            }
            for threads in [1, 2, 3, 7] {
                let mut out = vec![0.5f32; n];
                on_threads(threads, || scatter_add_in_place(&mut out, &[n], indices, 1, &values, mode))
                    .unwrap();
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&out), bits(&sequential), "{threads} threads, {mode:?}");
            }
        }
        // Blocks of every length up to two blocks, each a run of repeats (the sampling of a
        // short last block stays inside it).
        for len in 1..2 * BLOCK + 3 {
            let mut out = vec![0f32; 4];
            let coords = vec![2i64; len];
            scatter_add_in_place(&mut out, &[4], &coords, 1, &values[..len], ScatterMode::Ignore).unwrap();
            let sequential = values[..len].iter().fold(0f32, |acc, &v| acc + v);
            assert_eq!(out[2].to_bits(), sequential.to_bits(), "{len}");
        }
        // Slices (depth 1 of a [n/4, 4] input) through the general kernel.
        let coords: Vec<i64> = uniform.iter().take(m / 4).map(|c| c / 4).collect();
        let slices = |threads, out: &mut [f32]| {
            on_threads(threads, || {
                scatter_add_in_place(out, &[n / 4, 4], &coords, 1, &values, ScatterMode::Clip)
            })
        };
        let (mut one, mut many) = (vec![0f32; n], vec![0f32; n]);
        slices(1, &mut one).unwrap();
        slices(5, &mut many).unwrap();
        assert_eq!(one, many);
    }
}
