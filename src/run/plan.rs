//! Which checks a run consists of, each with its query-style id.

use opspec_adapter::DType;

use crate::format::Format;
use crate::spec::Catalog;

/// Which inputs a check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseSet {
    /// Inputs generated for one special-case row (index into the table's rows).
    Row(usize),
    /// Every combination of the format's edge values.
    Edges,
    /// Seeded random inputs.
    Random,
}

/// One check: a case set of one table, in one dtype, against one adapter (or, for table
/// self-checks, against the oracle alone).
#[derive(Clone, Debug)]
pub struct Check {
    /// `suite:adapter:op:dtype:case`, or `table:op:dtype:row` for a table self-check.
    pub id: String,
    /// Index into [`Catalog::suites`]; `None` for a table self-check.
    pub suite: Option<usize>,
    /// Index into [`Catalog::tables`].
    pub table: usize,
    pub dtype: DType,
    pub cases: CaseSet,
    /// Adapter name; `None` for a table self-check.
    pub adapter: Option<String>,
}

impl Check {
    /// The case part of the id: the row id, `edges` or `random`.
    pub fn case_name(&self, catalog: &Catalog) -> String {
        match self.cases {
            CaseSet::Row(r) => catalog.tables[self.table].table.rows[r].id.value.clone(),
            CaseSet::Edges => "edges".to_string(),
            CaseSet::Random => "random".to_string(),
        }
    }
}

/// Every check of every suite against each named adapter, in a stable order.
pub fn adapter_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    for (s, suite) in catalog.suites.iter().enumerate() {
        for adapter in adapters {
            for &t in &suite.tables {
                let table = &catalog.tables[t];
                for &dtype in &suite.dtypes {
                    if !applies(catalog, t, dtype) {
                        continue;
                    }
                    let rows = (0..table.table.rows.len()).map(CaseSet::Row);
                    for cases in rows.chain([CaseSet::Edges, CaseSet::Random]) {
                        let mut check = Check {
                            id: String::new(),
                            suite: Some(s),
                            table: t,
                            dtype,
                            cases,
                            adapter: Some(adapter.clone()),
                        };
                        check.id = format!(
                            "{}:{adapter}:{}:{dtype}:{}",
                            suite.suite.name,
                            table.table.op,
                            check.case_name(catalog)
                        );
                        checks.push(check);
                    }
                }
            }
        }
    }
    checks
}

/// One self-check per (table, dtype, row): the row's stated result must agree with the oracle
/// on the row's generated inputs, and so must every overlapping row.
pub fn table_checks(catalog: &Catalog) -> Vec<Check> {
    let mut checks = Vec::new();
    for (t, table) in catalog.tables.iter().enumerate() {
        for dtype in table.table.dtypes.iter().filter_map(|d| d.parse::<DType>().ok()) {
            if !applies(catalog, t, dtype) {
                continue;
            }
            for (r, row) in table.table.rows.iter().enumerate() {
                checks.push(Check {
                    id: format!("table:{}:{dtype}:{}", table.table.op, row.id.value),
                    suite: None,
                    table: t,
                    dtype,
                    cases: CaseSet::Row(r),
                    adapter: None,
                });
            }
        }
    }
    checks
}

/// Whether table `t` is checked in `dtype`: listed in the table, and a float format (integer
/// contracts come with their own tables).
fn applies(catalog: &Catalog, t: usize, dtype: DType) -> bool {
    Format::of(dtype).is_some() && catalog.tables[t].table.dtypes.iter().any(|d| d == dtype.name())
}
