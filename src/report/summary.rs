//! Text summaries of runs: the terminal's (one line per suite and adapter, `--verbose` one
//! per operation and dtype, then known deviations and failures, grouped) and the Markdown
//! one for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`, at most 1 MiB).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{Conformance, Tally, verdicts};
use crate::results::{CheckResult, Rerun, Run, Status};

/// Failures printed in full on the terminal; the rest are listed by id.
const FULL_REPORTS: usize = 20;
/// GitHub aborts a step summary above 1 MiB; stay well below.
const MARKDOWN_LIMIT: usize = 900 * 1024;

fn all(runs: &[Run]) -> impl Iterator<Item = &CheckResult> {
    runs.iter().flat_map(|r| &r.results)
}

/// Results grouped by a key, in key order.
fn grouped<'a, K: Ord>(
    runs: &'a [Run],
    key: impl Fn(&'a CheckResult) -> K,
) -> BTreeMap<K, Vec<&'a CheckResult>> {
    let mut groups: BTreeMap<K, Vec<&CheckResult>> = BTreeMap::new();
    for r in all(runs) {
        groups.entry(key(r)).or_default().push(r);
    }
    groups
}

/// `12 passed, 1 failed, …`, leaving out the statuses no check has (passed and failed always).
pub fn counts(t: &Tally) -> String {
    let mut out = format!("{} passed, {} failed", t.pass, t.fail);
    for (n, what) in [
        (t.known_deviation, "known deviations"),
        (t.skip, "skipped"),
        (t.missing, "missing"),
        (t.unavailable, "unavailable"),
    ] {
        if n > 0 {
            let _ = write!(out, ", {n} {what}");
        }
    }
    out
}

/// What the terminal shows after a run or for `report`.
pub fn terminal_summary(runs: &[Run], verbose: bool) -> String {
    let mut out = String::new();
    let by_pair = grouped(runs, |r| (r.id.suite_label(), r.id.adapter_label()));
    let verdicts = verdicts(all(runs));
    for ((suite, adapter), results) in &by_pair {
        let t = Tally::of(results.iter().copied());
        let verdict =
            verdicts.get(&(*suite, *adapter)).map(|v| format!("; {}", v.text())).unwrap_or_default();
        let _ = writeln!(
            out,
            "{suite:<12} {adapter:<10} {}; {} inputs, max ulp {}{verdict}",
            counts(&t),
            t.inputs,
            t.max_ulp_text()
        );
    }
    for (adapter, layouts) in crate::results::coverage::coverage(all(runs)) {
        let _ =
            writeln!(out, "layouts      {adapter:<10} {}", crate::results::coverage::coverage_text(&layouts));
    }
    if verbose {
        out += "\n";
        out += &per_op_table(runs);
    }
    out += &known_deviations(runs);
    out += &failures(runs);
    let total = Tally::of(all(runs));
    let seconds: f64 = runs.iter().map(|r| r.info.seconds).sum();
    let speed = if seconds > 0.0 {
        format!(" in {seconds:.1} s ({:.0} inputs/s)", total.inputs as f64 / seconds)
    } else {
        String::new()
    };
    let _ = writeln!(out, "\n{}; {} inputs{speed}", counts(&total), total.inputs);
    out
}

/// One line per (suite, adapter, op, dtype) with counts and checking speed.
fn per_op_table(runs: &[Run]) -> String {
    let mut out = format!(
        "{:<12} {:<10} {:<14} {:<7} {:>5} {:>5} {:>5} {:>5} {:>9} {:>9} {:>12} {:>8}\n",
        "suite",
        "adapter",
        "op",
        "dtype",
        "pass",
        "fail",
        "known",
        "skip",
        "planned",
        "inputs",
        "inputs/s",
        "max ulp"
    );
    let groups =
        grouped(runs, |r| (r.id.suite_label(), r.id.adapter_label(), r.id.op.as_str(), r.id.dtype.as_str()));
    for ((suite, adapter, op, dtype), results) in groups {
        let t = Tally::of(results.iter().copied());
        let seconds: f64 = results.iter().map(|r| r.seconds).sum();
        let _ = writeln!(
            out,
            "{suite:<12} {adapter:<10} {op:<14} {dtype:<7} {:>5} {:>5} {:>5} {:>5} {:>9} {:>9} {:>12.0} {:>8}",
            t.pass,
            t.failing(),
            t.known_deviation,
            t.skip,
            t.planned,
            t.inputs,
            t.inputs as f64 / seconds.max(1e-9),
            t.max_ulp_text()
        );
    }
    out
}

/// Known deviations, one line per expectations entry: where, how many checks and inputs,
/// and the first clause of what the implementation does.
fn known_deviations(runs: &[Run]) -> String {
    let known = all(runs).filter(|r| r.status == Status::KnownDeviation);
    let mut entries: BTreeMap<(&str, u64), (usize, usize, usize, &str)> = BTreeMap::new();
    for r in known {
        let Some(d) = &r.deviation else { continue };
        // `path:line`, ordered by path, then line number.
        let (path, line) = d.location.rsplit_once(':').unwrap_or((&d.location, ""));
        let e = entries.entry((path, line.parse().unwrap_or(0))).or_insert((0, 0, 0, d.does.as_str()));
        e.0 += 1;
        e.1 += r.failed_inputs;
        e.2 += r.inputs;
    }
    if entries.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nknown deviations (listed in the adapters' expectations files):\n");
    for ((path, line), (checks, failed, inputs, does)) in entries {
        let headline = does.split([':', ';']).next().unwrap_or(does).trim();
        let _ = writeln!(out, "  {path}:{line}: {checks} checks, {failed} of {inputs} inputs: {headline}");
    }
    out
}

/// Every failing check's bug report, grouped by suite, adapter and operation; past
/// [`FULL_REPORTS`] only the ids.
fn failures(runs: &[Run]) -> String {
    let failed = grouped(runs, |r| (r.id.suite_label(), r.id.adapter_label(), r.id.op.as_str()));
    let (reruns, none) = (Run::reruns(runs), Rerun::default());
    let mut out = String::new();
    let mut printed = 0;
    for ((suite, adapter, op), results) in failed {
        let results: Vec<_> = results.into_iter().filter(|r| r.status.fails_run()).collect();
        if results.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n== {suite}:{adapter}:{op}: {} failing checks", results.len());
        for r in results {
            if printed < FULL_REPORTS {
                out += &r.report(reruns.get(adapter).copied().unwrap_or(&none));
                printed += 1;
            } else {
                let _ = writeln!(out, "  {} {}: {}", r.id, r.status.name(), r.message);
            }
        }
    }
    out
}

/// The Markdown summary: totals per suite and adapter, then the failing checks (as many as
/// fit below GitHub's limit).
pub fn github_summary(runs: &[Run]) -> String {
    let total = Tally::of(all(runs));
    let mut out = format!("## opspec conformance\n\n**{}**\n\n", counts(&total));
    if runs.iter().any(|r| !r.complete) {
        out += "**Incomplete**: a run ended before it finished; its unrun checks are `missing`.\n\n";
    }
    out += "| suite | adapter | passed | failed | known deviations | skipped | max ulp | verdict |\n|---|---|---|---|---|---|---|---|\n";
    let verdicts = verdicts(all(runs));
    for ((suite, adapter), results) in grouped(runs, |r| (r.id.suite_label(), r.id.adapter_label())) {
        let t = Tally::of(results.iter().copied());
        let verdict = verdicts.get(&(suite, adapter)).map(Conformance::text).unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "| {suite} | {adapter} | {} | {} | {} | {} | {} | {verdict} |",
            t.pass,
            t.failing(),
            t.known_deviation,
            t.skip,
            t.max_ulp_text()
        );
    }
    let failing: Vec<_> = all(runs).filter(|r| r.status.fails_run()).collect();
    if !failing.is_empty() {
        out += "\n### Failing checks\n\n";
        for (i, r) in failing.iter().enumerate() {
            let line = format!("- `{}` ({}): {}\n", r.id, r.status.name(), markdown_text(&r.message));
            if out.len() + line.len() > MARKDOWN_LIMIT {
                let _ = writeln!(out, "- … and {} more (see the HTML report)", failing.len() - i);
                break;
            }
            out += &line;
        }
    }
    out
}

/// Text from an adapter or a table, made inert in Markdown (no HTML, no links, one line).
fn markdown_text(s: &str) -> String {
    let one_line: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    super::escape(&one_line).replace(['[', ']', '`', '|', '*', '_'], " ")
}
