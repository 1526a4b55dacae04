//! The `opspec` command line (all of it lives in [`opspec::cli`], so that the Rust vendor
//! harness runs the same commands).

/// mimalloc reuses a sweep's freed batch buffers in place; the system allocator maps fresh,
/// zeroed pages for most of them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    opspec::cli::main()
}
