//! Faults injected into the real kernels, to show which checks reach each path: the layout
//! checks and the large scatter problems catch what the other checks cannot reach
//! (docs/KERNEL_PATHS.md; feature `fault-injection`, off by default; nothing of it is
//! compiled without the feature). Each fault perturbs one place of one path:
//!
//! - [`Fault::Tail`]: `fast::segment` leaves the last element of a segment of more than 4 KiB
//!   unwritten when the segment is one element short of a whole number of 32-byte blocks (the
//!   conformance suites' batches have no such segment, and their broadcast outputs are
//!   smaller);
//! - [`Fault::Split`]: `fast::binary_into` skips the first element of every work piece after
//!   the first in an output of `PARALLEL_THRESHOLD` (1 MiB) or more (f32 pow and atan2 split
//!   from 32 KiB, which the conformance suites' 64 KiB batches reach: not faulted there);
//! - [`Fault::Stream`]: the non-temporal-store loop (`avx::each`, or `avx512::each` on AVX-512
//!   CPUs) stops one 32-byte block early in each row it streams (`avx512::each` also skips the
//!   row's tail);
//! - the scatter-add kernels (`scatter.rs`): [`Fault::ScatterPrefetch`], the prefetching loop
//!   of a whole-output block skips its last update; [`Fault::ScatterOwned`], a thread's part
//!   of a split output drops the last of its updates in each block; [`Fault::ScatterRuns`],
//!   the register kernel does not store a block's last run; [`Fault::ScatterSlices`], a part
//!   after the first of a split slice-wise scatter skips its first slice's updates.

use std::sync::atomic::{AtomicU8, Ordering};

/// A fault to inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Fault {
    /// No fault: the kernels as shipped.
    None,
    Tail,
    Split,
    Stream,
    ScatterPrefetch,
    ScatterOwned,
    ScatterRuns,
    ScatterSlices,
}

static ACTIVE: AtomicU8 = AtomicU8::new(Fault::None as u8);

/// Injects `fault` into every later call in this process (`Fault::None` removes it).
pub fn inject(fault: Fault) {
    ACTIVE.store(fault as u8, Ordering::SeqCst);
}

/// Whether `fault` is injected.
pub(crate) fn active(fault: Fault) -> bool {
    ACTIVE.load(Ordering::Relaxed) == fault as u8
}
