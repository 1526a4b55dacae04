//! The contract as data: spec tables and suites, loaded and validated.

pub mod broadcast;
pub mod expectations;
pub mod load;
pub mod matching;
pub mod promotion;
pub mod scatter;
pub mod schema;
pub mod suite;

use std::path::{Path, PathBuf};

use opspec_adapter::{BinaryOp, DType, OpKind, TernaryOp};

use broadcast::LoadedBroadcastTable;
use expectations::Expectations;
pub use load::LoadError;
use load::{read_yaml, validate_table};
use promotion::PromotionTable;
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

/// A promotion table with where it came from.
#[derive(Debug)]
pub struct LoadedPromotion {
    pub path: PathBuf,
    /// The name suites use (`promotion/array_api`).
    pub key: String,
    pub table: PromotionTable,
}

/// A suite with its tables resolved.
#[derive(Debug)]
pub struct LoadedSuite {
    pub path: PathBuf,
    pub suite: Suite,
    /// Indices into [`Catalog::tables`].
    pub tables: Vec<usize>,
    /// Indices into [`Catalog::promotions`].
    pub promotions: Vec<usize>,
    /// Indices into [`Catalog::broadcasting`].
    pub broadcasting: Vec<usize>,
    /// Indices into [`Catalog::scatter`].
    pub scatter: Vec<usize>,
    pub dtypes: Vec<DType>,
}

/// Every table under `specs/` and every suite under `suites/`.
#[derive(Debug)]
pub struct Catalog {
    pub root: PathBuf,
    /// Element-wise tables (`specs/elementwise`, `specs/fused`).
    pub tables: Vec<LoadedTable>,
    /// Promotion tables (`specs/promotion`).
    pub promotions: Vec<LoadedPromotion>,
    /// Scatter tables (`specs/scatter/`).
    pub scatter: Vec<scatter::LoadedScatter>,
    pub suites: Vec<LoadedSuite>,
    /// The broadcasting tables (`specs/broadcasting/`).
    pub broadcasting: Vec<LoadedBroadcastTable>,
    /// Known deviations per adapter (`expectations/`).
    pub expectations: Expectations,
}

impl Catalog {
    /// The catalog shipped with opspec (this crate's `specs/` and `suites/`).
    pub fn builtin() -> Result<Catalog, LoadError> {
        Catalog::load(Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// Loads and validates every table and suite below `root`.
    pub fn load(root: &Path) -> Result<Catalog, LoadError> {
        let mut tables = Vec::new();
        for dir in ["specs/elementwise", "specs/fused"] {
            for path in yaml_files(root, &root.join(dir))? {
                tables.push(load_table(root, &path)?);
            }
        }
        tables.sort_by(|a, b| a.key.cmp(&b.key));
        let mut promotions = Vec::new();
        for path in yaml_files(root, &root.join("specs/promotion"))? {
            let table: PromotionTable = read_yaml(&path)?;
            promotion::validate(&path, &table)?;
            let (path, key) = key_of(root, &path);
            promotions.push(LoadedPromotion { path, key, table });
        }
        let mut broadcasting = Vec::new();
        for path in yaml_files(root, &root.join("specs/broadcasting"))? {
            broadcasting.push(broadcast::load_table(root, &path)?);
        }
        broadcasting.sort_by(|a, b| a.key.cmp(&b.key));
        let mut scatter = Vec::new();
        for path in yaml_files(root, &root.join("specs/scatter"))? {
            scatter.push(scatter::load_scatter(root, &path)?);
        }
        scatter.sort_by(|a, b| a.key.cmp(&b.key));
        let mut catalog = Catalog {
            root: root.to_path_buf(),
            tables,
            promotions,
            broadcasting,
            scatter,
            suites: Vec::new(),
            expectations: Expectations::default(),
        };
        for path in yaml_files(root, &root.join("suites"))? {
            let suite = load_suite(root, &path, &catalog)?;
            catalog.suites.push(suite);
        }
        catalog.suites.sort_by(|a, b| a.suite.name.cmp(&b.suite.name));
        catalog.expectations = Expectations::load(root)?;
        for (_, file) in &catalog.expectations.files {
            let planned = crate::run::adapter_checks(&catalog, std::slice::from_ref(&file.adapter));
            let ids = planned.iter().map(|c| c.id.as_str()).collect();
            if let Some(e) = catalog.expectations.unknown(&ids).into_iter().next() {
                return Err(e);
            }
        }
        Ok(catalog)
    }

    /// Every YAML file of the contract (tables and suites), in a stable order.
    pub fn files(&self) -> Result<Vec<PathBuf>, LoadError> {
        let mut files = yaml_files(&self.root, &self.root.join("specs"))?;
        files.extend(yaml_files(&self.root, &self.root.join("suites"))?);
        files.extend(yaml_files(&self.root, &self.root.join("expectations"))?);
        Ok(files)
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
    if let Some(op) = name.strip_suffix("_into").and_then(|b| b.parse::<BinaryOp>().ok()) {
        return Some(OpKind::BinaryInto(op));
    }
    None
}

/// Number of operands of an operation.
pub fn arity(op: OpKind) -> usize {
    match op {
        OpKind::Ternary(_) | OpKind::ScatterAdd => 3,
        _ => 2,
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
    let (path, key) = key_of(root, path);
    Ok(LoadedTable { path, key, op, table })
}

/// A table's path relative to the root, and its key (`elementwise/add`).
fn key_of(root: &Path, path: &Path) -> (PathBuf, String) {
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    let key = relative
        .strip_prefix("specs")
        .unwrap_or(&relative)
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/");
    (relative, key)
}

fn load_suite(root: &Path, path: &Path, catalog: &Catalog) -> Result<LoadedSuite, LoadError> {
    let suite: Suite = read_yaml(path)?;
    let tables = &catalog.tables;
    let whole = |m: String| LoadError { file: path.to_path_buf(), line: None, column: None, message: m };
    let (mut indices, mut promotions, mut broadcasting, mut scatter) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for key in &suite.specs {
        if let Some(i) = tables.iter().position(|t| &t.key == key) {
            indices.push(i);
        } else if let Some(i) = catalog.promotions.iter().position(|t| &t.key == key) {
            promotions.push(i);
        } else if let Some(i) = catalog.broadcasting.iter().position(|t| &t.key == key) {
            broadcasting.push(i);
        } else if let Some(i) = catalog.scatter.iter().position(|t| &t.key == key) {
            scatter.push(i);
        } else {
            return Err(whole(format!("field `specs`: no table specs/{key}.yaml")));
        }
    }
    match &suite.scatter {
        None if !scatter.is_empty() => {
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
    if dtypes.iter().any(|d| !d.is_float()) && suite.integers.is_none() {
        return Err(whole("field `integers`: the suite lists integer dtypes, so it must say how their overflow, division by zero and negative exponents are judged".into()));
    }
    for op in suite.step_bounds.keys() {
        let Some(&i) = indices.iter().find(|&&i| tables[i].op == OpKind::Binary(*op)) else {
            return Err(whole(format!("field `step_bounds`: `{op}` is not among the suite's specs")));
        };
        if tables[i].table.accuracy != schema::Accuracy::Approximate {
            return Err(whole(format!("field `step_bounds`: `{op}` is not approximate, so it has no bound")));
        }
    }
    let relative = path.strip_prefix(root).unwrap_or(path).to_path_buf();
    Ok(LoadedSuite { path: relative, suite, tables: indices, promotions, broadcasting, scatter, dtypes })
}

/// `*.yaml` files below `dir`, recursively, in a stable order (none if `dir` is missing).
fn yaml_files(root: &Path, dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
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
