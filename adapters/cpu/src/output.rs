//! Output buffers for the allocating calls.
//!
//! A large `vec![0u8; n]` gets fresh pages from the kernel (the allocator maps them and does
//! not touch them), so the kernel writing into it takes one page fault per 4 KiB page. On
//! Linux, [`buffer`] asks for transparent huge pages (`madvise(MADV_HUGEPAGE)`) on the 2 MiB
//! aligned part of a large buffer before anything touches it, so those parts fault once per
//! 2 MiB. The advice is a hint: where the kernel refuses it (THP off, another OS) the buffer is
//! the same zeroed `Vec`.

/// Buffers of at least this many bytes are advised to use huge pages. Below it the allocator
/// usually serves the buffer from its heap (pages already mapped), where the advice cannot help.
pub const HUGE_THRESHOLD: usize = 4 << 20;

/// The transparent huge page size on x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// A zeroed buffer of `bytes` bytes: a normal `Vec<u8>` (it frees through the global
/// allocator as usual). From [`HUGE_THRESHOLD`] bytes on, its capacity is `bytes` plus 2 MiB
/// so that the huge-page-aligned part covers the whole buffer after its first (partial) huge
/// page.
pub fn buffer(bytes: usize) -> Vec<u8> {
    if bytes < HUGE_THRESHOLD {
        return vec![0; bytes];
    }
    let mut v = vec![0u8; bytes + HUGE_PAGE];
    advise_huge(&mut v);
    v.truncate(bytes);
    v
}

/// Advises the kernel to back the 2 MiB-aligned interior of `v` with huge pages.
#[cfg(target_os = "linux")]
fn advise_huge(v: &mut [u8]) {
    let start = v.as_mut_ptr();
    let head = start.align_offset(HUGE_PAGE).min(v.len());
    let len = (v.len() - head) / HUGE_PAGE * HUGE_PAGE;
    if len == 0 {
        return;
    }
    // SAFETY: `start + head .. + len` lies inside `v`, which this function borrows mutably;
    // MADV_HUGEPAGE changes neither the contents nor the mapping's validity, only how the
    // kernel backs it. A failure (THP disabled, a heap region) is ignored: it is a hint.
    unsafe {
        libc::madvise(start.add(head).cast(), len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_: &mut [u8]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_with_the_asked_length() {
        for bytes in [0, 1, 4095, HUGE_THRESHOLD - 1, HUGE_THRESHOLD, HUGE_THRESHOLD + 12345, 9 << 20] {
            let v = buffer(bytes);
            assert_eq!(v.len(), bytes);
            assert!(v.iter().all(|&b| b == 0), "{bytes} bytes");
        }
    }
}
