#!/usr/bin/env bash
# Runs every shell command the README shows, as a reader of a fresh clone would:
#   1. copies the files git tracks (with their uncommitted edits; a deleted one is left out)
#      into $CARGO_TARGET_DIR/readme-check/clone, keeping their and their folders' modification
#      times;
#   2. takes every line of README.md's ```sh blocks as one command (a `#` after a blank starts
#      a comment; a line ending in `\` continues on the next);
#   3. runs each there with bash, in order, with CARGO_TARGET_DIR set to the caller's target
#      directory (default: target/ of this checkout), so that what is built is built once;
#      `cargo run --release -- ARGS` runs this checkout's release binary (built once, here,
#      if it is missing) with ARGS instead of building the copy's;
#   4. fails naming the first command that exits non-zero, with the end of its output (a
#      command's output is shown only when it fails).
# Skipped, each saying why: .ci/run and scripts/test-all.sh (the test command and what it calls,
# which run this check), and a
# command with a `python:` adapter where no Python with NumPy is found ($OPSPEC_PYTHON, else the
# venv .ci/run makes at $HOME/.cache/opspec-python, else python3).
#   scripts/readme-check.sh [--list] [README]   (default: README.md; --list: print the commands)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
list=false
if [[ ${1:-} == --list ]]; then
    list=true
    shift
fi
readme=${1:-README.md}
target=${CARGO_TARGET_DIR:-$repo/target}
case $target in /*) ;; *) target=$repo/$target ;; esac
export CARGO_TARGET_DIR=$target

# The copy lives in the target directory and stays there after the check: when a command
# builds in it, build.rs embeds the copy's catalog files by absolute path, and a later build of
# this checkout that reuses that build's output must still find them. Each run starts it anew.
clone=$target/readme-check/clone
rm -rf "$clone"
mkdir -p "$clone"

# The tracked files that exist, with their modification times, and the same times on every
# folder above them: cargo compares the newest time below each folder build.rs watches with its
# last run, and a newer folder would rebuild the crate for nothing.
declare -A folders=()
files=()
while IFS= read -r -d '' f; do
    [[ -e $f || -L $f ]] || continue
    files+=("$f")
    d=$f
    while [[ $d == */* ]]; do
        d=${d%/*}
        folders[$d]=1
    done
done < <(git ls-files -z)
printf '%s\0' "${files[@]}" | tar -C "$repo" --null -T - -cf - | tar -C "$clone" -xf -
for d in "${!folders[@]}"; do
    touch -h -r "$repo/$d" "$clone/$d"
done
touch -h -r "$repo" "$clone"

# The commands: the lines of the ```sh blocks, comments and blank lines left out.
commands=()
in_block=false
pending=""
while IFS= read -r line || [[ -n $line ]]; do
    if ! $in_block; then
        [[ $line =~ ^\`\`\`sh[[:space:]]*$ ]] && in_block=true
        continue
    fi
    if [[ $line =~ ^\`\`\` ]]; then
        in_block=false
        continue
    fi
    line=$(sed -E 's/(^|[[:space:]])#.*$//; s/[[:space:]]+$//' <<<"$line")
    if [[ $line == *\\ ]]; then
        pending+="${line%\\} "
        continue
    fi
    line=$pending$line
    pending=""
    [[ -n ${line//[[:space:]]/} ]] && commands+=("$line")
done < "$clone/$readme"
if [[ ${#commands[@]} -eq 0 ]]; then
    echo "readme-check: no commands in the sh blocks of $readme" >&2
    exit 1
fi
if $list; then
    printf '%s\n' "${commands[@]}"
    exit 0
fi

# The interpreter a `python:` adapter gets, as tests/python.rs finds it.
python_with_numpy() {
    local p
    for p in "${OPSPEC_PYTHON:-}" "$HOME/.cache/opspec-python/bin/python" python3; do
        [[ -n $p ]] && "$p" -c 'import numpy' >/dev/null 2>&1 && { echo "$p"; return 0; }
    done
    return 1
}

# The binary every `cargo run --release --` of the README means, built once and frozen for the
# check (a command that builds in the copy writes target/release/opspec again).
(cd "$repo" && cargo build --release --bin opspec -q)
binary=$target/readme-check/opspec
cp "$target/release/opspec" "$binary"
shim="cargo() { if [[ \$# -ge 3 && \$1 == run && \$2 == --release && \$3 == -- ]]; then shift 3; \"$binary\" \"\$@\"; else command cargo \"\$@\"; fi; }"

# Each command's output goes to this file, shown when the command fails.
log=$target/readme-check/last-command.log
started=$SECONDS
ran=0
for command in "${commands[@]}"; do
    case $command in
        .ci/run* | scripts/test-all.sh*)
            echo "readme-check: skipped \`$command\`: it is the test command, and it runs this check"
            continue
            ;;
    esac
    python=""
    if [[ $command == *python:* ]]; then
        if ! python=$(python_with_numpy); then
            echo "readme-check: skipped \`$command\`: no Python with NumPy (\$OPSPEC_PYTHON, $HOME/.cache/opspec-python or python3)"
            continue
        fi
    fi
    echo "readme-check: \$ $command"
    t=$SECONDS
    status=0
    (cd "$clone" && if [[ -n $python ]]; then export OPSPEC_PYTHON=$python; fi && bash -c "$shim; $command") \
        >"$log" 2>&1 </dev/null || status=$?
    if [[ $status -ne 0 ]]; then
        tail -n 100 "$log" >&2
        echo "readme-check: FAILED (exit $status) after $((SECONDS - t)) s: $command (its whole output: $log)" >&2
        exit 1
    fi
    echo "readme-check: ok in $((SECONDS - t)) s"
    ran=$((ran + 1))
done
echo "readme-check: ${ran} of ${#commands[@]} commands of $readme passed in $((SECONDS - started)) s"
