//! The built-in adapters, offered by name.

use std::sync::Arc;

use opspec_adapter::Adapter;
use opspec_cuda::{CudaAdapter, Scatter};

/// An adapter with the name it is offered under.
pub type NamedAdapter = (String, Arc<dyn Adapter>);

/// Names of the adapters built into opspec.
pub const BUILTIN: [&str; 4] = ["cpu", "numr", "cuda", "cuda-deterministic"];

/// The built-in adapter called `name`, or why it cannot be had.
pub fn builtin(name: &str) -> Result<Arc<dyn Adapter>, String> {
    match name {
        "cpu" => Ok(Arc::new(opspec_cpu::CpuAdapter::new())),
        // The real numr crate (0.14.0), CPU runtime.
        "numr" => Ok(Arc::new(opspec_numr::NumrAdapter::new())),
        // Without a GPU these answer every `supports` with the reason, so their checks are
        // reported as skipped.
        "cuda" => Ok(Arc::new(CudaAdapter::new_or_unavailable(Scatter::Atomic))),
        "cuda-deterministic" => Ok(Arc::new(CudaAdapter::new_or_unavailable(Scatter::Deterministic))),
        other => Err(format!("unknown adapter `{other}` (built in: {})", BUILTIN.join(", "))),
    }
}

/// The adapter named `name` among `adapters`.
pub fn find_adapter<'a>(adapters: &'a [NamedAdapter], name: &str) -> Option<&'a NamedAdapter> {
    adapters.iter().find(|(n, _)| n == name)
}
