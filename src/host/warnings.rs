//! Library warnings raised during adapter calls (a worker's `warnings`, `docs/PROTOCOL.md`),
//! kept per thread: an adapter [`raise`]s them on the thread that made the call,
//! `run::call::guarded` carries them to the check's thread, and the check [`collect`]s its own.

use std::cell::RefCell;

thread_local! {
    /// This thread's warnings since its innermost [`collect`] began, each once, in order.
    static RAISED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Records `warnings` on this thread (a text it already holds is not added again).
pub fn raise(warnings: impl IntoIterator<Item = String>) {
    RAISED.with(|raised| {
        let mut raised = raised.borrow_mut();
        for w in warnings {
            if !raised.contains(&w) {
                raised.push(w);
            }
        }
    });
}

/// Runs `f` and returns what it gave with the warnings raised on this thread while it ran,
/// deduplicated; those raised before are kept for the enclosing `collect`, as a check that
/// rayon runs nested inside another on the same thread must not take its host's warnings.
pub fn collect<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let outer = RAISED.with(|raised| std::mem::take(&mut *raised.borrow_mut()));
    let value = f();
    let own = RAISED.with(|raised| std::mem::replace(&mut *raised.borrow_mut(), outer));
    (value, own)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_collected_once_per_scope_and_outer_ones_are_kept() {
        raise(["before".to_string()]);
        let ((), outer) = collect(|| {
            raise(["a".to_string(), "b".to_string()]);
            let ((), inner) = collect(|| raise(["a".to_string(), "c".to_string()]));
            assert_eq!(inner, ["a", "c"]);
            raise(["a".to_string()]);
        });
        assert_eq!(outer, ["a", "b"]);
        let ((), left) = collect(|| ());
        assert!(left.is_empty());
        assert_eq!(collect(|| raise(["x".to_string()])).1, ["x"]);
        // `before` is still this thread's, outside every scope.
        assert_eq!(RAISED.with(|r| r.borrow().clone()), ["before"]);
    }
}
