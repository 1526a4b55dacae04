//! Output buffers for the allocating calls.
//!
//! A large `vec![0u8; n]` gets fresh pages from the kernel (the allocator maps them and does
//! not touch them), so the kernel writing into it takes one page fault per 4 KiB page. On
//! Linux, [`buffer`] asks for transparent huge pages (`madvise(MADV_HUGEPAGE)`) on the 2 MiB
//! aligned part of a large buffer before anything touches it, so those parts fault once per
//! 2 MiB. The advice is a hint: where the kernel refuses it (THP off, other systems) the buffer
//! is the same zeroed `Vec`.
//!
//! `examples/alloc_timing.rs` measures it: f32 add at 2^24 elements into a fresh output ran
//! about 4× faster than into `vec![0; n]`. Faulting the pages in across rayon's threads first
//! (`MADV_POPULATE_WRITE`) measured no further gain on the 2-vCPU test machine, so it is not
//! done.

/// Buffers of at least this many bytes get the huge-page advice. glibc serves every allocation
/// this large with a fresh `mmap`; smaller ones, once a buffer of their size has been freed, come
/// from its heap with pages already mapped, where `alloc_timing` measured the advice as neutral
/// at 16 MiB and slower at 8 MiB.
pub const HUGE_THRESHOLD: usize = 32 << 20;

/// The transparent huge page size on x86-64 (and most aarch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// A zeroed buffer of `bytes` bytes: a normal `Vec<u8>` that frees through the global
/// allocator. From [`HUGE_THRESHOLD`] bytes on, it is advised to use huge pages, with a
/// capacity of `bytes` plus 2 MiB so that the huge-page-aligned part covers the whole buffer
/// after its first (partial) huge page.
pub fn buffer(bytes: usize) -> Vec<u8> {
    if bytes < HUGE_THRESHOLD {
        return vec![0; bytes];
    }
    let mut v = vec![0u8; bytes.saturating_add(HUGE_PAGE)];
    advise_huge(&mut v);
    v.truncate(bytes);
    v
}

/// Advises the kernel to back the 2 MiB-aligned interior of `v` with huge pages; errors are
/// ignored (the advice is a hint).
#[cfg(target_os = "linux")]
fn advise_huge(v: &mut [u8]) {
    let head = v.as_ptr().align_offset(HUGE_PAGE).min(v.len());
    let len = (v.len() - head) / HUGE_PAGE * HUGE_PAGE;
    if len == 0 {
        return;
    }
    // SAFETY: `head .. head + len` lies inside `v`, which this function borrows mutably, and
    // starts on a page boundary; MADV_HUGEPAGE leaves the contents and the mapping's validity
    // unchanged and only changes how the kernel backs the pages.
    unsafe {
        libc::madvise(v.as_mut_ptr().add(head).cast(), len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_: &mut [u8]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_with_the_asked_length() {
        for bytes in [0, 1, 4095, HUGE_THRESHOLD - 1, HUGE_THRESHOLD, HUGE_THRESHOLD + 12345] {
            let v = buffer(bytes);
            assert_eq!(v.len(), bytes);
            assert!(v.iter().all(|&b| b == 0), "{bytes} bytes");
        }
    }
}
