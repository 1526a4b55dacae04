//! Embeds the shipped catalog, so that a copied or installed `opspec` carries its contract:
//! writes `$OUT_DIR/catalog_files.rs`, a slice of `(relative path, include_str!(absolute
//! path))` for every file that `src/spec/listing.rs` finds below this crate's root, sorted by
//! path (`src/spec/files.rs` includes it).

use std::path::PathBuf;

#[path = "src/spec/listing.rs"]
mod listing;

fn main() -> Result<(), String> {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR is not set")?);
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let files = listing::yaml_files(&root).map_err(|(path, e)| format!("cannot read {path}: {e}"))?;
    if !files.iter().any(|f| f.starts_with("specs/")) {
        return Err(format!("no specs/**/*.yaml below {}: the crate must ship its tables", root.display()));
    }
    // A folder makes cargo rerun this script when any file below it changes, appears or goes.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/spec/listing.rs");
    for folder in listing::FOLDERS.iter().filter(|f| root.join(f).is_dir()) {
        println!("cargo:rerun-if-changed={folder}");
    }
    let mut text = String::from("&[\n");
    for file in &files {
        let absolute = root.join(file).display().to_string();
        println!("cargo:rerun-if-changed={file}");
        text += &format!("    ({file:?}, include_str!({absolute:?})),\n");
    }
    text += "]\n";
    let target = out.join("catalog_files.rs");
    std::fs::write(&target, text).map_err(|e| format!("cannot write {}: {e}", target.display()))
}
