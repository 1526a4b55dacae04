//! The `opspec` command line: argument parsing and the commands, as a library function so
//! that the binary and the Rust vendor harness ([`crate::harness`]) run the same code over
//! the adapters each offers ([`Setup`]).

use crate::spec::authority::Tier;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::host::{AdapterSet, AdapterSpec};
use crate::results::rerun::quoted;
use crate::results::{self, Rerun};
use crate::run::select::Selection;
use crate::run::{RunOptions, validate_expectations};
use crate::spec::Catalog;
use crate::verdict;
use clap::{Args, Parser, Subcommand};

mod eval;
mod expect;
mod host;
mod report;
mod run;
mod scheduler;

use eval::{evaluate, oracle_agreement};
use expect::{draft, migrate};
use host::adapter_host;
pub(crate) use host::serve_stdio;
use report::{compare, merge, show};
use run::{list, run};
use scheduler::ShardChoice;

/// What a command line runs against: the adapters it may name, and the values of the options
/// it leaves out. The `opspec` binary runs [`Setup::builtin`]; the Rust vendor harness offers
/// the vendor's adapter, catalog, expectations and report folder.
pub struct Setup {
    /// The adapters `--adapter` may name besides specs (`NAME=SPEC`); its default is the set's.
    pub adapters: AdapterSet,
    /// The suites when no `--suite` is given (empty: every suite).
    pub suites: Vec<String>,
    /// The catalog folder when no `--root` is given (none: the catalog built into opspec).
    pub root: Option<PathBuf>,
    /// Expectations files from outside the catalog, before those given with `--expectations`.
    pub expectations: Vec<PathBuf>,
    /// The folder for results and the report when no `--out` is given.
    pub out: PathBuf,
    /// How this program is invoked in the commands it prints to reproduce a failure.
    pub invocation: String,
}

impl Setup {
    /// The `opspec` binary's: the built-in adapters (`cpu` by default), every suite, the
    /// built-in catalog, results and reports in `reports/`.
    pub fn builtin() -> Setup {
        Setup {
            adapters: AdapterSet::builtin(),
            suites: Vec::new(),
            root: None,
            expectations: Vec::new(),
            out: PathBuf::from("reports"),
            invocation: invocation(),
        }
    }
}

#[derive(Parser)]
#[command(name = "opspec", version, about = "Spec-conformance harness for element-wise tensor operations")]
struct Cli {
    /// Folder holding specs/, suites/ and expectations/ (default: the catalog built into opspec).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    /// An expectations file from outside the catalog (a vendor's own), in addition to the
    /// catalog's; repeatable.
    #[arg(long = "expectations", global = true, value_name = "FILE")]
    expectations: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// Which checks a command takes; check ids are `suite:adapter:op:dtype:case` or
/// `table:op:dtype:case`.
#[derive(Args)]
struct Select {
    /// Suites to run (default: all).
    #[arg(long = "suite")]
    suites: Vec<String>,
    /// Adapters to run: a built-in name, or NAME=process:PROGRAM ARG…, NAME=lib:PATH or
    /// NAME=python:BACKEND for one in a worker process (docs/PROTOCOL.md) (default: cpu; in a
    /// vendor harness, the vendor's).
    #[arg(long = "adapter")]
    adapters: Vec<String>,
    /// Only checks whose id has these whole `:`-separated segments in a row (`add:f32`), or
    /// that match a pattern with `*` and `{a,b}` (`*:cpu:{add,multiply}:f16:*`).
    #[arg(long)]
    filter: Option<String>,
    /// Exactly the check with this id (its suite and adapter come from the id).
    #[arg(long, conflicts_with_all = ["suites", "filter"])]
    exact: Option<String>,
    /// Leave out the table self-checks.
    #[arg(long)]
    no_tables: bool,
    /// Only shard I of N (1-based) of the selected checks, each check's shard fixed by a
    /// stable hash of its id (docs/SHARDING.md); `opspec merge` joins the shards' results.
    /// `auto`: I and N from the scheduler's variables (a Slurm job array, GitLab's
    /// `parallel:`, a Kubernetes Indexed Job, or `OPSPEC_SHARD=I/N`).
    #[arg(long, value_name = "I/N|auto", conflicts_with = "exact")]
    shard: Option<ShardChoice>,
    /// Also run the large layout sweep (`layouts-large` checks: sizes up to 2^24 elements);
    /// not with --exhaustive, which runs the sweeps instead of the sampled checks.
    #[arg(long, conflicts_with = "exhaustive")]
    layouts_large: bool,
    /// Sweeps instead of the sampled checks: every pair of f16 and bf16 values (2^32 per
    /// binary operation) and the dense f32/f64 grid; every f16, bf16 and f32 value of a
    /// one-operand function (2^32 in f32); in resumable chunks; and 2^20 hard inputs of pow,
    /// atan2 and hypot in f32 (docs/SCALE.md).
    #[arg(long)]
    exhaustive: bool,
    /// With --exhaustive: only chunks A to B − 1 of each sweep (a 16-bit pair sweep and an
    /// f32 value sweep have 128 chunks of 2^25 cases; a grid and a `hard` check, one): a part
    /// of a sweep, e.g. to repeat a failing chunk.
    #[arg(long, value_name = "A..B", requires = "exhaustive", value_parser = chunk_range)]
    chunks: Option<std::ops::Range<u64>>,
}

/// How this process was invoked, for the commands it prints: `cargo run --release --` (or
/// `cargo run --` for a debug build) under `cargo run`, else the program as it was called
/// (`target/release/opspec`, or `opspec` from the `PATH`).
fn invocation() -> String {
    match (crate::platform::parent_is_cargo(), cfg!(debug_assertions)) {
        (true, false) => "cargo run --release --".to_string(),
        (true, true) => "cargo run --".to_string(),
        (false, _) => std::env::args().next().map_or_else(|| "opspec".to_string(), |p| quoted(&p)),
    }
}

/// The environment variables a Python adapter reads, recorded where the run has one.
const PYTHON_ENVIRONMENT: [&str; 2] = ["PYTHONPATH", crate::host::python::PYTHON_VARIABLE];

/// How the commands of a run with the adapter `specs` rerun its checks.
fn rerun(setup: &Setup, specs: &[AdapterSpec]) -> Rerun {
    let python = specs.iter().any(|s| s.spec.starts_with("python:"));
    let environment = PYTHON_ENVIRONMENT
        .iter()
        .filter(|_| python)
        .filter_map(|&name| Some((name.to_string(), std::env::var(name).ok()?)))
        .collect();
    Rerun {
        invocation: setup.invocation.clone(),
        environment,
        adapters: specs.iter().map(|s| (s.name.clone(), s.spec.clone())).collect(),
    }
}

/// Reads `--chunks A..B` (B exclusive, B > A).
fn chunk_range(text: &str) -> Result<std::ops::Range<u64>, String> {
    let form = |why: &str| format!("`{text}` is not a chunk range A..B (e.g. 0..4): {why}");
    let (a, b) = text.split_once("..").ok_or_else(|| form("no `..`"))?;
    let number =
        |part: &str| part.parse::<u64>().map_err(|_| form(&format!("`{part}` is not a whole number")));
    let (a, b) = (number(a)?, number(b)?);
    if b <= a {
        return Err(form("B must be larger than A"));
    }
    Ok(a..b)
}

impl Select {
    /// The selection, and the specs of the adapters it names that `setup` does not offer; the
    /// setup's suites and default adapter stand in for those not given.
    fn selection(&self, setup: &Setup) -> Result<(Selection, Vec<AdapterSpec>), String> {
        let texts = if self.adapters.is_empty() {
            vec![setup.adapters.default_name()?.to_string()]
        } else {
            self.adapters.clone()
        };
        let (offered, others): (Vec<String>, Vec<String>) =
            texts.into_iter().partition(|t| setup.adapters.offers(t));
        let specs = crate::host::parse_specs(&others)?;
        if let Some(s) = specs.iter().find(|s| offered.contains(&s.name)) {
            return Err(format!("two adapters are named `{}`: name one of them as NAME=SPEC", s.name));
        }
        // A sweep in a debug build would take hours and prove nothing more (as libm-test's
        // extensive tests refuse them too).
        if self.exhaustive && cfg!(debug_assertions) {
            return Err(
                "--exhaustive needs a release build: `cargo run --release -- run --exhaustive …`".into()
            );
        }
        // `--exact` names its suite itself.
        let suites =
            if self.suites.is_empty() && self.exact.is_none() { &setup.suites } else { &self.suites };
        let selection = Selection {
            suites: suites.clone(),
            adapters: offered.into_iter().chain(specs.iter().map(|s| s.name.clone())).collect(),
            filter: self.filter.clone(),
            exact: self.exact.clone(),
            tables: !self.no_tables,
            shard: self.shard.map(ShardChoice::resolve).transpose()?,
            large_layouts: self.layouts_large,
            exhaustive: self.exhaustive,
            sweep_chunks: self.chunks.clone(),
        };
        Ok((selection, specs))
    }
}

/// How a command's results are shown and written.
#[derive(Args)]
struct Render {
    /// Also print one line per (suite, adapter, op, dtype).
    #[arg(long)]
    verbose: bool,
    /// Exit 0 even when every check of an adapter was skipped (otherwise exit 3).
    #[arg(long)]
    allow_skips: bool,
    /// Also write a Markdown summary here (e.g. `$GITHUB_STEP_SUMMARY`).
    #[arg(long, value_name = "FILE")]
    github_summary: Option<PathBuf>,
    /// Which failures fail the run (exit code, JUnit): `must` (the document's requirements:
    /// the library does not conform), `should` (its recommendations too) or `quality`
    /// (opspec's own bars too). See docs/RESULTS.md.
    #[arg(long, default_value = "must", value_name = "TIER")]
    gate: Tier,
}

#[derive(Subcommand)]
enum Command {
    /// Run suites against adapters; stream results.jsonl, then write index.html and junit.xml.
    Run {
        #[command(flatten)]
        select: Select,
        /// Where to write the results and the report (default: reports; in a vendor harness,
        /// a folder of the target directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Seconds one adapter call may take before its check fails as hung.
        #[arg(long, default_value_t = RunOptions::default().timeout.as_secs_f64(), value_parser = parse_timeout, allow_hyphen_values = true)]
        timeout: f64,
        /// With --exhaustive: how many of the chunks a sweep resumes from its state file
        /// (`<out>/sweeps/`) to run again, drawn at random, failing the check where one
        /// disagrees with the file (docs/SCALE.md).
        #[arg(long, value_name = "N", default_value_t = RunOptions::default().verify_resumed)]
        verify_resumed: usize,
        #[command(flatten)]
        render: Render,
    },
    /// Render index.html and junit.xml from one or more results files (several adapters side
    /// by side), without running anything.
    Report {
        /// Results files (`results.jsonl`) written by `run`.
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Where to write the report.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        #[command(flatten)]
        render: Render,
    },
    /// Join the results files of one plan's shards (`run --shard I/N`) into one results file
    /// and report; a check no shard ran is `missing` (exit 4).
    Merge {
        /// The shards' results files (`results.jsonl`).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Where to write the merged results and the report.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        #[command(flatten)]
        render: Render,
    },
    /// Compare two results files: new failures, fixes, newly skipped checks, changed ULP
    /// maxima. Exits 1 when a check newly fails.
    Diff {
        old: PathBuf,
        new: PathBuf,
        /// Also write the comparison as an HTML page.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
    },
    /// Draft expectations entries for the failing checks of a results file (`--from`), or
    /// rewrite a file's entries that name renamed rows by their old ids (`--migrate`).
    #[command(group(clap::ArgGroup::new("expect_input").required(true).args(["from", "migrate"])))]
    Expect {
        /// The results file to draft entries from (printed to stdout).
        #[arg(long)]
        from: Option<PathBuf>,
        /// The expectations file to migrate, in place.
        #[arg(long)]
        migrate: Option<PathBuf>,
        /// Draft from a results file that ended before its end record (a killed run, a merge
        /// missing a shard) too: from the checks it finished.
        #[arg(long, requires = "from")]
        allow_incomplete: bool,
    },
    /// List check ids.
    List {
        #[command(flatten)]
        select: Select,
        /// After each id, the number of inputs its generator will make (`-` where the check
        /// draws them as it runs).
        #[arg(long)]
        planned: bool,
    },
    /// Evaluate one input of a check in detail, calling the adapter as the check does:
    /// `opspec eval array-api:cpu:add:f32:edges 0x80000000 0x80000000`
    /// (`table:…` ids evaluate the oracle alone).
    Eval {
        /// The check's id (as `list` and `run` print it).
        id: String,
        /// Operand bits, in hex (`0x3c00`).
        bits: Vec<String>,
        /// The spec of the adapter the id names, if it is not built in (`NAME=lib:PATH`).
        #[arg(long = "adapter")]
        adapters: Vec<String>,
        /// Seconds the adapter's start and its call may take (as `run --timeout`).
        #[arg(long, default_value_t = RunOptions::default().timeout.as_secs_f64(), value_parser = parse_timeout, allow_hyphen_values = true)]
        timeout: f64,
    },
    /// Load and validate every table and suite.
    Validate,
    /// Compare the native and the fast (CORE-MATH) reference with MPFR on seeded random and
    /// hard inputs, for every operation and format they compute (or those named); exits 1 on a
    /// disagreement.
    OracleAgreement {
        /// Inputs per operation and format (at least 1).
        #[arg(long, default_value_t = 100_000_000, value_parser = parse_cases)]
        cases: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only these operations (`add`, `fused_mul_add`); default: all.
        #[arg(long = "op")]
        ops: Vec<String>,
        /// Only these dtypes (`f16`, `bf16`, `f32`, `f64`); default: all.
        #[arg(long = "dtype")]
        dtypes: Vec<String>,
        /// Every pair of operands instead of random inputs: the two-operand operations in f16
        /// and bf16, 2^32 pairs each (on two cores, minutes for hypot, 10 to 23 for
        /// floor_divide and remainder, half an hour or more for atan2 and pow; docs/SCALE.md).
        #[arg(long, conflicts_with_all = ["cases", "seed"])]
        exhaustive: bool,
        /// With `--exhaustive`: only shard I of N of each operation's pairs (or `auto`, from a
        /// scheduler's variables, as `run --shard`).
        #[arg(long, value_name = "I/N", requires = "exhaustive")]
        shard: Option<ShardChoice>,
    },
    /// Serve one adapter over the wire protocol (docs/PROTOCOL.md) on stdin and stdout: what
    /// `--adapter NAME=lib:PATH` runs as its worker.
    AdapterHost {
        /// A C ABI library (adapters/ffi/include/opspec.h).
        #[arg(long, required_unless_present = "builtin")]
        lib: Option<PathBuf>,
        /// The text handed to the library's `opspec_adapter_open`.
        #[arg(long, requires = "lib")]
        config: Option<String>,
        /// A built-in adapter instead (to measure what the process boundary costs).
        #[arg(long, conflicts_with = "lib")]
        builtin: Option<String>,
    },
}

/// Parses the process's arguments and runs the command over the built-in adapters; the exit
/// code follows `docs/RESULTS.md`.
pub fn main() -> ExitCode {
    main_with(Setup::builtin(), std::env::args_os())
}

/// Parses `args` (the program's name first) and runs the command over `setup`'s adapters and
/// defaults; the exit code follows `docs/RESULTS.md` (a usage error is 2, `--help` 0).
/// Refuses an `--expectations` file whose adapter the run does not name: its entries would
/// apply to nothing, and the run would say nothing about it.
fn expectations_for_the_run(catalog: &Catalog, paths: &[PathBuf], adapters: &[String]) -> Result<(), String> {
    for (path, file) in &catalog.expectations.files {
        if paths.contains(path) && !adapters.contains(&file.adapter) {
            return Err(format!(
                "--expectations {}: its adapter `{}` is not one this run names ({}); add --adapter {}=SPEC",
                path.display(),
                file.adapter,
                adapters.join(", "),
                file.adapter
            ));
        }
    }
    Ok(())
}

pub fn main_with(setup: Setup, args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(verdict::EXIT_BAD_INPUT));
        }
    };
    if let Command::AdapterHost { lib, config, builtin } = &cli.command {
        return adapter_host(lib.as_deref(), config.as_deref(), builtin.as_deref());
    }
    let catalog = || -> Result<Catalog, String> {
        let loaded = match cli.root.as_ref().or(setup.root.as_ref()) {
            Some(root) => Catalog::load(root),
            None => Catalog::builtin(),
        };
        let mut catalog = loaded.map_err(|e| e.to_string())?;
        for path in setup.expectations.iter().chain(&cli.expectations) {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            catalog.expectations.add_file(path, &text).map_err(|e| e.to_string())?;
            catalog.sources.insert(path.display().to_string(), text);
        }
        validate_expectations(&catalog).map_err(|e| e.to_string())?;
        Ok(catalog)
    };
    let outcome = match &cli.command {
        Command::Run { select, out, timeout, verify_resumed, render } => catalog().and_then(|catalog| {
            let (selection, specs) = select.selection(&setup)?;
            expectations_for_the_run(&catalog, &cli.expectations, &selection.adapters)?;
            let out = out.as_deref().unwrap_or(&setup.out);
            let options = RunOptions {
                timeout: Duration::from_secs_f64(*timeout),
                state_dir: Some(out.join("sweeps")),
                verify_resumed: *verify_resumed,
                rerun: rerun(&setup, &specs),
                ..RunOptions::default()
            };
            run(&catalog, &setup.adapters, selection, &specs, out, &options, render)
        }),
        Command::Report { results, out, render } => results
            .iter()
            .map(|p| results::read(p))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|runs| show(&runs, out, render)),
        Command::Merge { shards, out, render } => merge(shards, out, render),
        Command::Diff { old, new, html } => compare(old, new, html.as_deref()),
        Command::Expect { from: Some(from), allow_incomplete, .. } => draft(from, *allow_incomplete),
        Command::Expect { migrate: Some(path), .. } => catalog().and_then(|c| migrate(&c, path)),
        Command::Expect { .. } => Err("expect needs --from RESULTS or --migrate FILE".into()),
        Command::List { select, planned } => catalog().and_then(|c| {
            let (selection, specs) = select.selection(&setup)?;
            list(&c, &setup.adapters, selection, &specs, *planned)
        }),
        Command::Eval { id, bits, adapters, timeout } => catalog()
            .and_then(|c| evaluate(&c, &setup, id, bits, adapters, Duration::from_secs_f64(*timeout))),
        Command::AdapterHost { .. } => Ok(0),
        Command::OracleAgreement { cases, seed, ops, dtypes, exhaustive, shard } => exhaustive
            .then(|| shard.map(ShardChoice::resolve).transpose())
            .transpose()
            .and_then(|every_pair| oracle_agreement(*cases, *seed, ops, dtypes, every_pair)),
        Command::Validate => catalog().map(|catalog| {
            // A closed stdout (`opspec validate | true`) is not an error of the catalog.
            let _ = writeln!(
                std::io::stdout(),
                "{} (revision {}): {} tables and {} suites are valid",
                catalog.origin,
                catalog.revision,
                catalog.table_count(),
                catalog.suites.len()
            );
            0
        }),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(verdict::EXIT_BAD_INPUT)
        }
    }
}

/// Seconds from [`MIN_TIMEOUT`] to [`MAX_TIMEOUT`].
fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (MIN_TIMEOUT..=MAX_TIMEOUT).contains(&s) => Ok(s),
        _ => {
            Err(format!("`{text}` is not a number of seconds from {MIN_TIMEOUT} to {MAX_TIMEOUT} (one day)"))
        }
    }
}

/// `oracle-agreement --cases`: a comparison of no inputs would pass having compared nothing.
fn parse_cases(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => {
            Err(format!("`{text}` is not a number of inputs of 1 or more (0 would compare nothing and pass)"))
        }
    }
}

/// The shortest `--timeout`: one millisecond.
const MIN_TIMEOUT: f64 = 0.001;
/// The longest `--timeout`: one day.
const MAX_TIMEOUT: f64 = 86_400.0;

/// Writes `text` to stdout; a closed pipe (`opspec run | head`) is not an error of the run.
fn say(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// The error of a selection that matched no check (exit 3).
fn nothing_selected() -> u8 {
    eprintln!("error: the selection matches no check: nothing to check");
    verdict::EXIT_NOTHING_CHECKED
}

/// The adapters `checks` name.
fn adapter_names(checks: &[crate::run::Check]) -> Vec<&str> {
    checks.iter().filter_map(|c| c.id.adapter_name()).collect()
}

/// How many missing checks `merge` and `expect --from` name on the terminal (the report lists
/// them all).
const MISSING_LISTED: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_ranges_read_as_a_to_b_and_bad_ones_say_why() {
        assert_eq!(chunk_range("0..4"), Ok(0..4));
        assert_eq!(chunk_range("127..128"), Ok(127..128));
        for (bad, says) in
            [("4", "no `..`"), ("4..4", "larger than A"), ("a..4", "`a` is not"), ("0..-1", "`-1`")]
        {
            let e = chunk_range(bad).unwrap_err();
            assert!(e.contains(says) && e.contains("is not a chunk range"), "{bad}: {e}");
        }
    }

    /// `oracle-agreement --exhaustive` runs a shard of a 16-bit pair sweep, and refuses what it
    /// does not sweep: f32, an unknown operation, `--cases` or `--shard` without it.
    #[test]
    fn exhaustive_agreement_takes_16_bit_pairs_and_refuses_the_rest() {
        let agreement = |args: &[&str]| {
            let args = ["opspec", "oracle-agreement"].iter().chain(args).map(OsString::from);
            main_with(Setup::builtin(), args)
        };
        let usage = ExitCode::from(2);
        assert_eq!(
            agreement(&["--exhaustive", "--op", "hypot", "--dtype", "bf16", "--shard", "1/65536"]),
            ExitCode::SUCCESS
        );
        assert_eq!(agreement(&["--exhaustive", "--op", "hypot", "--dtype", "f32"]), usage);
        assert_eq!(agreement(&["--exhaustive", "--op", "hypotenuse"]), usage);
        assert_eq!(agreement(&["--exhaustive", "--cases", "5"]), usage);
        assert_eq!(agreement(&["--shard", "1/2"]), usage);
    }
}
