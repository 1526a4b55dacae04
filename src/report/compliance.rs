//! The compliance table, library × function: per suite, one cell for each operation and each
//! adapter that ran the suite, on the [verdict ladder](crate::verdict::ladder) read per
//! operation (a cell whose every check was skipped says why). Table self-checks have no
//! adapter and no cell. The opening of `index.html`, and
//! `compliance.json` and `compliance.csv` for other tools.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::Serialize;

use super::escape;
use crate::results::{CheckResult, Status};
use crate::spec::authority::Tier;
use crate::verdict::{Counts, Rung};

/// The cells' colours, for the page's `<style>` (named as [`Rung::name`] spells them).
pub const STYLE: &str = "table.compliance td{text-align:left;white-space:nowrap}\
     table.compliance .conforms{background:#d8f0d8}table.compliance .recommendations{background:#fbe7b5}\
     table.compliance .quality{background:#eef5d0}table.compliance .does_not_conform{background:#f8d0d0}\
     table.compliance .skipped{background:#eee}";

/// The columns of `compliance.csv`, and the keys of each object of `compliance.json`.
const COLUMNS: [&str; 11] = [
    "suite",
    "adapter",
    "op",
    "checks",
    "passed",
    "must",
    "should",
    "quality",
    "known_deviations",
    "skipped",
    "verdict",
];

/// How one adapter fares on one operation of one suite. Profiles do not apply here: the cell
/// is the strict verdict (`docs/RESULTS.md`); the suite line gives the verdict under a profile.
#[derive(Debug, Default, Serialize)]
pub struct Cell {
    pub suite: String,
    pub adapter: String,
    pub op: String,
    #[serde(flatten)]
    pub counts: Counts,
    pub verdict: Rung,
    /// The first check, in the runs' order, failing each tier (must, should, quality), and
    /// the first skipped one: what may decide the verdict.
    #[serde(skip)]
    first: [Option<String>; 4],
    /// Why the first skipped check was skipped.
    #[serde(skip)]
    skip_reason: Option<String>,
}

impl Cell {
    /// Adds one check of the cell.
    fn add(&mut self, r: &CheckResult) {
        let counted = match self.counts.add(r) {
            Some(Tier::Must) => Some(0),
            Some(Tier::Should) => Some(1),
            Some(Tier::Quality) => Some(2),
            None if r.status == Status::Skip => {
                self.skip_reason.get_or_insert_with(|| r.message.clone());
                Some(3)
            }
            None => None,
        };
        if let Some(first) = counted.map(|i| &mut self.first[i]).filter(|f| f.is_none()) {
            *first = Some(r.id.to_string());
        }
        self.verdict = self.counts.rung();
    }

    /// The verdict in a few words: `does not conform (2) · known deviations (1)`,
    /// `conforms · skipped (3)`, `skipped (the library has no float16)`.
    pub fn text(&self) -> String {
        let c = &self.counts;
        let mut out = match self.verdict {
            Rung::Conforms => "conforms".to_string(),
            Rung::Recommendations => format!("conforms · recommendations missed ({})", c.should),
            Rung::Quality => format!("conforms · quality ({})", c.quality),
            Rung::DoesNotConform => format!("does not conform ({})", c.must),
            Rung::Skipped => {
                let reason = self.skip_reason.as_deref().unwrap_or("");
                return format!("skipped ({})", reason.strip_prefix("skipped: ").unwrap_or(reason));
            }
        };
        if c.known_deviations > 0 {
            let _ = write!(out, " · known deviations ({})", c.known_deviations);
        }
        if c.skipped > 0 {
            let _ = write!(out, " · skipped ({})", c.skipped);
        }
        out
    }

    /// The check that decides the verdict: the first failing the verdict's tier, or the
    /// first skipped one; none for a cell that conforms with nothing skipped.
    fn deciding(&self) -> Option<&str> {
        let i = match self.verdict {
            Rung::DoesNotConform => 0,
            Rung::Recommendations => 1,
            Rung::Quality => 2,
            Rung::Skipped | Rung::Conforms => 3,
        };
        self.first[i].as_deref()
    }

    /// Where the page shows the cell: the deciding check, opened, or (for a cell that
    /// conforms) the list filtered to the cell's checks.
    fn href(&self) -> String {
        match self.deciding() {
            Some(id) => format!("#{id}"),
            None => format!("#suite={}&adapter={}&op={}", self.suite, self.adapter, self.op),
        }
    }

    /// The counts in words, for the cell's tooltip.
    fn counts(&self) -> String {
        let c = &self.counts;
        let mut out = format!("{} checks: {} passed", c.checks, c.passed);
        for (n, what) in [
            (c.must, "fail a must"),
            (c.should, "miss a recommendation"),
            (c.quality, "miss only opspec's bars"),
            (c.known_deviations, "known deviations"),
            (c.skipped, "skipped"),
        ] {
            if n > 0 {
                let _ = write!(out, ", {n} {what}");
            }
        }
        out
    }

    /// The row of `compliance.csv`, in [`COLUMNS`]' order.
    fn values(&self) -> [String; 11] {
        [
            self.suite.to_string(),
            self.adapter.to_string(),
            self.op.to_string(),
            self.counts.checks.to_string(),
            self.counts.passed.to_string(),
            self.counts.must.to_string(),
            self.counts.should.to_string(),
            self.counts.quality.to_string(),
            self.counts.known_deviations.to_string(),
            self.counts.skipped.to_string(),
            self.verdict.name().to_string(),
        ]
    }
}

/// The cells being gathered, one check at a time. Table self-checks have no cell.
#[derive(Debug, Default)]
pub struct Cells(BTreeMap<(String, String, String), Cell>);

impl Cells {
    /// Adds one check.
    pub fn add(&mut self, r: &CheckResult) {
        let (Some(suite), Some(adapter)) = (r.id.suite(), r.id.adapter_name()) else { return };
        let key = (suite.to_string(), adapter.to_string(), r.id.op.clone());
        self.0
            .entry(key)
            .or_insert_with_key(|(suite, adapter, op)| Cell {
                suite: suite.clone(),
                adapter: adapter.clone(),
                op: op.clone(),
                ..Cell::default()
            })
            .add(r);
    }

    /// The cells, by suite, adapter and operation.
    pub fn finish(self) -> Vec<Cell> {
        self.0.into_values().collect()
    }
}

/// The page's section: per suite, a table of operations (rows) by adapters (columns), each
/// cell linking to the check that decides it; empty where no adapter checked anything.
pub fn html(cells: &[Cell]) -> String {
    if cells.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h2 id=\"compliance\">Compliance: library × function</h2><p>Per operation and adapter: \
         <strong>does not conform</strong> (checks failing a must of the document), \
         <strong>recommendations missed</strong> (a should), <strong>quality</strong> (only \
         opspec's own bars), <strong>conforms</strong>, or <strong>skipped</strong>; known \
         deviations count at their tier. Each cell opens the check that decides it.</p>",
    );
    let mut by_suite: BTreeMap<&str, BTreeMap<(&str, &str), &Cell>> = BTreeMap::new();
    for c in cells {
        by_suite.entry(&c.suite).or_default().insert((&c.op, &c.adapter), c);
    }
    for (suite, by_op) in by_suite {
        let adapters: BTreeSet<&str> = by_op.keys().map(|&(_, a)| a).collect();
        let ops: BTreeSet<&str> = by_op.keys().map(|&(o, _)| o).collect();
        let _ = write!(
            out,
            "<table class=\"compliance\"><caption>{}</caption><tr><th>function</th>",
            escape(suite)
        );
        for a in &adapters {
            let _ = write!(out, "<th>{}</th>", escape(a));
        }
        out += "</tr>";
        for op in ops {
            let _ = write!(out, "<tr><th>{}</th>", escape(op));
            for &a in &adapters {
                match by_op.get(&(op, a)) {
                    Some(c) => {
                        let _ = write!(
                            out,
                            "<td class=\"{}\" title=\"{}\"><a href=\"{}\">{}</a></td>",
                            c.verdict.name(),
                            escape(&c.counts()),
                            escape(&c.href()),
                            escape(&c.text())
                        );
                    }
                    None => out += "<td title=\"no checks\">-</td>",
                }
            }
            out += "</tr>";
        }
        out += "</table>";
    }
    out
}

/// `compliance.json`: an array of the cells, each an object with the keys of [`COLUMNS`].
pub fn json(cells: &[Cell]) -> serde_json::Result<String> {
    serde_json::to_string_pretty(cells).map(|s| s + "\n")
}

/// `compliance.csv`: a header line of [`COLUMNS`], then a line per cell (RFC 4180: CRLF line
/// breaks, fields quoted where they need it).
pub fn csv(cells: &[Cell]) -> String {
    let mut out = line(&COLUMNS);
    for c in cells {
        out += &line(&c.values());
    }
    out
}

/// One CSV line, its line break included.
pub(super) fn line<S: AsRef<str>>(fields: &[S]) -> String {
    fields.iter().map(|f| quote(f.as_ref())).collect::<Vec<_>>().join(",") + "\r\n"
}

/// A CSV field, in double quotes (inner ones doubled) where it holds a comma, a quote or a
/// line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells of `results`, by suite, adapter and operation.
    fn cells<'a>(results: impl IntoIterator<Item = &'a CheckResult>) -> Vec<Cell> {
        let mut cells = Cells::default();
        results.into_iter().for_each(|r| cells.add(r));
        cells.finish()
    }

    /// Results from `(id, status, tier)`.
    fn results(checks: &[(&str, Status, Option<Tier>)]) -> Vec<CheckResult> {
        checks
            .iter()
            .map(|&(id, status, tier)| {
                let mut r = CheckResult::new(id.parse().unwrap());
                (r.status, r.tier) = (status, tier);
                if status == Status::Skip {
                    r.message = "skipped: no float16".into();
                }
                r
            })
            .collect()
    }

    fn sample() -> Vec<CheckResult> {
        use Status::*;
        results(&[
            ("array-api:liba:add:f32:edges", Pass, None),
            ("array-api:liba:add:f64:edges", Pass, None),
            ("array-api:liba:add:f64:sweep", Skip, None),
            ("array-api:liba:sqrt:f32:edges", Fail, Some(Tier::Quality)),
            ("array-api:liba:sqrt:f32:ties", Fail, Some(Tier::Should)),
            ("array-api:liba:sqrt:f64:ties", Fail, Some(Tier::Should)),
            ("array-api:liba:exp:f32:ulp", Fail, Some(Tier::Quality)),
            ("array-api:liba:exp:f64:ulp", KnownDeviation, Some(Tier::Quality)),
            ("array-api:liba:pow:f32:edges", Pass, None),
            ("array-api:liba:pow:f32:ulp", Fail, Some(Tier::Quality)),
            ("array-api:liba:pow:f32:nan", KnownDeviation, Some(Tier::Must)),
            ("array-api:liba:pow:f64:nan", Missing, None),
            ("array-api:libb:add:f32:edges", Skip, None),
            ("array-api:libb:add:f64:edges", Skip, None),
            ("ieee:liba:add:f32:edges", Unavailable, None),
            ("table:add:f32:edges", Fail, Some(Tier::Must)),
        ])
    }

    fn find<'a>(cells: &'a [Cell], suite: &str, adapter: &str, op: &str) -> &'a Cell {
        cells
            .iter()
            .find(|c| (c.suite.as_str(), c.adapter.as_str(), c.op.as_str()) == (suite, adapter, op))
            .unwrap()
    }

    #[test]
    fn each_cell_takes_the_most_authoritative_tier_its_checks_fail() {
        let results = sample();
        let cells = cells(&results);
        let states: Vec<(&str, &str, &str, Rung, String)> = cells
            .iter()
            .map(|c| (c.suite.as_str(), c.adapter.as_str(), c.op.as_str(), c.verdict, c.text()))
            .collect();
        let expected = [
            ("array-api", "liba", "add", Rung::Conforms, "conforms · skipped (1)"),
            ("array-api", "liba", "exp", Rung::Quality, "conforms · quality (2) · known deviations (1)"),
            ("array-api", "liba", "pow", Rung::DoesNotConform, "does not conform (2) · known deviations (1)"),
            ("array-api", "liba", "sqrt", Rung::Recommendations, "conforms · recommendations missed (2)"),
            ("array-api", "libb", "add", Rung::Skipped, "skipped (no float16)"),
            ("ieee", "liba", "add", Rung::DoesNotConform, "does not conform (1)"),
        ];
        let expected: Vec<_> = expected.iter().map(|&(s, a, o, v, t)| (s, a, o, v, t.to_string())).collect();
        assert_eq!(states, expected, "table self-checks have no cell");
        let pow = find(&cells, "array-api", "liba", "pow");
        let c = &pow.counts;
        assert_eq!((c.checks, c.passed, c.must, c.should, c.quality, c.skipped), (4, 1, 2, 0, 1, 0));
        let c = &find(&cells, "array-api", "liba", "add").counts;
        assert_eq!((c.checks, c.passed, c.skipped), (3, 2, 1), "a skipped check is no failure");
    }

    #[test]
    fn the_page_has_a_table_per_suite_whose_cells_open_their_deciding_check() {
        let results = sample();
        let page = html(&cells(&results));
        assert!(page.starts_with("<h2 id=\"compliance\">Compliance: library × function</h2>"), "{page}");
        assert!(
            page.contains("<caption>array-api</caption><tr><th>function</th><th>liba</th><th>libb</th></tr>"),
            "{page}"
        );
        assert!(
            page.contains(
                "<tr><th>pow</th><td class=\"does_not_conform\" title=\"4 checks: 1 passed, 2 fail a must, \
                 1 miss only opspec&#39;s bars, 1 known deviations\"><a href=\"#array-api:liba:pow:f32:nan\">\
                 does not conform (2) · known deviations (1)</a></td><td title=\"no checks\">-</td></tr>"
            ),
            "{page}"
        );
        assert!(page.contains("<a href=\"#array-api:liba:sqrt:f32:ties\">"), "the first should, {page}");
        assert!(
            page.contains("<a href=\"#array-api:libb:add:f32:edges\">skipped (no float16)</a>"),
            "{page}"
        );
        assert!(
            page.contains("<a href=\"#array-api:liba:add:f64:sweep\">conforms · skipped (1)</a>"),
            "{page}"
        );
        assert!(page.contains("<caption>ieee</caption>"), "{page}");
        assert!(!page.contains("table:add"), "{page}");
        assert_eq!(html(&cells(&results[15..])), "", "no section without an adapter's checks");
    }

    #[test]
    fn json_holds_every_cell_with_the_columns_as_keys() {
        let results = sample();
        let text = json(&cells(&results)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let rows = value.as_array().unwrap();
        assert_eq!(rows.len(), 6);
        let keys: Vec<&str> = rows[2].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.iter().copied().collect::<BTreeSet<_>>(), COLUMNS.into_iter().collect());
        assert_eq!(
            rows[2],
            serde_json::json!({
                "suite": "array-api", "adapter": "liba", "op": "pow", "checks": 4, "passed": 1,
                "must": 2, "should": 0, "quality": 1, "known_deviations": 1, "skipped": 0,
                "verdict": "does_not_conform"
            })
        );
        assert_eq!(rows[4]["verdict"], "skipped");
        assert_eq!(json(&[]).unwrap(), "[]\n");
    }

    #[test]
    fn csv_has_a_header_and_a_crlf_line_per_cell() {
        let results = sample();
        let text = csv(&cells(&results));
        let lines: Vec<&str> = text.split_terminator("\r\n").collect();
        assert_eq!(
            lines[0],
            "suite,adapter,op,checks,passed,must,should,quality,known_deviations,skipped,verdict"
        );
        assert_eq!(lines[4], "array-api,liba,sqrt,3,0,0,2,1,0,0,recommendations");
        assert_eq!(lines.len(), 7);
        assert!(!text.replace("\r\n", "").contains('\n'), "{text:?}");
        assert_eq!(csv(&[]), format!("{}\r\n", COLUMNS.join(",")));
    }

    #[test]
    fn csv_fields_are_quoted_where_they_need_it() {
        assert_eq!(quote("pow"), "pow");
        assert_eq!(quote("a,\"b\""), "\"a,\"\"b\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
    }
}
