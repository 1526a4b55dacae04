//! Which checks there are: every family's plan, in a stable order.

use super::check::Check;
use super::elementwise::{self, layouts};
use super::{broadcast, complex, promotion, scatter};
use crate::generate::layouts::Scale;
use crate::spec::{Catalog, LoadError};

/// Every check of every suite against each named adapter, in a stable order.
pub fn adapter_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    for suite in &catalog.suites {
        for adapter in adapters {
            checks.extend(elementwise::plan_suite(catalog, suite, adapter));
            checks.extend(promotion::plan_suite(catalog, suite, adapter));
            checks.extend(broadcast::plan_suite(catalog, suite, adapter));
            checks.extend(scatter::plan_suite(catalog, suite, adapter));
            checks.extend(complex::plan_suite(catalog, suite, adapter));
            checks.extend(layouts::plan_suite(catalog, suite, adapter, Scale::Small));
        }
    }
    checks
}

/// The large layout sweep's checks (`layouts-large`, up to 2^24 elements a call) of every
/// suite against each named adapter: planned only when asked for (`run --layouts-large`).
pub fn large_layout_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    for suite in &catalog.suites {
        for adapter in adapters {
            checks.extend(layouts::plan_suite(catalog, suite, adapter, Scale::Large));
        }
    }
    checks
}

/// The tables' self-checks: every row's stated result against the oracle.
pub fn table_checks(catalog: &Catalog) -> Vec<Check> {
    let mut checks = elementwise::plan_tables(catalog);
    checks.extend(broadcast::plan_tables(catalog));
    checks.extend(scatter::plan_tables(catalog));
    checks
}

/// Every expectations entry must name at least one planned check of its adapter (with the
/// large layout checks and the sweeps): an entry that matches none (a renamed or removed
/// check) is a load error at its line.
pub fn validate_expectations(catalog: &Catalog) -> Result<(), LoadError> {
    for (_, file) in &catalog.expectations.files {
        let adapter = std::slice::from_ref(&file.adapter);
        let mut planned = adapter_checks(catalog, adapter);
        planned.extend(large_layout_checks(catalog, adapter));
        planned.extend(super::elementwise::sweep::sweep_checks(catalog, adapter));
        // A check also answers to the ids its row had before a rename.
        let owned: Vec<String> = planned
            .iter()
            .flat_map(|c| std::iter::once(c.id.clone()).chain(super::renamed::old_ids(catalog, &c.id)))
            .map(|id| id.to_string())
            .collect();
        let ids = owned.iter().map(String::as_str).collect();
        if let Some(e) = catalog.expectations.unknown(&file.adapter, &ids).into_iter().next() {
            return Err(e);
        }
    }
    Ok(())
}
