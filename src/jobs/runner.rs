//! Running a job (or one shard of it): every task not yet settled by the log, grouped so that
//! tasks under the same rules and board share one database and one transposition table, with the
//! result files rewritten after each task.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Bounds, Checkpoints, Compute, Job, JobError, Log, Proofs, Task};
use crate::engine::{Load, Preparation, Quietly, Setup};
use crate::results::ItemResult;
use crate::search::{Search, SearchError};
use crate::shard::Shard;

/// How a job runs, beyond how its searches are set up.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Run only this shard's tasks ([`Shard::takes`]).
    pub shard: Option<Shard>,
    /// The directory of the job's log and result files.
    pub results: PathBuf,
    /// A task not settled in this time keeps its logged bounds and is left to the next run.
    pub task_time_limit: Option<Duration>,
    /// Save the table this often while a task runs (to `NAME.table` beside the log).
    pub checkpoint_every: Option<Duration>,
    /// Raised from outside (a signal) to stop soon: the task in flight stops within moments,
    /// keeping the bounds it logged (and its saved table, with checkpoints), and the run ends
    /// with its results written.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// What a run tells its caller as it goes; the database's preparation comes through
/// [`Preparation`].
pub trait RunProgress: Preparation {
    /// This many tasks are to be worked.
    fn pending(&self, _tasks: usize) {}
    /// A group's database and table are about to be prepared (a build or a load may report).
    fn preparing(&self) {}
    /// They are ready; its tasks follow.
    fn prepared(&self) {}
    /// Something the user should know that changes no result (a saved table used or not).
    fn note(&self, _message: &str) {}
    /// The task described is being worked.
    fn task_started(&self, _description: &str) {}
    /// The task described was left unsettled, and why.
    fn task_unsettled(&self, _description: &str, _why: &str) {}
    /// A task is done with (settled, unsettled or settled before).
    fn task_done(&self) {}
}

impl RunProgress for Quietly {}

/// What a run did. Its JSON is `kalah run --json`'s.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The job's name.
    pub job: String,
    /// The shard run (`I/N`), if one.
    pub shard: Option<String>,
    /// The job's items.
    pub items: usize,
    /// The tasks of this run's share.
    pub tasks: usize,
    /// Of these, the ones this run settled.
    #[serde(rename = "solved_now")]
    pub settled_now: usize,
    /// The ones the log had settled before the run.
    pub settled_before: usize,
    /// The keys of those it left unsettled (out of time, or too deep for the cyclic search).
    #[serde(rename = "unfinished")]
    pub unsettled: Vec<String>,
    /// Of those, the ones left because the cyclic search's lines grew too long.
    #[serde(skip)]
    pub too_deep: usize,
    /// Whether [`RunOptions::interrupt`] stopped the run before its last task.
    pub interrupted: bool,
    /// Seconds the run took.
    pub seconds: f64,
    /// The run's log.
    pub log: PathBuf,
    /// The results file (CSV; the JSON lines file beside it).
    pub results_csv: PathBuf,
    /// Every settled item's result.
    pub results: Vec<ItemResult>,
}

impl RunReport {
    /// What the run did, then every settled item of `job` ([`super::results_text`], every
    /// opening listed with `all`), and where the results and the log are.
    pub fn text(&self, job: &Job, all: bool) -> String {
        let shard = self.shard.as_ref().map_or(String::new(), |s| format!(", shard {s}"));
        let mut text = format!(
            "job {}{shard}: {} tasks, {} settled before, {} settled now, {} not settled ({:.1} s)\n",
            self.job,
            self.tasks,
            self.settled_before,
            self.settled_now,
            self.unsettled.len(),
            self.seconds
        );
        text += &super::results_text(job, &self.results, all);
        text + &format!("results: {} (and .jsonl); log: {}\n", self.results_csv.display(), self.log.display())
    }
}

/// Runs `job`'s tasks (this shard's share) that its log has not settled, logging every bound as
/// it is proven. A task out of time or too deep is reported and left; any other error stops the
/// run with what is logged kept.
pub fn run(job: &Job, setup: &Setup, options: &RunOptions, progress: &impl RunProgress) -> Result<RunReport, JobError> {
    let clock = Instant::now();
    let stem = super::file_stem(&options.results, &job.name, options.shard);
    let log_path = super::log_path(&stem);
    let mut log = Log::open(&log_path)?;
    // Every run goes on from all the job's logs here (the merged one, every shard's, as they are
    // now), whatever share it was given: a shard resumed after a merge, or with a different count,
    // searches nothing the others settled.
    for other in super::logs_in(&options.results, &job.name)?.iter().filter(|path| **path != log_path) {
        log.take_in(other)?;
    }
    let checkpoints =
        options.checkpoint_every.map(|every| Checkpoints { path: super::with_suffix(&stem, ".table"), every });
    let tasks = job.tasks();
    let mine: Vec<usize> = (0..tasks.len()).filter(|&t| options.shard.is_none_or(|s| s.takes(t))).collect();
    // Which items are settled, kept up to date task by task: asking `item_settled` for every
    // task would cost time quadratic in an item's openings (26,286 for Swedish Kalah(6,4)).
    let mut item_done: Vec<bool> =
        (0..job.items.len()).map(|i| super::item_settled(job, i, &tasks, log.proofs())).collect();
    let settled = |t: usize, proofs: &Proofs, item_done: &[bool]| {
        let task = &tasks[t];
        item_done[task.item] || task.goal.answered(&proofs.known(task).bounds)
    };
    let pending: Vec<usize> = mine.iter().copied().filter(|&t| !settled(t, log.proofs(), &item_done)).collect();
    super::write_results(&stem, job, &super::results(job, &tasks, log.proofs()))?;
    let mut results_written = Instant::now();
    progress.pending(pending.len());

    let (mut settled_now, mut unsettled, mut too_deep, mut interrupted) = (0, Vec::new(), 0, false);
    'groups: for group in same_search(job, &tasks, &pending) {
        let first = &tasks[group[0]];
        let rules = job.items[first.item].rules;
        let biggest = group.iter().map(|&t| tasks[t].position).max_by_key(|p| p.seeds_on_board());
        let biggest = biggest.expect("a group has a task");
        progress.preparing();
        let prepared = setup.prepare(&rules, &biggest, Load::Now, None, progress).map_err(SearchError::from)?;
        progress.prepared();
        let mut search = prepared.search()?;
        search.set_cancel(options.interrupt.clone());
        if let Some(checkpoints) = checkpoints.as_ref().filter(|c| c.path.exists()) {
            load_checkpoint(&search, &checkpoints.path, &super::table_tag(&rules, biggest.houses()), progress);
        }
        // MTD(f) of an item's next opening starts from the value of its last one.
        let mut guess = (usize::MAX, 0);
        for (i, &t) in group.iter().enumerate() {
            let task = &tasks[t];
            let item_ends = group.get(i + 1).is_none_or(|&next| tasks[next].item != task.item);
            if settled(t, log.proofs(), &item_done) {
                progress.task_done();
                continue;
            }
            if options.interrupt.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed)) {
                interrupted = true;
                break 'groups;
            }
            let description = task.describe(job);
            progress.task_started(&description);
            let deadline = options.task_time_limit.map(|limit| Instant::now() + limit);
            let item_guess = (guess.0 == task.item).then_some(guess.1);
            let (nodes_before, task_clock) = (search.stats().nodes, Instant::now());
            let solved = super::solve_task_with_checkpoints(
                &mut search,
                task,
                &mut log,
                item_guess,
                deadline,
                checkpoints.as_ref(),
            );
            match solved {
                Ok(known) => {
                    settled_now += 1;
                    item_done[task.item] |= decides_item(job.items[task.item].compute, &known.bounds);
                    if let Some(value) = known.bounds.value() {
                        guess = (task.item, value);
                    }
                }
                Err(JobError::Search(SearchError::TimeUp { .. })) => {
                    // The error's count is one thread's; the search's counts every thread's.
                    let nodes = search.stats().nodes - nodes_before;
                    let spent = task_clock.elapsed().as_secs_f64();
                    let why = format!("not settled within the time limit ({nodes} nodes, {spent:.0} s)");
                    progress.task_unsettled(&description, &why);
                    unsettled.push(task.key.clone());
                }
                Err(JobError::Search(SearchError::Cancelled { .. })) => {
                    progress.task_unsettled(&description, "interrupted; its proven bounds are logged");
                    unsettled.push(task.key.clone());
                    interrupted = true;
                    progress.task_done();
                    break 'groups;
                }
                Err(JobError::Search(err @ SearchError::LineTooLong { .. })) => {
                    // Like a time limit: the bounds proven so far are logged, other tasks go on.
                    progress.task_unsettled(&description, &format!("not settled: {err}"));
                    unsettled.push(task.key.clone());
                    too_deep += 1;
                }
                Err(err) => return Err(err),
            }
            if item_ends || results_written.elapsed() >= RESULTS_EVERY {
                super::write_results(&stem, job, &super::results(job, &tasks, log.proofs()))?;
                results_written = Instant::now();
            }
            progress.task_done();
        }
    }
    super::write_results(&stem, job, &super::results(job, &tasks, log.proofs()))?;
    if let Some(checkpoints) = checkpoints.as_ref().filter(|_| unsettled.is_empty()) {
        // Every task of this run is settled: the saved table has served.
        let _ = std::fs::remove_file(&checkpoints.path);
    }
    Ok(RunReport {
        job: job.name.clone(),
        shard: options.shard.map(|shard| shard.to_string()),
        items: job.items.len(),
        tasks: mine.len(),
        settled_before: mine.len() - pending.len(),
        settled_now,
        unsettled,
        too_deep,
        interrupted,
        seconds: clock.elapsed().as_secs_f64(),
        log: log_path,
        results_csv: super::with_suffix(&stem, ".csv"),
        results: super::results(job, &tasks, log.proofs()),
    })
}

/// How often the results files are rewritten while tasks settle (besides after an item's last
/// task and at the end): each rewrite costs time linear in the job's tasks.
const RESULTS_EVERY: Duration = Duration::from_secs(10);

/// Whether one opening's proven `bounds` settles its whole item before the other openings
/// are searched: a bound test that one opening answers (as [`super::item_result`] reads it).
fn decides_item(compute: Compute, bounds: &Bounds) -> bool {
    match compute {
        Compute::AtLeast(n) => bounds.lower >= n,
        Compute::AtMost(n) => bounds.lower > n,
        Compute::Value | Compute::Openings => false,
    }
}

/// `pending` cut into runs of consecutive tasks under the same rules and board: each run shares
/// one database and one table.
fn same_search<'p>(job: &Job, tasks: &[Task], pending: &'p [usize]) -> impl Iterator<Item = &'p [usize]> {
    let key = |t: usize| (job.items[tasks[t].item].rules, tasks[t].position.houses());
    pending.chunk_by(move |&a, &b| key(a) == key(b))
}

/// Loads the table a killed run saved, telling the user whether it is used.
fn load_checkpoint(search: &Search<'_>, path: &Path, tag: &str, progress: &impl RunProgress) {
    match search.table().load(path, tag) {
        Ok(()) => progress.note(&format!("going on from the table saved in {}", path.display())),
        Err(err) => progress.note(&format!("warning: not using the saved table: {err}")),
    }
}
