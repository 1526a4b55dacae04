//! The results file, `results.jsonl` (format version 1, documented in `docs/RESULTS.md`):
//! written record by record as a run goes, read back by `report`, `diff` and `expect`.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::RunInfo;
use super::{CheckResult, Rerun, Status};
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
    pub results: Vec<CheckResult>,
    pub sources: BTreeMap<String, String>,
    /// False when the file ended before its `end` record: the run was killed.
    pub complete: bool,
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
        Run { path, info, results, sources, complete }
    }

    /// Every planned check's result, owned, one at a time, in the order of the plan (a
    /// `missing` result for each that has no record). Read from the file again on every call:
    /// an item is an error naming the file and line where the file no longer reads as it did
    /// when it was opened.
    pub fn checks(&self) -> impl Iterator<Item = Result<CheckResult, String>> + '_ {
        self.results.iter().cloned().map(Ok)
    }

    /// How to rerun the checks of `runs` per adapter label: the rerun commands of the first
    /// run that checked the adapter.
    pub fn reruns(runs: &[Run]) -> BTreeMap<&str, &Rerun> {
        let mut reruns = BTreeMap::new();
        for run in runs {
            for r in &run.results {
                reruns.entry(r.id.adapter_label()).or_insert(&run.info.rerun);
            }
        }
        reruns
    }
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
        planned: &[CheckId],
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

/// Reads a results file. A file that ends early (a killed run, possibly in the middle of a
/// line) reads as incomplete; anything else malformed is an error naming the file and line.
pub fn read(path: &Path) -> Result<Run, String> {
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let at = |line: usize, what: String| format!("{}:{line}: {what}", path.display());
    let lines: Vec<String> =
        BufReader::new(file).lines().collect::<Result<_, _>>().map_err(|e| at(0, e.to_string()))?;
    let mut records = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => records.push(r),
            // A killed run can leave half a line at the end.
            Err(e) if i + 1 == lines.len() && e.is_eof() => break,
            Err(e) => return Err(at(i + 1, format!("not a results record: {e}"))),
        }
    }
    let mut records = records.into_iter();
    let Some(Record::Run { format, version, info, planned, sources }) = records.next() else {
        return Err(at(1, format!("not an opspec results file: the first record must be `run` ({FORMAT})")));
    };
    if format != FORMAT || version != VERSION {
        return Err(at(
            1,
            format!("format `{format}` version {version}; this opspec reads `{FORMAT}` version {VERSION}"),
        ));
    }
    let mut info = *info;
    let mut done: HashMap<String, CheckResult> = HashMap::new();
    let mut complete = false;
    for (i, record) in records.enumerate() {
        match record {
            Record::Check(r) if !complete => {
                let id = r.id.to_string();
                if done.insert(id.clone(), *r).is_some() {
                    return Err(at(i + 2, format!("check `{id}` is recorded twice")));
                }
            }
            Record::End { seconds, finished_at } if !complete => {
                (info.seconds, info.finished_at, complete) = (seconds, finished_at, true);
            }
            Record::Run { .. } => return Err(at(i + 2, "a second `run` record".to_string())),
            _ => return Err(at(i + 2, "a record after the `end` record".to_string())),
        }
    }
    let mut results = Vec::with_capacity(planned.len());
    for id in &planned {
        match done.remove(id) {
            Some(r) => results.push(r),
            None => {
                let id: CheckId = id.parse().map_err(|e| at(1, format!("planned id `{id}`: {e}")))?;
                let mut missing = CheckResult::new(id);
                missing.status = Status::Missing;
                missing.message = "planned, but the run ended before it ran".to_string();
                results.push(missing);
            }
        }
    }
    if let Some(id) = done.keys().next() {
        return Err(at(0, format!("check `{id}` has a result but was not planned")));
    }
    Ok(Run { path: path.to_path_buf(), info, results, sources, complete })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Catalog;

    fn info() -> RunInfo {
        RunInfo::new(&Catalog::builtin().unwrap(), 0, 0, vec![], Rerun::default())
    }

    fn ids(list: &[&str]) -> Vec<CheckId> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn a_killed_run_reads_as_incomplete_with_its_unrun_checks_missing() {
        let dir = std::env::temp_dir().join(format!("opspec-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("killed.jsonl");
        let planned = ids(&["array-api:cpu:add:f32:edges", "array-api:cpu:add:f64:edges"]);
        let writer = ResultsWriter::create(&path, &info(), &planned, &BTreeMap::new()).unwrap();
        let mut first = CheckResult::new(planned[0].clone());
        first.inputs = 7;
        writer.check(&first).unwrap();
        drop(writer);
        // Half a line, as a kill in the middle of a write leaves it.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text += "{\"record\":\"check\",\"id\":\"arr";
        std::fs::write(&path, text).unwrap();

        let run = read(&path).unwrap();
        assert!(!run.complete);
        assert_eq!(run.results.len(), 2);
        assert_eq!((run.results[0].status, run.results[0].inputs), (Status::Pass, 7));
        assert_eq!(run.results[1].status, Status::Missing);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finished_run_reads_as_complete_and_a_wrong_version_is_refused() {
        let dir = std::env::temp_dir().join(format!("opspec-results-v-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("done.jsonl");
        let planned = ids(&["table:add:f32:edges"]);
        let writer = ResultsWriter::create(&path, &info(), &planned, &BTreeMap::new()).unwrap();
        writer.check(&CheckResult::new(planned[0].clone())).unwrap();
        writer.finish(1.5, 42).unwrap();
        let run = read(&path).unwrap();
        assert!(run.complete);
        assert_eq!((run.info.seconds, run.info.finished_at), (1.5, 42));

        let text = std::fs::read_to_string(&path).unwrap().replacen("\"version\":1", "\"version\":9", 1);
        std::fs::write(&path, text).unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.contains("done.jsonl:1:") && e.contains("version 9"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
