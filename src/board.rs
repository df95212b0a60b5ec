//! Positions and moves: sowing with laps, relay and go-again chains, captures, extra turns, the
//! end of the game and the final sweep, for every rule system of [`Rules`].
//!
//! A [`Position`] stores its bins *relative to the side to move*: the mover's houses from the
//! mover's left, the mover's store, the opponent's houses from the opponent's left, the
//! opponent's store. That is the order counter-clockwise sowing visits them, so a move is the
//! same code for both sides, and the houses alone (see [`Position::house_key`]) are what
//! databases index. Moves never allocate.

use std::hash::Hasher;

use crate::rules::{Capture, Direction, End, Remaining, Rules, Sowing};

/// The most houses per side supported.
pub const MAX_HOUSES: usize = 8;
/// The most bins (houses and stores of both sides).
pub const MAX_BINS: usize = 2 * MAX_HOUSES + 2;
/// The most seeds in a position; counts are bytes.
pub const MAX_SEEDS: u32 = u8::MAX as u32;

/// One of the two players. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The first player, bins 1..=m and store m+1.
    South,
    /// The second player, bins m+2..=2m+1 and store 2m+2.
    North,
}

impl Side {
    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// `"South"` or `"North"`.
    pub fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }

    /// The letter used in position text.
    pub(crate) fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }
}

/// A position that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// Houses per side outside 1..=MAX_HOUSES.
    #[error("{houses} houses per side is not supported (1 to {MAX_HOUSES})")]
    Houses {
        /// The number asked for.
        houses: usize,
    },
    /// More seeds than a bin count can hold.
    #[error("{seeds} seeds in all is more than the {MAX_SEEDS} supported")]
    TooManySeeds {
        /// The total asked for.
        seeds: u32,
    },
    /// A bin list whose length is not 2m+2.
    #[error("{bins} bins do not make a board (2m+2 bins for m = 1 to {MAX_HOUSES} houses)")]
    BinCount {
        /// The number of bins given.
        bins: usize,
    },
}

/// What a move did, besides changing the position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The mover moves again (the last seed reached the own store and the game goes on).
    pub extra_turn: bool,
    /// Seeds captured into the mover's store, the capturing seed included.
    pub captured: u8,
    /// Number of sowings the move made: 1, or more for relay and go-again chains.
    pub sowings: u16,
    /// The game ended; the remaining seeds were already swept per [`Rules::remaining`].
    pub over: bool,
}

/// splitmix64's finaliser: every input bit reaches the high and the low output bits. House keys
/// and draw numbers are small dense integers, so hash tables and samplers mix them with this.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A position: seed counts seen from the side to move, and which side that is.
///
/// Bin order (relative): `0..m` mover's houses, `m` mover's store, `m+1..=2m` opponent's houses,
/// `2m+1` opponent's store. Cells past `2m+1` are always zero, so equality and hashing are exact.
///
/// The cells come first (`repr(C)`), so that the 16-byte read of [`Position::play`]'s fast path
/// starts where a copy of the position starts, and is forwarded from that copy's store.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Position {
    cells: [u8; MAX_BINS],
    houses: u8,
    to_move: Side,
}

impl Position {
    /// The start of Kalah(houses, seeds): every house holds `seeds`, stores empty, South to move.
    pub fn start(houses: usize, seeds: u32) -> Result<Position, BoardError> {
        check_houses(houses)?;
        let total = (2 * houses as u32).saturating_mul(seeds);
        if total > MAX_SEEDS {
            return Err(BoardError::TooManySeeds { seeds: total });
        }
        let mut cells = [0u8; MAX_BINS];
        for (i, cell) in cells.iter_mut().enumerate().take(2 * houses + 1) {
            if i != houses {
                *cell = seeds as u8;
            }
        }
        Ok(Position { cells, houses: houses as u8, to_move: Side::South })
    }

    /// Whether this is a game's start: every house holds the same seeds, stores empty, South to
    /// move (where the pie rule's swap follows the first turn).
    pub fn is_start(&self) -> bool {
        let per_house = self.total_seeds() / (2 * self.houses() as u32);
        Position::start(self.houses(), per_house).is_ok_and(|start| start == *self)
    }

    /// Builds a position from the 2m+2 bin counts in bin order (South's houses, South's store,
    /// North's houses, North's store) and the side to move.
    pub fn from_bins(bins: &[u32], to_move: Side) -> Result<Position, BoardError> {
        if bins.len() < 4 || !bins.len().is_multiple_of(2) || bins.len() > MAX_BINS {
            return Err(BoardError::BinCount { bins: bins.len() });
        }
        let houses = bins.len() / 2 - 1;
        check_houses(houses)?;
        let total: u64 = bins.iter().map(|&b| u64::from(b)).sum();
        if total > u64::from(MAX_SEEDS) {
            return Err(BoardError::TooManySeeds { seeds: total.min(u64::from(u32::MAX)) as u32 });
        }
        let mut cells = [0u8; MAX_BINS];
        for (cell, &bin) in cells.iter_mut().zip(bins) {
            *cell = bin as u8;
        }
        let mut position = Position { cells, houses: houses as u8, to_move: Side::South };
        if to_move == Side::North {
            position.pass_turn();
        }
        Ok(position)
    }

    /// A position from its two rows of houses (mover's first), stores empty, South to move.
    /// Databases use it: their positions have no stores and no absolute side.
    #[inline]
    pub fn from_rows(mover: &[u8], opponent: &[u8]) -> Position {
        let m = mover.len();
        debug_assert!(opponent.len() == m && (1..=MAX_HOUSES).contains(&m));
        let mut cells = [0u8; MAX_BINS];
        cells[..m].copy_from_slice(mover);
        cells[m + 1..=2 * m].copy_from_slice(opponent);
        Position { cells, houses: m as u8, to_move: Side::South }
    }

    /// As [`Position::from_rows`] for rows kept zero-padded to 8 houses, copied as whole words:
    /// the copies then need no length, which matters in a builder's inner loop.
    #[inline]
    pub(crate) fn from_padded_rows(houses: usize, mover: &[u8; MAX_HOUSES], opponent: &[u8; MAX_HOUSES]) -> Position {
        debug_assert!(mover[houses..].iter().chain(&opponent[houses..]).all(|&s| s == 0));
        let mut cells = [0u8; MAX_BINS];
        cells[..MAX_HOUSES].copy_from_slice(mover);
        // The padding of `opponent` clears the opponent's store and the unused cells.
        cells[houses + 1..houses + 1 + MAX_HOUSES].copy_from_slice(opponent);
        Position { cells, houses: houses as u8, to_move: Side::South }
    }

    /// Houses per side.
    #[inline]
    pub fn houses(&self) -> usize {
        usize::from(self.houses)
    }

    /// The side to move.
    #[inline]
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// The 2m+2 bin counts in absolute bin order (bin 1 first), whoever is to move.
    pub fn bins(&self) -> Vec<u8> {
        let n = 2 * self.houses() + 2;
        let mut bins = self.cells[..n].to_vec();
        if self.to_move == Side::North {
            bins.rotate_left(self.houses() + 1);
        }
        bins
    }

    /// The mover's houses, from the mover's left.
    #[inline]
    pub fn mover_houses(&self) -> &[u8] {
        &self.cells[..self.houses()]
    }

    /// The opponent's houses, from the opponent's left.
    #[inline]
    pub fn opponent_houses(&self) -> &[u8] {
        let m = self.houses();
        &self.cells[m + 1..=2 * m]
    }

    /// Seeds in the mover's store.
    #[inline]
    pub fn mover_store(&self) -> u8 {
        self.cells[self.houses()]
    }

    /// Seeds in the opponent's store.
    #[inline]
    pub(crate) fn opponent_store(&self) -> u8 {
        self.cells[2 * self.houses() + 1]
    }

    /// Seeds in `side`'s store.
    pub fn store(&self, side: Side) -> u8 {
        if side == self.to_move { self.mover_store() } else { self.opponent_store() }
    }

    /// Mover's store minus opponent's store.
    #[inline]
    pub fn margin(&self) -> i32 {
        i32::from(self.mover_store()) - i32::from(self.opponent_store())
    }

    /// Seeds in the houses of both sides.
    pub fn seeds_on_board(&self) -> u32 {
        self.mover_seeds() + self.opponent_seeds()
    }

    /// Seeds in the mover's houses.
    #[inline]
    pub(crate) fn mover_seeds(&self) -> u32 {
        self.mover_houses().iter().map(|&s| u32::from(s)).sum()
    }

    /// Seeds in the opponent's houses.
    #[inline]
    pub(crate) fn opponent_seeds(&self) -> u32 {
        self.opponent_houses().iter().map(|&s| u32::from(s)).sum()
    }

    /// Seeds in houses and stores.
    pub fn total_seeds(&self) -> u32 {
        self.cells.iter().map(|&s| u32::from(s)).sum()
    }

    /// The houses of both sides as one number: byte `i` is the mover's house `i`, byte `8 + i` the
    /// opponent's house `i`. Two positions with the same key have the same board value.
    #[inline]
    pub fn house_key(&self) -> u128 {
        // Two 8-byte reads masked to the houses: copying the rows byte by byte into a buffer cost
        // two calls to memcpy and a stalled read of the buffer on every table probe.
        let m = self.houses();
        let row = u64::MAX >> (8 * (MAX_HOUSES - m));
        let word = |start: usize| u64::from_le_bytes(self.cells[start..start + 8].try_into().expect("8 bins"));
        u128::from(word(0) & row) | u128::from(word(m + 1) & row) << 64
    }

    /// The same houses with both stores emptied; its margin is then what later moves gain.
    #[inline]
    pub fn without_stores(&self) -> Position {
        let mut position = *self;
        let m = self.houses();
        position.cells[m] = 0;
        position.cells[2 * m + 1] = 0;
        position
    }

    /// Bit `i` set when the mover's house `i` (0-based) holds seeds.
    #[inline]
    pub(crate) fn legal_mask(&self) -> u16 {
        self.mover_houses().iter().enumerate().fold(0, |mask, (i, &s)| mask | (u16::from(s != 0) << i))
    }

    /// The mover's non-empty houses (0-based), left to right. Empty when the mover cannot move;
    /// whether the game is over is [`Position::is_over`]'s business.
    pub fn legal_moves(&self) -> impl Iterator<Item = usize> + use<> {
        let mut mask = self.legal_mask();
        std::iter::from_fn(move || {
            (mask != 0).then(|| {
                let house = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                house
            })
        })
    }

    /// Whether the game is over in this position under `rules` (early end not counted: it never
    /// changes the result, see `Position::is_decided_early`).
    pub fn is_over(&self, rules: &Rules) -> bool {
        match rules.end {
            End::EitherEmpty => self.row_is_empty(0) || self.row_is_empty(self.houses() + 1),
            End::MoverCannotMove => self.row_is_empty(0),
        }
    }

    /// Whether a store holds more than half of all seeds, which ends the game under
    /// [`crate::rules::EarlyEnd::Half`]. The winner is then known; the margin is not.
    pub(crate) fn is_decided_early(&self) -> bool {
        let most = u32::from(self.mover_store().max(self.opponent_store()));
        2 * most > self.total_seeds()
    }

    /// Ends the game: the seeds left in the houses go to their owners' stores or are discarded.
    pub fn finish(&mut self, rules: &Rules) {
        let m = self.houses();
        let mover: u8 = self.mover_houses().iter().sum();
        let opponent: u8 = self.opponent_houses().iter().sum();
        if rules.remaining == Remaining::Owner {
            self.cells[m] += mover;
            self.cells[2 * m + 1] += opponent;
        }
        self.cells[..m].fill(0);
        self.cells[m + 1..=2 * m].fill(0);
    }

    /// The margin (mover minus opponent) at the end of a game that is over now.
    pub fn final_margin(&self, rules: &Rules) -> i32 {
        let mut finished = *self;
        finished.finish(rules);
        finished.margin()
    }

    /// [`Position::final_margin`] for `side` (its store minus the other's), whoever is to move.
    pub fn final_margin_for(&self, rules: &Rules, side: Side) -> i32 {
        let margin = self.final_margin(rules);
        if self.to_move() == side { margin } else { -margin }
    }

    /// Adds one seed to each bin in `bins`.
    #[inline]
    fn add_one(&mut self, bins: std::ops::Range<usize>) {
        for cell in &mut self.cells[bins] {
            *cell += 1;
        }
    }

    /// Whether the m houses starting at bin `first` (0 or m+1) are all empty, in one 8-byte load.
    #[inline]
    fn row_is_empty(&self, first: usize) -> bool {
        let bytes: [u8; 8] = self.cells[first..first + 8].try_into().expect("MAX_BINS leaves room for 8 bytes");
        let mask = u64::MAX >> (8 * (MAX_HOUSES - self.houses()));
        u64::from_le_bytes(bytes) & mask == 0
    }

    /// Hands the move to the other side (used after a move without an extra turn).
    #[inline]
    fn pass_turn(&mut self) {
        // Rotating by half the board is swapping the halves, which is much cheaper.
        let half = self.houses() + 1;
        let (mover, opponent) = self.cells.split_at_mut(half);
        mover.swap_with_slice(&mut opponent[..half]);
        self.to_move = self.to_move.opponent();
    }

    /// Plays the mover's house `house` (0-based from the mover's left) and returns what happened.
    ///
    /// Preconditions: the game is not over and the house holds seeds. Afterwards the position is
    /// seen from the same side exactly when [`Outcome::extra_turn`] is set, otherwise from the
    /// opponent (also when the game just ended, with its remaining seeds swept).
    pub fn play(&mut self, rules: &Rules, house: usize) -> Outcome {
        debug_assert!(house < self.houses() && self.cells[house] != 0, "illegal move {house}");
        debug_assert!(!self.is_over(rules));
        match self.play_in_word(rules, house, false) {
            Some(outcome) => outcome,
            None => self.play_bins(rules, house),
        }
    }

    /// As [`Position::without_stores`] followed by [`Position::play`], in one step: how a search
    /// sees a move (what it banks, then the board value of what is left).
    #[inline]
    pub fn play_without_stores(&mut self, rules: &Rules, house: usize) -> Outcome {
        debug_assert!(house < self.houses() && self.cells[house] != 0, "illegal move {house}");
        match self.play_in_word(rules, house, true) {
            Some(outcome) => outcome,
            None => {
                *self = self.without_stores();
                self.play_bins(rules, house)
            }
        }
    }

    /// [`Position::play`] for the common rules (single sowing counterclockwise, no Wetherell
    /// captures) on boards of up to 7 houses, whose 2m+2 bins fit one 16-byte word: the move is
    /// worked out in registers, read once and written once. Bin by bin, the 8-byte reads that
    /// look for an empty row came right after one-byte writes into the same bytes, which the
    /// store buffer cannot forward: perf put 40% of `play`'s time on those two reads, and moves
    /// per second went from 41-45 M to 63-68 M (`scripts/bench-movegen.sh`, 2 cores). `None`
    /// for other rules and larger boards.
    #[inline]
    fn play_in_word(&mut self, rules: &Rules, house: usize, clear_stores: bool) -> Option<Outcome> {
        let m = self.houses();
        if m > 7
            || rules.sowing != Sowing::Single
            || rules.direction != Direction::Ccw
            || rules.capture == Capture::TwoOrThree
        {
            return None;
        }
        let ring = 2 * m + 1;
        let seeds = usize::from(self.cells[house]);
        let mut bins = self.low_bins();
        bins &= !BIN[house];
        if clear_stores {
            bins &= !(BIN[m] | BIN[ring]);
        }
        // No count reaches 256 (MAX_SEEDS), so byte-wise sums never carry into the next bin.
        let (laps, rest) = if seeds < ring { (0, seeds) } else { (seeds / ring, seeds % ring) };
        if laps > 0 {
            bins += laps as u128 * UPTO[ring];
        }
        let end = house + rest;
        let last = if end < ring {
            bins += UPTO[end + 1] - UPTO[house + 1];
            end
        } else {
            bins += UPTO[ring] - UPTO[house + 1] + UPTO[end + 1 - ring];
            end - ring
        };
        let mut outcome = Outcome { sowings: 1, ..Outcome::default() };
        if last == m {
            outcome.extra_turn = rules.extra_turn;
        } else if last < m && rules.capture != Capture::None {
            let counts = bins.to_le_bytes();
            let facing = counts[2 * m - last];
            if counts[last] == 1 && (facing > 0 || rules.capture == Capture::Empty) {
                outcome.captured = 1 + facing;
                bins &= !(BIN[last] | BIN[2 * m - last]);
                bins += u128::from(outcome.captured) * UNIT[m];
            }
        }
        let row = u64::MAX >> (8 * (8 - m));
        let (mover, opponent) = (bins as u64 & row, (bins >> (8 * (m + 1))) as u64 & row);
        outcome.over = match rules.end {
            End::EitherEmpty => mover == 0 || opponent == 0,
            End::MoverCannotMove if outcome.extra_turn => mover == 0,
            End::MoverCannotMove => opponent == 0,
        };
        if outcome.over {
            // Byte sums by multiplication: the top byte collects them all (each below 256).
            let sum = |row: u64| u128::from(row.wrapping_mul(0x0101_0101_0101_0101) >> 56);
            if rules.remaining == Remaining::Owner {
                bins += sum(mover) * UNIT[m] + sum(opponent) * UNIT[ring];
            }
            bins &= !(u128::from(row) | u128::from(row) << (8 * (m + 1)));
            outcome.extra_turn = false;
        }
        if !outcome.extra_turn {
            let half = 8 * (m + 1);
            let mask = (1u128 << half) - 1;
            bins = (bins & mask) << half | bins >> half;
            self.to_move = self.to_move.opponent();
        }
        self.set_low_bins(bins);
        Some(outcome)
    }

    /// Bins 0 to 15, bin `i` in byte `i`.
    #[inline]
    fn low_bins(&self) -> u128 {
        u128::from_le_bytes(self.cells[..16].try_into().expect("MAX_BINS holds 16 bins"))
    }

    /// Writes bins 0 to 15 from `bins`, bin `i` from byte `i`.
    #[inline]
    fn set_low_bins(&mut self, bins: u128) {
        self.cells[..16].copy_from_slice(&bins.to_le_bytes());
    }

    /// [`Position::play`] bin by bin, for every rule set and board size.
    fn play_bins(&mut self, rules: &Rules, house: usize) -> Outcome {
        let m = self.houses();
        // The ring a mover sows around: own houses, own store, opponent's houses.
        let ring = 2 * m + 1;
        let forward = rules.direction == Direction::Ccw;
        let mut outcome = Outcome::default();
        let mut from = house;
        // Relay and go-again chains terminate. Relay: every sowing after the first lifts at least
        // two seeds, so the sowing point advances around the ring, which holds the mover's store;
        // within any `ring` sowings it passes the store, which then ends the move or gains a
        // seed, and the store cannot gain more seeds than there are. Go-again: a sowing that
        // starts and ends in the mover's row and touched the opponent's row went once round the
        // ring and so dropped a seed in the mover's store; same bound.
        let (last, sown) = loop {
            let seeds = usize::from(std::mem::take(&mut self.cells[from]));
            outcome.sowings += 1;
            let (laps, rest) = if seeds < ring { (0, seeds) } else { (seeds / ring, seeds % ring) };
            if laps > 0 {
                for cell in &mut self.cells[..ring] {
                    *cell += laps as u8;
                }
            }
            // The remaining seeds fill one run of bins along the ring, split in two where it wraps.
            let (at, touched_opponent) = if forward {
                let end = from + rest;
                if end < ring {
                    self.add_one(from + 1..end + 1);
                    (end, laps > 0 || end > m)
                } else {
                    self.add_one(from + 1..ring);
                    self.add_one(0..end - ring + 1);
                    // The first run, when not empty, ends at bin 2m: an opponent house.
                    (end - ring, laps > 0 || from + 1 < ring)
                }
            } else if rest <= from {
                self.add_one(from - rest..from);
                (from - rest, laps > 0 || (rest > 0 && from - 1 > m))
            } else {
                self.add_one(0..from);
                self.add_one(ring - (rest - from)..ring);
                (ring - (rest - from), true)
            };
            let again = match rules.sowing {
                Sowing::Single => false,
                Sowing::Relay => at != m && self.cells[at] > 1,
                Sowing::GoAgain => at < m && self.cells[at] > 1 && touched_opponent,
            };
            if !again {
                break (at, seeds);
            }
            from = at;
        };

        if last == m {
            outcome.extra_turn = rules.extra_turn;
        } else if last < m {
            // The last seed alone in an own house: that house was empty before it.
            if self.cells[last] == 1 {
                let opposite = 2 * m - last;
                let captures = match rules.capture {
                    Capture::Standard => self.cells[opposite] > 0,
                    Capture::Empty => true,
                    Capture::None | Capture::TwoOrThree => false,
                };
                if captures {
                    outcome.captured = 1 + self.cells[opposite];
                    self.cells[m] += outcome.captured;
                    self.cells[last] = 0;
                    self.cells[opposite] = 0;
                }
            }
        } else if rules.capture == Capture::TwoOrThree {
            // Wetherell: capture backwards along the opponent's row through the houses this
            // sowing just filled, while each holds 2 or 3.
            let mut at = last;
            for _ in 0..sown.min(ring) {
                if at <= m || !(2..=3).contains(&self.cells[at]) {
                    break;
                }
                outcome.captured += self.cells[at];
                self.cells[m] += self.cells[at];
                self.cells[at] = 0;
                at = step(at, ring, !forward);
            }
        }

        outcome.over = match rules.end {
            End::EitherEmpty => self.row_is_empty(0) || self.row_is_empty(m + 1),
            End::MoverCannotMove if outcome.extra_turn => self.row_is_empty(0),
            End::MoverCannotMove => self.row_is_empty(m + 1),
        };
        if outcome.over {
            self.finish(rules);
            outcome.extra_turn = false;
        }
        if !outcome.extra_turn {
            self.pass_turn();
        }
        outcome
    }
}

/// `UPTO[n]`: a word whose bytes 0 to n - 1 hold 1, the rest 0.
const UPTO: [u128; 17] = {
    let mut table = [0u128; 17];
    let mut n = 1;
    while n <= 16 {
        table[n] = table[n - 1] | 1 << (8 * (n - 1));
        n += 1;
    }
    table
};

/// `UNIT[i]`: byte `i` holds 1, the rest 0.
const UNIT: [u128; 16] = byte_at_each_bin(1);

/// `BIN[i]`: byte `i` is all ones, the rest 0.
const BIN: [u128; 16] = byte_at_each_bin(0xFF);

/// For each bin `i` of a 16-byte word, the word with `byte` in byte `i` and 0 elsewhere.
const fn byte_at_each_bin(byte: u8) -> [u128; 16] {
    let mut table = [0u128; 16];
    let mut i = 0;
    while i < 16 {
        table[i] = (byte as u128) << (8 * i);
        i += 1;
    }
    table
}

/// The next bin around a ring of `ring` bins, one way or the other.
#[inline]
fn step(at: usize, ring: usize, forward: bool) -> usize {
    if forward {
        if at + 1 == ring { 0 } else { at + 1 }
    } else if at == 0 {
        ring - 1
    } else {
        at - 1
    }
}

fn check_houses(houses: usize) -> Result<(), BoardError> {
    if (1..=MAX_HOUSES).contains(&houses) { Ok(()) } else { Err(BoardError::Houses { houses }) }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({self})")
    }
}

/// Mixes a house key into a hash: the keys are dense small bytes, so a plain fold would collide.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = crate::board::mix64((self.0 ^ word).wrapping_add(0x9E37_79B9_7F4A_7C15));
    }

    fn write_u128(&mut self, key: u128) {
        self.write_u64(key as u64);
        self.write_u64((key >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
