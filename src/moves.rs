//! What a move does to values: the position it leads to, what it banks, whether its side moves
//! again, and how the child's board value becomes the mover's. The database builders, the probe
//! check and the search all reason about moves through this. Also whole turns ([`Turn`]) and a
//! position's first turns ([`first_turns`]), which every report of openings lists.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::board::Position;
use crate::rules::Rules;

/// One side's turn: the houses it plays, numbered 1..m from its left: one move, or a chain of
/// moves linked by extra turns. Written and read as the houses separated by spaces (`1 3`), the
/// one place where first turns become text and back; serialised as the list of houses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Turn(Vec<u8>);

/// Why text is not a turn, or a turn cannot be played where it was asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    /// A word of the text is not a house number (1 or more).
    #[error("'{0}' is not a house number")]
    NotAHouse(String),
    /// The text names no move.
    #[error("no move given")]
    Empty,
    /// The house is empty, off the board, or the game is over.
    #[error("house {0} cannot be played here")]
    Illegal(u8),
    /// The turn stops after a move that earned an extra turn.
    #[error("the turn stops after house {0}, which earned an extra turn")]
    Unfinished(u8),
    /// The turn goes on after a move that passed the turn (or ended the game).
    #[error("the turn goes on after house {0}, which ended it")]
    TooLong(u8),
}

impl Turn {
    /// The turn of `houses`, numbered 1..m from the mover's left.
    pub fn new(houses: Vec<u8>) -> Turn {
        Turn(houses)
    }

    /// The turn of `indices`, houses numbered from 0 as the board indexes them.
    pub(crate) fn from_indices(indices: &[usize]) -> Turn {
        Turn(indices.iter().map(|&i| i as u8 + 1).collect())
    }

    /// The houses, 1..m from the mover's left.
    pub fn houses(&self) -> &[u8] {
        &self.0
    }

    /// The positions the turn passes through from `start`, each with the house played there
    /// (0..m, as the board indexes them), and the position it leaves: every move legal, each but
    /// the last earning an extra turn, the last passing the turn or ending the game.
    pub fn path(&self, rules: &Rules, start: &Position) -> Result<(Vec<(Position, usize)>, Position), TurnError> {
        if self.0.is_empty() {
            return Err(TurnError::Empty);
        }
        let mut position = *start;
        let mut path = Vec::with_capacity(self.0.len());
        for (i, &house) in self.0.iter().enumerate() {
            let index = usize::from(house).wrapping_sub(1);
            if position.is_over(rules) || !position.legal_moves().any(|h| h == index) {
                return Err(TurnError::Illegal(house));
            }
            path.push((position, index));
            // A move that ends the game earns no extra turn.
            let goes_on = position.play(rules, index).extra_turn;
            match (goes_on, i + 1 == self.0.len()) {
                (true, true) => return Err(TurnError::Unfinished(house)),
                (false, false) => return Err(TurnError::TooLong(house)),
                _ => {}
            }
        }
        Ok((path, position))
    }

    /// The position the turn leaves from `start` (see [`Turn::path`]).
    pub fn play(&self, rules: &Rules, start: &Position) -> Result<Position, TurnError> {
        Ok(self.path(rules, start)?.1)
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, house) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{house}")?;
        }
        Ok(())
    }
}

impl FromStr for Turn {
    type Err = TurnError;

    /// Houses separated by white space, e.g. `1 3`; whether they make a turn somewhere is
    /// [`Turn::path`]'s question.
    fn from_str(text: &str) -> Result<Turn, TurnError> {
        let houses = text
            .split_whitespace()
            .map(|word| {
                word.parse::<u8>().ok().filter(|&h| h >= 1).ok_or_else(|| TurnError::NotAHouse(word.to_string()))
            })
            .collect::<Result<Vec<u8>, TurnError>>()?;
        if houses.is_empty() {
            return Err(TurnError::Empty);
        }
        Ok(Turn(houses))
    }
}

/// What a move does, as far as values go: the position it leads to and how that position's
/// board value turns into the mover's.
#[derive(Clone, Copy)]
pub struct MoveEffect {
    /// The position after the move, without stores.
    pub child: Position,
    /// What the move banked, for the child's mover (stores of the child).
    pub gain: i32,
    /// The same side moves again.
    pub extra_turn: bool,
    /// The game is over: the child has no board value.
    pub over: bool,
}

impl MoveEffect {
    /// Plays `house` from `position` (stores ignored).
    #[inline]
    pub fn of(rules: &Rules, position: &Position, house: usize) -> MoveEffect {
        let mut effect = MoveEffect::unmoved(position);
        effect.play(rules, house);
        effect
    }

    /// `position` itself, nothing banked: what [`MoveEffect::play`] starts from.
    #[inline]
    pub(crate) fn unmoved(position: &Position) -> MoveEffect {
        MoveEffect { child: *position, gain: 0, extra_turn: false, over: false }
    }

    /// Turns an `MoveEffect::unmoved` position into [`MoveEffect::of`] it and `house`, in place.
    /// A search works its moves out where they are kept with this: the copy of a fresh effect
    /// reads bytes just written by stores of other sizes, which the processor cannot forward, and
    /// it waits for them to reach the cache.
    #[inline]
    pub fn play(&mut self, rules: &Rules, house: usize) {
        let outcome = self.child.play_without_stores(rules, house);
        self.gain = self.child.margin();
        self.extra_turn = outcome.extra_turn;
        self.over = outcome.over;
    }

    /// The move's board value for the side that played it, given the child's board value (0
    /// when the game is over).
    #[inline]
    pub fn value(&self, child_value: i32) -> i32 {
        let total = self.gain + child_value;
        if self.extra_turn { total } else { -total }
    }

    /// The child's board value that gives the move the value `move_value` (the inverse of
    /// [`MoveEffect::value`]).
    #[inline]
    pub(crate) fn child_value(&self, move_value: i32) -> i32 {
        if self.extra_turn { move_value - self.gain } else { -move_value - self.gain }
    }

    /// The window on the child's board value that decides whether the move's value lies in
    /// `(alpha, beta)`: [`MoveEffect::value`] of a fail-soft result searched in it is fail-soft
    /// for the move's window.
    #[inline]
    pub(crate) fn child_window(&self, alpha: i32, beta: i32) -> (i32, i32) {
        if self.extra_turn {
            (self.child_value(alpha), self.child_value(beta))
        } else {
            (self.child_value(beta), self.child_value(alpha))
        }
    }
}

/// The board value after playing `house` from `position`, for the side that played it, given
/// `lookup`, the board value of any position that is not over (from its mover's view).
#[inline]
pub(crate) fn move_board_value(
    rules: &Rules,
    position: &Position,
    house: usize,
    lookup: &mut impl FnMut(&Position) -> i32,
) -> i32 {
    let effect = MoveEffect::of(rules, position, house);
    effect.value(if effect.over { 0 } else { lookup(&effect.child) })
}

/// The board value of a position that is not over: the best move's value.
#[inline]
pub(crate) fn best_board_value(rules: &Rules, position: &Position, lookup: &mut impl FnMut(&Position) -> i32) -> i32 {
    position.legal_moves().map(|house| move_board_value(rules, position, house, lookup)).max().expect("a legal move")
}

/// Every first turn from `position` with the position it leaves (the opponent to move, or the
/// game over). Order: by houses, chains in the order their moves are tried.
pub fn first_turns(rules: &Rules, position: &Position) -> Vec<(Turn, Position)> {
    fn extend(rules: &Rules, position: &Position, prefix: &mut Vec<u8>, out: &mut Vec<(Turn, Position)>) {
        for house in position.legal_moves() {
            let mut child = *position;
            let outcome = child.play(rules, house);
            prefix.push(house as u8 + 1);
            if outcome.extra_turn {
                extend(rules, &child, prefix, out);
            } else {
                out.push((Turn(prefix.clone()), child));
            }
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    if !position.is_over(rules) {
        extend(rules, position, &mut Vec::new(), &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_read_and_write_as_houses_from_one() {
        let turn: Turn = " 1  3 ".parse().unwrap();
        assert_eq!((turn.houses(), turn.to_string()), (&[1, 3][..], "1 3".to_string()));
        assert_eq!(Turn::from_indices(&[0, 2]), turn);
        assert_eq!(serde_json::to_string(&turn).unwrap(), "[1,3]");
        assert_eq!("".parse::<Turn>(), Err(TurnError::Empty));
        for bad in ["0", "S", "1 x", "-1", "300"] {
            let word = bad.split_whitespace().last().unwrap().to_string();
            assert_eq!(bad.parse::<Turn>(), Err(TurnError::NotAHouse(word)), "{bad}");
        }
    }

    #[test]
    fn turns_play_only_as_the_rules_allow() {
        let rules = Rules::STANDARD;
        let start = Position::start(6, 4).unwrap();
        let play = |text: &str| text.parse::<Turn>().unwrap().play(&rules, &start);
        // House 3 of Kalah(6,4) ends in the store: an extra turn must follow.
        assert_eq!(play("3"), Err(TurnError::Unfinished(3)));
        assert!(play("3 1").is_ok());
        assert_eq!(play("1 2"), Err(TurnError::TooLong(1)), "house 1 gives no extra turn");
        assert_eq!(play("7"), Err(TurnError::Illegal(7)));
        assert_eq!(play("3 3"), Err(TurnError::Illegal(3)), "house 3 is empty after it is played");
        for (turn, child) in first_turns(&rules, &start) {
            let (path, after) = turn.path(&rules, &start).unwrap();
            assert_eq!(after, child, "{turn}");
            assert_eq!(path[0].0, start);
            assert_eq!(path.iter().map(|&(_, h)| h as u8 + 1).collect::<Vec<_>>(), turn.houses());
            assert_eq!(turn.to_string().parse::<Turn>().unwrap(), turn);
        }
    }
}
