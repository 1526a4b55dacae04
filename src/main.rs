//! The `opspec` command line.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use opspec::adapters::{self, NamedAdapter};
use opspec::report::{self, Report, RunInfo, Tally};
use opspec::run::select::Selection;
use opspec::run::{RunOptions, Status, eval::eval, run_all, validate_expectations};
use opspec::spec::Catalog;

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
    /// Adapters to run (default: cpu).
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
    fn selection(&self) -> Selection {
        Selection {
            suites: self.suites.clone(),
            adapters: self.adapters.clone(),
            filter: self.filter.clone(),
            exact: self.exact.clone(),
            tables: !self.no_tables,
        }
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
    },
    /// Load and validate every table and suite.
    Validate,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
    if let Err((code, e)) = check_arguments(&cli.command, &catalog) {
        eprintln!("error: {e}");
        return ExitCode::from(code);
    }
    let outcome = match cli.command {
        Command::Run { select, out, timeout } => {
            let options = RunOptions { timeout: Duration::from_secs_f64(timeout), ..RunOptions::default() };
            run(&catalog, select.selection(), &out, &options)
        }
        Command::List { select, planned } => list(&catalog, select.selection(), planned),
        Command::Eval { id, bits } => evaluate(&catalog, &id, &bits),
        Command::Validate => {
            // A closed stdout (`opspec validate | true`) is not an error of the catalog.
            let _ = writeln!(
                std::io::stdout(),
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

/// Seconds from [`MIN_TIMEOUT`] to [`MAX_TIMEOUT`].
fn parse_timeout(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (MIN_TIMEOUT..=MAX_TIMEOUT).contains(&s) => Ok(s),
        _ => {
            Err(format!("`{text}` is not a number of seconds from {MIN_TIMEOUT} to {MAX_TIMEOUT} (one day)"))
        }
    }
}

/// The shortest `--timeout`: one millisecond.
const MIN_TIMEOUT: f64 = 0.001;
/// The longest `--timeout`: one day.
const MAX_TIMEOUT: f64 = 86_400.0;

/// Checks what clap cannot, before any work starts: that `run` and `list` select at least one
/// check (exit 3, nothing to check) and that `run` can write its report folder (exit 2).
fn check_arguments(command: &Command, catalog: &Catalog) -> Result<(), (u8, String)> {
    let (select, out) = match command {
        Command::Run { select, out, .. } => (select, Some(out)),
        Command::List { select, .. } => (select, None),
        Command::Eval { .. } | Command::Validate => return Ok(()),
    };
    if select.selection().checks(catalog, &adapters::BUILTIN).map_err(|e| (2, e))?.is_empty() {
        return Err((
            3,
            "the selection matches no check: nothing to check (`opspec list` lists the check ids)".into(),
        ));
    }
    if let Some(out) = out {
        let probe = out.join(".opspec-write-check");
        std::fs::create_dir_all(out)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|e| (2, format!("--out {}: cannot write the report there: {e}", out.display())))?;
    }
    Ok(())
}

/// The built-in adapters the checks run against.
fn load_adapters(checks: &[opspec::run::Check]) -> Result<Vec<NamedAdapter>, String> {
    let mut names: Vec<&str> = checks.iter().filter_map(|c| c.id.adapter_name()).collect();
    names.sort();
    names.dedup();
    names.into_iter().map(|n| adapters::builtin(n).map(|a| (n.to_string(), a))).collect()
}

fn run(
    catalog: &Catalog,
    selection: Selection,
    out: &std::path::Path,
    options: &RunOptions,
) -> Result<bool, String> {
    let checks = selection.checks(catalog, &adapters::BUILTIN)?;
    let adapters = load_adapters(&checks)?;
    let names: Vec<&str> = adapters.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!("running {} checks against {} ...", checks.len(), names.join(", "));
    let started = Instant::now();
    let results = run_all(catalog, &checks, &adapters, options, (checks.len() / 20).max(1));
    let seconds = started.elapsed().as_secs_f64();
    print_summary(&results);
    let known: Vec<_> = results.iter().filter(|r| r.status == Status::ExpectedFail).collect();
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
        total.expected_fail,
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
fn print_summary(results: &[opspec::run::CheckResult]) {
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
            t.expected_fail,
            t.skip,
            t.planned,
            t.inputs,
            t.inputs as f64 / secs.max(1e-9),
            t.max_ulp_text()
        );
    }
}

fn list(catalog: &Catalog, selection: Selection, planned: bool) -> Result<bool, String> {
    let mut out = std::io::stdout().lock();
    for check in selection.checks(catalog, &adapters::BUILTIN)? {
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

/// Evaluates one input of a check against the built-in adapter its id names.
fn evaluate(catalog: &Catalog, id: &str, bits: &[String]) -> Result<bool, String> {
    let operands = bits
        .iter()
        .map(|b| {
            let digits = b
                .strip_prefix("0x")
                .ok_or_else(|| format!("`{b}`: operand bits are written in hex, as 0x…"))?;
            u64::from_str_radix(digits, 16).map_err(|e| format!("`{b}`: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let check = opspec::run::select::exact_check(catalog, id, &adapters::BUILTIN)?;
    let adapters = load_adapters(std::slice::from_ref(&check))?;
    let evaluation = eval(catalog, &adapters, &check, &operands, &RunOptions::default())?;
    let mut out = std::io::stdout().lock();
    for line in &evaluation.lines {
        // A closed pipe ends the listing, not the program.
        if writeln!(out, "{line}").is_err() {
            break;
        }
    }
    Ok(evaluation.pass)
}
