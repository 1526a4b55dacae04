//! The contract as data: spec tables and suites, loaded and validated.

pub mod aliases;
pub mod authority;
pub mod broadcast;
pub mod complex;
pub mod expectations;
pub mod failure;
pub mod files;
pub mod id;
pub mod limits;
mod listing;
pub mod load;
mod locate;
pub mod matching;
pub mod notation;
pub mod pattern;
pub mod profile;
pub mod promotion;
pub mod scatter;
pub mod schema;
pub mod source;
pub mod suite;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use opspec_adapter::{BinaryOp, DType, OpKind, TernaryOp, UnaryOp};

use crate::bits::format::Format;

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
    /// Indices into [`Catalog::elementwise`].
    pub tables: Vec<usize>,
    /// Indices into [`Catalog::promotions`].
    pub promotions: Vec<usize>,
    /// Indices into [`Catalog::broadcasting`].
    pub broadcasting: Vec<usize>,
    /// Indices into [`Catalog::scatter`].
    pub scatter: Vec<usize>,
    /// Indices into [`Catalog::complex`]. A complex table is checked in its own dtypes
    /// (`c64`, `c128`), not the suite's `dtypes`.
    pub complex: Vec<usize>,
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
    pub elementwise: Vec<LoadedTable>,
    /// Promotion tables (`specs/promotion`).
    pub promotions: Vec<LoadedPromotion>,
    /// Scatter tables (`specs/scatter/`).
    pub scatter: Vec<scatter::LoadedScatter>,
    /// Complex tables (`specs/complex/`).
    pub complex: Vec<complex::LoadedComplex>,
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
            elementwise: Vec::new(),
            promotions: Vec::new(),
            broadcasting: Vec::new(),
            scatter: Vec::new(),
            complex: Vec::new(),
            suites: Vec::new(),
            expectations: Expectations::default(),
            sources: files
                .below("specs")
                .chain(files.below("expectations"))
                .map(|(path, text)| (path.display().to_string(), text.to_string()))
                .collect(),
        };
        for (path, text) in files.below("specs") {
            catalog.add_table(path, text).map_err(|e| e.located(text))?;
        }
        if catalog.table_count() == 0 {
            return Err(LoadError::whole(
                Path::new("specs"),
                format!("no tables in the {} (a catalog keeps them in specs/**/*.yaml)", files.origin),
            ));
        }
        catalog.elementwise.sort_by(|a, b| a.key.cmp(&b.key));
        catalog.broadcasting.sort_by(|a, b| a.key.cmp(&b.key));
        catalog.scatter.sort_by(|a, b| a.key.cmp(&b.key));
        catalog.complex.sort_by(|a, b| a.loaded.key.cmp(&b.loaded.key));
        for (path, text) in files.below("suites") {
            let suite = load_suite(path, text, &catalog).map_err(|e| e.located(text))?;
            catalog.suites.push(suite);
        }
        catalog.suites.sort_by(|a, b| a.suite.name.cmp(&b.suite.name));
        catalog.expectations = Expectations::load(files)?;
        Ok(catalog)
    }

    /// Loads the table at `path` into its folder's list. An element-wise table for an
    /// operation that already has one is an error: the second would replace the first's
    /// contract for every suite.
    fn add_table(&mut self, path: &Path, text: &str) -> Result<(), LoadError> {
        match path.iter().nth(1).and_then(|folder| folder.to_str()) {
            Some("elementwise" | "fused") => {
                let table = load_table(path, text)?;
                let other = self.elementwise.iter().find(|t| t.op == table.op);
                one_per_operation(path, "a table", &table.table.op, other.map(|t| &t.path))?;
                self.elementwise.push(table);
            }
            Some("promotion") => {
                let table: PromotionTable = parse_yaml(path, text)?;
                promotion::validate(path, &table)?;
                let key = key_of(path);
                self.promotions.push(LoadedPromotion { path: path.to_path_buf(), key, table });
            }
            Some("broadcasting") => self.broadcasting.push(broadcast::load_table(path, text)?),
            Some("scatter") => {
                let table = scatter::load_scatter(path, text)?;
                let other = self.scatter.iter().find(|t| t.table.op == table.table.op);
                one_per_operation(path, "a table", &table.table.op, other.map(|t| &t.path))?;
                self.scatter.push(table);
            }
            Some("complex") => {
                let table = complex::load_complex(path, text)?;
                let other = self.complex.iter().find(|t| t.op == table.op);
                one_per_operation(
                    path,
                    "a complex table",
                    &table.loaded.table.op,
                    other.map(|t| &t.loaded.path),
                )?;
                self.complex.push(table);
            }
            _ => {
                let folders = "specs/elementwise, fused, promotion, broadcasting, scatter or complex";
                return Err(LoadError::whole(path, format!("not in a table folder ({folders})")));
            }
        }
        Ok(())
    }

    /// The number of tables of every kind.
    pub fn table_count(&self) -> usize {
        self.elementwise.len()
            + self.promotions.len()
            + self.broadcasting.len()
            + self.scatter.len()
            + self.complex.len()
    }

    /// The suite called `name`.
    pub fn suite(&self, name: &str) -> Option<&LoadedSuite> {
        self.suites.iter().find(|s| s.suite.name == name)
    }
}

/// Refuses the table at `path` for operation `op` where `other` already holds `what` for it:
/// the second would replace the first's contract for every suite.
fn one_per_operation(path: &Path, what: &str, op: &str, other: Option<&PathBuf>) -> Result<(), LoadError> {
    match other {
        Some(other) => {
            let m = format!("`{op}` already has {what}, {}: one table per operation", other.display());
            Err(LoadError::in_field(path, "op", m))
        }
        None => Ok(()),
    }
}

/// Parses an operation name from a table into the adapter API's operation.
pub fn parse_op(name: &str) -> Option<OpKind> {
    if let Ok(op) = name.parse::<UnaryOp>() {
        return Some(OpKind::Unary(op));
    }
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

fn load_table(path: &Path, text: &str) -> Result<LoadedTable, LoadError> {
    let table: SpecTable = parse_yaml(path, text)?;
    let op = parse_op(&table.op)
        .ok_or_else(|| LoadError::in_field(path, "op", format!("unknown operation `{}`", table.op)))?;
    if op.arity() != table.operands.len() {
        let m = format!("`{}` takes {} operands, not {}", table.op, op.arity(), table.operands.len());
        return Err(LoadError::in_field(path, "operands", m));
    }
    validate_table(path, &table, op)?;
    Ok(LoadedTable { path: path.to_path_buf(), key: key_of(path), op, table })
}

/// Checks that the suite's tables give its checks distinct ids: two promotion tables may not
/// share a case id, nor two broadcasting tables a name (the op segment of their ids).
fn check_ids_unique(path: &Path, suite: &Suite, catalog: &Catalog) -> Result<(), LoadError> {
    let mut cases: Vec<(&str, &str)> = Vec::new();
    let mut names: Vec<(&str, &str)> = Vec::new();
    for (i, key) in suite.specs.iter().enumerate() {
        let clash = |other: &str, what: String| {
            let m = format!("`{key}` and `{other}` both have {what}: their checks would share ids");
            LoadError::in_field(path, &format!("specs[{i}]"), m)
        };
        if let Some(t) = catalog.promotions.iter().find(|t| &t.key == key) {
            for case in &t.table.cases {
                if let Some((other, _)) = cases.iter().find(|(_, id)| *id == case.id.value) {
                    return Err(clash(other, format!("a case `{}`", case.id.value)));
                }
            }
            cases.extend(t.table.cases.iter().map(|c| (key.as_str(), c.id.value.as_str())));
        }
        if let Some(t) = catalog.broadcasting.iter().find(|t| &t.key == key) {
            if let Some((other, _)) = names.iter().find(|(_, name)| *name == t.name) {
                return Err(clash(other, format!("the name `{}`", t.name)));
            }
            names.push((key.as_str(), t.name.as_str()));
        }
    }
    Ok(())
}

/// A table's key, from its path relative to the catalog root (`specs/elementwise/add.yaml` is
/// `elementwise/add`).
fn key_of(path: &Path) -> String {
    path.strip_prefix("specs").unwrap_or(path).with_extension("").to_string_lossy().replace('\\', "/")
}

fn load_suite(path: &Path, text: &str, catalog: &Catalog) -> Result<LoadedSuite, LoadError> {
    let suite: Suite = parse_yaml(path, text)?;
    let tables = &catalog.elementwise;
    let field = |f: &str, m: String| LoadError::in_field(path, f, m);
    if !load::is_valid_id(&suite.name) || suite.name == "table" {
        return Err(field(
            "name",
            format!(
                "`{}` is not a suite name (lowercase letters, digits and `-`; `table` is reserved for the tables' own checks)",
                suite.name
            ),
        ));
    }
    if let Some(other) = catalog.suites.iter().find(|s| s.suite.name == suite.name) {
        return Err(field(
            "name",
            format!("{} is called `{}` too: suite names are unique", other.path.display(), suite.name),
        ));
    }
    if suite.specs.is_empty() {
        return Err(field("specs", "list at least one table".into()));
    }
    let (mut indices, mut promotions, mut broadcasting, mut scatter, mut complex) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, key) in suite.specs.iter().enumerate() {
        let here = format!("specs[{i}]");
        if suite.specs[..i].contains(key) {
            return Err(field(&here, format!("`{key}` is listed twice")));
        }
        if let Some(i) = tables.iter().position(|t| &t.key == key) {
            indices.push(i);
        } else if let Some(i) = catalog.promotions.iter().position(|t| &t.key == key) {
            promotions.push(i);
        } else if let Some(i) = catalog.broadcasting.iter().position(|t| &t.key == key) {
            broadcasting.push(i);
        } else if let Some(i) = catalog.scatter.iter().position(|t| &t.key == key) {
            scatter.push(i);
        } else if let Some(i) = catalog.complex.iter().position(|t| &t.loaded.key == key) {
            complex.push(i);
        } else {
            return Err(field(&here, format!("no table specs/{key}.yaml")));
        }
    }
    check_ids_unique(path, &suite, catalog)?;
    match &suite.scatter {
        None if !scatter.is_empty() => {
            return Err(field("specs", "a suite with scatter tables needs a `scatter:` block".into()));
        }
        Some(_) if scatter.is_empty() => {
            return Err(field(
                "scatter",
                "the suite names no scatter table, so this block would be ignored".into(),
            ));
        }
        Some(params) => scatter::validate_params(path, params)?,
        None => {}
    }
    if suite.dtypes.is_empty() {
        return Err(field("dtypes", "list at least one dtype".into()));
    }
    let mut dtypes = Vec::new();
    for (i, d) in suite.dtypes.iter().enumerate() {
        let dtype = d.parse::<DType>().map_err(|e| field(&format!("dtypes[{i}]"), e.to_string()))?;
        if dtypes.contains(&dtype) {
            return Err(field(&format!("dtypes[{i}]"), format!("`{d}` is listed twice")));
        }
        dtypes.push(dtype);
    }
    if dtypes.iter().any(|d| !d.is_float()) && suite.integers.is_none() {
        return Err(field("dtypes", "the suite lists integer dtypes, so it needs an `integers:` block saying how their overflow, division by zero and negative exponents are judged".into()));
    }
    // Element-wise tables generate `cases_per_row` inputs per row and `random_cases` per
    // (operation, dtype); a suite without them may leave both at 0.
    let min = usize::from(!indices.is_empty());
    let why = "inputs per check; 0 only in a suite without element-wise tables";
    for (name, n) in [("cases_per_row", suite.cases_per_row), ("random_cases", suite.random_cases)] {
        limits::check_count(n, min, limits::MAX_INPUTS_PER_CHECK, why).map_err(|m| field(name, m))?;
    }
    if let Some(n) = suite.broadcast_shapes {
        limits::check_count(n, 1, limits::MAX_BROADCAST_SHAPES, "shape pairs per broadcasting value check")
            .map_err(|m| field("broadcast_shapes", m))?;
    }
    for (op, bounds) in &suite.step_bounds {
        let here = format!("step_bounds.{op}");
        let Some(&i) = indices.iter().find(|&&i| tables[i].op == *op) else {
            return Err(field(&here, format!("`{op}` is not among the suite's specs")));
        };
        if tables[i].table.accuracy != schema::Accuracy::Approximate {
            return Err(field(&here, format!("`{op}` is not approximate, so it has no bound")));
        }
        for (&dtype, &bound) in bounds {
            if !dtypes.contains(&dtype) {
                return Err(field(
                    &format!("{here}.{dtype}"),
                    format!("{dtype} is not among the suite's dtypes"),
                ));
            }
            let Some(f) = Format::of(dtype) else { continue };
            let max = limits::max_step_bound(f);
            if bound > max {
                return Err(field(
                    &format!("{here}.{dtype}"),
                    format!(
                        "{bound} steps: at most {max} in {dtype} (a larger bound accepts results off by 1/16 of their value or more)"
                    ),
                ));
            }
        }
    }
    for &i in &indices {
        let table = &tables[i];
        if table.table.accuracy != schema::Accuracy::Approximate {
            continue;
        }
        let checked =
            dtypes.iter().filter(|d| table.table.dtypes.iter().any(|t| t.parse().ok() == Some(**d)));
        if let Some(f) =
            checked.filter_map(|&d| Format::of(d)).find(|&f| suite.step_bound(table.op, f).is_none())
        {
            let m = format!(
                "`{}` is approximate and checked in {}: give its bound (`{}: {{{}: N}}`)",
                table.table.op, f.name, table.table.op, f.name
            );
            return Err(field("step_bounds", m));
        }
    }
    if suite.integers.is_some_and(|c| c.divide.is_some())
        && !indices.iter().any(|&i| tables[i].op == OpKind::Binary(BinaryOp::Divide))
    {
        let m = "the suite names no `divide` table, so this rule would be ignored";
        return Err(field("integers.divide", m.into()));
    }
    let classes: Vec<_> = indices.iter().map(|&i| (tables[i].op, tables[i].table.accuracy)).collect();
    suite.authority.validate(&classes, !complex.is_empty()).map_err(|(f, m)| field(&f, m))?;
    for (i, id) in suite.authority.own_sources.iter().flatten().enumerate() {
        let broadcast_sources = broadcasting.iter().flat_map(|&b| &catalog.broadcasting[b].table.sources);
        if !indices.iter().any(|&t| tables[t].table.source(id).is_some())
            && !broadcast_sources.clone().any(|s| s.id == *id)
        {
            let m =
                format!("`{id}` is the id of no source of the suite's element-wise or broadcasting tables");
            return Err(field(&format!("authority.own_sources[{i}]"), m));
        }
    }
    for (i, name) in suite.authority.unnamed_dtypes.iter().flat_map(|u| &u.dtypes).enumerate() {
        if !dtypes.iter().any(|d| d.to_string() == *name) {
            let m = format!("`{name}` is not among the suite's dtypes");
            return Err(field(&format!("authority.unnamed_dtypes.dtypes[{i}]"), m));
        }
    }
    Ok(LoadedSuite {
        path: path.to_path_buf(),
        suite,
        tables: indices,
        promotions,
        broadcasting,
        scatter,
        complex,
        dtypes,
    })
}
