//! The independent check of a proof: it trusts neither the proof numbers nor the run that grew
//! the tree. From the root it walks the logged tree with the plain rules engine
//! ([`Position::play`]): a node holds when the game is over with a margin that satisfies its
//! question, when the seeds on the board allow no other answer, when a logged leaf says so, or
//! when its expansion lists exactly its mover's turns and one child holds (the prover moves) or
//! every child does (the other side moves). Where the logs refute the claim, the same walk with
//! the roles swapped checks the refutation: a node fails when every child fails (the prover
//! moves) or one does (the other side moves). Then it searches again, without a budget, a
//! sample of the leaves the proof or refutation stands on, and confirms each answer.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::log::{Expansion, Record, Settled};
use super::{ProofError, Spec, io_error};
use crate::board::Position;
use crate::moves::Turn;
use crate::notation::parse_position;
use crate::rules::Rules;
use crate::search::{Search, SearchError};

/// What the logged tree shows of the claim, by the rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The tree proves the claim.
    Proven,
    /// The tree proves the claim false.
    Refuted,
    /// The tree decides neither.
    #[default]
    Open,
}

/// What the check found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CheckReport {
    /// What the logged tree shows by the rules.
    pub verdict: Verdict,
    /// Whether the logged tree proves the claim by the rules (`verdict` is `Proven`).
    pub complete: bool,
    /// Why the tree decides nothing, or what else is wrong with the logs.
    pub problems: Vec<String>,
    /// Nodes of the proof or refutation (one deciding child of a node where the deciding side
    /// moves, every child of the others').
    pub proof_nodes: usize,
    /// Its leaves answered by search or the database.
    pub proof_leaves: usize,
    /// Leaves searched again.
    pub sampled: usize,
    /// Of which the search confirmed.
    pub confirmed: usize,
    /// Each leaf searched again, in the order searched.
    pub searched: Vec<LeafSearch>,
    /// Whether [`Resample::interrupt`] or the search's deadline stopped the searches of leaves
    /// before the last: the check then passes nothing, and the leaves searched so far are only
    /// kept (`on_leaf`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The nodes of the proof or refutation (`proof_nodes` of them): where its question is
    /// answered the way `verdict` says, on the strength of the leaves below.
    #[serde(skip)]
    pub shown_at: Vec<Position>,
}

/// One leaf searched again by the check.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeafSearch {
    /// The leaf.
    pub position: String,
    /// The claim its log settled, e.g. ">= 4".
    pub claim: String,
    /// Whether the search agreed with the log.
    pub confirmed: bool,
    /// Nodes the search took (its table holds what earlier leaves' searches left).
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
    /// Whether an earlier run of the check searched it (see [`Resample::earlier`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub earlier: bool,
}

/// How the check searches leaves again.
pub struct Resample<'s, 'db> {
    /// The search that does it.
    pub search: &'s mut Search<'db>,
    /// How many leaves (all of them when there are no more).
    pub sample: usize,
    /// Chooses them.
    pub seed: u64,
    /// Leaves an earlier, unfinished run of the check searched again (say from its progress
    /// file): a chosen leaf found here with the claim the log settles is taken as it is, not
    /// searched again.
    pub earlier: Vec<LeafSearch>,
    /// Told of each leaf as soon as it is searched (its place among the chosen, their count), so
    /// that a long check can show and keep its progress.
    pub on_leaf: OnLeaf<'s>,
    /// Raised from outside (a signal) to stop: the leaf in flight is given up, and the check ends
    /// [`CheckReport::interrupted`].
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// What [`Resample::on_leaf`] is told: the leaf's place among those chosen, their count, and
/// its search.
pub type OnLeaf<'s> = Box<dyn FnMut(usize, usize, &LeafSearch) -> Result<(), ProofError> + 's>;

/// The file in a proof's directory to which a check appends every leaf it searches again, as it
/// goes, so that a check stopped early can go on ([`Resample::keep_progress`]).
pub const CHECK_PROGRESS: &str = "check-progress.jsonl";

impl<'s, 'db> Resample<'s, 'db> {
    /// `sample` leaves chosen by `seed`, none searched before, nothing told as they go.
    pub fn new(search: &'s mut Search<'db>, sample: usize, seed: u64) -> Self {
        Resample { search, sample, seed, earlier: Vec::new(), on_leaf: Box::new(|_, _, _| Ok(())), interrupt: None }
    }

    /// Appends each leaf, as it is searched, to the progress file ([`CHECK_PROGRESS`]) of the
    /// proof in `dir`, then tells `tell` of it (as [`Resample::on_leaf`]); with `resume`, the
    /// leaves that file holds (from an unfinished check) are taken as they are. Returns how many
    /// it held.
    pub fn keep_progress(
        &mut self,
        dir: &Path,
        resume: bool,
        mut tell: impl FnMut(usize, usize, &LeafSearch) + 's,
    ) -> Result<usize, ProofError> {
        let path = dir.join(CHECK_PROGRESS);
        let earlier = match resume.then(|| crate::input::read_text(&path, crate::input::LARGE_FILE_BYTES)) {
            Some(Ok(text)) => crate::jsonl::parse_complete_lines::<LeafSearch>(&path, &text, 1)?.0,
            None => Vec::new(),
            Some(Err(err)) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Some(Err(source)) => return Err(ProofError::Io { path, source }),
        };
        let held = earlier.len();
        let mut progress = crate::jsonl::Appender::open(&path).map_err(io_error(&path))?;
        self.earlier = earlier;
        self.on_leaf = Box::new(move |place, count, leaf| {
            progress.append(leaf).map_err(io_error(&path))?;
            tell(place, count, leaf);
            Ok(())
        });
        Ok(held)
    }
}

/// One leaf searched again, as a check's transcript and its progress write it: the position, the
/// claim, confirmed or not, nodes and seconds.
impl fmt::Display for LeafSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {} ({} nodes, {:.1} s{})",
            self.position,
            self.claim,
            if self.confirmed { "confirmed" } else { "NOT confirmed" },
            self.nodes,
            self.seconds,
            if self.earlier { ", by an earlier run" } else { "" }
        )
    }
}

/// A seed for a check's sample that differs from run to run: the clock's nanoseconds.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

/// Where a check's transcript written today goes in a proof's directory: `check-YYYY-MM-DD.txt`
/// (the date in UTC), the name [`crate::proof::proven`] looks for.
pub fn transcript_path(dir: &Path) -> PathBuf {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    dir.join(format!("check-{year:04}-{month:02}-{day:02}.txt"))
}

/// How a transcript names the logs it checked: this, then their digest.
pub const LOGS_LINE: &str = "logs: ";

impl CheckReport {
    /// Whether the proof is complete and every sampled leaf was confirmed.
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Proven && self.leaves_confirmed()
    }

    /// Whether the logs refute the claim and every sampled leaf of the refutation was confirmed.
    pub fn refutation_passed(&self) -> bool {
        self.verdict == Verdict::Refuted && self.leaves_confirmed()
    }

    fn leaves_confirmed(&self) -> bool {
        !self.interrupted && self.confirmed == self.sampled && self.problems.is_empty()
    }

    /// The check's report on `spec` as text, the leaves chosen by `seed`, of the logs whose
    /// [`logs_digest`](super::log::logs_digest) is `logs`: what `kalah proof check` prints, what a
    /// committed `check-*.txt` transcript holds, and what [`crate::proof::proven`] reads back.
    pub fn transcript(&self, spec: &Spec, seed: u64, logs: &str) -> String {
        let (verdict, size) = self.heading(spec);
        let mut text = format!("{verdict}\n{size} (seed {seed})\n{LOGS_LINE}{logs}\n");
        for leaf in &self.searched {
            text += &format!("  {leaf}\n");
        }
        for problem in &self.problems {
            text += &format!("  problem: {problem}\n");
        }
        text
    }

    /// The first two lines of the check's report on `spec`, as `kalah proof check` prints them
    /// and [`crate::proof::proven`] reads them back from a committed transcript: the verdict, then
    /// the proof's size and how many leaves were searched again (without the seed that chose them,
    /// which the printed line adds as ` (seed N)`).
    pub fn heading(&self, spec: &Spec) -> (String, String) {
        let verdict = if self.passed() {
            "CHECKED"
        } else if self.refutation_passed() {
            "REFUTED, the refutation CHECKED"
        } else {
            "NOT CHECKED"
        };
        let kind = if self.verdict == Verdict::Refuted { "refutation" } else { "proof" };
        (
            format!("claim value {} at {} ({} rules): {verdict}", spec.claim, spec.root, spec.rules),
            format!(
                "{kind}: {} nodes, {} leaves answered by search or database; {} searched again, {} confirmed",
                self.proof_nodes, self.proof_leaves, self.sampled, self.confirmed
            ),
        )
    }
}

/// Every turn of the mover at `position`, as turn texts, by the rules alone.
fn turns(rules: &Rules, position: &Position) -> HashSet<String> {
    fn extend(rules: &Rules, at: &Position, prefix: &mut Vec<u8>, out: &mut HashSet<String>) {
        for house in 0..at.houses() {
            if at.mover_houses()[house] == 0 {
                continue;
            }
            let mut child = *at;
            let outcome = child.play(rules, house);
            prefix.push(house as u8 + 1);
            if outcome.extra_turn && !child.is_over(rules) {
                extend(rules, &child, prefix, out);
            } else {
                out.insert(Turn::new(prefix.clone()).to_string());
            }
            prefix.pop();
        }
    }
    let mut out = HashSet::new();
    if !position.is_over(rules) {
        extend(rules, position, &mut Vec::new(), &mut out);
    }
    out
}

/// Plays a turn text from `position` by the rules alone.
fn play(rules: &Rules, position: &Position, turn: &str) -> Option<Position> {
    let mut at = *position;
    for text in turn.split_whitespace() {
        let house: usize = text.parse().ok()?;
        if house == 0 || house > at.houses() || at.mover_houses()[house - 1] == 0 {
            return None;
        }
        at.play(rules, house - 1);
    }
    Some(at)
}

struct Checker<'a> {
    spec: &'a Spec,
    settled: HashMap<Position, &'a Settled>,
    expanded: HashMap<Position, &'a Expansion>,
    /// What `shows` found, by position and the answer asked about.
    shown: HashMap<(Position, bool), bool>,
    problems: Vec<String>,
}

impl Checker<'_> {
    fn question(&self, position: &Position) -> super::Claim {
        self.spec.node_claim(position)
    }

    fn problem(&mut self, problem: String) {
        if !self.problems.contains(&problem) {
            self.problems.push(problem);
        }
    }

    /// Whether the logged tree and the rules show that the prover's claim at `position` holds
    /// (`answer` true) or fails (`answer` false).
    fn shows(&mut self, position: &Position, answer: bool) -> bool {
        if let Some(&known) = self.shown.get(&(*position, answer)) {
            return known;
        }
        let rules = self.spec.rules;
        let question = self.question(position);
        let shown = if let Some(decided) = question.decided_by_seeds(&rules, position) {
            decided == answer
        } else if let Some(leaf) = self.settled.get(position).filter(|s| s.claim == question.to_string()) {
            leaf.holds == answer
        } else if let Some(&expansion) = self.expanded.get(position).filter(|e| e.claim == question.to_string()) {
            self.expansion_shows(position, expansion, answer)
        } else {
            false
        };
        self.shown.insert((*position, answer), shown);
        shown
    }

    fn expansion_shows(&mut self, position: &Position, expansion: &Expansion, answer: bool) -> bool {
        let rules = self.spec.rules;
        let legal = turns(&rules, position);
        let listed: HashSet<String> = expansion.children.iter().map(|(t, _)| t.clone()).collect();
        if legal != listed {
            let missing: Vec<&String> = legal.difference(&listed).collect();
            let extra: Vec<&String> = listed.difference(&legal).collect();
            self.problem(format!(
                "{position}: the expansion's turns are not the mover's (missing {missing:?}, not legal {extra:?})"
            ));
            return false;
        }
        let children: Vec<Position> = legal.iter().filter_map(|turn| play(&rules, position, turn)).collect();
        if self.chooses(position, answer) {
            children.iter().any(|child| self.shows(child, answer))
        } else {
            children.iter().all(|child| self.shows(child, answer))
        }
    }

    /// Whether one child suffices at `position` to show `answer`: the prover's nodes for a
    /// proof, the other side's for a refutation.
    fn chooses(&self, position: &Position, answer: bool) -> bool {
        (position.to_move() == self.spec.prover()) == answer
    }

    /// The nodes and the logged leaves of one proof (`answer` true) or refutation below `root`
    /// (which shows it): one showing child where one suffices (the first by position text),
    /// every child elsewhere.
    fn proof_leaves(&mut self, root: &Position, answer: bool) -> (Vec<Position>, Vec<Position>) {
        let rules = self.spec.rules;
        let (mut seen, mut leaves, mut stack) = (HashSet::new(), Vec::new(), vec![*root]);
        while let Some(at) = stack.pop() {
            if !seen.insert(at) {
                continue;
            }
            let question = self.question(&at);
            if question.decided_by_seeds(&rules, &at).is_some() {
                continue;
            }
            if self.settled.get(&at).is_some_and(|s| s.claim == question.to_string()) {
                leaves.push(at);
                continue;
            }
            let mut children: Vec<Position> =
                turns(&rules, &at).iter().filter_map(|turn| play(&rules, &at, turn)).collect();
            children.sort_by_key(|c| c.to_string());
            if self.chooses(&at, answer) {
                let first = children.into_iter().find(|child| self.shows(child, answer));
                stack.extend(first);
            } else {
                stack.extend(children);
            }
        }
        leaves.sort_by_key(|p| p.to_string());
        let mut nodes: Vec<Position> = seen.into_iter().collect();
        nodes.sort_by_key(|p| p.to_string());
        (nodes, leaves)
    }
}

/// Checks the proof of `spec` recorded in `records` (every line of every log): the tree by the
/// rules, then, with `resample`, a sample of its logged leaves searched again (none: no leaf is),
/// from an empty table: whatever the search held before (say the proof's own tasks' bounds, when
/// the run that grew the proof checks it) must not answer for a leaf.
pub fn check(spec: &Spec, records: &[Record], resample: Option<Resample<'_, '_>>) -> Result<CheckReport, ProofError> {
    let mut checker = Checker {
        spec,
        settled: HashMap::new(),
        expanded: HashMap::new(),
        shown: HashMap::new(),
        problems: Vec::new(),
    };
    for record in records {
        let position = parse_position(record.position()).map_err(|err| ProofError::Conflict {
            position: record.position().to_string(),
            message: format!("not a position: {err}"),
        })?;
        match record {
            Record::Settled(s) => {
                if let Some(old) = checker.settled.insert(position, s)
                    && (old.holds != s.holds || old.claim != s.claim)
                {
                    checker.problem(format!("{position}: settled both '{}' and '{}'", old.claim, s.claim));
                }
            }
            Record::Expanded(e) => {
                checker.expanded.insert(position, e);
            }
        }
    }
    let verdict = if checker.shows(&spec.root, true) {
        Verdict::Proven
    } else if checker.shows(&spec.root, false) {
        Verdict::Refuted
    } else {
        Verdict::Open
    };
    let mut report = CheckReport { verdict, complete: verdict == Verdict::Proven, ..CheckReport::default() };
    if verdict == Verdict::Open {
        checker.problem(format!("the logged tree neither proves nor refutes value {} at the root", spec.claim));
        report.problems = checker.problems;
        return Ok(report);
    }
    let (nodes, leaves) = checker.proof_leaves(&spec.root, verdict == Verdict::Proven);
    report.proof_nodes = nodes.len();
    report.proof_leaves = leaves.len();
    report.shown_at = nodes;
    if let Some(Resample { search, sample, seed, earlier, mut on_leaf, interrupt }) = resample {
        search.table().clear();
        let deadline = search.deadline();
        let raised = || {
            interrupt.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
                || deadline.is_some_and(|d| std::time::Instant::now() >= d)
        };
        let mut chosen = leaves.clone();
        chosen.sort_by_key(|p| xxhash_rust::xxh3::xxh3_64_with_seed(p.to_string().as_bytes(), seed));
        chosen.truncate(sample);
        // The flag cancels the searches of this check only: it is taken off again on every way out.
        search.set_cancel(interrupt.clone());
        let mut search_again = || -> Result<(), ProofError> {
            for (place, leaf) in chosen.iter().enumerate() {
                let question = spec.node_claim(leaf);
                let (position, claim) = (leaf.to_string(), question.to_string());
                let searched = match earlier.iter().find(|e| e.position == position && e.claim == claim) {
                    Some(found) => LeafSearch { earlier: true, ..found.clone() },
                    None if raised() => {
                        report.interrupted = true;
                        break;
                    }
                    None => {
                        let (beta, holds_if_at_least) = question.board_test(leaf);
                        let (clock, nodes_before) = (std::time::Instant::now(), search.stats().nodes);
                        let holds = match search.board_value_at_least(leaf, beta) {
                            Ok(value) => value == holds_if_at_least,
                            Err(SearchError::Cancelled { .. } | SearchError::TimeUp { .. }) => {
                                report.interrupted = true;
                                break;
                            }
                            Err(err) => return Err(err.into()),
                        };
                        let searched = LeafSearch {
                            position,
                            claim,
                            confirmed: holds == checker.settled[leaf].holds,
                            nodes: search.stats().nodes - nodes_before,
                            seconds: clock.elapsed().as_secs_f64(),
                            earlier: false,
                        };
                        on_leaf(place, chosen.len(), &searched)?;
                        searched
                    }
                };
                let confirmed = searched.confirmed;
                report.searched.push(searched);
                report.sampled += 1;
                if confirmed {
                    report.confirmed += 1;
                } else {
                    checker.problem(format!("{leaf}: the log says '{question}' {}, the search does not", {
                        if checker.settled[leaf].holds { "holds" } else { "fails" }
                    }));
                }
            }
            Ok(())
        };
        let searched_again = search_again();
        search.set_cancel(None);
        searched_again?;
    }
    report.problems = checker.problems;
    Ok(report)
}
