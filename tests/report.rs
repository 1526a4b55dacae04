//! The report and its exit codes, as a CI job sees them (`docs/RESULTS.md`): `run`, `report`,
//! `diff` and `expect` through the binary, the JUnit file against Jenkins' `junit-10.xsd`
//! (when `OPSPEC_JUNIT_XSD` names it; `.ci/run` fetches it), and the HTML in headless
//! Chromium (when one is installed; `OPSPEC_REQUIRE_BROWSER=1` makes a missing one a failure).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use opspec::report;
use opspec::results::Status;
use opspec::results::{self, Rerun, ResultsWriter, RunInfo};
use opspec::run::{RunOptions, run_all, select::Selection};
use opspec::spec::Catalog;
use opspec_adapter::{Adapter, AdapterError, BinaryOp, DType, ErrorKind, OpKind, Support, Tensor};

/// A numr deviation the shipped expectations list: maximum drops a NaN in its first operand.
const KNOWN: &str = "array-api:numr:maximum:f32:nan-either";

fn opspec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_opspec")).args(args).output().unwrap()
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("opspec was killed by a signal")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A fresh folder under the test target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A copy of the shipped catalog whose numr entry for maximum and minimum is replaced by
/// `entry` (empty: removed), so that their NaN deviation fails again or is bounded.
fn catalog_with_numr_entry(dir: &Path, entry: &str) -> PathBuf {
    let root = dir.join("root");
    let src = Path::new(env!("CARGO_MANIFEST_DIR"));
    for sub in ["specs", "suites", "expectations"] {
        copy_tree(&src.join(sub), &root.join(sub));
    }
    let path = root.join("expectations/numr.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap();
    let start =
        yaml.find("  - id: \"array-api:numr:{maximum,minimum}:{f16,f32,f64}").expect("the max/min entry");
    let end = start + yaml[start..].find("\n  - id: ").unwrap() + 1;
    std::fs::write(&path, format!("{}{entry}{}", &yaml[..start], &yaml[end..])).unwrap();
    root
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Every result of `run`, read through.
fn all(run: &results::Run) -> Vec<opspec::results::CheckResult> {
    run.checks().collect::<Result<_, _>>().unwrap_or_else(|e| panic!("{e}"))
}

fn results(dir: &Path) -> results::Run {
    results::read(&dir.join("results.jsonl")).unwrap()
}

#[test]
fn nothing_selected_is_exit_3_and_a_known_deviation_is_exit_0() {
    let dir = scratch("codes");
    let out = dir.join("none").display().to_string();
    let none = opspec(&["run", "--filter", "no-such-op", "--out", &out]);
    assert_eq!(code(&none), 3, "{}", text(&none));
    assert!(text(&none).contains("matches no check"), "{}", text(&none));

    let out = dir.join("known").display().to_string();
    let known = opspec(&["run", "--exact", KNOWN, "--out", &out]);
    assert_eq!(code(&known), 0, "{}", text(&known));
    assert!(text(&known).contains("1 known deviations"), "{}", text(&known));
    let run = results(&dir.join("known"));
    assert_eq!(all(&run)[0].status, Status::KnownDeviation);
    assert!(dir.join("known/index.html").exists() && dir.join("known/junit.xml").exists());
}

#[test]
fn an_adapter_whose_every_check_is_skipped_is_exit_3_unless_allowed() {
    let dir = scratch("skips");
    let out = dir.display().to_string();
    let args = ["run", "--adapter", "cuda", "--suite", "megengine", "--no-tables", "--out", &out];
    let skipped = opspec(&args);
    let all_skipped = all(&results(&dir)).iter().all(|r| r.status == Status::Skip);
    if all_skipped {
        assert_eq!(code(&skipped), 3, "{}", text(&skipped));
        assert!(text(&skipped).contains("every check of adapter cuda was skipped"), "{}", text(&skipped));
        let allowed = opspec(&[&args[..], &["--allow-skips"]].concat());
        assert_eq!(code(&allowed), 0, "{}", text(&allowed));
    } else {
        // A machine with a GPU runs them.
        assert_ne!(code(&skipped), 3, "{}", text(&skipped));
    }
}

#[test]
fn a_killed_run_renders_as_incomplete_with_exit_4_and_a_bad_file_is_exit_2() {
    let dir = scratch("killed");
    let out = dir.join("full").display().to_string();
    assert_eq!(code(&opspec(&["run", "--suite", "megengine", "--no-tables", "--out", &out])), 0);
    let full = std::fs::read_to_string(dir.join("full/results.jsonl")).unwrap();
    // What a kill leaves: the run record (written first), then half of the rest, cut in the
    // middle of a line.
    let header = full.find('\n').unwrap() + 1;
    let cut = dir.join("cut.jsonl");
    std::fs::write(&cut, &full[..header + (full.len() - header) / 2]).unwrap();
    let out = dir.join("cut").display().to_string();
    let report = opspec(&["report", cut.to_str().unwrap(), "--out", &out]);
    assert_eq!(code(&report), 4, "{}", text(&report));
    assert!(text(&report).contains("missing"), "{}", text(&report));
    let html = std::fs::read_to_string(dir.join("cut/index.html")).unwrap();
    assert!(html.contains("Incomplete"), "the report of a killed run is not marked incomplete");

    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"record\":\"check\"}\n").unwrap();
    let refused = opspec(&["report", bad.to_str().unwrap(), "--out", &out]);
    assert_eq!(code(&refused), 2, "{}", text(&refused));
    assert!(text(&refused).contains("bad.jsonl:1:"), "{}", text(&refused));
}

#[test]
fn diff_gates_on_new_failures_and_expect_drafts_entries_that_make_them_known() {
    let dir = scratch("diff");
    let root = catalog_with_numr_entry(&dir, "");
    let filter = "array-api:numr:maximum:f32:*";
    let old = dir.join("old").display().to_string();
    assert_eq!(code(&opspec(&["run", "--adapter", "numr", "--filter", filter, "--out", &old])), 0);
    let new = dir.join("new").display().to_string();
    let rerun = opspec(&[
        "--root",
        root.to_str().unwrap(),
        "run",
        "--adapter",
        "numr",
        "--filter",
        filter,
        "--out",
        &new,
    ]);
    assert_eq!(code(&rerun), 1, "without its entry the deviation fails: {}", text(&rerun));

    let (old_file, new_file) = (format!("{old}/results.jsonl"), format!("{new}/results.jsonl"));
    let html = dir.join("diff.html");
    let regressed = opspec(&["diff", &old_file, &new_file, "--html", html.to_str().unwrap()]);
    assert_eq!(code(&regressed), 1, "{}", text(&regressed));
    let said = text(&regressed);
    assert!(said.contains(&format!("{KNOWN}: known_deviation -> fail")), "{said}");
    assert!(std::fs::read_to_string(&html).unwrap().contains(KNOWN));
    let fixed = opspec(&["diff", &new_file, &old_file]);
    assert_eq!(code(&fixed), 0, "{}", text(&fixed));
    assert!(text(&fixed).contains("new failures: 0") && text(&fixed).contains("fixed: "), "{}", text(&fixed));

    let draft = opspec(&["expect", "--from", &new_file]);
    assert_eq!(code(&draft), 0, "{}", text(&draft));
    let draft_file = dir.join("drafted.yaml");
    std::fs::write(&draft_file, &draft.stdout).unwrap();
    let out = dir.join("drafted").display().to_string();
    let args = ["--root", root.to_str().unwrap(), "--expectations", draft_file.to_str().unwrap()];
    let known =
        opspec(&[&args[..], &["run", "--adapter", "numr", "--filter", filter, "--out", &out]].concat());
    assert_eq!(code(&known), 0, "the drafted entries do not cover the failures: {}", text(&known));
    assert!(all(&results(&dir.join("drafted"))).iter().any(|r| r.status == Status::KnownDeviation));
}

#[test]
fn expect_refuses_to_draft_from_an_incomplete_run_unless_allowed() {
    let dir = scratch("expect-killed");
    let out = dir.join("full").display().to_string();
    let filter = "array-api:numr:maximum:f32:*";
    assert_eq!(code(&opspec(&["run", "--adapter", "numr", "--filter", filter, "--out", &out])), 0);
    // What a kill leaves: the run record, then half of the rest, cut in the middle of a line.
    let full = std::fs::read_to_string(dir.join("full/results.jsonl")).unwrap();
    let header = full.find('\n').unwrap() + 1;
    let cut = dir.join("cut.jsonl");
    std::fs::write(&cut, &full[..header + (full.len() - header) / 2]).unwrap();
    let run = results::read(&cut).unwrap();
    let missing: Vec<String> = run
        .checks()
        .map(Result::unwrap)
        .filter(|r| r.status == Status::Missing)
        .map(|r| r.id.to_string())
        .collect();
    assert!(!missing.is_empty());

    let refused = opspec(&["expect", "--from", cut.to_str().unwrap()]);
    assert_eq!(code(&refused), 4, "{}", text(&refused));
    assert!(refused.stdout.is_empty(), "a draft was printed: {}", text(&refused));
    let said = text(&refused);
    assert!(said.contains("cut.jsonl is incomplete") && said.contains("--allow-incomplete"), "{said}");
    assert!(missing.iter().all(|id| said.contains(&format!("missing {id}\n"))), "{said}");

    let allowed = opspec(&["expect", "--from", cut.to_str().unwrap(), "--allow-incomplete"]);
    assert_eq!(code(&allowed), 0, "{}", text(&allowed));
    assert!(String::from_utf8_lossy(&allowed.stdout).starts_with("# Drafted by `opspec expect`"));
    assert!(text(&allowed).contains(&format!("{} planned checks never ran", missing.len())));
}

#[test]
fn a_deviation_past_its_tolerance_fails() {
    let dir = scratch("tolerance");
    let entry = "  - id: \"array-api:numr:maximum:f32:nan-either\"\n    does: drops a NaN\n    why: the array API\n    fails: values\n    tier: must\n    tolerate:\n      failed_inputs: 1\n";
    let root = catalog_with_numr_entry(&dir, entry);
    let out = dir.display().to_string();
    let run = opspec(&["--root", root.to_str().unwrap(), "run", "--exact", KNOWN, "--out", &out]);
    assert_eq!(code(&run), 1, "{}", text(&run));
    let r = &all(&results(&dir))[0].clone();
    assert_eq!(r.status, Status::Fail);
    assert!(r.message.contains("where the entry tolerates 1"), "{}", r.message);
}

#[test]
fn an_entry_for_another_platform_does_not_apply() {
    let dir = scratch("platform");
    let entry = "  - id: \"array-api:numr:maximum:f32:nan-either\"\n    does: drops a NaN\n    why: the array API\n    fails: values\n    tier: must\n    when:\n      target: riscv64-linux\n";
    let root = catalog_with_numr_entry(&dir, entry);
    let out = dir.display().to_string();
    let run = opspec(&["--root", root.to_str().unwrap(), "run", "--exact", KNOWN, "--out", &out]);
    assert_eq!(code(&run), 1, "an entry for riscv64-linux excused a failure here: {}", text(&run));
}

/// Renames the `nan-either` row of each of `ops` to `nan-any`, keeping the old id as an
/// alias.
fn rename_nan_rows(root: &Path, ops: &[&str]) {
    for op in ops {
        let path = root.join(format!("specs/elementwise/{op}.yaml"));
        let yaml = std::fs::read_to_string(&path).unwrap();
        let renamed =
            yaml.replacen("  - id: nan-either\n", "  - id: nan-any\n    aliases: [nan-either]\n", 1);
        assert_ne!(renamed, yaml);
        std::fs::write(
            &path,
            renamed.replace("- nan-either", "- nan-any").replace("[nan-either,", "[nan-any,"),
        )
        .unwrap();
    }
}

#[test]
fn a_renamed_row_keeps_its_old_id_and_migrate_rewrites_it() {
    let dir = scratch("renamed");
    let root = catalog_with_numr_entry(
        &dir,
        "  - id: \"array-api:numr:{maximum,minimum}:f32:nan-either\"\n    does: drops a NaN\n    why: the array API\n    fails: values\n    tier: must\n",
    );
    rename_nan_rows(&root, &["maximum"]);
    let root_arg = root.to_str().unwrap();
    let out = dir.join("run").display().to_string();
    let new_id = "array-api:numr:maximum:f32:nan-any";
    // The old id still names the renamed row's check.
    let run = opspec(&["--root", root_arg, "run", "--exact", new_id, "--out", &out]);
    assert_eq!(code(&run), 0, "the entry's old id no longer names the check: {}", text(&run));
    assert_eq!(all(&results(&dir.join("run")))[0].status, Status::KnownDeviation);

    // Only maximum's row was renamed: `nan-any` in the pattern would lose minimum's check.
    let file = root.join("expectations/numr.yaml");
    let refused = opspec(&["--root", root_arg, "expect", "--migrate", file.to_str().unwrap()]);
    assert_eq!(code(&refused), 1, "{}", text(&refused));
    assert!(text(&refused).contains("rewrite it by hand"), "{}", text(&refused));

    rename_nan_rows(&root, &["minimum"]);
    let migrated = opspec(&["--root", root_arg, "expect", "--migrate", file.to_str().unwrap()]);
    assert_eq!(code(&migrated), 0, "{}", text(&migrated));
    let yaml = std::fs::read_to_string(&file).unwrap();
    assert!(yaml.contains("\"array-api:numr:{maximum,minimum}:f32:nan-any\""), "{yaml}");
    let run = opspec(&["--root", root_arg, "run", "--exact", new_id, "--out", &out]);
    assert_eq!(code(&run), 0, "{}", text(&run));
}

#[cfg(unix)]
#[test]
fn a_run_interrupted_with_ctrl_c_leaves_results_that_report_renders() {
    let dir = scratch("interrupted");
    let out = dir.join("run");
    let mut command = Command::new(env!("CARGO_BIN_EXE_opspec"));
    command
        .args(["run", "--adapter", "cpu", "--adapter", "numr", "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // A job started in the background (`cmd &` in a script) inherits SIGINT ignored; the run
    // gets the terminal's default, as under a real Ctrl-C.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let results = out.join("results.jsonl");
    // Wait until some checks are on disk, then interrupt as Ctrl-C does.
    // Lines are counted in bytes: a read that ends inside a record may end inside a UTF-8
    // character, which would read as no text at all.
    let lines = || std::fs::read(&results).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    let started = std::time::Instant::now();
    while lines() < 50 && started.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = i32::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    assert!(!status.success(), "the run finished before it was interrupted");
    let rendered = dir.join("rendered").display().to_string();
    let report = opspec(&["report", results.to_str().unwrap(), "--out", &rendered]);
    assert_eq!(code(&report), 4, "{}", text(&report));
    let run = results::read(&results).unwrap();
    assert!(!run.complete && all(&run).iter().any(|r| r.status == Status::Missing));
    assert!(all(&run).iter().filter(|r| r.status != Status::Missing).count() >= 49);
}

/// Wraps the CPU adapter with markup in everything it says: its version, an error and a
/// reason to skip.
struct Markup(opspec_cpu::CpuAdapter);

const INJECTED: &str =
    "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>";

impl Adapter for Markup {
    fn name(&self) -> &str {
        "markup"
    }
    fn version(&self) -> String {
        format!("1.0 {INJECTED}")
    }
    fn supports(&self, op: OpKind, dtype: DType) -> Support {
        if dtype == DType::F64 {
            Support::Unsupported(format!("no f64 {INJECTED}"))
        } else {
            self.0.supports(op, dtype)
        }
    }
    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor, AdapterError> {
        if a.dtype() == DType::F32 {
            return Err(AdapterError::new(ErrorKind::Other, format!("failed {INJECTED}")));
        }
        self.0.binary(op, a, b)
    }
}

/// The report of a run with passes, failures, known deviations and skips, with markup in an
/// adapter's version, errors and skip reasons.
fn mixed_report(dir: &Path) -> String {
    let catalog = Catalog::builtin().unwrap();
    let select = |adapter: &str, filter: &str| Selection {
        suites: vec!["array-api".into()],
        adapters: vec![adapter.into()],
        filter: Some(filter.into()),
        exact: None,
        tables: false,
        ..Selection::default()
    };
    let known = ["cpu", "numr", "markup"];
    let mut checks =
        select("numr", "array-api:numr:{maximum,copysign}:*:*").checks(&catalog, &known).unwrap();
    checks.extend(select("markup", "array-api:markup:add:*:*").checks(&catalog, &known).unwrap());
    let adapters: Vec<(String, Arc<dyn Adapter>)> = vec![
        ("numr".into(), Arc::new(opspec_numr::NumrAdapter::new())),
        ("markup".into(), Arc::new(Markup(opspec_cpu::CpuAdapter::new()))),
    ];
    let versions = adapters.iter().map(|(n, a)| format!("{n}: {}", a.version())).collect();
    let info = RunInfo::new(&catalog, 0, 0, versions, Rerun::default());
    let ids: Vec<_> = checks.iter().map(|c| c.id.clone()).collect();
    let path = dir.join("results.jsonl");
    let writer = ResultsWriter::create(&path, &info, &ids, &catalog.sources).unwrap();
    for r in run_all(&catalog, &checks, &adapters, &RunOptions::default(), 0) {
        writer.check(&r).unwrap();
    }
    writer.finish(1.0, 0).unwrap();
    let run = results::read(&path).unwrap();
    for status in [Status::Pass, Status::Fail, Status::KnownDeviation, Status::Skip] {
        assert!(all(&run).iter().any(|r| r.status == status), "the mixed run has no {status:?}");
    }
    report::write(dir, &[run], opspec::spec::authority::Tier::Must, Some(&dir.join("summary.md"))).unwrap();
    std::fs::read_to_string(dir.join("index.html")).unwrap()
}

#[test]
fn the_report_escapes_markup_validates_as_junit_and_works_in_a_browser() {
    let dir = scratch("mixed");
    let html = mixed_report(&dir);
    assert!(!html.contains("<script>document.title"), "markup from an adapter reached the page unescaped");
    assert!(!html.contains("<img src=x"), "markup from an adapter reached the page unescaped");
    assert!(html.contains("1.0 &lt;img src=x"), "the adapter's version is not shown escaped");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(!summary.contains("<img") && summary.len() < 1024 * 1024, "{summary}");

    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(junit.contains("classname=\"array-api:markup\"") && junit.contains("<skipped type=\"xfail\""));
    assert!(!junit.contains("<img"), "{junit}");
    match std::env::var("OPSPEC_JUNIT_XSD") {
        Ok(xsd) => {
            let lint = Command::new("xmllint")
                .args(["--noout", "--schema", &xsd, dir.join("junit.xml").to_str().unwrap()])
                .output()
                .expect("xmllint (Debian: libxml2-utils) is needed when OPSPEC_JUNIT_XSD is set");
            assert!(lint.status.success(), "junit.xml does not validate against {xsd}: {}", text(&lint));
        }
        Err(_) => eprintln!("OPSPEC_JUNIT_XSD is not set: junit.xml was not validated against an XSD"),
    }

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/browser-check.sh");
    let browser = Command::new("bash")
        .arg(&script)
        .arg(&dir)
        .arg("")
        .arg(KNOWN.replace("f32", "f16"))
        .output()
        .unwrap();
    match code(&browser) {
        3 if std::env::var("OPSPEC_REQUIRE_BROWSER").is_err() => {
            eprintln!("no Chromium here: the report was not checked in a browser ({})", text(&browser))
        }
        0 => {
            let said = text(&browser);
            assert!(said.contains("RESULT PASS"), "{said}");
        }
        _ => panic!("the report failed in headless Chromium:\n{}", text(&browser)),
    }
}

/// One results file rendered every way (the terminal, `index.html`, `compliance.csv`,
/// `junit.xml`, the exit code) says the same thing, as the verdict room counts it, at each gate.
#[test]
fn every_rendering_of_one_results_file_agrees_with_the_verdict_room() {
    let dir = scratch("agree");
    mixed_report(&dir);
    let checks = all(&results(&dir));
    let pairs = opspec::verdict::verdicts(&checks);
    assert!(pairs.values().any(|c| c.counts.known_musts > 0), "the mixed run has a known must failure");
    for gate in ["must", "should", "quality"] {
        let out = dir.join(format!("gate-{gate}")).display().to_string();
        let shown =
            opspec(&["report", dir.join("results.jsonl").to_str().unwrap(), "--out", &out, "--gate", gate]);
        let terminal = text(&shown);
        let tier: opspec::spec::authority::Tier = gate.parse().unwrap();
        let failing = checks.iter().filter(|r| r.fails(tier)).count();
        assert_eq!(code(&shown), if failing > 0 { 1 } else { 0 }, "gate {gate}: {terminal}");
        let junit = std::fs::read_to_string(Path::new(&out).join("junit.xml")).unwrap();
        assert!(
            junit.contains(&format!("failures=\"{failing}\"")),
            "gate {gate}: {failing} failures: {junit}"
        );
        let html = std::fs::read_to_string(Path::new(&out).join("index.html")).unwrap();
        let csv = std::fs::read_to_string(Path::new(&out).join("compliance.csv")).unwrap();
        for ((suite, adapter), verdict) in &pairs {
            let line = verdict.text();
            assert!(terminal.contains(&line), "the terminal lacks `{line}`: {terminal}");
            assert!(html.contains(&line.replace('\'', "&#39;")), "the page lacks `{line}`");
            // The compliance table's cells of the pair add up to the pair's counts.
            let mut sums = [0usize; 6];
            for cells in csv.lines().skip(1).map(|l| l.split(',').collect::<Vec<_>>()) {
                if (cells[0], cells[1]) == (suite.as_str(), adapter.as_str()) {
                    for (sum, cell) in sums.iter_mut().zip(&cells[3..9]) {
                        *sum += cell.parse::<usize>().unwrap();
                    }
                }
            }
            let c = &verdict.counts;
            assert_eq!(
                sums,
                [c.checks, c.passed, c.must, c.should, c.quality, c.known_deviations],
                "{suite} {adapter}"
            );
        }
    }
}
