//! The binary carries its contract: copied out of the source tree, `opspec` validates and runs
//! the built-in catalog; the embedded files are this tree's; `--root` overrides them, and a root
//! without tables, or with a table outside the tables' folders, is a load error, not an empty
//! run that passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use opspec::spec::{Catalog, Origin};

/// A fresh, empty folder in the temp dir.
fn fresh_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opspec-standalone-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the copied binary `exe` in `dir` with `args`, without the variables cargo sets.
fn run_in(dir: &Path, exe: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(exe);
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("CARGO") {
            command.env_remove(name);
        }
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_copied_binary_validates_and_runs_the_builtin_catalog() {
    let dir = fresh_dir("copy");
    let exe = dir.join("opspec");
    std::fs::copy(env!("CARGO_BIN_EXE_opspec"), &exe).unwrap();
    let revision = Catalog::builtin().unwrap().revision;
    // The tables are in the binary itself: it cannot be reading them from this tree.
    let add = include_bytes!("../specs/elementwise/add.yaml");
    assert!(std::fs::read(&exe).unwrap().windows(add.len()).any(|w| w == add), "add.yaml is not embedded");

    let validate = run_in(&dir, &exe, &["validate"]);
    let said = text(&validate.stdout);
    assert!(validate.status.success(), "{said}{}", text(&validate.stderr));
    assert!(said.starts_with(&format!("built-in catalog (revision {revision}): ")), "{said}");
    assert!(said.contains(" suites are valid"), "{said}");

    let run = run_in(&dir, &exe, &["run", "--suite", "megengine", "--out", "r", "--no-tables"]);
    let said = text(&run.stdout);
    assert!(run.status.success(), "{said}{}", text(&run.stderr));
    let summary = said.lines().rev().find(|l| l.contains(" passed, ")).expect("no totals line");
    let passed: usize = summary.split(' ').next().unwrap().parse().unwrap();
    assert!(passed > 0 && summary.contains(" 0 failed"), "{summary}");
    let run = opspec::results::read(&dir.join("r/results.jsonl")).unwrap();
    assert!(run.complete);
    assert_eq!(run.info.catalog, "built-in catalog");
    assert_eq!(run.info.spec_revision, revision);
    assert_eq!(run.checks().count(), passed);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_embedded_files_are_this_trees() {
    let builtin = Catalog::builtin().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tree = Catalog::load(root).unwrap();
    assert_eq!(builtin.origin, Origin::BuiltIn);
    assert_eq!(tree.origin, Origin::Root(root.to_path_buf()));
    assert_eq!(builtin.revision, tree.revision, "the binary embeds other files than the tree's");
    assert_eq!(builtin.revision.len(), 32);
}

#[test]
fn root_overrides_and_its_files_make_the_revision() {
    let dir = fresh_dir("root");
    std::fs::create_dir_all(dir.join("specs/elementwise")).unwrap();
    let add = include_str!("../specs/elementwise/add.yaml");
    std::fs::write(dir.join("specs/elementwise/add.yaml"), add).unwrap();
    let one = Catalog::load(&dir).unwrap();
    assert_eq!((one.elementwise.len(), one.suites.len()), (1, 0));
    assert_eq!(one.origin, Origin::Root(dir.clone()));
    std::fs::write(dir.join("specs/elementwise/add.yaml"), format!("{add}\n")).unwrap();
    assert_ne!(Catalog::load(&dir).unwrap().revision, one.revision, "one byte more, same revision");

    let output =
        Command::new(env!("CARGO_BIN_EXE_opspec")).args(["--root"]).arg(&dir).arg("validate").output();
    let said = text(&output.unwrap().stdout);
    assert!(said.starts_with(&format!("catalog at {} (revision ", dir.display())), "{said}");
    assert!(said.contains(": 1 tables and 0 suites are valid"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_root_without_tables_is_an_error() {
    let dir = fresh_dir("empty");
    let output = Command::new(env!("CARGO_BIN_EXE_opspec")).arg("--root").arg(&dir).arg("validate").output();
    let output = output.unwrap();
    let said = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains(&format!("no tables in the catalog at {}", dir.display())), "{said}");
    // Suites alone are no catalog either.
    std::fs::create_dir_all(dir.join("suites")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/megengine.yaml"),
        dir.join("suites/m.yaml"),
    )
    .unwrap();
    let err = Catalog::load(&dir).unwrap_err();
    assert_eq!(err.file, Path::new("specs"));
    assert!(err.message.starts_with("no tables"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_table_outside_the_table_folders_is_an_error() {
    let dir = fresh_dir("stray");
    std::fs::create_dir_all(dir.join("specs/elementwse")).unwrap();
    std::fs::write(dir.join("specs/elementwse/add.yaml"), include_str!("../specs/elementwise/add.yaml"))
        .unwrap();
    let err = Catalog::load(&dir).unwrap_err();
    assert_eq!(err.file, Path::new("specs/elementwse/add.yaml"));
    assert!(err.to_string().contains("not in a table folder"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
