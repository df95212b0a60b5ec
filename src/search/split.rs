//! Young brothers wait: once the eldest child of a node has been searched without a cutoff, its
//! younger brothers go to the thread pool side by side, each on a worker of its own that shares
//! the transposition table, and all of them stop as soon as one of them proves the cutoff. The
//! searches with and without cycles split this one way and differ only in what a child's search
//! returns.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::{Child, Search, SearchError, Stats};

impl<'db> Search<'db> {
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
