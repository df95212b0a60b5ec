//! A job's results: each item's value, openings and pie-rule value assembled from the proofs in
//! the log, and the result files (CSV and JSON lines) written from them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Bounds, Compute, Job, JobError, Proofs, Task, TaskProven, io_error, with_suffix};
use crate::answer::{OPENINGS_LISTED, first_few, openings_by_value_text};

/// One opening of an item's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OpeningResult {
    /// The first turn, canonical moves.
    #[serde(rename = "move")]
    pub moves: String,
    /// Its exact value for the first player, when proven.
    pub value: Option<i32>,
    /// A proven lower bound on that value.
    pub lower: i32,
    /// A proven upper bound on that value.
    pub upper: i32,
    /// The proof directories `lower` rests on, where proofs give it (`kalah proof map`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lower_proofs: Vec<String>,
    /// The proof directories `upper` rests on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upper_proofs: Vec<String>,
}

/// A finished item, as written to the result files.
#[derive(Clone, Debug, Serialize, Deserialize)]
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
    /// The proof directories `lower` rests on, where proofs give it (`kalah proof map`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lower_proofs: Vec<String>,
    /// The proof directories `upper` rests on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upper_proofs: Vec<String>,
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
pub(crate) fn item_result(job: &Job, index: usize, tasks: &[Task], proofs: &Proofs) -> Option<ItemResult> {
    let item = &job.items[index];
    let mine: Vec<(&Task, TaskProven)> =
        tasks.iter().filter(|t| t.item == index).map(|t| (t, proofs.known(t))).collect();
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
        lower_proofs: Vec::new(),
        upper_proofs: Vec::new(),
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
                moves: moves.to_string(),
                value: known.bounds.value(),
                lower: known.bounds.lower,
                upper: known.bounds.upper,
                lower_proofs: Vec::new(),
                upper_proofs: Vec::new(),
            });
        }
    }
    if item.compute == Compute::Value {
        let known = mine.first()?.1.bounds;
        result.value = Some(known.value()?);
        (result.lower, result.upper) = (known.lower, known.upper);
        return Some(result);
    }
    // The position's value is the best opening's.
    result.lower = mine.iter().map(|(_, k)| k.bounds.lower).max()?;
    result.upper = mine.iter().map(|(_, k)| k.bounds.upper).max()?;
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
            let values: Option<Vec<i32>> = mine.iter().map(|(_, k)| k.bounds.value()).collect();
            let values = values?;
            let value = *values.iter().max()?;
            result.value = Some(value);
            result.pie_value = crate::answer::pie_value_at(&item.position, values.iter().copied());
            result.best = result.openings.iter().filter(|o| o.value == Some(value)).map(|o| o.moves.clone()).collect();
        }
    }
    Some(result)
}

/// Whether the item's question is settled already, so that its other tasks can be skipped (a
/// bound test proven by one opening).
pub(crate) fn item_settled(job: &Job, index: usize, tasks: &[Task], proofs: &Proofs) -> bool {
    item_result(job, index, tasks, proofs).is_some()
}

/// Every item `proofs` settle, in job order.
pub fn results(job: &Job, tasks: &[Task], proofs: &Proofs) -> Vec<ItemResult> {
    (0..job.items.len()).filter_map(|i| item_result(job, i, tasks, proofs)).collect()
}

impl ItemResult {
    /// Beyond [`OPENINGS_LISTED`] openings (relay and go-again sowing make thousands), what they
    /// come to, for text and CSV: the first few best openings, and the count of openings by
    /// value with its parts joined by `separator`. `None` when the openings are few enough to
    /// list.
    pub fn openings_summary(&self, separator: &str) -> Option<(String, String)> {
        if self.openings.len() <= OPENINGS_LISTED {
            return None;
        }
        let exact = self.openings.iter().filter_map(|o| o.value);
        let unsettled = self.openings.iter().filter(|o| o.value.is_none()).count();
        let mut summary =
            format!("{} openings by value: {}", self.openings.len(), openings_by_value_text(exact, separator));
        if unsettled > 0 {
            summary += &format!("{separator}{unsettled} not settled");
        }
        Some((first_few(&self.best, 5), summary))
    }
}

/// The CSV form of a result: openings as `move: value` pairs separated by `; `, or, beyond
/// [`OPENINGS_LISTED`] of them, their count by value (the JSON lines list every one).
fn csv_row(result: &ItemResult, total: u32) -> Vec<String> {
    let opt = |v: Option<i32>| v.map_or(String::new(), |v| v.to_string());
    let (openings, best) = match result.openings_summary("; ") {
        Some((best, summary)) => (summary, best),
        None => {
            let openings: Vec<String> = result
                .openings
                .iter()
                .map(|o| format!("{}: {}", o.moves, Bounds { lower: o.lower, upper: o.upper }.text(total)))
                .collect();
            (openings.join("; "), result.best.join("; "))
        }
    };
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
        best,
        openings,
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
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), JobError> {
    crate::atomic::write_bytes(path, bytes).map_err(io_error(path))
}

/// Writes the result files `STEM.csv` and `STEM.jsonl`, one row per settled item in job order.
pub(crate) fn write_results(stem: &Path, job: &Job, results: &[ItemResult]) -> Result<(), JobError> {
    write_result_files(stem, results, |result| job.items[result.item - 1].position.total_seeds())
}

/// Writes `results` as the result files `STEM.csv` and `STEM.jsonl`, in order; `total_seeds`
/// gives each result's game's seeds (what an unproven bound is).
pub(crate) fn write_result_files(
    stem: &Path,
    results: &[ItemResult],
    total_seeds: impl Fn(&ItemResult) -> u32,
) -> Result<(), JobError> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(CSV_HEADER).expect("writing to memory");
    let mut jsonl = String::new();
    for result in results {
        let total = total_seeds(result);
        csv.write_record(csv_row(result, total)).expect("writing to memory");
        jsonl += &serde_json::to_string(result).expect("a result serialises");
        jsonl.push('\n');
    }
    let csv = csv.into_inner().expect("writing to memory");
    write_atomically(&with_suffix(stem, ".csv"), &csv)?;
    write_atomically(&with_suffix(stem, ".jsonl"), jsonl.as_bytes())
}
