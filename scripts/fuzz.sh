#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets of fuzz/ (cargo fuzz, libFuzzer) for SECONDS each:
#
#   scripts/fuzz.sh 18                 # the short run (6 targets: under 2 minutes of fuzzing)
#   scripts/fuzz.sh 1800               # the long run docs/TESTING.md ("Fuzzing") reports
#   scripts/fuzz.sh 600 pattern frame  # some targets only
#
# Installs cargo-fuzz if missing (into ~/.cache/opspec-cargo-fuzz), builds the targets once on
# the stable toolchain without a sanitizer (`--sanitizer none`: AddressSanitizer needs nightly's
# -Zsanitizer; the targets fuzz safe Rust, whose bugs are panics, which libFuzzer catches
# without it), with debug assertions and overflow checks on. Each target starts from its
# committed seeds (fuzz/corpus/TARGET, read only) and the inputs earlier runs added
# (fuzz/work/TARGET, not committed), with its dictionary of tokens where fuzz/dict/TARGET.dict
# is one. Per target it prints the seconds, executions, coverage
# (libFuzzer's cov: edges, ft: features) and corpus entries. A crash, panic, timeout or
# out-of-memory input is written to fuzz/artifacts/TARGET/; the script names each and exits 1
# after the other targets ran.
#
# OPSPEC_FUZZ_ASAN=1 builds with AddressSanitizer instead, on nightly (`cargo +nightly fuzz`);
# without a nightly toolchain it says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(catalog pattern check_id frame eval_operand results)
fi

cargo=(cargo)
sanitizer=none
if [ "${OPSPEC_FUZZ_ASAN:-0}" = 1 ]; then
    if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        echo "fuzz: OPSPEC_FUZZ_ASAN=1 needs a nightly toolchain (AddressSanitizer is -Zsanitizer), and there is none: skipped"
        exit 0
    fi
    cargo=(cargo +nightly)
    sanitizer=address
fi

tools="${HOME}/.cache/opspec-cargo-fuzz"
export PATH="$tools/bin:$PATH"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz --version 0.13.2 --root "$tools"
fi

# -O -a: optimised, with debug assertions and overflow checks (cargo fuzz's default pairing).
flags=(-O -a --sanitizer "$sanitizer")
started=$SECONDS
"${cargo[@]}" fuzz build "${flags[@]}"
echo "fuzz: built in $((SECONDS - started)) s"

failed=()
for target in "${targets[@]}"; do
    work="fuzz/work/$target"
    artifacts="fuzz/artifacts/$target"
    mkdir -p "$work" "$artifacts"
    log="$work.log"
    # -timeout: an input slower than 10 s is a finding; -rss_limit_mb: so is one that needs
    # 2 GiB. New inputs go to $work, the first folder; the seeds are only read.
    dict=()
    if [ -f "fuzz/dict/$target.dict" ]; then
        dict=(-dict="fuzz/dict/$target.dict")
    fi
    status=0
    "${cargo[@]}" fuzz run "${flags[@]}" "$target" "$work" "fuzz/corpus/$target" -- \
        -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" "${dict[@]}" >"$log" 2>&1 || status=$?
    # The last status line (`#N DONE cov: C ft: F corp: E/Sb …`) and the final stats.
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    echo "fuzz: $target: ${seconds} s, ${execs:-?} executions (${rate:-?}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} entries"
    if [ "$status" -ne 0 ]; then
        found=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tr '\n' ' ')
        echo "fuzz: $target FAILED (exit $status): ${found:-no artifact written}; the log is $log:" >&2
        grep -E -A12 "panicked at|ERROR: libFuzzer|SUMMARY" "$log" | head -n 40 >&2 || tail -n 40 "$log" >&2
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]} (inputs under fuzz/artifacts/; rerun one with \`cargo fuzz run ${flags[*]} TARGET FILE\`)" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, no crash"
