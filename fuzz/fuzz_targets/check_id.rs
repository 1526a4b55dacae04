//! Check ids (`CheckId`'s `FromStr`, `src/spec/id.rs`): a parsed id displays as the text it
//! came from, which parses to the same id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use opspec::spec::id::CheckId;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(id) = text.parse::<CheckId>() else { return };
    let shown = id.to_string();
    assert_eq!(shown, text);
    assert_eq!(shown.parse::<CheckId>().as_ref(), Ok(&id));
});
