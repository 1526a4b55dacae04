#!/usr/bin/env bash
# The opspec wheel as a Python user gets it (docs/PYTHON.md):
#   1. builds the wheel with maturin (release, into $CARGO_TARGET_DIR/wheels; the target
#      directory is shared, so after `cargo test --release` only the binary is linked again);
#   2. makes a fresh venv in a temporary folder outside the repository, with a PATH that holds
#      no Rust toolchain and no build tree, and installs the wheel and NumPy there;
#   3. runs `opspec --version`, `python -m opspec --version` and the first-report command of
#      docs/PYTHON.md against NumPy (timed with the install: the "under two minutes" figure);
#   4. copies examples/python-project there and runs its tests through the pytest plugin:
#      exactly 1 failed (a stale expectations entry), 1 xfailed (the listed deviation), the rest
#      passed; a `-k` selection runs only the selected checks; a missing binary is a usage error.
# Needs maturin (MATURIN=path, else on PATH, else ~/.cache/opspec-wheel-tools/bin/maturin; .ci/run
# installs it) and network or pip cache access for numpy and pytest. Without maturin it says
# so and exits 0. Prints each part's time on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
python=${PYTHON:-python3}

maturin=${MATURIN:-}
if [ -z "$maturin" ]; then
    if command -v maturin >/dev/null 2>&1; then
        maturin=$(command -v maturin)
    elif [ -x "$HOME/.cache/opspec-wheel-tools/bin/maturin" ]; then
        maturin="$HOME/.cache/opspec-wheel-tools/bin/maturin"
    else
        echo "wheel-check: skipped: no maturin (pip install maturin, or run .ci/run)"
        exit 0
    fi
fi

# The crate's version, which the wheel must carry (maturin reads it from Cargo.toml).
crate_version=$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)

started=$SECONDS
wheels="$CARGO_TARGET_DIR/wheels"
rm -f "$wheels"/opspec-*.whl
"$maturin" build --release --out "$wheels"
wheel=$(ls "$wheels"/opspec-*.whl)
build=$((SECONDS - started))
case "$(basename "$wheel")" in
    "opspec-$crate_version-"*) ;;
    *) echo "wheel-check: $wheel does not carry the crate's version $crate_version" >&2; exit 1 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$wheel" "$work/"
cp -r examples/python-project "$work/project"
rm -rf "$work/project/opspec-report"
cd "$work"

# Nothing of the build: no cargo, no target/, no PYTHONPATH, no OPSPEC_* overrides.
clean_env=(env -u OPSPEC_BINARY -u OPSPEC_PYTHON -u PYTHONPATH -u CARGO_TARGET_DIR -u VIRTUAL_ENV
           PATH="$work/venv/bin:/usr/local/bin:/usr/bin:/bin")
"$python" -m venv "$work/venv"
if "${clean_env[@]}" sh -c 'command -v cargo' >/dev/null 2>&1; then
    echo "wheel-check: cargo is on the clean PATH ($("${clean_env[@]}" sh -c 'command -v cargo')): the check would not show a machine without Rust" >&2
    exit 1
fi

# The documented first report: install, then one command (docs/PYTHON.md, "A first report").
started=$SECONDS
"${clean_env[@]}" pip install -q "$work/$(basename "$wheel")" numpy
installed=$((SECONDS - started))
test "$("${clean_env[@]}" opspec --version)" = "opspec $crate_version"
test "$("${clean_env[@]}" python -m opspec --version)" = "opspec $crate_version"
test "$("${clean_env[@]}" python -c 'import opspec; print(opspec.version())')" = "$crate_version"
first_started=$SECONDS
"${clean_env[@]}" opspec run --adapter python:numpy --suite array-api --out opspec-report | tail -n 3
first=$((SECONDS - first_started))
test -s opspec-report/index.html
test -s opspec-report/junit.xml
first_total=$((SECONDS - started))
echo "wheel-check: pip install of the wheel and numpy ${installed} s, first NumPy report ${first} s: ${first_total} s in all"

# The example project's tests, through the plugin, as its CI would run them.
started=$SECONDS
"${clean_env[@]}" pip install -q pytest
cd "$work/project"
set +e
"${clean_env[@]}" python -m pytest -p no:cacheprovider --junitxml=junit.xml -rfx
status=$?
set -e
if [ "$status" -ne 1 ]; then
    echo "wheel-check: the example's pytest exited $status; expected 1 (its one stale expectations entry)" >&2
    exit 1
fi
"${clean_env[@]}" python - <<'PY'
import json
import xml.etree.ElementTree as ET

cases = ET.parse("junit.xml").getroot().iter("testcase")
outcome = {}
for case in cases:
    kinds = [child.tag if child.tag != "skipped" else child.get("type", "skipped") for child in case
             if child.tag in ("failure", "error", "skipped")]
    outcome[case.get("name")] = kinds[0] if kinds else "passed"
failed = sorted(n for n, k in outcome.items() if k in ("failure", "error"))
xfailed = sorted(n for n, k in outcome.items() if k == "pytest.xfail")
passed = [n for n, k in outcome.items() if k == "passed"]
assert failed == ["array-api:tinyarray:add:f32+f64:f32-f64"], failed
assert xfailed == ["array-api:tinyarray:add:i32+i64:i32-i64"], xfailed
assert "test_sqrt" in passed and len(passed) == len(outcome) - 2, outcome
checks = [json.loads(line) for line in open("opspec-report/results.jsonl")]
checks = [r for r in checks if r.get("record") == "check"]
assert len(checks) == len(outcome) - 2, (len(checks), len(outcome))
print(f"wheel-check: example: {len(passed)} passed, 1 failed ({failed[0]}), 1 xfailed ({xfailed[0]}); "
      f"JUnit and opspec-report/index.html written")
PY
test -s opspec-report/index.html

# -k: only the selected checks run.
"${clean_env[@]}" python -m pytest -p no:cacheprovider -q -k 'sqrt and f64' >/dev/null
"${clean_env[@]}" python - <<'PY'
import json
checks = [json.loads(line) for line in open("opspec-report/results.jsonl")]
ids = sorted(r["id"] for r in checks if r.get("record") == "check")
assert len(ids) == 7 and all(":sqrt:f64:" in i for i in ids), ids
print(f"wheel-check: -k 'sqrt and f64' ran {len(ids)} checks, each selected")
PY

# A plugin that cannot find its program says so (pytest's usage error, exit 4).
set +e
message=$("${clean_env[@]}" OPSPEC_BINARY="$work/no-such-opspec" python -m pytest -p no:cacheprovider -q 2>&1)
status=$?
set -e
if [ "$status" -ne 4 ] || ! grep -q "OPSPEC_BINARY=$work/no-such-opspec is not an executable file" <<<"$message"; then
    echo "wheel-check: a missing opspec program gave exit $status and: $message" >&2
    exit 1
fi
example=$((SECONDS - started))

echo "wheel-check: build ${build} s, install + first NumPy report ${first_total} s (install ${installed} s, report ${first} s), example project ${example} s; wheel $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
