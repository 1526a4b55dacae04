//! `cargo test` entry point: every suite against every built-in adapter, plus the table
//! self-checks, one libtest trial per check named with its id
//! (`array-api:cpu:add:f32:nzero-plus-nzero`), so libtest's own filters (a substring:
//! `cargo test -- add:f16`), `--exact`, `--list` and nextest all work.

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use opspec::host::{self, NamedAdapter, find_adapter};
use opspec::results::Status;
use opspec::run::{RunOptions, adapter_checks, run_check, skip_reason, table_checks, validate_expectations};
use opspec::spec::Catalog;

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let catalog = match Catalog::builtin().and_then(|c| validate_expectations(&c).map(|()| c)) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("cannot load the spec catalog: {e}");
            return ExitCode::FAILURE;
        }
    };
    let adapters: Vec<NamedAdapter> = match host::BUILTIN
        .iter()
        .map(|&name| host::builtin(name).map(|a| (name.to_string(), a)))
        .collect()
    {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cannot start the built-in adapters: {e}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<String> = host::BUILTIN.iter().map(|s| s.to_string()).collect();
    let options = Arc::new(RunOptions::default());
    let mut trials = Vec::new();
    for check in table_checks(&catalog).into_iter().chain(adapter_checks(&catalog, &names)) {
        let id = check.id.to_string();
        let adapter =
            check.id.adapter_name().and_then(|n| find_adapter(&adapters, n)).map(|(_, a)| a.clone());
        if let Some(reason) = adapter.as_ref().and_then(|a| skip_reason(&catalog, &check, a.as_ref())) {
            trials.push(
                Trial::test(id, || Ok(())).with_ignored_flag(true).with_kind(format!("skipped: {reason}")),
            );
            continue;
        }
        let known = catalog.expectations.listed(&id).is_some();
        let (catalog, options) = (Arc::clone(&catalog), Arc::clone(&options));
        let trial = Trial::test(id, move || {
            let result = run_check(&catalog, &check, adapter.as_ref(), &options);
            match result.status {
                // A known deviation (listed in expectations/): reported, not failing.
                Status::Pass | Status::KnownDeviation => Ok(()),
                // libtest-mimic has no "skipped" verdict for a trial that already started; a
                // skip must not read as a pass, so it fails with its reason.
                Status::Skip | Status::Fail | Status::Missing | Status::Unavailable => {
                    Err(Failed::from(result.report(&Default::default())))
                }
            }
        });
        // Listed checks show as `[known deviation] <id>` in the test output.
        trials.push(if known { trial.with_kind("known deviation") } else { trial });
    }
    libtest_mimic::run(&args, trials).exit_code()
}
