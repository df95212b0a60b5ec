//! What the searches in flight have proven so far, so that a client waiting for an answer can
//! show more than a clock: the nodes searched and the bounds each finished zero-window test
//! proved, then that the value is known and every move's value is being searched.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use kalah::{Position, Rules};
use serde_json::{Value, json};

/// A search's rules and position.
type Key = (Rules, Position);

/// One search in flight.
pub struct Progress {
    started: Instant,
    nodes: AtomicU64,
    /// The value's proven bounds (stores included) and whether the moves are being searched.
    known: Mutex<(Option<(i32, i32)>, bool)>,
}

impl Progress {
    /// After a zero-window test: the bounds proven so far and the nodes searched.
    pub fn proven(&self, lower: i32, upper: i32, nodes: u64) {
        self.nodes.store(nodes, Ordering::Relaxed);
        self.lock().0 = Some((lower, upper));
    }

    /// The value is known; every move's value is searched next.
    pub fn valued(&self, value: i32) {
        *self.lock() = (Some((value, value)), true);
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
    /// Notes a search of `position` under `rules` until the returned guard is dropped.
    pub fn start(&self, rules: Rules, position: Position) -> (Arc<Progress>, Registered<'_>) {
        let progress =
            Arc::new(Progress { started: Instant::now(), nodes: AtomicU64::new(0), known: Mutex::new((None, false)) });
        self.lock().insert((rules, position), Arc::clone(&progress));
        let registered = Registered { in_flight: self, key: (rules, position), progress: Arc::clone(&progress) };
        (progress, registered)
    }

    /// What is known of the search of `position` under `rules`, as the API reports it.
    pub fn report(&self, rules: Rules, position: Position) -> Value {
        let Some(progress) = self.lock().get(&(rules, position)).cloned() else {
            return json!({ "searching": false });
        };
        let (bounds, moves) = *progress.lock();
        json!({
            "searching": true,
            "seconds": progress.started.elapsed().as_secs_f64(),
            "nodes": progress.nodes.load(Ordering::Relaxed),
            "bounds": bounds.map(|(lower, upper)| json!({ "lower": lower, "upper": upper })),
            "phase": if moves { "moves" } else { "value" },
        })
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
        assert_eq!(in_flight.report(Rules::STANDARD, position)["searching"], false);
        {
            let (progress, _registered) = in_flight.start(Rules::STANDARD, position);
            assert_eq!(in_flight.report(Rules::STANDARD, position)["bounds"], Value::Null);
            progress.proven(-4, 10, 12_345);
            let report = in_flight.report(Rules::STANDARD, position);
            assert_eq!((report["nodes"].as_u64(), report["phase"].as_str()), (Some(12_345), Some("value")));
            assert_eq!(report["bounds"], json!({ "lower": -4, "upper": 10 }));
            progress.valued(6);
            assert_eq!(in_flight.report(Rules::STANDARD, position)["phase"], "moves");
        }
        assert_eq!(in_flight.report(Rules::STANDARD, position)["searching"], false);
    }
}
