//! `python:BACKEND [KEY=VALUE…]` adapters: the Python worker of `adapters/python/opspec_worker`
//! (embedded in the binary, written to a temporary folder named by its contents' hash) run
//! with the interpreter the spec names, speaking `docs/PROTOCOL.md`.

use std::path::{Path, PathBuf};

use crate::bits::hash::fnv1a;
use crate::host::process::Launch;

/// The interpreter a spec without `python=` uses: `$OPSPEC_PYTHON`, else `python3`.
pub const PYTHON_VARIABLE: &str = "OPSPEC_PYTHON";

/// The worker's files, embedded so that a copied binary needs no source tree.
const FILES: [(&str, &str); 5] = [
    ("__init__.py", include_str!("../../adapters/python/opspec_worker/__init__.py")),
    ("__main__.py", include_str!("../../adapters/python/opspec_worker/__main__.py")),
    ("protocol.py", include_str!("../../adapters/python/opspec_worker/protocol.py")),
    ("backends.py", include_str!("../../adapters/python/opspec_worker/backends.py")),
    ("worker.py", include_str!("../../adapters/python/opspec_worker/worker.py")),
];

/// A parsed `python:` spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PythonSpec {
    /// `numpy`, `jax`, … or `module=PATH` (any array-API namespace).
    pub backend: String,
    /// `python=PATH`, if given.
    pub python: Option<String>,
    /// The other `KEY=VALUE` options, handed to the worker (`x64=1`).
    pub options: Vec<String>,
}

impl PythonSpec {
    /// Reads `BACKEND [python=PATH] [KEY=VALUE…]`.
    pub fn parse(text: &str) -> Result<PythonSpec, String> {
        let mut words = text.split_whitespace();
        let backend = words.next().ok_or("`python:` needs a backend: numpy, jax, … or module=PATH")?;
        let (mut python, mut options) = (None, Vec::new());
        for word in words {
            match word.split_once('=') {
                Some(("python", path)) if !path.is_empty() => python = Some(path.to_string()),
                Some((key, value)) if !key.is_empty() && !value.is_empty() => options.push(word.to_string()),
                _ => return Err(format!("`python:{text}`: option `{word}` is not KEY=VALUE")),
            }
        }
        Ok(PythonSpec { backend: backend.to_string(), python, options })
    }

    /// The adapter name it gets without `NAME=`: the backend or module path in the id
    /// grammar (`array_api_strict` is `array-api-strict`, `module=array_api_compat.torch` is
    /// `array-api-compat-torch`).
    pub fn derived_name(&self) -> String {
        let backend = self.backend.strip_prefix("module=").unwrap_or(&self.backend);
        backend.to_lowercase().replace(['_', '.'], "-")
    }

    /// How to start its worker: the interpreter, with the embedded worker on `sys.path`.
    pub fn launch(&self) -> Result<Launch, String> {
        let python = match &self.python {
            Some(p) => p.clone(),
            None => std::env::var(PYTHON_VARIABLE).unwrap_or_else(|_| "python3".to_string()),
        };
        let dir = worker_dir()?;
        let boot = "import sys; sys.path.insert(0, sys.argv[1]); \
                    from opspec_worker.__main__ import main; main(sys.argv[2:])";
        let mut args = vec!["-B".to_string(), "-c".to_string(), boot.to_string(), dir.display().to_string()];
        args.push(self.backend.clone());
        args.extend(self.options.iter().cloned());
        Ok(Launch { program: python, args })
    }
}

/// The folder holding the embedded worker package, written once per content hash (into a
/// private folder first, then renamed, so concurrent runs never see half a package).
fn worker_dir() -> Result<PathBuf, String> {
    let all: Vec<u8> =
        FILES.iter().flat_map(|(name, text)| [name.as_bytes(), text.as_bytes()].concat()).collect();
    let base = std::env::temp_dir();
    let dir = base.join(format!("opspec-python-{:016x}", fnv1a(&all)));
    if dir.join("opspec_worker").join(FILES[4].0).is_file() {
        return Ok(dir);
    }
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let private = base.join(format!("opspec-python-{}-{nanos}.tmp", std::process::id()));
    let written = write_package(&private).and_then(|()| match std::fs::rename(&private, &dir) {
        Ok(()) => Ok(()),
        // Another run renamed its copy first.
        Err(_) if dir.join("opspec_worker").join(FILES[4].0).is_file() => {
            let _ = std::fs::remove_dir_all(&private);
            Ok(())
        }
        Err(e) => Err(e),
    });
    written
        .map(|()| dir.clone())
        .map_err(|e| format!("cannot write the Python worker to {}: {e}", dir.display()))
}

fn write_package(root: &Path) -> std::io::Result<()> {
    let package = root.join("opspec_worker");
    std::fs::create_dir_all(&package)?;
    for (name, text) in FILES {
        std::fs::write(package.join(name), text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_name_backends_and_options() {
        let jax = PythonSpec::parse("jax x64=1 python=/venv/bin/python").unwrap();
        assert_eq!(
            jax,
            PythonSpec {
                backend: "jax".into(),
                python: Some("/venv/bin/python".into()),
                options: vec!["x64=1".into()]
            }
        );
        assert_eq!(jax.derived_name(), "jax");
        let module = PythonSpec::parse("module=array_api_compat.numpy").unwrap();
        assert_eq!(module.derived_name(), "array-api-compat-numpy");
        assert_eq!(PythonSpec::parse("array_api_strict").unwrap().derived_name(), "array-api-strict");
        assert!(PythonSpec::parse("").unwrap_err().contains("needs a backend"));
        assert!(PythonSpec::parse("numpy fast").unwrap_err().contains("`fast` is not KEY=VALUE"));
    }

    #[test]
    fn the_worker_is_written_once_and_started_from_it() {
        let launch = PythonSpec::parse("numpy python=/opt/py").unwrap().launch().unwrap();
        assert_eq!(launch.program, "/opt/py");
        let dir = PathBuf::from(&launch.args[3]);
        for (name, text) in FILES {
            assert_eq!(std::fs::read_to_string(dir.join("opspec_worker").join(name)).unwrap(), text);
        }
        assert_eq!(launch.args[4..], ["numpy"]);
        assert_eq!(worker_dir().unwrap(), dir);
    }
}
