//! The contract as data: spec tables and suites, loaded and validated.

pub mod load;
pub mod matching;
pub mod scatter;
pub mod schema;
pub mod suite;

use std::path::{Path, PathBuf};

use opspec_adapter::{BinaryOp, DType, OpKind, TernaryOp};

pub use load::LoadError;
use load::{read_yaml, validate_table};
use schema::SpecTable;
use suite::Suite;

/// A table with where it came from.
#[derive(Debug)]
pub struct LoadedTable {
    /// Path relative to the catalog root (`specs/elementwise/add.yaml`).
    pub path: PathBuf,
    /// The name suites use (`elementwise/add`).
    pub key: String,
    /// The operation the table specifies.
    pub op: OpKind,
    pub table: SpecTable,
}

/// A suite with its tables resolved.
#[derive(Debug)]
pub struct LoadedSuite {
    pub path: PathBuf,
    pub suite: Suite,
    /// Indices into [`Catalog::tables`].
    pub tables: Vec<usize>,
    /// Indices into [`Catalog::scatter`].
    pub scatter: Vec<usize>,
    pub dtypes: Vec<DType>,
}

/// Every table under `specs/` and every suite under `suites/`.
#[derive(Debug)]
pub struct Catalog {
    pub root: PathBuf,
    pub tables: Vec<LoadedTable>,
    /// Scatter tables (`specs/scatter/`).
    pub scatter: Vec<scatter::LoadedScatter>,
    pub suites: Vec<LoadedSuite>,
}

impl Catalog {
    /// The catalog shipped with opspec (this crate's `specs/` and `suites/`).
    pub fn builtin() -> Result<Catalog, LoadError> {
        Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// Loads and validates every table and suite below `root`.
    pub fn load(root: &Path) -> Result<Catalog, LoadError> {
        let mut tables = Vec::new();
        let mut scatter_tables = Vec::new();
        for path in yaml_files(root, &root.join("specs"))? {
            if scatter::is_scatter_path(root, &path) {
                scatter_tables.push(scatter::load_scatter(root, &path)?);
            } else {
                tables.push(load_table(root, &path)?);
            }
        }
        tables.sort_by(|a, b| a.key.cmp(&b.key));
        scatter_tables.sort_by(|a, b| a.key.cmp(&b.key));
        let mut suites = Vec::new();
        for path in yaml_files(root, &root.join("suites"))? {
            suites.push(load_suite(root, &path, &tables, &scatter_tables)?);
        }
        suites.sort_by(|a, b| a.suite.name.cmp(&b.suite.name));
        Ok(Catalog { root: root.to_path_buf(), tables, scatter: scatter_tables, suites })
    }

    /// The suite called `name`.
    pub fn suite(&self, name: &str) -> Option<&LoadedSuite> {
        self.suites.iter().find(|s| s.suite.name == name)
    }
}

/// Parses an operation name from a table into the adapter API's operation.
pub fn parse_op(name: &str) -> Option<OpKind> {
    if let Ok(op) = name.parse::<BinaryOp>() {
        return Some(OpKind::Binary(op));
    }
    if let Ok(op) = name.parse::<TernaryOp>() {
        return Some(OpKind::Ternary(op));
    }
    None
}

/// Number of operands of an operation.
pub fn arity(op: OpKind) -> usize {
    match op {
        OpKind::Binary(_) | OpKind::BinaryInto(_) => 2,
        OpKind::Ternary(_) | OpKind::ScatterAdd => 3,
    }
}

fn load_table(root: &Path, path: &Path) -> Result<LoadedTable, LoadError> {
    let table: SpecTable = read_yaml(path)?;
    validate_table(path, &table)?;
    let whole = |m: String| LoadError { file: path.to_path_buf(), line: None, column: None, message: m };
    let op =
        parse_op(&table.op).ok_or_else(|| whole(format!("field `op`: unknown operation `{}`", table.op)))?;
    if arity(op) != table.operands.len() {
        return Err(whole(format!("field `operands`: `{}` takes {} operands", table.op, arity(op))));
    }
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    let key = relative
        .strip_prefix("specs")
        .unwrap_or(&relative)
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/");
    Ok(LoadedTable { path: relative, key, op, table })
}

fn load_suite(
    root: &Path,
    path: &Path,
    tables: &[LoadedTable],
    scatter_tables: &[scatter::LoadedScatter],
) -> Result<LoadedSuite, LoadError> {
    let suite: Suite = read_yaml(path)?;
    let whole = |m: String| LoadError { file: path.to_path_buf(), line: None, column: None, message: m };
    let (mut indices, mut scatter_indices) = (Vec::new(), Vec::new());
    for key in &suite.specs {
        if let Some(i) = tables.iter().position(|t| &t.key == key) {
            indices.push(i);
        } else if let Some(i) = scatter_tables.iter().position(|t| &t.key == key) {
            scatter_indices.push(i);
        } else {
            return Err(whole(format!("field `specs`: no table specs/{key}.yaml")));
        }
    }
    match &suite.scatter {
        None if !scatter_indices.is_empty() => {
            return Err(whole(
                "field `scatter`: a suite with scatter tables needs a `scatter:` block".into(),
            ));
        }
        Some(params) => scatter::validate_params(params).map_err(whole)?,
        None => {}
    }
    let dtypes = suite
        .dtypes
        .iter()
        .map(|d| d.parse::<DType>().map_err(|e| whole(format!("field `dtypes`: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    for (op, bounds) in &suite.ulp_bounds {
        if !indices.iter().any(|&i| &tables[i].table.op == op) {
            return Err(whole(format!("field `ulp_bounds`: `{op}` is not among the suite's specs")));
        }
        for d in bounds.keys() {
            d.parse::<DType>().map_err(|e| whole(format!("field `ulp_bounds.{op}`: {e}")))?;
        }
    }
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    Ok(LoadedSuite { path: relative, suite, tables: indices, scatter: scatter_indices, dtypes })
}

/// `*.yaml` files below `dir`, recursively, in a stable order.
fn yaml_files(root: &Path, dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| LoadError {
            file: d.strip_prefix(root).unwrap_or(&d).to_path_buf(),
            line: None,
            column: None,
            message: format!("cannot read directory: {e}"),
        })?;
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
            } else if p.extension().is_some_and(|e| e == "yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}
