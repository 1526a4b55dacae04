//! ndarray against opspec's shipped suites: `cargo test --release` (`-- --help` for the
//! arguments). Its known deviations, each with the rule it breaks and a command that shows
//! it, are in `expectations/ndarray.yaml`.

use std::process::ExitCode;

use opspec::harness::Harness;
use opspec_vendor_ndarray::NdarrayAdapter;

fn main() -> ExitCode {
    Harness::new(NdarrayAdapter).expectations("expectations/ndarray.yaml").main()
}
