//! Append-only logs of JSON lines, the form in which jobs and proofs keep what they proved: one
//! record a line, each synced before the work goes on. A last line without its newline was cut
//! short by a kill; it is cut off when the log is opened again.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A line of a log that is not a record of its kind.
#[derive(Debug, thiserror::Error)]
#[error("{path} line {line}: {message}")]
pub struct CorruptLine {
    /// The log.
    pub path: PathBuf,
    /// Its line, from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The records of the complete lines of `text`, read from the log at `path` from its line
/// `first_line` (from 1) on; and the bytes they take. A last line without its newline is still
/// being written, or was cut short by a kill: it is left unread. Blank lines are skipped.
pub fn parse_complete_lines<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    first_line: usize,
) -> Result<(Vec<T>, usize), CorruptLine> {
    parse_checked_lines(path, text, first_line, |_: &T| Ok(()))
}

/// [`parse_complete_lines`], with each record also passed through `check`: a record it refuses
/// is a [`CorruptLine`] with its message.
pub(crate) fn parse_checked_lines<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    first_line: usize,
    check: impl Fn(&T) -> Result<(), String>,
) -> Result<(Vec<T>, usize), CorruptLine> {
    let complete = text.rfind('\n').map_or(0, |at| at + 1);
    let mut records = Vec::new();
    for (i, line) in text[..complete].lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let corrupt = |message: String| CorruptLine { path: path.to_path_buf(), line: first_line + i, message };
        let record = serde_json::from_str(line).map_err(|err| corrupt(err.to_string()))?;
        check(&record).map_err(corrupt)?;
        records.push(record);
    }
    Ok((records, complete))
}

/// The complete lines of a log's `bytes`: all of them up to the last newline. What follows it is
/// a line still being written, or cut short by a kill.
pub(crate) fn complete_lines(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1)]
}

/// A log open for appending.
pub struct Appender {
    file: File,
    path: PathBuf,
}

impl Appender {
    /// Opens (or creates) the log at `path`, cutting off a last line left unfinished by a kill
    /// so that new records start on a line of their own.
    pub fn open(path: &Path) -> io::Result<Appender> {
        crate::input::refuse_special(path)?;
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path)?;
        let bytes = crate::input::read_capped(&file, crate::input::LARGE_FILE_BYTES)?;
        let complete = complete_lines(&bytes).len();
        if complete < bytes.len() {
            file.set_len(complete as u64)?;
            file.seek(SeekFrom::End(0))?;
        }
        Ok(Appender { file, path: path.to_path_buf() })
    }

    /// Appends `record` as one line and waits until it is on disk. Fails, writing nothing, when
    /// the log's path no longer names the file opened (replaced by `git stash`, a checkout or a
    /// copy): what was appended since would go to a file no one can read any more.
    pub fn append(&mut self, record: &impl Serialize) -> io::Result<()> {
        if !same_file(&self.file, &self.path)? {
            return Err(io::Error::other(format!(
                "{} was replaced or removed while this run appended to it; its records since are in the old file",
                self.path.display()
            )));
        }
        let mut line = serde_json::to_string(record).map_err(io::Error::other)?;
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let (open, named) = match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => (open, named),
        (_, Err(err)) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
        (Err(err), _) | (_, Err(err)) => return Err(err),
    };
    Ok(open.dev() == named.dev() && open.ino() == named.ino())
}

/// Whether `path` still names the open `file` (not told apart here).
#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> io::Result<bool> {
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_replaced_under_its_appender_is_not_written_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut log = Appender::open(&path).unwrap();
        log.append(&1).unwrap();
        // What `git stash` does to a changed file: a new file in its place.
        std::fs::write(dir.path().join("new"), "1\n").unwrap();
        std::fs::rename(dir.path().join("new"), &path).unwrap();
        assert!(log.append(&2).unwrap_err().to_string().contains("was replaced"));
        std::fs::remove_file(&path).unwrap();
        assert!(log.append(&3).is_err());
        assert_eq!(Appender::open(&path).and_then(|mut log| log.append(&4)).ok(), Some(()));
    }
}
