//! The Python libraries through the Python worker (`python:` adapters): the whole array-api
//! suite (element-wise tables, promotion, broadcasting) against NumPy and array-api-strict;
//! against JAX (64-bit mode) its promotion cases and the f32 and f64 `edges` and `random`
//! checks, since eager JAX compiles every new shape (the whole suite takes over ten minutes);
//! the layout checks of add and floor divide only. One trial per check id, prefixed with `python:`; each library's
//! known deviations are in `expectations/<adapter>.yaml`. One more trial,
//! `python:wrong:functions-that-exist-and-raise`, runs a namespace whose functions exist and
//! raise through the `opspec` program: their checks fail, they are not skipped.
//!
//! The interpreter is `$OPSPEC_PYTHON`, else the venv `.ci/run` makes at
//! `$HOME/.cache/opspec-python`. Without either, every trial is listed as ignored with the
//! reason, never passed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};
use opspec::host::python::PYTHON_VARIABLE;
use opspec::host::{self, StartOptions};
use opspec::results::Status;
use opspec::run::{RunOptions, adapter_checks, run_check, skip_reason};
use opspec::spec::Catalog;

/// (adapter name, backend and options, whether every check runs or only the few above).
const LIBRARIES: [(&str, &str, bool); 3] =
    [("numpy", "numpy", true), ("array-api-strict", "array_api_strict", true), ("jax", "jax x64=1", false)];

/// The operations whose layout checks run here (each costs about a hundred worker calls per
/// dtype; `opspec run --adapter numpy=python:numpy --filter '*:layouts'` runs them all).
const LAYOUT_OPS: [&str; 2] = ["add", "floor_divide"];

/// The checks of JAX's short run.
fn few(id: &opspec::spec::id::CheckId) -> bool {
    id.dtype.contains('+')
        || (["f32", "f64"].contains(&id.dtype.as_str()) && ["edges", "random"].contains(&id.case.as_str()))
}

/// The interpreter to use, or why there is none.
fn python() -> Result<String, String> {
    if let Ok(p) = std::env::var(PYTHON_VARIABLE) {
        return Ok(p);
    }
    let venv = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/opspec-python/bin/python"));
    match venv {
        Some(v) if v.is_file() => Ok(v.display().to_string()),
        _ => Err(format!(
            "no Python with the libraries: set {PYTHON_VARIABLE} or run .ci/run (it makes $HOME/.cache/opspec-python)"
        )),
    }
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let catalog = match Catalog::builtin() {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("cannot load the spec catalog: {e}");
            return ExitCode::FAILURE;
        }
    };
    let python = python();
    let options = Arc::new(RunOptions::default());
    let mut trials = Vec::new();
    for (name, backend, every) in LIBRARIES {
        let checks: Vec<_> = adapter_checks(&catalog, &[name.to_string()])
            .into_iter()
            .filter(|c| c.id.suite_label() == "array-api")
            .filter(|c| every || few(&c.id))
            .filter(|c| c.id.case != "layouts" || LAYOUT_OPS.contains(&c.id.op.as_str()))
            .collect();
        let adapter = python.clone().and_then(|p| {
            let spec = host::parse_spec(&format!("{name}=python:{backend} python={p}"))?;
            host::start(&spec, &StartOptions::new(Duration::from_secs(120)))
        });
        for check in checks {
            let id = format!("python:{}", check.id);
            let adapter = match (&adapter, &python) {
                (Ok(a), _) => a.clone(),
                // No interpreter: skipped with the reason. An interpreter whose library does
                // not start fails every check with the reason.
                (Err(_), Err(why)) => {
                    trials.push(
                        Trial::test(id, || Ok(()))
                            .with_ignored_flag(true)
                            .with_kind(format!("skipped: {why}")),
                    );
                    continue;
                }
                (Err(e), Ok(_)) => {
                    let e = e.clone();
                    trials.push(Trial::test(id, move || Err(Failed::from(e))));
                    continue;
                }
            };
            if let Some(reason) = skip_reason(&catalog, &check, adapter.as_ref()) {
                trials.push(
                    Trial::test(id, || Ok(()))
                        .with_ignored_flag(true)
                        .with_kind(format!("skipped: {reason}")),
                );
                continue;
            }
            let known = catalog.expectations.listed(&check.id.to_string()).is_some();
            let (catalog, options) = (Arc::clone(&catalog), Arc::clone(&options));
            let trial = Trial::test(id, move || {
                let result = run_check(&catalog, &check, Some(&adapter), &options);
                match result.status {
                    Status::Pass | Status::KnownDeviation => Ok(()),
                    _ => Err(Failed::from(result.report(&Default::default()))),
                }
            });
            trials.push(if known { trial.with_kind("known deviation") } else { trial });
        }
    }
    let raising = "python:wrong:functions-that-exist-and-raise";
    trials.push(match python {
        Ok(p) => Trial::test(raising, move || functions_that_raise(&p)),
        Err(why) => {
            Trial::test(raising, || Ok(())).with_ignored_flag(true).with_kind(format!("skipped: {why}"))
        }
    });
    libtest_mimic::run(&args, trials).exit_code()
}

/// A namespace (NumPy's, in a temporary folder) whose `add` raises RuntimeError on every call
/// and whose `clip` raises ValueError for array bounds: both exist, so the start-up probe
/// must not call them unsupported. Through the `opspec` program their checks fail at the must
/// tier, naming the error, and the run exits 1.
fn functions_that_raise(python: &str) -> Result<(), Failed> {
    let dir = std::env::temp_dir().join(format!("opspec-python-raising-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let module = "import numpy\nfrom numpy import *\n\n\
                  def add(x1, x2):\n    raise RuntimeError('add kernel failed (code 3)')\n\n\
                  def clip(x, min=None, max=None):\n    \
                  if isinstance(min, numpy.ndarray) or isinstance(max, numpy.ndarray):\n        \
                  raise ValueError('clip: min and max must be numbers')\n    \
                  return numpy.clip(x, min, max)\n";
    std::fs::write(dir.join("raising.py"), module).map_err(|e| e.to_string())?;
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_opspec"))
        .args(["run", "--no-tables", "--adapter", &format!("python:module=raising python={python}")])
        .args(["--filter", "array-api:raising:{add,clip}:f32:*", "--out"])
        .arg(dir.join("out"))
        .env("PYTHONPATH", &dir)
        .output()
        .map_err(|e| e.to_string())?;
    let said = String::from_utf8_lossy(&run.stdout).to_string() + &String::from_utf8_lossy(&run.stderr);
    let results =
        std::fs::read_to_string(dir.join("out/results.jsonl")).map_err(|e| format!("{e}; {said}"))?;
    let checks: Vec<serde_json::Value> = results
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["record"] == "check")
        .collect();
    for (op, error) in [
        ("add", "RuntimeError: add kernel failed (code 3)"),
        ("clip", "ValueError: clip: min and max must be numbers"),
    ] {
        let of_op: Vec<_> = checks
            .iter()
            .filter(|r| r["id"].as_str().is_some_and(|i| i.contains(&format!(":{op}:"))))
            .collect();
        if of_op.len() < 10 {
            return Err(format!("{} {op} checks, expected at least 10:\n{said}", of_op.len()).into());
        }
        for r in of_op {
            // The error is the check's message, or each failing input's actual value.
            let actual: Vec<_> =
                r["failures"].as_array().into_iter().flatten().map(|f| &f["actual"]).collect();
            let texts =
                [&r["message"]].into_iter().chain(actual).filter_map(|v| v.as_str()).collect::<Vec<_>>();
            if r["status"] != "fail" || r["tier"] != "must" || !texts.iter().any(|a| a.contains(error)) {
                return Err(format!(
                    "{}: {} ({}), not a must failure naming `{error}`: {texts:?}",
                    r["id"], r["status"], r["tier"]
                )
                .into());
            }
        }
    }
    if run.status.code() != Some(1) {
        return Err(format!("the run exited {:?}, not 1:\n{said}", run.status.code()).into());
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
