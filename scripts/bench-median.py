#!/usr/bin/env python3
"""Median of several runs of a markdown benchmark report (`cargo bench --bench elementwise`).

    scripts/bench-median.py run1.md run2.md run3.md > median.md

Every table of the first run is printed again with each numeric cell replaced by the median of
that cell over the runs (the same table, the same row: matched by the title above the table
and the row's non-numeric leading cells). A cell that is not a number in every run (`—`, text)
is kept from the first run. The runs must come from the same command: a row or table missing
from one of them is an error naming the file.
"""

import statistics
import sys


def tables(path):
    """{(title, row key): cells} and the tables' lines in order, from one report."""
    rows, layout, title = {}, [], ""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                title = line
            if not line.startswith("|") or set(line) <= set("|-: "):
                layout.append((line, None))
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            key = tuple(c for c in cells[:3] if not number_or_none(c))
            if (title, key) in rows:
                sys.exit(f"{path}:{number}: row {key} appears twice under '{title}'")
            rows[(title, key)] = cells
            layout.append((line, (title, key)))
    return rows, layout


def number_or_none(cell):
    try:
        return float(cell)
    except ValueError:
        return None


def main(paths):
    if len(paths) < 2:
        sys.exit("usage: bench-median.py RUN.md RUN.md [RUN.md ...]")
    runs = [tables(p) for p in paths]
    first, layout = runs[0]
    for path, (rows, _) in zip(paths[1:], runs[1:]):
        missing = [k for k in first if k not in rows]
        if missing:
            sys.exit(f"{path}: no row {missing[0][1]} under '{missing[0][0]}'")
    print(f"Median of {len(paths)} runs: {', '.join(paths)}\n")
    for line, key in layout:
        if key is None:
            print(line)
            continue
        cells = []
        for i, cell in enumerate(first[key]):
            values = [number_or_none(rows[key][i]) if i < len(rows[key]) else None for rows, _ in runs]
            if i < 3 or any(v is None for v in values):
                cells.append(cell)
            else:
                decimals = len(cell.split(".")[1]) if "." in cell else 0
                cells.append(f"{statistics.median(values):.{decimals}f}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
