//! `adapter-host`: a C library or a built-in adapter served over the wire protocol on stdin
//! and stdout.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use opspec_adapter::Adapter;

use crate::verdict;

/// `opspec adapter-host`: serves a C library or a built-in adapter on stdin and stdout.
pub(super) fn adapter_host(lib: Option<&Path>, config: Option<&str>, builtin: Option<&str>) -> ExitCode {
    serve_stdio(|| match (lib, builtin) {
        (Some(path), _) => Ok(Arc::new(crate::host::ffi::LibAdapter::open(path, config)?)),
        (None, Some(name)) => crate::host::builtin(name),
        (None, None) => Err("adapter-host needs --lib or --builtin".to_string()),
    })
}

/// Serves the adapter `open` gives over the wire protocol on stdin and stdout (a worker's
/// life); exit 2 with the reason when it cannot.
pub(crate) fn serve_stdio(open: impl FnOnce() -> Result<Arc<dyn Adapter>, String>) -> ExitCode {
    // Taken before the adapter opens (a library loads), so that nothing it prints can reach
    // the protocol.
    #[cfg(unix)]
    let output = crate::host::process::protocol_stdout();
    #[cfg(not(unix))]
    let output: std::io::Result<std::io::Stdout> = Ok(std::io::stdout());
    let served = output
        .map_err(|e| format!("cannot keep stdout for the protocol: {e}"))
        .and_then(|output| crate::host::process::serve(open()?.as_ref(), std::io::stdin().lock(), output));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(verdict::EXIT_BAD_INPUT)
        }
    }
}
