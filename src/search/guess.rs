//! MTD(f)'s first guess for positions far above the database: iterative deepening of a
//! depth-limited alpha-beta whose horizon counts as banking nothing more (board value 0), exact
//! where the game ends or the database answers. The estimate only chooses where the zero-window
//! tests start, so it may be wrong; every value reported still comes from the tests.
//!
//! Far above the database a good first guess saves whole zero-window tests, and the estimate's
//! nodes far from its horizon leave their best move in the table, as in iterative deepening,
//! where the zero-window tests try it first. What each buys, and the constants below, are
//! measured in `docs/performance-history.md` ("The first guess", "Search constants").

use std::sync::atomic::{AtomicU64, Ordering};

use super::table::{NO_MOVE, TableKey};
use super::{Search, SearchError, move_order};
use crate::board::{MAX_HOUSES, Position};
use crate::moves::MoveEffect;

/// Positions at least this many seeds beyond the database get an estimated first guess; nearer
/// ones (Kalah(6,4) over the 24-seed database: 24 seeds) are cheap enough to start from 0.
const GUESS_MIN_SEEDS: u32 = 28;

/// The estimate deepens until one iteration searches this many nodes: [`GUESS_NODES_FAR`] from
/// [`GUESS_FAR_SEEDS`] seeds beyond the database on, where the tests need the estimate's moves
/// deeper down, else [`GUESS_NODES_NEAR`].
const GUESS_NODES_NEAR: u64 = 1 << 19;
/// See [`GUESS_NODES_NEAR`].
const GUESS_NODES_FAR: u64 = 1 << 21;
/// See [`GUESS_NODES_NEAR`].
const GUESS_FAR_SEEDS: u32 = 33;

/// Nodes of the estimate with at least this many sowings still to go leave their best move in the
/// transposition table, where the next iteration and then the zero-window tests try it first.
const HINT_MIN_DEPTH: u32 = 6;

/// Iterations stop at this depth whatever they cost (sowings from the root).
const GUESS_MAX_DEPTH: u32 = 64;

/// Nodes of a zero-window test expected to cut off, with no move in the table (or only the first
/// guess's hint), at most this many seeds below the test's root and at least [`LEAD_MIN_SEEDS`]
/// beyond the database, try first the move of an estimate of their own
/// ([`Search::lead_by_estimate`]): near the root a wrong first try costs millions of nodes. This
/// holds for the tests of MTD(f), which reuse the estimates' moves the table keeps from test to
/// test; a lone test ([`Search::board_value_at_least`], a proof's task) leads by estimate less
/// (`at_least`).
pub(super) const LEAD_BELOW_ROOT: u32 = 8;
/// See [`LEAD_BELOW_ROOT`]: nearer the database the subtrees are too small to pay for an estimate.
const LEAD_MIN_SEEDS: u32 = 24;
/// A node's estimate deepens until one iteration searches this many nodes, or all of them four
/// times as many.
const LEAD_NODES: u64 = 1 << 14;
/// From this many seeds beyond the database on, [`LEAD_NODES`] doubles with every seed more, at
/// most [`LEAD_MAX_DOUBLINGS`] times: the subtrees there are larger, and so is what a wrong first
/// move costs.
const LEAD_DOUBLING_SEEDS: u32 = 29;
/// See [`LEAD_DOUBLING_SEEDS`].
const LEAD_MAX_DOUBLINGS: u32 = 6;

/// Nodes an iteration of a node's lead estimate may search, `beyond` seeds beyond the database.
fn lead_budget(beyond: u32) -> u64 {
    LEAD_NODES << beyond.saturating_sub(LEAD_DOUBLING_SEEDS).min(LEAD_MAX_DOUBLINGS)
}

/// Whether an estimate's hint whose recorded work is `work` (log2 of its nodes, as the table
/// keeps it) stands in for the lead estimate of a node `beyond` seeds beyond the database: when
/// the estimate that left it searched at least that node's [`lead_budget`] below it (mostly the
/// lead estimate of a node two moves up, whose deeper subtree is also this node's).
fn hint_is_enough(beyond: u32, work: u8) -> bool {
    u32::from(work) > lead_budget(beyond).ilog2()
}

/// Estimates remember what they found in a small table per thread, of this many entries (16
/// bytes each: it stays in the core's cache): the move to try first in the next, deeper iteration
/// and bounds for the positions an iteration reaches twice. Entries are told apart by a 64-bit
/// tag: a collision only misleads an estimate, and no value the search reports comes from one.
const CACHE_ENTRIES: usize = 1 << 16;

/// Nodes of an estimate with at least this many sowings to go use the per-thread cache.
const CACHE_MIN_DEPTH: u32 = 2;

thread_local! {
    /// Pairs of words: a tag (the table key's hash with the search's salt), then
    /// [`CacheEntry::pack`]. Allocated at the first store.
    static CACHE: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A salt for a new search's tags in the per-thread cache: every search gets its own.
pub(super) fn new_estimate_id() -> u64 {
    static SEARCHES: AtomicU64 = AtomicU64::new(0);
    crate::board::mix64(SEARCHES.fetch_add(1, Ordering::Relaxed) + 1)
}

/// What the per-thread cache keeps of one estimate: bounds on its value at `depth` sowings (or
/// more), fail-soft as the estimate returned it, and the move that gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CacheEntry {
    depth: u8,
    lower: i8,
    upper: i8,
    best: u8,
}

impl CacheEntry {
    /// The entry for an estimate at `depth` that returned `value` for the window `alpha..beta`,
    /// with `best`.
    fn of(depth: u32, alpha: i32, beta: i32, value: i32, best: u8) -> CacheEntry {
        let (lower, upper) = if value <= alpha {
            (i8::MIN.into(), value)
        } else if value >= beta {
            (value, i8::MAX.into())
        } else {
            (value, value)
        };
        let byte = |value: i32| value.clamp(i8::MIN.into(), i8::MAX.into()) as i8;
        CacheEntry { depth: depth.min(u8::MAX.into()) as u8, lower: byte(lower), upper: byte(upper), best }
    }

    /// The value an estimate at `depth` sowings with the window `alpha..beta` may return without
    /// searching, if the entry has one.
    fn answer(self, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        let (lower, upper) = (i32::from(self.lower), i32::from(self.upper));
        if u32::from(self.depth) < depth {
            None
        } else if lower >= beta || lower == upper {
            Some(lower)
        } else if upper <= alpha {
            Some(upper)
        } else {
            None
        }
    }

    fn pack(self) -> u64 {
        u64::from(self.depth)
            | u64::from(self.lower as u8) << 8
            | u64::from(self.upper as u8) << 16
            | u64::from(self.best) << 24
    }

    fn unpack(word: u64) -> CacheEntry {
        CacheEntry {
            depth: word as u8,
            lower: (word >> 8) as u8 as i8,
            upper: (word >> 16) as u8 as i8,
            best: (word >> 24) as u8,
        }
    }

    /// The slot of the position hashed to `hash` and its tag in the search salted `salt`. The
    /// slot takes no salt: which positions of a search share a slot must not depend on how many
    /// searches the process made before it (the salt counts them), or the same search would
    /// order its moves, and count its nodes, differently from run to run. An entry another
    /// search left behaves as an empty slot: its tag does not match and a store replaces it.
    fn slot_and_tag(hash: u64, salt: u64) -> (usize, u64) {
        (2 * (hash as usize & (CACHE_ENTRIES - 1)), hash ^ salt)
    }

    /// This thread's entry for the position hashed to `hash`, in the search salted `salt`.
    fn probe(hash: u64, salt: u64) -> Option<CacheEntry> {
        let (slot, tag) = Self::slot_and_tag(hash, salt);
        CACHE.with_borrow(|cache| {
            (cache.len() > slot && cache[slot] == tag).then(|| CacheEntry::unpack(cache[slot + 1]))
        })
    }

    /// Keeps the entry for the position hashed to `hash`, in the search salted `salt`, in this
    /// thread's cache, in place of whatever was there.
    fn store(self, hash: u64, salt: u64) {
        let (slot, tag) = Self::slot_and_tag(hash, salt);
        CACHE.with_borrow_mut(|cache| {
            if cache.is_empty() {
                cache.resize(2 * CACHE_ENTRIES, 0);
            }
            cache[slot] = tag;
            cache[slot + 1] = self.pack();
        })
    }
}

impl Search<'_> {
    /// Where MTD(f) starts for `board` (stores empty, not settled): an estimate when a database is
    /// probed and the board holds at least [`GUESS_MIN_SEEDS`] seeds more than it, else 0. The
    /// estimate's nodes count as the search's.
    pub(super) fn first_guess(&mut self, board: &Position) -> Result<i32, SearchError> {
        self.first_guess_within(board, None)
    }

    /// Whether [`Search::first_guess`] estimates `board` (else it is 0).
    pub(super) fn gets_first_guess(&self, board: &Position) -> bool {
        self.database.is_some()
            && !self.rules.has_cycles()
            && board.seeds_on_board() >= self.database_seeds + GUESS_MIN_SEEDS
    }

    /// [`Search::first_guess`] with iterations that stop at `nodes` (`None`: as MTD(f)'s).
    pub(super) fn first_guess_within(&mut self, board: &Position, nodes: Option<u64>) -> Result<i32, SearchError> {
        if !self.gets_first_guess(board) {
            return Ok(0);
        }
        if let Some(pool) = &self.pool {
            // The estimate leaves moves all over the table from one thread: let every thread
            // claim the table's pages first (a fresh GiB took 3-4 s on one thread here).
            pool.install(|| self.table.touch_all());
        }
        let budget = nodes.unwrap_or(if board.seeds_on_board() >= self.database_seeds + GUESS_FAR_SEEDS {
            GUESS_NODES_FAR
        } else {
            GUESS_NODES_NEAR
        });
        self.deepened_estimate(board, budget)
    }

    /// A cheap estimate of the value of `position` for the side to move, stores included: exact
    /// where the game is over or the database answers, else the depth-limited estimate deepened
    /// until one iteration costs `nodes`. It orders work (a proof's children); it proves nothing.
    pub fn estimated_value(&mut self, position: &Position, nodes: u64) -> Result<i32, SearchError> {
        self.check_houses(position)?;
        let board = position.without_stores();
        if let Some(value) = self.settled(&board)? {
            return Ok(position.margin() + value);
        }
        if self.rules.has_cycles() {
            return Ok(position.margin());
        }
        Ok(position.margin() + self.deepened_estimate(&board, nodes)?)
    }

    /// The depth-limited estimate of `board` (stores empty), full window, deepened one sowing at
    /// a time until one iteration searches `nodes` (or [`GUESS_MAX_DEPTH`] is reached).
    fn deepened_estimate(&mut self, board: &Position, nodes: u64) -> Result<i32, SearchError> {
        let bound = super::seed_bound(board.seeds_on_board());
        let mut guess = 0;
        for depth in 1..=GUESS_MAX_DEPTH {
            let before = self.stats.nodes;
            guess = self.estimate(board, depth, -bound, bound)?;
            if self.stats.nodes - before >= nodes {
                break;
            }
        }
        Ok(guess)
    }

    /// Whether a node with `seeds` on the board, expected to cut off, chooses its first move by
    /// [`Search::lead_by_estimate`] (see [`LEAD_BELOW_ROOT`]): when the table holds no move for
    /// it (`table_move`), or only an estimate's hint (`hint_work`: the log2 work recorded for a
    /// move without bounds) that cost less than the node's own estimate would
    /// ([`hint_is_enough`]).
    #[inline]
    pub(super) fn leads_by_estimate(&self, seeds: u32, table_move: u8, hint_work: Option<u8>) -> bool {
        self.database.is_some()
            && self.lead_below_root.is_some_and(|below| seeds + below >= self.root_seeds)
            && seeds >= self.database_seeds + LEAD_MIN_SEEDS
            && (table_move == NO_MOVE
                || hint_work.is_some_and(|work| !hint_is_enough(seeds - self.database_seeds, work)))
    }

    /// The best move for the side to move in `board` (not over, beyond the database) by an
    /// estimate deepened until it costs [`LEAD_NODES`] (more far above the database: see
    /// [`LEAD_DOUBLING_SEEDS`]); its nodes count as the search's.
    pub(super) fn lead_by_estimate(&mut self, board: &Position) -> Result<u8, SearchError> {
        let seeds = board.seeds_on_board();
        let bound = super::seed_bound(seeds);
        let budget = lead_budget(seeds - self.database_seeds);
        let start = self.stats.nodes;
        let mut best = NO_MOVE;
        for depth in 1..=GUESS_MAX_DEPTH {
            let before = self.stats.nodes;
            best = self.estimate_with_move(board, depth, -bound, bound)?.1;
            if self.stats.nodes - before >= budget || self.stats.nodes - start >= 4 * budget {
                break;
            }
        }
        Ok(best)
    }

    /// Fail-soft alpha-beta over `depth` more sowings on the board value of `board` (not over;
    /// its stores are ignored), a position at the horizon counting 0. Nodes with at least
    /// [`HINT_MIN_DEPTH`] sowings to go try the table's move first and leave theirs there.
    fn estimate(&mut self, board: &Position, depth: u32, alpha: i32, beta: i32) -> Result<i32, SearchError> {
        Ok(self.estimate_with_move(board, depth, alpha, beta)?.0)
    }

    /// [`Search::estimate`], and the move that gave it ([`NO_MOVE`] at the horizon or in the
    /// database).
    fn estimate_with_move(
        &mut self,
        board: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Result<(i32, u8), SearchError> {
        self.count_node()?;
        super::count!(self.stats, estimate_nodes, 1);
        if let Some(db) = self.database.filter(|_| board.seeds_on_board() <= self.database_seeds) {
            return Ok((db.board_value(board)?, NO_MOVE));
        }
        if depth == 0 {
            return Ok((0, NO_MOVE));
        }
        let hinted = depth >= HINT_MIN_DEPTH;
        let key = TableKey::of(board);
        // Tagged with the search, so that searches on one thread never read each other's entries.
        let hash = (depth >= CACHE_MIN_DEPTH).then(|| key.hash(0));
        let cached = hash.and_then(|hash| CacheEntry::probe(hash, self.estimate_id));
        if let Some((value, entry)) = cached.and_then(|entry| Some((entry.answer(depth, alpha, beta)?, entry))) {
            return Ok((value, entry.best));
        }
        // The cache's move is this thread's last look at the position; the table's may be older.
        let mut hint = cached.map_or(NO_MOVE, |entry| entry.best);
        if hint == NO_MOVE && hinted {
            hint = self.table.probe(key).map_or(NO_MOVE, |known| known.best);
        }
        let nodes_before = self.stats.nodes;
        // Each move's effect is worked out and stays in its slot (see `MoveEffect::play`); only
        // (order, house) pairs are sorted.
        let mut effects = [MoveEffect::unmoved(board); MAX_HOUSES];
        let mut by_order = [0i64; MAX_HOUSES];
        let mut count = 0;
        let opponent_seeds = board.opponent_seeds();
        for house in board.legal_moves() {
            effects[house].play(&self.rules, house);
            // Of equal orders the lower house first, as a stable sort of the houses in order.
            by_order[count] =
                i64::from(move_order(&effects[house], house, hint, opponent_seeds)) << 8 | (0xFF - house as i64);
            count += 1;
        }
        let by_order = &mut by_order[..count];
        by_order.sort_unstable_by(|a, b| b.cmp(a));
        let floor = alpha;
        let (mut best, mut best_move) = (i32::MIN, NO_MOVE);
        for &ordered in by_order.iter() {
            let house = 0xFF - (ordered & 0xFF) as u8;
            let effect = &effects[usize::from(house)];
            let value = if effect.over {
                effect.value(0)
            } else {
                let (low, high) = effect.child_window(alpha, beta);
                effect.value(self.estimate(&effect.child, depth - 1, low, high)?)
            };
            if value > best {
                (best, best_move) = (value, house);
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        if let Some(hash) = hash {
            CacheEntry::of(depth, floor, beta, best, best_move).store(hash, self.estimate_id);
        }
        if hinted && best > floor {
            // Bounds that prove nothing: the entry only carries the move.
            let bound = super::seed_bound(board.seeds_on_board());
            self.table.store(key, -bound, bound, best_move, self.stats.nodes - nodes_before);
        }
        Ok((best, best_move))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use crate::search::SearchOptions;
    use crate::solve::Solver;

    #[test]
    fn lead_estimates_get_more_nodes_far_above_the_database() {
        assert_eq!(lead_budget(LEAD_MIN_SEEDS), LEAD_NODES);
        assert_eq!(lead_budget(LEAD_DOUBLING_SEEDS), LEAD_NODES);
        assert_eq!(lead_budget(LEAD_DOUBLING_SEEDS + 1), 2 * LEAD_NODES);
        assert_eq!(lead_budget(LEAD_DOUBLING_SEEDS + LEAD_MAX_DOUBLINGS), 64 * LEAD_NODES);
        // Kalah(6,5) starts 36 seeds beyond the 24-seed database, Kalah(6,6) 48.
        assert_eq!(lead_budget(48), lead_budget(36), "at most {LEAD_MAX_DOUBLINGS} doublings");
    }

    /// Cached bounds answer only windows they decide, at the depth they were found or less.
    #[test]
    fn a_cached_estimate_answers_what_its_bounds_decide() {
        let failed_low = CacheEntry::of(5, 2, 6, 1, 3);
        assert_eq!((failed_low.lower, failed_low.upper, failed_low.best), (i8::MIN, 1, 3));
        assert_eq!(failed_low.answer(5, 2, 6), Some(1));
        assert_eq!(failed_low.answer(4, 1, 3), Some(1), "an upper bound at alpha");
        assert_eq!(failed_low.answer(5, 0, 3), None, "the value may lie above 0");
        assert_eq!(failed_low.answer(6, 2, 6), None, "found at a shallower depth");
        let cut = CacheEntry::of(5, 2, 6, 9, 1);
        assert_eq!((cut.lower, cut.upper), (9, i8::MAX));
        assert_eq!(cut.answer(5, 2, 6), Some(9));
        assert_eq!(cut.answer(5, 8, 12), None);
        let exact = CacheEntry::of(5, -10, 10, -4, 0);
        assert_eq!(exact.answer(3, -50, 50), Some(-4));
        for entry in [failed_low, cut, exact] {
            assert_eq!(CacheEntry::unpack(entry.pack()), entry);
        }
    }

    /// Two searches on one thread never read each other's cached estimates: estimates under
    /// other rules, after one another, are each plain minimax.
    #[test]
    fn searches_on_one_thread_keep_their_estimates_apart() {
        let options = SearchOptions { table_bytes: 1 << 16, deadline: None, threads: 1 };
        let board = Position::start(4, 3).unwrap();
        let bound = board.seeds_on_board() as i32;
        let mut values = Vec::new();
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::STANDARD] {
            let mut search = Search::new(rules, None, &options).unwrap();
            let exact = Solver::new(rules).unwrap().board_value(&board);
            for depth in [4, 200] {
                values.push(search.estimate(&board, depth, -bound, bound).unwrap());
            }
            assert_eq!(values.last(), Some(&exact), "{rules}");
        }
        assert_eq!(values[..2], values[4..], "the same estimates for the same rules");
    }

    /// A hint counts when the estimate that left it searched at least the budget below it.
    #[test]
    fn a_hint_stands_in_for_an_estimate_of_no_more_nodes() {
        // The table keeps work as the bit length of the node count.
        let work = |nodes: u64| (u64::BITS - nodes.leading_zeros()) as u8;
        for beyond in [LEAD_MIN_SEEDS, LEAD_DOUBLING_SEEDS + 2, 48] {
            let budget = lead_budget(beyond);
            assert!(hint_is_enough(beyond, work(budget)), "{beyond} seeds beyond");
            assert!(hint_is_enough(beyond, work(4 * budget)), "{beyond} seeds beyond");
            assert!(!hint_is_enough(beyond, work(budget - 1)), "{beyond} seeds beyond");
            assert!(!hint_is_enough(beyond, 0), "{beyond} seeds beyond: no work recorded");
        }
    }

    /// With a horizon beyond the end of every line the estimate is plain minimax: exact.
    #[test]
    fn an_estimate_deeper_than_the_game_is_exact() {
        let options = SearchOptions { table_bytes: 1 << 16, deadline: None, threads: 1 };
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::SWEDISH, Rules::WETHERELL] {
            let mut search = Search::new(rules, None, &options).unwrap();
            let mut solver = Solver::new(rules).unwrap();
            for (houses, seeds) in [(2, 3), (3, 2), (3, 3), (4, 2)] {
                let board = Position::start(houses, seeds).unwrap();
                let bound = board.seeds_on_board() as i32;
                let exact = solver.board_value(&board);
                assert_eq!(
                    search.board_value(&board).unwrap(),
                    exact,
                    "{rules} Kalah({houses},{seeds}): one table, sizes mixed"
                );
                assert_eq!(
                    search.estimate(&board, 200, -bound, bound).unwrap(),
                    exact,
                    "{rules} Kalah({houses},{seeds})"
                );
                // Fail-soft: a window above the value fails low with a bound at or above it.
                let low = search.estimate(&board, 200, exact + 1, exact + 3).unwrap();
                assert!(low >= exact && low <= exact + 1, "{rules} Kalah({houses},{seeds}): {low} vs {exact}");
            }
        }
    }

    /// Nodes deep enough leave their best move in the table, with bounds that prove nothing:
    /// the move that gives the estimate, whichever order the moves were tried in (checked on the
    /// starts and the positions one move after them).
    #[test]
    fn the_estimate_leaves_its_best_move_in_the_table() {
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let depth = HINT_MIN_DEPTH + 3;
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            for (houses, seeds) in [(4, 3), (5, 2), (4, 4)] {
                let start = Position::start(houses, seeds).unwrap();
                let after_one = start.legal_moves().map(|house| MoveEffect::of(&rules, &start, house));
                let boards = after_one.filter(|e| !e.over).map(|e| e.child.without_stores()).chain([start]);
                for board in boards {
                    let mut search = Search::new(rules, None, &options).unwrap();
                    let bound = board.seeds_on_board() as i32;
                    let value = search.estimate(&board, depth, -bound, bound).unwrap();
                    let known = search.table.probe(TableKey::of(&board)).expect("a move left for the root");
                    assert_eq!((known.lower, known.upper), (-bound, bound), "{rules} {board}");
                    let best = MoveEffect::of(&rules, &board, usize::from(known.best));
                    let best_value = if best.over {
                        best.value(0)
                    } else {
                        let (low, high) = best.child_window(-bound, bound);
                        best.value(search.estimate(&best.child, depth - 1, low, high).unwrap())
                    };
                    assert_eq!(best_value, value, "{rules} {board}: move {}", known.best);
                    // A shallower estimate leaves nothing.
                    let mut shallow = Search::new(rules, None, &options).unwrap();
                    shallow.estimate(&board, HINT_MIN_DEPTH - 1, -bound, bound).unwrap();
                    assert!(shallow.table.probe(TableKey::of(&board)).is_none(), "{rules} {board}");
                }
            }
        }
    }

    /// On boards whose whole game fits the estimate's node budget, the lead it gives a node is
    /// a best move: its value, by the reference solver, is the position's.
    #[test]
    fn the_lead_by_estimate_is_a_best_move_where_the_estimate_sees_every_end() {
        let options = SearchOptions { table_bytes: 1 << 16, deadline: None, threads: 1 };
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            let mut solver = Solver::new(rules).unwrap();
            for (houses, seeds) in [(2, 3), (3, 2), (3, 3)] {
                let board = Position::start(houses, seeds).unwrap();
                let mut search = Search::new(rules, None, &options).unwrap();
                let lead = usize::from(search.lead_by_estimate(&board).unwrap());
                assert!(board.legal_moves().any(|house| house == lead), "{rules} Kalah({houses},{seeds}): {lead}");
                let effect = MoveEffect::of(&rules, &board, lead);
                let value = effect.value(if effect.over { 0 } else { solver.board_value(&effect.child) });
                assert_eq!(value, solver.board_value(&board), "{rules} Kalah({houses},{seeds}): move {lead}");
                assert!(!search.leads_by_estimate(board.seeds_on_board(), NO_MOVE, None), "only with a database");
            }
        }
    }

    /// A shallow horizon counts the seeds still on the board as nobody's: the start of a board
    /// where nothing can be banked in one sowing estimates 0 at depth 1.
    #[test]
    fn the_horizon_counts_as_banking_nothing() {
        let options = SearchOptions { table_bytes: 1 << 16, deadline: None, threads: 1 };
        let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
        let board = Position::start(6, 1).unwrap();
        // From the start of Kalah(6,1) only the rightmost house reaches the store: +1.
        assert_eq!(search.estimate(&board, 1, -12, 12).unwrap(), 1);
        assert_eq!(search.estimate(&board, 0, -12, 12).unwrap(), 0);
        assert_eq!(search.first_guess(&board).unwrap(), 0, "no database: no estimate");
    }
}
