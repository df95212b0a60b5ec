//! Growing a proof: take the next task, search it within its budget, log what it settled or the
//! expansion it needed, and go on until the claim is decided, the time is up, or every open leaf
//! left is another run's task.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::log::{
    Appender, Expansion, Record, Settled, SettledBy, Tail, TaskNote, log_path, logs_in, read_records, task_notes_in,
};
use super::shared::SharedBounds;
use super::template::Template;
use super::{Claim, ProofError, Spec, Tree};
use crate::board::Position;
use crate::lock::FileLock;
use crate::moves::first_turns;
use crate::search::{Search, SearchError};
use crate::shard::Shard;

/// How a run works.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Nodes a task may search before its node is expanded instead (a share of them where every
    /// move will likely count or after a failed sibling: `task_budget`).
    pub task_nodes: u64,
    /// The shard this run is, which names its log (`log.jsonl` without one). Every run takes the
    /// most-proving open leaf no other run is working on.
    pub shard: Option<Shard>,
    /// Stop once this instant has passed; the task in flight is kept as [`RunOptions::interrupt`]
    /// says.
    pub deadline: Option<Instant>,
    /// Raised from outside (a signal) to stop soon: the task in flight stops within moments and,
    /// once it has spent at least half of its budget, is expanded as a task out of budget is, so
    /// that the bounds its table proved settle the children they decide; a task stopped earlier
    /// is left for the next run. Then the run ends, its log synced and its lock released.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Stop after this many tasks.
    pub max_tasks: Option<usize>,
    /// How long a run whose open leaves are all other runs' tasks waits for news in their logs
    /// before it stops.
    pub idle_wait: Duration,
    /// Another run's task (its `LOG.task`) is taken over once it has stood unchanged this long:
    /// that run was killed. One that was only slow costs a task done twice, never a wrong proof.
    pub take_over_after: Duration,
    /// The leaves other proofs under the same rules have settled, looked up before any search
    /// ([`SharedBounds`]).
    pub shared: Arc<SharedBounds>,
    /// Another proof's tree whose inner nodes are expanded without a task ([`Template`]).
    pub template: Arc<Template>,
}

impl RunOptions {
    /// Options for tasks of `task_nodes`, with the defaults for the rest.
    pub fn with_task_nodes(task_nodes: u64) -> RunOptions {
        RunOptions {
            task_nodes,
            shard: None,
            deadline: None,
            interrupt: None,
            max_tasks: None,
            idle_wait: Duration::from_secs(600),
            take_over_after: Duration::from_secs(300),
            shared: Arc::new(SharedBounds::none()),
            template: Arc::new(Template::none()),
        }
    }
}

/// The nodes of each child's estimate at an expansion, for tasks of `task_nodes`: a ten-thousandth
/// of the budget, from 2 K to 16 K. The estimates (three times their nodes each, as they deepen)
/// cost about an eighth of a 20 M-node miniature's nodes at 16 K; at 2 K both miniatures took
/// 83-95% of the nodes (`docs/performance-history.md`). The 300 M-node tasks of Kalah(6,6), whose
/// estimates cost a few thousandths of their nodes, keep 16 K.
fn estimate_nodes_for(task_nodes: u64) -> u64 {
    (task_nodes / 10_000).clamp(1 << 11, 1 << 14)
}

/// What a task did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// Settled its node: whether the node's question holds.
    Settled {
        /// The answer.
        holds: bool,
    },
    /// Ran out of budget; its node now has this many children.
    Expanded {
        /// Its turns.
        children: usize,
    },
}

/// One task done.
#[derive(Clone, Debug, Serialize)]
pub struct TaskReport {
    /// Its position.
    pub position: String,
    /// Seeds on its board.
    pub seeds: u32,
    /// What it did.
    pub outcome: TaskOutcome,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds spent.
    pub seconds: f64,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The claim is decided.
    Decided,
    /// Every open leaf left is another run's task.
    NoWork,
    /// The time limit passed.
    TimeUp,
    /// The task count asked for is done.
    MaxTasks,
    /// [`RunOptions::interrupt`] was raised.
    Interrupted,
}

/// What a run did.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// Tasks done.
    pub tasks: usize,
    /// Of which settled their node.
    pub settled: usize,
    /// Of which expanded it.
    pub expanded: usize,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds of the run.
    pub seconds: f64,
    /// Why it stopped.
    pub stop: Stop,
    /// The claim after the run, by the logs.
    pub proven: Option<bool>,
    /// The log it wrote.
    pub log: PathBuf,
}

/// The other runs of a proof, by their logs in its directory: the records they add, followed as
/// the logs grow, and the task each notes it is working on.
struct OtherRuns {
    dir: PathBuf,
    own: PathBuf,
    tails: Vec<Tail>,
    /// Each other run's noted task, by its log, and when this run saw that note first.
    tasks: HashMap<PathBuf, (Position, Instant)>,
}

impl OtherRuns {
    fn new(dir: &Path, own: &Path) -> OtherRuns {
        OtherRuns { dir: dir.to_path_buf(), own: own.to_path_buf(), tails: Vec::new(), tasks: HashMap::new() }
    }

    /// Adds to `tree` every record completed since the last call, and reads the task notes;
    /// returns how many records were new.
    fn poll(&mut self, tree: &mut Tree) -> Result<usize, ProofError> {
        for path in logs_in(&self.dir)? {
            if path != self.own && !self.tails.iter().any(|t| t.path() == path) {
                self.tails.push(Tail::new(path));
            }
        }
        let mut new = 0;
        for tail in &mut self.tails {
            for record in tail.read_new()? {
                new += usize::from(tree.add(record)?);
            }
        }
        let mut notes = task_notes_in(&self.dir)?;
        notes.remove(&self.own);
        self.tasks.retain(|log, (task, _)| notes.get(log) == Some(task));
        for (log, task) in notes {
            self.tasks.entry(log).or_insert((task, Instant::now()));
        }
        Ok(new)
    }

    /// The tasks other runs are working on: those noted less than `stale` ago.
    fn busy(&self, stale: Duration) -> HashSet<Position> {
        self.tasks.values().filter(|(_, since)| since.elapsed() < stale).map(|(task, _)| *task).collect()
    }
}

/// The proof of `spec` in `dir` as a tree, with the records of every log it was built from.
pub fn read_proof(spec: Spec, dir: &Path) -> Result<(Tree, Vec<Record>), ProofError> {
    let mut tree = Tree::new(spec);
    let records = read_records(dir)?;
    for record in &records {
        tree.add(record.clone())?;
    }
    tree.check_root()?;
    Ok((tree, records))
}

/// Grows the proof in `dir` (whose logs `tree` holds) with `search` (for the proof's rules),
/// appending to this run's log, calling `on_task` after each task.
pub fn work(
    dir: &Path,
    tree: &mut Tree,
    search: &mut Search<'_>,
    options: &RunOptions,
    mut on_task: impl FnMut(&TaskReport, &Tree),
) -> Result<RunReport, ProofError> {
    let own = log_path(dir, options.shard);
    let mut others = OtherRuns::new(dir, &own);
    let _lock = FileLock::beside(&own)?;
    let note = TaskNote::new(&own);
    let mut log = Appender::open(&own)?;
    for record in super::log::read_log(&own)? {
        tree.add(record)?;
    }
    others.poll(tree)?;
    tree.follow(options.template.clone());
    search.set_deadline(options.deadline);
    search.set_cancel(options.interrupt.clone());
    let clock = Instant::now();
    let mut report = RunReport {
        tasks: 0,
        settled: 0,
        expanded: 0,
        nodes: 0,
        seconds: 0.0,
        stop: Stop::Decided,
        proven: None,
        log: own,
    };
    report.stop = loop {
        if tree.proven().is_some() {
            break Stop::Decided;
        }
        if options.max_tasks.is_some_and(|max| report.tasks >= max) {
            break Stop::MaxTasks;
        }
        if let Some(stop) = stop_asked(options) {
            break stop;
        }
        let Some(position) = next_or_wait(tree, &mut others, options)? else {
            break stop_asked(options).unwrap_or(Stop::NoWork);
        };
        note.set(&position)?;
        let Some(task) = run_task(tree, search, &position, options, &mut log)? else {
            break stop_asked(options).unwrap_or(Stop::TimeUp);
        };
        report.tasks += 1;
        report.nodes += task.nodes;
        match task.outcome {
            TaskOutcome::Settled { .. } => report.settled += 1,
            TaskOutcome::Expanded { .. } => report.expanded += 1,
        }
        on_task(&task, tree);
        others.poll(tree)?;
    };
    search.set_deadline(None);
    search.set_cancel(None);
    search.set_node_limit(None);
    report.seconds = clock.elapsed().as_secs_f64();
    report.proven = tree.proven();
    Ok(report)
}

/// Why the run must stop now, if it must: interrupted, or out of time.
fn stop_asked(options: &RunOptions) -> Option<Stop> {
    if options.interrupt.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed)) {
        Some(Stop::Interrupted)
    } else if options.deadline.is_some_and(|d| Instant::now() >= d) {
        Some(Stop::TimeUp)
    } else {
        None
    }
}

/// The next task: the most-proving open leaf that no other run is working on. When every open
/// leaf is another run's task, waits for news in their logs (or for a task to go stale), at
/// most `options.idle_wait` without any and never past the deadline.
fn next_or_wait(tree: &mut Tree, others: &mut OtherRuns, options: &RunOptions) -> Result<Option<Position>, ProofError> {
    let mut quiet_since = Instant::now();
    loop {
        if let Some(position) = tree.next_task(&others.busy(options.take_over_after)) {
            return Ok(Some(position));
        }
        let now = Instant::now();
        let waited_enough = now.duration_since(quiet_since) >= options.idle_wait;
        if tree.proven().is_some() || waited_enough || stop_asked(options).is_some() {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(500).min(options.idle_wait));
        if others.poll(tree)? > 0 {
            quiet_since = Instant::now();
        }
    }
}

/// Searches the task at `position` within its budget and logs what it settled or its
/// expansion; `None` when the deadline or an interrupt stopped it before half of its budget was
/// spent (nothing logged).
fn run_task(
    tree: &mut Tree,
    search: &mut Search<'_>,
    position: &Position,
    options: &RunOptions,
    log: &mut Appender,
) -> Result<Option<TaskReport>, ProofError> {
    let clock = Instant::now();
    let nodes_before = search.stats().nodes;
    let Some(outcome) = task_outcome(tree, search, position, options, log, (nodes_before, clock))? else {
        return Ok(None);
    };
    Ok(Some(TaskReport {
        position: position.to_string(),
        seeds: position.seeds_on_board(),
        outcome,
        nodes: search.stats().nodes - nodes_before,
        seconds: clock.elapsed().as_secs_f64(),
    }))
}

/// What the task at `position` did (see [`run_task`]), its work counted from `nodes_before` and
/// `clock`; `None` when it was stopped with nothing logged.
fn task_outcome(
    tree: &mut Tree,
    search: &mut Search<'_>,
    position: &Position,
    options: &RunOptions,
    log: &mut Appender,
    (nodes_before, clock): (u64, Instant),
) -> Result<Option<TaskOutcome>, ProofError> {
    let claim = tree.spec().node_claim(position);
    let expanded = |children: Option<usize>| children.map(|children| TaskOutcome::Expanded { children });
    if let Some((holds, from)) = options.shared.decides(&claim, position) {
        settle(tree, log, position, &claim, (holds, SettledBy::Shared, Some(from)), (0, clock))?;
        return Ok(Some(TaskOutcome::Settled { holds }));
    }
    if let Some(holds) = decided_by_table(search, &claim, position) {
        settle(tree, log, position, &claim, (holds, SettledBy::Table, None), (0, clock))?;
        return Ok(Some(TaskOutcome::Settled { holds }));
    }
    if tree.expands_without_a_task(position, options.shared.searched_seeds()) {
        return Ok(expanded(expand(tree, search, position, options, log, clock, nodes_before)?));
    }
    let (beta, holds_if_at_least) = claim.board_test(position);
    // The root has no expansion above it to estimate it: its task estimates it first, as an
    // expansion would, its nodes the task's (a few thousand: searched past a stop, as an
    // expansion's estimates are).
    let root_estimate = match *position == tree.spec().root {
        true => {
            search.set_deadline(None);
            search.set_cancel(None);
            let estimate = search.estimated_value(position, estimate_nodes_for(options.task_nodes));
            search.set_deadline(options.deadline);
            search.set_cancel(options.interrupt.clone());
            let value = estimate?;
            Some(if position.to_move() == tree.spec().prover() { value } else { -value })
        }
        false => None,
    };
    let budget = task_budget(tree, position, options, root_estimate);
    search.set_node_limit(Some(budget));
    let answer = search.board_value_at_least(position, beta);
    search.set_node_limit(None);
    match answer {
        Ok(at_least) => {
            let holds = at_least == holds_if_at_least;
            let by = if search.in_database(position) { SettledBy::Database } else { SettledBy::Search };
            settle(tree, log, position, &claim, (holds, by, None), (search.stats().nodes - nodes_before, clock))?;
            Ok(Some(TaskOutcome::Settled { holds }))
        }
        Err(SearchError::NodeLimit { .. }) => {
            Ok(expanded(expand(tree, search, position, options, log, clock, nodes_before)?))
        }
        Err(SearchError::TimeUp { .. } | SearchError::Cancelled { .. }) => {
            if search.stats().nodes - nodes_before < budget / 2 {
                return Ok(None);
            }
            // Half a budget or more is kept: expanded like a task out of budget, the
            // expansion's few estimates searched past the stop.
            search.set_deadline(None);
            search.set_cancel(None);
            let children = expand(tree, search, position, options, log, clock, nodes_before);
            search.set_deadline(options.deadline);
            search.set_cancel(options.interrupt.clone());
            Ok(expanded(children?))
        }
        Err(err) => Err(err.into()),
    }
}

/// A leaf one of whose siblings has run out of a budget (a reduced one included) gets the budget
/// divided by this: such tasks fail more often (in the Kalah(6,6) logs 58% of them against 37%),
/// and where the leaf is one of several alternatives, the proof-number search turns to the next
/// one sooner. What it saves is measured in `docs/performance-history.md`.
const BUDGET_DIVISOR_AFTER_A_FAILED_SIBLING: u64 = 4;

/// A leaf where every move will likely have to be settled ([`Tree::every_move_likely_needed`])
/// gets the budget divided by this: a task that fails there costs only its own nodes, as the
/// proof needs all of the node's children anyway and the failed task's table settles many of them
/// at the expansion, whereas one that fails where a single move will do opens a choice of moves
/// that the proof-number search then sweeps. What it saves is measured in
/// `docs/performance-history.md`.
const BUDGET_DIVISOR_WHERE_EVERY_MOVE_COUNTS: u64 = 8;

/// The nodes the task at `position` may search: the full budget, divided by
/// [`BUDGET_DIVISOR_WHERE_EVERY_MOVE_COUNTS`] where every move will likely count (at the root,
/// by `root_estimate`), and by [`BUDGET_DIVISOR_AFTER_A_FAILED_SIBLING`] once a sibling's
/// expansion searched a sixteenth of the full budget or more (one without a task searches only
/// its children's estimates, far less).
fn task_budget(tree: &Tree, position: &Position, options: &RunOptions, root_estimate: Option<i32>) -> u64 {
    let mut budget = options.task_nodes;
    if tree.every_move_likely_needed(position, root_estimate) {
        budget /= BUDGET_DIVISOR_WHERE_EVERY_MOVE_COUNTS;
    }
    if tree.sibling_failed(position, options.task_nodes / 16) {
        budget /= BUDGET_DIVISOR_AFTER_A_FAILED_SIBLING;
    }
    budget.max(1)
}

/// Logs that `claim` `holds` (or not) at `position`, found `by` what (from which other proof,
/// when shared), with its cost: nodes and the instant the work started.
fn settle(
    tree: &mut Tree,
    log: &mut Appender,
    position: &Position,
    claim: &Claim,
    (holds, by, from): (bool, SettledBy, Option<&str>),
    (nodes, since): (u64, Instant),
) -> Result<(), ProofError> {
    let record = Settled {
        position: position.to_string(),
        claim: claim.to_string(),
        holds,
        by,
        nodes,
        seconds: since.elapsed().as_secs_f64(),
        from: from.map(str::to_string),
    };
    append(tree, log, Record::Settled(record))
}

/// Expands the node at `position` one turn: each child's estimate for the prover, the children
/// the database answers logged as settled, then the expansion. `None` when the deadline or an
/// interrupt stopped it (what was logged stays true).
fn expand(
    tree: &mut Tree,
    search: &mut Search<'_>,
    position: &Position,
    options: &RunOptions,
    log: &mut Appender,
    clock: Instant,
    nodes_before: u64,
) -> Result<Option<usize>, ProofError> {
    let spec = tree.spec().clone();
    let mut children = Vec::new();
    for (moves, child) in first_turns(&spec.rules, position) {
        let child_clock = Instant::now();
        let child_nodes = search.stats().nodes;
        let child_claim = spec.node_claim(&child);
        let open = child_claim.decided_by_seeds(&spec.rules, &child).is_none();
        let shared = if open { options.shared.decides(&child_claim, &child) } else { None };
        // The failed task proved bounds on many children before its budget ran out; they are
        // read before the estimate's moves go into the table.
        let by_table =
            if open && !search.in_database(&child) { decided_by_table(search, &child_claim, &child) } else { None };
        let estimate = match search.estimated_value(&child, estimate_nodes_for(options.task_nodes)) {
            Ok(value) => value,
            Err(SearchError::TimeUp { .. } | SearchError::Cancelled { .. }) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let settled = match (shared, by_table) {
            (Some((holds, from)), _) => Some((holds, SettledBy::Shared, Some(from))),
            (None, Some(holds)) => Some((holds, SettledBy::Table, None)),
            // The estimate of a database position is its exact value.
            (None, None) if open && search.in_database(&child) => {
                Some((child_claim.holds_for(estimate), SettledBy::Database, None))
            }
            (None, None) => None,
        };
        if let Some(answer) = settled {
            settle(tree, log, &child, &child_claim, answer, (search.stats().nodes - child_nodes, child_clock))?;
        }
        let for_prover = if child.to_move() == spec.prover() { estimate } else { -estimate };
        children.push((moves.to_string(), for_prover));
    }
    let count = children.len();
    let record = Expansion {
        position: position.to_string(),
        claim: spec.node_claim(position).to_string(),
        nodes: search.stats().nodes - nodes_before,
        seconds: clock.elapsed().as_secs_f64(),
        children,
    };
    append(tree, log, Record::Expanded(record))?;
    Ok(Some(count))
}

/// What the bounds in `search`'s table decide about `claim` at `position`, if anything.
fn decided_by_table(search: &Search<'_>, claim: &Claim, position: &Position) -> Option<bool> {
    let (lower, upper) = search.proven_bounds(position)?;
    let (low, high) = (claim.holds_for(lower), claim.holds_for(upper));
    (low == high).then_some(low)
}

/// Logs `record` (synced) and adds it to the tree.
fn append(tree: &mut Tree, log: &mut Appender, record: Record) -> Result<(), ProofError> {
    log.append(&record)?;
    tree.add(record)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::Spec;
    use crate::rules::Rules;
    use crate::search::SearchOptions;

    /// A leaf gets a quarter of the budget once a sibling's expansion searched a sixteenth of
    /// it or more; one expanded with fewer nodes (only its children's estimates) leaves it the
    /// whole.
    #[test]
    fn a_leaf_after_a_failed_sibling_gets_a_quarter_of_the_budget() {
        use crate::proof::tree::tests::{expansion, turns_from};
        let root = Position::start(4, 4).unwrap();
        let children = turns_from(&root);
        let options = RunOptions::with_task_nodes(8_000);
        for (sibling_nodes, budget) in [(499, 8_000), (500, 2_000)] {
            let spec = Spec::new(Rules::STANDARD, root, ">= 2".parse().unwrap(), 8_000).unwrap();
            let mut tree = Tree::new(spec);
            for (position, nodes) in [(root, 8_000), (children[0], sibling_nodes)] {
                tree.add(expansion(&tree, &position, nodes)).unwrap();
            }
            assert_eq!(task_budget(&tree, &children[1], &options, None), budget, "a sibling of {sibling_nodes} nodes");
            assert_eq!(task_budget(&tree, &root, &options, None), 8_000);
        }
    }

    /// A leaf whose estimate says every one of its moves will likely have to be settled (the
    /// claim holds there and the other side moves, or the prover moves and the estimate falls
    /// short of the bound or clears it by at most 4 seeds) gets an eighth of the budget; one
    /// where a single move may do, and the root without its estimate, the whole.
    #[test]
    fn a_leaf_where_every_move_counts_gets_an_eighth_of_the_budget() {
        use crate::proof::tree::tests::{estimated_expansion, turns_from};
        let root = Position::start(4, 4).unwrap();
        let child = turns_from(&root)[1];
        let grandchild = turns_from(&child)[0];
        let options = RunOptions::with_task_nodes(8_000);
        // South proves `>= 2`: the root's children are North's, the grandchild South's.
        for (child_estimate, grandchild_estimate, child_budget, grandchild_budget) in
            [(2, 1, 1_000, 1_000), (1, 6, 8_000, 1_000), (3, 7, 1_000, 8_000)]
        {
            let spec = Spec::new(Rules::STANDARD, root, ">= 2".parse().unwrap(), 8_000).unwrap();
            let mut tree = Tree::new(spec);
            assert_eq!(task_budget(&tree, &root, &options, None), 8_000, "the root has no estimate");
            // The root's own estimate: South, the prover, moves there, so every move likely
            // counts unless the estimate clears the bound by more than the margin.
            assert_eq!(task_budget(&tree, &root, &options, Some(1)), 1_000);
            assert_eq!(task_budget(&tree, &root, &options, Some(6)), 1_000);
            assert_eq!(task_budget(&tree, &root, &options, Some(7)), 8_000);
            for (position, estimate) in [(root, child_estimate), (child, grandchild_estimate)] {
                tree.add(estimated_expansion(&tree, &position, 10, estimate)).unwrap();
            }
            assert_eq!(task_budget(&tree, &turns_from(&root)[2], &options, None), child_budget, "{child_estimate}");
            assert_eq!(task_budget(&tree, &grandchild, &options, None), grandchild_budget, "{grandchild_estimate}");
        }
    }

    /// The miniatures' 20 M-node tasks estimate with 2 K nodes, Kalah(6,6)'s 300 M-node ones with
    /// 16 K, as before.
    #[test]
    fn estimates_take_a_ten_thousandth_of_the_budget_within_2_k_and_16_k() {
        assert_eq!(
            [5_000_000, 20_000_000, 80_000_000, 300_000_000].map(estimate_nodes_for),
            [2_048, 2_048, 8_000, 16_384]
        );
    }

    /// A task stopped by an interrupt (raised before it starts, so it stops at the first look
    /// at its flags, after 1,024 nodes) is expanded when that is half its budget or more, and
    /// leaves nothing in the log when it is less.
    #[test]
    fn an_interrupted_task_is_kept_as_an_expansion_only_past_half_its_budget() {
        for (task_nodes, kept) in [(2_048, true), (1 << 40, false)] {
            let dir = tempfile::tempdir().unwrap();
            let root = Position::start(6, 4).unwrap();
            let spec = Spec::new(Rules::STANDARD, root, ">= 2".parse().unwrap(), task_nodes).unwrap();
            spec.create(dir.path()).unwrap();
            let mut tree = Tree::new(spec);
            let options = SearchOptions { table_bytes: 1 << 22, deadline: None, threads: 1 };
            let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
            let interrupt = Arc::new(AtomicBool::new(true));
            search.set_cancel(Some(Arc::clone(&interrupt)));
            let options = RunOptions { interrupt: Some(interrupt), ..RunOptions::with_task_nodes(task_nodes) };
            let own = log_path(dir.path(), None);
            let mut log = Appender::open(&own).unwrap();
            let task = run_task(&mut tree, &mut search, &root, &options, &mut log).unwrap();
            let logged = super::super::log::read_log(&own).unwrap();
            if kept {
                let task = task.expect("a task past half its budget is kept");
                assert_eq!(task.outcome, TaskOutcome::Expanded { children: 10 });
                assert!(matches!(logged.last(), Some(Record::Expanded(e)) if e.children.len() == 10));
            } else {
                assert!(task.is_none(), "a task stopped early is left for the next run");
                assert!(logged.is_empty());
            }
        }
    }
}
