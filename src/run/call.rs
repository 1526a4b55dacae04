//! Calling an adapter so that an error, a panic or a hang becomes a failed check.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

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
