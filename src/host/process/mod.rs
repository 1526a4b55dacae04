//! Out-of-process adapters: the wire protocol of `docs/PROTOCOL.md`, [`ProcessAdapter`] (the
//! host side, an [`Adapter`](opspec_adapter::Adapter) whose implementation runs in worker
//! processes) and [`serve`] (the worker side, for any adapter).

mod adapter;
pub mod frame;
mod serve;
pub mod wire;
mod worker;

#[cfg(all(test, unix))]
mod tests;

pub use adapter::{CallArg, ProcessAdapter, ProcessOptions, STRIKES};
pub use serve::{protocol_stdout, serve};
pub use worker::Launch;
