//! What a move does to values: the position it leads to, what it banks, whether its side moves
//! again, and how the child's board value becomes the mover's. The database builders, the probe
//! check and the search all reason about moves through this.

use crate::board::Position;
use crate::rules::Rules;

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
    pub fn unmoved(position: &Position) -> MoveEffect {
        MoveEffect { child: *position, gain: 0, extra_turn: false, over: false }
    }

    /// Turns an [`MoveEffect::unmoved`] position into [`MoveEffect::of`] it and `house`, in place.
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
    pub fn child_value(&self, move_value: i32) -> i32 {
        if self.extra_turn { move_value - self.gain } else { -move_value - self.gain }
    }

    /// The window on the child's board value that decides whether the move's value lies in
    /// `(alpha, beta)`: [`MoveEffect::value`] of a fail-soft result searched in it is fail-soft
    /// for the move's window.
    #[inline]
    pub fn child_window(&self, alpha: i32, beta: i32) -> (i32, i32) {
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
pub fn move_board_value(
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
pub fn best_board_value(rules: &Rules, position: &Position, lookup: &mut impl FnMut(&Position) -> i32) -> i32 {
    position.legal_moves().map(|house| move_board_value(rules, position, house, lookup)).max().expect("a legal move")
}

/// Every first turn from `position` with the position it leaves (the opponent to move, or the
/// game over). Order: by houses, chains in the order their moves are tried.
pub fn first_turns(rules: &Rules, position: &Position) -> Vec<(Vec<u8>, Position)> {
    fn extend(rules: &Rules, position: &Position, prefix: &mut Vec<u8>, out: &mut Vec<(Vec<u8>, Position)>) {
        for house in position.legal_moves() {
            let mut child = *position;
            let outcome = child.play(rules, house);
            prefix.push(house as u8 + 1);
            if outcome.extra_turn {
                extend(rules, &child, prefix, out);
            } else {
                out.push((prefix.clone(), child));
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
