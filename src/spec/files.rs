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

/// The largest catalog file read from a folder: 16 MiB (the shipped ones are under 100 KiB).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

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
}

impl CatalogFiles {
    /// The catalog shipped with opspec, as embedded in this binary.
    pub fn builtin() -> CatalogFiles {
        let files = EMBEDDED.iter().map(|&(path, text)| (path.to_string(), text.to_string())).collect();
        CatalogFiles { origin: Origin::BuiltIn, files }
    }

    /// A catalog of these `(relative path, text)` files, built in memory (the fuzz targets').
    pub fn from_texts(origin: Origin, files: impl IntoIterator<Item = (String, String)>) -> CatalogFiles {
        CatalogFiles { origin, files: files.into_iter().collect() }
    }

    /// Reads the catalog below `root` (its `specs/`, `suites/` and `expectations/`).
    pub fn read_dir(root: &Path) -> Result<CatalogFiles, LoadError> {
        let cannot = |path: &str, e: std::io::Error| match e.kind() {
            std::io::ErrorKind::InvalidInput => LoadError::whole(&root.join(path), e.to_string()),
            _ => LoadError::whole(&root.join(path), format!("cannot read: {e}")),
        };
        let layout = "the folder that holds specs/, suites/ and expectations/";
        if !root.exists() {
            return Err(LoadError::whole(root, format!("no such folder (the catalog root is {layout})")));
        }
        if !root.is_dir() {
            return Err(LoadError::whole(root, format!("not a folder (the catalog root is {layout})")));
        }
        let mut files = BTreeMap::new();
        for path in listing::yaml_files(root).map_err(|(path, e)| cannot(&path, e))? {
            let metadata = std::fs::metadata(root.join(&path)).map_err(|e| cannot(&path, e))?;
            if !metadata.is_file() || metadata.len() > MAX_FILE_BYTES {
                let m = format!(
                    "not a regular file of at most {} MiB (the limit per catalog file)",
                    MAX_FILE_BYTES >> 20
                );
                return Err(LoadError::whole(&root.join(&path), m));
            }
            let text = std::fs::read_to_string(root.join(&path)).map_err(|e| cannot(&path, e))?;
            files.insert(path, text);
        }
        Ok(CatalogFiles { origin: Origin::Root(root.to_path_buf()), files })
    }

    /// The files below folder `dir` (`specs`, `suites/`), recursively, in path order.
    pub fn below<'a>(&'a self, dir: &str) -> impl Iterator<Item = (&'a Path, &'a str)> + 'a {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        self.files
            .iter()
            .filter(move |(path, _)| path.starts_with(&prefix))
            .map(|(path, text)| (Path::new(path.as_str()), text.as_str()))
    }

    /// The contract revision: a 128-bit FNV-1a hash of every file's path, length and bytes,
    /// in path order, as 32 hex digits. It depends on the files alone, not on where they came
    /// from, so a `--root` holding the shipped files has the built-in revision.
    pub fn revision(&self) -> String {
        let lengths: Vec<[u8; 8]> =
            self.files.values().map(|text| (text.len() as u64).to_le_bytes()).collect();
        let parts =
            self.files.iter().zip(&lengths).flat_map(|((path, text), length)| {
                [path.as_bytes(), &[0], length.as_slice(), text.as_bytes()]
            });
        let hash = crate::bits::hash::fnv1a_128(parts);
        format!("{hash:032x}")
    }
}
