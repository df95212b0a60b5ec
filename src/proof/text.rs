//! The text forms of a proof's state, as `kalah proof` prints them: its status, its growth hour
//! by hour, and a run's line after each task.

use std::path::Path;

use super::HourOfWork;
use super::openings::DriveReport;
use super::run::{RunReport, TaskOutcome, TaskReport};
use super::tree::{INFINITE, Status, Tree};
use crate::board::Position;
use crate::moves::Turn;
use crate::notation::describe_start;
use crate::rules::Rules;

/// The proof's growth by hour of task time (`kalah proof status`), a line an hour.
pub fn progress_text(progress: &[HourOfWork]) -> String {
    if progress.is_empty() {
        return String::new();
    }
    let mut text =
        "growth by hour of task time:\n  hours  settled  expanded  nodes/s   open leaves  root pn/dn\n".to_string();
    for hour in progress {
        text += &format!(
            "  {:>5.2}  {:>7}  {:>8}  {:>6.2} M  {:>11}  {}/{}\n",
            hour.task_hours,
            hour.settled,
            hour.expanded,
            hour.nodes_per_second / 1e6,
            hour.open_leaves,
            number(hour.proof_number),
            number(hour.disproof_number)
        );
    }
    text
}

impl TaskReport {
    /// One line of a run's progress, after each task `seconds` into the run: what it did and where
    /// the proof (`tree`) stands.
    pub fn line(&self, seconds: f64, tree: &Tree) -> String {
        let what = match self.outcome {
            TaskOutcome::Settled { holds: true } => "holds".to_string(),
            TaskOutcome::Settled { holds: false } => "fails".to_string(),
            TaskOutcome::Expanded { children } => format!("expanded into {children}"),
        };
        let status = tree.status(0);
        format!(
            "[{:>7.0} s] {} ({} seeds): {what} ({} nodes, {:.1} s); root pn {} dn {}, {} open leaves",
            seconds,
            self.position,
            self.seeds,
            self.nodes,
            self.seconds,
            number(status.proof_number),
            number(status.disproof_number),
            status.open_leaves,
        )
    }
}

/// A proof or disproof number: "inf" for a node settled the other way.
fn number(n: u64) -> String {
    if n >= INFINITE { "inf".to_string() } else { n.to_string() }
}

impl RunReport {
    /// One line: the tasks, the nodes and their rate, why the run stopped, and its log.
    pub fn text(&self) -> String {
        format!(
            "{} tasks ({} settled, {} expanded), {} nodes in {:.1} s ({:.2} M nodes/s); stopped: {:?}; log {}\n",
            self.tasks,
            self.settled,
            self.expanded,
            self.nodes,
            self.seconds,
            self.nodes as f64 / self.seconds.max(1e-9) / 1e6,
            self.stop,
            self.log.display()
        )
    }
}

/// What the logs decide of the claim, in words.
pub fn proven_text(proven: Option<bool>) -> &'static str {
    match proven {
        Some(true) => "proven by the logs (confirm with kalah proof check)",
        Some(false) => "refuted",
        None => "open",
    }
}

impl Status {
    /// `kalah proof status`'s report: the claim, the leaves, the nodes, the expansions' share, the
    /// first turns and the largest open leaves.
    pub fn text(&self) -> String {
        let mut text = format!(
            "claim: {} at {} ({} rules): {}\n\
         leaves: {} proven, {} refuted, {} open; {} expanded; {} nodes, {:.0} s; root pn {} dn {}\n",
            self.claim,
            self.root,
            self.rules,
            proven_text(self.proven),
            self.proven_leaves,
            self.refuted_leaves,
            self.open_leaves,
            self.expanded,
            self.nodes,
            self.seconds,
            number(self.proof_number),
            number(self.disproof_number),
        );
        if self.expanded > 0 {
            let percent = |part: u64| 100.0 * part as f64 / self.nodes.max(1) as f64;
            text += &format!(
                "expansions (tasks out of budget, children's estimates): {} nodes ({:.0}% of all); {} of the {} \
             expanded nodes, {} nodes ({:.0}%), have nothing searched below them\n",
                self.expanded_nodes,
                percent(self.expanded_nodes),
                self.expanded_unused,
                self.expanded,
                self.expanded_unused_nodes,
                percent(self.expanded_unused_nodes),
            );
        }
        if let Some(deciding) = self.deciding_nodes {
            text += &format!(
                "the cheapest logged subtree that decides it: {} nodes ({:.0}% of all); the rest went to turns it \
             does not take\n",
                deciding,
                100.0 * deciding as f64 / self.nodes.max(1) as f64,
            );
        }
        for child in &self.first_level {
            text += &format!(
                "  turn {:<12} {:?} (pn {}, dn {})\n",
                child.turn,
                child.status,
                number(child.proof_number),
                number(child.disproof_number)
            );
        }
        if !self.largest_open.is_empty() {
            text += "largest open leaves:\n";
            for leaf in &self.largest_open {
                text += &format!(
                    "  {} ({} seeds, pn {}, dn {})\n",
                    leaf.position,
                    leaf.seeds,
                    number(leaf.proof_number),
                    number(leaf.disproof_number)
                );
            }
        }
        text
    }
}

impl DriveReport {
    /// What `kalah proof openings` says after a drive of `start` under `rules` (of the first
    /// turns `chosen`, or every one where none is) whose map was written to `stem`: the start's
    /// bounds and each turn's, then whether every turn asked for is exact.
    pub fn text(&self, start: &Position, rules: &Rules, chosen: &[Turn], stem: &Path) -> String {
        let (map, total) = (&self.map, start.total_seeds());
        let bounds = map.table.known.bounds;
        let mut text = format!(
            "{} ({rules} rules): {}; {} tests started, {} checked this run\n",
            describe_start(start),
            bounds.text(total),
            self.tests,
            self.checks
        );
        for opening in &map.table.openings {
            text += &format!("  turn {:<8} {}\n", opening.turn.to_string(), opening.bounds().text(total));
        }
        let asked = |turn: &Turn| chosen.is_empty() || chosen.contains(turn);
        let open = map.table.openings.iter().filter(|o| o.value().is_none() && asked(&o.turn)).count();
        let (every, some) = match chosen.is_empty() {
            true => ("every first turn", "first turns"),
            false => ("every first turn asked for", "of the first turns asked for"),
        };
        text + &match open {
            0 => format!("{every} exact; written: {}.jsonl and .csv\n", stem.display()),
            n => format!("{n} {some} not yet exact (run again to go on); written: {}.jsonl and .csv\n", stem.display()),
        }
    }
}
