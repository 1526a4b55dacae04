#!/usr/bin/env bash
# The accuracy table (docs/ACCURACY.md, "The accuracy table"): the one-operand approximate
# functions of the array API (acos … tanh) against each adapter named, then one report over
# all of them, whose accuracy.csv, accuracy.md and index.html put the adapters side by side.
#
#   scripts/accuracy-table.sh OUT [--f32-sampled] ADAPTER…
#
# ADAPTER is what `opspec run --adapter` takes, named: `cpu`, `numr`,
# `libm=lib:target/libopspec_libm.so` (docs/LIBM.md builds it), `numpy=python:numpy`.
# Every f16 and bf16 value is swept (`run --exhaustive`, 2^16 values each); f32 too (2^32
# values, 128 chunks, resumable: rerun the same command after a kill), unless
# --f32-sampled comes before the adapters it applies to, which checks those adapters' f32
# with the sampled checks instead (edges, grid and 16,384 random inputs; the table labels
# them "sampled"). OPSPEC_FUNCTIONS overrides the list of functions (comma-separated).
# Each adapter's results go to OUT/NAME/, the table to OUT/table/; the time of each run is
# printed.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: scripts/accuracy-table.sh OUT [--f32-sampled] ADAPTER…}
shift
functions=${OPSPEC_FUNCTIONS:-acos,acosh,asin,asinh,atan,atanh,cos,cosh,exp,expm1,log,log1p,log2,log10,sin,sinh,tan,tanh}
cargo build --release -q --bin opspec
opspec=target/release/opspec
mkdir -p "$out"
sampled=0
files=()
for adapter in "$@"; do
    if [ "$adapter" = --f32-sampled ]; then
        sampled=1
        continue
    fi
    name=${adapter%%=*}
    dtypes="f16,bf16,f32"
    [ "$sampled" = 1 ] && dtypes="f16,bf16"
    started=$SECONDS
    "$opspec" run --exhaustive --suite array-api --adapter "$adapter" \
        --filter "*:$name:{$functions}:{$dtypes}:exhaustive" --out "$out/$name" || true
    files+=("$out/$name/results.jsonl")
    if [ "$sampled" = 1 ]; then
        "$opspec" run --suite array-api --adapter "$adapter" --no-tables \
            --filter "*:$name:{$functions}:f32:*" --out "$out/$name-f32" || true
        files+=("$out/$name-f32/results.jsonl")
    fi
    echo "accuracy-table: $name in $((SECONDS - started)) s"
done
"$opspec" report "${files[@]}" --out "$out/table" || true
echo "accuracy-table: $out/table/accuracy.md, accuracy.csv, index.html"
