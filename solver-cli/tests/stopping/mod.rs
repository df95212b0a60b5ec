//! What the tests of stopping by a signal share: a `kalah` run started, signalled once it has
//! shown it is working, and waited for.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `kalah` with `args`, sends it `signals` (`kill` flags: "-TERM", "-INT"), one right after
/// the other, `after` the file `working` exists, and returns what it printed once it has
/// stopped; fails the test when it does not start working within a minute or does not stop
/// within 30 s of the signals.
pub fn signalled_once_working(args: &[&str], working: &Path, after: Duration, signals: &[&str]) -> Output {
    let mut run = Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kalah binary runs");
    let wait_until = |done: &mut dyn FnMut() -> bool, limit: Duration, what: &str| {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < limit, "{what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_until(&mut || working.exists(), Duration::from_secs(60), "the run never started working");
    std::thread::sleep(after);
    let pid = run.id().to_string();
    for signal in signals {
        assert!(Command::new("kill").args([*signal, pid.as_str()]).status().expect("kill runs").success());
    }
    wait_until(&mut || run.try_wait().unwrap().is_some(), Duration::from_secs(30), "the run did not stop");
    run.wait_with_output().unwrap()
}
