#!/usr/bin/env bash
# GPU check for opspec's CUDA adapter, made for one call on a machine with an NVIDIA driver but
# no Rust toolchain and no network: it runs release binaries built elsewhere, within a time
# budget (default 290 s), and leaves at most three files in OUT_DIR: summary.txt, summary.json
# and gpu-check.tar.gz (every log, the HTML reports and the raw results).
#
#   Here (with the toolchain):
#     cargo build --release --bin opspec
#     cargo test --release --no-run -p opspec-cuda
#     cargo build --release -p opspec-cuda --example bandwidth
#     scripts/gpu-check.sh pack gpu-bin [TARGET_DIR]   # newest builds, stripped, size-checked
#     scripts/gpu-check.sh --dry-run --bin-dir gpu-bin OUT_DIR   # end to end, GPU parts skipped
#   There (copy scripts/ and gpu-bin/):
#     scripts/gpu-check.sh [options] OUT_DIR
#   options:
#     --bin-dir DIR       the packed binaries (default gpu-bin)
#     --nvrtc-dir DIR     directory holding libnvrtc.so.13 (default: searched, see find_nvrtc)
#     --budget SECONDS    time for the whole check (default 290)
#     --sweep-args ARGS   arguments after `opspec run --exhaustive` (default: --adapter cuda
#                         --filter array-api:cuda:add:f16:exhaustive --out WORK/sweep, WORK
#                         being the folder that is tarred)
#     --python PY         the interpreter whose GPU libraries (torch, JAX, CuPy) step 4 runs
#                         (default: /opt/torch/.venv/bin/python3 if present, else python3)
#     --dry-run           accept skipped GPU parts (no GPU here): checks the script, the binaries,
#                         the packing and the output limits before GPU time is spent on them
# Steps: carry (size of the binaries), cuda-tests (the crate's tests, GPU tests included),
# bandwidth (f32 add of 2^28 elements against a device-to-device copy), run (every suite against
# cuda and cuda-deterministic, with the time split between kernels, transfers, compilation and
# the host), python (torch, JAX and CuPy on the GPU through the Python worker's device= option,
# each that PY has and that sees a GPU; the others are skipped, saying so), and, when this
# opspec has the commands, an exhaustive f16 add sweep through cuda and the size/layout generator. Exit status: 0 when every step passed (or, in a dry run, passed or
# skipped), 1 otherwise, 2 for bad arguments.
set -uo pipefail

# What one GPU call allows: everything carried under 64 MiB (kept well under), at most 8 files
# back of at most 16 MiB each.
max_carry_mib=48 max_files=8 max_file_mib=16

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }

# Bytes in the files under (or of) the arguments.
bytes_of() { find "$@" -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

# pack DEST [TARGET_DIR]: the newest build of each binary, stripped, under stable names.
if [[ ${1:-} == pack ]]; then
    [[ $# -ge 2 ]] || usage
    dest=$2 release=${3:-${CARGO_TARGET_DIR:-$(dirname "$0")/../target}}/release
    mkdir -p "$dest" || exit 2
    newest() { ls -t "$@" 2>/dev/null | while read -r f; do
        [[ -f $f && -x $f && $f != *.so ]] && { echo "$f"; break; }; done; }
    missing=0
    for pair in "opspec:$release/opspec" "opspec_cuda:$release/deps/opspec_cuda-*" \
        "bandwidth:$release/examples/bandwidth"; do
        name=${pair%%:*}
        # shellcheck disable=SC2086 # the pattern is meant to be expanded
        src=$(newest ${pair#*:})
        if [[ -z $src ]]; then
            echo "$name: not built (see --help)" >&2
            missing=1
            continue
        fi
        if command -v strip >/dev/null; then strip -o "$dest/$name" "$src"; else cp "$src" "$dest/$name"; fi \
            || { echo "$name: cannot copy $src" >&2; exit 1; }
        echo "$name <- $src ($(mib "$(bytes_of "$dest/$name")") MiB)"
    done
    total=$(bytes_of "$dest")
    echo "packed $(mib "$total") MiB in $dest (limit $max_carry_mib MiB)"
    [[ $missing -eq 0 ]] || exit 1
    [[ $total -le $((max_carry_mib << 20)) ]] || { echo "too large to carry" >&2; exit 1; }
    exit 0
fi

bin_dir=gpu-bin nvrtc_dir='' out='' budget=290 dry_run=0 sweep_args='' python=python3
[[ -x /opt/torch/.venv/bin/python3 ]] && python=/opt/torch/.venv/bin/python3
while [[ $# -gt 0 ]]; do
    case $1 in
        --python) python=${2:?}; shift 2 ;;
        --bin-dir) bin_dir=${2:?}; shift 2 ;;
        --nvrtc-dir) nvrtc_dir=${2:?}; shift 2 ;;
        --budget) budget=${2:?}; shift 2 ;;
        --sweep-args) sweep_args=${2:?}; shift 2 ;;
        --dry-run) dry_run=1; shift ;;
        -h | --help) usage ;;
        -*) echo "unknown option $1" >&2; usage ;;
        *) out=$1; shift ;;
    esac
done
[[ -n $out ]] || usage
[[ $budget =~ ^[0-9]+$ ]] || { echo "--budget takes whole seconds" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
deadline=$((SECONDS + budget))
# Seconds kept at the end for the summary and the archive.
reserve=10

opspec=$bin_dir/opspec cuda_tests=$bin_dir/opspec_cuda bandwidth=$bin_dir/bandwidth

# NVRTC: cudarc loads libnvrtc.so / .so.13 / .so.12 through the dynamic loader; a CUDA toolkit
# or the nvidia-cuda-nvrtc wheel keeps it outside the loader's default path.
find_nvrtc() {
    local d py
    local path=${LD_LIBRARY_PATH:-}
    for d in ${path//:/ }; do
        compgen -G "$d/libnvrtc.so*" >/dev/null && { echo "$d"; return; }
    done
    ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so' && return
    for d in "${CUDA_HOME:-}/lib64" "${CUDA_PATH:-}/lib64" /usr/local/cuda/lib64 \
        /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64 /opt/cuda/lib64; do
        compgen -G "$d/libnvrtc.so*" >/dev/null && { echo "$d"; return; }
    done
    for py in python3 /opt/torch/.venv/bin/python3; do
        d=$("$py" -c 'import nvidia, os; p = nvidia.__path__[0]; print(next(d for d in (os.path.join(p, "cu13", "lib"), os.path.join(p, "cuda_nvrtc", "lib")) if os.path.isdir(d)))' 2>/dev/null) \
            && compgen -G "$d/libnvrtc.so*" >/dev/null && { echo "$d"; return; }
    done
}
[[ -n $nvrtc_dir ]] || nvrtc_dir=$(find_nvrtc)
[[ -n $nvrtc_dir ]] && export LD_LIBRARY_PATH="$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

names=() statuses=() seconds=() notes=()
record() { names+=("$1"); statuses+=("$2"); seconds+=("$3"); notes+=("$4"); echo "[$2] $1: $4"; }
# A GPU part that did not run: skipped in a dry run, failed otherwise.
gpu_skip() { if [[ $dry_run -eq 1 ]]; then record "$1" skip "$2" "$3"; else record "$1" fail "$2" "$3"; fi; }

# run_step NAME CAP BINARY ARGS...: runs with the smaller of CAP and the budget left, logging
# to WORK/NAME.log; sets rc and secs; returns 1 (after recording why) when it did not run.
run_step() {
    local name=$1 cap=$2 bin=$3
    shift 3
    local left=$((deadline - SECONDS - reserve))
    if [[ ! -x $bin ]]; then
        record "$name" fail 0 "binary $bin not found (scripts/gpu-check.sh pack, see --help)"
        return 1
    fi
    if [[ $left -lt 5 ]]; then
        record "$name" fail 0 "not run: the ${budget}s budget is spent"
        return 1
    fi
    local limit=$((cap < left ? cap : left)) start=$SECONDS
    echo "== $name (limit ${limit}s): $bin $*" | tee "$work/$name.log"
    timeout --kill-after=5 "$limit" "$bin" "$@" >>"$work/$name.log" 2>&1
    rc=$?
    secs=$((SECONDS - start))
    [[ $rc -eq 124 || $rc -eq 137 ]] && echo "timed out after ${limit}s" >>"$work/$name.log"
    return 0
}

# The count before WORD ("passed", "failed", "skipped", ...) on the summary line LINE that
# `opspec run` ends with: "P passed, F failed[, S skipped…]; I inputs in T s (R inputs/s)".
count() { grep -oE "[0-9]+ $2" <<<"$1" | head -1 | cut -d' ' -f1; }

# Sums a numeric field over the JSON lines of a file (0 when absent).
sum_field() { grep -o "\"$2\": *[0-9.e+-]*" "$1" 2>/dev/null | awk -F: '{s += $2} END {printf "%.3f", s + 0}'; }

# The time split of an opspec command from its adapters' timings file, against the summed
# seconds of its checks in RESULTS (a results.jsonl: each check's time includes the host's
# oracle and input generation; summed over threads, as the adapters' times are) or, without
# one, against WALL seconds.
split_line() {
    local timings=$1 results=$2 wall=$3 of="s of wall time" all
    [[ -s $timings ]] || { echo "no timings recorded (no adapter call reached the GPU, or no adapter was dropped)"; return; }
    all=$wall
    if [[ -n $results && -s $results ]]; then
        all=$(grep '"record":"check"' "$results" | grep -o '"seconds":[0-9.e+-]*' \
            | awk -F: '{s += $2} END {printf "%.3f", s + 0}')
        of="s summed over the checks"
    fi
    awk -v k="$(sum_field "$timings" kernel_s)" -v u="$(sum_field "$timings" upload_s)" \
        -v d="$(sum_field "$timings" download_s)" -v c="$(sum_field "$timings" compile_s)" \
        -v t="$(sum_field "$timings" total_s)" -v e="$(sum_field "$timings" elements)" \
        -v all="$all" -v of="$of" 'BEGIN {
        host = all - t; if (host < 0) host = 0; if (all <= 0) all = 1
        printf "kernels %.2fs (%.1f%%), transfers %.2fs (%.1f%%), NVRTC %.2fs (%.1f%%), rest of the adapter %.2fs, host (oracle, inputs) %.2fs (%.1f%%) of %.2f%s; %.0f elements on the GPU\n",
            k, 100 * k / all, u + d, 100 * (u + d) / all, c, 100 * c / all, t - k - u - d - c, host, 100 * host / all, all, of, e }'
}

# Environment.
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -a)"
    echo "mode: $([[ $dry_run -eq 1 ]] && echo dry run || echo GPU run)"
    echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-}"
    echo "nvrtc dir: ${nvrtc_dir:-<loader default>}"
    ldd --version 2>&1 | head -1
    command -v nvidia-smi >/dev/null && nvidia-smi
} >"$work/environment.txt" 2>&1
gpu_line=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>/dev/null | head -1)

# 0. What was carried.
carried=$(bytes_of "$bin_dir")
if [[ $carried -le $((max_carry_mib << 20)) ]]; then
    record carry pass 0 "$(mib "$carried") MiB of binaries in $bin_dir (limit $max_carry_mib MiB)"
else
    record carry fail 0 "$(mib "$carried") MiB of binaries in $bin_dir, over $max_carry_mib MiB"
fi

# 1. opspec-cuda's own tests, GPU tests included; a `skipped:` line means no GPU was usable.
# A dry run leaves out the NVRTC test (its compile time; cargo test runs it beforehand).
dry_skip=()
[[ $dry_run -eq 1 ]] && dry_skip=(--skip every_kernel_compiles_with_nvrtc)
if run_step cuda-tests 120 "$cuda_tests" --test-threads=8 --nocapture "${dry_skip[@]}"; then
    log=$work/cuda-tests.log
    result=$(grep -E '^test result:' "$log" | tail -1)
    skipped=$(grep -c '^skipped:' "$log")
    nvrtc=$(grep -m1 '^NVRTC' "$log")
    if [[ $rc -ne 0 ]]; then
        record cuda-tests fail "$secs" "exit $rc; ${result:-no result line}"
    elif [[ $skipped -gt 0 ]]; then
        gpu_skip cuda-tests "$secs" "$skipped GPU tests skipped ($(grep -m1 '^skipped:' "$log" | sed 's/^skipped: //')); ${result}"
    else
        record cuda-tests pass "$secs" "$result; ${nvrtc:-NVRTC test not run}"
    fi
fi

# 2. Bandwidth: f32 add of 2^28 elements against a device-to-device copy (target: >= 90 %).
if run_step bandwidth 60 "$bandwidth"; then
    grep -E '^\{' "$work/bandwidth.log" | tail -1 >"$work/bandwidth.json"
    line=$(grep -E '^(f32 add|skipped)' "$work/bandwidth.log" | tail -1)
    if [[ $rc -eq 0 && -s $work/bandwidth.json ]]; then
        record bandwidth pass "$secs" "$line"
    elif [[ $rc -eq 2 && $line == skipped* ]]; then
        gpu_skip bandwidth "$secs" "$line"
    else
        record bandwidth fail "$secs" "exit $rc; ${line:-no output}"
    fi
fi

# 3. Every suite against both CUDA adapters in one process (they share the compiled kernels).
export OPSPEC_CUDA_TIMINGS=$work/run-timings.jsonl
allow=()
[[ $dry_run -eq 1 ]] && allow=(--allow-skips)
if run_step run 170 "$opspec" run --adapter cuda --adapter cuda-deterministic --no-tables --out "$work/run" "${allow[@]}"; then
    what=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/run.log" | tail -1)
    passed=$(count "$what" passed) failed=$(count "$what" failed) skipped=$(count "$what" skipped)
    split=$(split_line "$work/run-timings.jsonl" "$work/run/results.jsonl" "$secs")
    echo "time split: $split" >>"$work/run.log"
    if [[ $rc -eq 0 && ${passed:-0} -gt 0 ]]; then
        record run pass "$secs" "$what; $split"
    elif [[ $rc -eq 0 && ${failed:-1} -eq 0 && ${skipped:-0} -gt 0 ]]; then
        gpu_skip run "$secs" "$what (every check skipped)"
    else
        record run fail "$secs" "exit $rc; ${what:-no summary line}"
    fi
fi

# 4. The Python libraries on the GPU: python_step NAME PROBE SPEC runs a slice of the array-api
# suite through `--adapter NAME=python:SPEC` when PY runs PROBE (the library is there and sees a
# GPU); skipped, saying so, when not. The library's own deviations (exit 1) are its report's news,
# not this check's failure.
python_filter='*:{add,multiply,divide,exp,sqrt,equal}:{f16,f32,f64}:*'
python_step() {
    local name=$1 probe=$2 spec=$3 what
    if ! "$python" -c "$probe" >"$work/$name-probe.log" 2>&1; then
        record "$name" skip 0 "$python cannot run \`$probe\` ($(tail -1 "$work/$name-probe.log"))"
        return
    fi
    run_step "$name" 40 "$opspec" run --adapter "$name=python:$spec python=$python" --suite array-api \
        --no-tables --filter "$python_filter" --out "$work/$name" || return
    what=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/$name.log" | tail -1)
    if [[ $rc -le 1 && -n $what ]]; then
        record "$name" pass "$secs" "$what (exit $rc)"
    else
        record "$name" fail "$secs" "exit $rc; ${what:-no summary line}"
    fi
}
python_step torch-cuda 'import torch; assert torch.cuda.is_available(), "no CUDA device"' "torch device=cuda:0"
python_step jax-cuda 'import jax; print(jax.devices("cuda"))' "jax device=cuda:0 x64=1"
python_step cupy 'import cupy, array_api_compat; cupy.zeros(1)' "module=array_api_compat.cupy"

# optional_step NAME FLAG WHAT CAP ARGS...: `opspec run FLAG ARGS...` when `opspec run --help`
# lists FLAG, with a timings file of its own (the split between the GPU, transfers and the
# host); skipped, saying so, when this opspec has no such flag.
optional_step() {
    local name=$1 flag=$2 what=$3 cap=$4 last split
    shift 4
    if ! "$opspec" run --help 2>/dev/null | grep -q -e "$flag"; then
        record "$name" skip 0 "this opspec has no $what (probed \`opspec run --help\` for $flag)"
        return
    fi
    export OPSPEC_CUDA_TIMINGS=$work/$name-timings.jsonl
    run_step "$name" "$cap" "$opspec" run "$flag" --allow-skips "$@" || return
    split=$(split_line "$OPSPEC_CUDA_TIMINGS" "" "$secs")
    last=$(grep -v '^\s*$' "$work/$name.log" | tail -1)
    if [[ $rc -ne 0 ]]; then
        record "$name" fail "$secs" "exit $rc; $last"
    elif [[ -s $OPSPEC_CUDA_TIMINGS ]]; then
        record "$name" pass "$secs" "$last; $split"
    else
        gpu_skip "$name" "$secs" "$last; $split"
    fi
}

# 5. Exhaustive f16 add (2^32 pairs) through cuda, reference on the host.
# shellcheck disable=SC2206 # the arguments are meant to be split
sweep=(${sweep_args:---adapter cuda --filter array-api:cuda:add:f16:exhaustive --out $work/sweep})
optional_step sweep --exhaustive "exhaustive sweep" 120 "${sweep[@]}"

# 6. The large size/layout sweep (sizes up to 2^24 + 1) against both CUDA adapters, f32 add;
# step 3's run already holds the small layout checks of every operation.
optional_step generator --layouts-large "large size/layout sweep" 60 \
    --adapter cuda --adapter cuda-deterministic --suite array-api --filter '*:add:f32:layouts-large' \
    --out "$work/generator"
unset OPSPEC_CUDA_TIMINGS

# Summary.
json_str() {
    local s
    s=$(printf '%s' "$1" | tr '\t\n' '  ' | tr -d '\000-\037')
    s=${s//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}
failed=0
for status in "${statuses[@]}"; do
    [[ $status == pass || $status == skip ]] || failed=1
done
write_summary() {
    {
        echo "opspec GPU check ($([[ $dry_run -eq 1 ]] && echo 'dry run, no GPU parts' || echo 'GPU run')), $(date -u +%FT%TZ), $((SECONDS - deadline + budget)) s of $budget"
        echo "GPU: ${gpu_line:-none (nvidia-smi not found)}; NVRTC: ${nvrtc_dir:-<loader default>}"
        for i in "${!names[@]}"; do
            printf '%-10s %-4s %4ss  %s\n' "${names[$i]}" "${statuses[$i]}" "${seconds[$i]}" "${notes[$i]}"
        done
        echo "result: $([[ $failed -eq 0 ]] && echo passed || echo FAILED); logs, reports and results in gpu-check.tar.gz"
    } >"$out/summary.txt"
    {
        printf '{\n  "dry_run": %s,\n  "gpu": %s,\n  "nvrtc_dir": %s,\n  "passed": %s,\n' \
            "$([[ $dry_run -eq 1 ]] && echo true || echo false)" "$(json_str "$gpu_line")" \
            "$(json_str "$nvrtc_dir")" "$([[ $failed -eq 0 ]] && echo true || echo false)"
        printf '  "bandwidth": %s,\n  "steps": [\n' "$([[ -s $work/bandwidth.json ]] && cat "$work/bandwidth.json" || echo null)"
        for i in "${!names[@]}"; do
            printf '    {"name": %s, "status": %s, "seconds": %s, "note": %s}%s\n' "$(json_str "${names[$i]}")" \
                "$(json_str "${statuses[$i]}")" "${seconds[$i]}" "$(json_str "${notes[$i]}")" \
                "$([[ $i -lt $((${#names[@]} - 1)) ]] && echo ,)"
        done
        printf '  ]\n}\n'
    } >"$out/summary.json"
}
write_summary
cp "$out/summary.txt" "$out/summary.json" "$work/"
tar -czf "$out/gpu-check.tar.gz" -C "$work" . 2>/dev/null || record archive fail 0 "tar failed"
if [[ $(bytes_of "$out/gpu-check.tar.gz") -gt $((max_file_mib << 20)) ]]; then
    # The raw results are the bulk: keep the logs and the HTML reports.
    tar -czf "$out/gpu-check.tar.gz" -C "$work" --exclude='*.jsonl' . 2>/dev/null
    record archive pass 0 "packed without the results.jsonl files (over $max_file_mib MiB with them)"
fi

# What goes back: at most $max_files files of at most $max_file_mib MiB.
files=$(find "$out" -type f | wc -l)
largest=$(find "$out" -type f -printf '%s\n' | sort -n | tail -1)
if [[ $files -gt $max_files || ${largest:-0} -gt $((max_file_mib << 20)) ]]; then
    record outputs fail 0 "$files files in $out, the largest $(mib "${largest:-0}") MiB (limits: $max_files, $max_file_mib MiB)"
else
    record outputs pass 0 "$files files in $out, the largest $(mib "${largest:-0}") MiB"
fi
for status in "${statuses[@]}"; do
    [[ $status == pass || $status == skip ]] || failed=1
done
write_summary
echo
cat "$out/summary.txt"
exit $failed
