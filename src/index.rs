//! Dense combinatorial indexes of database layers: no keys are stored, a position's place is
//! computed from its houses.
//!
//! A *row* is one side's m houses. Rows holding k seeds are ranked 0..N(k), N(k) = C(k+m-1, m-1),
//! by the colex rank of their stars-and-bars bar positions. A [`Layer`] holds the positions with s
//! seeds on the board, seen from the side to move, that are not over. It is split into blocks by
//! `a`, the seeds in the mover's row; inside a block the mover's row is major:
//!
//! `index(A, B) = base[a] + rank(A) * N(s - a) + rank(B)`
//!
//! Mover-major order keeps a builder's lookups local: a child's mover row is the parent's opponent
//! row changed by at most the seeds sown into it, so all children of the positions that share an
//! opponent row fall into a few contiguous rows of each smaller layer.

use crate::board::MAX_HOUSES;
use crate::rules::{End, Rules};

/// Largest seed count a row table covers; layers are limited to it.
pub const MAX_LAYER_SEEDS: usize = 100;

const BINOMIAL_N: usize = MAX_LAYER_SEEDS + MAX_HOUSES + 1;

/// Pascal's triangle, `C(n, r)` for n < BINOMIAL_N and r <= MAX_HOUSES.
struct Binomials([[u64; MAX_HOUSES + 1]; BINOMIAL_N]);

const BINOMIALS: Binomials = {
    let mut table = [[0u64; MAX_HOUSES + 1]; BINOMIAL_N];
    let mut n = 0;
    while n < BINOMIAL_N {
        table[n][0] = 1;
        let mut r = 1;
        while r <= MAX_HOUSES && r <= n {
            table[n][r] = table[n - 1][r - 1] + if r < n { table[n - 1][r] } else { 0 };
            r += 1;
        }
        n += 1;
    }
    Binomials(table)
};

/// `C(n, r)` for the small arguments indexes need.
#[inline]
pub(crate) fn binomial(n: usize, r: usize) -> u64 {
    BINOMIALS.0[n][r]
}

/// Rows of `houses` houses holding exactly `seeds` seeds.
#[inline]
pub(crate) fn row_count(houses: usize, seeds: usize) -> u64 {
    binomial(seeds + houses - 1, houses - 1)
}

/// The rank of a row among rows with the same number of seeds and houses.
#[inline]
pub(crate) fn rank_row(row: &[u8]) -> u64 {
    rank_and_seeds(row).0
}

/// The rank of a row and the seeds it holds, in one pass.
#[inline(always)]
pub(crate) fn rank_and_seeds(row: &[u8]) -> (u64, usize) {
    let mut rank = 0;
    let mut prefix = 0usize;
    let (last, rest) = row.split_last().expect("a row has houses");
    for (j, &seeds) in rest.iter().enumerate() {
        prefix += usize::from(seeds);
        rank += binomial(prefix + j, j + 1);
    }
    (rank, prefix + usize::from(*last))
}

/// The row of `houses` houses holding `seeds` seeds with the given rank (inverse of [`rank_row`]).
pub(crate) fn unrank_row(houses: usize, seeds: usize, mut rank: u64, row: &mut [u8]) {
    debug_assert!(rank < row_count(houses, seeds));
    // Bar positions from the last down: the largest p with C(p, j+1) <= rank.
    let mut upper = seeds + houses - 1;
    let mut next_prefix = seeds;
    for j in (0..houses - 1).rev() {
        let mut p = upper - 1;
        while binomial(p, j + 1) > rank {
            p -= 1;
        }
        rank -= binomial(p, j + 1);
        let prefix = p - j;
        row[j + 1] = (next_prefix - prefix) as u8;
        next_prefix = prefix;
        upper = p;
    }
    row[0] = next_prefix as u8;
}

/// The potential of a row: seeds weighted by their house number from the owner's left (1..m).
/// A move that banks nothing carries seeds rightwards in the mover's own row, so it raises the
/// sum of both rows' potentials: the order in which a builder finishes a layer.
#[inline]
pub(crate) fn potential(row: &[u8]) -> usize {
    row.iter().enumerate().map(|(i, &s)| (i + 1) * usize::from(s)).sum()
}

/// The positions with a fixed number of seeds on the board that are not over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    houses: usize,
    seeds: usize,
    /// Fewest and most seeds the mover's row may hold.
    first_block: usize,
    last_block: usize,
    /// `blocks[a]`: where the block of mover rows with `a` seeds starts and how many opponent
    /// rows each mover row has there, N(s - a), in one place (indexed by `a` itself) for the hot
    /// [`Layer::index_in_block`]. Entries below `first_block` are unused.
    blocks: Vec<(u64, u64)>,
    /// Number of positions.
    len: u64,
}

impl Layer {
    /// The layer of `seeds` seeds on boards of `houses` houses per side under `rules`. The mover's
    /// row is never empty (the game would be over); the opponent's row may be empty only when
    /// the game goes on until the mover cannot move.
    pub fn new(rules: &Rules, houses: usize, seeds: usize) -> Layer {
        assert!((1..=MAX_HOUSES).contains(&houses) && seeds <= MAX_LAYER_SEEDS);
        let first_block = 1;
        let last_block = match rules.end {
            End::EitherEmpty => seeds.saturating_sub(1),
            End::MoverCannotMove => seeds,
        };
        let mut blocks = vec![(0, 0); first_block];
        let mut len = 0;
        for a in first_block..=last_block {
            let width = row_count(houses, seeds - a);
            blocks.push((len, width));
            len += row_count(houses, a) * width;
        }
        Layer { houses, seeds, first_block, last_block, blocks, len }
    }

    /// Houses per side.
    pub fn houses(&self) -> usize {
        self.houses
    }

    /// Seeds on the board in every position of the layer.
    pub fn seeds(&self) -> usize {
        self.seeds
    }

    /// Number of positions.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the layer has no positions (fewer than two seeds under either-empty rules).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The range of seeds the mover's row holds across the layer's blocks.
    pub(crate) fn blocks(&self) -> std::ops::RangeInclusive<usize> {
        self.first_block..=self.last_block
    }

    /// The index of the position with these rows (mover first), which must belong to the layer.
    #[inline]
    pub fn index(&self, mover: &[u8], opponent: &[u8]) -> u64 {
        let (mover_rank, a) = rank_and_seeds(mover);
        debug_assert!(self.blocks().contains(&a));
        self.index_in_block(a, mover_rank, rank_row(opponent))
    }

    /// The index from the mover row's seed count and both rows' ranks.
    #[inline]
    pub(crate) fn index_in_block(&self, a: usize, mover_rank: u64, opponent_rank: u64) -> u64 {
        debug_assert!(self.blocks().contains(&a));
        let (start, width) = self.blocks[a];
        start + mover_rank * width + opponent_rank
    }

    /// The rows of the position at `index` (inverse of [`Layer::index`]).
    pub fn rows(&self, index: u64, mover: &mut [u8], opponent: &mut [u8]) {
        debug_assert!(index < self.len());
        let blocks = &self.blocks[self.first_block..=self.last_block];
        let a = self.first_block + blocks.partition_point(|&(start, _)| start <= index) - 1;
        let (start, width) = self.blocks[a];
        let offset = index - start;
        unrank_row(self.houses, a, offset / width, mover);
        unrank_row(self.houses, self.seeds - a, offset % width, opponent);
    }
}

/// Every row of `houses` houses with `seeds` seeds, in rank order, with the ranks grouped by
/// potential. Builders walk rows through this table instead of unranking.
pub struct RowTable {
    houses: usize,
    rows: Vec<[u8; MAX_HOUSES]>,
    /// Ranks sorted by potential, and where each potential's run starts (one entry per potential
    /// 0..=max plus an end marker).
    by_potential: Vec<u32>,
    potential_starts: Vec<usize>,
}

impl RowTable {
    /// The table for rows of `houses` houses holding `seeds` seeds.
    pub fn new(houses: usize, seeds: usize) -> RowTable {
        let count = row_count(houses, seeds) as usize;
        let mut rows = vec![[0u8; MAX_HOUSES]; count];
        for (rank, row) in rows.iter_mut().enumerate() {
            unrank_row(houses, seeds, rank as u64, &mut row[..houses]);
        }
        let max_potential = houses * seeds;
        let mut potential_starts = vec![0usize; max_potential + 2];
        for row in &rows {
            potential_starts[potential(&row[..houses]) + 1] += 1;
        }
        for p in 1..potential_starts.len() {
            potential_starts[p] += potential_starts[p - 1];
        }
        let mut fill = potential_starts.clone();
        let mut by_potential = vec![0u32; count];
        for (rank, row) in rows.iter().enumerate() {
            let p = potential(&row[..houses]);
            by_potential[fill[p]] = rank as u32;
            fill[p] += 1;
        }
        RowTable { houses, rows, by_potential, potential_starts }
    }

    /// The row with this rank (the first `houses` bytes are meaningful).
    #[inline]
    pub fn row(&self, rank: u32) -> &[u8] {
        &self.rows[rank as usize][..self.houses]
    }

    /// The row with this rank, zero-padded to [`MAX_HOUSES`] houses.
    #[inline]
    pub(crate) fn padded_row(&self, rank: u32) -> &[u8; MAX_HOUSES] {
        &self.rows[rank as usize]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table is empty (never: there is always at least one row).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The largest potential of any row.
    pub(crate) fn max_potential(&self) -> usize {
        self.potential_starts.len() - 2
    }

    /// The ranks of the rows with potential `p` (empty when none or out of range).
    #[inline]
    pub(crate) fn with_potential(&self, p: usize) -> &[u32] {
        if p > self.max_potential() {
            return &[];
        }
        &self.by_potential[self.potential_starts[p]..self.potential_starts[p + 1]]
    }

    /// Every rank, sorted by potential: [`RowTable::with_potential`] of each potential in turn.
    pub(crate) fn by_potential(&self) -> &[u32] {
        &self.by_potential
    }

    /// Where the ranks of potential `p` start in [`RowTable::by_potential`] (`p` at most the
    /// largest potential).
    pub(crate) fn potential_start(&self, p: usize) -> usize {
        self.potential_starts[p]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_are_pascals_triangle() {
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(41, 5), 749_398);
        assert_eq!(row_count(6, 24), 118_755);
        assert_eq!(row_count(1, 7), 1);
    }

    #[test]
    fn rows_rank_and_unrank_both_ways() {
        for houses in 1..=MAX_HOUSES {
            for seeds in 0..=6 {
                let mut seen = vec![false; row_count(houses, seeds) as usize];
                let mut row = [0u8; MAX_HOUSES];
                for rank in 0..row_count(houses, seeds) {
                    unrank_row(houses, seeds, rank, &mut row[..houses]);
                    assert_eq!(row[..houses].iter().map(|&s| usize::from(s)).sum::<usize>(), seeds);
                    assert_eq!(rank_row(&row[..houses]), rank);
                    seen[rank as usize] = true;
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn layer_sizes_count_the_positions_that_are_not_over() {
        // 6 houses, 2 seeds, either-empty: one seed on each side, 6 * 6 ways.
        assert_eq!(Layer::new(&Rules::STANDARD, 6, 2).len(), 36);
        // mover-cannot-move adds both seeds on the mover's side: 21 rows.
        assert_eq!(Layer::new(&Rules::BGA, 6, 2).len(), 36 + 21);
        assert!(Layer::new(&Rules::STANDARD, 6, 1).is_empty());
        let total: u64 = (0..=24).map(|s| Layer::new(&Rules::BGA, 6, s).len()).sum();
        let all_rows: u64 = (0..=24).map(|s| (0..=s).map(|a| row_count(6, a) * row_count(6, s - a)).sum::<u64>()).sum();
        let mover_empty: u64 = (0..=24).map(|s| row_count(6, s)).sum();
        assert_eq!(total, all_rows - mover_empty);
        assert_eq!(all_rows, 1_251_677_700, "the 24-seed figure of the issue");
    }

    #[test]
    fn row_tables_group_ranks_by_potential() {
        let table = RowTable::new(3, 4);
        assert_eq!(table.len(), 15);
        assert_eq!(table.max_potential(), 12);
        assert_eq!(table.with_potential(12), &[rank_row(&[0, 0, 4]) as u32]);
        assert_eq!(table.with_potential(13), &[] as &[u32]);
        let mut total = 0;
        for p in 0..=table.max_potential() {
            for &rank in table.with_potential(p) {
                assert_eq!(potential(table.row(rank)), p);
                assert_eq!(rank_row(table.row(rank)), u64::from(rank));
                total += 1;
            }
        }
        assert_eq!(total, 15);
    }
}
