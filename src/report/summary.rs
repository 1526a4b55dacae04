//! Text summaries of runs: the terminal's (one line per suite and adapter, `--verbose` one
//! per operation and dtype, then known deviations and failures, grouped) and the Markdown
//! one for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`, at most 1 MiB).

use std::collections::BTreeMap;
use std::fmt::Write;

use opspec_adapter::{BinaryOp, DType, TernaryOp, UnaryOp};

use super::{Conformance, Tally, verdicts};
use crate::results::{CheckResult, Rerun, Run, Status};
use crate::spec::authority::Tier;

/// Failures printed in full on the terminal; the rest are listed by id.
const FULL_REPORTS: usize = 20;
/// Distinct skip reasons, or library warnings, listed per adapter on the terminal.
const TOP_REASONS: usize = 5;
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
pub fn terminal_summary(runs: &[Run], verbose: bool, gate: Tier) -> String {
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
    out += &skip_reasons(runs);
    out += &adapter_steps(runs);
    out += &library_warnings(runs);
    out += &failures(runs, gate);
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

/// For each adapter whose every check was skipped (exit 3 unless `--allow-skips`): why, the
/// most frequent reasons first, with how many checks gave each (a check's own operation and
/// dtype read `OP` and `DTYPE`, so that one reason given for many reads as one).
fn skip_reasons(runs: &[Run]) -> String {
    let mut out = String::new();
    for adapter in crate::results::skipped_adapters(runs) {
        let skipped: Vec<String> =
            all(runs).filter(|r| r.id.adapter_name() == Some(adapter)).map(generic_reason).collect();
        let _ =
            writeln!(out, "\nevery check of adapter {adapter} was skipped ({} checks); why:", skipped.len());
        out += &most_frequent(skipped.iter().map(String::as_str));
    }
    out
}

/// `r`'s message with its operation's name (where it names an operation, not a rule set) as
/// `OP` and its dtype's as `DTYPE`, where they stand as whole words.
fn generic_reason(r: &CheckResult) -> String {
    let op = r.id.op.as_str();
    let is_op =
        op.parse::<UnaryOp>().is_ok() || op.parse::<BinaryOp>().is_ok() || op.parse::<TernaryOp>().is_ok();
    let is_dtype = DType::ALL.iter().any(|d| d.name() == r.id.dtype);
    let text = if is_op { whole_words(&r.message, op, "OP") } else { r.message.clone() };
    if is_dtype { whole_words(&text, &r.id.dtype, "DTYPE") } else { text }
}

/// `text` with every `name` that is not part of a longer word replaced by `with`.
fn whole_words(text: &str, name: &str, with: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let (mut out, mut copied) = (String::new(), 0);
    for (at, _) in text.match_indices(name) {
        if !word(text[..at].chars().next_back()) && !word(text[at + name.len()..].chars().next()) {
            out += &text[copied..at];
            out += with;
            copied = at + name.len();
        }
    }
    out + &text[copied..]
}

/// What an adapter says before the step of its own that failed (`docs/PROTOCOL.md`).
const STEP_MARK: &str = "adapter error at step ";

/// The adapter's own steps that failed (building an operand, converting a result), per
/// adapter: each step, its operands' shapes and dtypes left out, with how many checks it
/// touched (failed or skipped), so that no one reads them as the operations' failures.
fn adapter_steps(runs: &[Run]) -> String {
    let mut out = String::new();
    for (adapter, results) in grouped(runs, |r| r.id.adapter_label()) {
        let steps: Vec<String> = results
            .iter()
            .flat_map(|r| {
                let texts =
                    std::iter::once(r.message.as_str()).chain(r.failures.iter().map(|f| f.actual.as_str()));
                let mut steps: Vec<String> = texts.filter_map(failed_step).collect();
                steps.sort();
                steps.dedup();
                steps
            })
            .collect();
        if !steps.is_empty() {
            let _ = writeln!(
                out,
                "
steps of adapter {adapter}'s own that failed (not the operations under test; the checks' reports say which operands):"
            );
            out += &most_frequent(steps.iter().map(String::as_str));
        }
    }
    out
}

/// The step named after [`STEP_MARK`] in `text`, without its parenthesised parts.
fn failed_step(text: &str) -> Option<String> {
    let after = &text[text.find(STEP_MARK)? + STEP_MARK.len()..];
    let step = after.split_once(": ").map_or(after, |(step, _)| step);
    let (mut out, mut depth) = (String::new(), 0usize);
    let mut chars = step.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' if depth == 0 && chars.peek() == Some(&'(') => {
                chars.next();
                depth = 1;
            }
            '(' if depth > 0 => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    Some(out)
}

/// The library warnings the checks' calls raised, per adapter: each distinct one with how many
/// checks it was raised in, the most frequent first.
fn library_warnings(runs: &[Run]) -> String {
    let mut out = String::new();
    for (adapter, results) in grouped(runs, |r| r.id.adapter_label()) {
        let warned: Vec<&str> = results.iter().flat_map(|r| &r.warnings).map(String::as_str).collect();
        if !warned.is_empty() {
            let _ = writeln!(out, "\nlibrary warnings during adapter {adapter}'s calls:");
            out += &most_frequent(warned);
        }
    }
    out
}

/// `  N checks: TEXT` for the [`TOP_REASONS`] most frequent texts (ties in text order), then
/// how many other texts and checks there were.
fn most_frequent<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for t in texts {
        *counts.entry(t).or_default() += 1;
    }
    let mut ranked: Vec<(&str, usize)> = counts.into_iter().collect();
    ranked.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let mut out = String::new();
    for (text, n) in ranked.iter().take(TOP_REASONS) {
        let _ = writeln!(out, "  {n} {}: {text}", if *n == 1 { "check" } else { "checks" });
    }
    if ranked.len() > TOP_REASONS {
        let rest = &ranked[TOP_REASONS..];
        let checks: usize = rest.iter().map(|&(_, n)| n).sum();
        let _ = writeln!(out, "  … and {} other texts in {checks} checks", rest.len());
    }
    out
}

/// Every failing check's bug report, grouped by suite, adapter and operation; past
/// [`FULL_REPORTS`] only the ids.
fn failures(runs: &[Run], gate: Tier) -> String {
    let failed = grouped(runs, |r| (r.id.suite_label(), r.id.adapter_label(), r.id.op.as_str()));
    let (reruns, none) = (Run::reruns(runs), Rerun::default());
    let mut out = String::new();
    let mut printed = 0;
    for ((suite, adapter, op), results) in failed {
        let results: Vec<_> = results.into_iter().filter(|r| r.fails(gate)).collect();
        if results.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n== {suite}:{adapter}:{op}: {} failing checks", results.len());
        for r in results {
            if printed < FULL_REPORTS {
                out += &r.report(reruns.get(adapter).copied().unwrap_or(&none));
                printed += 1;
            } else {
                let _ = writeln!(out, "  {} {}: {}", r.id, r.status_text(), r.message);
            }
        }
    }
    let below: Vec<_> = all(runs).filter(|r| r.status == Status::Fail && !r.fails(gate)).collect();
    if !below.is_empty() {
        let mut by_tier: BTreeMap<Tier, usize> = BTreeMap::new();
        for r in &below {
            *by_tier.entry(r.failed_tier()).or_default() += 1;
        }
        let parts: Vec<String> = by_tier.iter().map(|(t, n)| format!("{n} fail a {t}")).collect();
        let _ = writeln!(
            out,
            "\n{} checks fail only bars below gate {gate} ({}): listed in the report, not failing the run (--gate quality fails on every bar)",
            below.len(),
            parts.join(", ")
        );
    }
    out
}

/// The Markdown summary: totals per suite and adapter, then the failing checks (as many as
/// fit below GitHub's limit).
pub fn github_summary(runs: &[Run], gate: Tier) -> String {
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
    let failing: Vec<_> = all(runs).filter(|r| r.fails(gate)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CaseFailure, RunInfo};
    use crate::spec::Catalog;

    /// A complete run of these checks: `(id, status, message, warnings)`.
    fn run_of(checks: &[(&str, Status, &str, &[&str])]) -> Run {
        let results = checks
            .iter()
            .map(|&(id, status, message, warnings)| {
                let mut r = CheckResult::new(id.parse().unwrap());
                (r.status, r.message) = (status, message.to_string());
                r.warnings = warnings.iter().map(|w| w.to_string()).collect();
                r
            })
            .collect();
        let info = RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec![], Rerun::default());
        Run { path: Default::default(), info, results, sources: BTreeMap::new(), complete: true }
    }

    #[test]
    fn an_adapter_whose_every_check_is_skipped_shows_its_reasons_grouped() {
        let mut checks = Vec::new();
        let ops = ["add", "sqrt", "atan2", "pow", "pow", "add", "add", "add", "add", "add", "add", "add"];
        let ids: Vec<String> = (0..12).map(|i| format!("array-api:lib:{}:f32:case{i}", ops[i])).collect();
        // One reason for three operations reads as one (`OP`, `DTYPE`; `add` in `address`
        // stays), one more of two checks, then seven that differ: the top five, then the rest.
        let reasons = [
            "no add for f32",
            "no sqrt for f32",
            "no atan2 for f32",
            "no pow at address 0",
            "no pow at address 0",
        ];
        for (i, id) in ids.iter().enumerate() {
            let reason = reasons.get(i).map_or_else(|| format!("reason {i}"), |r| r.to_string());
            checks.push((id.as_str(), reason));
        }
        let mut listed: Vec<(&str, Status, &str, &[&str])> =
            checks.iter().map(|(id, r)| (*id, Status::Skip, r.as_str(), &[][..])).collect();
        listed.push(("array-api:cpu:add:f32:edges", Status::Pass, "", &[]));
        listed.push(("array-api:cpu:add:f64:edges", Status::Skip, "no f64 here", &[]));
        let text = terminal_summary(&[run_of(&listed)], false, Tier::Must);
        let expected = "\nevery check of adapter lib was skipped (12 checks); why:\n  3 checks: no OP for DTYPE\n  \
                        2 checks: no OP at address 0\n  1 check: reason 10\n  1 check: reason 11\n  1 check: reason 5\n  \
                        … and 4 other texts in 4 checks\n";
        assert!(text.contains(expected), "{text}");
        // An adapter with a check that ran is not listed.
        assert!(!text.contains("adapter cpu was skipped") && !text.contains("no f64 here"), "{text}");
    }

    #[test]
    fn failed_adapter_steps_are_counted_per_check_without_their_operands() {
        let make = "adapter error at step building operand x1 (f32 [3, 1]) with lib.asarray on lib.Device('d1'): ValueError: no";
        let convert = "error adapter: adapter error at step converting the result (lib.Array) with the result's get(): E";
        let mut run = run_of(&[
            ("array-api:lib:add:f32:edges", Status::Skip, &format!("skipped: {make}"), &[]),
            ("array-api:lib:sqrt:f32:edges", Status::Fail, "2 of 9 inputs", &[]),
            ("array-api:lib:exp:f64:edges", Status::Pass, "", &[]),
        ]);
        let failure = |actual: &str| -> CaseFailure {
            let json = serde_json::json!({"inputs": [], "expected": "", "actual": actual, "steps": null, "reproduce": ""});
            serde_json::from_value(json).unwrap()
        };
        // Two inputs of one check through one step count once; another step in it counts too.
        run.results[1].failures =
            vec![failure(convert), failure(convert), failure(&make.replace("[3, 1]", "[]"))];
        let text = terminal_summary(&[run], false, Tier::Must);
        let expected = "\nsteps of adapter lib's own that failed (not the operations under test; the checks' reports say which operands):\n  \
                        2 checks: building operand x1 with lib.asarray on lib.Device('d1')\n  \
                        1 check: converting the result with the result's get()\n";
        assert!(text.contains(expected), "{text}");
    }

    #[test]
    fn library_warnings_are_listed_once_per_adapter_with_their_checks() {
        let warned: &[&str] = &["W: lossy", "W: slow"];
        let text = terminal_summary(
            &[run_of(&[
                ("array-api:lib:acos:f64:edges", Status::Fail, "m", warned),
                ("array-api:lib:asin:f64:edges", Status::Pass, "", &["W: lossy"]),
                ("array-api:cpu:add:f32:edges", Status::Pass, "", &[]),
            ])],
            false,
            Tier::Must,
        );
        let expected =
            "\nlibrary warnings during adapter lib's calls:\n  2 checks: W: lossy\n  1 check: W: slow\n";
        assert!(text.contains(expected), "{text}");
        assert!(!text.contains("adapter cpu's calls"), "{text}");
        assert!(text.contains("  library warning: W: slow\n"), "the failure's report: {text}");
    }
}
