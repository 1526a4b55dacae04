//! The Rust vendor harness: a tensor library checks its own [`Adapter`] against the shipped
//! suites from its `tests/conformance.rs` (`harness = false` in its `Cargo.toml`, with
//! `opspec = { version = "0.1", default-features = false }` as a dev-dependency):
//!
//! ```no_run
//! # use opspec_adapter::{Adapter, DType, OpKind, Support};
//! # struct MyAdapter;
//! # impl Adapter for MyAdapter {
//! #     fn name(&self) -> &str { "mylib" }
//! #     fn version(&self) -> String { "0.1.0".into() }
//! #     fn supports(&self, _: OpKind, _: DType) -> Support { Support::Unsupported("none".into()) }
//! # }
//! use opspec::harness::Harness;
//!
//! fn main() -> std::process::ExitCode {
//!     Harness::new(MyAdapter)
//!         .suites(["array-api"])                     // default: every shipped suite
//!         .expectations("expectations/mylib.yaml")   // the library's known deviations
//!         .main()
//! }
//! ```
//!
//! The checks, their ids (`array-api:mylib:add:f32:edges`), the report (`results.jsonl`,
//! `index.html`) and the exit codes are the `opspec` command line's ([`crate::cli`], run over
//! the vendor's adapter), so `docs/RESULTS.md` describes them. The arguments after
//! `cargo test --release --test conformance --` are read as `cargo test` users write them
//! ([`USAGE`]), or as an `opspec` command (`run`, `list`, `eval`, `validate`) verbatim.
//!
//! The adapter runs in a worker process by default ([`Isolate::Process`]): the test binary
//! re-executes itself with [`WORKER_ARG`] and serves the adapter over the wire protocol
//! (`docs/PROTOCOL.md`), so a crash or hang of the vendor's code fails the checks it happened
//! in and the run goes on.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use opspec_adapter::Adapter;

use crate::cli::{self, Setup};
use crate::host::process::Launch;
use crate::host::{AdapterSet, AdapterSpec, Source, Start, StartOptions};

/// How `cargo test` arguments map onto `opspec` commands, printed by `--help`.
pub const USAGE: &str = "\
opspec conformance harness: the checks of the shipped suites against this library's adapter.

cargo test --release --test conformance -- [ARGS]

  (none)             run every selected check: `opspec run` (reports, exit codes: docs/RESULTS.md)
  FILTER             run the checks whose id has FILTER's `:`-separated segments as whole
                     segments in a row (`add:f32`), or matches a pattern (`*:{add,pow}:f16:*`):
                     `opspec run --filter FILTER` (not libtest's substring match)
  --exact ID         run exactly the check ID: `opspec run --exact ID`
  --list             print the ids of the selected checks: `opspec list` (with FILTER or --exact)
  --isolate MODE     process (the default): the adapter runs in a worker process, this binary
                     re-executed, so a crash fails checks instead of the run;
                     none: in this process, for debugging
  --nocapture, -q, --quiet, --test-threads N, --color WHEN, --format pretty|terse
                     accepted for cargo's sake; they change nothing
  run|list|eval|validate|help ...
                     an `opspec` command verbatim, over this library's adapter: `-- eval ID BITS...`
                     evaluates one input in detail, `-- run --help` lists every option

Without a command, the table self-checks (`table:...`, opspec's tables against its oracle)
run only with the library's own catalog (`Harness::root`); a verbatim command keeps the
`opspec` defaults (`run --no-tables` leaves them out).
";

/// The argument that makes the test binary its adapter's worker: it serves the adapter over
/// the wire protocol (`docs/PROTOCOL.md`) on stdin and stdout.
pub const WORKER_ARG: &str = "--opspec-harness-worker";

/// Where the vendor's adapter runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolate {
    /// In the test process: a crash of the adapter ends the run (for debugging).
    None,
    /// In a worker process (the test binary re-executed), over the wire protocol: a crash or
    /// hang fails checks, and the run goes on.
    Process,
}

impl Isolate {
    fn parse(text: &str) -> Result<Isolate, String> {
        match text {
            "none" => Ok(Isolate::None),
            "process" => Ok(Isolate::Process),
            other => Err(format!("--isolate `{other}`: expected `none` or `process`")),
        }
    }
}

/// Runs every shipped suite against `adapter`, as the test binary's arguments say: the whole
/// of a vendor's `tests/conformance.rs` can be `opspec::harness::main(MyAdapter::new())`.
pub fn main<A: Adapter + 'static>(adapter: A) -> ExitCode {
    Harness::new(adapter).main()
}

/// A vendor's conformance run: its adapter, the suites it promises, its expectations file,
/// and optionally its own catalog.
pub struct Harness<A> {
    adapter: A,
    suites: Vec<String>,
    expectations: Vec<PathBuf>,
    root: Option<PathBuf>,
    out: Option<PathBuf>,
    isolate: Isolate,
}

impl<A: Adapter + 'static> Harness<A> {
    /// Checks `adapter` under the name it gives ([`Adapter::name`]), which appears in the
    /// check ids, the report and the expectations file's `adapter:`.
    pub fn new(adapter: A) -> Harness<A> {
        Harness {
            adapter,
            suites: Vec::new(),
            expectations: Vec::new(),
            root: None,
            out: None,
            isolate: Isolate::Process,
        }
    }

    /// Only these suites (default: every suite of the catalog).
    pub fn suites<S: Into<String>>(mut self, suites: impl IntoIterator<Item = S>) -> Harness<A> {
        self.suites = suites.into_iter().map(Into::into).collect();
        self
    }

    /// The library's known deviations: an expectations file (`docs/RESULTS.md`) kept in its
    /// own repository (`adapter:` names the adapter); a relative path is relative to the
    /// crate's root, where `cargo test` runs. Files add up; `--expectations FILE` adds more.
    pub fn expectations(mut self, path: impl Into<PathBuf>) -> Harness<A> {
        self.expectations.push(path.into());
        self
    }

    /// The library's own catalog (a folder of `specs/`, `suites/`, `expectations/`, as
    /// `opspec --root`) instead of the shipped one; its tables' self-checks run too.
    pub fn root(mut self, dir: impl Into<PathBuf>) -> Harness<A> {
        self.root = Some(dir.into());
        self
    }

    /// Where the report goes (default: `opspec-report/<adapter>/` in the profile's folder of the
    /// target directory, e.g. `target/release/opspec-report/mylib/`).
    pub fn out(mut self, dir: impl Into<PathBuf>) -> Harness<A> {
        self.out = Some(dir.into());
        self
    }

    /// Where the adapter runs when the command line does not say (`--isolate`; default: in a
    /// worker process).
    pub fn isolate(mut self, isolate: Isolate) -> Harness<A> {
        self.isolate = isolate;
        self
    }

    /// Runs the command the process's arguments give.
    pub fn main(self) -> ExitCode {
        self.main_with(std::env::args_os())
    }

    /// Runs the command `args` give (the program's name first); the exit code follows
    /// `docs/RESULTS.md`.
    pub fn main_with(self, args: impl IntoIterator<Item = OsString>) -> ExitCode {
        let mut args = args.into_iter();
        let program = args.next().unwrap_or_else(|| OsString::from("conformance"));
        let args: Vec<OsString> = args.collect();
        if args.first().is_some_and(|a| a == WORKER_ARG) {
            let adapter: Arc<dyn Adapter> = Arc::new(self.adapter);
            return cli::serve_stdio(|| Ok(adapter));
        }
        let (isolate, command) = match translate(args, self.root.is_some()) {
            Ok(Parsed::Help) => {
                print!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            Ok(Parsed::Command { isolate, command }) => (isolate.unwrap_or(self.isolate), command),
            Err(e) => {
                eprintln!("error: {e}\n\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let name = self.adapter.name().to_string();
        let exe = std::env::current_exe().ok();
        let start: Start = match (isolate, &exe) {
            (Isolate::None, _) => {
                let adapter: Arc<dyn Adapter> = Arc::new(self.adapter);
                Box::new(move |_: &StartOptions| Ok(Arc::clone(&adapter)))
            }
            (Isolate::Process, Some(exe)) => {
                let launch =
                    Launch { program: exe.display().to_string(), args: vec![WORKER_ARG.to_string()] };
                let spec = AdapterSpec {
                    name: name.clone(),
                    spec: format!("process:{} {WORKER_ARG}", launch.program),
                    source: Source::Process(launch),
                };
                Box::new(move |options: &StartOptions| crate::host::start(&spec, options))
            }
            (Isolate::Process, None) => Box::new(|_: &StartOptions| {
                Err("cannot find this test binary to run it as the adapter's worker: pass --isolate none"
                    .into())
            }),
        };
        let adapters = match AdapterSet::builtin().offer(&name, start) {
            Ok(set) => set,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        let setup = Setup {
            adapters,
            suites: self.suites,
            root: self.root,
            expectations: self.expectations,
            out: self.out.unwrap_or_else(|| default_out(exe.as_deref(), &name)),
            invocation: invocation(exe.as_deref()),
        };
        cli::main_with(setup, std::iter::once(program).chain(command))
    }
}

/// What the test binary's arguments ask for.
#[derive(Debug, PartialEq)]
enum Parsed {
    /// `--help`: the harness's usage.
    Help,
    /// An `opspec` command (its arguments, without the program's name).
    Command { isolate: Option<Isolate>, command: Vec<OsString> },
}

/// The `opspec` commands an argument list may start with, passed on verbatim.
const COMMANDS: [&str; 6] = ["run", "list", "eval", "validate", "adapter-host", "help"];

/// Reads the test binary's arguments ([`USAGE`]): `--isolate` anywhere, then an `opspec`
/// command verbatim, or `cargo test`-style arguments mapped onto `run` or `list` (leaving the
/// table self-checks out unless the library has its own catalog, `own_root`).
fn translate(args: Vec<OsString>, own_root: bool) -> Result<Parsed, String> {
    let mut words = Vec::with_capacity(args.len());
    for arg in args {
        words.push(arg.into_string().map_err(|a| format!("argument {a:?} is not UTF-8"))?);
    }
    let mut isolate = None;
    let mut rest = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let value = match word.strip_prefix("--isolate") {
            Some("") => Some(words.next().ok_or("--isolate needs a value: none or process")?),
            Some(tail) if tail.starts_with('=') => Some(tail[1..].to_string()),
            _ => None,
        };
        match value {
            Some(v) => isolate = Some(Isolate::parse(&v)?),
            None => rest.push(word),
        }
    }
    if rest.first().is_some_and(|w| COMMANDS.contains(&w.as_str())) {
        return Ok(Parsed::Command { isolate, command: rest.into_iter().map(OsString::from).collect() });
    }
    let (mut list, mut exact, mut filters) = (false, false, Vec::new());
    let mut rest = rest.into_iter();
    while let Some(word) = rest.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (word.clone(), None),
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--list" => list = true,
            "--exact" => exact = true,
            "--nocapture" | "--show-output" | "-q" | "--quiet" => {}
            "--test-threads" | "--color" | "--format" => {
                if inline.is_none() && rest.next().is_none() {
                    return Err(format!("{flag} needs a value"));
                }
            }
            f if f.starts_with('-') => {
                return Err(format!("`{word}` is not an argument of the opspec harness"));
            }
            _ => filters.push(word),
        }
    }
    if filters.len() > 1 {
        return Err(format!("one filter at most, {} given: {}", filters.len(), filters.join(" ")));
    }
    let mut command = vec![if list { "list" } else { "run" }.to_string()];
    match (filters.pop(), exact) {
        (Some(id), true) => command.extend(["--exact".to_string(), id]),
        (None, true) => return Err("--exact needs the id of a check".to_string()),
        (Some(filter), false) => command.extend(["--filter".to_string(), filter]),
        (None, false) => {}
    }
    if !own_root && !exact {
        command.push("--no-tables".to_string());
    }
    Ok(Parsed::Command { isolate, command: command.into_iter().map(OsString::from).collect() })
}

/// The report folder: `opspec-report/<adapter>` in the profile's folder of the target directory
/// (beside an `opspec` binary there, when the target directory is shared) when the binary lies
/// in cargo's `<target>/<profile>/deps/`, else in the temporary folder.
fn default_out(exe: Option<&Path>, adapter: &str) -> PathBuf {
    match exe.and_then(Path::parent).filter(|deps| deps.ends_with("deps")).and_then(Path::parent) {
        Some(profile) => profile.join("opspec-report").join(adapter),
        None => std::env::temp_dir().join("opspec-report").join(adapter),
    }
}

/// How the commands this binary prints are run again: `cargo test [--release] --test NAME --`
/// when cargo built it (`<target>/<profile>/deps/NAME-HASH`), else its path.
fn invocation(exe: Option<&Path>) -> String {
    let Some(exe) = exe else { return "conformance".to_string() };
    let stem = exe.file_stem().and_then(|s| s.to_str());
    let test = stem
        .and_then(|s| s.rsplit_once('-'))
        .filter(|(_, hash)| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
    let deps = exe.parent().filter(|p| p.ends_with("deps"));
    let profile = deps.and_then(Path::parent).and_then(Path::file_name).and_then(|p| p.to_str());
    match (test, profile) {
        (Some((name, _)), Some(profile)) => {
            let profile = match profile {
                "debug" => String::new(),
                "release" => " --release".to_string(),
                other => format!(" --profile {other}"),
            };
            format!("cargo test{profile} --test {name} --")
        }
        _ => exe.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(args: &[&str], own_root: bool) -> Result<Vec<String>, String> {
        match translate(args.iter().map(OsString::from).collect(), own_root)? {
            Parsed::Command { command, .. } => {
                Ok(command.into_iter().map(|a| a.into_string().unwrap()).collect())
            }
            Parsed::Help => Ok(vec!["<help>".to_string()]),
        }
    }

    #[test]
    fn cargo_test_arguments_map_onto_run_and_list() {
        assert_eq!(command(&[], false).unwrap(), ["run", "--no-tables"]);
        assert_eq!(command(&[], true).unwrap(), ["run"]);
        assert_eq!(
            command(&["add:f32", "--nocapture"], false).unwrap(),
            ["run", "--filter", "add:f32", "--no-tables"]
        );
        assert_eq!(
            command(&["--exact", "array-api:mylib:add:f32:edges"], false).unwrap(),
            ["run", "--exact", "array-api:mylib:add:f32:edges"]
        );
        assert_eq!(command(&["--list", "--format", "terse"], false).unwrap(), ["list", "--no-tables"]);
        assert_eq!(
            command(&["pow", "--list", "--test-threads=2"], false).unwrap(),
            ["list", "--filter", "pow", "--no-tables"]
        );
        assert_eq!(command(&["--help"], false).unwrap(), ["<help>"]);
    }

    #[test]
    fn opspec_commands_pass_verbatim_and_isolate_is_taken_anywhere() {
        let args = ["eval", "--isolate", "none", "array-api:mylib:add:f32:edges", "0x0", "0x80000000"];
        let parsed = translate(args.iter().map(OsString::from).collect(), false).unwrap();
        let expected: Vec<OsString> = ["eval", "array-api:mylib:add:f32:edges", "0x0", "0x80000000"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(parsed, Parsed::Command { isolate: Some(Isolate::None), command: expected });
        let parsed = translate(vec!["--isolate=process".into()], false).unwrap();
        assert!(matches!(parsed, Parsed::Command { isolate: Some(Isolate::Process), .. }));
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        assert!(command(&["--exact"], false).unwrap_err().contains("needs the id"));
        assert!(command(&["a", "b"], false).unwrap_err().contains("one filter at most"));
        assert!(command(&["--ignored"], false).unwrap_err().contains("`--ignored` is not an argument"));
        assert!(
            command(&["--isolate", "thread"], false).unwrap_err().contains("expected `none` or `process`")
        );
        assert!(command(&["--isolate"], false).unwrap_err().contains("needs a value"));
        assert!(command(&["--format"], false).unwrap_err().contains("needs a value"));
    }

    #[test]
    fn printed_commands_rerun_the_test_binary() {
        let exe = Path::new("/x/target/release/deps/conformance-0123456789abcdef");
        assert_eq!(invocation(Some(exe)), "cargo test --release --test conformance --");
        let exe = Path::new("/x/target/debug/deps/my-checks-0123456789abcdef");
        assert_eq!(invocation(Some(exe)), "cargo test --test my-checks --");
        let exe = Path::new("/x/target/bench-prof/deps/conformance-0123456789abcdef");
        assert_eq!(invocation(Some(exe)), "cargo test --profile bench-prof --test conformance --");
        assert_eq!(invocation(Some(Path::new("/opt/conformance"))), "/opt/conformance");
        assert_eq!(
            default_out(Some(Path::new("/x/target/release/deps/conformance-0123456789abcdef")), "mylib"),
            Path::new("/x/target/release/opspec-report/mylib")
        );
    }
}
