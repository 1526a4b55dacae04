//! Which files make up a catalog below a root folder. One listing serves both catalogs:
//! `build.rs` includes this file (with `#[path]`) to embed the shipped one, and `--root DIR`
//! reads another through it, so the two always consist of the same kind of files. It uses
//! only `std` for that reason.

use std::io;
use std::path::Path;

/// The folders below a catalog root that hold its files: the tables, the suites and the
/// known deviations.
pub const FOLDERS: [&str; 3] = ["specs", "suites", "expectations"];

/// The `*.yaml` files below `root`'s [`FOLDERS`], recursively, as paths relative to `root`
/// with `/` between components (`specs/elementwise/add.yaml`), sorted. A missing folder holds
/// no files. An error gives the relative path that could not be read, and why.
pub fn yaml_files(root: &Path) -> Result<Vec<String>, (String, io::Error)> {
    let mut files = Vec::new();
    let mut pending: Vec<String> =
        FOLDERS.iter().filter(|f| root.join(f).is_dir()).map(|f| f.to_string()).collect();
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(root.join(&dir)).map_err(|e| (dir.clone(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| (dir.clone(), e))?;
            let relative = format!("{dir}/{}", entry.file_name().to_string_lossy());
            if entry.path().is_dir() {
                pending.push(relative);
            } else if relative.ends_with(".yaml") {
                files.push(relative);
            }
        }
    }
    files.sort();
    Ok(files)
}
