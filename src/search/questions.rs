//! The questions a [`Search`] answers about a position, from the cheapest: the bounds its table
//! already holds ([`Search::proven_bounds`]), whether the database answers alone
//! ([`Search::in_database`]), the exact value ([`Search::value`], [`Search::board_value`]), every
//! move's value ([`Search::move_values`]), a perfect line ([`Search::principal_variation`]), and
//! every first turn's value ([`Search::analyse`]). Each asks only what it needs: a value is one
//! MTD(f) run, every move's value one run a move, a line one zero-window test a move along it.

use crate::answer::OpeningsTable;
use crate::board::Position;
use crate::moves::{MoveEffect, first_turns};

use super::table::{NO_MOVE, TableKey};
use super::{Search, SearchError, seed_bound};

impl<'db> Search<'db> {
    /// Bounds on the value of `position` for the side to move (stores included) that earlier
    /// calls of this search (or of others sharing its table) proved on the way, if the table
    /// still holds any: a table hit is never a collision, so they are proven.
    pub fn proven_bounds(&self, position: &Position) -> Option<(i32, i32)> {
        let known = self.table.probe(TableKey::of(position))?;
        let bound = seed_bound(position.seeds_on_board());
        let (lower, upper) = (known.lower.max(-bound), known.upper.min(bound));
        (lower > -bound || upper < bound).then(|| (position.margin() + lower, position.margin() + upper))
    }

    /// Whether `position` is answered by the database alone.
    pub fn in_database(&self, position: &Position) -> bool {
        self.database.is_some() && position.seeds_on_board() <= self.database_seeds
    }

    /// The exact value of `position` for the side to move, stores included.
    pub fn value(&mut self, position: &Position) -> Result<i32, SearchError> {
        Ok(position.margin() + self.board_value(position)?)
    }

    /// The exact board value (margin of the seeds still to be gained by the side to move).
    /// MTD(f) starts from an estimate when the position lies far above the database.
    pub fn board_value(&mut self, position: &Position) -> Result<i32, SearchError> {
        self.board_value_from(position, None)
    }

    /// The board value, MTD(f) starting from `guess` or, without one, from an estimate.
    pub(super) fn board_value_from(&mut self, position: &Position, guess: Option<i32>) -> Result<i32, SearchError> {
        self.board_value_resuming(position, (i32::MIN, i32::MAX), guess, |_, _, _| {})
    }

    /// As [`Search::board_value`], MTD(f) starting from `guess` (else an estimate) and from board-value
    /// bounds already proven (say by a killed run) and calling `proven(lower, upper, nodes)` after
    /// every zero-window test with the bounds proven so far and the nodes searched so far, so that
    /// a caller can save them.
    pub(crate) fn board_value_resuming(
        &mut self,
        position: &Position,
        (lower, upper): (i32, i32),
        guess: Option<i32>,
        proven: impl FnMut(i32, i32, u64),
    ) -> Result<i32, SearchError> {
        self.check_houses(position)?;
        let board = position.without_stores();
        if let Some(value) = self.settled(&board)? {
            return Ok(value);
        }
        let guess = match guess {
            Some(guess) => guess,
            None => self.first_guess(&board)?,
        };
        self.mtdf(&board, guess, (lower, upper), proven)
    }

    /// The exact value of every legal move from `position`, for the side to move, stores included.
    pub fn move_values(&mut self, position: &Position) -> Result<Vec<(usize, i32)>, SearchError> {
        self.check_houses(position)?;
        let board = position.without_stores();
        let mut values = Vec::new();
        // Each child starts MTD(f) from the last sibling's value with the same side to move.
        let mut guesses = [None; 2];
        for house in board.legal_moves() {
            let effect = MoveEffect::of(&self.rules, &board, house);
            let child_value = if effect.over {
                0
            } else {
                let guess = &mut guesses[usize::from(effect.extra_turn)];
                let value = self.board_value_from(&effect.child, *guess)?;
                *guess = Some(value);
                value
            };
            values.push((house, position.margin() + effect.value(child_value)));
        }
        Ok(values)
    }

    /// A perfect-play line from `position` to the end of the game: each turn's houses (0-based),
    /// the first turn for the side to move. Ties go to the move the search proved first. Under
    /// rules with cycles the line stops where a position comes back: values do not say how to
    /// make progress, so a line of value-keeping moves may go round for ever.
    pub fn principal_variation(&mut self, position: &Position) -> Result<Vec<Vec<usize>>, SearchError> {
        self.check_houses(position)?;
        let mut board = position.without_stores();
        let mut turns = Vec::new();
        let mut turn = Vec::new();
        let mut seen = std::collections::HashSet::new();
        // After the first position, each one's value follows from the move that reached it.
        let mut guess = None;
        while !board.is_over(&self.rules) && seen.insert((board.house_key(), board.to_move())) {
            let target = self.board_value_from(&board, guess)?;
            let preferred = self.table.probe(TableKey::of(&board)).map_or(NO_MOVE, |k| k.best);
            let mut moves: Vec<usize> = board.legal_moves().collect();
            moves.sort_by_key(|&h| h as u8 != preferred);
            let mut chosen = None;
            for house in moves {
                let effect = MoveEffect::of(&self.rules, &board, house);
                if self.move_reaches(&effect, target)? {
                    chosen = Some((house, effect));
                    break;
                }
            }
            // Exact values always have a move that keeps them; none here means the database
            // holds values that contradict each other (a forged or damaged layer).
            let (house, effect) = chosen.ok_or_else(|| SearchError::Inconsistent { position: board.to_string() })?;
            guess = Some(effect.child_value(target));
            turn.push(house);
            if !effect.extra_turn {
                turns.push(std::mem::take(&mut turn));
            }
            board = effect.child.without_stores();
            if effect.over {
                break;
            }
        }
        if !turn.is_empty() {
            turns.push(turn);
        }
        Ok(turns)
    }

    /// Whether the move with `effect` reaches board value `target` for its mover.
    pub(super) fn move_reaches(&mut self, effect: &MoveEffect, target: i32) -> Result<bool, SearchError> {
        let child = effect.child.without_stores();
        if effect.over {
            return Ok(effect.value(0) >= target);
        }
        if let Some(value) = self.settled(&child)? {
            return Ok(effect.value(value) >= target);
        }
        let child_target = effect.child_value(target);
        if effect.extra_turn {
            self.at_least(&child, child_target)
        } else {
            // The mover's value falls as the child's rises: it reaches `target` while the child's
            // stays at or below `child_target`.
            Ok(!self.at_least(&child, child_target + 1)?)
        }
    }

    /// Solves `position` exactly: its value and the exact value of every first turn (with its
    /// extra-turn chain), in [`first_turns`] order. `progress(done, total)` is called before the
    /// first opening and after each.
    pub fn analyse(
        &mut self,
        position: &Position,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<OpeningsTable, SearchError> {
        self.check_houses(position)?;
        let turns = first_turns(&self.rules, position);
        progress(0, turns.len());
        let mut openings = Vec::with_capacity(turns.len());
        let mut guess = None;
        for (i, (moves, after)) in turns.iter().enumerate() {
            let board_value = self.board_value_from(after, guess)?;
            guess = Some(board_value);
            openings.push((moves.clone(), -(after.margin() + board_value)));
            progress(i + 1, turns.len());
        }
        Ok(OpeningsTable::solved(&self.rules, position, openings))
    }
}
