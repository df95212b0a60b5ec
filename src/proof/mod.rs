//! Proofs of a bound on a game value that grow across runs, shards and machines.
//!
//! A *claim* is "the side to move at the root has value >= t" (or <= t) under a rule set. Its
//! *prover* is the side the claim speaks for: the root's mover for `>= t`, the other side for
//! `<= t` (which says the other side holds the mover to t). The proof is an AND/OR tree over
//! whole turns (an extra-turn chain is one turn, as [`first_turns`] lists them): where the
//! prover moves, one child must be proven (OR); where the other side moves, every child (AND).
//! Every node asks the same question of its mover: "value >= T" where the prover moves, "value
//! <= -T" where the other side does, T being the claim's bound for the prover.
//!
//! Each frontier leaf is a *task*: one zero-window search of its position with a node budget.
//! A task that settles its node is logged as settled; one that runs out of budget is expanded
//! one turn deeper, and the expansion is logged with its children and their cheap estimates.
//! Game ends, the seeds' bounds and the database settle nodes without a search, and so do the
//! bounds a failed task proved on the way (its transposition table keeps whole keys, so its
//! bounds are proofs): at an expansion every child they decide is logged as settled, and a leaf
//! is looked up there before its task starts. Positions are the tree's nodes, so a position
//! reached twice is one node and one task (the tree is a DAG: without clockwise sowing no
//! position repeats on a line).
//!
//! **What to work on next** is chosen by proof and disproof numbers (Allis), as the checkers
//! proof's manager did: a settled node counts 0 or infinity, an OR node takes the least proof
//! number of its children and the sum of their disproof numbers, an AND node the other way
//! round, and the next task is the *most-proving* leaf reached by following, from the root, the
//! child with the least proof number at OR nodes and the least disproof number at AND nodes. A
//! fresh leaf starts from the estimate its parent logged for it: the further the estimate lies
//! on the wrong side of T, the larger the number that must be worn down to prove it, so a
//! refuted child of an OR node is replaced by the sibling the estimates rank next, and at an
//! AND node the reply most likely to refute is tried first. Proof numbers aim at the smallest
//! proof without a hand-tuned order of expansion, and they need nothing but the tree the log
//! rebuilds, so every machine that reads the log agrees on what is left.
//!
//! A task that runs out of budget is the costliest thing a run does, so a leaf with more seeds
//! than nine in ten of the nodes a search has settled, in this proof and in the proofs beside
//! it with the same rules and task budget, is expanded without a task
//! (`Tree::too_big_for_a_task`), a leaf whose estimate says every one of its moves will have to
//! be settled gets an eighth of the budget, as a failed task there loses only its own nodes
//! (`Tree::every_move_likely_needed`: where the prover moves, an estimate that clears the bound
//! by a few seeds counts as failing, as the estimates run high for the prover; the root's task
//! estimates the root first), and a leaf
//! one of whose siblings ran out of a budget gets a quarter of one (`Tree::sibling_failed`);
//! what these and the rules weighed beside them cost is in `docs/performance-history.md`
//! ("Proof manager" and after).
//!
//! A run may also follow a *template*, the decided tree of the same claim under other rules
//! whose turns mostly agree ([`template`]): its inner nodes are expanded without a task, and the
//! next task goes down its children first. It chooses work only; the proof settles every node.
//!
//! On disk a proof is a directory: `proof.toml` (rules, root, claim, default task budget) and
//! append-only logs of JSON lines, synced after each line ([`log`]): `log.jsonl` for a whole run,
//! `log.shard-I-of-N.jsonl` for one shard's. The tree is rebuilt from the logs alone, so a
//! killed run loses at most its task in flight. Runs side by side share the work through the
//! same directory: each notes its task beside its log ([`log::TaskNote`]) and takes the
//! most-proving leaf no other note names, so N shards work the N most-proving leaves without a
//! manager (fixed shares by a hash of the leaf cost far more: `docs/performance-history.md`).
//! [`check`](mod@check) confirms a proof independently: it walks the logged tree with the rules
//! engine and re-searches a sample of its leaves.

pub mod check;
pub mod log;
pub mod map;
pub mod openings;
pub mod progress;
pub mod proven;
pub mod run;
pub mod shared;
pub mod template;
mod text;
pub mod tree;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::board::{Position, Side};
use crate::notation::parse_start;
use crate::rules::Rules;
use crate::search::SearchError;

pub use crate::claim::{Bound, Claim};
pub use check::{CheckReport, LeafSearch, Resample, Verdict, check};
pub use log::{Expansion, Record, Settled, SettledBy};
pub use progress::{HourOfWork, progress};
pub use run::{RunOptions, RunReport, TaskOutcome, TaskReport, read_proof, work};
pub use text::{progress_text, proven_text};
pub use tree::{NodeStatus, Status, Tree};

#[cfg(doc)]
use crate::moves::first_turns;

/// The task budget a new proof gets when none is named: about three minutes of a Kalah(6,6)
/// task on two cores.
pub const DEFAULT_TASK_NODES: u64 = 300_000_000;

/// What keeps a proof from being read, run or checked.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// `proof.toml` is not a valid proof description.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A line of a log is damaged (other than a last line cut short by a kill, which is dropped).
    #[error(transparent)]
    CorruptLog(#[from] crate::jsonl::CorruptLine),
    /// Two records say opposite things of one node.
    #[error("conflicting records for {position}: {message}")]
    Conflict {
        /// The node's position.
        position: String,
        /// What disagrees.
        message: String,
    },
    /// Another run is writing the same log.
    #[error(transparent)]
    Locked(#[from] crate::lock::LockError),
    /// The search failed (other than by running out of its budget or time).
    #[error(transparent)]
    Search(#[from] SearchError),
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ProofError + '_ {
    move |source| ProofError::Io { path: path.to_path_buf(), source }
}

/// `proof.toml` as written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    rules: String,
    root: String,
    claim: String,
    task_nodes: Option<u64>,
}

/// What a proof proves: the claim at the root under the rules, and the default task budget.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The rule set.
    pub rules: Rules,
    /// The root position.
    pub root: Position,
    /// The claim on the root's value for its side to move.
    pub claim: Claim,
    /// Nodes a task may search before its node is expanded instead.
    pub task_nodes: u64,
}

impl Spec {
    /// A proof of `claim` at `root` under `rules`; refused for rules whose positions repeat
    /// (clockwise sowing) or that play the pie rule, which the tree does not model.
    pub fn new(rules: Rules, root: Position, claim: Claim, task_nodes: u64) -> Result<Spec, String> {
        if rules.has_cycles() {
            return Err("proofs need rules under which no position repeats (not clockwise sowing)".to_string());
        }
        if rules.pie {
            return Err("proofs do not model the pie rule's swap: claim the opening's value without it".to_string());
        }
        if task_nodes == 0 {
            return Err("the task budget must be at least one node".to_string());
        }
        Ok(Spec { rules, root, claim, task_nodes })
    }

    /// The side the claim speaks for.
    pub(crate) fn prover(&self) -> Side {
        match self.claim.bound {
            Bound::AtLeast => self.root.to_move(),
            Bound::AtMost => self.root.to_move().opponent(),
        }
    }

    /// The bound the prover's value must reach in every node.
    pub(crate) fn prover_bound(&self) -> i32 {
        match self.claim.bound {
            Bound::AtLeast => self.claim.value,
            Bound::AtMost => -self.claim.value,
        }
    }

    /// The question a node asks of its mover: `value >= T` where the prover moves, `value <= -T`
    /// where the other side does.
    pub(crate) fn node_claim(&self, position: &Position) -> Claim {
        if position.to_move() == self.prover() {
            Claim { bound: Bound::AtLeast, value: self.prover_bound() }
        } else {
            Claim { bound: Bound::AtMost, value: -self.prover_bound() }
        }
    }

    /// Reads `DIR/proof.toml`.
    pub fn load(dir: &Path) -> Result<Spec, ProofError> {
        let path = spec_path(dir);
        let text = crate::input::read_text(&path, crate::input::SMALL_FILE_BYTES).map_err(io_error(&path))?;
        let invalid = |message: String| ProofError::Invalid { path: path.clone(), message };
        let file: SpecFile = toml::from_str(&text).map_err(|err| invalid(err.message().to_string()))?;
        let rules: Rules = file.rules.parse().map_err(|err: crate::rules::UnknownRule| invalid(err.to_string()))?;
        let root = parse_start(&file.root).map_err(|err| invalid(format!("root: {err}")))?;
        let claim: Claim = file.claim.parse().map_err(invalid)?;
        Spec::new(rules, root, claim, file.task_nodes.unwrap_or(DEFAULT_TASK_NODES)).map_err(invalid)
    }

    /// Writes `DIR/proof.toml` (whole or not at all), creating `DIR`; refuses a directory that
    /// already holds a proof.
    pub fn create(&self, dir: &Path) -> Result<(), ProofError> {
        let path = spec_path(dir);
        if path.exists() {
            return Err(ProofError::Invalid {
                path,
                message: "a proof already lives here (each proof has a directory of its own)".to_string(),
            });
        }
        let file = SpecFile {
            rules: self.rules.to_string(),
            root: self.root.to_string(),
            claim: self.claim.to_string(),
            task_nodes: Some(self.task_nodes),
        };
        let text = format!(
            "# A proof of: the side to move at the root has value {} ({} rules).\n\
             # Grown by `kalah proof run`, read by `kalah proof status` and `kalah proof check`.\n{}",
            self.claim,
            self.rules,
            toml::to_string(&file).expect("a proof description serialises")
        );
        log::write_atomically(&path, text.as_bytes())
    }
}

/// `DIR/proof.toml`.
pub fn spec_path(dir: &Path) -> PathBuf {
    dir.join("proof.toml")
}

/// Every proof directory under `root` (those with a `proof.toml`), by name.
pub(crate) fn proof_dirs(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> =
        entries.filter_map(|entry| entry.ok().map(|e| e.path())).filter(|path| spec_path(path).is_file()).collect();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_parse_and_print() {
        assert_eq!(">= 4".parse::<Claim>().unwrap(), Claim { bound: Bound::AtLeast, value: 4 });
        assert_eq!(">+4".parse::<Claim>().unwrap(), Claim { bound: Bound::AtLeast, value: 5 });
        assert_eq!("<= -2".parse::<Claim>().unwrap(), Claim { bound: Bound::AtMost, value: -2 });
        assert_eq!("< -2".parse::<Claim>().unwrap(), Claim { bound: Bound::AtMost, value: -3 });
        assert_eq!("<=-2".parse::<Claim>().unwrap().to_string(), "<= -2");
        for bad in ["", "4", "=> 4", ">= ", ">= x", "<= 2147483647", ">= +-3", ">= -"] {
            assert!(bad.parse::<Claim>().is_err(), "{bad:?} must be refused");
        }
    }

    #[test]
    fn the_seeds_decide_claims_out_of_their_reach() {
        let rules = Rules::STANDARD;
        // South 10 in store, North 2, 3 seeds on the board: South's value lies in 5..=11.
        let position = Position::from_bins(&[1, 1, 0, 10, 1, 0, 0, 2], Side::South).unwrap();
        let claim = |text: &str| text.parse::<Claim>().unwrap();
        assert_eq!(claim(">= 5").decided_by_seeds(&rules, &position), Some(true));
        assert_eq!(claim(">= 12").decided_by_seeds(&rules, &position), Some(false));
        assert_eq!(claim(">= 6").decided_by_seeds(&rules, &position), None);
        assert_eq!(claim("<= 11").decided_by_seeds(&rules, &position), Some(true));
        assert_eq!(claim("<= 4").decided_by_seeds(&rules, &position), Some(false));
        // A game over is decided by its final margin: South's houses are empty.
        let over = Position::from_bins(&[0, 0, 0, 10, 1, 2, 0, 2], Side::North).unwrap();
        assert_eq!(over.final_margin(&rules), -5);
        assert_eq!(claim("<= -5").decided_by_seeds(&rules, &over), Some(true));
        assert_eq!(claim("<= -6").decided_by_seeds(&rules, &over), Some(false));
    }
}
