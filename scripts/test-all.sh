#!/usr/bin/env bash
# Every test of the repository, as CI runs them (.ci/run calls this script):
#   1. cargo test --release --workspace
#   2. the example vendor crate outside the workspace (examples/vendor-ndarray: ndarray checked
#      through opspec's Rust harness, with opspec as a default-features = false dependency);
#   3. tests/cpu_faults.rs, which needs the CPU adapter built with its injected faults
#      (`--features cpu-faults`: a second build of opspec-cpu and opspec, docs/LAYOUTS.md).
# Both builds share one target directory, so the example reuses the workspace's compiled
# dependencies (GMP/MPFR through rug above all). Exits non-zero as soon as one part fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

started=$SECONDS
cargo test --release --workspace
workspace=$((SECONDS - started))

started=$SECONDS
(cd examples/vendor-ndarray && cargo test --release)
example=$((SECONDS - started))

started=$SECONDS
cargo test --release --features cpu-faults --test cpu_faults
faults=$((SECONDS - started))

echo "test-all: workspace ${workspace} s, examples/vendor-ndarray ${example} s, cpu_faults ${faults} s (build and run)"
