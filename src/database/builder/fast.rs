//! The builder's fast path: a move worked out on the two rows and their ranks, without building a
//! [`crate::Position`], for counter-clockwise single sowing with standard, empty or no captures
//! (any end, remaining and extra-turn rule), the rules of every published table.
//!
//! It is a second implementation of [`crate::board::Position::play`] for those rules and must
//! agree with it exactly: tests build databases both ways and compare the files byte for byte.
//! Sowings that lap the board are left to the generic path. What a sowing does to the mover's own
//! row is worked out once per row and house ([`MoverSowings`]), as it does not depend on the
//! opponent's row.

use super::ChildRead;
use crate::board::MAX_HOUSES;
use crate::index::{Layer, RowTable, rank_and_seeds};
use crate::rules::{Capture, Direction, End, Remaining, Rules, Sowing};

/// Whether the fast path covers these rules.
pub(super) fn applies(rules: &Rules) -> bool {
    rules.direction == Direction::Ccw
        && rules.sowing == Sowing::Single
        && matches!(rules.capture, Capture::Standard | Capture::Empty | Capture::None)
}

/// The opponent's row as a sowing may leave it: with one more seed in each of its first `t`
/// houses, for every `t`, ranked once for all the mover rows played against it.
pub(super) struct OpponentRow {
    rows: [[u8; MAX_HOUSES]; MAX_HOUSES + 1],
    ranks: [u64; MAX_HOUSES + 1],
    seeds: [usize; MAX_HOUSES + 1],
}

impl OpponentRow {
    pub(super) fn new(row: &[u8; MAX_HOUSES], houses: usize) -> OpponentRow {
        let mut sown =
            OpponentRow { rows: [*row; MAX_HOUSES + 1], ranks: [0; MAX_HOUSES + 1], seeds: [0; MAX_HOUSES + 1] };
        for t in 0..=houses {
            for house in 0..t {
                sown.rows[t][house] += 1;
            }
            (sown.ranks[t], sown.seeds[t]) = rank_and_seeds(&sown.rows[t][..houses]);
        }
        sown
    }

    /// The row itself.
    pub(super) fn row(&self) -> &[u8; MAX_HOUSES] {
        &self.rows[0]
    }
}

/// Where a sowing's last seed fell, in [`MoverSowing::last`]: an own house (its index), or one of these.
const LAST_STORE: u8 = 255;
const LAST_OPPONENT: u8 = 254;
/// The house is empty (no move) or its sowing laps the board (left to the generic path).
const NOT_FAST: u8 = 253;
/// [`MoverSowing::capture_rank`] when the last seed did not fall into an empty own house.
const NO_CAPTURE: u32 = u32::MAX;

/// What a sowing does to the mover's own row, which depends on that row alone: worked out once
/// per row and house ([`MoverSowings`]) and reused against every opponent row.
#[derive(Clone, Copy)]
pub(super) struct MoverSowing {
    /// Rank of the mover's row afterwards, and the seeds left in it.
    rank: u32,
    left: u8,
    /// Seeds into the mover's store (0 or 1) and into the opponent's row (from its first house).
    store: u8,
    sown: u8,
    last: u8,
    /// Where the last seed fell into an empty own house: the rank of the row with that house
    /// emptied again, as a capture leaves it.
    capture_rank: u32,
}

/// The sowings of every row of one seed count, `houses` per row, in the order the builder walks
/// the rows ([`RowTable::by_potential`]), so that its reads of this table (43 MB up to 24 seeds)
/// run through memory in sequence instead of jumping by rank.
pub(super) struct MoverSowings {
    houses: usize,
    sowings: Vec<MoverSowing>,
}

impl MoverSowings {
    pub(super) fn new(rows: &RowTable, houses: usize) -> MoverSowings {
        let mut sowings = Vec::with_capacity(rows.len() * houses);
        for &rank in rows.by_potential() {
            let mover = rows.padded_row(rank);
            sowings.extend((0..houses).map(|house| MoverSowing::of(mover, houses, house)));
        }
        MoverSowings { houses, sowings }
    }

    /// The sowings of the row at `place` of [`RowTable::by_potential`], one per house.
    #[inline]
    pub(super) fn at(&self, place: usize) -> &[MoverSowing] {
        &self.sowings[place * self.houses..][..self.houses]
    }
}

impl MoverSowing {
    fn of(mover: &[u8; MAX_HOUSES], m: usize, house: usize) -> MoverSowing {
        let sowing = usize::from(mover[house]);
        let not_fast = MoverSowing { rank: 0, left: 0, store: 0, sown: 0, last: NOT_FAST, capture_rank: NO_CAPTURE };
        if sowing == 0 || sowing > 2 * m {
            return not_fast;
        }
        let mut row = *mover;
        row[house] = 0;
        let own = sowing.min(m - 1 - house);
        for cell in &mut row[house + 1..=house + own] {
            *cell += 1;
        }
        // Past the own row: one seed for the store, up to m into the opponent's row from its first
        // house (the opponent's store is skipped), the rest back into the own row from house 0.
        let rest = sowing - own;
        let (store, sown, last) = if rest == 0 {
            (0, 0, house + sowing)
        } else if rest == 1 {
            (1, 0, usize::from(LAST_STORE))
        } else if rest - 1 <= m {
            (1, rest - 1, usize::from(LAST_OPPONENT))
        } else {
            let wrapped = rest - 1 - m;
            for cell in &mut row[..wrapped] {
                *cell += 1;
            }
            (1, m, wrapped - 1)
        };
        let (rank, left) = rank_and_seeds(&row[..m]);
        // The last seed alone in its house: the house was empty.
        let capture_rank = if last < m && row[last] == 1 {
            row[last] = 0;
            rank_and_seeds(&row[..m]).0 as u32
        } else {
            NO_CAPTURE
        };
        MoverSowing { rank: rank as u32, left: left as u8, store, sown: sown as u8, last: last as u8, capture_rank }
    }
}

/// The move described by `sowing` (from the mover's row) against the opponent's row, with `seeds`
/// on the board in all, as the read its value needs; `None` when the sowing is not for the fast
/// path (it laps the board).
#[inline]
pub(super) fn child_read(
    rules: &Rules,
    layers: &[Layer],
    seeds: usize,
    sowing: &MoverSowing,
    opponent: &OpponentRow,
) -> Option<ChildRead> {
    let m = layers[seeds].houses();
    let settle = Settle { rules, layers, parent_seeds: seeds };
    let sown = usize::from(sowing.sown);
    let store = usize::from(sowing.store);
    let mover = (u64::from(sowing.rank), usize::from(sowing.left));
    let opponent_after = (opponent.ranks[sown], opponent.seeds[sown]);
    Some(match sowing.last {
        NOT_FAST => return None,
        LAST_STORE => settle.read(1, rules.extra_turn, mover, opponent_after),
        LAST_OPPONENT => settle.read(1, false, mover, opponent_after),
        landed => {
            let facing = m - 1 - usize::from(landed);
            let facing_seeds = opponent.rows[sown][facing];
            let captures = sowing.capture_rank != NO_CAPTURE
                && match rules.capture {
                    Capture::Standard => facing_seeds > 0,
                    Capture::Empty => true,
                    Capture::None | Capture::TwoOrThree => false,
                };
            if captures {
                let mut opponent_row = opponent.rows[sown];
                opponent_row[facing] = 0;
                let captured = 1 + usize::from(facing_seeds);
                let after_mover = (u64::from(sowing.capture_rank), mover.1 - 1);
                let after_opponent = rank_and_seeds(&opponent_row[..m]);
                settle.read(store + captured, false, after_mover, after_opponent)
            } else {
                settle.read(store, false, mover, opponent_after)
            }
        }
    })
}

/// Turns a move's result into a read: the end of the game, or the child's place and sign.
struct Settle<'a> {
    rules: &'a Rules,
    layers: &'a [Layer],
    parent_seeds: usize,
}

impl Settle<'_> {
    /// `banked` seeds went to the mover's store; afterwards the mover's row has rank and seeds
    /// `mover`, the opponent's `opponent`; `extra_turn` when the mover moves again.
    #[inline]
    fn read(&self, banked: usize, extra_turn: bool, mover: (u64, usize), opponent: (u64, usize)) -> ChildRead {
        let next_to_move = if extra_turn { mover.1 } else { opponent.1 };
        let over = match self.rules.end {
            End::EitherEmpty => mover.1 == 0 || opponent.1 == 0,
            End::MoverCannotMove => next_to_move == 0,
        };
        let banked = banked as i32;
        if over {
            let remaining = match self.rules.remaining {
                Remaining::Owner => mover.1 as i32 - opponent.1 as i32,
                Remaining::Discard => 0,
            };
            return ChildRead::finished(banked + remaining);
        }
        let seeds = self.parent_seeds - banked as usize;
        let layer = &self.layers[seeds];
        if extra_turn {
            ChildRead {
                constant: banked,
                sign: 1,
                seeds,
                index: layer.index_in_block(mover.1, mover.0, opponent.0) as usize,
            }
        } else {
            ChildRead {
                constant: banked,
                sign: -1,
                seeds,
                index: layer.index_in_block(opponent.1, opponent.0, mover.0) as usize,
            }
        }
    }
}
