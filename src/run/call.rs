//! Calling an adapter: the one place that maps an operation to an adapter method, and the
//! guard that turns a panic or a hang into a failed check.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use opspec_adapter::{Adapter, AdapterError, DType, OpKind, Tensor};

/// Calls `op` on `operands`; a destination-passing operation writes into a fresh zeroed
/// tensor of `out_dtype` shaped like the first operand. Scalar operands and scatter-add take
/// arguments of their own (`Adapter::binary_scalar`, `Adapter::scatter_add`).
pub fn apply(
    adapter: &dyn Adapter,
    op: OpKind,
    operands: &[Tensor],
    out_dtype: DType,
) -> Result<Tensor, AdapterError> {
    let arity = match op {
        OpKind::Unary(_) => 1,
        OpKind::Ternary(_) => 3,
        _ => 2,
    };
    if operands.len() != arity {
        return Err(AdapterError::unsupported(format!(
            "{op} takes {arity} operands, {} given",
            operands.len()
        )));
    }
    match op {
        OpKind::Unary(u) => adapter.unary(u, &operands[0]),
        OpKind::Binary(b) => adapter.binary(b, &operands[0], &operands[1]),
        OpKind::Ternary(t) => adapter.ternary(t, &operands[0], &operands[1], &operands[2]),
        OpKind::BinaryInto(b) => Tensor::zeros(out_dtype, operands[0].shape())
            .and_then(|mut out| adapter.binary_into(b, &operands[0], &operands[1], &mut out).map(|()| out)),
        other => Err(AdapterError::unsupported(format!("{other} is not called on tensors alone"))),
    }
}

/// [`apply`] on its own thread, under [`guarded`].
pub fn apply_guarded(
    adapter: &Arc<dyn Adapter>,
    op: OpKind,
    operands: Vec<Tensor>,
    out_dtype: DType,
    timeout: Duration,
) -> Result<Result<Tensor, AdapterError>, String> {
    let adapter = Arc::clone(adapter);
    guarded(timeout, move || apply(adapter.as_ref(), op, &operands, out_dtype))
}

/// Runs `call` on its own thread; returns its result, or the reason it gave none.
///
/// A call that outlives `timeout` is abandoned (its thread keeps running until it returns, as
/// Rust cannot stop a thread), and the check fails with a time-out.
pub fn guarded<T: Send + 'static>(
    timeout: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (send, receive) = mpsc::channel();
    thread::Builder::new()
        .name("adapter-call".into())
        .spawn(move || {
            let outcome = catch_unwind(AssertUnwindSafe(call)).map_err(|payload| {
                if let Some(s) = payload.downcast_ref::<&str>() {
                    s.to_string()
                } else if let Some(s) = payload.downcast_ref::<String>() {
                    s.clone()
                } else {
                    "a non-string panic payload".to_string()
                }
            });
            // The receiver is gone only after a time-out; nothing is left to tell.
            let _ = send.send(outcome);
        })
        .map_err(|e| format!("cannot start the adapter thread: {e}"))?;
    match receive.recv_timeout(timeout) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(panic)) => Err(format!("the adapter panicked: {panic}")),
        Err(_) => Err(format!("the adapter did not return within {} s", timeout.as_secs_f64())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_panics_and_hangs() {
        // Generous for the calls that return (printing a panic's backtrace can take a while on
        // a busy machine); short for the one that hangs.
        let t = Duration::from_secs(30);
        assert_eq!(guarded(t, || 5), Ok(5));
        let panicked = guarded(t, || -> i32 { panic!("boom") }).unwrap_err();
        assert!(panicked.contains("panicked: boom"), "{panicked}");
        let hung = guarded(Duration::from_millis(200), || thread::sleep(Duration::from_secs(5))).unwrap_err();
        assert!(hung.contains("did not return"), "{hung}");
    }
}
