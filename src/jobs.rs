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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::board::Position;
use crate::notation::parse_start;
use crate::rules::Rules;
use crate::search::table::SnapshotError;
use crate::search::{Search, SearchError};
use crate::solve::first_turns;

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
    #[error("{path} line {line}: {message}")]
    CorruptLog {
        /// The log.
        path: PathBuf,
        /// Its line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Two logs (or two lines of one) claim bounds that cannot both hold.
    #[error("conflicting proofs for task '{task}': {first} and {second}")]
    Conflict {
        /// The task's key.
        task: String,
        /// One claim.
        first: Interval,
        /// The other.
        second: Interval,
    },
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

/// What an item computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compute {
    /// The exact value of the position.
    Value,
    /// The exact value of every first turn (and so the value and the pie-rule value).
    Openings,
    /// Whether the value is at least this.
    AtLeast(i32),
    /// Whether the value is at most this.
    AtMost(i32),
}

impl FromStr for Compute {
    type Err = String;

    /// `value`, `openings`, or a bound test `value >= N`, `value > N`, `value <= N`, `value < N`.
    fn from_str(text: &str) -> Result<Compute, String> {
        let bad = || format!("'{text}' is not value, openings, or a bound such as 'value >= 2'");
        let compact: String = text.split_whitespace().collect();
        match compact.as_str() {
            "value" => return Ok(Compute::Value),
            "openings" => return Ok(Compute::Openings),
            _ => {}
        }
        let rest = compact.strip_prefix("value").ok_or_else(bad)?;
        let (op, number) = match rest.find(|c: char| c != '<' && c != '>' && c != '=') {
            Some(at) => rest.split_at(at),
            None => return Err(bad()),
        };
        let n: i32 = number.strip_prefix('+').unwrap_or(number).parse().map_err(|_| bad())?;
        match op {
            ">=" => Ok(Compute::AtLeast(n)),
            ">" => Ok(Compute::AtLeast(n + 1)),
            "<=" => Ok(Compute::AtMost(n)),
            "<" => Ok(Compute::AtMost(n - 1)),
            _ => Err(bad()),
        }
    }
}

impl std::fmt::Display for Compute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Compute::Value => f.write_str("value"),
            Compute::Openings => f.write_str("openings"),
            Compute::AtLeast(n) => write!(f, "value >= {n}"),
            Compute::AtMost(n) => write!(f, "value <= {n}"),
        }
    }
}

/// Proven bounds on a value, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interval {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
}

impl Interval {
    /// What holds for every value of a game with `total` seeds: nothing proven yet.
    pub fn unknown(total: u32) -> Interval {
        Interval { lower: -(total as i32), upper: total as i32 }
    }

    /// The value, once both bounds meet.
    pub fn exact(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// What both claims prove together; `None` if they contradict each other.
    pub fn intersect(&self, other: &Interval) -> Option<Interval> {
        let both = Interval { lower: self.lower.max(other.lower), upper: self.upper.min(other.upper) };
        (both.lower <= both.upper).then_some(both)
    }

    /// `+4` when exact, `>= 2`, `<= 1` or `-2..4` otherwise (relative to a game of `total` seeds).
    pub fn text(&self, total: u32) -> String {
        let unknown = Interval::unknown(total);
        match (self.exact(), self.lower > unknown.lower, self.upper < unknown.upper) {
            (Some(v), _, _) => signed(v),
            (None, true, false) => format!(">= {}", signed(self.lower)),
            (None, false, true) => format!("<= {}", signed(self.upper)),
            (None, false, false) => "?".to_string(),
            (None, true, true) => format!("{}..{}", signed(self.lower), signed(self.upper)),
        }
    }
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}]", self.lower, self.upper)
    }
}

fn signed(value: i32) -> String {
    if value > 0 { format!("+{value}") } else { value.to_string() }
}

/// One item of a job, checked.
#[derive(Clone, Debug)]
pub struct Item {
    /// Its place in the job file, from 1.
    pub number: usize,
    /// The rules it is solved under.
    pub rules: Rules,
    /// The start as written in the job file (`6x5` or a position).
    pub start: String,
    /// The position it describes.
    pub position: Position,
    /// What is computed.
    pub compute: Compute,
    /// The first turns considered (canonical moves), when the job file restricts them.
    pub openings: Option<Vec<Vec<u8>>>,
}

impl Item {
    /// The first turns the item's tasks cover, with the position each leaves.
    fn first_turns(&self) -> Vec<(Vec<u8>, Position)> {
        let all = first_turns(&self.rules, &self.position);
        match &self.openings {
            None => all,
            Some(chosen) => chosen.iter().filter_map(|moves| all.iter().find(|(m, _)| m == moves).cloned()).collect(),
        }
    }

    /// The question each of the item's tasks must answer.
    fn goal(&self) -> Goal {
        match self.compute {
            Compute::Value | Compute::Openings => Goal::Exact,
            Compute::AtLeast(n) => Goal::AtLeast(n),
            Compute::AtMost(n) => Goal::AtLeast(n + 1),
        }
    }
}

/// What a task must settle about its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The exact value.
    Exact,
    /// Whether the value is at least this.
    AtLeast(i32),
}

impl Goal {
    /// Whether `known` settles the question.
    pub fn answered(&self, known: &Interval) -> bool {
        match *self {
            Goal::Exact => known.exact().is_some(),
            Goal::AtLeast(n) => known.lower >= n || known.upper < n,
        }
    }
}

/// One unit of work: the value of one position for the item's first player.
#[derive(Clone, Debug)]
pub struct Task {
    /// Index of its item in [`Job::items`].
    pub item: usize,
    /// The first turn played before `position`, or `None` for the item's position itself.
    pub opening: Option<Vec<u8>>,
    /// The position searched.
    pub position: Position,
    /// What must be settled.
    pub goal: Goal,
    /// Names the task in logs: rules, position and opening, so that a proof serves every item
    /// and every job that asks the same.
    pub key: String,
    /// Seeds in the game: values lie within plus or minus this.
    pub total_seeds: u32,
}

impl Task {
    fn new(item: &Item, index: usize, opening: Option<Vec<u8>>, position: Position) -> Task {
        let moves = opening.as_ref().map_or(String::new(), |m| moves_text(m));
        Task {
            item: index,
            key: format!("{}|{}|{moves}", item.rules, item.position),
            opening,
            position,
            goal: item.goal(),
            total_seeds: item.position.total_seeds(),
        }
    }

    /// The task's value is `sign * (margin + board value)` of its position: the opponent moves
    /// after an opening.
    fn sign(&self) -> i32 {
        if self.opening.is_some() { -1 } else { 1 }
    }

    /// The task's value bounds from bounds on its position's board value.
    fn value_bounds(&self, lower: i32, upper: i32) -> Interval {
        let m = self.position.margin();
        let (a, b) = (self.sign() * (m + lower), self.sign() * (m + upper));
        let unknown = Interval::unknown(self.total_seeds);
        Interval { lower: a.min(b).max(unknown.lower), upper: a.max(b).min(unknown.upper) }
    }

    /// Board-value bounds of its position from the task's value bounds.
    fn board_bounds(&self, known: &Interval) -> (i32, i32) {
        let m = self.position.margin();
        let (a, b) = (self.sign() * known.lower - m, self.sign() * known.upper - m);
        (a.min(b), a.max(b))
    }

    /// "item 3, opening 2 6" for progress lines.
    pub fn describe(&self, job: &Job) -> String {
        let item = &job.items[self.item];
        let what = match &self.opening {
            Some(moves) => format!("opening {}", moves_text(moves)),
            None => "whole position".to_string(),
        };
        format!("item {} ({} {}, {}): {what}", item.number, item.start, item.rules, item.compute)
    }
}

fn moves_text(moves: &[u8]) -> String {
    moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
}

/// A job file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JobFile {
    name: Option<String>,
    rules: Option<String>,
    compute: Option<String>,
    #[serde(default, rename = "item")]
    items: Vec<ItemFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemFile {
    start: String,
    rules: Option<String>,
    compute: Option<String>,
    openings: Option<Vec<String>>,
}

/// A checked job: its name (which names its files) and its items.
#[derive(Clone, Debug)]
pub struct Job {
    /// Names the log and the result files.
    pub name: String,
    /// The items, in file order.
    pub items: Vec<Item>,
}

impl Job {
    /// Reads and checks a job file.
    pub fn load(path: &Path) -> Result<Job, JobError> {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        let stem = path.file_stem().map_or("job".into(), |s| s.to_string_lossy().into_owned());
        Job::parse(&stem, &text).map_err(|message| JobError::Invalid { path: path.to_path_buf(), message })
    }

    /// Checks a job file's text; `default_name` is used when it names none.
    pub fn parse(default_name: &str, text: &str) -> Result<Job, String> {
        let file: JobFile = toml::from_str(text).map_err(|err| err.to_string().trim_end().to_string())?;
        let name = file.name.unwrap_or_else(|| default_name.to_string());
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
            return Err(format!("job name '{name}' must be letters, digits, '-', '_' or '.' (it names files)"));
        }
        if file.items.is_empty() {
            return Err("the job has no [[item]]".to_string());
        }
        let mut items = Vec::new();
        for (i, raw) in file.items.into_iter().enumerate() {
            let number = i + 1;
            let at = |message: String| format!("item {number}: {message}");
            let rules_text = raw.rules.or(file.rules.clone()).unwrap_or_else(|| "standard".to_string());
            let rules: Rules = rules_text.parse().map_err(|err| at(format!("{err}")))?;
            let position = parse_start(&raw.start).map_err(|err| at(format!("start: {}", err.render(&raw.start))))?;
            if position.is_over(&rules) {
                return Err(at(format!("the game is already over at '{}'", raw.start)));
            }
            let compute_text = raw.compute.or(file.compute.clone()).unwrap_or_else(|| "value".to_string());
            let compute: Compute = compute_text.parse().map_err(at)?;
            let mut item =
                Item { number, rules, start: raw.start.trim().to_string(), position, compute, openings: None };
            if let Some(wanted) = raw.openings {
                if compute == Compute::Value {
                    return Err(at("'openings' needs compute = openings or a bound test".to_string()));
                }
                let legal: Vec<Vec<u8>> = item.first_turns().into_iter().map(|(m, _)| m).collect();
                let mut chosen = Vec::new();
                for text in wanted {
                    let moves: Option<Vec<u8>> = text.split_whitespace().map(|t| t.parse().ok()).collect();
                    match moves.filter(|m| legal.contains(m)) {
                        Some(moves) => chosen.push(moves),
                        None => {
                            let legal: Vec<String> = legal.iter().map(|m| moves_text(m)).collect();
                            return Err(at(format!(
                                "'{text}' is not a first turn here (they are: {})",
                                legal.join(", ")
                            )));
                        }
                    }
                }
                item.openings = Some(chosen);
            }
            items.push(item);
        }
        Ok(Job { name, items })
    }

    /// Every task of the job in a fixed order: item by item, openings in move order (or as the
    /// job file lists them).
    pub fn tasks(&self) -> Vec<Task> {
        let mut tasks = Vec::new();
        for (index, item) in self.items.iter().enumerate() {
            match item.compute {
                Compute::Value => tasks.push(Task::new(item, index, None, item.position)),
                _ => {
                    for (moves, after) in item.first_turns() {
                        tasks.push(Task::new(item, index, Some(moves), after));
                    }
                }
            }
        }
        tasks
    }
}

/// A deterministic share of a job's tasks: shard `index` of `count` takes every task whose
/// number (from 0, in [`Job::tasks`] order) leaves remainder `index - 1` when divided by `count`.
/// Dealing tasks round-robin spreads the openings of one big item over all shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// From 1.
    pub index: usize,
    /// How many shards there are.
    pub count: usize,
}

impl Shard {
    /// Whether task number `task` (from 0) is this shard's.
    pub fn takes(&self, task: usize) -> bool {
        task % self.count == self.index - 1
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `2/8`, with 1 <= I <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("'{text}' is not a shard I/N with 1 <= I <= N, e.g. 2/8");
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (index.trim().parse().map_err(|_| bad())?, count.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Where a job's files go: `DIR/NAME[.shard-I-of-N]` followed by `.tasks.jsonl` (the log),
/// `.csv` and `.jsonl` (the results).
pub fn file_stem(dir: &Path, name: &str, shard: Option<Shard>) -> PathBuf {
    match shard {
        Some(s) => dir.join(format!("{name}.shard-{}-of-{}", s.index, s.count)),
        None => dir.join(name),
    }
}

/// `stem` with `suffix` appended to its file name (`data/results/j` + `.csv`).
pub fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

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

/// Everything proven about one task, and what it cost.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// Its bounds.
    pub interval: Interval,
    /// Nodes spent in all runs.
    pub nodes: u64,
    /// Seconds spent in all runs.
    pub seconds: f64,
}

/// What the logs prove, by task key.
#[derive(Clone, Debug, Default)]
pub struct Proofs(HashMap<String, Known>);

impl Proofs {
    /// Adds one record; a record contradicting what is known is an error.
    pub fn add(&mut self, record: &Record) -> Result<(), JobError> {
        let claim = Interval { lower: record.lower, upper: record.upper };
        match self.0.get_mut(&record.task) {
            None => {
                self.0.insert(
                    record.task.clone(),
                    Known { interval: claim, nodes: record.nodes, seconds: record.seconds },
                );
            }
            Some(known) => {
                known.interval = known.interval.intersect(&claim).ok_or_else(|| JobError::Conflict {
                    task: record.task.clone(),
                    first: known.interval,
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
                    mine.interval = mine.interval.intersect(&theirs.interval).ok_or_else(|| JobError::Conflict {
                        task: task.clone(),
                        first: mine.interval,
                        second: theirs.interval,
                    })?;
                    mine.nodes = mine.nodes.max(theirs.nodes);
                    mine.seconds = mine.seconds.max(theirs.seconds);
                }
            }
        }
        Ok(())
    }

    /// What is known about `task` (nothing proven yet: the seeds' bounds).
    pub fn known(&self, task: &Task) -> Known {
        let unknown = Known { interval: Interval::unknown(task.total_seeds), nodes: 0, seconds: 0.0 };
        let Some(known) = self.0.get(&task.key) else { return unknown };
        Known { interval: known.interval.intersect(&unknown.interval).unwrap_or(known.interval), ..*known }
    }

    /// The records that reproduce these proofs, one per task, in key order.
    pub fn records(&self) -> Vec<Record> {
        let mut records: Vec<Record> = self
            .0
            .iter()
            .map(|(task, k)| Record {
                task: task.clone(),
                lower: k.interval.lower,
                upper: k.interval.upper,
                nodes: k.nodes,
                seconds: k.seconds,
            })
            .collect();
        records.sort_by(|a, b| a.task.cmp(&b.task));
        records
    }

    /// Adds every record of the log at `path` (a missing file adds nothing). A last line without
    /// its newline was cut short by a kill and is ignored.
    pub fn read_log(&mut self, path: &Path) -> Result<(), JobError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => return Err(JobError::Io { path: path.to_path_buf(), source }),
        };
        let complete = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
        for (i, line) in complete.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record: Record = serde_json::from_str(line).map_err(|err| JobError::CorruptLog {
                path: path.to_path_buf(),
                line: i + 1,
                message: err.to_string(),
            })?;
            self.add(&record)?;
        }
        Ok(())
    }
}

/// A job's log open for appending, with everything it proves.
pub struct Log {
    path: PathBuf,
    file: crate::jsonl::Appender,
    proofs: Proofs,
}

impl Log {
    /// Opens (or creates) the log at `path`, dropping a last line cut short by a kill so that
    /// new records start on a line of their own.
    pub fn open(path: &Path) -> Result<Log, JobError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        }
        let mut proofs = Proofs::default();
        proofs.read_log(path)?;
        let file = crate::jsonl::Appender::open(path).map_err(io_error(path))?;
        Ok(Log { path: path.to_path_buf(), file, proofs })
    }

    /// What the log proves.
    pub fn proofs(&self) -> &Proofs {
        &self.proofs
    }

    /// Appends `record` and waits until it is on disk.
    pub fn append(&mut self, record: &Record) -> Result<(), JobError> {
        self.proofs.add(record)?;
        self.file.append(record).map_err(io_error(&self.path))
    }
}

/// Settles `task` with `search`, starting from what `log` proves and appending every bound proven
/// on the way. `guess` starts MTD(f) (the value of a similar position helps; without one the
/// search estimates where to start). Returns what is
/// known at the end; a search error (a time limit) keeps the bounds already logged.
pub fn solve_task(search: &mut Search<'_>, task: &Task, log: &mut Log, guess: Option<i32>) -> Result<Known, JobError> {
    let known = log.proofs.known(task);
    if task.goal.answered(&known.interval) {
        return Ok(known);
    }
    let clock = Instant::now();
    let nodes_before = search.stats().nodes;
    match task.goal {
        Goal::Exact => {
            let mut last = (nodes_before, Instant::now());
            let mut failed = None;
            let board_guess = guess.map(|guess| task.board_bounds(&Interval { lower: guess, upper: guess }).0);
            let result = search.board_value_resuming(
                &task.position,
                task.board_bounds(&known.interval),
                board_guess,
                |lower, upper, nodes| {
                    let interval = task.value_bounds(lower, upper);
                    let record = record(task, interval, nodes - last.0, last.1.elapsed().as_secs_f64());
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
            let interval = task.value_bounds(value, value);
            if log.proofs.known(task).interval.exact() != Some(interval.lower) {
                // Settled without a zero-window test (the database or the end of the game).
                let nodes = search.stats().nodes - last.0;
                log.append(&record(task, interval, nodes, last.1.elapsed().as_secs_f64()))?;
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
    Ok(log.proofs.known(task))
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
pub fn table_tag(rules: &Rules, houses: usize) -> String {
    format!("{}|{houses}", rules.for_values())
}

/// As [`solve_task`], stopping every `checkpoints.every` to save the table, then going on from
/// the logged bounds and the table, until the task is settled or `deadline` passes
/// ([`SearchError::TimeUp`]).
pub fn solve_task_with_checkpoints(
    search: &mut Search<'_>,
    task: &Task,
    log: &mut Log,
    guess: Option<i32>,
    deadline: Option<Instant>,
    checkpoints: Option<&Checkpoints>,
) -> Result<Known, JobError> {
    loop {
        let next = checkpoints.map(|c| Instant::now() + c.every);
        let stop = match (deadline, next) {
            (Some(d), Some(n)) => Some(d.min(n)),
            (d, n) => d.or(n),
        };
        search.set_deadline(stop);
        match solve_task(search, task, log, guess) {
            Err(JobError::Search(SearchError::TimeUp { .. }))
                if checkpoints.is_some() && deadline.is_none_or(|d| Instant::now() < d) =>
            {
                let checkpoints = checkpoints.expect("checked above");
                search.table().save(&checkpoints.path, &table_tag(search.rules(), task.position.houses()))?;
            }
            done => return done,
        }
    }
}

fn record(task: &Task, interval: Interval, nodes: u64, seconds: f64) -> Record {
    Record { task: task.key.clone(), lower: interval.lower, upper: interval.upper, nodes, seconds }
}

/// One opening of an item's result.
#[derive(Clone, Debug, Serialize)]
pub struct OpeningResult {
    /// The first turn, canonical moves.
    #[serde(rename = "move")]
    pub moves: String,
    /// Its exact value for the first player, when proven.
    pub value: Option<i32>,
    /// Proven bounds on that value.
    pub lower: i32,
    /// Proven bounds on that value.
    pub upper: i32,
}

/// A finished item, as written to the result files.
#[derive(Clone, Debug, Serialize)]
pub struct ItemResult {
    /// The job's name.
    pub job: String,
    /// The item's number in the job file.
    pub item: usize,
    /// The rules, in the form that parses back.
    pub rules: String,
    /// The start as the job file gives it.
    pub start: String,
    /// The position.
    pub position: String,
    /// What was computed.
    pub compute: String,
    /// The exact value for the side to move, when computed.
    pub value: Option<i32>,
    /// Proven bounds on the value (of the listed openings, when the item restricts them).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
    /// The answer of a bound test.
    pub holds: Option<bool>,
    /// The first player's value under the pie rule (openings items).
    pub pie_value: Option<i32>,
    /// The openings reaching the value (openings items).
    pub best: Vec<String>,
    /// Every opening searched, with what is proven about it.
    pub openings: Vec<OpeningResult>,
    /// Nodes over all runs.
    pub nodes: u64,
    /// Seconds over all runs.
    pub seconds: f64,
}

/// The result of item `index` of `job` if `proofs` settle it.
pub fn item_result(job: &Job, index: usize, tasks: &[Task], proofs: &Proofs) -> Option<ItemResult> {
    let item = &job.items[index];
    let mine: Vec<(&Task, Known)> = tasks.iter().filter(|t| t.item == index).map(|t| (t, proofs.known(t))).collect();
    let total = item.position.total_seeds();
    let mut result = ItemResult {
        job: job.name.clone(),
        item: item.number,
        rules: item.rules.to_string(),
        start: item.start.clone(),
        position: item.position.to_string(),
        compute: item.compute.to_string(),
        value: None,
        lower: -(total as i32),
        upper: total as i32,
        holds: None,
        pie_value: None,
        best: Vec::new(),
        openings: Vec::new(),
        nodes: mine.iter().map(|(_, k)| k.nodes).sum(),
        seconds: mine.iter().map(|(_, k)| k.seconds).sum(),
    };
    for (task, known) in &mine {
        if let Some(moves) = &task.opening {
            result.openings.push(OpeningResult {
                moves: moves_text(moves),
                value: known.interval.exact(),
                lower: known.interval.lower,
                upper: known.interval.upper,
            });
        }
    }
    if item.compute == Compute::Value {
        let known = mine.first()?.1.interval;
        result.value = Some(known.exact()?);
        (result.lower, result.upper) = (known.lower, known.upper);
        return Some(result);
    }
    // The position's value is the best opening's.
    result.lower = mine.iter().map(|(_, k)| k.interval.lower).max()?;
    result.upper = mine.iter().map(|(_, k)| k.interval.upper).max()?;
    let holds = |n: i32| {
        if result.lower >= n {
            Some(true)
        } else if result.upper < n {
            Some(false)
        } else {
            None
        }
    };
    match item.compute {
        Compute::AtLeast(n) => result.holds = Some(holds(n)?),
        Compute::AtMost(n) => result.holds = Some(!holds(n + 1)?),
        Compute::Openings | Compute::Value => {
            let values: Option<Vec<i32>> = mine.iter().map(|(_, k)| k.interval.exact()).collect();
            let values = values?;
            let value = *values.iter().max()?;
            result.value = Some(value);
            result.pie_value = values.iter().map(|v| -v.abs()).max();
            result.best = result.openings.iter().filter(|o| o.value == Some(value)).map(|o| o.moves.clone()).collect();
        }
    }
    Some(result)
}

/// Whether the item's question is settled already, so that its other tasks can be skipped (a
/// bound test proven by one opening).
pub fn item_settled(job: &Job, index: usize, tasks: &[Task], proofs: &Proofs) -> bool {
    item_result(job, index, tasks, proofs).is_some()
}

/// Every item `proofs` settle, in job order.
pub fn results(job: &Job, tasks: &[Task], proofs: &Proofs) -> Vec<ItemResult> {
    (0..job.items.len()).filter_map(|i| item_result(job, i, tasks, proofs)).collect()
}

/// The CSV form of a result: openings as `move: value` pairs separated by `; `.
fn csv_row(result: &ItemResult, total: u32) -> Vec<String> {
    let opt = |v: Option<i32>| v.map_or(String::new(), |v| v.to_string());
    let openings: Vec<String> = result
        .openings
        .iter()
        .map(|o| format!("{}: {}", o.moves, Interval { lower: o.lower, upper: o.upper }.text(total)))
        .collect();
    vec![
        result.job.clone(),
        result.item.to_string(),
        result.rules.clone(),
        result.start.clone(),
        result.compute.clone(),
        opt(result.value),
        result.lower.to_string(),
        result.upper.to_string(),
        result.holds.map_or(String::new(), |h| h.to_string()),
        opt(result.pie_value),
        result.best.join("; "),
        openings.join("; "),
        result.nodes.to_string(),
        format!("{:.3}", result.seconds),
    ]
}

const CSV_HEADER: [&str; 14] = [
    "job",
    "item",
    "rules",
    "start",
    "compute",
    "value",
    "lower",
    "upper",
    "holds",
    "pie_value",
    "best",
    "openings",
    "nodes",
    "seconds",
];

/// Writes `bytes` to `path` whole or not at all ([`crate::atomic::write_bytes`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), JobError> {
    crate::atomic::write_bytes(path, bytes).map_err(io_error(path))
}

/// Writes the result files `STEM.csv` and `STEM.jsonl`, one row per settled item in job order.
pub fn write_results(stem: &Path, job: &Job, results: &[ItemResult]) -> Result<(), JobError> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(CSV_HEADER).expect("writing to memory");
    let mut jsonl = String::new();
    for result in results {
        let total = job.items[result.item - 1].position.total_seeds();
        csv.write_record(csv_row(result, total)).expect("writing to memory");
        jsonl += &serde_json::to_string(result).expect("a result serialises");
        jsonl.push('\n');
    }
    let csv = csv.into_inner().expect("writing to memory");
    write_atomically(&with_suffix(stem, ".csv"), &csv)?;
    write_atomically(&with_suffix(stem, ".jsonl"), jsonl.as_bytes())
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
    }

    #[test]
    fn shards_deal_every_task_to_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=3).map(|i| format!("{i}/3").parse().unwrap()).collect();
        for task in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.takes(task)).count(), 1);
        }
        for bad in ["0/3", "4/3", "1", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
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
        assert_eq!(job.items[1].openings, Some(vec![vec![4], vec![2, 4]]));
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
            ("[[item]]\nstart = \"3x3\"\nseeds = 4\n", "unknown field"),
            ("name = \"a/b\"\n[[item]]\nstart = \"3x3\"\n", "job name 'a/b'"),
            ("", "no [[item]]"),
        ] {
            let err = Job::parse("j", text).unwrap_err();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_log_cut_short_by_a_kill_loses_only_its_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.tasks.jsonl");
        let record = |task: &str, lower, upper| Record { task: task.into(), lower, upper, nodes: 5, seconds: 0.5 };
        let mut log = Log::open(&path).unwrap();
        log.append(&record("a", -3, 4)).unwrap();
        log.append(&record("a", 2, 9)).unwrap();
        drop(log);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text += "{\"task\":\"b\",\"low";
        std::fs::write(&path, &text).unwrap();
        let mut log = Log::open(&path).unwrap();
        log.append(&record("b", 1, 1)).unwrap();
        let mut proofs = Proofs::default();
        proofs.read_log(&path).unwrap();
        assert_eq!(proofs.0["a"].interval, Interval { lower: 2, upper: 4 });
        assert_eq!(proofs.0["a"].nodes, 10);
        assert_eq!(proofs.0["b"].interval, Interval { lower: 1, upper: 1 });

        log.append(&record("b", 3, 3)).unwrap_err();
        std::fs::write(&path, "not json\n").unwrap();
        assert!(matches!(Proofs::default().read_log(&path), Err(JobError::CorruptLog { line: 1, .. })));
    }
}
