//! The outcome of one check, as written to `results.jsonl`.

use std::collections::{BTreeMap, BTreeSet};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::oracle::ReferenceKind;

use super::Rerun;
use crate::spec::authority::Tier;
use crate::spec::failure::Failure;
use crate::spec::id::CheckId;
use crate::spec::profile::Profile;

pub use crate::judge::accuracy::ULP_BUCKETS;
use crate::judge::accuracy::UlpTally;

/// Verdict of a check (the table in `docs/RESULTS.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    /// Not run, with the reason in `message` (never counted as a pass).
    Skip,
    /// Failed, and listed as a known deviation of the adapter in its expectations file:
    /// reported with the entry, but not failing the run.
    KnownDeviation,
    /// Planned, but the run ended before it ran.
    Missing,
    /// Not run because its adapter could not be started (the reason in `message`).
    Unavailable,
}

impl Status {
    /// Whether a check with this status fails a run at the strictest gate (`quality`; see
    /// [`CheckResult::fails`]).
    pub fn fails_run(self) -> bool {
        matches!(self, Status::Fail | Status::Missing | Status::Unavailable)
    }

    /// The status as `results.jsonl` and the report spell it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::KnownDeviation => "known_deviation",
            Status::Missing => "missing",
            Status::Unavailable => "unavailable",
        }
    }
}

/// Where a check's row comes from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Citation {
    /// `add/pinf-minus-inf`.
    pub row: String,
    /// Source document title and bullet.
    pub source: String,
    /// The bullet's text.
    pub text: String,
    /// `specs/elementwise/add.yaml:42`.
    pub location: String,
}

/// One input on which the check failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseFailure {
    /// Operand values as `name = decimal (hex-float, bits)`.
    pub inputs: Vec<String>,
    /// The operands' bits in hex, where the inputs are scalars (what `eval` takes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_bits: Vec<String>,
    pub expected: String,
    pub actual: String,
    /// The result's bits in hex, where the result is one scalar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_bits: Option<String>,
    /// Distance in representable steps from the expectation's centre, when it has one (a
    /// count of values, not the fractional ULP error of `CheckResult::max_ulp_error`).
    pub steps: Option<u64>,
    /// A command that reproduces exactly this case.
    pub reproduce: String,
    /// Whether the adapter's relaxation profile allows this result, where it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_allows: Option<bool>,
    /// The most authoritative bar this result misses (`docs/AUTHORITY.md`).
    #[serde(default = "must")]
    pub tier: Tier,
    /// That bar's authority in words: the sentence quoted and cited, or opspec's bar named;
    /// empty where it is the check's own citation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub authority: String,
    /// Where the input sat in the adapter call that failed it: how many elements the call
    /// had, the input's position, and whether the input alone, in a call of its own, passes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<BatchPlace>,
}

/// Where a failing input sat in its adapter call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchPlace {
    /// Elements in the call.
    pub size: usize,
    /// The input's position (0-based).
    pub position: usize,
    /// Whether a call with this input alone gave a result the check accepts (`None`: not
    /// tried, or the call failed).
    pub alone_passes: Option<bool>,
}

fn must() -> Tier {
    Tier::Must
}

/// A check id as a record writes it, its parts checked against it (a part left out is not
/// checked; `null` is the part of a table self-check that it has none of).
fn agreeing_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<CheckId, D::Error> {
    #[derive(Deserialize)]
    struct Written {
        id: String,
        #[serde(default, deserialize_with = "present")]
        suite: Option<Option<String>>,
        #[serde(default, deserialize_with = "present")]
        adapter: Option<Option<String>>,
        op: Option<String>,
        dtype: Option<String>,
        case: Option<String>,
    }
    fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
        Option::<String>::deserialize(d).map(Some)
    }
    let w = Written::deserialize(deserializer)?;
    let id: CheckId = w.id.parse().map_err(D::Error::custom)?;
    let parts = [
        ("suite", w.suite.map(|s| s.as_deref() == id.suite())),
        ("adapter", w.adapter.map(|a| a.as_deref() == id.adapter_name())),
        ("op", w.op.map(|op| op == id.op)),
        ("dtype", w.dtype.map(|dtype| dtype == id.dtype)),
        ("case", w.case.map(|case| case == id.case)),
    ];
    match parts.iter().find(|(_, agrees)| *agrees == Some(false)) {
        Some((part, _)) => Err(D::Error::custom(format!("its `{part}` is not the one its id `{id}` names"))),
        None => Ok(id),
    }
}

/// A sum of counts as a contradiction names it: past 2^64 - 1 where it overflowed.
fn shown(sum: Option<u64>) -> String {
    sum.map_or("more than 2^64 - 1".to_string(), |n| n.to_string())
}

/// The result of one check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CheckResult {
    /// Written as `id` and its parts (`suite`, `adapter`, `op`, `dtype`, `case`); read from
    /// `id`, refused where a part says otherwise.
    #[serde(flatten, deserialize_with = "agreeing_id")]
    pub id: CheckId,
    pub status: Status,
    /// Inputs the check planned to make, where that was known before it ran.
    #[serde(default)]
    pub planned_inputs: Option<usize>,
    /// Inputs checked.
    pub inputs: usize,
    /// Inputs whose result was not accepted.
    pub failed_inputs: usize,
    /// For approximate operations: the largest error of a finite result, in ULPs of the
    /// reference's binade, against the exact value (0.5 means correctly rounded).
    #[serde(default)]
    pub max_ulp_error: Option<f64>,
    /// For approximate operations: how many finite results had an error in each bucket of
    /// [`ULP_BUCKETS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ulp_histogram: Option<Vec<u64>>,
    /// For approximate operations: where `max_ulp_error` occurs (the first such input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ulp_at: Option<UlpWorst>,
    pub citation: Option<Citation>,
    /// For a failed check: the most authoritative tier it fails (`docs/AUTHORITY.md`): `must`
    /// (it does not conform), `should` or `quality` (opspec's own bar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Failed inputs per tier.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failed_by_tier: BTreeMap<Tier, u64>,
    /// For a failed check: how it failed (`values`, `crash`, `{error: KIND}`, …), what an
    /// expectations entry must state to list it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Which reference computed the expected results (float element-wise, property and sweep
    /// checks): `native`, `core_math` or `mpfr`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceKind>,
    /// A sweep's failed inputs per governing table row (`(no row)` where none governs).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failed_by_row: BTreeMap<String, u64>,
    /// Why the check failed or was skipped (on a pass: empty, a sweep's count of checked cases,
    /// or a note from its expectations entry).
    pub message: String,
    /// The first failing inputs, in detail.
    pub failures: Vec<CaseFailure>,
    pub seconds: f64,
    /// The expectations entry that lists this check, if one does.
    #[serde(default)]
    pub deviation: Option<KnownDeviation>,
    /// The verdict under the relaxation profile the adapter declares, if it declares one and
    /// the check ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub under_profile: Option<ProfileVerdict>,
    /// For a layout check: how each layout reached the library (`view`, `copy`, `unknown`,
    /// `refused`, or two of them joined by `+` where it depended on the size or operand).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub layouts: BTreeMap<String, String>,
    /// The library's warnings during the check's calls (`docs/PROTOCOL.md`), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// For a sweep: each chunk it checked, with its own counts, in chunk order (what `merge`
    /// joins the shards of a sweep from; `docs/SHARDING.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks: Vec<ChunkResult>,
    /// For a sweep: the chunks it took from a state file instead of running them, one entry
    /// per file (a merged sweep's shards may each have resumed from their own).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumed: Vec<Resumed>,
}

/// A sweep's chunks taken from a state file (`docs/SCALE.md`, "Resuming").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resumed {
    /// The state file.
    pub from: String,
    /// The chunks taken from it, as half-open ranges `[first, end)`, in order.
    pub chunks: Vec<[u64; 2]>,
    /// The resumed chunks drawn to be run again and compared with the file
    /// (`run --verify-resumed`).
    pub verified: Vec<u64>,
    /// The seed they were drawn with.
    pub seed: u64,
}

impl Resumed {
    /// `chunks 0..5, 7 (6) resumed from FILE; chunk 3 run again to check it` (a check whose
    /// rerun disagrees fails, saying so).
    pub fn describe(&self) -> String {
        let ranges: Vec<String> = self
            .chunks
            .iter()
            .map(|&[a, b]| if b == a + 1 { a.to_string() } else { format!("{a}..{b}") })
            .collect();
        let count: u64 = self.chunks.iter().map(|&[a, b]| b - a).sum();
        let verified = match self.verified.as_slice() {
            [] => "none run again to check it".to_string(),
            [k] => format!("chunk {k} run again to check it"),
            ks => format!(
                "chunks {} run again to check it",
                ks.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
            ),
        };
        format!("chunks {} ({count}) resumed from {}; {verified}", ranges.join(", "), self.from)
    }
}

/// The input where a check's largest ULP error occurs, and the result there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UlpWorst {
    /// The operands' bits in hex (`0x3f800000`), in operand order.
    pub inputs: Vec<String>,
    /// The result's bits in hex.
    pub actual: String,
}

/// One chunk of a sweep: a fixed unit of work (`CHECK_ID#CHUNK` as a shard unit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkResult {
    /// The chunk's number: it holds cases `chunk × 2^25 ..`.
    pub chunk: u64,
    /// Cases checked.
    pub cases: u64,
    /// Cases whose result was not accepted.
    pub failed: u64,
    /// Failed cases per governing table row id (`(no row)` where none governs).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_row: BTreeMap<String, u64>,
    /// How many of the result's `failures` are this chunk's (they follow the earlier
    /// chunks' in the list).
    #[serde(default)]
    pub listed: usize,
    /// A one-operand sweep of an approximate function: the errors of this chunk's results.
    #[serde(default, skip_serializing_if = "UlpTally::is_empty")]
    pub ulp: UlpTally,
}

/// A check judged under its adapter's relaxation profile (the status stays the strict one).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProfileVerdict {
    pub profile: Profile,
    /// Failing inputs whose results the profile does not allow either.
    pub failed_inputs: usize,
    /// Whether the check passes under the profile: it passed, or it failed only on inputs
    /// whose results the profile allows.
    pub passes: bool,
}

/// A check's entry in an adapter's expectations file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KnownDeviation {
    /// `expectations/numr.yaml:12`.
    pub location: String,
    /// What the implementation does.
    pub does: String,
    /// Which rule that breaks.
    pub why: String,
}

impl CheckResult {
    /// The status with the tier it failed: `fail (must)`, `known_deviation (quality)`.
    pub fn status_text(&self) -> String {
        match self.tier {
            Some(t) if matches!(self.status, Status::Fail | Status::KnownDeviation) => {
                format!("{} ({t})", self.status.name())
            }
            _ => self.status.name().to_string(),
        }
    }

    /// Counts `n` failed inputs of `tier`, which becomes the check's tier if it is the most
    /// authoritative so far.
    pub fn add_failed(&mut self, tier: Tier, n: u64) {
        *self.failed_by_tier.entry(tier).or_default() += n;
        self.tier = Some(self.tier.map_or(tier, |t| t.min(tier)));
    }

    /// A passing result of `id` with nothing checked yet.
    pub fn new(id: CheckId) -> CheckResult {
        CheckResult {
            id,
            status: Status::Pass,
            planned_inputs: None,
            inputs: 0,
            failed_inputs: 0,
            max_ulp_error: None,
            max_ulp_at: None,
            ulp_histogram: None,
            citation: None,
            tier: None,
            failed_by_tier: BTreeMap::new(),
            failure: None,
            reference: None,
            failed_by_row: BTreeMap::new(),
            message: String::new(),
            failures: Vec::new(),
            seconds: 0.0,
            deviation: None,
            under_profile: None,
            layouts: BTreeMap::new(),
            warnings: Vec::new(),
            chunks: Vec::new(),
            resumed: Vec::new(),
        }
    }

    /// What in the record contradicts itself, if anything does: counts no run of opspec
    /// writes (`docs/RESULTS.md`). Its id's parts are checked as it is read.
    pub fn contradiction(&self) -> Option<String> {
        let (failed, inputs, listed) = (self.failed_inputs, self.inputs, self.failures.len());
        if self.status == Status::Pass && (failed > 0 || listed > 0 || self.tier.is_some()) {
            return Some(format!(
                "status pass, but {failed} failed inputs, {listed} listed failures{}",
                if self.tier.is_some() { " and a tier" } else { "" }
            ));
        }
        if failed > inputs {
            return Some(format!("{failed} failed inputs of {inputs}"));
        }
        if listed > failed {
            return Some(format!("{listed} listed failures of {failed} failed inputs"));
        }
        match self.failed_by_tier.values().try_fold(0u64, |sum, &n| sum.checked_add(n)) {
            Some(sum) if sum <= failed as u64 => {}
            Some(sum) => {
                return Some(format!(
                    "`failed_by_tier` counts {sum} failed inputs, above `failed_inputs` {failed}"
                ));
            }
            None => return Some("`failed_by_tier` counts overflow".to_string()),
        }
        if self.status == Status::KnownDeviation && failed == 0 && self.tier.is_none() {
            return Some(
                "status known_deviation, but no failure: 0 `failed_inputs` and no `tier`".to_string(),
            );
        }
        if self.status == Status::Skip && (failed > 0 || self.tier.is_some()) {
            return Some(format!(
                "status skip, but {failed} `failed_inputs`{}",
                if self.tier.is_some() { " and a `tier`" } else { "" }
            ));
        }
        if let Some(e) = self.max_ulp_error.filter(|e| e.is_nan() || *e < 0.0) {
            return Some(format!("`max_ulp_error` is {e}: an error is a distance, not negative or NaN"));
        }
        if self.seconds.is_nan() || self.seconds < 0.0 {
            return Some(format!("`seconds` is {}: a duration is not negative or NaN", self.seconds));
        }
        if let Some(h) = &self.ulp_histogram {
            if h.len() != ULP_BUCKETS.len() {
                return Some(format!("a ULP histogram of {} buckets, not {}", h.len(), ULP_BUCKETS.len()));
            }
            match h.iter().try_fold(0u64, |sum, &n| sum.checked_add(n)) {
                Some(sum) if sum <= inputs as u64 => {}
                Some(sum) => return Some(format!("a ULP histogram of {sum} results of {inputs} inputs")),
                None => return Some("a ULP histogram whose counts overflow".to_string()),
            }
        }
        let mut chunks = BTreeSet::new();
        for c in &self.chunks {
            if c.failed > c.cases {
                return Some(format!("chunk {}: {} failed cases of {}", c.chunk, c.failed, c.cases));
            }
            if !chunks.insert(c.chunk) {
                return Some(format!("chunk {} listed twice", c.chunk));
            }
            if let Some(wrong) = c.ulp.contradiction(c.cases, None) {
                return Some(format!("chunk {}: {wrong}", c.chunk));
            }
        }
        if !self.chunks.is_empty() {
            let sum = |count: fn(&ChunkResult) -> u64| {
                self.chunks.iter().try_fold(0u64, |sum, c| sum.checked_add(count(c)))
            };
            let (cases, failed_cases) = (sum(|c| c.cases), sum(|c| c.failed));
            if cases != Some(inputs as u64) {
                return Some(format!("its `chunks` hold {} cases, but `inputs` is {inputs}", shown(cases)));
            }
            if failed_cases != Some(failed as u64) {
                let n = shown(failed_cases);
                return Some(format!("its `chunks` hold {n} failed cases, but `failed_inputs` is {failed}"));
            }
        }
        None
    }

    /// The failure as a bug report: id, citation, failing inputs, reproduction commands
    /// (the check's own, from `rerun`).
    pub fn report(&self, rerun: &Rerun) -> String {
        let mut out = format!("{} {}: {}\n", self.id, self.status_text(), self.message);
        if let Some(tier) = self.tier {
            out += &format!("  verdict:  {}\n", tier.verdict());
        }
        if let Some(failure) = &self.failure {
            out += &format!("  failure:  {failure}\n");
        }
        if let Some(d) = &self.deviation {
            out += &format!("  known deviation ({}): {}\n  why:      {}\n", d.location, d.does, d.why);
        }
        for w in &self.warnings {
            out += &format!("  library warning: {w}\n");
        }
        if let Some(c) = &self.citation {
            out += &format!("  row:      {} ({}; {})\n  text:     {}\n", c.row, c.source, c.location, c.text);
        }
        for (i, f) in self.failures.iter().enumerate() {
            out += &format!("  failing input {}:\n", i + 1);
            for input in &f.inputs {
                out += &format!("    {input}\n");
            }
            out += &format!("    expected: {}\n    actual:   {}\n", f.expected, f.actual);
            if f.authority.is_empty() {
                out += &format!("    fails:    a {} (the row or rule cited above)\n", f.tier);
            } else {
                out += &format!("    fails:    {}\n", f.authority);
            }
            if let Some(b) = &f.batch {
                let alone = match b.alone_passes {
                    Some(true) => {
                        "; alone, in a call of its own, it passes: the failure depends on the batch"
                    }
                    Some(false) => "; alone it fails the same way",
                    None => "",
                };
                out += &format!("    in batch: element {} of {}{alone}\n", b.position, b.size);
            }
            if let Some(d) = f.steps {
                out += &format!("    distance: {d} steps from the expectation's centre\n");
            }
            if let (Some(allows), Some(v)) = (f.profile_allows, &self.under_profile) {
                let verdict = if allows { "allows it" } else { "does not allow it either" };
                out += &format!("    profile {}: {verdict}\n", v.profile);
            }
            out += &format!("    reproduce: {}\n", f.reproduce);
        }
        if let Some(v) = &self.under_profile {
            let verdict = if v.passes { "passes" } else { "fails" };
            out += &format!(
                "  under profile {}: {verdict} ({} inputs not allowed)\n",
                v.profile, v.failed_inputs
            );
        }
        if self.status == Status::Fail {
            out += &format!("  rerun the check: {}\n", rerun.run_command(&self.id));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_reads_back_from_json() {
        let mut result = CheckResult::new("array-api:cpu:add:f32:edges".parse().unwrap());
        result.inputs = 3;
        let json = serde_json::to_string(&result).unwrap();
        assert!(json.contains("\"id\":\"array-api:cpu:add:f32:edges\",\"suite\":\"array-api\""), "{json}");
        let back: CheckResult = serde_json::from_str(&json).unwrap();
        assert_eq!((back.id, back.inputs), (result.id, 3));
    }

    #[test]
    fn a_record_that_contradicts_itself_says_how() {
        let pass = || {
            let mut r = CheckResult::new("array-api:cpu:exp:f32:edges".parse().unwrap());
            r.inputs = 10;
            r
        };
        let failed = |n: usize| {
            let mut r = pass();
            (r.status, r.failed_inputs, r.tier) = (Status::Fail, n, Some(Tier::Must));
            r
        };
        let failure: CaseFailure = serde_json::from_value(
            serde_json::json!({"inputs": [], "expected": "", "actual": "", "steps": null, "reproduce": ""}),
        )
        .unwrap();
        assert_eq!(pass().contradiction(), None);
        assert_eq!(failed(10).contradiction(), None);
        let cases: Vec<(CheckResult, &str)> = vec![
            (CheckResult { failed_inputs: 1, ..pass() }, "status pass, but 1 failed inputs"),
            (CheckResult { failures: vec![failure.clone()], ..pass() }, "1 listed failures"),
            (CheckResult { tier: Some(Tier::Quality), ..pass() }, "and a tier"),
            (failed(11), "11 failed inputs of 10"),
            (CheckResult { failures: vec![failure.clone(); 3], ..failed(2) }, "3 listed failures of 2"),
            (CheckResult { ulp_histogram: Some(vec![1; 3]), ..pass() }, "a ULP histogram of 3 buckets"),
            (CheckResult { ulp_histogram: Some(vec![2; 10]), ..pass() }, "a ULP histogram of 20 results"),
            (CheckResult { ulp_histogram: Some(vec![u64::MAX; 10]), ..pass() }, "counts overflow"),
        ];
        for (r, says) in cases {
            let why = r.contradiction().unwrap_or_default();
            assert!(why.contains(says), "{why:?} should say {says:?}");
        }
        let chunk = |chunk, cases, failed| ChunkResult {
            chunk,
            cases,
            failed,
            by_row: BTreeMap::new(),
            listed: 0,
            ulp: UlpTally::default(),
        };
        let r = CheckResult { chunks: vec![chunk(0, 5, 6)], ..failed(6) };
        assert_eq!(r.contradiction().as_deref(), Some("chunk 0: 6 failed cases of 5"));
        let r = CheckResult { chunks: vec![chunk(3, 5, 1), chunk(3, 5, 1)], ..failed(2) };
        assert_eq!(r.contradiction().as_deref(), Some("chunk 3 listed twice"));
        let r = CheckResult { ulp_histogram: Some(vec![1; 10]), chunks: vec![chunk(0, 10, 1)], ..failed(1) };
        assert_eq!(r.contradiction(), None);
    }

    #[test]
    fn counts_statuses_and_measures_that_disagree_are_contradictions_naming_the_field() {
        let failed = |n: usize| {
            let mut r = CheckResult::new("array-api:cpu:exp:f32:edges".parse().unwrap());
            (r.status, r.inputs, r.failed_inputs) = (Status::Fail, 10, n);
            r.add_failed(Tier::Should, n as u64);
            r
        };
        let by_tier = |pairs: &[(Tier, u64)]| pairs.iter().copied().collect::<BTreeMap<_, _>>();
        let chunk = |chunk: u64, cases: u64, failed: u64| -> ChunkResult {
            serde_json::from_value(serde_json::json!({"chunk": chunk, "cases": cases, "failed": failed}))
                .unwrap()
        };
        // What runs write: tiers adding up to the failed inputs; an error (no failed input, a
        // must) listed as a known deviation; a skip; chunks adding up to the counts.
        let deviation_by_error = CheckResult { status: Status::KnownDeviation, ..failed(0) };
        let deviation_by_error = CheckResult { tier: Some(Tier::Must), ..deviation_by_error };
        let sweep = CheckResult { chunks: vec![chunk(0, 6, 1), chunk(1, 4, 1)], ..failed(2) };
        let skip = CheckResult { status: Status::Skip, ..CheckResult::new(failed(0).id) };
        for ok in [failed(3), deviation_by_error, sweep.clone(), skip.clone()] {
            assert_eq!(ok.contradiction(), None, "{ok:?}");
        }
        let cases: Vec<(CheckResult, &str)> = vec![
            (
                CheckResult { failed_by_tier: by_tier(&[(Tier::Must, 2), (Tier::Should, 2)]), ..failed(3) },
                "`failed_by_tier` counts 4 failed inputs, above `failed_inputs` 3",
            ),
            (
                CheckResult {
                    failed_by_tier: by_tier(&[(Tier::Must, u64::MAX), (Tier::Should, 1)]),
                    ..failed(3)
                },
                "`failed_by_tier` counts overflow",
            ),
            (
                CheckResult { status: Status::KnownDeviation, tier: None, ..failed(0) },
                "status known_deviation, but no failure: 0 `failed_inputs` and no `tier`",
            ),
            (
                CheckResult { status: Status::Skip, ..failed(2) },
                "status skip, but 2 `failed_inputs` and a `tier`",
            ),
            (
                CheckResult { tier: Some(Tier::Must), ..skip },
                "status skip, but 0 `failed_inputs` and a `tier`",
            ),
            (CheckResult { inputs: 11, ..sweep.clone() }, "its `chunks` hold 10 cases, but `inputs` is 11"),
            (
                CheckResult { failed_inputs: 3, failed_by_tier: BTreeMap::new(), ..sweep.clone() },
                "its `chunks` hold 2 failed cases, but `failed_inputs` is 3",
            ),
            (
                CheckResult { chunks: vec![chunk(0, u64::MAX, 0), chunk(1, 1, 0)], ..sweep },
                "its `chunks` hold more than 2^64 - 1 cases",
            ),
            (CheckResult { max_ulp_error: Some(-0.5), ..failed(1) }, "`max_ulp_error` is -0.5"),
            (CheckResult { max_ulp_error: Some(f64::NAN), ..failed(1) }, "`max_ulp_error` is NaN"),
            (CheckResult { seconds: -1.0, ..failed(1) }, "`seconds` is -1: a duration"),
            (CheckResult { seconds: f64::NAN, ..failed(1) }, "`seconds` is NaN"),
        ];
        for (r, says) in cases {
            let why = r.contradiction().unwrap_or_default();
            assert!(why.contains(says), "{why:?} should say {says:?}");
        }
    }
}
