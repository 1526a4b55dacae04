//! Which checks there are: every family's plan, in a stable order.

use super::check::Check;
use super::{broadcast, elementwise, promotion, scatter};
use crate::spec::Catalog;

/// Every check of every suite against each named adapter, in a stable order.
pub fn adapter_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    for suite in &catalog.suites {
        for adapter in adapters {
            checks.extend(elementwise::plan_suite(catalog, suite, adapter));
            checks.extend(promotion::plan_suite(catalog, suite, adapter));
            checks.extend(broadcast::plan_suite(catalog, suite, adapter));
            checks.extend(scatter::plan_suite(catalog, suite, adapter));
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
