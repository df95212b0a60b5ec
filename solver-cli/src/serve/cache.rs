//! The answers the service has computed, kept in memory and on disk so that a restarted server
//! remembers them. The file is a log of JSON lines in the form the jobs and proofs keep theirs
//! ([`kalah::jsonl`]): one answer a line, appended and synced under the cache's lock, a line cut
//! short by a kill dropped when the file is read again. No embedded store is needed for this:
//! the answers are exact values, never changed once known, so a log read back at start is the
//! whole of the cache's state. It holds at most `capacity` answers, the oldest forgotten first;
//! the file is rewritten with what is held once it has twice as many lines.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use kalah::jsonl::{Appender, parse_complete_lines};
use kalah::{Position, Rules};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The endpoints whose answers are kept.
pub const ENDPOINTS: [&str; 2] = ["position", "mainline"];

/// An answer's key: endpoint, rules and position.
pub type Key = (&'static str, Rules, Position);

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
        let endpoint = ENDPOINTS.iter().find(|e| **e == self.endpoint)?;
        Some((endpoint, self.rules.parse().ok()?, kalah::parse_position(&self.position).ok()?))
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

pub struct AnswerCache {
    held: Mutex<Held>,
    capacity: usize,
}

impl AnswerCache {
    /// A cache of at most `capacity` answers, kept in the file at `path` when one is given, with
    /// the answers already there. A file that cannot be read or written leaves a cache in memory
    /// only; the returned warning says why.
    pub fn open(path: Option<&Path>, capacity: usize) -> (AnswerCache, Option<String>) {
        let mut held = Held { answers: HashMap::new(), order: VecDeque::new(), file: None };
        let capacity = capacity.max(1);
        let mut warning = None;
        if let Some(path) = path {
            match read(path) {
                Ok(records) => {
                    for record in records {
                        if let Some(key) = record.key() {
                            held.insert(key, record.answer, capacity);
                        }
                    }
                }
                Err(err) => warning = Some(format!("answer cache {}: {err}; starting it afresh", path.display())),
            }
            // Rewritten at once: what was read, compacted, without any damaged line.
            match held.rewrite(path) {
                Ok(file) => held.file = Some(file),
                Err(err) => {
                    warning = Some(format!("answer cache {}: {err}; answers are kept in memory only", path.display()))
                }
            }
        }
        (AnswerCache { held: Mutex::new(held), capacity }, warning)
    }

    /// The answer kept for `key`.
    pub fn get(&self, key: &Key) -> Option<Value> {
        self.lock().answers.get(key).cloned()
    }

    /// Keeps `answer` for `key`, on disk too. A failed write is returned; the answer is kept in
    /// memory all the same.
    pub fn insert(&self, key: Key, answer: Value) -> std::io::Result<()> {
        let mut held = self.lock();
        if held.answers.contains_key(&key) {
            return Ok(());
        }
        let record =
            Record { endpoint: key.0.to_string(), rules: key.1.to_string(), position: key.2.to_string(), answer };
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
    pub fn len(&self) -> usize {
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
        for key in &self.order {
            let record = Record {
                endpoint: key.0.to_string(),
                rules: key.1.to_string(),
                position: key.2.to_string(),
                answer: self.answers[key].clone(),
            };
            serde_json::to_writer(&mut out, &record)?;
            out.write_all(b"\n")?;
        }
        out.into_inner().map_err(|err| err.into_error())?.sync_all()?;
        std::fs::rename(&temporary, path)?;
        Ok(CacheFile { path: path.to_path_buf(), appender: Appender::open(path)?, lines: self.order.len() })
    }
}

/// The records of the cache file at `path` (none when there is no file).
fn read(path: &Path) -> Result<Vec<Record>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err.to_string()),
    };
    parse_complete_lines(path, &text, 1).map(|(records, _)| records).map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(n: u32) -> Key {
        let position = kalah::parse_position(&format!("{n} 1 0 1 1 0 S")).unwrap();
        ("position", Rules::STANDARD, position)
    }

    #[test]
    fn answers_survive_a_restart_and_the_oldest_are_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache").join("answers.jsonl");
        let (cache, warning) = AnswerCache::open(Some(&path), 3);
        assert_eq!(warning, None);
        for n in 1..=7 {
            cache.insert(key(n), json!({ "value": n })).unwrap();
        }
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.get(&key(1)), None);
        // Seven lines were appended to a cache of three: the file was rewritten once, at six.
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines <= 6, "{lines} lines");
        drop(cache);
        // A line cut short by a kill is dropped; the rest is read back.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"endpoint\":\"pos").unwrap();
        let (cache, warning) = AnswerCache::open(Some(&path), 3);
        assert_eq!(warning, None);
        assert_eq!(cache.get(&key(7)), Some(json!({ "value": 7 })));
        assert_eq!(cache.get(&key(5)), Some(json!({ "value": 5 })));
        assert_eq!(cache.get(&key(4)), None);
    }

    #[test]
    fn a_damaged_file_starts_afresh_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.jsonl");
        std::fs::write(&path, "not json\n").unwrap();
        let (cache, warning) = AnswerCache::open(Some(&path), 10);
        assert!(warning.unwrap().contains("starting it afresh"));
        cache.insert(key(2), json!(2)).unwrap();
        let (cache, warning) = AnswerCache::open(Some(&path), 10);
        assert_eq!((warning, cache.get(&key(2))), (None, Some(json!(2))));
        // A cache that cannot be written keeps answers in memory.
        let (cache, warning) = AnswerCache::open(Some(&path.join("under-a-file")), 10);
        assert!(warning.unwrap().contains("in memory only"));
        cache.insert(key(3), json!(3)).unwrap();
        assert_eq!(cache.get(&key(3)), Some(json!(3)));
    }
}
