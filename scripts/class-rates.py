#!/usr/bin/env python3
"""Checking rate of `opspec run` per accuracy class, for one or more binaries back to back.

    python3 scripts/class-rates.py [--runs 3] OLD_BINARY NEW_BINARY

Issue 15's speed target asks for the rate of the default run (all suites, CPU adapter) and,
per accuracy class (exact, correctly rounded, approximate), the rate of one binary against
another's on the same checks, as the median of 3 runs of the CLI's own timing. For each
round, each class, and each binary in turn, this runs

    BINARY run --filter '*:{OPS}:*:*' --out TMP

where OPS are the operations whose table (specs/ of this checkout, the built-in catalog) has
that `accuracy`: the adapter checks and the table self-checks of those operations. Then it
runs the default `BINARY run` once per round. It prints the median of the inputs/s that the
CLI reports (`N inputs in S s (R inputs/s)`, the checks' time without loading the catalog),
and each binary's median over the first binary's.

With `--same-as BINARY` each class keeps only the operations BINARY lists (`BINARY list`) and
the real dtypes, so an older binary without some tables or the complex dtypes is compared on
its own operations.
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import tempfile

CLASSES = ["exact", "correctly_rounded", "approximate"]
REAL_DTYPES = ["f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
LINE = re.compile(r"; (\d+) inputs in ([0-9.]+) s \((\d+) inputs/s\)")


def ops_by_class(root):
    classes = {name: [] for name in CLASSES}
    for path in sorted(glob.glob(os.path.join(root, "specs", "**", "*.yaml"), recursive=True)):
        text = open(path, encoding="utf-8").read()
        op = re.search(r"^op:\s*(\S+)", text, re.M)
        accuracy = re.search(r"^accuracy:\s*(\S+)", text, re.M)
        if op and accuracy and accuracy.group(1) in classes:
            classes[accuracy.group(1)].append(op.group(1))
    return classes


def run(binary, args):
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([binary, "run", *args, "--out", out], capture_output=True, text=True)
    match = LINE.search(done.stderr + done.stdout)
    if not match:
        raise SystemExit(f"{binary} run {' '.join(args)}: no timing line (exit {done.returncode})")
    return int(match[1]), float(match[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--same-as", metavar="BINARY", help="only the operations BINARY lists, real dtypes")
    parser.add_argument("binaries", nargs="+")
    options = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    classes = ops_by_class(root)
    dtypes = "*"
    if options.same_as:
        listed = subprocess.run([options.same_as, "list"], capture_output=True, text=True, check=True).stdout
        known = {line.split(":")[2] for line in listed.split() if line.count(":") >= 3}
        classes = {name: sorted(set(ops) & known) for name, ops in classes.items()}
        dtypes = "{" + ",".join(REAL_DTYPES) + "}"
    sets = [(name, ["--filter", "*:{" + ",".join(ops) + "}:" + dtypes + ":*"]) for name, ops in classes.items()]
    sets.append(("default run", []))
    times = {(name, b): [] for name, _ in sets for b in options.binaries}
    inputs = {}
    for round_ in range(options.runs):
        load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
        print(f"round {round_ + 1} (load {load})", flush=True)
        for name, args in sets:
            for b in options.binaries:
                n, seconds = run(b, args)
                inputs[(name, b)] = n
                times[(name, b)].append(seconds)
                print(f"  {name:<18} {b}: {n} inputs in {seconds:.1f} s", flush=True)
    print(f"\n{'':<18} {'binary':<28} {'inputs':>10} {'median s':>9} {'inputs/s':>10} {'ratio':>6}")
    for name, _ in sets:
        first = None
        for b in options.binaries:
            median = statistics.median(times[(name, b)])
            rate = inputs[(name, b)] / median
            first = first or rate
            print(f"{name:<18} {b:<28} {inputs[(name, b)]:>10} {median:>9.1f} {rate:>10.0f} {rate / first:>6.2f}")


if __name__ == "__main__":
    main()
