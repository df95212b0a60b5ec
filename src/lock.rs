//! Advisory locks between processes: an operating-system lock on a lock file (`flock` on Linux),
//! which the kernel releases when its holder exits or is killed, so no one has to clean up after a
//! kill and no lock is ever mistaken for stale. The file holds its holder's process id, to name it
//! to a process that is refused, and is removed when the lock is dropped.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// A running process holds it.
    #[error("{path} is held by {}: another run is working here", holder(*.pid))]
    Held {
        /// The lock file.
        path: PathBuf,
        /// The process holding it, as the file says (`None` while the holder is still writing it).
        pid: Option<u32>,
    },
    /// The lock file could not be made, read or removed.
    #[error("{path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

fn holder(pid: Option<u32>) -> String {
    pid.map_or_else(|| "another process".to_string(), |pid| format!("process {pid}"))
}

/// A lock held by this process until dropped.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    /// Holds the operating system's lock while open.
    _file: File,
}

impl FileLock {
    /// Takes the lock file at `path`, or says which live process holds it.
    pub fn acquire(path: PathBuf) -> Result<FileLock, LockError> {
        let io = |source| LockError::Io { path: path.clone(), source };
        for _ in 0..8 {
            let mut file =
                OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let pid = crate::input::read_text(&path, crate::input::SMALL_FILE_BYTES)
                        .ok()
                        .and_then(|text| text.trim().parse().ok());
                    return Err(LockError::Held { path, pid });
                }
                Err(TryLockError::Error(err)) => return Err(io(err)),
            }
            // The holder before may have removed the file between our open and our lock: then this
            // lock is on a file no one else will open. Open the path again.
            if !still_at(&file, &path) {
                continue;
            }
            file.set_len(0).map_err(io)?;
            file.write_all(std::process::id().to_string().as_bytes()).map_err(io)?;
            return Ok(FileLock { path, _file: file });
        }
        Err(io(std::io::Error::other("the lock changed hands while being taken")))
    }

    /// The lock of the file at `file`: `FILE.lock` beside it.
    pub fn beside(file: &Path) -> Result<FileLock, LockError> {
        let mut name = file.as_os_str().to_owned();
        name.push(".lock");
        FileLock::acquire(PathBuf::from(name))
    }

    /// [`FileLock::beside`], waiting while another live process (or thread) holds it, for at most
    /// `patience`: for short work on a file that runs beside each other share, as rewriting it.
    pub fn beside_waiting(file: &Path, patience: Duration) -> Result<FileLock, LockError> {
        let until = Instant::now() + patience;
        loop {
            match FileLock::beside(file) {
                Err(LockError::Held { .. }) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                taken => return taken,
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Removed while still locked; the lock goes with the file handle right after.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_at(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_holder_is_refused_and_a_dead_one_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let held = FileLock::beside(&log).unwrap();
        let refused = FileLock::beside(&log).unwrap_err();
        assert!(matches!(refused, LockError::Held { pid, .. } if pid == Some(std::process::id())), "{refused}");
        drop(held);
        assert!(!dir.path().join("log.jsonl.lock").exists(), "removed when dropped");
        // A lock file left by a killed run (the kernel released its lock) is taken over.
        std::fs::write(dir.path().join("log.jsonl.lock"), "4294967295").unwrap();
        let taken = FileLock::beside(&log).unwrap();
        let pid = std::fs::read_to_string(dir.path().join("log.jsonl.lock")).unwrap();
        assert_eq!(pid, std::process::id().to_string());
        drop(taken);
    }

    #[test]
    fn threads_racing_for_a_lock_never_hold_it_together() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let (holders, taken) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..200 {
                        if let Ok(lock) = FileLock::beside(&log) {
                            assert_eq!(holders.fetch_add(1, Ordering::SeqCst), 0, "two holders at once");
                            taken.fetch_add(1, Ordering::SeqCst);
                            std::thread::yield_now();
                            holders.fetch_sub(1, Ordering::SeqCst);
                            drop(lock);
                        }
                    }
                });
            }
        });
        assert!(taken.load(Ordering::SeqCst) > 0);
    }

    #[test]
    fn a_waiting_lock_is_taken_once_released_and_refused_after_its_patience() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("openings.jsonl");
        let held = FileLock::beside(&log).unwrap();
        let clock = Instant::now();
        let refused = FileLock::beside_waiting(&log, Duration::from_millis(50)).unwrap_err();
        assert!(matches!(refused, LockError::Held { .. }) && clock.elapsed() >= Duration::from_millis(50));
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(30));
                drop(held);
            });
            assert!(FileLock::beside_waiting(&log, Duration::from_secs(10)).is_ok());
        });
    }
}
