//! Results on disk: `results.json` (the record) and `index.html` (rendered from it).

mod html;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::run::{CheckResult, RunOptions, Status};
use crate::spec::Catalog;

/// What a run was: enough to reproduce it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    pub opspec_version: String,
    /// Which catalog ran: `built-in catalog` or `catalog at DIR` (`--root`).
    pub catalog: String,
    /// The contract revision: a hash of the catalog files loaded (tables, suites,
    /// expectations), so reports of different contracts differ.
    pub spec_revision: String,
    /// `name: seed` for every suite run.
    pub seeds: Vec<String>,
    /// The seed and inputs per row of the tables' self-checks.
    #[serde(default)]
    pub table_seed: u64,
    #[serde(default)]
    pub table_cases_per_row: usize,
    /// The threads the kernels of an in-process adapter may use: rayon's pool size, and
    /// `RAYON_NUM_THREADS` when it is set (the one knob; the CPU adapter has no other).
    #[serde(default)]
    pub threads: String,
    /// `name: version` for every adapter run.
    pub adapters: Vec<String>,
    pub reference: String,
    pub target: String,
    pub cpu_features: Vec<String>,
    /// Seconds since the Unix epoch when the run ended.
    pub finished_at: u64,
    pub seconds: f64,
    /// The command line that produced the report.
    pub command: String,
}

impl RunInfo {
    /// Describes a run of `catalog` under `options` with the given adapter versions.
    pub fn new(catalog: &Catalog, options: &RunOptions, adapters: Vec<String>, seconds: f64) -> RunInfo {
        let threads = match std::env::var("RAYON_NUM_THREADS") {
            Ok(v) => format!("{} (RAYON_NUM_THREADS={v})", rayon::current_num_threads()),
            Err(_) => format!("{} (rayon's default: one per CPU)", rayon::current_num_threads()),
        };
        RunInfo {
            opspec_version: env!("CARGO_PKG_VERSION").to_string(),
            catalog: catalog.origin.to_string(),
            spec_revision: catalog.revision.clone(),
            seeds: catalog.suites.iter().map(|s| format!("{}: {}", s.suite.name, s.suite.seed)).collect(),
            table_seed: options.table_seed,
            table_cases_per_row: options.table_cases_per_row,
            threads,
            adapters,
            reference: reference_version(),
            target: format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS),
            cpu_features: cpu_features(),
            finished_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            seconds,
            command: std::env::args().collect::<Vec<_>>().join(" "),
        }
    }
}

/// The reference's libraries, with the versions built into this binary.
fn reference_version() -> String {
    use gmp_mpfr_sys::{gmp, mpfr};
    format!(
        "MPFR {}.{}.{} with GMP {}.{}.{} (through rug and gmp-mpfr-sys), rounded once per format",
        mpfr::VERSION_MAJOR,
        mpfr::VERSION_MINOR,
        mpfr::VERSION_PATCHLEVEL,
        gmp::VERSION,
        gmp::VERSION_MINOR,
        gmp::VERSION_PATCHLEVEL
    )
}

/// The whole record of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub info: RunInfo,
    pub results: Vec<CheckResult>,
}

/// Counts of a group of results.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub pass: usize,
    pub fail: usize,
    pub skip: usize,
    /// Failures listed as known deviations.
    pub known_deviation: usize,
    /// Planned checks the run never ran.
    pub missing: usize,
    /// Checks whose adapter could not be started.
    pub unavailable: usize,
    pub inputs: usize,
    /// Of the checks that knew their count before running: the inputs planned, and the
    /// inputs they ran (fewer where a contract left inputs out, or a check stopped early).
    pub planned: usize,
    pub planned_run: usize,
    /// The largest measured ULP error among the results that report one.
    pub max_ulp_error: Option<f64>,
}

impl Tally {
    /// Adds one result.
    pub fn add(&mut self, r: &CheckResult) {
        match r.status {
            Status::Pass => self.pass += 1,
            Status::Fail => self.fail += 1,
            Status::Skip => self.skip += 1,
            Status::KnownDeviation => self.known_deviation += 1,
            Status::Missing => self.missing += 1,
            Status::Unavailable => self.unavailable += 1,
        }
        self.inputs += r.inputs;
        if let Some(p) = r.planned_inputs {
            self.planned += p;
            self.planned_run += r.inputs;
        }
        if let Some(e) = r.max_ulp_error {
            self.max_ulp_error = Some(self.max_ulp_error.map_or(e, |m| m.max(e)));
        }
    }

    /// The maximum ULP error as text (`0.500`), or `-` where none was measured.
    pub fn max_ulp_text(&self) -> String {
        self.max_ulp_error.map_or("-".to_string(), |e| format!("{e:.3}"))
    }

    /// The tally of `results`.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CheckResult>) -> Tally {
        let mut t = Tally::default();
        results.into_iter().for_each(|r| t.add(r));
        t
    }
}

/// Writes `results.json` and `index.html` into `dir` (created if missing).
pub fn write(dir: &Path, report: &Report) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    std::fs::write(dir.join("results.json"), json)?;
    std::fs::write(dir.join("index.html"), html::render(report))
}

fn cpu_features() -> Vec<String> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut found = Vec::new();
        macro_rules! probe {
            ($($f:tt),*) => {$( if std::arch::is_x86_feature_detected!($f) { found.push($f.to_string()); } )*};
        }
        probe!("sse4.2", "avx", "avx2", "fma", "f16c", "avx512f");
        found
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}
