//! The search commands: `solve` (a start or position with every opening), `query` (a position and
//! its moves), `table` (the grid of start values against the published ones) and `bench`; and the
//! progress shown while the engine (`kalah::engine`) opens, reads or builds a search's database.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::ProgressDrawTarget;
use indicatif::{ProgressBar, ProgressStyle};
use kalah::Position;
use kalah::answer::OpeningsTable;
use kalah::answer::{self, Answer, Source};
use kalah::database::builder::{LayerReport, Progress};
use kalah::database::{Database, DbError};
use kalah::engine::bench::{self, BENCH_STARTS, Benched};
use kalah::engine::{self, Load, Preparation, Prepared, ProvenIndex, StartWork};
use kalah::jobs::RunProgress;
use kalah::jobs::grid::{self, Grid};
use kalah::rules::Rules;
use serde::Serialize;

use crate::args::{DbArgs, RulesArgs, SearchArgs, input_error, parse_start};
use crate::database::Bars;
use crate::limits;
use crate::output::{describe_start, json_line, tell, write_stdout};

#[derive(Args)]
pub struct SolveArgs {
    /// The start: MxN (e.g. 6x4), or a position.
    start: String,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// List every opening even when there are many (text output summarises more than 20).
    #[arg(long)]
    all: bool,
    /// Only the value and a perfect line: every opening's exact value, most of a solve's work, is
    /// left out (not with the pie rule, whose value needs every opening).
    #[arg(long, conflicts_with = "all")]
    no_openings: bool,
}

/// The searches from `position` under `rules` as `args` ask ([`engine::Setup::prepare`]), with
/// progress on stderr while the default database is built or a database is read; the time limit
/// counts from now.
pub fn prepare(args: &SearchArgs, rules: &Rules, position: &Position, when: Load) -> anyhow::Result<Prepared> {
    let deadline = args.time_limit.map(|limit| Instant::now() + limit);
    Ok(args.setup().prepare(rules, position, when, deadline, &Shown::default())?)
}

/// Progress bars while a database is built, a spinner while one is read; for a run, a bar over
/// its tasks (or cells), hidden while a database is built or read (whose own progress shows then).
pub struct Shown {
    bars: Bars,
    spinner: std::sync::Mutex<Option<ProgressBar>>,
    /// The run's bar over its tasks (hidden when there is no run).
    pub tasks: ProgressBar,
}

impl Default for Shown {
    fn default() -> Shown {
        Shown { bars: Bars::default(), spinner: std::sync::Mutex::new(None), tasks: ProgressBar::hidden() }
    }
}

impl Shown {
    /// Progress with a bar counting `what` (tasks, cells).
    pub fn counting(what: &str) -> Shown {
        let template = format!("{{spinner}} {what} {{pos}}/{{len}} [{{elapsed_precise}}] ETA {{eta}} {{msg}}");
        let tasks =
            ProgressBar::new(0).with_style(ProgressStyle::with_template(&template).expect("a valid progress template"));
        tasks.enable_steady_tick(Duration::from_millis(200));
        Shown { tasks, ..Shown::default() }
    }
}

impl Progress for Shown {
    fn layer_started(&self, seeds: usize, positions: u64) {
        self.bars.layer_started(seeds, positions);
    }

    fn advanced(&self, positions: u64) {
        self.bars.advanced(positions);
    }

    fn layer_finished(&self, report: &LayerReport) {
        self.bars.layer_finished(report);
    }
}

impl Preparation for Shown {
    fn building(&self, dir: &std::path::Path, houses: usize, max_seeds: usize) {
        tell!(
            "building the endgame database for {houses} houses up to {max_seeds} seeds in {} (once; `kalah build` makes others)",
            dir.display()
        );
    }

    fn not_built(&self, dir: &std::path::Path, why: &DbError) {
        tell!("warning: no database built in {} ({why}); searching without it", dir.display());
    }

    fn limited(&self, dir: &std::path::Path, max_seeds: usize, all_seeds: usize, available: u64) {
        tell!(
            "warning: using {} up to {max_seeds} seeds, not {all_seeds}: the layers above do not fit in the {:.1} GB of memory available beside the search (exact all the same, only slower)",
            dir.display(),
            available as f64 / 1e9
        );
    }

    fn loading(&self, _dir: &std::path::Path) {
        *self.spinner.lock().expect("spinner lock") = Some(spinner("loading the endgame database"));
    }

    fn loaded(&self) {
        if let Some(bar) = self.spinner.lock().expect("spinner lock").take() {
            bar.finish_and_clear();
        }
    }
}

impl RunProgress for Shown {
    fn pending(&self, tasks: usize) {
        self.tasks.set_length(tasks as u64);
    }

    fn preparing(&self) {
        self.tasks.set_draw_target(ProgressDrawTarget::hidden());
    }

    fn prepared(&self) {
        self.tasks.set_draw_target(ProgressDrawTarget::stderr());
    }

    fn note(&self, message: &str) {
        self.tasks.suspend(|| tell!("{message}"));
    }

    fn task_started(&self, description: &str) {
        self.tasks.set_message(description.to_string());
    }

    fn task_unsettled(&self, description: &str, why: &str) {
        self.tasks.suspend(|| tell!("{description}: {why}"));
    }

    fn task_done(&self) {
        self.tasks.inc(1);
    }
}

/// A spinner on stderr (drawn only when it is a terminal).
fn spinner(message: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner()
        .with_style(ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]").expect("a valid template"));
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

pub fn solve(args: &SolveArgs) -> anyhow::Result<String> {
    let rules = args.rules.resolve();
    let start = parse_start(&args.start)?;
    // A start that proofs map (Kalah(6,6)) is answered from them: no search finishes there.
    let index = ProvenIndex::shipped()?;
    if let Some(map) = index.book().start_map(&rules, &start) {
        return Ok(map_text(&rules, &start, map, args.json));
    }
    // So is any other position of the proofs (no search of every first turn would finish there):
    // what `kalah query` says of it.
    if let Some(report) = index.answer(&rules, &start)
        && let Answer::Bounded(answer) = &report.answer
        && answer.source == Source::Proof
    {
        if args.json {
            return Ok(format!("{}\n", serde_json::to_string(&report)?));
        }
        let mut text = format!("{start}, rules {rules}\n");
        text += &answer.text(&start);
        text += &index.proven_line(&rules, &start).summary();
        text += "(no search: a position of the checked proofs; `kalah query` says the same)\n";
        return Ok(text);
    }
    let work = match args.no_openings {
        true if rules.pie => {
            return Err(input_error("--no-openings: the value under the pie rule needs every opening"));
        }
        true => StartWork::ValueAndLine,
        false => StartWork::Everything,
    };
    // A start needs every layer soon; a later position often only a few of them.
    let load = if start.is_start() { Load::Now } else { Load::WhenProbed };
    let prepared = prepare(&args.search, &rules, &start, load)?;
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{spinner} solving openings {pos}/{len} [{elapsed_precise}] {msg}")
            .expect("a valid progress template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let solved = prepared.solve_start(&start, work, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let solved = solved?;
    if args.json {
        return Ok(format!("{}\n", serde_json::to_string(&solved)?));
    }
    Ok(solved.text(args.all))
}

/// `kalah solve`'s report of a start that proofs map, as text or JSON.
fn map_text(rules: &Rules, start: &Position, map: &OpeningsTable, json: bool) -> String {
    if json {
        /// The map with the start's board size.
        #[derive(serde::Serialize)]
        struct Mapped<'a> {
            start: &'a Position,
            houses: usize,
            #[serde(flatten)]
            map: &'a OpeningsTable,
        }
        let mapped = Mapped { start, houses: start.houses(), map };
        return format!("{}\n", serde_json::to_string(&mapped).expect("maps serialize"));
    }
    let mut text = format!("{}, rules {rules}\n", describe_start(start));
    if rules.pie {
        text += "(the proofs value the game without the swap; the pie rule's value is the last line)\n";
    }
    text += &answer::proven_openings_text(start.to_move(), start.total_seeds(), map);
    if rules.pie && map.pie_value.is_none() {
        text += "under the pie rule: not yet known (the first turns' bounds do not decide it)\n";
    }
    text += "(no search: the proofs are in data/proofs, `kalah proof map` writes what they establish)\n";
    text
}

#[derive(Args)]
pub struct QueryArgs {
    /// The position: 2m+2 bin counts then S or N, e.g. "0 3 0 1 2 4 5 1 0 2 0 1 1 6 S", or a
    /// start MxN, e.g. 6x6.
    position: String,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn query(args: &QueryArgs) -> anyhow::Result<String> {
    let rules = args.rules.resolve();
    let position = parse_start(&args.position)?;
    // The same path as the service's: what the book, the lines and the proofs hold, then a search.
    let index = ProvenIndex::shipped()?;
    let report = match index.answer(&rules, &position) {
        Some(report) => report,
        None => {
            let prepared = prepare(&args.search, &rules, &position, Load::WhenProbed)?;
            // Progress only for a person watching: not with --json, nor into a pipe or file.
            let watched = !args.json && std::io::stdout().is_terminal();
            if watched
                && args.search.time_limit.is_none()
                && let Some(note) = prepared.far_note(&position)
            {
                tell!("{note}");
            }
            let searched = match watched {
                true => report_watched(prepared, &position),
                false => prepared.report(&position, |_, _, _| {}),
            };
            searched.map_err(|unanswered| anyhow::anyhow!(unanswered.text()))?
        }
    };
    if args.json {
        return Ok(format!("{}\n", serde_json::to_string(&report)?));
    }
    let mut text = format!("{position}, rules {rules}\n");
    text += &kalah::notation::diagram(&position);
    if answer::within_first_turn(&rules, &position) {
        text += "under the pie rule: each value is what South keeps, North swapping sides after this first turn where that is better\n";
    }
    if answer::ends_first_turn(&rules, &position) {
        text += "under the pie rule North may swap sides here, taking South's value, the opposite of North's below\n";
    }
    text += &match &report.answer {
        Answer::Exact(answer) => answer.text(&position),
        Answer::Bounded(answer) => answer.text(&position),
    };
    if let Answer::Bounded(answer) = &report.answer
        && answer.source == Source::Proof
    {
        text += &index.proven_line(&rules, &position).summary();
    }
    Ok(text)
}

/// [`Prepared::report`] of `position` with a progress line on stderr: the nodes every thread has
/// searched, four times a second, and the value's bounds proven so far.
fn report_watched(prepared: Prepared, position: &Position) -> Result<kalah::PositionReport, engine::Unanswered> {
    let counter = Arc::new(AtomicU64::new(0));
    let prepared = prepared.with_node_counter(Arc::clone(&counter));
    let bounds: Mutex<Option<answer::Bounds>> = Mutex::new(None);
    let done = AtomicBool::new(false);
    let bar = spinner("searching");
    let searched = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let known = *bounds.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                bar.set_message(answer::search_progress_text(known, counter.load(Ordering::Relaxed)));
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        let searched = prepared.report(position, |lower, upper, _| {
            *bounds.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(answer::Bounds { lower, upper });
        });
        done.store(true, Ordering::Relaxed);
        searched
    });
    bar.finish_and_clear();
    searched
}

/// A range of small numbers: `4` or `1..6` (both ends included).
fn parse_range(text: &str) -> Result<std::ops::RangeInclusive<u32>, String> {
    let number = |t: &str| t.trim().parse::<u32>().map_err(|_| format!("'{t}' is not a number"));
    let (low, high) = match text.split_once("..") {
        Some((low, high)) => (number(low)?, number(high.trim_start_matches('='))?),
        None => (number(text)?, number(text)?),
    };
    if low == 0 || low > high {
        return Err(format!("'{text}' is not a range like 1..6 starting at 1 or more"));
    }
    Ok(low..=high)
}

#[derive(Args)]
pub struct TableArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Houses per side: a number or a range, e.g. 1..6.
    #[arg(long, value_name = "RANGE", default_value = "1..6", value_parser = parse_range)]
    houses: std::ops::RangeInclusive<u32>,
    /// Seeds per house at the start: a number or a range.
    #[arg(long, value_name = "RANGE", default_value = "1..6", value_parser = parse_range)]
    seeds: std::ops::RangeInclusive<u32>,
    /// (--time-limit is per cell here: a cell not solved in time is reported and skipped.)
    #[command(flatten)]
    search: SearchArgs,
    /// Directory for the results CSV.
    #[arg(long, value_name = "DIR", default_value = "data/results")]
    out: std::path::PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The grid of start values ([`jobs::grid`]), compared with the published table and written to
/// `OUT/table-<rules>.csv` after every cell. A mismatch makes the command fail.
pub fn table(args: &TableArgs) -> anyhow::Result<String> {
    let rules = args.rules.resolve();
    let (houses, seeds) = (*args.houses.start() as usize..=*args.houses.end() as usize, args.seeds.clone());
    if *houses.end() > kalah::board::MAX_HOUSES {
        return Err(input_error(format!("at most {} houses per side", kalah::board::MAX_HOUSES)));
    }
    Position::start(*houses.end(), *seeds.end()).map_err(|err| input_error(err.to_string()))?;
    let setup = args.search.setup();
    let path = grid::grid_path(&args.out, &rules);
    let bar = Shown::counting("cells");
    let time_limit = args.search.time_limit;
    let cells = grid::solve_grid(&rules, houses.clone(), seeds.clone(), &setup, time_limit, &path, &bar);
    bar.tasks.finish_and_clear();
    let grid = Grid::new(&rules, path, cells?, houses, seeds);
    let text = if args.json { json_line(&grid)? } else { grid.text() };
    if grid.mismatches > 0 {
        write_stdout(&text)?;
        anyhow::bail!("{} cells differ from the published values", grid.mismatches);
    }
    Ok(text)
}

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Only the positions that need no database.
    #[arg(long)]
    no_db: bool,
    /// Transposition table size in MiB [default: sized to each search, as for `solve`; node
    /// counts repeat either way].
    #[arg(long, value_name = "MIB", value_parser = limits::table_mib)]
    table_mb: Option<usize>,
    /// Search threads (node counts repeat only with one).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = limits::threads)]
    threads: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The benchmark ([`engine::bench`]): each start as text or a JSON field.
pub fn bench(args: &BenchArgs) -> anyhow::Result<String> {
    let mut rows = Vec::new();
    let mut text = String::new();
    for (rules_name, start_name, needs_db) in BENCH_STARTS {
        let rules: Rules = rules_name.parse().map_err(|err| anyhow::anyhow!("{err}"))?;
        let start = parse_start(start_name)?;
        let opened = (needs_db && !args.no_db).then(|| Database::open(&args.db.db, &rules, start.houses()));
        let db = match opened {
            _ if !needs_db => None,
            Some(Ok(db)) => Some(engine::read_whole(db.with_layout(args.db.db_layout), &Shown::default())?),
            None | Some(Err(DbError::NoDatabase { .. })) => {
                text += &bench::skipped_text(rules_name, start_name, start.houses());
                continue;
            }
            Some(Err(err)) => return Err(err.into()),
        };
        let benched = Benched::run((rules_name, start_name), rules, &start, db, args.table_mb, args.threads)?;
        text += &benched.text();
        rows.push(benched);
    }
    if args.json {
        return json_line(&Bench { threads: args.threads, results: rows });
    }
    Ok(text)
}

/// `kalah bench --json`.
#[derive(Serialize)]
struct Bench {
    threads: usize,
    results: Vec<Benched>,
}
