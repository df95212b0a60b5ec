//! A job's log: the bounds each task has proven (JSON lines, synced one at a time), read back
//! into the proofs a run resumes from and the results are assembled from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{JobError, Task, io_error, with_suffix};
use crate::answer::Bounds;

/// One line of a log: bounds proven for a task, with the work spent since the task's previous
/// line in the same run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// The task's key.
    pub task: String,
    /// Proven lower bound on its value.
    pub lower: i32,
    /// Proven upper bound on its value.
    pub upper: i32,
    /// Nodes searched for this proof.
    pub nodes: u64,
    /// Seconds spent on it.
    pub seconds: f64,
}

impl Record {
    /// Refuses bounds no game of its task can have: beyond the seeds in play, the wrong way
    /// round, or an exact value of the wrong parity where values share the seeds' parity. (A
    /// forged `lower = upper = 100` on a 12-seed game reached the results before.)
    pub fn possible(&self) -> Result<(), String> {
        let mut parts = self.task.split('|');
        let (Some(rules), Some(position)) = (parts.next(), parts.next()) else {
            return Err(format!("'{}' is not a task key (RULES|POSITION|OPENING)", self.task));
        };
        let rules: crate::rules::Rules = rules.parse().map_err(|err| format!("task '{}': {err}", self.task))?;
        let position = crate::notation::parse_position(position)
            .map_err(|err| format!("task '{}': {}", self.task, err.message))?;
        let total = position.total_seeds() as i32;
        if self.lower > self.upper || self.lower < -total || self.upper > total {
            return Err(format!("bounds {}..{} are not possible in a game of {total} seeds", self.lower, self.upper));
        }
        if self.lower == self.upper && rules.values_share_parity() && (self.lower - total).rem_euclid(2) != 0 {
            return Err(format!("value {} has not the parity of the {total} seeds", self.lower));
        }
        Ok(())
    }
}

/// Everything proven about one task, and what it cost.
#[derive(Clone, Copy, Debug)]
pub struct TaskProven {
    /// Its bounds.
    pub bounds: Bounds,
    /// Nodes spent in all runs.
    pub nodes: u64,
    /// Seconds spent in all runs.
    pub seconds: f64,
}

/// What the logs prove, by task key.
#[derive(Clone, Debug, Default)]
pub struct Proofs(HashMap<String, TaskProven>);

impl Proofs {
    /// Adds one record; a record contradicting what is known is an error.
    pub fn add(&mut self, record: &Record) -> Result<(), JobError> {
        let claim = Bounds { lower: record.lower, upper: record.upper };
        match self.0.get_mut(&record.task) {
            None => {
                self.0.insert(
                    record.task.clone(),
                    TaskProven { bounds: claim, nodes: record.nodes, seconds: record.seconds },
                );
            }
            Some(known) => {
                known.bounds = known.bounds.intersect(&claim).ok_or_else(|| JobError::Conflict {
                    task: record.task.clone(),
                    first: known.bounds,
                    second: claim,
                })?;
                known.nodes += record.nodes;
                known.seconds += record.seconds;
            }
        }
        Ok(())
    }

    /// Adds what another log proves. Work is not added up: two logs holding the same task are
    /// usually one run's log and a merged copy of it, so the larger count is kept.
    pub fn merge(&mut self, other: &Proofs) -> Result<(), JobError> {
        for (task, theirs) in &other.0 {
            match self.0.get_mut(task) {
                None => {
                    self.0.insert(task.clone(), *theirs);
                }
                Some(mine) => {
                    mine.bounds = mine.bounds.intersect(&theirs.bounds).ok_or_else(|| JobError::Conflict {
                        task: task.clone(),
                        first: mine.bounds,
                        second: theirs.bounds,
                    })?;
                    mine.nodes = mine.nodes.max(theirs.nodes);
                    mine.seconds = mine.seconds.max(theirs.seconds);
                }
            }
        }
        Ok(())
    }

    /// What is known about `task` (nothing proven yet: the seeds' bounds).
    pub fn known(&self, task: &Task) -> TaskProven {
        let unknown = TaskProven { bounds: Bounds::unknown(task.total_seeds), nodes: 0, seconds: 0.0 };
        let Some(known) = self.0.get(&task.key) else { return unknown };
        TaskProven { bounds: known.bounds.intersect(&unknown.bounds).unwrap_or(known.bounds), ..*known }
    }

    /// The records that reproduce these proofs, one per task, in key order.
    pub fn records(&self) -> Vec<Record> {
        let mut records: Vec<Record> = self
            .0
            .iter()
            .map(|(task, k)| Record {
                task: task.clone(),
                lower: k.bounds.lower,
                upper: k.bounds.upper,
                nodes: k.nodes,
                seconds: k.seconds,
            })
            .collect();
        records.sort_by(|a, b| a.task.cmp(&b.task));
        records
    }

    /// Adds every record of the log at `path` (a missing file adds nothing). A last line without
    /// its newline was cut short by a kill and is ignored.
    pub(crate) fn read_log(&mut self, path: &Path) -> Result<(), JobError> {
        let text = match crate::input::read_text(path, crate::input::LARGE_FILE_BYTES) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => return Err(JobError::Io { path: path.to_path_buf(), source }),
        };
        let (records, _) = crate::jsonl::parse_checked_lines(path, &text, 1, Record::possible)?;
        for record in &records {
            self.add(record)?;
        }
        Ok(())
    }
}

/// A job's log open for appending, with everything it proves.
pub struct Log {
    path: PathBuf,
    file: crate::jsonl::Appender,
    proofs: Proofs,
    _lock: crate::lock::FileLock,
}

impl Log {
    /// Opens (or creates) the log at `path`, dropping a last line cut short by a kill so that
    /// new records start on a line of their own.
    /// Refused while another live process has it open (`LOG.lock`).
    pub fn open(path: &Path) -> Result<Log, JobError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let lock = crate::lock::FileLock::beside(path)?;
        let mut proofs = Proofs::default();
        proofs.read_log(path)?;
        let file = crate::jsonl::Appender::open(path).map_err(io_error(path))?;
        Ok(Log { path: path.to_path_buf(), file, proofs, _lock: lock })
    }

    /// What the log proves.
    pub fn proofs(&self) -> &Proofs {
        &self.proofs
    }

    /// Takes in what the log at `other` proves (another run's of the same job: the merged log or
    /// a shard's), so that this run searches none of it again; nothing of it is written to this
    /// log. A contradiction with what this log holds is [`JobError::Merge`].
    pub fn take_in(&mut self, other: &Path) -> Result<(), JobError> {
        let mut theirs = Proofs::default();
        theirs.read_log(other)?;
        self.proofs.merge(&theirs).map_err(|err| JobError::Merge { path: other.to_path_buf(), source: Box::new(err) })
    }

    /// Appends `record` and waits until it is on disk.
    pub fn append(&mut self, record: &Record) -> Result<(), JobError> {
        self.proofs.add(record)?;
        self.file.append(record).map_err(io_error(&self.path))
    }
}

/// The log of a job's run: `STEM.tasks.jsonl`.
pub fn log_path(stem: &Path) -> PathBuf {
    with_suffix(stem, ".tasks.jsonl")
}

/// The logs of every run of job `name` in `dir`: the unsharded one and every shard's.
pub fn logs_in(dir: &Path, name: &str) -> Result<Vec<PathBuf>, JobError> {
    let mut logs = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(io_error(dir))?;
    for entry in entries {
        let path = entry.map_err(io_error(dir))?.path();
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else { continue };
        let Some(middle) = file.strip_prefix(name).and_then(|rest| rest.strip_suffix(".tasks.jsonl")) else {
            continue;
        };
        let is_shard = middle
            .strip_prefix(".shard-")
            .and_then(|s| s.split_once("-of-"))
            .is_some_and(|(i, n)| i.parse::<usize>().is_ok() && n.parse::<usize>().is_ok());
        if middle.is_empty() || is_shard {
            logs.push(path);
        }
    }
    logs.sort();
    Ok(logs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kalah(4,2) (16 seeds) and one of its openings, as task keys.
    const A: &str = "standard|2 2 2 2 0 2 2 2 2 0 S|";
    const B: &str = "standard|2 2 2 2 0 2 2 2 2 0 S|1 2";

    fn record(task: &str, lower: i32, upper: i32) -> Record {
        Record { task: task.into(), lower, upper, nodes: 5, seconds: 0.5 }
    }

    #[test]
    fn a_log_cut_short_by_a_kill_loses_only_its_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.tasks.jsonl");
        let mut log = Log::open(&path).unwrap();
        log.append(&record(A, -3, 4)).unwrap();
        log.append(&record(A, 2, 9)).unwrap();
        drop(log);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text += "{\"task\":\"b\",\"low";
        std::fs::write(&path, &text).unwrap();
        let mut log = Log::open(&path).unwrap();
        log.append(&record(B, 2, 2)).unwrap();
        let mut proofs = Proofs::default();
        proofs.read_log(&path).unwrap();
        assert_eq!(proofs.0[A].bounds, Bounds { lower: 2, upper: 4 });
        assert_eq!(proofs.0[A].nodes, 10);
        assert_eq!(proofs.0[B].bounds, Bounds { lower: 2, upper: 2 });

        log.append(&record(B, 4, 4)).unwrap_err();
        std::fs::write(&path, "not json\n").unwrap();
        assert!(matches!(
            Proofs::default().read_log(&path),
            Err(JobError::CorruptLog(crate::jsonl::CorruptLine { line: 1, .. }))
        ));
    }

    #[test]
    fn impossible_bounds_are_refused_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.tasks.jsonl");
        let forged = [
            (record(A, 100, 100), "not possible in a game of 16 seeds"),
            (record(A, 4, 2), "not possible"),
            (record(A, -17, 0), "not possible"),
            (record(B, 3, 3), "parity"),
            (record("b", 0, 0), "not a task key"),
            (record("nonsense|2 2 0 S|", 0, 0), "nonsense"),
        ];
        for (record, why) in forged {
            let line = serde_json::to_string(&record).unwrap();
            std::fs::write(
                &path,
                format!("{}\n{line}\n", serde_json::to_string(&super::tests::record(A, -2, 2)).unwrap()),
            )
            .unwrap();
            let err = Proofs::default().read_log(&path).unwrap_err();
            assert!(matches!(&err, JobError::CorruptLog(c) if c.line == 2 && c.message.contains(why)), "{line}: {err}");
        }
        // Seeds discarded: values need not share the seeds' parity.
        let discard = "standard remaining=discard|2 2 2 2 0 2 2 2 2 0 S|1 2";
        std::fs::write(&path, serde_json::to_string(&record(discard, 3, 3)).unwrap() + "\n").unwrap();
        Proofs::default().read_log(&path).unwrap();
        // Every shipped log reads.
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results");
        for entry in std::fs::read_dir(shipped).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with(".tasks.jsonl") {
                Proofs::default().read_log(&path).unwrap_or_else(|err| panic!("{err}"));
            }
        }
    }
}
