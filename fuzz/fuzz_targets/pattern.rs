//! Check-id patterns (`src/spec/pattern.rs`): the input is a pattern, a newline and an id.
//! Compiling may refuse the pattern; whatever compiles must match any id without panicking,
//! and a pattern without `*`, `{`, `}` or `,` matches exactly itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use opspec::spec::pattern::Pattern;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (pattern, id) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(compiled) = Pattern::new(pattern) else { return };
    compiled.matches(id);
    assert!(compiled.matches(pattern) || pattern.contains(['*', '{', '}', ',']), "{pattern:?} misses itself");
    if !pattern.contains(['*', '{', '}', ',']) {
        assert_eq!(compiled.matches(id), pattern == id, "{pattern:?} against {id:?}");
    }
});
