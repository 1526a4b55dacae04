//! The accuracy table: per adapter, approximate function and dtype, how far the results were
//! from the exact value (`docs/ACCURACY.md`, "The accuracy table"). One bounded aggregate per
//! (adapter label, op, dtype), fed check by check as the report reads them; rendered as the
//! "Accuracy" section of `index.html` (with the ULP histograms as inline SVG),
//! `accuracy.csv` and `accuracy.md`.
//!
//! A key is **exhaustive** where some check of it judged every value of the dtype (`inputs`
//! is 2^bits: a one-operand sweep, or a 16-bit unary `edges` check); then only such checks
//! make its row. Otherwise it is **sampled**, from every check of it with ULP data. Only
//! checks with a ULP histogram have ULP data (the complex checks record a largest error
//! without one, and are left out).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use opspec_adapter::DType;

use super::escape;
use crate::results::{CheckResult, ULP_BUCKETS, UlpWorst};

/// Which checks a row is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Checks that judged every value of the dtype.
    Exhaustive,
    /// Checks of chosen inputs.
    Sampled,
}

impl Coverage {
    pub fn name(self) -> &'static str {
        match self {
            Coverage::Exhaustive => "exhaustive",
            Coverage::Sampled => "sampled",
        }
    }
}

/// The ULP data of some checks, summed: their histograms and the largest error, with where it
/// occurs.
#[derive(Clone, Debug, Default)]
struct Measured {
    /// Results per bucket of [`ULP_BUCKETS`].
    histogram: Vec<u64>,
    /// The largest error, and where it occurs (the check holding it said).
    max: Option<(f64, Option<UlpWorst>)>,
}

impl Measured {
    fn add(&mut self, histogram: &[u64], r: &CheckResult) {
        if self.histogram.len() < histogram.len() {
            self.histogram.resize(histogram.len(), 0);
        }
        self.histogram.iter_mut().zip(histogram).for_each(|(s, n)| *s = s.saturating_add(*n));
        if let Some(e) = r.max_ulp_error {
            // Of equal maxima the first stays, unless only the later one says where it is.
            let larger = match &self.max {
                None => e >= 0.0,
                Some((m, at)) => e > *m || (e == *m && at.is_none() && r.max_ulp_at.is_some()),
            };
            if larger {
                self.max = Some((e, r.max_ulp_at.clone()));
            }
        }
    }

    /// Results counted in buckets `from..`.
    fn above(&self, from: usize) -> u64 {
        self.histogram.iter().skip(from).fold(0u64, |s, n| s.saturating_add(*n))
    }
}

/// One key's checks so far: those that judged every value, and the others.
#[derive(Clone, Debug, Default)]
struct Entry {
    exhaustive: Option<Measured>,
    sampled: Measured,
}

/// The accuracy table's aggregate, fed with [`Accuracy::add`].
#[derive(Debug, Default)]
pub struct Accuracy(BTreeMap<(String, String, String), Entry>);

/// One row of the table: one adapter's results of one function in one dtype.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub adapter: String,
    pub op: String,
    pub dtype: String,
    pub coverage: Coverage,
    /// The largest error in ULPs (`None` where no check of the row recorded one).
    pub max_ulp: Option<f64>,
    /// Where it occurs.
    pub at: Option<UlpWorst>,
    /// Results per bucket of [`ULP_BUCKETS`].
    pub histogram: Vec<u64>,
    /// Results measured (the histogram's sum).
    pub measured: u64,
    /// Results more than 0.5, 1 and 2 ULPs off.
    pub over_half: u64,
    pub over_one: u64,
    pub over_two: u64,
}

impl Row {
    /// Whether every result measured was correctly rounded (in the first bucket).
    pub fn correctly_rounded(&self) -> bool {
        self.measured > 0 && self.over_half == 0
    }

    /// The largest error as the tables show it: 3 decimals (in scientific notation from a
    /// million on; 5 where 3 would show an error just above 0.5 as `0.500`), or `≤ 0.5`
    /// where every result was counted as correctly rounded without measuring (0.5 and no
    /// input named).
    pub fn max_text(&self) -> String {
        match self.max_ulp {
            Some(m) if m == 0.5 && self.at.is_none() => "≤ 0.5".to_string(),
            Some(m) if m >= 1e6 => format!("{m:.3e}"),
            Some(m) if m > 0.5 && m < 0.5005 => format!("{m:.5}"),
            Some(m) => format!("{m:.3}"),
            None => "-".to_string(),
        }
    }

    /// Where the largest error occurs: the operands' bits → the result's.
    pub fn at_text(&self) -> Option<String> {
        self.at.as_ref().map(|w| match w.inputs.as_slice() {
            [x] => format!("{x} → {}", w.actual),
            xs => format!("({}) → {}", xs.join(", "), w.actual),
        })
    }

    /// The side-by-side tables' cell: `0.500 CR (exhaustive)`, `1.852 (sampled)`.
    fn cell(&self) -> String {
        let cr = if self.correctly_rounded() { " CR" } else { "" };
        format!("{}{cr} ({})", self.max_text(), self.coverage.name())
    }
}

/// The columns of `accuracy.csv`.
pub const COLUMNS: [&str; 12] = [
    "adapter",
    "op",
    "dtype",
    "coverage",
    "measured",
    "max_ulp",
    "at_inputs",
    "at_result",
    "correctly_rounded",
    "over_0.5_ulp",
    "over_1_ulp",
    "over_2_ulps",
];

/// The bits of `dtype`'s values, where the registry knows it.
fn bits(dtype: &str) -> Option<u32> {
    dtype.parse::<DType>().ok().map(|d| 8 * d.size() as u32)
}

/// The registry's position of `dtype` (the tables' order: f16, bf16, f32, f64), unknown ones
/// last.
fn dtype_order(dtype: &str) -> usize {
    DType::ALL.iter().position(|d| d.name() == dtype).unwrap_or(DType::ALL.len())
}

impl Accuracy {
    /// Adds check `r` (nothing, where it has no ULP histogram).
    pub fn add(&mut self, r: &CheckResult) {
        let Some(histogram) = r.ulp_histogram.as_deref() else { return };
        let key = (r.id.adapter_label().to_string(), r.id.op.clone(), r.id.dtype.clone());
        let entry = self.0.entry(key).or_default();
        let every_value =
            bits(&r.id.dtype).and_then(|b| 1u128.checked_shl(b)).is_some_and(|all| r.inputs as u128 == all);
        if every_value {
            entry.exhaustive.get_or_insert_with(Measured::default).add(histogram, r);
        } else {
            entry.sampled.add(histogram, r);
        }
    }

    /// Whether no check had ULP data.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The rows, by adapter, op and dtype.
    pub fn rows(&self) -> Vec<Row> {
        self.0
            .iter()
            .map(|((adapter, op, dtype), entry)| {
                let (coverage, m) = match &entry.exhaustive {
                    Some(m) => (Coverage::Exhaustive, m),
                    None => (Coverage::Sampled, &entry.sampled),
                };
                let mut histogram = m.histogram.clone();
                histogram.resize(histogram.len().max(ULP_BUCKETS.len()), 0);
                Row {
                    adapter: adapter.clone(),
                    op: op.clone(),
                    dtype: dtype.clone(),
                    coverage,
                    max_ulp: m.max.as_ref().map(|(e, _)| *e),
                    at: m.max.as_ref().and_then(|(_, at)| at.clone()),
                    measured: m.above(0),
                    over_half: m.above(1),
                    over_one: m.above(2),
                    over_two: m.above(3),
                    histogram,
                }
            })
            .collect()
    }

    /// `accuracy.csv`: a header, then one row per key; the largest error in full precision.
    pub fn csv(&self) -> String {
        let mut out = super::compliance::line(&COLUMNS);
        for r in self.rows() {
            let (at_inputs, at_result) =
                r.at.as_ref()
                    .map_or((String::new(), String::new()), |w| (w.inputs.join(" "), w.actual.clone()));
            out += &super::compliance::line(&[
                r.adapter.clone(),
                r.op.clone(),
                r.dtype.clone(),
                r.coverage.name().to_string(),
                r.measured.to_string(),
                r.max_ulp.map_or(String::new(), |m| m.to_string()),
                at_inputs,
                at_result,
                r.correctly_rounded().to_string(),
                r.over_half.to_string(),
                r.over_one.to_string(),
                r.over_two.to_string(),
            ]);
        }
        out
    }

    /// The rows side by side: per (op, dtype), each adapter's row (`None` where it has none);
    /// and the adapters, the columns.
    #[allow(clippy::type_complexity)]
    fn side_by_side(&self) -> (Vec<String>, Vec<((String, String), Vec<Option<Row>>)>) {
        let rows = self.rows();
        let adapters: Vec<String> =
            rows.iter().map(|r| r.adapter.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        let mut lines: BTreeMap<(String, usize, String), Vec<Option<Row>>> = BTreeMap::new();
        for r in rows {
            let column = adapters.iter().position(|a| *a == r.adapter).unwrap_or(0);
            let key = (r.op.clone(), dtype_order(&r.dtype), r.dtype.clone());
            lines.entry(key).or_insert_with(|| vec![None; adapters.len()])[column] = Some(r);
        }
        let lines = lines.into_iter().map(|((op, _, dtype), cells)| ((op, dtype), cells)).collect();
        (adapters, lines)
    }

    /// `accuracy.md`: one row per function and dtype, one column per adapter.
    pub fn markdown(&self) -> String {
        let (adapters, lines) = self.side_by_side();
        let mut out = String::from(
            "# Accuracy\n\nThe largest error in ULPs against the exact value (0.5: correctly rounded) \
             per function, dtype and adapter; CR: every result measured was correctly rounded; \
             exhaustive: every value of the dtype was checked; sampled: chosen inputs were. \
             accuracy.csv has the counts and the inputs where each maximum occurs.\n\n| function | dtype |",
        );
        for a in &adapters {
            let _ = write!(out, " {} |", markdown_text(a));
        }
        out += "\n|---|---|";
        out += &"---|".repeat(adapters.len());
        out += "\n";
        for ((op, dtype), cells) in lines {
            let _ = write!(out, "| {} | {} |", markdown_text(&op), markdown_text(&dtype));
            for c in cells {
                let _ = write!(out, " {} |", c.map_or("-".to_string(), |r| r.cell()));
            }
            out += "\n";
        }
        out
    }

    /// The report's "Accuracy" section: the side-by-side table, then one ULP histogram per
    /// row as inline SVG; empty where no check had ULP data.
    pub fn html(&self) -> String {
        if self.is_empty() {
            return String::new();
        }
        let (adapters, lines) = self.side_by_side();
        let mut out = String::from(
            "<h2 id=\"accuracy\">Accuracy</h2><p>The largest error in ULPs against the exact value \
             (0.5: correctly rounded) per function, dtype and adapter. <strong>CR</strong>: every \
             result measured was correctly rounded; <em>exhaustive</em>: every value of the dtype \
             was checked, and only those checks count; <em>sampled</em>: chosen inputs were. Below \
             each: the results measured, how many were more than 0.5, 1 and 2 ULPs off, and where \
             the largest error occurs (operands' bits → result's bits). accuracy.csv and \
             accuracy.md beside this page hold the same table.</p>\
             <table class=\"accuracy\"><tr><th>function</th><th>dtype</th>",
        );
        for a in &adapters {
            let _ = write!(out, "<th>{}</th>", escape(a));
        }
        out += "</tr>";
        for ((op, dtype), cells) in lines {
            let _ = write!(out, "<tr><td>{}</td><td>{}</td>", escape(&op), escape(&dtype));
            for c in cells {
                let Some(r) = c else {
                    out += "<td>-</td>";
                    continue;
                };
                let class = if r.correctly_rounded() { " class=\"cr\"" } else { "" };
                let _ = write!(
                    out,
                    "<td{class}>{}<br><small>{} measured; &gt; 0.5: {}, &gt; 1: {}, &gt; 2: {}",
                    escape(&r.cell()),
                    r.measured,
                    r.over_half,
                    r.over_one,
                    r.over_two
                );
                if let Some(at) = r.at_text() {
                    let _ = write!(out, "; at {}", escape(&at));
                }
                out += "</small></td>";
            }
            out += "</tr>";
        }
        out += "</table>";
        out += "<h3 id=\"ulp\">ULP error histograms</h3><p>The results of each row per bucket of \
                error against the exact value (0.5 ulp: correctly rounded); bar heights on a log \
                scale.</p><div class=\"plots\">";
        for r in self.rows() {
            let title = format!(
                "{} {} {} ({}): max {} ulp",
                r.adapter,
                r.op,
                r.dtype,
                r.coverage.name(),
                r.max_text()
            );
            out += &bar_chart(&title, &r.histogram);
        }
        out + "</div>"
    }
}

/// Text for a Markdown table cell: on one line, markup escaped, and Markdown's own
/// characters backslash-escaped.
fn markdown_text(s: &str) -> String {
    let one_line: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let mut out = String::with_capacity(one_line.len());
    for c in escape(&one_line).chars() {
        if matches!(c, '\\' | '|' | '`' | '*' | '_' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One inline SVG bar chart of `counts`, one bar per bucket of [`ULP_BUCKETS`].
fn bar_chart(title: &str, counts: &[u64]) -> String {
    let labels = ["≤.5", "≤1", "≤2", "≤4", "≤8", "≤16", "≤64", "≤256", "≤1k", ">1k"];
    let (w, h, bar) = (260, 120, 24);
    let top = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut svg = format!(
        "<figure><svg role=\"img\" aria-label=\"{t}\" width=\"{w}\" height=\"{}\" viewBox=\"0 0 {w} {}\">\
         <title>{t}</title>",
        h + 30,
        h + 30,
        t = escape(title)
    );
    for (i, (&n, label)) in counts.iter().zip(labels).enumerate() {
        let height =
            if n == 0 { 0.0 } else { (h as f64 - 12.0) * (1.0 + (n as f64).ln()) / (1.0 + top.ln()) };
        let x = 4 + i * (bar + 1);
        let _ = write!(
            svg,
            "<rect x=\"{x}\" y=\"{:.1}\" width=\"{bar}\" height=\"{height:.1}\" class=\"bar\"><title>{label} ulp: {n}</title></rect>\
             <text x=\"{}\" y=\"{}\" class=\"tick\">{label}</text>",
            h as f64 - height,
            x + bar / 2,
            h + 14
        );
    }
    svg + &format!("</svg><figcaption>{}</figcaption></figure>", escape(title))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check `id` of `inputs` inputs with histogram `h` and largest error `max` at `at`.
    fn check(id: &str, inputs: usize, h: [u64; 10], max: f64, at: Option<(&str, &str)>) -> CheckResult {
        let mut r = CheckResult::new(id.parse().unwrap());
        r.inputs = inputs;
        r.ulp_histogram = Some(h.to_vec());
        r.max_ulp_error = Some(max);
        r.max_ulp_at = at.map(|(x, y)| UlpWorst { inputs: vec![x.to_string()], actual: y.to_string() });
        r
    }

    fn table(checks: &[CheckResult]) -> Accuracy {
        let mut a = Accuracy::default();
        checks.iter().for_each(|r| a.add(r));
        a
    }

    const CR_ONLY: [u64; 10] = [65_536, 0, 0, 0, 0, 0, 0, 0, 0, 0];

    #[test]
    fn an_exhaustive_row_leaves_out_the_sampled_checks() {
        let sampled = check(
            "array-api:cpu:exp:f16:random",
            1000,
            [990, 5, 3, 2, 0, 0, 0, 0, 0, 0],
            3.5,
            Some(("0x1", "0x2")),
        );
        let every = check("array-api:cpu:exp:f16:exhaustive", 65_536, CR_ONLY, 0.5, None);
        // In either order.
        for checks in [vec![sampled.clone(), every.clone()], vec![every, sampled.clone()]] {
            let rows = table(&checks).rows();
            assert_eq!(rows.len(), 1);
            let r = &rows[0];
            assert_eq!(
                (r.coverage, r.measured, r.max_ulp, r.at.clone()),
                (Coverage::Exhaustive, 65_536, Some(0.5), None)
            );
            assert!(r.correctly_rounded() && r.max_text() == "≤ 0.5", "{r:?}");
            assert_eq!((r.over_half, r.over_one, r.over_two), (0, 0, 0));
        }
        // Without the exhaustive check the row is the sample's.
        let r = &table(&[sampled]).rows()[0];
        assert_eq!((r.coverage, r.measured, r.max_ulp), (Coverage::Sampled, 1000, Some(3.5)));
        assert_eq!(r.at_text().as_deref(), Some("0x1 → 0x2"));
        // 2^32 inputs make an f32 check exhaustive; 2^16 do not.
        let f32_every = check("array-api:cpu:sin:f32:exhaustive", 1 << 32, CR_ONLY, 0.5, None);
        let f32_some = check("array-api:cpu:sin:f32:edges", 1 << 16, CR_ONLY, 0.5, None);
        let rows = table(&[f32_every, f32_some]).rows();
        assert_eq!(rows.iter().map(|r| r.coverage).collect::<Vec<_>>(), [Coverage::Exhaustive]);
        let rows = table(&[check("array-api:cpu:sin:f32:edges", 1 << 16, CR_ONLY, 0.5, None)]).rows();
        assert_eq!(rows[0].coverage, Coverage::Sampled);
    }

    #[test]
    fn correctly_rounded_means_every_measured_result_in_the_first_bucket() {
        let cr = check("s:a:exp:f32:edges", 10, [10, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.49, Some(("0x1", "0x2")));
        let not = check("s:a:exp:f32:random", 10, [9, 1, 0, 0, 0, 0, 0, 0, 0, 0], 0.51, Some(("0x3", "0x4")));
        let r = &table(std::slice::from_ref(&cr)).rows()[0];
        assert!(r.correctly_rounded());
        assert_eq!((r.max_text(), r.cell()), ("0.490".to_string(), "0.490 CR (sampled)".to_string()));
        let r = &table(&[cr, not]).rows()[0];
        assert!(!r.correctly_rounded());
        assert_eq!((r.measured, r.max_ulp, r.at_text()), (20, Some(0.51), Some("0x3 → 0x4".to_string())));
        assert_eq!(r.cell(), "0.510 (sampled)");
        // Nothing measured is not correctly rounded.
        let empty = check("s:a:exp:f32:rows", 3, [0; 10], 0.5, None);
        assert!(!table(&[empty]).rows()[0].correctly_rounded());
        // A check without a histogram has no ULP data.
        let mut complex = check("s:a:exp:c64:random", 3, [0; 10], 2.0, None);
        complex.ulp_histogram = None;
        assert!(table(&[complex]).is_empty());
    }

    #[test]
    fn counts_over_half_one_and_two_ulps_come_from_the_histograms() {
        let a =
            check("s:a:tanh:f32:edges", 100, [50, 20, 10, 8, 5, 3, 2, 1, 1, 0], 300.0, Some(("0x1", "0x2")));
        let b = check("s:a:tanh:f32:random", 50, [40, 4, 3, 2, 1, 0, 0, 0, 0, 0], 5.0, Some(("0x3", "0x4")));
        let r = &table(&[a, b]).rows()[0];
        assert_eq!((r.measured, r.over_half, r.over_one, r.over_two), (150, 60, 36, 23));
        assert_eq!((r.max_ulp, r.at_text().as_deref()), (Some(300.0), Some("0x1 → 0x2")));
        assert_eq!(r.histogram, vec![90, 24, 13, 10, 6, 3, 2, 1, 1, 0]);
        let wild = check(
            "s:a:sin:bf16:random",
            1,
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
            1.36657e42,
            Some(("0x55cb", "0xfd7b")),
        );
        let mut barely = wild.clone();
        assert_eq!(table(&[wild]).rows()[0].max_text(), "1.367e42");
        barely.max_ulp_error = Some(0.50003);
        assert_eq!(table(&[barely]).rows()[0].max_text(), "0.50003");
    }

    #[test]
    fn the_markdown_puts_adapters_side_by_side() {
        let t = table(&[
            check("s:numr:exp:f32:random", 10, [9, 1, 0, 0, 0, 0, 0, 0, 0, 0], 1.852, Some(("0x1", "0x2"))),
            check("s:cpu:exp:f16:exhaustive", 65_536, CR_ONLY, 0.5, None),
            check("s:cpu:exp:f32:random", 10, [10, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.5, Some(("0x5", "0x6"))),
            check("s:libm:exp:f32:random", 1, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.25, Some(("0x7", "0x8"))),
        ]);
        let md = t.markdown();
        let lines: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
        assert_eq!(
            lines,
            [
                "| function | dtype | cpu | libm | numr |",
                "|---|---|---|---|---|",
                "| exp | f16 | ≤ 0.5 CR (exhaustive) | - | - |",
                "| exp | f32 | 0.500 CR (sampled) | 0.250 CR (sampled) | 1.852 (sampled) |",
            ],
            "{md}"
        );
        let html = t.html();
        assert!(html.contains("<th>cpu</th><th>libm</th><th>numr</th>"), "{html}");
        assert!(html.contains(
            "1.852 (sampled)<br><small>10 measured; &gt; 0.5: 1, &gt; 1: 0, &gt; 2: 0; at 0x1 → 0x2"
        ));
        assert!(Accuracy::default().html().is_empty());
        assert_eq!(markdown_text("a|b_<c>\n"), "a\\|b\\_&lt;c&gt; ");
    }

    #[test]
    fn the_csv_has_a_header_and_a_row_per_key() {
        let t = table(&[
            check(
                "s:cpu:sin:f32:random",
                7,
                [4, 2, 1, 0, 0, 0, 0, 0, 0, 0],
                1.2345678901234,
                Some(("0x3f800000", "0x3f576aa4")),
            ),
            check("s:cpu:sin:f16:exhaustive", 65_536, CR_ONLY, 0.5, None),
        ]);
        let csv = t.csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines,
            [
                "adapter,op,dtype,coverage,measured,max_ulp,at_inputs,at_result,correctly_rounded,over_0.5_ulp,over_1_ulp,over_2_ulps",
                "cpu,sin,f16,exhaustive,65536,0.5,,,true,0,0,0",
                "cpu,sin,f32,sampled,7,1.2345678901234,0x3f800000,0x3f576aa4,false,3,1,0",
            ]
        );
        assert!(csv.ends_with("\r\n"));
    }
}
