//! The `opspec` command line: argument parsing and the commands, as a library function so
//! that the binary and the Rust vendor harness run the same code.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::adapters::{self, AdapterSpec, NamedAdapter};
use crate::report::{self, Report, RunInfo, Tally};
use crate::run::select::Selection;
use crate::run::{RunOptions, Status, eval::eval, run_all, validate_expectations};
use crate::spec::Catalog;
use clap::{Args, Parser, Subcommand};
use opspec_adapter::Adapter;

#[derive(Parser)]
#[command(name = "opspec", version, about = "Spec-conformance harness for element-wise tensor operations")]
struct Cli {
    /// Folder holding specs/, suites/ and expectations/ (default: the catalog built into opspec).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
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
    /// NAME=python:BACKEND for one in a worker process (docs/PROTOCOL.md) (default: cpu).
    #[arg(long = "adapter", default_values_t = ["cpu".to_string()])]
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
    /// The selection, and the adapters' specs (whose names it selects).
    fn selection(self) -> Result<(Selection, Vec<AdapterSpec>), String> {
        let specs = adapters::parse_specs(&self.adapters)?;
        let selection = Selection {
            suites: self.suites,
            adapters: specs.iter().map(|s| s.name.clone()).collect(),
            filter: self.filter,
            exact: self.exact,
            tables: !self.no_tables,
        };
        Ok((selection, specs))
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run suites against adapters and write results.json and index.html.
    Run {
        #[command(flatten)]
        select: Select,
        /// Where to write the report.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
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
        /// The spec of the adapter the id names, if it is not built in (`NAME=lib:PATH`).
        #[arg(long = "adapter")]
        adapters: Vec<String>,
    },
    /// Load and validate every table and suite.
    Validate,
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

/// Parses the process's arguments and runs the command; the exit code follows
/// `docs/RESULTS.md`.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::AdapterHost { lib, config, builtin } = &cli.command {
        return adapter_host(lib.as_deref(), config.as_deref(), builtin.as_deref());
    }
    let loaded = match &cli.root {
        Some(root) => Catalog::load(root),
        None => Catalog::builtin(),
    };
    let catalog = match loaded.and_then(|c| validate_expectations(&c).map(|()| c)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::Run { select, out, timeout } => {
            let options = RunOptions { timeout: Duration::from_secs_f64(timeout), ..RunOptions::default() };
            select.selection().and_then(|(selection, specs)| run(&catalog, selection, &specs, &out, &options))
        }
        Command::List { select, planned } => {
            select.selection().and_then(|(selection, specs)| list(&catalog, selection, &specs, planned))
        }
        Command::Eval { id, bits, adapters } => evaluate(&catalog, &id, &bits, &adapters),
        Command::AdapterHost { .. } => Ok(true),
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

/// The adapter names a command may use: the built-in ones and those of the specs.
fn available(specs: &[AdapterSpec]) -> Vec<&str> {
    let mut names: Vec<&str> = adapters::BUILTIN.to_vec();
    names.extend(specs.iter().map(|s| s.name.as_str()).filter(|n| !adapters::BUILTIN.contains(n)));
    names
}

/// Starts the adapters the checks run against (a built-in one an id names may have no spec):
/// those that started, and the name and reason of each that did not.
fn load_adapters(
    checks: &[crate::run::Check],
    specs: &[AdapterSpec],
    timeout: Duration,
) -> Result<(Vec<NamedAdapter>, Vec<(String, String)>), String> {
    let mut names: Vec<&str> = checks.iter().filter_map(|c| c.id.adapter_name()).collect();
    names.sort();
    names.dedup();
    let needed = names
        .into_iter()
        .map(|n| specs.iter().find(|s| s.name == n).cloned().map_or_else(|| adapters::parse_spec(n), Ok))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(adapters::start_all(&needed, &adapters::StartOptions::new(timeout)))
}

/// `opspec adapter-host`: serves a C library or a built-in adapter on stdin and stdout.
fn adapter_host(lib: Option<&std::path::Path>, config: Option<&str>, builtin: Option<&str>) -> ExitCode {
    // Taken before the library loads, so that nothing it prints can reach the protocol.
    #[cfg(unix)]
    let output = crate::process::protocol_stdout();
    #[cfg(not(unix))]
    let output: std::io::Result<std::io::Stdout> = Ok(std::io::stdout());
    let served = output.map_err(|e| format!("cannot keep stdout for the protocol: {e}")).and_then(|output| {
        let adapter: Arc<dyn Adapter> = match (lib, builtin) {
            (Some(path), _) => Arc::new(crate::ffi::LibAdapter::open(path, config)?),
            (None, Some(name)) => adapters::builtin(name)?,
            (None, None) => return Err("adapter-host needs --lib or --builtin".to_string()),
        };
        crate::process::serve(adapter.as_ref(), std::io::stdin().lock(), output)
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(
    catalog: &Catalog,
    selection: Selection,
    specs: &[AdapterSpec],
    out: &std::path::Path,
    options: &RunOptions,
) -> Result<bool, String> {
    let checks = selection.checks(catalog, &available(specs))?;
    let started = Instant::now();
    let (adapters, unavailable) = load_adapters(&checks, specs, options.timeout)?;
    for (name, reason) in &unavailable {
        eprintln!("warning: {reason}; the checks of `{name}` are unavailable");
    }
    let reason = |c: &crate::run::Check| unavailable.iter().find(|(n, _)| c.id.adapter_name() == Some(n));
    let (not_run, checks): (Vec<_>, Vec<_>) = checks.into_iter().partition(|c| reason(c).is_some());
    let names: Vec<&str> = adapters.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!("running {} checks against {} ...", checks.len(), names.join(", "));
    let mut results = run_all(catalog, &checks, &adapters, options, (checks.len() / 20).max(1));
    results.extend(not_run.iter().filter_map(|c| reason(c).map(|(_, r)| crate::run::unavailable(c, r))));
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
    Ok(total.fail == 0 && unavailable.is_empty())
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

fn list(
    catalog: &Catalog,
    selection: Selection,
    specs: &[AdapterSpec],
    planned: bool,
) -> Result<bool, String> {
    let mut out = std::io::stdout().lock();
    for check in selection.checks(catalog, &available(specs))? {
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

/// Evaluates one input of a check against the adapter its id names (built in, or one of
/// `adapters`' specs).
fn evaluate(catalog: &Catalog, id: &str, bits: &[String], adapters: &[String]) -> Result<bool, String> {
    let specs = adapters::parse_specs(adapters)?;
    let operands = bits
        .iter()
        .map(|b| {
            let digits = b
                .strip_prefix("0x")
                .ok_or_else(|| format!("`{b}`: operand bits are written in hex, as 0x…"))?;
            u64::from_str_radix(digits, 16).map_err(|e| format!("`{b}`: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let check = crate::run::select::exact_check(catalog, id, &available(&specs))?;
    let options = RunOptions::default();
    let (adapters, unavailable) = load_adapters(std::slice::from_ref(&check), &specs, options.timeout)?;
    if let Some((_, reason)) = unavailable.first() {
        return Err(reason.clone());
    }
    let evaluation = eval(catalog, &adapters, &check, &operands, &options)?;
    for line in &evaluation.lines {
        println!("{line}");
    }
    Ok(evaluation.pass)
}
