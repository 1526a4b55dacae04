//! The Python libraries through the Python worker (`python:` adapters): the whole array-api
//! suite (element-wise tables, promotion, broadcasting) against NumPy and array-api-strict;
//! against JAX (64-bit mode) its promotion cases and the f32 and f64 `edges` and `random`
//! checks, since eager JAX compiles every new shape (the whole suite takes over ten minutes);
//! the layout checks of add and floor divide only. One trial per check id, prefixed with `python:`; each library's
//! known deviations are in `expectations/<adapter>.yaml`.
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
    libtest_mimic::run(&args, trials).exit_code()
}
