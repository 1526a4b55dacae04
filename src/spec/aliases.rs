//! Row aliases, the ids a renamed row had before: what a check was called ([`old_ids`]), and
//! the rule that an alias may not name a check of its own: an old id that is also a check's id
//! would name two checks, and an expectations entry for one would list the other too.

use std::collections::HashSet;

use super::Catalog;
use super::id::CheckId;
use super::load::LoadError;

/// Refuses, at its place, a row alias whose old ids include the id of a planned check;
/// `planned` holds every check's id, in the plan's order (a row's check answers to its id
/// with the alias as its case).
pub fn validate(catalog: &Catalog, planned: &[&CheckId]) -> Result<(), LoadError> {
    let ids: HashSet<&CheckId> = planned.iter().copied().collect();
    for table in &catalog.elementwise {
        for (i, row) in table.table.rows.iter().enumerate().filter(|(_, r)| !r.aliases.is_empty()) {
            let checks = planned.iter().filter(|id| id.op == table.table.op && id.case == row.id.value);
            for id in checks {
                for (j, alias) in row.aliases.iter().enumerate() {
                    let old = CheckId { case: alias.value.clone(), ..(*id).clone() };
                    if ids.contains(&old) {
                        let m = format!(
                            "field `rows[{i}].aliases[{j}]`: row `{}`: the alias `{}` would make `{old}` name \
                             this row's check `{id}`, and another check has that id: an old id names one check",
                            row.id.value, alias.value
                        );
                        return Err(LoadError::at_location(&table.path, &alias.referenced, m));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The ids check `id` had before its row was renamed (none for checks of no renamed row).
pub fn old_ids(catalog: &Catalog, id: &CheckId) -> Vec<CheckId> {
    let row = catalog
        .elementwise
        .iter()
        .filter(|t| t.table.op == id.op)
        .flat_map(|t| &t.table.rows)
        .find(|r| r.id.value == id.case);
    row.map_or_else(Vec::new, |r| {
        r.aliases.iter().map(|a| CheckId { case: a.value.clone(), ..id.clone() }).collect()
    })
}
