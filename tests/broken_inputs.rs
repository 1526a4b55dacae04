//! A corpus of broken inputs: each case is a copy of the shipped catalog with one thing wrong,
//! loaded in-process. Every one must be refused with an error that names the right file, its
//! line and column, and says what is wrong; none may panic or take more than a few seconds.
//! The command-line cases run the `opspec` binary. A property test mutates valid tables at
//! random and demands an error or a valid load, never a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use opspec::run::validate_expectations;
use opspec::spec::{Catalog, LoadError};
use proptest::prelude::*;

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// A copy of the shipped catalog (`specs/`, `suites/`, `expectations/`) in a fresh temporary
/// folder, removed when dropped.
struct Root(PathBuf);

impl Root {
    fn new(label: &str) -> Root {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("opspec-broken-{}-{n}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for folder in ["specs", "suites", "expectations"] {
            copy_dir(&Path::new(REPO).join(folder), &dir.join(folder));
        }
        Root(dir)
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }

    fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative)).unwrap()
    }

    fn write(&self, relative: &str, text: &str) {
        std::fs::create_dir_all(self.path(relative).parent().unwrap()).unwrap();
        std::fs::write(self.path(relative), text).unwrap();
    }

    /// Replaces the first occurrence of `from` in `relative`, which must hold it.
    fn edit(&self, relative: &str, from: &str, to: &str) {
        let text = self.read(relative);
        assert!(text.contains(from), "{relative} no longer contains {from:?}");
        self.write(relative, &text.replacen(from, to, 1));
    }

    /// Loads the catalog and checks its expectations, as every command does.
    fn load(&self) -> Result<Catalog, LoadError> {
        Catalog::load(&self.0).and_then(|c| validate_expectations(&c).map(|()| c))
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> u64 {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in the edited text"));
    text[..at].matches('\n').count() as u64 + 1
}

/// Loads `root`, which must fail without a panic; the error, or what went wrong instead. (No
/// time limit: a test must not fail because the machine is busy; a hang meets the test
/// runner's own.)
fn try_refused(root: &Root) -> Result<LoadError, String> {
    let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| root.load()));
    match loaded {
        Ok(Ok(_)) => Err("the broken catalog loaded".into()),
        Ok(Err(e)) => Ok(e),
        Err(_) => Err("loading panicked".into()),
    }
}

/// As [`try_refused`], panicking naming `name` where it was not refused.
fn refused(name: &str, root: &Root) -> LoadError {
    try_refused(root).unwrap_or_else(|why| panic!("{name}: {why}"))
}

/// Checks that `err` names `file`, the line `line` with a column, and says each of `says`;
/// returns what is wrong with it, if anything.
fn misplaced(err: &LoadError, file: &str, line: u64, says: &[&str]) -> Option<String> {
    let text = err.to_string();
    let mut wrong = Vec::new();
    if !err.file.ends_with(file) {
        wrong.push(format!("blames {} instead of {file}", err.file.display()));
    }
    if err.line != Some(line) || err.column.is_none() {
        wrong.push(format!("is at {:?}:{:?} instead of line {line}", err.line, err.column));
    }
    if !text.contains(&format!("{file}:{line}:")) {
        wrong.push("does not print file:line:column".into());
    }
    for s in says {
        if !text.contains(s) {
            wrong.push(format!("does not say {s:?}"));
        }
    }
    (!wrong.is_empty()).then(|| format!("{} ({text})", wrong.join("; ")))
}

/// One broken input: `edits` (`from` -> `to`, applied in turn) to `file`; the error must be
/// in `file` at the line of the first `at` in the edited text ("" for line 1) and say `says`.
struct Broken {
    name: &'static str,
    file: &'static str,
    edits: &'static [(&'static str, &'static str)],
    at: &'static str,
    says: &'static [&'static str],
}

const fn case(
    name: &'static str,
    file: &'static str,
    edits: &'static [(&'static str, &'static str)],
    at: &'static str,
    says: &'static [&'static str],
) -> Broken {
    Broken { name, file, edits, at, says }
}

const NUMR: &str = "suites/numr.yaml";
const MEGENGINE: &str = "suites/megengine.yaml";
const NAMED_AXES: &str = "suites/named-axes.yaml";
const MINDSPORE: &str = "suites/mindspore.yaml";
const ADD: &str = "specs/elementwise/add.yaml";
const POW: &str = "specs/elementwise/pow.yaml";
const EQUAL: &str = "specs/elementwise/equal.yaml";
const HYPOT: &str = "specs/elementwise/hypot.yaml";
const SUBTRACT: &str = "specs/elementwise/subtract.yaml";
const FMA: &str = "specs/fused/fused_mul_add.yaml";
const ADD_INTO: &str = "specs/fused/add_into.yaml";
const NUMPY: &str = "specs/broadcasting/numpy.yaml";
const NAMED: &str = "specs/broadcasting/named.yaml";
const PROMOTION: &str = "specs/promotion/array_api.yaml";
const SCATTER: &str = "specs/scatter/tensor_scatter_add.yaml";
const EXPECT: &str = "expectations/numr.yaml";
const FIRST_ID: &str = "  - id: \"array-api:numr:{max";

/// The corpus, by file. Counts and bounds, references, uniqueness, precedence, shapes and
/// sizes, syntax, patterns.
#[rustfmt::skip]
const CORPUS: &[Broken] = &[
    // Suites: counts.
    case("cases-per-row-zero", NUMR, &[("cases_per_row: 256", "cases_per_row: 0")], "cases_per_row: 0", &["`cases_per_row`", "give 1 to 1048576"]),
    case("cases-per-row-huge", NUMR, &[("cases_per_row: 256", "cases_per_row: 1000000000000")], "cases_per_row:", &["`cases_per_row`", "1000000000000 is out of range"]),
    case("cases-per-row-past-limit", NUMR, &[("cases_per_row: 256", "cases_per_row: 1048577")], "cases_per_row:", &["give 1 to 1048576"]),
    case("cases-per-row-negative", NUMR, &[("cases_per_row: 256", "cases_per_row: -1")], "cases_per_row:", &["cases_per_row", "invalid"]),
    case("cases-per-row-text", NUMR, &[("cases_per_row: 256", "cases_per_row: many")], "cases_per_row:", &["cases_per_row", "invalid"]),
    case("random-cases-zero", NUMR, &[("random_cases: 8192", "random_cases: 0")], "random_cases:", &["`random_cases`", "give 1 to 1048576"]),
    case("random-cases-huge", NUMR, &[("random_cases: 8192", "random_cases: 1000000000000")], "random_cases:", &["`random_cases`", "out of range"]),
    case("random-cases-float", NUMR, &[("random_cases: 8192", "random_cases: 1.5")], "random_cases:", &["random_cases", "invalid"]),
    case("broadcast-shapes-zero", NAMED_AXES, &[("broadcast_shapes: 12", "broadcast_shapes: 0")], "broadcast_shapes:", &["`broadcast_shapes`", "give 1 to 4096"]),
    case("broadcast-shapes-huge", NAMED_AXES, &[("broadcast_shapes: 12", "broadcast_shapes: 1000000000")], "broadcast_shapes:", &["out of range"]),
    case("seed-negative", NUMR, &[("seed: 20261206", "seed: -5")], "seed:", &["seed", "invalid"]),
    // Suites: step bounds.
    case("step-bound-past-f16-limit", NUMR, &[("pow: {f16: 1,", "pow: {f16: 65,")], "pow: {f16: 65", &["`step_bounds.pow.f16`", "at most 64 in f16"]),
    case("step-bound-past-bf16-limit", NUMR, &[("bf16: 1, f32: 2, f64: 2}\n  atan2", "bf16: 9, f32: 2, f64: 2}\n  atan2")], "bf16: 9", &["`step_bounds.pow.bf16`", "at most 8 in bf16"]),
    case("step-bound-past-f64-limit", NUMR, &[("f64: 2}\n  atan2", "f64: 4000000000}\n  atan2")], "f64: 4000000000", &["`step_bounds.pow.f64`", "at most 1024"]),
    case("step-bound-huge-float", NUMR, &[("pow: {f16: 1,", "pow: {f16: 1e300,")], "pow: {f16: 1e300", &["step_bounds", "invalid"]),
    case("step-bound-inf", NUMR, &[("pow: {f16: 1,", "pow: {f16: .inf,")], "pow: {f16: .inf", &["step_bounds", "invalid"]),
    case("step-bound-nan", NUMR, &[("pow: {f16: 1,", "pow: {f16: .nan,")], "pow: {f16: .nan", &["step_bounds", "invalid"]),
    case("step-bound-negative", NUMR, &[("pow: {f16: 1,", "pow: {f16: -1,")], "pow: {f16: -1", &["step_bounds", "invalid"]),
    case("step-bound-fraction", NUMR, &[("pow: {f16: 1,", "pow: {f16: 0.5,")], "pow: {f16: 0.5", &["step_bounds", "invalid"]),
    case("step-bound-not-approximate", NUMR, &[("step_bounds:\n", "step_bounds:\n  add: {f32: 1}\n")], "  add: {f32: 1}", &["`step_bounds.add`", "not approximate"]),
    case("step-bound-op-not-in-suite", NUMR, &[("step_bounds:\n", "step_bounds:\n  hypot: {f32: 1}\n")], "  hypot: {f32: 1}", &["`step_bounds.hypot`", "not among the suite's specs"]),
    case("step-bound-integer-dtype", NUMR, &[("pow: {f16: 1,", "pow: {i32: 1, f16: 1,")], "pow: {i32", &["step_bounds", "not a float dtype"]),
    case("step-bound-unknown-op", NUMR, &[("  pow: {f16", "  pwo: {f16")], "pwo:", &["step_bounds", "pwo"]),
    // Suites: names, references, uniqueness.
    case("suite-name-colon", NUMR, &[("name: numr", "name: \"nu:mr\"")], "name:", &["`name`", "`nu:mr` is not a suite name"]),
    case("suite-name-table", NUMR, &[("name: numr", "name: table")], "name:", &["`name`", "reserved"]),
    case("suite-name-uppercase", NUMR, &[("name: numr", "name: Numr")], "name:", &["`Numr` is not a suite name"]),
    case("suite-name-empty", NUMR, &[("name: numr", "name: \"\"")], "name:", &["is not a suite name"]),
    case("suite-name-twice", NUMR, &[("name: numr", "name: megengine")], "name:", &["suites/megengine.yaml is called `megengine` too"]),
    case("suite-spec-twice", NUMR, &[("  - elementwise/add\n", "  - elementwise/add\n  - elementwise/add\n")], "  - elementwise/add\n  - elementwise/subtract", &["`specs[1]`", "`elementwise/add` is listed twice"]),
    case("suite-spec-missing", NUMR, &[("  - elementwise/atan2\n", "  - elementwise/atan3\n")], "elementwise/atan3", &["`specs[7]`", "no table specs/elementwise/atan3.yaml"]),
    case("suite-specs-empty", MEGENGINE, &[("specs:\n  - elementwise/add\n  - elementwise/multiply\n  - promotion/megengine\n", "specs: []\n")], "specs:", &["`specs`", "at least one table"]),
    case("suite-dtype-twice", NUMR, &[("dtypes: [f16, bf16,", "dtypes: [f16, f16, bf16,")], "dtypes:", &["`dtypes[1]`", "`f16` is listed twice"]),
    case("suite-dtype-unknown", NUMR, &[("dtypes: [f16, bf16,", "dtypes: [f16, bf17,")], "dtypes:", &["`dtypes[1]`", "bf17"]),
    case("suite-dtypes-empty", MEGENGINE, &[("dtypes: [f16, f32, i8, i16, i32, u8]", "dtypes: []")], "dtypes:", &["`dtypes`", "at least one dtype"]),
    case("suite-integers-missing", MEGENGINE, &[("dtypes: [f16, f32, i8, i16, i32, u8]", "dtypes: [f16, f32, i8, i16, i32, u8]\nintegers_: {}")], "integers_", &["unknown field"]),
    case("suite-unknown-field", NUMR, &[("seed: 20261206", "sede: 20261206")], "sede:", &["unknown field `sede`"]),
    case("suite-nan-policy", NUMR, &[("nan: any", "nan: some")], "nan: some", &["nan", "some"]),
    case("suite-scatter-index-dtype-twice", MINDSPORE, &[("index_dtypes: [i32, i64]", "index_dtypes: [i32, i32]")], "index_dtypes:", &["`scatter.index_dtypes[1]`", "`i32` is listed twice"]),
    case("suite-scatter-index-dtype-unknown", MINDSPORE, &[("index_dtypes: [i32, i64]", "index_dtypes: [i32, q64]")], "index_dtypes:", &["`scatter.index_dtypes[1]`", "q64"]),
    case("suite-scatter-index-dtypes-empty", MINDSPORE, &[("index_dtypes: [i32, i64]", "index_dtypes: []")], "index_dtypes:", &["`scatter.index_dtypes`", "at least one index dtype"]),
    case("suite-scatter-mode", MINDSPORE, &[("mode: ignore", "mode: wrap")], "mode: wrap", &["mode", "wrap"]),
    // Element-wise tables: the operation and its operands.
    case("table-op-unknown", ADD, &[("op: add\n", "op: addd\n")], "op: addd", &["`op`", "unknown operation `addd`"]),
    case("table-op-twice", POW, &[("op: pow\n", "op: add\n")], "op: add", &["`op`", "`add` already has a table, specs/elementwise/add.yaml"]),
    case("table-operands-count", ADD, &[("operands: [x1, x2]", "operands: [x1]")], "operands:", &["`operands`", "takes 2 operands, not 1"]),
    case("table-operands-order", ADD, &[("operands: [x1, x2]", "operands: [x2, x1]")], "operands:", &["`operands[0]`", "in order"]),
    case("table-operand-unknown", ADD, &[("operands: [x1, x2]", "operands: [x1, x4]")], "operands:", &["operands", "x4"]),
    case("table-accuracy-unknown", ADD, &[("accuracy: correctly_rounded", "accuracy: roughly")], "accuracy:", &["accuracy", "roughly"]),
    case("table-dtype-twice", ADD, &[("dtypes: [f16, bf16,", "dtypes: [f16, bf16, bf16,")], "dtypes:", &["`dtypes[2]`", "`bf16` is listed twice"]),
    case("table-dtype-unknown", ADD, &[("dtypes: [f16, bf16,", "dtypes: [f16, b16,")], "dtypes:", &["`dtypes[1]`", "b16"]),
    // Sources and citations.
    case("table-source-twice", ADD, &[("  - id: megengine-add\n", "  - id: array-api\n")], "  - id: array-api\n    title: MegEngine", &["`sources[1].id`", "`array-api` is declared twice"]),
    case("table-row-source-unknown", ADD, &[("    source: array-api\n    bullet: 2", "    source: array-apy\n    bullet: 2")], "id: pinf-plus-ninf", &["row `pinf-plus-ninf`", "unknown source `array-apy`"]),
    case("table-also-source-unknown", ADD, &[("also: [{source: megengine-add, bullet: 2}]", "also: [{source: megengine, bullet: 2}]")], "also: [{source: megengine,", &["`rows[1].also[0].source`", "unknown source `megengine`"]),
    case("table-defined-as-source", SUBTRACT, &[("  source: array-api-subtract\n  text:", "  source: nowhere\n  text:")], "  source: nowhere", &["`defined_as.source`", "unknown source `nowhere`"]),
    case("table-not-covered-source", ADD, &[("  - source: array-api\n    what: complex", "  - source: nowhere\n    what: complex")], "  - source: nowhere", &["`not_covered[0].source`", "unknown source `nowhere`"]),
    case("table-citation-path", ADD, &[("      section: add, Special cases\n", "      section: ../notes/add.txt\n")], "section: ../notes", &["citation.section", "is a local path"]),
    case("table-citation-url", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: data-apis.org/add")], "url: data-apis.org/add", &["citation.url", "not a public URL"]),
    case("table-citation-url-ipv6-loopback", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://[::1]/add.html")], "url: http://[::1]/add.html", &["citation.url", "not a public URL", "::1 is a private, loopback"]),
    case("table-citation-url-localhost-dot", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://localhost./add.html")], "url: http://localhost./add.html", &["citation.url", "not a public URL", "`localhost.` is this machine"]),
    case("table-citation-url-integer-ipv4", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://2130706433/add.html")], "url: http://2130706433/add.html", &["citation.url", "not a public URL", "127.0.0.1 is a private, loopback"]),
    case("table-citation-url-hex-ipv4", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://0x7f.1/add.html")], "url: http://0x7f.1/add.html", &["citation.url", "not a public URL", "127.0.0.1"]),
    case("table-citation-url-private-ipv4", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://192.168.0.10/add.html")], "url: http://192.168.0.10/add.html", &["citation.url", "not a public URL", "192.168.0.10 is a private"]),
    case("table-citation-url-private-ipv4-10", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://10.1.2.3/add.html")], "url: http://10.1.2.3/add.html", &["citation.url", "not a public URL", "10.1.2.3 is a private"]),
    case("table-citation-url-private-ipv4-172", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://172.20.0.1/add.html")], "url: http://172.20.0.1/add.html", &["citation.url", "not a public URL", "172.20.0.1 is a private"]),
    case("table-citation-url-link-local", ADD, &[("      url: https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html", "      url: http://169.254.169.254/latest")], "url: http://169.254.169.254/latest", &["citation.url", "not a public URL", "169.254.169.254 is a private"]),
    case("table-citation-drive-relative", ADD, &[("      section: add, Special cases\n", "      section: C:notes\\add.txt\n")], "section: C:notes", &["citation.section", "is a local path", "a Windows path on a drive"]),
    case("table-citation-backslash-root", ADD, &[("      section: add, Special cases\n", "      section: \\notes\\add.txt\n")], "section: \\notes", &["citation.section", "is a local path", "a Windows path"]),
    case("table-citation-backslash-up", ADD, &[("      section: add, Special cases\n", "      section: ..\\notes\\add.txt\n")], "section: ..\\notes", &["citation.section", "is a local path", "a Windows path"]),
    case("table-quote-only-elided", ADD, &[("    text: If x1_i is +infinity and x2_i is -infinity, the result is NaN.\n", "    text: \"[...]\"\n")], "text: \"[...]\"", &["`rows[1].text`", "quotes no words of the document"]),
    case("table-quote-elisions-and-blanks", ADD, &[("    text: If x1_i is +infinity and x2_i is -infinity, the result is NaN.\n", "    text: \" [...] […] \"\n")], "text: \" [...]", &["`rows[1].text`", "quotes no words"]),
    case("table-citation-empty", ADD, &[("      version: \"2025.12\"", "      version: \" \"")], "version: \" \"", &["citation.version", "needs text"]),
    // Bullets.
    case("table-bullet-zero", ADD, &[("    bullet: 2\n", "    bullet: 0\n")], "bullet: 0", &["`rows[1].bullet`", "bullet 0 is not one of `array-api`'s bullets 1 to 17"]),
    case("table-bullet-past-last", ADD, &[("    bullet: 2\n", "    bullet: 18\n")], "bullet: 18", &["`rows[1].bullet`", "bullet 18 is not one of"]),
    case("table-bullet-far-out", POW, &[("    bullet: 2\n", "    bullet: 99\n")], "bullet: 99", &["`rows[1].bullet`", "bullets 1 to 24"]),
    case("table-also-bullet-out", ADD, &[("also: [{source: megengine-add, bullet: 2}]", "also: [{source: megengine-add, bullet: 40}]")], "bullet: 40}", &["`rows[1].also[0].bullet`", "bullet 40 is not one of `megengine-add`'s"]),
    case("table-property-bullet-out", HYPOT, &[("    bullet: 7\n    text: \"Underflow", "    bullet: 9\n    text: \"Underflow")], "bullet: 9", &["`properties[0].bullet`", "bullets 1 to 8"]),
    case("table-source-without-bullets", ADD, &[("    title: MegEngine functional.add docstring\n    bullets: 17\n", "    title: MegEngine functional.add docstring\n")], "also: [{source: megengine-add, bullet: 1}]", &["`rows[0].also[0].bullet`", "does not say how many bullets"]),
    case("table-bullets-negative", ADD, &[("    bullets: 17\n", "    bullets: -17\n")], "bullets: -17", &["bullets", "invalid"]),
    case("table-bullet-text", ADD, &[("    bullet: 2\n", "    bullet: two\n")], "bullet: two", &["rows[1].bullet", "invalid"]),
    // Rows: ids, overrides, classes and results.
    case("table-row-id-twice", ADD, &[("  - id: ninf-plus-pinf\n", "  - id: pinf-plus-ninf\n")], "  - id: pinf-plus-ninf\n    source: array-api\n    bullet: 3", &["duplicate row id"]),
    case("table-row-id-uppercase", ADD, &[("  - id: ninf-plus-pinf\n", "  - id: Ninf-Plus-Pinf\n")], "Ninf-Plus-Pinf", &["field `id`", "lower-case"]),
    // Row aliases (old ids): none may name a check of its own, in this table or another's.
    case("table-alias-is-another-rows-id", ADD, &[("  - id: pinf-plus-ninf\n", "  - id: pinf-plus-ninf\n    aliases: [ninf-plus-pinf]\n")], "aliases: [ninf-plus-pinf]", &["row `pinf-plus-ninf`: field `aliases`", "`ninf-plus-pinf` is already a row's or a property's id"]),
    case("table-alias-twice", ADD, &[("  - id: pinf-plus-ninf\n", "  - id: pinf-plus-ninf\n    aliases: [old-one, old-one]\n")], "aliases: [old-one", &["field `aliases`", "`old-one` is already"]),
    case("table-alias-is-a-property", HYPOT, &[("  - id: inf-x1\n", "  - id: inf-x1\n    aliases: [symmetry]\n")], "aliases: [symmetry]", &["field `aliases`", "`symmetry` is already a row's or a property's id"]),
    case("table-alias-is-reserved", ADD, &[("  - id: pinf-plus-ninf\n", "  - id: pinf-plus-ninf\n    aliases: [layouts]\n")], "aliases: [layouts]", &["field `aliases`", "`layouts` is not a row id"]),
    case("table-alias-names-a-sweep-check", ADD, &[("  - id: pinf-plus-ninf\n", "  - id: pinf-plus-ninf\n    aliases: [grid]\n")], "aliases: [grid]", &["`rows[1].aliases[0]`", "the alias `grid` would make `array-api:*:add:f32:grid` name this row's check `array-api:*:add:f32:pinf-plus-ninf`", "another check has that id"]),
    case("table-alias-names-a-broadcasting-check", ADD, &[("  - id: pinf-plus-ninf\n", "  - id: pinf-plus-ninf\n    aliases: [was-nan, broadcast-random]\n")], "aliases: [was-nan", &["`rows[1].aliases[1]`", "the alias `broadcast-random` would make", "`array-api:*:add:f16:broadcast-random`", "another check has that id"]),
    case("table-row-id-reserved", ADD, &[("  - id: ninf-plus-pinf\n", "  - id: edges\n")], "  - id: edges", &["`edges` is the case name of a generated check"]),
    case("fused-rule-id-reserved", FMA, &[("  - id: same-shape\n", "  - id: random\n")], "  - id: random", &["no_broadcast[0].id", "case name of a generated check"]),
    case("numpy-vector-id-reserved", NUMPY, &[("  - id: same-shape\n", "  - id: broadcast-random\n")], "  - id: broadcast-random", &["the case name of a value check"]),
    case("table-override-unknown", EQUAL, &[("    overrides: [remaining]\n", "    overrides: [remainder]\n")], "id: nan-either", &["no other row `remainder`"]),
    case("table-override-self", EQUAL, &[("    overrides: [remaining]\n", "    overrides: [nan-either]\n")], "id: nan-either", &["no other row `nan-either`"]),
    case("table-override-twice", EQUAL, &[("    overrides: [remaining]\n", "    overrides: [remaining, remaining]\n")], "id: nan-either", &["`remaining` is listed twice"]),
    case("table-overrides-cycle", EQUAL, &[("    when: {}\n    result: {boolean: false}\n", "    when: {}\n    result: {boolean: false}\n    overrides: [nan-either]\n")], "id: remaining", &["override each other in a circle", "precedence must be an order"]),
    case("table-overrides-three-cycle", EQUAL, &[("    overrides: [remaining]\n", "    overrides: [pinf-pinf]\n"), ("    overrides: [remaining]\n", "    overrides: [ninf-ninf]\n"), ("    overrides: [remaining]\n", "    overrides: [nan-either]\n")], "id: ninf-ninf", &["nan-either -> pinf-pinf -> ninf-ninf -> nan-either"]),
    case("table-class-nan-constant", POW, &[("{x1: {abs_gt: 1}, x2: pos_infinity}", "{x1: {abs_gt: .nan}, x2: pos_infinity}")], "abs_gt: .nan", &["`rows[", ".when`", "compares with NaN"]),
    case("table-class-unknown", ADD, &[("{x1: pos_infinity, x2: neg_infinity}", "{x1: pos_infinty, x2: neg_infinity}")], "pos_infinty", &["rows[1].when.x1", "unknown variant `pos_infinty`"]),
    case("table-class-constant-text", POW, &[("{x1: {abs_gt: 1}, x2: pos_infinity}", "{x1: {abs_gt: one}, x2: pos_infinity}")], "abs_gt: one", &["when.x1", "invalid"]),
    case("table-result-unknown", ADD, &[("    result: pos_infinity\n", "    result: plus_infinity\n")], "plus_infinity", &["result", "unknown variant `plus_infinity`"]),
    case("table-result-value-unrepresentable", POW, &[("    result: {value: 1}\n", "    result: {value: 0.1}\n")], "{value: 0.1}", &["`rows[", ".result`", "0.1 is not a number representable in f16"]),
    case("table-result-value-nan", POW, &[("    result: {value: 1}\n", "    result: {value: .nan}\n")], "{value: .nan}", &[".result`", "NaN is not a number representable"]),
    case("table-result-operand-x3", ADD, &[("    result: pos_infinity\n", "    result: {operand: x3}\n")], "id: pinf-plus-pinf", &["operand x3 does not exist"]),
    case("table-when-x3", ADD, &[("{x1: pos_infinity, x2: neg_infinity}", "{x1: pos_infinity, x3: neg_infinity}")], "id: pinf-plus-ninf", &["`when.x3`: the operation has 2 operands"]),
    case("table-any-of-empty", ADD, &[("    result: pos_infinity\n", "    result: {any_of: []}\n")], "id: pinf-plus-pinf", &["`result.any_of`: empty"]),
    case("table-row-unknown-field", ADD, &[("    bullet: 2\n", "    bulet: 2\n")], "bulet: 2", &["unknown field `bulet`"]),
    case("table-row-missing-field", ADD, &[("    text: If x1_i is +infinity and x2_i is -infinity, the result is NaN.\n", "")], "  - id: pinf-plus-ninf", &["rows[1]", "missing field `text`"]),
    case("expectation-why-blank", EXPECT, &[("    why: >-\n      The array API (maximum/minimum, special case 1): \"If either x1_i or x2_i is NaN, the\n      result is NaN\"; the result also depends on the operand order, which no reading allows.\n", "    why: \" \"\n")], "    why: \" \"", &["`deviations[0].why`", "say it"]),
    case("expectation-max-ulp-nan", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {max_ulp: .nan}\n    why: >-\n      The array API (maximum/minimum")], "max_ulp: .nan", &["`deviations[0].tolerate.max_ulp`", "`.nan` is not a finite number"]),
    case("expectation-max-ulp-negative", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {max_ulp: -1}\n    why: >-\n      The array API (maximum/minimum")], "max_ulp: -1", &["`deviations[0].tolerate.max_ulp`", "-1 is not a number of ULPs"]),
    case("expectation-max-ulp-huge", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {max_ulp: 1e300}\n    why: >-\n      The array API (maximum/minimum")], "max_ulp: 1e300", &["`deviations[0].tolerate.max_ulp`", "from 0 to 2^53", "leave `max_ulp` out"]),
    case("expectation-max-ulp-past-cap", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {failed_inputs: 3, max_ulp: 9.1e15}\n    why: >-\n      The array API (maximum/minimum")], "max_ulp: 9.1e15", &["`deviations[0].tolerate.max_ulp`", "9100000000000000 is not a number of ULPs from 0 to 2^53"]),
    case("expectation-max-ulp-inf", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {max_ulp: .inf}\n    why: >-\n      The array API (maximum/minimum")], "max_ulp: .inf", &["`deviations[0].tolerate.max_ulp`", "`.inf` is not a finite number"]),
    case("suite-step-bound-missing", NUMR, &[("pow: {f16: 1, bf16: 1, f32: 2, f64: 2}", "pow: {f16: 1, bf16: 1, f64: 2}")], "step_bounds:", &["`step_bounds`", "`pow` is approximate and checked in f32: give its bound"]),
    case("suite-step-bound-dtype-unused", NUMR, &[("dtypes: [f16, bf16, f32, f64, i8", "dtypes: [f16, bf16, f32, i8")], "pow: {f16: 1, bf16: 1, f32: 2, f64", &["`step_bounds.pow.f64`", "f64 is not among the suite's dtypes"]),
    case("suite-scatter-block-unused", MEGENGINE, &[("dtypes: [f16, f32, i8, i16, i32, u8]", "dtypes: [f16, f32, i8, i16, i32, u8]\nscatter: {mode: ignore, index_dtypes: [i32]}")], "scatter:", &["`scatter`", "names no scatter table"]),
    case("table-dtypes-empty", ADD, &[("dtypes: [f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64]", "dtypes: []")], "dtypes:", &["`dtypes`", "at least one dtype"]),
    case("table-property-no-transforms", HYPOT, &[("    property: {invariant_under: [swap, negate_x2, negate_x1, negate_both]}", "    property: {invariant_under: []}")], "  - id: symmetry", &["property.invariant_under", "at least one"]),
    case("table-property-transform-twice", HYPOT, &[("    property: {invariant_under: [swap, negate_x2, negate_x1, negate_both]}", "    property: {invariant_under: [swap, swap]}")], "  - id: symmetry", &["property.invariant_under", "each transformation once"]),
    case("table-approx-in-exact-table", ADD, &[("    result: pos_infinity\n", "    result: {approx: pi}\n")], "{approx: pi}", &[".result`", "only in an `approximate` table"]),
    // Syntax.
    case("yaml-unclosed-list", ADD, &[("op: add\n", "op: [add\n")], "op: [add", &["add.yaml"]),
    case("yaml-tab-indent", ADD, &[("    source: array-api\n    bullet: 2", "\tsource: array-api\n    bullet: 2")], "  - id: pinf-plus-ninf", &["found a tab"]),
    case("yaml-duplicate-key", ADD, &[("op: add\n", "op: add\nop: add\n")], "op: add\noperands", &["duplicate mapping key: op"]),
    case("yaml-top-level-list", ADD, &[("op: add\n", "- op: add\n")], "- op: add", &["expected mapping"]),
    // Fused tables: shape rules.
    case("fused-shapes-equal", FMA, &[("      - [[2, 3], [2, 3], [3]]", "      - [[2, 3], [2, 3], [2, 3]]")], "  - id: same-shape", &["no_broadcast[0].shapes[0]", "the shapes are equal"]),
    case("fused-shape-huge", FMA, &[("      - [[2, 3], [2, 3], [3]]", "      - [[65536, 65536], [2, 3], [3]]")], "  - id: same-shape", &["no_broadcast[0].shapes[0]", "more than 1048576 elements"]),
    case("fused-shape-overflow", FMA, &[("      - [[2, 3], [2, 3], [3]]", "      - [[4294967296, 4294967296, 16], [2, 3], [3]]")], "  - id: same-shape", &["more than 1048576 elements"]),
    case("fused-shapes-two", FMA, &[("      - [[2, 3], [2, 3], [3]]", "      - [[2, 3], [3]]")], "[[2, 3], [3]]", &["no_broadcast[0].shapes[0]"]),
    case("into-out-shape-huge", ADD_INTO, &[("      out: {shape: [3, 2], dtype: same", "      out: {shape: [100000, 100000], dtype: same")], "  - id: out-shape-swapped", &["out.shape", "more than 1048576 elements"]),
    case("into-a-values-count", ADD_INTO, &[("  a: {shape: [2, 3], values: [1, 2, 3, 4, 5, 6]}", "  a: {shape: [2, 3], values: [1, 2, 3, 4, 5]}")], "  a: {shape", &["into_rules.a.values", "5 values for shape [2, 3]"]),
    case("into-a-shape-overflow", ADD_INTO, &[("  a: {shape: [2, 3], values", "  a: {shape: [4294967296, 4294967296], values")], "  a: {shape", &["into_rules.a.values", "more than 1048576 elements"]),
    case("into-operands-do-not-broadcast", ADD_INTO, &[("  b: {shape: [3], values: [10, 20, 30]}", "  b: {shape: [4], values: [10, 20, 30, 40]}")], "  b: {shape", &["`into_rules.b.shape`", "[2, 3] and [4] do not broadcast"]),
    case("into-written-out-shape", ADD_INTO, &[("      out: {shape: [2, 3], dtype: same, layout: contiguous}", "      out: {shape: [3, 3], dtype: same, layout: contiguous}")], "  - id: out-fits", &["out.shape", "the shape of a and b broadcast, [2, 3]"]),
    case("into-transposed-one-axis", ADD_INTO, &[("      out: {shape: [2, 3], dtype: same, layout: transposed}", "      out: {shape: [1, 3], dtype: same, layout: transposed}")], "  - id: out-not-contiguous", &["out.layout"]),
    // Broadcasting tables.
    case("numpy-shape-huge", NUMPY, &[("    x: [2, 3]\n    y: [2, 3]\n    result: [2, 3]", "    x: [65536, 65536]\n    y: [2, 3]\n    result: [2, 3]")], "x: [65536, 65536]", &["field `x`", "more than 1048576 elements"]),
    case("numpy-shape-overflow", NUMPY, &[("    x: [2, 3]\n    y: [2, 3]\n    result: [2, 3]", "    x: [2, 3]\n    y: [2, 3]\n    result: [4294967296, 4294967296, 16]")], "result: [4294967296", &["field `result`", "more than 1048576 elements"]),
    case("numpy-rank-33", NUMPY, &[("    x: [2, 3]\n    y: [2, 3]\n    result: [2, 3]", "    x: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n    y: [2, 3]\n    result: [2, 3]")], "x: [1, 1,", &["33 axes: at most 32"]),
    case("numpy-vector-id-twice", NUMPY, &[("  - id: same-shape\n", "  - id: same-shape\n    rules: [compatible]\n    x: [1]\n    y: [1]\n    result: [1]\n  - id: same-shape\n")], "  - id: same-shape\n    rules: [compatible, result-shape]", &["duplicate vector id"]),
    case("numpy-vector-rule-unknown", NUMPY, &[("    rules: [compatible, result-shape]\n    x: [2, 3]", "    rules: [compatible, no-such-rule]\n    x: [2, 3]")], "  - id: same-shape", &["no rule `no-such-rule`"]),
    case("numpy-vector-result-and-error", NUMPY, &[("    result: [2, 3]\n", "    result: [2, 3]\n    error: shape_mismatch\n")], "  - id: same-shape", &["exactly one of `result` and `error`"]),
    case("numpy-vector-named-shape", NUMPY, &[("    x: [2, 3]\n    y: [2, 3]", "    x: \"[n D]\"\n    y: [2, 3]")], "x: \"[n D]\"", &["a numpy shape is a list of sizes"]),
    case("numpy-rule-source", NUMPY, &[("    source: numr-binary-ops\n", "    source: numpy-docs\n")], "  - id: trailing", &["unknown source `numpy-docs`"]),
    case("numpy-rule-id-twice", NUMPY, &[("  - id: compatible\n", "  - id: trailing\n")], "  - id: trailing\n    source: numr-binary-ops\n    section: Broadcasting, bullet 2", &["unique id"]),
    case("numpy-value-check-twice", NUMPY, &[("  - case: broadcast-strided\n", "  - case: broadcast-random\n")], "  - case: broadcast-random\n    rules: [trailing, compatible, stretch, result-shape]\nvectors", &["listed twice"]),
    case("numpy-value-check-named", NUMPY, &[("  - case: broadcast-strided\n", "  - case: named-swap\n")], "  - case: named-swap", &["not a value check of this family"]),
    case("numpy-op", NUMPY, &[("family: numpy\n", "family: numpy\nop: add\n")], "op: add", &["`op`", "numpy tables apply to every binary operation"]),
    case("named-size-huge", NAMED, &[("    sizes: {n: 3, D: 6}\n", "    sizes: {n: 1000000000000, D: 6}\n")], "y: \"[n D]\"", &["field `y`", "more than 1048576 elements"]),
    case("named-merged-axis-overflow", NAMED, &[("    y: \"[n D]\"\n    sizes: {n: 3, D: 6}\n    result: \"[n D]\"", "    y: \"[(n D)]\"\n    sizes: {n: 4294967296, D: 4294967296}\n    result: \"[n D]\"")], "y: \"[(n D)]\"", &["field `y`", "merged axis (n D) has more than 1048576 elements"]),
    case("named-axis-without-size", NAMED, &[("    sizes: {n: 3, D: 6}\n", "    sizes: {n: 3}\n")], "y: \"[n D]\"", &["axis `D` has no size"]),
    case("named-error-code-unknown", NAMED, &[("codes: [E0401, E0404]", "codes: [E0401, E0404, E9999]")], "codes:", &["`codes[2]`", "`E9999` is not a named-axis error code"]),
    case("named-error-code-twice", NAMED, &[("codes: [E0401, E0404]", "codes: [E0401, E0401, E0404]")], "codes:", &["`codes[1]`", "listed twice"]),
    case("named-align-rank", NAMED, &[("    align: {x: \"[_ _]\", y: \"[0 1]\"}", "    align: {x: \"[_]\", y: \"[0 1]\"}")], "x: \"[_]\"", &["field `align`", "1 entries for a rank-2 result"]),
    // Promotion tables.
    case("promotion-case-twice", PROMOTION, &[("  - id: i8-i32\n", "  - id: i8-i16\n")], "  - id: i8-i16\n    source: array-api-promotion\n    text: \"Integers of the same signedness promote to the wider type.\"\n    op: add\n    x1: {tensor: {dtype: i8, values: [1, 2, 3]}}\n    x2: {tensor: {dtype: i32", &["duplicate case id"]),
    case("promotion-operands-do-not-broadcast", PROMOTION, &[("    x2: {tensor: {dtype: i16, values: [4, 5, 6]}}\n    result: {dtype: i16, values: [5, 7, 9]}", "    x2: {tensor: {dtype: i16, values: [4, 5]}}\n    result: {dtype: i16, values: [5, 7, 9]}")], "  - id: i8-i16", &["case `i8-i16`", "shapes [[3], [2]] do not broadcast"]),
    case("promotion-result-shape-wrong", PROMOTION, &[("    result: {dtype: i16, values: [5, 7, 9]}", "    result: {dtype: i16, values: [[5, 7, 9]]}")], "  - id: i8-i16", &["case `i8-i16`", "`result.values`: shape [1, 3], but the operands broadcast to [3]"]),
    case("promotion-case-id-invalid", PROMOTION, &[("  - id: i8-i32\n", "  - id: I8_I32\n")], "I8_I32", &["field `id`", "lower-case"]),
    case("promotion-dtype-unknown", PROMOTION, &[("    x1: {tensor: {dtype: i8, values: [1, 2, 3]}}", "    x1: {tensor: {dtype: i7, values: [1, 2, 3]}}")], "  - id: i8-i16", &["x1.dtype", "i7"]),
    case("promotion-ragged", PROMOTION, &[("    x1: {tensor: {dtype: i8, values: [1, 2, 3]}}", "    x1: {tensor: {dtype: i8, values: [[1, 2], [3]]}}")], "  - id: i8-i16", &["x1.values", "ragged"]),
    case("promotion-value-out-of-range", PROMOTION, &[("    x1: {tensor: {dtype: i8, values: [1, 2, 3]}}", "    x1: {tensor: {dtype: i8, values: [1000, 2, 3]}}")], "  - id: i8-i16", &["x1.values", "1000 is not exactly a i8 value"]),
    case("promotion-value-fraction", PROMOTION, &[("    x1: {tensor: {dtype: i8, values: [1, 2, 3]}}", "    x1: {tensor: {dtype: i8, values: [1.5, 2, 3]}}")], "  - id: i8-i16", &["1.5 is not exactly a i8 value"]),
    case("promotion-op-unknown", PROMOTION, &[("    op: add\n", "    op: plus\n")], "  - id: i8-i16", &["field `op`", "plus"]),
    // Scatter tables.
    case("scatter-problems-huge", SCATTER, &[("    problems: 48\n", "    problems: 1000000000\n")], "  - id: random\n", &["generator `random`", "`problems` <= 4096"]),
    case("scatter-problems-zero", SCATTER, &[("    problems: 48\n", "    problems: 0\n")], "  - id: random\n", &["must be at least 1"]),
    case("scatter-no-index-vectors", SCATTER, &[("    max_index_vectors: 64\n", "    max_index_vectors: 0\n")], "  - id: random\n", &["generator `random`", "`max_index_vectors` must be at least 1", "vacuously"]),
    case("scatter-operands-too-large", SCATTER, &[("    max_rank: 3\n    max_extent: 5\n    max_index_vectors: 64\n", "    max_rank: 4\n    max_extent: 64\n    max_index_vectors: 64\n")], "  - id: random\n", &["more than 1048576 elements"]),
    case("scatter-duplicates-reversed", SCATTER, &[("    duplicates: [0.0, 0.6]\n", "    duplicates: [0.6, 0.0]\n")], "  - id: random\n", &["field `duplicates`", "0 <= low <= high <= 1"]),
    case("scatter-min-rank", SCATTER, &[("    max_rank: 3\n    max_extent: 5\n    max_index_vectors: 64\n", "    min_rank: 4\n    max_rank: 3\n    max_extent: 5\n    max_index_vectors: 64\n")], "  - id: random\n", &["generator `random`", "field `min_rank`", "give 1 to `max_rank` 3, not 4"]),
    case("scatter-min-extent", SCATTER, &[("    max_extent: 5\n", "    min_extent: 6\n    max_extent: 5\n")], "  - id: random\n", &["field `min_extent`", "give 1 to `max_extent` 5, not 6"]),
    case("scatter-min-index-vectors", SCATTER, &[("    max_index_vectors: 64\n", "    min_index_vectors: 65\n    max_index_vectors: 64\n")], "  - id: random\n", &["field `min_index_vectors`", "65 is more than `max_index_vectors` 64"]),
    case("scatter-index-order-unknown", SCATTER, &[("    max_index_vectors: 64\n", "    max_index_vectors: 64\n    index_orders: [shuffled]\n")], "shuffled", &["index_orders", "unknown variant `shuffled`", "random, sorted, runs"]),
    case("scatter-index-orders-empty", SCATTER, &[("    max_index_vectors: 64\n", "    max_index_vectors: 64\n    index_orders: []\n")], "  - id: random\n", &["field `index_orders`", "at least one order"]),
    case("scatter-probability-nan", SCATTER, &[("    empty_indices: 0.05\n", "    empty_indices: .nan\n")], "  - id: random\n", &["field `empty_indices`", "a probability"]),
    case("scatter-values-count", SCATTER, &[("    input: {shape: [2, 3], values: [1, 2, 3, 4, 5, 6]}", "    input: {shape: [2, 3], values: [1, 2, 3, 4, 5]}")], "  - id: duplicates-summed", &["field `input.values`", "5 values for shape [2, 3]"]),
    case("scatter-shape-overflow", SCATTER, &[("    input: {shape: [2, 3], values: [1, 2, 3, 4, 5, 6]}", "    input: {shape: [4294967296, 4294967296, 0, 2], values: []}")], "  - id: duplicates-summed", &["field `input.shape`", "more than 1048576 elements"]),
    case("scatter-index-out-of-dtype", SCATTER, &[("    indices: {dtype: i32, shape: [2, 2], values: [0, 0, 0, 0]}", "    indices: {dtype: i32, shape: [2, 2], values: [0, 0, 0, 4294967296]}")], "  - id: example-duplicate-index", &["field `indices.values`", "4294967296 is not a i32 value"]),
    case("scatter-case-dtype", SCATTER, &[("    dtypes: [f32]\n", "    dtypes: [c64]\n")], "  - id: example-duplicate-index", &["field `dtypes`", "c64"]),
    case("scatter-bool", SCATTER, &[("dtypes: [f16, bf16, f32, f64, i8,", "dtypes: [bool, f16, bf16, f32, f64, i8,")], "dtypes: [bool", &["`dtypes[0]`", "not defined for bool"]),
    case("scatter-dtype-twice", SCATTER, &[("dtypes: [f16, bf16, f32, f64, i8,", "dtypes: [f16, f16, bf16, f32, f64, i8,")], "dtypes: [f16, f16", &["`dtypes[1]`", "`f16` is listed twice"]),
    case("scatter-id-twice", SCATTER, &[("  - id: duplicates-summed\n", "  - id: example-duplicate-index\n")], "  - id: example-duplicate-index\n    source: mindspore\n    anchor: description", &["duplicate id"]),
    // Expectations files.
    case("pattern-unclosed-brace", EXPECT, &[("broadcast-strided}\"", "broadcast-strided\"")], FIRST_ID, &["`deviations[0].id`", "a `{` is not closed by `}`"]),
    case("pattern-stray-brace", EXPECT, &[("{maximum,minimum}", "maximum,minimum}")], "  - id: \"array-api:numr:maximum", &["`deviations[0].id`", "closes no `{`"]),
    case("pattern-nested-braces", EXPECT, &[("{maximum,minimum}", "{maximum,{minimum}}")], FIRST_ID, &["nested `{`"]),
    case("pattern-empty-braces", EXPECT, &[("{maximum,minimum}", "{}")], "  - id: \"array-api:numr:{}", &["empty braces"]),
    case("pattern-empty", EXPECT, &[("array-api:numr:{maximum,minimum}:{f16,f32,f64}:{nan-either,edges,layouts,layouts-large,random,broadcast-random,broadcast-strided}", "")], "  - id: \"\"", &["an empty pattern matches no check id"]),
    case("pattern-forty-stars", EXPECT, &[("array-api:numr:{maximum,minimum}:{f16,f32,f64}:{nan-either,edges,layouts,layouts-large,random,broadcast-random,broadcast-strided}", "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*q")], "  - id: \"*a", &["matches no check of adapter `numr`"]),
    case("pattern-matches-nothing", EXPECT, &[("{maximum,minimum}", "{maximun,minimun}")], FIRST_ID, &["matches no check"]),
    case("expectation-listed-twice", EXPECT, &[("deviations:\n", "deviations:\n  - id: \"{array-api,numr}:numr:pow:f64:{edges,layouts,layouts-large,random}\"\n    fails: values\n    tier: quality\n    does: x\n    why: y\n")], "  - id: \"{array-api,numr}:numr:pow:f64:{edges,layouts,layouts-large,random}\"\n    fails: values\n    tier: quality\n    does: >-", &["`deviations[", "is listed twice"]),
    case("expectation-adapter-mismatch", EXPECT, &[("adapter: numr\n", "adapter: cpu\n")], "adapter: cpu", &["`adapter`", "must match the file name"]),
    case("expectation-adapter-invalid", EXPECT, &[("adapter: numr\n", "adapter: \"nu mr\"\n")], "adapter:", &["`adapter`", "is not an adapter name"]),
    case("expectation-without-tier", EXPECT, &[("    tier: must\n    does: >-\n      maximum and minimum", "    does: >-\n      maximum and minimum")], FIRST_ID, &["missing field `tier`"]),
    case("expectation-unknown-tier", EXPECT, &[("    tier: must\n    does: >-\n      maximum and minimum", "    tier: latitude\n    does: >-\n      maximum and minimum")], "tier: latitude", &["unknown variant `latitude`", "must, should, quality"]),
    // Suites: on whose authority.
    case("authority-approximation-unclaimed", NUMR, &[("    ops: [pow, atan2]", "    ops: [pow]")], "  approximations:", &["`authority.approximations`", "`atan2` is checked as an approximation", "no clause says on whose authority"]),
    case("authority-rounding-of-an-exact-op", NUMR, &[("    ops: [add, subtract, multiply, divide]", "    ops: [add, subtract, multiply, divide, maximum]")], "ops: [add, subtract, multiply, divide, maximum]", &["`authority.rounding.ops`", "`maximum` is not correctly rounded"]),
    case("authority-rounding-op-not-in-suite", NUMR, &[("    ops: [add, subtract, multiply, divide]", "    ops: [add, subtract, multiply, divide, sqrt]")], "ops: [add, subtract, multiply, divide, sqrt]", &["`authority.rounding.ops[4]`", "`sqrt` is not among the suite's specs"]),
    case("authority-quote-without-citation", MEGENGINE, &[("  cites:\n    document: MegEngine, megengine.functional.add and megengine.functional.mul docstrings (imperative/python/megengine/functional/elemwise.py)\n    version: v1.13.4\n    section: add and mul, the remaining cases\n    url: https://github.com/MegEngine/MegEngine/blob/v1.13.4/imperative/python/megengine/functional/elemwise.py\n", "")], "authority:", &["`authority.cites`", "cite it"]),
    case("authority-empty-quote", MEGENGINE, &[("    must: >-\n      In the remaining cases, [...] the sum", "    must: \" \"\n    should: >-\n      In the remaining cases, [...] the sum")], "must: \" \"", &["`authority.rounding.must`", "quotes no words of the document"]),
    // An entry whose `when` can never hold.
    case("expectation-when-unknown-cpu-feature", EXPECT, &[("    tier: must\n    does: >-\n      maximum and minimum", "    tier: must\n    when:\n      cpu_features: [avx512f, avx512]\n    does: >-\n      maximum and minimum")], FIRST_ID, &["`deviations[0].when.cpu_features`", "`avx512` is not a CPU feature opspec reports", "avx512f"]),
    case("expectation-when-misspelt-target", EXPECT, &[("    tier: must\n    does: >-\n      maximum and minimum", "    tier: must\n    when:\n      target: x86-64-linux\n    does: >-\n      maximum and minimum")], FIRST_ID, &["`deviations[0].when.target`", "`x86-64-linux` is not a target", "ARCH-OS"]),
    case("expectation-when-empty-target", EXPECT, &[("    tier: must\n    does: >-\n      maximum and minimum", "    tier: must\n    when:\n      target: \"\"\n    does: >-\n      maximum and minimum")], FIRST_ID, &["`deviations[0].when.target`", "`` is not a target"]),
    case("expectation-max-ulp-text", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {max_ulp: \"12\"}\n    why: >-\n      The array API (maximum/minimum")], "max_ulp: \"12\"", &["`deviations[0].tolerate.max_ulp`", "\"12\" is text, not a number"]),
    case("expectation-failed-inputs-text", EXPECT, &[("    why: >-\n      The array API (maximum/minimum", "    tolerate: {failed_inputs: \"3\"}\n    why: >-\n      The array API (maximum/minimum")], "failed_inputs: \"3\"", &["`deviations[0].tolerate.failed_inputs`", "\"3\" is text, not a number"]),
    case("expectation-flaky-star", EXPECT, &[("array-api:numr:{maximum,minimum}:{f16,f32,f64}:{nan-either,edges,layouts,layouts-large,random,broadcast-random,broadcast-strided}\"\n    fails: values\n", "*\"\n    flaky: true\n    fails: values\n")], "  - id: \"*\"", &["`deviations[0].id`", "`*` names every check of adapter `numr`", "would excuse any run"]),
    case("expectation-shadowed", EXPECT, &[("  - id: \"array-api:numr:{maximum,minimum}:{f16,f32,f64}:{exhaustive,grid}\"\n", "  - id: \"numr:numr:{maximum,minimum}:f32:edges\"\n    fails: values\n    tier: must\n    does: x\n    why: y\n  - id: \"array-api:numr:{maximum,minimum}:{f16,f32,f64}:{exhaustive,grid}\"\n")], "  - id: \"numr:numr:{maximum,minimum}:f32:edges\"", &["`deviations[3].id`", "never applies: each of its 2 checks is listed by an earlier entry (expectations/numr.yaml:27)"]),
    case("expectation-when-features-off-their-arch", EXPECT, &[("    tier: must\n    does: >-\n      maximum and minimum", "    tier: must\n    when:\n      target: aarch64-linux\n      cpu_features: [avx2]\n    does: >-\n      maximum and minimum")], FIRST_ID, &["`deviations[0].when.cpu_features`", "CPU features on x86_64 only", "`target: aarch64-linux` the entry never applies"]),
    case("expectation-unknown-field", EXPECT, &[("    does: >-\n", "    dose: >-\n")], "dose:", &["unknown field `dose`"]),
];

#[test]
fn every_broken_input_is_refused_at_its_place() {
    assert!(CORPUS.len() >= 100, "the corpus has {} cases", CORPUS.len());
    let mut names = std::collections::HashSet::new();
    let mut wrong = Vec::new();
    for case in CORPUS {
        assert!(names.insert(case.name), "two cases are called {}", case.name);
        let root = Root::new(case.name);
        for (from, to) in case.edits {
            root.edit(case.file, from, to);
        }
        let text = root.read(case.file);
        let line = if case.at.is_empty() { 1 } else { line_of(&text, case.at) };
        match try_refused(&root) {
            Ok(err) => {
                if let Some(why) = misplaced(&err, case.file, line, case.says) {
                    wrong.push(format!("{}: the error {why}", case.name));
                }
            }
            Err(why) => wrong.push(format!("{}: {why}", case.name)),
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases:\n{}", wrong.len(), CORPUS.len(), wrong.join("\n"));
    // Nothing was allocated for the huge counts and shapes: this process never held 1 GiB.
    if let Some(peak) = peak_memory_kib() {
        assert!(peak < 1 << 20, "the corpus peaked at {peak} KiB of memory");
    }
}

/// An alias names checks of its own operation only (`suite:adapter:add:f32:<alias>`), so it
/// may be another operation's row id; an expectations entry naming the old id still lists the
/// renamed row's check.
#[test]
fn an_alias_may_be_another_operations_row_id() {
    let root = Root::new("alias-of-another-op");
    root.edit(ADD, "  - id: pinf-plus-ninf\n", "  - id: pinf-plus-ninf\n    aliases: [same-sign-positive]\n");
    let old = "adapter: cpu\ndeviations:\n  - id: \"array-api:cpu:add:f32:same-sign-positive\"\n    does: x\n    why: y\n    fails: values\n    tier: must\n";
    root.write("expectations/cpu.yaml", old);
    if let Err(e) = root.load() {
        panic!("{e}");
    }
    // Without the alias, the entry names no check.
    root.edit(ADD, "    aliases: [same-sign-positive]\n", "");
    let err = refused("alias-removed", &root);
    assert_eq!(misplaced(&err, "expectations/cpu.yaml", 3, &["matches no check of adapter `cpu`"]), None);
}

/// This process's peak resident memory (Linux's `VmHWM`), where the system says.
fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Cases the one-file edits above cannot make.
#[test]
fn whole_files_and_folders() {
    // Empty and comment-only files.
    for (name, text) in
        [("empty", ""), ("comments", "# nothing yet\n\n# still nothing\n"), ("separator", "---\n")]
    {
        let root = Root::new(name);
        root.write(ADD, text);
        let err = refused(name, &root);
        assert_eq!(misplaced(&err, ADD, 1, &["the file is empty"]), None, "{name}");
    }
    // Nesting past the parser's limits: its refusal names the limit in words.
    let root = Root::new("deep");
    let deep = format!("values: {}1{}}}}}", "[".repeat(200), "]".repeat(200));
    root.edit(PROMOTION, "values: [1, 2, 3]}}", &deep);
    let err = refused("deep", &root);
    let line = line_of(&root.read(PROMOTION), "values: [[");
    assert_eq!(
        misplaced(&err, PROMOTION, line, &["too large or too deeply nested", "nesting depth of 64"]),
        None
    );
    assert!(!err.to_string().contains('{'), "a Debug value in {err}");
    // An alias bomb.
    let root = Root::new("aliases");
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        bomb += &format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n");
    }
    root.write(ADD, &(bomb + &root.read(ADD)));
    let err = refused("aliases", &root);
    assert!(err.file.ends_with(ADD) && err.line.is_some(), "{err}");
    // Two tables for one scatter operation: the second is refused, naming the first.
    let root = Root::new("scatter-twice");
    root.write("specs/scatter/copy.yaml", &root.read(SCATTER));
    let err = refused("scatter-twice", &root);
    let says = ["`tensor_scatter_add` already has a table, specs/scatter/copy.yaml"];
    assert_eq!(misplaced(&err, SCATTER, line_of(&root.read(SCATTER), "op: tensor"), &says), None);
    // A suite named `.yml` (or `.YAML`): refused, saying catalog files are `.yaml`, rather
    // than left out unread.
    for name in ["extra.yml", "extra.YAML"] {
        let root = Root::new("yml");
        root.write(&format!("suites/{name}"), &root.read(NUMR).replace("name: numr", "name: extra"));
        let err = refused("yml", &root);
        assert!(err.file.ends_with(format!("suites/{name}")), "{err}");
        assert!(err.message.contains("catalog files are named `*.yaml`: rename it `extra.yaml`"), "{err}");
    }
    // A table outside the tables' folders.
    let root = Root::new("stray");
    root.write("specs/other/add.yaml", &root.read(ADD));
    let err = refused("stray", &root);
    assert_eq!(misplaced(&err, "specs/other/add.yaml", 1, &["not in a table folder"]), None);
}

#[test]
fn tables_whose_checks_would_share_ids() {
    // A second numpy table in another folder: the same name in the check ids.
    let root = Root::new("broadcast-name-twice");
    root.write("specs/broadcasting/more/numpy.yaml", &root.read(NUMPY));
    root.edit(NUMR, "  - broadcasting/numpy\n", "  - broadcasting/numpy\n  - broadcasting/more/numpy\n");
    let err = refused("broadcast-name-twice", &root);
    let line = line_of(&root.read(NUMR), "  - broadcasting/more/numpy");
    let says = ["`broadcasting/more/numpy` and `broadcasting/numpy` both have the name `numpy`"];
    assert_eq!(misplaced(&err, NUMR, line, &says), None);
    // Two promotion tables with a case id in common, in one suite.
    let root = Root::new("promotion-case-twice");
    root.write("specs/promotion/copy.yaml", &root.read(PROMOTION));
    root.edit(
        "suites/array-api.yaml",
        "  - promotion/array_api\n",
        "  - promotion/array_api\n  - promotion/copy\n",
    );
    let err = refused("promotion-case-twice", &root);
    let line = line_of(&root.read("suites/array-api.yaml"), "  - promotion/copy");
    assert_eq!(misplaced(&err, "suites/array-api.yaml", line, &["both have a case `i8-i16`"]), None);
}

#[test]
fn several_expectations_files_load_and_each_error_blames_its_own() {
    let root = Root::new("second-adapter");
    let shipped = std::fs::read_dir(root.0.join("expectations")).unwrap().count();
    // The shipped cpu.yaml, if any, is replaced by this one.
    let added = usize::from(!root.0.join("expectations/cpu.yaml").exists());
    let cpu = "adapter: cpu\ndeviations:\n  - id: \"array-api:cpu:add:f32:edges\"\n    does: x\n    why: y\n    fails: values\n    tier: must\n";
    root.write("expectations/cpu.yaml", cpu);
    let catalog = Catalog::load(&root.0).unwrap();
    assert_eq!(catalog.expectations.files.len(), shipped + added);
    assert_eq!(validate_expectations(&catalog), Ok(()));
    root.write("expectations/cpu.yaml", &cpu.replace("add:f32", "add:f33"));
    let err = refused("second-adapter-broken", &root);
    assert_eq!(misplaced(&err, "expectations/cpu.yaml", 3, &["matches no check of adapter `cpu`"]), None);
    root.write("expectations/cpu.yaml", &cpu.replace("add:f32:edges\"", "{add:f32:edges\""));
    let err = refused("second-adapter-pattern", &root);
    assert_eq!(misplaced(&err, "expectations/cpu.yaml", 3, &["not closed"]), None);
    // One adapter, two files.
    root.write("expectations/cpu.yaml", cpu);
    root.write("expectations/more/cpu.yaml", cpu);
    let err = refused("same-adapter-twice", &root);
    assert_eq!(
        misplaced(&err, "expectations/more/cpu.yaml", 1, &["expectations/cpu.yaml lists adapter `cpu` too"]),
        None
    );
}

#[cfg(unix)]
#[test]
fn links_stay_inside_the_root_and_never_repeat() {
    use std::os::unix::fs::symlink;
    let cannot = |root: &Root| refused("link", root).to_string();
    let root = Root::new("loop");
    symlink(root.path("specs"), root.path("specs/elementwise/again")).unwrap();
    assert!(cannot(&root).contains("reached twice (a link loop"), "{}", cannot(&root));
    let root = Root::new("out-of-root");
    symlink(Path::new(REPO).join("specs/fused"), root.path("specs/outside")).unwrap();
    let says = cannot(&root);
    assert!(says.contains("specs/outside") && says.contains("links out of the catalog root"), "{says}");
    let root = Root::new("file-out-of-root");
    std::fs::remove_file(root.path(ADD)).unwrap();
    symlink(Path::new(REPO).join(ADD), root.path(ADD)).unwrap();
    assert!(cannot(&root).contains("links out of the catalog root"), "{}", cannot(&root));
    let root = Root::new("broken-link");
    symlink(root.path("nowhere"), root.path("specs/elementwise/gone.yaml")).unwrap();
    assert!(cannot(&root).contains("a broken link"), "{}", cannot(&root));
    // A link inside the root to a file reached no other way is followed.
    let root = Root::new("inside");
    std::fs::rename(root.path(ADD), root.path("add.yaml.orig")).unwrap();
    symlink(root.path("add.yaml.orig"), root.path(ADD)).unwrap();
    assert!(root.load().is_ok());
}

#[test]
fn roots_that_hold_no_catalog() {
    let missing = std::env::temp_dir().join(format!("opspec-no-such-root-{}", std::process::id()));
    let err = Catalog::load(&missing).unwrap_err();
    assert!(err.file == missing && err.message.contains("no such folder"), "{err}");
    let file = Path::new(REPO).join("Cargo.toml");
    let err = Catalog::load(&file).unwrap_err();
    assert!(err.file == file && err.message.contains("not a folder"), "{err}");
    let root = Root::new("empty-root");
    for folder in ["specs", "suites", "expectations"] {
        std::fs::remove_dir_all(root.path(folder)).unwrap();
    }
    let err = Catalog::load(&root.0).unwrap_err();
    assert!(err.message.contains("no tables in the catalog at"), "{err}");
}

/// Runs the binary with `args` (on the shipped catalog unless `--root` is among them).
fn opspec(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_opspec")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn command_lines_are_checked_before_any_work() {
    let out = std::env::temp_dir().join(format!("opspec-broken-out-{}", std::process::id()));
    let manifest = Path::new(REPO).join("Cargo.toml");
    let file_as_out = manifest.join("reports");
    let empty = Root::new("cli-empty");
    for folder in ["specs", "suites", "expectations"] {
        std::fs::remove_dir_all(empty.path(folder)).unwrap();
    }
    let out_arg = out.to_string_lossy().into_owned();
    let file_out = file_as_out.to_string_lossy().into_owned();
    let empty_root = empty.0.to_string_lossy().into_owned();
    let manifest = manifest.to_string_lossy().into_owned();
    // A vendor's file for an adapter the run does not name (the shipped numr.yaml again would
    // be refused first: each of its entries is shadowed by the catalog's own copy).
    let vendor = "adapter: vend\ndeviations:\n  - id: \"array-api:vend:add:f32:edges\"\n    does: x\n    why: y\n    fails: values\n    tier: must\n";
    empty.write("vend.yaml", vendor);
    let vendor_expectations = empty.path("vend.yaml").to_string_lossy().into_owned();
    let cases: &[(&[&str], i32, &[&str])] = &[
        (
            &["run", "--expectations", &vendor_expectations, "--filter", "add:f32:edges", "--out", &out_arg],
            2,
            &[
                "--expectations",
                "vend.yaml: its adapter `vend` is not one this run names (cpu)",
                "--adapter vend=SPEC",
            ],
        ),
        (&["run", "--timeout", "1e-300", "--out", &out_arg], 2, &["--timeout", "from 0.001 to 86400"]),
        (&["run", "--timeout", "0", "--out", &out_arg], 2, &["--timeout"]),
        (&["run", "--timeout=-1", "--out", &out_arg], 2, &["--timeout"]),
        (&["run", "--timeout", "nan", "--out", &out_arg], 2, &["--timeout"]),
        (&["run", "--timeout", "inf", "--out", &out_arg], 2, &["--timeout"]),
        (&["run", "--timeout", "1e9", "--out", &out_arg], 2, &["--timeout"]),
        (&["list", "--adapter", "nosuch"], 2, &["unknown adapter `nosuch`"]),
        (&["list", "--adapter", "Bad:Name"], 2, &["is not an adapter name"]),
        (&["list", "--suite", "nosuch"], 2, &["unknown suite `nosuch`"]),
        (&["list", "--filter", "{add"], 2, &["filter `{add`", "not closed"]),
        (&["list", "--filter", "add}"], 2, &["closes no `{`"]),
        (&["list", "--filter", "add::f32"], 2, &["empty segment"]),
        (&["list", "--filter", "no-such-op"], 3, &["the selection matches no check"]),
        (&["run", "--filter", "no-such-op", "--out", &out_arg], 3, &["the selection matches no check"]),
        (
            &["run", "--filter", "add:f32:edges", "--out", &file_out],
            2,
            &["--out", "Cargo.toml/reports", "cannot write the report there"],
        ),
        (&["eval", "array-api:cpu:add:f32:no-such-case", "0x0", "0x0"], 2, &["no check has the id"]),
        (&["eval", "array-api:cpu:add:f16:edges", "0x+3c00", "0x3c00"], 2, &["`0x+3c00`", "hex digits only"]),
        (&["eval", "array-api:cpu:add:f16:edges", "0x", "0x3c00"], 2, &["`0x`", "hex digits only"]),
        (
            &["eval", "array-api:cpu:add:f16:edges", "0x13c00", "0x3c00"],
            2,
            &["operand 1 (0x13c00) has more than 16 bits"],
        ),
        (
            &["eval", "array-api:cpu:logical_and:bool:edges", "0x2", "0x1"],
            2,
            &["operand 1 (0x2) is not a bool"],
        ),
        (&["--root", "/no/such/catalog", "validate"], 2, &["/no/such/catalog", "no such folder"]),
        (&["--root", &manifest, "validate"], 2, &["Cargo.toml", "not a folder"]),
        (&["--root", &empty_root, "validate"], 2, &["no tables in the catalog at"]),
    ];
    for (args, code, says) in cases {
        let (got, stderr) = opspec(args);
        assert_eq!(got, *code, "opspec {args:?}: {stderr}");
        assert!(!stderr.contains("panicked") && !stderr.contains("running"), "opspec {args:?}: {stderr}");
        for s in *says {
            assert!(stderr.contains(s), "opspec {args:?} does not say {s:?}: {stderr}");
        }
    }
    assert!(!out.exists(), "a refused run created its report folder");
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    for args in [&["list"][..], &["validate"][..], &["list", "--planned"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_opspec"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "opspec {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "opspec {args:?}: {stderr}");
    }
}

/// The shipped tables' texts, for the property test.
const TABLES: [&str; 5] = [ADD, POW, FMA, NUMPY, SCATTER];

/// One random mutation of a YAML text: delete a line, duplicate one, or replace a value by
/// another type or an extreme number.
fn mutate(text: &str, line: usize, kind: u8, value: usize) -> String {
    const VALUES: [&str; 10] =
        ["-1", "0", "1e300", ".nan", ".inf", "[]", "{}", "\"x\"", "18446744073709551616", "~"];
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let i = line % lines.len();
    match kind % 3 {
        0 => {
            lines.remove(i);
        }
        1 => {
            let copy = lines[i].clone();
            lines.insert(i, copy);
        }
        _ => {
            if let Some(colon) = lines[i].find(": ") {
                lines[i] = format!("{}: {}", &lines[i][..colon], VALUES[value % VALUES.len()]);
            }
        }
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_tables_load_or_are_refused(table in 0..TABLES.len(), line in 0usize..2000, kind in 0u8..3, value in 0usize..10) {
        let root = Root::new("mutated");
        let text = root.read(TABLES[table]);
        root.write(TABLES[table], &mutate(&text, line, kind, value));
        let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| root.load()));
        match loaded {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => prop_assert!(e.line.is_some() && e.column.is_some(), "no line:column in {}", e),
            Err(_) => prop_assert!(false, "loading panicked"),
        }
    }
}

/// `eval` takes `--timeout`: a worker that never says hello is given up after it, and one
/// that speaks garbage is named as such.
#[cfg(unix)]
#[test]
fn eval_gives_up_on_a_silent_worker_after_its_timeout_and_names_garbage() {
    for (spec, says) in [
        ("slow=process:sleep 100", "did not answer within 1.0 s"),
        ("garbage=process:yes", "garbage on the pipe"),
    ] {
        let id = format!("array-api:{}:add:f32:edges", spec.split('=').next().unwrap());
        let (code, stderr) = opspec(&["eval", "--timeout", "1", "--adapter", spec, &id, "0x0", "0x0"]);
        assert_eq!(code, 2, "{spec}: {stderr}");
        assert!(stderr.contains(says) && stderr.contains("no hello"), "{spec}: {stderr}");
    }
}

/// A `process:sh SCRIPT` adapter spec named `name`, whose worker writes `frames` to its stdout
/// and then runs `then`; its files live in a fresh temporary folder, which the caller removes.
#[cfg(unix)]
fn scripted_worker(name: &str, frames: &[u8], then: &str) -> (String, PathBuf) {
    let dir = std::env::temp_dir().join(format!("opspec-broken-worker-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (stream, script) = (dir.join("stream.bin"), dir.join("worker.sh"));
    std::fs::write(&stream, frames).unwrap();
    std::fs::write(&script, format!("cat '{}'\n{then}\n", stream.display())).unwrap();
    (format!("{name}=process:sh {}", script.display()), dir)
}

/// A frame of the protocol (`docs/PROTOCOL.md`, "Frames") whose header announces `data_len`
/// bytes of data, none of which follows.
#[cfg(unix)]
fn frame_announcing(message: &str, data_len: u64) -> Vec<u8> {
    let mut frame = b"OPSP".to_vec();
    frame.extend((message.len() as u32).to_le_bytes());
    frame.extend(data_len.to_le_bytes());
    frame.extend(message.as_bytes());
    frame
}

#[cfg(unix)]
const HELLO: &str = r#"{"type":"hello","id":0,"protocol":1,"name":"w","version":"0","support":[{"op":"add","dtype":[2,32,1]}]}"#;

/// `opspec eval` of `array-api:NAME:add:f32:edges` against the worker of `spec`.
#[cfg(unix)]
fn eval_worker(spec: &str) -> (i32, String) {
    let id = format!("array-api:{}:add:f32:edges", spec.split('=').next().unwrap());
    opspec(&["eval", "--timeout", "30", "--adapter", spec, &id, "0x0", "0x0"])
}

/// A hello that announces 60 GiB of data (under the frame's 64 GiB limit) and sends none is
/// refused from its header: a hello carries no data. Waiting for the data would end at the
/// time-out instead, with another message.
#[cfg(unix)]
#[test]
fn a_hello_announcing_data_is_refused_before_it_is_read() {
    let (spec, dir) = scripted_worker("big-hello", &frame_announcing(HELLO, 60 << 30), "exec sleep 100");
    let (code, stderr) = eval_worker(&spec);
    std::fs::remove_dir_all(dir).unwrap();
    assert_eq!(code, 2, "{stderr}");
    for says in [
        "adapter `big-hello`",
        "no hello from `sh ",
        "bad frame: the data length is 64424509440 bytes, more than the 0 allowed",
        "the worker was killed",
    ] {
        assert!(stderr.contains(says), "does not say {says:?}: {stderr}");
    }
}

/// A result that announces 1 GiB for a call on a few kilobytes is refused from its header,
/// naming the worker, the request and the bound.
#[cfg(unix)]
#[test]
fn a_result_over_its_requests_bound_is_refused_before_it_is_read() {
    let result = r#"{"type":"result","id":1,"result":{"dtype":[2,32,1],"shape":[1],"strides":[1],"byte_offset":0,"buffer":0},"buffers":[{"offset":0,"len":4}]}"#;
    let frames = [frame_announcing(HELLO, 0), frame_announcing(result, 1 << 30)].concat();
    let (spec, dir) = scripted_worker("big-result", &frames, "exec sleep 100");
    let (code, stderr) = eval_worker(&spec);
    std::fs::remove_dir_all(dir).unwrap();
    assert_eq!(code, 2, "{stderr}");
    for says in [
        "adapter `big-result`",
        "request 1 (call add: f32 [",
        "bad frame: the data length is 1073741824 bytes, more than the ",
        "the worker was killed; a new worker starts",
    ] {
        assert!(stderr.contains(says), "does not say {says:?}: {stderr}");
    }
    let bound = stderr.split("more than the ").nth(1).and_then(|s| s.split(' ').next());
    assert!(bound.and_then(|b| b.parse::<u64>().ok()).is_some_and(|b| b < 1 << 20), "{stderr}");
}

/// A worker that writes 200 MB to stderr without a newline and exits: its line is copied cut
/// at 64 KiB, marked with its length, and quoted shortened in the reason it is unavailable.
#[cfg(unix)]
#[test]
fn an_endless_stderr_line_is_cut() {
    let flood = "head -c 200000000 /dev/zero | tr '\\0' x >&2; exit 3";
    let (spec, dir) = scripted_worker("flood", b"", flood);
    let (code, stderr) = eval_worker(&spec);
    std::fs::remove_dir_all(dir).unwrap();
    assert_eq!(code, 2, "{}", &stderr[stderr.len().saturating_sub(2000)..]);
    let cut = "[line cut at 65536 of its 200000000 bytes]";
    let forwarded = format!("[flood] {} {cut}", "x".repeat(65536));
    let quoted = format!("{}… {cut}", "x".repeat(500));
    assert!(stderr.contains(&forwarded) && stderr.contains(&quoted), "{}", &stderr[..stderr.len().min(2000)]);
    assert!(stderr.contains("adapter `flood`") && stderr.contains("exit status: 3"), "{}", stderr.len());
    assert!(stderr.len() < 100_000, "{} bytes of stderr", stderr.len());
}

/// Flags that contradict each other, or a value that would make a command do nothing and pass,
/// are refused before any work, naming both flags (or the variable).
#[test]
fn contradicting_flags_are_refused_naming_both() {
    let out = std::env::temp_dir().join(format!("opspec-broken-flags-{}", std::process::id()));
    let out_arg = out.to_string_lossy().into_owned();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["run", "--no-tables", "--exact", "table:multiply:bf16:nan-either", "--out", &out_arg],
            &["--no-tables", "--exact `table:multiply:bf16:nan-either`", "is one"],
        ),
        (
            &["run", "--exhaustive", "--exact", "array-api:cpu:add:f32:edges", "--out", &out_arg],
            &["--exhaustive", "--exact `array-api:cpu:add:f32:edges` is a sampled check"],
        ),
        (
            &["list", "--exhaustive", "--exact", "table:multiply:bf16:nan-either"],
            &["--exhaustive", "--exact"],
        ),
        (
            &["run", "--exhaustive", "--layouts-large", "--out", &out_arg],
            &["'--exhaustive' cannot be used with '--layouts-large'"],
        ),
        (&["oracle-agreement", "--cases", "0"], &["--cases", "`0` is not a number of inputs of 1 or more"]),
    ];
    for (args, says) in cases {
        let (code, stderr) = opspec(args);
        assert_eq!(code, 2, "opspec {args:?}: {stderr}");
        for s in *says {
            assert!(stderr.contains(s), "opspec {args:?} does not say {s:?}: {stderr}");
        }
    }
    // A sweep check is what --exhaustive runs: --exact may name one.
    let (code, stderr) = opspec(&["list", "--exhaustive", "--exact", "array-api:cpu:add:f16:exhaustive"]);
    assert_eq!(code, 0, "{stderr}");
    // Slurm never sets a step of 0: it is refused, not read as 1.
    let slurm = [("ID", "1"), ("MIN", "1"), ("MAX", "1"), ("STEP", "0"), ("COUNT", "1")];
    let mut command = Command::new(env!("CARGO_BIN_EXE_opspec"));
    command.args(["list", "--shard", "auto"]);
    for name in ["OPSPEC_SHARD", "CI_NODE_INDEX", "CI_NODE_TOTAL", "JOB_COMPLETION_INDEX"] {
        command.env_remove(name);
    }
    for (part, value) in slurm {
        command.env(format!("SLURM_ARRAY_TASK_{part}"), value);
    }
    let run = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--shard auto: SLURM_ARRAY_TASK_STEP=0 is not a step"), "{stderr}");
    assert!(!out.exists(), "a refused run created its report folder");
}

/// A results file as the writer writes it (here a table self-check's, whose `suite` and
/// `adapter` are `null`, as docs/RESULTS.md says) reads back; a byte-order mark at its start is
/// skipped and one later is named; a pipe or FIFO is refused at once, saying why, not waited on.
#[cfg(unix)]
#[test]
fn results_files_as_written_with_a_bom_or_through_a_pipe() {
    let dir = std::env::temp_dir().join(format!("opspec-broken-results-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let arg = |p: &Path| p.to_string_lossy().into_owned();
    let run = dir.join("run");
    let (code, stderr) = opspec(&["run", "--exact", "table:multiply:bf16:nan-either", "--out", &arg(&run)]);
    assert_eq!(code, 0, "{stderr}");
    let written = std::fs::read_to_string(run.join("results.jsonl")).unwrap();
    let record = written.lines().nth(1).unwrap();
    assert!(
        record.contains(r#""id":"table:multiply:bf16:nan-either","suite":null,"adapter":null"#),
        "{record}"
    );
    let results_doc = std::fs::read_to_string(Path::new(REPO).join("docs/RESULTS.md")).unwrap();
    assert!(
        results_doc.contains("`suite` and `adapter` are `null` for a table\nself-check"),
        "docs/RESULTS.md"
    );
    let report = |file: &Path| opspec(&["report", &arg(file), "--out", &arg(&dir.join("report"))]);
    let (code, stderr) = report(&run.join("results.jsonl"));
    assert_eq!(code, 0, "{stderr}");
    // `suite: table` is not the part the id names; parts left out are not checked.
    let table_suite = dir.join("table-suite.jsonl");
    std::fs::write(
        &table_suite,
        written.replacen(r#""suite":null,"adapter":null,"#, r#""suite":"table","#, 1),
    )
    .unwrap();
    let (code, stderr) = report(&table_suite);
    assert!(code == 2 && stderr.contains("table-suite.jsonl:2:") && stderr.contains("`suite`"), "{stderr}");
    let left_out = dir.join("left-out.jsonl");
    std::fs::write(&left_out, written.replacen(r#""suite":null,"adapter":null,"#, "", 1)).unwrap();
    assert_eq!(report(&left_out).0, 0);
    // A byte-order mark.
    let bom = dir.join("bom.jsonl");
    std::fs::write(&bom, format!("\u{feff}{written}")).unwrap();
    let (code, stderr) = report(&bom);
    assert_eq!(code, 0, "{stderr}");
    let (first, rest) = written.split_once('\n').unwrap();
    std::fs::write(&bom, format!("{first}\n\u{feff}{rest}")).unwrap();
    let (code, stderr) = report(&bom);
    assert!(code == 2 && stderr.contains("bom.jsonl:2: a byte-order mark (U+FEFF)"), "{stderr}");
    // A FIFO no one writes to, and a pipe on stdin.
    let fifo = dir.join("fifo.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (code, stderr) = report(&fifo);
    assert!(code == 2 && stderr.contains("fifo.jsonl: is not a regular file (a pipe"), "{stderr}");
    let mut piped = Command::new(env!("CARGO_BIN_EXE_opspec"))
        .args(["report", "/dev/stdin", "--out", &arg(&dir.join("report"))])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = piped.stdin.take().unwrap();
    let _ = std::io::Write::write_all(&mut stdin, written.as_bytes());
    drop(stdin);
    let out = piped.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(2) && stderr.contains("save a stream first"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
