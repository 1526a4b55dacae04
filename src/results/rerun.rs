//! The commands that rerun a run's checks: how the program was invoked, the environment its
//! outside adapters need and the `--adapter NAME=SPEC` of each, recorded with the run
//! ([`super::RunInfo`]), so that a command printed while the run goes, or rendered later from
//! its results in another process, reruns the check as it ran.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::spec::id::CheckId;

/// How to rerun a run's checks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rerun {
    /// The program as invoked: `cargo run --release --`, `target/release/opspec`, or a vendor
    /// harness's `cargo test --release --test conformance --`.
    pub invocation: String,
    /// Environment variables the run's outside adapters read (`PYTHONPATH`, `OPSPEC_PYTHON`),
    /// with the values they had.
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// The spec (`python:numpy`, `lib:PATH`) of each adapter that is not built in, by name.
    #[serde(default)]
    pub adapters: BTreeMap<String, String>,
}

impl Rerun {
    /// The command that reruns exactly the check `id`.
    pub fn run_command(&self, id: &CheckId) -> String {
        format!("{}{}--exact {id}", self.run_prefix(), self.adapter_arg(id.adapter_name()))
    }

    /// [`Rerun::run_command`] up to its adapter argument (the report adds each check's, then
    /// `--exact ID`).
    pub fn run_prefix(&self) -> String {
        format!("{}{} run ", self.environment_prefix(), self.program())
    }

    /// The command that evaluates one input of the check `id` in detail, calling the adapter
    /// as the check did.
    pub fn eval_command(&self, id: &CheckId, operands: &[u64]) -> String {
        let bits: Vec<String> = operands.iter().map(|x| format!("0x{x:x}")).collect();
        format!(
            "{}{} eval {}{id} {}",
            self.environment_prefix(),
            self.program(),
            self.adapter_arg(id.adapter_name()),
            bits.join(" ")
        )
    }

    /// The `--adapter 'NAME=SPEC' ` argument (with its trailing space) that a command about
    /// adapter `name`'s checks needs; empty for a built-in adapter and a table self-check.
    pub fn adapter_arg(&self, name: Option<&str>) -> String {
        name.and_then(|n| Some((n, self.adapters.get(n)?)))
            .map_or_else(String::new, |(n, spec)| format!("--adapter {} ", quoted(&format!("{n}={spec}"))))
    }

    /// The invocation; `opspec` for results written before it was recorded.
    fn program(&self) -> &str {
        if self.invocation.is_empty() { "opspec" } else { &self.invocation }
    }

    fn environment_prefix(&self) -> String {
        self.environment.iter().map(|(k, v)| format!("{k}={} ", quoted(v))).collect()
    }
}

/// `text` as one shell word: as it is where that is safe, else in single quotes.
pub fn quoted(text: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-_./:=+,@%".contains(&b);
    if !text.is_empty() && text.bytes().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_carry_the_invocation_environment_and_adapter_spec() {
        let rerun = Rerun {
            invocation: "target/release/opspec".into(),
            environment: BTreeMap::from([("PYTHONPATH".into(), "/my lib".into())]),
            adapters: BTreeMap::from([("mine".into(), "python:module=mine python=/venv/bin/python".into())]),
        };
        let id: CheckId = "array-api:mine:add:f32:edges".parse().unwrap();
        assert_eq!(
            rerun.eval_command(&id, &[0x3f80_0000, 0x7fc0_0000]),
            "PYTHONPATH='/my lib' target/release/opspec eval \
             --adapter 'mine=python:module=mine python=/venv/bin/python' \
             array-api:mine:add:f32:edges 0x3f800000 0x7fc00000"
        );
        let builtin: CheckId = "array-api:cpu:add:f32:edges".parse().unwrap();
        assert_eq!(
            rerun.run_command(&builtin),
            "PYTHONPATH='/my lib' target/release/opspec run --exact array-api:cpu:add:f32:edges"
        );
        assert_eq!(Rerun::default().run_prefix(), "opspec run ");
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
