//! A proof's logs: JSON lines, appended and synced one at a time, never rewritten (but by
//! `kalah proof merge`, which writes the union atomically).
//!
//! A line is a [`Record`]: a node settled (by a search, the database, or the claim's seeds), or a
//! node expanded because its task ran out of budget, with every turn of its mover and the
//! estimate of each child. A last line without its newline was cut short by a kill and is
//! dropped. Records of one node from several logs must agree: a node settled both ways is a
//! [`ProofError::Conflict`].

use std::collections::HashMap;
use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ProofError, io_error};
use crate::board::Position;
use crate::lock::FileLock;
use crate::notation::parse_position;
use crate::shard::Shard;

/// What settled a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettledBy {
    /// A zero-window search within the task's budget.
    Search,
    /// An endgame database probe.
    Database,
    /// Bounds an earlier task's search proved on the way (its transposition table).
    Table,
    /// A leaf another proof under the same rules settled (named in [`Settled::from`]).
    Shared,
}

/// A node whose question is answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settled {
    /// The node's position (bins and side to move).
    pub position: String,
    /// The question asked of its mover, e.g. `>= 4`.
    pub claim: String,
    /// The answer.
    pub holds: bool,
    /// How it was found.
    pub by: SettledBy,
    /// Nodes the search spent on it.
    pub nodes: u64,
    /// Seconds spent on it.
    pub seconds: f64,
    /// The proof whose settled leaf gave the bound, when settled by [`SettledBy::Shared`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// A node whose task ran out of its budget and was expanded one turn deeper.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expansion {
    /// The node's position.
    pub position: String,
    /// The question asked of its mover.
    pub claim: String,
    /// Nodes the failed task spent (and the children's estimates).
    pub nodes: u64,
    /// Seconds spent on it.
    pub seconds: f64,
    /// Every turn of the mover (canonical houses, `1 3`) with the estimated value of the
    /// position it leaves for the proof's prover.
    pub children: Vec<(String, i32)>,
}

/// One line of a log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// See [`Settled`].
    Settled(Settled),
    /// See [`Expansion`].
    Expanded(Expansion),
}

impl Record {
    /// The node's position text.
    pub fn position(&self) -> &str {
        match self {
            Record::Settled(s) => &s.position,
            Record::Expanded(e) => &e.position,
        }
    }

    /// Nodes and seconds spent on it.
    pub fn cost(&self) -> (u64, f64) {
        match self {
            Record::Settled(s) => (s.nodes, s.seconds),
            Record::Expanded(e) => (e.nodes, e.seconds),
        }
    }
}

/// Everything the logs say, by node: at most one settled and one expansion record each.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// Settled nodes.
    pub settled: HashMap<Position, Settled>,
    /// Expanded nodes.
    pub expanded: HashMap<Position, Expansion>,
}

impl Records {
    /// Whether any record, settled or expanded, is about `position`.
    pub fn has(&self, position: &Position) -> bool {
        self.settled.contains_key(position) || self.expanded.contains_key(position)
    }

    /// Adds one record; one that contradicts an earlier one is an error, one that repeats it
    /// is dropped. Returns whether it was new.
    pub fn add(&mut self, record: Record) -> Result<bool, ProofError> {
        let position = parse_position(record.position()).map_err(|err| ProofError::Conflict {
            position: record.position().to_string(),
            message: format!("not a position: {err}"),
        })?;
        let text = record.position().to_string();
        let conflict = |message: String| ProofError::Conflict { position: text.clone(), message };
        match record {
            Record::Settled(new) => match self.settled.get(&position) {
                Some(old) if old.claim != new.claim || old.holds != new.holds => Err(conflict(format!(
                    "'{}' {} and '{}' {}",
                    old.claim,
                    holds_text(old.holds),
                    new.claim,
                    holds_text(new.holds)
                ))),
                Some(_) => Ok(false),
                None => {
                    self.settled.insert(position, new);
                    Ok(true)
                }
            },
            Record::Expanded(new) => match self.expanded.get(&position) {
                Some(old) if old.claim != new.claim => {
                    Err(conflict(format!("expanded for '{}' and for '{}'", old.claim, new.claim)))
                }
                Some(_) => Ok(false),
                None => {
                    self.expanded.insert(position, new);
                    Ok(true)
                }
            },
        }
    }

    /// Every record, settled ones first, each group in position order (for a merged log that
    /// reads the same on every machine).
    pub fn lines(&self) -> Vec<Record> {
        let mut settled: Vec<&Settled> = self.settled.values().collect();
        settled.sort_by(|a, b| a.position.cmp(&b.position));
        let mut expanded: Vec<&Expansion> = self.expanded.values().collect();
        expanded.sort_by(|a, b| a.position.cmp(&b.position));
        settled
            .into_iter()
            .map(|s| Record::Settled(s.clone()))
            .chain(expanded.into_iter().map(|e| Record::Expanded(e.clone())))
            .collect()
    }

    /// Nodes and seconds spent on every record. The seconds are summed in increasing order, not
    /// the maps' (which differs from process to process), so the same logs give the same sum.
    pub fn cost(&self) -> (u64, f64) {
        let settled = self.settled.values().map(|s| (s.nodes, s.seconds));
        let mut costs: Vec<(u64, f64)> = settled.chain(self.expanded.values().map(|e| (e.nodes, e.seconds))).collect();
        costs.sort_by(|a, b| a.1.total_cmp(&b.1));
        costs.iter().fold((0, 0.0), |(n, s), (a, b)| (n + a, s + b))
    }
}

fn holds_text(holds: bool) -> &'static str {
    if holds { "holds" } else { "fails" }
}

/// The log a run writes: `DIR/log.jsonl`, or `DIR/log.shard-I-of-N.jsonl` for a shard.
pub fn log_path(dir: &Path, shard: Option<Shard>) -> PathBuf {
    match shard {
        Some(s) => dir.join(format!("log.shard-{}-of-{}.jsonl", s.index, s.count)),
        None => dir.join("log.jsonl"),
    }
}

/// Every log in `dir` (`log.jsonl` and the shards'), in name order.
pub fn logs_in(dir: &Path) -> Result<Vec<PathBuf>, ProofError> {
    let mut logs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("log") && name.ends_with(".jsonl") {
            logs.push(entry.path());
        }
    }
    logs.sort();
    Ok(logs)
}

/// Follows a log another process appends to: each `Tail::read_new` returns the lines
/// completed since the last.
#[derive(Debug)]
pub struct Tail {
    path: PathBuf,
    offset: u64,
    lines: usize,
}

impl Tail {
    /// A reader at the start of the log at `path`.
    pub fn new(path: PathBuf) -> Tail {
        Tail { path, offset: 0, lines: 1 }
    }

    /// The log it follows.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The records of the lines completed since the last call (none if the file is missing).
    pub(crate) fn read_new(&mut self) -> Result<Vec<Record>, ProofError> {
        let mut file = match crate::input::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => return Err(ProofError::Io { path: self.path.clone(), source }),
        };
        file.seek(SeekFrom::Start(self.offset)).map_err(io_error(&self.path))?;
        let bytes = crate::input::read_capped(&file, crate::input::LARGE_FILE_BYTES).map_err(io_error(&self.path))?;
        let text = String::from_utf8_lossy(&bytes);
        let (records, used) = crate::jsonl::parse_complete_lines::<Record>(&self.path, &text, self.lines)?;
        self.lines += text[..used].lines().count();
        self.offset += used as u64;
        Ok(records)
    }
}

/// Every record of the proof in `dir`, log after log.
pub fn read_records(dir: &Path) -> Result<Vec<Record>, ProofError> {
    let mut records = Vec::new();
    for path in logs_in(dir)? {
        records.extend(read_log(&path)?);
    }
    Ok(records)
}

/// What ties a check's transcript to the logs it checked: xxh3-64 over every log of the proof in
/// `dir`, by name, each its name then its complete lines (a last line cut short by a kill is no
/// record), as `xxh3-64 0123456789abcdef`. Any change to a record changes it.
pub fn logs_digest(dir: &Path) -> Result<String, ProofError> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for path in logs_in(dir)? {
        let bytes = crate::input::read(&path, crate::input::LARGE_FILE_BYTES).map_err(io_error(&path))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        hasher.update(name.as_bytes());
        hasher.update(b"\0");
        hasher.update(crate::jsonl::complete_lines(&bytes));
    }
    Ok(format!("xxh3-64 {:016x}", hasher.digest()))
}

/// Reads every record of the log at `path` (none if it is missing).
pub(crate) fn read_log(path: &Path) -> Result<Vec<Record>, ProofError> {
    Tail::new(path.to_path_buf()).read_new()
}

/// The task a run is working on, in `LOG.task` beside the log it appends to: one position, so
/// that the other runs of the proof leave it to this one. Rewritten for every task and removed
/// when dropped; a killed run's file stays, and the others take its task over once they have
/// seen the file unchanged for long enough.
#[derive(Debug)]
pub struct TaskNote {
    path: PathBuf,
}

impl TaskNote {
    /// The note of the run appending to `log` (nothing is written yet).
    pub fn new(log: &Path) -> TaskNote {
        TaskNote { path: task_note_path(log) }
    }

    /// Says the run now works on `position`.
    pub fn set(&self, position: &Position) -> Result<(), ProofError> {
        write_atomically(&self.path, format!("{position}\n").as_bytes())
    }
}

impl Drop for TaskNote {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Where the run appending to `log` notes its task.
pub fn task_note_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".task");
    PathBuf::from(name)
}

/// The tasks noted in `dir`, by the log of the run that noted each (a run notes its first task
/// before its log exists).
pub(crate) fn task_notes_in(dir: &Path) -> Result<HashMap<PathBuf, Position>, ProofError> {
    let mut notes = HashMap::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        let Some(log) = path.to_str().and_then(|p| p.strip_suffix(".task")) else { continue };
        if !(log.ends_with(".jsonl") && path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("log"))) {
            continue;
        }
        // A note being replaced, or one without a position, says nothing.
        if let Ok(text) = crate::input::read_text(&path, crate::input::SMALL_FILE_BYTES)
            && let Ok(position) = parse_position(text.trim())
        {
            notes.insert(PathBuf::from(log), position);
        }
    }
    Ok(notes)
}

/// A proof's log open for appending.
pub struct Appender {
    path: PathBuf,
    file: crate::jsonl::Appender,
}

impl Appender {
    /// Opens (or creates) the log at `path` ([`crate::jsonl::Appender::open`]).
    pub fn open(path: &Path) -> Result<Appender, ProofError> {
        let file = crate::jsonl::Appender::open(path).map_err(io_error(path))?;
        Ok(Appender { path: path.to_path_buf(), file })
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `record` and waits until it is on disk.
    pub fn append(&mut self, record: &Record) -> Result<(), ProofError> {
        self.file.append(record).map_err(io_error(&self.path))
    }
}

/// Writes `bytes` to `path` whole or not at all ([`crate::atomic::write_bytes`]).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ProofError> {
    crate::atomic::write_bytes(path, bytes).map_err(io_error(path))
}

/// Joins every log in `dir` into `log.jsonl` (written atomically) and removes the shards' logs
/// it took in. A contradiction between logs, or a log a run is writing, is an error and changes
/// nothing. Returns the
/// records and the logs read.
pub fn merge(dir: &Path) -> Result<(Records, Vec<PathBuf>), ProofError> {
    let logs = logs_in(dir)?;
    // No run may append to a log while it is taken in (and, for a shard's, removed).
    let _locks = logs.iter().map(|log| FileLock::beside(log)).collect::<Result<Vec<_>, _>>()?;
    let merged = log_path(dir, None);
    let _merged_lock = if logs.contains(&merged) { None } else { Some(FileLock::beside(&merged)?) };
    let mut records = Records::default();
    for log in &logs {
        for record in read_log(log)? {
            records.add(record)?;
        }
    }
    let mut text = String::new();
    for record in records.lines() {
        text += &serde_json::to_string(&record).expect("a record serialises");
        text.push('\n');
    }
    write_atomically(&merged, text.as_bytes())?;
    for log in logs.iter().filter(|log| **log != merged) {
        std::fs::remove_file(log).map_err(io_error(log))?;
        let _ = std::fs::remove_file(task_note_path(log));
    }
    Ok((records, logs))
}
