//! The proof commands: `proof new`, `run`, `status`, `check` and `merge` (see `kalah::proof`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use kalah::jobs::Shard;
use kalah::proof::{self, Claim, ProofError, RunOptions, Spec, Status, TaskOutcome, Tree};
use kalah::search::Search;
use serde_json::json;

use kalah::engine::Load;

use crate::search::{SearchArgs, database_for};
use crate::{RulesArgs, describe_start, input_error, parse_start};

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
    /// Nodes a task may search before its node is expanded [default: proof.toml's].
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

#[derive(Args)]
pub struct MapArgs {
    /// The start: MxN (e.g. 6x6) or a position.
    start: String,
    #[command(flatten)]
    rules: RulesArgs,
    /// Where the proofs are: every directory with a proof.toml under it.
    #[arg(long, value_name = "DIR", default_value = "data/proofs")]
    proofs: PathBuf,
    /// The result files' stem [default: data/results/openings-MxN for a start MxN].
    #[arg(long, value_name = "STEM")]
    out: Option<PathBuf>,
    /// Print JSON instead of text.
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
    }
}

/// The proof in `dir` as a tree, with the records it was built from (its logs, read once).
/// A proof that cannot be read (no proof.toml, an invalid one) is bad input.
fn load(dir: &Path) -> anyhow::Result<(Tree, Vec<proof::Record>)> {
    let spec = Spec::load(dir).map_err(|err| match err {
        ProofError::Invalid { .. } | ProofError::Io { .. } => input_error(err.to_string()),
        err => err.into(),
    })?;
    let mut tree = Tree::new(spec);
    let records = proof::run::read_records(dir)?;
    for record in &records {
        tree.add(record.clone())?;
    }
    tree.check_root()?;
    Ok((tree, records))
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
    let db = database_for(&args.search, &spec.rules, &spec.root, Load::Now)?;
    let mut options = args.search.options(&spec.rules, &spec.root, db.as_ref());
    // The deadline is the run's, not one search's: `work` sets it on every task.
    let deadline = options.deadline.take();
    let mut search = Search::new(spec.rules, db.as_ref(), &options)?;
    let shared = match (args.no_share, args.dir.parent()) {
        (false, Some(beside)) => {
            let beside = if beside.as_os_str().is_empty() { Path::new(".") } else { beside };
            let (shared, skipped) = proof::shared::SharedBounds::from_proofs(beside, &spec, &args.dir);
            for why in skipped {
                eprintln!("warning: not shared: {why}");
            }
            if !args.json && !shared.is_empty() {
                eprintln!("sharing {} settled leaves of the proofs beside this one", shared.len());
            }
            shared
        }
        _ => proof::shared::SharedBounds::none(),
    };
    let run_options = RunOptions {
        shared: std::sync::Arc::new(shared),
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
        if quiet {
            return;
        }
        let what = match task.outcome {
            TaskOutcome::Settled { holds: true } => "holds".to_string(),
            TaskOutcome::Settled { holds: false } => "fails".to_string(),
            TaskOutcome::Expanded { children } => format!("expanded into {children}"),
        };
        let status = tree.status(0);
        eprintln!(
            "[{:>7.0} s] {} ({} seeds): {what} ({} nodes, {:.1} s); root pn {} dn {}, {} open leaves",
            clock.elapsed().as_secs_f64(),
            task.position,
            task.seeds,
            task.nodes,
            task.seconds,
            number(status.proof_number),
            number(status.disproof_number),
            status.open_leaves,
        );
    })?;
    let status = tree.status(5);
    if args.json {
        return Ok(format!("{}\n", json!({ "run": report, "status": status })));
    }
    let rate = report.nodes as f64 / report.seconds.max(1e-9);
    let mut text = format!(
        "{} tasks ({} settled, {} expanded), {} nodes in {:.1} s ({:.2} M nodes/s); stopped: {:?}; log {}\n",
        report.tasks,
        report.settled,
        report.expanded,
        report.nodes,
        report.seconds,
        rate / 1e6,
        report.stop,
        report.log.display()
    );
    text += &status_text(&status);
    Ok(text)
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
    Ok(status_text(&status) + &progress_text(&progress))
}

fn progress_text(progress: &[proof::HourOfWork]) -> String {
    if progress.is_empty() {
        return String::new();
    }
    let mut text =
        "growth by hour of task time:\n  hours  settled  expanded  nodes/s   open leaves  root pn/dn\n".to_string();
    for hour in progress {
        text += &format!(
            "  {:>5.2}  {:>7}  {:>8}  {:>6.2} M  {:>11}  {}/{}\n",
            hour.task_hours,
            hour.settled,
            hour.expanded,
            hour.nodes_per_second / 1e6,
            hour.open_leaves,
            number(hour.proof_number),
            number(hour.disproof_number)
        );
    }
    text
}

/// A proof or disproof number: "inf" for a node settled the other way.
fn number(n: u64) -> String {
    if n >= proof::tree::INFINITE { "inf".to_string() } else { n.to_string() }
}

fn proven_text(proven: Option<bool>) -> &'static str {
    match proven {
        Some(true) => "proven by the logs (confirm with kalah proof check)",
        Some(false) => "refuted",
        None => "open",
    }
}

fn status_text(status: &Status) -> String {
    let mut text = format!(
        "claim: {} at {} ({} rules): {}\n\
         leaves: {} proven, {} refuted, {} open; {} expanded; {} nodes, {:.0} s; root pn {} dn {}\n",
        status.claim,
        status.root,
        status.rules,
        proven_text(status.proven),
        status.proven_leaves,
        status.refuted_leaves,
        status.open_leaves,
        status.expanded,
        status.nodes,
        status.seconds,
        number(status.proof_number),
        number(status.disproof_number),
    );
    for child in &status.first_level {
        text += &format!(
            "  turn {:<12} {:?} (pn {}, dn {})\n",
            child.turn,
            child.status,
            number(child.proof_number),
            number(child.disproof_number)
        );
    }
    if !status.largest_open.is_empty() {
        text += "largest open leaves:\n";
        for leaf in &status.largest_open {
            text += &format!(
                "  {} ({} seeds, pn {}, dn {})\n",
                leaf.position,
                leaf.seeds,
                number(leaf.proof_number),
                number(leaf.disproof_number)
            );
        }
    }
    text
}

fn check(args: &CheckArgs) -> anyhow::Result<String> {
    let (tree, records) = load(&args.dir)?;
    let spec = tree.spec().clone();
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    let db = if args.sample > 0 { database_for(&args.search, &spec.rules, &spec.root, Load::Now)? } else { None };
    let mut search = match args.sample {
        0 => None,
        _ => Some(Search::new(spec.rules, db.as_ref(), &args.search.options(&spec.rules, &spec.root, db.as_ref()))?),
    };
    let report = proof::check(&spec, &records, search.as_mut(), args.sample, seed)?;
    let text = if args.json {
        format!(
            "{}\n",
            json!({
                "claim": format!("value {}", spec.claim),
                "passed": report.passed(),
                "refutation_passed": report.refutation_passed(),
                "seed": seed,
                "report": report
            })
        )
    } else {
        let (verdict, size) = report.heading(&spec);
        let mut text = format!("{verdict}\n{size} (seed {seed})\n");
        for leaf in &report.searched {
            text += &format!(
                "  {} {}: {} ({} nodes, {:.1} s)\n",
                leaf.position,
                leaf.claim,
                if leaf.confirmed { "confirmed" } else { "NOT confirmed" },
                leaf.nodes,
                leaf.seconds
            );
        }
        for problem in &report.problems {
            text += &format!("  problem: {problem}\n");
        }
        text
    };
    if !report.passed() {
        crate::write_stdout(&text)?;
        if report.refutation_passed() {
            anyhow::bail!("the claim of {} is false: its refutation checks", args.dir.display());
        }
        anyhow::bail!("the proof in {} does not check", args.dir.display());
    }
    Ok(text)
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
        return Ok(format!("{}\n", json!({ "logs": logs, "status": status })));
    }
    let mut text = format!("merged {} logs into {}\n", logs.len(), proof::log::log_path(&args.dir, None).display());
    text += &status_text(&status);
    Ok(text)
}

fn map(args: &MapArgs) -> anyhow::Result<String> {
    let rules = args.rules.resolve();
    let start = parse_start(&args.start)?;
    let name = format!("{}x{}", start.houses(), start.mover_houses()[0]);
    let is_named =
        kalah::board::Position::start(start.houses(), u32::from(start.mover_houses()[0])).ok() == Some(start);
    let start_name = if is_named { name.clone() } else { start.to_string() };
    let stem = match (&args.out, is_named) {
        (Some(stem), _) => stem.clone(),
        (None, true) => PathBuf::from(format!("data/results/openings-{name}")),
        (None, false) => return Err(input_error("--out is needed for a start other than MxN".to_string())),
    };
    if !args.proofs.is_dir() {
        return Err(input_error(format!("--proofs {}: not a directory", args.proofs.display())));
    }
    let (checked, left_out) = proof::proven::checked_proofs(&args.proofs);
    let mine: Vec<&proof::proven::CheckedProof> = checked
        .iter()
        .filter(|p| p.bounds.first().is_some_and(|b| b.rules.for_values() == rules.for_values()))
        .collect();
    let bounds: Vec<proof::proven::ProvenBound> = mine.iter().flat_map(|p| p.bounds.iter().cloned()).collect();
    let job = format!("openings-{name}");
    let mut result = proof::map::opening_map(&rules, &start, (&job, 0, &start_name), &bounds, (0, 0.0))
        .map_err(|err| anyhow::anyhow!("the proofs contradict each other: {err}"))?;
    // The cost: every proof a bound of the map rests on.
    let used: std::collections::BTreeSet<&String> = result
        .openings
        .iter()
        .flat_map(|o| o.lower_proofs.iter().chain(&o.upper_proofs))
        .chain(result.lower_proofs.iter().chain(&result.upper_proofs))
        .collect();
    let costs = mine.iter().filter(|p| used.contains(&p.dir));
    (result.nodes, result.seconds) = costs.fold((0, 0.0), |(n, s), p| (n + p.nodes, s + p.seconds));
    proof::map::write_map(&stem, result.clone()).map_err(|err| anyhow::anyhow!(err))?;
    if args.json {
        let left_out: Vec<_> =
            left_out.iter().map(|(dir, why)| json!({ "proof": dir.display().to_string(), "why": why })).collect();
        return Ok(format!(
            "{}\n",
            json!({ "map": result, "files": stem.display().to_string(), "not_counted": left_out })
        ));
    }
    let bounds = |lower: i32, upper: i32| kalah::jobs::Interval { lower, upper }.text(start.total_seeds());
    let proofs = |lower: &[String], upper: &[String]| {
        let mut names: Vec<&String> = lower.iter().chain(upper).collect();
        names.sort();
        names.dedup();
        names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ")
    };
    let mut text = format!(
        "{} ({} rules): {}   {}\n",
        describe_start(&start),
        rules,
        bounds(result.lower, result.upper),
        proofs(&result.lower_proofs, &result.upper_proofs)
    );
    for opening in &result.openings {
        text += &format!(
            "  turn {:<8} {:<10} {}\n",
            opening.moves,
            bounds(opening.lower, opening.upper),
            proofs(&opening.lower_proofs, &opening.upper_proofs)
        );
    }
    for (dir, why) in &left_out {
        text += &format!("not counted: {}: {why}\n", dir.display());
    }
    text += &format!("written: {}.jsonl and .csv\n", stem.display());
    Ok(text)
}
