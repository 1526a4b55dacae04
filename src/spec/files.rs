//! A catalog's files in memory: the set embedded in the binary at build time, or one read
//! from a folder (`--root DIR`). Loading parses only these, so both catalogs go through one
//! path, and the contract revision is a hash of exactly the bytes that were loaded.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::listing;
use super::load::LoadError;

/// The shipped catalog, `(relative path, text)` sorted by path, written by `build.rs`.
const EMBEDDED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/catalog_files.rs"));

/// Where a catalog came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The catalog embedded in the binary when it was built.
    BuiltIn,
    /// The folder given with `--root`.
    Root(PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::BuiltIn => write!(f, "built-in catalog"),
            Origin::Root(dir) => write!(f, "catalog at {}", dir.display()),
        }
    }
}

/// A catalog's YAML files, keyed by their path relative to the catalog root with `/` between
/// components (`specs/elementwise/add.yaml`), with where they came from.
#[derive(Clone, Debug)]
pub struct CatalogFiles {
    /// Where the files came from.
    pub origin: Origin,
    files: BTreeMap<String, String>,
    /// Where the files that came from outside the catalog are (by key), so that loading names
    /// them by their real path ([`CatalogFiles::with_expectations_file`]).
    outside: BTreeMap<String, PathBuf>,
}

impl CatalogFiles {
    /// The catalog shipped with opspec, as embedded in this binary.
    pub fn builtin() -> CatalogFiles {
        let files = EMBEDDED.iter().map(|&(path, text)| (path.to_string(), text.to_string())).collect();
        CatalogFiles { origin: Origin::BuiltIn, files, outside: BTreeMap::new() }
    }

    /// Reads the catalog below `root` (its `specs/`, `suites/` and `expectations/`).
    pub fn read_dir(root: &Path) -> Result<CatalogFiles, LoadError> {
        let cannot =
            |path: &str, e: std::io::Error| LoadError::whole(Path::new(path), format!("cannot read: {e}"));
        let mut files = BTreeMap::new();
        for path in listing::yaml_files(root).map_err(|(path, e)| cannot(&path, e))? {
            let text = std::fs::read_to_string(root.join(&path)).map_err(|e| cannot(&path, e))?;
            files.insert(path, text);
        }
        Ok(CatalogFiles { origin: Origin::Root(root.to_path_buf()), files, outside: BTreeMap::new() })
    }

    /// The catalog with the file at `path` (outside it: a vendor keeps its own) as its only
    /// expectations file. The catalog's `expectations/` are left out; the file takes their
    /// place as `expectations/<its file name>`, so it counts in the revision as a file of the
    /// catalog would, and loading names it by `path` in errors and reports.
    pub fn with_expectations_file(mut self, path: &Path) -> Result<CatalogFiles, LoadError> {
        let name =
            path.file_name().and_then(|n| n.to_str()).filter(|n| n.ends_with(".yaml")).ok_or_else(|| {
                LoadError::whole(path, "an expectations file is named <adapter>.yaml".to_string())
            })?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| LoadError::whole(path, format!("cannot read the expectations file: {e}")))?;
        let key = format!("expectations/{name}");
        self.files.retain(|k, _| !k.starts_with("expectations/"));
        self.files.insert(key.clone(), text);
        self.outside = BTreeMap::from([(key, path.to_path_buf())]);
        Ok(self)
    }

    /// The files below folder `dir` (`specs`, `suites/`), recursively, in path order.
    pub fn below<'a>(&'a self, dir: &str) -> impl Iterator<Item = (&'a Path, &'a str)> + 'a {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        self.files.iter().filter(move |(path, _)| path.starts_with(&prefix)).map(|(path, text)| {
            (self.outside.get(path).map_or(Path::new(path.as_str()), PathBuf::as_path), text.as_str())
        })
    }

    /// The contract revision: a 128-bit FNV-1a hash of every file's path, length and bytes,
    /// in path order, as 32 hex digits. It depends on the files alone, not on where they came
    /// from, so a `--root` holding the shipped files has the built-in revision.
    pub fn revision(&self) -> String {
        const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
        const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
        let mut hash = OFFSET;
        for (path, text) in &self.files {
            let length = (text.len() as u64).to_le_bytes();
            for &b in path.as_bytes().iter().chain(&[0]).chain(&length).chain(text.as_bytes()) {
                hash = (hash ^ u128::from(b)).wrapping_mul(PRIME);
            }
        }
        format!("{hash:032x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outside_expectations_file_replaces_the_catalogs_and_keeps_its_path() {
        let dir = std::env::temp_dir().join(format!("opspec-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mylib.yaml");
        std::fs::write(&path, "adapter: mylib\ndeviations: []\n").unwrap();
        let builtin = CatalogFiles::builtin();
        assert!(builtin.below("expectations").count() > 0, "the shipped catalog lists numr's deviations");
        let files = CatalogFiles::builtin().with_expectations_file(&path).unwrap();
        let listed: Vec<_> = files.below("expectations").map(|(p, _)| p.to_path_buf()).collect();
        assert_eq!(listed, std::slice::from_ref(&path));
        assert_ne!(files.revision(), builtin.revision());
        assert_eq!(files.below("specs").count(), builtin.below("specs").count());

        let missing = CatalogFiles::builtin().with_expectations_file(&dir.join("gone.yaml")).unwrap_err();
        assert!(missing.to_string().contains("gone.yaml: cannot read the expectations file"), "{missing}");
        let badly_named = CatalogFiles::builtin().with_expectations_file(&dir.join("mylib.txt")).unwrap_err();
        assert!(badly_named.to_string().contains("named <adapter>.yaml"), "{badly_named}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
