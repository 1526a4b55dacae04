//! Shards on a scheduler (`docs/SHARDING.md`), through the built binary, each shard its own
//! process: `run --shard I/N` and `merge` give the unsharded run's results check for check;
//! a lost or killed shard's checks are `missing` (exit 4); mixed plans, mixed N and
//! conflicting duplicates are refused (exit 2); a check moves only as consistent hashing
//! allows when N grows; a sweep's chunks are units of their own; and the commands of the
//! GitHub Actions, GitLab and Kubernetes examples work as written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

use opspec::results::Status;
use opspec::results::{self, Run};
use serde_json::Value;

/// The checks of the shard tests: a suite against two adapters with tables, so that the
/// plan has table self-checks, passes, a known deviation and skips.
const SELECTION: [&str; 6] = ["--suite", "megengine", "--adapter", "cpu", "--adapter", "numr"];

/// What the narrower selection appended to the documented commands runs.
const DOC_SELECTION: [&str; 3] = ["--suite", "megengine", "--no-tables"];

/// A finished `opspec` process: exit code and everything it printed.
struct Ran {
    code: i32,
    text: String,
}

impl From<Output> for Ran {
    fn from(out: Output) -> Ran {
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        Ran { code: out.status.code().expect("opspec was killed by a signal"), text }
    }
}

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_opspec")
}

fn start(args: &[&str], dir: &Path) -> Child {
    let mut cmd = Command::new(binary());
    cmd.args(args).current_dir(dir).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().unwrap()
}

fn opspec(args: &[&str], dir: &Path) -> Ran {
    start(args, dir).wait_with_output().unwrap().into()
}

/// Waits for every process, in order.
fn all(children: Vec<Child>) -> Vec<Ran> {
    children.into_iter().map(|c| c.wait_with_output().unwrap().into()).collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("shards-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every result of `run`, read through.
fn checks_of(run: &Run) -> Vec<opspec::results::CheckResult> {
    run.checks().collect::<Result<_, _>>().unwrap_or_else(|e| panic!("{e}"))
}

fn read(path: &Path) -> Run {
    results::read(path).unwrap_or_else(|e| panic!("{e}"))
}

/// `(id, status)` of every check, in order.
fn verdicts(run: &Run) -> Vec<(String, Status)> {
    checks_of(run).iter().map(|r| (r.id.to_string(), r.status)).collect()
}

fn ids(run: &Run) -> BTreeSet<String> {
    checks_of(run).iter().map(|r| r.id.to_string()).collect()
}

/// The unsharded run of [`SELECTION`] and its four shards, run once, as five processes.
struct Fixture {
    dir: PathBuf,
    full: Run,
    /// `shard-I/results.jsonl`, I from 1 to 4.
    shards: Vec<PathBuf>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = scratch("fixture");
        let mut children = vec![start(&[&["run"], &SELECTION[..], &["--out", "full"]].concat(), &dir)];
        for i in 1..=4 {
            let (shard, out) = (format!("{i}/4"), format!("shard-{i}"));
            children
                .push(start(&[&["run", "--shard", &shard], &SELECTION[..], &["--out", &out]].concat(), &dir));
        }
        for (i, ran) in all(children).iter().enumerate() {
            assert_eq!(ran.code, 0, "process {i}: {}", ran.text);
        }
        let shards = (1..=4).map(|i| dir.join(format!("shard-{i}/results.jsonl"))).collect();
        Fixture { full: read(&dir.join("full/results.jsonl")), dir, shards }
    })
}

/// `opspec merge FILES… --out OUT`, in OUT's parent folder.
fn merge(files: &[&PathBuf], out: &Path) -> Ran {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    opspec(&args, out.parent().unwrap())
}

#[test]
fn four_shards_merged_are_the_unsharded_run_check_for_check() {
    let f = fixture();
    let shards: Vec<Run> = f.shards.iter().map(|p| read(p)).collect();
    let statuses: BTreeSet<&str> = checks_of(&f.full).iter().map(|r| r.status.name()).collect();
    assert!(statuses.len() >= 3, "the plan should mix statuses: {statuses:?}");
    assert_eq!(f.full.info.plan_hash.len(), 16, "{:?}", f.full.info.plan_hash);
    let mut seen = BTreeSet::new();
    for (i, s) in shards.iter().enumerate() {
        assert_eq!(s.info.plan_hash, f.full.info.plan_hash, "shard {} has another plan", i + 1);
        let of = s.info.shard.as_ref().expect("a shard records its shard");
        assert_eq!(of.shard.to_string(), format!("{}/4", i + 1));
        assert_eq!(of.units, verdicts(&f.full).into_iter().map(|(id, _)| id).collect::<Vec<_>>());
        assert!(!checks_of(s).is_empty() && checks_of(s).len() < checks_of(&f.full).len());
        assert!(ids(s).iter().all(|id| seen.insert(id.clone())), "shard {} repeats a check", i + 1);
    }

    let out = f.dir.join("merged");
    let merged = merge(&f.shards.iter().collect::<Vec<_>>(), &out);
    assert_eq!(merged.code, 0, "{}", merged.text);
    let run = read(&out.join("results.jsonl"));
    assert!(run.complete);
    assert_eq!(verdicts(&run), verdicts(&f.full));
    assert_eq!(run.info.plan_hash, f.full.info.plan_hash);
    assert!(out.join("index.html").exists() && out.join("junit.xml").exists());
    let again = opspec(&["report", out.join("results.jsonl").to_str().unwrap(), "--out", "rendered"], &f.dir);
    assert_eq!(again.code, 0, "{}", again.text);

    // A shard given twice (a retried job) changes nothing.
    let twice =
        merge(&[&f.shards[1], &f.shards[0], &f.shards[1], &f.shards[2], &f.shards[3]], &f.dir.join("twice"));
    assert_eq!(twice.code, 0, "{}", twice.text);
    assert_eq!(verdicts(&read(&f.dir.join("twice/results.jsonl"))), verdicts(&f.full));
}

#[test]
fn a_lost_shard_is_missing_and_a_killed_one_can_be_retried() {
    let f = fixture();
    let out = f.dir.join("lost");
    let lost = merge(&[&f.shards[0], &f.shards[1], &f.shards[3]], &out);
    assert_eq!(lost.code, 4, "{}", lost.text);
    let third = ids(&read(&f.shards[2]));
    assert!(
        lost.text.contains(&format!(
            "{} of the plan's {} checks were run by no shard",
            third.len(),
            checks_of(&f.full).len()
        )),
        "{}",
        lost.text
    );
    let named: Vec<&str> = lost.text.lines().filter_map(|l| l.trim().strip_prefix("missing ")).collect();
    assert_eq!(named.len(), third.len().min(50), "{}", lost.text);
    for line in named {
        let (id, why) = line.split_once(": ").unwrap();
        assert!(third.contains(id), "{id} is named missing but is not shard 3's");
        assert!(why.contains("it belongs to shard 3/4, whose results were not given"), "{line}");
    }
    let run = read(&out.join("results.jsonl"));
    assert!(!run.complete, "a merge with a missing check must read back as incomplete");
    for (id, status) in verdicts(&run) {
        assert_eq!(status == Status::Missing, third.contains(&id), "{id}: {status:?}");
    }
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("Incomplete"), "the merged report is not marked incomplete");

    // A shard killed halfway: its unfinished checks are missing, until its retry is given.
    let full = std::fs::read_to_string(&f.shards[1]).unwrap();
    let header = full.find('\n').unwrap() + 1;
    let killed = f.dir.join("killed-2.jsonl");
    std::fs::write(&killed, &full[..header + (full.len() - header) / 2]).unwrap();
    let cut = merge(&[&f.shards[0], &killed, &f.shards[2], &f.shards[3]], &f.dir.join("cut"));
    assert_eq!(cut.code, 4, "{}", cut.text);
    assert!(cut.text.contains("it belongs to shard 2/4, whose results end before it ran"), "{}", cut.text);
    let retried =
        merge(&[&f.shards[0], &killed, &f.shards[2], &f.shards[3], &f.shards[1]], &f.dir.join("retried"));
    assert_eq!(retried.code, 0, "{}", retried.text);
    assert_eq!(verdicts(&read(&f.dir.join("retried/results.jsonl"))), verdicts(&f.full));
}

#[test]
fn mixed_plans_mixed_n_and_conflicting_results_are_refused() {
    let f = fixture();
    // Another plan: the same checks under another timeout; and the same plan in five shards.
    let other =
        [&["run", "--shard", "4/4", "--timeout", "60"], &SELECTION[..], &["--out", "other-4"]].concat();
    let fifth = [&["run", "--shard", "5/5"], &SELECTION[..], &["--out", "fifth-5"]].concat();
    for ran in all(vec![start(&other, &f.dir), start(&fifth, &f.dir)]) {
        assert_eq!(ran.code, 0, "{}", ran.text);
    }
    let other = f.dir.join("other-4/results.jsonl");
    let hash = read(&other).info.plan_hash;
    assert_ne!(hash, f.full.info.plan_hash, "the timeout is part of the plan");
    let mixed = merge(&[&f.shards[0], &f.shards[1], &f.shards[2], &other], &f.dir.join("mixed"));
    assert_eq!(mixed.code, 2, "{}", mixed.text);
    for needle in
        [f.shards[0].display().to_string(), other.display().to_string(), hash, f.full.info.plan_hash.clone()]
    {
        assert!(mixed.text.contains(&needle), "the refusal does not name {needle}: {}", mixed.text);
    }

    let fifth = f.dir.join("fifth-5/results.jsonl");
    let n = merge(&[&f.shards[0], &fifth], &f.dir.join("n"));
    assert_eq!(n.code, 2, "{}", n.text);
    assert!(n.text.contains("is shard 1/4 but") && n.text.contains("is shard 5/5"), "{}", n.text);

    // The same check with another result in a second copy of shard 2.
    let text = std::fs::read_to_string(&f.shards[1]).unwrap();
    let mut flipped = None;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            if flipped.is_none() && record["record"] == "check" && record["status"] == "pass" {
                flipped = Some(record["id"].as_str().unwrap().to_string());
                record["status"] = "fail".into();
                record["failed_inputs"] = 1.into();
            }
            record.to_string()
        })
        .collect();
    let flipped = flipped.expect("shard 2 has a passing check");
    let conflicting = f.dir.join("conflicting-2.jsonl");
    std::fs::write(&conflicting, lines.join("\n") + "\n").unwrap();
    let refused = merge(
        &[&f.shards[0], &f.shards[1], &conflicting, &f.shards[2], &f.shards[3]],
        &f.dir.join("conflict"),
    );
    assert_eq!(refused.code, 2, "{}", refused.text);
    assert!(refused.text.contains(&format!("check `{flipped}` has two results")), "{}", refused.text);
    assert!(refused.text.contains(&conflicting.display().to_string()), "{}", refused.text);
}

/// Every check of `args`' selection and its shard among `n`, from `opspec list --shard I/N`
/// in N processes.
fn shards_of(args: &[&str], n: u32, dir: &Path) -> BTreeMap<String, u32> {
    let children =
        (1..=n).map(|i| start(&[&["list", "--shard", &format!("{i}/{n}")], args].concat(), dir)).collect();
    let mut of = BTreeMap::new();
    for (i, ran) in (1..).zip(all(children)) {
        assert_eq!(ran.code, 0, "{i}/{n}: {}", ran.text);
        for id in ran.text.lines() {
            assert!(of.insert(id.to_string(), i).is_none(), "{id} is in two shards of {n}");
        }
    }
    of
}

#[test]
fn a_check_moves_only_into_the_new_shard_when_n_grows() {
    let dir = scratch("stability");
    let selection = ["--adapter", "cpu", "--adapter", "numr"];
    let listed = opspec(&[&["list"], &selection[..]].concat(), &dir);
    assert_eq!(listed.code, 0, "{}", listed.text);
    let every: BTreeSet<String> = listed.text.lines().map(str::to_string).collect();
    let one = shards_of(&selection, 1, &dir);
    assert_eq!(one.keys().cloned().collect::<BTreeSet<_>>(), every, "1/1 is the whole plan");
    let (four, five) = (shards_of(&selection, 4, &dir), shards_of(&selection, 5, &dir));
    assert_eq!(four.keys().cloned().collect::<BTreeSet<_>>(), every, "the shards of 4 cover the plan");
    assert_eq!(five.keys().cloned().collect::<BTreeSet<_>>(), every, "the shards of 5 cover the plan");
    let n = every.len() as f64;
    // Counts of a fair split: binomial, within 5 standard deviations (the assignment is
    // deterministic, so this cannot flake; it fails only for a skewed hash).
    let near = |count: usize, p: f64| (count as f64 - n * p).abs() <= 5.0 * (n * p * (1.0 - p)).sqrt();
    let mut moved = 0;
    for (id, &to) in &five {
        let from = four[id];
        assert!(to == from || to == 5, "{id} moved from shard {from} of 4 to shard {to} of 5");
        moved += usize::from(to != from);
    }
    assert!(near(moved, 1.0 / 5.0), "{moved} of {n} checks moved to the new shard");
    for (shards, of) in [(4u32, &four), (5, &five)] {
        for i in 1..=shards {
            let count = of.values().filter(|&&s| s == i).count();
            assert!(near(count, 1.0 / f64::from(shards)), "shard {i}/{shards} has {count} of {n} checks");
        }
    }
}

#[test]
fn bad_shards_are_refused_and_an_empty_shard_still_merges() {
    let dir = scratch("empty");
    for (bad, says) in
        [("0/4", "I is 0"), ("5/4", "I is 5"), ("3", "no `/`"), ("1/0", "N is 0"), ("x/2", "`x`")]
    {
        let ran = opspec(&["run", "--shard", bad, "--out", "bad"], &dir);
        assert_eq!(ran.code, 2, "{bad}: {}", ran.text);
        assert!(ran.text.contains(says) && ran.text.contains("--shard"), "{bad}: {}", ran.text);
    }
    let exact = opspec(&["run", "--shard", "1/2", "--exact", "array-api:cpu:add:f32:edges"], &dir);
    assert_eq!(exact.code, 2, "{}", exact.text);

    // One check over three shards: two of them get nothing, exit 0 and still record the plan.
    let one = ["--filter", "array-api:cpu:add:f32:edges", "--no-tables"];
    let children = (1..=3)
        .map(|i| {
            start(
                &[&["run", "--shard", &format!("{i}/3")], &one[..], &["--out", &format!("s{i}")]].concat(),
                &dir,
            )
        })
        .collect();
    let ran = all(children);
    assert!(ran.iter().all(|r| r.code == 0), "{:?}", ran.iter().map(|r| &r.text).collect::<Vec<_>>());
    assert_eq!(ran.iter().filter(|r| r.text.contains("has none of the plan's 1 checks")).count(), 2);
    let files: Vec<PathBuf> = (1..=3).map(|i| dir.join(format!("s{i}/results.jsonl"))).collect();
    let merged = merge(&files.iter().collect::<Vec<_>>(), &dir.join("m"));
    assert_eq!(merged.code, 0, "{}", merged.text);
    let run = read(&dir.join("m/results.jsonl"));
    assert_eq!(verdicts(&run), [("array-api:cpu:add:f32:edges".to_string(), Status::Pass)]);
    let listed = shards_of(&one, 3, &dir);
    assert_eq!(listed.keys().collect::<Vec<_>>(), ["array-api:cpu:add:f32:edges"]);
}

/// The YAML blocks of `docs/SHARDING.md`, in order.
fn doc_yaml() -> Vec<Value> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/SHARDING.md")).unwrap();
    let blocks = page.split("```yaml\n").skip(1).map(|b| b.split("```").next().unwrap());
    blocks
        .map(|b| {
            serde_saphyr::from_str(b).unwrap_or_else(|e| panic!("a YAML block of docs/SHARDING.md: {e}"))
        })
        .collect()
}

fn manifest(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/kubernetes").join(name);
    serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Runs `script` (a documented command) in `sh` in `dir`, with `opspec` on the PATH as the
/// built binary and `cargo run --release --` meaning it too, `extra` appended.
fn shell(script: &str, extra: &[&str], env: &[(&str, String)], dir: &Path) -> Child {
    let bin = Path::new(binary()).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let line = format!("{} {}", script.replace("cargo run --release --", "opspec"), extra.join(" "));
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &line]).current_dir(dir).env("PATH", path).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    cmd.spawn().unwrap()
}

fn commands<'v>(list: &'v Value, has: &str) -> Vec<&'v str> {
    list.as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s.as_str().or(s["run"].as_str()))
        .filter(|c| c.contains(has))
        .collect()
}

/// The merged run of a documented example must be the unsharded run of its selection.
/// The part of the f16 maximum sweep against numr that the sweep test runs: its first four
/// chunks (2^27 pairs), in each of which numr's NaN deviation fails (listed in
/// `expectations/numr.yaml`, so the sweep is a known deviation).
const SWEEP: [&str; 7] =
    ["--exhaustive", "--chunks", "0..4", "--adapter", "numr", "--filter", "array-api:numr:maximum:f16:*"];

/// What a sweep's result says: every field the chunks are joined into.
fn sweep_summary(run: &Run) -> Value {
    let r = &checks_of(run)[0].clone();
    let listed: Vec<&Vec<String>> = r.failures.iter().map(|f| &f.inputs).collect();
    serde_json::json!({
        "status": r.status.name(), "inputs": r.inputs, "planned": r.planned_inputs,
        "failed": r.failed_inputs, "by_row": r.failed_by_row, "listed": listed,
        "chunks": r.chunks, "message": r.message,
    })
}

#[test]
fn a_sweeps_chunks_are_shard_units_and_merge_into_the_unsharded_sweep() {
    let dir = scratch("sweep");
    let mut children = vec![start(&[&["run"], &SWEEP[..], &["--out", "full"]].concat(), &dir)];
    for i in 1..=4 {
        let (shard, out) = (format!("{i}/4"), format!("shard-{i}"));
        children.push(start(&[&["run", "--shard", &shard], &SWEEP[..], &["--out", &out]].concat(), &dir));
    }
    let ran = all(children);
    assert_eq!(ran[0].code, 0, "numr's maximum fails on NaNs, a known deviation: {}", ran[0].text);
    let full = read(&dir.join("full/results.jsonl"));
    let id = "array-api:numr:maximum:f16:exhaustive";
    assert_eq!((checks_of(&full).len(), checks_of(&full)[0].id.to_string()), (1, id.to_string()));
    let r = &checks_of(&full)[0].clone();
    assert_eq!((r.inputs, r.chunks.len()), (1 << 27, 4), "{}", r.message);
    assert!(r.failed_inputs > 0 && r.failed_by_row.contains_key("nan-either"), "{:?}", r.failed_by_row);
    assert_eq!(r.status.name(), "known_deviation");
    assert!(r.message.starts_with("134,217,728 of 4,294,967,296 pairs checked"), "{}", r.message);

    // Each chunk is one unit, in exactly one shard.
    let units: Vec<String> = (0..4).map(|k| format!("{id}#{k}")).collect();
    let shards: Vec<PathBuf> = (1..=4).map(|i| dir.join(format!("shard-{i}/results.jsonl"))).collect();
    let mut chunks_seen = Vec::new();
    let mut with_chunks = Vec::new();
    for (i, path) in shards.iter().enumerate() {
        assert!([0, 1].contains(&ran[i + 1].code), "shard {}: {}", i + 1, ran[i + 1].text);
        let s = read(path);
        assert_eq!(s.info.shard.as_ref().unwrap().units, units);
        assert_eq!(s.info.plan_hash, full.info.plan_hash);
        if let Some(r) = checks_of(&s).first() {
            chunks_seen.extend(r.chunks.iter().map(|c| c.chunk));
            assert_eq!(r.inputs as u64, r.chunks.iter().map(|c| c.cases).sum::<u64>());
            with_chunks.push(i);
        }
    }
    chunks_seen.sort_unstable();
    assert_eq!(chunks_seen, [0, 1, 2, 3], "every chunk in exactly one shard");
    assert!(with_chunks.len() >= 2, "the test needs the chunks spread over two shards or more");

    let merged = merge(&shards.iter().collect::<Vec<_>>(), &dir.join("merged"));
    assert_eq!(merged.code, 0, "{}", merged.text);
    let joined = read(&dir.join("merged/results.jsonl"));
    assert!(joined.complete);
    assert_eq!(sweep_summary(&joined), sweep_summary(&full));

    // A shard left out: its chunks are named, and the merge is incomplete.
    let lost = with_chunks[0];
    let kept: Vec<&PathBuf> = shards.iter().enumerate().filter(|(i, _)| *i != lost).map(|(_, p)| p).collect();
    let partial = merge(&kept, &dir.join("partial"));
    assert_eq!(partial.code, 4, "{}", partial.text);
    let absent = &checks_of(&read(&shards[lost]))[0].chunks.clone();
    let named: Vec<String> = absent
        .iter()
        .map(|c| format!("chunk {} (shard {}/4, whose results were not given)", c.chunk, lost + 1))
        .collect();
    let line = format!(
        "missing {id}: planned, but no shard ran {} of its 4 chunks: {}",
        absent.len(),
        named.join(", ")
    );
    assert!(partial.text.contains(&line), "{line}\n{}", partial.text);
    assert!(!read(&dir.join("partial/results.jsonl")).complete);
}

fn check_merged(path: &Path, unsharded: &Run) {
    let run = read(path);
    assert!(run.complete, "{}", path.display());
    assert_eq!(verdicts(&run), verdicts(unsharded), "{}", path.display());
}

#[test]
fn the_documented_scheduler_commands_work_as_written() {
    let dir = scratch("docs");
    let alone = opspec(&[&["run"], &DOC_SELECTION[..], &["--out", "unsharded"]].concat(), &dir);
    assert_eq!(alone.code, 0, "{}", alone.text);
    let unsharded = read(&dir.join("unsharded/results.jsonl"));
    let yaml = doc_yaml();
    let github = yaml.iter().find(|y| y["jobs"].is_object()).expect("the GitHub Actions workflow");
    let gitlab = yaml.iter().find(|y| y["stages"].is_array()).expect("the GitLab pipeline");

    // GitHub Actions: each matrix job in its own folder, its artifact downloaded into the
    // merge job's folder under the artifact's name.
    let job = &github["jobs"]["shard"];
    let matrix = job["strategy"]["matrix"]["shard"].as_array().unwrap().clone();
    let n = matrix.len();
    let [run] = commands(&job["steps"], "--shard")[..] else { panic!("one shard command") };
    let upload = job["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("actions/upload-artifact")))
        .unwrap();
    let gh = |text: &str, i: &Value| {
        text.replace("${{ matrix.shard }}", &i.to_string())
            .replace("${{ strategy.job-total }}", &n.to_string())
    };
    let children = matrix
        .iter()
        .map(|i| {
            let job_dir = dir.join(format!("github/job-{i}"));
            std::fs::create_dir_all(&job_dir).unwrap();
            shell(&gh(run, i), &DOC_SELECTION, &[], &job_dir)
        })
        .collect();
    for ran in all(children) {
        assert_eq!(ran.code, 0, "{}", ran.text);
    }
    let merge_dir = dir.join("github/merge");
    for i in &matrix {
        let name = gh(upload["with"]["name"].as_str().unwrap(), i);
        let file = dir.join(format!("github/job-{i}")).join(gh(upload["with"]["path"].as_str().unwrap(), i));
        std::fs::create_dir_all(merge_dir.join(&name)).unwrap();
        std::fs::copy(file, merge_dir.join(&name).join("results.jsonl")).unwrap();
    }
    let [merge] = commands(&github["jobs"]["merge"]["steps"], " merge ")[..] else {
        panic!("one merge command")
    };
    let summary = ("GITHUB_STEP_SUMMARY", dir.join("summary.md").display().to_string());
    let merged: Ran = shell(merge, &[], &[summary], &merge_dir).wait_with_output().unwrap().into();
    assert_eq!(merged.code, 0, "{}", merged.text);
    check_merged(&merge_dir.join("reports/results.jsonl"), &unsharded);
    assert!(dir.join("summary.md").exists());

    // GitLab: `parallel: N` jobs, whose artifacts land in the merge job's folder by path.
    let job = &gitlab["opspec-shard"];
    let n = job["parallel"].as_u64().unwrap();
    let [run] = commands(&job["script"], "--shard")[..] else { panic!("one shard command") };
    let lab = dir.join("gitlab");
    std::fs::create_dir_all(&lab).unwrap();
    let children = (1..=n)
        .map(|i| {
            shell(
                run,
                &DOC_SELECTION,
                &[("CI_NODE_INDEX", i.to_string()), ("CI_NODE_TOTAL", n.to_string())],
                &lab,
            )
        })
        .collect();
    for ran in all(children) {
        assert_eq!(ran.code, 0, "{}", ran.text);
    }
    for i in 1..=n {
        assert!(
            lab.join(format!("shard-{i}/results.jsonl")).exists()
                && lab.join(format!("shard-{i}/junit.xml")).exists()
        );
    }
    let [merge] = commands(&gitlab["opspec-merge"]["script"], " merge ")[..] else {
        panic!("one merge command")
    };
    let merged: Ran = shell(merge, &[], &[], &lab).wait_with_output().unwrap().into();
    assert_eq!(merged.code, 0, "{}", merged.text);
    check_merged(&lab.join("reports/results.jsonl"), &unsharded);

    // Kubernetes: pods with JOB_COMPLETION_INDEX from 0, on a shared volume (a folder here).
    let shards = manifest("shards.yaml");
    let n = shards["spec"]["completions"].as_u64().unwrap();
    let pod = &shards["spec"]["template"]["spec"]["containers"][0];
    let env: Vec<(String, String)> = pod["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["value"].as_str().unwrap().to_string()))
        .collect();
    assert!(env.contains(&("SHARDS".into(), n.to_string())), "SHARDS must equal completions ({n}): {env:?}");
    let volume = dir.join("kubernetes");
    std::fs::create_dir_all(&volume).unwrap();
    // The volume's mount point, where a path starts (not `/results.jsonl`).
    let v = volume.display();
    let at =
        |text: &str| text.replace(" /results/", &format!(" {v}/")).replace("\"/results/", &format!("\"{v}/"));
    let [run] = commands(&pod["args"], "--shard")[..] else { panic!("one shard command") };
    let children = (0..n)
        .map(|k| {
            let mut vars: Vec<(&str, String)> = env.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            vars.push(("JOB_COMPLETION_INDEX", k.to_string()));
            shell(&at(run), &DOC_SELECTION, &vars, &volume)
        })
        .collect();
    for ran in all(children) {
        assert_eq!(ran.code, 0, "{}", ran.text);
    }
    let merge_pod = &manifest("merge.yaml")["spec"]["template"]["spec"]["containers"][0];
    let [merge] = commands(&merge_pod["args"], " merge ")[..] else { panic!("one merge command") };
    let merged: Ran = shell(&at(merge), &[], &[], &volume).wait_with_output().unwrap().into();
    assert_eq!(merged.code, 0, "{}", merged.text);
    check_merged(&volume.join("merged/results.jsonl"), &unsharded);
}
