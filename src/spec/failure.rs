//! What kind of failure a check had: the words an expectations entry states the failure it
//! lists in (`fails:`), and a results record names its failure in (`failure`).
//!
//! A known deviation covers only the failure it describes (`docs/RESULTS.md`): an entry that
//! lists wrong values does not cover a crash of the same check, nor an entry that lists a
//! wrong dtype a panic.

use std::fmt;

use opspec_adapter::{DType, ErrorKind};
use serde::{Deserialize, Serialize};

/// How a check failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Failure {
    /// The library gave results, and some are not what the check accepts (wrong values, a
    /// wrong result dtype in a promotion check, a result where an error is required).
    Values,
    /// The library returned a tensor of this dtype where the check needs another.
    Dtype(String),
    /// The library returned a tensor of the wrong shape.
    Shape,
    /// The library returned (raised) an error of this kind (`ErrorKind` names:
    /// `unsupported`, `dtype_mismatch`, `other`, …) where the check needs a result.
    Error(String),
    /// The library panicked, or its process died: no result.
    Crash,
    /// The library did not answer within the time-out.
    Hang,
    /// The check stopped for a reason of the harness's own (an operand it could not build, a
    /// reference it could not compute): never listed as a known deviation.
    Other,
}

/// What a phrase means, given the message's text after it.
type Reading = fn(&str) -> Failure;

/// The phrases the harness's stop messages use, in the order they are tried, and what each
/// means. `run/call.rs`, `run/batch.rs` and the process hosts write them; a library's own error
/// text follows the first phrase, so it is tried first.
const PHRASES: [(&str, Reading); 7] = [
    ("the adapter returned an error: ", error_kind),
    ("did not return within", |_| Failure::Hang),
    ("did not answer within", |_| Failure::Hang),
    ("gave no result", |_| Failure::Crash),
    ("panicked", |_| Failure::Crash),
    ("the adapter returned dtype ", |rest| Failure::Dtype(word(rest).to_string())),
    ("the adapter returned shape ", |_| Failure::Shape),
];

/// The first word of `text`, up to a space, comma or colon.
fn word(text: &str) -> &str {
    text.split([' ', ',', ':']).next().unwrap_or("")
}

/// An adapter error's failure: its kind is the word before the first `:` or ` [code]`; an
/// error of kind `crashed` (a dead process) is a crash.
fn error_kind(rest: &str) -> Failure {
    match word(rest) {
        "crashed" => Failure::Crash,
        kind => Failure::Error(kind.to_string()),
    }
}

impl Failure {
    /// The failure a check that stopped with `message` had (the message as the harness wrote
    /// it, with any context around the phrase).
    pub fn of_stop(message: &str) -> Failure {
        PHRASES
            .iter()
            .find_map(|(phrase, failure)| {
                message.find(phrase).map(|at| failure(&message[at + phrase.len()..]))
            })
            .unwrap_or(Failure::Other)
    }

    /// Why `self` cannot be listed in an expectations entry, if it cannot.
    pub fn unlistable(&self) -> Option<String> {
        match self {
            Failure::Dtype(d) if d.parse::<DType>().is_err() => Some(format!("`{d}` is not a dtype")),
            Failure::Error(kind) if kind == ErrorKind::Crashed.name() => {
                Some("a crashed process is stated as `crash`".into())
            }
            Failure::Error(kind) if !ErrorKind::ALL.iter().any(|k| k.name() == kind) => {
                let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
                Some(format!("`{kind}` is not an error kind ({})", names.join(", ")))
            }
            Failure::Other => {
                Some("`other` is a stop of the harness's own, never a known deviation of the library".into())
            }
            _ => None,
        }
    }
}

impl fmt::Display for Failure {
    /// As an entry states it: `values`, `dtype f32`, `error unsupported`, `crash`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Values => write!(f, "values"),
            Failure::Dtype(d) => write!(f, "dtype {d}"),
            Failure::Shape => write!(f, "shape"),
            Failure::Error(kind) => write!(f, "error {kind}"),
            Failure::Crash => write!(f, "crash"),
            Failure::Hang => write!(f, "hang"),
            Failure::Other => write!(f, "other"),
        }
    }
}

/// One failure or several, as an entry's `fails:` may state them (`fails: values`,
/// `fails: [crash, {error: other}]`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Failures {
    One(Failure),
    Many(Vec<Failure>),
}

impl Failures {
    /// The failures as a list.
    pub fn list(&self) -> &[Failure] {
        match self {
            Failures::One(f) => std::slice::from_ref(f),
            Failures::Many(v) => v,
        }
    }

    /// The failures in words: `values`, `crash or error other`.
    pub fn text(&self) -> String {
        self.list().iter().map(Failure::to_string).collect::<Vec<_>>().join(" or ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message the harness writes when a check stops, as the producers write it.
    #[test]
    fn stop_messages_are_classified() {
        let cases = [
            ("the adapter returned an error: unsupported: no such op", Failure::Error("unsupported".into())),
            (
                "row x: the adapter returned an error: shape_mismatch [E1]: no",
                Failure::Error("shape_mismatch".into()),
            ),
            ("the adapter returned an error: crashed: killed by SIGFPE", Failure::Crash),
            ("the adapter returned dtype f32, expected i32", Failure::Dtype("f32".into())),
            ("the adapter returned shape [3], expected [4]", Failure::Shape),
            ("the adapter panicked: attempt to divide by zero", Failure::Crash),
            ("chunk 3: the adapter call panicked", Failure::Crash),
            ("the adapter did not return within 120 s", Failure::Hang),
            ("the worker did not answer within 119.0 s and was killed (SIGKILL)", Failure::Hang),
            ("the call gave no result: crashed: the worker died (signal: 8 (SIGFPE))", Failure::Crash),
            (
                "the call gave no result: crashed: the worker did not answer within 9.0 s and was killed",
                Failure::Hang,
            ),
            (
                "the adapter returned an error: other: RuntimeError: thread panicked",
                Failure::Error("other".into()),
            ),
            ("cannot build the operand", Failure::Other),
        ];
        for (message, failure) in cases {
            assert_eq!(Failure::of_stop(message), failure, "{message}");
        }
    }

    #[test]
    fn entries_state_one_failure_or_several() {
        let one: Failures = serde_saphyr::from_str("values").unwrap();
        assert_eq!(one.list(), [Failure::Values]);
        let many: Failures = serde_saphyr::from_str("[crash, {error: other}, {dtype: f32}]").unwrap();
        assert_eq!(
            many.list(),
            [Failure::Crash, Failure::Error("other".into()), Failure::Dtype("f32".into())]
        );
        assert_eq!(many.text(), "crash or error other or dtype f32");
        assert!(Failure::Dtype("f33".into()).unlistable().is_some());
        assert!(Failure::Error("oops".into()).unlistable().is_some());
        assert!(Failure::Other.unlistable().is_some());
        assert!(Failure::Error("crashed".into()).unlistable().is_some());
        assert_eq!(Failure::Error("unsupported".into()).unlistable(), None);
    }
}
