//! Endgame databases: the exact board value of every position with up to a given number of seeds
//! on the board, built layer by layer (`build`), stored one checksummed file per layer
//! ([`format`](mod@format), FORMAT.md) and probed through [`Database`].
//!
//! A board value depends on the houses and on the rules that move seeds ([`Rules::for_values`]:
//! pie and early end never change it), so one database serves e.g. `bga` with and without the pie
//! rule. Files live in `ROOT/<houses>h-<rules>/layer-<seeds>.kdb`.

pub mod builder;
pub mod format;
pub mod packed;
pub mod report;
pub mod values;
pub mod verify;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::board::Position;
use crate::cpu::prefetch;
use crate::index::{Layer, rank_and_seeds};
use crate::moves::{best_board_value, move_board_value};
use crate::rules::{End, Rules};
use format::{Encoding, Header};
use packed::Packer;
pub use values::{LayerBuffer, LayerValues, Layout};

/// Where databases live when no directory is given.
pub const DEFAULT_ROOT: &str = "data/db";

/// Anything that keeps a database from answering. Never a panic: damaged files end up here.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Another live process is building into the same directory.
    #[error(transparent)]
    Locked(#[from] crate::lock::LockError),
    /// No database for these rules and houses under the root directory.
    #[error("no database in {dir} (build one with `kalah build`)")]
    NoDatabase {
        /// The directory looked in.
        dir: PathBuf,
    },
    /// A layer's path names something other than a regular file (a directory, a pipe, a device),
    /// which is refused before it is opened: reading a pipe would wait for ever.
    #[error("{path} is not a regular file: a layer must be one")]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// A layer file the database needs is not there.
    #[error("layer {seeds} is missing: {path} does not exist")]
    MissingLayer {
        /// The file expected.
        path: PathBuf,
        /// Its layer.
        seeds: usize,
    },
    /// The position has more seeds on the board than the database covers.
    #[error("the position has {seeds} seeds on the board; the database covers at most {max_seeds}")]
    BeyondDatabase {
        /// Seeds on the board.
        seeds: usize,
        /// The largest layer present.
        max_seeds: usize,
    },
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Not a layer file at all.
    #[error("{path} is not a kalah database file (wrong magic)")]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// A layer file of a format version this build cannot read.
    #[error("{path} has format version {version}; this build reads version {}", format::VERSION)]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version it states.
        version: u32,
    },
    /// The file ends before its header says it should.
    #[error("{path} is truncated: {actual} bytes, expected {expected}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header calls for.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// The file is damaged: a checksum does not match, or its contents contradict themselves.
    #[error("{path} is corrupt: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A sound file built for other rules.
    #[error("{path} was built for rules '{found}', not '{expected}'")]
    WrongRules {
        /// The file.
        path: PathBuf,
        /// The rules asked for.
        expected: String,
        /// The rules in the file.
        found: String,
    },
    /// A sound file for another board or layer than its name says.
    #[error("{path} holds {found}, expected {expected}")]
    WrongLayer {
        /// The file.
        path: PathBuf,
        /// What was expected, e.g. "6 houses, 12 seeds, 1339702 entries".
        expected: String,
        /// What the header says.
        found: String,
    },
    /// More seeds than a layer file can describe.
    #[error("at most {max} seeds per layer are supported")]
    TooManySeeds {
        /// The limit.
        max: usize,
    },
    /// The memory a layer needs while it is computed is not to be had: complete layers are kept.
    #[error(
        "layer {seeds} needs about {:.1} GB of memory while it is computed, and {:.1} GB are available; \
         layers up to {} are complete: free memory or build fewer seeds",
        *.needed as f64 / 1e9,
        *.available as f64 / 1e9,
        seeds - 1
    )]
    NoMemory {
        /// The layer's seeds.
        seeds: usize,
        /// Bytes it needs while computed.
        needed: u64,
        /// Bytes the system says it can give.
        available: u64,
    },
    /// The build was stopped before it finished; complete layers are kept.
    #[error("the build was stopped after layer {last_complete:?}")]
    Interrupted {
        /// The last layer written, if any.
        last_complete: Option<usize>,
    },
}

/// The directory holding the database for `rules` on boards of `houses` houses under `root`.
pub fn database_dir(root: &Path, rules: &Rules, houses: usize) -> PathBuf {
    let slug = rules.for_values().to_string().replace(' ', "+");
    root.join(format!("{houses}h-{slug}"))
}

/// The file of layer `seeds` in a database directory.
pub fn layer_path(dir: &Path, seeds: usize) -> PathBuf {
    dir.join(format!("layer-{seeds:02}.kdb"))
}

/// Where a board value is: known because the game is over, or at an index of a loaded layer.
#[derive(Clone, Copy)]
enum Location<'a> {
    Over(i32),
    Stored(&'a LayerValues, usize),
}

impl Location<'_> {
    #[inline]
    fn value(self) -> i32 {
        match self {
            Location::Over(value) => value,
            Location::Stored(values, index) => values.get(index),
        }
    }

    /// Asks the processor to bring the value in.
    #[inline]
    fn prefetch(self) {
        if let Location::Stored(values, index) = self {
            prefetch(values.address(index));
        }
    }
}

/// A started probe: the board value, read when asked for (`Database::start_probe`).
#[derive(Clone, Copy)]
pub struct Probe<'a>(Location<'a>);

impl Probe<'_> {
    /// The board value.
    #[inline]
    pub fn value(self) -> i32 {
        self.0.value()
    }
}

/// An opened layer file: its index, its header, and its values once first needed.
struct LayerFile {
    layer: Layer,
    path: PathBuf,
    header: Header,
    file_len: u64,
    values: OnceLock<LayerValues>,
}

/// Opens a layer file and checks its header against what the database expects; returns the
/// header, the file and where its payload starts.
///
/// Layers are read, never memory-mapped: a mapped file changed by another process under the map
/// would be undefined behaviour, a read one is at worst a checksum error.
/// Refuses a path that exists but is not a regular file (symbolic links are followed); one that
/// does not exist is left to the open that follows.
fn regular_file(path: &Path) -> Result<(), DbError> {
    crate::input::refuse_special(path).map_err(|source| match crate::input::is_not_regular(&source) {
        true => DbError::NotAFile { path: path.to_path_buf() },
        false => DbError::Io { path: path.to_path_buf(), source },
    })
}

fn open_layer(path: &Path, rules: &Rules, houses: usize, seeds: usize) -> Result<(Header, File, u64), DbError> {
    let io = |source| DbError::Io { path: path.to_path_buf(), source };
    regular_file(path)?;
    let mut file = crate::input::open(path).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => DbError::MissingLayer { path: path.to_path_buf(), seeds },
        _ => io(err),
    })?;
    let file_len = file.metadata().map_err(io)?.len();
    let mut head = Vec::new();
    (&mut file).take(format::MAX_HEADER_LEN.min(file_len)).read_to_end(&mut head).map_err(io)?;
    let (header, payload_start) = Header::decode(path, &head)?;
    let found_rules = header.parsed_rules(path)?;
    if found_rules != rules.for_values() {
        return Err(DbError::WrongRules {
            path: path.to_path_buf(),
            expected: rules.for_values().to_string(),
            found: found_rules.to_string(),
        });
    }
    let layer = Layer::new(rules, houses, seeds);
    if header.houses != houses || header.seeds != seeds || header.entries != layer.len() {
        return Err(DbError::WrongLayer {
            path: path.to_path_buf(),
            expected: format!("{houses} houses, {seeds} seeds, {} entries", layer.len()),
            found: format!("{} houses, {} seeds, {} entries", header.houses, header.seeds, header.entries),
        });
    }
    let expected_len = payload_start as u64 + header.payload_len;
    if file_len < expected_len {
        return Err(DbError::Truncated { path: path.to_path_buf(), expected: expected_len, actual: file_len });
    }
    if file_len > expected_len {
        return Err(DbError::Corrupt { path: path.to_path_buf(), reason: "bytes after the payload".to_string() });
    }
    if header.encoding == Encoding::RawI8 && header.payload_len != header.entries {
        return Err(DbError::Corrupt {
            path: path.to_path_buf(),
            reason: "raw payload length differs from the entry count".to_string(),
        });
    }
    Ok((header, file, payload_start as u64))
}

/// Reads a layer's payload from `file` (opened by [`open_layer`]), checks its checksum and its
/// values (each within ±seeds, of the seeds' parity where the rules call for it) and holds them in
/// `layout`.
fn load_values(
    path: &Path,
    header: &Header,
    rules: &Rules,
    layout: Layout,
    mut file: File,
    start: u64,
) -> Result<LayerValues, DbError> {
    let io = |source| DbError::Io { path: path.to_path_buf(), source };
    let corrupt = |reason: String| DbError::Corrupt { path: path.to_path_buf(), reason };
    let refused = |err| pack_refused(path, err);
    let checksum = |payload: &[u8]| match format::checksum(payload) == header.payload_checksum {
        true => Ok(()),
        false => Err(corrupt(format!("{} checksum mismatch", format::CHECKSUM))),
    };
    let read_payload = |file: &mut File| {
        let mut payload = vec![0; header.payload_len as usize];
        file.read_exact(&mut payload).map_err(io)?;
        checksum(&payload).map(|()| payload)
    };
    let (entries, seeds, parity) = (header.entries as usize, header.seeds, rules.values_share_parity());
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    if layout == Layout::Bytes {
        let mut values = LayerBuffer::zeroed(entries).map_err(io)?;
        match header.encoding {
            // The payload is the values: read straight into their buffer.
            Encoding::RawI8 => {
                file.read_exact(values.bytes_mut()).map_err(io)?;
                checksum(values.bytes())?;
            }
            Encoding::ZstdI8 => format::decode_zstd(&read_payload(&mut file)?, values.bytes_mut()).map_err(corrupt)?,
        }
        packed::check_values(values.bytes(), seeds, parity).map_err(refused)?;
        return Ok(LayerValues::Bytes(values));
    }
    let payload = read_payload(&mut file)?;
    let mut packer = Packer::new(entries, seeds, parity).map_err(refused)?;
    match header.encoding {
        Encoding::RawI8 => packer.push(&payload).map_err(refused)?,
        Encoding::ZstdI8 => format::decode_zstd_in_order(&payload, header.entries, &mut |part| {
            packer.push(part).map_err(|err| err.to_string())
        })
        .map_err(corrupt)?,
    }
    Ok(LayerValues::Packed(packer.finish()))
}

/// Why `path`'s values could not be packed: values no layer can hold are damage, memory that
/// cannot be had is the system's answer.
fn pack_refused(path: &Path, err: packed::PackError) -> DbError {
    match err {
        packed::PackError::Memory(source) => DbError::Io { path: path.to_path_buf(), source },
        values => DbError::Corrupt { path: path.to_path_buf(), reason: values.to_string() },
    }
}

/// A database opened for probing: the layers 0..=max_seeds of one rule set and board size.
pub struct Database {
    dir: PathBuf,
    rules: Rules,
    houses: usize,
    layout: Layout,
    layers: Vec<LayerFile>,
}

/// What `kalah info` reports about one layer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LayerInfo {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions.
    pub entries: u64,
    /// File size in bytes, header included.
    pub bytes: u64,
    /// Payload encoding name.
    pub encoding: &'static str,
    /// Bytes of memory the values take once read (`None` while not read).
    pub memory_bytes: Option<u64>,
    /// Positions whose packed value is in the escape list (`None` unless read packed).
    pub escapes: Option<u64>,
}

impl Database {
    /// Opens the database for `rules` and `houses` under `root`: every layer from 0 up to the
    /// largest present, all of which must be there. Headers are checked now; payload checksums
    /// when a layer is first used (or by [`Database::verify_checksums`]).
    pub fn open(root: &Path, rules: &Rules, houses: usize) -> Result<Database, DbError> {
        Database::open_with(database_dir(root, rules, houses), rules.for_values(), houses)
    }

    /// Opens a database directory whatever its rules and board size, as its first layer's header
    /// states them.
    pub fn open_dir(dir: &Path) -> Result<Database, DbError> {
        let path = layer_path(dir, 0);
        regular_file(&path)?;
        let bytes =
            crate::input::read(&path, crate::input::LARGE_FILE_BYTES).map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => DbError::NoDatabase { dir: dir.to_path_buf() },
                _ => DbError::Io { path: path.clone(), source },
            })?;
        let (header, _) = Header::decode(&path, &bytes)?;
        let rules = header.parsed_rules(&path)?;
        Database::open_with(dir.to_path_buf(), rules, header.houses)
    }

    /// Every database directory under `root`, sorted by name. A directory, or its first layer,
    /// that is there but cannot be looked at is an error, never a database left out in silence.
    pub fn list(root: &Path) -> Result<Vec<PathBuf>, DbError> {
        let io = |path: &Path, source| DbError::Io { path: path.to_path_buf(), source };
        let entries = std::fs::read_dir(root).map_err(|source| match source.kind() {
            std::io::ErrorKind::NotFound => DbError::NoDatabase { dir: root.to_path_buf() },
            _ => DbError::Io { path: root.to_path_buf(), source },
        })?;
        let mut dirs = Vec::new();
        for entry in entries {
            let path = entry.map_err(|source| io(root, source))?.path();
            // What is at a path (nothing when nothing is), or why it cannot be looked at.
            let look = |path: &Path| match std::fs::metadata(path) {
                Ok(metadata) => Ok(Some(metadata)),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(err) => Err(io(path, err)),
            };
            if look(&path)?.is_some_and(|metadata| metadata.is_dir()) && look(&layer_path(&path, 0))?.is_some() {
                dirs.push(path);
            }
        }
        dirs.sort();
        Ok(dirs)
    }

    fn open_with(dir: PathBuf, rules: Rules, houses: usize) -> Result<Database, DbError> {
        let entries = std::fs::read_dir(&dir).map_err(|source| match source.kind() {
            // Nothing there, or a file on the way (`--db` naming a file): no database.
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
                DbError::NoDatabase { dir: dir.clone() }
            }
            _ => DbError::Io { path: dir.clone(), source },
        })?;
        let largest = entries
            .filter_map(|entry| {
                entry.ok()?.file_name().to_str()?.strip_prefix("layer-")?.strip_suffix(".kdb")?.parse::<usize>().ok()
            })
            .max()
            .ok_or_else(|| DbError::NoDatabase { dir: dir.clone() })?;
        let mut layers = Vec::with_capacity(largest + 1);
        for seeds in 0..=largest {
            let path = layer_path(&dir, seeds);
            // `open_layer` checked that the file ends where the payload does.
            let (header, _, payload_start) = open_layer(&path, &rules, houses, seeds)?;
            let file_len = payload_start + header.payload_len;
            layers.push(LayerFile {
                layer: Layer::new(&rules, houses, seeds),
                path,
                header,
                file_len,
                values: OnceLock::new(),
            });
        }
        Ok(Database { dir, rules, houses, layout: Layout::Packed, layers }.with_layout(Layout::default()))
    }

    /// The same database answering only up to `max_seeds` seeds on the board (the layers above
    /// are dropped, so they are never read): a server or benchmark can use a smaller database
    /// than the one on disk.
    pub(crate) fn limited_to(mut self, max_seeds: usize) -> Database {
        self.layers.truncate(max_seeds + 1);
        self
    }

    /// The most seeds on the board whose layers fit in `available` bytes of memory more, in the
    /// database's layout (layers read already take no more); `None` when not even the first does.
    pub(crate) fn seeds_fitting(&self, available: u64) -> Option<usize> {
        let mut needed = 0u64;
        let mut fitting = None;
        for (seeds, file) in self.layers.iter().enumerate() {
            if file.values.get().is_none() {
                needed = needed.saturating_add(self.layout.memory_estimate(file.header.entries));
            }
            if needed > available {
                break;
            }
            fitting = Some(seeds);
        }
        fitting
    }

    /// The same database holding its layers in `layout` (`Auto` resolved for its size) once they
    /// are read (those read already stay as they are).
    pub fn with_layout(mut self, layout: Layout) -> Database {
        self.layout = layout.for_positions(self.layers.iter().map(|l| l.header.entries).sum());
        self
    }

    /// How layers are held once read (never `Auto`).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Bytes of memory the layers read so far take.
    pub fn memory_bytes(&self) -> u64 {
        self.layers.iter().filter_map(|l| l.values.get()).map(LayerValues::memory_bytes).sum()
    }

    /// The directory the layers are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The rules the values are for (pie and early end cleared).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Houses per side.
    pub fn houses(&self) -> usize {
        self.houses
    }

    /// The largest number of seeds on the board the database answers for.
    pub fn max_seeds(&self) -> usize {
        self.layers.len() - 1
    }

    /// One line of facts per layer.
    pub fn layer_info(&self) -> Vec<LayerInfo> {
        self.layers
            .iter()
            .map(|l| LayerInfo {
                seeds: l.layer.seeds(),
                entries: l.header.entries,
                bytes: l.file_len,
                encoding: l.header.encoding.name(),
                memory_bytes: l.values.get().map(LayerValues::memory_bytes),
                escapes: l.values.get().and_then(LayerValues::escapes),
            })
            .collect()
    }

    /// Loads a layer's values (checking its checksum) if that has not happened yet.
    fn values(&self, seeds: usize) -> Result<&LayerValues, DbError> {
        let file = &self.layers[seeds];
        if let Some(values) = file.values.get() {
            return Ok(values);
        }
        let (header, opened, start) = open_layer(&file.path, &self.rules, self.houses, seeds)?;
        let values = load_values(&file.path, &header, &self.rules, self.layout, opened, start)?;
        Ok(file.values.get_or_init(|| values))
    }

    /// Loads every layer now, in parallel on the current rayon pool (largest first), checking
    /// every checksum. A search calls it first, so that its probes never wait for a decompression.
    pub fn verify_checksums(&self) -> Result<(), DbError> {
        (0..self.layers.len()).into_par_iter().rev().try_for_each(|seeds| self.values(seeds).map(|_| ()))
    }

    /// Where a position's board value is: computed at once when the game is over, else a place in
    /// a layer. One pass over each row gives its rank and its seeds, which also tell whether the
    /// game is over: this is the hot path of every search.
    #[inline]
    fn locate(&self, position: &Position) -> Result<Location<'_>, DbError> {
        if position.houses() != self.houses {
            return Err(DbError::WrongLayer {
                path: self.dir.clone(),
                expected: format!("{} houses", position.houses()),
                found: format!("{} houses", self.houses),
            });
        }
        let (mover_rank, a) = rank_and_seeds(position.mover_houses());
        let (opponent_rank, b) = rank_and_seeds(position.opponent_houses());
        if a == 0 || (b == 0 && self.rules.end == End::EitherEmpty) {
            return Ok(Location::Over(position.without_stores().final_margin(&self.rules)));
        }
        let seeds = a + b;
        if seeds > self.max_seeds() {
            return Err(DbError::BeyondDatabase { seeds, max_seeds: self.max_seeds() });
        }
        let values = self.values(seeds)?;
        let index = self.layers[seeds].layer.index_in_block(a, mover_rank, opponent_rank) as usize;
        Ok(Location::Stored(values, index))
    }

    /// The board value (margin of the seeds still to be gained, for the side to move) of a
    /// position with at most [`Database::max_seeds`] seeds on the board. Stores are ignored.
    #[inline]
    pub fn board_value(&self, position: &Position) -> Result<i32, DbError> {
        Ok(self.locate(position)?.value())
    }

    /// Starts a probe: finds where the board value of `position` is and asks the processor to
    /// bring it in, so that a caller with other memory reads to start (a search reading its
    /// transposition table) can overlap them all before reading [`Probe::value`].
    #[inline]
    pub(crate) fn start_probe(&self, position: &Position) -> Result<Probe<'_>, DbError> {
        let location = self.locate(position)?;
        location.prefetch();
        Ok(Probe(location))
    }

    /// Board values of many positions at once, into `out` (same length): the same answers as
    /// [`Database::board_value`], faster, because the reads of up to 16 positions are started
    /// together and overlap in memory. A search probing every child of a node can use it.
    pub fn board_values(&self, positions: &[Position], out: &mut [i32]) -> Result<(), DbError> {
        const BATCH: usize = 16;
        assert_eq!(positions.len(), out.len(), "one output per position");
        for (positions, out) in positions.chunks(BATCH).zip(out.chunks_mut(BATCH)) {
            let mut locations = [Location::Over(0); BATCH];
            for (location, position) in locations.iter_mut().zip(positions) {
                *location = self.locate(position)?;
                location.prefetch();
            }
            for (value, location) in out.iter_mut().zip(&locations) {
                *value = location.value();
            }
        }
        Ok(())
    }

    /// The value of a position for the side to move, stores included.
    pub fn value(&self, position: &Position) -> Result<i32, DbError> {
        Ok(position.margin() + self.board_value(position)?)
    }

    /// Runs `f` with a lookup that answers from this database, and returns what `f` returns or
    /// the first error a lookup met.
    fn with_lookup<T>(&self, f: impl FnOnce(&mut dyn FnMut(&Position) -> i32) -> T) -> Result<T, DbError> {
        let mut failure = None;
        let result = f(&mut |child: &Position| {
            self.board_value(child).unwrap_or_else(|err| {
                failure.get_or_insert(err);
                0
            })
        });
        failure.map_or(Ok(result), Err)
    }

    /// The value of every legal move, for the side to move, stores included.
    pub fn move_values(&self, position: &Position) -> Result<Vec<(usize, i32)>, DbError> {
        self.with_lookup(|mut lookup| {
            let moves = position.legal_moves();
            moves
                .map(|house| (house, position.margin() + move_board_value(&self.rules, position, house, &mut lookup)))
                .collect()
        })
    }

    /// Recomputes the board value of `position` (not over, inside the database) from its
    /// children's values; returns the stored value and the recomputed one.
    pub fn recompute(&self, position: &Position) -> Result<(i32, i32), DbError> {
        let stored = self.board_value(position)?;
        let recomputed = self.with_lookup(|mut lookup| best_board_value(&self.rules, position, &mut lookup))?;
        Ok((stored, recomputed))
    }

    /// The index of a layer, for sampling positions.
    pub fn layer(&self, seeds: usize) -> Option<&Layer> {
        self.layers.get(seeds).map(|l| &l.layer)
    }
}
