//! `expect`: expectations entries drafted from a run's failures, and files migrated to the
//! current check ids.

use std::collections::BTreeMap;
use std::path::Path;

use super::{MISSING_LISTED, say};
use crate::results;
use crate::results::Status;
use crate::spec::Catalog;
use crate::spec::authority::Tier;
use crate::spec::failure::Failure;
use crate::verdict;

/// `expect --from`: prints the entries drafted from the failures of the results file at
/// `path`. An incomplete file (a killed run, a merge that misses checks) is refused with exit
/// 4, naming the checks that never ran, unless `allow_incomplete`.
pub(super) fn draft(path: &Path, allow_incomplete: bool) -> Result<u8, String> {
    let run = results::read(path)?;
    if !run.complete {
        // The number of planned checks and of missing ones, the first of them named.
        let (mut planned, mut n, mut named) = (0, 0, Vec::new());
        for r in run.checks() {
            let r = r?;
            planned += 1;
            if r.status == Status::Missing {
                n += 1;
                if named.len() < MISSING_LISTED {
                    named.push(r.id.to_string());
                }
            }
        }
        let file = path.display();
        if allow_incomplete {
            eprintln!(
                "{file} is incomplete: drafted from the {} checks it finished; {n} planned checks never ran",
                planned - n
            );
        } else {
            eprintln!(
                "error: {file} is incomplete (the run ended before its end record, or no shard ran \
                 them): {n} of its {planned} planned checks never ran, and the draft would miss their \
                 failures:"
            );
            for id in &named {
                eprintln!("  missing {id}");
            }
            if n > MISSING_LISTED {
                eprintln!("  … and {} more", n - MISSING_LISTED);
            }
            eprintln!(
                "Run it again to the end (it was `{}`) and draft from that, or pass \
                 --allow-incomplete to draft from the checks it finished.",
                run.info.command
            );
            return Ok(verdict::EXIT_INCOMPLETE);
        }
    }
    say(&draft_expectations(&run)?);
    Ok(0)
}

/// One drafted entry: its failing dtypes, in plan order, and what its first failing check
/// did and which rule that breaks.
struct Draft {
    dtypes: Vec<String>,
    fails: Failure,
    does: String,
    why: String,
}

/// Expectations entries, one per failing (suite, adapter, op, case, failure, tier) with its
/// failing dtypes as a `{…}` pattern: what the implementation did, how to reproduce it, how
/// it failed and the tier it fails; the reason is left for the vendor to quote from the
/// document. A record written before records named their failure is read as failing on
/// values when inputs failed, else by its message.
fn draft_expectations(run: &results::Run) -> Result<String, String> {
    type Key = (String, String, String, String, String, Tier);
    let mut groups: BTreeMap<Key, Draft> = BTreeMap::new();
    for r in run.checks() {
        let r = r?;
        if r.status != Status::Fail {
            continue;
        }
        let Some(adapter) = r.id.adapter_name() else { continue };
        let (suite, op, case) = (r.id.suite_label().to_string(), r.id.op.clone(), r.id.case.clone());
        let fails = r.failure.clone().unwrap_or_else(|| match r.failed_inputs {
            0 => Failure::of_stop(&r.message),
            _ => Failure::Values,
        });
        let key = (adapter.to_string(), suite, op, case, fails.to_string(), r.failed_tier());
        if let Some(draft) = groups.get_mut(&key) {
            draft.dtypes.push(r.id.dtype);
            continue;
        }
        let mut does = r.message.clone();
        if let Some(f) = r.failures.first() {
            does += &format!(
                "; e.g. {}: expected {}, got {} (reproduce: {})",
                f.inputs.join(", "),
                f.expected,
                f.actual,
                f.reproduce
            );
        }
        let why = match r.failures.first().map(|f| f.authority.as_str()) {
            Some(a) if !a.is_empty() => a.to_string(),
            _ => "TODO: quote the document's words this result breaks".to_string(),
        };
        groups.insert(key, Draft { dtypes: vec![r.id.dtype], fails, does, why });
    }
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out =
        String::from("# Drafted by `opspec expect`: review each entry and quote the rule it breaks.\n");
    let mut current = None;
    for ((adapter, suite, op, case, _, tier), Draft { dtypes, fails, does, why }) in groups {
        if current.as_ref() != Some(&adapter) {
            out += &format!("adapter: {adapter}\ndeviations:\n");
            current = Some(adapter.clone());
        }
        let dtype = if dtypes.len() == 1 { dtypes[0].clone() } else { format!("{{{}}}", dtypes.join(",")) };
        out += &format!(
            "  - id: {}\n    does: {}\n    why: {}\n    fails: {}\n    tier: {tier}\n",
            quote(&format!("{suite}:{adapter}:{op}:{dtype}:{case}")),
            quote(&does),
            quote(&why),
            serde_json::to_string(&fails).unwrap_or_default()
        );
    }
    Ok(out)
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
    Ok(if refused > 0 { verdict::EXIT_FAIL } else { 0 })
}
