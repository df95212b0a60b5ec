//! Files written whole or not at all: every file this crate writes for later runs (database
//! layers, table snapshots, job results, proof logs merged) goes through `write_file`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The name a file is written under until it is complete: `path` with `.tmp` appended.
pub(crate) fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Writes the file at `path` through `write`, which gets a buffered writer to
/// [`temporary_path`]; the file is then synced and renamed over `path`, and the rename made
/// durable. On an error the temporary file is removed and `path` is as it was.
pub(crate) fn write_file(path: &Path, write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>) -> io::Result<()> {
    let temporary = temporary_path(path);
    let written = (|| {
        let mut file = BufWriter::with_capacity(1 << 20, File::create(&temporary)?);
        write(&mut file)?;
        file.into_inner().map_err(|err| err.into_error())?.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
        return written;
    }
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// `write_file` for bytes already in memory, creating `path`'s directory first.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    write_file(path, |file| file.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.csv");
        write_bytes(&path, b"first").unwrap();
        let failed = write_file(&path, |file| {
            file.write_all(b"half of the second")?;
            Err(io::Error::other("the writer gave up"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert!(!temporary_path(&path).exists());
        write_bytes(&dir.path().join("new/dir/file"), b"x").unwrap();
        assert_eq!(std::fs::read(dir.path().join("new/dir/file")).unwrap(), b"x");
    }
}
