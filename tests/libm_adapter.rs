//! The platform's libm as a C ABI adapter (adapters/ffi/libm/opspec_libm.c), built here with
//! the system C compiler: its results are the C library's own, bit for bit; what libm lacks
//! (an operation, a dtype) is skipped with the adapter's reason; the checks it takes run to a
//! verdict. Whether the C library meets opspec's bounds is its own business, asserted only
//! where the C standard promises the result.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::ffi::{CStr, c_char};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

// The C library's functions, called here as the adapter calls them.
unsafe extern "C" {
    fn expf(x: f32) -> f32;
    fn logf(x: f32) -> f32;
    fn log1p(x: f64) -> f64;
    fn sin(x: f64) -> f64;
    fn atan2f(y: f32, x: f32) -> f32;
    fn pow(x: f64, y: f64) -> f64;
    fn gnu_get_libc_version() -> *const c_char;
}

/// The adapter, built once per test process into a scratch folder.
fn library() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("opspec-libm-adapter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let lib = dir.join("libopspec_libm.so");
        let status = Command::new("cc")
            .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-fPIC", "-shared", "-I"])
            .arg(root.join("adapters/ffi/include"))
            .arg(root.join("adapters/ffi/libm/opspec_libm.c"))
            .arg("-o")
            .arg(&lib)
            .arg("-lm")
            .status()
            .expect("the system C compiler `cc` runs");
        assert!(status.success(), "cc failed on opspec_libm.c");
        lib
    })
}

fn spec() -> String {
    format!("libm=lib:{}", library().display())
}

fn opspec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_opspec")).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The bits `opspec eval` reports the adapter returned for one input of check `id`.
fn evaluated(id: &str, operands: &[String]) -> u64 {
    let spec = spec();
    let args =
        [&["eval", id][..], &operands.iter().map(String::as_str).collect::<Vec<_>>(), &["--adapter", &spec]];
    let out = opspec(&args.concat());
    let all = text(&out);
    let actual = all.lines().find(|l| l.starts_with("actual:")).unwrap_or_else(|| panic!("{id}: {all}"));
    let hex = actual.trim_end_matches(')').rsplit(", 0x").next().unwrap();
    u64::from_str_radix(hex, 16).unwrap_or_else(|_| panic!("{actual}"))
}

#[test]
fn eval_returns_the_c_library_s_bits() {
    let f32s: [f32; 6] = [1.0, 0.1, 88.5, -103.0, std::f32::consts::PI, 1e-40];
    let f64s: [f64; 5] = [1.0, 1e22, -0.75, 3.0e-300, 0.5];
    let hex32 = |x: f32| format!("{:#010x}", x.to_bits());
    let hex64 = |x: f64| format!("{:#018x}", x.to_bits());
    let mut compared = 0;
    for &x in &f32s {
        // SAFETY: the C library's pure functions of a float.
        let (e, l) = unsafe { (expf(black_box(x)), logf(black_box(x))) };
        assert_eq!(evaluated("array-api:libm:exp:f32:random", &[hex32(x)]), e.to_bits() as u64, "expf({x})");
        assert_eq!(evaluated("array-api:libm:log:f32:random", &[hex32(x)]), l.to_bits() as u64, "logf({x})");
        let y = 0.5 - x;
        // SAFETY: as above.
        let a = unsafe { atan2f(black_box(x), black_box(y)) };
        let got = evaluated("array-api:libm:atan2:f32:random", &[hex32(x), hex32(y)]);
        assert_eq!(got, a.to_bits() as u64, "atan2f({x}, {y})");
        compared += 3;
    }
    for &x in &f64s {
        // SAFETY: as above.
        let (s, p, q) =
            unsafe { (sin(black_box(x)), log1p(black_box(x)), pow(black_box(x), black_box(-2.5))) };
        assert_eq!(evaluated("array-api:libm:sin:f64:random", &[hex64(x)]), s.to_bits(), "sin({x})");
        assert_eq!(evaluated("array-api:libm:log1p:f64:random", &[hex64(x)]), p.to_bits(), "log1p({x})");
        let got = evaluated("array-api:libm:pow:f64:random", &[hex64(x), hex64(-2.5)]);
        assert_eq!(got, q.to_bits(), "pow({x}, -2.5)");
        compared += 3;
    }
    assert_eq!(compared, 33);
}

/// The check records of a run of `filter`, and the run's output.
fn run(filter: &str, name: &str) -> (Vec<serde_json::Value>, String) {
    let out = std::env::temp_dir().join(format!("opspec-libm-adapter-{}-{name}", std::process::id()));
    let spec = spec();
    let args = ["run", "--no-tables", "--adapter", &spec, "--filter", filter, "--out", out.to_str().unwrap()];
    let run = opspec(&args);
    let all = text(&run);
    // 0: all passed; 1: some check failed. Anything else (2, 3, a signal) is the harness or
    // the adapter gone wrong.
    assert!(matches!(run.status.code(), Some(0 | 1)), "{all}");
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    // SAFETY: glibc's version, a static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(gnu_get_libc_version()) }.to_str().unwrap();
    assert!(results.contains(&format!("libm {version}")), "the C library's version is recorded: {all}");
    let records = results.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    (records.filter(|r| r["record"] == "check").collect(), all)
}

#[test]
fn what_libm_lacks_is_skipped_and_what_it_has_runs_to_a_verdict() {
    let filter = "array-api:libm:{exp,sin,atan2,round,maximum}:{f16,f32,f64}:*";
    let (records, all) = run(filter, "verdicts");
    let field = |c: &serde_json::Value, f: &str| c[f].as_str().unwrap_or_default().to_string();
    let mut ran = 0;
    for c in &records {
        let (id, status, message) = (field(c, "id"), field(c, "status"), field(c, "message"));
        let (op, dtype) = (field(c, "op"), field(c, "dtype"));
        if op == "maximum" {
            // fmax drops a NaN operand, which the array API's maximum does not: not mapped.
            assert_eq!(status, "skip", "{id}: {c}");
            assert!(message.contains("libm has no function for this operation"), "{id}: {c}");
        } else if dtype == "f16" {
            assert_eq!(status, "skip", "{id}: {c}");
            assert!(message.contains("libm has f32 and f64 functions only"), "{id}: {c}");
        } else {
            // Run, and judged: a pass, or a failure that names the C library's results, never
            // an error of the adapter or of its worker.
            assert!(status == "pass" || status == "fail", "{id}: {c}");
            assert!(c["inputs"].as_u64().unwrap() > 0, "{id}: {c}");
            if status == "fail" {
                assert!(!message.is_empty() && !c["failures"].as_array().unwrap().is_empty(), "{id}: {c}");
            }
            assert!(
                !message.contains("adapter returned an error") && !message.contains("signal"),
                "{id}: {c}"
            );
            ran += 1;
        }
    }
    assert!(ran > 40, "{ran} checks ran: {all}");
    let status = |id: &str| records.iter().find(|c| c["id"] == id).map(|c| field(c, "status"));
    // C99 Annex F (F.9.3.1, F.9.1.4, F.9.6.6), which glibc implements, fixes these results;
    // the strided and broadcast operands of atan2's layouts must reach libm element for
    // element; nearbyint rounds halves to even under the default rounding mode.
    for id in [
        "array-api:libm:exp:f32:pinf",
        "array-api:libm:exp:f64:ninf",
        "array-api:libm:atan2:f64:pzero-negative",
        "array-api:libm:atan2:f32:layouts",
        "array-api:libm:atan2:f64:broadcast-strided",
        "array-api:libm:round:f32:half-to-even",
        "array-api:libm:round:f64:random",
    ] {
        assert_eq!(status(id).as_deref(), Some("pass"), "{id}: {all}");
    }
}
