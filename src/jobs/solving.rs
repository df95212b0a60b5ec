//! Solving one task: MTD(f) tests (or one bound test) whose every bound goes to the log at once,
//! with the transposition table saved every so often while the task runs.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{Bounds, Goal, JobError, Log, Record, Task, TaskProven};
use crate::rules::Rules;
use crate::search::{Search, SearchError};

/// Settles `task` with `search`, starting from what `log` proves and appending every bound proven
/// on the way. `guess` starts MTD(f) (the value of a similar position helps; without one the
/// search estimates where to start). Returns what is
/// known at the end; a search error (a time limit) keeps the bounds already logged.
pub(crate) fn solve_task(
    search: &mut Search<'_>,
    task: &Task,
    log: &mut Log,
    guess: Option<i32>,
) -> Result<TaskProven, JobError> {
    let known = log.proofs().known(task);
    if task.goal.answered(&known.bounds) {
        return Ok(known);
    }
    let clock = Instant::now();
    let nodes_before = search.stats().nodes;
    match task.goal {
        Goal::Exact => {
            let mut last = (nodes_before, Instant::now());
            let mut failed = None;
            let board_guess = guess.map(|guess| task.board_bounds(&Bounds { lower: guess, upper: guess }).0);
            let result = search.board_value_resuming(
                &task.position,
                task.board_bounds(&known.bounds),
                board_guess,
                |lower, upper, nodes| {
                    let bounds = task.value_bounds(lower, upper);
                    let record = record(task, bounds, nodes - last.0, last.1.elapsed().as_secs_f64());
                    last = (nodes, Instant::now());
                    if let Err(err) = log.append(&record) {
                        failed.get_or_insert(err);
                    }
                },
            );
            if let Some(err) = failed {
                return Err(err);
            }
            let value = result?;
            let bounds = task.value_bounds(value, value);
            if log.proofs().known(task).bounds.value() != Some(bounds.lower) {
                // Settled without a zero-window test (the database or the end of the game).
                let nodes = search.stats().nodes - last.0;
                log.append(&record(task, bounds, nodes, last.1.elapsed().as_secs_f64()))?;
            }
        }
        Goal::AtLeast(n) => {
            let m = task.position.margin();
            let beta = if task.sign() > 0 { n - m } else { 1 - n - m };
            let (lower, upper) = if search.board_value_at_least(&task.position, beta)? {
                (beta, i32::MAX / 4)
            } else {
                (-i32::MAX / 4, beta - 1)
            };
            let nodes = search.stats().nodes - nodes_before;
            log.append(&record(task, task.value_bounds(lower, upper), nodes, clock.elapsed().as_secs_f64()))?;
        }
    }
    Ok(log.proofs().known(task))
}

/// Where and how often a long task saves the search's transposition table, so that a killed run
/// keeps the proofs of its task in flight, not only the bounds it logged.
#[derive(Clone, Debug)]
pub struct Checkpoints {
    /// The snapshot file (`NAME.table` beside the log).
    pub path: PathBuf,
    /// Time between snapshots.
    pub every: Duration,
}

/// What a table snapshot must match to be loaded: the bounds it holds are about board values
/// under these rules on this board, whatever database the search probed.
pub(crate) fn table_tag(rules: &Rules, houses: usize) -> String {
    format!("{}|{houses}", rules.for_values())
}

/// As [`solve_task`], stopping every `checkpoints.every` to save the table, then going on from
/// the logged bounds and the table, until the task is settled or `deadline` passes
/// ([`SearchError::TimeUp`], the table saved once more).
pub(crate) fn solve_task_with_checkpoints(
    search: &mut Search<'_>,
    task: &Task,
    log: &mut Log,
    guess: Option<i32>,
    deadline: Option<Instant>,
    checkpoints: Option<&Checkpoints>,
) -> Result<TaskProven, JobError> {
    loop {
        let next = checkpoints.map(|c| Instant::now() + c.every);
        let stop = match (deadline, next) {
            (Some(d), Some(n)) => Some(d.min(n)),
            (d, n) => d.or(n),
        };
        search.set_deadline(stop);
        let result = solve_task(search, task, log, guess);
        let Some(checkpoints) = checkpoints else { return result };
        let interrupted = matches!(result, Err(JobError::Search(SearchError::Cancelled { .. })));
        if !interrupted && !matches!(result, Err(JobError::Search(SearchError::TimeUp { .. }))) {
            return result;
        }
        // At a checkpoint, out of time or interrupted: the table is saved, so that the next run
        // goes on from it.
        search.table().save(&checkpoints.path, &table_tag(search.rules(), task.position.houses()))?;
        if interrupted || deadline.is_some_and(|d| Instant::now() >= d) {
            return result;
        }
    }
}

fn record(task: &Task, bounds: Bounds, nodes: u64, seconds: f64) -> Record {
    Record { task: task.key.clone(), lower: bounds.lower, upper: bounds.upper, nodes, seconds }
}
