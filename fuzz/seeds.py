#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/corpus/<target>/) from the repository's files.

    python3 fuzz/seeds.py [OPSPEC]   # OPSPEC: an opspec binary for `list` (check ids); default
                                     # target/release/opspec

Each seed is a real example: catalog files, check ids that `opspec list` prints, patterns
from the expectations files, frames in the layout of the host's encoder (frame.rs, wire.rs),
eval operands from the docs, and results files of a small run. It also writes fuzz/dict/catalog.dict. Rerun it after the
formats change; the corpora stay small (< 2 MB in all).
"""

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def write(target: str, name: str, data: bytes) -> None:
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def catalog() -> None:
    # The slot digit (fuzz_targets/catalog.rs, SLOTS), then a file of that kind.
    slots = {
        "0": ["specs/elementwise/add.yaml", "specs/elementwise/sqrt.yaml", "specs/elementwise/clip.yaml",
              "specs/elementwise/bitwise_left_shift.yaml", "specs/elementwise/round.yaml",
              "specs/elementwise/real.yaml", "specs/elementwise/pow.yaml"],
        "1": ["specs/fused/fused_mul_add.yaml", "specs/fused/add_into.yaml"],
        "2": ["specs/promotion/megengine.yaml"],
        "3": ["specs/broadcasting/numpy.yaml", "specs/broadcasting/matmul.yaml"],
        "4": ["specs/scatter/tensor_scatter_add.yaml"],
        "5": ["specs/complex/subtract.yaml", "specs/complex/sqrt.yaml", "specs/complex/pow.yaml"],
        "6": ["suites/megengine.yaml", "suites/numr.yaml", "suites/named-axes.yaml"],
        "7": ["expectations/c-example.yaml", "expectations/megengine.yaml", "expectations/numr.yaml"],
        "8": ["specs/elementwise/add.yaml", "specs/elementwise/subtract.yaml"],
        "9": ["suites/mindspore.yaml"],
    }
    for slot, paths in slots.items():
        for path in paths:
            name = f"{slot}-{path.replace('/', '-')}"
            write("catalog", name, slot.encode() + (ROOT / path).read_bytes())


def ids(opspec: str) -> list[str]:
    listed = subprocess.run([opspec, "list"], capture_output=True, text=True, check=True).stdout.split()
    # Of each suite and adapter (or `table`), ids of up to 6 kinds of case: 60 at most.
    per_scope, chosen = {}, []
    for i in listed:
        parts = i.split(":")
        scope = parts[0] if parts[0] == "table" else ":".join(parts[:2])
        kinds = per_scope.setdefault(scope, set())
        kind = ("+" in parts[-2], parts[-2] == "-", parts[-1].split("-")[0])
        if len(kinds) < 6 and kind not in kinds:
            kinds.add(kind)
            chosen.append(i)
    chosen = chosen[:54]
    # And one of each of the generated checks' shapes.
    for mark in ["+", ":random", ":layouts", ":broadcast-", ":no-broadcast", ":into-rules"]:
        chosen.append(next(i for i in listed if mark in i and ":" + i.split(":")[1] != ":table"))
    return chosen


def check_ids(listed: list[str]) -> None:
    for n, i in enumerate(listed):
        write("check_id", f"{n:02}", i.encode())


def patterns(listed: list[str]) -> None:
    found = []
    for f in sorted((ROOT / "expectations").glob("*.yaml")):
        for m in re.finditer(r'^\s*- id: "?([^"\n]+)"?$', f.read_text(), re.M):
            if m.group(1) not in found:
                found.append(m.group(1))
    found = found[:40] + ["*", "**", "a{b,}c", "{*:cpu,x}:add", "*:numr:add:*+*:*",
                          "{numr,array-api}:numr:pow:{f32,f64}:*", "table:*:f16:*"]
    for n, p in enumerate(found):
        write("pattern", f"{n:02}", f"{p}\n{listed[n % len(listed)]}".encode())


def frame(meta: dict, data: bytes = b"") -> bytes:
    text = json.dumps(meta, separators=(",", ":")).encode()
    return b"OPSP" + struct.pack("<IQ", len(text), len(data)) + text + data


def frames() -> None:
    f32 = struct.pack("<4f", 1.0, -0.0, float("inf"), 2.5)
    one = {"dtype": [2, 32, 1], "shape": [2, 2], "strides": [2, 1], "byte_offset": 0, "buffer": 0}
    seeds = {
        "hello": frame({"type": "hello", "id": 0, "protocol": 1, "name": "numpy", "version": "2.1.0",
                        "platform": "linux-x86_64", "checker": True, "views": {"strided": "view"},
                        "support": [{"op": "add", "dtype": [2, 32, 1]},
                                    {"op": "add", "form": "scalar", "dtype": [2, 16, 1], "unsupported": "no"}]}),
        "result": frame({"type": "result", "id": 1, "result": one, "buffers": [{"offset": 0, "len": 16}]}, f32),
        "result-view": frame({"type": "result", "id": 2,
                              "result": {"dtype": [2, 32, 1], "shape": [2, 2], "strides": [1, -2], "byte_offset": 8,
                                         "buffer": 0, "names": ["x", None]},
                              "buffers": [{"offset": 0, "len": 16}], "warnings": ["overflow"]}, f32),
        "result-bool": frame({"type": "result", "id": 3, "result": {"dtype": [6, 8, 1], "shape": [3], "strides": [1],
                                                                     "byte_offset": 0, "buffer": 0},
                              "buffers": [{"offset": 0, "len": 3}]}, b"\x00\x01\x00"),
        "checked": frame({"type": "checked", "id": 4, "shape": [{"name": "x", "size": 3}, {"name": None, "size": 1}],
                          "kind": "float", "alignment": [[0, None], [1, 0]]}),
        "error": frame({"type": "error", "id": 5, "kind": "unsupported", "code": "E1",
                        "message": "building x1: bad dtype", "step": "building x1", "warnings": []}),
        "call": frame({"type": "call", "id": 6, "op": "add", "args": [one, {"scalar": {"float": "0x3ff0000000000000"}}],
                       "buffers": [{"offset": 0, "len": 16}]}, f32),
        # The worker replies that made Tensor::view and element_positions overflow isize.
        "result-huge-stride": frame({"type": "result", "id": 9,
                                     "result": {"dtype": [1, 8, 1], "shape": [3], "strides": [-2**63],
                                                "byte_offset": 0, "buffer": 0},
                                     "buffers": [{"offset": 0, "len": 4}]}, b"\x01\x02\x03\x04"),
        "result-size-one-axis": frame({"type": "result", "id": 10,
                                       "result": {"dtype": [1, 8, 1], "shape": [3, 1], "strides": [1, 2**63 - 1],
                                                  "byte_offset": 0, "buffer": 0},
                                       "buffers": [{"offset": 0, "len": 3}]}, b"\x01\x02\x03"),
        "two": frame({"type": "error", "id": 7, "kind": "domain", "message": "m"}) + frame({"type": "shutdown", "id": 8}),
    }
    for name, data in seeds.items():
        write("frame", name, data)


def catalog_dict() -> None:
    """fuzz/dict/catalog.dict: every mapping key of the shipped YAML files, and a few values."""
    keys = set()
    for folder in ["specs", "suites", "expectations"]:
        for f in (ROOT / folder).rglob("*.yaml"):
            keys.update(re.findall(r"^\s*(?:-\s+)?([a-z_][a-z0-9_]*):(?:\s|$)", f.read_text(), re.M))
    tokens = [k + ":" for k in sorted(keys)] + ["nan", "-inf", "+inf", "-0", "0x1p-1074", "f16", "bf16",
                                                "c128", "i8", "u64", "bool", "- ", "{", "}", "[", "]",
                                                "&a", "*a", "<<: "]
    lines = ["# libFuzzer dictionary for the catalog target (scripts/fuzz.sh passes it): the mapping",
             "# keys of the shipped catalog's YAML files and a few values; written by fuzz/seeds.py."]
    (ROOT / "fuzz" / "dict" / "catalog.dict").write_text("\n".join(lines + [f'"{t}"' for t in tokens]) + "\n")


def operands() -> None:
    for n, text in enumerate(["0x3c00", "0x7fc00000", "0x80000000", "0x8000000000000000", "0xffffffffffffffff",
                              "0x13c00", "0x", "0x+3c00", "0", "-0.1", "1e5", "-nan", "+inf", "-128", "3.5e-6"]):
        write("eval_operand", f"{n:02}", text.encode())


def results(opspec: str) -> None:
    """A small real run's results.jsonl (its catalog sources and gaps left out, to keep it
    small), as written, as a killed run leaves it, and with a record that contradicts itself."""
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([opspec, "run", "--suite", "array-api", "--filter", "array-api:cpu:{add,sqrt}:f16:{edges,random}",
                        "--no-tables", "--out", out], check=False, capture_output=True)
        lines = (Path(out) / "results.jsonl").read_text().splitlines()
    run = json.loads(lines[0])
    run["sources"], run["info"]["gaps"] = {}, []
    lines[0] = json.dumps(run, separators=(",", ":"))
    whole = "\n".join(lines) + "\n"
    write("results", "complete", whole.encode())
    write("results", "killed", ("\n".join(lines[:-2]) + "\n" + lines[-2][:40]).encode())
    contradiction = json.loads(lines[1])
    contradiction.update(status="pass", failed_inputs=1)
    write("results", "contradiction", "\n".join([lines[0], json.dumps(contradiction)] + lines[2:]).encode())


if __name__ == "__main__":
    opspec = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/opspec")
    listed = ids(opspec)
    catalog()
    check_ids(listed)
    patterns(listed)
    frames()
    operands()
    results(opspec)
    catalog_dict()
