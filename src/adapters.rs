//! The adapters a command can run, by name: the ones built into this build of opspec
//! (features `cpu`, `numr` and `cuda`, all on by default) and any a caller offers (the Rust
//! vendor harness offers the vendor's).

use std::sync::Arc;

use opspec_adapter::Adapter;

use crate::run::Check;
use crate::run::check::is_name;

/// An adapter with the name it is offered under.
pub type NamedAdapter = (String, Arc<dyn Adapter>);

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
        other => Err(match FEATURES.iter().find(|(n, _)| *n == other) {
            Some((_, feature)) => {
                format!("adapter `{other}` is not built into this opspec (it needs the feature `{feature}`)")
            }
            None => format!("unknown adapter `{other}` (built in: {})", names_or_none(BUILTIN)),
        }),
    }
}

/// The adapter named `name` among `adapters`.
pub fn find_adapter<'a>(adapters: &'a [NamedAdapter], name: &str) -> Option<&'a NamedAdapter> {
    adapters.iter().find(|(n, _)| n == name)
}

/// Starts an adapter when a command needs it, or says why it cannot.
pub type Start = Box<dyn Fn() -> Result<Arc<dyn Adapter>, String> + Send + Sync>;

/// The adapters a command may name, each with how to start it (only the ones its checks name
/// are started), and the one it runs when no `--adapter` is given.
pub struct AdapterSet {
    entries: Vec<(String, Start)>,
    default: Option<String>,
}

impl AdapterSet {
    /// The built-in adapters of this build; `cpu` (where built in) is the default.
    pub fn builtin() -> AdapterSet {
        let entries = BUILTIN
            .iter()
            .map(|&name| (name.to_string(), Box::new(move || builtin(name)) as Start))
            .collect();
        let default = BUILTIN.contains(&"cpu").then(|| "cpu".to_string());
        AdapterSet { entries, default }
    }

    /// No adapters at all.
    pub fn empty() -> AdapterSet {
        AdapterSet { entries: Vec::new(), default: None }
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
        if self.entries.iter().any(|(n, _)| n == name) {
            return Err(format!(
                "the adapter name `{name}` is taken (by a built-in adapter): choose another"
            ));
        }
        self.entries.push((name.to_string(), start));
        self.default = Some(name.to_string());
        Ok(self)
    }

    /// The names a command may use, in the order they were added.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The adapter a command runs when none is named.
    pub fn default_name(&self) -> Result<&str, String> {
        self.default.as_deref().ok_or_else(|| {
            format!(
                "no default adapter: name one with --adapter (available: {})",
                names_or_none(&self.names())
            )
        })
    }

    /// Starts every adapter that `checks` name, once each, in name order.
    pub fn start_for(&self, checks: &[Check]) -> Result<Vec<NamedAdapter>, String> {
        let mut names: Vec<&str> = checks.iter().filter_map(|c| c.id.adapter_name()).collect();
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .map(|name| {
                let (_, start) = self.entries.iter().find(|(n, _)| n == name).ok_or_else(|| {
                    format!("unknown adapter `{name}` (available: {})", names_or_none(&self.names()))
                })?;
                start().map(|a| (name.to_string(), a)).map_err(|e| format!("adapter `{name}`: {e}"))
            })
            .collect()
    }
}

fn names_or_none(names: &[&str]) -> String {
    if names.is_empty() { "none".to_string() } else { names.join(", ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_names_follow_the_grammar_and_are_unique() {
        let start = || Box::new(|| builtin("cpu")) as Start;
        let set = AdapterSet::empty().offer("mylib", start()).unwrap();
        assert_eq!(set.default_name(), Ok("mylib"));
        assert!(set.offer("mylib", start()).err().unwrap().contains("taken"));
        for bad in ["table", "MyLib", "my_lib", ""] {
            let err = AdapterSet::empty().offer(bad, start()).err().unwrap();
            assert!(err.contains("is not an adapter name"), "{bad}: {err}");
        }
        assert!(AdapterSet::empty().default_name().unwrap_err().contains("available: none"));
    }

    #[test]
    fn builtin_names_follow_the_features() {
        let set = AdapterSet::builtin();
        assert_eq!(set.names(), BUILTIN);
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
}
