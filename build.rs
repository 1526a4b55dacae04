//! Embeds the shipped catalog, so that a copied or installed `opspec` carries its contract:
//! writes `$OUT_DIR/catalog_files.rs`, a slice of `(relative path, include_str!(absolute
//! path))` for every file that `src/spec/listing.rs` finds below this crate's root, sorted by
//! path (`src/spec/files.rs` includes it); and sets `OPSPEC_SOURCE_HASH`, a hash of the code
//! it is built from (`crate::platform::build_id`).

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
    std::fs::write(&target, text).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    println!("cargo:rustc-env=OPSPEC_SOURCE_HASH={:016x}", source_hash(&root)?);
    Ok(())
}

/// The code compiled into opspec, hashed (64-bit FNV-1a of each file's path and text, in
/// path order): the sources and manifests of this crate and its in-process adapters, and
/// `Cargo.lock`. Two builds of one checkout share it, whatever machine built them.
fn source_hash(root: &std::path::Path) -> Result<u64, String> {
    fn walk(root: &std::path::Path, dir: &str, files: &mut Vec<String>) -> Result<(), String> {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("cannot read {dir}: {e}"))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {dir}: {e}"))?;
            let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
            if entry.path().is_dir() && !path.ends_with("/target") {
                walk(root, &path, files)?;
            } else if [".rs", ".toml", ".c", ".h", ".cu"].iter().any(|ext| path.ends_with(ext)) {
                files.push(path);
            }
        }
        Ok(())
    }
    let mut files = vec!["Cargo.toml".to_string(), "Cargo.lock".to_string(), "build.rs".to_string()];
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    for dir in ["src", "adapters/api", "adapters/cpu", "adapters/cuda", "adapters/numr"] {
        if root.join(dir).is_dir() {
            println!("cargo:rerun-if-changed={dir}");
            walk(root, dir, &mut files)?;
        }
    }
    files.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for file in files.iter().filter(|f| root.join(f).is_file()) {
        let text = std::fs::read(root.join(file)).map_err(|e| format!("cannot read {file}: {e}"))?;
        for part in [file.as_bytes(), &text] {
            for &b in (part.len() as u64).to_le_bytes().iter().chain(part) {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    Ok(hash)
}
