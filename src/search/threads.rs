//! Young brothers wait: once the eldest child of a node has been searched without a cutoff, its
//! younger brothers go to the thread pool side by side, each on a worker of its own that shares
//! the transposition table, and all of them stop as soon as one of them proves the cutoff. The
//! searches with and without cycles split this one way and differ only in what a child's search
//! returns.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::table::NO_MOVE;
use super::{CYCLES_STACK_BYTES, Child, Search, SearchError, Stats};

impl<'db> Search<'db> {
    pub(super) fn with_threads(mut self, threads: usize) -> Self {
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
    pub(super) fn worker(&self, stops: &[Arc<AtomicBool>]) -> Search<'db> {
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

    /// Searches the moves `rest` of a node in parallel (zero window: `floor` is `beta - 1`),
    /// stopping them all once one reaches `beta`. Returns the best value and its move.
    pub(super) fn split(&mut self, rest: &[Option<Child>], floor: i32, beta: i32) -> Result<(i32, u8), SearchError> {
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

    /// Searches the children `rest` of one node on the pool. For each child, `settled` answers
    /// it without a worker where it can; otherwise `search_child` searches it on a fresh worker
    /// (see [`Search::worker`]), and a result for which `cuts` holds stops the siblings still
    /// running. Returns every finished child's result with its house, in the order of `rest`,
    /// once all the workers' counters are added to this search's; instead, the first error other
    /// than a sibling's cutoff, or [`SearchError::Stopped`] when a split above this one was cut.
    pub(super) fn split_children<T: Send>(
        &mut self,
        rest: &[Option<Child>],
        settled: impl Fn(&Self, &Child) -> Option<Result<T, SearchError>> + Sync,
        search_child: impl Fn(&mut Self, &Child) -> Result<T, SearchError> + Sync,
        cuts: impl Fn(&T) -> bool + Sync,
    ) -> Result<Vec<(T, u8)>, SearchError> {
        let cut = Arc::new(AtomicBool::new(false));
        let mut stops = self.stops.clone();
        stops.push(Arc::clone(&cut));
        let this = &*self;
        let outcomes: Vec<(Result<T, SearchError>, Stats, u8)> = rest
            .par_iter()
            .flatten()
            .map(|child| {
                if cut.load(Ordering::Relaxed) {
                    return (Err(SearchError::Stopped), Stats::default(), child.house);
                }
                if let Some(result) = settled(this, child) {
                    return (result, Stats::default(), child.house);
                }
                let mut worker = this.worker(&stops);
                let result = search_child(&mut worker, child);
                worker.charge_uncounted_nodes();
                if matches!(&result, Ok(found) if cuts(found)) {
                    cut.store(true, Ordering::Relaxed);
                }
                (result, worker.stats, child.house)
            })
            .collect();
        let mut finished = Vec::with_capacity(outcomes.len());
        let mut failure = None;
        for (result, stats, house) in outcomes {
            self.stats.nodes += stats.nodes;
            self.stats.probes += stats.probes;
            #[cfg(feature = "profile")]
            self.stats.profile.add(&stats.profile);
            match result {
                Ok(found) => finished.push((found, house)),
                // Stopped by a sibling's cutoff (an ancestor's is checked below).
                Err(SearchError::Stopped) => {}
                Err(err) => failure = failure.or(Some(err)),
            }
        }
        if let Some(err) = failure {
            return Err(err);
        }
        if self.stopped() {
            return Err(SearchError::Stopped);
        }
        Ok(finished)
    }
}

/// Nodes with at least this many seeds beyond the database split their younger brothers over
/// the threads: smaller subtrees cost less than handing them over. Only nodes expected to fail
/// low split (see [`Search::search`]), after their first move.
pub(super) const SPLIT_MIN_SEEDS: u32 = 11;

/// A younger brother whose subtree took at least 2^REFUTATION_WORK_GAP times the nodes of every
/// other one, the last time the table saw them, is searched alone before the rest are split.
const REFUTATION_WORK_GAP: u8 = 2;

/// Orders `moves` (the younger brothers of a node about to split) by the work the table last
/// recorded for them, most first, and says whether the first stands out enough to be searched
/// alone. A node whose eldest brothers all failed low can still cut off, and then searching the
/// younger ones side by side wastes the work of those stopped by the cutoff. Measured on
/// empty-capture Kalah(6,5) (30-seed database, 2 threads), in the last MTD(f) test: 22 M nodes
/// wasted so (58 M in the test, 39 M on one thread) before this order, 0.4 M after (39 M).
pub(super) fn refutation_first(moves: &mut [Option<Child>]) -> bool {
    let work = |child: &Option<Child>| child.map_or(0, |c| c.work);
    moves.sort_by_key(|child| std::cmp::Reverse(work(child)));
    work(&moves[0]) >= work(&moves[1]).saturating_add(REFUTATION_WORK_GAP)
}
