//! A results file as a run, a killed run or a user leaves it: the fuzzer's bytes written to a
//! file, read (`results::read`: the validating pass) and, where they read, every result read
//! again (`Run::checks`), as `report`, `diff`, `merge` and `expect` do.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// This process's file (libFuzzer runs one input at a time per process).
fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("opspec-fuzz-results-{}.jsonl", std::process::id())))
}

fuzz_target!(|data: &[u8]| {
    std::fs::write(path(), data).expect("the fuzz target's file can be written");
    if let Ok(run) = opspec::results::read(path()) {
        for result in run.checks() {
            if result.is_err() {
                break;
            }
        }
    }
});
