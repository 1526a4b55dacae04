//! Which checks a command runs: suites, adapters, a filter or one exact id, validated the same
//! way for `run`, `list` and `eval`, and a shard of them.

use super::check::{Check, CheckId, is_name};
use super::elementwise::sweep::{keep_chunks, sweep_checks};
use super::plan::{adapter_checks, large_layout_checks, table_checks};
use crate::results::shard::Shard;
use crate::spec::Catalog;
use crate::spec::pattern::Pattern;

/// A filter of check ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Whole `:`-separated segments that must appear in a row in the id (`add:f32` selects
    /// `array-api:cpu:add:f32:edges`, not `…:fused_mul_add:f32:…`).
    Segments(Vec<String>),
    /// A pattern in the expectations files' language (`*` for any run of characters, `{a,b}`
    /// for either alternative), matched against the whole id.
    Pattern(Pattern),
}

impl Filter {
    /// Reads a filter: a pattern if it has `*` or `{`, else segments.
    pub fn parse(text: &str) -> Result<Filter, String> {
        if text.contains(['*', '{', '}']) {
            return Pattern::new(text).map(Filter::Pattern).map_err(|e| format!("filter `{text}`: {e}"));
        }
        let segments: Vec<String> = text.split(':').map(str::to_string).collect();
        if segments.iter().any(String::is_empty) {
            return Err(format!("filter `{text}`: empty segment (segments are separated by single `:`)"));
        }
        Ok(Filter::Segments(segments))
    }

    /// Whether the filter selects `id`.
    pub fn selects(&self, id: &CheckId) -> bool {
        match self {
            Filter::Pattern(p) => p.matches(&id.to_string()),
            Filter::Segments(wanted) => {
                let segments = id.segments();
                segments.windows(wanted.len()).any(|w| w.iter().zip(wanted).all(|(a, b)| a == b))
            }
        }
    }
}

/// What a command selects.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Suites (all when empty).
    pub suites: Vec<String>,
    /// Adapters by name.
    pub adapters: Vec<String>,
    /// Only ids the filter selects.
    pub filter: Option<String>,
    /// Exactly the check with this id (its adapter comes from the id).
    pub exact: Option<String>,
    /// Whether the tables' self-checks are included.
    pub tables: bool,
    /// Only this shard of the selected checks.
    pub shard: Option<Shard>,
    /// Whether the large layout sweep (`layouts-large` checks) is included.
    pub large_layouts: bool,
    /// Sweeps (`run --exhaustive`) instead of the sampled checks (and no table self-checks).
    pub exhaustive: bool,
    /// Only these chunks of each sweep (`run --chunks A..B`).
    pub sweep_chunks: Option<std::ops::Range<u64>>,
}

impl Selection {
    /// The checks the selection runs: [`Selection::plan`], or the shard's part of it.
    pub fn checks(&self, catalog: &Catalog, available: &[&str]) -> Result<Vec<Check>, String> {
        self.plan(catalog, available).map(|plan| self.shard_of(plan))
    }

    /// The checks of `plan` that the selection's shard runs (all of them without a shard).
    pub fn shard_of(&self, plan: Vec<Check>) -> Vec<Check> {
        match self.shard {
            Some(shard) => plan.into_iter().filter_map(|c| super::shard::part_of(shard, c)).collect(),
            None => plan,
        }
    }

    /// The selected checks of every shard, in the stable planning order; every name is
    /// checked against the catalog's suites and the `available` adapters first.
    pub fn plan(&self, catalog: &Catalog, available: &[&str]) -> Result<Vec<Check>, String> {
        if let Some(exact) = &self.exact {
            let check = exact_check(catalog, exact, available)?;
            if !self.tables && check.id.suite().is_none() {
                return Err(format!(
                    "--no-tables leaves out the table self-checks, but --exact `{exact}` is one: give one of them"
                ));
            }
            if self.exhaustive && !is_sweep(catalog, &check.id) {
                return Err(format!(
                    "--exhaustive runs the sweeps instead of the sampled checks, but --exact `{exact}` is a \
                     sampled check: leave out --exhaustive to run it"
                ));
            }
            return Ok(vec![check]);
        }
        for s in &self.suites {
            check_suite(catalog, s)?;
        }
        for a in &self.adapters {
            check_adapter(a, available)?;
        }
        let filter = self.filter.as_deref().map(Filter::parse).transpose()?;
        let mut checks = if self.tables && !self.exhaustive { table_checks(catalog) } else { Vec::new() };
        let mut planned = if self.exhaustive {
            sweep_checks(catalog, &self.adapters)
        } else {
            adapter_checks(catalog, &self.adapters)
        };
        if self.large_layouts {
            planned.extend(large_layout_checks(catalog, &self.adapters));
        }
        checks.extend(planned.into_iter().filter(|c| {
            self.suites.is_empty() || c.id.suite().is_some_and(|s| self.suites.iter().any(|x| x == s))
        }));
        checks.retain(|c| filter.as_ref().is_none_or(|f| f.selects(&c.id)));
        if let Some(chunks) = &self.sweep_chunks {
            checks = checks.into_iter().filter_map(|c| keep_chunks(c, |k| chunks.contains(&k))).collect();
        }
        Ok(checks)
    }
}

fn check_suite(catalog: &Catalog, name: &str) -> Result<(), String> {
    if catalog.suite(name).is_some() {
        return Ok(());
    }
    let known: Vec<&str> = catalog.suites.iter().map(|s| s.suite.name.as_str()).collect();
    Err(format!("unknown suite `{name}` (known: {})", known.join(", ")))
}

fn check_adapter(name: &str, available: &[&str]) -> Result<(), String> {
    if !is_name(name) || name == "table" {
        return Err(format!(
            "`{name}` is not an adapter name (lowercase letters, digits and `-`; `table` is reserved)"
        ));
    }
    if available.contains(&name) {
        return Ok(());
    }
    Err(format!("unknown adapter `{name}` (available: {})", available.join(", ")))
}

/// Whether `id` is a check of `run --exhaustive` (a sweep, or a `hard` check).
fn is_sweep(catalog: &Catalog, id: &CheckId) -> bool {
    let adapters: Vec<String> = id.adapter_name().map(str::to_string).into_iter().collect();
    sweep_checks(catalog, &adapters).iter().any(|c| c.id == *id)
}

/// The one check whose id is `text`.
pub fn exact_check(catalog: &Catalog, text: &str, available: &[&str]) -> Result<Check, String> {
    let id: CheckId = text.parse()?;
    let planned = match (id.suite(), id.adapter_name()) {
        (Some(suite), Some(adapter)) => {
            check_suite(catalog, suite)?;
            check_adapter(adapter, available)?;
            let adapters = [adapter.to_string()];
            let mut planned = adapter_checks(catalog, &adapters);
            planned.extend(large_layout_checks(catalog, &adapters));
            planned.extend(sweep_checks(catalog, &adapters));
            planned
        }
        _ => table_checks(catalog),
    };
    planned
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| format!("no check has the id `{id}` (`opspec list` lists them)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> CheckId {
        text.parse().unwrap()
    }

    #[test]
    fn filters_match_whole_segments_or_patterns() {
        let f = Filter::parse("add:f32").unwrap();
        assert!(f.selects(&id("array-api:cpu:add:f32:edges")));
        assert!(!f.selects(&id("numr:cpu:fused_mul_add:f32:edges")));
        assert!(!f.selects(&id("mindspore:cpu:tensor_scatter_add:f32:random")));
        assert!(!f.selects(&id("array-api:cpu:add:f32x:edges")));
        let row = Filter::parse("row-broadcast").unwrap();
        assert!(row.selects(&id("numr:cpu:numpy:-:row-broadcast")));
        assert!(!row.selects(&id("numr:cpu:numpy:-:row-broadcast-swapped")));
        let p = Filter::parse("*:cpu:{add,multiply}:f16:*").unwrap();
        assert!(p.selects(&id("megengine:cpu:multiply:f16:edges")));
        assert!(!p.selects(&id("megengine:cpu:subtract:f16:edges")));
        assert!(Filter::parse("add::f32").is_err());
        assert!(Filter::parse("{add").unwrap_err().contains("not closed"));
        assert!(Filter::parse("").unwrap_err().contains("empty segment"));
    }
}
