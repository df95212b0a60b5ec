//! The database commands: `build`, `info`, `verify` and `probe-bench`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressState, ProgressStyle};
use kalah::Position;
use kalah::database::builder::{self, BuildOptions, CyclicMethod, LayerReport, Progress};
use kalah::database::verify::{self, Mismatch, Verification};
use kalah::database::{Database, DbError, LayerInfo, Layout, database_dir};
use kalah::rules::Rules;
use serde::Serialize;

use crate::args::{DbArgs, RulesArgs, input_error};
use crate::limits;
use crate::output::json_line;

#[derive(Args)]
pub struct BuildArgs {
    /// Houses per side.
    #[arg(long, value_name = "M")]
    houses: usize,
    /// Build every layer up to this many seeds on the board (at most 100).
    #[arg(long, value_name = "S", value_parser = |t: &str| limits::count(t, 0, kalah::index::MAX_LAYER_SEEDS as u64, "seeds").map(|n| n as usize))]
    max_seeds: usize,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    db: DbArgs,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = limits::threads)]
    threads: Option<usize>,
    /// Store layers uncompressed, to be probed straight from the memory map.
    #[arg(long)]
    raw: bool,
    /// Under clockwise sowing (positions repeat), how a layer is computed: lists (fastest, about
    /// 24 bytes a position of the layer and 8 a thread), sweeps (3 bytes, 6 to 12 times the time)
    /// or auto (lists while they take at most half the memory)
    #[arg(long, value_name = "METHOD", default_value = "auto")]
    cyclic: CyclicMethod,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    json: bool,
}

/// Which databases a command looks at.
#[derive(Args)]
pub struct Selection {
    #[command(flatten)]
    db: DbArgs,
    /// Only the database for these rules and this many houses (default: every database found).
    #[arg(long, value_name = "M")]
    houses: Option<usize>,
    #[command(flatten)]
    rules: RulesArgs,
}

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    selection: Selection,
    /// Also read every layer (checksums checked) in --db-layout and report the memory it takes.
    #[arg(long)]
    memory: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    selection: Selection,
    /// Positions per layer recomputed from the layers below.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    samples: u64,
    /// Recompute every position (a progress bar shows how far it is).
    #[arg(long, conflicts_with = "samples")]
    full: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = limits::threads)]
    threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct ProbeBenchArgs {
    /// Houses per side of the database to probe.
    #[arg(long, value_name = "M", default_value_t = 6)]
    houses: usize,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    db: DbArgs,
    /// Random positions to draw; each is probed once per round (at most 100 million).
    #[arg(long, value_name = "N", default_value_t = 4_000_000, value_parser = |t: &str| limits::count(t, 1, 100_000_000, "positions"))]
    positions: u64,
    /// Rounds over the positions (at most 1000).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = |t: &str| limits::count(t, 1, 1000, "rounds"))]
    rounds: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = limits::threads)]
    threads: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    Ok(rayon::ThreadPoolBuilder::new().num_threads(threads.unwrap_or(0)).build()?)
}

/// One indicatif bar per layer on stderr: positions per second and time left. A layer's file is
/// written while the next layer is computed, so two bars can be live at once.
#[derive(Default)]
pub struct Bars {
    multi: MultiProgress,
    by_layer: Mutex<HashMap<usize, ProgressBar>>,
    computing: Mutex<Option<ProgressBar>>,
}

impl Progress for Bars {
    fn layer_started(&self, seeds: usize, positions: u64) {
        let bar = self.multi.add(ProgressBar::new(positions)).with_style(
            ProgressStyle::with_template("layer {prefix:>2} [{bar:30}] {human_pos}/{human_len} {rate} ETA {eta} {msg}")
                .expect("a valid progress template")
                .with_key("rate", |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:.1} M positions/s", state.per_sec() / 1e6);
                })
                .progress_chars("=> "),
        );
        bar.set_prefix(seeds.to_string());
        self.by_layer.lock().expect("progress lock").insert(seeds, bar.clone());
        if let Some(previous) = self.computing.lock().expect("progress lock").replace(bar) {
            previous.set_message("writing");
        }
    }

    fn advanced(&self, positions: u64) {
        if let Some(bar) = self.computing.lock().expect("progress lock").as_ref() {
            bar.inc(positions);
        }
    }

    fn layer_finished(&self, report: &LayerReport) {
        if let Some(bar) = self.by_layer.lock().expect("progress lock").remove(&report.seeds) {
            bar.finish_with_message(format!(
                "{:.1} s, {}",
                report.seconds,
                bits_per_position(report.bytes, report.positions)
            ));
        }
    }
}

fn bits_per_position(bytes: u64, positions: u64) -> String {
    if positions == 0 { "empty".to_string() } else { format!("{:.2} bits/position", bits(bytes, positions)) }
}

/// Bits a position of `bytes` over `positions` (0 for none).
fn bits(bytes: u64, positions: u64) -> f64 {
    if positions == 0 { 0.0 } else { 8.0 * bytes as f64 / positions as f64 }
}

pub fn build(args: &BuildArgs) -> anyhow::Result<String> {
    let rules = args.rules.resolve();
    if !(1..=kalah::board::MAX_HOUSES).contains(&args.houses) {
        return Err(input_error(format!(
            "--houses {} is not supported (1 to {})",
            args.houses,
            kalah::board::MAX_HOUSES
        )));
    }
    let pool = thread_pool(args.threads)?;
    let options = BuildOptions {
        max_seeds: args.max_seeds,
        compress: !args.raw,
        reference_moves: false,
        layout: args.db.db_layout,
        cyclic: args.cyclic,
    };
    let clock = Instant::now();
    let bars = Bars::default();
    let reports = pool.install(|| builder::build(&args.db.db, &rules, args.houses, &options, &bars))?;
    let seconds = clock.elapsed().as_secs_f64();
    let dir = database_dir(&args.db.db, &rules, args.houses);
    let positions: u64 = reports.iter().map(|r| r.positions).sum();
    let bytes: u64 = reports.iter().map(|r| r.bytes).sum();
    let reused = reports.iter().filter(|r| r.reused).count();
    if args.json {
        let built = Built {
            dir: &dir,
            rules: rules.for_values().to_string(),
            houses: args.houses,
            max_seeds: args.max_seeds,
            positions,
            bytes,
            seconds,
            threads: pool.current_num_threads(),
            layers: &reports,
        };
        return json_line(&built);
    }
    Ok(format!(
        "{}: layers 0..{} ({} reused), {positions} positions, {bytes} bytes ({}), {seconds:.1} s on {} threads\n",
        dir.display(),
        args.max_seeds,
        reused,
        bits_per_position(bytes, positions),
        pool.current_num_threads(),
    ))
}

/// The databases a command works on: one when --houses is given, else every one under the root.
fn databases(selection: &Selection) -> anyhow::Result<Vec<Database>> {
    let (root, layout) = (&selection.db.db, selection.db.db_layout);
    match selection.houses {
        Some(houses) => Ok(vec![Database::open(root, &selection.rules.resolve(), houses)?.with_layout(layout)]),
        None => {
            let dirs = Database::list(root)?;
            if dirs.is_empty() {
                return Err(DbError::NoDatabase { dir: root.to_path_buf() }.into());
            }
            dirs.iter().map(|dir| Ok(Database::open_dir(dir)?.with_layout(layout))).collect()
        }
    }
}

pub fn info(args: &InfoArgs) -> anyhow::Result<String> {
    let databases = databases(&args.selection)?;
    let mut text = String::new();
    let mut json_dbs = Vec::new();
    for db in &databases {
        if args.memory {
            db.verify_checksums()?;
        }
        let layers = db.layer_info();
        let positions: u64 = layers.iter().map(|l| l.entries).sum();
        let bytes: u64 = layers.iter().map(|l| l.bytes).sum();
        let memory = args.memory.then(|| db.memory_bytes());
        json_dbs.push(Described {
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
            layers: layers.clone(),
        });
        text += &format!("{}\n  rules {} ({})\n", db.dir().display(), db.rules(), db.rules().dimensions());
        text += &format!(
            "  {} houses, layers 0..{}, {positions} positions, on disk {bytes} bytes, {}\n",
            db.houses(),
            db.max_seeds(),
            bits_per_position(bytes, positions)
        );
        match memory {
            Some(memory) => {
                text += &format!(
                    "  in memory ({}): {memory} bytes, {}\n",
                    db.layout(),
                    bits_per_position(memory, positions)
                )
            }
            None => text += "  in memory: --memory reads every layer and says\n",
        }
        text += &format!("  {:>5} {:>12} {:>12} {:>9}  {:<8}", "seeds", "positions", "bytes", "bits/pos", "encoding");
        text += &if args.memory {
            format!(" {:>12} {:>9} {:>10}\n", "in memory", "bits/pos", "escapes")
        } else {
            "\n".into()
        };
        for layer in &layers {
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
    }
    if args.json {
        return json_line(&Databases { databases: json_dbs });
    }
    Ok(text)
}

pub fn verify(args: &VerifyArgs) -> anyhow::Result<String> {
    let pool = thread_pool(args.threads)?;
    let databases = databases(&args.selection)?;
    let mut text = String::new();
    let mut results = Vec::new();
    let mut failures = 0;
    let samples = if args.full { u64::MAX } else { args.samples };
    for db in &databases {
        let bar = ProgressBar::new(verify::positions_to_verify(db, samples)).with_style(
            ProgressStyle::with_template("{spinner} recomputing {pos}/{len} positions [{elapsed_precise}] ETA {eta}")
                .expect("a valid progress template"),
        );
        let found = pool.install(|| verify::verify(db, samples, &|n| bar.inc(n)));
        bar.finish_and_clear();
        let Verification { sampled: checked, mismatch_count, mismatches } = found?;
        failures += mismatch_count;
        let what = if args.full { "every position" } else { "sampled" };
        text += &format!(
            "{}: checksums ok, {checked} positions ({what}) recomputed from their successors, {mismatch_count} mismatches\n",
            db.dir().display(),
        );
        for Mismatch { position, stored, recomputed } in &mismatches {
            text += &format!("  {position}: stored {stored}, recomputed {recomputed}\n");
        }
        if mismatch_count > mismatches.len() as u64 {
            text += &format!("  ... and {} more\n", mismatch_count - mismatches.len() as u64);
        }
        results.push(Verified {
            dir: db.dir().to_path_buf(),
            checksums: "ok",
            sampled: checked,
            mismatches: mismatch_count,
        });
    }
    if failures > 0 {
        anyhow::bail!("{text}verification failed: {failures} mismatching positions");
    }
    if args.json {
        return json_line(&Databases { databases: results });
    }
    Ok(text)
}

/// Random probes per second: every layer is loaded first, then uniformly drawn positions of the
/// whole database (a fixed sequence) are probed in parallel; only the probes are timed.
pub fn probe_bench(args: &ProbeBenchArgs) -> anyhow::Result<String> {
    use rayon::prelude::*;
    let pool = thread_pool(args.threads)?;
    let db = Database::open(&args.db.db, &args.rules.resolve(), args.houses)?.with_layout(args.db.db_layout);
    db.verify_checksums()?;
    let layers: Vec<_> = (0..=db.max_seeds()).map(|s| db.layer(s).expect("a layer")).collect();
    let total: u64 = layers.iter().map(|l| l.len()).sum();
    let m = db.houses();
    let positions: Vec<Position> = (0..args.positions)
        .into_par_iter()
        .map(|k| {
            // splitmix64 of the draw number: a fixed, well-spread sequence.
            let mut index = kalah::board::mix64(k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15)) % total;
            let layer = layers
                .iter()
                .find(|l| {
                    index < l.len() || {
                        index -= l.len();
                        false
                    }
                })
                .expect("an index in range");
            let (mut mover, mut opponent) = ([0u8; kalah::board::MAX_HOUSES], [0u8; kalah::board::MAX_HOUSES]);
            layer.rows(index, &mut mover[..m], &mut opponent[..m]);
            Position::from_rows(&mover[..m], &opponent[..m])
        })
        .collect();
    let probes = (args.positions * args.rounds) as f64;
    let time = |probe: &(dyn Fn(&[Position]) -> i64 + Sync)| {
        let clock = Instant::now();
        let checksum: i64 =
            pool.install(|| (0..args.rounds).map(|_| positions.par_chunks(4096).map(probe).sum::<i64>()).sum());
        (probes / clock.elapsed().as_secs_f64(), checksum)
    };
    let (single, checksum) = time(&|chunk| chunk.iter().map(|p| i64::from(db.board_value(p).unwrap_or(0))).sum());
    let (batched, batched_checksum) = time(&|chunk| {
        let mut out = vec![0; chunk.len()];
        db.board_values(chunk, &mut out).map_or(0, |()| out.iter().map(|&v| i64::from(v)).sum())
    });
    anyhow::ensure!(checksum == batched_checksum, "batched probes disagree with single probes");
    if args.json {
        let measured = ProbesTimed {
            dir: db.dir(),
            probes,
            threads: pool.current_num_threads(),
            checksum,
            probes_per_second: single,
            batched_probes_per_second: batched,
        };
        return json_line(&measured);
    }
    Ok(format!(
        "{}: {probes} random probes on {} threads: {:.1} M probes/s one at a time, {:.1} M probes/s in batches of 16 (checksum {checksum})\n",
        db.dir().display(),
        pool.current_num_threads(),
        single / 1e6,
        batched / 1e6,
    ))
}

/// `kalah build --json`.
#[derive(Serialize)]
struct Built<'a> {
    dir: &'a Path,
    rules: String,
    houses: usize,
    max_seeds: usize,
    positions: u64,
    bytes: u64,
    seconds: f64,
    threads: usize,
    layers: &'a [LayerReport],
}

/// `kalah info --json` and `kalah verify --json`: one entry a database.
#[derive(Serialize)]
struct Databases<T> {
    databases: Vec<T>,
}

/// A database described by `kalah info`.
#[derive(Serialize)]
struct Described {
    dir: PathBuf,
    rules: String,
    rule_dimensions: Rules,
    houses: usize,
    max_seeds: usize,
    positions: u64,
    bytes: u64,
    bits_per_position: f64,
    layout: Layout,
    memory_bytes: Option<u64>,
    memory_bits_per_position: Option<f64>,
    layers: Vec<LayerInfo>,
}

/// A database checked by `kalah verify`.
#[derive(Serialize)]
struct Verified {
    dir: PathBuf,
    checksums: &'static str,
    sampled: u64,
    mismatches: u64,
}

/// `kalah probe-bench --json`.
#[derive(Serialize)]
struct ProbesTimed<'a> {
    dir: &'a Path,
    probes: f64,
    threads: usize,
    checksum: i64,
    probes_per_second: f64,
    batched_probes_per_second: f64,
}
