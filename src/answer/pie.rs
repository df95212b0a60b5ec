//! The pie rule's values within South's first turn: once that turn ends North may swap sides,
//! so a turn worth `v` to South keeps it only `-|v|`, and every position the turn passes
//! through is worth what its best way on keeps. Every front end values those positions so
//! under the pie rule; past the first turn the values are plain play's.

use super::bounds::{Bounds, Proven};
use crate::board::{Position, Side};
use crate::rules::Rules;

/// What the first player keeps under the swap (`-|v|`) of a turn worth `v` within `bounds`.
pub(crate) fn kept_after_swap(bounds: Bounds) -> Bounds {
    let (low, high) = (bounds.lower.abs(), bounds.upper.abs());
    let nearest_draw = if bounds.contains(0) { 0 } else { low.min(high) };
    Bounds { lower: -low.max(high), upper: -nearest_draw }
}

/// [`kept_after_swap`] with the proofs behind each bound, in a game of `total` seeds: the lower
/// bound rests on both of the turn's bounds (none where it is the seeds' own), the upper one on
/// the bound nearest a draw (none where the turn may be a draw: the swap alone caps it at 0).
fn kept_known(known: &Proven, total: u32) -> Proven {
    let bounds = kept_after_swap(known.bounds);
    let lower_proofs = match bounds.lower > -(total as i32) {
        true => known.lower_proofs.iter().chain(&known.upper_proofs).cloned().collect(),
        false => Vec::new(),
    };
    let upper_proofs = match (known.bounds.lower > 0, known.bounds.upper < 0) {
        (true, _) => known.lower_proofs.clone(),
        (_, true) => known.upper_proofs.clone(),
        _ => Vec::new(),
    };
    Proven::new(bounds, lower_proofs, upper_proofs)
}

/// Whether `position` lies within South's first turn of a game under the pie rule
/// ([`first_turn_start`]).
pub fn within_first_turn(rules: &Rules, position: &Position) -> bool {
    first_turn_start(rules, position).is_some()
}

/// Under the pie rule, the start whose first turn `position` lies within: the start itself, or a
/// start whose first turn's extra moves pass through `position`. (A position holds no history:
/// one that a first turn passes through is taken to be there.)
pub fn first_turn_start(rules: &Rules, position: &Position) -> Option<Position> {
    fn passes(rules: &Rules, at: &Position, target: &Position) -> bool {
        // Each sowing of the turn adds a seed to South's store.
        at == target
            || at.store(Side::South) < target.store(Side::South)
                && at.legal_moves().any(|house| {
                    let mut child = *at;
                    child.play(rules, house).extra_turn && !child.is_over(rules) && passes(rules, &child, target)
                })
    }
    if !rules.pie || position.to_move() != Side::South {
        return None;
    }
    let start = start_with_seeds_of(position)?;
    passes(rules, &start, position).then_some(start)
}

/// The start of `position`'s board with as many seeds a house as its seeds share out (`None`
/// where there is none such).
fn start_with_seeds_of(position: &Position) -> Option<Position> {
    Position::start(position.houses(), position.total_seeds() / (2 * position.houses() as u32)).ok()
}

/// Whether `position` is where South's first turn of a game under the pie rule leaves North to
/// move: where North may swap sides. (As for [`first_turn_start`], a position holds no history.)
pub fn ends_first_turn(rules: &Rules, position: &Position) -> bool {
    rules.pie
        && position.to_move() == Side::North
        && start_with_seeds_of(position)
            .is_some_and(|start| crate::moves::first_turns(rules, &start).iter().any(|(_, end)| end == position))
}

/// Each legal move of `position` (within South's first turn, [`within_first_turn`]) by house
/// 0..m, with what South keeps after it under the pie rule: the final margin where the game
/// ends; the best of the turn's ways on where South moves again; else [`kept_after_swap`] of
/// the turn's value, from `turn_end`'s value of the position the turn leaves for North, its mover.
pub fn first_turn_moves<E>(
    rules: &Rules,
    position: &Position,
    turn_end: &mut impl FnMut(&Position) -> Result<Proven, E>,
) -> Result<Vec<(usize, Proven)>, E> {
    let mut moves = Vec::new();
    for house in position.legal_moves() {
        let mut child = *position;
        child.play(rules, house);
        let known = if child.is_over(rules) {
            Proven::unproven(Bounds::exact(child.final_margin_for(rules, Side::South)))
        } else if child.to_move() == Side::South {
            let ways_on = first_turn_moves(rules, &child, turn_end)?;
            first_turn_best(&ways_on).expect("a position not over has a legal move")
        } else {
            kept_known(&-turn_end(&child)?, position.total_seeds())
        };
        moves.push((house, known));
    }
    Ok(moves)
}

/// The best of `moves` within the first turn ([`Proven::or_better`] of them all), its upper bound
/// resting on no proof where it is 0 or more: no turn keeps more than 0 after the swap, and a
/// game that ends within the turn is worth its final margin exactly. `None` without moves.
pub fn first_turn_best(moves: &[(usize, Proven)]) -> Option<Proven> {
    let best = Proven::best_of(moves.iter().map(|(_, known)| known))?;
    Some(match best.bounds.upper >= 0 {
        true => Proven { upper_proofs: Vec::new(), ..best },
        false => best,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Solver;

    #[test]
    fn the_first_turn_is_the_start_what_its_extra_moves_pass_through_and_where_it_ends() {
        let pie = Rules { pie: true, ..Rules::STANDARD };
        let start = Position::start(6, 4).unwrap();
        assert!(within_first_turn(&pie, &start));
        assert!(!within_first_turn(&Rules::STANDARD, &start), "no pie rule, no swap");
        // 3 ends in South's store (an extra turn); 1 does not: North may swap after it.
        for (house, within) in [(2, true), (0, false)] {
            let mut after = start;
            after.play(&pie, house);
            assert_eq!(within_first_turn(&pie, &after), within, "{after}");
            assert_eq!(ends_first_turn(&pie, &after), !within, "{after}");
            assert!(!ends_first_turn(&Rules::STANDARD, &after));
        }
        // Past North's reply the pie rule is out of play.
        let mut reply = start;
        reply.play(&pie, 0);
        reply.play(&pie, 0);
        assert!(!within_first_turn(&pie, &reply) && !ends_first_turn(&pie, &reply), "{reply}");
    }

    /// Under the pie rule each move of Kalah(4,2)'s and Kalah(3,3)'s first turns keeps what the
    /// best of its turns keeps after the swap, from every turn's value by the plain solver; the
    /// best move's is the pie value.
    #[test]
    fn first_turn_moves_keep_what_their_best_turn_keeps_after_the_swap() {
        for (houses, seeds) in [(4, 2), (3, 3)] {
            let pie = Rules { pie: true, ..Rules::STANDARD };
            let mut solver = Solver::new(Rules::STANDARD).unwrap();
            let start = Position::start(houses, seeds).unwrap();
            let turns = crate::moves::first_turns(&pie, &start);
            let turn_values: Vec<i32> = turns.iter().map(|(_, after)| -solver.value(after)).collect();
            let mut exact = |p: &Position| Ok::<_, ()>(Proven::unproven(Bounds::exact(solver.value(p))));
            let moves = first_turn_moves(&pie, &start, &mut exact).unwrap();
            for (house, known) in &moves {
                let kept = turns.iter().zip(&turn_values).filter(|(turn, _)| turn.0.houses()[0] as usize == house + 1);
                assert_eq!(known.value(), kept.map(|(_, v)| -v.abs()).max(), "{houses}x{seeds}, house {}", house + 1);
            }
            let best = moves.iter().filter_map(|(_, known)| known.value()).max();
            assert_eq!(best, crate::answer::pie_value(turn_values.iter().copied()));
        }
    }

    /// Bounds keep their proofs where the swap leaves them meaning: an open turn may be a draw
    /// (no proof caps it), a won turn keeps at most minus its lower bound.
    #[test]
    fn kept_bounds_rest_on_the_proofs_of_the_turns_bounds() {
        let proof = |name: &str| vec![name.to_string()];
        let open = Proven::new(Bounds { lower: -2, upper: 4 }, proof("ge"), proof("le"));
        let both = vec!["ge".to_string(), "le".to_string()];
        assert_eq!(kept_known(&open, 72), Proven::new(Bounds { lower: -4, upper: 0 }, both.clone(), vec![]));
        let won = Proven::new(Bounds { lower: 2, upper: 4 }, proof("ge"), proof("le"));
        let kept = kept_known(&won, 72);
        assert_eq!(
            (kept.bounds, &kept.lower_proofs, &kept.upper_proofs),
            (Bounds { lower: -4, upper: -2 }, &both, &proof("ge"))
        );
        let at_most = Proven::new(Bounds { lower: -72, upper: 4 }, vec![], proof("le"));
        assert_eq!(kept_known(&at_most, 72), Proven::unproven(Bounds { lower: -72, upper: 0 }));
    }
}
