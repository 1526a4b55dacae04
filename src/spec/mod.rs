//! The contract as data: spec tables and suites, loaded and validated.

pub mod broadcast;
pub mod expectations;
pub mod files;
mod listing;
pub mod load;
pub mod matching;
pub mod notation;
pub mod promotion;
pub mod scatter;
pub mod schema;
pub mod source;
pub mod suite;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use opspec_adapter::{BinaryOp, DType, OpKind, TernaryOp};

use broadcast::LoadedBroadcastTable;
use expectations::Expectations;
pub use files::{CatalogFiles, Origin};
pub use load::LoadError;
use load::{parse_yaml, validate_table};
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

/// A table with where it came from: its path relative to the catalog root
/// (`specs/promotion/array_api.yaml`) and the key suites use (`promotion/array_api`).
/// Element-wise and broadcasting tables have types of their own, as they also carry what
/// loading derived from them (the parsed operation; the parsed vectors).
#[derive(Debug)]
pub struct Loaded<T> {
    pub path: PathBuf,
    pub key: String,
    pub table: T,
}

/// A promotion table with where it came from.
pub type LoadedPromotion = Loaded<PromotionTable>;

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

/// Every table under `specs/`, every suite under `suites/` and every expectations file under
/// `expectations/`, with where they came from.
#[derive(Debug)]
pub struct Catalog {
    /// Where the catalog came from: built in, or a `--root` folder.
    pub origin: Origin,
    /// The contract revision: a hash of the files loaded ([`CatalogFiles::revision`]).
    pub revision: String,
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
    /// The text of every table and expectations file, by path (what a report cites).
    pub sources: BTreeMap<String, String>,
}

impl Catalog {
    /// The catalog shipped with opspec, embedded in the binary when it was built.
    pub fn builtin() -> Result<Catalog, LoadError> {
        Catalog::from_files(&CatalogFiles::builtin())
    }

    /// Loads and validates the catalog in the folder `root` (`--root`).
    pub fn load(root: &Path) -> Result<Catalog, LoadError> {
        Catalog::from_files(&CatalogFiles::read_dir(root)?)
    }

    /// Loads and validates every table, suite and expectations file of `files`. A catalog
    /// without tables, or with a table outside the tables' folders, is an error. Whether each
    /// expectations entry names a planned check is asked of the planner
    /// (`run::validate_expectations`), not here.
    pub fn from_files(files: &CatalogFiles) -> Result<Catalog, LoadError> {
        let mut catalog = Catalog {
            origin: files.origin.clone(),
            revision: files.revision(),
            tables: Vec::new(),
            promotions: Vec::new(),
            broadcasting: Vec::new(),
            scatter: Vec::new(),
            suites: Vec::new(),
            expectations: Expectations::default(),
            sources: files
                .below("specs")
                .chain(files.below("expectations"))
                .map(|(path, text)| (path.display().to_string(), text.to_string()))
                .collect(),
        };
        for (path, text) in files.below("specs") {
            match path.iter().nth(1).and_then(|folder| folder.to_str()) {
                Some("elementwise" | "fused") => catalog.tables.push(load_table(path, text)?),
                Some("promotion") => {
                    let table: PromotionTable = parse_yaml(path, text)?;
                    promotion::validate(path, &table)?;
                    let key = key_of(path);
                    catalog.promotions.push(LoadedPromotion { path: path.to_path_buf(), key, table });
                }
                Some("broadcasting") => catalog.broadcasting.push(broadcast::load_table(path, text)?),
                Some("scatter") => catalog.scatter.push(scatter::load_scatter(path, text)?),
                _ => {
                    let folders = "specs/elementwise, fused, promotion, broadcasting or scatter";
                    return Err(LoadError::whole(path, format!("not in a table folder ({folders})")));
                }
            }
        }
        if catalog.table_count() == 0 {
            return Err(LoadError::whole(
                Path::new("specs"),
                format!("no tables in the {} (a catalog keeps them in specs/**/*.yaml)", files.origin),
            ));
        }
        catalog.tables.sort_by(|a, b| a.key.cmp(&b.key));
        catalog.broadcasting.sort_by(|a, b| a.key.cmp(&b.key));
        catalog.scatter.sort_by(|a, b| a.key.cmp(&b.key));
        for (path, text) in files.below("suites") {
            let suite = load_suite(path, text, &catalog)?;
            catalog.suites.push(suite);
        }
        catalog.suites.sort_by(|a, b| a.suite.name.cmp(&b.suite.name));
        catalog.expectations = Expectations::load(files)?;
        Ok(catalog)
    }

    /// The number of tables of every kind.
    pub fn table_count(&self) -> usize {
        self.tables.len() + self.promotions.len() + self.broadcasting.len() + self.scatter.len()
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

fn load_table(path: &Path, text: &str) -> Result<LoadedTable, LoadError> {
    let table: SpecTable = parse_yaml(path, text)?;
    let whole = |m: String| LoadError::whole(path, m);
    let op =
        parse_op(&table.op).ok_or_else(|| whole(format!("field `op`: unknown operation `{}`", table.op)))?;
    if arity(op) != table.operands.len() {
        return Err(whole(format!("field `operands`: `{}` takes {} operands", table.op, arity(op))));
    }
    validate_table(path, &table, op)?;
    Ok(LoadedTable { path: path.to_path_buf(), key: key_of(path), op, table })
}

/// A table's key, from its path relative to the catalog root (`specs/elementwise/add.yaml` is
/// `elementwise/add`).
fn key_of(path: &Path) -> String {
    path.strip_prefix("specs").unwrap_or(path).with_extension("").to_string_lossy().replace('\\', "/")
}

fn load_suite(path: &Path, text: &str, catalog: &Catalog) -> Result<LoadedSuite, LoadError> {
    let suite: Suite = parse_yaml(path, text)?;
    let tables = &catalog.tables;
    let whole = |m: String| LoadError::whole(path, m);
    if !load::is_valid_id(&suite.name) || suite.name == "table" {
        return Err(whole(format!(
            "field `name`: `{}` is not a suite name (lowercase letters, digits and `-`; `table` is reserved for the tables' own checks)",
            suite.name
        )));
    }
    if catalog.suites.iter().any(|s| s.suite.name == suite.name) {
        return Err(whole(format!("field `name`: another suite is called `{}`", suite.name)));
    }
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
    Ok(LoadedSuite {
        path: path.to_path_buf(),
        suite,
        tables: indices,
        promotions,
        broadcasting,
        scatter,
        dtypes,
    })
}
