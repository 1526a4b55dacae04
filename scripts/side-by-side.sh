#!/usr/bin/env bash
# Run array-api-tests' element-wise special cases and opspec's array-api suite on one library and
# print both input counts (docs/studies/ARRAY_API_TESTS.md says how each is counted).
#   scripts/side-by-side.sh PATH_TO_ARRAY_API_TESTS [numpy|torch|jax]
# AAT_PY: a Python with pytest, pytest-json-report, hypothesis, ndindex (and the library; for torch,
#   array-api-compat). OPSPEC_PY: the Python of opspec's worker (default: AAT_PY). OPSPEC: the
#   opspec binary (default target/release/opspec). OUT: where both write (default sbs-out).
# Extra opspec arguments (e.g. --filter 'array-api:jax:*:f64:*') go in OPSPEC_ARGS.
set -euo pipefail
AAT=$(cd "${1:?usage: $0 PATH_TO_ARRAY_API_TESTS [numpy|torch|jax]}" && pwd)
LIB=${2:-numpy}
AAT_PY=${AAT_PY:-python3}
OPSPEC_PY=${OPSPEC_PY:-$(command -v "$AAT_PY")}
OPSPEC=${OPSPEC:-target/release/opspec}
OUT=$(mkdir -p "${OUT:-sbs-out}" && cd "${OUT:-sbs-out}" && pwd)
case $LIB in
  numpy) MOD=numpy; ADAPTER="python:numpy python=$OPSPEC_PY" ;;
  torch) MOD=array_api_compat.torch; ADAPTER="torch=python:torch python=$OPSPEC_PY" ;;
  jax) MOD=jax.numpy; export JAX_ENABLE_X64=1; ADAPTER="jax=python:jax x64=1 python=$OPSPEC_PY" ;;
  *) echo "unknown library $LIB" >&2; exit 2 ;;
esac
echo "array-api-tests $(git -C "$AAT" rev-parse HEAD 2>/dev/null || echo '(not a git checkout)'), $LIB"
(cd "$AAT" && ARRAY_API_TESTS_MODULE=$MOD "$AAT_PY" -m pytest array_api_tests/test_special_cases.py \
  -k "test_unary or test_binary or test_iop" -p no:cacheprovider -q -rf --hypothesis-show-statistics \
  --hypothesis-seed=0 --json-report --json-report-file="$OUT/aat-$LIB.json") > "$OUT/aat-$LIB.log" 2>&1 || true
# shellcheck disable=SC2086
"$OPSPEC" run --adapter "$ADAPTER" --suite array-api --no-tables --out "$OUT/opspec-$LIB" ${OPSPEC_ARGS:-} \
  > "$OUT/opspec-$LIB.log" 2>&1 || true
python3 - "$OUT/aat-$LIB.log" "$OUT/aat-$LIB.json" "$OUT/opspec-$LIB/results.jsonl" <<'EOF'
import json, re, sys
log, rep, res = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
stats, cur = {}, None
for line in log.split("Hypothesis Statistics", 1)[-1].splitlines():
    m = re.match(r"^(array_api_tests/\S.*\]):$", line)
    if m:
        cur = m.group(1); stats.setdefault(cur, 0); continue
    m = re.search(r"(\d+) passing, (\d+) failing", line)
    if m and cur:
        stats[cur] += int(m.group(1)) + int(m.group(2))
tests = [t for t in rep["tests"] if t["outcome"] in ("passed", "failed")]
aat = sum(stats.get(t["nodeid"], 1) for t in tests)  # test_unary: one .example() draw each
failed = [t["nodeid"].split("::", 1)[1] for t in tests if t["outcome"] == "failed"]
checks = [json.loads(l) for l in open(res)]
checks = [r for r in checks if r["record"] == "check"]
ops = sum(r.get("inputs") or 0 for r in checks)
print(f"array-api-tests: {len(tests)} tests, {len(failed)} failed, {aat} inputs, {rep['duration']:.1f} s")
for f in failed:
    print("  FAILED", f)
bad = [(r["id"], r["status"]) for r in checks if r["status"] not in ("pass", "skip")]
print(f"opspec: {len(checks)} checks, {len(bad)} fail or known_deviation, {ops} inputs; ratio {ops / max(aat, 1):.0f}x")
for i, st in bad:
    print("  ", st, i)
EOF
