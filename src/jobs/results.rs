//! A job's results: each item's value, openings and pie-rule value assembled from the proofs in
//! the log, written as the result files of [`crate::results`].

use std::path::Path;

use super::{Compute, Job, JobError, Proofs, Task, TaskProven, io_error};
use crate::answer::{Opening, Proven, signed};
use crate::results::ItemResult;

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
            result.openings.push(Opening::new(moves.clone(), Proven::unproven(known.bounds)));
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
            result.best =
                result.openings.iter().filter(|o| o.value() == Some(value)).map(|o| o.turn.to_string()).collect();
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
    let rules_width = results.iter().map(|r| r.rules.len()).max().unwrap_or(0);
    for result in results {
        let item = &job.items[result.item - 1];
        let answer = match (item.compute, result.holds, result.value) {
            (Compute::AtLeast(_) | Compute::AtMost(_), Some(holds), _) => {
                let bounds = crate::answer::Bounds { lower: result.lower, upper: result.upper };
                format!(
                    "{} (value {})",
                    if holds { "holds" } else { "fails" },
                    bounds.text(item.position.total_seeds())
                )
            }
            (_, _, Some(value)) => signed(value),
            _ => "?".to_string(),
        };
        text += &format!(
            "  item {:>3}  {:<rules_width$} {:<6} {:<12} {answer}",
            result.item, result.rules, result.start, result.compute
        );
        let summary = result.openings_summary(", ").filter(|_| !all);
        if let Some(pie) = result.pie_value {
            let best = summary.as_ref().map_or_else(|| result.best.join(", "), |(best, _)| best.clone());
            text += &format!("  best {best}; pie rule {}", signed(pie));
        }
        text += &format!("  ({} nodes, {:.1} s)\n", result.nodes, result.seconds);
        if item.compute == Compute::Openings {
            let openings = match summary {
                Some((_, summary)) => format!("{summary} (--all lists every one, --json and the .jsonl file too)"),
                None => {
                    let openings: Vec<String> = result
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
