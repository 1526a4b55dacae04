//! Renamed rows: a row's `aliases` are the ids it had before, so check ids that name an old
//! id still name its checks (an expectations entry keeps working after a rename), and
//! [`migrate`] rewrites such entries to the new ids (`opspec expect --migrate FILE`).

use std::collections::BTreeSet;

use super::check::Check;
use crate::spec::Catalog;
use crate::spec::aliases::old_ids;
use crate::spec::expectations::ExpectationsFile;
use crate::spec::pattern::Pattern;

/// How one entry of an expectations file was migrated, or why it could not be.
pub struct Migration {
    pub line: u64,
    pub old: String,
    /// The rewritten pattern, or why there is none.
    pub new: Result<String, String>,
}

/// The entries of `file` that name checks only through old ids, rewritten to the current
/// ids; `checks` are the planned checks of the file's adapter. A rewrite must select exactly
/// the checks the entry selected (directly or through an old id), or it is refused.
pub fn migrate(catalog: &Catalog, file: &ExpectationsFile, checks: &[Check]) -> Vec<Migration> {
    let ids: Vec<(String, Vec<String>)> = checks
        .iter()
        .map(|c| (c.id.to_string(), old_ids(catalog, &c.id).iter().map(ToString::to_string).collect()))
        .collect();
    let mut out = Vec::new();
    for d in &file.deviations {
        let Ok(pattern) = Pattern::new(&d.id.value) else { continue };
        let direct: BTreeSet<&str> =
            ids.iter().filter(|(id, _)| pattern.matches(id)).map(|(id, _)| id.as_str()).collect();
        let through_old: BTreeSet<&str> = ids
            .iter()
            .filter(|(id, old)| !direct.contains(id.as_str()) && old.iter().any(|o| pattern.matches(o)))
            .map(|(id, _)| id.as_str())
            .collect();
        if through_old.is_empty() {
            continue;
        }
        let wanted: BTreeSet<&str> = direct.union(&through_old).copied().collect();
        let renamed: Vec<(String, String)> = checks
            .iter()
            .filter(|c| through_old.contains(c.id.to_string().as_str()))
            .flat_map(|c| old_ids(catalog, &c.id).into_iter().map(|o| (o.case, c.id.case.clone())))
            .collect();
        let new = rewrite(&d.id.value, &renamed).and_then(|candidate| {
            let p = Pattern::new(&candidate)?;
            let selects: BTreeSet<&str> =
                ids.iter().filter(|(id, _)| p.matches(id)).map(|(id, _)| id.as_str()).collect();
            if selects == wanted {
                Ok(candidate)
            } else {
                Err(format!("`{candidate}` would select other checks than the entry did: rewrite it by hand"))
            }
        });
        out.push(Migration { line: d.id.referenced.line(), old: d.id.value.clone(), new });
    }
    out
}

/// `pattern` with each old case id in its last segment (alone or among `{…}` alternatives)
/// replaced by the new one.
fn rewrite(pattern: &str, renamed: &[(String, String)]) -> Result<String, String> {
    let (head, case) = pattern.rsplit_once(':').ok_or_else(|| format!("`{pattern}` has no case segment"))?;
    let swap = |alt: &str| {
        renamed.iter().find(|(old, _)| old == alt).map_or(alt.to_string(), |(_, new)| new.clone())
    };
    let case = match case.strip_prefix('{').and_then(|c| c.strip_suffix('}')) {
        Some(alternatives) => {
            format!("{{{}}}", alternatives.split(',').map(swap).collect::<Vec<_>>().join(","))
        }
        None => swap(case),
    };
    Ok(format!("{head}:{case}"))
}
