//! Opening the files the program is given: proof logs, check transcripts and `proof.toml`, book,
//! line and result files, job files and logs, the answer cache, database layers. Only a regular
//! file is opened (symbolic links followed), and at most a cap's worth of it is read: a pipe, a
//! device or a link to `/dev/zero` in a file's place is refused with a message, instead of
//! hanging the program or filling its memory. Errors stay `io::Error`s, so a missing file is
//! still `NotFound` for the callers that treat it as empty.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most a small file may hold: `proof.toml`, a job file, a guesses table, a note.
pub const SMALL_FILE_BYTES: u64 = 16 << 20;

/// The most any other file the program reads may hold (logs, transcripts, result files, the
/// cache): far above what the program writes (the largest committed log is 115 KB, the largest
/// result file 4 MB), far below this machine's memory.
pub const LARGE_FILE_BYTES: u64 = 1 << 30;

/// A path that names something other than a regular file.
#[derive(Debug, thiserror::Error)]
#[error("not a regular file (a directory, a pipe, a device, or a link to one): refused")]
struct NotRegular;

/// A file over its cap.
#[derive(Debug, thiserror::Error)]
#[error("over {cap} bytes, more than a file of its kind holds: refused")]
struct TooLarge {
    cap: u64,
}

/// Whether `err` is the refusal of a path that is not a regular file.
pub fn is_not_regular(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|inner| inner.is::<NotRegular>())
}

/// Refuses a path that exists but is not a regular file; one that does not exist passes (for a
/// file about to be created; an open that reads it says `NotFound`). Checked before any open: a
/// pipe's open blocks until someone writes to it.
pub fn refuse_special(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular)),
        Ok(_) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
    }
}

/// Opens the regular file at `path` for reading.
pub fn open(path: &Path) -> io::Result<File> {
    refuse_special(path)?;
    let file = File::open(path)?;
    // Swapped for something else between the look and the open: refused all the same.
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular));
    }
    Ok(file)
}

/// Reads the rest of `file`, at most `cap` bytes.
pub fn read_capped(file: impl Read, cap: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, TooLarge { cap }));
    }
    Ok(bytes)
}

/// The regular file at `path`, whole, at most `cap` bytes.
pub fn read(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    read_capped(open(path)?, cap)
}

/// The regular file at `path` as UTF-8 text, at most `cap` bytes.
pub fn read_text(path: &Path, cap: u64) -> io::Result<String> {
    String::from_utf8(read(path, cap)?).map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_whole_within_their_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "twelve bytes").unwrap();
        assert_eq!(read_text(&path, 12).unwrap(), "twelve bytes");
        let err = read_text(&path, 11).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert!(err.to_string().contains("over 11 bytes"), "{err}");
        let missing = read_text(&dir.path().join("none"), 1).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        assert!(refuse_special(&dir.path().join("none")).is_ok(), "a file yet to be created");
    }

    #[cfg(unix)]
    #[test]
    fn devices_directories_and_links_to_them_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        let mut paths = vec![zero.as_path(), dir.path()];
        if made {
            paths.push(&fifo);
        }
        // (A pipe opened would block this test for ever.)
        for path in paths {
            let err = read(path, LARGE_FILE_BYTES).unwrap_err();
            assert!(is_not_regular(&err), "{}: {err}", path.display());
            assert!(err.to_string().contains("not a regular file"), "{err}");
            assert!(refuse_special(path).is_err());
        }
        // A link to a regular file is followed.
        let real = dir.path().join("real");
        std::fs::write(&real, "x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(read_text(&link, 1).unwrap(), "x");
    }
}
