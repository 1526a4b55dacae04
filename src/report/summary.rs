//! Text summaries of runs: the terminal's (one line per suite and adapter, `--verbose` one
//! per operation and dtype, then known deviations and failures, grouped) and the Markdown
//! one for a CI job page (GitHub's `$GITHUB_STEP_SUMMARY`, at most 1 MiB). Each is gathered
//! in one pass over the runs' checks, keeping counts per group and a bounded number of checks.

use std::collections::BTreeMap;
use std::fmt::Write;

use opspec_adapter::{BinaryOp, DType, TernaryOp, UnaryOp};

use super::{Reruns, Tally, each_check};
use crate::results::coverage::{Coverage, coverage_text};
use crate::results::{CheckResult, Rerun, Run, Status};
use crate::spec::authority::Tier;
use crate::verdict::Conformance;
use crate::verdict::Verdicts;

/// Failures printed in full on the terminal; the rest are listed by id.
const FULL_REPORTS: usize = 20;
/// Failures listed on the terminal, in full or by id; the rest are counted.
const LISTED: usize = 1000;
/// Distinct skip reasons, or library warnings, listed per adapter on the terminal.
const TOP_REASONS: usize = 5;
/// GitHub aborts a step summary above 1 MiB; stay well below.
const MARKDOWN_LIMIT: usize = 900 * 1024;

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

/// A failing check's group: suite, adapter and operation.
type Group = (String, String, String);

/// What the summaries show of a set of runs, gathered check by check.
#[derive(Default)]
struct Summary {
    total: Tally,
    by_pair: BTreeMap<(String, String), Tally>,
    verdicts: Verdicts,
    coverage: Coverage,
    /// Per (suite, adapter, op, dtype): the tally and the seconds its checks took.
    by_op: BTreeMap<(String, String, String, String), (Tally, f64)>,
    /// Per expectations entry (path, line): checks, failed inputs, inputs, what it does.
    known: BTreeMap<(String, u64), (usize, usize, usize, String)>,
    /// Per adapter: while every check of it was skipped, how many gave each reason.
    skip_reasons: BTreeMap<String, Option<BTreeMap<String, usize>>>,
    /// Per adapter: how many checks each step of its own failed in, and each warning was raised in.
    steps: BTreeMap<String, BTreeMap<String, usize>>,
    warnings: BTreeMap<String, BTreeMap<String, usize>>,
    reruns: Reruns,
    /// The checks failing at the gate: how many per group, and the first [`LISTED`] (the
    /// first [`FULL_REPORTS`] of them in full) by group and then the runs' order.
    failing: BTreeMap<Group, usize>,
    listed: BTreeMap<(Group, usize), String>,
    full: BTreeMap<(Group, usize), (usize, CheckResult)>,
    /// Failures below the gate, by the tier they fail.
    below: BTreeMap<Tier, usize>,
    /// The sweeps that took chunks from state files: the first [`LISTED`], each with what it
    /// took and from where, and how many.
    resumed: Vec<String>,
    resumed_checks: usize,
    /// The Markdown lines of the first failing checks (as many as fit below the limit).
    markdown: Vec<String>,
    markdown_bytes: usize,
    /// The failing checks so far, to find the first whose line did not fit.
    markdown_fit: usize,
    seen: usize,
}

impl Summary {
    /// The summary of `runs` at `gate`: one pass.
    fn of(runs: &[Run], gate: Tier) -> Result<Summary, String> {
        let mut s = Summary::default();
        each_check(runs, |run, r| {
            s.add(run, r, gate);
            Ok(())
        })?;
        Ok(s)
    }

    fn add(&mut self, run: usize, r: CheckResult, gate: Tier) {
        let (suite, adapter) = (r.id.suite_label().to_string(), r.id.adapter_label().to_string());
        self.total.add(&r);
        self.by_pair.entry((suite.clone(), adapter.clone())).or_default().add(&r);
        self.verdicts.add(&r);
        self.coverage.add(&r);
        let op = (suite.clone(), adapter.clone(), r.id.op.clone(), r.id.dtype.clone());
        let (tally, seconds) = self.by_op.entry(op).or_default();
        tally.add(&r);
        *seconds += r.seconds;
        if let (Status::KnownDeviation, Some(d)) = (r.status, &r.deviation) {
            // `path:line`, ordered by path, then line number.
            let (path, line) = d.location.rsplit_once(':').unwrap_or((&d.location, ""));
            let key = (path.to_string(), line.parse().unwrap_or(0));
            let e = self.known.entry(key).or_insert_with(|| (0, 0, 0, d.does.clone()));
            (e.0, e.1, e.2) = (e.0 + 1, e.1 + r.failed_inputs, e.2 + r.inputs);
        }
        if let Some(name) = r.id.adapter_name() {
            let reasons = self.skip_reasons.entry(name.to_string()).or_insert_with(|| Some(BTreeMap::new()));
            match (r.status, reasons.as_mut()) {
                (Status::Skip, Some(reasons)) => *reasons.entry(generic_reason(&r)).or_default() += 1,
                (Status::Skip, None) => {}
                _ => *reasons = None,
            }
        }
        let texts = std::iter::once(r.message.as_str()).chain(r.failures.iter().map(|f| f.actual.as_str()));
        let mut steps: Vec<String> = texts.filter_map(failed_step).collect();
        steps.sort();
        steps.dedup();
        let counts = self.steps.entry(adapter.clone()).or_default();
        steps.into_iter().for_each(|step| *counts.entry(step).or_default() += 1);
        let counts = self.warnings.entry(adapter.clone()).or_default();
        r.warnings.iter().for_each(|w| *counts.entry(w.clone()).or_default() += 1);
        if !r.resumed.is_empty() {
            self.resumed_checks += 1;
            if self.resumed.len() < LISTED {
                let taken: Vec<String> = r.resumed.iter().map(|t| t.describe()).collect();
                self.resumed.push(format!("  {}: {}\n", r.id, taken.join("; ")));
            }
        }
        self.reruns.add(run, &r);
        if r.status == Status::Fail && !r.fails(gate) {
            *self.below.entry(r.failed_tier()).or_default() += 1;
        }
        if r.fails(gate) {
            let line = format!("- `{}` ({}): {}\n", r.id, r.status.name(), markdown_text(&r.message));
            // The lines up to the first that does not fit below the limit, even alone.
            if self.markdown.len() == self.markdown_fit && self.markdown_bytes + line.len() <= MARKDOWN_LIMIT
            {
                self.markdown_bytes += line.len();
                self.markdown.push(line);
            }
            self.markdown_fit += 1;
            let group = (suite, adapter, r.id.op.clone());
            *self.failing.entry(group.clone()).or_default() += 1;
            let key = (group, self.seen);
            self.listed.insert(key.clone(), format!("  {} {}: {}\n", r.id, r.status_text(), r.message));
            if self.listed.len() > LISTED {
                self.listed.pop_last();
            }
            self.full.insert(key, (run, r));
            if self.full.len() > FULL_REPORTS {
                self.full.pop_last();
            }
        }
        self.seen += 1;
    }
}

/// What the terminal shows after a run or for `report`.
pub fn terminal_summary(runs: &[Run], verbose: bool, gate: Tier) -> Result<String, String> {
    let mut s = Summary::of(runs, gate)?;
    let mut out = String::new();
    let verdicts = std::mem::take(&mut s.verdicts).finish();
    for ((suite, adapter), t) in &s.by_pair {
        let key = (suite.clone(), adapter.clone());
        let verdict = verdicts.get(&key).map(|v| format!("; {}", v.text())).unwrap_or_default();
        let _ = writeln!(
            out,
            "{suite:<12} {adapter:<10} {}; {} inputs, max ulp {}{verdict}",
            counts(t),
            t.inputs,
            t.max_ulp_text()
        );
    }
    for (adapter, layouts) in std::mem::take(&mut s.coverage).finish() {
        let _ = writeln!(out, "layouts      {adapter:<10} {}", coverage_text(&layouts));
    }
    if verbose {
        out += "\n";
        out += &per_op_table(&s.by_op);
    }
    out += &known_deviations(&s.known);
    out += &skip_reasons(&s.skip_reasons);
    out += &adapter_steps(&s.steps);
    out += &library_warnings(&s.warnings);
    if s.resumed_checks > 0 {
        let _ = writeln!(out, "\nsweeps resumed from state files (docs/SCALE.md):");
        out.extend(s.resumed.iter().map(String::as_str));
        if s.resumed_checks > s.resumed.len() {
            let _ = writeln!(out, "  … and {} more", s.resumed_checks - s.resumed.len());
        }
    }
    out += &failures(runs, &s, gate);
    let total = s.total;
    let seconds: f64 = runs.iter().map(|r| r.info.seconds).sum();
    let speed = if seconds > 0.0 {
        format!(" in {seconds:.1} s ({:.0} inputs/s)", total.inputs as f64 / seconds)
    } else {
        String::new()
    };
    let _ = writeln!(out, "\n{}; {} inputs{speed}", counts(&total), total.inputs);
    Ok(out)
}

/// One line per (suite, adapter, op, dtype) with counts and checking speed.
fn per_op_table(by_op: &BTreeMap<(String, String, String, String), (Tally, f64)>) -> String {
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
    for ((suite, adapter, op, dtype), (t, seconds)) in by_op {
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
fn known_deviations(entries: &BTreeMap<(String, u64), (usize, usize, usize, String)>) -> String {
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
fn skip_reasons(by_adapter: &BTreeMap<String, Option<BTreeMap<String, usize>>>) -> String {
    let mut out = String::new();
    for (adapter, reasons) in by_adapter {
        let Some(reasons) = reasons else { continue };
        let checks: usize = reasons.values().sum();
        let _ = writeln!(out, "\nevery check of adapter {adapter} was skipped ({checks} checks); why:");
        out += &most_frequent(reasons);
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
fn adapter_steps(by_adapter: &BTreeMap<String, BTreeMap<String, usize>>) -> String {
    let mut out = String::new();
    for (adapter, steps) in by_adapter.iter().filter(|(_, steps)| !steps.is_empty()) {
        let _ = writeln!(
            out,
            "
steps of adapter {adapter}'s own that failed (not the operations under test; the checks' reports say which operands):"
        );
        out += &most_frequent(steps);
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
fn library_warnings(by_adapter: &BTreeMap<String, BTreeMap<String, usize>>) -> String {
    let mut out = String::new();
    for (adapter, warned) in by_adapter.iter().filter(|(_, warned)| !warned.is_empty()) {
        let _ = writeln!(out, "\nlibrary warnings during adapter {adapter}'s calls:");
        out += &most_frequent(warned);
    }
    out
}

/// `  N checks: TEXT` for the [`TOP_REASONS`] most frequent texts (ties in text order), then
/// how many other texts and checks there were.
fn most_frequent(counts: &BTreeMap<String, usize>) -> String {
    let mut ranked: Vec<(&str, usize)> = counts.iter().map(|(t, &n)| (t.as_str(), n)).collect();
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

/// Every failing check, grouped by suite, adapter and operation: the first [`FULL_REPORTS`]
/// as bug reports, then ids up to [`LISTED`], then how many more.
fn failures(runs: &[Run], s: &Summary, gate: Tier) -> String {
    let none = Rerun::default();
    let mut out = String::new();
    for (group, n) in &s.failing {
        let (suite, adapter, op) = group;
        let _ = writeln!(out, "\n== {suite}:{adapter}:{op}: {n} failing checks");
        for (key, line) in s.listed.range((group.clone(), 0)..=(group.clone(), usize::MAX)) {
            match s.full.get(key) {
                Some((_, r)) => out += &r.report(s.reruns.get(runs, adapter).unwrap_or(&none)),
                None => out += line,
            }
        }
    }
    let failing: usize = s.failing.values().sum();
    if failing > LISTED {
        let _ = writeln!(
            out,
            "  … and {} more failing checks (the report and the results file hold every one)",
            failing - LISTED
        );
    }
    let below: usize = s.below.values().sum();
    if below > 0 {
        let parts: Vec<String> = s.below.iter().map(|(t, n)| format!("{n} fail a {t}")).collect();
        let _ = writeln!(
            out,
            "\n{below} checks fail only bars below gate {gate} ({}): listed in the report, not failing the run (--gate quality fails on every bar)",
            parts.join(", ")
        );
    }
    out
}

/// The Markdown summary: totals per suite and adapter, then the failing checks (as many as
/// fit below GitHub's limit).
pub fn github_summary(runs: &[Run], gate: Tier) -> Result<String, String> {
    let mut s = Summary::of(runs, gate)?;
    let mut out = format!("## opspec conformance\n\n**{}**\n\n", counts(&s.total));
    if runs.iter().any(|r| !r.complete) {
        out += "**Incomplete**: a run ended before it finished; its unrun checks are `missing`.\n\n";
    }
    out += "| suite | adapter | passed | failed | known deviations | skipped | max ulp | verdict |\n|---|---|---|---|---|---|---|---|\n";
    let verdicts = std::mem::take(&mut s.verdicts).finish();
    for (key, t) in &s.by_pair {
        let verdict = verdicts.get(key).map(Conformance::text).unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {verdict} |",
            key.0,
            key.1,
            t.pass,
            t.failing(),
            t.known_deviation,
            t.skip,
            t.max_ulp_text()
        );
    }
    let failing: usize = s.failing.values().sum();
    if failing > 0 {
        out += "\n### Failing checks\n\n";
        let mut shown = 0;
        for line in &s.markdown {
            if out.len() + line.len() > MARKDOWN_LIMIT {
                break;
            }
            out += line;
            shown += 1;
        }
        if shown < failing {
            let _ = writeln!(out, "- … and {} more (see the HTML report)", failing - shown);
        }
    }
    Ok(out)
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

    /// The results of these checks: `(id, status, message, warnings)`.
    fn results_of(checks: &[(&str, Status, &str, &[&str])]) -> Vec<CheckResult> {
        checks
            .iter()
            .map(|&(id, status, message, warnings)| {
                let mut r = CheckResult::new(id.parse().unwrap());
                (r.status, r.message) = (status, message.to_string());
                r.warnings = warnings.iter().map(|w| w.to_string()).collect();
                r
            })
            .collect()
    }

    /// A complete run of `results`, held in memory.
    fn run(results: Vec<CheckResult>) -> Run {
        let info = RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec![], Rerun::default());
        Run::in_memory(Default::default(), info, results, BTreeMap::new(), true)
    }

    /// A complete run of these checks: `(id, status, message, warnings)`.
    fn run_of(checks: &[(&str, Status, &str, &[&str])]) -> Run {
        run(results_of(checks))
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
        let text = terminal_summary(&[run_of(&listed)], false, Tier::Must).unwrap();
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
        let mut results = results_of(&[
            ("array-api:lib:add:f32:edges", Status::Skip, &format!("skipped: {make}"), &[]),
            ("array-api:lib:sqrt:f32:edges", Status::Fail, "2 of 9 inputs", &[]),
            ("array-api:lib:exp:f64:edges", Status::Pass, "", &[]),
        ]);
        let failure = |actual: &str| -> CaseFailure {
            let json = serde_json::json!({"inputs": [], "expected": "", "actual": actual, "steps": null, "reproduce": ""});
            serde_json::from_value(json).unwrap()
        };
        // Two inputs of one check through one step count once; another step in it counts too.
        results[1].failures =
            vec![failure(convert), failure(convert), failure(&make.replace("[3, 1]", "[]"))];
        let text = terminal_summary(&[run(results)], false, Tier::Must).unwrap();
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
        )
        .unwrap();
        let expected =
            "\nlibrary warnings during adapter lib's calls:\n  2 checks: W: lossy\n  1 check: W: slow\n";
        assert!(text.contains(expected), "{text}");
        assert!(!text.contains("adapter cpu's calls"), "{text}");
        assert!(text.contains("  library warning: W: slow\n"), "the failure's report: {text}");
    }
}
