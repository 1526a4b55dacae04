//! The `opspec` command line (all of it lives in [`opspec::cli`], so that the Rust vendor
//! harness runs the same commands).

fn main() -> std::process::ExitCode {
    opspec::cli::main()
}
