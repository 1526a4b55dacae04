//! `expect`: expectations entries drafted from a run's failures, and files migrated to the
//! current check ids.

use std::collections::BTreeMap;
use std::path::Path;

use crate::results;
use crate::results::Status;
use crate::spec::Catalog;
use crate::spec::authority::Tier;

/// Expectations entries, one per failing (suite, adapter, op, case, tier) with its failing
/// dtypes as a `{…}` pattern: what the implementation did, how to reproduce it, and the tier
/// it fails; the reason is left for the vendor to quote from the document.
pub(super) fn draft_expectations(run: &results::Run) -> String {
    type Key = (String, String, String, String, Tier);
    let mut groups: BTreeMap<Key, Vec<&crate::results::CheckResult>> = BTreeMap::new();
    for r in run.results.iter().filter(|r| r.status == Status::Fail) {
        let Some(adapter) = r.id.adapter_name() else { continue };
        let (suite, op, case) = (r.id.suite_label().to_string(), r.id.op.clone(), r.id.case.clone());
        let key = (adapter.to_string(), suite, op, case, r.failed_tier());
        groups.entry(key).or_default().push(r);
    }
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out =
        String::from("# Drafted by `opspec expect`: review each entry and quote the rule it breaks.\n");
    let mut current = None;
    for ((adapter, suite, op, case, tier), results) in groups {
        if current.as_ref() != Some(&adapter) {
            out += &format!("adapter: {adapter}\ndeviations:\n");
            current = Some(adapter.clone());
        }
        let dtypes: Vec<&str> = results.iter().map(|r| r.id.dtype.as_str()).collect();
        let dtype =
            if dtypes.len() == 1 { dtypes[0].to_string() } else { format!("{{{}}}", dtypes.join(",")) };
        let first = results[0];
        let mut does = first.message.clone();
        if let Some(f) = first.failures.first() {
            does += &format!(
                "; e.g. {}: expected {}, got {} (reproduce: {})",
                f.inputs.join(", "),
                f.expected,
                f.actual,
                f.reproduce
            );
        }
        let why = match first.failures.first().map(|f| f.authority.as_str()) {
            Some(a) if !a.is_empty() => a.to_string(),
            _ => "TODO: quote the document's words this result breaks".to_string(),
        };
        out += &format!(
            "  - id: {}\n    does: {}\n    why: {}\n    tier: {tier}\n",
            quote(&format!("{suite}:{adapter}:{op}:{dtype}:{case}")),
            quote(&does),
            quote(&why)
        );
    }
    out
}

/// `expect --migrate`: rewrites in place the entries of `path` that name checks by old ids;
/// exit 1 when one could not be rewritten.
pub(super) fn migrate(catalog: &Catalog, path: &Path) -> Result<u8, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = crate::spec::expectations::read_file(path, &text).map_err(|e| e.to_string())?;
    let checks = crate::run::adapter_checks(catalog, std::slice::from_ref(&file.adapter));
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let mut refused = 0;
    for m in crate::run::renamed::migrate(catalog, &file, &checks) {
        let line = usize::try_from(m.line).unwrap_or(0).saturating_sub(1);
        match (&m.new, lines.get_mut(line)) {
            (Ok(new), Some(l)) if l.contains(&m.old) => {
                *l = l.replacen(&m.old, new, 1);
                eprintln!("{}:{}: {} -> {new}", path.display(), m.line, m.old);
            }
            (Ok(_), _) => {
                refused += 1;
                eprintln!(
                    "{}:{}: `{}` is not on that line: rewrite it by hand",
                    path.display(),
                    m.line,
                    m.old
                );
            }
            (Err(why), _) => {
                refused += 1;
                eprintln!("{}:{}: {why}", path.display(), m.line);
            }
        }
    }
    std::fs::write(path, lines.join("\n")).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(if refused > 0 { results::EXIT_FAIL } else { 0 })
}
