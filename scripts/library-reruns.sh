#!/usr/bin/env bash
# Re-runs the Python libraries of docs/runs/2026-12-08-library-reruns/NOTES.md through the Python
# worker, as a new user would, with each opspec binary given (for instance one built before a
# change and one after), and prints each run's summary and verdict lines. Each library goes into
# a venv of its own under $HOME/.cache/opspec-peers/<library> (installed if missing, with the
# pinned versions below; scripts/peers.sh uses the same venvs). Each run uses the catalog and
# expectations built into the binary it runs, and writes its report and results.jsonl to
# $OUT/<library>-<label>/. Not part of the test command.
#
#   scripts/library-reruns.sh [LABEL=BINARY …] [library …]
#   OPSPEC_RUNS="before=/work/wt/old/target/release/opspec after=target/release/opspec" \
#       scripts/library-reruns.sh paddle sparse
#
# Binaries: the LABEL=BINARY arguments, else $OPSPEC_RUNS (the same words), else
# after=target/release/opspec. Libraries: paddle sparse ndonnx megengine tensorflow dask
# (default: all). OUT defaults to /tmp/libs.
set -uo pipefail
cd "$(dirname "$0")/.."
base="${HOME}/.cache/opspec-peers"
out="${OUT:-/tmp/libs}"

# Pinned to what PyPI serves for CPython 3.11 on linux x86_64 (MegEngine: CPython 3.10, its
# last wheels, which need NumPy 1).
declare -A packages=(
    [paddle]="numpy==2.4.6 ml_dtypes==0.6.0 paddlepaddle==3.3.1"
    [sparse]="numpy==2.4.6 ml_dtypes==0.6.0 sparse==0.19.3"
    [ndonnx]="numpy==2.4.6 ml_dtypes==0.6.0 ndonnx==0.23.0"
    [megengine]="numpy<2 megengine==1.13.0"
    [tensorflow]="numpy==2.4.6 tensorflow-cpu==2.21.0"
    [dask]="numpy==2.4.6 ml_dtypes==0.6.0 dask==2026.8.0 array-api-compat==1.16.0"
)
declare -A pythons=([megengine]="$(ls -d "$HOME"/.pyenv/versions/3.10.*/bin/python 2>/dev/null | tail -1)")
# The adapter spec (NAME=python:BACKEND OPTIONS; the venv's python= is added) and the suites.
tf_names="acos:arccos,acosh:arccosh,asin:arcsin,asinh:arcsinh,atan:arctan,atanh:arctanh"
tf_names+=",bitwise_invert:bitwise_not,trunc:fix,pow:power,atan2:arctan2"
declare -A specs=(
    [paddle]="paddle=python:module=paddle"
    [sparse]="sparse=python:module=sparse export=todense"
    [ndonnx]="ndonnx=python:module=ndonnx"
    [megengine]="megengine=python:megengine"
    [tensorflow]="tf=python:module=tensorflow.experimental.numpy names=$tf_names dtypes=bool:bool_,bfloat16:tensorflow.bfloat16 setup=tensorflow.experimental.numpy.experimental_enable_numpy_behavior"
    [dask]="array-api-compat-dask-array=python:module=array_api_compat.dask.array"
)
declare -A suites=([megengine]="array-api megengine")
all=(paddle sparse ndonnx megengine tensorflow dask)

runs=()
libs=()
for arg in "$@"; do
    case "$arg" in
        *=*) runs+=("$arg") ;;
        *) libs+=("$arg") ;;
    esac
done
# shellcheck disable=SC2206 # OPSPEC_RUNS is a list of words
[ ${#runs[@]} -gt 0 ] || runs=(${OPSPEC_RUNS:-after=target/release/opspec})
[ ${#libs[@]} -gt 0 ] || libs=("${all[@]}")
for run in "${runs[@]}"; do
    if [ ! -x "${run#*=}" ]; then
        echo "no opspec binary at ${run#*=} (from $run); build one with cargo build --release" >&2
        exit 2
    fi
done

status=0
for lib in "${libs[@]}"; do
    if [ -z "${packages[$lib]:-}" ]; then
        echo "== $lib: not a library this script knows (${all[*]})" >&2
        status=1
        continue
    fi
    env="$base/$lib"
    python="${pythons[$lib]:-python3}"
    if [ ! -x "$env/bin/python" ]; then
        echo "== $lib: installing ${packages[$lib]} into $env (with $python)"
        # shellcheck disable=SC2086 # the package lists split at spaces
        if [ -z "$python" ] || ! "$python" -m venv "$env" || ! "$env/bin/pip" install -q ${packages[$lib]}; then
            echo "== $lib: could not be installed, not run" >&2
            rm -rf "$env"
            status=1
            continue
        fi
    fi
    suite_args=()
    for s in ${suites[$lib]:-array-api}; do suite_args+=(--suite "$s"); done
    for run in "${runs[@]}"; do
        label="${run%%=*}"
        dir="$out/$lib-$label"
        mkdir -p "$dir"
        echo "== $lib ($label: ${run#*=})"
        start=$SECONDS
        "${run#*=}" run --adapter "${specs[$lib]} python=$env/bin/python" "${suite_args[@]}" \
            --no-tables --out "$dir" > "$dir/terminal.txt" 2>&1
        rc=$?
        # The summary line of each (suite, adapter) pair, with its verdict ladder.
        grep -E "^[a-z0-9-]+ +[a-z0-9-]+ +[0-9]+ passed" "$dir/terminal.txt"
        echo "== $lib ($label): exit $rc, $((SECONDS - start)) s, report in $dir/index.html"
        [ "$rc" -le 1 ] || status=1
    done
done
exit $status
