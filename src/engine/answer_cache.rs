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
//! only once it shows itself sound by the rules ([`sound`]): a hand-edited or forged line is
//! dropped, with a warning naming it.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::board::{Position, Side};
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

    /// Whether the cache keeps its answers: only those a reload can check ([`sound`]).
    fn kept(self) -> bool {
        Endpoint::kept_as(self.name()).is_some()
    }
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
    fn key(&self) -> Option<Key> {
        let endpoint = Endpoint::kept_as(&self.endpoint)?;
        Some((endpoint, self.rules.parse().ok()?, crate::parse_position(&self.position).ok()?))
    }
}

struct Held {
    answers: HashMap<Key, Value>,
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

    /// The answer kept for `key`.
    pub fn get(&self, key: &Key) -> Option<Value> {
        self.lock().answers.get(key).cloned()
    }

    /// Keeps `answer` for `key`, on disk too. A failed write is returned; the answer is kept in
    /// memory all the same.
    pub fn insert(&self, key: Key, answer: Value) -> std::io::Result<()> {
        // A reload checks no other kind.
        if !key.0.kept() {
            return Ok(());
        }
        let mut held = self.lock();
        if held.answers.contains_key(&key) {
            return Ok(());
        }
        let record = Record {
            endpoint: key.0.name().to_string(),
            rules: key.1.to_string(),
            position: key.2.to_string(),
            answer,
        };
        held.insert(key, record.answer.clone(), self.capacity);
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
    fn insert(&mut self, key: Key, answer: Value, capacity: usize) {
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
            let record = Record {
                endpoint: key.0.name().to_string(),
                rules: key.1.to_string(),
                position: key.2.to_string(),
                answer: self.answers[key].clone(),
            };
            serde_json::to_writer(&mut out, &record)?;
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
    answers: Vec<(Key, Value)>,
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
                sound(&key, &record.answer)?;
                Ok((key, record.answer))
            });
        match parsed {
            Ok(answer) => read.answers.push(answer),
            Err(why) => read.dropped.push((i + 1, why)),
        }
    }
    Ok(Ok(read))
}

/// Whether a kept answer for `key` holds together by the rules, as a cheap check before it is
/// served again: a `/position` answer lists exactly the legal moves, each leading where the rules
/// say, its value the best move's (or the final margin of a finished game), and every value within
/// what the seeds on the board allow, of their parity where values share it; a `/mainline`
/// answer's line is played by the rules from the position and ends the game where it says, at the
/// margin and value it carries. (A value can still be wrong in a way only a search would tell:
/// what this catches is an answer that cannot be right.)
pub fn sound(key: &Key, answer: &Value) -> Result<(), String> {
    let (endpoint, rules, position) = key;
    let number = |v: &Value, what: &str| v.as_i64().map(|v| v as i32).ok_or(format!("{what} is not a number"));
    let (margin, seeds) = (position.margin(), position.seeds_on_board() as i32);
    let possible = |value: i32, what: &str| {
        let parity = !rules.values_share_parity() || (value - margin - seeds).rem_euclid(2) == 0;
        if (margin - seeds..=margin + seeds).contains(&value) && parity {
            Ok(value)
        } else {
            Err(format!("{what} {value} is not a value the seeds on the board allow"))
        }
    };
    let play = |from: &Position, entry: &Value| -> Result<Position, String> {
        let house = entry["move"].as_u64().filter(|&h| h >= 1).ok_or("a move is not a house number")? as usize - 1;
        if from.is_over(rules) || !from.legal_moves().any(|h| h == house) {
            return Err(format!("move {} is not legal at {from}", house + 1));
        }
        let mut after = *from;
        after.play(rules, house);
        match entry["position"].as_str() {
            Some(text) if text == after.to_string() => Ok(after),
            _ => Err(format!("move {} does not lead where the rules say", house + 1)),
        }
    };
    let no_moves = Vec::new();
    if *endpoint == Endpoint::KeepingMove {
        return Err("a keeping move is never kept".to_string());
    }
    if *endpoint == Endpoint::Mainline {
        let mut at = *position;
        for entry in answer["line"].as_array().unwrap_or(&no_moves) {
            at = play(&at, entry)?;
        }
        return line_end_sound(answer, rules, position, &at);
    }
    let value = possible(number(&answer["value"], "the value")?, "the value")?;
    let moves = answer["moves"].as_array().unwrap_or(&no_moves);
    if position.is_over(rules) {
        return match moves.is_empty() && value == position.final_margin(rules) {
            true => Ok(()),
            false => Err("a finished game's answer is not its final margin".to_string()),
        };
    }
    let (mut houses, mut best) = (Vec::new(), i32::MIN);
    for entry in moves {
        play(position, entry)?;
        houses.push(entry["move"].as_u64().unwrap_or(1) as usize - 1);
        best = best.max(possible(number(&entry["value"], "a move's value")?, "a move's value")?);
    }
    houses.sort_unstable();
    if houses != position.legal_moves().collect::<Vec<_>>() {
        return Err("the moves are not the position's legal moves".to_string());
    }
    if best != value {
        return Err(format!("the value {value} is not the best move's {best}"));
    }
    Ok(())
}

/// Whether a cached line, replayed from `position` to `end`, ends where it says, with the margin
/// and the value it says: a line that comes back to a position (clockwise sowing) carries no end
/// margin, and any other must end the game.
fn line_end_sound(answer: &Value, rules: &Rules, position: &Position, end: &Position) -> Result<(), String> {
    if answer["end"].as_str() != Some(end.to_string().as_str()) {
        return Err("the line does not end where it says".to_string());
    }
    if answer["repeats"] == Value::Bool(true) {
        return Ok(());
    }
    if !end.is_over(rules) || answer["game_over"] != Value::Bool(true) {
        return Err("the line does not end the game".to_string());
    }
    let south = end.final_margin_for(rules, Side::South);
    if answer["south_margin"].as_i64() != Some(i64::from(south)) {
        return Err(format!("the line ends at South's margin {south}, not the one it carries"));
    }
    if answer["value"].as_i64() != Some(i64::from(end.final_margin_for(rules, position.to_move()))) {
        return Err("the line's value is not the margin it ends at".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored answer written as JSON text.
    fn stored(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    /// A finished Kalah(2,n) position's line: South, to move, has no seeds left.
    fn key(n: u32) -> Key {
        let position = crate::parse_position(&format!("0 0 {n} 1 1 0 S")).unwrap();
        (Endpoint::Mainline, Rules::STANDARD, position)
    }

    /// `key(n)`'s sound line: no moves, the game over at South's margin n - 2.
    fn finished(n: u32) -> Value {
        let (end, margin) = (key(n).2, n as i32 - 2);
        stored(&format!(
            r#"{{"line":[],"end":"{end}","game_over":true,"repeats":false,"south_margin":{margin},"value":{margin}}}"#
        ))
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
            cache.insert(key(n), finished(n)).unwrap();
        }
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.get(&key(1)), None);
        // Seven lines were appended to a cache of three: the file was rewritten once.
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 7, "{lines} lines");
        drop(cache);
        // A line cut short by a kill is dropped; the rest is read back.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"endpoint\":\"pos").unwrap();
        let (cache, warnings) = open(&path, 3);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(cache.get(&key(7)), Some(finished(7)));
        assert_eq!(cache.get(&key(5)), Some(finished(5)));
        assert_eq!(cache.get(&key(4)), None);
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
        let legacy = format!(
            "{}\n",
            serde_json::to_string(&Record {
                endpoint: "mainline".to_string(),
                rules: "standard".to_string(),
                position: key(5).2.to_string(),
                answer: finished(5),
            })
            .unwrap()
        );
        std::fs::write(&path, &legacy).unwrap();
        let (cache, warnings) = open(&path, 10);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(cache.get(&key(5)), Some(finished(5)));
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().next(), Some(HEADER));
        drop(cache);
        // An empty file becomes a cache; one that cannot be written keeps answers in memory.
        std::fs::write(&path, "").unwrap();
        let (cache, warnings) = open(&path, 10);
        assert!(warnings.is_empty(), "{warnings:?}");
        cache.insert(key(2), Value::from(2)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().next(), Some(HEADER));
        let (cache, warnings) = open(&path.join("under-a-file"), 10);
        assert!(warnings[0].contains("in memory only"), "{warnings:?}");
        cache.insert(key(3), Value::from(3)).unwrap();
        assert_eq!(cache.get(&key(3)), Some(Value::from(3)));
    }

    #[test]
    fn a_damaged_or_forged_line_costs_that_answer_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.jsonl");
        let (cache, _) = open(&path, 10);
        for n in 1..=4 {
            cache.insert(key(n), finished(n)).unwrap();
        }
        // Kalah(1,1) with South to move: its one move ends the game, worth 0 for the mover.
        let start = crate::parse_position("1 0 1 0 S").unwrap();
        let mut after = start;
        after.play(&Rules::STANDARD, 0);
        let answer = |value: i32, to: &str| {
            stored(&format!(r#"{{"value":{value},"moves":[{{"move":1,"value":{value},"position":"{to}"}}]}}"#))
        };
        cache.insert((Endpoint::Position, Rules::STANDARD, start), answer(0, &after.to_string())).unwrap();
        drop(cache);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[2] = "{ damaged".to_string();
        let good = lines[5].clone();
        let forged = |from: &str, to: &str| good.replace(from, to);
        lines.push(forged("\"value\":0", "\"value\":-40"));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (cache, warnings) = open(&path, 10);
        // The damaged line and the forged one (the position worth -40 with one seed on the board)
        // are dropped, each named; every other answer is kept.
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("line 3: damaged"), "{warnings:?}");
        assert!(warnings[1].contains("line 7: the value -40 is not a value"), "{warnings:?}");
        assert_eq!((cache.get(&key(2)), cache.len()), (None, 4));
        assert_eq!(cache.get(&(Endpoint::Position, Rules::STANDARD, start)).unwrap()["value"], 0);

        // What a sound answer must show, one defect at a time.
        let position = (Endpoint::Position, Rules::STANDARD, start);
        assert!(sound(&position, &answer(0, &after.to_string())).is_ok());
        let defects = [
            (answer(-40, &after.to_string()), "not a value the seeds on the board allow"),
            (answer(1, &after.to_string()), "not a value the seeds on the board allow"),
            (answer(0, "1 0 1 0 N"), "does not lead where the rules say"),
            (stored(r#"{"value":0,"moves":[]}"#), "not the position's legal moves"),
            (stored(r#"{"value":0,"moves":[{"move":2,"value":0}]}"#), "not legal"),
        ];
        for (forged, why) in defects {
            let err = sound(&position, &forged).unwrap_err();
            assert!(err.contains(why), "{forged}: {err}");
        }
        // A line is played by the rules, and ends where it says, at the margin and value it says.
        let line = |to: &str, end: &str, margin: i32| {
            stored(&format!(
                r#"{{"line":[{{"move":1,"position":"{to}"}}],"end":"{end}","game_over":true,"south_margin":{margin},"value":{margin}}}"#
            ))
        };
        let (after, mainline) = (after.to_string(), (Endpoint::Mainline, Rules::STANDARD, start));
        assert!(sound(&mainline, &line(&after, &after, 0)).is_ok());
        let defects = [
            (line(&start.to_string(), &after, 0), "does not lead where the rules say"),
            (line(&after, &start.to_string(), 0), "does not end where it says"),
            (line(&after, &after, 2), "not the one it carries"),
        ];
        for (forged, why) in defects {
            let err = sound(&mainline, &forged).unwrap_err();
            assert!(err.contains(why), "{forged}: {err}");
        }
        let unfinished = stored(r#"{"line":[],"end":"1 0 1 0 S","game_over":false,"value":0}"#);
        assert!(sound(&mainline, &unfinished).unwrap_err().contains("does not end the game"));
    }
}
