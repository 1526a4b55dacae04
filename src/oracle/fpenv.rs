//! The floating-point control state of the calling thread, which the native reference
//! ([`super::native`]) depends on: round to nearest even, subnormals neither flushed (FTZ) nor
//! read as zero (DAZ), and no exception trapping.
//!
//! Rust never changes this state, but a library loaded into the process (an in-process adapter
//! built with `-ffast-math`, a CUDA runtime, a BLAS) can, and the state is per thread. The
//! native reference therefore reads it before every result it computes (`expect::reference`;
//! a sweep, before every slice of cases), on the thread that computes it, and refuses with
//! [`check`]'s error rather than compute with it.

/// Whether this target has a control state that [`check`] can read (x86_64 and aarch64); on
/// other targets the native reference is not used.
pub const READABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// `Ok` when this thread's floating-point control state is the IEEE default the native
/// reference needs; otherwise an error that names the register, its value and what is wrong.
pub fn check() -> Result<(), String> {
    let state = arch::read();
    let problems = arch::problems(state);
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the floating-point control state of this thread is not the IEEE default ({} = {:#x}: {}); \
         an in-process adapter or library changed it, and the native reference refuses to compute \
         with it (run the adapter out of process: --adapter NAME=lib:PATH)",
        arch::REGISTER,
        state,
        problems.join(", ")
    ))
}

#[cfg(target_arch = "x86_64")]
mod arch {
    pub const REGISTER: &str = "MXCSR";
    const FTZ: u32 = 1 << 15;
    const DAZ: u32 = 1 << 6;
    const ROUNDING: u32 = 0b11 << 13;
    /// The six exception masks (set: the exception does not trap).
    const MASKS: u32 = 0x3f << 7;

    pub fn read() -> u32 {
        let mut csr: u32 = 0;
        // SAFETY: `stmxcsr` stores the 32-bit MXCSR at the given address, a live local.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags)) };
        csr
    }

    /// What in `csr` differs from the state the reference needs.
    pub fn problems(csr: u32) -> Vec<&'static str> {
        let mut out = Vec::new();
        if csr & FTZ != 0 {
            out.push("flush-to-zero (FTZ) is set");
        }
        if csr & DAZ != 0 {
            out.push("denormals-are-zero (DAZ) is set");
        }
        if csr & ROUNDING != 0 {
            out.push("the rounding mode is not round-to-nearest-even");
        }
        if csr & MASKS != MASKS {
            out.push("a floating-point exception is unmasked (it would trap)");
        }
        out
    }

    /// Runs `body` with MXCSR set to `csr`, then restores it (for tests).
    #[cfg(test)]
    pub fn with(csr: u32, body: impl FnOnce()) {
        let saved = read();
        // SAFETY: `ldmxcsr` loads MXCSR from a live local; the old value is restored below.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags)) };
        body();
        // SAFETY: as above, with the saved value.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &saved, options(nostack, preserves_flags)) };
    }

    #[cfg(test)]
    pub const FLUSHING: u32 = FTZ | DAZ;
}

#[cfg(target_arch = "aarch64")]
mod arch {
    pub const REGISTER: &str = "FPCR";
    const FZ: u64 = 1 << 24;
    const RMODE: u64 = 0b11 << 22;
    /// The trap enables of the IEEE exceptions (IOE, DZE, OFE, UFE, IXE, IDE).
    const TRAPS: u64 = 0b1001_1111 << 8;

    pub fn read() -> u32 {
        let fpcr: u64;
        // SAFETY: reading FPCR has no side effect.
        unsafe { std::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags)) };
        fpcr as u32
    }

    pub fn problems(fpcr: u32) -> Vec<&'static str> {
        let fpcr = u64::from(fpcr);
        let mut out = Vec::new();
        if fpcr & FZ != 0 {
            out.push("flush-to-zero (FZ) is set");
        }
        if fpcr & RMODE != 0 {
            out.push("the rounding mode is not round-to-nearest-even");
        }
        if fpcr & TRAPS != 0 {
            out.push("a floating-point exception trap is enabled");
        }
        out
    }

    /// Runs `body` with FPCR set to `fpcr`, then restores it (for tests).
    #[cfg(test)]
    pub fn with(fpcr: u32, body: impl FnOnce()) {
        let saved = read();
        // SAFETY: writing FPCR changes only this thread's FP behaviour; restored below.
        unsafe { std::arch::asm!("msr fpcr, {}", in(reg) u64::from(fpcr), options(nomem, nostack)) };
        body();
        // SAFETY: as above, with the saved value.
        unsafe { std::arch::asm!("msr fpcr, {}", in(reg) u64::from(saved), options(nomem, nostack)) };
    }

    #[cfg(test)]
    pub const FLUSHING: u32 = FZ as u32;
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod arch {
    pub const REGISTER: &str = "the FP control register";

    pub fn read() -> u32 {
        0
    }

    pub fn problems(_: u32) -> Vec<&'static str> {
        vec!["it cannot be read on this target"]
    }
}

/// Runs `body` on this thread with flush-to-zero (and, on x86_64, denormals-are-zero) set, as
/// a `-ffast-math` library leaves it; the state is restored afterwards.
#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn with_flushing(body: impl FnOnce()) {
    arch::with(arch::read() | arch::FLUSHING, body);
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;

    #[test]
    fn the_default_state_passes_and_flushing_is_refused() {
        assert_eq!(check(), Ok(()));
        let mut refused = None;
        with_flushing(|| refused = Some(check()));
        let e = refused.unwrap().unwrap_err();
        assert!(e.contains(arch::REGISTER) && e.contains("flush-to-zero"), "{e}");
        assert_eq!(check(), Ok(()), "restored");
    }

    #[test]
    fn the_reference_refuses_to_compute_under_flushing() {
        use opspec_adapter::{BinaryOp, OpKind};
        let add = OpKind::Binary(BinaryOp::Add);
        let (tiny, f) = (1, crate::bits::format::Format::F32);
        assert_eq!(crate::oracle::reference(add, f, &[tiny, tiny]), Ok(2));
        let mut refused = None;
        with_flushing(|| refused = Some(crate::oracle::reference(add, f, &[tiny, tiny])));
        let e = refused.unwrap().unwrap_err();
        assert!(e.contains("native reference refuses"), "{e}");
    }

    #[test]
    fn flushing_really_flushes_so_the_check_matters() {
        // The smallest normal f32 halved is a subnormal; with FTZ it becomes 0.
        let tiny = std::hint::black_box(f32::MIN_POSITIVE);
        let mut flushed = 1.0;
        with_flushing(|| flushed = std::hint::black_box(tiny) * std::hint::black_box(0.5f32));
        assert_eq!(flushed, 0.0);
        assert_ne!(std::hint::black_box(tiny) * 0.5, 0.0);
    }
}
