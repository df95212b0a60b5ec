//! The map of a start: what the checked proofs establish about its value and each first turn's,
//! as one line of an openings result file (`data/results/openings-6x6.jsonl`), each bound with
//! the proofs behind it. A first turn's bounds are those proven at the position it leaves (for
//! the other side, so negated); the start's are those proven at the start, narrowed by its best
//! first turn: at least the best proven lower bound of a turn, at most the largest upper bound
//! of them all.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::Bound;
use super::proven::{CheckedProof, ProvenBound, Uncounted};
use crate::answer::{Bounds, Opening, OpeningsTable, Proven, Source, sorted_names};
use crate::board::Position;
use crate::moves::first_turns;
use crate::results::ItemResult;
use crate::rules::Rules;

/// What `bounds` prove at `position` under `rules`, for its side to move, within the `total`
/// seeds of the game, each bound with the proof behind it; `Err` when two proofs contradict each
/// other there.
fn proven_at(rules: &Rules, position: &Position, total: u32, bounds: &[ProvenBound]) -> Result<Proven, String> {
    if position.is_over(rules) {
        return Ok(Proven::unproven(Bounds::exact(position.final_margin(rules))));
    }
    let mut known = Proven::unproven(Bounds::unknown(total));
    let rules = rules.for_values();
    for bound in bounds.iter().filter(|b| b.rules.for_values() == rules && b.position == *position) {
        let value = bound.claim.value;
        match bound.claim.bound {
            Bound::AtLeast if value > known.bounds.lower => {
                known.bounds.lower = value;
                known.lower_proofs = vec![bound.proof.clone()];
            }
            Bound::AtMost if value < known.bounds.upper => {
                known.bounds.upper = value;
                known.upper_proofs = vec![bound.proof.clone()];
            }
            _ => {}
        }
    }
    if known.bounds.lower > known.bounds.upper {
        return Err(format!(
            "{position}: {} proves at least {} and {} at most {}",
            known.lower_proofs.first().map_or("", |s| s),
            known.bounds.lower,
            known.upper_proofs.first().map_or("", |s| s),
            known.bounds.upper
        ));
    }
    Ok(known)
}

/// The map of `start` under `rules` from what the checked `proofs` establish, as item `item` of
/// the openings job `job`, with the cost (`nodes`, `seconds`) of the proofs it rests on; `Err`
/// when proofs contradict each other.
pub fn opening_map_of(
    rules: &Rules,
    start: &Position,
    name: (&str, usize, &str),
    proofs: &[&CheckedProof],
) -> Result<ItemResult, String> {
    let bounds: Vec<ProvenBound> = proofs.iter().flat_map(|p| p.bounds.iter().cloned()).collect();
    let mut result = opening_map(rules, start, name, &bounds)?;
    let table = &result.table;
    let used: BTreeSet<&String> = table
        .openings
        .iter()
        .flat_map(|o| o.known.lower_proofs.iter().chain(&o.known.upper_proofs))
        .chain(table.known.lower_proofs.iter().chain(&table.known.upper_proofs))
        .collect();
    // Summed in the order of the proofs' names, not the order they were read in (a directory's),
    // so that the same proofs always give the same seconds, to the last bit of the result files.
    let mut costs: Vec<&CheckedProof> = proofs.iter().copied().filter(|p| used.contains(&p.dir)).collect();
    costs.sort_by(|a, b| a.dir.cmp(&b.dir));
    (result.nodes, result.seconds) = costs.iter().fold((0, 0.0), |(n, s), p| (n + p.nodes, s + p.seconds));
    Ok(result)
}

/// The map of `start` under `rules` from `bounds`, as item `item` of the openings job `job`, its
/// cost not counted; `Err` when proofs contradict each other.
fn opening_map(
    rules: &Rules,
    start: &Position,
    (job, item, start_name): (&str, usize, &str),
    bounds: &[ProvenBound],
) -> Result<ItemResult, String> {
    let total = start.total_seeds();
    let mut openings = Vec::new();
    let mut turns = Vec::new();
    for (moves, after) in first_turns(rules, start) {
        let known = -proven_at(rules, &after, total, bounds)?;
        openings.push(Opening::new(moves, known.clone()));
        turns.push(known);
    }
    let mut known = proven_at(rules, start, total, bounds)?;
    if let Some(best) = turns.iter().max_by_key(|t| t.bounds.lower)
        && best.bounds.lower > known.bounds.lower
    {
        known.bounds.lower = best.bounds.lower;
        known.lower_proofs = best.lower_proofs.clone();
    }
    let most = turns.iter().map(|t| t.bounds.upper).max().unwrap_or(known.bounds.upper);
    if most < known.bounds.upper {
        known.bounds.upper = most;
        known.upper_proofs = sorted_names(turns.iter().flat_map(|t| t.upper_proofs.iter().cloned()).collect());
    }
    if known.bounds.lower > known.bounds.upper {
        return Err(format!(
            "{start}: the proofs of its first turns contradict those of the start ({:?} against {:?})",
            known.lower_proofs, known.upper_proofs
        ));
    }
    Ok(ItemResult {
        job: job.to_string(),
        item,
        start: start_name.to_string(),
        compute: "openings".to_string(),
        table: OpeningsTable::new(rules, start, known, openings, Source::Proof),
        holds: None,
        nodes: 0,
        seconds: 0.0,
    })
}

/// The lock of the result files `STEM.jsonl` and `.csv` (`STEM.jsonl.lock`), waited for while
/// another run holds it. Runs beside each other (`proof openings --turn`) that hold it from
/// before they read the proofs until [`write_map`] is done take turns: none loses another's line,
/// and the last to write has seen every proof the others mapped.
pub fn lock_map(stem: &Path) -> Result<crate::lock::FileLock, String> {
    let jsonl = crate::results::jsonl_path(stem);
    crate::lock::FileLock::beside_waiting(&jsonl, std::time::Duration::from_secs(60)).map_err(|err| err.to_string())
}

/// Puts `result` into the result files `STEM.jsonl` and `STEM.csv`: in place of the line for the
/// same rules and start, or after the others; items are numbered in file order. Either file is
/// written whole or not at all. Runs that may write the same files at once hold [`lock_map`]'s
/// lock from before they read the proofs until this returns.
pub fn write_map(stem: &Path, result: ItemResult) -> Result<(), String> {
    let mut results = crate::results::read_result_file(stem)?;
    match results
        .iter_mut()
        .find(|r| (&r.table.rules, &r.table.position) == (&result.table.rules, &result.table.position))
    {
        Some(line) => *line = result,
        None => results.push(result),
    }
    for (i, line) in results.iter_mut().enumerate() {
        line.item = i + 1;
    }
    let total = |r: &ItemResult| crate::notation::parse_position(&r.table.position).map_or(0, |p| p.total_seeds());
    crate::results::write_result_files(stem, &results, total).map_err(|err| err.to_string())
}

/// Maps `start` under `rules` (`start_name` in the files) from the checked proofs under `proofs`
/// into `stem`'s result files, [`lock_map`]'s lock held from the reading of the proofs to the
/// writing. Returns the map, with the cost of the proofs it rests on, and each proof under
/// `proofs` that does not count (yet), with why. A proof that cannot be read stops it with
/// nothing written, unless `keep_going`: a map without it would be weaker in silence.
pub fn remap(
    rules: &Rules,
    start: &Position,
    start_name: &str,
    (proofs, keep_going): (&Path, bool),
    stem: &Path,
) -> Result<(ItemResult, Vec<(PathBuf, Uncounted)>), String> {
    let _turn = lock_map(stem)?;
    let (checked, left_out) = super::proven::checked_proofs(proofs);
    if !keep_going {
        super::proven::refuse_unreadable(&left_out)?;
    }
    let mine: Vec<&CheckedProof> = checked
        .iter()
        .filter(|p| p.bounds.first().is_some_and(|b| b.rules.for_values() == rules.for_values()))
        .collect();
    let job = format!("openings-{}x{}", start.houses(), start.mover_houses()[0]);
    let result = opening_map_of(rules, start, (&job, 0, start_name), &mine)
        .map_err(|err| format!("the proofs contradict each other: {err}"))?;
    write_map(stem, result.clone())?;
    Ok((result, left_out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::Claim;

    fn bound(position: &Position, claim: &str, proof: &str) -> ProvenBound {
        ProvenBound {
            rules: Rules::STANDARD,
            position: *position,
            claim: claim.parse().unwrap(),
            proof: proof.to_string(),
        }
    }

    #[test]
    fn turns_bound_the_start_and_contradictions_are_refused() {
        let rules = Rules::STANDARD;
        let start = Position::start(4, 2).unwrap();
        let turns = first_turns(&rules, &start);
        let name = ("openings-4x2", 1, "4x2");
        // The other side holds South to at most +1 after every first turn: the start is at most +1.
        let mut bounds: Vec<ProvenBound> = turns.iter().map(|(_, after)| bound(after, ">= -1", "all")).collect();
        // One turn is at least +1 for South: the start too, and that turn is exact.
        bounds.push(bound(&turns[0].1, "<= -1", "one"));
        let map = opening_map(&rules, &start, name, &bounds).unwrap().table;
        assert_eq!((map.value(), map.known.bounds), (Some(1), Bounds::exact(1)));
        assert_eq!(
            (map.known.lower_proofs.clone(), map.known.upper_proofs.clone()),
            (vec!["one".to_string()], vec!["all".to_string()])
        );
        assert_eq!(map.openings[0].value(), Some(1));
        assert_eq!(map.best, vec![map.openings[0].turn.to_string()]);
        assert!(map.openings[1..].iter().all(|o| o.value().is_none() && o.bounds() == Bounds { lower: -16, upper: 1 }));
        // A proof at the start that says it is at least +2 contradicts them.
        bounds.push(bound(&start, ">= 2", "wrong"));
        let err = opening_map(&rules, &start, name, &bounds).unwrap_err();
        assert!(err.contains("contradict"), "{err}");
        // Bounds under other rules say nothing here.
        let other: Vec<ProvenBound> =
            bounds.iter().map(|b| ProvenBound { rules: "empty-capture".parse().unwrap(), ..b.clone() }).collect();
        let map = opening_map(&rules, &start, name, &other).unwrap().table;
        assert_eq!((map.value(), map.known.bounds), (None, Bounds { lower: -16, upper: 16 }));
        // The cost is that of the proofs the map rests on, no other's.
        let proof = |dir: &str, bounds: Vec<ProvenBound>, nodes: u64| CheckedProof {
            dir: dir.to_string(),
            bounds,
            nodes,
            seconds: nodes as f64,
        };
        let all = proof("all", turns.iter().map(|(_, after)| bound(after, ">= -1", "all")).collect(), 1_000);
        let one = proof("one", vec![bound(&turns[0].1, "<= -1", "one")], 200);
        let idle = proof("idle", vec![bound(&turns[0].1, "<= 3", "idle")], 30);
        let map = opening_map_of(&rules, &start, name, &[&all, &one, &idle]).unwrap();
        assert_eq!((map.table.value(), map.nodes, map.seconds), (Some(1), 1_200, 1_200.0));
        // The same proofs read in another order cost the same, to the last bit.
        let (mut all, mut one) = (all, one);
        (all.seconds, one.seconds) = (1e16, 1.0);
        let mut extra = proof("extra", vec![bound(&turns[1].1, ">= -1", "extra")], 0);
        extra.seconds = 1.0;
        let forward = opening_map_of(&rules, &start, name, &[&all, &one, &extra]).unwrap();
        let backward = opening_map_of(&rules, &start, name, &[&extra, &one, &all]).unwrap();
        assert_ne!((1e16 + 1.0) + 1.0, (1.0 + 1.0) + 1e16, "an order that changes the sum");
        assert_eq!(forward.seconds.to_bits(), backward.seconds.to_bits());
        assert_eq!(">= 2".parse::<Claim>().unwrap().complement(), "<= 1".parse().unwrap());
        assert_eq!("<= -3".parse::<Claim>().unwrap().complement(), ">= -2".parse().unwrap());
    }

    #[test]
    fn maps_written_at_once_under_the_lock_keep_every_line() {
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("openings-4xn");
        let rules = Rules::STANDARD;
        // Eight starts (4 houses, 1 to 8 seeds), each rewritten over and over by a thread of its own.
        std::thread::scope(|scope| {
            for seeds in 1..=8 {
                let stem = &stem;
                scope.spawn(move || {
                    let start = Position::start(4, seeds).unwrap();
                    let map = opening_map(&rules, &start, ("openings-4xn", 1, "4xn"), &[]).unwrap();
                    for _ in 0..20 {
                        let _turn = lock_map(stem).unwrap();
                        write_map(stem, map.clone()).unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(crate::results::jsonl_path(&stem)).unwrap();
        let mut positions: Vec<String> =
            text.lines().map(|line| serde_json::from_str::<ItemResult>(line).unwrap().table.position).collect();
        positions.sort();
        let mut expected: Vec<String> = (1..=8).map(|s| Position::start(4, s).unwrap().to_string()).collect();
        expected.sort();
        assert_eq!(positions, expected);
        assert!(!dir.path().join("openings-4xn.jsonl.lock").exists());
    }
}
