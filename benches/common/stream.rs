//! STREAM-style one-core bandwidth baselines: copy, a plain add loop, an add with non-temporal
//! stores, and the same non-temporal add on buffers backed by 2 MiB pages.

use std::hint::black_box;

/// One 2 MiB page.
const HUGE: usize = 2 << 20;

/// A pre-faulted anonymous `f32` mapping, on 4 KiB pages or (through `MADV_HUGEPAGE`) 2 MiB pages.
pub struct Buffer {
    map: *mut libc::c_void,
    map_len: usize,
    data: *mut f32,
    len: usize,
}

impl Buffer {
    /// `len` elements set to `fill`, aligned to 2 MiB when `huge` (and to 4 KiB otherwise).
    pub fn new(len: usize, huge: bool, fill: f32) -> Buffer {
        let bytes = len * 4;
        let map_len = if huge { bytes.next_multiple_of(HUGE) + HUGE } else { bytes.max(1) };
        // SAFETY: an anonymous private mapping with no address hint touches no existing memory.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(map != libc::MAP_FAILED, "mmap of {map_len} bytes failed");
        let skip = if huge { (map as usize).next_multiple_of(HUGE) - map as usize } else { 0 };
        // SAFETY: `skip + bytes <= map_len`, so the pointer stays inside the mapping.
        let data = unsafe { map.cast::<u8>().add(skip) }.cast::<f32>();
        let advice = if huge { libc::MADV_HUGEPAGE } else { libc::MADV_NOHUGEPAGE };
        // SAFETY: advice on the whole mapping created above; it does not change its contents.
        unsafe { libc::madvise(map, map_len, advice) };
        let mut buffer = Buffer { map, map_len, data, len };
        buffer.as_mut().fill(fill); // pre-faults every page
        buffer
    }

    fn as_ref(&self) -> &[f32] {
        // SAFETY: `data` points at `len` initialised f32s inside the live, page-aligned mapping.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    fn as_mut(&mut self) -> &mut [f32] {
        // SAFETY: as in `as_ref`, and `&mut self` makes this the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping created in `new`; no slice of it outlives `self`.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}

/// The process's `AnonHugePages` in KiB (from `/proc/self/smaps_rollup`), when Linux reports it.
pub fn anon_huge_kib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = text.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `c[i] = a[i] + b[i]`, the loop a user would write.
#[inline(never)]
pub fn add(a: &[f32], b: &[f32], c: &mut [f32]) {
    for ((c, &a), &b) in c.iter_mut().zip(a).zip(b) {
        *c = a + b;
    }
}

/// `c[i] = a[i] + b[i]` with non-temporal stores; `None` without AVX.
pub fn nt_add(a: &[f32], b: &[f32], c: &mut [f32]) -> Option<()> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: AVX was detected on this CPU just above.
        unsafe { nt_add_avx(a, b, c) };
        return Some(());
    }
    let _ = (a, b, c);
    None
}

/// The AVX body of [`nt_add`]: unaligned loads, 32-byte aligned streaming stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn nt_add_avx(a: &[f32], b: &[f32], c: &mut [f32]) {
    use std::arch::x86_64::*;
    let len = c.len().min(a.len()).min(b.len());
    // Scalar head up to 32-byte alignment of c, then 8 lanes at a time, then a scalar tail.
    let head = c.as_ptr().align_offset(32).min(len);
    let body = head + (len - head) / 8 * 8;
    add(&a[..head], &b[..head], &mut c[..head]);
    let (pa, pb, pc) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
    for i in (head..body).step_by(8) {
        // SAFETY: `i + 8 <= body <= len` for all three slices, and `pc + i` is 32-byte aligned
        // (aligned at `head`, advanced by 32 bytes per step), as the streaming store requires.
        unsafe {
            _mm256_stream_ps(pc.add(i), _mm256_add_ps(_mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i))))
        };
    }
    _mm_sfence();
    add(&a[body..len], &b[body..len], &mut c[body..len]);
}

/// One size's baselines, GB/s (copy: bytes of a and c; the adds: a, b and c).
pub struct Baselines {
    pub copy: f64,
    pub add: f64,
    pub nt_add: Option<f64>,
    pub nt_add_huge: Option<f64>,
    /// KiB of `AnonHugePages` the three 2 MiB-page buffers added to the process.
    pub huge_kib: Option<u64>,
}

/// Times the baselines on arrays of `bytes` bytes each (as f32), best of `samples`.
pub fn measure(bytes: usize, samples: usize) -> Baselines {
    let len = bytes / 4;
    let gbs = |arrays: usize, secs: f64| (arrays * bytes) as f64 / secs / 1e9;
    let (a, b, mut c) =
        (Buffer::new(len, false, 0.25), Buffer::new(len, false, 1.5), Buffer::new(len, false, 0.0));
    let copy = crate::timing::time(samples, || black_box(c.as_mut()).copy_from_slice(a.as_ref()));
    let plain = crate::timing::time(samples, || add(a.as_ref(), b.as_ref(), black_box(c.as_mut())));
    let nt = nt_add(a.as_ref(), b.as_ref(), c.as_mut())
        .map(|()| crate::timing::time(samples, || _ = nt_add(a.as_ref(), b.as_ref(), black_box(c.as_mut()))));
    drop((a, b, c));
    let before = anon_huge_kib();
    let (a, b, mut c) =
        (Buffer::new(len, true, 0.25), Buffer::new(len, true, 1.5), Buffer::new(len, true, 0.0));
    let huge_kib = anon_huge_kib().zip(before).map(|(after, before)| after.saturating_sub(before));
    let nt_huge = nt
        .map(|_| crate::timing::time(samples, || _ = nt_add(a.as_ref(), b.as_ref(), black_box(c.as_mut()))));
    Baselines {
        copy: gbs(2, copy),
        add: gbs(3, plain),
        nt_add: nt.map(|s| gbs(3, s)),
        nt_add_huge: nt_huge.map(|s| gbs(3, s)),
        huge_kib,
    }
}
