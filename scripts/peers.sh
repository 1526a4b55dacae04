#!/usr/bin/env bash
# The heavy Python libraries, outside CI: installs each into a venv of its own under
# $HOME/.cache/opspec-peers/<library> and runs its suites against it through the Python worker
# (docs/PLUGGING_IN.md), one report per library in reports/peers/<library>/ (index.html,
# results.jsonl). A library that cannot be installed or started is reported and skipped; the
# script goes on with the next.
#
#   scripts/peers.sh [torch] [mlx] [mindspore] [dask] [ndonnx] [tensorflow] [megengine]
#                                        # default: all
set -uo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin opspec || exit 2
base="${HOME}/.cache/opspec-peers"

# Pinned to what PyPI serves for CPython 3.11 on linux x86_64 (MegEngine: CPython 3.10, its
# last wheels). PyPI's torch is the CUDA build: about 3 GB with its nvidia-* dependencies (the
# CPU wheels live on download.pytorch.org).
declare -A packages=(
    [torch]="numpy==2.4.6 ml_dtypes==0.6.0 torch==2.15.0"
    [mlx]="numpy==2.4.6 ml_dtypes==0.6.0 mlx[cpu]==0.32.4"
    [mindspore]="numpy==2.4.6 ml_dtypes==0.6.0 mindspore==2.10.0"
    [dask]="numpy==2.4.6 ml_dtypes==0.6.0 dask==2026.8.0 array-api-compat==1.16.0"
    [ndonnx]="numpy==2.4.6 ml_dtypes==0.6.0 ndonnx==0.23.0"
    [tensorflow]="numpy==2.4.6 tensorflow-cpu==2.21.0"
    [megengine]="numpy<2 megengine==1.13.0"
)
# The interpreter each venv is made with.
declare -A pythons=([megengine]="$(ls -d "$HOME"/.pyenv/versions/3.10.*/bin/python 2>/dev/null | tail -1)")
# The adapter spec after `NAME=python:` (the venv's python= is added), and the suites.
tf_names="acos:arccos,acosh:arccosh,asin:arcsin,asinh:arcsinh,atan:arctan,atanh:arctanh"
tf_names+=",bitwise_invert:bitwise_not,trunc:fix,pow:power,atan2:arctan2"
declare -A specs=(
    [torch]="torch" [mlx]="mlx" [mindspore]="mindspore"
    [dask]="module=array_api_compat.dask.array"
    [ndonnx]="module=ndonnx"
    [tensorflow]="module=tensorflow.experimental.numpy names=$tf_names dtypes=bool:bool_,bfloat16:tensorflow.bfloat16 setup=tensorflow.experimental.numpy.experimental_enable_numpy_behavior"
    [megengine]="megengine"
)
declare -A names=([dask]="array-api-compat-dask-array" [tensorflow]="tf")
declare -A suites=([torch]="array-api mindspore" [mlx]="array-api mindspore" [mindspore]="array-api mindspore"
                   [megengine]="array-api megengine")

status=0
libs=("$@")
[ ${#libs[@]} -gt 0 ] || libs=(torch mlx mindspore dask ndonnx tensorflow megengine)
for lib in "${libs[@]}"; do
    if [ -z "${packages[$lib]:-}" ]; then
        echo "== $lib: not a library this script knows (${!packages[*]})" >&2
        status=1
        continue
    fi
    env="$base/$lib"
    python="${pythons[$lib]:-python3}"
    echo "== $lib: installing ${packages[$lib]} into $env (with $python)"
    # shellcheck disable=SC2086 # the package lists split at spaces
    if [ -z "$python" ] || ! { [ -x "$env/bin/python" ] || "$python" -m venv "$env"; } \
        || ! "$env/bin/pip" install -q ${packages[$lib]}; then
        echo "== $lib: could not be installed, not run" >&2
        status=1
        continue
    fi
    suite_args=()
    for s in ${suites[$lib]:-array-api}; do suite_args+=(--suite "$s"); done
    echo "== $lib: running"
    ./target/release/opspec run --adapter "${names[$lib]:-$lib}=python:${specs[$lib]} python=$env/bin/python" \
        "${suite_args[@]}" --no-tables --out "reports/peers/$lib"
    rc=$?
    echo "== $lib: exit $rc, report in reports/peers/$lib/index.html"
    [ "$rc" -le 1 ] || status=1
done
exit $status
