//! Which files make up a catalog below a root folder. One listing serves both catalogs:
//! `build.rs` includes this file (with `#[path]`) to embed the shipped one, and `--root DIR`
//! reads another through it, so the two always consist of the same kind of files. It uses
//! only `std` for that reason.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

/// The folders below a catalog root that hold its files: the tables, the suites and the
/// known deviations.
pub const FOLDERS: [&str; 3] = ["specs", "suites", "expectations"];

/// The `*.yaml` files below `root`'s [`FOLDERS`], recursively, as paths relative to `root`
/// with `/` between components (`specs/elementwise/add.yaml`), sorted. A missing folder holds
/// no files; a file named as YAML otherwise (`numr.yml`, `add.YAML`) is an error
/// (`io::ErrorKind::InvalidInput`), not left out unread. Links are followed only within `root`; a link out of it, a broken one, or a
/// folder or file reached twice (a link loop, or a second way to the same table) is an
/// error. An error gives the relative path that could not be read, and why.
pub fn yaml_files(root: &Path) -> Result<Vec<String>, (String, io::Error)> {
    let top = root.canonicalize().map_err(|e| (".".to_string(), e))?;
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    let mut pending: Vec<String> =
        FOLDERS.iter().filter(|f| root.join(f).is_dir()).map(|f| f.to_string()).collect();
    for dir in &pending {
        visit(&top, root, dir, &mut seen)?;
    }
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(root.join(&dir)).map_err(|e| (dir.clone(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| (dir.clone(), e))?;
            let relative = format!("{dir}/{}", entry.file_name().to_string_lossy());
            let is_yaml = relative.ends_with(".yaml");
            if !is_yaml && misnamed_yaml(&relative) {
                let stem = entry
                    .file_name()
                    .to_string_lossy()
                    .rsplit_once('.')
                    .map_or(String::new(), |(s, _)| s.to_string());
                let why = format!(
                    "catalog files are named `*.yaml`: rename it `{stem}.yaml` (it would be left out unread)"
                );
                return Err((relative, io::Error::new(io::ErrorKind::InvalidInput, why)));
            }
            let is_link = entry.file_type().map_err(|e| (relative.clone(), e))?.is_symlink();
            if !is_yaml && !is_link && !entry.path().is_dir() {
                continue;
            }
            let is_dir = visit(&top, root, &relative, &mut seen)?;
            if is_dir {
                pending.push(relative);
            } else if is_yaml {
                files.push(relative);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Whether `name` ends like a YAML file but not in `.yaml` (`.yml`, `.YAML`): a file its
/// author meant to be read.
fn misnamed_yaml(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yml") || lower.ends_with(".yaml")
}

/// Records the folder or file at `relative` as reached, after checking that it lies inside
/// `top` (the canonical root) and was not reached before; returns whether it is a folder.
fn visit(
    top: &Path,
    root: &Path,
    relative: &str,
    seen: &mut HashSet<PathBuf>,
) -> Result<bool, (String, io::Error)> {
    let fail = |why: String| (relative.to_string(), io::Error::other(why));
    let real = root
        .join(relative)
        .canonicalize()
        .map_err(|e| fail(format!("a broken link or unreadable path ({e})")))?;
    if !real.starts_with(top) {
        return Err(fail(format!("links out of the catalog root (to {})", real.display())));
    }
    if !seen.insert(real.clone()) {
        return Err(fail(format!(
            "{} is reached twice (a link loop, or a second link to it): links may not repeat a folder or file",
            real.display()
        )));
    }
    Ok(real.is_dir())
}
