#!/usr/bin/env bash
# Every test of the repository, as CI runs them (.ci/run calls this script):
#   1. scripts/layers.py (the import order of src/'s rooms), cargo test --release --workspace,
#      opspec-cpu's unit tests again capped to AVX2 and to its baseline loops (OPSPEC_CPU_SIMD=avx2
#      and =portable: the division kernels' test then compares those paths with the scalar
#      one; on a CPU without AVX2 the first is the baseline run again), the Python
#      worker's tests (adapters/python/tests, through the binary step 1 built; skipped, saying
#      so, without a Python with NumPy);
#   2. the example vendor crate outside the workspace (examples/vendor-ndarray: ndarray checked
#      through opspec's Rust harness, with opspec as a default-features = false dependency);
#   3. the GPU check's dry run: the binaries step 1 built, packed by scripts/gpu-check.sh and run
#      end to end with the GPU parts skipped, so that a GPU call does not fail on a typo;
#   4. scripts/readme-check.sh: every command of the README, in a copy of the tracked files,
#      with this target directory (its `cargo run --release --` is the binary of step 1);
#   5. scripts/wheel-check.sh: the wheel built with maturin, installed into a fresh venv outside
#      the repository, a first NumPy report from it, the example Python project through the
#      pytest plugin (skipped, saying so, without maturin);
#   6. scripts/fuzz.sh 18: each fuzz target of fuzz/ for 18 s (cargo fuzz, built on stable);
#   7. scripts/slurm-check.sh: a sweep sharded over a real Slurm job array on this machine
#      (`run --shard auto`), merged, compared with the unsharded run (skipped without root or
#      slurm-wlm, which .ci/run installs);
#   8. tests/cpu_faults.rs, which needs the CPU adapter built with its injected faults
#      (`--features cpu-faults`: a second build of opspec-cpu and opspec, docs/LAYOUTS.md),
#      last, since it rebuilds target/release/opspec with the faults in.
# Both builds share one target directory, so the example reuses the workspace's compiled
# dependencies (GMP/MPFR through rug above all). The last line gives each part's time and the
# vector kernels the CPU adapter ran with. Exits non-zero as soon as one part fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

# The rooms of src/ import downwards only, without a circle (docs/ARCHITECTURE.md).
python3 scripts/layers.py

started=$SECONDS
cargo test --release --workspace
# The same test binary (nothing is rebuilt), its kernels capped to AVX2, then to the baseline.
for cap in avx2 portable; do
  OPSPEC_CPU_SIMD=$cap cargo test --release -p opspec-cpu --lib
done
workspace=$((SECONDS - started))

# Which vector kernels the CPU adapter's fast paths (and so their tests above) ran with: the
# widest this CPU has, unless OPSPEC_CPU_SIMD caps it.
kernels=$("$CARGO_TARGET_DIR/release/opspec" eval array-api:cpu:add:f32:edges 0x3f800000 0x3f800000 |
  sed -n 's/^called cpu (\(.*\)) with .*/\1/p')

# The Python worker's own tests (adapters/python/tests: fake array namespaces driven through the
# binary step 1 built), with the interpreter tests/python.rs uses.
started=$SECONDS
python=${OPSPEC_PYTHON:-$HOME/.cache/opspec-python/bin/python}
if "$python" -c 'import numpy' 2>/dev/null; then
    OPSPEC_BIN="$CARGO_TARGET_DIR/release/opspec" "$python" -m unittest discover -s adapters/python/tests
else
    echo "test-all: the Python worker's tests skipped: no Python with NumPy at $python (set OPSPEC_PYTHON or run .ci/run)"
fi
worker=$((SECONDS - started))

started=$SECONDS
(cd examples/vendor-ndarray && cargo test --release)
example=$((SECONDS - started))

started=$SECONDS
gpu_check=$(mktemp -d)
trap 'rm -rf "$gpu_check"' EXIT
scripts/gpu-check.sh pack "$gpu_check/bin"
scripts/gpu-check.sh --dry-run --bin-dir "$gpu_check/bin" "$gpu_check/out"
dry_run=$((SECONDS - started))

started=$SECONDS
scripts/readme-check.sh
readme=$((SECONDS - started))

# The wheel as a Python user gets it: built, installed in a fresh venv, a first NumPy report,
# and the example Python project's tests through the pytest plugin (docs/PYTHON.md).
started=$SECONDS
scripts/wheel-check.sh
wheel=$((SECONDS - started))

# The fuzz targets, briefly: 18 s each, under two minutes of fuzzing (scripts/fuzz.sh; the
# first build of fuzz/ takes minutes; docs/TESTING.md, "Fuzzing").
started=$SECONDS
scripts/fuzz.sh 18
fuzz=$((SECONDS - started))

# A sweep as a real Slurm job array (--shard auto), merged and compared with the unsharded
# run (skipped, saying so, without root or slurm-wlm).
started=$SECONDS
scripts/slurm-check.sh "$CARGO_TARGET_DIR/release/opspec"
slurm=$((SECONDS - started))

started=$SECONDS
cargo test --release --features cpu-faults --test cpu_faults
faults=$((SECONDS - started))

echo "test-all: workspace ${workspace} s, Python worker ${worker} s, examples/vendor-ndarray ${example} s (build and run), GPU check dry run ${dry_run} s, README commands ${readme} s, wheel ${wheel} s, fuzz ${fuzz} s (build and run), Slurm ${slurm} s, cpu_faults ${faults} s (build and run); CPU adapter: ${kernels}"
