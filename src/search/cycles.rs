//! Forward search under rules whose positions repeat (clockwise sowing).
//!
//! Alpha-beta on board values in which a position that comes back on the line being searched
//! scores 0: play that goes round for ever banks nothing more. That gives the values the
//! retrograde analysis of `database/builder/cyclic.rs` gives: for each threshold t, a side that
//! can force a margin of at least t > 0 can do so without ever repeating a position (its
//! strategy brings the target closer at every move), and a side that cannot is held off it by a
//! strategy that either repeats or ends lower; both are seen in the tree cut at repetitions.
//!
//! A value that depended on a repetition of a position above it on the line belongs to that line,
//! not to the position (graph-history interaction): such values are never stored in the
//! transposition table, so every bound the table holds is the position's own and any line may use
//! it. A repetition of the position itself (or of one below it) is its own: searched from the
//! position alone, the same lines come back the same way. The same holds for positions the table
//! answers while they are on the line: their stored bounds are exact facts, and the tree cut at
//! repetitions has the same value whichever of its nodes are replaced by their true values.
//!
//! Each zero-window test runs in depth-limited rounds (see `Horizon` in the parent module): a
//! position at the end of a cut line counts as lost or won by all its seeds, so a result that
//! used one is a bound one way only (below the truth where the cut lines ended lost for the side
//! to move, above it where they ended won), stored as such, and a round is believed only in the
//! direction its guess makes sound. Measured with `kalah solve 4x2 --direction cw --no-db
//! --threads 1` (one core): without rounds no value in 120 s (1.1 G nodes); with them 0.48 s,
//! 1.3 M nodes.

use super::{Child, Horizon, NO_MOVE, Search, SearchError, TableKey, move_order, seed_bound};
use crate::board::{MAX_HOUSES, Position};
use crate::moves::MoveEffect;

/// No repetition: see [`Leans`].
const NONE: u32 = u32::MAX;

/// What a result under cycles leans on besides its position: it belongs to the position (and
/// may be stored) only when every repetition it counted was of the position itself or of one
/// below it, and it is a bound one way only when a line was cut at the horizon.
#[derive(Clone, Copy, Debug)]
struct Leans {
    /// The shallowest ply (moves from the test's root) of a position on the line that came back
    /// and was scored 0, or [`NONE`].
    repetition: u32,
    /// Whether a line was cut at the horizon.
    horizon: bool,
}

impl Leans {
    const NOTHING: Leans = Leans { repetition: NONE, horizon: false };

    fn and(self, other: Leans) -> Leans {
        Leans { repetition: self.repetition.min(other.repetition), horizon: self.horizon || other.horizon }
    }
}

/// What a parallel split of a node under cycles found: the best value of its moves and the move,
/// what every move's value leaned on, and what the first to reach beta leaned on.
struct SplitResult {
    best: i32,
    best_move: u8,
    every_move: Leans,
    cut_move: Leans,
}

/// Nodes this close to the root (in moves) split their younger brothers over the threads, when
/// they also hold enough seeds beyond the database: each worker copies the line, so splits stay
/// near the root, where subtrees are big and lines short.
const SPLIT_PLIES: usize = 8;

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
                let (value, leans) = self.search_cycles(board, beta - 1, beta, true)?;
                // A round that cut no line proved its result both ways.
                if !leans.horizon || (value >= beta) == pessimistic {
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
    /// with cycles, lines cut at the horizon: the value (as `search` returns it) and what besides
    /// the position it leans on. `root_side`: whether the side to move started the test.
    fn search_cycles(
        &mut self,
        board: &Position,
        mut alpha: i32,
        mut beta: i32,
        root_side: bool,
    ) -> Result<(i32, Leans), SearchError> {
        self.count_node()?;
        let nodes_before = self.stats.nodes;
        let bound = seed_bound(board.seeds_on_board());
        if alpha >= bound {
            return Ok((bound, Leans::NOTHING));
        }
        if beta <= -bound {
            return Ok((-bound, Leans::NOTHING));
        }
        let key = board.house_key();
        let mut table_move = NO_MOVE;
        let table_key = TableKey::of(board);
        if let Some(known) = self.table.probe(table_key) {
            if known.lower >= beta || known.lower == known.upper {
                return Ok((known.lower, Leans::NOTHING));
            }
            if known.upper <= alpha {
                return Ok((known.upper, Leans::NOTHING));
            }
            alpha = alpha.max(known.lower);
            beta = beta.min(known.upper);
            table_move = known.best;
        }
        if let Some(&ply) = self.line.get(&key) {
            return Ok((0, Leans { repetition: ply, horizon: false }));
        }
        let ply = self.line.len() as u32;
        // For the side to move here, the cut lines of this round end lost (pessimistic) or won.
        let pessimistic = root_side == self.horizon.pessimistic;
        if ply as usize >= self.horizon.moves {
            return Ok((if pessimistic { -bound } else { bound }, Leans { repetition: NONE, horizon: true }));
        }

        let mut children = [None::<Child>; MAX_HOUSES];
        let mut count = 0;
        let opponent_seeds = board.opponent_seeds();
        for house in board.legal_moves() {
            let effect = MoveEffect::of(&self.rules, board, house);
            let order = move_order(&effect, house, table_move, opponent_seeds);
            children[count] = Some(Child { effect, house: house as u8, lower: 0, upper: 0, order, work: 0 });
            count += 1;
        }
        let children = &mut children[..count];
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.map_or(i32::MIN, |c| c.order)));

        self.line.insert(key, ply);
        let mut best = i32::MIN;
        let mut best_move = NO_MOVE;
        // A fail-high leans on the move that reached beta alone; any other result on every move.
        let mut every_move = Leans::NOTHING;
        let mut cut_move = Leans::NOTHING;
        let mut failure = None;
        let splits = self.pool.is_some()
            && (ply as usize) < SPLIT_PLIES
            && board.seeds_on_board() >= self.database_seeds + super::SPLIT_MIN_SEEDS;
        for (index, child) in children.iter().enumerate() {
            let Some(child) = child else { continue };
            let floor = alpha.max(best);
            if splits && index >= 1 && children.len() - index >= 2 {
                // The eldest did not cut off: the younger brothers go side by side.
                match self.split_cycles(&children[index..], floor, beta, root_side) {
                    Ok(split) => {
                        every_move = every_move.and(split.every_move);
                        if split.best > best {
                            best = split.best;
                            if split.best > floor {
                                best_move = split.best_move;
                            }
                        }
                        cut_move = split.cut_move;
                    }
                    Err(err) => failure = Some(err),
                }
                break;
            }
            let (value, leans) = match self.search_cycles_child(&child.effect, floor, beta, root_side) {
                Ok(searched) => searched,
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            };
            every_move = every_move.and(leans);
            if value > best {
                best = value;
                if value > floor {
                    best_move = child.house;
                }
            }
            if best >= beta {
                cut_move = leans;
                break;
            }
        }
        self.line.remove(&key);
        if let Some(err) = failure {
            return Err(err);
        }

        let leans = if best >= beta { cut_move } else { every_move };
        // A repetition of this position itself is part of its own value: searched from here, the
        // same line would come back to it.
        let leans = Leans { repetition: if leans.repetition >= ply { NONE } else { leans.repetition }, ..leans };
        if leans.repetition == NONE {
            let work = self.stats.nodes - nodes_before + 1;
            // Cut lines make the value a bound one way only: below the truth if they ended lost
            // for the side to move, above it if they ended won.
            let (lower_holds, upper_holds) = if leans.horizon { (pessimistic, !pessimistic) } else { (true, true) };
            let lower = if best > alpha && lower_holds { best } else { -bound };
            let upper = if best < beta && upper_holds { best } else { bound };
            if lower > -bound || upper < bound {
                self.table.store(table_key, lower, upper, if best > alpha { best_move } else { NO_MOVE }, work);
            }
        }
        Ok((best, leans))
    }

    /// The value of one move for its mover, searched under cycles in the window that proves
    /// whether it beats `floor` and reaches `beta`, and what the value leans on.
    fn search_cycles_child(
        &mut self,
        effect: &MoveEffect,
        floor: i32,
        beta: i32,
        root_side: bool,
    ) -> Result<(i32, Leans), SearchError> {
        if let Some(value) = self.settled_child(effect)? {
            return Ok((effect.value(value), Leans::NOTHING));
        }
        let (low, high) = effect.child_window(floor, beta);
        let side = if effect.extra_turn { root_side } else { !root_side };
        let (value, leans) = self.search_cycles(&effect.child, low, high, side)?;
        Ok((effect.value(value), leans))
    }

    /// Searches the moves `rest` of a node under cycles in parallel, each worker with its own
    /// copy of the line (the node's own position on it), stopping them all once one reaches
    /// `beta`. What a worker stores in the table is its positions' own, as on one thread.
    fn split_cycles(
        &mut self,
        rest: &[Option<Child>],
        floor: i32,
        beta: i32,
        root_side: bool,
    ) -> Result<SplitResult, SearchError> {
        let finished = self.split_children(
            rest,
            |_, _| None,
            |worker, child| worker.search_cycles_child(&child.effect, floor, beta, root_side),
            |&(value, _)| value >= beta,
        )?;
        let mut split =
            SplitResult { best: i32::MIN, best_move: NO_MOVE, every_move: Leans::NOTHING, cut_move: Leans::NOTHING };
        for ((value, leans), house) in finished {
            split.every_move = split.every_move.and(leans);
            if value >= beta && split.best < beta {
                split.cut_move = leans;
            }
            if value > split.best {
                (split.best, split.best_move) = (value, house);
            }
        }
        Ok(split)
    }

    /// The child's board value when it needs no search: the game ended or the database knows it.
    fn settled_child(&mut self, effect: &MoveEffect) -> Result<Option<i32>, SearchError> {
        if effect.over {
            return Ok(Some(0));
        }
        self.settled(&effect.child)
    }
}
