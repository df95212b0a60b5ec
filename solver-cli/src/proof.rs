//! The proof commands: `proof new`, `run`, `status`, `check` and `merge` (see `kalah::proof`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use kalah::moves::Turn;
use kalah::proof::openings::{Drive, DriveEvent};
use kalah::proof::{self, Claim, ProofError, RunOptions, Spec, Tree};
use kalah::shard::Shard;
use serde::Serialize;

use kalah::engine::Load;

use crate::args::{RulesArgs, SearchArgs, input_error, parse_start};
use crate::output::{describe_start, json_line, signed, tell, write_stdout};
use crate::search::prepare;

#[derive(Subcommand)]
pub enum ProofCommand {
    /// Start a proof: write DIR/proof.toml (rules, root, claim, task budget).
    New(NewArgs),
    /// Grow a proof (or one shard's share of it) until it is decided or the time is up.
    Run(RunArgs),
    /// Where a proof stands: the claim, proven or not, leaves, nodes, the root's children.
    Status(StatusArgs),
    /// Check a proof independently: the tree by the rules, a sample of leaves searched again.
    /// Exit 0 only for a checked proof of the claim; a checked refutation says so and exits 1.
    Check(CheckArgs),
    /// Join the shards' logs into DIR/log.jsonl (a contradiction is an error).
    Merge(MergeArgs),
    /// Map what the checked proofs establish about a start and each of its first turns into
    /// the openings result files (data/results/openings-MxN.jsonl and .csv), which every front
    /// end serves. A proof counts when its logs decide its claim and a check-*.txt transcript
    /// beside them checked every leaf.
    Map(MapArgs),
    /// Write every position the checked proofs establish a bound at (each node of each proof
    /// or refutation) with its bounds and the proofs behind them, the file every front end's
    /// index of proven positions is built from (data/results/proven-positions.jsonl, built into
    /// the binary: rebuild it after writing).
    Index(IndexArgs),
    /// Narrow every first turn of a start to its exact value with proofs, as MTD(f) narrows a
    /// value: each test "this turn is worth at least t" is a proof in a directory of its own under
    /// --proofs, run until decided, checked with every leaf searched again (its transcript
    /// written beside it), then mapped (`proof map`). Stops when every turn is exact or at
    /// --time-limit; run it again (on any machine) to go on.
    Openings(OpeningsArgs),
}

#[derive(Args)]
pub struct NewArgs {
    /// The proof's directory (created), e.g. data/proofs/standard-6x6-ge-2.
    dir: PathBuf,
    /// The root: MxN (e.g. 6x6) or a position.
    #[arg(long, value_name = "START")]
    start: String,
    #[command(flatten)]
    rules: RulesArgs,
    /// The claim on the root's value for its side to move: ">= 4", "<= 2", "> 0", ...
    #[arg(long, allow_hyphen_values = true)]
    claim: String,
    /// Nodes a task may search before its node is expanded instead.
    #[arg(long, value_name = "N", default_value_t = proof::DEFAULT_TASK_NODES)]
    task_nodes: u64,
}

#[derive(Args)]
pub struct RunArgs {
    /// The proof's directory.
    dir: PathBuf,
    /// Run as shard I of N (e.g. 2/8) beside the others: log to DIR/log.shard-I-of-N.jsonl, read
    /// the other shards' logs as they grow, and leave the leaves they are working on to them.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Nodes a task may search before its node is expanded [default: proof.toml's]. A task that
    /// runs out also searches each child's estimate (16,384 nodes at most each), which the task's
    /// reported nodes include: with tiny budgets the estimates are most of a task's work.
    #[arg(long, value_name = "N")]
    task_nodes: Option<u64>,
    /// Stop after this many tasks.
    #[arg(long, value_name = "N")]
    max_tasks: Option<usize>,
    /// Take over another run's task (DIR/LOG.task) once it has stood unchanged this many
    /// seconds: that run was killed.
    #[arg(long, value_name = "S", default_value_t = 300)]
    take_over_after: u64,
    /// Do not use the leaves other proofs beside this one (same rules, same board) have settled.
    /// By default every proof in DIR's parent directory is read at the start, and a leaf their
    /// bounds decide is logged as settled by them (and searched again by `proof check`).
    #[arg(long)]
    no_share: bool,
    /// Grow along the decided tree of the proof in DIR: the same claim at the same root under
    /// other rules whose turns mostly agree (standard rules for BGA). Each inner node of its tree
    /// is expanded here without a task; every node is still settled by this proof's own searches.
    #[arg(long, value_name = "DIR")]
    template: Option<PathBuf>,
    /// (--time-limit is the whole run's here: the task in flight then is lost, nothing else.)
    #[command(flatten)]
    search: SearchArgs,
    /// Print one JSON object at the end instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct StatusArgs {
    /// The proof's directory.
    dir: PathBuf,
    /// How many of the largest open leaves to list.
    #[arg(long, value_name = "N", default_value_t = 5)]
    largest: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CheckArgs {
    /// The proof's directory.
    dir: PathBuf,
    /// Leaves of the proof to search again (0: the tree only).
    #[arg(long, value_name = "N", default_value_t = 20)]
    sample: usize,
    /// Chooses the sample (default: from the clock).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Take the leaves an earlier, unfinished check searched again from its progress file
    /// (`DIR/check-progress.jsonl`, to which every check appends each leaf as it is searched)
    /// instead of searching them once more.
    #[arg(long)]
    resume: bool,
    #[command(flatten)]
    search: SearchArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// The proof's directory.
    dir: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A start, its rules, the proofs about it and the map files they are written to.
#[derive(Args)]
pub struct MapTarget {
    /// The start: MxN (e.g. 6x6) or a position.
    start: String,
    #[command(flatten)]
    rules: RulesArgs,
    /// Where the proofs are (every directory with a proof.toml under it), and where the
    /// driver's new tests go.
    #[arg(long, value_name = "DIR", default_value = "data/proofs")]
    proofs: PathBuf,
    /// The result files' stem [default: data/results/openings-MxN for a start MxN].
    #[arg(long, value_name = "STEM")]
    out: Option<PathBuf>,
}

/// A [`MapTarget`] read: rules, start, the start's name in the files, and their stem.
struct Target {
    rules: kalah::Rules,
    start: kalah::Position,
    name: String,
    stem: PathBuf,
}

impl MapTarget {
    fn resolve(&self) -> anyhow::Result<Target> {
        let rules = self.rules.resolve();
        let start = parse_start(&self.start)?;
        let (name, default_stem) = start_names(&start);
        let stem = match (&self.out, default_stem) {
            (Some(stem), _) => stem.clone(),
            (None, Some(stem)) => stem,
            (None, None) => return Err(input_error("--out is needed for a start other than MxN".to_string())),
        };
        Ok(Target { rules, start, name, stem })
    }
}

#[derive(Args)]
pub struct MapArgs {
    #[command(flatten)]
    target: MapTarget,
    /// Map from the proofs that can be read when one cannot (by default nothing is written then,
    /// and the command fails naming it).
    #[arg(long)]
    keep_going: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct IndexArgs {
    /// Where the proofs are (every directory with a proof.toml under it).
    #[arg(long, value_name = "DIR", default_value = "data/proofs")]
    proofs: PathBuf,
    /// The file to write.
    #[arg(long, value_name = "FILE", default_value = kalah::engine::proven_index::SHIPPED_POSITIONS.0)]
    out: PathBuf,
    /// Index the proofs that can be read when one cannot (by default nothing is written then,
    /// and the command fails naming it).
    #[arg(long)]
    keep_going: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct OpeningsArgs {
    #[command(flatten)]
    target: MapTarget,
    /// Nodes a task may search before its node is expanded, in every test this run grows (a new
    /// test keeps it in its proof.toml) [default: each test's proof.toml; 300,000,000 for a new one].
    #[arg(long, value_name = "N")]
    task_nodes: Option<u64>,
    /// First guesses of the turns' values: a CSV of `opening,value` rows such as
    /// data/published/openings-6x6-empty-capture.csv (the published table: each turn is then
    /// tested at its published value first). Turns it leaves out start from the search's estimate.
    #[arg(long, value_name = "CSV")]
    guesses: Option<PathBuf>,
    /// Narrow only this first turn (repeat for more; e.g. --turn "1 4" --turn 2); by default every
    /// one, in order. Runs given different turns can go on beside each other, on one machine or
    /// many, as each test is a proof of its own; each rewrites the map from all the proofs.
    #[arg(long = "turn", value_name = "MOVES")]
    turns: Vec<Turn>,
    /// Grow each test along the decided proof of the same test under these rules, where there
    /// is one under --proofs (e.g. standard for BGA, which differ only in when the game
    /// ends): its inner nodes are expanded without a task (see `proof run --template`).
    #[arg(long, value_name = "RULES")]
    templates_from: Option<kalah::Rules>,
    /// (--time-limit is the whole drive's: the test or check in flight then is left open, to go on
    /// later.)
    #[command(flatten)]
    search: SearchArgs,
    /// Print the map as JSON at the end instead of text.
    #[arg(long)]
    json: bool,
}

pub fn command(command: &ProofCommand) -> anyhow::Result<String> {
    match command {
        ProofCommand::New(args) => new(args),
        ProofCommand::Run(args) => run(args),
        ProofCommand::Status(args) => status(args),
        ProofCommand::Check(args) => check(args),
        ProofCommand::Merge(args) => merge(args),
        ProofCommand::Map(args) => map(args),
        ProofCommand::Index(args) => index(args),
        ProofCommand::Openings(args) => openings(args),
    }
}

/// The proof in `dir` as a tree, with the records it was built from (its logs, read once).
/// A proof that cannot be read (no proof.toml, an invalid one) is bad input.
fn load(dir: &Path) -> anyhow::Result<(Tree, Vec<proof::Record>)> {
    let spec = Spec::load(dir).map_err(unreadable_is_bad_input)?;
    Ok(proof::read_proof(spec, dir)?)
}

/// A proof named on the command line that cannot be read (no proof.toml, an invalid one) or does
/// not fit (a template of another claim) is bad input; other errors stay what they are.
fn unreadable_is_bad_input(err: ProofError) -> anyhow::Error {
    match err {
        ProofError::Invalid { .. } | ProofError::Io { .. } => input_error(err.to_string()),
        err => err.into(),
    }
}

fn new(args: &NewArgs) -> anyhow::Result<String> {
    let root = parse_start(&args.start)?;
    let claim: Claim = args.claim.parse().map_err(input_error)?;
    let spec = Spec::new(args.rules.resolve(), root, claim, args.task_nodes).map_err(input_error)?;
    spec.create(&args.dir).map_err(|err| match err {
        ProofError::Invalid { .. } => input_error(err.to_string()),
        err => err.into(),
    })?;
    Ok(format!(
        "proof of value {} for the side to move at {} ({} rules) in {}\n",
        spec.claim,
        spec.root,
        spec.rules,
        proof::spec_path(&args.dir).display()
    ))
}

fn run(args: &RunArgs) -> anyhow::Result<String> {
    let (mut tree, _) = load(&args.dir)?;
    let spec = tree.spec().clone();
    if args.task_nodes == Some(0) {
        return Err(input_error("--task-nodes must be at least 1"));
    }
    let mut prepared = prepare(&args.search, &spec.rules, &spec.root, Load::Now)?;
    // The deadline is the run's, not one search's: `work` sets it on every task.
    let deadline = prepared.take_deadline();
    let mut search = prepared.search()?;
    let shared = match (args.no_share, args.dir.parent()) {
        (false, Some(beside)) => {
            let beside = if beside.as_os_str().is_empty() { Path::new(".") } else { beside };
            let (shared, skipped) = proof::shared::SharedBounds::from_proofs(beside, &spec, &args.dir);
            for why in skipped {
                tell!("warning: not shared: {why}");
            }
            if !args.json && !shared.is_empty() {
                tell!("sharing {} settled leaves of the proofs beside this one", shared.len());
            }
            shared
        }
        _ => proof::shared::SharedBounds::none(),
    };
    let template = match &args.template {
        Some(dir) => {
            let template = proof::template::Template::from_proof(dir, &spec).map_err(unreadable_is_bad_input)?;
            if !args.json {
                tell!("growing along {}: {} inner nodes", dir.display(), template.len());
            }
            template
        }
        None => proof::template::Template::none(),
    };
    let run_options = RunOptions {
        shared: std::sync::Arc::new(shared),
        template: std::sync::Arc::new(template),
        shard: args.shard,
        deadline,
        max_tasks: args.max_tasks,
        take_over_after: Duration::from_secs(args.take_over_after),
        interrupt: Some(crate::interrupt::stop_flag("stopping; a task past half its budget is expanded and logged")),
        ..RunOptions::with_task_nodes(args.task_nodes.unwrap_or(spec.task_nodes))
    };
    let clock = Instant::now();
    let quiet = args.json;
    let report = proof::work(&args.dir, &mut tree, &mut search, &run_options, |task, tree| {
        if !quiet {
            tell!("{}", task.line(clock.elapsed().as_secs_f64(), tree));
        }
    })?;
    let status = tree.status(5);
    if args.json {
        return json_line(&Ran { run: &report, status: &status });
    }
    Ok(report.text() + &status.text())
}

fn status(args: &StatusArgs) -> anyhow::Result<String> {
    let (tree, records) = load(&args.dir)?;
    let status = tree.status(args.largest);
    let progress = proof::progress(tree.spec(), &records)?;
    if args.json {
        let mut json = serde_json::to_value(&status)?;
        json["progress"] = serde_json::to_value(&progress)?;
        return Ok(format!("{json}\n"));
    }
    Ok(status.text() + &proof::progress_text(&progress))
}

fn check(args: &CheckArgs) -> anyhow::Result<String> {
    // (The digest before the records: a transcript never names records its check did not see.)
    let logs = proof::log::logs_digest(&args.dir).map_err(unreadable_is_bad_input)?;
    let (tree, records) = load(&args.dir)?;
    let spec = tree.spec().clone();
    let seed = args.seed.unwrap_or_else(proof::check::clock_seed);
    let prepared = match args.sample {
        0 => None,
        _ => Some(prepare(&args.search, &spec.rules, &spec.root, Load::Now)?),
    };
    let mut search = prepared.as_ref().map(|prepared| prepared.search()).transpose()?;
    let resample = match search.as_mut() {
        Some(search) => {
            let mut resample = proof::Resample::new(search, args.sample, seed);
            let earlier = resample.keep_progress(&args.dir, args.resume, tell_leaf)?;
            tell_resumed(&args.dir, earlier);
            resample.interrupt = Some(crate::interrupt::stop_flag(
                "stopping; the leaves searched so far are kept (go on with --resume)",
            ));
            Some(resample)
        }
        None => None,
    };
    let mut report = proof::check(&spec, &records, resample)?;
    report.problems.extend(proof::shared::disagreeing_shared_leaves(&args.dir, &spec, &records));
    anyhow::ensure!(
        !report.interrupted,
        "the check of {} stopped after {} leaves, kept in {}: go on with --resume",
        args.dir.display(),
        report.sampled,
        args.dir.join(proof::check::CHECK_PROGRESS).display()
    );
    let text = if args.json {
        json_line(&Checked {
            claim: format!("value {}", spec.claim),
            passed: report.passed(),
            refutation_passed: report.refutation_passed(),
            seed,
            report: &report,
        })?
    } else {
        report.transcript(&spec, seed, &logs)
    };
    if !report.passed() {
        write_stdout(&text)?;
        if report.refutation_passed() {
            anyhow::bail!("the claim of {} is false: its refutation checks", args.dir.display());
        }
        anyhow::bail!("the proof in {} does not check", args.dir.display());
    }
    Ok(text)
}

/// Tells on stderr of a leaf a check searched again: its place among the chosen, their count.
fn tell_leaf(place: usize, count: usize, leaf: &proof::LeafSearch) {
    tell!("leaf {}/{count}: {leaf}", place + 1);
}

/// Tells on stderr that the check of the proof in `dir` goes on from `earlier` leaves (if any).
fn tell_resumed(dir: &Path, earlier: usize) {
    if earlier > 0 {
        let progress = dir.join(proof::check::CHECK_PROGRESS);
        tell!("{}: {earlier} leaves searched again by an earlier check", progress.display());
    }
}

fn merge(args: &MergeArgs) -> anyhow::Result<String> {
    let (tree, _) = load(&args.dir)?;
    let (records, logs) = proof::log::merge(&args.dir)?;
    let mut merged = Tree::new(tree.spec().clone());
    for record in records.lines() {
        merged.add(record)?;
    }
    let status = merged.status(0);
    if args.json {
        let logs: Vec<String> = logs.iter().map(|p| p.display().to_string()).collect();
        return json_line(&MergedLogs { logs, status: &status });
    }
    let mut text = format!("merged {} logs into {}\n", logs.len(), proof::log::log_path(&args.dir, None).display());
    text += &status.text();
    Ok(text)
}

/// A start as the map files name it: `MxN` for a standard start (with the default stem
/// `data/results/openings-MxN`), else its position text (and no default stem).
fn start_names(start: &kalah::Position) -> (String, Option<PathBuf>) {
    if start.is_start() {
        let name = format!("{}x{}", start.houses(), start.mover_houses()[0]);
        let stem = PathBuf::from(format!("data/results/openings-{name}"));
        (name, Some(stem))
    } else {
        (start.to_string(), None)
    }
}

fn map(args: &MapArgs) -> anyhow::Result<String> {
    let Target { rules, start, name: start_name, stem } = args.target.resolve()?;
    let proofs = &args.target.proofs;
    if !proofs.is_dir() {
        return Err(input_error(format!("--proofs {}: not a directory", proofs.display())));
    }
    let (result, left_out) = proof::map::remap(&rules, &start, &start_name, (proofs, args.keep_going), &stem)
        .map_err(|err| anyhow::anyhow!(err))?;
    if args.json {
        let not_counted = left_out
            .iter()
            .map(|(dir, why)| NotCounted { proof: dir.display().to_string(), why: why.to_string() })
            .collect();
        return json_line(&Mapped {
            map: &result,
            files: stem.display().to_string(),
            not_counted: Some(not_counted),
            tests: None,
            checks: None,
        });
    }
    let mut text = format!("{}, rules {rules}\n", describe_start(&start));
    let table = &result.table;
    text += &kalah::answer::proven_openings_text(start.to_move(), start.total_seeds(), table);
    for (dir, why) in &left_out {
        text += &format!("not counted: {}: {why}\n", dir.display());
    }
    text += &format!("written: {}.jsonl and .csv\n", stem.display());
    Ok(text)
}

fn openings(args: &OpeningsArgs) -> anyhow::Result<String> {
    let Target { rules, start, name: start_name, stem } = args.target.resolve()?;
    let proofs = &args.target.proofs;
    if args.task_nodes == Some(0) {
        return Err(input_error("--task-nodes must be at least 1"));
    }
    Spec::new(rules, start, Claim { bound: proof::Bound::AtLeast, value: 0 }, 1).map_err(input_error)?;
    let turns = kalah::moves::first_turns(&rules, &start);
    if let Some(unknown) = args.turns.iter().find(|wanted| turns.iter().all(|(turn, _)| turn != *wanted)) {
        let names: Vec<String> = turns.iter().map(|(turn, _)| turn.to_string()).collect();
        return Err(input_error(format!(
            "--turn {unknown}: not a first turn of {start_name} under {rules} rules (those are {})",
            names.join(", ")
        )));
    }
    let guesses: std::collections::HashMap<Turn, i32> = match &args.guesses {
        Some(path) => {
            let text = kalah::input::read_text(path, kalah::input::SMALL_FILE_BYTES)
                .map_err(|err| input_error(format!("--guesses {}: {err}", path.display())))?;
            kalah::published::opening_values(&text)
                .map_err(|err| input_error(format!("--guesses {}: {err}", path.display())))?
                .into_iter()
                .collect()
        }
        None => Default::default(),
    };
    std::fs::create_dir_all(proofs)?;
    let mut prepared = prepare(&args.search, &rules, &start, Load::Now)?;
    let deadline = prepared.take_deadline();
    let mut search = prepared.search()?;
    let drive = Drive {
        rules,
        start,
        start_name: &start_name,
        proofs,
        stem: &stem,
        turns: &args.turns,
        guesses: &guesses,
        task_nodes: args.task_nodes,
        deadline,
        interrupt: crate::interrupt::stop_flag("stopping; the test in flight is left open"),
        templates_from: args.templates_from,
    };
    let clock = Instant::now();
    let report = proof::openings::drive(&drive, &mut search, &|event| match event {
        DriveEvent::TestBegun { turn, test, dir } => {
            tell!("turn {turn}: testing >= {} in {}", signed(test), dir.display())
        }
        DriveEvent::GrowsAlong(dir, from, inner) => {
            tell!("{}: growing along {} ({inner} inner nodes)", dir.display(), from.display())
        }
        DriveEvent::Task(task, tree) => tell!("{}", task.line(clock.elapsed().as_secs_f64(), tree)),
        DriveEvent::Grown(dir, run) => {
            tell!("{}: {} tasks, {} nodes, {}", dir.display(), run.tasks, run.nodes, proof::proven_text(run.proven))
        }
        DriveEvent::CheckResumed(dir, earlier) => tell_resumed(dir, earlier),
        DriveEvent::CheckLeaf(place, count, leaf) => tell_leaf(place, count, leaf),
        DriveEvent::CheckStopped(dir, sampled) => tell!("{}: check stopped after {sampled} leaves", dir.display()),
        DriveEvent::Checked(dir, heading) => tell!("{}: checked ({heading})", dir.display()),
    })?;
    if args.json {
        let (map, files) = (&report.map, stem.display().to_string());
        return json_line(&Mapped {
            map,
            files,
            not_counted: None,
            tests: Some(report.tests),
            checks: Some(report.checks),
        });
    }
    Ok(report.text(&start, &rules, &args.turns, &stem))
}

/// `kalah proof run --json`.
#[derive(Serialize)]
struct Ran<'a, R, S> {
    run: &'a R,
    status: &'a S,
}

/// `kalah proof check --json`: the claim, whether it (or its refutation) checks, and how.
#[derive(Serialize)]
struct Checked<'a, R> {
    claim: String,
    passed: bool,
    refutation_passed: bool,
    seed: u64,
    report: &'a R,
}

/// `kalah proof merge --json`.
#[derive(Serialize)]
struct MergedLogs<'a, S> {
    logs: Vec<String>,
    status: &'a S,
}

/// `kalah proof map --json` and `kalah proof openings --json`.
#[derive(Serialize)]
struct Mapped<'a, M> {
    map: &'a M,
    files: String,
    /// Proofs under the directory that do not count yet, and why (`proof map`).
    #[serde(skip_serializing_if = "Option::is_none")]
    not_counted: Option<Vec<NotCounted>>,
    /// Tests begun and checks made (`proof openings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    tests: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<usize>,
}

fn index(args: &IndexArgs) -> anyhow::Result<String> {
    if !args.proofs.is_dir() {
        return Err(input_error(format!("--proofs {}: not a directory", args.proofs.display())));
    }
    let (checked, left_out) = proof::proven::checked_proofs(&args.proofs);
    if !args.keep_going {
        proof::proven::refuse_unreadable(&left_out).map_err(|err| anyhow::anyhow!(err))?;
    }
    let positions = proof::proven::proven_positions(&checked)
        .map_err(|err| anyhow::anyhow!("the proofs contradict each other: {err}"))?;
    kalah::engine::proven_index::write_positions(&args.out, &positions)
        .map_err(|err| anyhow::anyhow!("{}: {err}", args.out.display()))?;
    let not_counted: Vec<NotCounted> = left_out
        .iter()
        .map(|(dir, why)| NotCounted { proof: dir.display().to_string(), why: why.to_string() })
        .collect();
    if args.json {
        #[derive(Serialize)]
        struct Indexed {
            file: String,
            proofs: usize,
            positions: usize,
            not_counted: Vec<NotCounted>,
        }
        let file = args.out.display().to_string();
        return json_line(&Indexed { file, proofs: checked.len(), positions: positions.len(), not_counted });
    }
    let mut text = format!(
        "{} positions from {} checked proofs written to {}\n",
        positions.len(),
        checked.len(),
        args.out.display()
    );
    for counted in &not_counted {
        text += &format!("not counted: {}: {}\n", counted.proof, counted.why);
    }
    Ok(text)
}

/// A proof left out of the map, and why.
#[derive(Serialize)]
struct NotCounted {
    proof: String,
    why: String,
}
