//! One node's expansion: its children as the move loop sees them, their bounds from the table and
//! from the seeds on the board, and the order in which they are searched.

use crate::board::MAX_HOUSES;
use crate::moves::MoveEffect;

use super::table::{self, NO_MOVE, TableKey};

/// One child of a node, as the move loop sees it.
#[derive(Clone, Copy)]
pub(super) struct Child {
    pub(super) effect: MoveEffect,
    pub(super) house: u8,
    /// Bounds on the move's board value for the side that played it.
    pub(super) lower: i32,
    pub(super) upper: i32,
    /// Move ordering: larger first.
    pub(super) order: i32,
    /// Log2 of the nodes behind the child's bounds in the table (0: none there).
    pub(super) work: u8,
}

/// A node's window after the table's bounds: decided by them, or still open.
pub(super) enum Window {
    /// The bounds give the node's fail-soft value.
    Decided(i32),
    /// The window to search, and the move to try first (or [`NO_MOVE`]).
    Open { alpha: i32, beta: i32, table_move: u8 },
}

/// A node's children with their bounds before any is searched.
pub(super) struct Expansion {
    /// The first `count` slots hold the legal moves.
    pub(super) children: [Option<Child>; MAX_HOUSES],
    pub(super) count: usize,
    /// The children whose bounds are read only if the lead move fails to cut off (house, seeds
    /// on the board, and the table key, or `None` for a database child's value); the first
    /// `lates` are.
    pub(super) late: [(u8, u32, Option<TableKey>); MAX_HOUSES],
    pub(super) lates: usize,
    /// The move tried first.
    pub(super) lead_house: Option<u8>,
}

impl Expansion {
    /// When the children's bounds alone decide the node in the window (`alpha`, `beta`): its
    /// fail-soft value and move; else the best lower bound among the children, with its move.
    #[inline(always)]
    pub(super) fn decided_by_bounds(&self, alpha: i32, beta: i32) -> Result<(i32, u8), (i32, u8)> {
        let (mut best, mut best_move, mut ceiling) = (i32::MIN, NO_MOVE, i32::MIN);
        for child in self.children[..self.count].iter().flatten() {
            if child.lower > best {
                (best, best_move) = (child.lower, child.house);
            }
            ceiling = ceiling.max(child.upper);
        }
        if best >= beta || ceiling <= alpha || best == ceiling {
            Ok((if best >= beta { best } else { ceiling }, best_move))
        } else {
            Err((best, best_move))
        }
    }

    /// Fills `pending` with the children still open, best-looking first, and returns how many
    /// there are; the settled ones only count, into `best`. (Sorting the orders and copying each
    /// child once beats sorting the children themselves.)
    #[inline(always)]
    pub(super) fn pending_in_order(&self, pending: &mut [Option<Child>; MAX_HOUSES], best: &mut i32) -> usize {
        let mut by_order = [(i32::MIN, 0usize); MAX_HOUSES];
        for (slot, child) in self.children[..self.count].iter().enumerate() {
            by_order[slot] = (child.map_or(i32::MIN, |c| c.order), slot);
        }
        by_order[..self.count].sort_unstable_by_key(|&(order, _)| std::cmp::Reverse(order));
        let mut pendings = 0;
        for &(_, slot) in &by_order[..self.count] {
            let Some(child) = &self.children[slot] else { continue };
            if child.lower == child.upper {
                *best = (*best).max(child.upper);
            } else {
                pending[pendings] = Some(*child);
                pendings += 1;
            }
        }
        pendings
    }
}

/// Move ordering, larger first: the table's move (`table_move`, or [`NO_MOVE`]) before all
/// others, then seeds banked (captures), an extra turn counted as eight seeds, then, a step for a
/// seed, few seeds sown into the opponent's houses (`opponent_seeds`: theirs before the move) and
/// the house nearest the store. Sowing from the right keeps the other houses' counts, and so their
/// extra turns; seeds handed over are the opponent's to bank or play with.
#[inline]
pub(super) fn move_order(effect: &MoveEffect, house: usize, table_move: u8, opponent_seeds: u32) -> i32 {
    let own_gain = if effect.extra_turn { effect.gain } else { -effect.gain };
    let from_table = if house as u8 == table_move { 1 << 20 } else { 0 };
    let opponent_after = if effect.extra_turn { effect.child.opponent_seeds() } else { effect.child.mover_seeds() };
    // Net of what a capture took from them: a capture is already counted as seeds banked.
    let given = (opponent_after as i32 - opponent_seeds as i32).max(0);
    from_table + 16 * own_gain + if effect.extra_turn { 16 * 8 } else { 0 } - given + house as i32
}

/// Sets `child`'s bounds (for the side that played it) from what the table knows of its position
/// (`known`) and the `child_seeds` on its board.
#[inline]
pub(super) fn child_bounds(child: &mut Child, child_seeds: u32, known: Option<table::Stored>) {
    let bound = seed_bound(child_seeds);
    let (low, high) = match known {
        Some(known) => {
            child.work = known.work;
            (known.lower.max(-bound), known.upper.min(bound))
        }
        None => (-bound, bound),
    };
    let (a, b) = (child.effect.value(low), child.effect.value(high));
    (child.lower, child.upper) = (a.min(b), a.max(b));
}

/// Bounds on a board value with `seeds` on the board: all of them to one side or the other.
#[inline]
pub(super) fn seed_bound(seeds: u32) -> i32 {
    seeds as i32
}
