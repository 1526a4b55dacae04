//! `cargo test` entry point: every suite against every built-in adapter, plus the table
//! self-checks, one libtest trial per check (`array-api:cpu:add:f32:pinf-plus-ninf`), so the
//! usual filters (`cargo test -- add:f16`), `--exact`, `--list` and nextest all work.

use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use opspec::adapters;
use opspec::run::{RunOptions, Status, adapter_checks, run_check, skip_reason, table_checks};
use opspec::spec::Catalog;

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let catalog = match Catalog::builtin() {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("cannot load the spec catalog: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut available = Vec::new();
    let mut unavailable = Vec::new();
    for name in adapters::BUILTIN {
        match adapters::builtin(name) {
            Ok(a) => available.push((name.to_string(), a)),
            Err(reason) => unavailable.push((name.to_string(), reason)),
        }
    }
    let names: Vec<String> = adapters::BUILTIN.iter().map(|s| s.to_string()).collect();
    let options = Arc::new(RunOptions::default());
    let mut trials = Vec::new();
    for check in table_checks(&catalog).into_iter().chain(adapter_checks(&catalog, &names)) {
        let adapter = check
            .adapter
            .as_ref()
            .and_then(|n| available.iter().find(|(a, _)| a == n))
            .map(|(_, a)| a.clone());
        let skip_reason = match (&check.adapter, &adapter) {
            (Some(name), None) => unavailable.iter().find(|(n, _)| n == name).map(|(_, r)| r.clone()),
            (Some(_), Some(a)) => skip_reason(&catalog, &check, a.as_ref()),
            (None, _) => None,
        };
        if let Some(reason) = skip_reason {
            trials.push(
                Trial::test(check.id.clone(), || Ok(()))
                    .with_ignored_flag(true)
                    .with_kind(format!("skipped: {reason}")),
            );
            continue;
        }
        let known = catalog.expectations.listed(&check.id).is_some();
        let (catalog, options) = (Arc::clone(&catalog), Arc::clone(&options));
        let trial = Trial::test(check.id.clone(), move || {
            let result = run_check(&catalog, &check, adapter.as_ref(), &options);
            match result.status {
                // A known deviation (listed in expectations/): reported, not failing.
                Status::Pass | Status::ExpectedFail => Ok(()),
                // libtest-mimic has no "skipped" verdict for a trial that already started; a
                // skip must not read as a pass, so it fails with its reason.
                Status::Skip | Status::Fail => Err(Failed::from(result.report())),
            }
        });
        // Listed checks show as `[known deviation] <id>` in the test output.
        trials.push(if known { trial.with_kind("known deviation") } else { trial });
    }
    libtest_mimic::run(&args, trials).exit_code()
}
