//! Forward search for exact values: MTD(f) over fail-soft zero-window alpha-beta, with a
//! transposition table ([`table`]), enhanced transposition cutoffs, exact futility bounds from the
//! seeds on the board, and endgame-database probes once a position has few enough seeds.
//!
//! Like the reference [`Solver`](crate::solve::Solver), the search works on *board values* (the
//! margin of the seeds still to be gained by the side to move), which depend on the houses alone;
//! a position's value is its store difference plus its board value. Every value it reports is
//! exact: bounds only ever come from complete proofs, and a search that runs out of time says so
//! instead of answering.
//!
//! What the search spends its time on, in order of what it saved: move ordering (`move_order`:
//! banking moves first, then those handing the opponent fewer seeds); MTD(f)'s first guess and,
//! near the root, the lead move from a small estimate of its own (`guess`); prefetching the
//! children's table buckets before the enhanced transposition cutoffs read them, and reading them
//! only for the first move at nodes expected to cut off; each child's effect worked out in the slot
//! it is kept in ([`MoveEffect::play`]). Threads split the young-brothers-wait way only at nodes
//! expected to fail low (`SPLIT_MIN_SEEDS` and more beyond the database), where no work is thrown
//! away. The figures behind each choice, and what was tried and dropped, are in
//! `docs/performance-history.md`.
//!
//! Under clockwise sowing positions repeat: `cycles` searches those rules, scoring a position
//! that comes back on the line as 0 and keeping such line-dependent results out of the table.
//!
//! The parts: `options` (what a search is given, its counters, why it gives no answer),
//! `expansion` (one node's window from the table, its children, their bounds, the order in
//! which they are searched, and their late reads), `threads` (the pool and the
//! young-brothers-wait split), `questions` (what a caller may ask, and which question costs what),
//! `at_least` (a lone zero-window test), `guess` (MTD(f)'s first guess), `table`; this file holds
//! the search itself: the zero-window alpha-beta, its node counting and its stops.

mod at_least;
mod cycles;
mod expansion;
mod guess;
mod options;
pub mod profile;
mod questions;
pub mod table;
mod threads;

use expansion::{Child, Expansion, Window, move_order, seed_bound};
pub use options::{SearchError, SearchOptions, Stats};
use threads::{SPLIT_MIN_SEEDS, refutation_first};

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Instant;

use crate::board::KeyHasher;
use crate::board::{MAX_HOUSES, Position};
use crate::database::Database;
use crate::rules::{Remaining, Rules};
use profile::count;
use table::{NO_MOVE, Table, TableKey};

/// Nodes a thread counts between looks at its stop flags, deadline and node budget (a power of 2).
const NODE_CHECK_INTERVAL: u64 = 1 << 10;

/// Stack of the thread a zero-window test under cycles runs on: up to [`cycles::MAX_LINE`]
/// frames of the recursion.
const CYCLES_STACK_BYTES: usize = 4 << 30;

/// Line length of the first depth-limited round of a zero-window test under cycles.
const FIRST_HORIZON: usize = 64;

/// An exact search for one rule set, optionally probing an endgame database; it keeps its
/// transposition table between calls.
pub struct Search<'db> {
    rules: Rules,
    database: Option<&'db Database>,
    /// Positions with at most this many seeds on the board are probed (0 without a database).
    database_seeds: u32,
    table: Arc<Table>,
    deadline: Option<Instant>,
    /// Raised from outside to give up (see [`Search::set_cancel`]).
    cancel: Option<Arc<AtomicBool>>,
    /// Counts every thread's nodes as they are searched, for a watcher (see
    /// [`Search::set_node_counter`]).
    node_counter: Option<Arc<AtomicU64>>,
    /// Whether every seed ends in a store, so that board values have the parity of the seeds.
    parity: bool,
    stats: Stats,
    /// With more than one thread: the workers that search the younger brothers of a node in
    /// parallel once its eldest brother did not cut off (young brothers wait).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Set when this search should give up: one flag per parallel split it works under, set when
    /// a sibling of that split proved the cutoff.
    stops: Vec<Arc<AtomicBool>>,
    /// Nodes the search may still spend (see [`Search::set_node_limit`]), shared with the
    /// workers of its parallel splits; counted down in steps of [`NODE_CHECK_INTERVAL`].
    nodes_left: Option<Arc<AtomicI64>>,
    /// Nodes this search counted since it last looked at its stop flags and budget (its
    /// `stats` also take in the nodes of its splits' workers).
    since_look: u64,
    /// Moves from the root of the current zero-window test.
    ply: u32,
    /// Seeds on the board at the root of the current zero-window test.
    root_seeds: u32,
    /// Nodes at most this many seeds below the root of a test lead by an estimate of their own
    /// (see `guess::LEAD_BELOW_ROOT`); `None`: none do.
    lead_below_root: Option<u32>,
    /// Under rules with cycles: the positions (house keys) on the line being searched, each with
    /// its ply.
    line: HashMap<u128, u32, BuildHasherDefault<KeyHasher>>,
    /// Under rules with cycles: the depth-limited round being searched (see [`Horizon`]).
    horizon: Horizon,
    /// Under rules with cycles: the line length of the first round of each zero-window test.
    first_horizon: usize,
    /// Tells this search's estimates apart from other searches' in the per-thread cache.
    estimate_id: u64,
}

/// One round of a zero-window test under cycles: lines stop after `moves` moves, and the
/// position reached there counts as lost by all its seeds for the side that started the test
/// (`pessimistic`) or as won by all of them. Minimax is monotone in its leaves, so a pessimistic
/// round that reaches beta proves the bound, and so does an optimistic round that stays below it;
/// otherwise the next round looks four times deeper. Without the limit a depth-first search
/// through a layer of repeating positions can follow one line for millions of moves.
#[derive(Clone, Copy, Debug)]
struct Horizon {
    moves: usize,
    pessimistic: bool,
}

impl<'db> Search<'db> {
    /// A search for `rules`, probing `database` when one is given (it must be for the same rules).
    pub fn new(rules: Rules, database: Option<&'db Database>, options: &SearchOptions) -> Result<Self, SearchError> {
        let table = Arc::new(Table::for_search(options.table_bytes)?);
        Search::with_table(rules, database, table, options)
    }

    /// A search that shares `table` (its size replaces `options.table_bytes`) with other
    /// searches for the same rules and board size, running now or later: a server keeps one
    /// table per rule set so that each position a user steps to is mostly solved already. The
    /// table's entries are exact bounds on board values, so they hold for every search that
    /// shares the rules, whatever its root or deadline.
    pub(crate) fn with_table(
        rules: Rules,
        database: Option<&'db Database>,
        table: Arc<Table>,
        options: &SearchOptions,
    ) -> Result<Self, SearchError> {
        if let Some(db) = database
            && *db.rules() != rules.for_values()
        {
            return Err(SearchError::WrongDatabase {
                dir: db.dir().to_path_buf(),
                expected: format!("rules '{}'", rules.for_values()),
                found: format!("rules '{}'", db.rules()),
            });
        }
        Ok(Search {
            rules,
            database,
            database_seeds: database.map_or(0, |db| db.max_seeds() as u32),
            table,
            deadline: options.deadline,
            cancel: None,
            node_counter: None,
            // Endless play leaves seeds on the board unbanked: no parity under cycles.
            parity: rules.remaining == Remaining::Owner && !rules.has_cycles(),
            stats: Stats::default(),
            pool: None,
            stops: Vec::new(),
            nodes_left: None,
            since_look: 0,
            ply: 0,
            root_seeds: 0,
            lead_below_root: Some(guess::LEAD_BELOW_ROOT),
            line: HashMap::default(),
            horizon: Horizon { moves: FIRST_HORIZON, pessimistic: true },
            first_horizon: FIRST_HORIZON,
            estimate_id: guess::new_estimate_id(),
        }
        .with_threads(options.threads))
    }

    /// One zero-window test at `beta` (`board` not settled): the fail-soft result. With more than
    /// one thread it runs in the pool, where nodes split their younger brothers. `expect_cut`:
    /// whether the test is expected to succeed, which tells the threads where to split.
    fn pass(&mut self, board: &Position, beta: i32, expect_cut: bool) -> Result<i32, SearchError> {
        self.stats.passes += 1;
        self.ply = 0;
        self.root_seeds = board.seeds_on_board();
        let result = if self.rules.has_cycles() {
            // Lines through repeating positions can be long: the test runs on threads with
            // stacks to match (reserved address space; only the pages used are backed), those of
            // the pool, whose nodes near the root split, or one of its own.
            match self.pool.clone() {
                Some(pool) => pool.install(|| self.pass_cycles(board, beta)),
                None => std::thread::scope(|scope| {
                    std::thread::Builder::new()
                        .name("search-cycles".to_string())
                        .stack_size(CYCLES_STACK_BYTES)
                        .spawn_scoped(scope, || self.pass_cycles(board, beta))
                        .map_err(|err| SearchError::Thread(err.to_string()))?
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                }),
            }
        } else {
            match self.pool.clone() {
                Some(pool) => pool.install(|| self.search(board, beta - 1, beta, expect_cut)),
                None => self.search(board, beta - 1, beta, expect_cut),
            }
        };
        // A worker's time-up error counts its own nodes; report the whole search's.
        result.map_err(|err| match err {
            SearchError::TimeUp { .. } => SearchError::TimeUp { nodes: self.stats.nodes },
            SearchError::Cancelled { .. } => SearchError::Cancelled { nodes: self.stats.nodes },
            SearchError::NodeLimit { .. } => SearchError::NodeLimit { nodes: self.stats.nodes },
            err => err,
        })
    }

    fn stopped(&self) -> bool {
        self.stops.iter().any(|stop| stop.load(Ordering::Relaxed))
    }

    /// The rules searched under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The transposition table.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Sets or clears the time limit for later calls.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The time limit of later calls, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Later calls stop with [`SearchError::Cancelled`] soon after `flag` is raised (it is read
    /// with the stop flags, every `NODE_CHECK_INTERVAL` nodes); `None` removes it.
    pub(crate) fn set_cancel(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.cancel = flag;
    }

    /// Adds every thread's nodes to `counter` as they are searched (a `NODE_CHECK_INTERVAL` at a
    /// time), so that a watcher sees a long zero-window test advance; `None` stops it.
    pub(crate) fn set_node_counter(&mut self, counter: Option<Arc<AtomicU64>>) {
        self.node_counter = counter;
    }

    /// Gives later calls, all together, at most about `nodes` nodes (every thread's, estimates
    /// included; checked every `NODE_CHECK_INTERVAL` nodes of a thread) before they stop with
    /// [`SearchError::NodeLimit`]; `None` lifts the limit. A call stopped so leaves its proven
    /// bounds in the table, where a later call finds them.
    pub fn set_node_limit(&mut self, nodes: Option<u64>) {
        self.nodes_left = nodes.map(|n| Arc::new(AtomicI64::new(i64::try_from(n).unwrap_or(i64::MAX))));
    }

    fn check_houses(&self, position: &Position) -> Result<(), SearchError> {
        match self.database {
            Some(db) if db.houses() != position.houses() => Err(SearchError::WrongDatabase {
                dir: db.dir().to_path_buf(),
                expected: format!("{} houses", position.houses()),
                found: format!("{} houses", db.houses()),
            }),
            _ => Ok(()),
        }
    }

    /// The board value when no search is needed: the game is over or the database knows it.
    fn settled(&mut self, board: &Position) -> Result<Option<i32>, SearchError> {
        if board.is_over(&self.rules) {
            return Ok(Some(board.final_margin(&self.rules)));
        }
        if let Some(db) = self.database.filter(|_| board.seeds_on_board() <= self.database_seeds) {
            self.stats.probes += 1;
            return Ok(Some(db.board_value(board)?));
        }
        Ok(None)
    }

    /// Whether the board value of `board` is at least `beta` (`board` not settled).
    fn at_least(&mut self, board: &Position, beta: i32) -> Result<bool, SearchError> {
        Ok(self.pass(board, beta, true)? >= beta)
    }

    /// MTD(f): zero-window tests converging on the exact value from `guess`, inside the proven
    /// `known` bounds, reporting the bounds after each test to `proven`.
    fn mtdf(
        &mut self,
        board: &Position,
        guess: i32,
        known: (i32, i32),
        mut proven: impl FnMut(i32, i32, u64),
    ) -> Result<i32, SearchError> {
        let seeds = board.seeds_on_board();
        let bound = seed_bound(seeds);
        let (mut lower, mut upper) = (known.0.max(-bound), known.1.min(bound));
        if lower > upper {
            // Contradictory "proven" bounds: trust nothing but the seeds.
            (lower, upper) = (-bound, bound);
        }
        let mut value = guess.clamp(lower, upper);
        while lower < upper {
            let beta = if value == lower { value + 1 } else { value };
            value = self.pass(board, beta, beta == value)?;
            if value < beta {
                upper = value;
            } else {
                lower = value;
            }
            if self.parity {
                // Values have the parity of the seeds on the board: bounds snap inwards.
                let odd = seeds as i32 & 1;
                if (upper - odd) & 1 != 0 {
                    upper -= 1;
                }
                if (lower - odd) & 1 != 0 {
                    lower += 1;
                }
            }
            value = value.clamp(lower, upper);
            proven(lower, upper, self.stats.nodes);
        }
        Ok(lower)
    }

    /// Fail-soft alpha-beta on the board value of `board` (stores empty, not over, beyond the
    /// database). Returns `v`: `v <= alpha` proves the value is at most `v`, `v >= beta` that it
    /// is at least `v`, anything between is exact.
    ///
    /// `expect_cut` says whether the node is expected to reach `beta` (one move will do, and it
    /// is usually the first) or to fail low (every move must be searched). Only the second kind
    /// splits its younger brothers over the threads: all of them are needed there, while at a node
    /// that cuts off, brothers searched beside the move that cuts are thrown away
    /// (docs/performance-history.md has the measurement).
    ///
    /// The steps: the table's bounds ([`Self::window_from_table`]), the children's bounds
    /// ([`Self::expand`]), then the moves still open ([`Self::search_moves`]); the result is
    /// stored in the table.
    fn search(&mut self, board: &Position, alpha: i32, beta: i32, expect_cut: bool) -> Result<i32, SearchError> {
        self.count_node()?;
        let nodes_before = self.stats.nodes;
        let seeds = board.seeds_on_board();
        let bound = seed_bound(seeds);
        if alpha >= bound {
            count!(self.stats, seed_cut, 1);
            return Ok(bound);
        }
        if beta <= -bound {
            count!(self.stats, seed_cut, 1);
            return Ok(-bound);
        }
        let key = TableKey::of(board);
        let (alpha, beta, table_move) = match self.window_from_table(board, seeds, key, alpha, beta, expect_cut)? {
            Window::Decided(value) => {
                count!(self.stats, table_decided, 1);
                return Ok(value);
            }
            Window::Open { alpha, beta, table_move } => (alpha, beta, table_move),
        };
        let mut node = Expansion {
            children: [None; MAX_HOUSES],
            count: 0,
            late: [(NO_MOVE, 0, None); MAX_HOUSES],
            lates: 0,
            lead_house: None,
        };
        self.expand(&mut node, board, seeds, key, table_move, expect_cut)?;
        count!(self.stats, expanded, 1);
        count!(self.stats, children, node.count);
        let (best, best_move) = match node.decided_by_bounds(alpha, beta) {
            Ok(decided) => {
                count!(self.stats, bounds_decided, 1);
                decided
            }
            Err(lower) => self.search_moves(&mut node, lower, seeds, alpha, beta, expect_cut)?,
        };
        let work = self.stats.nodes - nodes_before + 1;
        if best <= alpha {
            self.table.store(key, -bound, best, NO_MOVE, work);
        } else if best >= beta {
            self.table.store(key, best, bound, best_move, work);
        } else {
            self.table.store(key, best, best, best_move, work);
        }
        Ok(best)
    }

    /// Searches the moves of `node` whose bounds leave its value open, best-looking first
    /// (young brothers split over the threads at a node expected to fail low), from the best
    /// lower bound among its children (`lower`: value and move); returns the node's fail-soft
    /// value and the move that raised it above `alpha`.
    #[inline(always)]
    fn search_moves(
        &mut self,
        node: &mut Expansion,
        lower: (i32, u8),
        seeds: u32,
        alpha: i32,
        beta: i32,
        expect_cut: bool,
    ) -> Result<(i32, u8), SearchError> {
        let (mut best, mut best_move) = lower;
        let mut pending = [None::<Child>; MAX_HOUSES];
        let pendings = node.pending_in_order(&mut pending, &mut best);
        let lead_house = node.lead_house;
        let splits = self.pool.is_some() && !expect_cut && seeds >= self.database_seeds + SPLIT_MIN_SEEDS;
        let mut searched = 0;
        for next in 0..pendings {
            // Young brothers wait: once the eldest did not cut off, the rest go in parallel,
            // unless one of them stands out as the likely refutation (`refutation_first` puts the
            // rest in order of recorded work, that one first).
            let split =
                searched >= 1 && splits && pendings - next >= 2 && !refutation_first(&mut pending[next..pendings]);
            if node.lates > 0 && pending[next].is_some_and(|c| Some(c.house) != lead_house) {
                // The first move did not cut off: now the others' bounds, which may.
                let (lower, house) = self.read_late(&node.late[..node.lates], &mut pending[..pendings])?;
                node.lates = 0;
                if lower > best {
                    if lower > alpha.max(best) {
                        best_move = house;
                    }
                    best = lower;
                }
                if best >= beta {
                    break;
                }
            }
            let child = pending[next].expect("a pending move");
            if child.lower == child.upper {
                // Settled by the bounds read late: already counted.
                continue;
            }
            let floor = alpha.max(best);
            if child.upper <= floor {
                // Unable to raise the floor: its upper bound still counts when every move fails
                // low.
                best = best.max(child.upper);
                continue;
            }
            let (value, house) = if split {
                self.split(&pending[next..pendings], floor, beta)?
            } else {
                (self.search_child(&child, floor, beta, expect_cut)?, child.house)
            };
            searched += 1;
            count!(self.stats, moves_searched, 1);
            if value > best {
                best = value;
                if value > floor {
                    best_move = house;
                }
            }
            if best >= beta {
                count!(self.stats, cutoffs, 1);
                count!(self.stats, first_move_cutoffs, searched == 1);
            }
            if best >= beta || split {
                break;
            }
        }
        Ok((best, best_move))
    }

    /// Counts a node; now and then checks whether the search should stop (a sibling's cutoff in
    /// a parallel split, or the deadline).
    #[inline]
    fn count_node(&mut self) -> Result<(), SearchError> {
        self.stats.nodes += 1;
        self.since_look += 1;
        if self.since_look == NODE_CHECK_INTERVAL {
            self.since_look = 0;
            if self.stopped() {
                return Err(SearchError::Stopped);
            }
            if self.cancel.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed)) {
                return Err(SearchError::Cancelled { nodes: self.stats.nodes });
            }
            if let Some(counter) = &self.node_counter {
                counter.fetch_add(NODE_CHECK_INTERVAL, Ordering::Relaxed);
            }
            if let Some(left) = &self.nodes_left
                && left.fetch_sub(NODE_CHECK_INTERVAL as i64, Ordering::Relaxed) < NODE_CHECK_INTERVAL as i64
            {
                return Err(SearchError::NodeLimit { nodes: self.stats.nodes });
            }
            // The clock is read about every 65,536 nodes, as it always was: a search that
            // starts late still finishes a small tree.
            if self.stats.nodes & 0xFFFF < NODE_CHECK_INTERVAL && self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(SearchError::TimeUp { nodes: self.stats.nodes });
            }
        }
        Ok(())
    }

    /// Whether the node budget is spent: a split starts no more workers then.
    fn budget_spent(&self) -> bool {
        self.nodes_left.as_ref().is_some_and(|left| left.load(Ordering::Relaxed) <= 0)
    }

    /// Charges the node budget with the nodes counted since the last look at it: a worker of a
    /// split that ends between two looks would otherwise search them for free.
    fn charge_uncounted_nodes(&self) {
        if let Some(left) = &self.nodes_left {
            left.fetch_sub(self.since_look as i64, Ordering::Relaxed);
        }
    }

    /// The fail-soft value of one move for its mover, searching the child in the window that
    /// proves whether the move beats `floor` and reaches `beta`.
    #[inline]
    fn search_child(&mut self, child: &Child, floor: i32, beta: i32, expect_cut: bool) -> Result<i32, SearchError> {
        let effect = &child.effect;
        // A move that cuts off leaves the opponent a position where every move fails low, and
        // the other way round; after an extra turn the same side moves, with the same hopes.
        let expect_cut = if effect.extra_turn { expect_cut } else { !expect_cut };
        count!(self.stats, after_extra_turn, effect.extra_turn);
        let (low, high) = effect.child_window(floor, beta);
        self.ply += 1;
        let value = effect.value(self.search(&effect.child, low, high, expect_cut)?);
        self.ply -= 1;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveEffect;
    use crate::solve::Solver;

    #[test]
    fn default_tables_grow_with_the_seeds_beyond_the_database() {
        const MIB: usize = 1 << 20;
        // Kalah(6,4) over the 24-seed database, (6,5) over the 30- and 24-seed ones.
        assert_eq!(SearchOptions::table_bytes_for(48, 24), 64 * MIB);
        assert_eq!(SearchOptions::table_bytes_for(60, 30), 256 * MIB);
        assert_eq!(SearchOptions::table_bytes_for(60, 24), 1024 * MIB);
        assert_eq!(SearchOptions::table_bytes_for(50, 24), 64 * MIB, "26 beyond: not yet 3 more");
        assert_eq!(SearchOptions::table_bytes_for(51, 24), 128 * MIB);
        assert_eq!(SearchOptions::table_bytes_for(47, 24), 32 * MIB, "23 beyond rounds down");
        assert_eq!(SearchOptions::table_bytes_for(72, 24), 1024 * MIB, "at most 1 GiB");
        assert_eq!(SearchOptions::table_bytes_for(36, 24), 16 * MIB, "at least 16 MiB");
        assert_eq!(SearchOptions::table_bytes_for(10, 24), 16 * MIB, "inside the database");
        assert_eq!(SearchOptions::table_bytes_for(32, 0), 256 * MIB, "no database: Kalah(4,4)");
    }

    #[test]
    fn a_node_counter_sees_every_threads_nodes_as_they_are_searched() {
        for threads in [1, 2] {
            let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads };
            let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
            let counter = Arc::new(AtomicU64::new(0));
            search.set_node_counter(Some(Arc::clone(&counter)));
            search.value(&Position::start(4, 4).unwrap()).unwrap();
            let (seen, nodes) = (counter.load(Ordering::Relaxed), search.stats().nodes);
            // Nodes are added an interval at a time: one search falls short by less than one, and
            // each worker of a parallel split by less than one more.
            assert!(seen <= nodes && seen > 0, "{seen} of {nodes}");
            if threads == 1 {
                assert!(seen + NODE_CHECK_INTERVAL > nodes, "{seen} of {nodes}");
            }
        }
    }

    #[test]
    fn a_raised_cancel_flag_stops_the_search_and_a_lowered_one_lets_it_finish() {
        for threads in [1, 2] {
            let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads };
            let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
            let flag = Arc::new(AtomicBool::new(true));
            search.set_cancel(Some(Arc::clone(&flag)));
            // Kalah(5,4) takes millions of nodes: far more than one look at the flag.
            let start = Position::start(5, 4).unwrap();
            assert!(matches!(search.value(&start), Err(SearchError::Cancelled { .. })), "{threads} threads");
            flag.store(false, Ordering::Relaxed);
            let small = Position::start(4, 2).unwrap();
            assert_eq!(search.value(&small).unwrap(), Solver::new(Rules::STANDARD).unwrap().value(&small));
        }
    }

    #[test]
    fn small_starts_match_the_reference_solver() {
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA, Rules::SWEDISH, Rules::WETHERELL] {
            for (houses, seeds) in [(3, 3), (4, 2), (4, 3), (3, 5)] {
                let start = Position::start(houses, seeds).unwrap();
                let expected = Solver::new(rules).unwrap().value(&start);
                let mut search =
                    Search::new(rules, None, &SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 })
                        .unwrap();
                assert_eq!(search.value(&start).unwrap(), expected, "{rules} Kalah({houses},{seeds})");
            }
        }
    }

    #[test]
    fn moves_banking_alike_go_by_the_seeds_they_hand_over() {
        let board = crate::notation::parse_position("1 1 0 4 2 9 0 4 4 4 4 4 4 0 S").unwrap();
        let order = |house: usize| {
            let effect = MoveEffect::of(&Rules::STANDARD, &board, house);
            move_order(&effect, house, NO_MOVE, board.opponent_seeds())
        };
        // Houses 4, 5 and 6 (0-based 3, 4, 5) each bank one seed; house 4 hands the opponent one
        // seed, house 6 six: house 4 first, though house 6 is nearer the store.
        assert!(order(3) > order(5), "{} against {}", order(3), order(5));
        // House 5 (2 seeds) ends in the store: the extra turn comes first of all.
        assert!(order(4) > order(3));
        // The table's move before everything.
        let effect = MoveEffect::of(&Rules::STANDARD, &board, 5);
        assert!(move_order(&effect, 5, 5, board.opponent_seeds()) > order(4));
    }

    #[test]
    fn a_brother_with_far_more_work_is_searched_alone_first() {
        let board = Position::start(6, 4).unwrap();
        let child = |house: usize, work: u8| {
            let effect = MoveEffect::of(&Rules::STANDARD, &board, house);
            Some(Child { effect, house: house as u8, lower: -48, upper: 48, order: 0, work })
        };
        let mut moves = [child(0, 3), child(1, 9), child(2, 7)];
        assert!(refutation_first(&mut moves));
        assert_eq!(moves.map(|c| c.unwrap().house), [1, 2, 0], "most work first");
        // 9 against 8: no brother stands out, so they are split.
        let mut close = [child(0, 8), child(1, 9)];
        assert!(!refutation_first(&mut close));
        // No work recorded for any: split.
        let mut unknown = [child(0, 0), child(1, 0), child(2, 0)];
        assert!(!refutation_first(&mut unknown));
    }
}
