//! A job's results: each item's value, openings and pie-rule value assembled from the proofs in
//! the log, written as the result files of [`crate::results`].

use std::path::Path;

use super::{Compute, Job, JobError, Proofs, Task, TaskProven, io_error};
use crate::answer::{Bounds, Opening, OpeningsTable, Proven, Source, signed};
use crate::moves::Turn;
use crate::results::ItemResult;

/// The result of item `index` of `job` if `proofs` settle it: an openings item's table as a
/// search's solve gives it (under the pie rule its value is the pie value).
pub(crate) fn item_result(job: &Job, index: usize, tasks: &[Task], proofs: &Proofs) -> Option<ItemResult> {
    let item = &job.items[index];
    let mine: Vec<(&Task, TaskProven)> =
        tasks.iter().filter(|t| t.item == index).map(|t| (t, proofs.known(t))).collect();
    let openings: Vec<(Turn, Bounds)> =
        mine.iter().filter_map(|(task, known)| Some((task.opening.clone()?, known.bounds))).collect();
    // The position's value is the best opening's (an item's one task's, when it asks the value).
    let bounds = match item.compute {
        Compute::Value => mine.first().map(|(_, known)| known.bounds).filter(|b| b.value().is_some())?,
        _ => Bounds {
            lower: mine.iter().map(|(_, k)| k.bounds.lower).max()?,
            upper: mine.iter().map(|(_, k)| k.bounds.upper).max()?,
        },
    };
    // Whether the value is at least `n`, once the bounds settle it.
    let at_least = |n: i32| match (bounds.lower >= n, bounds.upper < n) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    let holds = match item.compute {
        Compute::AtLeast(n) => Some(at_least(n)?),
        Compute::AtMost(n) => Some(!at_least(n + 1)?),
        Compute::Openings | Compute::Value => None,
    };
    let table = match item.compute {
        Compute::Openings => {
            let exact: Option<Vec<(Turn, i32)>> = openings.into_iter().map(|(t, b)| Some((t, b.value()?))).collect();
            OpeningsTable::solved(&item.rules, &item.position, exact?)
        }
        Compute::Value | Compute::AtLeast(_) | Compute::AtMost(_) => {
            let openings = openings.into_iter().map(|(turn, b)| Opening::new(turn, Proven::unproven(b))).collect();
            OpeningsTable::new(&item.rules, &item.position, Proven::unproven(bounds), openings, Source::Search)
        }
    };
    Some(ItemResult {
        job: job.name.clone(),
        item: item.number,
        start: item.start.clone(),
        compute: item.compute.to_string(),
        table,
        holds,
        nodes: mine.iter().map(|(_, k)| k.nodes).sum(),
        seconds: mine.iter().map(|(_, k)| k.seconds).sum(),
    })
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

/// Writes `bytes` to `path` whole or not at all ([`crate::atomic::write_bytes`]).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), JobError> {
    crate::atomic::write_bytes(path, bytes).map_err(io_error(path))
}

/// Writes the result files `STEM.csv` and `STEM.jsonl`, one row per settled item in job order.
pub(crate) fn write_results(stem: &Path, job: &Job, results: &[ItemResult]) -> Result<(), JobError> {
    crate::results::write_result_files(stem, results, |result| job.items[result.item - 1].position.total_seeds())
        .map_err(|err| JobError::Io { path: err.path, source: err.source })
}

/// One line per settled item, its openings below it: listed, or beyond 20 of them (unless
/// `all`) summarised as in the CSV, with every one in the JSON lines file.
pub fn results_text(job: &Job, results: &[ItemResult], all: bool) -> String {
    let settled = format!("{} of {} items settled", results.len(), job.items.len());
    let mut text = format!("{settled}\n");
    let rules_width = results.iter().map(|r| r.table.rules.len()).max().unwrap_or(0);
    for result in results {
        let item = &job.items[result.item - 1];
        let table = &result.table;
        let answer = match (item.compute, result.holds, table.value()) {
            (Compute::AtLeast(_) | Compute::AtMost(_), Some(holds), _) => format!(
                "{} (value {})",
                if holds { "holds" } else { "fails" },
                table.known.bounds.text(item.position.total_seeds())
            ),
            (_, _, Some(value)) => signed(value),
            _ => "?".to_string(),
        };
        text += &format!(
            "  item {:>3}  {:<rules_width$} {:<6} {:<12} {answer}",
            result.item, table.rules, result.start, result.compute
        );
        let summary = result.openings_summary(", ").filter(|_| !all);
        if let Some(pie) = table.pie_value {
            let best = summary.as_ref().map_or_else(|| table.best.join(", "), |(best, _)| best.clone());
            text += &format!("  best {best}; pie rule {}", signed(pie));
        }
        text += &format!("  ({} nodes, {:.1} s)\n", result.nodes, result.seconds);
        if item.compute == Compute::Openings {
            let openings = match summary {
                Some((_, summary)) => format!("{summary} (--all lists every one, --json and the .jsonl file too)"),
                None => {
                    let openings: Vec<String> = table
                        .openings
                        .iter()
                        .map(|o| format!("{} {}", o.turn, o.value().map_or("?".into(), signed)))
                        .collect();
                    openings.join(", ")
                }
            };
            text += &format!("      openings: {openings}\n");
        }
    }
    text
}
