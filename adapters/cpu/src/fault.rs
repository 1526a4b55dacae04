//! Faults injected into the real kernels, to show that the harness's layout checks catch what
//! its conformance suites cannot reach (feature `fault-injection`, off by default; nothing of
//! it is compiled without the feature). Each fault perturbs one place of the fast path:
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
//!   row's tail).

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
