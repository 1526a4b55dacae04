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
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{Reruns, each_check};
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

/// One `<testsuite>`'s counts.
#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    seconds: f64,
}

impl Counts {
    fn add(&mut self, r: &CheckResult, gate: Tier) {
        self.tests += 1;
        self.failures += usize::from(r.status == Status::Fail && r.fails(gate));
        self.errors += usize::from(matches!(r.status, Status::Missing | Status::Unavailable));
        self.skipped += usize::from(matches!(r.status, Status::Skip | Status::KnownDeviation));
        self.seconds += r.seconds;
    }
}

/// The `<testsuite>` a check belongs to: its suite and adapter.
fn suite_of(r: &CheckResult) -> String {
    format!("{}:{}", r.id.suite_label(), r.id.adapter_label())
}

/// Writes the whole document to `path`: the counts from one pass over the runs, then each
/// `<testsuite>`'s test cases, one pass each, written as they are read.
pub fn write(path: &Path, runs: &[Run], gate: Tier) -> Result<(), String> {
    let mut suites: BTreeMap<String, Counts> = BTreeMap::new();
    let mut reruns = Reruns::default();
    each_check(runs, |run, r| {
        reruns.add(run, &r);
        suites.entry(suite_of(&r)).or_default().add(&r, gate);
        Ok(())
    })?;
    let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
    let mut out = BufWriter::new(File::create(path).map_err(fail)?);
    let total = |f: fn(&Counts) -> usize| suites.values().map(f).sum::<usize>();
    write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"opspec\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3}\">\n",
        total(|c| c.tests),
        total(|c| c.failures),
        total(|c| c.errors),
        suites.values().map(|c| c.seconds).sum::<f64>()
    )
    .map_err(fail)?;
    let none = Rerun::default();
    for (name, c) in &suites {
        writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
            escape(name),
            c.tests,
            c.failures,
            c.errors,
            c.skipped,
            c.seconds
        )
        .map_err(fail)?;
        each_check(runs, |_, r| {
            if suite_of(&r) != *name {
                return Ok(());
            }
            let rerun = reruns.get(runs, r.id.adapter_label()).unwrap_or(&none);
            out.write_all(testcase(name, &r, gate, rerun).as_bytes()).map_err(fail)
        })?;
        out.write_all(b"  </testsuite>\n").map_err(fail)?;
    }
    out.write_all(b"</testsuites>\n").and_then(|()| out.flush()).map_err(fail)
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
                "<failure type=\"{kind}\" message=\"fails a {}: {}\">{}</failure>",
                r.failed_tier(),
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
