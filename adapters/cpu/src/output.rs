//! Output buffers for the allocating calls.
//!
//! A large `vec![0u8; n]` gets fresh pages from the kernel (the allocator maps them and does
//! not touch them), so the kernel writing into it takes one page fault per 4 KiB page. On
//! Linux, [`zeroed`] asks for transparent huge pages (`madvise(MADV_HUGEPAGE)`) on the 2 MiB
//! aligned part of a large buffer before anything touches it, so those parts fault once per
//! 2 MiB, and [`buffer`] then faults the pages in across rayon's threads
//! (`MADV_POPULATE_WRITE`, one 2 MiB page per work item) instead of leaving the faults to the
//! kernel's own chunks. Both are hints: where the kernel refuses them (THP off, kernels before
//! 5.14, other systems) the buffer is the same zeroed `Vec`.

use rayon::prelude::*;

/// Buffers of at least this many bytes get the huge-page advice. Below it the allocator
/// usually serves the buffer from its heap (pages already mapped), where the advice cannot help.
pub const HUGE_THRESHOLD: usize = 4 << 20;

/// The transparent huge page size on x86-64 (and most aarch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// A zeroed buffer of `bytes` bytes with its pages already faulted in (see the module
/// documentation); a normal `Vec<u8>` that frees through the global allocator.
pub fn buffer(bytes: usize) -> Vec<u8> {
    let mut v = zeroed(bytes);
    if bytes >= HUGE_THRESHOLD {
        populate(&mut v);
    }
    v
}

/// A zeroed buffer of `bytes` bytes, not yet touched; from [`HUGE_THRESHOLD`] bytes on, advised
/// to use huge pages, with a capacity of `bytes` plus 2 MiB so that the huge-page-aligned part
/// covers the whole buffer after its first (partial) huge page.
pub fn zeroed(bytes: usize) -> Vec<u8> {
    if bytes < HUGE_THRESHOLD {
        return vec![0; bytes];
    }
    let mut v = vec![0u8; bytes.saturating_add(HUGE_PAGE)];
    let head = v.as_ptr().align_offset(HUGE_PAGE).min(v.len());
    let huge = (v.len() - head) / HUGE_PAGE * HUGE_PAGE;
    advise(&mut v[head..head + huge], Advice::HugePages);
    v.truncate(bytes);
    v
}

/// Faults `v`'s pages in for writing, one huge page per rayon work item.
fn populate(v: &mut [u8]) {
    let head = v.as_ptr().align_offset(HUGE_PAGE).min(v.len());
    let (first, rest) = v.split_at_mut(head);
    advise(first, Advice::PopulateWrite);
    rest.par_chunks_mut(HUGE_PAGE).for_each(|page| advise(page, Advice::PopulateWrite));
}

#[derive(Clone, Copy)]
enum Advice {
    HugePages,
    PopulateWrite,
}

/// `madvise` on the whole 4 KiB pages inside `v`; errors are ignored (the advice is a hint).
#[cfg(target_os = "linux")]
fn advise(v: &mut [u8], advice: Advice) {
    let start = v.as_ptr().align_offset(4096).min(v.len());
    let len = (v.len() - start) / 4096 * 4096;
    if len == 0 {
        return;
    }
    let advice = match advice {
        Advice::HugePages => libc::MADV_HUGEPAGE,
        Advice::PopulateWrite => libc::MADV_POPULATE_WRITE,
    };
    // SAFETY: the range is whole pages inside `v`, which this function borrows mutably; both
    // advices leave the contents (zeros stay zeros) and the mapping's validity unchanged, and
    // only change how and when the kernel backs the pages.
    unsafe {
        libc::madvise(v.as_mut_ptr().add(start).cast(), len, advice);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_: &mut [u8], _: Advice) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_with_the_asked_length() {
        for bytes in [0, 1, 4095, HUGE_THRESHOLD - 1, HUGE_THRESHOLD, HUGE_THRESHOLD + 12345, 9 << 20] {
            for v in [zeroed(bytes), buffer(bytes)] {
                assert_eq!(v.len(), bytes);
                assert!(v.iter().all(|&b| b == 0), "{bytes} bytes");
            }
        }
    }
}
