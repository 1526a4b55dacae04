//! Output buffers for the allocating calls.
//!
//! A large allocation gets fresh pages from the kernel (the allocator maps them and does not
//! touch them), so the kernel writing into it takes one page fault per 4 KiB page. On Linux,
//! [`with_capacity`] asks for transparent huge pages (`madvise(MADV_HUGEPAGE)`) on the 2 MiB
//! aligned part of a large buffer before anything touches it, so those parts fault once per
//! 2 MiB. The advice is a hint: where the kernel refuses it (THP off, other systems) the buffer
//! is the same `Vec`.
//!
//! `examples/alloc_timing.rs` measures it: f32 add at 2^24 elements into a fresh output ran
//! about 4× faster than into `vec![0; n]`. Faulting the pages in across rayon's threads first
//! (`MADV_POPULATE_WRITE`) measured no further gain on the 2-vCPU test machine, so it is not
//! done.

use std::mem::MaybeUninit;

/// Buffers of at least this many bytes get the huge-page advice. glibc serves every allocation
/// this large with a fresh `mmap`; smaller ones, once a buffer of their size has been freed, come
/// from its heap with pages already mapped, where `alloc_timing` measured the advice as neutral
/// at 16 MiB and slower at 8 MiB.
pub const HUGE_THRESHOLD: usize = 32 << 20;

/// The transparent huge page size on x86-64 (and most aarch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// An empty `Vec<u8>` (freed through the global allocator) with room for `bytes` bytes, for a
/// kernel that writes every byte into its spare capacity. Nothing is zeroed: below
/// [`HUGE_THRESHOLD`] glibc's `calloc` clears reused heap memory, a write pass as long as the
/// output (`benches/elementwise.rs` measured the allocating f32 add at 2^16 at 0.67× the
/// caller-owned call with a zeroed `Vec`). From [`HUGE_THRESHOLD`] bytes on, it is advised to
/// use huge pages, with a capacity of `bytes` plus 2 MiB so that the huge-page-aligned part
/// covers the whole buffer after its first (partial) huge page.
pub fn with_capacity(bytes: usize) -> Vec<u8> {
    if bytes < HUGE_THRESHOLD {
        return Vec::with_capacity(bytes);
    }
    let mut v = Vec::with_capacity(bytes.saturating_add(HUGE_PAGE));
    advise_huge(v.as_mut_ptr(), v.capacity());
    v
}

/// A buffer of `bytes` bytes from [`with_capacity`], filled by `write` through its
/// uninitialized capacity; `None` when `write` returns `false`. Under the `fault-injection`
/// feature the capacity is zeroed first, so that a byte an injected fault leaves unwritten
/// reads as 0 rather than as uninitialized memory.
///
/// # Safety
/// When `write` returns `true` it must have written every byte of the slice it was given.
pub(crate) unsafe fn written(
    bytes: usize,
    write: impl FnOnce(&mut [MaybeUninit<u8>]) -> bool,
) -> Option<Vec<u8>> {
    let mut out = with_capacity(bytes);
    #[cfg(feature = "fault-injection")]
    out.spare_capacity_mut().fill(MaybeUninit::new(0));
    if !write(&mut out.spare_capacity_mut()[..bytes]) {
        return None;
    }
    // SAFETY: `write` wrote all `bytes` bytes (it returned true: the caller's contract).
    unsafe { out.set_len(bytes) };
    Some(out)
}

/// Advises the kernel to back the 2 MiB-aligned interior of the `len` bytes from `start` (a
/// `Vec`'s allocation) with huge pages; errors are ignored (the advice is a hint).
#[cfg(target_os = "linux")]
fn advise_huge(start: *mut u8, len: usize) {
    let head = start.align_offset(HUGE_PAGE).min(len);
    let len = (len - head) / HUGE_PAGE * HUGE_PAGE;
    if len == 0 {
        return;
    }
    // SAFETY: `head .. head + len` lies inside the caller's allocation and starts on a page
    // boundary; MADV_HUGEPAGE leaves the contents and the mapping's validity unchanged and only
    // changes how the kernel backs the pages.
    unsafe {
        libc::madvise(start.add(head).cast(), len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_: *mut u8, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_buffers_have_room_for_the_asked_length() {
        for bytes in [0, 1, 4095, HUGE_THRESHOLD - 1, HUGE_THRESHOLD, HUGE_THRESHOLD + 12345] {
            let v = with_capacity(bytes);
            assert!(v.is_empty() && v.capacity() >= bytes, "{bytes} bytes");
        }
    }
}
