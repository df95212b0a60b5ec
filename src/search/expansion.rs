//! One node's expansion: its window from the table, its children as the move loop sees them,
//! their bounds from the table, the database and the seeds on the board (the other children's
//! table bounds read late, before a second move is searched), and the order in which they are
//! searched. The move loop itself is the search's (`mod.rs`).

use crate::board::{MAX_HOUSES, Position};
use crate::moves::MoveEffect;

use super::profile::count;
use super::table::{self, NO_MOVE, TableKey};
use super::{Search, SearchError};

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

impl Search<'_> {
    /// The window narrowed by the table's bounds for `board`, and the move to try first (the
    /// table's, or at a node expected to cut off far from any proof, the estimate's); or the
    /// value when the bounds already decide the node.
    #[inline(always)]
    pub(super) fn window_from_table(
        &mut self,
        board: &Position,
        seeds: u32,
        key: TableKey,
        mut alpha: i32,
        mut beta: i32,
        expect_cut: bool,
    ) -> Result<Window, SearchError> {
        let bound = seed_bound(seeds);
        let mut table_move = NO_MOVE;
        // When the table's move is only an estimate's hint (no bounds): the work behind it.
        let mut hint_work = None;
        if let Some(stored) = self.table.probe(key) {
            if stored.lower <= -bound && stored.upper >= bound {
                hint_work = Some(stored.work);
            }
            if stored.lower >= beta || stored.lower == stored.upper {
                return Ok(Window::Decided(stored.lower));
            }
            if stored.upper <= alpha {
                return Ok(Window::Decided(stored.upper));
            }
            alpha = alpha.max(stored.lower);
            beta = beta.min(stored.upper);
            table_move = stored.best;
        }
        if expect_cut && self.leads_by_estimate(seeds, table_move, hint_work) {
            table_move = self.lead_by_estimate(board)?;
        }
        Ok(Window::Open { alpha, beta, table_move })
    }

    /// Every child of `board` with its bounds: exact when the game ends or the database knows
    /// it, from the table for the move to try first, else from the seeds left (the others' table
    /// bounds are read before a second move is searched). Database reads and the table read are
    /// all started before any is waited for; at a node expected to cut off (`expect_cut`) whose
    /// lead move reaches the database, only that move's value is read now, the other database
    /// children's with the late table bounds.
    #[inline(always)]
    pub(super) fn expand(
        &mut self,
        node: &mut Expansion,
        board: &Position,
        seeds: u32,
        key: TableKey,
        table_move: u8,
        expect_cut: bool,
    ) -> Result<(), SearchError> {
        let mut started = [None; MAX_HOUSES];
        // Children the database answers: slot and seeds on the board.
        let mut database_children = [(0usize, 0u32); MAX_HOUSES];
        let mut probes = 0;
        // Children to search: slot, seeds on the board and table key, kept from the first loop.
        let mut lookups = [(0usize, 0u32, key); MAX_HOUSES];
        let mut searches = 0;
        // The move to try first (order, house): the table's, else the best by the move order.
        let mut lead = None::<(i32, u8)>;
        // Houses from the store's end first: by the move order's tie-break the lead is then
        // mostly the first child, and its bucket is on its way while the others are worked out.
        let opponent_seeds = board.opponent_seeds();
        let mut legal = board.legal_mask();
        while legal != 0 {
            let house = (u16::BITS - 1 - legal.leading_zeros()) as usize;
            legal &= !(1 << house);
            let count = node.count;
            // Worked out in its slot (see `MoveEffect::play`).
            let child = node.children[count].insert(Child {
                effect: MoveEffect::unmoved(board),
                house: house as u8,
                lower: 0,
                upper: 0,
                order: 0,
                work: 0,
            });
            child.effect.play(&self.rules, house);
            let effect = &child.effect;
            child.order = move_order(effect, house, table_move, opponent_seeds);
            count!(self.stats, extra_turn_children, effect.extra_turn);
            count!(self.stats, over_children, effect.over);
            if effect.over {
                let value = effect.value(0);
                (child.lower, child.upper) = (value, value);
            } else {
                let leads = lead.is_none_or(|(order, _)| child.order > order);
                if leads {
                    lead = Some((child.order, child.house));
                }
                let child_seeds = seeds - (effect.child.mover_store() + effect.child.opponent_store()) as u32;
                if let Some(db) = self.database.filter(|_| child_seeds <= self.database_seeds) {
                    if !expect_cut {
                        started[probes] = Some(db.start_probe(&effect.child)?);
                    }
                    database_children[probes] = (count, child_seeds);
                    probes += 1;
                } else {
                    let child_key = TableKey::of(&effect.child);
                    if leads {
                        self.table.prefetch(child_key);
                    }
                    lookups[searches] = (count, child_seeds, child_key);
                    searches += 1;
                }
            }
            node.count += 1;
        }
        // Most nodes end with the first move they try (a cutoff, or a node decided by its
        // bounds), so of the children to search only that one's bucket is read now: the others'
        // are read before another move is searched (`late`), the seeds bounding them till then.
        // Nodes expected to fail low too: most of those cut off with their first move as well
        // (docs/performance-history.md). Database values are all read, as one that reaches beta
        // cuts off without a search; but at a node expected to cut off whose lead reaches the
        // database, that value alone, the others' late (a read of a big database costs more
        // than a bucket's).
        node.lead_house = lead.map(|(_, house)| house);
        if expect_cut && let Some(db) = self.database {
            let is_lead = |slot: usize| node.children[slot].as_ref().is_some_and(|c| Some(c.house) == node.lead_house);
            let lead_reaches_database = database_children[..probes].iter().any(|&(slot, _)| is_lead(slot));
            let mut kept = 0;
            for next in 0..probes {
                let (slot, child_seeds) = database_children[next];
                let child = node.children[slot].as_mut().expect("a child");
                if lead_reaches_database && Some(child.house) != node.lead_house {
                    child_bounds(child, child_seeds, None);
                    node.late[node.lates] = (child.house, child_seeds, None);
                    node.lates += 1;
                } else {
                    started[kept] = Some(db.start_probe(&child.effect.child)?);
                    database_children[kept] = (slot, child_seeds);
                    kept += 1;
                }
            }
            probes = kept;
        }
        let mut kept = 0;
        for next in 0..searches {
            let (slot, child_seeds, child_key) = lookups[next];
            let child = node.children[slot].as_mut().expect("a child");
            if Some(child.house) == node.lead_house {
                lookups[kept] = lookups[next];
                kept += 1;
            } else {
                child_bounds(child, child_seeds, None);
                node.late[node.lates] = (child.house, child_seeds, Some(child_key));
                node.lates += 1;
            }
        }
        searches = kept;
        for &(slot, child_seeds, child_key) in &lookups[..searches] {
            let stored = self.table.probe(child_key);
            count!(self.stats, table_children, stored.is_some());
            let child = node.children[slot].as_mut().expect("a child");
            child_bounds(child, child_seeds, stored);
            count!(self.stats, table_settled_children, child.lower == child.upper);
        }
        self.stats.probes += probes as u64;
        count!(self.stats, database_children, probes);
        for (&(slot, _), probe) in database_children[..probes].iter().zip(&started) {
            let child = node.children[slot].as_mut().expect("a child");
            let value = child.effect.value(probe.expect("a started probe").value());
            (child.lower, child.upper) = (value, value);
        }
        Ok(())
    }

    /// Reads the bounds of the `late` children (house, seeds on the board, and table key, or
    /// `None` for a database child's value) into their entries among `pending`, and returns the
    /// best lower bound now proven among them, with its move.
    pub(super) fn read_late(
        &mut self,
        late: &[(u8, u32, Option<TableKey>)],
        pending: &mut [Option<Child>],
    ) -> Result<(i32, u8), SearchError> {
        let mut started = [None; MAX_HOUSES];
        for &(house, _, key) in late {
            match (key, self.database) {
                (Some(key), _) => self.table.prefetch(key),
                (None, Some(db)) => {
                    if let Some(child) = pending.iter().flatten().find(|c| c.house == house) {
                        started[usize::from(house)] = Some(db.start_probe(&child.effect.child)?);
                        self.stats.probes += 1;
                        count!(self.stats, database_children, 1);
                    }
                }
                (None, None) => {}
            }
        }
        // In the order of `pending`, which settles ties between equal bounds.
        let (mut best, mut best_move) = (i32::MIN, NO_MOVE);
        for child in pending.iter_mut().flatten() {
            if let Some(&(_, child_seeds, key)) = late.iter().find(|&&(house, _, _)| house == child.house) {
                match (key, started[usize::from(child.house)]) {
                    (Some(key), _) => child_bounds(child, child_seeds, self.table.probe(key)),
                    (None, Some(probe)) => {
                        let value = child.effect.value(probe.value());
                        (child.lower, child.upper) = (value, value);
                    }
                    // Not read: the seeds' bounds stand.
                    (None, None) => {}
                }
                if child.lower > best {
                    (best, best_move) = (child.lower, child.house);
                }
            }
        }
        Ok((best, best_move))
    }
}
