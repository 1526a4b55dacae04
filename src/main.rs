//! The `opspec` command line.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use opspec::adapters::{self, NamedAdapter};
use opspec::check::step_distance;
use opspec::expect::{Context, reference};
use opspec::format::Format;
use opspec::report::{self, Report, RunInfo, Tally};
use opspec::run::{Check, RunOptions, Status, adapter_checks, run_all, table_checks};
use opspec::spec::Catalog;
use opspec::value::Domain;
use opspec_adapter::{DType, OpKind, Tensor};

#[derive(Parser)]
#[command(name = "opspec", version, about = "Spec-conformance harness for element-wise tensor operations")]
struct Cli {
    /// Folder holding specs/ and suites/ (default: the ones shipped with opspec).
    #[arg(long, global = true)]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run suites against adapters and write results.json and index.html.
    Run {
        /// Suites to run (default: all).
        #[arg(long = "suite")]
        suites: Vec<String>,
        /// Adapters to run (default: cpu).
        #[arg(long = "adapter", default_values_t = ["cpu".to_string()])]
        adapters: Vec<String>,
        /// Only checks whose id contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// Where to write the report.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        /// Leave out the table self-checks.
        #[arg(long)]
        no_tables: bool,
        /// Seconds one adapter call may take before its check fails as hung.
        #[arg(long, default_value_t = 120.0, value_parser = parse_timeout)]
        timeout: f64,
    },
    /// List check ids.
    List {
        #[arg(long = "suite")]
        suites: Vec<String>,
        #[arg(long = "adapter", default_values_t = ["cpu".to_string()])]
        adapters: Vec<String>,
        #[arg(long)]
        filter: Option<String>,
    },
    /// Evaluate one case: `opspec eval array-api:cpu:add:f32 0x80000000 0x80000000`
    /// (or `table:add:f32 ...` for the oracle alone).
    Eval {
        /// `suite:adapter:op:dtype` or `table:op:dtype`.
        target: String,
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
    let catalog = match loaded {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let outcome = match cli.command {
        Command::Run { suites, adapters, filter, out, no_tables, timeout } => {
            let options = RunOptions { timeout: Duration::from_secs_f64(timeout), ..RunOptions::default() };
            run(&catalog, &suites, &adapters, filter.as_deref(), &out, no_tables, &options)
        }
        Command::List { suites, adapters, filter } => list(&catalog, &suites, &adapters, filter.as_deref()),
        Command::Eval { target, bits } => eval(&catalog, &target, &bits),
        Command::Validate => {
            let tables = catalog.tables.len()
                + catalog.promotions.len()
                + catalog.broadcasting.len()
                + catalog.scatter.len();
            println!("{tables} tables and {} suites are valid", catalog.suites.len());
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

/// The checks selected by suite names, adapter names and an id filter.
fn select(
    catalog: &Catalog,
    suites: &[String],
    adapters: &[String],
    filter: Option<&str>,
    tables: bool,
) -> Result<Vec<Check>, String> {
    for s in suites {
        if catalog.suite(s).is_none() {
            let known: Vec<&str> = catalog.suites.iter().map(|s| s.suite.name.as_str()).collect();
            return Err(format!("unknown suite `{s}` (known: {})", known.join(", ")));
        }
    }
    let mut checks = if tables { table_checks(catalog) } else { Vec::new() };
    checks.extend(adapter_checks(catalog, adapters).into_iter().filter(|c| {
        suites.is_empty() || c.suite.is_some_and(|s| suites.contains(&catalog.suites[s].suite.name))
    }));
    checks.retain(|c| filter.is_none_or(|f| c.id.contains(f)));
    Ok(checks)
}

fn load_adapters(names: &[String]) -> Result<Vec<NamedAdapter>, String> {
    names.iter().map(|n| adapters::builtin(n).map(|a| (n.clone(), a))).collect()
}

fn run(
    catalog: &Catalog,
    suites: &[String],
    adapter_names: &[String],
    filter: Option<&str>,
    out: &std::path::Path,
    no_tables: bool,
    options: &RunOptions,
) -> Result<bool, String> {
    let adapters = load_adapters(adapter_names)?;
    let checks = select(catalog, suites, adapter_names, filter, !no_tables)?;
    eprintln!("running {} checks against {} ...", checks.len(), adapter_names.join(", "));
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
    let report = Report { info: RunInfo::new(catalog, versions, seconds), results };
    report::write(out, &report).map_err(|e| format!("cannot write the report to {}: {e}", out.display()))?;
    println!("report: {}", out.join("index.html").display());
    Ok(total.fail == 0)
}

/// One line per (suite, adapter, op, dtype) with counts and checking speed.
fn print_summary(results: &[opspec::run::CheckResult]) {
    let mut groups: BTreeMap<(&str, &str, &str, &str), (Tally, f64)> = BTreeMap::new();
    for r in results {
        let entry = groups.entry((&r.suite, &r.adapter, &r.op, &r.dtype)).or_default();
        entry.0.add(r);
        entry.1 += r.seconds;
    }
    println!(
        "{:<12} {:<8} {:<14} {:<5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>12} {:>8}",
        "suite", "adapter", "op", "dtype", "pass", "fail", "xfail", "skip", "inputs", "inputs/s", "max ulp"
    );
    for ((suite, adapter, op, dtype), (t, secs)) in groups {
        println!(
            "{suite:<12} {adapter:<8} {op:<14} {dtype:<5} {:>5} {:>5} {:>5} {:>5} {:>9} {:>12.0} {:>8}",
            t.pass,
            t.fail,
            t.expected_fail,
            t.skip,
            t.inputs,
            t.inputs as f64 / secs.max(1e-9),
            t.max_ulp_text()
        );
    }
}

fn list(
    catalog: &Catalog,
    suites: &[String],
    adapters: &[String],
    filter: Option<&str>,
) -> Result<bool, String> {
    for check in select(catalog, suites, adapters, filter, true)? {
        println!("{}", check.id);
    }
    Ok(true)
}

/// Evaluates one case against the table, the oracle and (for a suite target) an adapter.
fn eval(catalog: &Catalog, target: &str, bits: &[String]) -> Result<bool, String> {
    let parts: Vec<&str> = target.split(':').collect();
    let (suite, adapter, op, dtype) = match parts.as_slice() {
        ["table", op, dtype] => (None, None, *op, *dtype),
        [suite, adapter, op, dtype] => (Some(*suite), Some(*adapter), *op, *dtype),
        _ => return Err(format!("`{target}` is neither suite:adapter:op:dtype nor table:op:dtype")),
    };
    let dtype: DType = dtype.parse()?;
    let f = Format::of(dtype).ok_or_else(|| format!("{dtype} is not a float dtype"))?;
    let loaded_suite =
        suite.map(|s| catalog.suite(s).ok_or_else(|| format!("unknown suite `{s}`"))).transpose()?;
    let table = catalog
        .tables
        .iter()
        .filter(|t| {
            loaded_suite.is_none_or(|s| s.tables.iter().any(|&i| std::ptr::eq(&catalog.tables[i], *t)))
        })
        .find(|t| t.table.op == op)
        .ok_or_else(|| format!("no table for `{op}`"))?;
    if bits.len() != table.table.operands.len() {
        return Err(format!("`{op}` takes {} operands, {} given", table.table.operands.len(), bits.len()));
    }
    let inputs = bits
        .iter()
        .map(|b| u64::from_str_radix(b.trim_start_matches("0x"), 16).map_err(|e| format!("`{b}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, &x) in inputs.iter().enumerate() {
        if x & !f.all_mask() != 0 {
            return Err(format!("operand {} (0x{x:x}) has more than {} bits", i + 1, f.bits));
        }
        println!("x{} = {}", i + 1, f.describe(x));
    }
    let ctx = Context::new(table, loaded_suite.map(|s| &s.suite), f);
    let output = ctx.output;
    let expected = ctx.expectation(&inputs)?;
    println!("expected: {}", expected.describe(output));
    if let Ok(r) = reference(table.op, f, &inputs) {
        println!("oracle:   {}", output.describe(r));
    }
    let Some(adapter_name) = adapter else { return Ok(true) };
    let adapter = adapters::builtin(adapter_name)?;
    let tensors = inputs
        .iter()
        .map(|&x| Tensor::from_bits(dtype, &[1], &[x]).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let returned = match table.op {
        OpKind::Binary(b) => adapter.binary(b, &tensors[0], &tensors[1]),
        OpKind::Ternary(t) => adapter.ternary(t, &tensors[0], &tensors[1], &tensors[2]),
        OpKind::BinaryInto(b) => Tensor::zeros(dtype, &[1])
            .and_then(|mut out| adapter.binary_into(b, &tensors[0], &tensors[1], &mut out).map(|()| out)),
        other => return Err(format!("{other} cannot be evaluated element by element")),
    }
    .map_err(|e| format!("the adapter returned an error: {e}"))?;
    let actual = *returned.to_bits().first().ok_or("the adapter returned no element")?;
    let nan = loaded_suite.map(|s| s.suite.nan).unwrap_or_default();
    let ok = expected.accepts(output, actual, nan);
    println!("actual:   {}", output.describe(actual));
    if let Some(c) =
        expected.centre().filter(|&c| output == Domain::Float(f) && !f.is_nan(c) && !f.is_nan(actual))
    {
        println!("distance: {} ulp", step_distance(f, actual, c));
    }
    println!("verdict:  {}", if ok { "pass" } else { "FAIL" });
    Ok(ok)
}
