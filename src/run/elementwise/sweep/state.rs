//! A sweep's state file: the chunks it finished, appended as they finish, so a killed sweep
//! resumes after its last finished chunk.

use crate::judge::classes::ChunkTally;
use crate::spec::id::CheckId;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A sweep's finished chunks on disk: a header line, then one line per chunk.
pub(super) struct State {
    file: Option<File>,
    path: PathBuf,
    pub(super) finished: BTreeMap<u64, ChunkTally>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    check: String,
    fingerprint: String,
}

#[derive(Serialize, Deserialize)]
struct Finished {
    chunk: u64,
    #[serde(flatten)]
    tally: ChunkTally,
}

impl State {
    /// Opens (or starts) the state of check `id` in `dir`; a state written for another
    /// fingerprint (another opspec, adapter version, catalog) is started afresh. Without a
    /// folder nothing is kept.
    pub(super) fn open(dir: Option<&Path>, id: &CheckId, fingerprint: &str) -> Result<State, String> {
        let Some(dir) = dir else {
            return Ok(State { file: None, path: PathBuf::new(), finished: BTreeMap::new() });
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(format!("{}.jsonl", id.to_string().replace(':', "_")));
        let finished = match File::open(&path) {
            Ok(file) => Self::read(BufReader::new(file), id, fingerprint, &path)?,
            Err(_) => None,
        };
        let resumed = finished.is_some();
        let file = OpenOptions::new()
            .create(true)
            .append(resumed)
            .write(true)
            .truncate(!resumed)
            .open(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut state = State { file: Some(file), path, finished: finished.unwrap_or_default() };
        if resumed {
            if !state.finished.is_empty() {
                eprintln!(
                    "  {id}: resuming after {} finished chunks ({})",
                    state.finished.len(),
                    state.path.display()
                );
            }
        } else {
            let header = Header { check: id.to_string(), fingerprint: fingerprint.to_string() };
            state.append(&serde_json::to_string(&header).map_err(|e| e.to_string())?)?;
        }
        Ok(state)
    }

    /// The finished chunks of a state file, or `None` when it belongs to another fingerprint.
    /// A half-written last line (a killed run) is dropped.
    fn read(
        file: impl BufRead,
        id: &CheckId,
        fingerprint: &str,
        path: &Path,
    ) -> Result<Option<BTreeMap<u64, ChunkTally>>, String> {
        let mut lines = file.lines().map_while(Result::ok);
        let header: Option<Header> = lines.next().and_then(|l| serde_json::from_str(&l).ok());
        match header {
            Some(h) if h.check == id.to_string() && h.fingerprint == fingerprint => {}
            _ => {
                eprintln!("  {id}: {} belongs to another run; starting afresh", path.display());
                return Ok(None);
            }
        }
        let mut finished = BTreeMap::new();
        for line in lines {
            match serde_json::from_str::<Finished>(&line) {
                Ok(f) => {
                    finished.insert(f.chunk, f.tally);
                }
                Err(e) if e.is_eof() => break,
                Err(e) => return Err(format!("{}: not a finished chunk: {e}", path.display())),
            }
        }
        Ok(Some(finished))
    }

    /// Appends finished chunk `k`.
    pub(super) fn record(&mut self, k: u64, tally: &ChunkTally) -> Result<(), String> {
        let line =
            serde_json::to_string(&Finished { chunk: k, tally: tally.clone() }).map_err(|e| e.to_string())?;
        self.append(&line)
    }

    fn append(&mut self, line: &str) -> Result<(), String> {
        let Some(file) = &mut self.file else { return Ok(()) };
        writeln!(file, "{line}")
            .and_then(|()| file.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::sweep::CHUNK;

    #[test]
    fn a_state_file_resumes_only_its_own_run() {
        let dir = std::env::temp_dir().join(format!("opspec-sweep-state-{}", std::process::id()));
        let id: CheckId = "array-api:cpu:add:f16:exhaustive".parse().unwrap();
        let mut state = State::open(Some(&dir), &id, "v1").unwrap();
        assert!(state.finished.is_empty());
        let tally = ChunkTally {
            cases: CHUNK,
            failed: 2,
            by_row: [("nan-either".to_string(), 2)].into(),
            by_tier: [(crate::spec::authority::Tier::Must, 2)].into(),
            listed: vec![(vec![1, 2], 3)],
        };
        state.record(5, &tally).unwrap();
        drop(state);
        let again = State::open(Some(&dir), &id, "v1").unwrap();
        let resumed = &again.finished[&5];
        assert_eq!((resumed.cases, resumed.failed, resumed.by_row["nan-either"]), (CHUNK, 2, 2));
        assert_eq!(resumed.listed, vec![(vec![1, 2], 3)]);
        drop(again);
        assert!(State::open(Some(&dir), &id, "v2").unwrap().finished.is_empty(), "another fingerprint");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
