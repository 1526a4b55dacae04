//! Adapters by name: the ones built into this build of opspec (features `cpu`, `numr` and
//! `cuda`, all on by default), specs (`NAME=SPEC`) for adapters that run in worker processes
//! (`process:…`), are C libraries served by `opspec adapter-host` (`lib:…`) or Python libraries
//! driven by the embedded Python worker (`python:…`), and the ones a caller offers (the Rust
//! vendor harness offers the vendor's): an [`AdapterSet`]. Everything that reaches an
//! implementation lives here: the wire protocol's host and worker ([`process`]), C libraries
//! ([`ffi`]), the Python worker ([`python`]) and the library warnings of calls ([`warnings`]).

pub mod ffi;
pub mod process;
pub mod python;
pub mod warnings;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use opspec_adapter::Adapter;

use crate::host::process::{Launch, ProcessAdapter, ProcessOptions};
use crate::host::python::PythonSpec;
use crate::spec::id::is_name;

/// An adapter with the name it is offered under.
pub type NamedAdapter = (String, Arc<dyn Adapter>);

/// The name of an adapter that could not be started, and why.
pub type Unavailable = (String, String);

/// Names of the adapters built into this build of opspec.
pub const BUILTIN: &[&str] = &[
    #[cfg(feature = "cpu")]
    "cpu",
    #[cfg(feature = "numr")]
    "numr",
    #[cfg(feature = "cuda")]
    "cuda",
    #[cfg(feature = "cuda")]
    "cuda-deterministic",
];

/// Every built-in adapter opspec has, with the feature that builds it in.
const FEATURES: [(&str, &str); 4] =
    [("cpu", "cpu"), ("numr", "numr"), ("cuda", "cuda"), ("cuda-deterministic", "cuda")];

/// The built-in adapter called `name`, or why it cannot be had.
pub fn builtin(name: &str) -> Result<Arc<dyn Adapter>, String> {
    match name {
        #[cfg(feature = "cpu")]
        "cpu" => Ok(Arc::new(opspec_cpu::CpuAdapter::new())),
        // The real numr crate (0.14.0), CPU runtime.
        #[cfg(feature = "numr")]
        "numr" => Ok(Arc::new(opspec_numr::NumrAdapter::new())),
        // Without a GPU these answer every `supports` with the reason, so their checks are
        // reported as skipped.
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Arc::new(opspec_cuda::CudaAdapter::new_or_unavailable(opspec_cuda::Scatter::Atomic))),
        #[cfg(feature = "cuda")]
        "cuda-deterministic" => {
            Ok(Arc::new(opspec_cuda::CudaAdapter::new_or_unavailable(opspec_cuda::Scatter::Deterministic)))
        }
        other => Err(not_built_in(other)),
    }
}

/// Why `name` is not a built-in adapter of this build.
fn not_built_in(name: &str) -> String {
    match FEATURES.iter().find(|(n, _)| *n == name) {
        Some((_, feature)) => {
            format!("adapter `{name}` is not built into this opspec (it needs the feature `{feature}`)")
        }
        None => format!("unknown adapter `{name}` (built in: {})", names_or_none(BUILTIN)),
    }
}

fn names_or_none(names: &[&str]) -> String {
    if names.is_empty() { "none".to_string() } else { names.join(", ") }
}

/// The adapter named `name` among `adapters`.
pub fn find_adapter<'a>(adapters: &'a [NamedAdapter], name: &str) -> Option<&'a NamedAdapter> {
    adapters.iter().find(|(n, _)| n == name)
}

/// Where an adapter comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// One of [`BUILTIN`], in this process.
    Builtin(String),
    /// `process:PROGRAM ARG…`: a worker that speaks `docs/PROTOCOL.md`.
    Process(Launch),
    /// `lib:PATH [CONFIG]`: a C ABI library, served by `opspec adapter-host` in a worker.
    Lib { path: PathBuf, config: Option<String> },
    /// `python:BACKEND [python=PATH] [KEY=VALUE…]`: a Python library through the Python worker.
    Python(PythonSpec),
}

/// A parsed `--adapter` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSpec {
    /// The name in check ids, reports and the expectations file's name.
    pub name: String,
    /// The spec as given (without `NAME=`).
    pub spec: String,
    pub source: Source,
}

/// Reads `NAME=SPEC` or `SPEC`: a built-in name, `process:PROGRAM ARG…`, `lib:PATH [CONFIG]`
/// or `python:BACKEND [KEY=VALUE…]`. Without `NAME=` the name is the built-in's, derived from
/// the program's or library's file name (`lib:target/libc_example.so` is `c-example`), or the
/// Python backend's (`python:array_api_strict` is `array-api-strict`).
pub fn parse_spec(text: &str) -> Result<AdapterSpec, String> {
    let (name, spec) = match text.split_once('=') {
        Some((name, spec)) if !name.contains(':') && !name.contains(char::is_whitespace) => {
            (Some(name), spec)
        }
        _ => (None, text),
    };
    let source = match spec.split_once(':') {
        Some(("process", rest)) => {
            let mut words = rest.split_whitespace().map(str::to_string);
            let program = words.next().ok_or_else(|| format!("`{text}`: `process:` needs a program"))?;
            Source::Process(Launch { program, args: words.collect() })
        }
        Some(("lib", rest)) => {
            let rest = rest.trim_start();
            let (path, config) = match rest.split_once(char::is_whitespace) {
                Some((path, config)) => (path, Some(config.trim().to_string())),
                None => (rest, None),
            };
            if path.is_empty() {
                return Err(format!("`{text}`: `lib:` needs a library path"));
            }
            Source::Lib { path: path.into(), config }
        }
        Some(("python", rest)) => {
            Source::Python(PythonSpec::parse(rest).map_err(|e| format!("`{text}`: {e}"))?)
        }
        _ if BUILTIN.contains(&spec) => Source::Builtin(spec.to_string()),
        _ if FEATURES.iter().any(|(n, _)| *n == spec) => return Err(not_built_in(spec)),
        _ if !is_name(spec) || spec == "table" => {
            return Err(format!(
                "`{spec}` is not an adapter name (lowercase letters, digits and `-`; `table` is reserved) \
                 nor a spec (NAME=process:PROGRAM ARG… or NAME=lib:PATH)"
            ));
        }
        _ => {
            return Err(format!(
                "unknown adapter `{spec}` (built in: {}; others are NAME=process:PROGRAM ARG…, NAME=lib:PATH or NAME=python:BACKEND)",
                names_or_none(BUILTIN)
            ));
        }
    };
    let name = match (name, &source) {
        (Some(n), _) => n.to_string(),
        (None, Source::Builtin(b)) => b.clone(),
        (None, Source::Process(l)) => derived_name(Path::new(&l.program), false),
        (None, Source::Lib { path, .. }) => derived_name(path, true),
        (None, Source::Python(p)) => p.derived_name(),
    };
    if !is_name(&name) || name == "table" {
        return Err(format!(
            "`{text}`: `{name}` is not an adapter name (lowercase letters, digits and `-`; `table` is reserved): \
             name it as NAME=SPEC"
        ));
    }
    Ok(AdapterSpec { name, spec: spec.to_string(), source })
}

/// A file's stem in the id grammar: lowercase, `_` and `.` as `-`, a library's `lib` dropped.
fn derived_name(path: &Path, library: bool) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default();
    let stem = if library { stem.strip_prefix("lib").unwrap_or(&stem).to_string() } else { stem };
    stem.replace(['_', '.'], "-")
}

/// Reads every `--adapter` argument; two with one name are an error.
pub fn parse_specs(texts: &[String]) -> Result<Vec<AdapterSpec>, String> {
    let specs = texts.iter().map(|t| parse_spec(t)).collect::<Result<Vec<_>, _>>()?;
    for (i, s) in specs.iter().enumerate() {
        if specs[..i].iter().any(|o| o.name == s.name) {
            return Err(format!("two adapters are named `{}`: name one of them as NAME=SPEC", s.name));
        }
    }
    Ok(specs)
}

/// How external adapters are started.
#[derive(Clone, Debug)]
pub struct StartOptions {
    /// The run's `--timeout`: a worker's `hello` may take this long, and a call a little less
    /// (`docs/PROTOCOL.md`), so that the worker's own story reaches the check.
    pub timeout: Duration,
    /// The `opspec` executable that serves `lib:` adapters (`adapter-host`).
    pub host: PathBuf,
}

impl StartOptions {
    /// With this executable as the host of `lib:` adapters.
    pub fn new(timeout: Duration) -> StartOptions {
        let host = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("opspec"));
        StartOptions { timeout, host }
    }
}

/// Starts the adapter `spec` describes; the error says why it is unavailable.
pub fn start(spec: &AdapterSpec, options: &StartOptions) -> Result<Arc<dyn Adapter>, String> {
    let launch = match &spec.source {
        Source::Builtin(name) => return builtin(name),
        Source::Process(launch) => launch.clone(),
        Source::Lib { path, config } => {
            let mut args = vec!["adapter-host".to_string(), "--lib".to_string(), path.display().to_string()];
            if let Some(c) = config {
                args.extend(["--config".to_string(), c.clone()]);
            }
            Launch { program: options.host.display().to_string(), args }
        }
        Source::Python(p) => {
            p.launch().map_err(|e| format!("adapter `{}` ({}): {e}", spec.name, spec.spec))?
        }
    };
    let margin = (options.timeout / 20).min(Duration::from_secs(1));
    let adapter = ProcessAdapter::start(ProcessOptions {
        name: spec.name.clone(),
        spec: spec.spec.clone(),
        launch,
        call_timeout: options.timeout - margin,
        start_timeout: options.timeout,
    })?;
    Ok(Arc::new(adapter))
}

/// Starts an offered adapter when a command needs it (with the run's [`StartOptions`]), or
/// says why it cannot.
pub type Start = Box<dyn Fn(&StartOptions) -> Result<Arc<dyn Adapter>, String> + Send + Sync>;

/// The adapters a command may name: the built-in ones, `--adapter NAME=SPEC`s, and those a
/// caller offers, each started only when a check needs it; and the one a command runs when no
/// `--adapter` is given.
pub struct AdapterSet {
    offered: Vec<(String, Start)>,
    default: Option<String>,
}

impl AdapterSet {
    /// The built-in adapters of this build; `cpu` (where built in) is the default.
    pub fn builtin() -> AdapterSet {
        AdapterSet { offered: Vec::new(), default: BUILTIN.contains(&"cpu").then(|| "cpu".to_string()) }
    }

    /// Adds the adapter `name`, started by `start`, and makes it the default. The name follows
    /// the check-id grammar (lowercase letters, digits and `-`; `table` is reserved) and must
    /// not be taken.
    pub fn offer(mut self, name: &str, start: Start) -> Result<AdapterSet, String> {
        if !is_name(name) || name == "table" {
            return Err(format!(
                "`{name}` is not an adapter name (lowercase letters, digits and `-`; `table` is reserved)"
            ));
        }
        if BUILTIN.contains(&name) || self.offers(name) {
            return Err(format!(
                "the adapter name `{name}` is taken (by a built-in adapter): choose another"
            ));
        }
        self.offered.push((name.to_string(), start));
        self.default = Some(name.to_string());
        Ok(self)
    }

    /// Whether `name` is one of the offered adapters.
    pub fn offers(&self, name: &str) -> bool {
        self.offered.iter().any(|(n, _)| n == name)
    }

    /// The adapter a command runs when none is named.
    pub fn default_name(&self) -> Result<&str, String> {
        self.default.as_deref().ok_or_else(|| {
            format!("no default adapter: name one with --adapter (built in: {})", names_or_none(BUILTIN))
        })
    }

    /// The names a command may use: the built-in ones, the offered ones, and those of `specs`.
    pub fn available<'a>(&'a self, specs: &'a [AdapterSpec]) -> Vec<&'a str> {
        let mut names: Vec<&str> = BUILTIN.to_vec();
        names.extend(self.offered.iter().map(|(n, _)| n.as_str()));
        for spec in specs {
            if !names.contains(&spec.name.as_str()) {
                names.push(&spec.name);
            }
        }
        names
    }

    /// Starts every adapter in `names`, once each: an offered one by its [`Start`], one of
    /// `specs` by its spec, any other as a built-in. Returns those that started, and the name
    /// and reason of each that did not (its checks are unavailable, the run goes on).
    pub fn start_for(
        &self,
        names: &[&str],
        specs: &[AdapterSpec],
        options: &StartOptions,
    ) -> Result<(Vec<NamedAdapter>, Vec<Unavailable>), String> {
        let mut names = names.to_vec();
        names.sort_unstable();
        names.dedup();
        let (mut started, mut unavailable) = (Vec::new(), Vec::new());
        for name in names {
            let outcome = match self.offered.iter().find(|(n, _)| n == name) {
                Some((_, start)) => start(options).map_err(|e| format!("adapter `{name}`: {e}")),
                None => {
                    let spec = specs
                        .iter()
                        .find(|s| s.name == name)
                        .cloned()
                        .map_or_else(|| parse_spec(name), Ok)?;
                    start(&spec, options)
                }
            };
            match outcome {
                Ok(a) => started.push((name.to_string(), a)),
                Err(reason) => unavailable.push((name.to_string(), reason)),
            }
        }
        Ok((started, unavailable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_names_follow_the_grammar_and_are_unique() {
        let start = || Box::new(|_: &StartOptions| Err("not needed".to_string())) as Start;
        let set = AdapterSet::builtin().offer("mylib", start()).unwrap();
        assert_eq!(set.default_name(), Ok("mylib"));
        assert!(set.offers("mylib") && set.available(&[]).contains(&"mylib"));
        assert!(set.offer("mylib", start()).err().unwrap().contains("taken"));
        for bad in ["table", "MyLib", "my_lib", ""] {
            let err = AdapterSet::builtin().offer(bad, start()).err().unwrap();
            assert!(err.contains("is not an adapter name"), "{bad}: {err}");
        }
        for &name in BUILTIN {
            assert!(AdapterSet::builtin().offer(name, start()).err().unwrap().contains("taken"));
        }
    }

    #[test]
    fn builtin_names_follow_the_features() {
        for (name, feature) in FEATURES {
            match builtin(name) {
                Ok(_) => assert!(BUILTIN.contains(&name), "{name} built without its feature"),
                Err(e) => {
                    assert!(!BUILTIN.contains(&name), "{name}: {e}");
                    assert!(e.contains(&format!("feature `{feature}`")), "{e}");
                }
            }
        }
        assert!(builtin("nope").err().unwrap().starts_with("unknown adapter `nope`"));
    }

    #[test]
    fn specs_name_their_adapters() {
        let lib = parse_spec("mylib=lib:path/to/libfoo.so").unwrap();
        assert_eq!(
            (lib.name.as_str(), &lib.source),
            ("mylib", &Source::Lib { path: "path/to/libfoo.so".into(), config: None })
        );
        let derived = parse_spec("lib:build/libopspec_example.so threads=1").unwrap();
        assert_eq!(derived.name, "opspec-example");
        assert_eq!(
            derived.source,
            Source::Lib { path: "build/libopspec_example.so".into(), config: Some("threads=1".into()) }
        );
        let w = parse_spec("w=process:env A=1 python3 worker.py").unwrap();
        let launch =
            Launch { program: "env".into(), args: vec!["A=1".into(), "python3".into(), "worker.py".into()] };
        assert_eq!((w.name.as_str(), w.source), ("w", Source::Process(launch)));
        assert_eq!(parse_spec("cpu").unwrap().source, Source::Builtin("cpu".into()));
        assert_eq!(parse_spec("fast=cpu").unwrap().name, "fast");
    }

    #[test]
    fn bad_specs_say_why() {
        assert!(parse_spec("frob").unwrap_err().contains("unknown adapter `frob`"));
        assert!(parse_spec("Bad:Name").unwrap_err().contains("is not an adapter name"));
        assert!(parse_spec("Big=cpu").unwrap_err().contains("not an adapter name"));
        assert!(parse_spec("table=cpu").unwrap_err().contains("`table` is reserved"));
        assert!(parse_spec("process:").unwrap_err().contains("needs a program"));
        assert!(parse_spec("lib:").unwrap_err().contains("needs a library path"));
        assert!(parse_spec("process:./wörker").unwrap_err().contains("NAME=SPEC"));
        let twice = parse_specs(&["cpu".into(), "cpu".into()]).unwrap_err();
        assert!(twice.contains("two adapters are named `cpu`"), "{twice}");
    }

    #[test]
    fn an_adapter_that_cannot_start_is_unavailable_with_the_reason() {
        let specs = parse_specs(&["gone=process:/nonexistent/worker".into(), "cpu".into()]).unwrap();
        let (started, unavailable) = AdapterSet::builtin()
            .start_for(&["gone", "cpu"], &specs, &StartOptions::new(Duration::from_secs(5)))
            .unwrap();
        assert_eq!(started.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["cpu"]);
        let (name, reason) = &unavailable[0];
        assert_eq!(name, "gone");
        assert!(
            reason.contains("adapter `gone`") && reason.contains("cannot start `/nonexistent/worker`"),
            "{reason}"
        );
    }
}
