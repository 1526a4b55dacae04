#!/usr/bin/env bash
# The heavy Python libraries, outside CI: installs PyTorch, MLX and MindSpore into venvs of
# their own under $HOME/.cache/opspec-peers/<library> and runs the array-api and mindspore
# suites against each through the Python worker, one report per library in
# reports/peers/<library>/ (index.html, results.jsonl). A library that cannot be installed or
# started is reported and skipped; the script goes on with the next.
#
#   scripts/peers.sh [torch] [mlx] [mindspore]     # default: all three
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release || exit 2
base="${HOME}/.cache/opspec-peers"
common=(numpy==2.4.6 ml_dtypes==0.6.0)

# Pinned to what PyPI serves for CPython 3.11 on linux x86_64. PyPI's torch is the CUDA build:
# about 3 GB with its nvidia-* dependencies (the CPU wheels live on download.pytorch.org).
declare -A packages=(
    [torch]="torch==2.15.0"
    [mlx]="mlx[cpu]==0.32.4"
    [mindspore]="mindspore==2.10.0"
)

status=0
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(torch mlx mindspore)
for lib in "${libs[@]}"; do
    env="$base/$lib"
    echo "== $lib: installing ${packages[$lib]} into $env"
    if ! { [ -x "$env/bin/python" ] || python3 -m venv "$env"; } \
        || ! "$env/bin/pip" install -q "${common[@]}" "${packages[$lib]}"; then
        echo "== $lib: could not be installed, not run" >&2
        status=1
        continue
    fi
    echo "== $lib: running"
    ./target/release/opspec run --adapter "$lib=python:$lib python=$env/bin/python" \
        --suite array-api --suite mindspore --no-tables --out "reports/peers/$lib"
    rc=$?
    echo "== $lib: exit $rc, report in reports/peers/$lib/index.html"
    [ "$rc" -le 1 ] || status=1
done
exit $status
