//! How a proof grew: its records replayed in log order and summed per hour of task time (the
//! seconds its tasks logged, whatever the machine or the hour they ran), with the frontier
//! after each hour. Logs are replayed one after another, so with shards an hour mixes the
//! shards' work in the order of their logs, not of the clock.

use serde::Serialize;

use super::log::Record;
use super::{ProofError, Spec, Tree};

/// One hour of task time (the last one may be shorter).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HourOfWork {
    /// Task time from the proof's start to the end of this hour, in hours.
    pub task_hours: f64,
    /// Records of this hour: nodes settled by a search or the database, and expanded.
    pub settled: usize,
    /// See `settled`.
    pub expanded: usize,
    /// Nodes searched in this hour.
    pub nodes: u64,
    /// Nodes a second of task time in this hour.
    pub nodes_per_second: f64,
    /// Open leaves whose answer still matters, after this hour.
    pub open_leaves: usize,
    /// The root's proof and disproof numbers after this hour.
    pub proof_number: u64,
    /// See `proof_number`.
    pub disproof_number: u64,
}

/// The growth of the proof of `spec` whose logs hold `records` (in log order), hour by hour of
/// task time; empty without records.
pub fn progress(spec: &Spec, records: &[Record]) -> Result<Vec<HourOfWork>, ProofError> {
    const HOUR: f64 = 3600.0;
    let mut tree = Tree::new(spec.clone());
    let mut hours = Vec::new();
    let mut hour = HourOfWork {
        task_hours: 0.0,
        settled: 0,
        expanded: 0,
        nodes: 0,
        nodes_per_second: 0.0,
        open_leaves: 0,
        proof_number: 0,
        disproof_number: 0,
    };
    let (mut elapsed, mut hour_seconds) = (0.0, 0.0);
    let close = |hour: &mut HourOfWork, tree: &Tree, elapsed: f64, seconds: f64| {
        let status = tree.status(0);
        hour.task_hours = elapsed / HOUR;
        hour.nodes_per_second = if seconds > 0.0 { hour.nodes as f64 / seconds } else { 0.0 };
        (hour.open_leaves, hour.proof_number, hour.disproof_number) =
            (status.open_leaves, status.proof_number, status.disproof_number);
    };
    for (index, record) in records.iter().enumerate() {
        let (nodes, seconds) = record.cost();
        match record {
            Record::Settled(_) => hour.settled += 1,
            Record::Expanded(_) => hour.expanded += 1,
        }
        hour.nodes += nodes;
        elapsed += seconds;
        hour_seconds += seconds;
        tree.add(record.clone())?;
        let hour_over = (elapsed / HOUR).floor() > ((elapsed - hour_seconds) / HOUR).floor();
        if hour_over || index + 1 == records.len() {
            close(&mut hour, &tree, elapsed, hour_seconds);
            let next = HourOfWork { settled: 0, expanded: 0, nodes: 0, ..hour.clone() };
            hours.push(std::mem::replace(&mut hour, next));
            hour_seconds = 0.0;
        }
    }
    Ok(hours)
}
