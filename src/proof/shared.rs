//! Proofs share their work: a leaf another proof under the same rules has settled is a bound on
//! that position's value, used before any search. A proven `>= t` is the bound `>= t`, and it
//! settles every `>= t'` with `t' <= t`; a refuted `>= t` is `<= t - 1`, and `<= t - 2` where
//! every value has the parity of the seeds (`Rules::values_share_parity`); the same for `<=`.
//! A node settled so is logged as settled by [`SettledBy::Shared`](super::SettledBy::Shared) with
//! the proof its bound came from, so the proof still rebuilds from its own log, and
//! `kalah proof check` searches it again like any other leaf.
//!
//! Only leaves are shared, never the nodes another proof's tree decides above them: a leaf was
//! settled by one search within a task's budget, so the check can search it again; an inner
//! node (another proof's root) may stand for hours of tasks.

use std::collections::HashMap;
use std::path::Path;

use super::log::{Record, SettledBy, read_records};
use super::proof_dirs;
use super::{Bound, Claim, ProofError, Spec};
use crate::board::Position;
use crate::notation::parse_position;
use crate::rules::Rules;

/// Every leaf of the proof in `dir` (`spec`, its logs' `records`) settled by another proof's bound
/// (`by: "shared"`) that the proof it names does not bear out: that proof, found beside `dir` by
/// its directory's name, must settle the same position with a bound that answers the leaf's claim
/// the same way. Each disagreement, as a problem for the check (a leaf's bound is otherwise the
/// claim of one log line).
pub fn disagreeing_shared_leaves(dir: &Path, spec: &Spec, records: &[Record]) -> Vec<String> {
    let mut named: HashMap<&str, Result<SharedBounds, String>> = HashMap::new();
    let mut problems = Vec::new();
    for record in records {
        let Record::Settled(settled) = record else { continue };
        if settled.by != SettledBy::Shared {
            continue;
        }
        let leaf = format!("{} {}", settled.position, settled.claim);
        let Some(from) = settled.from.as_deref() else {
            problems.push(format!("{leaf}: settled by another proof's bound, but names none"));
            continue;
        };
        let bounds = named.entry(from).or_insert_with(|| {
            let name = Path::new(from).file_name().unwrap_or_default();
            let beside = dir.parent().unwrap_or(Path::new("")).join(name);
            let mut bounds = SharedBounds { rules: spec.rules, ..SharedBounds::default() };
            bounds.add_proof(&beside, 0).map(|()| bounds).map_err(|err| err.to_string())
        });
        let answer = match (bounds, parse_position(&settled.position), settled.claim.parse::<Claim>()) {
            (Ok(bounds), Ok(position), Ok(claim)) => bounds.decides(&claim, &position).map(|(holds, _)| holds),
            (Err(why), _, _) => {
                problems.push(format!("{leaf}: settled by {from}, which cannot be read: {why}"));
                continue;
            }
            _ => None,
        };
        if answer != Some(settled.holds) {
            problems.push(format!("{leaf}: settled by {from}, whose logs do not settle it so"));
        }
    }
    problems
}

/// The bounds other proofs' settled leaves give, by position, and how large a leaf their
/// searches settled.
#[derive(Clone, Debug, Default)]
pub struct SharedBounds {
    bounds: HashMap<Position, Vec<(Claim, String)>>,
    /// The seeds on the board of every leaf a search settled in the proofs with the same task
    /// budget: where tasks settle, for a proof that has settled few yet
    /// ([`Tree::too_big_for_a_task`](super::Tree::too_big_for_a_task)).
    searched_seeds: Vec<u32>,
    /// The rules: where every value has the parity of the seeds, a bound moves to the nearest
    /// value of it.
    rules: Rules,
}

impl SharedBounds {
    /// Nothing shared: what a run gets with sharing off.
    pub fn none() -> SharedBounds {
        SharedBounds::default()
    }

    /// The bounds of every proof under `root` with the rules of `spec` (other than the one in
    /// `except`): each leaf its logs settle, whoever settled it; and the seeds of the leaves a
    /// search settled within `spec`'s task budget, whatever the budget of the proof it ran in
    /// (a search that settled in fewer nodes would have settled under this budget too). A proof
    /// that cannot be read is skipped; its name and why come back with the bounds.
    pub fn from_proofs(root: &Path, spec: &Spec, except: &Path) -> (SharedBounds, Vec<String>) {
        let mut shared = SharedBounds { rules: spec.rules, ..SharedBounds::default() };
        let mut skipped = Vec::new();
        let same = |dir: &Path| dir.canonicalize().ok() == except.canonicalize().ok();
        for dir in proof_dirs(root).into_iter().filter(|dir| !same(dir)) {
            let Ok(other) = Spec::load(&dir) else { continue };
            if other.rules.for_values() != spec.rules.for_values() || other.root.houses() != spec.root.houses() {
                continue;
            }
            match shared.add_proof(&dir, spec.task_nodes) {
                Ok(()) => {}
                Err(err) => skipped.push(format!("{}: {err}", dir.display())),
            }
        }
        (shared, skipped)
    }

    /// Adds the leaves the proof in `dir` settled, and the seeds of those its searches settled
    /// within `task_nodes`.
    fn add_proof(&mut self, dir: &Path, task_nodes: u64) -> Result<(), ProofError> {
        let name = dir.display().to_string();
        for record in read_records(dir)? {
            let Record::Settled(settled) = record else { continue };
            let (Ok(position), Ok(claim)) = (parse_position(&settled.position), settled.claim.parse::<Claim>()) else {
                continue;
            };
            if settled.by == SettledBy::Search && settled.nodes <= task_nodes {
                self.searched_seeds.push(position.seeds_on_board());
            }
            self.add(&position, if settled.holds { claim } else { claim.complement() }, &name);
        }
        Ok(())
    }

    /// The seeds on the board of every leaf a search settled within the task budget in the
    /// proofs beside.
    pub(crate) fn searched_seeds(&self) -> &[u32] {
        &self.searched_seeds
    }

    /// Adds the bound `claim`, which holds at `position` for its mover, from the proof `from`.
    pub fn add(&mut self, position: &Position, claim: Claim, from: &str) {
        let claim = claim.with_parity(&self.rules, position);
        self.bounds.entry(*position).or_default().push((claim, from.to_string()));
    }

    /// Bounds held.
    pub fn len(&self) -> usize {
        self.bounds.values().map(Vec::len).sum()
    }

    /// Whether no bound is held.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// Whether a shared bound decides `question` at `position`: its answer and the proof the
    /// bound came from.
    pub(crate) fn decides(&self, question: &Claim, position: &Position) -> Option<(bool, &str)> {
        self.bounds.get(position)?.iter().find_map(|(bound, from)| {
            let answer = match (question.bound, bound.bound) {
                (Bound::AtLeast, Bound::AtLeast) if bound.value >= question.value => true,
                (Bound::AtLeast, Bound::AtMost) if bound.value < question.value => false,
                (Bound::AtMost, Bound::AtMost) if bound.value <= question.value => true,
                (Bound::AtMost, Bound::AtLeast) if bound.value > question.value => false,
                _ => return None,
            };
            Some((answer, from.as_str()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::log::{Appender, Settled, log_path};

    /// A proof of `>= 2` at the Kalah(4,4) start under `rules` with tasks of `task_nodes`, in
    /// `dir`, whose log settles each of `leaves` (bins, and the nodes of the search that settled
    /// it: none where the table did).
    fn proof_settling(dir: &Path, rules: Rules, task_nodes: u64, leaves: &[([u32; 10], Option<u64>)]) {
        let spec = Spec::new(rules, Position::start(4, 4).unwrap(), ">= 2".parse().unwrap(), task_nodes).unwrap();
        spec.create(dir).unwrap();
        let mut log = Appender::open(&log_path(dir, None)).unwrap();
        for (bins, search_nodes) in leaves {
            let position = Position::from_bins(bins, crate::board::Side::South).unwrap();
            let by = if search_nodes.is_some() { SettledBy::Search } else { SettledBy::Table };
            let settled = Settled {
                position: position.to_string(),
                claim: ">= 2".to_string(),
                holds: true,
                by,
                nodes: search_nodes.unwrap_or(1),
                seconds: 0.0,
                from: None,
            };
            log.append(&Record::Settled(settled)).unwrap();
        }
    }

    #[test]
    fn the_seeds_searches_settled_come_from_proofs_with_the_same_rules_within_the_budget() {
        let root = tempfile::tempdir().unwrap();
        let at = |name: &str| root.path().join(name);
        // 10 to 13 seeds on the board; the last seed of each in North's first house.
        let ten = [9, 0, 0, 0, 22, 1, 0, 0, 0, 0];
        let eleven = [10, 0, 0, 0, 21, 1, 0, 0, 0, 0];
        let twelve = [11, 0, 0, 0, 20, 1, 0, 0, 0, 0];
        let thirteen = [12, 0, 0, 0, 19, 1, 0, 0, 0, 0];
        proof_settling(&at("same"), Rules::STANDARD, 1000, &[(ten, Some(900)), (twelve, None)]);
        // A bigger budget's search counts where it took no more than this budget.
        proof_settling(&at("bigger-budget"), Rules::STANDARD, 2000, &[(eleven, Some(800)), (thirteen, Some(1500))]);
        proof_settling(&at("smaller-budget"), Rules::STANDARD, 500, &[(twelve, Some(500))]);
        proof_settling(&at("other-rules"), Rules::EMPTY_CAPTURE, 1000, &[(thirteen, Some(10))]);
        proof_settling(&at("own"), Rules::STANDARD, 1000, &[(thirteen, Some(10))]);
        let own = Spec::load(&at("own")).unwrap();
        let (shared, skipped) = SharedBounds::from_proofs(root.path(), &own, &at("own"));
        assert!(skipped.is_empty(), "{skipped:?}");
        let mut seeds = shared.searched_seeds().to_vec();
        seeds.sort_unstable();
        assert_eq!(seeds, [10, 11, 12], "searches of the same rules within 1000 nodes");
        // Every leaf of the same rules is a bound, whatever settled it and whatever the budget.
        assert_eq!(shared.len(), 5);
    }

    #[test]
    fn a_bound_settles_the_claims_it_implies_with_parity_only_where_values_share_it() {
        // Kalah(2,1): 4 seeds, values even under standard rules.
        let position = Position::start(2, 1).unwrap();
        let at = |text: &str| text.parse::<Claim>().unwrap();
        for (rules, parity) in [(Rules::STANDARD, true), ("standard remaining=discard".parse().unwrap(), false)] {
            assert_eq!(rules.values_share_parity(), parity);
            let mut shared = SharedBounds { rules, ..SharedBounds::default() };
            // A refuted `>= 2`: the value is at most 1, so at most 0 where values are even.
            shared.add(&position, at(">= 2").complement(), "refuted");
            assert_eq!(shared.decides(&at(">= 1"), &position), parity.then_some((false, "refuted")));
            assert_eq!(shared.decides(&at(">= 2"), &position), Some((false, "refuted")));
            assert_eq!(shared.decides(&at("<= 1"), &position), Some((true, "refuted")));
            assert_eq!(shared.decides(&at("<= 0"), &position), parity.then_some((true, "refuted")));
            assert_eq!(shared.decides(&at("<= -1"), &position), None);
            // A proven `>= -2` settles every `>= t` with t <= -2, and refutes `<= -3`.
            shared.add(&position, at(">= -2"), "proven");
            assert_eq!(shared.decides(&at(">= -4"), &position), Some((true, "proven")));
            assert_eq!(shared.decides(&at("<= -3"), &position), Some((false, "proven")));
            assert_eq!(shared.decides(&at("<= -2"), &position), None);
            assert_eq!(shared.decides(&at(">= 0"), &position), None);
            // Another position knows nothing.
            assert_eq!(shared.decides(&at(">= -4"), &Position::start(2, 2).unwrap()), None);
        }
    }
}
