//! Layout coverage: how each memory layout reached each adapter's library (as a view, a copy,
//! refused), over the layout checks of a set of results.

use std::collections::{BTreeMap, BTreeSet};

use super::CheckResult;

/// Per adapter, how each layout reached its library over the layout checks added: adapter
/// to layout to `view`, `copy`, `unknown`, `refused`, or several joined by `+` where checks
/// (operations, dtypes, sizes) differed.
#[derive(Debug, Default)]
pub struct Coverage(BTreeMap<String, BTreeMap<String, BTreeSet<String>>>);

impl Coverage {
    /// Adds one check's layouts.
    pub fn add(&mut self, r: &CheckResult) {
        let Some(adapter) = r.id.adapter_name() else { return };
        for (layout, words) in &r.layouts {
            let entry = self.0.entry(adapter.to_string()).or_default().entry(layout.clone()).or_default();
            entry.extend(words.split('+').map(str::to_string));
        }
    }

    /// Adapter to layout to how it reached the library.
    pub fn finish(self) -> BTreeMap<String, BTreeMap<String, String>> {
        self.0
            .into_iter()
            .map(|(adapter, layouts)| {
                let joined =
                    layouts.into_iter().map(|(l, w)| (l, w.into_iter().collect::<Vec<_>>().join("+")));
                (adapter, joined.collect())
            })
            .collect()
    }
}

/// "reached the library as views: contiguous, offset; copied by the adapter: reversed;
/// refused: out-offset": which layouts reached the library how.
pub fn coverage_text(summary: &BTreeMap<String, String>) -> String {
    let mut by_word: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (layout, word) in summary {
        by_word.entry(word.as_str()).or_default().push(layout.as_str());
    }
    let label = |word: &str| match word {
        "view" => "reached the library as views".to_string(),
        "copy" => "copied by the adapter".to_string(),
        "refused" => "refused".to_string(),
        "unknown" => "not said by the adapter".to_string(),
        mixed => format!("{mixed} (depending on the operation, dtype, size or operand)"),
    };
    let parts: Vec<String> =
        by_word.iter().map(|(word, layouts)| format!("{}: {}", label(word), layouts.join(", "))).collect();
    parts.join("; ")
}
