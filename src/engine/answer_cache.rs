//! The answers a service (`kalah serve`) has searched for, kept in memory and on disk so that a
//! restarted server remembers them. The file is a log of JSON lines in the form the jobs and proofs keep theirs
//! ([`crate::jsonl`]): one answer a line, appended and synced under the cache's lock, a line cut
//! short by a kill dropped when the file is read again. No embedded store is needed for this:
//! the answers are exact values, never changed once known, so a log read back at start is the
//! whole of the cache's state. It holds at most `capacity` answers, the oldest forgotten first;
//! the file is rewritten with what is held once it has twice as many lines.
//!
//! The file's first line names its format ([`HEADER`]), so that a file that is not a cache is
//! never overwritten. A damaged line costs that answer only, and an answer read back is served
//! only once it passes its type's check by the rules ([`KeptAnswer::check`]): a hand-edited or
//! forged line is dropped, with a warning naming it.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::answer::{Mainline, PositionReport};
use crate::board::Position;
use crate::jsonl::Appender;
use crate::lock::{FileLock, LockError};
use crate::rules::Rules;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The endpoints whose answers are searched for, and so may be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `/api/v1/position`.
    Position,
    /// `/api/v1/mainline`.
    Mainline,
    /// `/api/v1/keeping-move`: never kept (its answer depends on the bound asked for).
    KeepingMove,
}

impl Endpoint {
    /// Its name, as the API's path and the cache file give it.
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::Position => "position",
            Endpoint::Mainline => "mainline",
            Endpoint::KeepingMove => "keeping-move",
        }
    }

    /// The endpoint whose answers are kept under `name`, if any.
    fn kept_as(name: &str) -> Option<Endpoint> {
        [Endpoint::Position, Endpoint::Mainline].into_iter().find(|e| e.name() == name)
    }
}

/// An answer the cache keeps: one a search found for an endpoint whose answers a reload can
/// check. (A keeping move is never kept: its answer depends on the bound asked for.)
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum KeptAnswer {
    /// `/api/v1/position`'s.
    Position(PositionReport),
    /// `/api/v1/mainline`'s.
    Mainline(Mainline),
}

impl KeptAnswer {
    /// The endpoint it answers.
    pub fn endpoint(&self) -> Endpoint {
        match self {
            KeptAnswer::Position(_) => Endpoint::Position,
            KeptAnswer::Mainline(_) => Endpoint::Mainline,
        }
    }

    /// The answer as served again: marked as given before.
    pub fn cached(mut self) -> KeptAnswer {
        match &mut self {
            KeptAnswer::Position(report) => report.cached = true,
            KeptAnswer::Mainline(line) => line.cached = true,
        }
        self
    }

    /// Whether it can be right for `position` under `rules`: its type's check
    /// ([`PositionReport::check`], [`Mainline::check`]); never a position's answer within a first
    /// turn under the pie rule, which is not kept ([`AnswerCache::insert`]).
    pub fn check(&self, rules: &Rules, position: &Position) -> Result<(), String> {
        if !keeps(self.endpoint(), rules, position) {
            return Err(
                "a first turn's answer under the pie rule is not kept (older versions valued it as plain play)".into(),
            );
        }
        match self {
            KeptAnswer::Position(report) => report.check(rules, position),
            KeptAnswer::Mainline(line) => line.check(rules, position),
        }
    }

    /// `endpoint`'s answer as a cache line holds it.
    fn read(endpoint: Endpoint, answer: Value) -> Result<KeptAnswer, String> {
        let damaged = |err: serde_json::Error| format!("damaged ({err})");
        match endpoint {
            Endpoint::Position => serde_json::from_value(answer).map(KeptAnswer::Position).map_err(damaged),
            Endpoint::Mainline => serde_json::from_value(answer).map(KeptAnswer::Mainline).map_err(damaged),
            Endpoint::KeepingMove => Err("a keeping move is never kept".to_string()),
        }
    }
}

/// Whether `endpoint`'s answers at `position` under `rules` are kept: all but a position's answer
/// within South's first turn under the pie rule, which no check could tell from the plain game's
/// values that versions before the swap's were given, and which is searched again instead.
fn keeps(endpoint: Endpoint, rules: &Rules, position: &Position) -> bool {
    endpoint != Endpoint::Position || !crate::answer::within_first_turn(rules, position)
}

/// An answer's key: endpoint, rules and position.
pub type Key = (Endpoint, Rules, Position);

/// The first line of a cache file: its format and version.
pub const HEADER: &str = r#"{"format":"kalah answer cache","version":1}"#;

/// One answer as a line of the file.
#[derive(Serialize, Deserialize)]
struct Record {
    endpoint: String,
    rules: String,
    position: String,
    answer: Value,
}

impl Record {
    fn of(key: &Key, answer: &KeptAnswer) -> Record {
        Record {
            endpoint: key.0.name().to_string(),
            rules: key.1.to_string(),
            position: key.2.to_string(),
            answer: serde_json::to_value(answer).expect("an answer serialises"),
        }
    }

    fn key(&self) -> Option<Key> {
        let endpoint = Endpoint::kept_as(&self.endpoint)?;
        Some((endpoint, self.rules.parse().ok()?, crate::notation::parse_position(&self.position).ok()?))
    }
}

struct Held {
    answers: HashMap<Key, KeptAnswer>,
    /// Keys in the order they came, to forget the oldest.
    order: VecDeque<Key>,
    file: Option<CacheFile>,
}

struct CacheFile {
    path: PathBuf,
    appender: Appender,
    lines: usize,
}

/// The answers kept, at most `capacity` of them, in a file when one was given.
pub struct AnswerCache {
    held: Mutex<Held>,
    capacity: usize,
    /// One writer a cache file: held for the service's lifetime (`FILE.lock` beside it).
    _lock: Option<FileLock>,
}

impl AnswerCache {
    /// A cache of at most `capacity` answers, kept in the file at `path` when one is given, with
    /// the sound answers already there. `Err` when the file is not a cache (it is left alone) or
    /// another service holds it (`FILE.lock` names the process). A file that cannot be read or
    /// written leaves a cache in memory only; the warnings say why, and name every line dropped.
    pub fn open(path: Option<&Path>, capacity: usize) -> Result<(AnswerCache, Vec<String>), String> {
        let mut held = Held { answers: HashMap::new(), order: VecDeque::new(), file: None };
        let capacity = capacity.max(1);
        let mut warnings = Vec::new();
        let mut lock = None;
        if let Some(path) = path {
            // Two services appending to one file lose each other's answers on the first rewrite.
            match FileLock::beside(path) {
                Ok(taken) => lock = Some(taken),
                Err(err @ LockError::Held { .. }) => {
                    return Err(format!(
                        "--cache {}: {err}: one service a cache file; name another with --cache, or --no-cache",
                        path.display()
                    ));
                }
                // A directory that cannot be written to: neither can the cache, said below.
                Err(LockError::Io { .. }) => {}
            }
            let in_memory = |err: &dyn std::fmt::Display| {
                format!("answer cache {}: {err}; answers are kept in memory only", path.display())
            };
            match read(path)? {
                Ok(Lines { answers, dropped }) => {
                    for (line, why) in dropped {
                        warnings.push(format!("answer cache {} line {line}: {why}; dropped", path.display()));
                    }
                    for (key, answer) in answers {
                        held.insert(key, answer, capacity);
                    }
                    // Rewritten at once: what was read, compacted, without the lines dropped.
                    match held.rewrite(path) {
                        Ok(file) => held.file = Some(file),
                        Err(err) => warnings.push(in_memory(&err)),
                    }
                }
                Err(err) => warnings.push(in_memory(&err)),
            }
        }
        Ok((AnswerCache { held: Mutex::new(held), capacity, _lock: lock }, warnings))
    }

    /// The answer kept for `endpoint` at `position` under `rules`.
    pub fn get(&self, endpoint: Endpoint, rules: Rules, position: Position) -> Option<KeptAnswer> {
        self.lock().answers.get(&(endpoint, rules, position)).cloned()
    }

    /// Keeps `answer` for `position` under `rules`, on disk too (not one that is never kept,
    /// [`KeptAnswer::check`]). A failed write is returned; the answer is kept in memory all the
    /// same.
    pub fn insert(&self, rules: Rules, position: Position, answer: KeptAnswer) -> std::io::Result<()> {
        let key = (answer.endpoint(), rules, position);
        let mut held = self.lock();
        if held.answers.contains_key(&key) || !keeps(key.0, &rules, &position) {
            return Ok(());
        }
        let record = Record::of(&key, &answer);
        held.insert(key, answer, self.capacity);
        let Some(file) = held.file.as_mut() else { return Ok(()) };
        file.appender.append(&record)?;
        file.lines += 1;
        if file.lines > 2 * self.capacity {
            let path = file.path.clone();
            held.file = Some(held.rewrite(&path)?);
        }
        Ok(())
    }

    /// Answers held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().answers.len()
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Held {
    fn insert(&mut self, key: Key, answer: KeptAnswer, capacity: usize) {
        if self.answers.insert(key, answer).is_none() {
            self.order.push_back(key);
        }
        while self.answers.len() > capacity {
            let Some(oldest) = self.order.pop_front() else { break };
            self.answers.remove(&oldest);
        }
    }

    /// Writes what is held to `path` (through a temporary file renamed over it) and opens it for
    /// appending.
    fn rewrite(&self, path: &Path) -> std::io::Result<CacheFile> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let temporary = path.with_extension(format!("tmp.{}", std::process::id()));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&temporary)?);
        writeln!(out, "{HEADER}")?;
        for key in &self.order {
            serde_json::to_writer(&mut out, &Record::of(key, &self.answers[key]))?;
            out.write_all(b"\n")?;
        }
        out.into_inner().map_err(|err| err.into_error())?.sync_all()?;
        std::fs::rename(&temporary, path)?;
        Ok(CacheFile { path: path.to_path_buf(), appender: Appender::open(path)?, lines: self.order.len() + 1 })
    }
}

/// What a cache file holds: its sound answers, and each line dropped (by number, from 1) with why.
#[derive(Default)]
struct Lines {
    answers: Vec<(Key, KeptAnswer)>,
    dropped: Vec<(usize, String)>,
}

/// The cache file at `path` (nothing when there is none, or it is empty). The outer `Err`
/// refuses a file that is not a cache; the inner one is a file that cannot be read.
fn read(path: &Path) -> Result<std::io::Result<Lines>, String> {
    let bytes = match crate::input::read(path, crate::input::LARGE_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Ok(Lines::default())),
        // A pipe or a device is no cache, and no file to write answers to either.
        Err(err) if crate::input::is_not_regular(&err) || err.kind() == std::io::ErrorKind::FileTooLarge => {
            return Err(format!("--cache {}: {err}; name another file, or --no-cache", path.display()));
        }
        Err(err) => return Ok(Err(err)),
    };
    let not_a_cache = || {
        format!(
            "{} is not an answer cache (its first line is not {HEADER}): refusing to overwrite it; \
             name another file with --cache, or --no-cache",
            path.display()
        )
    };
    let text = String::from_utf8(bytes).map_err(|_| not_a_cache())?;
    if text.trim().is_empty() {
        return Ok(Ok(Lines::default()));
    }
    // A cache written before the header line (its first line an answer) is read as one.
    let first = text.lines().next().unwrap_or("").trim();
    let skip = match first == HEADER {
        true => 1,
        false if serde_json::from_str::<Record>(first).is_ok() => 0,
        false => return Err(not_a_cache()),
    };
    // A last line without its newline was cut short by a kill: left unread.
    let complete = text.rfind('\n').map_or(0, |at| at + 1);
    let complete_lines = text[..complete].lines().count();
    let mut read = Lines::default();
    let lines = text.lines().enumerate().take(complete_lines).skip(skip);
    for (i, line) in lines.filter(|(_, line)| !line.trim().is_empty()) {
        let parsed =
            serde_json::from_str::<Record>(line).map_err(|err| format!("damaged ({err})")).and_then(|record| {
                let key = record.key().ok_or("an unknown endpoint, rule set or position")?;
                let answer = KeptAnswer::read(key.0, record.answer)?;
                answer.check(&key.1, &key.2)?;
                Ok((key, answer))
            });
        match parsed {
            Ok(answer) => read.answers.push(answer),
            Err(why) => read.dropped.push((i + 1, why)),
        }
    }
    Ok(Ok(read))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{Answer, PositionAnswer, Source, moves_best_first, wdl};
    use serde_json::json;

    /// A finished Kalah(2,n) position's line: South, to move, has no seeds left.
    fn key(n: u32) -> Key {
        let position = crate::notation::parse_position(&format!("0 0 {n} 1 1 0 S")).unwrap();
        (Endpoint::Mainline, Rules::STANDARD, position)
    }

    /// `key(n)`'s line: no moves, the game over at South's margin n - 2.
    fn finished(n: u32) -> KeptAnswer {
        KeptAnswer::Mainline(Mainline::new(&Rules::STANDARD, &key(n).2, n as i32 - 2, &[], Source::Rules))
    }

    fn insert(cache: &AnswerCache, n: u32) {
        cache.insert(Rules::STANDARD, key(n).2, finished(n)).unwrap();
    }

    /// What `cache` keeps for `key(n)`, as JSON, and what `finished(n)` is.
    fn kept(cache: &AnswerCache, n: u32) -> (Option<Value>, Value) {
        let (endpoint, rules, position) = key(n);
        let json = |answer: KeptAnswer| serde_json::to_value(answer).unwrap();
        (cache.get(endpoint, rules, position).map(json), json(finished(n)))
    }

    /// `answer` with its field at `at` set to `to`, read back and checked.
    fn forged<T: Serialize + serde::de::DeserializeOwned>(
        answer: &T,
        at: &str,
        to: Value,
        check: impl Fn(&T) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut json = serde_json::to_value(answer).unwrap();
        *json.pointer_mut(at).unwrap() = to;
        check(&serde_json::from_value(json).unwrap())
    }

    fn open(path: &Path, capacity: usize) -> (AnswerCache, Vec<String>) {
        AnswerCache::open(Some(path), capacity).unwrap()
    }

    #[test]
    fn answers_survive_a_restart_and_the_oldest_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache").join("answers.jsonl");
        let (cache, warnings) = open(&path, 3);
        assert!(warnings.is_empty(), "{warnings:?}");
        for n in 1..=7 {
            insert(&cache, n);
        }
        assert_eq!(cache.len(), 3);
        assert_eq!(kept(&cache, 1).0, None);
        // Seven lines were appended to a cache of three: the file was rewritten once.
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 7, "{lines} lines");
        drop(cache);
        // A line cut short by a kill is dropped; the rest is read back.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"endpoint\":\"pos").unwrap();
        let (cache, warnings) = open(&path, 3);
        assert!(warnings.is_empty(), "{warnings:?}");
        for n in [7, 5] {
            let (got, expected) = kept(&cache, n);
            assert_eq!(got, Some(expected));
        }
        assert_eq!(kept(&cache, 4).0, None);
    }

    #[test]
    fn a_file_that_is_not_a_cache_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "my notes\n").unwrap();
        let err = AnswerCache::open(Some(&path), 10).err().unwrap();
        assert!(err.contains("not an answer cache"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes\n");
        // A cache written before the header line is read as one, and rewritten with it.
        let legacy = format!("{}\n", serde_json::to_string(&Record::of(&key(5), &finished(5))).unwrap());
        std::fs::write(&path, &legacy).unwrap();
        let (cache, warnings) = open(&path, 10);
        assert!(warnings.is_empty(), "{warnings:?}");
        let (got, expected) = kept(&cache, 5);
        assert_eq!(got, Some(expected));
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().next(), Some(HEADER));
        drop(cache);
        // An empty file becomes a cache; one that cannot be written keeps answers in memory.
        std::fs::write(&path, "").unwrap();
        let (cache, warnings) = open(&path, 10);
        assert!(warnings.is_empty(), "{warnings:?}");
        insert(&cache, 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().next(), Some(HEADER));
        let (cache, warnings) = open(&path.join("under-a-file"), 10);
        assert!(warnings[0].contains("in memory only"), "{warnings:?}");
        insert(&cache, 3);
        let (got, expected) = kept(&cache, 3);
        assert_eq!(got, Some(expected));
    }

    /// Kalah(1,1) with South to move: its one move ends the game, worth 0 for the mover.
    fn one_seed_start() -> Position {
        crate::notation::parse_position("1 0 1 0 S").unwrap()
    }

    /// [`one_seed_start`]'s answer under `rules`, as a search gives it.
    fn one_seed_report(rules: &Rules) -> PositionReport {
        let start = one_seed_start();
        let moves = moves_best_first(rules, &start, &[(0, 0)], 0);
        let answer = PositionAnswer {
            value: 0,
            wdl: wdl(0),
            game_over: false,
            moves,
            source: Source::Search,
            nodes: 1,
            seconds: 0.0,
        };
        PositionReport::new(rules, &start, Answer::Exact(answer), None)
    }

    /// A start's answer under the pie rule is not kept, and one an older version kept (valued
    /// as plain play) is dropped when read back, said why.
    #[test]
    fn a_first_turns_answer_under_the_pie_rule_is_never_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.jsonl");
        let (cache, _) = open(&path, 10);
        let (pie, start) = (Rules { pie: true, ..Rules::STANDARD }, one_seed_start());
        let report = KeptAnswer::Position(one_seed_report(&pie));
        cache.insert(pie, start, report.clone()).unwrap();
        assert!(cache.get(Endpoint::Position, pie, start).is_none());
        drop(cache);
        let older = serde_json::to_string(&Record::of(&(Endpoint::Position, pie, start), &report)).unwrap();
        std::fs::write(&path, format!("{HEADER}\n{older}\n")).unwrap();
        let (cache, warnings) = open(&path, 10);
        assert!(warnings.len() == 1 && warnings[0].contains("under the pie rule"), "{warnings:?}");
        assert!(cache.get(Endpoint::Position, pie, start).is_none());
    }

    #[test]
    fn a_damaged_or_forged_line_costs_that_answer_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.jsonl");
        let (cache, _) = open(&path, 10);
        for n in 1..=4 {
            insert(&cache, n);
        }
        let (rules, start, report) = (Rules::STANDARD, one_seed_start(), one_seed_report(&Rules::STANDARD));
        cache.insert(rules, start, KeptAnswer::Position(report.clone())).unwrap();
        drop(cache);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[2] = "{ damaged".to_string();
        let good = lines[5].clone();
        lines.push(good.replace("\"value\":0", "\"value\":-40"));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (cache, warnings) = open(&path, 10);
        // The damaged line and the forged one (the position worth -40 with two seeds on the
        // board) are dropped, each named; every other answer is kept.
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("line 3: damaged"), "{warnings:?}");
        assert!(warnings[1].contains("line 7: the value -40 is not a value"), "{warnings:?}");
        assert_eq!((kept(&cache, 2).0, cache.len()), (None, 4));
        let served = cache.get(Endpoint::Position, rules, start).unwrap().cached();
        assert_eq!((serde_json::to_value(&served).unwrap()["value"].as_i64(), report.cached), (Some(0), false));
        assert!(matches!(served, KeptAnswer::Position(PositionReport { cached: true, .. })));

        // What a position's answer must show, one defect at a time: each a field set to a value.
        let mut after = start;
        after.play(&rules, 0);
        let check = |report: &PositionReport| report.check(&rules, &start);
        assert!(check(&report).is_ok());
        for (at, to, why) in [
            ("/value", json!(-40), "not a value the seeds on the board allow"),
            ("/moves/0/value", json!(1), "not a value the seeds on the board allow"),
            ("/moves/0/position", json!("1 0 1 0 N"), "does not do what the rules say"),
            ("/moves", json!([]), "not the position's legal moves"),
            ("/moves/0/move", json!(2), "not legal"),
            ("/position", json!(after.to_string()), "not an answer for"),
        ] {
            let err = forged(&report, at, to, check).unwrap_err();
            assert!(err.contains(why), "{at}: {err}");
        }
        // A line is played by the rules, and ends where it says, at the margin and value it says.
        let line = Mainline::new(&rules, &start, 0, &[vec![0]], Source::Search);
        let check = |line: &Mainline| line.check(&rules, &start);
        assert!(check(&line).is_ok());
        for (at, to, why) in [
            ("/line/0/position", json!(start.to_string()), "does not do what the rules say"),
            ("/end", json!(start.to_string()), "does not end where it says"),
            ("/south_margin", json!(2), "not the one it carries"),
            ("/game_over", json!(false), "does not end the game"),
        ] {
            let err = forged(&line, at, to, check).unwrap_err();
            assert!(err.contains(why), "{at}: {err}");
        }
    }
}
