//! Which checks a run consists of, each with its query-style id.

use opspec_adapter::{DType, OpKind};

use super::{broadcast, elementwise, promotion, scatter};
use crate::spec::Catalog;

pub use super::broadcast::{BroadcastTarget, ValueCases};
pub use super::elementwise::{CaseSet, ElementwiseTarget};
pub use super::promotion::PromotionTarget;
pub use super::property::PropertyTarget;
pub use super::scatter::{ScatterCases, ScatterTarget};

/// What a check exercises, in the terms of its family of tables.
#[derive(Clone, Debug)]
pub enum Target {
    /// An element-wise operation's special-case table (`specs/elementwise`, `specs/fused`).
    Elementwise(ElementwiseTarget),
    /// A property an element-wise table states about results as a whole.
    Property(PropertyTarget),
    /// A literal case of a promotion table.
    Promotion(PromotionTarget),
    /// A broadcasting table's vector or coverage, or values under broadcasting
    /// (`specs/broadcasting`).
    Broadcast(BroadcastTarget),
    /// A scatter table's literal case or generator (`specs/scatter`).
    Scatter(ScatterTarget),
}

/// One check: a set of cases run against one adapter (or, for table self-checks, against the
/// oracle alone).
#[derive(Clone, Debug)]
pub struct Check {
    /// `suite:adapter:op:dtype:case`, or `table:op:dtype:row` for a table self-check.
    pub id: String,
    /// Index into [`Catalog::suites`]; `None` for a table self-check.
    pub suite: Option<usize>,
    /// Adapter name; `None` for a table self-check.
    pub adapter: Option<String>,
    /// Operation name, dtype name and case name, as they appear in the id.
    pub op: String,
    pub dtype: String,
    pub case: String,
    /// The (operation, dtype) the adapter must support for the check to run.
    pub needs: Option<(OpKind, DType)>,
    pub target: Target,
}

/// Every check of every suite against each named adapter, in a stable order.
pub fn adapter_checks(catalog: &Catalog, adapters: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    for suite in 0..catalog.suites.len() {
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
