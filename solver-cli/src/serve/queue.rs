//! The queue of searches: up to `workers` run at once, the others wait their turn first come
//! first served, and a request that finds the queue full is answered 503 at once rather than
//! held. Requests that need no search never enter it (see `Service::lane`), so a crowd of slow
//! searches cannot make cheap requests wait.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use tokio::sync::{Semaphore, SemaphorePermit};

use super::ApiError;

pub struct SearchQueue {
    /// One permit per worker; tokio hands permits to waiters in arrival order.
    workers: Semaphore,
    waiting: AtomicUsize,
    max_waiting: usize,
}

/// Counts a waiting request for as long as it waits.
struct Waiting<'q>(&'q AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl SearchQueue {
    pub fn new(workers: usize, max_waiting: usize) -> SearchQueue {
        SearchQueue { workers: Semaphore::new(workers), waiting: AtomicUsize::new(0), max_waiting }
    }

    /// A worker for one search, waited for at most `patience`.
    pub async fn enter(&self, patience: Duration) -> Result<SemaphorePermit<'_>, ApiError> {
        if let Ok(permit) = self.workers.try_acquire() {
            return Ok(permit);
        }
        let ahead = self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.waiting);
        if ahead >= self.max_waiting {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the server is busy: {ahead} searches are waiting already; try again later"),
            ));
        }
        let busy = || {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("the server is busy: no worker was free within {} s; try again later", patience.as_secs_f64()),
            )
        };
        let permit = tokio::time::timeout(patience, self.workers.acquire()).await.map_err(|_| busy())?;
        permit.map_err(|_| busy())
    }
}
