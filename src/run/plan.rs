//! Which checks there are: every family's plan, in a stable order.

use super::check::{Check, CheckId};
use super::elementwise::{self, layouts};
use super::{broadcast, complex, promotion, scatter};
use crate::generate::layouts::Scale;
use crate::spec::{Catalog, LoadError, aliases};

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

/// The adapter name the load-time checks plan under. Planning reads an adapter's name only
/// into its checks' ids, so one plan serves every adapter (each file's adapter put in its ids);
/// `*` reads as "any adapter" where an id is quoted.
const ANY_ADAPTER: &str = "*";

/// The load-time checks that need the plan: no row alias may name a planned check
/// ([`aliases::validate`]), and every expectations entry must be able to apply to a planned
/// check of its adapter (with the large layout checks and the sweeps): an entry that matches
/// none (a renamed or removed check), one that earlier entries shadow, or a `flaky` one that
/// names every check is a load error at its line ([`crate::spec::expectations::Expectations::inapplicable`]).
pub fn validate_expectations(catalog: &Catalog) -> Result<(), LoadError> {
    let any = [ANY_ADAPTER.to_string()];
    let mut planned = adapter_checks(catalog, &any);
    planned.extend(large_layout_checks(catalog, &any));
    planned.extend(super::elementwise::sweep::sweep_checks(catalog, &any));
    let tables = table_checks(catalog);
    let ids: Vec<&CheckId> = planned.iter().chain(&tables).map(|c| &c.id).collect();
    aliases::validate(catalog, &ids)?;
    // A check also answers to the ids its row had before a rename.
    let answers: Vec<CheckId> = planned
        .iter()
        .flat_map(|c| std::iter::once(c.id.clone()).chain(crate::spec::aliases::old_ids(catalog, &c.id)))
        .collect();
    let mut adapters: Vec<&str> = Vec::new();
    for (_, file) in &catalog.expectations.files {
        if adapters.contains(&file.adapter.as_str()) {
            continue;
        }
        adapters.push(&file.adapter);
        let owned: Vec<String> = answers.iter().map(|id| id.of_adapter(&file.adapter).to_string()).collect();
        let ids = owned.iter().map(String::as_str).collect();
        if let Some(e) = catalog.expectations.inapplicable(&file.adapter, &ids).into_iter().next() {
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What lets the load-time checks plan once for every adapter.
    #[test]
    fn planning_reads_the_adapter_only_into_the_ids() {
        let catalog = Catalog::builtin().unwrap();
        let plan = |adapter: &str| {
            let adapters = [adapter.to_string()];
            let mut checks = adapter_checks(&catalog, &adapters);
            checks.extend(large_layout_checks(&catalog, &adapters));
            checks.extend(super::super::elementwise::sweep::sweep_checks(&catalog, &adapters));
            checks.into_iter().map(|c| (c.id.of_adapter(ANY_ADAPTER), c.planned)).collect::<Vec<_>>()
        };
        let any = plan(ANY_ADAPTER);
        assert!(any.len() > 1000);
        assert_eq!(plan("cpu"), any);
        assert_eq!(plan("numr"), any);
    }
}
