//! Building a database layer by layer, in parallel with rayon, resumably.
//!
//! Layer s needs only smaller layers (moves that bank seeds) and positions of its own layer
//! reached by moves that bank nothing. Under clockwise sowing those can cycle, and such layers are
//! computed by retrograde analysis (`cyclic`). Otherwise they cannot cycle: for rules without clockwise sowing, a
//! move that banks nothing never reaches the mover's store, so its seeds only move rightwards in
//! the mover's own row (relay and go-again chains included: leaving the row means passing the
//! store). That raises the *potential* of the position, the sum over both rows of seeds times
//! their house number from the owner's left, and leaves the opponent's row alone. So a layer is
//! finished in rounds of decreasing potential; each round reads only finished positions and
//! writes each of its own positions once, in parallel.
//!
//! Within a round the opponent's row is the outer loop: a child's mover row is the parent's
//! opponent row plus what the move sowed into it, so the lookups of one outer step fall into a
//! few contiguous rows of each smaller layer (see `index`). The lookups still miss the cache
//! often, so a batch of positions computes and prefetches all its children's addresses before
//! reading any value: the misses then overlap. Builds are bound by memory traffic after that.

mod cyclic;
mod fast;
mod sweeps;

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use self::fast::{MoverSowings, OpponentRow};
use crate::board::{MAX_HOUSES, Position};
use crate::cpu::prefetch;
use crate::database::format::{self, Header};
use crate::database::{DbError, LayerBuffer, LayerValues, Layout, database_dir, layer_path};
use crate::index::{Layer, MAX_LAYER_SEEDS, RowTable};
use crate::moves::MoveEffect;
use crate::rules::Rules;

/// What a caller wants from a build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Build every layer up to this many seeds on the board.
    pub max_seeds: usize,
    /// Compress layers with zstd where it pays (off: raw files, probed straight from the map).
    pub compress: bool,
    /// Value every move with the plain move generator, never the fast path (for tests that
    /// check the two agree).
    pub reference_moves: bool,
    /// How finished layers are held while the next ones are computed (packed: the largest
    /// databases fit in memory; `Auto`: packed when the database is big for the machine).
    pub layout: Layout,
    /// How layers are computed under rules with cycles.
    pub cyclic: CyclicMethod,
}

/// How a layer is computed under rules with cycles: the same values either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CyclicMethod {
    /// Predecessor lists while they take at most half the machine's memory, sweeps above.
    #[default]
    Auto,
    /// Predecessor lists (`cyclic`): the fastest, some 24 bytes a position of the layer and 8
    /// more for each thread.
    Lists,
    /// Sweeps until nothing changes (`sweeps`): 3 bytes a position, 6 to 12 times the time.
    Sweeps,
}

impl CyclicMethod {
    /// The method for a layer of `positions`: `Auto` resolved against this machine's memory.
    fn for_layer(self, positions: u64) -> CyclicMethod {
        match self {
            CyclicMethod::Auto => match crate::memory::total_bytes() {
                Some(memory)
                    if positions.saturating_mul(cyclic::bytes_per_position(rayon::current_num_threads() as u64))
                        <= memory / 2 =>
                {
                    CyclicMethod::Lists
                }
                _ => CyclicMethod::Sweeps,
            },
            chosen => chosen,
        }
    }
}

impl std::str::FromStr for CyclicMethod {
    type Err = String;

    fn from_str(text: &str) -> Result<CyclicMethod, String> {
        match text {
            "auto" => Ok(CyclicMethod::Auto),
            "lists" => Ok(CyclicMethod::Lists),
            "sweeps" => Ok(CyclicMethod::Sweeps),
            _ => Err(format!("unknown method '{text}' (auto, lists or sweeps)")),
        }
    }
}

/// Hears about a build's progress; called from worker threads.
pub trait Progress: Sync {
    /// A layer is about to be computed.
    fn layer_started(&self, _seeds: usize, _positions: u64) {}
    /// More positions of the current layer are done.
    fn advanced(&self, _positions: u64) {}
    /// A layer was written, or found complete from an earlier build.
    fn layer_finished(&self, _report: &LayerReport) {}
    /// Whether to stop after the layer just finished (the layers written so far are kept).
    fn should_stop(&self) -> bool {
        false
    }
}

/// Builds without reporting anything.
pub struct Silent;

impl Progress for Silent {}

/// What happened to one layer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LayerReport {
    /// Seeds on the board.
    pub seeds: usize,
    /// Positions.
    pub positions: u64,
    /// File size in bytes.
    pub bytes: u64,
    /// Seconds spent computing and writing it (0 when reused).
    pub seconds: f64,
    /// Whether a complete file from an earlier build was reused.
    pub reused: bool,
}

/// Builds (or completes) the database for `rules` and `houses` under `root` and returns what
/// happened to each layer. Runs on the current rayon pool.
pub fn build(
    root: &Path,
    rules: &Rules,
    houses: usize,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Vec<LayerReport>, DbError> {
    if options.max_seeds > MAX_LAYER_SEEDS {
        return Err(DbError::TooManySeeds { max: MAX_LAYER_SEEDS });
    }
    let rules = rules.for_values();
    let dir = database_dir(root, &rules, houses);
    fs::create_dir_all(&dir).map_err(|source| DbError::Io { path: dir.clone(), source })?;
    let _lock = crate::lock::FileLock::acquire(dir.join("build.lock"))?;
    let fast = fast::applies(&rules) && !options.reference_moves;
    let positions = (0..=options.max_seeds).map(|seeds| Layer::new(&rules, houses, seeds).len()).sum();
    let layout = options.layout.for_positions(positions);
    let mut builder = Builder {
        rules,
        houses,
        fast,
        cyclic: options.cyclic,
        layers: Vec::new(),
        finished: Vec::new(),
        tables: Vec::new(),
        sowings: Vec::new(),
    };
    let mut reports = Vec::new();
    // A layer is written while the next one is computed, both on the pool (rayon::join), so the
    // cores never wait for compression and disk while there is a layer to compute; the last one
    // is compressed by all of them. Files appear in layer order.
    let mut writing: Option<PendingWrite> = None;
    for seeds in 0..=options.max_seeds {
        let path = layer_path(&dir, seeds);
        let clock = Instant::now();
        builder.tables.push(RowTable::new(houses, seeds));
        if fast {
            builder.sowings.push(MoverSowings::new(&builder.tables[seeds], houses));
        }
        builder.layers.push(Layer::new(&rules, houses, seeds));
        if path.exists() {
            finish_write(writing.take().map(PendingWrite::write), progress, &mut reports, options.max_seeds)?;
            builder.finished.push(Arc::new(builder.reuse(&path, seeds, layout)?));
            let positions = builder.layers[seeds].len();
            let report = LayerReport { seeds, positions, bytes: file_len(&path)?, seconds: 0.0, reused: true };
            record(report, progress, &mut reports, options.max_seeds)?;
            continue;
        }
        refuse_without_memory(seeds, builder.compute_bytes(seeds), crate::memory::available_bytes())?;
        progress.layer_started(seeds, builder.layers[seeds].len());
        let (values, written) =
            rayon::join(|| builder.compute(seeds, progress), || writing.take().map(PendingWrite::write));
        finish_write(written, progress, &mut reports, options.max_seeds)?;
        let values = values.map_err(|source| DbError::Io { path: path.clone(), source })?;
        let values = LayerValues::Bytes(values)
            .into_layout(layout, seeds, builder.rules.values_share_parity())
            .map_err(|err| super::pack_refused(&path, err))?;
        let values = Arc::new(values);
        let writer = LayerWriter { path, rules: builder.rules, houses, seeds, compress: options.compress };
        writing = Some(PendingWrite { writer, values: Arc::clone(&values), clock });
        builder.finished.push(values);
    }
    finish_write(writing.map(PendingWrite::write), progress, &mut reports, options.max_seeds)?;
    Ok(reports)
}

/// Refuses to begin layer `seeds`, which needs `needed` bytes while it is computed, when the
/// system says fewer are `available` (unknown: begun): an hour's work killed by the kernel for
/// want of memory is worse than a clear error now.
fn refuse_without_memory(seeds: usize, needed: u64, available: Option<u64>) -> Result<(), DbError> {
    match available {
        Some(available) if needed > available => Err(DbError::NoMemory { seeds, needed, available }),
        _ => Ok(()),
    }
}

/// A computed layer waiting to be written, and when its work began.
struct PendingWrite {
    writer: LayerWriter,
    values: Arc<LayerValues>,
    clock: Instant,
}

impl PendingWrite {
    /// Writes the file; the report counts the seconds since the layer's work began.
    fn write(self) -> Result<LayerReport, DbError> {
        let mut report = self.writer.write(&self.values)?;
        report.seconds = self.clock.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// Records the report of a layer file just written, if any.
fn finish_write(
    written: Option<Result<LayerReport, DbError>>,
    progress: &dyn Progress,
    reports: &mut Vec<LayerReport>,
    max_seeds: usize,
) -> Result<(), DbError> {
    match written {
        Some(report) => record(report?, progress, reports, max_seeds),
        None => Ok(()),
    }
}

/// Records a complete layer; an `Interrupted` error when the caller asks to stop before the last.
fn record(
    report: LayerReport,
    progress: &dyn Progress,
    reports: &mut Vec<LayerReport>,
    max_seeds: usize,
) -> Result<(), DbError> {
    progress.layer_finished(&report);
    let seeds = report.seeds;
    reports.push(report);
    if progress.should_stop() && seeds < max_seeds {
        return Err(DbError::Interrupted { last_complete: Some(seeds) });
    }
    Ok(())
}

/// Encodes and writes one layer file.
struct LayerWriter {
    path: std::path::PathBuf,
    rules: Rules,
    houses: usize,
    seeds: usize,
    compress: bool,
}

impl LayerWriter {
    fn write(self, values: &LayerValues) -> Result<LayerReport, DbError> {
        let payload = format::encode_layer(values, self.compress);
        let entries = values.len() as u64;
        let header = Header {
            houses: self.houses,
            seeds: self.seeds,
            entries,
            encoding: payload.encoding(),
            payload_len: payload.len(),
            payload_checksum: payload.checksum(),
            rules: self.rules.dimensions(),
        };
        format::write_layer(&self.path, &header, &payload)?;
        Ok(LayerReport {
            seeds: self.seeds,
            positions: entries,
            bytes: file_len(&self.path)?,
            seconds: 0.0,
            reused: false,
        })
    }
}

fn file_len(path: &Path) -> Result<u64, DbError> {
    fs::metadata(path).map(|m| m.len()).map_err(|source| DbError::Io { path: path.to_path_buf(), source })
}

struct Builder {
    rules: Rules,
    houses: usize,
    /// Whether moves go through the fast path.
    fast: bool,
    /// How layers under cycles are computed.
    cyclic: CyclicMethod,
    /// The index of each layer, by seeds.
    layers: Vec<Layer>,
    /// Values of the finished layers, by seeds, in index order (shared with the thread writing
    /// the latest one).
    finished: Vec<Arc<LayerValues>>,
    /// Rows of each seed count, by seeds.
    tables: Vec<RowTable>,
    /// With the fast path: the sowings of every row of each seed count, by seeds.
    sowings: Vec<MoverSowings>,
}

/// Positions per parallel work item: enough to amortise scheduling, small enough to balance.
const WORK_ITEM: usize = 1 << 13;

impl Builder {
    /// Loads a complete layer file from an earlier build, checking it fully.
    fn reuse(&self, path: &Path, seeds: usize, layout: Layout) -> Result<LayerValues, DbError> {
        let (header, file, start) = super::open_layer(path, &self.rules, self.houses, seeds)?;
        super::load_values(path, &header, &self.rules, layout, file, start)
    }

    /// Bytes that computing layer `seeds` takes beyond the finished layers: a byte a position,
    /// or under cycles what the layer's method takes.
    fn compute_bytes(&self, seeds: usize) -> u64 {
        let positions = self.layers[seeds].len();
        if !self.rules.has_cycles() {
            return positions;
        }
        let per_position = match self.cyclic.for_layer(positions) {
            CyclicMethod::Sweeps => sweeps::BYTES_PER_POSITION,
            _ => cyclic::bytes_per_position(rayon::current_num_threads() as u64),
        };
        positions.saturating_mul(per_position)
    }

    /// Computes every value of layer `seeds`, whose smaller layers are finished.
    fn compute(&self, seeds: usize, progress: &dyn Progress) -> std::io::Result<LayerBuffer> {
        if self.rules.has_cycles() {
            let (layers, finished) = (&self.layers, &self.finished);
            return match self.cyclic.for_layer(layers[seeds].len()) {
                CyclicMethod::Sweeps => sweeps::compute_layer(&self.rules, layers, finished, seeds, progress),
                _ => cyclic::compute_layer(&self.rules, layers, finished, seeds, progress),
            };
        }
        let layer = &self.layers[seeds];
        let mut buffer = LayerBuffer::zeroed(layer.len() as usize)?;
        let current = buffer.atomics();
        let max_potential = self.houses * seeds;
        for round in (0..=max_potential).rev() {
            let mut items = Vec::new();
            for a in layer.blocks() {
                let (movers, opponents) = (&self.tables[a], &self.tables[seeds - a]);
                for mover_potential in 0..=movers.max_potential().min(round) {
                    let mover_rows = movers.with_potential(mover_potential);
                    let opponent_rows = opponents.with_potential(round - mover_potential);
                    if mover_rows.is_empty() || opponent_rows.is_empty() {
                        continue;
                    }
                    let per_item = (WORK_ITEM / mover_rows.len()).max(1);
                    let place = movers.potential_start(mover_potential);
                    items.extend(opponent_rows.chunks(per_item).map(|chunk| (a, (place, mover_rows), chunk)));
                }
            }
            items.into_par_iter().for_each(|(a, (place, mover_rows), opponent_rows)| {
                let mut reads = [ChildRead::finished(0); BATCH * MAX_HOUSES];
                for &opponent in opponent_rows {
                    let opponent =
                        (opponent, OpponentRow::new(self.tables[seeds - a].padded_row(opponent), self.houses));
                    for (i, batch) in mover_rows.chunks(BATCH).enumerate() {
                        let movers = (place + i * BATCH, batch);
                        self.compute_batch(seeds, current, a, movers, &opponent, &mut reads);
                    }
                }
                progress.advanced((mover_rows.len() * opponent_rows.len()) as u64);
            });
        }
        Ok(buffer)
    }

    /// Values the positions of one block with mover rows `movers` (ranks, the first at that place
    /// of [`RowTable::by_potential`](crate::index::RowTable::by_potential)) against one opponent
    /// row (its rank and its sown variants). Two phases: first every child's index is computed and
    /// its value prefetched, then the values are read. The reads of a batch then overlap in memory
    /// instead of waiting one by one. `reads` is scratch space, reused across batches.
    #[inline]
    fn compute_batch(
        &self,
        seeds: usize,
        current: &[AtomicU8],
        a: usize,
        (place, movers): (usize, &[u32]),
        (opponent, opponent_row): &(u32, OpponentRow),
        reads: &mut [ChildRead; BATCH * MAX_HOUSES],
    ) {
        let layer = &self.layers[seeds];
        let mover_table = &self.tables[a];
        let mut ends = [0usize; BATCH];
        let mut own_indexes = [0usize; BATCH];
        let mut count = 0;
        for (k, &mover) in movers.iter().enumerate() {
            own_indexes[k] = layer.index_in_block(a, u64::from(mover), u64::from(*opponent)) as usize;
            prefetch(current.as_ptr().wrapping_add(own_indexes[k]).cast());
            let mover_row = mover_table.padded_row(mover);
            let sowings = self.fast.then(|| self.sowings[a].at(place + k));
            for house in (0..self.houses).filter(|&house| mover_row[house] != 0) {
                let read = sowings
                    .and_then(|sowings| {
                        fast::child_read(&self.rules, &self.layers, seeds, &sowings[house], opponent_row)
                    })
                    .unwrap_or_else(|| {
                        let position = Position::from_padded_rows(self.houses, mover_row, opponent_row.row());
                        self.generic_read(&position, house)
                    });
                if read.seeds == seeds {
                    prefetch(current.as_ptr().wrapping_add(read.index).cast());
                } else if read.seeds != ChildRead::NONE {
                    prefetch(self.finished[read.seeds].address(read.index));
                }
                reads[count] = read;
                count += 1;
            }
            ends[k] = count;
        }
        let mut start = 0;
        for k in 0..movers.len() {
            let best = reads[start..ends[k]]
                .iter()
                .map(|read| match read.seeds {
                    ChildRead::NONE => read.constant,
                    child if child == seeds => read.value(i32::from(current[read.index].load(Ordering::Relaxed) as i8)),
                    child => read.value(self.finished[child].get(read.index)),
                })
                .max()
                .expect("a position that is not over has a move");
            start = ends[k];
            current[own_indexes[k]].store(best as i8 as u8, Ordering::Relaxed);
        }
    }

    /// The read a move needs, from the plain move generator.
    fn generic_read(&self, position: &Position, house: usize) -> ChildRead {
        let effect = MoveEffect::of(&self.rules, position, house);
        if effect.over {
            return ChildRead::finished(effect.value(0));
        }
        let child = &effect.child;
        let seeds = child.seeds_on_board() as usize;
        let index = self.layers[seeds].index(child.mover_houses(), child.opponent_houses()) as usize;
        // value(v) is gain + v after an extra turn, -(gain + v) otherwise.
        let sign = if effect.extra_turn { 1 } else { -1 };
        ChildRead { constant: sign * effect.gain, sign, seeds, index }
    }
}

/// Positions valued together, so that their children's reads overlap.
const BATCH: usize = 16;

/// What phase two needs of a move: its value is `constant + sign * (child's board value)`, the
/// child's value being at `index` of layer `seeds`; or just `constant` when the game is over.
#[derive(Clone, Copy)]
pub(super) struct ChildRead {
    pub(super) constant: i32,
    pub(super) sign: i32,
    pub(super) seeds: usize,
    pub(super) index: usize,
}

impl ChildRead {
    /// `seeds` of a move that ended the game: nothing to read.
    pub(super) const NONE: usize = usize::MAX;

    /// A move that ended the game with this value.
    pub(super) const fn finished(value: i32) -> ChildRead {
        ChildRead { constant: value, sign: 0, seeds: ChildRead::NONE, index: 0 }
    }

    /// The move's value given the child's board value.
    #[inline]
    fn value(&self, child: i32) -> i32 {
        self.constant + self.sign * child
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layer_is_not_begun_without_the_memory_it_needs() {
        // Layer 33 of 6 houses as bytes: C(44, 11) positions, less the 2 C(38, 5) with a side's
        // houses empty.
        let needed = Layer::new(&Rules::STANDARD, 6, 33).len();
        assert_eq!(needed, 7_669_339_132 - 2 * 501_942);
        assert!(refuse_without_memory(33, needed, Some(8_000_000_000)).is_ok());
        assert!(refuse_without_memory(33, needed, None).is_ok(), "unknown memory: begun");
        let refused = refuse_without_memory(33, needed, Some(5_200_000_000)).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "layer 33 needs about 7.7 GB of memory while it is computed, and 5.2 GB are available; layers up \
             to 32 are complete: free memory or build fewer seeds"
        );
    }
}
