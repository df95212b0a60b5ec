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

mod at_least;
mod cycles;
mod guess;
pub mod profile;
mod split;
pub mod table;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Instant;

use serde::Serialize;

use crate::answer::{Analysis, Opening};
use crate::board::KeyHasher;
use crate::board::{MAX_HOUSES, Position};
use crate::database::{Database, DbError};
use crate::moves::MoveEffect;
use crate::moves::first_turns;
use crate::rules::{Remaining, Rules};
use profile::count;
use table::{NO_MOVE, Table, TableKey};

/// Why a search gives no answer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The database is for other rules or another board size.
    #[error("the database in {dir} is for {found}, not {expected}")]
    WrongDatabase {
        /// Its directory.
        dir: std::path::PathBuf,
        /// What the search needs.
        expected: String,
        /// What the database holds.
        found: String,
    },
    /// A database probe failed (a damaged or missing layer).
    #[error(transparent)]
    Database(#[from] DbError),
    /// A worker of a parallel split was told to stop because a sibling cut off; never returned
    /// by the public methods.
    #[doc(hidden)]
    #[error("stopped")]
    Stopped,
    /// The thread for a search through repeating positions could not be started.
    #[error("cannot start the search thread: {0}")]
    Thread(String),
    /// Under cycles, rounds with lines of this many moves still proved no bound: the position
    /// is too far above the database for the search.
    #[error(
        "the search through repeating positions followed lines of {moves} moves without proving a bound: \
         the position is too far above the database (build a larger one with kalah build --max-seeds)"
    )]
    LineTooLong {
        /// Moves on the longest lines searched.
        moves: usize,
    },
    /// No move keeps a position's proven value: the database's values contradict each other.
    #[error(
        "no move from {position} keeps its value: the database's values contradict each other (run `kalah verify --full`)"
    )]
    Inconsistent {
        /// The position.
        position: String,
    },
    /// The system refused the memory for the transposition table.
    #[error("cannot get {} MiB for the transposition table: {source}", bytes >> 20)]
    TableMemory {
        /// The table's size.
        bytes: usize,
        /// What the system said.
        source: std::io::Error,
    },
    /// The time limit passed before the value was proven.
    #[error("no exact value within the time limit ({nodes} nodes searched)")]
    TimeUp {
        /// Nodes searched until then.
        nodes: u64,
    },
    /// The flag given to `Search::set_cancel` was raised (the client went away).
    #[error("the search was cancelled ({nodes} nodes searched)")]
    Cancelled {
        /// Nodes searched until then.
        nodes: u64,
    },
    /// The node budget ([`Search::set_node_limit`]) ran out before the answer was proven.
    #[error("no answer within the node budget ({nodes} nodes searched)")]
    NodeLimit {
        /// Nodes searched until then.
        nodes: u64,
    },
}

/// How a [`Search`] runs.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Memory for the transposition table.
    pub table_bytes: usize,
    /// Stop with [`SearchError::TimeUp`] once this instant has passed.
    pub deadline: Option<Instant>,
    /// Threads searching each zero-window test together, sharing the table (at least 1).
    pub threads: usize,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { table_bytes: 256 << 20, deadline: None, threads: 1 }
    }
}

impl SearchOptions {
    /// The transposition table a search from a position with `seeds_on_board` seeds is given
    /// when the user names no size, with a database of positions of up to `database_seeds` seeds
    /// (0 without one): 64 MiB at 24 seeds beyond the database, twice as much for every 3 seeds
    /// more, from 16 MiB to 1 GiB. A table costs its size before the first node (the system zeroes
    /// every page), so small searches get small tables.
    pub(crate) fn table_bytes_for(seeds_on_board: u32, database_seeds: u32) -> usize {
        let beyond = i64::from(seeds_on_board) - i64::from(database_seeds);
        let log2_mib = (6 + (beyond - 24).div_euclid(3)).clamp(4, 10);
        1 << (20 + log2_mib)
    }
}

/// Counters of a search, for reports and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Positions expanded by the alpha-beta search.
    pub nodes: u64,
    /// Positions answered by the endgame database.
    pub probes: u64,
    /// Zero-window searches started by MTD(f).
    pub passes: u64,
    /// Where the nodes went (builds with the `profile` feature).
    #[cfg(feature = "profile")]
    pub profile: profile::Profile,
}

/// One child of a node, as the move loop sees it.
#[derive(Clone, Copy)]
struct Child {
    effect: MoveEffect,
    house: u8,
    /// Bounds on the move's board value for the side that played it.
    lower: i32,
    upper: i32,
    /// Move ordering: larger first.
    order: i32,
    /// Log2 of the nodes behind the child's bounds in the table (0: none there).
    work: u8,
}

/// A node's window after the table's bounds: decided by them, or still open.
enum Window {
    /// The bounds give the node's fail-soft value.
    Decided(i32),
    /// The window to search, and the move to try first (or [`NO_MOVE`]).
    Open { alpha: i32, beta: i32, table_move: u8 },
}

/// A node's children with their bounds before any is searched.
struct Expansion {
    /// The first `count` slots hold the legal moves.
    children: [Option<Child>; MAX_HOUSES],
    count: usize,
    /// The children whose bounds are read only if the lead move fails to cut off (house, seeds
    /// on the board, and the table key, or `None` for a database child's value); the first
    /// `lates` are.
    late: [(u8, u32, Option<TableKey>); MAX_HOUSES],
    lates: usize,
    /// The move tried first.
    lead_house: Option<u8>,
}

impl Expansion {
    /// When the children's bounds alone decide the node in the window (`alpha`, `beta`): its
    /// fail-soft value and move; else the best lower bound among the children, with its move.
    #[inline(always)]
    fn decided_by_bounds(&self, alpha: i32, beta: i32) -> Result<(i32, u8), (i32, u8)> {
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
    fn pending_in_order(&self, pending: &mut [Option<Child>; MAX_HOUSES], best: &mut i32) -> usize {
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
fn move_order(effect: &MoveEffect, house: usize, table_move: u8, opponent_seeds: u32) -> i32 {
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
fn child_bounds(child: &mut Child, child_seeds: u32, known: Option<table::Stored>) {
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

/// Nodes with at least this many seeds beyond the database split their younger brothers over
/// the threads: smaller subtrees cost less than handing them over. Only nodes expected to fail
/// low split (see [`Search::search`]), after their first move.
const SPLIT_MIN_SEEDS: u32 = 11;

/// A younger brother whose subtree took at least 2^REFUTATION_WORK_GAP times the nodes of every
/// other one, the last time the table saw them, is searched alone before the rest are split.
const REFUTATION_WORK_GAP: u8 = 2;

/// Orders `moves` (the younger brothers of a node about to split) by the work the table last
/// recorded for them, most first, and says whether the first stands out enough to be searched
/// alone. A node whose eldest brothers all failed low can still cut off, and then searching the
/// younger ones side by side wastes the work of those stopped by the cutoff. Measured on
/// empty-capture Kalah(6,5) (30-seed database, 2 threads), in the last MTD(f) test: 22 M nodes
/// wasted so (58 M in the test, 39 M on one thread) before this order, 0.4 M after (39 M).
fn refutation_first(moves: &mut [Option<Child>]) -> bool {
    let work = |child: &Option<Child>| child.map_or(0, |c| c.work);
    moves.sort_by_key(|child| std::cmp::Reverse(work(child)));
    work(&moves[0]) >= work(&moves[1]).saturating_add(REFUTATION_WORK_GAP)
}

/// Nodes a thread counts between looks at its stop flags, deadline and node budget (a power of 2).
const NODE_CHECK_INTERVAL: u64 = 1 << 10;

/// Stack of the thread a zero-window test under cycles runs on: up to [`cycles::MAX_LINE`]
/// frames of the recursion.
const CYCLES_STACK_BYTES: usize = 4 << 30;

/// Line length of the first depth-limited round of a zero-window test under cycles.
const FIRST_HORIZON: usize = 64;

/// Bounds on a board value with `seeds` on the board: all of them to one side or the other.
#[inline]
fn seed_bound(seeds: u32) -> i32 {
    seeds as i32
}

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

    fn with_threads(mut self, threads: usize) -> Self {
        if threads > 1 {
            let mut pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
            if self.rules.has_cycles() {
                // Lines through repeating positions can be long (see `pass`).
                pool = pool.stack_size(CYCLES_STACK_BYTES);
            }
            // Without a pool the search stays on one thread, as with `threads: 1`.
            self.pool = pool.build().ok().map(Arc::new);
        }
        self
    }

    /// A worker searching one child of a parallel split: the same rules, database, table and
    /// pool, its own counters, and the split's stop flag added to its own.
    fn worker(&self, stops: &[Arc<AtomicBool>]) -> Search<'db> {
        Search {
            table: Arc::clone(&self.table),
            pool: self.pool.clone(),
            stops: stops.to_vec(),
            cancel: self.cancel.clone(),
            node_counter: self.node_counter.clone(),
            nodes_left: self.nodes_left.clone(),
            since_look: 0,
            stats: Stats::default(),
            // Under cycles the worker's line goes on from the node that split (empty otherwise).
            line: self.line.clone(),
            ..*self
        }
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

    /// Searches the moves `rest` of a node in parallel (zero window: `floor` is `beta - 1`),
    /// stopping them all once one reaches `beta`. Returns the best value and its move.
    fn split(&mut self, rest: &[Option<Child>], floor: i32, beta: i32) -> Result<(i32, u8), SearchError> {
        let finished = self.split_children(
            rest,
            |this, child| {
                if child.upper <= floor {
                    Some(Ok(child.upper.min(floor)))
                } else if this.budget_spent() {
                    Some(Err(SearchError::NodeLimit { nodes: 0 }))
                } else {
                    None
                }
            },
            |worker, child| worker.search_child(child, floor, beta, false),
            |&value| value >= beta,
        )?;
        let (mut best, mut best_move) = (i32::MIN, NO_MOVE);
        for (value, house) in finished {
            if value > best {
                (best, best_move) = (value, house);
            }
        }
        Ok((best, if best > floor { best_move } else { NO_MOVE }))
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

    /// Bounds on the value of `position` for the side to move (stores included) that earlier
    /// calls of this search (or of others sharing its table) proved on the way, if the table
    /// still holds any: a table hit is never a collision, so they are proven.
    pub fn proven_bounds(&self, position: &Position) -> Option<(i32, i32)> {
        let known = self.table.probe(TableKey::of(position))?;
        let bound = seed_bound(position.seeds_on_board());
        let (lower, upper) = (known.lower.max(-bound), known.upper.min(bound));
        (lower > -bound || upper < bound).then(|| (position.margin() + lower, position.margin() + upper))
    }

    /// Whether `position` is answered by the database alone.
    pub fn in_database(&self, position: &Position) -> bool {
        self.database.is_some() && position.seeds_on_board() <= self.database_seeds
    }

    /// The exact value of `position` for the side to move, stores included.
    pub fn value(&mut self, position: &Position) -> Result<i32, SearchError> {
        Ok(position.margin() + self.board_value(position)?)
    }

    /// The exact board value (margin of the seeds still to be gained by the side to move).
    /// MTD(f) starts from an estimate when the position lies far above the database.
    pub fn board_value(&mut self, position: &Position) -> Result<i32, SearchError> {
        self.board_value_from(position, None)
    }

    /// The board value, MTD(f) starting from `guess` or, without one, from an estimate.
    fn board_value_from(&mut self, position: &Position, guess: Option<i32>) -> Result<i32, SearchError> {
        self.board_value_resuming(position, (i32::MIN, i32::MAX), guess, |_, _, _| {})
    }

    /// As [`Search::board_value`], MTD(f) starting from `guess` (else an estimate) and from board-value
    /// bounds already proven (say by a killed run) and calling `proven(lower, upper, nodes)` after
    /// every zero-window test with the bounds proven so far and the nodes searched so far, so that
    /// a caller can save them.
    pub(crate) fn board_value_resuming(
        &mut self,
        position: &Position,
        (lower, upper): (i32, i32),
        guess: Option<i32>,
        proven: impl FnMut(i32, i32, u64),
    ) -> Result<i32, SearchError> {
        self.check_houses(position)?;
        let board = position.without_stores();
        if let Some(value) = self.settled(&board)? {
            return Ok(value);
        }
        let guess = match guess {
            Some(guess) => guess,
            None => self.first_guess(&board)?,
        };
        self.mtdf(&board, guess, (lower, upper), proven)
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

    /// The window narrowed by the table's bounds for `board`, and the move to try first (the
    /// table's, or at a node expected to cut off far from any proof, the estimate's); or the
    /// value when the bounds already decide the node.
    #[inline(always)]
    fn window_from_table(
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
    fn expand(
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

    /// Reads the bounds of the `late` children (house, seeds on the board, and table key, or
    /// `None` for a database child's value) into their entries among `pending`, and returns the
    /// best lower bound now proven among them, with its move.
    fn read_late(
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

    /// The exact value of every legal move from `position`, for the side to move, stores included.
    pub fn move_values(&mut self, position: &Position) -> Result<Vec<(usize, i32)>, SearchError> {
        self.check_houses(position)?;
        let board = position.without_stores();
        let mut values = Vec::new();
        // Each child starts MTD(f) from the last sibling's value with the same side to move.
        let mut guesses = [None; 2];
        for house in board.legal_moves() {
            let effect = MoveEffect::of(&self.rules, &board, house);
            let child_value = if effect.over {
                0
            } else {
                let guess = &mut guesses[usize::from(effect.extra_turn)];
                let value = self.board_value_from(&effect.child, *guess)?;
                *guess = Some(value);
                value
            };
            values.push((house, position.margin() + effect.value(child_value)));
        }
        Ok(values)
    }

    /// A perfect-play line from `position` to the end of the game: each turn's houses (0-based),
    /// the first turn for the side to move. Ties go to the move the search proved first. Under
    /// rules with cycles the line stops where a position comes back: values do not say how to
    /// make progress, so a line of value-keeping moves may go round for ever.
    pub fn principal_variation(&mut self, position: &Position) -> Result<Vec<Vec<usize>>, SearchError> {
        self.check_houses(position)?;
        let mut board = position.without_stores();
        let mut turns = Vec::new();
        let mut turn = Vec::new();
        let mut seen = std::collections::HashSet::new();
        // After the first position, each one's value follows from the move that reached it.
        let mut guess = None;
        while !board.is_over(&self.rules) && seen.insert((board.house_key(), board.to_move())) {
            let target = self.board_value_from(&board, guess)?;
            let preferred = self.table.probe(TableKey::of(&board)).map_or(NO_MOVE, |k| k.best);
            let mut moves: Vec<usize> = board.legal_moves().collect();
            moves.sort_by_key(|&h| h as u8 != preferred);
            let mut chosen = None;
            for house in moves {
                let effect = MoveEffect::of(&self.rules, &board, house);
                if self.move_reaches(&effect, target)? {
                    chosen = Some((house, effect));
                    break;
                }
            }
            // Exact values always have a move that keeps them; none here means the database
            // holds values that contradict each other (a forged or damaged layer).
            let (house, effect) = chosen.ok_or_else(|| SearchError::Inconsistent { position: board.to_string() })?;
            guess = Some(effect.child_value(target));
            turn.push(house);
            if !effect.extra_turn {
                turns.push(std::mem::take(&mut turn));
            }
            board = effect.child.without_stores();
            if effect.over {
                break;
            }
        }
        if !turn.is_empty() {
            turns.push(turn);
        }
        Ok(turns)
    }

    /// Whether the move with `effect` reaches board value `target` for its mover.
    fn move_reaches(&mut self, effect: &MoveEffect, target: i32) -> Result<bool, SearchError> {
        let child = effect.child.without_stores();
        if effect.over {
            return Ok(effect.value(0) >= target);
        }
        if let Some(value) = self.settled(&child)? {
            return Ok(effect.value(value) >= target);
        }
        let child_target = effect.child_value(target);
        if effect.extra_turn {
            self.at_least(&child, child_target)
        } else {
            // The mover's value falls as the child's rises: it reaches `target` while the child's
            // stays at or below `child_target`.
            Ok(!self.at_least(&child, child_target + 1)?)
        }
    }

    /// Solves `position` exactly: its value and the exact value of every first turn (with its
    /// extra-turn chain), in [`first_turns`] order. `progress(done, total)` is called before the
    /// first opening and after each.
    pub fn analyse(
        &mut self,
        position: &Position,
        mut progress: impl FnMut(usize, usize),
    ) -> Result<Analysis, SearchError> {
        self.check_houses(position)?;
        let nodes_before = self.stats.nodes;
        let turns = first_turns(&self.rules, position);
        progress(0, turns.len());
        let mut openings = Vec::with_capacity(turns.len());
        let mut guess = None;
        for (i, (moves, after)) in turns.iter().enumerate() {
            let board_value = self.board_value_from(after, guess)?;
            guess = Some(board_value);
            openings.push(Opening { moves: moves.clone(), value: -(after.margin() + board_value) });
            progress(i + 1, turns.len());
        }
        let value = openings.iter().map(|o| o.value).max().unwrap_or_else(|| position.final_margin(&self.rules));
        let pie_value =
            self.rules.pie.then(|| crate::answer::pie_value(openings.iter().map(|o| o.value)).unwrap_or(value));
        Ok(Analysis { value: pie_value.unwrap_or(value), openings, pie_value, nodes: self.stats.nodes - nodes_before })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
