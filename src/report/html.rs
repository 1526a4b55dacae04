//! The HTML page, rendered from the report record. Every string that came from an adapter or
//! a table is escaped.

use std::collections::BTreeMap;
use std::fmt::Write;

use opspec_adapter::DType;

use super::{Report, Tally};
use crate::run::{CheckResult, Status};

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}\
th:first-child,td:first-child{text-align:left}.fail{background:#fdd}.pass{background:#dfd}.skip{background:#eee}\
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}code{font-size:.95em}\
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:bold}";

/// The whole page.
pub fn render(report: &Report) -> String {
    let total = Tally::of(&report.results);
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>opspec conformance report</title>\
         <style>{STYLE}</style></head><body><h1>opspec conformance report</h1>\
         <p><strong>{}</strong> checks passed, <strong>{}</strong> failed, <strong>{}</strong> skipped; \
         {} inputs checked. The checks that count their inputs before they run planned {} and \
         ran {}.</p>",
        total.pass, total.fail, total.skip, total.inputs, total.planned, total.planned_run
    );
    page += &run_info(report);
    let mut groups: BTreeMap<(String, String), Vec<&CheckResult>> = BTreeMap::new();
    for r in &report.results {
        groups.entry((r.id.suite_label().to_string(), r.id.adapter_label().to_string())).or_default().push(r);
    }
    for ((suite, adapter), results) in &groups {
        page += &summary_table(suite, adapter, results);
    }
    page += &failures(&report.results);
    page += &skips(&report.results);
    page += "</body></html>\n";
    page
}

fn run_info(report: &Report) -> String {
    let i = &report.info;
    let rows = [
        ("opspec", i.opspec_version.clone()),
        ("catalog", i.catalog.clone()),
        ("spec revision", i.spec_revision.clone()),
        ("suite seeds", i.seeds.join(", ")),
        ("table self-checks", format!("seed {}, {} inputs per row", i.table_seed, i.table_cases_per_row)),
        ("threads", i.threads.clone()),
        ("adapters", i.adapters.join(", ")),
        ("reference", i.reference.clone()),
        ("target", i.target.clone()),
        ("CPU features", i.cpu_features.join(" ")),
        ("finished (Unix time)", i.finished_at.to_string()),
        ("duration", format!("{:.1} s", i.seconds)),
        ("command", i.command.clone()),
    ];
    let mut out = String::from("<dl>");
    for (k, v) in rows {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
    }
    out + "</dl>"
}

/// Each dtype gets a column; checks with other labels (promotion pairs, shape vectors) share
/// the column `other`.
fn column(dtype: &str) -> &str {
    if dtype.parse::<DType>().is_ok() { dtype } else { "other" }
}

/// Operation × dtype table of check counts for one suite and adapter: passed of run, with
/// failures and skips spelt out, and the measured maximum ULP error where there is one.
fn summary_table(suite: &str, adapter: &str, results: &[&CheckResult]) -> String {
    let mut columns: Vec<&str> = results.iter().map(|r| column(&r.id.dtype)).collect();
    columns.sort_by_key(|d| dtype_rank(d));
    columns.dedup();
    let mut ops: Vec<&str> = results.iter().map(|r| r.id.op.as_str()).collect();
    ops.sort();
    ops.dedup();
    let title = if suite == "table" {
        "Table self-checks (each row's stated result against the oracle)".to_string()
    } else {
        format!("Suite {suite}, adapter {adapter}")
    };
    let mut out = format!("<h2>{}</h2><table><tr><th>operation</th>", escape(&title));
    for d in &columns {
        let _ = write!(out, "<th>{}</th>", escape(d));
    }
    out += "</tr>";
    for op in ops {
        let _ = write!(out, "<tr><td>{}</td>", escape(op));
        for d in &columns {
            let t = Tally::of(results.iter().copied().filter(|r| r.id.op == op && column(&r.id.dtype) == *d));
            let run = t.pass + t.fail;
            if run + t.skip == 0 {
                out += "<td></td>";
                continue;
            }
            let class = if t.fail > 0 {
                "fail"
            } else if t.pass > 0 {
                "pass"
            } else {
                "skip"
            };
            let mut text = format!("{}/{run}", t.pass);
            if t.fail > 0 {
                let _ = write!(text, "<br>{} failed", t.fail);
            }
            if t.known_deviation > 0 {
                let _ = write!(text, "<br>{} known deviations", t.known_deviation);
            }
            if t.skip > 0 {
                let _ = write!(text, "<br>{} skipped", t.skip);
            }
            if let Some(e) = t.max_ulp_error {
                let _ = write!(text, "<br>max {e:.3} ulp");
            }
            let _ = write!(out, "<td class=\"{class}\" title=\"{} inputs\">{text}</td>", t.inputs);
        }
        out += "</tr>";
    }
    out + "</table><p>Each cell: checks passed / checks run. Hover for the number of inputs.</p>"
}

fn dtype_rank(d: &str) -> usize {
    DType::ALL.iter().position(|x| x.name() == d).unwrap_or(usize::MAX)
}

fn failures(results: &[CheckResult]) -> String {
    let mut out = listing(results, Status::Fail, "Failures");
    let known = listing(results, Status::KnownDeviation, "Known deviations (expected failures)");
    if results.iter().any(|r| r.status == Status::KnownDeviation) {
        out += &known;
    }
    out
}

/// The reports of every result with `status`, under a heading.
fn listing(results: &[CheckResult], status: Status, heading: &str) -> String {
    let failed: Vec<&CheckResult> = results.iter().filter(|r| r.status == status).collect();
    if failed.is_empty() {
        return format!("<h2>{heading}</h2><p>None.</p>");
    }
    let mut out = format!("<h2>{heading} ({})</h2>", failed.len());
    for r in failed {
        let _ = write!(
            out,
            "<h3 id=\"{0}\"><code>{0}</code></h3><pre>{1}</pre>",
            escape(&r.id.to_string()),
            escape(&r.report())
        );
    }
    out
}

fn skips(results: &[CheckResult]) -> String {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for r in results.iter().filter(|r| r.status == Status::Skip) {
        *reasons.entry(r.message.as_str()).or_default() += 1;
    }
    if reasons.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Skipped checks</h2><table><tr><th>reason</th><th>checks</th></tr>");
    for (reason, n) in reasons {
        let _ = write!(out, "<tr><td>{}</td><td>{n}</td></tr>", escape(reason));
    }
    out + "</table>"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
    }
}
