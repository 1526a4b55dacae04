//! The built-in adapters, offered by name.

use std::sync::Arc;

use opspec_adapter::Adapter;

/// An adapter with the name it is offered under.
pub type NamedAdapter = (String, Arc<dyn Adapter>);

/// Names of the adapters built into opspec.
pub const BUILTIN: [&str; 1] = ["cpu"];

/// The built-in adapter called `name`, or why it cannot be had.
pub fn builtin(name: &str) -> Result<Arc<dyn Adapter>, String> {
    match name {
        "cpu" => Ok(Arc::new(opspec_cpu::CpuAdapter::new())),
        other => Err(format!("unknown adapter `{other}` (built in: {})", BUILTIN.join(", "))),
    }
}
