//! A malformed table is a clear error naming file, line, column and field, never a panic.

use std::path::{Path, PathBuf};

use opspec::spec::{Catalog, LoadError};

const ADD: &str = include_str!("../specs/elementwise/add.yaml");

/// A catalog root holding only `specs/elementwise/add.yaml` with `text` as its content.
fn root_with_add(name: &str, text: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("opspec-spec-errors-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("specs/elementwise")).unwrap();
    std::fs::create_dir_all(root.join("suites")).unwrap();
    std::fs::write(root.join("specs/elementwise/add.yaml"), text).unwrap();
    root
}

/// Replaces the first occurrence of `from`, which must exist.
fn edit(from: &str, to: &str) -> String {
    assert!(ADD.contains(from), "the add table no longer contains {from:?}");
    ADD.replacen(from, to, 1)
}

/// The 1-based line of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> u64 {
    text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1
}

fn load_error(name: &str, text: &str) -> LoadError {
    let root = root_with_add(name, text);
    let err = Catalog::load(&root).expect_err("the malformed table loaded");
    std::fs::remove_dir_all(&root).unwrap();
    err
}

fn assert_located(err: &LoadError, line: u64, field: &str, says: &str) {
    let text = err.to_string();
    assert!(err.file.ends_with(Path::new("specs/elementwise/add.yaml")), "{text}");
    assert_eq!(err.line, Some(line), "{text}");
    assert!(err.column.is_some(), "{text}");
    assert!(text.contains(&format!(":{line}:")), "no file:line:col in {text}");
    assert!(text.contains(field), "field {field:?} not named in {text}");
    assert!(text.contains(says), "{says:?} not in {text}");
}

#[test]
fn the_shipped_catalog_is_valid() {
    let catalog = Catalog::builtin().unwrap();
    assert!(catalog.tables.len() >= 3 && !catalog.suites.is_empty());
}

#[test]
fn unknown_field() {
    let text = edit("    bullet: 2\n", "    bulet: 2\n");
    assert_located(&load_error("unknown-field", &text), line_of(&text, "bulet: 2"), "bulet", "unknown field");
}

#[test]
fn wrong_type() {
    let text = edit("    bullet: 2\n", "    bullet: two\n");
    assert_located(
        &load_error("wrong-type", &text),
        line_of(&text, "bullet: two"),
        "rows[1].bullet",
        "invalid",
    );
}

#[test]
fn bad_class_name() {
    let text = edit("{x1: pos_infinity, x2: neg_infinity}", "{x1: pos_infinty, x2: neg_infinity}");
    let err = load_error("bad-class", &text);
    assert_located(&err, line_of(&text, "pos_infinty"), "rows[1].when.x1", "unknown variant `pos_infinty`");
}

#[test]
fn bad_result_name() {
    let text = edit("    result: pos_infinity\n", "    result: plus_infinity\n");
    let err = load_error("bad-result", &text);
    assert_located(&err, line_of(&text, "plus_infinity"), "result", "unknown variant `plus_infinity`");
}

#[test]
fn duplicate_row_id() {
    let text = edit("  - id: ninf-plus-pinf\n", "  - id: pinf-plus-ninf\n");
    let err = load_error("duplicate", &text);
    assert_eq!(err.line, Some(line_of(&text, "id: pinf-plus-ninf") + 7), "{err}");
    assert!(err.to_string().contains("field `id`: duplicate row id"), "{err}");
}

#[test]
fn unknown_source_and_override() {
    let text = edit("    source: array-api\n    bullet: 2", "    source: array-apy\n    bullet: 2");
    let err = load_error("source", &text);
    assert!(err.to_string().contains("field `source`: unknown source `array-apy`"), "{err}");
    assert_eq!(err.line, Some(line_of(&text, "id: pinf-plus-ninf")));
    let text = edit("    result: nan\n", "    result: nan\n    overrides: [no-such-row]\n");
    let err = load_error("override", &text);
    assert!(err.to_string().contains("no other row `no-such-row`"), "{err}");
}

#[test]
fn yaml_syntax_error() {
    let err = load_error("syntax", &edit("op: add\n", "op: [add\n"));
    assert!(err.line.is_some(), "{err}");
}

#[test]
fn a_path_is_not_a_citation() {
    let section = "      section: add, Special cases\n";
    let text = edit(section, "      section: shared/reference/array-api-special-cases.txt#add\n");
    let err = load_error("path-citation", &text);
    assert_located(
        &err,
        line_of(&text, "section: shared/"),
        "sources[0].citation.section",
        "is a local path",
    );
    let url =
        "      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html\n";
    let text = edit(url, "      url: ../shared/reference/array-api-special-cases.txt\n");
    let err = load_error("path-url", &text);
    assert_located(&err, line_of(&text, "url: ../shared"), "sources[0].citation.url", "not a public URL");
}

#[test]
fn the_old_location_field_is_refused() {
    let text = edit(
        "    citation:\n      document: Python array API standard\n",
        "    location: shared/reference/array-api-special-cases.txt#add\n    citation:\n      document: Python array API standard\n",
    );
    let err = load_error("location", &text);
    assert_located(&err, line_of(&text, "location: shared/"), "location", "unknown field");
}
