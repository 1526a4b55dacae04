//! Known deviations as data: `expectations/<adapter>.yaml` lists, per adapter, the checks that
//! are known to fail, with what the implementation does and why that breaks the contract.
//!
//! A listed check that fails is reported as an expected failure (the run stays green); a
//! listed check that passes is a failure ("remove the entry"), and an entry that names no
//! check of the catalog is a load error, so the file cannot rot.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::files::CatalogFiles;
use super::load::{LoadError, parse_yaml};

/// One adapter's expectations file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationsFile {
    /// The adapter the entries are about (the file is `expectations/<adapter>.yaml`).
    pub adapter: String,
    /// The known deviations.
    pub deviations: Vec<Deviation>,
}

/// A check, or a set of checks, known to fail.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    /// The check's query-style id (`numr:numr:pow:f32:random`), or a pattern of ids: `*`
    /// stands for any run of characters, `{a,b}` for either alternative
    /// (`{numr,array-api}:numr:maximum:{f16,f32}:random`). Every check a pattern matches must
    /// fail, and a pattern must match at least one check.
    pub id: Spanned<String>,
    /// What the implementation does, precisely (the finding).
    pub does: String,
    /// Which rule that breaks.
    pub why: String,
    /// How far the deviation may go before it fails the run.
    #[serde(default)]
    pub tolerate: Tolerance,
    /// Where the entry applies (default: everywhere).
    #[serde(default)]
    pub when: Condition,
}

/// Bounds on a known deviation: a check that fails beyond them is a failure.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// At most this many failing inputs per check.
    pub failed_inputs: Option<usize>,
    /// At most this ULP error (approximate operations).
    pub max_ulp: Option<f64>,
}

/// The platform an entry is about, for libraries that pick kernels at run time.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// `x86_64-linux` (architecture-os, as the report's `target`).
    pub target: Option<String>,
    /// CPU features that must all be present (`avx512f`), as the report lists them.
    #[serde(default)]
    pub cpu_features: Vec<String>,
}

impl Condition {
    /// Whether the entry applies on this machine.
    pub fn holds(&self) -> bool {
        let features = crate::platform::cpu_features();
        self.target.as_ref().is_none_or(|t| *t == crate::platform::target())
            && self.cpu_features.iter().all(|f| features.contains(f))
    }
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
    /// Loads the catalog's `expectations/*.yaml` (none if it has no such files).
    pub fn load(files: &CatalogFiles) -> Result<Expectations, LoadError> {
        let mut loaded = Vec::new();
        for (path, text) in files.below("expectations") {
            let file: ExpectationsFile = parse_yaml(path, text)?;
            if path.file_stem().is_none_or(|s| s.to_string_lossy() != file.adapter) {
                return Err(LoadError {
                    file: path.to_path_buf(),
                    line: None,
                    column: None,
                    message: format!("field `adapter`: `{}` must match the file name", file.adapter),
                });
            }
            check_bounds(path, &file)?;
            loaded.push((path.to_path_buf(), file));
        }
        Ok(Expectations { files: loaded })
    }

    /// Adds a file from outside the catalog (`--expectations FILE`): a vendor's own, whose
    /// adapter is named by its `adapter` field.
    pub fn add_file(&mut self, path: &Path, text: &str) -> Result<(), LoadError> {
        let file: ExpectationsFile = parse_yaml(path, text)?;
        check_bounds(path, &file)?;
        self.files.push((path.to_path_buf(), file));
        Ok(())
    }

    /// The entry listing check `id` on this machine, if any.
    pub fn listed(&self, id: &str) -> Option<Listed<'_>> {
        self.files.iter().find_map(|(file, f)| {
            f.deviations.iter().find(|d| d.when.holds() && matches(&d.id.value, id)).map(|deviation| Listed {
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
                f.deviations.iter().filter(|d| !ids.iter().any(|id| matches(&d.id.value, id))).map(move |d| {
                    LoadError {
                        file: file.clone(),
                        line: Some(d.id.referenced.line()),
                        column: Some(d.id.referenced.column()),
                        message: format!(
                            "field `id`: `{}` matches no check (renamed or removed?)",
                            d.id.value
                        ),
                    }
                })
            })
            .collect()
    }
}

/// A `tolerate.max_ulp` must be a finite, non-negative number of ULPs.
fn check_bounds(path: &Path, file: &ExpectationsFile) -> Result<(), LoadError> {
    for d in &file.deviations {
        if let Some(u) = d.tolerate.max_ulp
            && !(u.is_finite() && u >= 0.0)
        {
            return Err(LoadError {
                file: path.to_path_buf(),
                line: Some(d.id.referenced.line()),
                column: Some(d.id.referenced.column()),
                message: format!(
                    "field `tolerate.max_ulp`: {u} is not a finite, non-negative number of ULPs"
                ),
            });
        }
    }
    Ok(())
}

/// Whether `id` matches `pattern` (`*` and `{a,b}` alternatives; everything else literal).
pub fn matches(pattern: &str, id: &str) -> bool {
    expand(pattern).iter().any(|p| glob(p.as_bytes(), id.as_bytes()))
}

/// The brace alternatives of `pattern`, expanded (`a{b,c}d` -> `abd`, `acd`).
fn expand(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else { return vec![pattern.to_string()] };
    let Some(close) = pattern[open..].find('}').map(|c| open + c) else { return vec![pattern.to_string()] };
    let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
    pattern[open + 1..close].split(',').flat_map(|alt| expand(&format!("{head}{alt}{tail}"))).collect()
}

/// `*` matches any run of bytes; other bytes match themselves.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|i| glob(rest, &text[i..])),
        Some((c, rest)) => text.first() == Some(c) && glob(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("numr:numr:pow:f32:random", "numr:numr:pow:f32:random"));
        assert!(!matches("numr:numr:pow:f32:random", "numr:numr:pow:f64:random"));
        assert!(matches("{numr,array-api}:numr:pow:{f32,f64}:*", "array-api:numr:pow:f64:edges"));
        assert!(!matches("{numr,array-api}:numr:pow:{f32,f64}:*", "array-api:numr:pow:f16:edges"));
        assert!(matches("*:numr:add:*+*:*", "array-api:numr:add:i8+u8:promote"));
        assert!(!matches("*:numr:add:*+*:*", "array-api:numr:add:i8:edges"));
    }
}
