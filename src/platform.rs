//! The machine a run happens on: its target and the CPU features kernels pick paths by, as
//! the report records them and expectations entries name them.

/// `x86_64-linux`: architecture and operating system.
pub fn target() -> String {
    format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS)
}

/// The architecture on which [`cpu_features`] reports features ([`CPU_FEATURES`]); elsewhere it
/// reports none.
pub const CPU_FEATURES_ARCH: &str = "x86_64";

/// Every CPU feature [`cpu_features`] can report (on x86_64; elsewhere it reports none).
pub const CPU_FEATURES: [&str; 8] =
    ["sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl"];

/// The architectures and operating systems a [`target`] can name (values of Rust's
/// `std::env::consts::ARCH` and `OS`).
pub const ARCHES: [&str; 14] = [
    "x86",
    "x86_64",
    "arm",
    "aarch64",
    "loongarch64",
    "m68k",
    "mips",
    "mips64",
    "powerpc",
    "powerpc64",
    "riscv64",
    "s390x",
    "sparc64",
    "wasm32",
];
pub const OSES: [&str; 14] = [
    "linux",
    "macos",
    "ios",
    "freebsd",
    "dragonfly",
    "netbsd",
    "openbsd",
    "solaris",
    "illumos",
    "android",
    "windows",
    "haiku",
    "aix",
    "wasi",
];

/// Which build of opspec this is: its version, profile (`release` or `debug`) and the hash of
/// the code it was built from (`build.rs`), the same for every build of one checkout, on any
/// machine. Runs of two builds are not shards of one run (`docs/SHARDING.md`).
pub fn build_id() -> String {
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    format!("opspec {} {profile}, source {}", env!("CARGO_PKG_VERSION"), env!("OPSPEC_SOURCE_HASH"))
}

/// The CPU features opspec's own code and the in-process adapters may pick kernels by.
pub fn cpu_features() -> Vec<String> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut found = Vec::new();
        macro_rules! probe {
            ($($f:tt),*) => {$( if std::arch::is_x86_feature_detected!($f) { found.push($f.to_string()); } )*};
        }
        probe!("sse4.2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl");
        found
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Whether this process was started by `cargo` itself (`cargo run`), read from `/proc` on
/// Linux: its parent's name. Elsewhere, and where `/proc` cannot be read, false.
pub fn parent_is_cargo() -> bool {
    let parent = std::fs::read_to_string("/proc/self/stat").ok().and_then(|stat| {
        // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so read after
        // its last `)`.
        let after = &stat[stat.rfind(')')? + 1..];
        after.split_whitespace().nth(1)?.parse::<u32>().ok()
    });
    parent
        .and_then(|ppid| std::fs::read_to_string(format!("/proc/{ppid}/comm")).ok())
        .is_some_and(|name| name.trim() == "cargo")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machines_target_and_features_are_ones_an_expectations_file_may_name() {
        let target = target();
        let (arch, os) = target.split_once('-').unwrap();
        assert!(ARCHES.contains(&arch) && OSES.contains(&os), "{target}");
        assert!(cpu_features().iter().all(|f| CPU_FEATURES.contains(&f.as_str())));
    }
}
