//! The proof tree rebuilt from the logs: each node's proof and disproof numbers, the next task
//! (the most-proving open leaf no other run is working on), and the status report.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use super::log::{Expansion, Record, Records};
use super::template::Template;
use super::{ProofError, Spec};
use crate::board::Position;
use crate::moves::Turn;
use crate::notation::parse_position;

/// Proof and disproof numbers of a node settled the other way.
pub const INFINITE: u64 = u64::MAX / 4;

/// Most of a fresh leaf's proof (or disproof) number its estimate can add: an estimate is a
/// hint, and a leaf far on the wrong side of T must still be tried once the others cost more.
const ESTIMATE_WEIGHT_CAP: i32 = 16;

/// Where the prover moves, an estimate that clears the claim's bound by at most this many seeds
/// is read as a claim that likely fails there (so that every move will have to be settled, and
/// the task gets an eighth of the budget): the estimates run high for the prover, and such
/// leaves run out of a whole budget more often than those estimated below the bound (figures in
/// `docs/performance-history.md`).
const PROVER_ESTIMATE_MARGIN: i32 = 4;

/// A node as the logs and the rules leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    /// The prover's claim holds here.
    Proven,
    /// It does not.
    Refuted,
    /// Not known yet.
    Open,
}

/// Proof number, disproof number, and whether an open leaf that is not busy lies below.
#[derive(Clone, Copy, Debug)]
struct Numbers {
    proof: u64,
    disproof: u64,
    free: bool,
}

impl Numbers {
    fn status(&self) -> NodeStatus {
        match (self.proof, self.disproof) {
            (0, _) => NodeStatus::Proven,
            (_, 0) => NodeStatus::Refuted,
            _ => NodeStatus::Open,
        }
    }
}

/// What a node is, from the records and the rules.
enum Kind<'a> {
    Decided(bool),
    Expanded(&'a Expansion),
    Open,
}

/// A proof: its description and everything its logs record.
#[derive(Clone, Debug)]
pub struct Tree {
    spec: Spec,
    records: Records,
    template: Arc<Template>,
}

/// An open leaf in a status report.
#[derive(Clone, Debug, Serialize)]
pub struct OpenLeaf {
    /// Its position.
    pub position: String,
    /// Seeds on its board.
    pub seeds: u32,
    /// Its proof and disproof numbers.
    pub proof_number: u64,
    /// See `proof_number`.
    pub disproof_number: u64,
}

/// One child of the root in a status report.
#[derive(Clone, Debug, Serialize)]
pub struct ChildStatus {
    /// The turn that leads there.
    pub turn: String,
    /// Whether the prover's claim holds there.
    pub status: NodeStatus,
    /// Its proof and disproof numbers.
    pub proof_number: u64,
    /// See `proof_number`.
    pub disproof_number: u64,
}

/// Where a proof stands.
#[derive(Clone, Debug, Serialize)]
pub struct Status {
    /// The rules.
    pub rules: String,
    /// The root.
    pub root: String,
    /// The claim on the root's value for its side to move.
    pub claim: String,
    /// `Some(true)` once proven by the logs (still to be confirmed by `proof check`),
    /// `Some(false)` once refuted, `None` while open.
    pub proven: Option<bool>,
    /// Nodes settled for the prover by a search or the database (every record).
    pub proven_leaves: usize,
    /// Nodes settled against the prover (every record).
    pub refuted_leaves: usize,
    /// Nodes expanded: their task ran out of budget, or they held too many seeds for one.
    pub expanded: usize,
    /// Nodes the expansions searched: the tasks out of budget and each child's estimate.
    pub expanded_nodes: u64,
    /// Expanded nodes with nothing settled or expanded below them: their task's work served
    /// the proof only through the bounds its table left elsewhere.
    pub expanded_unused: usize,
    /// Nodes the tasks of `expanded_unused` searched.
    pub expanded_unused_nodes: u64,
    /// Open leaves whose answer still matters.
    pub open_leaves: usize,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Of `nodes`, those spent on the cheapest part of the logged tree that decides the claim
    /// (`Tree::deciding_nodes`): what the runs would have needed had they known which turns to
    /// take, the same tasks in the same order; the rest went to alternatives the proof does not
    /// take. `None` while the claim is open.
    pub deciding_nodes: Option<u64>,
    /// Seconds spent in all (summed over every run and shard).
    pub seconds: f64,
    /// The root's proof and disproof numbers.
    pub proof_number: u64,
    /// See `proof_number`.
    pub disproof_number: u64,
    /// The open leaves with the most seeds on the board.
    pub largest_open: Vec<OpenLeaf>,
    /// The root's children, once it is expanded.
    pub first_level: Vec<ChildStatus>,
}

/// The seeds on the board of the nodes settled by a search so far, with `elsewhere` (seeds of
/// nodes other proofs' searches settled), at quantile `q` (0 to 1); `None` before any.
fn settled_seeds_quantile(records: &Records, elsewhere: &[u32], q: f64) -> Option<u32> {
    let mut seeds: Vec<u32> = records
        .settled
        .iter()
        .filter(|(_, s)| s.by == super::SettledBy::Search)
        .map(|(p, _)| p.seeds_on_board())
        .chain(elsewhere.iter().copied())
        .collect();
    seeds.sort_unstable();
    let at = ((seeds.len() as f64 * q) as usize).min(seeds.len().checked_sub(1)?);
    Some(seeds[at])
}

impl Tree {
    /// A proof with no records yet.
    pub fn new(spec: Spec) -> Tree {
        Tree { spec, records: Records::default(), template: Arc::new(Template::none()) }
    }

    /// Grows along `template` from now on: where the next task is chosen, a child in the
    /// template's tree goes before the others (see [`Template`]).
    pub fn follow(&mut self, template: Arc<Template>) {
        self.template = template;
    }

    /// What it proves.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Everything its logs record.
    pub fn records(&self) -> &Records {
        &self.records
    }

    /// Adds a record, after checking that it asks this proof's question of its node and that an
    /// expansion's turns are its mover's. Returns whether it was new.
    pub fn add(&mut self, record: Record) -> Result<bool, ProofError> {
        let conflict = |message: String| ProofError::Conflict { position: record.position().to_string(), message };
        let position = parse_position(record.position()).map_err(|err| conflict(format!("not a position: {err}")))?;
        if position.houses() != self.spec.root.houses() {
            return Err(conflict("a board of another size than the proof's".to_string()));
        }
        let asked = self.spec.node_claim(&position).to_string();
        let (claim, turns) = match &record {
            Record::Settled(s) => (&s.claim, None),
            Record::Expanded(e) => (&e.claim, Some(&e.children)),
        };
        if *claim != asked {
            return Err(conflict(format!("the record asks '{claim}' of the mover; this proof asks '{asked}'")));
        }
        for (turn, _) in turns.into_iter().flatten() {
            if let Err(err) = turn.parse::<Turn>().and_then(|t| t.play(&self.spec.rules, &position)) {
                return Err(conflict(format!("'{turn}' is not a turn of the mover: {err}")));
            }
        }
        self.records.add(record)
    }

    /// Refuses logs that do not grow from this proof's root: every run's first task is the root,
    /// so records without one at the root belong to another proof (its `proof.toml` was edited
    /// under its logs).
    pub fn check_root(&self) -> Result<(), ProofError> {
        let records = &self.records;
        if records.settled.is_empty() && records.expanded.is_empty() || records.has(&self.spec.root) {
            return Ok(());
        }
        Err(ProofError::Conflict {
            position: self.spec.root.to_string(),
            message: "the logs hold records but none of this root: they belong to another proof \
                      (was proof.toml's root changed under them?)"
                .to_string(),
        })
    }

    fn kind(&self, position: &Position) -> Kind<'_> {
        if let Some(settled) = self.records.settled.get(position) {
            return Kind::Decided(settled.holds);
        }
        if let Some(decided) = self.spec.node_claim(position).decided_by_seeds(&self.spec.rules, position) {
            return Kind::Decided(decided);
        }
        match self.records.expanded.get(position) {
            Some(expansion) => Kind::Expanded(expansion),
            None => Kind::Open,
        }
    }

    /// The children of an expanded node: turn, position and the prover's estimate.
    fn children<'a>(
        &self,
        position: &Position,
        expansion: &'a Expansion,
    ) -> impl Iterator<Item = (&'a str, Position, i32)> + use<'a, '_> {
        let rules = self.spec.rules;
        let position = *position;
        expansion.children.iter().map(move |(turn, estimate)| {
            let child =
                turn.parse::<Turn>().and_then(|t| t.play(&rules, &position)).expect("turns are checked when added");
            (turn.as_str(), child, *estimate)
        })
    }

    /// Every reachable node's numbers, with the open leaves in `busy` not free.
    fn numbers(&self, busy: &HashSet<Position>) -> HashMap<Position, Numbers> {
        let mut memo = HashMap::new();
        self.visit(&self.spec.root, None, busy, &mut memo);
        memo
    }

    fn visit(
        &self,
        position: &Position,
        estimate: Option<i32>,
        busy: &HashSet<Position>,
        memo: &mut HashMap<Position, Numbers>,
    ) -> Numbers {
        if let Some(numbers) = memo.get(position) {
            return *numbers;
        }
        let prover_moves = position.to_move() == self.spec.prover();
        let numbers = match self.kind(position) {
            Kind::Decided(true) => Numbers { proof: 0, disproof: INFINITE, free: false },
            Kind::Decided(false) => Numbers { proof: INFINITE, disproof: 0, free: false },
            Kind::Open => {
                // An estimate on the wrong side of T makes the leaf look harder to settle the
                // way it points away from. Where the other side moves, every one of its moves
                // must be settled (where the prover moves, every one to refute): the leaf counts
                // one for each from the start (Allis's mobility), so that a node expanded after
                // its task failed is not left for a fresh sibling that looks cheaper only
                // because it was never tried.
                let gap = estimate.map_or(0, |e| e - self.spec.prover_bound());
                let weight = |x: i32| 1 + x.clamp(0, ESTIMATE_WEIGHT_CAP) as u64;
                // At least 1: an open leaf's numbers stay above 0, which would read as settled.
                let moves = u64::from(position.legal_mask().count_ones().max(1));
                let (proof_moves, disproof_moves) = if prover_moves { (1, moves) } else { (moves, 1) };
                Numbers {
                    proof: weight(-gap) * proof_moves,
                    disproof: weight(gap + 1) * disproof_moves,
                    free: !busy.contains(position),
                }
            }
            Kind::Expanded(expansion) => {
                let (mut sum, mut least, mut free) = (0u64, INFINITE, false);
                for (_, child, estimate) in self.children(position, expansion) {
                    let n = self.visit(&child, Some(estimate), busy, memo);
                    let (adds, mins) = if prover_moves { (n.disproof, n.proof) } else { (n.proof, n.disproof) };
                    sum = sum.saturating_add(adds).min(INFINITE);
                    least = least.min(mins);
                    free |= n.free && n.status() == NodeStatus::Open;
                }
                let (proof, disproof) = if prover_moves { (least, sum) } else { (sum, least) };
                let numbers = Numbers { proof, disproof, free };
                Numbers { free: free && numbers.status() == NodeStatus::Open, ..numbers }
            }
        };
        memo.insert(*position, numbers);
        numbers
    }

    /// Whether the logs prove the claim (`Some(true)`), refute it, or leave it open.
    pub fn proven(&self) -> Option<bool> {
        match self.numbers(&HashSet::new())[&self.spec.root].status() {
            NodeStatus::Proven => Some(true),
            NodeStatus::Refuted => Some(false),
            NodeStatus::Open => None,
        }
    }

    /// The next task: the most-proving open leaf that is not `busy` (other runs' tasks),
    /// followed from the root through the children with the least proof number where the
    /// prover moves and the least disproof number where the other side does, among those with
    /// a free leaf below; ties go to the child the estimates favour for that side.
    pub(crate) fn next_task(&self, busy: &HashSet<Position>) -> Option<Position> {
        let memo = self.numbers(busy);
        let mut at = self.spec.root;
        loop {
            let expansion = match self.kind(&at) {
                Kind::Open => return memo[&at].free.then_some(at),
                Kind::Decided(_) => return None,
                Kind::Expanded(expansion) => expansion,
            };
            let prover_moves = at.to_move() == self.spec.prover();
            let best = self.children(&at, expansion).filter(|(_, child, _)| memo[child].free).min_by_key(
                |(_, child, estimate)| {
                    let n = memo[child];
                    let off_template = !self.template.has(child);
                    if prover_moves {
                        (off_template, n.proof, -estimate)
                    } else {
                        (off_template, n.disproof, *estimate)
                    }
                },
            );
            at = best?.1;
        }
    }

    /// Whether the open leaf at `position` is expanded without a task: along a template, where it
    /// is an inner node of the template's tree; else where it is [`Tree::too_big_for_a_task`]
    /// (off along a template, whose small leaves, settled first, would make every other leaf look
    /// too big).
    pub(crate) fn expands_without_a_task(&self, position: &Position, elsewhere: &[u32]) -> bool {
        match self.template.is_empty() {
            true => self.too_big_for_a_task(position, elsewhere),
            false => self.template.expands(position),
        }
    }

    /// Whether the open leaf at `position` is better expanded at once than given a task: it holds
    /// more seeds than nine in ten of the nodes a search has settled so far, in this proof and
    /// (`elsewhere`, their seeds) in others with its rules, within its budget, so its task would
    /// most likely run out of budget, and a task that does is the costliest thing a run does (on
    /// empty-capture Kalah(6,5) <= 12 with 20 M-node tasks, 2.6 G of 3.4 G nodes).
    pub(crate) fn too_big_for_a_task(&self, position: &Position, elsewhere: &[u32]) -> bool {
        settled_seeds_quantile(&self.records, elsewhere, 0.9).is_some_and(|seeds| position.seeds_on_board() > seeds)
    }

    /// The children (position and the prover's estimate) of each expansion that has `position`
    /// among them: the leaf's siblings, itself included, once for each parent.
    fn sibling_groups<'s>(&'s self, position: &'s Position) -> impl Iterator<Item = Vec<(Position, i32)>> + 's {
        self.records.expanded.iter().filter_map(move |(parent, expansion)| {
            let children: Vec<(Position, i32)> =
                self.children(parent, expansion).map(|(_, child, estimate)| (child, estimate)).collect();
            children.iter().any(|(child, _)| child == position).then_some(children)
        })
    }

    /// Whether a sibling of the open leaf at `position` (another child of a node it is a child
    /// of) was expanded after a task of at least `min_nodes` nodes: its own task will then likely
    /// run out of budget too.
    pub(crate) fn sibling_failed(&self, position: &Position, min_nodes: u64) -> bool {
        self.sibling_groups(position).any(|children| {
            children.iter().any(|(child, _)| {
                child != position && self.records.expanded.get(child).is_some_and(|e| e.nodes >= min_nodes)
            })
        })
    }

    /// Whether every move at the open leaf `position` will likely have to be settled, by its
    /// estimate for the prover: `root_estimate` at the root, else the one of the expansion it is
    /// a child of (the highest where there are several) ([`Tree::every_move_counts_by`]). Not
    /// the root without `root_estimate`.
    pub(crate) fn every_move_likely_needed(&self, position: &Position, root_estimate: Option<i32>) -> bool {
        let estimate = match *position == self.spec.root {
            true => root_estimate,
            false => self
                .sibling_groups(position)
                .filter_map(|children| {
                    children.iter().find(|(child, _)| child == position).map(|(_, estimate)| *estimate)
                })
                .max(),
        };
        estimate.is_some_and(|estimate| self.every_move_counts_by(position, estimate))
    }

    /// Whether every move at `position` will likely have to be settled if the prover's value
    /// there is `estimate`: the claim holds there and the other side moves, or it fails and the
    /// prover moves, which is taken to be so unless the estimate clears the bound by more than
    /// [`PROVER_ESTIMATE_MARGIN`].
    fn every_move_counts_by(&self, position: &Position, estimate: i32) -> bool {
        match position.to_move() == self.spec.prover() {
            true => estimate <= self.spec.prover_bound() + PROVER_ESTIMATE_MARGIN,
            false => estimate >= self.spec.prover_bound(),
        }
    }

    /// The nodes the records of `position` (decided) and of the cheapest subtree below it that
    /// decides it searched: where one child decides it (a proven node where the prover moves, a
    /// refuted one where the other side does), the cheapest such child; otherwise every child.
    /// A transposition reached twice counts twice, as it would in a tree.
    fn deciding_nodes(
        &self,
        position: &Position,
        memo: &HashMap<Position, Numbers>,
        cost: &mut HashMap<Position, u64>,
    ) -> u64 {
        if let Some(nodes) = cost.get(position) {
            return *nodes;
        }
        let own = self.records.settled.get(position).map_or(0, |s| s.nodes)
            + self.records.expanded.get(position).map_or(0, |e| e.nodes);
        let nodes = match self.kind(position) {
            Kind::Expanded(expansion) => {
                let status = memo[position].status();
                let one_decides = (position.to_move() == self.spec.prover()) == (status == NodeStatus::Proven);
                let below: Vec<u64> = self
                    .children(position, expansion)
                    .filter(|(_, child, _)| memo[child].status() == status)
                    .map(|(_, child, _)| self.deciding_nodes(&child, memo, cost))
                    .collect();
                own + if one_decides { below.iter().copied().min().unwrap_or(0) } else { below.iter().sum() }
            }
            Kind::Decided(_) | Kind::Open => own,
        };
        cost.insert(*position, nodes);
        nodes
    }

    /// Where the proof stands, with the `largest` open leaves that matter.
    pub fn status(&self, largest: usize) -> Status {
        let memo = self.numbers(&HashSet::new());
        let root = memo[&self.spec.root];
        // Open leaves below open nodes only: the rest no longer matter.
        let mut open = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![self.spec.root];
        while let Some(at) = stack.pop() {
            if !seen.insert(at) || memo[&at].status() != NodeStatus::Open {
                continue;
            }
            match self.kind(&at) {
                Kind::Open => open.push(at),
                Kind::Expanded(expansion) => stack.extend(self.children(&at, expansion).map(|(_, child, _)| child)),
                Kind::Decided(_) => {}
            }
        }
        let open_leaves = open.len();
        open.sort_by_key(|p| (std::cmp::Reverse(p.seeds_on_board()), p.to_string()));
        let leaf = |p: &Position| OpenLeaf {
            position: p.to_string(),
            seeds: p.seeds_on_board(),
            proof_number: memo[p].proof,
            disproof_number: memo[p].disproof,
        };
        let first_level = match self.kind(&self.spec.root) {
            Kind::Expanded(expansion) => self
                .children(&self.spec.root, expansion)
                .map(|(turn, child, _)| ChildStatus {
                    turn: turn.to_string(),
                    status: memo[&child].status(),
                    proof_number: memo[&child].proof,
                    disproof_number: memo[&child].disproof,
                })
                .collect(),
            _ => Vec::new(),
        };
        let (nodes, seconds) = self.records.cost();
        let unused: Vec<u64> = self
            .records
            .expanded
            .iter()
            .filter(|(p, e)| !self.children(p, e).any(|(_, child, _)| self.records.has(&child)))
            .map(|(_, e)| e.nodes)
            .collect();
        let settled = self.records.settled.values();
        Status {
            rules: self.spec.rules.to_string(),
            root: self.spec.root.to_string(),
            claim: format!("value {}", self.spec.claim),
            proven: match root.status() {
                NodeStatus::Proven => Some(true),
                NodeStatus::Refuted => Some(false),
                NodeStatus::Open => None,
            },
            proven_leaves: settled.clone().filter(|s| s.holds).count(),
            refuted_leaves: settled.filter(|s| !s.holds).count(),
            expanded: self.records.expanded.len(),
            expanded_nodes: self.records.expanded.values().map(|e| e.nodes).sum(),
            expanded_unused: unused.len(),
            expanded_unused_nodes: unused.iter().sum(),
            open_leaves,
            nodes,
            deciding_nodes: (root.status() != NodeStatus::Open)
                .then(|| self.deciding_nodes(&self.spec.root, &memo, &mut HashMap::new())),
            seconds,
            proof_number: root.proof,
            disproof_number: root.disproof,
            largest_open: open.iter().take(largest).map(leaf).collect(),
            first_level,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::board::Side;
    use crate::proof::{Claim, Settled, SettledBy};
    use crate::rules::Rules;

    #[test]
    fn leaves_bigger_than_nine_in_ten_settled_nodes_skip_their_task() {
        let root = Position::start(4, 4).unwrap();
        let spec = Spec::new(Rules::STANDARD, root, ">= 2".parse::<Claim>().unwrap(), 1000).unwrap();
        let mut tree = Tree::new(spec);
        // South to move, k seeds in South's first house and one in North's: k + 1 on the board.
        let with_seeds = |k: u32| Position::from_bins(&[k, 0, 0, 0, 31 - k, 1, 0, 0, 0, 0], Side::South).unwrap();
        assert!(!tree.too_big_for_a_task(&with_seeds(30), &[]), "nothing settled yet: every leaf gets its task");
        // Other proofs' searches settled nodes of 5 to 14 seeds: nine in ten hold at most 14.
        let elsewhere: Vec<u32> = (5..=14).collect();
        assert!(!tree.too_big_for_a_task(&with_seeds(13), &elsewhere));
        assert!(tree.too_big_for_a_task(&with_seeds(14), &elsewhere), "15 seeds: more than the others settled");
        for k in 1..=10 {
            let settled = Settled {
                position: with_seeds(k).to_string(),
                claim: ">= 2".to_string(),
                holds: true,
                by: if k == 10 { SettledBy::Table } else { SettledBy::Search },
                nodes: 1,
                seconds: 0.0,
                from: None,
            };
            tree.add(Record::Settled(settled)).unwrap();
        }
        // Settled by a search: 2..=10 seeds on the board; nine in ten hold at most 10.
        assert!(!tree.too_big_for_a_task(&with_seeds(9), &[]));
        assert!(tree.too_big_for_a_task(&with_seeds(10), &[]), "11 seeds: more than any search settled");
        // Pooled with the others' (2..=10 here, 5..=14 there): nine in ten hold at most 13.
        assert!(!tree.too_big_for_a_task(&with_seeds(12), &elsewhere));
        assert!(tree.too_big_for_a_task(&with_seeds(13), &elsewhere));
    }

    #[test]
    fn a_fresh_leaf_needs_a_proof_for_every_move_of_the_side_against_the_prover() {
        let root = Position::start(4, 4).unwrap();
        let spec = Spec::new(Rules::STANDARD, root, ">= 2".parse::<Claim>().unwrap(), 1000).unwrap();
        let mut tree = Tree::new(spec);
        // Fresh, the root (South, the prover, to move) needs one proof and a disproof per move
        // (with no estimate, each disproof weighs 2: see `visit`).
        let moves = |p: &Position| u64::from(p.legal_mask().count_ones());
        let status = tree.status(0);
        assert_eq!((status.proof_number, status.disproof_number), (1, 2 * moves(&root)));
        tree.add(expansion(&tree, &root, 1000)).unwrap();
        // Each child (North to move) needs a proof per North move, each weighed 3 (its estimate,
        // 0, lies 2 below the claim); the root the cheapest child's, and a disproof of every child.
        let children = crate::moves::first_turns(&Rules::STANDARD, &root);
        let cheapest = children.iter().map(|(_, child)| 3 * moves(child)).min().unwrap();
        let status = tree.status(0);
        assert_eq!((status.proof_number, status.disproof_number), (cheapest, children.len() as u64));
        assert!(cheapest > 3, "a leaf where the other side moves needs more than one proof");
    }

    /// An expansion of `position` under `tree`'s claim, every turn estimated at 0.
    pub(crate) fn expansion(tree: &Tree, position: &Position, nodes: u64) -> Record {
        estimated_expansion(tree, position, nodes, 0)
    }

    /// An expansion of `position` under `tree`'s claim, every turn estimated at `estimate`.
    pub(crate) fn estimated_expansion(tree: &Tree, position: &Position, nodes: u64, estimate: i32) -> Record {
        let children = crate::moves::first_turns(&tree.spec().rules, position);
        Record::Expanded(Expansion {
            position: position.to_string(),
            claim: tree.spec().node_claim(position).to_string(),
            nodes,
            seconds: 0.0,
            children: children.iter().map(|(turn, _)| (turn.to_string(), estimate)).collect(),
        })
    }

    /// The positions after each turn at `position` under standard rules.
    pub(crate) fn turns_from(position: &Position) -> Vec<Position> {
        crate::moves::first_turns(&Rules::STANDARD, position).into_iter().map(|(_, child)| child).collect()
    }

    /// A proof of `>= 2` at the Kalah(4,4) start (1,000-node tasks), its root expanded after a
    /// failed task, with the root's children.
    fn expanded_root() -> (Tree, Vec<Position>) {
        let root = Position::start(4, 4).unwrap();
        let spec = Spec::new(Rules::STANDARD, root, ">= 2".parse::<Claim>().unwrap(), 1000).unwrap();
        let mut tree = Tree::new(spec);
        tree.add(expansion(&tree, &root, 1000)).unwrap();
        (tree, turns_from(&root))
    }

    #[test]
    fn a_leaf_whose_sibling_ran_out_of_a_budget_has_a_failed_sibling() {
        let (mut tree, children) = expanded_root();
        assert!(!tree.sibling_failed(&children[1], 100), "no sibling expanded yet");
        assert!(!tree.sibling_failed(&tree.spec().root, 100), "the root has no siblings");
        // An expansion without a task (its children's estimates only) is not a failed task.
        tree.add(expansion(&tree, &children[0], 99)).unwrap();
        assert!(!tree.sibling_failed(&children[1], 100));
        let grandchildren = turns_from(&children[0]);
        tree.add(expansion(&tree, &grandchildren[0], 100)).unwrap();
        assert!(tree.sibling_failed(&grandchildren[1], 100), "its sibling's task searched 100 nodes");
        assert!(!tree.sibling_failed(&grandchildren[0], 100), "a node is not its own sibling");
        assert!(!tree.sibling_failed(&children[1], 100), "a nephew's failure is not a sibling's");
    }

    #[test]
    fn status_counts_the_expansions_nothing_was_searched_below() {
        let (mut tree, children) = expanded_root();
        // One child expanded with nothing below it yet, another settled by a search.
        tree.add(expansion(&tree, &children[0], 1200)).unwrap();
        tree.add(settled(&tree, &children[1], true, 7)).unwrap();
        let status = tree.status(0);
        assert_eq!((status.expanded, status.expanded_nodes), (2, 2200));
        assert_eq!((status.expanded_unused, status.expanded_unused_nodes), (1, 1200), "the child's, not the root's");
        assert_eq!(status.nodes, 2207);
    }

    /// Settles `position` under `tree`'s claim, `holds` or not, after a search of `nodes`.
    fn settled(tree: &Tree, position: &Position, holds: bool, nodes: u64) -> Record {
        Record::Settled(Settled {
            position: position.to_string(),
            claim: tree.spec().node_claim(position).to_string(),
            holds,
            by: SettledBy::Search,
            nodes,
            seconds: 0.0,
            from: None,
        })
    }

    #[test]
    fn the_deciding_nodes_take_the_cheapest_child_where_one_decides_and_every_child_where_all_must() {
        let (mut tree, children) = expanded_root();
        assert_eq!(tree.status(0).deciding_nodes, None, "open");
        // The root (South, the prover, to move) is proven by any child proven: child 0 by a
        // search of 500 nodes, or child 1 (North to move: every North turn must hold) by its
        // failed task of 100 and its children's searches of 10 each.
        tree.add(settled(&tree, &children[0], true, 500)).unwrap();
        assert_eq!(tree.status(0).deciding_nodes, Some(1000 + 500));
        tree.add(expansion(&tree, &children[1], 100)).unwrap();
        let grandchildren = turns_from(&children[1]);
        for grandchild in &grandchildren {
            tree.add(settled(&tree, grandchild, true, 10)).unwrap();
        }
        let through_child_1 = 1000 + 100 + 10 * grandchildren.len() as u64;
        assert!(through_child_1 < 1500);
        let status = tree.status(0);
        assert_eq!(status.deciding_nodes, Some(through_child_1));
        assert_eq!(status.nodes, 1500 + 100 + 10 * grandchildren.len() as u64);
    }

    #[test]
    fn a_refuted_root_where_the_prover_moves_counts_every_child() {
        let (mut tree, children) = expanded_root();
        for (i, child) in children.iter().enumerate() {
            tree.add(settled(&tree, child, false, 1 + i as u64)).unwrap();
        }
        let every: u64 = (1..=children.len() as u64).sum();
        assert_eq!(tree.status(0).deciding_nodes, Some(1000 + every));
    }
}
