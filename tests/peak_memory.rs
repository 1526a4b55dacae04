//! The commands that read results files run in bounded memory: `report`, `diff`, `merge` and
//! `expect --from` on a results file of 10^6 checks (about 400 MB) each peak under 512 MiB
//! (issue 34; the bound per check is in `docs/RESULTS.md`). Each command's peak is its own
//! resident high-water mark as the kernel counts it (`wait4`'s `ru_maxrss`), which the load
//! of the machine does not change. The files are written here with the library's own writer:
//! a run of 10^6 checks, one in 20 failing, a second run failing others, and the same plan in
//! two shards.

#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use opspec::results::shard::{Shard, ShardOfPlan, shard_of};
use opspec::results::{CaseFailure, CheckResult, Citation, Rerun, ResultsWriter, RunInfo, Status};
use opspec::spec::Catalog;
use opspec::spec::authority::Tier;
use opspec::spec::id::CheckId;

/// Checks per results file.
const CHECKS: usize = 1_000_000;
/// The bound each command must keep to, in KiB.
const BOUND_KIB: u64 = 512 * 1024;

/// A temporary folder, removed when dropped.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `k`th check of the plan: ops, dtypes and cases vary, as in a real run.
fn id(k: usize) -> CheckId {
    let op = ["add", "pow", "sqrt", "exp", "atan2"][k % 5];
    let dtype = ["f16", "f32", "f64"][k / 5 % 3];
    format!("array-api:cpu:{op}:{dtype}:case-{k}").parse().unwrap()
}

/// The result of check `k`: failing on one input where `k + shift` is a multiple of 20.
fn result(k: usize, shift: usize) -> CheckResult {
    let mut r = CheckResult::new(id(k));
    r.planned_inputs = Some(1024);
    r.inputs = 1024;
    r.max_ulp_error = Some(0.5);
    r.ulp_histogram = Some(vec![1024, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    r.citation = Some(Citation {
        // A run cites one row per table row, not per check: a few hundred distinct citations.
        row: format!("{}/row-{}", r.id.op, k % 400),
        source: "Python array API standard, pow, pow bullet 18".to_string(),
        text: "If x1_i is +0 and x2_i is greater than 0, the result is +0.".to_string(),
        location: "specs/elementwise/pow.yaml:141".to_string(),
    });
    r.seconds = 0.002;
    if (k + shift).is_multiple_of(20) {
        r.status = Status::Fail;
        r.failed_inputs = 1;
        r.tier = Some(Tier::Must);
        r.failed_by_tier.insert(Tier::Must, 1);
        r.message = "1 of 1024 inputs failed".to_string();
        r.failures.push(CaseFailure {
            inputs: vec!["x1 = 1 (0x1p+0, 0x3c00)".to_string(), "x2 = 2 (0x1p+1, 0x4000)".to_string()],
            input_bits: vec!["0x3c00".to_string(), "0x4000".to_string()],
            expected: "3 (0x1.8p+1, 0x4200)".to_string(),
            actual: "4 (0x1p+2, 0x4400)".to_string(),
            actual_bits: Some("0x4400".to_string()),
            steps: Some(512),
            reproduce: format!("opspec eval {} 0x3c00 0x4000", r.id),
            profile_allows: None,
            tier: Tier::Must,
            authority: String::new(),
            batch: None,
        });
    }
    r
}

/// Writes the run of the checks `keep` keeps, of shard `shard` of the plan where given. The
/// plan is held as text: a command's peak as `wait4` reports it is at least this process's
/// own (the child starts in its memory), so this process keeps small.
fn write(path: &Path, shift: usize, shard: Option<Shard>, keep: impl Fn(&str) -> bool) {
    let mut info =
        RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec!["cpu: opspec-cpu".into()], Rerun::default());
    info.plan_hash = "peak-memory".to_string();
    let planned: Vec<String> = (0..CHECKS).map(|k| id(k).to_string()).filter(|i| keep(i)).collect();
    if let Some(shard) = shard {
        info.shard = Some(ShardOfPlan { shard, units: (0..CHECKS).map(|k| id(k).to_string()).collect() });
    }
    let writer = ResultsWriter::create(path, &info, &planned, &BTreeMap::new()).unwrap();
    for k in (0..CHECKS).filter(|&k| keep(&id(k).to_string())) {
        writer.check(&result(k, shift)).unwrap();
    }
    writer.finish(1.0, 0).unwrap();
}

/// Runs opspec with `args`; its exit code, its peak resident memory in KiB, and its stderr.
#[allow(clippy::zombie_processes, reason = "wait4 below reaps the child and reads its rusage")]
fn peak(dir: &Path, args: &[&str]) -> (i32, u64, String) {
    let stderr = dir.join("stderr");
    let child = Command::new(env!("CARGO_BIN_EXE_opspec"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; the child is ours and not yet reaped.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    (code, usage.ru_maxrss as u64, std::fs::read_to_string(stderr).unwrap_or_default())
}

#[test]
fn commands_reading_a_million_checks_stay_under_512_mib() {
    let dir = Dir(std::env::temp_dir().join(format!("opspec-peak-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = |name: &str| dir.0.join(name).display().to_string();
    let (old, new, one, two) = (file("old.jsonl"), file("new.jsonl"), file("one.jsonl"), file("two.jsonl"));
    write(Path::new(&old), 0, None, |_| true);
    write(Path::new(&new), 7, None, |_| true);
    for (path, index) in [(&one, 1), (&two, 2)] {
        write(Path::new(path), 0, Some(Shard::new(index, 2).unwrap()), |i| shard_of(i, 2) == index);
    }
    let report = file("report");
    let merged = file("merged");
    let commands: [(&str, Vec<&str>, i32); 4] = [
        ("report", vec!["report", &old, "--out", &report], 1),
        ("diff", vec!["diff", &old, &new], 1),
        ("merge", vec!["merge", &one, &two, "--out", &merged], 1),
        ("expect --from", vec!["expect", "--from", &old], 0),
    ];
    let mut over = Vec::new();
    for (name, args, code) in commands {
        let (got, kib, stderr) = peak(&dir.0, &args);
        assert_eq!(got, code, "{name}: {stderr}");
        eprintln!("{name}: peak {} MiB", kib / 1024);
        if kib >= BOUND_KIB {
            over.push(format!("{name} peaked at {} MiB", kib / 1024));
        }
    }
    assert!(over.is_empty(), "over 512 MiB on {CHECKS} checks: {}", over.join("; "));
}
