#!/usr/bin/env bash
# GPU check for opspec's CUDA adapter, for a machine with an NVIDIA driver but no Rust toolchain
# and no network. It runs release binaries built elsewhere and writes summary.txt, summary.json
# and one log per step to OUT_DIR.
#
#   Here (with the toolchain), build and collect the binaries into one folder:
#     cargo build --release --bin opspec
#     cargo test --release --no-run --test conformance
#     cargo test --release --no-run -p opspec-cuda
#     cargo build --release -p opspec-cuda --example bandwidth
#     scripts/gpu-check.sh pack gpu-bin      # newest builds from $CARGO_TARGET_DIR or target/ (or: pack DEST TARGET_DIR)
#   There:
#     scripts/gpu-check.sh [options] OUT_DIR
#   options:
#     --bin-dir DIR      where the binaries are (a pack folder or a cargo target/release); default gpu-bin
#     --opspec PATH      the opspec CLI            (default: DIR/opspec)
#     --conformance PATH the conformance test binary (default: DIR/conformance or DIR/deps/conformance-*)
#     --cuda-tests PATH  opspec-cuda's test binary (default: DIR/opspec_cuda or DIR/deps/opspec_cuda-*)
#     --bandwidth PATH   the bandwidth example     (default: DIR/bandwidth or DIR/examples/bandwidth)
#     --nvrtc-dir DIR    directory holding libnvrtc.so.13 (default: searched, see find_nvrtc)
#     --adapters LIST    adapters for `opspec run` (default: "cuda cuda-deterministic")
#     --timeout SECONDS  limit per step (default 180)
# Exit status: 0 when every step passed, 1 otherwise. A missing binary is a failed step.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }

# pack DEST [TARGET_DIR]: copy the newest build of each binary under stable names.
if [[ ${1:-} == pack ]]; then
    [[ $# -ge 2 ]] || usage
    dest=$2 release=${3:-${CARGO_TARGET_DIR:-$(dirname "$0")/../target}}/release
    mkdir -p "$dest"
    newest() { ls -t "$@" 2>/dev/null | while read -r f; do
        [[ -f $f && -x $f && $f != *.so ]] && { echo "$f"; break; }; done; }
    for pair in "opspec:$release/opspec" "conformance:$release/deps/conformance-*" \
        "opspec_cuda:$release/deps/opspec_cuda-*" "bandwidth:$release/examples/bandwidth"; do
        name=${pair%%:*}
        # shellcheck disable=SC2086 # the pattern is meant to be expanded
        src=$(newest ${pair#*:})
        if [[ -n $src ]]; then cp "$src" "$dest/$name" && echo "$name <- $src"; else echo "$name: not built" >&2; fi
    done
    exit 0
fi

bin_dir=gpu-bin opspec='' conformance='' cuda_tests='' bandwidth='' nvrtc_dir='' out=''
adapters="cuda cuda-deterministic" step_timeout=180
while [[ $# -gt 0 ]]; do
    case $1 in
        --bin-dir) bin_dir=$2; shift 2 ;;
        --opspec) opspec=$2; shift 2 ;;
        --conformance) conformance=$2; shift 2 ;;
        --cuda-tests) cuda_tests=$2; shift 2 ;;
        --bandwidth) bandwidth=$2; shift 2 ;;
        --nvrtc-dir) nvrtc_dir=$2; shift 2 ;;
        --adapters) adapters=$2; shift 2 ;;
        --timeout) step_timeout=$2; shift 2 ;;
        -h | --help) usage ;;
        -*) echo "unknown option $1" >&2; usage ;;
        *) out=$1; shift ;;
    esac
done
[[ -n $out ]] || usage
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

# The newest executable among the candidates (exact names first).
find_bin() {
    local f
    for f in "$@"; do
        [[ -f $f && -x $f ]] && { echo "$f"; return; }
    done
}
newest_glob() { ls -t "$@" 2>/dev/null | while read -r f; do [[ -x $f ]] && { echo "$f"; break; }; done; }
[[ -n $opspec ]] || opspec=$(find_bin "$bin_dir/opspec")
[[ -n $conformance ]] || conformance=$(find_bin "$bin_dir/conformance" "$(newest_glob "$bin_dir"/deps/conformance-*)")
[[ -n $cuda_tests ]] || cuda_tests=$(find_bin "$bin_dir/opspec_cuda" "$(newest_glob "$bin_dir"/deps/opspec_cuda-*)")
[[ -n $bandwidth ]] || bandwidth=$(find_bin "$bin_dir/bandwidth" "$bin_dir/examples/bandwidth")

# NVRTC: cudarc loads libnvrtc.so / .so.13 / .so.12 through the dynamic loader; a CUDA toolkit
# often keeps it outside the loader's default path.
find_nvrtc() {
    local d
    for d in "${CUDA_HOME:-}/lib64" "${CUDA_PATH:-}/lib64" /usr/local/cuda/lib64 \
        /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64 /opt/cuda/lib64; do
        compgen -G "$d/libnvrtc.so*" >/dev/null && { echo "$d"; return; }
    done
}
[[ -n $nvrtc_dir ]] || nvrtc_dir=$(find_nvrtc)
[[ -n $nvrtc_dir ]] && export LD_LIBRARY_PATH="$nvrtc_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

names=() statuses=() seconds=() notes=()
record() { names+=("$1"); statuses+=("$2"); seconds+=("$3"); notes+=("$4"); echo "[$2] $1: $4"; }

# run_step NAME LOG BINARY ARGS...: runs with the step timeout; sets rc and secs.
run_step() {
    local name=$1 log=$2 bin=$3
    shift 3
    if [[ -z $bin ]]; then
        record "$name" missing 0 "binary not found (see --help)"
        return 1
    fi
    local start=$SECONDS
    echo "== $name: $bin $*" | tee "$log"
    timeout --kill-after=10 "$step_timeout" "$bin" "$@" >>"$log" 2>&1
    rc=$?
    secs=$((SECONDS - start))
    [[ $rc -eq 124 || $rc -eq 137 ]] && echo "timed out after ${step_timeout}s" >>"$log"
    return 0
}

# Environment.
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -a)"
    echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-}"
    echo "nvrtc dir: ${nvrtc_dir:-<loader default>}"
    command -v nvidia-smi >/dev/null && nvidia-smi
} >"$out/environment.txt" 2>&1
gpu_line=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>/dev/null | head -1)

# 1. opspec-cuda's own tests, GPU tests included; a `skipped:` line means no GPU was usable.
if run_step cuda-tests "$out/cuda-tests.log" "$cuda_tests" --test-threads=4 --nocapture; then
    result=$(grep -E '^test result:' "$out/cuda-tests.log" | tail -1)
    skipped=$(grep -m1 '^skipped:' "$out/cuda-tests.log")
    if [[ $rc -ne 0 ]]; then
        record cuda-tests fail "$secs" "exit $rc; ${result:-no result line}"
    elif [[ -n $skipped ]]; then
        record cuda-tests fail "$secs" "GPU tests did not run: $skipped"
    else
        record cuda-tests pass "$secs" "$result; $(grep -m1 '^NVRTC' "$out/cuda-tests.log")"
    fi
fi

# 2. Bandwidth: f32 add of 2^28 elements against a device-to-device copy.
if run_step bandwidth "$out/bandwidth.log" "$bandwidth"; then
    grep -E '^\{' "$out/bandwidth.log" | tail -1 >"$out/bandwidth.json"
    line=$(grep -E '^(f32 add|skipped)' "$out/bandwidth.log" | tail -1)
    if [[ $rc -eq 0 && -s $out/bandwidth.json ]]; then
        record bandwidth pass "$secs" "$line"
    else
        record bandwidth fail "$secs" "exit $rc; ${line:-no output}"
    fi
fi

# 3. The harness's conformance tests (every suite x built-in adapters).
if run_step conformance "$out/conformance.log" "$conformance"; then
    result=$(grep -E '^test result:' "$out/conformance.log" | tail -1)
    if [[ $rc -eq 0 ]]; then
        record conformance pass "$secs" "$result"
    else
        record conformance fail "$secs" "exit $rc; ${result:-no result line}"
    fi
fi

# 4. The CLI on each CUDA adapter; its report goes to OUT_DIR/run-ADAPTER.
for adapter in $adapters; do
    if run_step "run-$adapter" "$out/run-$adapter.log" "$opspec" run --adapter "$adapter" --out "$out/run-$adapter"; then
        tail_line=$(grep -v '^\s*$' "$out/run-$adapter.log" | tail -1)
        if [[ $rc -eq 0 ]]; then
            record "run-$adapter" pass "$secs" "$tail_line"
        else
            record "run-$adapter" fail "$secs" "exit $rc; $tail_line"
        fi
    fi
done

# Summary.
json_str() {
    local s
    s=$(printf '%s' "$1" | tr '\t\n' '  ' | tr -d '\000-\037')
    s=${s//\\/\\\\}
    printf '"%s"' "${s//\"/\\\"}"
}
failed=0
{
    echo "opspec GPU check, $(date -u +%FT%TZ)"
    echo "GPU: ${gpu_line:-unknown (nvidia-smi not found)}"
    echo "NVRTC directory: ${nvrtc_dir:-<loader default>}"
    for i in "${!names[@]}"; do
        printf '%-26s %-8s %4ss  %s\n' "${names[$i]}" "${statuses[$i]}" "${seconds[$i]}" "${notes[$i]}"
        [[ ${statuses[$i]} == pass ]] || failed=1
    done
} >"$out/summary.txt"
{
    printf '{\n  "gpu": %s,\n  "nvrtc_dir": %s,\n  "passed": %s,\n' \
        "$(json_str "$gpu_line")" "$(json_str "$nvrtc_dir")" "$([[ $failed -eq 0 ]] && echo true || echo false)"
    printf '  "bandwidth": %s,\n  "steps": [\n' "$([[ -s $out/bandwidth.json ]] && cat "$out/bandwidth.json" || echo null)"
    for i in "${!names[@]}"; do
        printf '    {"name": %s, "status": %s, "seconds": %s, "note": %s}%s\n' "$(json_str "${names[$i]}")" \
            "$(json_str "${statuses[$i]}")" "${seconds[$i]}" "$(json_str "${notes[$i]}")" \
            "$([[ $i -lt $((${#names[@]} - 1)) ]] && echo ,)"
    done
    printf '  ]\n}\n'
} >"$out/summary.json"
echo
cat "$out/summary.txt"
exit $failed
