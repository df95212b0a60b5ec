//! The database commands: `build`, `info`, `verify` and `probe-bench`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressState, ProgressStyle};
use kalah::database::builder::{self, BuildOptions, CyclicMethod, LayerReport, Progress};
use kalah::database::report::{Built, Described, ProbesTimed, Verified, bits_per_position};
use kalah::database::verify;
use kalah::database::{Database, DbError, database_dir};
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
    let dir = database_dir(&args.db.db, &rules, args.houses);
    let sizes = (&rules, args.houses, args.max_seeds);
    let built = Built::new(dir, sizes, reports, clock.elapsed().as_secs_f64(), pool.current_num_threads());
    Ok(if args.json { json_line(&built)? } else { built.text() })
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
    let described =
        databases(&args.selection)?.iter().map(|db| Described::of(db, args.memory)).collect::<Result<Vec<_>, _>>()?;
    if args.json {
        return json_line(&Databases { databases: described });
    }
    Ok(described.iter().map(Described::text).collect())
}

pub fn verify(args: &VerifyArgs) -> anyhow::Result<String> {
    let pool = thread_pool(args.threads)?;
    let databases = databases(&args.selection)?;
    let mut results = Vec::new();
    let samples = if args.full { u64::MAX } else { args.samples };
    for db in &databases {
        let bar = ProgressBar::new(verify::positions_to_verify(db, samples)).with_style(
            ProgressStyle::with_template("{spinner} recomputing {pos}/{len} positions [{elapsed_precise}] ETA {eta}")
                .expect("a valid progress template"),
        );
        let found = pool.install(|| verify::verify(db, samples, &|n| bar.inc(n)));
        bar.finish_and_clear();
        results.push(Verified::new(db, found?, args.full));
    }
    let text: String = results.iter().map(Verified::text).collect();
    let failures: u64 = results.iter().map(|r| r.mismatches).sum();
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
    let pool = thread_pool(args.threads)?;
    let db = Database::open(&args.db.db, &args.rules.resolve(), args.houses)?.with_layout(args.db.db_layout);
    let timed = pool.install(|| ProbesTimed::measure(&db, args.positions, args.rounds))?;
    Ok(if args.json { json_line(&timed)? } else { timed.text() })
}

/// `kalah info --json` and `kalah verify --json`: one entry a database.
#[derive(Serialize)]
struct Databases<T> {
    databases: Vec<T>,
}
