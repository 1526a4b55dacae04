//! The results file, `results.jsonl` (format version 1, documented in `docs/RESULTS.md`):
//! written record by record as a run goes, read back by `report`, `diff` and `expect`.

use std::collections::BTreeMap;
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::RunInfo;
use super::{CheckResult, Status};
use crate::spec::id::CheckId;

/// The `format` field of a results file's first record.
pub const FORMAT: &str = "opspec-results";
/// The version this opspec writes and reads.
pub const VERSION: u32 = 1;

/// One line of a results file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
enum Record {
    /// First: what the run is, and every check it planned.
    Run {
        format: String,
        version: u32,
        info: Box<RunInfo>,
        planned: Vec<String>,
        /// The catalog files the checks cite, by path (so a report shows a row's YAML).
        #[serde(default)]
        sources: BTreeMap<String, String>,
    },
    /// One finished check.
    Check(Box<CheckResult>),
    /// Last: the run finished.
    End { seconds: f64, finished_at: u64 },
}

/// One run, read back: its description, a result for every planned check (`missing` where
/// none was written), and whether the file was complete.
#[derive(Clone, Debug)]
pub struct Run {
    /// The file it was read from (empty for a run rendered from memory).
    pub path: PathBuf,
    pub info: RunInfo,
    pub sources: BTreeMap<String, String>,
    /// False when the file ended before its `end` record: the run was killed.
    pub complete: bool,
    checks: Source,
    /// A hash of the records read (0 for a run held in memory): a copy of the file has it too.
    content: u64,
}

/// Where a run's results come from.
#[derive(Clone, Debug)]
enum Source {
    /// Read again from the run's file on each pass: per planned check, in plan order, where
    /// its record is (`None`: it has none); and the ids of those without one, in plan order.
    File {
        at: Vec<Option<Place>>,
        missing: Vec<CheckId>,
    },
    Memory(Vec<CheckResult>),
}

/// Where a check record sits in its file, and the hash of its line, which finds it unchanged.
#[derive(Clone, Copy, Debug)]
struct Place {
    offset: u64,
    line: NonZeroU64,
    hash: u64,
}

impl Run {
    /// A run held in memory (rendered without a file, or joined by `merge` before it is
    /// written): `results` in the order they are reported.
    pub fn in_memory(
        path: PathBuf,
        info: RunInfo,
        results: Vec<CheckResult>,
        sources: BTreeMap<String, String>,
        complete: bool,
    ) -> Run {
        Run { path, info, sources, complete, checks: Source::Memory(results), content: 0 }
    }

    /// Whether `other` is this run, read twice: the same run id, or (in files written before
    /// runs had one) the same records.
    pub fn is(&self, other: &Run) -> bool {
        match (self.info.run_id.as_str(), other.info.run_id.as_str()) {
            ("", "") => self.content != 0 && self.content == other.content,
            (a, b) => a == b,
        }
    }

    /// Every planned check's result, owned, one at a time, in the order of the plan (a
    /// `missing` result for each that has no record). Read from the file again on every call:
    /// an item is an error naming the file and line where the file no longer reads as it did
    /// when it was opened; nothing follows it.
    pub fn checks(&self) -> impl Iterator<Item = Result<CheckResult, String>> + '_ {
        match &self.checks {
            Source::Memory(results) => Checks::Memory(results.iter()),
            Source::File { at, missing } => Checks::File(Reread {
                path: &self.path,
                at: at.iter(),
                missing: missing.iter(),
                file: None,
                line: Vec::new(),
                failed: false,
            }),
        }
    }

    /// How many checks the run planned: how many [`Run::checks`] yields.
    pub fn planned(&self) -> usize {
        match &self.checks {
            Source::Memory(results) => results.len(),
            Source::File { at, .. } => at.len(),
        }
    }
}

/// One pass over a run's results.
enum Checks<'a> {
    Memory(std::slice::Iter<'a, CheckResult>),
    File(Reread<'a>),
}

impl Iterator for Checks<'_> {
    type Item = Result<CheckResult, String>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Checks::Memory(results) => results.next().cloned().map(Ok),
            Checks::File(reread) => reread.next(),
        }
    }
}

/// A pass over a results file already read once: each record is read at its place again.
struct Reread<'a> {
    path: &'a Path,
    at: std::slice::Iter<'a, Option<Place>>,
    missing: std::slice::Iter<'a, CheckId>,
    /// The open file and the offset it is at.
    file: Option<(BufReader<File>, u64)>,
    line: Vec<u8>,
    failed: bool,
}

impl Iterator for Reread<'_> {
    type Item = Result<CheckResult, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let result = match self.at.next()? {
            None => match self.missing.next() {
                Some(id) => Ok(missing(id.clone())),
                None => Err(format!("{}: fewer unrun checks than when it was read", self.path.display())),
            },
            Some(place) => self.read(place),
        };
        self.failed = result.is_err();
        Some(result)
    }
}

impl Reread<'_> {
    /// The check record at `place`, which must be the line read there before.
    fn read(&mut self, place: &Place) -> Result<CheckResult, String> {
        let at = |what: &str| format!("{}:{}: {what}", self.path.display(), place.line);
        let (file, pos) = match &mut self.file {
            Some(open) => open,
            None => {
                let file = File::open(self.path).map_err(|e| at(&format!("cannot read it again: {e}")))?;
                self.file.insert((BufReader::new(file), 0))
            }
        };
        // Relative, so that records read in file order keep the buffer.
        file.seek_relative(place.offset.wrapping_sub(*pos) as i64).map_err(|e| at(&e.to_string()))?;
        self.line.clear();
        let n = file.read_until(b'\n', &mut self.line).map_err(|e| at(&e.to_string()))?;
        *pos = place.offset + n as u64;
        if line_hash(&self.line) != place.hash {
            return Err(at("the file changed while it was read: this line is not the check record it was"));
        }
        match serde_json::from_slice::<Record>(&self.line) {
            Ok(Record::Check(r)) => Ok(*r),
            _ => Err(at("the file changed while it was read: this line is no check record")),
        }
    }
}

/// The result of a planned check that has no record.
fn missing(id: CheckId) -> CheckResult {
    let mut missing = CheckResult::new(id);
    missing.status = Status::Missing;
    missing.message = "planned, but the run ended before it ran".to_string();
    missing
}

/// The hash of a record's line.
fn line_hash(line: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    line.hash(&mut h);
    h.finish()
}

/// A 128-bit hash of a check id: which planned check a record is, without keeping the ids.
fn id_hash(id: &str) -> (u64, u64) {
    let half = |salt: u8| {
        let mut h = DefaultHasher::new();
        (salt, id).hash(&mut h);
        h.finish()
    };
    (half(0), half(1))
}

/// Writes a results file as the run goes; every record is flushed when written, so a killed
/// run leaves every finished check on disk.
pub struct ResultsWriter {
    path: PathBuf,
    out: Mutex<BufWriter<File>>,
}

impl ResultsWriter {
    /// Creates `path` and writes the run record.
    pub fn create(
        path: &Path,
        info: &RunInfo,
        planned: &[impl ToString],
        sources: &BTreeMap<String, String>,
    ) -> Result<ResultsWriter, String> {
        let file = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let writer = ResultsWriter { path: path.to_path_buf(), out: Mutex::new(BufWriter::new(file)) };
        writer.write(&Record::Run {
            format: FORMAT.to_string(),
            version: VERSION,
            info: Box::new(info.clone()),
            planned: planned.iter().map(ToString::to_string).collect(),
            sources: sources.clone(),
        })?;
        Ok(writer)
    }

    /// Appends one finished check.
    pub fn check(&self, result: &CheckResult) -> Result<(), String> {
        self.write(&Record::Check(Box::new(result.clone())))
    }

    /// Appends the end record: the run finished.
    pub fn finish(&self, seconds: f64, finished_at: u64) -> Result<(), String> {
        self.write(&Record::End { seconds, finished_at })
    }

    fn write(&self, record: &Record) -> Result<(), String> {
        let line = serde_json::to_string(record).map_err(|e| format!("cannot encode a record: {e}"))?;
        let mut out = self.out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// The first record, read field by field: its planned ids are hashed as they are read, not
/// kept.
#[derive(Deserialize)]
struct Header<P> {
    format: String,
    version: u32,
    info: Box<RunInfo>,
    planned: P,
    #[serde(default)]
    sources: BTreeMap<String, String>,
}

/// The planned ids' hashes with their places in the plan, sorted by hash.
struct PlannedHashes(Vec<((u64, u64), u32)>);

impl<'de> Deserialize<'de> for PlannedHashes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<PlannedHashes, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = PlannedHashes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of check ids")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<PlannedHashes, A::Error> {
                let mut hashes = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(id) = seq.next_element::<std::borrow::Cow<str>>()? {
                    let place =
                        u32::try_from(hashes.len()).map_err(|_| A::Error::custom("too many checks"))?;
                    hashes.push((id_hash(&id), place));
                }
                Ok(PlannedHashes(hashes))
            }
        }
        use serde::de::Error;
        deserializer.deserialize_seq(Visit)
    }
}

/// Reads a results file in one pass, line by line, keeping [`Place`]s (24 bytes per planned
/// check) and the ids of the planned checks it holds no record of; its results are read again
/// by [`Run::checks`], so it must be a regular file, not a pipe. A UTF-8 byte-order mark at
/// its start is skipped. A file that ends early (a killed run, possibly in the middle of a line)
/// reads as incomplete; anything else malformed, a check recorded twice or not planned, or a
/// record that contradicts itself ([`CheckResult::contradiction`]) is an error naming the file
/// and line.
pub fn read(path: &Path) -> Result<Run, String> {
    regular_file(path)?;
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let at = |line: u64, what: String| format!("{}:{line}: {what}", path.display());
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut offset = reader.read_until(b'\n', &mut buf).map_err(|e| at(1, e.to_string()))? as u64;
    let mut content = DefaultHasher::new();
    content.write_u64(line_hash(&buf));
    let header = run_record::<PlannedHashes>(without_bom(&buf)).map_err(|e| at(1, e))?;
    let mut info = *header.info;
    let mut index = header.planned.0;
    let mut places: Vec<Option<Place>> = vec![None; index.len()];
    index.sort_unstable();
    if index.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(at(1, "a check is planned twice".to_string()));
    }
    // The first line holds the plan: do not keep its room for the records.
    buf = Vec::new();
    let (mut line, mut complete) = (1u64, false);
    loop {
        buf.clear();
        let start = offset;
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| at(line + 1, e.to_string()))?;
        if n == 0 {
            break;
        }
        (offset, line) = (offset + n as u64, line + 1);
        let record = match serde_json::from_slice::<Record>(&buf) {
            Ok(r) => r,
            // A killed run can leave half a line at the end.
            Err(e) if e.is_eof() && reader.fill_buf().map_err(|e| at(line, e.to_string()))?.is_empty() => {
                break;
            }
            Err(_) if without_bom(&buf).len() < buf.len() => {
                return Err(at(
                    line,
                    "a byte-order mark (U+FEFF) starts this line: only the file's first may".into(),
                ));
            }
            Err(e) => return Err(at(line, format!("not a results record: {e}"))),
        };
        content.write_u64(line_hash(&buf));
        match record {
            Record::Check(r) if !complete => {
                let id = r.id.to_string();
                if let Some(why) = r.contradiction() {
                    return Err(at(line, format!("check `{id}` contradicts itself: {why}")));
                }
                let Ok(i) = index.binary_search_by_key(&id_hash(&id), |&(h, _)| h) else {
                    return Err(at(line, format!("check `{id}` has a result but was not planned")));
                };
                let place = &mut places[index[i].1 as usize];
                if place.is_some() {
                    return Err(at(line, format!("check `{id}` is recorded twice")));
                }
                let line = NonZeroU64::new(line).unwrap_or(NonZeroU64::MIN);
                *place = Some(Place { offset: start, line, hash: line_hash(&buf) });
            }
            Record::End { seconds, .. } if seconds.is_nan() || seconds < 0.0 => {
                return Err(at(
                    line,
                    format!("the `end` record's `seconds` is {seconds}: a duration is not negative"),
                ));
            }
            Record::End { seconds, finished_at } if !complete => {
                (info.seconds, info.finished_at, complete) = (seconds, finished_at, true);
            }
            Record::Run { .. } => return Err(at(line, "a second `run` record".to_string())),
            _ => return Err(at(line, "a record after the `end` record".to_string())),
        }
    }
    drop(index);
    let missing = if places.iter().any(Option::is_none) { unrun(path, &places)? } else { Vec::new() };
    let checks = Source::File { at: places, missing };
    let content = content.finish().max(1);
    Ok(Run { path: path.to_path_buf(), info, sources: header.sources, complete, checks, content })
}

/// The UTF-8 byte-order mark, which an editor may put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `line` without a UTF-8 byte-order mark at its start: the first line of a results file may
/// have one (the writer writes none; an editor that saved the file may have added it).
fn without_bom(line: &[u8]) -> &[u8] {
    line.strip_prefix(BOM).unwrap_or(line)
}

/// Refuses anything but a regular file (a pipe, a FIFO, a folder, a device): a run's results
/// are read again on each pass over them, which a pipe cannot give.
fn regular_file(path: &Path) -> Result<(), String> {
    let kind =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() { "a folder" } else { "not a regular file (a pipe, a FIFO or a device)" };
    Err(format!(
        "{}: is {what}; results are read more than once, so they must be a file (save a stream first: \
         `cat > results.jsonl`)",
        path.display()
    ))
}

/// Refuses a run given twice among `runs` (its results would count twice), naming both files.
pub fn distinct(runs: &[&Run]) -> Result<(), String> {
    for (i, run) in runs.iter().enumerate() {
        if let Some(earlier) = runs[..i].iter().find(|earlier| earlier.is(run)) {
            let id = match run.info.run_id.as_str() {
                "" => "the same records".to_string(),
                id => format!("run id {id}"),
            };
            return Err(format!(
                "{} and {} are one run ({id}): give each run once",
                earlier.path.display(),
                run.path.display()
            ));
        }
    }
    Ok(())
}

/// The first record of a results file, checked to be one of the format this opspec reads.
fn run_record<'de, P: Deserialize<'de>>(line: &'de [u8]) -> Result<Header<P>, String> {
    #[derive(Deserialize)]
    struct Tag {
        record: String,
    }
    let not_results = || format!("not an opspec results file: the first record must be `run` ({FORMAT})");
    match serde_json::from_slice::<Tag>(line) {
        Ok(tag) if tag.record == "run" => {}
        Err(e) if !e.is_eof() => return Err(format!("not a results record: {e}")),
        _ => return Err(not_results()),
    }
    let header: Header<P> = serde_json::from_slice(line).map_err(|e| format!("not a results record: {e}"))?;
    let (format, version) = (&header.format, header.version);
    if format != FORMAT || version != VERSION {
        return Err(format!(
            "format `{format}` version {version}; this opspec reads `{FORMAT}` version {VERSION}"
        ));
    }
    Ok(header)
}

/// The ids of the planned checks without a place, in plan order, read from the first line
/// again.
fn unrun(path: &Path, places: &[Option<Place>]) -> Result<Vec<CheckId>, String> {
    let at = |what: String| format!("{}:1: {what}", path.display());
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut buf = Vec::new();
    BufReader::new(file).read_until(b'\n', &mut buf).map_err(|e| at(e.to_string()))?;
    let planned = run_record::<Vec<String>>(without_bom(&buf)).map_err(at)?.planned;
    if planned.len() != places.len() {
        return Err(at("the file changed while it was read".to_string()));
    }
    let unrun = planned.iter().zip(places).filter(|(_, place)| place.is_none());
    unrun.map(|(id, _)| id.parse().map_err(|e| at(format!("planned id `{id}`: {e}")))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Rerun;
    use crate::spec::Catalog;

    fn info() -> RunInfo {
        RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec![], Rerun::default())
    }

    fn ids(list: &[&str]) -> Vec<CheckId> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    /// A directory of its own for test `name`.
    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("opspec-results-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A results file planning `planned`, with a passing record of each of `ran` (in that
    /// order), finished when `finish`.
    fn file(dir: &Path, planned: &[&str], ran: &[&str], finish: bool) -> PathBuf {
        let path = dir.join("results.jsonl");
        let writer = ResultsWriter::create(&path, &info(), &ids(planned), &BTreeMap::new()).unwrap();
        for id in ids(ran) {
            let mut r = CheckResult::new(id);
            r.inputs = 7;
            writer.check(&r).unwrap();
        }
        if finish {
            writer.finish(1.5, 42).unwrap();
        }
        path
    }

    fn all(run: &Run) -> Vec<(String, Status)> {
        run.checks().map(|r| r.map(|r| (r.id.to_string(), r.status)).unwrap()).collect()
    }

    /// The error reading `path` after `edit` changed its text.
    fn refused(path: &Path, edit: impl FnOnce(String) -> String) -> String {
        let text = edit(std::fs::read_to_string(path).unwrap());
        std::fs::write(path, text).unwrap();
        read(path).unwrap_err()
    }

    const A: &str = "array-api:cpu:add:f32:edges";
    const B: &str = "array-api:cpu:add:f64:edges";
    const C: &str = "table:add:f32:edges";

    #[test]
    fn a_killed_run_reads_as_incomplete_with_its_unrun_checks_missing() {
        let dir = dir("killed");
        let path = file(&dir, &[A, B, C], &[C], false);
        // Half a line, as a kill in the middle of a write leaves it.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text += "{\"record\":\"check\",\"id\":\"arr";
        std::fs::write(&path, text).unwrap();

        let run = read(&path).unwrap();
        assert!(!run.complete);
        assert_eq!(run.planned(), 3);
        let expected = [(A, Status::Missing), (B, Status::Missing), (C, Status::Pass)];
        assert_eq!(all(&run), expected.map(|(id, s)| (id.to_string(), s)), "in the plan's order");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finished_run_reads_in_the_plans_order_and_a_wrong_version_is_refused() {
        let dir = dir("done");
        let path = file(&dir, &[A, B, C], &[B, C, A], true);
        let run = read(&path).unwrap();
        assert!(run.complete);
        assert_eq!((run.info.seconds, run.info.finished_at), (1.5, 42));
        assert_eq!(all(&run), [A, B, C].map(|id| (id.to_string(), Status::Pass)));
        assert_eq!(all(&run), all(&run), "every pass reads the same");

        let e = refused(&path, |t| t.replacen("\"version\":1", "\"version\":9", 1));
        assert!(e.contains("results.jsonl:1:") && e.contains("version 9"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn checks_recorded_twice_or_unplanned_or_after_the_end_are_refused_with_their_line() {
        let dir = dir("twice");
        let path = file(&dir, &[A, B], &[A, B, A], true);
        let e = read(&path).unwrap_err();
        assert!(e.ends_with(&format!("results.jsonl:4: check `{A}` is recorded twice")), "{e}");

        let path = file(&dir, &[A], &[A, B], true);
        let e = read(&path).unwrap_err();
        assert!(
            e.ends_with(&format!("results.jsonl:3: check `{B}` has a result but was not planned")),
            "{e}"
        );

        let path = file(&dir, &[A, B], &[A, B], true);
        let e = refused(&path, |t| {
            let lines: Vec<&str> = t.lines().collect();
            format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[3], lines[2])
        });
        assert!(e.contains("results.jsonl:4: a record after the `end` record"), "{e}");

        let path = file(&dir, &[A, A], &[], true);
        assert!(read(&path).unwrap_err().contains("results.jsonl:1: a check is planned twice"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_record_that_contradicts_itself_is_refused_with_its_line() {
        let dir = dir("contradicts");
        let path = file(&dir, &[A, B], &[A, B], true);
        let e = refused(&path, |t| {
            t.replacen("\"inputs\":7,\"failed_inputs\":0", "\"inputs\":7,\"failed_inputs\":2", 1)
        });
        assert!(e.contains(&format!("results.jsonl:2: check `{A}` contradicts itself: status pass")), "{e}");

        let path = file(&dir, &[A, B], &[A, B], true);
        let e = refused(&path, |t| t.replacen("\"dtype\":\"f64\"", "\"dtype\":\"f16\"", 1));
        assert!(
            e.contains("results.jsonl:3: not a results record: its `dtype` is not the one its id"),
            "{e}"
        );

        let path = file(&dir, &[C], &[C], true);
        let e = refused(&path, |t| t.replacen("\"adapter\":null", "\"adapter\":\"cpu\"", 1));
        assert!(e.contains("results.jsonl:2: not a results record: its `adapter` is not the one"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn each_kind_of_disagreeing_record_is_refused_at_its_line_naming_its_field() {
        use crate::results::ChunkResult;
        use crate::spec::authority::Tier;
        let dir = dir("disagrees");
        let failed = |n: usize| {
            let mut r = CheckResult::new(A.parse().unwrap());
            (r.status, r.inputs, r.failed_inputs) = (Status::Fail, 7, n);
            r.add_failed(Tier::Should, n as u64);
            r
        };
        let chunk: ChunkResult =
            serde_json::from_value(serde_json::json!({"chunk": 0, "cases": 6, "failed": 1})).unwrap();
        let cases: Vec<(CheckResult, &str)> = vec![
            (
                CheckResult { failed_inputs: 1, ..failed(2) },
                "`failed_by_tier` counts 2 failed inputs, above `failed_inputs` 1",
            ),
            (
                CheckResult { status: Status::KnownDeviation, tier: None, ..failed(0) },
                "status known_deviation, but no failure",
            ),
            (CheckResult { status: Status::Skip, ..failed(1) }, "status skip, but 1 `failed_inputs`"),
            (
                CheckResult { chunks: vec![chunk], ..failed(1) },
                "its `chunks` hold 6 cases, but `inputs` is 7",
            ),
            (CheckResult { max_ulp_error: Some(-1.5), ..failed(1) }, "`max_ulp_error` is -1.5"),
            (CheckResult { seconds: -2.0, ..failed(1) }, "`seconds` is -2"),
        ];
        for (r, says) in cases {
            let path = dir.join("results.jsonl");
            let writer = ResultsWriter::create(&path, &info(), &ids(&[A, B]), &BTreeMap::new()).unwrap();
            writer.check(&CheckResult { inputs: 7, ..CheckResult::new(B.parse().unwrap()) }).unwrap();
            writer.check(&r).unwrap();
            let e = read(&path).unwrap_err();
            assert!(e.contains(&format!("results.jsonl:3: check `{A}` contradicts itself: {says}")), "{e}");
        }
        let path = file(&dir, &[A], &[A], true);
        let e = refused(&path, |t| t.replacen("\"seconds\":1.5", "\"seconds\":-1.5", 1));
        assert!(e.contains("results.jsonl:3: the `end` record's `seconds` is -1.5"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn one_run_given_twice_is_refused_by_its_id_or_without_one_by_its_records() {
        let dir = dir("twice-given");
        let [first, other, copy] = ["first.jsonl", "other.jsonl", "copy.jsonl"].map(|f| dir.join(f));
        std::fs::rename(file(&dir, &[A, B], &[A, B], true), &first).unwrap();
        // Another run of the plan, whose checks finished in another order.
        std::fs::rename(file(&dir, &[A, B], &[B, A], true), &other).unwrap();
        std::fs::copy(&first, &copy).unwrap();
        let runs = [&first, &first, &copy, &other].map(|p| read(p).unwrap_or_else(|e| panic!("{e}")));
        let [a, again, copied, another] = &runs;
        assert!(distinct(&[a, another]).is_ok(), "two runs of one command are two runs");
        let id = &a.info.run_id;
        for (twice, path) in [(again, &first), (copied, &copy)] {
            let e = distinct(&[a, another, twice]).unwrap_err();
            assert!(
                e.ends_with(&format!("{} are one run (run id {id}): give each run once", path.display())),
                "{e}"
            );
        }
        // Files written before runs had an id: the same records are the same run.
        let without_id = |p: &Path| {
            let text = std::fs::read_to_string(p).unwrap();
            std::fs::write(
                p,
                text.replacen(&format!("\"run_id\":\"{}\",", read(p).unwrap().info.run_id), "", 1),
            )
            .unwrap();
            read(p).unwrap()
        };
        let (old, old_other) = (without_id(&first), without_id(&other));
        std::fs::copy(&first, &copy).unwrap();
        let old_copy = read(&copy).unwrap();
        assert!(old.info.run_id.is_empty() && distinct(&[&old, &old_other]).is_ok());
        assert!(distinct(&[&old, &old_copy]).unwrap_err().contains("are one run (the same records)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_changed_after_it_was_read_is_an_error_naming_its_line_and_ends_the_pass() {
        let dir = dir("changed");
        let path = file(&dir, &[A, B, C], &[A, B, C], true);
        let run = read(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // The same length, another count.
        std::fs::write(&path, text.replacen("\"inputs\":7", "\"inputs\":8", 2)).unwrap();
        let pass: Vec<Result<CheckResult, String>> = run.checks().collect();
        assert_eq!(pass.len(), 1, "nothing follows the error");
        let e = pass[0].as_ref().unwrap_err();
        assert!(e.contains("results.jsonl:2: the file changed while it was read"), "{e}");

        // Cut short.
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        let e = run.checks().find_map(Result::err).expect("an error");
        assert!(e.contains("the file changed while it was read"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
