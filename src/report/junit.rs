//! JUnit XML: one `<testsuite>` per suite and adapter (`classname`), one `<testcase>` per
//! check id (never one per input), in the subset GitLab and the GitHub JUnit actions read and
//! Jenkins' `junit-10.xsd` allows.
//!
//! A failing check is a `<failure>` whose body is its bug report; a listed deviation that
//! passed is a `<failure type="xpass">`; a missing check or an adapter that could not start is
//! an `<error>`. A known deviation is `<skipped type="xfail">` with the entry's text: it must
//! not fail CI, and a skipped case stays visible in every CI view, where a passed one with a
//! property would look like any other pass.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::results::{CheckResult, Rerun, Run, Status};
use crate::spec::authority::Tier;

/// Text escaped for XML 1.0, which allows no control characters but tab and line breaks
/// even as references: they become U+FFFD.
fn escape(s: &str) -> String {
    let allowed: String = s
        .chars()
        .map(|c| if c.is_control() && !matches!(c, '\t' | '\n' | '\r') { '\u{fffd}' } else { c })
        .collect();
    super::html::escape(&allowed)
}

/// Listed failing inputs per failure body (GitLab limits the objects it parses).
const BODY_INPUTS: usize = 3;

/// The whole document.
pub fn render(runs: &[Run], gate: Tier) -> String {
    let mut suites: BTreeMap<String, Vec<&CheckResult>> = BTreeMap::new();
    for r in runs.iter().flat_map(|r| &r.results) {
        suites.entry(format!("{}:{}", r.id.suite_label(), r.id.adapter_label())).or_default().push(r);
    }
    let count = |list: &[&CheckResult], f: fn(Status) -> bool| list.iter().filter(|r| f(r.status)).count();
    let failing =
        |list: &[&CheckResult]| list.iter().filter(|r| r.status == Status::Fail && r.fails(gate)).count();
    let all: Vec<&CheckResult> = suites.values().flatten().copied().collect();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"opspec\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">",
        all.len(),
        failing(&all),
        count(&all, |s| matches!(s, Status::Missing | Status::Unavailable)),
        all.iter().map(|r| r.seconds).sum::<f64>()
    );
    let (reruns, none) = (Run::reruns(runs), Rerun::default());
    for (name, list) in &suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            escape(name),
            list.len(),
            failing(list),
            count(list, |s| matches!(s, Status::Missing | Status::Unavailable)),
            count(list, |s| matches!(s, Status::Skip | Status::KnownDeviation)),
            list.iter().map(|r| r.seconds).sum::<f64>()
        );
        for r in list {
            out += &testcase(name, r, gate, reruns.get(r.id.adapter_label()).copied().unwrap_or(&none));
        }
        out += "  </testsuite>\n";
    }
    out += "</testsuites>\n";
    out
}

fn testcase(classname: &str, r: &CheckResult, gate: Tier, rerun: &Rerun) -> String {
    let name = format!("{}:{}:{}", r.id.op, r.id.dtype, r.id.case);
    let mut out = format!(
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
        escape(classname),
        escape(&name),
        r.seconds
    );
    let first_line = |s: &str| escape(s.lines().next().unwrap_or(""));
    let body = match r.status {
        Status::Pass => String::new(),
        // A failure below the gate passes, with its report as output.
        Status::Fail if !r.fails(gate) => {
            format!("<system-out>{}</system-out>", escape(&short_report(r, rerun)))
        }
        Status::Fail => {
            let kind = if r.failures.is_empty() && r.deviation.is_some() { "xpass" } else { "mismatch" };
            format!(
                "<failure type=\"{kind}\" message=\"{}\">{}</failure>",
                first_line(&r.message),
                escape(&short_report(r, rerun))
            )
        }
        Status::KnownDeviation => {
            let does = r.deviation.as_ref().map_or(String::new(), |d| format!("{}: {}", d.location, d.does));
            format!("<skipped type=\"xfail\" message=\"known deviation: {}\"/>", first_line(&does))
        }
        Status::Skip => format!("<skipped message=\"{}\"/>", first_line(&r.message)),
        Status::Missing | Status::Unavailable => format!(
            "<error type=\"{}\" message=\"{}\">{}</error>",
            r.status.name(),
            first_line(&r.message),
            escape(&r.message)
        ),
    };
    if body.is_empty() {
        out += "/>\n";
    } else {
        let _ = writeln!(out, ">{body}</testcase>");
    }
    out
}

/// The bug report with at most [`BODY_INPUTS`] failing inputs.
fn short_report(r: &CheckResult, rerun: &Rerun) -> String {
    let mut shown = r.clone();
    shown.failures.truncate(BODY_INPUTS);
    let mut text = shown.report(rerun);
    if r.failures.len() > BODY_INPUTS {
        let _ = writeln!(text, "  (and {} more listed in the HTML report)", r.failures.len() - BODY_INPUTS);
    }
    text
}
