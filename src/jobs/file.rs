//! Job files: the items of a job, what each computes, and the tasks they split into.

use std::path::Path;
use std::str::FromStr;

use serde::Deserialize;

use super::{Bounds, JobError, io_error};
use crate::board::Position;
use crate::claim::{Bound, Claim};
use crate::moves::{Turn, first_turns};
use crate::notation::parse_start;
use crate::rules::Rules;

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
        // The one claim parser, with its one limit (the seeds in play).
        let claim: Claim = rest.parse().map_err(|err: String| if err.contains("beyond") { err } else { bad() })?;
        Ok(match claim.bound {
            Bound::AtLeast => Compute::AtLeast(claim.value),
            Bound::AtMost => Compute::AtMost(claim.value),
        })
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
    pub openings: Option<Vec<Turn>>,
}

impl Item {
    /// The first turns the item's tasks cover, with the position each leaves.
    fn first_turns(&self) -> Vec<(Turn, Position)> {
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
    pub fn answered(&self, known: &Bounds) -> bool {
        match *self {
            Goal::Exact => known.value().is_some(),
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
    pub opening: Option<Turn>,
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
    fn new(item: &Item, index: usize, opening: Option<Turn>, position: Position) -> Task {
        let moves = opening.as_ref().map_or(String::new(), Turn::to_string);
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
    pub(super) fn sign(&self) -> i32 {
        if self.opening.is_some() { -1 } else { 1 }
    }

    /// The task's value bounds from bounds on its position's board value.
    pub(super) fn value_bounds(&self, lower: i32, upper: i32) -> Bounds {
        let m = self.position.margin();
        let (a, b) = (self.sign() * (m + lower), self.sign() * (m + upper));
        let unknown = Bounds::unknown(self.total_seeds);
        Bounds { lower: a.min(b).max(unknown.lower), upper: a.max(b).min(unknown.upper) }
    }

    /// Board-value bounds of its position from the task's value bounds.
    pub(super) fn board_bounds(&self, known: &Bounds) -> (i32, i32) {
        let m = self.position.margin();
        let (a, b) = (self.sign() * known.lower - m, self.sign() * known.upper - m);
        (a.min(b), a.max(b))
    }

    /// "item 3, opening 2 6" for progress lines.
    pub(crate) fn describe(&self, job: &Job) -> String {
        let item = &job.items[self.item];
        let what = match &self.opening {
            Some(moves) => format!("opening {moves}"),
            None => "whole position".to_string(),
        };
        format!("item {} ({} {}, {}): {what}", item.number, item.start, item.rules, item.compute)
    }
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
        let text = crate::input::read_text(path, crate::input::SMALL_FILE_BYTES).map_err(io_error(path))?;
        let stem = path.file_stem().map_or("job".into(), |s| s.to_string_lossy().into_owned());
        Job::parse(&stem, &text).map_err(|message| JobError::Invalid { path: path.to_path_buf(), message })
    }

    /// Checks a job file's text; `default_name` is used when it names none.
    pub fn parse(default_name: &str, text: &str) -> Result<Job, String> {
        let file: JobFile = toml::from_str(text).map_err(|err| err.to_string().trim_end().to_string())?;
        let name = file.name.unwrap_or_else(|| default_name.to_string());
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            || name.starts_with('.')
        {
            return Err(format!(
                "job name '{name}' must be letters, digits, '-', '_' or '.', not starting with '.' (it names files)"
            ));
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
                if wanted.is_empty() {
                    return Err(at("'openings' is empty: name at least one first turn, or leave it out".to_string()));
                }
                let legal: Vec<Turn> = item.first_turns().into_iter().map(|(m, _)| m).collect();
                let mut chosen: Vec<Turn> = Vec::new();
                for text in wanted {
                    let moves = text.parse::<Turn>().ok();
                    match moves.filter(|m| legal.contains(m)) {
                        Some(moves) if chosen.contains(&moves) => {
                            return Err(at(format!("'{text}' is named twice in 'openings'")));
                        }
                        Some(moves) => chosen.push(moves),
                        None => {
                            let legal: Vec<String> = legal.iter().map(Turn::to_string).collect();
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
