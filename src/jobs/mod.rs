//! Batch solve jobs: a TOML file of items (a start or position, a rule set, what to compute), the
//! tasks they split into, the log of proven bounds that makes a killed run resumable, shards, and
//! the result files.
//!
//! An item asks for an exact value, for every opening's value, or for a bound ("value >= 2"). It
//! splits into *tasks*, each the value of one position for the item's first player: the whole
//! position for an exact value, one task per first turn (with its extra-turn chain) otherwise, so
//! that openings can be shared out between shards and a killed run keeps the openings it proved.
//! Every bound a task proves (after each zero-window test of MTD(f), or a bound test) is appended
//! to the job's log (JSON lines, synced) at once; a re-run reads the log and starts each task from
//! its bounds. Results are assembled from the log alone, so the result files never disagree with
//! it, and shards combine by intersecting their logs' bounds.
//!
//! The rooms: [`file`](mod@file) (job files, items, tasks), [`log`] (the log of proven bounds), `solving`
//! (one task's search), `runner` (a run over the tasks the log has not settled), `merge` (shards' logs joined), [`grid`] (the
//! table of start values), [`results`](mod@results) (results from the log, and their files); here the errors,
//! shards and file names they share.
//!
//! A job file:
//!
//! ```toml
//! name = "openings-6x4"        # result files: <name>.csv, <name>.jsonl (default: the file's stem)
//! rules = "standard"           # default for the items
//! compute = "openings"         # default for the items: value | openings | value >= N | value <= N
//!
//! [[item]]
//! start = "6x4"
//!
//! [[item]]
//! start = "6x6"
//! rules = "empty-capture"
//! compute = "value >= 2"
//! openings = ["1 2", "3"]      # only these first turns, in this order
//! ```

pub mod file;
pub mod grid;
pub mod log;
mod merge;
pub mod results;
mod runner;
mod solving;

use std::path::{Path, PathBuf};

use crate::answer::Bounds;
use crate::search::SearchError;
use crate::search::table::SnapshotError;
use crate::shard::Shard;

pub use file::{Compute, Goal, Item, Job, Task};
pub use log::{Log, Proofs, Record, TaskProven, log_path, logs_in};
pub use merge::{MergeReport, merge};
pub(crate) use results::{item_settled, write_atomically, write_results};
pub use results::{results, results_text};
pub use runner::{RunOptions, RunProgress, RunReport, run};
pub use solving::Checkpoints;
pub(crate) use solving::{solve_task_with_checkpoints, table_tag};
// A job's files are named as its result files are: the stem with their endings.
pub(crate) use crate::results::with_suffix;

/// What keeps a job from running or its results from being read.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The job file is not a valid job.
    #[error("{path}: {message}")]
    Invalid {
        /// The job file.
        path: PathBuf,
        /// What is wrong, with the item's number.
        message: String,
    },
    /// A line of a log is damaged (other than a last line cut short by a kill, which is dropped).
    #[error(transparent)]
    CorruptLog(#[from] crate::jsonl::CorruptLine),
    /// Two logs (or two lines of one) claim bounds that cannot both hold.
    #[error("conflicting proofs for task '{task}': {first} and {second}")]
    Conflict {
        /// The task's key.
        task: String,
        /// One claim.
        first: Bounds,
        /// The other.
        second: Bounds,
    },
    /// A shard's log contradicts the logs merged before it.
    #[error("merging {path}: {source}")]
    Merge {
        /// The shard's log.
        path: PathBuf,
        /// The contradiction.
        source: Box<JobError>,
    },
    /// Another live run has the log open.
    #[error(transparent)]
    Locked(#[from] crate::lock::LockError),
    /// The search gave no answer (a time limit, a damaged database).
    #[error(transparent)]
    Search(#[from] SearchError),
    /// The transposition table could not be saved.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> JobError + '_ {
    move |source| JobError::Io { path: path.to_path_buf(), source }
}

/// Where a job's files go: `DIR/NAME[.shard-I-of-N]` followed by `.tasks.jsonl` (the log),
/// `.csv` and `.jsonl` (the results).
pub(crate) fn file_stem(dir: &Path, name: &str, shard: Option<Shard>) -> PathBuf {
    match shard {
        Some(s) => dir.join(format!("{name}.shard-{}-of-{}", s.index, s.count)),
        None => dir.join(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::Turn;
    use crate::rules::Rules;

    #[test]
    fn compute_parses_values_openings_and_bounds() {
        assert_eq!("value".parse(), Ok(Compute::Value));
        assert_eq!(" openings ".parse(), Ok(Compute::Openings));
        assert_eq!("value >= 2".parse(), Ok(Compute::AtLeast(2)));
        assert_eq!("value>1".parse(), Ok(Compute::AtLeast(2)));
        assert_eq!("value <= -3".parse(), Ok(Compute::AtMost(-3)));
        assert_eq!("value < +1".parse(), Ok(Compute::AtMost(0)));
        for bad in ["", "values", "value >= ", "value => 2", "value == 2", "openings >= 2", "value >= x"] {
            assert!(bad.parse::<Compute>().is_err(), "{bad:?}");
        }
        assert_eq!(Compute::AtLeast(2).to_string().parse(), Ok(Compute::AtLeast(2)));
        // Bounds beyond every value, near the integer limits or past them, are refused.
        assert_eq!("value <= 255".parse(), Ok(Compute::AtMost(255)));
        assert_eq!("value > -256".parse(), Ok(Compute::AtLeast(-255)));
        for bad in ["value <= 2147483647", "value > 2147483647", "value < -2147483648", "value >= 256", "value > 255"] {
            let err = bad.parse::<Compute>().unwrap_err();
            assert!(err.contains("beyond every value"), "{bad}: {err}");
        }
        assert!("value >= 99999999999999999999".parse::<Compute>().is_err());
    }

    #[test]
    fn job_files_are_checked_item_by_item() {
        let job = Job::parse(
            "j",
            "rules = \"empty-capture\"\ncompute = \"openings\"\n[[item]]\nstart = \"3x3\"\n\
             [[item]]\nstart = \"4x3\"\nrules = \"standard\"\ncompute = \"value >= 2\"\nopenings = [\"4\", \"2 4\"]\n",
        )
        .unwrap();
        assert_eq!(job.name, "j");
        assert_eq!(job.items[0].rules, Rules::EMPTY_CAPTURE);
        assert_eq!(job.items[1].compute, Compute::AtLeast(2));
        let chosen = job.items[1].openings.as_ref().map(|turns| turns.iter().map(Turn::to_string).collect::<Vec<_>>());
        assert_eq!(chosen, Some(vec!["4".to_string(), "2 4".to_string()]));
        let tasks = job.tasks();
        assert_eq!(tasks.iter().filter(|t| t.item == 1).count(), 2);
        assert!(tasks.iter().all(|t| t.opening.is_some()));

        for (text, expected) in [
            ("[[item]]\nstart = \"6x9x\"\n", "item 1: start"),
            ("[[item]]\nstart = \"3x3\"\nrules = \"chess\"\n", "item 1: unknown rule set 'chess'"),
            ("[[item]]\nstart = \"3x3\"\ncompute = \"best\"\n", "item 1: 'best' is not"),
            (
                "[[item]]\nstart = \"3x3\"\ncompute = \"openings\"\nopenings = [\"7\"]\n",
                "item 1: '7' is not a first turn",
            ),
            ("[[item]]\nstart = \"3x3\"\ncompute = \"openings\"\nopenings = []\n", "'openings' is empty"),
            (
                "[[item]]\nstart = \"3x3\"\ncompute = \"openings\"\nopenings = [\"2\", \" 2 \"]\n",
                "' 2 ' is named twice",
            ),
            ("[[item]]\nstart = \"3x3\"\nseeds = 4\n", "unknown field"),
            ("name = \"a/b\"\n[[item]]\nstart = \"3x3\"\n", "job name 'a/b'"),
            ("name = \"..\"\n[[item]]\nstart = \"3x3\"\n", "job name '..'"),
            ("name = \".\"\n[[item]]\nstart = \"3x3\"\n", "job name '.'"),
            ("name = \".hidden\"\n[[item]]\nstart = \"3x3\"\n", "not starting with '.'"),
            ("", "no [[item]]"),
        ] {
            let err = Job::parse("j", text).unwrap_err();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }
}
