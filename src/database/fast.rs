//! The builder's fast path: a move worked out on the two rows and their ranks, without building a
//! [`crate::Position`], for counter-clockwise single sowing with standard, empty or no captures
//! (any end, remaining and extra-turn rule), the rules of every published table.
//!
//! It is a second implementation of [`crate::board::Position::play`] for those rules and must
//! agree with it exactly: tests build databases both ways and compare the files byte for byte.
//! Sowings that lap the board are left to the generic path.

use super::build::ChildRead;
use crate::board::MAX_HOUSES;
use crate::index::{Layer, rank_and_seeds};
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

/// Where a sowing's last seed fell.
enum Last {
    Own(usize),
    Store,
    Opponent,
}

/// The move from the mover's house `house` (0-based) with rows `mover` and `opponent` (`seeds` on
/// the board in all), as the read its value needs; `None` when the sowing laps the board.
#[inline]
pub(super) fn child_read(
    rules: &Rules,
    layers: &[Layer],
    seeds: usize,
    mover: &[u8; MAX_HOUSES],
    opponent: &OpponentRow,
    house: usize,
) -> Option<ChildRead> {
    let m = layers[seeds].houses();
    let sowing = usize::from(mover[house]);
    if sowing > 2 * m {
        return None;
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
        (0, 0, Last::Own(house + sowing))
    } else if rest == 1 {
        (1, 0, Last::Store)
    } else if rest - 1 <= m {
        (1, rest - 1, Last::Opponent)
    } else {
        let wrapped = rest - 1 - m;
        for cell in &mut row[..wrapped] {
            *cell += 1;
        }
        (1, m, Last::Own(wrapped - 1))
    };
    let settle = Settle { rules, layers, parent_seeds: seeds };
    let (rank, left) = rank_and_seeds(&row[..m]);
    let (opponent_rank, opponent_left) = (opponent.ranks[sown], opponent.seeds[sown]);
    Some(match last {
        Last::Store => settle.read(1, rules.extra_turn, (rank, left), (opponent_rank, opponent_left)),
        Last::Opponent => settle.read(1, false, (rank, left), (opponent_rank, opponent_left)),
        Last::Own(landed) => {
            let facing = m - 1 - landed;
            let facing_seeds = opponent.rows[sown][facing];
            // The last seed alone in the house: it was empty.
            let captures = row[landed] == 1
                && match rules.capture {
                    Capture::Standard => facing_seeds > 0,
                    Capture::Empty => true,
                    Capture::None | Capture::TwoOrThree => false,
                };
            if captures {
                row[landed] = 0;
                let mut opponent_row = opponent.rows[sown];
                opponent_row[facing] = 0;
                let captured = 1 + usize::from(facing_seeds);
                let after_mover = rank_and_seeds(&row[..m]);
                let after_opponent = rank_and_seeds(&opponent_row[..m]);
                settle.read(store + captured, false, after_mover, after_opponent)
            } else {
                settle.read(store, false, (rank, left), (opponent_rank, opponent_left))
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
