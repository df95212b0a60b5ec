//! Append-only logs of JSON lines, the form in which jobs and proofs keep what they proved: one
//! record a line, each synced before the work goes on. A last line without its newline was cut
//! short by a kill; it is cut off when the log is opened again.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::Serialize;

/// A log open for appending.
pub struct Appender {
    file: File,
}

impl Appender {
    /// Opens (or creates) the log at `path`, cutting off a last line left unfinished by a kill
    /// so that new records start on a line of their own.
    pub fn open(path: &Path) -> io::Result<Appender> {
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1);
        if complete < bytes.len() {
            file.set_len(complete as u64)?;
            file.seek(SeekFrom::End(0))?;
        }
        Ok(Appender { file })
    }

    /// Appends `record` as one line and waits until it is on disk.
    pub fn append(&mut self, record: &impl Serialize) -> io::Result<()> {
        let mut line = serde_json::to_string(record).map_err(io::Error::other)?;
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.sync_data()
    }
}
