//! Comparing two sets of runs, check by check: what newly fails, what was fixed, what is
//! newly skipped, whose largest ULP error changed. CI gates on [`Diff::regressed`].

use std::collections::HashMap;
use std::fmt::Write;

use super::Run;
use super::html::escape;
use crate::bits::hash::fnv1a_128;
use crate::results::Status;

/// One check whose status or ULP maximum differs between the runs.
#[derive(Clone, Debug)]
pub struct Change {
    pub id: String,
    /// Absent when the check is not in that run.
    pub old: Option<Status>,
    pub new: Option<Status>,
    pub old_ulp: Option<f64>,
    pub new_ulp: Option<f64>,
    /// The new run's message (why it fails or is skipped).
    pub message: String,
}

/// The differences, by kind, each in id order.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// Checks that fail in the new run and did not in the old one (or were not in it).
    pub new_failures: Vec<Change>,
    /// Checks that failed in the old run and pass or are known deviations in the new one.
    pub fixes: Vec<Change>,
    /// Checks skipped in the new run that were not in the old one.
    pub newly_skipped: Vec<Change>,
    /// Any other change of status (a new known deviation, a check no longer run, …).
    pub other: Vec<Change>,
    /// Checks whose largest measured ULP error changed.
    pub ulp_changes: Vec<Change>,
}

impl Diff {
    /// Whether a check newly fails: the exit status of `opspec diff`.
    pub fn regressed(&self) -> bool {
        !self.new_failures.is_empty()
    }

    /// The differences as text, one line per check.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (title, list) in self.sections() {
            let _ = writeln!(out, "{title}: {}", list.len());
            for c in list {
                let _ = writeln!(out, "  {}", c.line());
            }
        }
        out
    }

    /// The differences as an HTML page.
    pub fn html(&self, old: &str, new: &str) -> String {
        let mut page = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>opspec diff</title>\
             <style>body{{font-family:system-ui,sans-serif;margin:2em}}li{{font-family:monospace}}</style></head>\
             <body><h1>opspec diff</h1><p>old: {}<br>new: {}</p>",
            escape(old),
            escape(new)
        );
        for (title, list) in self.sections() {
            let _ = write!(page, "<h2>{} ({})</h2><ul>", escape(title), list.len());
            for c in list {
                let _ = write!(page, "<li>{}</li>", escape(&c.line()));
            }
            page += "</ul>";
        }
        page + "</body></html>\n"
    }

    fn sections(&self) -> [(&'static str, &Vec<Change>); 5] {
        [
            ("new failures", &self.new_failures),
            ("fixed", &self.fixes),
            ("newly skipped", &self.newly_skipped),
            ("other status changes", &self.other),
            ("changed ULP maxima", &self.ulp_changes),
        ]
    }
}

impl Change {
    fn line(&self) -> String {
        let status = |s: Option<Status>| s.map_or("absent", Status::name);
        let ulp = |u: Option<f64>| u.map_or("-".to_string(), |u| format!("{u:.3}"));
        let mut line = format!("{}: {} -> {}", self.id, status(self.old), status(self.new));
        if self.old_ulp != self.new_ulp {
            let _ = write!(line, ", max ulp {} -> {}", ulp(self.old_ulp), ulp(self.new_ulp));
        }
        if !self.message.is_empty() && self.new.is_some_and(|s| s != Status::Pass) {
            let _ = write!(line, " ({})", self.message.lines().next().unwrap_or(""));
        }
        line
    }
}

/// The differences from `old` to `new`. The old run is held as a compact map from each
/// check's id hash to what a change shows of it; the new run is streamed past it, and then
/// the old run again for the checks the new one does not have.
pub fn diff(old: &Run, new: &Run) -> Result<Diff, String> {
    // Status and largest ULP error of each old check, and whether the new run has it.
    let mut before: HashMap<u128, (Status, Option<f64>, bool)> = HashMap::new();
    for r in old.checks() {
        let r = r?;
        before.insert(id_hash(&r.id.to_string()), (r.status, r.max_ulp_error, false));
    }
    let mut d = Diff::default();
    for r in new.checks() {
        let r = r?;
        let id = r.id.to_string();
        let o = before.get_mut(&id_hash(&id)).map(|(status, ulp, seen)| {
            *seen = true;
            (*status, *ulp)
        });
        d.add(Change {
            id,
            old: o.map(|(status, _)| status),
            new: Some(r.status),
            old_ulp: o.and_then(|(_, ulp)| ulp),
            new_ulp: r.max_ulp_error,
            message: r.message,
        });
    }
    for r in old.checks() {
        let r = r?;
        let id = r.id.to_string();
        if before.get(&id_hash(&id)).is_some_and(|&(_, _, seen)| !seen) {
            let (old, old_ulp) = (Some(r.status), r.max_ulp_error);
            d.add(Change { id, old, new: None, old_ulp, new_ulp: None, message: String::new() });
        }
    }
    for list in [&mut d.new_failures, &mut d.fixes, &mut d.newly_skipped, &mut d.other, &mut d.ulp_changes] {
        list.sort_by(|a, b| a.id.cmp(&b.id));
    }
    Ok(d)
}

/// A 128-bit hash of a check id (two ids share one with a chance of about 2^-128).
fn id_hash(id: &str) -> u128 {
    fnv1a_128([id.as_bytes()])
}

impl Diff {
    /// Files `change` under its kind, if it is a change.
    fn add(&mut self, change: Change) {
        let fails = |s: Option<Status>| s.is_some_and(Status::fails_run);
        if change.old_ulp != change.new_ulp && change.old.is_some() && change.new.is_some() {
            self.ulp_changes.push(change.clone());
        }
        if change.old == change.new {
            return;
        }
        if fails(change.new) && !fails(change.old) {
            self.new_failures.push(change);
        } else if fails(change.old) && matches!(change.new, Some(Status::Pass | Status::KnownDeviation)) {
            self.fixes.push(change);
        } else if change.new == Some(Status::Skip) {
            self.newly_skipped.push(change);
        } else {
            self.other.push(change);
        }
    }
}
