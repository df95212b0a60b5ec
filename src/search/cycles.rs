//! Forward search under rules whose positions repeat (clockwise sowing).
//!
//! Alpha-beta on board values in which a position that comes back on the line being searched
//! scores 0: play that goes round for ever banks nothing more. That gives the values the
//! retrograde analysis of [`crate::database::cyclic`] gives: for each threshold t, a side that
//! can force a margin of at least t > 0 can do so without ever repeating a position (its
//! strategy brings the target closer at every move), and a side that cannot is held off it by a
//! strategy that either repeats or ends lower; both are seen in the tree cut at repetitions.
//!
//! A value that depended on a repetition belongs to the line that led to it, not to the position
//! (graph-history interaction): such values are never stored in the transposition table, so every
//! bound the table holds is the position's own and any line may use it. The same holds for
//! positions the table answers while they are on the line: their stored bounds are exact facts,
//! and the tree cut at repetitions has the same value whichever of its nodes are replaced by
//! their true values.
//!
//! Each zero-window test runs in depth-limited rounds (see `Horizon` in the parent module): a
//! position at the end of a cut line counts as lost or won by all its seeds, a result that used
//! one is line-dependent like a repetition, and a round is believed only in the direction its
//! guess makes sound. Measured (`kalah solve 4x2 --direction cw --no-db --threads 1`, one core):
//! without rounds no value in 120 s (1.1 G nodes); with them 0.48 s, 1.3 M nodes.

use super::{Child, Horizon, NO_MOVE, Search, SearchError, move_order, seed_bound};
use crate::board::{MAX_HOUSES, Position};
use crate::database::MoveEffect;

/// The longest line searched, in the last round of a zero-window test: each move costs a stack
/// frame (under a kilobyte; the thread has 4 GiB).
pub(super) const MAX_LINE: usize = 1 << 21;

impl Search<'_> {
    /// One zero-window test at `beta` under cycles (`board` not settled): depth-limited rounds,
    /// pessimistic then optimistic, four times deeper each time, until one proves a bound. The
    /// next test starts at the depth that decided this one.
    pub(super) fn pass_cycles(&mut self, board: &Position, beta: i32) -> Result<i32, SearchError> {
        let mut moves = self.horizon.moves.clamp(self.first_horizon, MAX_LINE);
        loop {
            for pessimistic in [true, false] {
                self.horizon = Horizon { moves, pessimistic };
                self.line.clear();
                let (value, _) = self.search_cycles(board, beta - 1, beta, true)?;
                if (value >= beta) == pessimistic {
                    return Ok(value);
                }
            }
            if moves >= MAX_LINE {
                return Err(SearchError::LineTooLong { moves });
            }
            moves = (moves * 4).min(MAX_LINE);
        }
    }

    /// Sets the line length of the first depth-limited round of each zero-window test under
    /// cycles (64 by default; at least 1): tests set it low to exercise the deepening.
    pub fn set_first_horizon(&mut self, moves: usize) {
        self.first_horizon = moves.clamp(1, MAX_LINE);
        self.horizon.moves = self.first_horizon;
    }

    /// Fail-soft alpha-beta on the board value of `board` (stores empty, not over) under rules
    /// with cycles, lines cut at the horizon: the value (as `search` returns it) and whether it
    /// depended on the line (a repetition or the horizon). `root_side`: whether the side to move
    /// started the test.
    fn search_cycles(
        &mut self,
        board: &Position,
        mut alpha: i32,
        mut beta: i32,
        root_side: bool,
    ) -> Result<(i32, bool), SearchError> {
        self.count_node()?;
        let nodes_before = self.stats.nodes;
        let bound = seed_bound(board.seeds_on_board());
        if alpha >= bound {
            return Ok((bound, false));
        }
        if beta <= -bound {
            return Ok((-bound, false));
        }
        let key = board.house_key();
        let mut table_move = NO_MOVE;
        if let Some(known) = self.table.probe(key) {
            if known.lower >= beta || known.lower == known.upper {
                return Ok((known.lower, false));
            }
            if known.upper <= alpha {
                return Ok((known.upper, false));
            }
            alpha = alpha.max(known.lower);
            beta = beta.min(known.upper);
            table_move = known.best;
        }
        if self.line.contains(&key) {
            return Ok((0, true));
        }
        if self.line.len() >= self.horizon.moves {
            let lost = root_side == self.horizon.pessimistic;
            return Ok((if lost { -bound } else { bound }, true));
        }

        let mut children = [None::<Child>; MAX_HOUSES];
        let mut count = 0;
        for house in board.legal_moves() {
            let effect = MoveEffect::of(&self.rules, board, house);
            let own_gain = if effect.extra_turn { effect.gain } else { -effect.gain };
            let mut order = move_order(own_gain, effect.extra_turn, house);
            if house as u8 == table_move {
                order += 1 << 20;
            }
            children[count] = Some(Child { effect, house: house as u8, lower: 0, upper: 0, order });
            count += 1;
        }
        let children = &mut children[..count];
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.map_or(i32::MIN, |c| c.order)));

        self.line.insert(key);
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        let mut repeated = false;
        // The best value among the moves whose values are the position's own.
        let mut clean = i32::MIN;
        let mut failure = None;
        for child in children.iter().flatten() {
            let floor = alpha.max(best);
            let effect = &child.effect;
            let searched = match self.settled_child(effect) {
                Ok(Some(value)) => Ok((effect.value(value), false)),
                Ok(None) if effect.extra_turn => self
                    .search_cycles(&effect.child, floor - effect.gain, beta - effect.gain, root_side)
                    .map(|(value, child_repeated)| (effect.gain + value, child_repeated)),
                Ok(None) => self
                    .search_cycles(&effect.child, -beta - effect.gain, -floor - effect.gain, !root_side)
                    .map(|(value, child_repeated)| (-(effect.gain + value), child_repeated)),
                Err(err) => Err(err),
            };
            let value = match searched {
                Ok((value, false)) => {
                    clean = clean.max(value);
                    value
                }
                Ok((value, true)) => {
                    repeated = true;
                    value
                }
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            };
            if value > best {
                best = value;
                if value > floor {
                    best_move = child.house;
                }
            }
            if best >= beta {
                break;
            }
        }
        self.line.remove(&key);
        if let Some(err) = failure {
            return Err(err);
        }

        let work = self.stats.nodes - nodes_before + 1;
        if !repeated {
            if best <= alpha {
                self.table.store(key, -bound, best, NO_MOVE, work);
            } else if best >= beta {
                self.table.store(key, best, bound, best_move, work);
            } else {
                self.table.store(key, best, best, best_move, work);
            }
        } else if clean >= beta {
            // A move whose value owes nothing to the line reaches beta: a bound of the position's
            // own, and the value returned needs no repetition either.
            self.table.store(key, clean, bound, NO_MOVE, work);
            return Ok((clean, false));
        }
        Ok((best, repeated))
    }

    /// The child's board value when it needs no search: the game ended or the database knows it.
    fn settled_child(&mut self, effect: &MoveEffect) -> Result<Option<i32>, SearchError> {
        if effect.over {
            return Ok(Some(0));
        }
        self.settled(&effect.child)
    }
}
