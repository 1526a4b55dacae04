//! One operand of an in-row segment, as the segment kernels (`lane`, `avx`, `transcendental`)
//! take it, and the view of an initialized output that the kernels write into.

use std::mem::MaybeUninit;

/// One side of a segment: a slice as long as the segment, or one element.
#[derive(Clone, Copy)]
pub(crate) enum Side<'a> {
    Slice(&'a [u8]),
    Splat(&'a [u8]),
}

/// `side` without its first `bytes` bytes.
pub(crate) fn skip(side: Side<'_>, bytes: usize) -> Side<'_> {
    match side {
        Side::Slice(b) => Side::Slice(&b[bytes..]),
        splat => splat,
    }
}

/// `bytes` as the output type of the kernels, which take outputs that need not be initialized.
///
/// # Safety
/// Only initialized bytes may be written through the result (the kernels write only results),
/// so that `bytes` stays initialized.
pub(crate) unsafe fn as_uninit(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the caller keeps the bytes initialized.
    unsafe { &mut *(bytes as *mut [u8] as *mut [MaybeUninit<u8>]) }
}
