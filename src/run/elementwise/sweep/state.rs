//! A sweep's state file: the chunks it finished, appended as they finish, so a killed sweep
//! resumes after its last finished chunk. What a resumed run takes from the file is checked
//! against the sweep first: a chunk it does not have, or counts it cannot have, refuse the
//! file.

use crate::generate::sweep::Sweep;
use crate::judge::classes::ChunkTally;
use crate::spec::id::CheckId;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::hash::{DefaultHasher, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// A sweep's finished chunks on disk: a header line, then one line per chunk.
pub(super) struct State {
    file: Option<File>,
    path: PathBuf,
    pub(super) finished: BTreeMap<u64, ChunkTally>,
}

/// This build of opspec, for a state's fingerprint: a hash of the running executable (the
/// judges, the references and any adapter linked in), so that a rebuilt opspec of the same
/// version does not resume chunks the old build judged; `unknown build` where the executable
/// cannot be read. Read once per process, when a sweep first needs it.
pub(super) fn build() -> &'static str {
    static BUILD: OnceLock<String> = OnceLock::new();
    BUILD.get_or_init(|| match std::env::current_exe().and_then(|exe| hash_file(&exe)) {
        Ok(hash) => format!("build {hash:016x}"),
        Err(_) => "unknown build".to_string(),
    })
}

/// The hash of the file at `path`, read a buffer at a time (the executable, with its debug
/// information, is over 100 MB: read whole, its pages cost more than the hashing).
fn hash_file(path: &Path) -> std::io::Result<u64> {
    let mut file = BufReader::with_capacity(1 << 16, File::open(path)?);
    let mut hasher = DefaultHasher::new();
    loop {
        let buffer = file.fill_buf()?;
        if buffer.is_empty() {
            return Ok(hasher.finish());
        }
        hasher.write(buffer);
        let read = buffer.len();
        file.consume(read);
    }
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
    /// Opens (or starts) the state of check `id`, a sweep of `sweep`'s cases, in `dir`; a state
    /// written for another fingerprint (another opspec, adapter version, catalog) is started
    /// afresh, and one whose chunks `sweep` cannot have is refused ([`finished_chunk`]). Without
    /// a folder nothing is kept.
    pub(super) fn open(
        dir: Option<&Path>,
        id: &CheckId,
        fingerprint: &str,
        sweep: &Sweep,
    ) -> Result<State, String> {
        let Some(dir) = dir else {
            return Ok(State { file: None, path: PathBuf::new(), finished: BTreeMap::new() });
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(format!("{}.jsonl", id.to_string().replace(':', "_")));
        let finished = match File::open(&path) {
            Ok(file) => Self::read(BufReader::new(file), id, fingerprint, sweep, &path)?,
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
        sweep: &Sweep,
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
        // The header is line 1.
        for (line, text) in (2..).zip(lines) {
            let refuse = |m: String| {
                format!(
                    "{}:{line}: {m}: the file is not this sweep's; delete it to start afresh",
                    path.display()
                )
            };
            match serde_json::from_str::<Finished>(&text) {
                Ok(f) => {
                    finished_chunk(&f, sweep).map_err(&refuse)?;
                    if finished.insert(f.chunk, f.tally).is_some() {
                        return Err(refuse(format!("field `chunk`: chunk {} is finished twice", f.chunk)));
                    }
                }
                Err(e) if e.is_eof() => break,
                Err(e) => return Err(format!("{}:{line}: not a finished chunk: {e}", path.display())),
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

/// Checks that `sweep` has chunk `f.chunk` and that its counts are ones that chunk can have:
/// every one of its cases judged, no more failures than cases, and no more failures per row,
/// per tier (in all) or listed than failures. Sums are checked, so a file cannot wrap them.
fn finished_chunk(f: &Finished, sweep: &Sweep) -> Result<(), String> {
    let (k, t) = (f.chunk, &f.tally);
    if k >= sweep.chunks() {
        return Err(format!("field `chunk`: chunk {k} is not one of the sweep's {} chunks", sweep.chunks()));
    }
    let range = sweep.chunk(k);
    let cases = range.end - range.start;
    if t.cases != cases {
        return Err(format!("field `cases`: chunk {k} has {cases} cases, not {}", t.cases));
    }
    if t.failed > cases {
        return Err(format!("field `failed`: {} failures of {cases} cases", t.failed));
    }
    if let Some((row, n)) = t.by_row.iter().find(|(_, n)| **n > t.failed) {
        return Err(format!("field `by_row`: {n} failures in row `{row}` of {} failures", t.failed));
    }
    let tiers = t.by_tier.values().try_fold(0u64, |sum, &n| sum.checked_add(n));
    if tiers.is_none_or(|n| n > t.failed) {
        return Err(format!("field `by_tier`: more failures per tier than the {} failures", t.failed));
    }
    if t.listed.len() as u64 > t.failed {
        return Err(format!("field `listed`: {} failures listed of {}", t.listed.len(), t.failed));
    }
    if let Some(wrong) = t.ulp.contradiction(cases, Some(sweep.arity())) {
        return Err(format!("field `ulp`: {wrong}"));
    }
    if let Some((operands, _)) = t.listed.iter().find(|(operands, _)| operands.len() != sweep.arity()) {
        return Err(format!(
            "field `listed`: a failure with {} operands, not {}",
            operands.len(),
            sweep.arity()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::format::Format;
    use crate::generate::sweep::CHUNK;

    fn sweep() -> Sweep {
        Sweep::exhaustive(Format::F16, 2).unwrap()
    }

    #[test]
    fn the_build_is_named_by_its_executable() {
        let name = build();
        assert!(name.starts_with("build ") && name.len() == "build ".len() + 16, "{name}");
        assert!(std::ptr::eq(name, build()));
    }

    /// A file's hash covers every byte, past the first buffer too, and only its bytes.
    #[test]
    fn a_file_s_hash_covers_all_of_it() {
        let dir = folder("hash");
        std::fs::create_dir_all(&dir).unwrap();
        let mut bytes = vec![7u8; 3 << 16];
        let hash_of = |bytes: &[u8], name: &str| {
            std::fs::write(dir.join(name), bytes).unwrap();
            hash_file(&dir.join(name)).unwrap()
        };
        let first = hash_of(&bytes, "a");
        assert_eq!(hash_of(&bytes, "b"), first);
        *bytes.last_mut().unwrap() = 8;
        assert_ne!(hash_of(&bytes, "c"), first);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn folder(label: &str) -> PathBuf {
        std::env::temp_dir().join(format!("opspec-sweep-state-{}-{label}", std::process::id()))
    }

    #[test]
    fn a_state_file_resumes_only_its_own_run() {
        let dir = folder("resume");
        let id: CheckId = "array-api:cpu:add:f16:exhaustive".parse().unwrap();
        let mut state = State::open(Some(&dir), &id, "v1", &sweep()).unwrap();
        assert!(state.finished.is_empty());
        let tally = ChunkTally {
            cases: CHUNK,
            failed: 2,
            by_row: [("nan-either".to_string(), 2)].into(),
            by_tier: [(crate::spec::authority::Tier::Must, 2)].into(),
            listed: vec![(vec![1, 2], 3)],
            ulp: {
                let mut ulp = crate::judge::accuracy::UlpTally::default();
                ulp.add(3.25, &[1, 2], 3);
                ulp.add_correctly_rounded(9);
                ulp
            },
        };
        state.record(5, &tally).unwrap();
        drop(state);
        let again = State::open(Some(&dir), &id, "v1", &sweep()).unwrap();
        let resumed = &again.finished[&5];
        assert_eq!((resumed.cases, resumed.failed, resumed.by_row["nan-either"]), (CHUNK, 2, 2));
        assert_eq!(resumed.listed, vec![(vec![1, 2], 3)]);
        assert_eq!(resumed.ulp, tally.ulp);
        drop(again);
        assert!(
            State::open(Some(&dir), &id, "v2", &sweep()).unwrap().finished.is_empty(),
            "another fingerprint"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A state file whose chunks the sweep cannot have is refused, naming the file, the line
    /// and the field, and left as it is.
    #[test]
    fn a_state_file_claiming_what_the_sweep_has_not_is_refused() {
        let id: CheckId = "array-api:cpu:add:f16:exhaustive".parse().unwrap();
        let header = r#"{"check":"array-api:cpu:add:f16:exhaustive","fingerprint":"v1"}"#;
        let good = format!(r#"{{"chunk":0,"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[]}}"#);
        let max = u64::MAX;
        let bad = [
            (
                format!(r#"{{"chunk":128,"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[]}}"#),
                "field `chunk`: chunk 128 is not one of the sweep's 128 chunks",
            ),
            (
                format!(r#"{{"chunk":{max},"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[]}}"#),
                "field `chunk`",
            ),
            (
                format!(r#"{{"chunk":1,"cases":{},"failed":0,"by_row":{{}},"listed":[]}}"#, CHUNK + 1),
                "field `cases`: chunk 1 has 33554432 cases, not 33554433",
            ),
            (
                r#"{"chunk":127,"cases":5,"failed":0,"by_row":{},"listed":[]}"#.to_string(),
                "field `cases`: chunk 127 has 33554432 cases, not 5",
            ),
            (
                format!(r#"{{"chunk":1,"cases":{CHUNK},"failed":{max},"by_row":{{}},"listed":[]}}"#),
                "field `failed`",
            ),
            (
                format!(r#"{{"chunk":1,"cases":{CHUNK},"failed":1,"by_row":{{"remaining":2}},"listed":[]}}"#),
                "field `by_row`: 2 failures in row `remaining`",
            ),
            (
                format!(
                    r#"{{"chunk":1,"cases":{CHUNK},"failed":1,"by_row":{{}},"by_tier":{{"must":{max},"should":1}},"listed":[]}}"#
                ),
                "field `by_tier`",
            ),
            (
                format!(
                    r#"{{"chunk":1,"cases":{CHUNK},"failed":1,"by_row":{{}},"listed":[[[1,2],3],[[1,2],3]]}}"#
                ),
                "field `listed`: 2 failures listed of 1",
            ),
            (
                format!(
                    r#"{{"chunk":1,"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[],"ulp":{{"histogram":[{max},1,0,0,0,0,0,0,0,0]}}}}"#
                ),
                "field `ulp`: a ULP histogram counting more than its 33554432 cases",
            ),
            (
                format!(
                    r#"{{"chunk":1,"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[],"ulp":{{"histogram":[1,0,0,0,0,0,0,0,0,1],"worst":[9.0,[1],2]}}}}"#
                ),
                "field `ulp`: a largest ULP error at 1 operands, not 2",
            ),
            (
                format!(r#"{{"chunk":1,"cases":{CHUNK},"failed":1,"by_row":{{}},"listed":[[[1],3]]}}"#),
                "field `listed`: a failure with 1 operands, not 2",
            ),
            (good.clone(), "field `chunk`: chunk 0 is finished twice"),
        ];
        let dir = folder("refused");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("array-api_cpu_add_f16_exhaustive.jsonl");
        for (line, says) in bad {
            let text = format!("{header}\n{good}\n{line}\n");
            std::fs::write(&path, &text).unwrap();
            let Err(e) = State::open(Some(&dir), &id, "v1", &sweep()) else { panic!("{line} was taken") };
            assert!(e.contains(&format!("{}:3: ", path.display())) && e.contains(says), "{line}: {e}");
            assert!(e.contains("delete it to start afresh"), "{e}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "the file is left as it was");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
