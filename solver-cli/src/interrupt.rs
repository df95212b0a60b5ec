//! Stopping long runs cleanly: the first Ctrl-C (SIGINT) or SIGTERM raises a flag that the run
//! reads between nodes, so that it stops within moments with its logs synced, what it keeps
//! written and its locks released; a second signal ends the process at once, unless it comes
//! within [`SAME_REQUEST`] of the first.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::output::tell;

/// The signals that ask a run to stop.
pub struct StopSignals {
    interrupt: Signal,
    terminate: Signal,
}

impl StopSignals {
    /// Listens for SIGINT and SIGTERM from now on (inside a Tokio runtime): they no longer end
    /// the process by themselves.
    pub fn listen() -> std::io::Result<StopSignals> {
        Ok(StopSignals { interrupt: signal(SignalKind::interrupt())?, terminate: signal(SignalKind::terminate())? })
    }

    /// Waits for the next one; returns its number.
    pub async fn next(&mut self) -> i32 {
        tokio::select! {
            _ = self.interrupt.recv() => 2,
            _ = self.terminate.recv() => 15,
        }
    }
}

/// Signals this close after the first are the same request to stop, not a second one: Ctrl-C in
/// a terminal reaches a script and the runs it started, and then the script passes it on to
/// them; `timeout` signals its child and then the child's whole group. Before, such a run took
/// the echo for a second signal and exited at once, its task in flight lost.
const SAME_REQUEST: std::time::Duration = std::time::Duration::from_secs(2);

/// A flag raised by the first SIGINT or SIGTERM from now on, with a line on stderr that says
/// `what` the run does then; a second signal (past [`SAME_REQUEST`]) exits at once with 128 +
/// its number. Without a listener (the system refused one) the flag is never raised and signals
/// act as they always do.
pub fn stop_flag(what: &'static str) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let raised = Arc::clone(&flag);
    let (ready, listening) = std::sync::mpsc::channel();
    let listener = std::thread::Builder::new().name("stop-signals".to_string()).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_io().build() else {
            return;
        };
        runtime.block_on(async move {
            let signals = StopSignals::listen();
            let _ = ready.send(());
            let Ok(mut signals) = signals else { return };
            let first = signals.next().await;
            let since = std::time::Instant::now();
            raised.store(true, Ordering::Relaxed);
            tell!("signal {first}: {what} (a second signal stops at once)");
            loop {
                let second = signals.next().await;
                if since.elapsed() >= SAME_REQUEST {
                    std::process::exit(128 + second);
                }
            }
        });
    });
    if listener.is_ok() {
        // Until the listener is in place a signal ends the process as before.
        let _ = listening.recv();
    }
    flag
}
