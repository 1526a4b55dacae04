#!/usr/bin/env python3
"""The import graph of src/: no circle between files, and every room imports only rooms below it.

Reads each `.rs` file under src/ as text and collects the module paths it names: `crate::…`
anywhere (in `use` lines, `{…}` groups included, and in expressions) and `super::…` in `use`
lines, resolved to the file of the longest module prefix that exists. A file's `#[cfg(test)]
mod tests` (last in the file, by the house's convention) is left out: a unit test may use a
room above its own (an oracle test judging with the judge room) without making it a dependency.

    python3 scripts/layers.py            # exit 0 when clean, 1 with each circle and upward arrow
    python3 scripts/layers.py --graph    # also print the arrows between rooms

A room is a folder of src/ (or a file at its root); the order is docs/ARCHITECTURE.md's.
"""

import re
import sys
from pathlib import Path

# Bottom first: a room may import itself and the rooms before it.
LAYERS = [
    "bits", "platform", "spec", "oracle", "generate", "judge", "results", "verdict", "host", "run",
    "report", "cli", "harness", "lib", "main",
]

PATH = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{)?")


def module_of(path: Path, src: Path) -> tuple[str, ...]:
    parts = path.relative_to(src).with_suffix("").parts
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def group_paths(text: str, start: int) -> list[str]:
    """The paths inside the `{…}` group that opens at text[start], nested groups expanded."""
    depth, i, item, items = 0, start, "", []
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
            if depth > 1:
                item += c
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
            item += c
        elif c == "," and depth == 1:
            items.append(item)
            item = ""
        else:
            item += c
        i += 1
    items.append(item)
    out = []
    for raw in items:
        raw = re.sub(r"\s+", "", raw)
        if not raw:
            continue
        if "::{" in raw:
            head, rest = raw.split("::{", 1)
            out += [head + "::" + p for p in group_paths("{" + rest, 0)]
        else:
            out.append(raw.split(" as ")[0])
    return out


def named_paths(text: str, module: tuple[str, ...]) -> list[tuple[str, ...]]:
    text = re.sub(r"//[^\n]*", "", text)
    tests = text.find("#[cfg(test)]\nmod tests")
    if tests >= 0:
        text = text[:tests]
    found = []
    for m in PATH.finditer(text):
        root, tail, group = m.group(1), m.group(2), m.group(3)
        if root == "super":
            line_start = text.rfind("\n", 0, m.start()) + 1
            if not text[line_start:m.start()].strip().startswith(("use", "pub use", "pub(crate) use")):
                continue
            base = module[:-1]
        else:
            base = ()
        segments = [s for s in tail.split("::") if s]
        paths = [segments]
        if group:
            paths = [segments + p.split("::") for p in group_paths(text, m.end() - 1)]
        for p in paths:
            found.append(tuple(base) + tuple(s for s in p if s not in ("self", "*")))
    return found


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    src = root / "src"
    modules = {}
    for path in sorted(src.rglob("*.rs")):
        modules[module_of(path, src)] = path
    edges: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in modules}
    for module, path in modules.items():
        text = path.read_text()
        for named in named_paths(text, module):
            target = None
            for n in range(len(named), 0, -1):
                if named[:n] in modules:
                    target = named[:n]
                    break
            if target is not None and target != module:
                edges[module].add(target)

    def room(m: tuple[str, ...]) -> str:
        return m[0] if m else "lib"

    problems = []
    for a, targets in edges.items():
        for b in targets:
            ra, rb = room(a), room(b)
            if ra == rb or b == ():
                continue
            if ra not in LAYERS or rb not in LAYERS:
                problems.append(f"room not in the layer order: {ra if ra not in LAYERS else rb}")
            elif LAYERS.index(rb) > LAYERS.index(ra):
                problems.append(f"upward arrow: src/{'/'.join(a)} ({ra}) -> src/{'/'.join(b)} ({rb})")

    # Circles: strongly connected components of more than one file (Tarjan, iterative).
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted("/".join(c) or "lib" for c in comp))
    for comp in comps:
        problems.append("import circle: " + " <-> ".join(comp))

    if "--graph" in sys.argv:
        arrows = sorted({(room(a), room(b)) for a, t in edges.items() for b in t if room(a) != room(b) and b})
        for a, b in arrows:
            print(f"{a} -> {b}")
    for p in sorted(set(problems)):
        print(p)
    files = len(modules)
    if problems:
        print(f"layers: {len(set(problems))} problems in {files} files", file=sys.stderr)
        return 1
    print(f"layers: {files} files, no import circle, every arrow points down ({' < '.join(LAYERS[:-2])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
