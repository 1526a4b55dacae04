//! The tables cover the documents: every real-valued special-case bullet of every binary
//! function in the array API text has exactly one row (or stated property), every operation the
//! documents and the adapter API name has a table, and every table names its documents.

use std::collections::BTreeMap;

use opspec::spec::Catalog;
use opspec_adapter::BinaryOp;

const REFERENCE: &str = "../shared/reference/array-api-special-cases.txt";

/// The binary functions of Parts A and B with their real-valued bullet texts, read from the
/// reference text itself: the bullets (`- ...`) of the section's "For real-valued
/// floating-point operands" (or "For floating-point operands") paragraph.
fn reference_bullets(text: &str) -> BTreeMap<String, Vec<String>> {
    let part_c = text.find("PART C").expect("the reference text has a Part C");
    let lines: Vec<&str> = text[..part_c].lines().collect();
    let mut functions = BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line.strip_suffix("(x1, x2)   -- **Special cases** section") else { continue };
        let mut bullets = Vec::new();
        let mut started = false;
        for l in &lines[i + 2..] {
            if l.starts_with("----") || l.starts_with("####") {
                break;
            }
            if l.starts_with("For ") && (l.contains("real-valued") || l.contains("floating-point operands")) {
                if started {
                    break;
                }
                started = !l.contains("complex");
            } else if started && l.starts_with('-') {
                bullets.push(l.trim_start_matches(['-', ' ']).to_string());
            } else if started && !bullets.is_empty() && !l.trim().is_empty() && !l.starts_with(' ') {
                break;
            }
        }
        functions.insert(name.to_string(), bullets);
    }
    functions
}

/// The pinned reference text, beside the checkout in `../shared`.
fn reference_text() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(REFERENCE);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

#[test]
fn every_real_valued_bullet_has_exactly_one_row() {
    let text = reference_text();
    let functions = reference_bullets(&text);
    assert_eq!(functions.len(), 15, "Parts A and B name 15 binary functions: {:?}", functions.keys());
    let catalog = Catalog::builtin().unwrap();
    for (name, bullets) in &functions {
        let table = catalog
            .tables
            .iter()
            .find(|t| &t.table.op == name)
            .unwrap_or_else(|| panic!("no table for {name}"));
        let mut cited: Vec<u32> = table
            .table
            .rows
            .iter()
            .filter(|r| r.source == "array-api")
            .map(|r| r.bullet)
            .chain(table.table.properties.iter().filter(|p| p.source == "array-api").map(|p| p.bullet))
            .collect();
        cited.sort();
        // hypot's symmetry paragraph is a property row numbered after its bullets.
        let expected: Vec<u32> = (1..=bullets.len() as u32).collect();
        let stated: Vec<u32> = cited.iter().copied().filter(|&b| b <= bullets.len() as u32).collect();
        assert_eq!(stated, expected, "{name}: rows citing array-api bullets");
        for row in table.table.rows.iter().filter(|r| r.source == "array-api") {
            let bullet =
                &bullets[row.bullet as usize - 1].replace("``", "").replace(":math:", "").replace('`', "");
            assert_eq!(&row.text, bullet, "{name}/{}: the row's text is not its bullet's", row.id.value);
        }
    }
}

#[test]
fn every_operation_has_a_table_and_every_table_a_document() {
    let catalog = Catalog::builtin().unwrap();
    for op in BinaryOp::ALL {
        assert!(catalog.tables.iter().any(|t| t.table.op == op.name()), "no table for {op}");
    }
    let suite = catalog.suite("array-api").unwrap();
    for op in BinaryOp::ALL {
        assert!(
            suite.tables.iter().any(|&t| catalog.tables[t].table.op == op.name()),
            "array-api lacks {op}"
        );
    }
    for t in &catalog.tables {
        assert!(!t.table.sources.is_empty(), "{} names no document", t.path.display());
    }
}

#[test]
fn the_reference_parser_reads_known_sections() {
    let text = reference_text();
    let functions = reference_bullets(&text);
    assert_eq!(functions["add"].len(), 17);
    assert_eq!(functions["multiply"].len(), 9);
    assert_eq!(functions["pow"].len(), 24);
    assert_eq!(functions["hypot"].len(), 7);
    assert!(functions["copysign"][0].starts_with("If ``x2_i`` is less than ``0``"));
}
