//! Calling an adapter: the one place that maps an operation to an adapter method, and the
//! guard that turns a panic, a hang or a crashed worker process into a failed check.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use opspec_adapter::{Adapter, AdapterError, DType, ErrorKind, OpKind, Tensor};

use crate::host::warnings;
use crate::oracle::fpenv;

/// Calls `op` on `operands`; a destination-passing operation writes into a fresh zeroed
/// tensor of `out_dtype` shaped like the first operand. Scalar operands and scatter-add take
/// arguments of their own (`Adapter::binary_scalar`, `Adapter::scatter_add`).
pub fn apply(
    adapter: &dyn Adapter,
    op: OpKind,
    operands: &[Tensor],
    out_dtype: DType,
) -> Result<Tensor, AdapterError> {
    let arity = op.arity();
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

/// What an adapter call hands back to [`guarded`], which must see whether it is the
/// [`ErrorKind::Crashed`] error of a host whose process faulted during the call.
pub trait Returned {
    /// That error, where the call ended so.
    fn crashed(&self) -> Option<&AdapterError>;
}

impl<T> Returned for Result<T, AdapterError> {
    fn crashed(&self) -> Option<&AdapterError> {
        self.as_ref().err().filter(|e| e.kind == ErrorKind::Crashed)
    }
}

/// A destination-passing call's outcome, with the destination as the call left it.
impl<T> Returned for (Result<(), AdapterError>, T) {
    fn crashed(&self) -> Option<&AdapterError> {
        self.0.crashed()
    }
}

/// A call for an adapter thread.
type Job = Box<dyn FnOnce() + Send>;

thread_local! {
    /// The adapter thread this thread's last [`guarded`] call returned from, kept for the next.
    static IDLE: RefCell<Option<mpsc::Sender<Job>>> = const { RefCell::new(None) };
}

/// Starts an adapter thread: it runs the calls sent to it, one after the other, until its
/// sender is dropped.
fn adapter_thread() -> Result<mpsc::Sender<Job>, String> {
    let (jobs, receive) = mpsc::channel::<Job>();
    thread::Builder::new()
        .name("adapter-call".into())
        .spawn(move || receive.into_iter().for_each(|job| job()))
        .map_err(|e| format!("cannot start the adapter thread: {e}"))?;
    Ok(jobs)
}

/// Runs `call` on an adapter thread; returns its result, or the reason it gave none. The
/// library warnings it raised there are raised on this thread ([`warnings`]).
///
/// A panic, a time-out and a crashed worker process ([`ErrorKind::Crashed`]) give no result:
/// they come back as the reason, so that no check can take them for an error the library
/// returned (a refusal some checks accept).
///
/// A call that outlives `timeout` is abandoned (its thread keeps running until it returns, as
/// Rust cannot stop a thread), and the check fails with a time-out. The thread is reused by
/// the calling thread's next call only when the call returned and left the thread's
/// floating-point control state at the IEEE default ([`fpenv::check`]); after a panic, a
/// time-out or a changed state the next call gets a new thread, so no call inherits what an
/// earlier one left behind. (Starting a thread per call cost a few percent of a default run.)
pub fn guarded<T: Returned + Send + 'static>(
    timeout: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (send, receive) = mpsc::channel();
    let job: Job = Box::new(move || {
        let (outcome, warned) = warnings::collect(|| catch_unwind(AssertUnwindSafe(call)));
        let outcome = outcome.map_err(|payload| {
            if let Some(s) = payload.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "a non-string panic payload".to_string()
            }
        });
        let reusable = outcome.is_ok() && fpenv::check().is_ok();
        // The receiver is gone only after a time-out; nothing is left to tell.
        let _ = send.send((outcome, reusable, warned));
    });
    let worker = match IDLE.with(|idle| idle.borrow_mut().take()) {
        Some(worker) => worker,
        None => adapter_thread()?,
    };
    worker.send(job).map_err(|_| "the adapter thread has gone".to_string())?;
    match receive.recv_timeout(timeout) {
        Ok((outcome, reusable, warned)) => {
            warnings::raise(warned);
            if reusable {
                IDLE.with(|idle| *idle.borrow_mut() = Some(worker));
            }
            let returned = outcome.map_err(|panic| format!("the adapter panicked: {panic}"))?;
            match returned.crashed() {
                Some(crash) => Err(format!("the call gave no result: {crash}")),
                None => Ok(returned),
            }
        }
        Err(_) => Err(format!("the adapter did not return within {} s", timeout.as_secs_f64())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call's outcome that [`guarded`] passes on: a value or an error the library returned.
    type Outcome<T> = Result<T, AdapterError>;

    #[test]
    fn values_panics_and_hangs() {
        // Generous for the calls that return (printing a panic's backtrace can take a while on
        // a busy machine); short for the one that hangs.
        let t = Duration::from_secs(30);
        assert_eq!(guarded(t, || Outcome::Ok(5)), Ok(Ok(5)));
        let panicked = guarded(t, || -> Outcome<i32> { panic!("boom") }).unwrap_err();
        assert!(panicked.contains("panicked: boom"), "{panicked}");
        let hangs = || -> Outcome<()> {
            thread::sleep(Duration::from_secs(5));
            Ok(())
        };
        let hung = guarded(Duration::from_millis(200), hangs).unwrap_err();
        assert!(hung.contains("did not return"), "{hung}");
    }

    /// An error the library returned is the call's outcome; a crashed worker process is no
    /// outcome at all, whatever the call returns beside it.
    #[test]
    fn a_crashed_process_is_no_result_but_a_returned_error_is() {
        let t = Duration::from_secs(30);
        let refused = AdapterError::new(ErrorKind::Other, "ZeroDivisionError");
        let returned = refused.clone();
        assert_eq!(guarded(t, move || Outcome::<i32>::Err(returned)), Ok(Err(refused)));
        let died = || AdapterError::new(ErrorKind::Crashed, "the worker ended (signal: 8 (SIGFPE))");
        let crashed = guarded(t, move || Outcome::<i32>::Err(died())).unwrap_err();
        assert!(crashed.contains("no result: crashed: the worker ended (signal: 8 (SIGFPE))"), "{crashed}");
        let into = guarded(t, move || (Err(died()), vec![0u8; 4])).unwrap_err();
        assert!(into.contains("SIGFPE"), "a destination-passing call: {into}");
    }

    #[test]
    fn warnings_raised_on_the_adapter_thread_reach_the_callers() {
        let (value, warned) = warnings::collect(|| {
            guarded(Duration::from_secs(30), || -> Outcome<()> {
                warnings::raise(["W: lossy".to_string()]);
                Ok(())
            })
        });
        assert_eq!((value, warned), (Ok(Ok(())), vec!["W: lossy".to_string()]));
    }

    /// Calls that return reuse one adapter thread; a panic or a time-out retires it.
    #[test]
    fn adapter_threads_are_reused_until_a_call_fails() {
        let t = Duration::from_secs(30);
        let on = || guarded(t, || Outcome::Ok(thread::current().id())).unwrap().unwrap();
        let first = on();
        assert_ne!(first, thread::current().id());
        assert_eq!(on(), first, "a returned call keeps its thread");
        assert!(guarded(t, || -> Outcome<i32> { panic!("boom") }).is_err());
        let after_panic = on();
        assert_ne!(after_panic, first, "a panic retires the thread");
        let sleeps = || -> Outcome<()> {
            thread::sleep(Duration::from_millis(500));
            Ok(())
        };
        assert!(guarded(Duration::from_millis(50), sleeps).is_err());
        assert_ne!(on(), after_panic, "a time-out abandons the thread");
    }
}
