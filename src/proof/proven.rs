//! What the checked proofs in the repository establish, as bounds on positions' values that any
//! front end may serve without a search.
//!
//! A proof counts once two things agree: its logs decide its claim by the rules (the check's walk
//! of the logged tree, which needs no search), and a check transcript committed beside them
//! (`check-*.txt`, the output of `kalah proof check`) says that the same proof or refutation, of
//! the same size, was CHECKED with every one of its leaves searched again and confirmed. Every
//! node of that proof or refutation then has its question answered the way the verdict says: the
//! root's claim, and below it each node's own bound (see `Spec::node_claim`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::log::read_records;
use super::{Bound, Claim, Spec, Tree, Verdict, check};
use crate::answer::{Bounds, Proven};
use crate::board::Position;
use crate::engine::proven_index::ProvenPosition;
use crate::rules::Rules;

/// A bound on a position's value for its side to move, stores included, and the proof that
/// establishes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenBound {
    /// The rules it holds under.
    pub rules: Rules,
    /// The position.
    pub position: Position,
    /// The bound for the position's side to move.
    pub claim: Claim,
    /// The proof's directory, as found.
    pub proof: String,
}

/// A proof that counts: the bounds it establishes and what its logs say it cost.
#[derive(Clone, Debug)]
pub struct CheckedProof {
    /// Its directory, as found.
    pub dir: String,
    /// The bound of every node of its proof or refutation.
    pub bounds: Vec<ProvenBound>,
    /// Nodes searched in all its runs.
    pub nodes: u64,
    /// Seconds of task time in all its runs.
    pub seconds: f64,
}

/// Why a proof counts for nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Uncounted {
    /// Not yet: its logs decide nothing, or no committed transcript checked what they hold.
    NotYet(String),
    /// Its files cannot be read, or its logs contradict themselves or the rules: a damaged or
    /// forged proof, which a map or an index must not leave out in silence.
    Unreadable(String),
}

impl std::fmt::Display for Uncounted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Uncounted::NotYet(why) => f.write_str(why),
            Uncounted::Unreadable(why) => write!(f, "cannot be read: {why}"),
        }
    }
}

/// The proof in `dir` with the bounds it establishes, or why it establishes none.
pub(crate) fn checked_proof(dir: &Path) -> Result<CheckedProof, Uncounted> {
    let unreadable = |err: &dyn std::fmt::Display| Uncounted::Unreadable(err.to_string());
    let spec = Spec::load(dir).map_err(|err| unreadable(&err))?;
    let records = read_records(dir).map_err(|err| unreadable(&err))?;
    let logs = super::log::logs_digest(dir).map_err(|err| unreadable(&err))?;
    let walk = check(&spec, &records, None).map_err(|err| unreadable(&err))?;
    let disagreeing = super::shared::disagreeing_shared_leaves(dir, &spec, &records);
    if !disagreeing.is_empty() {
        return Err(Uncounted::Unreadable(disagreeing.join("; ")));
    }
    let holds = match walk.verdict {
        Verdict::Proven => true,
        Verdict::Refuted => false,
        Verdict::Open => return Err(Uncounted::NotYet("its logs decide nothing yet".to_string())),
    };
    let mut confirmed = walk.clone();
    (confirmed.sampled, confirmed.confirmed) = (walk.proof_leaves, walk.proof_leaves);
    if !confirmed.passed() && !confirmed.refutation_passed() {
        return Err(Uncounted::Unreadable(format!("its logs are inconsistent: {}", walk.problems.join("; "))));
    }
    let (verdict, size) = confirmed.heading(&spec);
    let transcript = transcripts(dir).map_err(Uncounted::Unreadable)?.into_iter().find(|text| {
        // The three lines `kalah proof check` begins with, wherever the transcript has them.
        let lines: Vec<&str> = text.lines().collect();
        let logs_line = format!("{}{logs}", check::LOGS_LINE);
        lines.windows(3).any(|w| w[0] == verdict && w[1].starts_with(&size) && w[2] == logs_line)
    });
    if transcript.is_none() {
        return Err(Uncounted::NotYet(format!(
            "no check-*.txt transcript says '{verdict}' of every leaf of the proof its logs hold ('{size}'), \
             of these logs ({logs})"
        )));
    }
    let proof = dir.display().to_string();
    let bounds = walk
        .shown_at
        .iter()
        .map(|position| {
            let question = spec.node_claim(position);
            let claim = if holds { question } else { question.complement() };
            ProvenBound {
                rules: spec.rules,
                position: *position,
                claim: claim.with_parity(&spec.rules, position),
                proof: proof.clone(),
            }
        })
        .collect();
    let mut tree = Tree::new(spec);
    for record in records {
        tree.add(record).map_err(|err| unreadable(&err))?;
    }
    tree.check_root().map_err(|err| unreadable(&err))?;
    let (nodes, seconds) = tree.records().cost();
    Ok(CheckedProof { dir: proof, bounds, nodes, seconds })
}

/// The text of every `check-*.txt` in `dir`, by name.
fn transcripts(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("check-") && name.ends_with(".txt")
        })
        .collect();
    paths.sort();
    let read = |path: &PathBuf| crate::input::read_text(path, crate::input::SMALL_FILE_BYTES);
    paths.iter().map(|path| read(path).map_err(|err| format!("{}: {err}", path.display()))).collect()
}

/// Every proof under `root` that counts, and each other one with why it does not.
pub fn checked_proofs(root: &Path) -> (Vec<CheckedProof>, Vec<(PathBuf, Uncounted)>) {
    let (mut checked, mut left_out) = (Vec::new(), Vec::new());
    for dir in super::proof_dirs(root) {
        match checked_proof(&dir) {
            Ok(proof) => checked.push(proof),
            Err(why) => left_out.push((dir, why)),
        }
    }
    (checked, left_out)
}

/// `Err` naming every proof of `left_out` that cannot be read: what a map or an index refuses to
/// be made without (unless asked to keep going).
pub fn refuse_unreadable(left_out: &[(PathBuf, Uncounted)]) -> Result<(), String> {
    let unreadable: Vec<String> = left_out
        .iter()
        .filter(|(_, why)| matches!(why, Uncounted::Unreadable(_)))
        .map(|(dir, why)| format!("{}: {why}", dir.display()))
        .collect();
    match unreadable.is_empty() {
        true => Ok(()),
        false => Err(format!("{} (--keep-going leaves it out)", unreadable.join("; "))),
    }
}

/// What the `checked` proofs establish at every position of their proofs and refutations, one
/// entry a rule set and position, for the side to move: the tightest bound on each side with
/// every proof that reaches it. Sorted by rules, then position. `Err` where two proofs
/// contradict each other.
pub fn proven_positions(checked: &[CheckedProof]) -> Result<Vec<ProvenPosition>, String> {
    let mut by_position: BTreeMap<(String, String), Proven> = BTreeMap::new();
    for bound in checked.iter().flat_map(|proof| &proof.bounds) {
        let rules = bound.rules.for_values();
        let key = (rules.to_string(), bound.position.to_string());
        let known =
            by_position.entry(key).or_insert_with(|| Proven::unproven(Bounds::unknown(bound.position.total_seeds())));
        let (value, proof) = (bound.claim.value, bound.proof.clone());
        let (tighter, same) = match bound.claim.bound {
            Bound::AtLeast => (value > known.bounds.lower, value == known.bounds.lower),
            Bound::AtMost => (value < known.bounds.upper, value == known.bounds.upper),
        };
        let (limit, proofs) = match bound.claim.bound {
            Bound::AtLeast => (&mut known.bounds.lower, &mut known.lower_proofs),
            Bound::AtMost => (&mut known.bounds.upper, &mut known.upper_proofs),
        };
        if tighter {
            (*limit, *proofs) = (value, vec![proof]);
        } else if same && !proofs.contains(&proof) {
            proofs.push(proof);
            proofs.sort_unstable();
        }
    }
    by_position
        .into_iter()
        .map(|((rules, position), known)| {
            if known.bounds.lower > known.bounds.upper {
                return Err(format!(
                    "{position} ({rules}): {:?} prove at least {}, {:?} at most {}",
                    known.lower_proofs, known.bounds.lower, known.upper_proofs, known.bounds.upper
                ));
            }
            Ok(ProvenPosition { rules, position, known })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::proven_index::{SHIPPED_POSITIONS, positions_text};
    use crate::notation::parse_position;

    fn proofs_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/proofs")
    }

    fn claim_at(proof: &CheckedProof, position: &Position) -> Option<Claim> {
        proof.bounds.iter().find(|b| b.position == *position).map(|b| b.claim)
    }

    /// A proof serves its claim at its root and its node's bound at each inner node and leaf; a
    /// refutation serves the complement of each.
    #[test]
    fn a_proof_serves_every_node_and_a_refutation_their_complements() {
        let start = Position::start(6, 6).unwrap();
        let proof = checked_proof(&proofs_root().join("discard-6x6-ge-3")).unwrap();
        assert_eq!(claim_at(&proof, &start), Some(">= 3".parse().unwrap()));
        // A leaf searched by the check (its transcript's first leaf), North to move.
        let leaf = parse_position("1 8 0 0 9 9 3 8 1 9 8 8 7 1 N").unwrap();
        assert_eq!(claim_at(&proof, &leaf), Some("<= -3".parse().unwrap()));
        // An inner node: after South's 1 3, North to move, every reply shown.
        let after = "1 3".parse::<crate::moves::Turn>().unwrap().play(&Rules::STANDARD, &start).unwrap();
        assert_eq!(claim_at(&proof, &after), Some("<= -3".parse().unwrap()));
        let refuted = checked_proof(&proofs_root().join("discard-6x6-ge-4")).unwrap();
        assert_eq!(claim_at(&refuted, &start), Some("<= 3".parse().unwrap()), ">= 4 refuted");
        assert!(refuted.bounds.iter().all(|b| match b.position.to_move() {
            crate::board::Side::South => b.claim == "<= 3".parse().unwrap(),
            crate::board::Side::North => b.claim == ">= -3".parse().unwrap(),
        }));
    }

    #[test]
    fn a_proof_without_its_check_transcript_is_not_served() {
        let root = tempfile::tempdir().unwrap();
        // The proof, and beside it the one its shared leaves name, without their transcripts.
        for name in ["discard-6x6-ge-3", "discard-6x6-ge-4"] {
            std::fs::create_dir(root.path().join(name)).unwrap();
            for file in ["proof.toml", "log.jsonl"] {
                std::fs::copy(proofs_root().join(name).join(file), root.path().join(name).join(file)).unwrap();
            }
        }
        let dir = root.path().join("discard-6x6-ge-3");
        let not_yet = |why: Uncounted| matches!(why, Uncounted::NotYet(why) if why.contains("transcript"));
        assert!(not_yet(checked_proof(&dir).unwrap_err()));
        // The transcript its check wrote counts, with the logs it checked.
        let own = proofs_root().join("discard-6x6-ge-3/check-2026-11-29.txt");
        std::fs::copy(&own, dir.join("check-own.txt")).unwrap();
        assert!(checked_proof(&dir).is_ok());
        std::fs::remove_file(dir.join("check-own.txt")).unwrap();
        // Without the proof its shared leaves name, it cannot be read.
        std::fs::rename(root.path().join("discard-6x6-ge-4"), root.path().join("elsewhere")).unwrap();
        let why = checked_proof(&dir).unwrap_err();
        assert!(matches!(&why, Uncounted::Unreadable(why) if why.contains("discard-6x6-ge-4")), "{why:?}");
        std::fs::rename(root.path().join("elsewhere"), root.path().join("discard-6x6-ge-4")).unwrap();
        // A transcript of another proof does not count either.
        let other = proofs_root().join("discard-6x6-ge-4/check-2026-11-29.txt");
        std::fs::copy(other, dir.join("check-2026-11-29.txt")).unwrap();
        assert!(not_yet(checked_proof(&dir).unwrap_err()));
        // A damaged log is not a proof not yet checked: it cannot be read, and maps refuse it.
        let log = dir.join("log.jsonl");
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::write(&log, text.replacen("\"kind\"", "\"kind\" oops", 1)).unwrap();
        let why = checked_proof(&dir).unwrap_err();
        assert!(matches!(why, Uncounted::Unreadable(_)), "{why:?}");
        let refused = refuse_unreadable(&[(dir.clone(), why)]).unwrap_err();
        assert!(refused.contains("cannot be read") && refused.contains("--keep-going"), "{refused}");
    }

    /// Playing first by the proofs of a small board (every first turn driven to its exact value
    /// with tiny tasks, so the trees are deep): against every reply, each move the index of
    /// proven positions picks keeps the bound proven there, as the exact solver confirms, down
    /// to the proofs' leaves; and every bound the index gives holds.
    #[test]
    fn the_proofs_strategy_keeps_the_proven_value_against_every_reply() {
        use std::collections::HashMap;
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;

        use crate::engine::ProvenIndex;
        use crate::engine::book::OpeningBook;
        use crate::search::{Search, SearchOptions};

        let rules = Rules::STANDARD;
        for (houses, seeds) in [(4, 4), (5, 2)] {
            let tmp = tempfile::tempdir().unwrap();
            let (proofs, stem) = (tmp.path().join("proofs"), tmp.path().join("openings"));
            let start = Position::start(houses, seeds).unwrap();
            let mut solver = crate::solve::Solver::new(rules).unwrap();
            let value = solver.value(&start);
            // The first player's best first turn, tested at its value (proven) and above it
            // (refuted), with tasks so small that the trees go deep.
            let (turn, after) = crate::moves::first_turns(&rules, &start)
                .into_iter()
                .find(|(_, after)| -solver.value(after) == value)
                .unwrap();
            let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
            let mut search = Search::new(rules, None, &options).unwrap();
            let name = format!("{houses}x{seeds}");
            let drive = crate::proof::openings::Drive {
                rules,
                start,
                start_name: &name,
                proofs: &proofs,
                stem: &stem,
                turns: std::slice::from_ref(&turn),
                guesses: &HashMap::from([(turn.clone(), value)]),
                task_nodes: Some(3),
                deadline: None,
                interrupt: Arc::new(AtomicBool::new(false)),
                templates_from: None,
            };
            crate::proof::openings::drive(&drive, &mut search, &|_| {}).unwrap();
            let (checked, left_out) = checked_proofs(&proofs);
            assert!(left_out.is_empty() && checked.len() == 2, "{left_out:?}");
            let text = positions_text(&proven_positions(&checked).unwrap());
            let index = ProvenIndex::new(OpeningBook::default(), "drive", &text).unwrap();
            // Every reply, the proofs' move after each.
            let (mut stack, mut chosen, mut leaves, mut outside) = (vec![after], 0, 0, 0);
            while let Some(at) = stack.pop() {
                if at.is_over(&rules) {
                    continue;
                }
                let true_value = solver.value(&at);
                let Some(known) = index.bounds(&rules, &at) else {
                    leaves += 1;
                    continue;
                };
                assert!(known.bounds.contains(true_value), "{at}: {} but {true_value}", known.bounds);
                let first_player = at.to_move() == start.to_move();
                if !first_player {
                    assert!(known.bounds.upper <= -value || known.upper_proofs.is_empty(), "{at}");
                    for house in at.legal_moves() {
                        let mut child = at;
                        child.play(&rules, house);
                        stack.push(child);
                    }
                    continue;
                }
                if known.bounds.lower < value {
                    // Below a leaf of the proof (a task settled the reply before it), where a
                    // search finds the move: nothing for the index to keep.
                    outside += 1;
                    continue;
                }
                let line = index.proven_line(&rules, &at);
                let Some(step) = line.line.first() else {
                    // A leaf of the proofs: its task proved the bound; a search plays on from here.
                    leaves += 1;
                    continue;
                };
                let mut child = at;
                child.play(&rules, step.played.played.house - 1);
                let kept = if child.to_move() == at.to_move() { solver.value(&child) } else { -solver.value(&child) };
                assert!(
                    kept >= known.bounds.lower,
                    "{at}: move {} keeps {kept} < {}",
                    step.played.played.house,
                    known.bounds
                );
                chosen += 1;
                stack.push(child);
            }
            assert!(
                chosen >= 3 && leaves >= 1,
                "{name} after {turn}: {chosen} moves chosen, {leaves} leaves, {outside} outside"
            );
        }
    }

    /// The shipped proven positions are what the committed proofs establish: `kalah proof index`
    /// rewrites the file after a proof is checked.
    #[test]
    fn the_shipped_proven_positions_are_those_of_the_committed_proofs() {
        let (checked, _) = checked_proofs(&proofs_root());
        let mut positions = proven_positions(&checked).unwrap();
        for position in &mut positions {
            let relative = |names: &mut Vec<String>| {
                for name in names {
                    *name =
                        name.rsplit_once("data/proofs/").map_or(name.clone(), |(_, dir)| format!("data/proofs/{dir}"));
                }
            };
            relative(&mut position.known.lower_proofs);
            relative(&mut position.known.upper_proofs);
        }
        assert!(
            positions_text(&positions) == SHIPPED_POSITIONS.1,
            "{} is not what the proofs establish: run `kalah proof index`",
            SHIPPED_POSITIONS.0
        );
    }
}
