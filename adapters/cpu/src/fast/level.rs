//! Which vector instructions the element-wise kernels of `fast.rs` use: the widest the CPU
//! has (detected once, at run time), unless the `OPSPEC_CPU_SIMD` environment variable caps it.

use std::sync::OnceLock;

/// A set of vector instructions for the element-wise kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// The portable loops only.
    Portable,
    /// AVX, AVX2 and F16C, each where the CPU has it (`avx.rs`).
    Avx2,
    /// AVX-512 F, BW and VL (`avx512.rs`).
    Avx512,
}

impl Simd {
    /// The name `OPSPEC_CPU_SIMD` takes: `portable`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Portable => "portable",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }
}

/// The instructions the kernels use: the widest the CPU has, or less where `OPSPEC_CPU_SIMD`
/// names a narrower set (read once per process; a value that names no set is ignored).
pub fn simd() -> Simd {
    static LEVEL: OnceLock<Simd> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let cap = std::env::var("OPSPEC_CPU_SIMD").ok();
        let cap =
            [Simd::Portable, Simd::Avx2, Simd::Avx512].into_iter().find(|s| cap.as_deref() == Some(s.name()));
        detected().min(cap.unwrap_or(Simd::Avx512))
    })
}

/// The widest set the CPU has.
fn detected() -> Simd {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") && has!("avx512bw") && has!("avx512vl") {
            return Simd::Avx512;
        }
        if has!("avx") {
            return Simd::Avx2;
        }
    }
    Simd::Portable
}
