//! One operand of an in-row segment, as the segment kernels (`lane`, `avx`, `transcendental`)
//! take it.

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
