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
    assert!(catalog.elementwise.len() >= 3 && !catalog.suites.is_empty());
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
    let text = edit(url, "      url: ../notes/special-cases.txt\n");
    let err = load_error("path-url", &text);
    assert_located(&err, line_of(&text, "url: ../notes"), "sources[0].citation.url", "not a public URL");
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

const POW: &str = include_str!("../specs/elementwise/pow.yaml");

/// The load error of a catalog root holding the add and pow tables and one suite over both,
/// whose `step_bounds:` block is `bounds`.
fn suite_error(name: &str, bounds: &str) -> (String, LoadError) {
    let root = root_with_add(name, ADD);
    std::fs::write(root.join("specs/elementwise/pow.yaml"), POW).unwrap();
    let suite = format!(
        "name: s\ntitle: step bounds\nspecs: [elementwise/add, elementwise/pow]\ndtypes: [f32]\n\
         cases_per_row: 1\nrandom_cases: 1\nseed: 1\nstep_bounds:\n{bounds}"
    );
    std::fs::write(root.join("suites/s.yaml"), &suite).unwrap();
    let err = Catalog::load(&root).expect_err("the malformed suite loaded");
    std::fs::remove_dir_all(&root).unwrap();
    (suite, err)
}

/// `err` is in the suite at the line of `needle`, with a column, names `field` and says `says`.
fn assert_in_suite(suite: &str, err: &LoadError, needle: &str, field: &str, says: &str) {
    let text = err.to_string();
    assert!(err.file.ends_with(Path::new("suites/s.yaml")), "{text}");
    assert_eq!(err.line, Some(line_of(suite, needle)), "{text}");
    assert!(err.column.is_some() && text.contains(&format!(":{}:", line_of(suite, needle))), "{text}");
    assert!(text.contains(field), "field {field:?} not named in {text}");
    assert!(text.contains(says), "{says:?} not in {text}");
}

#[test]
fn step_bounds_load_typed() {
    use opspec::bits::format::Format;
    use opspec_adapter::{BinaryOp, DType, OpKind};
    let catalog = Catalog::builtin().unwrap();
    let suite = &catalog.suite("array-api").unwrap().suite;
    assert_eq!(suite.step_bounds[&OpKind::Binary(BinaryOp::Pow)][&DType::F32], 2);
    assert_eq!(suite.step_bound(OpKind::Binary(BinaryOp::Atan2), Format::F16), Some(1));
    assert_eq!(suite.step_bound(OpKind::Binary(BinaryOp::Add), Format::F32), None);
}

#[test]
fn step_bound_with_an_unknown_operation() {
    let (suite, err) = suite_error("bound-op", "  pwo: {f32: 2}\n");
    assert_in_suite(&suite, &err, "pwo", "step_bounds", "unknown operation `pwo`");
}

#[test]
fn step_bound_with_an_unknown_or_integer_dtype() {
    let (suite, err) = suite_error("bound-dtype", "  pow: {f32: 2, f8: 1}\n");
    assert_in_suite(&suite, &err, "f8", "step_bounds.pow", "unknown dtype `f8`");
    let (suite, err) = suite_error("bound-int", "  pow: {i32: 1}\n");
    assert_in_suite(&suite, &err, "i32", "step_bounds.pow", "`i32` is not a float dtype");
}

#[test]
fn step_bound_that_is_not_a_whole_number() {
    let (suite, err) = suite_error("bound-fraction", "  pow:\n    f32: 1.5\n");
    assert_in_suite(&suite, &err, "1.5", "step_bounds.pow.f32", "invalid u32");
    let (suite, err) = suite_error("bound-negative", "  pow:\n    f32: -1\n");
    assert_in_suite(&suite, &err, "-1", "step_bounds.pow.f32", "invalid u32");
}

#[test]
fn step_bound_for_an_operation_that_has_none() {
    let (_, err) = suite_error("bound-exact", "  add: {f32: 1}\n");
    assert!(err.to_string().contains("field `step_bounds.add`: `add` is not approximate"), "{err}");
}

const FUSED_MUL_ADD: &str = include_str!("../specs/fused/fused_mul_add.yaml");
const ADD_INTO: &str = include_str!("../specs/fused/add_into.yaml");

/// The load error of a catalog root holding only `specs/<path>` with `text` as its content.
/// Each call has a root of its own, as the tests run in parallel.
fn table_error(path: &str, text: &str) -> LoadError {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("opspec-spec-errors-{}-table-{call}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("specs/fused")).unwrap();
    std::fs::create_dir_all(root.join("specs/elementwise")).unwrap();
    std::fs::create_dir_all(root.join("suites")).unwrap();
    std::fs::write(root.join("specs").join(path), text).unwrap();
    let err = Catalog::load(&root).expect_err("the malformed table loaded");
    std::fs::remove_dir_all(&root).unwrap();
    err
}

/// `text` with the first occurrence of `from` (which must exist) replaced by `to`.
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the table no longer contains {from:?}");
    text.replacen(from, to, 1)
}

/// `err` is in `specs/<path>` at `line` with a column, names `field` and says `says`.
fn assert_at(err: &LoadError, path: &str, line: u64, field: &str, says: &str) {
    let text = err.to_string();
    assert!(err.file.ends_with(Path::new("specs").join(path)), "{text}");
    assert_eq!(err.line, Some(line), "{text}");
    assert!(err.column.is_some() && text.contains(&format!(":{line}:")), "no file:line:col in {text}");
    assert!(text.contains(&format!("field `{field}`")), "field {field:?} not named in {text}");
    assert!(text.contains(says), "{says:?} not in {text}");
}

#[test]
fn shape_rule_id_that_is_not_a_name() {
    let text = replaced(FUSED_MUL_ADD, "  - id: same-shape\n", "  - id: Same_Shape\n");
    let err = table_error("fused/fused_mul_add.yaml", &text);
    assert_at(
        &err,
        "fused/fused_mul_add.yaml",
        line_of(&text, "Same_Shape"),
        "no_broadcast[0].id",
        "lower-case",
    );
}

#[test]
fn shape_rule_id_that_is_already_taken() {
    // A destination may not reuse a special-case row's id, nor another destination's.
    let text = replaced(ADD_INTO, "    - id: out-other-dtype\n", "    - id: nan-either\n");
    let err = table_error("fused/add_into.yaml", &text);
    let line = line_of(&text, "    - id: nan-either");
    assert_at(&err, "fused/add_into.yaml", line, "into_rules.destinations[1].id", "duplicate id");
    let text = replaced(ADD_INTO, "    - id: out-shape-one-row\n", "    - id: out-shape-swapped\n");
    let err = table_error("fused/add_into.yaml", &text);
    let line = line_of(&text, "    - id: out-shape-swapped") + 5;
    assert_at(&err, "fused/add_into.yaml", line, "into_rules.destinations[3].id", "duplicate id");
}

#[test]
fn shape_rule_with_an_unknown_source() {
    let text = replaced(
        FUSED_MUL_ADD,
        "    source: numr\n    text: \"All three",
        "    source: numpy\n    text: \"All three",
    );
    let err = table_error("fused/fused_mul_add.yaml", &text);
    let line = line_of(&text, "id: same-shape");
    assert_at(&err, "fused/fused_mul_add.yaml", line, "no_broadcast[0].source", "unknown source `numpy`");
    let text = replaced(
        ADD_INTO,
        "      source: numr\n      text: \"Returns an error if",
        "      source: numpy\n      text: \"Returns an error if",
    );
    let err = table_error("fused/add_into.yaml", &text);
    let line = line_of(&text, "id: out-other-dtype");
    assert_at(
        &err,
        "fused/add_into.yaml",
        line,
        "into_rules.destinations[1].source",
        "unknown source `numpy`",
    );
}

#[test]
fn operand_shapes_that_are_not_one_per_operand() {
    let text = replaced(FUSED_MUL_ADD, "      - [[2, 3], [1, 3], [2, 3]]\n", "      - [[2, 3], [1, 3]]\n");
    let err = table_error("fused/fused_mul_add.yaml", &text);
    let line = line_of(&text, "[[2, 3], [1, 3]]");
    assert_at(
        &err,
        "fused/fused_mul_add.yaml",
        line,
        "no_broadcast[0].shapes[1]",
        "invalid length 2, expected an array of length 3",
    );
    let text = replaced(FUSED_MUL_ADD, "      - [[4], [4], []]\n", "      - [[4], [4], [4]]\n");
    let err = table_error("fused/fused_mul_add.yaml", &text);
    // Found after parsing, so located at the row's id.
    let line = line_of(&text, "id: same-shape");
    assert_at(&err, "fused/fused_mul_add.yaml", line, "no_broadcast[0].shapes[3]", "the shapes are equal");
    let text = replaced(FUSED_MUL_ADD, "      - [[4], [4], []]\n", "      - [[4], [4], 4]\n");
    let err = table_error("fused/fused_mul_add.yaml", &text);
    assert_at(
        &err,
        "fused/fused_mul_add.yaml",
        line_of(&text, "[[4], [4], 4]"),
        "no_broadcast[0].shapes[3][2]",
        "expected sequence start",
    );
}

#[test]
fn shape_rule_on_an_operation_without_it() {
    // The no-broadcast rule belongs to fused operations, the destination rules to `_into`; a
    // block has no line of its own, so the error points at its first row.
    let block = FUSED_MUL_ADD.split_once("no_broadcast:\n").unwrap().1;
    let text = format!("{ADD}no_broadcast:\n{block}");
    let err = table_error("elementwise/add.yaml", &text);
    let line = line_of(&text, "- id: same-shape");
    assert_at(&err, "elementwise/add.yaml", line, "no_broadcast", "`add` is not a fused (ternary) operation");
    let block = ADD_INTO.split_once("into_rules:\n").unwrap().1;
    let text = format!("{FUSED_MUL_ADD}into_rules:\n{block}");
    let err = table_error("fused/fused_mul_add.yaml", &text);
    let line = line_of(&text, "- id: out-fits");
    assert_at(
        &err,
        "fused/fused_mul_add.yaml",
        line,
        "into_rules",
        "`fused_mul_add` does not write into a destination",
    );
}

#[test]
fn destination_that_contradicts_its_result() {
    let text = replaced(ADD_INTO, "layout: transposed}", "layout: strided}");
    let err = table_error("fused/add_into.yaml", &text);
    assert_at(
        &err,
        "fused/add_into.yaml",
        line_of(&text, "strided"),
        "into_rules.destinations[4].out.layout",
        "unknown variant `strided`",
    );
    let text = replaced(
        ADD_INTO,
        "      out: {shape: [2, 3], dtype: same, layout: contiguous}\n      result: {values",
        "      out: {shape: [2, 3], dtype: other, layout: contiguous}\n      result: {values",
    );
    let err = table_error("fused/add_into.yaml", &text);
    assert_at(
        &err,
        "fused/add_into.yaml",
        line_of(&text, "id: out-fits"),
        "into_rules.destinations[0].result",
        "must have `dtype: same`",
    );
    let text = replaced(ADD_INTO, "[11, 22, 33, 14, 25, 36]", "[11, 22, 33, 14, 25]");
    let err = table_error("fused/add_into.yaml", &text);
    assert_at(
        &err,
        "fused/add_into.yaml",
        line_of(&text, "id: out-fits"),
        "into_rules.destinations[0].result.values",
        "5 values for shape [2, 3]",
    );
    let text = replaced(
        ADD_INTO,
        "{shape: [1, 3], dtype: same, layout: contiguous}",
        "{shape: [1, 3], dtype: same, layout: transposed}",
    );
    let err = table_error("fused/add_into.yaml", &text);
    assert_at(
        &err,
        "fused/add_into.yaml",
        line_of(&text, "id: out-shape-one-row"),
        "into_rules.destinations[3].out.layout",
        "two axes longer than 1",
    );
}

#[test]
fn a_suite_name_follows_the_id_grammar() {
    let suite = |name: &str| {
        format!(
            "name: {name}\ntitle: t\nspecs: [elementwise/add]\ndtypes: [f32]\ncases_per_row: 1\nrandom_cases: 1\nseed: 1\n"
        )
    };
    for (name, says) in [("table", "`table` is reserved"), ("Array_API", "is not a suite name")] {
        let root = root_with_add(&format!("suite-name-{}", name.to_lowercase()), ADD);
        std::fs::write(root.join("suites/s.yaml"), suite(name)).unwrap();
        let err = Catalog::load(&root).expect_err("the suite loaded");
        std::fs::remove_dir_all(&root).unwrap();
        assert!(err.file.ends_with(Path::new("suites/s.yaml")), "{err}");
        assert!(err.to_string().contains(says), "{says:?} not in {err}");
    }
    let root = root_with_add("suite-twice", ADD);
    std::fs::write(root.join("suites/a.yaml"), suite("same")).unwrap();
    std::fs::write(root.join("suites/b.yaml"), suite("same")).unwrap();
    let err = Catalog::load(&root).expect_err("two suites of one name loaded");
    std::fs::remove_dir_all(&root).unwrap();
    assert!(
        err.to_string().contains("suites/b.yaml:1:1: field `name`: suites/a.yaml is called `same` too"),
        "{err}"
    );
}
