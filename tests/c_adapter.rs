//! The C ABI end to end: the example adapter (adapters/ffi/example/c_example.c), built here
//! with the system C compiler, run out of process against the array API suite; a build of it
//! that segfaults on one operation; and libraries that are not adapters.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opspec-c-adapter-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds `source` as a shared library with `flags`.
fn build(source: &Path, library: &Path, flags: &[&str]) {
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters/ffi/include");
    let status = Command::new("cc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-fPIC", "-shared", "-I"])
        .arg(include)
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(library)
        .arg("-lm")
        .status()
        .expect("the system C compiler `cc` runs");
    assert!(status.success(), "cc failed on {}", source.display());
}

fn example(dir: &Path, library: &str, flags: &[&str]) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters/ffi/example/c_example.c");
    let lib = dir.join(library);
    build(&source, &lib, flags);
    lib
}

fn opspec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_opspec")).args(args).output().unwrap()
}

/// `opspec run` of the checks `filter` selects on adapter `spec`, without table self-checks,
/// writing to `out`.
fn run_filtered(spec: &str, filter: &str, out: &Path) -> Output {
    let out = out.to_str().unwrap();
    opspec(&["run", "--no-tables", "--adapter", spec, "--filter", filter, "--out", out])
}

/// The check records of `out/results.jsonl`.
fn checks(out: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let records = text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
    records.filter(|r| r["record"] == "check").collect()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn the_c_example_passes_the_array_api_suite_but_for_its_listed_deviations() {
    let dir = scratch("clean");
    let lib = example(&dir, "libc_example.so", &[]);
    let spec = format!("lib:{}", lib.display());
    let out = dir.join("report");
    let run = opspec(&[
        "run",
        "--suite",
        "array-api",
        "--no-tables",
        "--adapter",
        &spec,
        "--out",
        out.to_str().unwrap(),
    ]);
    let all = text(&run);
    assert_eq!(run.status.code(), Some(0), "{all}");
    assert!(all.contains("expectations/c-example.yaml"), "{all}");
    let records = checks(&out);
    let status = |id: &str| records.iter().find(|c| c["id"] == id).map(|c| c["status"].clone());
    for listed in ["array-api:c-example:maximum:f32:nan-either", "array-api:c-example:add:f32+f64:f32-f64"] {
        assert_eq!(status(listed), Some("known_deviation".into()), "{listed}: {all}");
    }
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(results.contains("c-example 1.0"), "the library's own name and version are recorded");
    assert_eq!(status("array-api:c-example:atan2:f64:edges"), Some("pass".into()));
}

#[test]
fn a_build_that_segfaults_on_multiply_fails_those_checks_and_the_run_finishes() {
    let dir = scratch("crash");
    let lib = example(&dir, "libc_crash.so", &["-DOPSPEC_EXAMPLE_CRASH_ON=\"multiply\""]);
    let spec = format!("crashy=lib:{}", lib.display());
    let out = dir.join("report");
    let filter = "array-api:crashy:{add,multiply}:f32:*";
    let run = run_filtered(&spec, filter, &out);
    let all = text(&run);
    assert_eq!(run.status.code(), Some(1), "{all}");
    let checks = checks(&out);
    let (multiply, add): (Vec<_>, Vec<_>) =
        checks.iter().partition(|c| c["id"].as_str().unwrap().contains(":multiply:"));
    assert!(!add.is_empty() && add.iter().all(|c| c["status"] == "pass"), "add still passes: {all}");
    assert!(multiply.len() > 3 && multiply.iter().all(|c| c["status"] == "fail"), "{all}");
    // Every multiply check names the signal; three calls crashed (one more per other thread
    // whose call was already under way), the rest fail unrun.
    assert!(multiply.iter().all(|c| c.to_string().contains("signal: 11 (SIGSEGV)")), "{all}");
    let message = |c: &&serde_json::Value| c["message"].as_str().unwrap().to_string();
    let crashed =
        multiply.iter().map(message).filter(|m| m.contains("SIGSEGV") && !m.contains("not run")).count();
    assert!(crashed >= 3 && crashed < multiply.len(), "{crashed} crashed: {all}");
    // Three strikes stop the calls; calls already under way on other threads may add to them.
    let strikes = all
        .split("not run: the worker failed the last ")
        .skip(1)
        .map(|rest| rest.split(' ').next().unwrap().parse::<usize>().unwrap())
        .collect::<Vec<_>>();
    assert!(!strikes.is_empty() && strikes.iter().all(|&n| n >= 3), "{strikes:?}: {all}");
    assert!(all.contains(" calls of multiply f32 in a row"), "{all}");
}

/// A C adapter of int8 `floor_divide` alone (one-dimensional operands) that, given a zero
/// divisor, raises SIGFPE, as an x86 integer division by zero does.
const SIGFPE_ON_ZERO: &str = r#"#include <signal.h>
#include <string.h>
#include "opspec.h"
static int32_t supports(void* ctx, const char* op, uint32_t form, opspec_dtype d, opspec_error* why) {
    (void)ctx; (void)why;
    int ok = strcmp(op, "floor_divide") == 0 && form == OPSPEC_FORM_TENSORS && d.code == OPSPEC_INT && d.bits == 8;
    return ok ? OPSPEC_OK : OPSPEC_UNSUPPORTED;
}
static int32_t call(void* ctx, const char* op, size_t nargs, const opspec_arg* args, opspec_tensor* out,
                    opspec_output* result, opspec_error* err) {
    (void)ctx; (void)op; (void)out; (void)err;
    const opspec_tensor *a = args[0].tensor, *b = args[1].tensor;
    if (nargs != 2 || a->ndim != 1 || b->ndim != 1 || a->shape[0] != b->shape[0]) return OPSPEC_UNSUPPORTED;
    opspec_tensor* r = result->alloc(result, a->dtype, 1, a->shape);
    if (r == NULL) return OPSPEC_OTHER;
    const int8_t *x = (const int8_t*)((const char*)a->data + a->byte_offset);
    const int8_t *y = (const int8_t*)((const char*)b->data + b->byte_offset);
    for (int64_t i = 0; i < a->shape[0]; i++) {
        int p = x[i * a->strides[0]], q = y[i * b->strides[0]];
        if (q == 0) raise(SIGFPE);
        int f = p / q - (p % q != 0 && (p < 0) != (q < 0));
        ((int8_t*)r->data)[i] = (int8_t)f;
    }
    return OPSPEC_OK;
}
static const opspec_adapter A = {sizeof(opspec_adapter), OPSPEC_ABI_MAJOR, OPSPEC_ABI_MINOR, "fpe", "1.0",
                                 NULL, supports, call, NULL, NULL};
OPSPEC_EXPORT const opspec_adapter* opspec_adapter_open(uint32_t major, uint32_t minor, const char* config,
                                                        opspec_error* err) {
    (void)major; (void)minor; (void)config; (void)err;
    return &A;
}
"#;

/// The array API lets an integer division by zero be any value or an error the library
/// returns; a library that kills its process gives neither, and fails a must.
#[test]
fn a_library_that_dies_of_sigfpe_on_division_by_zero_fails_those_checks() {
    let dir = scratch("sigfpe");
    let source = dir.join("fpe.c");
    std::fs::write(&source, SIGFPE_ON_ZERO).unwrap();
    let lib = dir.join("libfpe.so");
    build(&source, &lib, &[]);
    let spec = format!("fpe=lib:{}", lib.display());
    let out = dir.join("report");
    let filter = "array-api:fpe:floor_divide:i8:{edges,random,by-zero}";
    let run = run_filtered(&spec, filter, &out);
    let all = text(&run);
    assert_eq!(run.status.code(), Some(1), "{all}");
    let checks = checks(&out);
    let check = |case: &str| {
        let id = format!("array-api:fpe:floor_divide:i8:{case}");
        checks.iter().find(|c| c["id"] == id.as_str()).cloned().unwrap_or_else(|| panic!("no {id}: {all}"))
    };
    let by_zero = check("by-zero");
    assert_eq!((&by_zero["status"], &by_zero["tier"]), (&"fail".into(), &"must".into()), "{by_zero}");
    let message = by_zero["message"].as_str().unwrap();
    assert!(message.contains("no result: crashed") && message.contains("signal: 8 (SIGFPE)"), "{message}");
    for case in ["edges", "random"] {
        assert_eq!(check(case)["status"], "pass", "the other calls still run: {all}");
    }
}

#[test]
fn libraries_that_are_not_adapters_make_their_checks_unavailable() {
    let dir = scratch("not-adapters");
    let no_entry = dir.join("no_entry.c");
    std::fs::write(&no_entry, "int not_an_adapter(void) { return 0; }\n").unwrap();
    let newer = dir.join("newer.c");
    std::fs::write(
        &newer,
        "#include \"opspec.h\"\n\
         static const opspec_adapter A = {sizeof(opspec_adapter), 2, 0, \"future\", \"2.0\", 0, 0, 0, 0, 0};\n\
         const opspec_adapter* opspec_adapter_open(uint32_t a, uint32_t b, const char* c, opspec_error* e) {\n\
         (void)a; (void)b; (void)c; (void)e; return &A; }\n",
    )
    .unwrap();
    let cases = [
        ("no-entry", &no_entry, "does not export `opspec_adapter_open`"),
        ("newer", &newer, "is built for C ABI 2.0, this opspec speaks 1.0"),
    ];
    for (name, source, reason) in cases {
        let lib = dir.join(format!("lib{name}.so"));
        build(source, &lib, &[]);
        let spec = format!("{name}=lib:{}", lib.display());
        let out = dir.join(name);
        let id = format!("array-api:{name}:add:f32:edges");
        let run = opspec(&["run", "--exact", &id, "--adapter", &spec, "--out", out.to_str().unwrap()]);
        let all = text(&run);
        assert_eq!(run.status.code(), Some(1), "{all}");
        assert!(all.contains(&format!("adapter `{name}`")) && all.contains(reason), "{all}");
        let check = &checks(&out)[0];
        assert_eq!(check["status"], "unavailable", "{check}");
        assert!(check["message"].as_str().unwrap().contains(reason), "{check}");
    }
    let out = dir.join("gone");
    let args =
        ["run", "--exact", "array-api:gone:add:f32:edges", "--adapter", "gone=lib:/nonexistent/libgone.so"];
    let missing = opspec(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
    assert!(text(&missing).contains("cannot load /nonexistent/libgone.so"), "{}", text(&missing));
}
