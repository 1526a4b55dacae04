//! The HTML report: one self-contained file (no network). The headline, each run's
//! environment, the accuracy table with its ULP histograms (inline SVG, from
//! [`super::accuracy`]) and the contract's gaps are rendered
//! here; the matrix, the filters and every check's drill-down are drawn by `page.js` from the
//! results embedded as JSON. Every string that came from an adapter or a table is escaped
//! here, and set as text (never as markup) by the script.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use super::Tally;
use super::accuracy::Accuracy;
use super::compliance::{Cell, Cells};
use super::summary::counts;
use crate::results::coverage::Coverage;
use crate::results::{CaseFailure, CheckResult, Citation, KnownDeviation};
use crate::results::{Run, RunInfo, Status};
use crate::verdict::Verdicts;
use crate::verdict::{Conformance, SkippedAdapters};

/// Failing inputs a drill-down shows in full; the rest are counted.
const SHOWN_INPUTS: usize = 3;

/// Which layouts reached each adapter's library as views and which the adapter copied, over
/// the layout checks (none: no section).
fn layout_coverage(coverage: &BTreeMap<String, BTreeMap<String, String>>) -> String {
    if coverage.is_empty() {
        return String::new();
    }
    let layouts: std::collections::BTreeSet<&String> = coverage.values().flat_map(|l| l.keys()).collect();
    let mut out = String::from(
        "<h2 id=\"layouts\">Layouts: views and copies</h2><p>How each layout of the layout checks \
         reached the library: <code>view</code> (with the strides and start it was given), \
         <code>copy</code> (laid out anew by the adapter first: a pass there says nothing about \
         the library's strided code), <code>refused</code>, <code>unknown</code> (the adapter does \
         not say).</p><table><tr><th>adapter</th>",
    );
    for l in &layouts {
        let _ = write!(out, "<th>{}</th>", escape(l));
    }
    out += "</tr>";
    for (adapter, words) in coverage {
        let _ = write!(out, "<tr><td>{}</td>", escape(adapter));
        for l in &layouts {
            let _ = write!(out, "<td>{}</td>", escape(words.get(*l).map_or("-", String::as_str)));
        }
        out += "</tr>";
    }
    out + "</table>"
}

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

/// One check, with short keys: a report holds thousands.
#[derive(Serialize)]
struct CheckView<'a> {
    id: String,
    /// Suite, adapter (`-` for a table self-check), op, dtype, case.
    su: &'a str,
    ad: &'a str,
    op: &'a str,
    dt: &'a str,
    st: &'static str,
    /// The tier a check that did not pass fails: `must`, `should` or `quality`.
    #[serde(skip_serializing_if = "Option::is_none")]
    tier: Option<&'static str>,
    /// The run it comes from (index into the runs, for its environment).
    run: usize,
    n: usize,
    nf: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    ulp: Option<f64>,
    #[serde(skip_serializing_if = "str::is_empty")]
    msg: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cit: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dev: Option<usize>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    fails: &'a [CaseFailure],
    /// Failing inputs not shown in full.
    #[serde(skip_serializing_if = "is_zero")]
    more: usize,
    /// The verdict under the adapter's relaxation profile, where it declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    prof: Option<String>,
    /// The library's warnings during the check's calls.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warn: &'a [String],
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Every dtype's name, in the registry's order: the matrix's columns (a check about no one
/// dtype, or about two, goes under "other").
fn dtypes() -> Vec<&'static str> {
    opspec_adapter::DType::ALL.iter().map(|d| d.name()).collect()
}

/// What the page's summaries show, gathered in one pass over the checks.
#[derive(Default)]
struct Head {
    total: Tally,
    cells: Cells,
    verdicts: Verdicts,
    coverage: Coverage,
    skipped: SkippedAdapters,
    /// Per (adapter, op, dtype): the accuracy table's row (its ULP histogram and largest error).
    accuracy: Accuracy,
    /// Per adapter, the command that reruns one of its checks up to `--exact ID`, from the
    /// run that checked it first (its invocation, environment and `--adapter NAME=SPEC`).
    rerun: BTreeMap<String, String>,
}

impl Head {
    fn add(&mut self, run: &Run, r: &CheckResult) {
        self.total.add(r);
        self.cells.add(r);
        self.verdicts.add(r);
        self.coverage.add(r);
        self.skipped.add(r);
        self.accuracy.add(r);
        if !self.rerun.contains_key(r.id.adapter_label()) {
            let rerun = &run.info.rerun;
            let command = format!("{}{}", rerun.run_prefix(), rerun.adapter_arg(r.id.adapter_name()));
            self.rerun.insert(r.id.adapter_label().to_string(), command);
        }
    }
}

/// A writer for JSON inside a `<script>` element: no `<` at all (only strings hold one; it
/// becomes `\u003c`).
struct ScriptSafe<W: Write>(W);

impl<W: Write> Write for ScriptSafe<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for (i, part) in buf.split(|&b| b == b'<').enumerate() {
            if i > 0 {
                self.0.write_all(b"\\u003c")?;
            }
            self.0.write_all(part)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Writes the whole page to `path`, the checks' data as they are read (two passes over the
/// runs); returns the compliance table's cells and the accuracy table.
pub fn write(path: &Path, runs: &[Run]) -> Result<(Vec<Cell>, Accuracy), String> {
    let mut head = Head::default();
    for run in runs {
        for r in run.checks() {
            head.add(run, &r?);
        }
    }
    let cells = head.cells.finish();
    let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
    let file = File::create(path).map_err(fail)?;
    let mut out = BufWriter::new(file);
    let page = opening(runs, &head.total, &cells, head.verdicts.finish(), head.skipped.finish())
        + &head.accuracy.html()
        + &layout_coverage(&head.coverage.finish())
        + &gaps(runs)
        + "<h2 id=\"environment\">Environment</h2>"
        + &runs.iter().map(environment).collect::<String>()
        + "<script type=\"application/json\" id=\"data\">";
    out.write_all(page.as_bytes()).map_err(fail)?;
    data(&mut ScriptSafe(&mut out), runs, &head.rerun, path)?;
    let end = format!("</script><script>{}</script></body></html>\n", include_str!("page.js"));
    out.write_all(end.as_bytes()).and_then(|()| out.flush()).map_err(fail)?;
    Ok((cells, head.accuracy))
}

/// The page up to its accuracy table: the headline, banners, the compliance table and the
/// verdicts, and the sections the script fills.
fn opening(
    runs: &[Run],
    total: &Tally,
    cells: &[Cell],
    verdicts: BTreeMap<(String, String), Conformance>,
    skipped: Vec<String>,
) -> String {
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>opspec conformance report</title>\
         <style>{}{}</style></head><body><h1>opspec conformance report</h1>",
        include_str!("page.css"),
        super::compliance::STYLE
    );
    for run in runs.iter().filter(|r| !r.complete) {
        let _ = write!(
            page,
            "<p class=\"banner\" role=\"alert\">⚠ Incomplete: {} ended before the run finished; \
             its unrun checks are listed as missing.</p>",
            escape(&run.path.display().to_string())
        );
    }
    let _ = write!(
        page,
        "<p class=\"headline\"><strong>{}</strong> checks: {}; {} inputs checked.</p>",
        total.pass + total.fail + total.known_deviation + total.skip + total.missing + total.unavailable,
        escape(&counts(total)),
        total.inputs
    );
    for adapter in skipped {
        let _ = write!(
            page,
            "<p class=\"banner\">⚠ Every check of adapter <code>{}</code> was skipped: nothing of it was checked.</p>",
            escape(&adapter)
        );
    }
    page += &super::compliance::html(cells);
    page += &conformance(&verdicts);
    page += "<noscript><p>The matrix, the filters and the drill-downs need JavaScript; \
             results.jsonl holds every result.</p></noscript>";
    page += "<nav id=\"filters\" aria-label=\"filters\"></nav><section id=\"matrix\"></section>\
             <section id=\"checks\"></section><section id=\"source\" hidden></section>";
    page
}

/// What the script draws from, as one JSON object: every dtype (the matrix's columns), the
/// rerun command per adapter, every check (read and written one at a time), its citations
/// and deviations by index, and the catalog files the checks cite, by path.
fn data(
    out: &mut impl Write,
    runs: &[Run],
    rerun: &BTreeMap<String, String>,
    path: &Path,
) -> Result<(), String> {
    let fail = |e: io::Error| format!("cannot write {}: {e}", path.display());
    let (mut citations, mut citation_index) = (Vec::<Citation>::new(), BTreeMap::new());
    let (mut deviations, mut deviation_index) = (Vec::<KnownDeviation>::new(), BTreeMap::new());
    let mut sources: BTreeMap<&str, &str> = BTreeMap::new();
    out.write_all(b"{\"dtypes\":").map_err(fail)?;
    json(out, &dtypes()).map_err(fail)?;
    out.write_all(b",\"rerun\":").map_err(fail)?;
    json(out, rerun).map_err(fail)?;
    out.write_all(b",\"checks\":[").map_err(fail)?;
    let mut first = true;
    for (i, run) in runs.iter().enumerate() {
        sources.extend(run.sources.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        for r in run.checks() {
            let r = r?;
            let cit = r.citation.as_ref().map(|c| {
                *citation_index.entry((c.row.clone(), c.location.clone())).or_insert_with(|| {
                    citations.push(c.clone());
                    citations.len() - 1
                })
            });
            let dev = r.deviation.as_ref().map(|d| {
                *deviation_index.entry(d.location.clone()).or_insert_with(|| {
                    deviations.push(d.clone());
                    deviations.len() - 1
                })
            });
            if !first {
                out.write_all(b",").map_err(fail)?;
            }
            first = false;
            json(out, &view(&r, i, cit, dev)).map_err(fail)?;
        }
    }
    out.write_all(b"],\"citations\":").map_err(fail)?;
    json(out, &citations).map_err(fail)?;
    out.write_all(b",\"deviations\":").map_err(fail)?;
    json(out, &deviations).map_err(fail)?;
    out.write_all(b",\"sources\":").map_err(fail)?;
    json(out, &sources).map_err(fail)?;
    out.write_all(b"}").map_err(fail)
}

/// `value` as compact JSON.
fn json(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(out, value).map_err(io::Error::from)
}

/// The script's view of check `r` of run `run`, with the indexes of its citation and deviation.
fn view(r: &CheckResult, run: usize, cit: Option<usize>, dev: Option<usize>) -> CheckView<'_> {
    let shown = &r.failures[..r.failures.len().min(SHOWN_INPUTS)];
    CheckView {
        id: r.id.to_string(),
        su: r.id.suite_label(),
        ad: r.id.adapter_label(),
        op: &r.id.op,
        dt: &r.id.dtype,
        st: r.status.name(),
        tier: matches!(r.status, Status::Fail | Status::KnownDeviation).then(|| r.failed_tier().name()),
        run,
        n: r.inputs,
        nf: r.failed_inputs,
        ulp: r.max_ulp_error,
        msg: &r.message,
        cit,
        dev,
        fails: shown,
        more: r.failed_inputs.saturating_sub(shown.len()),
        prof: r.under_profile.as_ref().map(|v| match (v.passes, v.failed_inputs) {
            (true, _) => format!("passes under profile {}", v.profile),
            (false, n) => format!("fails under profile {} too ({n} inputs)", v.profile),
        }),
        warn: &r.warnings,
    }
}

/// The verdict of each adapter on each suite, with the checks that pass only under a
/// declared profile.
fn conformance(verdicts: &BTreeMap<(String, String), Conformance>) -> String {
    if verdicts.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h2 id=\"conformance\">Conformance</h2><table class=\"verdicts\"><tr><th>suite</th><th>adapter</th><th>verdict</th></tr>",
    );
    for ((suite, adapter), verdict) in verdicts {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}",
            escape(suite),
            escape(adapter),
            escape(&verdict.text())
        );
        if let Some(p) = verdict.profile.as_ref().filter(|p| !p.passing.is_empty()) {
            out += "<details><summary>the checks that pass only under the profile</summary><ul>";
            for id in &p.passing {
                let _ = write!(out, "<li><a href=\"#{0}\">{0}</a></li>", escape(id));
            }
            if p.more_passing > 0 {
                let _ = write!(out, "<li>… and {} more (the checks' list shows each)</li>", p.more_passing);
            }
            out += "</ul></details>";
        }
        out += "</td></tr>";
    }
    out + "</table>"
}

fn environment(run: &Run) -> String {
    let i: &RunInfo = &run.info;
    let rows = [
        ("results file", run.path.display().to_string()),
        ("opspec", format!("{} ({} build)", i.opspec_version, i.build)),
        ("catalog", i.catalog.clone()),
        ("contract revision", i.spec_revision.clone()),
        ("check-id contract", format!("version {}", i.contract_version)),
        ("plan", plan(i)),
        ("suite seeds", i.seeds.join(", ")),
        ("table self-checks", format!("seed {}, {} inputs per row", i.table_seed, i.table_cases_per_row)),
        ("threads", i.threads.clone()),
        ("adapters", i.adapters.join("; ")),
        ("reference", i.reference.clone()),
        ("target", i.target.clone()),
        ("CPU features", i.cpu_features.join(" ")),
        (
            "finished (Unix time)",
            if run.complete { i.finished_at.to_string() } else { "did not finish".into() },
        ),
        ("duration", format!("{:.1} s", i.seconds)),
        ("command", i.command.clone()),
    ];
    let mut out = String::from("<dl>");
    for (k, v) in rows {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
    }
    out + "</dl>"
}

/// The plan's hash, and which shard of it the run was.
fn plan(i: &RunInfo) -> String {
    match &i.shard {
        Some(s) => format!("{}, shard {} ({} units in all)", i.plan_hash, s.shard, s.units.len()),
        None => i.plan_hash.clone(),
    }
}

/// What each table does not encode yet, from the runs' catalogs.
fn gaps(runs: &[Run]) -> String {
    let mut by_table: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
    for g in runs.iter().flat_map(|r| &r.info.gaps) {
        let line = format!("{} ({}): {}", g.what, g.source, g.reason);
        let list = by_table.entry((&g.table, &g.path)).or_default();
        if !list.contains(&line) {
            list.push(line);
        }
    }
    if by_table.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2 id=\"gaps\">What the contract does not cover yet</h2>");
    for ((table, path), lines) in by_table {
        let _ = write!(
            out,
            "<details><summary>{} ({} items) — {}</summary><ul>",
            escape(table),
            lines.len(),
            escape(path)
        );
        for l in lines {
            let _ = write!(out, "<li>{}</li>", escape(&l));
        }
        out += "</ul></details>";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_has_a_column_for_every_dtype_of_the_registry() {
        let dtypes = dtypes();
        assert_eq!(dtypes.len(), opspec_adapter::DType::ALL.len());
        assert!(dtypes.contains(&"c64") && dtypes.contains(&"c128"), "{dtypes:?}");
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
    }

    #[test]
    fn embedded_json_cannot_close_its_script_element() {
        let mut out = Vec::new();
        super::json(&mut ScriptSafe(&mut out), &vec!["</script><script>alert(1)</script>"]).unwrap();
        let json = String::from_utf8(out).unwrap();
        assert!(!json.contains('<'), "{json}");
        let back: Vec<String> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], "</script><script>alert(1)</script>");
    }
}
