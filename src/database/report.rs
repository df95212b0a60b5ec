//! What the database commands report, as types with a JSON form (serde) and a text form: a
//! build, a database described, a database verified, random probes timed. The binary picks one.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::builder::LayerReport;
use super::verify::{Mismatch, Verification};
use super::{Database, DbError, LayerInfo, Layout};
use crate::board::{MAX_HOUSES, Position, mix64};
use crate::rules::Rules;

/// Bits a position of `bytes` over `positions` (0 for none).
pub fn bits(bytes: u64, positions: u64) -> f64 {
    if positions == 0 { 0.0 } else { 8.0 * bytes as f64 / positions as f64 }
}

/// [`bits`] as text: `4.31 bits/position`, or `empty`.
pub fn bits_per_position(bytes: u64, positions: u64) -> String {
    if positions == 0 { "empty".to_string() } else { format!("{:.2} bits/position", bits(bytes, positions)) }
}

/// A build: what `kalah build` did to each layer.
#[derive(Clone, Debug, Serialize)]
pub struct Built {
    /// The database's directory.
    pub dir: PathBuf,
    /// Its rules (those that decide values).
    pub rules: String,
    /// Houses a side.
    pub houses: usize,
    /// The most seeds of its layers.
    pub max_seeds: usize,
    /// Positions in all.
    pub positions: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// Seconds it took.
    pub seconds: f64,
    /// Threads it ran on.
    pub threads: usize,
    /// Each layer.
    pub layers: Vec<LayerReport>,
}

impl Built {
    /// The build of `layers` (0 to `max_seeds` seeds) into `dir` under `rules`, `houses` a side.
    pub fn new(
        dir: PathBuf,
        (rules, houses, max_seeds): (&Rules, usize, usize),
        layers: Vec<LayerReport>,
        seconds: f64,
        threads: usize,
    ) -> Built {
        Built {
            dir,
            rules: rules.for_values().to_string(),
            houses,
            max_seeds,
            positions: layers.iter().map(|r| r.positions).sum(),
            bytes: layers.iter().map(|r| r.bytes).sum(),
            seconds,
            threads,
            layers,
        }
    }

    /// One line: the layers, how many reused, the positions, the bytes and the time.
    pub fn text(&self) -> String {
        format!(
            "{}: layers 0..{} ({} reused), {} positions, {} bytes ({}), {:.1} s on {} threads\n",
            self.dir.display(),
            self.max_seeds,
            self.layers.iter().filter(|r| r.reused).count(),
            self.positions,
            self.bytes,
            bits_per_position(self.bytes, self.positions),
            self.seconds,
            self.threads,
        )
    }
}

/// A database as `kalah info` describes it.
#[derive(Clone, Debug, Serialize)]
pub struct Described {
    /// Its directory.
    pub dir: PathBuf,
    /// Its rules (those that decide values).
    pub rules: String,
    /// The same, dimension by dimension.
    pub rule_dimensions: Rules,
    /// Houses a side.
    pub houses: usize,
    /// The most seeds of its layers.
    pub max_seeds: usize,
    /// Positions in all.
    pub positions: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// Bits a position on disk.
    pub bits_per_position: f64,
    /// How layers are held once read.
    pub layout: Layout,
    /// Bytes in memory once every layer is read (`None` unless asked).
    pub memory_bytes: Option<u64>,
    /// Bits a position in memory.
    pub memory_bits_per_position: Option<f64>,
    /// Each layer.
    pub layers: Vec<LayerInfo>,
}

impl Described {
    /// `db` described; with `memory`, every layer is read (checksums checked) to say what it
    /// takes in memory.
    pub fn of(db: &Database, memory: bool) -> Result<Described, DbError> {
        if memory {
            db.verify_checksums()?;
        }
        let layers = db.layer_info();
        let positions: u64 = layers.iter().map(|l| l.entries).sum();
        let bytes: u64 = layers.iter().map(|l| l.bytes).sum();
        let memory = memory.then(|| db.memory_bytes());
        Ok(Described {
            dir: db.dir().to_path_buf(),
            rules: db.rules().to_string(),
            rule_dimensions: *db.rules(),
            houses: db.houses(),
            max_seeds: db.max_seeds(),
            positions,
            bytes,
            bits_per_position: bits(bytes, positions),
            layout: db.layout(),
            memory_bytes: memory,
            memory_bits_per_position: memory.map(|memory| bits(memory, positions)),
            layers,
        })
    }

    /// The database and a table of its layers.
    pub fn text(&self) -> String {
        let (positions, bytes) = (self.positions, self.bytes);
        let mut text =
            format!("{}\n  rules {} ({})\n", self.dir.display(), self.rules, self.rule_dimensions.dimensions());
        text += &format!(
            "  {} houses, layers 0..{}, {positions} positions, on disk {bytes} bytes, {}\n",
            self.houses,
            self.max_seeds,
            bits_per_position(bytes, positions)
        );
        text += &match self.memory_bytes {
            Some(memory) => {
                format!("  in memory ({}): {memory} bytes, {}\n", self.layout, bits_per_position(memory, positions))
            }
            None => "  in memory: --memory reads every layer and says\n".to_string(),
        };
        text += &format!("  {:>5} {:>12} {:>12} {:>9}  {:<8}", "seeds", "positions", "bytes", "bits/pos", "encoding");
        text += &match self.memory_bytes {
            Some(_) => format!(" {:>12} {:>9} {:>10}\n", "in memory", "bits/pos", "escapes"),
            None => "\n".into(),
        };
        for layer in &self.layers {
            text += &format!(
                "  {:>5} {:>12} {:>12} {:>9.2}  {:<8}",
                layer.seeds,
                layer.entries,
                layer.bytes,
                bits(layer.bytes, layer.entries),
                layer.encoding
            );
            text += &match layer.memory_bytes {
                Some(memory) => format!(
                    " {memory:>12} {:>9.2} {:>10}\n",
                    bits(memory, layer.entries),
                    layer.escapes.map_or("-".to_string(), |e| e.to_string())
                ),
                None => "\n".into(),
            };
        }
        text
    }
}

/// A database checked by `kalah verify`: its checksums, and positions recomputed from their
/// successors.
#[derive(Clone, Debug, Serialize)]
pub struct Verified {
    /// Its directory.
    pub dir: PathBuf,
    /// The checksums: `ok` (a verification stops at the first that fails).
    pub checksums: &'static str,
    /// Positions recomputed.
    pub sampled: u64,
    /// How many disagree with the stored value.
    pub mismatches: u64,
    /// The first of those, for the text.
    #[serde(skip)]
    pub listed: Vec<Mismatch>,
    /// Every position was recomputed, not a sample.
    #[serde(skip)]
    pub full: bool,
}

impl Verified {
    /// What `verification` of `db` found; `full` when it recomputed every position.
    pub fn new(db: &Database, verification: Verification, full: bool) -> Verified {
        let Verification { sampled, mismatch_count, mismatches } = verification;
        Verified {
            dir: db.dir().to_path_buf(),
            checksums: "ok",
            sampled,
            mismatches: mismatch_count,
            listed: mismatches,
            full,
        }
    }

    /// One line, then the mismatches found.
    pub fn text(&self) -> String {
        let what = if self.full { "every position" } else { "sampled" };
        let mut text = format!(
            "{}: checksums ok, {} positions ({what}) recomputed from their successors, {} mismatches\n",
            self.dir.display(),
            self.sampled,
            self.mismatches,
        );
        for Mismatch { position, stored, recomputed } in &self.listed {
            text += &format!("  {position}: stored {stored}, recomputed {recomputed}\n");
        }
        if self.mismatches > self.listed.len() as u64 {
            text += &format!("  ... and {} more\n", self.mismatches - self.listed.len() as u64);
        }
        text
    }
}

/// Why random probes could not be timed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeBenchError {
    /// A layer could not be read.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The batched probes gave other values than single ones.
    #[error("batched probes disagree with single probes")]
    Disagree,
}

/// Random probes timed (`kalah probe-bench`): one at a time and in batches.
#[derive(Clone, Debug, Serialize)]
pub struct ProbesTimed {
    /// The database's directory.
    pub dir: PathBuf,
    /// Probes made each way.
    pub probes: f64,
    /// Threads they ran on.
    pub threads: usize,
    /// The sum of the values probed (both ways agree on it).
    pub checksum: i64,
    /// Probes a second, one at a time.
    pub probes_per_second: f64,
    /// Probes a second, in batches.
    pub batched_probes_per_second: f64,
}

impl ProbesTimed {
    /// Times `rounds` rounds of probing `draws` positions of `db` drawn uniformly from the whole
    /// database (a fixed sequence), on the current rayon pool: every layer is read first, and
    /// only the probes are timed. An error if a layer cannot be read, or if batched probes
    /// disagree with single ones.
    pub fn measure(db: &Database, draws: u64, rounds: u64) -> Result<ProbesTimed, ProbeBenchError> {
        db.verify_checksums()?;
        let layers: Vec<_> = (0..=db.max_seeds()).map(|s| db.layer(s).expect("every layer is read")).collect();
        let total: u64 = layers.iter().map(|l| l.len()).sum();
        let m = db.houses();
        let positions: Vec<Position> = (0..draws)
            .into_par_iter()
            .map(|k| {
                // splitmix64 of the draw number: a fixed, well-spread sequence.
                let mut index = mix64(k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) % total;
                let layer = layers
                    .iter()
                    .find(|l| {
                        index < l.len() || {
                            index -= l.len();
                            false
                        }
                    })
                    .expect("an index in range");
                let (mut mover, mut opponent) = ([0u8; MAX_HOUSES], [0u8; MAX_HOUSES]);
                layer.rows(index, &mut mover[..m], &mut opponent[..m]);
                Position::from_rows(&mover[..m], &opponent[..m])
            })
            .collect();
        let probes = (draws * rounds) as f64;
        let time = |probe: &(dyn Fn(&[Position]) -> i64 + Sync)| {
            let clock = Instant::now();
            let checksum: i64 = (0..rounds).map(|_| positions.par_chunks(4096).map(probe).sum::<i64>()).sum();
            (probes / clock.elapsed().as_secs_f64(), checksum)
        };
        let (single, checksum) = time(&|chunk| chunk.iter().map(|p| i64::from(db.board_value(p).unwrap_or(0))).sum());
        let (batched, batched_checksum) = time(&|chunk| {
            let mut out = vec![0; chunk.len()];
            db.board_values(chunk, &mut out).map_or(0, |()| out.iter().map(|&v| i64::from(v)).sum())
        });
        if checksum != batched_checksum {
            return Err(ProbeBenchError::Disagree);
        }
        Ok(ProbesTimed {
            dir: db.dir().to_path_buf(),
            probes,
            threads: rayon::current_num_threads(),
            checksum,
            probes_per_second: single,
            batched_probes_per_second: batched,
        })
    }

    /// One line: probes a second both ways.
    pub fn text(&self) -> String {
        format!(
            "{}: {} random probes on {} threads: {:.1} M probes/s one at a time, {:.1} M probes/s in batches of 16 (checksum {})\n",
            self.dir.display(),
            self.probes,
            self.threads,
            self.probes_per_second / 1e6,
            self.batched_probes_per_second / 1e6,
            self.checksum,
        )
    }
}
