//! Advisory locks between processes: a lock file holding its holder's process id, made with
//! `create_new` and removed when dropped. A lock whose holder is gone (killed) is taken over, so
//! no one has to clean up after a kill; one whose holder runs is refused with that holder named.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// A running process holds it.
    #[error("{path} is held by process {pid}: another run is working here (delete the file if that process is gone)")]
    Held {
        /// The lock file.
        path: PathBuf,
        /// The process holding it, as the file says.
        pid: u32,
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

/// A lock held by this process until dropped.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
}

impl FileLock {
    /// Takes the lock file at `path`, or says which live process holds it.
    pub fn acquire(path: PathBuf) -> Result<FileLock, LockError> {
        let io = |source| LockError::Io { path: path.clone(), source };
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    file.write_all(std::process::id().to_string().as_bytes()).map_err(io)?;
                    return Ok(FileLock { path });
                }
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path).map_err(io)?;
                    match holder.trim().parse::<u32>() {
                        Ok(pid) if process_is_alive(pid) => return Err(LockError::Held { path, pid }),
                        // Left by a run that was killed (or cut short while writing its id).
                        _ => std::fs::remove_file(&path).map_err(io)?,
                    }
                }
                Err(err) => return Err(io(err)),
            }
        }
        Err(io(std::io::Error::other("the lock changed hands while being taken")))
    }

    /// The lock of the file at `file`: `FILE.lock` beside it.
    pub fn beside(file: &Path) -> Result<FileLock, LockError> {
        let mut name = file.as_os_str().to_owned();
        name.push(".lock");
        FileLock::acquire(PathBuf::from(name))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether process `pid` is running (where that cannot be told, it is taken to be).
fn process_is_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") { Path::new("/proc").join(pid.to_string()).exists() } else { true }
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
        assert!(matches!(refused, LockError::Held { pid, .. } if pid == std::process::id()), "{refused}");
        drop(held);
        assert!(!dir.path().join("log.jsonl.lock").exists(), "removed when dropped");
        // A process id no system gives out: its holder is gone.
        std::fs::write(dir.path().join("log.jsonl.lock"), "4294967295").unwrap();
        let taken = FileLock::beside(&log).unwrap();
        let pid = std::fs::read_to_string(dir.path().join("log.jsonl.lock")).unwrap();
        assert_eq!(pid, std::process::id().to_string());
        drop(taken);
    }
}
