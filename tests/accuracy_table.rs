//! The accuracy table through the binary: two results files of two adapters, written with the
//! library's own writer, rendered by `opspec report a.jsonl b.jsonl --out DIR` into
//! `accuracy.csv`, `accuracy.md` and the page's "Accuracy" section (`docs/ACCURACY.md`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use opspec::results::{CheckResult, Rerun, ResultsWriter, RunInfo, UlpWorst};
use opspec::spec::Catalog;

/// A passing check `id` of `inputs` inputs with ULP histogram `h` and largest error `max`,
/// at `at` (input bits, result bits).
fn check(id: &str, inputs: usize, h: [u64; 10], max: f64, at: Option<(&str, &str)>) -> CheckResult {
    let mut r = CheckResult::new(id.parse().unwrap());
    r.inputs = inputs;
    r.ulp_histogram = Some(h.to_vec());
    r.max_ulp_error = Some(max);
    r.max_ulp_at = at.map(|(x, y)| UlpWorst { inputs: vec![x.into()], actual: y.into() });
    r
}

fn write(path: &Path, adapter: &str, checks: &[CheckResult]) {
    let info =
        RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec![format!("{adapter}: test")], Rerun::default());
    let ids: Vec<String> = checks.iter().map(|r| r.id.to_string()).collect();
    let writer = ResultsWriter::create(path, &info, &ids, &BTreeMap::new()).unwrap();
    for r in checks {
        writer.check(r).unwrap();
    }
    writer.finish(1.0, 0).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("accuracy-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn report_writes_the_accuracy_table_of_two_adapters_side_by_side() {
    let dir = scratch("two");
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    write(
        &a,
        "cpu",
        &[
            // Every f16 value, all correctly rounded: the row leaves out the random check's 3.5.
            check("array-api:cpu:exp:f16:exhaustive", 65_536, [65_536, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.5, None),
            check(
                "array-api:cpu:exp:f16:random",
                1000,
                [990, 5, 3, 2, 0, 0, 0, 0, 0, 0],
                3.5,
                Some(("0x3c01", "0x4170")),
            ),
            check(
                "array-api:cpu:exp:f32:random",
                100,
                [99, 1, 0, 0, 0, 0, 0, 0, 0, 0],
                0.501,
                Some(("0x3f800000", "0x402df854")),
            ),
        ],
    );
    write(
        &b,
        "numr",
        &[
            check(
                "array-api:numr:exp:f32:random",
                100,
                [90, 6, 3, 1, 0, 0, 0, 0, 0, 0],
                2.25,
                Some(("0x42b00000", "0x7f7fffff")),
            ),
            check(
                "array-api:numr:exp:f32:edges",
                50,
                [50, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                0.5,
                Some(("0x0", "0x3f800000")),
            ),
        ],
    );
    let out = dir.join("report");
    let report = Command::new(env!("CARGO_BIN_EXE_opspec"))
        .args(["report", a.to_str().unwrap(), b.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let said =
        format!("{}{}", String::from_utf8_lossy(&report.stdout), String::from_utf8_lossy(&report.stderr));
    assert_eq!(report.status.code(), Some(0), "{said}");

    let csv = std::fs::read_to_string(out.join("accuracy.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines,
        [
            "adapter,op,dtype,coverage,measured,max_ulp,at_inputs,at_result,correctly_rounded,over_0.5_ulp,over_1_ulp,over_2_ulps",
            "cpu,exp,f16,exhaustive,65536,0.5,,,true,0,0,0",
            "cpu,exp,f32,sampled,100,0.501,0x3f800000,0x402df854,false,1,0,0",
            "numr,exp,f32,sampled,150,2.25,0x42b00000,0x7f7fffff,false,10,4,1",
        ],
        "{csv}"
    );
    let md = std::fs::read_to_string(out.join("accuracy.md")).unwrap();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(
        rows,
        [
            "| function | dtype | cpu | numr |",
            "|---|---|---|---|",
            "| exp | f16 | ≤ 0.5 CR (exhaustive) | - |",
            "| exp | f32 | 0.501 (sampled) | 2.250 (sampled) |",
        ],
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("<h2 id=\"accuracy\">Accuracy</h2>"), "no accuracy section");
    assert!(html.contains("<th>cpu</th><th>numr</th>"));
    assert!(html.contains("2.250 (sampled)<br><small>150 measured; &gt; 0.5: 10, &gt; 1: 4, &gt; 2: 1; at 0x42b00000 → 0x7f7fffff"));
}

#[test]
fn without_ulp_data_there_is_no_accuracy_table() {
    let dir = scratch("none");
    let a = dir.join("a.jsonl");
    let mut add = CheckResult::new("array-api:cpu:add:f32:edges".parse().unwrap());
    add.inputs = 10;
    write(&a, "cpu", &[add]);
    let out = dir.join("report");
    let report = Command::new(env!("CARGO_BIN_EXE_opspec"))
        .args(["report", a.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", String::from_utf8_lossy(&report.stderr));
    assert!(out.join("index.html").exists());
    assert!(!out.join("accuracy.csv").exists() && !out.join("accuracy.md").exists());
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!html.contains("id=\"accuracy\""));
}
