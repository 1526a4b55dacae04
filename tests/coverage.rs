//! The tables cover the documents: every real-valued special-case bullet of every element-wise
//! function in the array API standard (the binary ones of Parts A and B, the unary ones and
//! `clip` of Part C) that has a table has exactly one row (or stated property), quoting the
//! bullet's text, and the functions without a table yet are named; every operation the
//! documents and the adapter API name has a table, and every table names its documents. The
//! same for the complex bullets: every bullet of a function's complex section has exactly one
//! row of its complex table (`specs/complex`).
//!
//! The standard's text is not in the repository. `tests/data/array-api-bullets.tsv`, made from
//! it by `scripts/coverage-manifest.py`, pins per function the number of bullets and a hash of
//! each bullet's normalised text (FNV-1a 64 over UTF-8; see the script for the parsing and
//! normalisation rules), so a row whose `text` drifts from its bullet fails here.

use std::collections::BTreeMap;

use opspec::spec::Catalog;
use opspec_adapter::{BinaryOp, TernaryOp, UnaryOp};

const MANIFEST: &str = include_str!("data/array-api-bullets.tsv");

/// The binary functions of Parts A and B.
const BINARY: [&str; 15] = [
    "add",
    "atan2",
    "copysign",
    "divide",
    "equal",
    "floor_divide",
    "hypot",
    "logaddexp",
    "maximum",
    "minimum",
    "multiply",
    "nextafter",
    "not_equal",
    "pow",
    "remainder",
];

/// The parsed manifest.
struct Manifest {
    /// The standard's version (`2025.12`).
    version: String,
    /// The script that made the manifest, relative to the repository root.
    made_by: String,
    /// Per function of Parts A, B and C, the hash of each bullet (bullet `i` at `i - 1`).
    functions: BTreeMap<String, Vec<u64>>,
    /// Per function with a complex section, the hash of each complex bullet.
    complex: BTreeMap<String, Vec<u64>>,
}

/// FNV-1a 64 of the UTF-8 bytes of `text`.
fn fnv1a64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Parses the manifest; a malformed line panics naming its line number.
fn manifest() -> Manifest {
    let mut version = None;
    let mut made_by = None;
    let mut counts = BTreeMap::new();
    let mut functions: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut complex_counts = BTreeMap::new();
    let mut complex: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (i, line) in MANIFEST.lines().enumerate() {
        let at = || format!("tests/data/array-api-bullets.tsv:{}: {line:?}", i + 1);
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        match line.split('\t').collect::<Vec<_>>()[..] {
            ["standard", _, v, ..] => version = Some(v.to_string()),
            ["source", ..] => {}
            ["made-by", script] => made_by = Some(script.to_string()),
            ["function", name, count] => {
                counts.insert(
                    name.to_string(),
                    count.parse::<usize>().unwrap_or_else(|e| panic!("{}: {e}", at())),
                );
            }
            ["complex-function", name, count] => {
                complex_counts.insert(
                    name.to_string(),
                    count.parse::<usize>().unwrap_or_else(|e| panic!("{}: {e}", at())),
                );
            }
            [kind @ ("bullet" | "complex-bullet"), name, number, hash] => {
                let map = if kind == "bullet" { &mut functions } else { &mut complex };
                let hashes = map.entry(name.to_string()).or_default();
                let number: usize = number.parse().unwrap_or_else(|e| panic!("{}: {e}", at()));
                assert_eq!(number, hashes.len() + 1, "{}: bullets must be numbered 1, 2, ... in order", at());
                hashes.push(u64::from_str_radix(hash, 16).unwrap_or_else(|e| panic!("{}: {e}", at())));
            }
            _ => panic!("{}: not a manifest line", at()),
        }
    }
    for (name, count) in &counts {
        let listed = functions.entry(name.clone()).or_default().len();
        assert_eq!(listed, *count, "the manifest gives {name} {count} bullets but lists {listed}");
    }
    assert_eq!(counts.len(), functions.len(), "a function has bullets but no `function` line");
    for (name, count) in &complex_counts {
        let listed = complex.get(name).map_or(0, Vec::len);
        assert_eq!(listed, *count, "the manifest gives {name} {count} complex bullets but lists {listed}");
    }
    assert_eq!(
        complex_counts.len(),
        complex.len(),
        "a function has complex bullets but no `complex-function` line"
    );
    Manifest {
        version: version.expect("the manifest names the standard's version"),
        made_by: made_by.expect("the manifest names the script that made it"),
        functions,
        complex,
    }
}

/// The coverage of the manifest's functions by the catalog's tables: what is wrong (a bullet
/// cited twice or not at all, a text that is not its bullet's) and the functions that have no
/// table yet, with their bullet counts.
struct Coverage {
    failures: Vec<String>,
    without_table: Vec<(String, usize)>,
    /// Bullets of the functions that have a table.
    encoded: usize,
    total: usize,
}

fn coverage() -> Coverage {
    let manifest = manifest();
    let catalog = Catalog::builtin().unwrap();
    let mut c = Coverage { failures: Vec::new(), without_table: Vec::new(), encoded: 0, total: 0 };
    for (name, hashes) in &manifest.functions {
        c.total += hashes.len();
        let Some(table) = catalog.elementwise.iter().find(|t| &t.table.op == name) else {
            c.without_table.push((name.clone(), hashes.len()));
            continue;
        };
        c.encoded += hashes.len();
        let n = hashes.len() as u32;
        let rows = table.table.rows.iter().filter(|r| r.source == "array-api");
        let rows = rows.map(|r| (r.id.value.as_str(), r.bullet, r.text.as_str()));
        let properties = table.table.properties.iter().filter(|p| p.source == "array-api");
        let properties = properties.map(|p| (p.id.value.as_str(), p.bullet, p.text.as_str()));
        let mut cited: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
        for (id, bullet, text) in rows.chain(properties) {
            // hypot's symmetry paragraph follows its bullets: a property numbered after them.
            if bullet == 0 || bullet > n {
                let is_property = table.table.properties.iter().any(|p| p.id.value == id);
                if !is_property {
                    c.failures.push(format!("{name}/{id}: cites bullet {bullet}; the section has 1 to {n}"));
                }
                continue;
            }
            cited.entry(bullet).or_default().push(id);
            let expected = hashes[bullet as usize - 1];
            if fnv1a64(text) != expected {
                c.failures.push(format!(
                    "{name}/{id}: the text is not bullet {bullet}'s (its hash {:016x}, the bullet's {expected:016x}): {text:?}",
                    fnv1a64(text)
                ));
            }
        }
        for bullet in 1..=n {
            match cited.get(&bullet).map(Vec::as_slice) {
                None => c.failures.push(format!("{name}: no row cites bullet {bullet}")),
                Some([_]) => {}
                Some(ids) => {
                    c.failures.push(format!("{name}: bullet {bullet} is cited by {}", ids.join(", ")))
                }
            }
        }
    }
    c
}

/// The coverage of the manifest's complex sections by the complex tables, as [`coverage`]
/// gives it for the real-valued ones.
fn complex_coverage() -> Coverage {
    let manifest = manifest();
    let catalog = Catalog::builtin().unwrap();
    let mut c = Coverage { failures: Vec::new(), without_table: Vec::new(), encoded: 0, total: 0 };
    for (name, hashes) in &manifest.complex {
        c.total += hashes.len();
        let Some(table) = catalog.complex.iter().find(|t| &t.loaded.table.op == name) else {
            c.without_table.push((name.clone(), hashes.len()));
            continue;
        };
        let n = hashes.len() as u32;
        let mut cited: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
        for row in table.loaded.table.rows.iter().filter(|r| r.source == "array-api") {
            let id = row.id.value.as_str();
            if row.bullet == 0 || row.bullet > n {
                c.failures.push(format!(
                    "{name}/{id}: cites complex bullet {}; the section has 1 to {n}",
                    row.bullet
                ));
                continue;
            }
            cited.entry(row.bullet).or_default().push(id);
            let expected = hashes[row.bullet as usize - 1];
            if fnv1a64(&row.text) != expected {
                c.failures.push(format!(
                    "{name}/{id}: the text is not complex bullet {}'s (its hash {:016x}, the bullet's {expected:016x}): {:?}",
                    row.bullet,
                    fnv1a64(&row.text),
                    row.text
                ));
            }
        }
        for bullet in 1..=n {
            match cited.get(&bullet).map(Vec::as_slice) {
                None => c.failures.push(format!("{name}: no row cites complex bullet {bullet}")),
                Some([_]) => c.encoded += 1,
                Some(ids) => {
                    c.failures.push(format!("{name}: complex bullet {bullet} is cited by {}", ids.join(", ")))
                }
            }
        }
    }
    c
}

/// Every complex bullet has exactly one row of its function's complex table; prints how many
/// of the standard's complex bullets that is.
#[test]
fn every_complex_bullet_has_exactly_one_row() {
    let manifest = manifest();
    let total: usize = manifest.complex.values().map(Vec::len).sum();
    assert_eq!(total, 166, "the standard has 166 complex bullets");
    let c = complex_coverage();
    assert!(
        c.failures.is_empty(),
        "array API {} complex coverage:\n  {}",
        manifest.version,
        c.failures.join("\n  ")
    );
    let missing: Vec<String> =
        c.without_table.iter().map(|(name, n)| format!("{name} ({n} bullets)")).collect();
    println!(
        "array API {}: {} of {} complex bullets encoded; no complex table yet: {}",
        manifest.version,
        c.encoded,
        c.total,
        if missing.is_empty() { "none".to_string() } else { missing.join(", ") }
    );
    assert!(missing.is_empty(), "functions without a complex table: {missing:?}");
    let real = coverage();
    println!(
        "array API {}: {} of {} bullets encoded in all (real-valued and complex)",
        manifest.version,
        real.encoded + c.encoded,
        real.total + c.total
    );
}

/// Every bullet of every function that has a table has exactly one row; prints how many of
/// the standard's real-valued bullets that is.
#[test]
fn every_real_valued_bullet_of_a_table_has_exactly_one_row() {
    let manifest = manifest();
    assert_eq!(
        manifest.functions.len(),
        47,
        "Parts A and B name 15 binary functions, Part C 31 unary ones and clip: {:?}",
        manifest.functions.keys()
    );
    let c = coverage();
    assert!(c.failures.is_empty(), "array API {} coverage:\n  {}", manifest.version, c.failures.join("\n  "));
    let missing: Vec<String> =
        c.without_table.iter().map(|(name, n)| format!("{name} ({n} bullets)")).collect();
    println!(
        "array API {}: {} of {} real-valued bullets encoded; no table yet: {}",
        manifest.version,
        c.encoded,
        c.total,
        if missing.is_empty() { "none".to_string() } else { missing.join(", ") }
    );
}

/// Every function of the standard's element-wise special cases has a table.
#[test]
fn every_function_of_the_standard_has_a_table() {
    let c = coverage();
    assert!(
        c.without_table.is_empty(),
        "{} of {} bullets encoded; no table: {:?}",
        c.encoded,
        c.total,
        c.without_table
    );
}

#[test]
fn every_operation_has_a_table_and_every_table_a_document() {
    let catalog = Catalog::builtin().unwrap();
    let names = || {
        let binary = BinaryOp::ALL.map(BinaryOp::name).into_iter();
        binary.chain(UnaryOp::ALL.map(UnaryOp::name)).chain([TernaryOp::Clip.name()])
    };
    // imag is defined on complex operands only: its table is a complex one.
    let complex_only = |op: &str| op == UnaryOp::Imag.name();
    let suite = catalog.suite("array-api").unwrap();
    for op in names() {
        if complex_only(op) {
            assert!(catalog.complex.iter().any(|t| t.loaded.table.op == op), "no complex table for {op}");
            assert!(
                suite.complex.iter().any(|&t| catalog.complex[t].loaded.table.op == op),
                "array-api lacks {op}"
            );
            continue;
        }
        assert!(catalog.elementwise.iter().any(|t| t.table.op == op), "no table for {op}");
        assert!(suite.tables.iter().any(|&t| catalog.elementwise[t].table.op == op), "array-api lacks {op}");
    }
    for t in &catalog.elementwise {
        assert!(!t.table.sources.is_empty(), "{} names no document", t.path.display());
    }
}

/// Known sections of the standard, counted and typed by hand from its text, against the
/// manifest: the script's parsing and the Rust hash agree with Python's.
#[test]
fn the_manifest_holds_known_sections() {
    let manifest = manifest();
    assert_eq!(manifest.version, "2025.12");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&manifest.made_by);
    assert!(script.is_file(), "the manifest's script {} is not in the repository", manifest.made_by);
    let count = |name: &str| manifest.functions[name].len();
    assert_eq!((count("add"), count("multiply"), count("pow"), count("hypot")), (17, 9, 24, 7));
    assert_eq!(manifest.functions["add"][0], fnv1a64("If either x1_i or x2_i is NaN, the result is NaN."));
    assert_eq!(manifest.functions["copysign"][0], fnv1a64("If x2_i is less than 0, the result is -|x1_i|."));
    // Part C: bullets before every "For" paragraph count (ceil's first, clip's three);
    // reciprocal and square have only a delegation sentence; the complex bullets count apart.
    assert_eq!((count("sqrt"), count("signbit"), count("ceil"), count("clip")), (5, 8, 6, 3));
    assert_eq!((count("reciprocal"), count("square"), count("abs"), count("round")), (0, 0, 3, 7));
    let part_c: usize = manifest
        .functions
        .iter()
        .filter(|(name, _)| !BINARY.contains(&name.as_str()))
        .map(|(_, b)| b.len())
        .sum();
    assert_eq!(part_c, 144, "141 bullets in the 31 unary functions, 3 in clip");
    assert_eq!(
        manifest.functions["ceil"][0],
        fnv1a64("If x_i is already integer-valued, the result is x_i.")
    );
    assert_eq!(manifest.functions["sqrt"][1], fnv1a64("If x_i is less than 0, the result is NaN."));
    // The complex sections: counted by hand from the text.
    let complex = |name: &str| manifest.complex.get(name).map_or(0, Vec::len);
    assert_eq!((complex("add"), complex("multiply"), complex("equal"), complex("abs")), (2, 2, 2, 7));
    assert_eq!((complex("exp"), complex("log1p"), complex("sign"), complex("asin")), (13, 11, 3, 0));
    assert_eq!(
        manifest.complex["add"][0],
        fnv1a64("If a is -0 and c is -0, the real component of the result is -0.")
    );
    assert_eq!(manifest.complex["isnan"][1], fnv1a64("In the remaining cases, the result is False."));
}

/// The published FNV-1a 64 test vectors.
#[test]
fn fnv1a64_matches_the_reference_vectors() {
    assert_eq!(fnv1a64(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64("foobar"), 0x8594_4171_f739_67e8);
}
