//! The exact reference solver: fail-soft alpha-beta memoised on the houses alone, without
//! databases. It is the plain, trusted path that faster solvers are tested against, and it
//! solves every start with up to 4 houses in seconds.
//!
//! Values follow the project convention: the final store difference for the side to move under
//! perfect play. A position's value is its current store difference plus its *board value*, the
//! margin of the seeds still to be gained, which depends only on the houses; that is what the memo
//! holds. Early end is ignored: it never changes win/draw/loss, so values are full-play margins.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::answer::OpeningsTable;
use crate::board::{KeyHasher, MAX_SEEDS, Position};
use crate::moves::{Turn, first_turns};
use crate::rules::Rules;

/// Above any value: board values lie within ±MAX_SEEDS.
const INFINITY: i32 = MAX_SEEDS as i32 + 1;

/// A position this solver cannot handle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The rules let positions repeat, so plain recursion would not terminate.
    #[error(
        "clockwise sowing lets positions repeat: exact values need retrograde analysis, which this \
         forward solver does not do"
    )]
    Cycles,
}

/// Proven bounds on a board value; `lower == upper` once it is exact.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lower: i16,
    upper: i16,
}

/// An exact solver for one rule set, keeping what it proved between calls.
pub struct Solver {
    rules: Rules,
    /// Keyed by the house key and the houses per side: `a b c` on three houses reads the same
    /// as `a b c 0` on four.
    memo: HashMap<(u128, u8), Bounds, BuildHasherDefault<KeyHasher>>,
    nodes: u64,
}

impl Solver {
    /// A solver for `rules`; refused for rules whose positions can repeat.
    pub fn new(rules: Rules) -> Result<Solver, SolveError> {
        if rules.has_cycles() {
            return Err(SolveError::Cycles);
        }
        Ok(Solver { rules, memo: HashMap::default(), nodes: 0 })
    }

    /// The rules solved under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Positions expanded so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact value of `position` for the side to move, stores included.
    pub fn value(&mut self, position: &Position) -> i32 {
        position.margin() + self.board_value(position)
    }

    /// The exact margin of the seeds still to be gained from `position` by the side to move.
    pub fn board_value(&mut self, position: &Position) -> i32 {
        self.search(position, -INFINITY, INFINITY)
    }

    /// Fail-soft alpha-beta on the board value. Returns `v` with: `v <= alpha` means the value is
    /// at most `v`; `v >= beta` means at least `v`; otherwise `v` is exact.
    fn search(&mut self, position: &Position, mut alpha: i32, mut beta: i32) -> i32 {
        if position.is_over(&self.rules) {
            return position.without_stores().final_margin(&self.rules);
        }
        let key = (position.house_key(), position.houses() as u8);
        if let Some(&Bounds { lower, upper }) = self.memo.get(&key) {
            let (lower, upper) = (i32::from(lower), i32::from(upper));
            if lower == upper || lower >= beta {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        self.nodes += 1;

        // Children with their immediate gain, best-looking first: extra turns, then big gains.
        let base = position.without_stores();
        let mut children = [(base, false, 0i32); crate::board::MAX_HOUSES];
        let mut count = 0;
        for house in base.legal_moves() {
            let mut child = base;
            let outcome = child.play(&self.rules, house);
            let gain = if outcome.extra_turn { child.margin() } else { -child.margin() };
            children[count] = (child, outcome.extra_turn, gain);
            count += 1;
        }
        let children = &mut children[..count];
        children.sort_unstable_by_key(|&(_, extra_turn, gain)| (!extra_turn, -gain));

        let mut best = -INFINITY;
        for &(child, extra_turn, _) in children.iter() {
            let own = child.margin();
            let value = if extra_turn {
                own + self.search(&child, alpha.max(best) - own, beta - own)
            } else {
                -(own + self.search(&child, -beta - own, -alpha.max(best) - own))
            };
            best = best.max(value);
            if best >= beta {
                break;
            }
        }

        let entry = self.memo.entry(key).or_insert(Bounds { lower: -INFINITY as i16, upper: INFINITY as i16 });
        if best <= alpha {
            entry.upper = entry.upper.min(best as i16);
        } else if best >= beta {
            entry.lower = entry.lower.max(best as i16);
        } else {
            *entry = Bounds { lower: best as i16, upper: best as i16 };
        }
        best
    }
}

/// Solves `position` exactly: the value for the side to move and of every first turn.
pub fn analyse(solver: &mut Solver, position: &Position) -> OpeningsTable {
    analyse_with_progress(solver, position, |_, _| {})
}

/// As [`analyse`], calling `progress(done, total)` before the first opening and after each one.
pub(crate) fn analyse_with_progress(
    solver: &mut Solver,
    position: &Position,
    mut progress: impl FnMut(usize, usize),
) -> OpeningsTable {
    let rules = *solver.rules();
    let turns = first_turns(&rules, position);
    progress(0, turns.len());
    let openings: Vec<(Turn, i32)> = turns
        .iter()
        .enumerate()
        .map(|(i, (moves, after))| {
            let opening = (moves.clone(), -solver.value(after));
            progress(i + 1, turns.len());
            opening
        })
        .collect();
    OpeningsTable::solved(&rules, position, openings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_include_extra_turn_chains() {
        let start = Position::start(3, 3).unwrap();
        let turns: Vec<String> =
            first_turns(&Rules::STANDARD, &start).into_iter().map(|(m, _)| m.to_string()).collect();
        // House 1 (3 seeds) ends in the store; house 2 then has 4 seeds and passes the turn.
        assert!(turns.contains(&"1 2".to_string()), "{turns:?}");
        assert!(turns.iter().all(|t| !t.starts_with('1') || t.len() > 1), "{turns:?}");
    }

    #[test]
    fn the_pie_value_is_what_south_keeps_when_north_swaps_wisely() {
        let start = Position::start(4, 3).unwrap();
        let plain = analyse(&mut Solver::new(Rules::EMPTY_CAPTURE).unwrap(), &start);
        let pie_rules = Rules { pie: true, ..Rules::EMPTY_CAPTURE };
        let pie = analyse(&mut Solver::new(pie_rules).unwrap(), &start);
        assert_eq!(plain.value(), Some(8));
        let fairest = plain.openings.iter().map(|o| o.value().unwrap().abs()).min().unwrap();
        assert_eq!(pie.value(), Some(-fairest));
        assert!(pie.value() <= Some(0));
        assert!(
            pie.openings
                .iter()
                .filter(|o| pie.best.contains(&o.turn.to_string()))
                .all(|o| o.value().unwrap().abs() == fairest)
        );
    }

    #[test]
    fn one_solver_keeps_board_sizes_apart() {
        // Positions of Kalah(3,3) reappear as keys of Kalah(4,2) with an empty fourth house;
        // the published empty-capture Kalah(4,2) is +6 whatever was solved before.
        let mut solver = Solver::new(Rules::EMPTY_CAPTURE).unwrap();
        for (houses, seeds) in [(2, 3), (3, 2), (3, 3)] {
            solver.value(&Position::start(houses, seeds).unwrap());
        }
        assert_eq!(solver.value(&Position::start(4, 2).unwrap()), 6);
    }

    #[test]
    fn clockwise_rules_are_refused() {
        let cw = Rules { direction: crate::rules::Direction::Cw, ..Rules::STANDARD };
        assert!(matches!(Solver::new(cw), Err(SolveError::Cycles)));
    }
}
