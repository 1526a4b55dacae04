//! The `opspec` command line: argument parsing and the commands, as a library function so
//! that the binary and the Rust vendor harness ([`crate::harness`]) run the same code over
//! the adapters each offers ([`Setup`]).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::adapters::AdapterSet;
use crate::report::{self, Report, RunInfo, Tally};
use crate::run::select::Selection;
use crate::run::{RunOptions, Status, eval::eval, run_all, validate_expectations};
use crate::spec::{Catalog, CatalogFiles};
use clap::{Args, Parser, Subcommand};

/// What a command line runs against: the adapters it may name, and the values of the options
/// it leaves out. The `opspec` binary runs [`Setup::builtin`]; the Rust vendor harness offers
/// the vendor's adapter, catalog, expectations and report folder.
pub struct Setup {
    /// The adapters `--adapter` may name; its default is the set's default.
    pub adapters: AdapterSet,
    /// The suites when no `--suite` is given (empty: every suite).
    pub suites: Vec<String>,
    /// The catalog folder when no `--root` is given (none: the catalog built into opspec).
    pub root: Option<PathBuf>,
    /// The expectations file when no `--expectations` is given (none: the catalog's own).
    pub expectations: Option<PathBuf>,
    /// The report folder when no `--out` is given.
    pub out: PathBuf,
    /// How this program is invoked in the commands it prints to reproduce a failure.
    pub invocation: String,
}

impl Setup {
    /// The `opspec` binary's: the built-in adapters (`cpu` by default), every suite, the
    /// built-in catalog, reports in `reports/`.
    pub fn builtin() -> Setup {
        Setup {
            adapters: AdapterSet::builtin(),
            suites: Vec::new(),
            root: None,
            expectations: None,
            out: PathBuf::from("reports"),
            invocation: "cargo run --release --".to_string(),
        }
    }
}

#[derive(Parser)]
#[command(name = "opspec", version, about = "Spec-conformance harness for element-wise tensor operations")]
struct Cli {
    /// Folder holding specs/, suites/ and expectations/ (default: the catalog built into opspec).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    /// An expectations file (`adapter: NAME`, `deviations: [...]`) used instead of the
    /// catalog's expectations/ (a vendor keeps its own).
    #[arg(long, global = true)]
    expectations: Option<PathBuf>,
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
    /// Adapters to run (default: cpu; in a vendor harness, the vendor's).
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
}

impl Select {
    /// The selection, with the setup's suites and default adapter where none are given.
    fn selection(self, setup: &Setup) -> Result<Selection, String> {
        let adapters = if self.adapters.is_empty() {
            vec![setup.adapters.default_name()?.to_string()]
        } else {
            self.adapters
        };
        // `--exact` names its suite itself.
        let suites =
            if self.suites.is_empty() && self.exact.is_none() { setup.suites.clone() } else { self.suites };
        Ok(Selection { suites, adapters, filter: self.filter, exact: self.exact, tables: !self.no_tables })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run suites against adapters and write results.json and index.html.
    Run {
        #[command(flatten)]
        select: Select,
        /// Where to write the report (default: reports; in a vendor harness, a folder of the
        /// target directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Seconds one adapter call may take before its check fails as hung.
        #[arg(long, default_value_t = RunOptions::default().timeout.as_secs_f64(), value_parser = parse_timeout)]
        timeout: f64,
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
    },
    /// Load and validate every table and suite.
    Validate,
}

/// Parses the process's arguments and runs the command over the built-in adapters; the exit
/// code follows `docs/RESULTS.md`.
pub fn main() -> ExitCode {
    main_with(Setup::builtin(), std::env::args_os())
}

/// Parses `args` (the program's name first) and runs the command over `setup`'s adapters and
/// defaults; the exit code follows `docs/RESULTS.md` (a usage error is 2, `--help` 0).
pub fn main_with(setup: Setup, args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    crate::run::check::set_invocation(&setup.invocation);
    let root = cli.root.as_deref().or(setup.root.as_deref());
    let expectations = cli.expectations.as_deref().or(setup.expectations.as_deref());
    let catalog = match load_catalog(root, expectations) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::Run { select, out, timeout } => {
            let options = RunOptions { timeout: Duration::from_secs_f64(timeout), ..RunOptions::default() };
            let out = out.as_deref().unwrap_or(&setup.out);
            select.selection(&setup).and_then(|s| run(&catalog, &setup.adapters, s, out, &options))
        }
        Command::List { select, planned } => {
            select.selection(&setup).and_then(|s| list(&catalog, &setup.adapters, s, planned))
        }
        Command::Eval { id, bits } => evaluate(&catalog, &setup.adapters, &id, &bits),
        Command::Validate => {
            println!(
                "{} (revision {}): {} tables and {} suites are valid",
                catalog.origin,
                catalog.revision,
                catalog.table_count(),
                catalog.suites.len()
            );
            Ok(true)
        }
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A positive, finite number of seconds.
fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(s),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// The catalog in `root` (or the built-in one), with the expectations file `expectations`
/// instead of the catalog's own if one is given, validated.
fn load_catalog(root: Option<&Path>, expectations: Option<&Path>) -> Result<Catalog, String> {
    let files = match root {
        Some(root) => CatalogFiles::read_dir(root),
        None => Ok(CatalogFiles::builtin()),
    };
    let files = match expectations {
        Some(path) => files.and_then(|f| f.with_expectations_file(path)),
        None => files,
    };
    let catalog = files.and_then(|f| Catalog::from_files(&f)).map_err(|e| e.to_string())?;
    validate_expectations(&catalog).map_err(|e| e.to_string())?;
    Ok(catalog)
}

fn run(
    catalog: &Catalog,
    set: &AdapterSet,
    selection: Selection,
    out: &Path,
    options: &RunOptions,
) -> Result<bool, String> {
    let checks = selection.checks(catalog, &set.names())?;
    let adapters = set.start_for(&checks)?;
    let names: Vec<&str> = adapters.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!("running {} checks against {} ...", checks.len(), names.join(", "));
    let started = Instant::now();
    let results = run_all(catalog, &checks, &adapters, options, (checks.len() / 20).max(1));
    let seconds = started.elapsed().as_secs_f64();
    print_summary(&results);
    let known: Vec<_> = results.iter().filter(|r| r.status == Status::KnownDeviation).collect();
    if !known.is_empty() {
        println!("\nknown deviations (expected failures, listed in expectations/):");
        for r in &known {
            // The first clause of the entry's `does` is its headline.
            let headline = |does: &str| does.split([':', ';']).next().unwrap_or(does).trim().to_string();
            let d = r
                .deviation
                .as_ref()
                .map_or(String::new(), |d| format!(" [{}] {}", d.location, headline(&d.does)));
            println!("  {}: {} of {} inputs{d}", r.id, r.failed_inputs, r.inputs);
        }
    }
    for r in results.iter().filter(|r| r.status == Status::Fail) {
        println!("\n{}", r.report());
    }
    let total = Tally::of(&results);
    println!(
        "\n{} passed, {} failed, {} expected failures, {} skipped; {} inputs in {seconds:.1} s ({:.0} inputs/s)",
        total.pass,
        total.fail,
        total.known_deviation,
        total.skip,
        total.inputs,
        total.inputs as f64 / seconds
    );
    let versions = adapters.iter().map(|(n, a)| format!("{n}: {}", a.version())).collect();
    let report = Report { info: RunInfo::new(catalog, options, versions, seconds), results };
    report::write(out, &report).map_err(|e| format!("cannot write the report to {}: {e}", out.display()))?;
    println!("report: {}", out.join("index.html").display());
    Ok(total.fail == 0)
}

/// One line per (suite, adapter, op, dtype) with counts and checking speed.
fn print_summary(results: &[crate::run::CheckResult]) {
    let mut groups: BTreeMap<(&str, &str, &str, &str), (Tally, f64)> = BTreeMap::new();
    for r in results {
        let key = (r.id.suite_label(), r.id.adapter_label(), r.id.op.as_str(), r.id.dtype.as_str());
        let entry = groups.entry(key).or_default();
        entry.0.add(r);
        entry.1 += r.seconds;
    }
    println!(
        "{:<12} {:<8} {:<14} {:<5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>9} {:>12} {:>8}",
        "suite",
        "adapter",
        "op",
        "dtype",
        "pass",
        "fail",
        "xfail",
        "skip",
        "planned",
        "inputs",
        "inputs/s",
        "max ulp"
    );
    for ((suite, adapter, op, dtype), (t, secs)) in groups {
        println!(
            "{suite:<12} {adapter:<8} {op:<14} {dtype:<5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>9} {:>12.0} {:>8}",
            t.pass,
            t.fail,
            t.known_deviation,
            t.skip,
            t.planned,
            t.inputs,
            t.inputs as f64 / secs.max(1e-9),
            t.max_ulp_text()
        );
    }
}

fn list(catalog: &Catalog, set: &AdapterSet, selection: Selection, planned: bool) -> Result<bool, String> {
    let mut out = std::io::stdout().lock();
    for check in selection.checks(catalog, &set.names())? {
        let line = match (planned, check.planned) {
            (false, _) => check.id.to_string(),
            (true, Some(n)) => format!("{} {n}", check.id),
            (true, None) => format!("{} -", check.id),
        };
        // A closed pipe (`opspec list | head`) ends the listing, not the program.
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    Ok(true)
}

/// Evaluates one input of a check against the adapter its id names.
fn evaluate(catalog: &Catalog, set: &AdapterSet, id: &str, bits: &[String]) -> Result<bool, String> {
    let operands = bits
        .iter()
        .map(|b| {
            let digits = b
                .strip_prefix("0x")
                .ok_or_else(|| format!("`{b}`: operand bits are written in hex, as 0x…"))?;
            u64::from_str_radix(digits, 16).map_err(|e| format!("`{b}`: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let check = crate::run::select::exact_check(catalog, id, &set.names())?;
    let adapters = set.start_for(std::slice::from_ref(&check))?;
    let evaluation = eval(catalog, &adapters, &check, &operands, &RunOptions::default())?;
    for line in &evaluation.lines {
        println!("{line}");
    }
    Ok(evaluation.pass)
}
