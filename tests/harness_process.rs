//! The Rust vendor harness's default isolation: the vendor's adapter runs in a worker process
//! (this test binary, re-executed with `--opspec-harness-worker`), so an adapter that aborts
//! the process, or kills it with SIGFPE on an integer division by zero, fails the checks it was
//! called for (even those that accept an error the library returns), and the run goes on to
//! write its report. `harness = false`: `main` is both the test and, when re-executed, the
//! worker.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use opspec::harness::{Harness, WORKER_ARG};
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, OpKind, Support, Tensor};
use opspec_cpu::CpuAdapter;

/// The CPU adapter, except that `maximum` aborts the process (as a crash in a vendor's
/// `unsafe` or FFI code would), and an integer `floor_divide` by zero kills it with SIGFPE (as
/// MegEngine's `F.floor_div` of int8 by 0 kills Python).
struct Aborts;

impl Adapter for Aborts {
    fn name(&self) -> &str {
        "aborts"
    }

    fn version(&self) -> String {
        "aborts 0.1.0".into()
    }

    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        CpuAdapter.supports(op, dtype)
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if op == BinaryOp::Maximum {
            std::process::abort();
        }
        if op == BinaryOp::FloorDivide && a.dtype().is_integer() && b.to_bits().contains(&0) {
            // SAFETY: signals this process, which the default action of SIGFPE ends.
            unsafe { libc::kill(libc::getpid(), libc::SIGFPE) };
        }
        CpuAdapter.binary(op, a, b)
    }
}

/// Runs the harness in the default (process) isolation with `args`; returns the exit code and
/// the results file's text.
fn run(out: &Path, args: &[&str]) -> (ExitCode, String) {
    let args = std::iter::once("harness_process").chain(args.iter().copied()).map(OsString::from);
    let code = Harness::new(Aborts).out(out).main_with(args);
    (code, std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default())
}

/// The record of check `id` in a results file.
fn record<'a>(results: &'a str, id: &str) -> Option<&'a str> {
    results.lines().find(|l| l.contains(&format!("\"id\":\"{id}\"")))
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == WORKER_ARG) {
        return Harness::new(Aborts).main();
    }
    let out = std::env::temp_dir().join(format!("opspec-harness-process-{}", std::process::id()));
    let mut failed = Vec::new();
    let mut expect = |what: &str, ok: bool| {
        println!("{} {what}", if ok { "ok  " } else { "FAIL" });
        if !ok {
            failed.push(what.to_string());
        }
    };

    let (code, results) = run(&out, &["--exact", "array-api:aborts:add:f32:edges"]);
    expect("a check through the worker passes", code == ExitCode::SUCCESS);
    expect(
        "and is recorded as a pass",
        record(&results, "array-api:aborts:add:f32:edges").is_some_and(|r| r.contains("\"status\":\"pass\"")),
    );

    let (code, results) = run(&out, &["*:aborts:{add,maximum}:f32:edges"]);
    expect("a worker that aborts fails the run (exit 1)", code == ExitCode::FAILURE);
    let maximum = record(&results, "array-api:aborts:maximum:f32:edges").unwrap_or_default();
    expect("the aborted call's check fails", maximum.contains("\"status\":\"fail\""));
    expect("saying how the worker ended", maximum.contains("signal") || maximum.contains("SIGABRT"));
    let add = record(&results, "numr:aborts:add:f32:edges").unwrap_or_default();
    expect("the other checks of the run still pass", add.contains("\"status\":\"pass\""));
    expect("the run writes its report", out.join("index.html").is_file());
    if !maximum.contains("signal") {
        println!("  the maximum check's record: {maximum}");
    }

    // The array API lets x // 0 be any value or an error; a dead process gives neither.
    let (code, results) = run(&out, &["array-api:aborts:floor_divide:i8:*"]);
    expect("a worker killed by SIGFPE fails the run (exit 1)", code == ExitCode::FAILURE);
    let by_zero = record(&results, "array-api:aborts:floor_divide:i8:by-zero").unwrap_or_default();
    expect("the division by zero fails", by_zero.contains("\"status\":\"fail\""));
    expect("at the must tier", by_zero.contains("\"tier\":\"must\""));
    expect("saying the worker died of SIGFPE", by_zero.contains("SIGFPE") && by_zero.contains("no result"));
    let edges = record(&results, "array-api:aborts:floor_divide:i8:edges").unwrap_or_default();
    expect("the other divisions' checks still pass", edges.contains("\"status\":\"pass\""));
    if !by_zero.contains("SIGFPE") {
        println!("  the by-zero check's record: {by_zero}");
    }

    let _ = std::fs::remove_dir_all(&out);
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("{} failed: {}", failed.len(), failed.join("; "));
        ExitCode::FAILURE
    }
}
