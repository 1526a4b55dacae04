//! Known deviations as data: `expectations/<adapter>.yaml` lists, per adapter, the checks that
//! are known to fail, with what the implementation does and why that breaks the contract.
//!
//! A listed check that fails as its entry says (`fails:`) is reported as an expected failure
//! (the run stays green); one that fails otherwise is a new failure; a
//! listed check that passes is a failure ("remove the entry"), and an entry that names no
//! check of the catalog is a load error, so the file cannot rot.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::files::CatalogFiles;
use super::load::{LoadError, is_valid_id, parse_yaml};
use super::pattern::{Pattern, Scratch};
use crate::platform;
use crate::spec::failure::Failures;
use crate::spec::profile::{Profile, Relaxation};

/// One adapter's expectations file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectationsFile {
    /// The adapter the entries are about (the file is `expectations/<adapter>.yaml`).
    pub adapter: String,
    /// The relaxations the adapter declares (`[daz, ftz]`): its results are also judged
    /// under them (`src/run/profile.rs`).
    #[serde(default)]
    pub profile: Vec<Relaxation>,
    /// The known deviations.
    pub deviations: Vec<Deviation>,
    /// Each deviation's `id`, compiled (loading fills it).
    #[serde(skip)]
    patterns: Vec<Pattern>,
}

/// A check, or a set of checks, known to fail.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    /// The check's query-style id (`numr:numr:pow:f32:random`), or a pattern of ids: `*`
    /// stands for any run of characters, `{a,b}` for either alternative
    /// (`{numr,array-api}:numr:maximum:{f16,f32}:random`). Every check a pattern matches must
    /// fail, and a pattern must match at least one check.
    pub id: Spanned<String>,
    /// What the implementation does, precisely (the finding).
    pub does: String,
    /// Which rule that breaks.
    pub why: String,
    /// The failure the entry lists (`values`, `{dtype: f32}`, `shape`, `{error: KIND}`,
    /// `crash`, `hang`, or a list of them): any other failure of a listed check is a new
    /// failure, not this deviation.
    pub fails: Failures,
    /// The tier of that rule (`docs/AUTHORITY.md`): `must` (the document requires it),
    /// `should` (it recommends it) or `quality` (opspec's own bar). A listed check must fail
    /// exactly this tier, so that no entry lists as a must what the document allows.
    pub tier: crate::spec::authority::Tier,
    /// How far the deviation may go before it fails the run.
    #[serde(default)]
    pub tolerate: Tolerance,
    /// Where the entry applies (default: everywhere).
    #[serde(default)]
    pub when: Condition,
    /// The checks fail in some runs and pass in others of the same command (a library whose
    /// results depend on state it does not reset): a pass is then no stale entry.
    #[serde(default)]
    pub flaky: bool,
}

/// Bounds on a known deviation: a check that fails beyond them is a failure.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// At most this many failing inputs per check.
    #[serde(default, deserialize_with = "count")]
    pub failed_inputs: Option<usize>,
    /// At most this ULP error (approximate operations), up to [`MAX_TOLERATED_ULP`].
    #[serde(default, deserialize_with = "ulps")]
    pub max_ulp: Option<f64>,
}

/// A number as YAML writes one: quoted text (`"12"`) is refused, not read as the number it
/// spells, so that a value is never a string by accident.
enum Number {
    Whole(i128),
    Real(f64),
}

struct NumberVisitor;

impl<'de> serde::de::Visitor<'de> for NumberVisitor {
    type Value = Option<Number>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number")
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(Number::Whole(v.into())))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(Number::Whole(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(Number::Real(v)))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Err(E::custom(format!("\"{v}\" is text, not a number: write the number without quotes")))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// `tolerate.max_ulp`: any number (its range is checked with the entry).
fn ulps<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(d.deserialize_any(NumberVisitor)?.map(|n| match n {
        Number::Whole(w) => w as f64,
        Number::Real(r) => r,
    }))
}

/// `tolerate.failed_inputs`: a count.
fn count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    use serde::de::Error;
    match d.deserialize_any(NumberVisitor)? {
        None => Ok(None),
        Some(Number::Whole(w)) => usize::try_from(w)
            .map(Some)
            .map_err(|_| D::Error::custom(format!("{w} is not a count of inputs"))),
        Some(Number::Real(r)) => Err(D::Error::custom(format!("{r} is not a whole number of inputs"))),
    }
}

/// The largest `tolerate.max_ulp`: 2^53. A result `err` ULP from the exact value `v` is
/// `err × ulp` from it, and `|v| / ulp` is below 2^53 for every finite `v` of every format
/// opspec checks (f64's 53-bit significand is the widest). A larger bound therefore tolerates,
/// in every dtype, results farther from `v` than `v` is from zero (a zero, the wrong sign): it
/// bounds nothing, and an entry that means "any error" leaves `max_ulp` out.
pub const MAX_TOLERATED_ULP: f64 = 9_007_199_254_740_992.0;

/// The platform an entry is about, for libraries that pick kernels at run time.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// `x86_64-linux` (architecture-os, as the report's `target`).
    pub target: Option<String>,
    /// CPU features that must all be present (`avx512f`), as the report lists them.
    #[serde(default)]
    pub cpu_features: Vec<String>,
}

impl Condition {
    /// Whether this condition holds wherever `other` does: it names no other target and no
    /// CPU feature `other` does not.
    fn holds_wherever(&self, other: &Condition) -> bool {
        self.target.as_ref().is_none_or(|t| other.target.as_ref() == Some(t))
            && self.cpu_features.iter().all(|f| other.cpu_features.contains(f))
    }

    /// Whether the entry applies on this machine.
    pub fn holds(&self) -> bool {
        let features = crate::platform::cpu_features();
        self.target.as_ref().is_none_or(|t| *t == crate::platform::target())
            && self.cpu_features.iter().all(|f| features.contains(f))
    }
}

/// The most ids an entry without `*` is expanded to when its ids are looked up in a plan
/// (a larger one is matched against each id of the plan instead).
const EXPANDED: usize = 4096;

/// Every expectations file of a catalog.
#[derive(Debug, Default)]
pub struct Expectations {
    /// The files, with their paths relative to the catalog root.
    pub files: Vec<(PathBuf, ExpectationsFile)>,
}

/// Where a check is listed: the file, its line, and the entry.
pub struct Listed<'a> {
    pub file: &'a Path,
    pub line: u64,
    pub deviation: &'a Deviation,
}

impl ExpectationsFile {
    /// The deviations with their compiled `id` patterns.
    pub fn entries(&self) -> impl Iterator<Item = (&Deviation, &Pattern)> {
        self.deviations.iter().zip(&self.patterns)
    }
}

impl Expectations {
    /// Loads the catalog's `expectations/*.yaml` (none if it has no such files): one file per
    /// adapter, named after it, each entry's `id` a valid pattern listed once.
    pub fn load(files: &CatalogFiles) -> Result<Expectations, LoadError> {
        let mut loaded: Vec<(PathBuf, ExpectationsFile)> = Vec::new();
        for (path, text) in files.below("expectations") {
            let file = load_file(path, text, &loaded, true).map_err(|e| e.located(text))?;
            loaded.push((path.to_path_buf(), file));
        }
        Ok(Expectations { files: loaded })
    }

    /// Adds a file from outside the catalog (`--expectations FILE`): a vendor's own, whose
    /// adapter is named by its `adapter` field.
    pub fn add_file(&mut self, path: &Path, text: &str) -> Result<(), LoadError> {
        let file = load_file(path, text, &self.files, false).map_err(|e| e.located(text))?;
        self.files.push((path.to_path_buf(), file));
        Ok(())
    }

    /// The entry of the check's adapter's file that lists check `id` on this machine, if any.
    pub fn listed(&self, id: &str) -> Option<Listed<'_>> {
        let adapter = id.split(':').nth(1).filter(|_| !id.starts_with("table:"))?;
        self.files.iter().filter(|(_, f)| f.adapter == adapter).find_map(|(file, f)| {
            f.entries().find(|(d, p)| d.when.holds() && p.matches(id)).map(|(deviation, _)| Listed {
                file,
                line: deviation.id.referenced.line(),
                deviation,
            })
        })
    }

    /// The relaxation profile `adapter` declares: the union of its files' `profile` lists, if
    /// any names one.
    pub fn profile(&self, adapter: &str) -> Option<Profile> {
        let declared: Vec<Relaxation> = self
            .files
            .iter()
            .filter(|(_, f)| f.adapter == adapter)
            .flat_map(|(_, f)| f.profile.clone())
            .collect();
        (!declared.is_empty()).then(|| Profile::new(declared))
    }

    /// Entries of `adapter`'s files that can never apply to a check among `ids` (the adapter's
    /// planned checks), as load errors at their lines: one that names no check; one each of
    /// whose checks an earlier entry (of these files, in order) lists wherever it applies, so
    /// that [`Expectations::listed`] never reaches it; and a `flaky` one that names every check
    /// of the adapter, which would excuse any run.
    pub fn inapplicable(&self, adapter: &str, ids: &HashSet<&str>) -> Vec<LoadError> {
        let mut scratch = Scratch::default();
        let mut errors = Vec::new();
        // Each entry read so far: where it is, its condition, and the checks it names.
        let mut earlier: Vec<(&Path, u64, &Condition, HashSet<&str>)> = Vec::new();
        for (file, f) in self.files.iter().filter(|(_, f)| f.adapter == adapter) {
            for (i, (d, p)) in f.entries().enumerate() {
                let named: HashSet<&str> = match p.expansions(EXPANDED) {
                    Some(named) => named.iter().filter_map(|id| ids.get(id.as_str()).copied()).collect(),
                    None => ids.iter().copied().filter(|id| p.matches_in(id, &mut scratch)).collect(),
                };
                let at = |m: String| {
                    LoadError::at_location(file, &d.id.referenced, format!("field `deviations[{i}].id`: {m}"))
                };
                let id = &d.id.value;
                let before: Vec<_> = earlier.iter().filter(|e| e.2.holds_wherever(&d.when)).collect();
                let first_lister = |c: &str| before.iter().find(|e| e.3.contains(c));
                if named.is_empty() {
                    let m = format!("`{id}` matches no check of adapter `{adapter}` (renamed or removed?)");
                    errors.push(at(m));
                } else if d.flaky && named.len() == ids.len() {
                    let m = format!(
                        "`{id}` names every check of adapter `{adapter}`, and a `flaky` entry's checks may \
                         pass or fail: it would excuse any run (name the checks that change from run to run)"
                    );
                    errors.push(at(m));
                } else if named.iter().all(|c| first_lister(c).is_some()) {
                    let mut by: Vec<String> = named
                        .iter()
                        .filter_map(|c| first_lister(c).map(|e| format!("{}:{}", e.0.display(), e.1)))
                        .collect();
                    by.sort();
                    by.dedup();
                    let m = format!(
                        "`{id}` never applies: each of its {} checks is listed by an earlier entry ({}), \
                         which is found first (remove it, or narrow the earlier one)",
                        named.len(),
                        by.join(", ")
                    );
                    errors.push(at(m));
                }
                earlier.push((file, d.id.referenced.line(), &d.when, named));
            }
        }
        errors
    }
}

/// Parses and checks an expectations file on its own (for `opspec expect --migrate`).
pub fn read_file(path: &Path, text: &str) -> Result<ExpectationsFile, LoadError> {
    load_file(path, text, &[], false).map_err(|e| e.located(text))
}

/// Parses and checks one expectations file; `earlier` are the files loaded before it. A
/// catalog's file must be named after its adapter (`named_after_adapter`); a vendor's file
/// given with `--expectations` may have any name.
fn load_file(
    path: &Path,
    text: &str,
    earlier: &[(PathBuf, ExpectationsFile)],
    named_after_adapter: bool,
) -> Result<ExpectationsFile, LoadError> {
    let mut file: ExpectationsFile = parse_yaml(path, text)?;
    if !is_valid_id(&file.adapter) || file.adapter == "table" {
        let m = format!("`{}` is not an adapter name (lowercase letters, digits and `-`)", file.adapter);
        return Err(LoadError::in_field(path, "adapter", m));
    }
    if named_after_adapter && path.file_stem().is_none_or(|s| s.to_string_lossy() != file.adapter) {
        let m = format!("`{}` must match the file name (expectations/<adapter>.yaml)", file.adapter);
        return Err(LoadError::in_field(path, "adapter", m));
    }
    if named_after_adapter && let Some((other, _)) = earlier.iter().find(|(_, f)| f.adapter == file.adapter) {
        let m = format!("{} lists adapter `{}` too: one file per adapter", other.display(), file.adapter);
        return Err(LoadError::in_field(path, "adapter", m));
    }
    let mut patterns = Vec::with_capacity(file.deviations.len());
    for (i, d) in file.deviations.iter().enumerate() {
        let at = |m: String| {
            LoadError::at_location(path, &d.id.referenced, format!("field `deviations[{i}].id`: {m}"))
        };
        // An entry whose `when` can never hold would never apply, and the run would fail without saying why.
        let at_when = |field: &str, m: String| {
            LoadError::at_location(
                path,
                &d.id.referenced,
                format!("field `deviations[{i}].when.{field}`: {m}"),
            )
        };
        let pattern = Pattern::new(&d.id.value).map_err(|m| at(format!("`{}`: {m}", d.id.value)))?;
        if file.deviations[..i].iter().any(|e| e.id.value == d.id.value) {
            return Err(at(format!("`{}` is listed twice", d.id.value)));
        }
        if let Some(t) = &d.when.target
            && !t
                .split_once('-')
                .is_some_and(|(a, o)| platform::ARCHES.contains(&a) && platform::OSES.contains(&o))
        {
            let m = format!(
                "`{t}` is not a target: ARCH-OS as the report's `target` says (this machine: {}; ARCH one of {}, OS one of {})",
                platform::target(),
                platform::ARCHES.join(", "),
                platform::OSES.join(", ")
            );
            return Err(at_when("target", m));
        }
        if let Some(t) = &d.when.target
            && !d.when.cpu_features.is_empty()
            && t.split_once('-').is_some_and(|(arch, _)| arch != platform::CPU_FEATURES_ARCH)
        {
            let m = format!(
                "opspec reports CPU features on {} only: with `target: {t}` the entry never applies",
                platform::CPU_FEATURES_ARCH
            );
            return Err(at_when("cpu_features", m));
        }
        if let Some(f) = d.when.cpu_features.iter().find(|f| !platform::CPU_FEATURES.contains(&f.as_str())) {
            let known = platform::CPU_FEATURES.join(", ");
            return Err(at_when(
                "cpu_features",
                format!("`{f}` is not a CPU feature opspec reports ({known})"),
            ));
        }
        if let Some(u) = d.tolerate.max_ulp
            && !(0.0..=MAX_TOLERATED_ULP).contains(&u)
        {
            let m = format!(
                "{u} is not a number of ULPs from 0 to 2^53 (a larger bound tolerates a zero or \
                 wrong-sign result in every dtype: leave `max_ulp` out to tolerate any error)"
            );
            return Err(LoadError::in_field(path, &format!("deviations[{i}].tolerate.max_ulp"), m));
        }
        if let Some((j, why)) =
            d.fails.list().iter().enumerate().find_map(|(j, f)| f.unlistable().map(|w| (j, w)))
        {
            let field = match d.fails {
                Failures::One(_) => format!("deviations[{i}].fails"),
                Failures::Many(_) => format!("deviations[{i}].fails[{j}]"),
            };
            return Err(LoadError::in_field(path, &field, why));
        }
        for (name, text) in [("does", &d.does), ("why", &d.why)] {
            if text.trim().is_empty() {
                let m = "say it: an entry without its finding or its rule cannot be reviewed";
                return Err(LoadError::in_field(path, &format!("deviations[{i}].{name}"), m));
            }
        }
        patterns.push(pattern);
    }
    file.patterns = patterns;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_ulp_is_capped_at_2_to_the_53() {
        let file = |bound: &str| {
            let text = format!(
                "adapter: cpu\ndeviations:\n  - id: \"a:cpu:add:f32:edges\"\n    does: x\n    why: y\n    fails: values\n    tier: must\n    tolerate: {{max_ulp: {bound}}}\n"
            );
            read_file(Path::new("cpu.yaml"), &text)
        };
        assert!(file("0").is_ok() && file("9007199254740992").is_ok());
        let e = file("9007199254740994").unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(8), Some("deviations[0].tolerate.max_ulp")), "{e}");
        assert!(e.message.contains("from 0 to 2^53"), "{e}");
    }
}
