//! What a run was: the environment, catalog and seeds a report records, enough to reproduce it.

use serde::{Deserialize, Serialize};

use super::Rerun;
use super::shard::ShardOfPlan;
use crate::spec::Catalog;

/// What a run was: enough to reproduce it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunInfo {
    /// This run's id: 32 random hex digits drawn as it starts (a merge's is derived from its
    /// shards'). `report` and `diff` refuse one run given twice by it (empty in files written
    /// before it was recorded).
    #[serde(default)]
    pub run_id: String,
    /// Which build of opspec ran ([`crate::platform::build_id`]): `merge` joins the shards of
    /// one build only (empty in files written before it was recorded).
    #[serde(default)]
    pub build_id: String,
    pub opspec_version: String,
    /// `release` or `debug`: how this opspec was built (a debug build is slow, and refuses
    /// `--exhaustive`).
    #[serde(default)]
    pub build: String,
    /// Which catalog ran: `built-in catalog` or `catalog at DIR` (`--root`).
    pub catalog: String,
    /// The contract revision: a hash of the catalog files loaded (tables, suites,
    /// expectations), so reports of different contracts differ.
    pub spec_revision: String,
    /// The version of the check-id contract ([`crate::spec::id::CONTRACT_VERSION`]).
    #[serde(default)]
    pub contract_version: u32,
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
    /// Seconds since the Unix epoch when the run ended (0 while it runs).
    pub finished_at: u64,
    pub seconds: f64,
    /// The command line that produced the report.
    pub command: String,
    /// How to rerun its checks: every command a report prints comes from this.
    #[serde(default)]
    pub rerun: Rerun,
    /// The contract's gaps: what each table does not encode yet.
    #[serde(default)]
    pub gaps: Vec<Gap>,
    /// The hash of the run's whole plan, unsharded ([`crate::run::shard::plan_hash`]): the
    /// shards of one plan share it (empty in files written before it was recorded).
    #[serde(default)]
    pub plan_hash: String,
    /// For a run of one shard (`run --shard I/N`): which, and every unit of the whole plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardOfPlan>,
}

impl RunInfo {
    /// Describes a run of `catalog` with the given table self-check seed and inputs per row,
    /// adapter versions and rerun commands, as it starts (its end is recorded by the results
    /// file's `end` record).
    pub fn new(
        catalog: &Catalog,
        table_seed: u64,
        table_cases_per_row: usize,
        adapters: Vec<String>,
        rerun: Rerun,
    ) -> RunInfo {
        let threads = match std::env::var("RAYON_NUM_THREADS") {
            Ok(v) => format!("{} (RAYON_NUM_THREADS={v})", rayon::current_num_threads()),
            Err(_) => format!("{} (rayon's default: one per CPU)", rayon::current_num_threads()),
        };
        RunInfo {
            run_id: run_id(),
            build_id: crate::platform::build_id(),
            opspec_version: env!("CARGO_PKG_VERSION").to_string(),
            build: if cfg!(debug_assertions) { "debug" } else { "release" }.to_string(),
            catalog: catalog.origin.to_string(),
            spec_revision: catalog.revision.clone(),
            contract_version: crate::spec::id::CONTRACT_VERSION,
            seeds: catalog.suites.iter().map(|s| format!("{}: {}", s.suite.name, s.suite.seed)).collect(),
            table_seed,
            table_cases_per_row,
            threads,
            adapters,
            reference: reference_version(),
            target: crate::platform::target(),
            cpu_features: crate::platform::cpu_features(),
            finished_at: 0,
            seconds: 0.0,
            command: std::env::args().collect::<Vec<_>>().join(" "),
            rerun,
            gaps: gaps(catalog),
            plan_hash: String::new(),
            shard: None,
        }
    }
}

/// A fresh run id: 128 bits from the standard library's per-process random hash keys, the
/// time and the process.
fn run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u8(salt);
        h.write_u128(now.as_nanos());
        h.write_u32(std::process::id());
        h.finish()
    };
    format!("{:016x}{:016x}", half(0), half(1))
}

/// The reference's libraries, with the versions built into this binary.
fn reference_version() -> String {
    use gmp_mpfr_sys::{gmp, mpc, mpfr};
    format!(
        "MPFR {}.{}.{} and MPC {}.{}.{} with GMP {}.{}.{} (through rug and gmp-mpfr-sys), rounded once per format",
        mpfr::VERSION_MAJOR,
        mpfr::VERSION_MINOR,
        mpfr::VERSION_PATCHLEVEL,
        mpc::VERSION_MAJOR,
        mpc::VERSION_MINOR,
        mpc::VERSION_PATCHLEVEL,
        gmp::VERSION,
        gmp::VERSION_MINOR,
        gmp::VERSION_PATCHLEVEL
    )
}

/// A part of a source document a table does not encode yet (its `not_covered` list).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Gap {
    /// The table (`elementwise/add`) and its file (`specs/elementwise/add.yaml`).
    pub table: String,
    pub path: String,
    pub source: String,
    pub what: String,
    pub reason: String,
}

/// Every table's gaps, in table order.
fn gaps(catalog: &Catalog) -> Vec<Gap> {
    let gap = |key: &str, path: &std::path::Path, n: &crate::spec::source::NotCovered| Gap {
        table: key.to_string(),
        path: path.display().to_string(),
        source: n.source.clone(),
        what: n.what.clone(),
        reason: n.reason.clone(),
    };
    let elementwise =
        catalog.elementwise.iter().flat_map(|t| t.table.not_covered.iter().map(|n| gap(&t.key, &t.path, n)));
    let broadcasting =
        catalog.broadcasting.iter().flat_map(|t| t.table.not_covered.iter().map(|n| gap(&t.key, &t.path, n)));
    let scatter =
        catalog.scatter.iter().flat_map(|t| t.table.not_covered.iter().map(|n| gap(&t.key, &t.path, n)));
    elementwise.chain(broadcasting).chain(scatter).collect()
}
