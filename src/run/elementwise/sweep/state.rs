//! A sweep's state file: the chunks it finished, appended as they finish, so a killed sweep
//! resumes after its last finished chunk. A file is trusted no further than it can be
//! checked: its key (this build of opspec, the catalog, the adapter's name and version) must
//! be this run's, or it is set aside and the sweep starts afresh; each chunk's counts must be
//! ones that chunk can have, or the file is refused at its line; and chunks drawn at random
//! are run again and must agree ([`disagreement`]).

use crate::generate::sweep::Sweep;
use crate::judge::classes::ChunkTally;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::hash::{DefaultHasher, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// A sweep's finished chunks on disk: its key, then one line per chunk.
pub(super) struct State {
    file: Option<File>,
    pub(super) path: PathBuf,
    pub(super) finished: BTreeMap<u64, ChunkTally>,
    /// Why a file that was there is not resumed, where one was set aside.
    pub(super) set_aside: Option<String>,
}

/// What a state file's chunks were judged by, its first line; a file of another key is not
/// resumed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Key {
    /// The check's id.
    pub(super) check: String,
    /// opspec's version and build ([`build`]).
    pub(super) opspec: String,
    /// The catalog's revision.
    pub(super) catalog: String,
    /// The adapter's name and version as it reports them (a worker's: its library's).
    pub(super) adapter: String,
    /// The sweep's cases.
    pub(super) cases: u64,
}

impl Key {
    /// The part in which `written`, a file's key, is not this run's, in words; `None` where
    /// every part is. An opspec whose build cannot be identified resumes nothing.
    fn differs(&self, written: &Key) -> Option<String> {
        if self.opspec.ends_with(UNKNOWN_BUILD) {
            return Some("this opspec's build cannot be identified (its executable cannot be read)".into());
        }
        let parts = [
            ("check", &written.check, &self.check),
            ("opspec build", &written.opspec, &self.opspec),
            ("catalog revision", &written.catalog, &self.catalog),
            ("adapter", &written.adapter, &self.adapter),
            ("sweep size", &written.cases.to_string(), &self.cases.to_string()),
        ];
        let (part, was, is) = parts.into_iter().find(|(_, was, is)| was != is)?;
        Some(format!("its {part} is `{was}`, not this run's `{is}`"))
    }
}

const UNKNOWN_BUILD: &str = "unknown build";

/// This build of opspec, for a state's key: a hash of the running executable (the judges, the
/// references and any adapter linked in), so that a rebuilt opspec of the same version does
/// not resume chunks the old build judged; `unknown build` where the executable cannot be
/// read (then nothing is resumed). Read once per process, when a sweep first needs it.
pub(super) fn build() -> &'static str {
    static BUILD: OnceLock<String> = OnceLock::new();
    BUILD.get_or_init(|| match std::env::current_exe().and_then(|exe| hash_file(&exe)) {
        Ok(hash) => format!("build {hash:016x}"),
        Err(_) => UNKNOWN_BUILD.to_string(),
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
struct Finished {
    chunk: u64,
    #[serde(flatten)]
    tally: ChunkTally,
}

/// What a state file holds for this run.
enum Found {
    /// Nothing: no file, or an empty one.
    Nothing,
    /// A file of another key, or whose first line is no key: why.
    Another(String),
    /// This run's finished chunks.
    Chunks(BTreeMap<u64, ChunkTally>),
}

/// What a sweep's finished chunks can hold: the sweep, and the ids of the rows its failures
/// are counted under (the table's, and `(no row)`).
pub(super) struct Expected<'a> {
    pub(super) sweep: &'a Sweep,
    pub(super) rows: Vec<&'a str>,
}

impl State {
    /// Opens (or starts) the state of the sweep `key` names, in `dir`. A file of another key
    /// is set aside (renamed `….refused`; [`State::set_aside`] says why) and the sweep starts
    /// afresh; one whose chunks the sweep cannot have is refused ([`finished_chunk`]). Without
    /// a folder nothing is kept.
    pub(super) fn open(dir: Option<&Path>, key: &Key, expected: &Expected) -> Result<State, String> {
        let mut state =
            State { file: None, path: PathBuf::new(), finished: BTreeMap::new(), set_aside: None };
        let Some(dir) = dir else { return Ok(state) };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        state.path = dir.join(format!("{}.jsonl", key.check.replace(':', "_")));
        let found = match File::open(&state.path) {
            Ok(file) => Self::read(BufReader::new(file), key, expected, &state.path)?,
            Err(_) => Found::Nothing,
        };
        if let Found::Another(why) = &found {
            let aside = state.put_aside()?;
            let note = format!(
                "{} was not resumed: {why}; moved to {}, the sweep starts afresh",
                state.path.display(),
                aside.display()
            );
            eprintln!("  {}: {note}", key.check);
            state.set_aside = Some(note);
        }
        let resumed = matches!(found, Found::Chunks(_));
        state.file = Some(
            OpenOptions::new()
                .create(true)
                .append(resumed)
                .write(true)
                .truncate(!resumed)
                .open(&state.path)
                .map_err(|e| format!("cannot write {}: {e}", state.path.display()))?,
        );
        match found {
            Found::Chunks(finished) => state.finished = finished,
            _ => state.append(&serde_json::to_string(key).map_err(|e| e.to_string())?)?,
        }
        Ok(state)
    }

    /// What a state file holds for the sweep `key` names. A half-written last line (a killed
    /// run) is dropped.
    fn read(file: impl BufRead, key: &Key, expected: &Expected, path: &Path) -> Result<Found, String> {
        let mut lines = file.lines().map_while(Result::ok);
        let Some(first) = lines.next() else { return Ok(Found::Nothing) };
        let written: Key = match serde_json::from_str(&first) {
            Ok(written) => written,
            Err(e) => return Ok(Found::Another(format!("its first line is not a state key ({e})"))),
        };
        if let Some(why) = key.differs(&written) {
            return Ok(Found::Another(why));
        }
        let mut finished = BTreeMap::new();
        // The key is line 1.
        for (line, text) in (2..).zip(lines) {
            let refuse = |m: String| {
                format!(
                    "{}:{line}: {m}: the file is not this sweep's; delete it to start afresh",
                    path.display()
                )
            };
            match serde_json::from_str::<Finished>(&text) {
                Ok(f) => {
                    finished_chunk(&f, expected).map_err(&refuse)?;
                    if finished.insert(f.chunk, f.tally).is_some() {
                        return Err(refuse(format!("field `chunk`: chunk {} is finished twice", f.chunk)));
                    }
                }
                Err(e) if e.is_eof() => break,
                Err(e) => return Err(refuse(format!("not a finished chunk: {e}"))),
            }
        }
        Ok(Found::Chunks(finished))
    }

    /// Appends finished chunk `k`.
    pub(super) fn record(&mut self, k: u64, tally: &ChunkTally) -> Result<(), String> {
        let line =
            serde_json::to_string(&Finished { chunk: k, tally: tally.clone() }).map_err(|e| e.to_string())?;
        self.append(&line)
    }

    /// Renames the file to `….refused` (replacing an earlier one), so that no later run
    /// resumes it; what is recorded from now on is not kept. Its new path.
    pub(super) fn put_aside(&mut self) -> Result<PathBuf, String> {
        self.file = None;
        let mut aside = self.path.clone().into_os_string();
        aside.push(".refused");
        let aside = PathBuf::from(aside);
        std::fs::rename(&self.path, &aside)
            .map_err(|e| format!("cannot move {} aside: {e}", self.path.display()))?;
        Ok(aside)
    }

    fn append(&mut self, line: &str) -> Result<(), String> {
        let Some(file) = &mut self.file else { return Ok(()) };
        writeln!(file, "{line}")
            .and_then(|()| file.flush())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}

/// Checks that the sweep has chunk `f.chunk` and that its counts are ones that chunk can
/// have: every one of its cases judged; no more failures than cases; each failure counted
/// under one tier and under at least one of the table's rows (no row more often than there
/// are failures, none with no failures); no more listed than failures. Sums are checked, so a
/// file cannot wrap them.
fn finished_chunk(f: &Finished, expected: &Expected) -> Result<(), String> {
    let (k, t, sweep) = (f.chunk, &f.tally, expected.sweep);
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
    if let Some(row) = t.by_row.keys().find(|row| !expected.rows.contains(&row.as_str())) {
        return Err(format!("field `by_row`: `{row}` is not a row of the table"));
    }
    if let Some((row, n)) = t.by_row.iter().find(|(_, n)| **n > t.failed || **n == 0) {
        return Err(format!("field `by_row`: {n} failures in row `{row}` of {} failures", t.failed));
    }
    let rows = t.by_row.values().try_fold(0u64, |sum, &n| sum.checked_add(n));
    if rows.is_none_or(|n| n < t.failed) {
        return Err(format!("field `by_row`: fewer failures per row than the {} failures", t.failed));
    }
    let tiers = t.by_tier.values().try_fold(0u64, |sum, &n| sum.checked_add(n));
    if tiers != Some(t.failed) {
        return Err(format!(
            "field `by_tier`: the failures per tier do not add up to the {} failures",
            t.failed
        ));
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

/// A seed no state file can know in advance: the clock's nanoseconds and the process id.
pub(super) fn fresh_seed() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ (u64::from(std::process::id()) << 32)
}

/// `n` of the `resumed` chunks (all of them where there are no more), drawn with `seed`
/// (SplitMix64 steps, a partial Fisher-Yates shuffle), in order.
pub(super) fn chosen(resumed: &[u64], n: usize, seed: u64) -> Vec<u64> {
    let mut pool = resumed.to_vec();
    let n = n.min(pool.len());
    let mut x = seed;
    for i in 0..n {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let len = pool.len();
        pool.swap(i, i + (z % (len - i) as u64) as usize);
    }
    pool.truncate(n);
    pool.sort_unstable();
    pool
}

/// What differs between a chunk's `stored` counts and those of its `rerun`, in words, or
/// `None` where they agree. The failures listed agree where one list starts the other (each
/// was cut at its run's listing cap).
pub(super) fn disagreement(stored: &ChunkTally, rerun: &ChunkTally) -> Option<String> {
    let differ = |what: &str, stored: String, rerun: String| {
        Some(format!("{what}: the file says {stored}, the rerun found {rerun}"))
    };
    if (stored.cases, stored.failed) != (rerun.cases, rerun.failed) {
        return differ(
            "cases and failures",
            format!("{} failures of {} cases", stored.failed, stored.cases),
            format!("{} of {}", rerun.failed, rerun.cases),
        );
    }
    if stored.by_row != rerun.by_row {
        return differ("failures per row", format!("{:?}", stored.by_row), format!("{:?}", rerun.by_row));
    }
    if stored.by_tier != rerun.by_tier {
        return differ("failures per tier", format!("{:?}", stored.by_tier), format!("{:?}", rerun.by_tier));
    }
    let listed = stored.listed.len().min(rerun.listed.len());
    if stored.listed[..listed] != rerun.listed[..listed] {
        return differ(
            "the failures listed",
            format!("{:?}", &stored.listed[..listed]),
            format!("{:?}", &rerun.listed[..listed]),
        );
    }
    if stored.ulp != rerun.ulp {
        return differ("the ULP errors", format!("{:?}", stored.ulp), format!("{:?}", rerun.ulp));
    }
    None
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

    const ID: &str = "array-api:cpu:add:f16:exhaustive";

    /// A change to a key or a tally, tried in turn.
    type Change<T> = fn(&mut T);

    fn key() -> Key {
        Key {
            check: ID.to_string(),
            opspec: "0.1.0 build 0123456789abcdef".to_string(),
            catalog: "c1".to_string(),
            adapter: "cpu: opspec-cpu 0.1.0, avx2 kernels".to_string(),
            cases: 1 << 32,
        }
    }

    fn expected(sweep: &Sweep) -> Expected<'_> {
        Expected { sweep, rows: vec!["nan-either", "remaining", crate::judge::classes::NO_ROW] }
    }

    fn tally() -> ChunkTally {
        ChunkTally {
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
        }
    }

    #[test]
    fn a_state_file_resumes_only_its_own_run() {
        let (dir, sweep) = (folder("resume"), sweep());
        let mut state = State::open(Some(&dir), &key(), &expected(&sweep)).unwrap();
        assert!(state.finished.is_empty() && state.set_aside.is_none());
        let tally = tally();
        state.record(5, &tally).unwrap();
        drop(state);
        let again = State::open(Some(&dir), &key(), &expected(&sweep)).unwrap();
        let resumed = &again.finished[&5];
        assert_eq!((resumed.cases, resumed.failed, resumed.by_row["nan-either"]), (CHUNK, 2, 2));
        assert_eq!(resumed.listed, vec![(vec![1, 2], 3)]);
        assert_eq!(resumed.ulp, tally.ulp);
        assert!(again.set_aside.is_none());
        drop(again);
        // Each part of the key another run's: not resumed, and the file set aside as it was.
        let others: [(&str, Change<Key>); 4] = [
            ("opspec build", |k| k.opspec = "0.1.0 build fedcba9876543210".into()),
            ("catalog revision", |k| k.catalog = "c2".into()),
            ("adapter", |k| k.adapter = "cpu: opspec-cpu 0.1.0, baseline kernels".into()),
            ("sweep size", |k| k.cases = 1 << 30),
        ];
        let path = dir.join("array-api_cpu_add_f16_exhaustive.jsonl");
        let aside = dir.join("array-api_cpu_add_f16_exhaustive.jsonl.refused");
        for (part, change) in others {
            let mut written = State::open(Some(&dir), &key(), &expected(&sweep)).unwrap();
            written.record(5, &tally).unwrap();
            drop(written);
            let text = std::fs::read_to_string(&path).unwrap();
            let mut other = key();
            change(&mut other);
            let state = State::open(Some(&dir), &other, &expected(&sweep)).unwrap();
            assert!(state.finished.is_empty(), "{part}");
            let note = state.set_aside.unwrap();
            assert!(note.contains(&format!("{} was not resumed: its {part} is `", path.display())), "{note}");
            assert!(note.contains(&format!("moved to {}", aside.display())), "{note}");
            assert_eq!(std::fs::read_to_string(&aside).unwrap(), text, "{part}: set aside as it was");
            let fresh: Key = serde_json::from_str(std::fs::read_to_string(&path).unwrap().trim()).unwrap();
            assert_eq!(fresh, other, "{part}: started afresh under this run's key");
            std::fs::remove_file(&path).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A key names the check, and an opspec whose build is unknown resumes nothing, not even
    /// a file of the same unknown build.
    #[test]
    fn keys_differ_by_check_and_an_unknown_build_matches_none() {
        let other_check = Key { check: "array-api:cpu:add:bf16:exhaustive".into(), ..key() };
        assert!(key().differs(&other_check).unwrap().starts_with("its check is"));
        let unknown = Key { opspec: format!("0.1.0 {UNKNOWN_BUILD}"), ..key() };
        assert!(unknown.differs(&unknown).unwrap().contains("cannot be identified"));
        assert_eq!(key().differs(&key()), None);
    }

    /// A state file whose chunks the sweep cannot have is refused, naming the file, the line
    /// and the field, and left as it is.
    #[test]
    fn a_state_file_claiming_what_the_sweep_has_not_is_refused() {
        let header = serde_json::to_string(&key()).unwrap();
        let good = format!(r#"{{"chunk":0,"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[]}}"#);
        let max = u64::MAX;
        // A chunk with one failure, counted under `row` and `tiers`, with `rest` after.
        let one = |row: &str, tiers: &str, rest: &str| {
            format!(r#"{{"chunk":1,"cases":{CHUNK},"failed":1,"by_row":{row},"by_tier":{tiers}{rest}}}"#)
        };
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
                format!(r#"{{"chunk":1,"cases":{CHUNK},"failed":-1,"by_row":{{}},"listed":[]}}"#),
                "not a finished chunk: invalid value: integer `-1`",
            ),
            (
                one(r#"{"remaining":2}"#, r#"{"must":1}"#, r#","listed":[]"#),
                "field `by_row`: 2 failures in row `remaining`",
            ),
            (
                one(r#"{"made-up":1}"#, r#"{"must":1}"#, r#","listed":[]"#),
                "field `by_row`: `made-up` is not a row",
            ),
            (
                format!(r#"{{"chunk":1,"cases":{CHUNK},"failed":0,"by_row":{{"remaining":0}},"listed":[]}}"#),
                "field `by_row`: 0 failures in row `remaining`",
            ),
            (
                one("{}", r#"{"must":1}"#, r#","listed":[]"#),
                "field `by_row`: fewer failures per row than the 1",
            ),
            (
                one(r#"{"remaining":1}"#, &format!(r#"{{"must":{max},"should":1}}"#), r#","listed":[]"#),
                "field `by_tier`",
            ),
            (
                one(r#"{"remaining":1}"#, "{}", r#","listed":[]"#),
                "field `by_tier`: the failures per tier do not add up to the 1",
            ),
            (
                one(r#"{"remaining":1}"#, r#"{"must":1}"#, r#","listed":[[[1,2],3],[[1,2],3]]"#),
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
                format!(
                    r#"{{"chunk":1,"cases":{CHUNK},"failed":0,"by_row":{{}},"listed":[],"ulp":{{"histogram":[1,0,0,0,0,0,0,0,0,1],"worst":[-9.0,[1,2],2]}}}}"#
                ),
                "field `ulp`: a largest ULP error of -9",
            ),
            (
                one(r#"{"remaining":1}"#, r#"{"must":1}"#, r#","listed":[[[1],3]]"#),
                "field `listed`: a failure with 1 operands, not 2",
            ),
            (good.clone(), "field `chunk`: chunk 0 is finished twice"),
        ];
        let (dir, sweep) = (folder("refused"), sweep());
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("array-api_cpu_add_f16_exhaustive.jsonl");
        for (line, says) in bad {
            let text = format!("{header}\n{good}\n{line}\n");
            std::fs::write(&path, &text).unwrap();
            let Err(e) = State::open(Some(&dir), &key(), &expected(&sweep)) else {
                panic!("{line} was taken")
            };
            assert!(e.contains(&format!("{}:3: ", path.display())) && e.contains(says), "{line}: {e}");
            assert!(e.contains("delete it to start afresh"), "{e}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "the file is left as it was");
        }
        // The same chunk with its counts consistent is taken.
        let line = one(r#"{"remaining":1}"#, r#"{"must":1}"#, r#","listed":[[[1,2],3]]"#);
        std::fs::write(&path, format!("{header}\n{good}\n{line}\n")).unwrap();
        assert_eq!(State::open(Some(&dir), &key(), &expected(&sweep)).unwrap().finished.len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The chunks drawn are `n` distinct resumed ones, in order (all where there are no more),
    /// the same for the same seed; over seeds, each resumed chunk is drawn.
    #[test]
    fn resumed_chunks_are_drawn_by_the_seed() {
        let resumed = [3, 4, 9, 10, 11, 40];
        for seed in 0..50 {
            let drawn = chosen(&resumed, 2, seed);
            assert_eq!(drawn, chosen(&resumed, 2, seed));
            assert!(drawn.len() == 2 && drawn[0] < drawn[1], "{drawn:?}");
            assert!(drawn.iter().all(|k| resumed.contains(k)), "{drawn:?}");
        }
        let ever: std::collections::BTreeSet<u64> =
            (0..50).flat_map(|seed| chosen(&resumed, 1, seed)).collect();
        assert_eq!(ever.into_iter().collect::<Vec<_>>(), resumed);
        assert_eq!(chosen(&resumed, 9, 1), resumed);
        assert_eq!(chosen(&resumed, 0, 1), Vec::<u64>::new());
    }

    /// A rerun agrees with the stored counts only where every count does; the lists of
    /// failures may be cut at different caps.
    #[test]
    fn a_rerun_disagrees_where_any_count_does() {
        let stored = tally();
        assert_eq!(disagreement(&stored, &stored), None);
        let longer = ChunkTally { listed: vec![(vec![1, 2], 3), (vec![4, 5], 6)], ..tally() };
        assert_eq!(disagreement(&stored, &longer), None, "cut at another cap");
        let changes: [(&str, Change<ChunkTally>); 5] = [
            ("cases and failures: the file says 2 failures of 33554432 cases, the rerun found 0 of", |t| {
                t.failed = 0
            }),
            ("failures per row", |t| t.by_row = [("remaining".to_string(), 2)].into()),
            ("failures per tier", |t| t.by_tier = [(crate::spec::authority::Tier::Should, 2)].into()),
            ("the failures listed", |t| t.listed = vec![(vec![1, 2], 4)]),
            ("the ULP errors", |t| t.ulp.add_correctly_rounded(1)),
        ];
        for (says, change) in changes {
            let mut rerun = tally();
            change(&mut rerun);
            let why = disagreement(&stored, &rerun).unwrap_or_default();
            assert!(why.starts_with(says), "{why}");
        }
    }
}
