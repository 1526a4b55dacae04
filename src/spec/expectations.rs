//! Known deviations as data: `expectations/<adapter>.yaml` lists, per adapter, the checks that
//! are known to fail, with what the implementation does and why that breaks the contract.
//!
//! A listed check that fails is reported as an expected failure (the run stays green); a
//! listed check that passes is a failure ("remove the entry"), and an entry that names no
//! check of the catalog is a load error, so the file cannot rot.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::load::{LoadError, read_yaml};

/// One adapter's expectations file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationsFile {
    /// The adapter the entries are about (the file is `expectations/<adapter>.yaml`).
    pub adapter: String,
    /// The known deviations.
    pub deviations: Vec<Deviation>,
}

/// A check known to fail.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    /// The check's query-style id (`numr:numr:pow:f32:random`).
    pub id: Spanned<String>,
    /// What the implementation does, precisely (the finding).
    pub does: String,
    /// Which rule that breaks.
    pub why: String,
}

/// Every expectations file of a catalog.
#[derive(Debug, Default)]
pub struct Expectations {
    /// The files, with their paths relative to the catalog root.
    pub files: Vec<(PathBuf, ExpectationsFile)>,
}

/// Where a check is listed: the file, its line, and the entry.
pub struct Listed<'a> {
    pub file: &'a Path,
    pub line: u64,
    pub deviation: &'a Deviation,
}

impl Expectations {
    /// Loads `expectations/*.yaml` below `root` (none if the folder is missing).
    pub fn load(root: &Path) -> Result<Expectations, LoadError> {
        let mut files = Vec::new();
        let dir = root.join("expectations");
        if !dir.exists() {
            return Ok(Expectations { files });
        }
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| LoadError {
                file: PathBuf::from("expectations"),
                line: None,
                column: None,
                message: format!("cannot read directory: {e}"),
            })?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        paths.sort();
        for path in paths {
            let file: ExpectationsFile = read_yaml(&path)?;
            let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if path.file_stem().is_none_or(|s| s.to_string_lossy() != file.adapter) {
                return Err(LoadError {
                    file: relative,
                    line: None,
                    column: None,
                    message: format!("field `adapter`: `{}` must match the file name", file.adapter),
                });
            }
            files.push((relative, file));
        }
        Ok(Expectations { files })
    }

    /// The entry listing check `id`, if any.
    pub fn listed(&self, id: &str) -> Option<Listed<'_>> {
        self.files.iter().find_map(|(file, f)| {
            f.deviations.iter().find(|d| d.id.value == id).map(|deviation| Listed {
                file,
                line: deviation.id.referenced.line(),
                deviation,
            })
        })
    }

    /// Entries that name no check among `ids` (the planned checks of their adapter), as
    /// load errors.
    pub fn unknown(&self, ids: &std::collections::HashSet<&str>) -> Vec<LoadError> {
        self.files
            .iter()
            .flat_map(|(file, f)| {
                f.deviations.iter().filter(|d| !ids.contains(d.id.value.as_str())).map(move |d| LoadError {
                    file: file.clone(),
                    line: Some(d.id.referenced.line()),
                    column: Some(d.id.referenced.column()),
                    message: format!("field `id`: no check `{}` (renamed or removed?)", d.id.value),
                })
            })
            .collect()
    }
}
