//! What the searches in flight have proven so far, so that a client waiting for an answer can
//! show more than a clock: the nodes searched and the bounds each finished zero-window test
//! proved, then that the value is known and every move's value is being searched.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use kalah::answer::Bounds;
use kalah::{Position, Rules};
use serde::Serialize;

/// What `/progress` reports of a position's search.
#[derive(Serialize)]
pub struct SearchProgress {
    /// A search of it is in flight.
    searching: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    running: Option<Running>,
}

/// A search in flight.
#[derive(Serialize)]
struct Running {
    seconds: f64,
    nodes: u64,
    /// The value's bounds proven so far, stores included.
    bounds: Option<Bounds>,
    /// `value` while the value is searched, then `moves` (every move's value) or `line` (a
    /// perfect line).
    phase: &'static str,
}

/// A search's rules and position.
type Key = (Rules, Position);

/// One search in flight.
pub struct Progress {
    started: Instant,
    /// Every thread's nodes, added by the search as it goes and by each finished test.
    nodes: Arc<AtomicU64>,
    /// The value's proven bounds (stores included) and whether it is known (and the search gone
    /// on to what comes after it).
    known: Mutex<(Option<(i32, i32)>, bool)>,
    /// What is searched once the value is known: `moves` (every move's value) or `line`.
    then: &'static str,
}

impl Progress {
    /// After a zero-window test: the bounds proven so far and the nodes searched. Once they
    /// meet, the value is known and what comes after it is searched.
    pub fn proven(&self, lower: i32, upper: i32, nodes: u64) {
        self.nodes.fetch_max(nodes, Ordering::Relaxed);
        *self.lock() = (Some((lower, upper)), lower == upper);
    }

    /// The counter the search adds its nodes to as it goes ([`kalah::Prepared::with_node_counter`]).
    pub fn node_counter(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.nodes)
    }

    fn lock(&self) -> MutexGuard<'_, (Option<(i32, i32)>, bool)> {
        self.known.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[derive(Default)]
pub struct InFlight {
    running: Mutex<HashMap<Key, Arc<Progress>>>,
}

/// Removes its search from [`InFlight`] when dropped.
pub struct Registered<'a> {
    in_flight: &'a InFlight,
    key: Key,
    progress: Arc<Progress>,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let mut running = self.in_flight.lock();
        // A later search of the same position may have taken the entry over.
        if running.get(&self.key).is_some_and(|found| Arc::ptr_eq(found, &self.progress)) {
            running.remove(&self.key);
        }
    }
}

impl InFlight {
    /// Notes a search of `position` under `rules` until the returned guard is dropped; once its
    /// value is known it searches `then` (`moves` or `line`).
    pub fn start(&self, rules: Rules, position: Position, then: &'static str) -> (Arc<Progress>, Registered<'_>) {
        let known = Mutex::new((None, false));
        let progress = Arc::new(Progress { started: Instant::now(), nodes: Arc::new(AtomicU64::new(0)), known, then });
        self.lock().insert((rules, position), Arc::clone(&progress));
        let registered = Registered { in_flight: self, key: (rules, position), progress: Arc::clone(&progress) };
        (progress, registered)
    }

    /// What is known of the search of `position` under `rules`, as the API reports it.
    pub fn report(&self, rules: Rules, position: Position) -> SearchProgress {
        let Some(progress) = self.lock().get(&(rules, position)).cloned() else {
            return SearchProgress { searching: false, running: None };
        };
        let (bounds, moves) = *progress.lock();
        let running = Running {
            seconds: progress.started.elapsed().as_secs_f64(),
            nodes: progress.nodes.load(Ordering::Relaxed),
            bounds: bounds.map(|(lower, upper)| Bounds { lower, upper }),
            phase: if moves { progress.then } else { "value" },
        };
        SearchProgress { searching: true, running: Some(running) }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Arc<Progress>>> {
        self.running.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_is_reported_while_registered_with_what_it_proved() {
        let in_flight = InFlight::default();
        let position = Position::start(4, 3).unwrap();
        let report = || serde_json::to_value(in_flight.report(Rules::STANDARD, position)).unwrap();
        assert_eq!(report().to_string(), r#"{"searching":false}"#);
        {
            let (progress, _registered) = in_flight.start(Rules::STANDARD, position, "moves");
            assert_eq!(report()["bounds"], serde_json::Value::Null);
            progress.proven(-4, 10, 12_345);
            let now = report();
            assert_eq!((now["nodes"].as_u64(), now["phase"].as_str()), (Some(12_345), Some("value")));
            assert_eq!(now["bounds"].to_string(), r#"{"lower":-4,"upper":10}"#);
            progress.proven(6, 6, 20_000);
            assert_eq!(report()["phase"], "moves", "the value is known");
        }
        assert_eq!(report()["searching"], false);
    }
}
