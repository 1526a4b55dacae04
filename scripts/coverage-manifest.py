#!/usr/bin/env python3
"""Writes the pinned manifest that tests/coverage.rs checks the element-wise and complex tables against.

    python3 scripts/coverage-manifest.py array-api-special-cases.txt > tests/data/array-api-bullets.tsv

The input is the array API standard's special-case text, extracted verbatim from
data-apis/array-api's src/array_api_stubs/<version>/elementwise_functions.py (the text names its
commit and versions in its header). The manifest holds no text of the standard: per function
of Parts A, B and C, the number of real-valued bullets and of complex bullets and a hash of each
bullet's normalised text, so that the repository checks its rows without the document beside it.

Parsing, Parts A and B (the rules tests/coverage.rs applied to the text itself before the
manifest existed): a function is a line `<name>(x1, x2)   -- **Special cases** section`
before "PART C"; its bullets are the lines starting with '-' of the paragraph that opens with a
line starting "For " and naming "real-valued" or "floating-point operands" (and not
"complex"), up to the next such paragraph, a '----' or '####' rule, or an unindented
non-bullet line after the first bullet. A bullet's text is its first line without the leading
'- '.

Parsing, Part C (the unary functions and clip): a function is a line `<name>(<args>)   --
**Special cases** section` between "PART C" and "PART D" whose arguments are `x` or
`x, min, max`; its real-valued bullets are the lines starting with '- ' up to the next '----' or
'####' rule, except those of a paragraph that opens with a line starting "For " and naming
"complex" (a "For " line naming "real-valued" or "floating-point operands" opens a real-valued
paragraph again). So bullets that precede every "For " line (ceil's "already integer-valued",
clip's three) count; reciprocal and square, whose sections are one delegation sentence, have
none.

Parsing, complex bullets (every part before PART D): a function is a line `<name>(<args>)   --
**Special cases** section`; its complex bullets are the lines starting with '- ' of every
paragraph that opens with a line starting "For " and naming "complex", up to the next line
starting "For ", or a '----' or '####' rule (notes and the text between the bullets do not end
it). Sections whose complex part is one delegation sentence (asin, atan, cos, sin, tan, log2,
log10, pow) have none. The standard's count: 166.

Normalisation: remove every "``", then ":math:", then every "`".
Hash: FNV-1a 64 over the UTF-8 bytes of the normalised text, as 16 lower-case hex digits
(offset basis 0xcbf29ce484222325, prime 0x100000001b3).

Standard library only.
"""

import re
import sys

SECTION = "(x1, x2)   -- **Special cases** section"
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


def fnv1a64(text):
    """FNV-1a 64 of the UTF-8 bytes of `text`."""
    h = FNV_OFFSET
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def normalise(bullet):
    """The bullet without RST markup, as the tables' `text` fields quote it."""
    return bullet.replace("``", "").replace(":math:", "").replace("`", "")


def lines_of(text):
    """Lines split as Rust's str::lines does: on '\\n', one trailing '\\r' removed."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def bullets_by_function(text):
    """{function: [bullet text]} for the binary functions of Parts A and B."""
    part_c = text.find("PART C")
    if part_c < 0:
        sys.exit("the text has no PART C")
    lines = lines_of(text[:part_c])
    functions = {}
    for i, line in enumerate(lines):
        if not line.endswith(SECTION):
            continue
        name = line[: -len(SECTION)]
        bullets = []
        started = False
        for l in lines[i + 2 :]:
            if l.startswith("----") or l.startswith("####"):
                break
            if l.startswith("For ") and ("real-valued" in l or "floating-point operands" in l):
                if started:
                    break
                started = "complex" not in l
            elif started and l.startswith("-"):
                bullets.append(l.lstrip("- "))
            elif started and bullets and l.strip() and not l.startswith(" "):
                break
        functions[name] = bullets
    return functions


def unary_bullets_by_function(text):
    """{function: [bullet text]} for the functions of Part C."""
    part_c, part_d = text.find("PART C"), text.find("PART D")
    if part_c < 0 or part_d < part_c:
        sys.exit("the text has no PART C before a PART D")
    lines = lines_of(text[part_c:part_d])
    functions = {}
    for i, line in enumerate(lines):
        found = re.fullmatch(r"(\w+)\((?:x|x, min, max)\)   -- \*\*Special cases\*\* section", line)
        if not found:
            continue
        bullets = []
        real = True
        for l in lines[i + 2 :]:
            if l.startswith("----") or l.startswith("####"):
                break
            if l.startswith("For "):
                real = "complex" not in l and ("real-valued" in l or "floating-point operands" in l)
            elif real and l.startswith("- "):
                bullets.append(l[2:])
        functions[found.group(1)] = bullets
    return functions


def complex_bullets_by_function(text):
    """{function: [bullet text]} of the complex paragraphs, for the functions that have any."""
    part_d = text.find("PART D")
    if part_d < 0:
        sys.exit("the text has no PART D")
    functions = {}
    current, inside = None, False
    for l in lines_of(text[:part_d]):
        found = re.fullmatch(r"(\w+)\((?:x1, x2|x|x, min, max)\)   -- \*\*Special cases\*\* section", l)
        if found:
            current, inside = found.group(1), False
        elif l.startswith("----") or l.startswith("####"):
            inside = False
        elif l.startswith("For "):
            inside = "complex" in l
        elif inside and current and l.startswith("- "):
            functions.setdefault(current, []).append(l[2:])
    return functions


def provenance(text):
    """(versions, commit, date, file) from the text's header."""
    header = text[: text.find("Contents")]
    found = re.search(r"Source: (\S+), (\S+)\s+at commit ([0-9a-f]{40}) \((\d{4}-\d{2}-\d{2})\)", header)
    if not found:
        sys.exit("the header names no 'Source: <repo>, <file> at commit <sha> (<date>)'")
    repo, path, commit, date = found.groups()
    versions = sorted({f"{y}.{m}" for y, m in re.findall(r"_(\d{4})_(\d{2})/", header)}, reverse=True)
    if not versions:
        sys.exit("the header names no released version (_YYYY_MM/) identical to the text")
    return versions, repo, path, commit, date


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    versions, repo, path, commit, date = provenance(text)
    functions = bullets_by_function(text)
    unary = unary_bullets_by_function(text)
    if set(functions) & set(unary):
        sys.exit(f"functions in both Parts A/B and C: {sorted(set(functions) & set(unary))}")
    functions.update(unary)
    complex_functions = complex_bullets_by_function(text)
    out = sys.stdout
    out.write("# The array API standard's special-case bullets, pinned for tests/coverage.rs.\n")
    out.write("# Made by scripts/coverage-manifest.py from the standard's text; do not edit by hand.\n")
    out.write("# Per bullet: FNV-1a 64 (UTF-8) of its text without ``, :math: and `; no text of the standard.\n")
    out.write("# Tab-separated: `standard`, `source` and `made-by` once; then per function of Parts A, B\n")
    out.write("# and C `function` NAME COUNT, and `bullet` NAME NUMBER HASH for each real-valued bullet;\n")
    out.write("# then per function with complex bullets `complex-function` NAME COUNT and\n")
    out.write("# `complex-bullet` NAME NUMBER HASH.\n")
    out.write(f"standard\tPython array API standard\t{versions[0]}\t"
              f"identical text in: {', '.join(versions)}\n")
    out.write(f"source\t{repo}\t{path}\t{commit}\t{date}\n")
    out.write("made-by\tscripts/coverage-manifest.py\n")
    for name in sorted(functions):
        bullets = functions[name]
        out.write(f"function\t{name}\t{len(bullets)}\n")
        for number, bullet in enumerate(bullets, 1):
            out.write(f"bullet\t{name}\t{number}\t{fnv1a64(normalise(bullet)):016x}\n")
    for name in sorted(complex_functions):
        bullets = complex_functions[name]
        out.write(f"complex-function\t{name}\t{len(bullets)}\n")
        for number, bullet in enumerate(bullets, 1):
            out.write(f"complex-bullet\t{name}\t{number}\t{fnv1a64(normalise(bullet)):016x}\n")


if __name__ == "__main__":
    main()
