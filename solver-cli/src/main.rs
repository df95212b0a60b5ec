//! The `kalah` command: parses flags into a validated request, calls the library, prints text or
//! JSON. Results go to stdout, warnings to stderr. Exit codes: 0 success (also when stdout is a
//! closed pipe), 2 bad input (unreadable position or moves, unknown rule, illegal move), 1 other
//! failures.

mod args;
mod database;
mod interrupt;
mod jobs;
mod limits;
mod output;
mod proof;
mod search;
mod serve;

use args::{InputError, RulesArgs, input_error, parse_start};
use clap::{Args, Parser, Subcommand};
use kalah::ReplayFailure;
use kalah::board::Side;
use kalah::notation::Notation;
use kalah::rules::RULE_SETS;
use output::{json_line, tell, write_stdout};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "kalah", version, about = "Exact solver for Kalah (mancala)", propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a move sequence from a start and print each turn.
    Replay(ReplayArgs),
    /// Solve a start exactly: the first player's value and every opening's value.
    Solve(search::SolveArgs),
    /// List the named rule sets and what each dimension means.
    Rules(RulesListArgs),
    /// Build endgame databases layer by layer (resumes where an earlier build stopped).
    Build(database::BuildArgs),
    /// Describe the databases: layers, positions, bytes, bits per position, rules.
    Info(database::InfoArgs),
    /// Check every checksum and recompute a sample of positions from the layers below.
    Verify(database::VerifyArgs),
    /// Value of a position and of each of its moves: from the database, else by search.
    Query(search::QueryArgs),
    /// Regenerate the grid of start values and compare it with the published table.
    Table(search::TableArgs),
    /// Solve fixed starts and report nodes, probes and nodes per second.
    Bench(search::BenchArgs),
    /// Measure random database probes per second.
    ProbeBench(database::ProbeBenchArgs),
    /// Run a job file (or one shard of it): resumes from its log, writes data/results/NAME.csv.
    Run(jobs::RunArgs),
    /// Combine the logs of a job's shards into one log and one set of result files.
    Merge(jobs::MergeArgs),
    /// Serve the JSON API and the analysis board over HTTP.
    Serve(serve::ServeArgs),
    /// Proofs of a bound on a value that grow across runs, shards and machines.
    #[command(subcommand)]
    Proof(proof::ProofCommand),
}

#[derive(Args)]
struct ReplayArgs {
    /// Where to start: MxN (e.g. 6x4) or a position ("4 4 4 4 4 4 0 4 4 4 4 4 4 0 S").
    #[arg(long, value_name = "START", default_value = "6x4")]
    start: String,
    #[command(flatten)]
    rules: RulesArgs,
    /// How the moves are written: canonical (houses 1..m), irving (25-10-3), bins.
    #[arg(long, default_value = "canonical")]
    notation: Notation,
    /// Print one JSON object for the final state instead of text.
    #[arg(long)]
    json: bool,
    /// The moves, e.g. "3 6 2" (canonical), "25-1" (irving) or "3 6 9" (bins).
    moves: String,
}

#[derive(Args)]
struct RulesListArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Replay(args) => replay(&args),
        Command::Solve(args) => search::solve(&args),
        Command::Rules(args) => list_rules(&args),
        Command::Build(args) => database::build(&args),
        Command::Info(args) => database::info(&args),
        Command::Verify(args) => database::verify(&args),
        Command::Query(args) => search::query(&args),
        Command::Table(args) => search::table(&args),
        Command::Bench(args) => search::bench(&args),
        Command::ProbeBench(args) => database::probe_bench(&args),
        Command::Run(args) => jobs::run(&args),
        Command::Merge(args) => jobs::merge(&args),
        Command::Serve(args) => serve::serve(&args),
        Command::Proof(command) => proof::command(&command),
    };
    match result.and_then(|text| write_stdout(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if err.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) {
                return ExitCode::SUCCESS;
            }
            tell!("error: {}", error_text(&err));
            ExitCode::from(if err.is::<InputError>() { 2 } else { 1 })
        }
    }
}

/// The error with its causes, each said once: the library's errors name their cause in their
/// own text already (`path: what the system said`), and its source repeats it.
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            if !text.is_empty() {
                text += ": ";
            }
            text += &cause;
        }
    }
    text
}

fn replay(args: &ReplayArgs) -> anyhow::Result<String> {
    let rules = args.rules.resolve();
    let start = parse_start(&args.start)?;
    let game = kalah::replay(rules, start, &args.moves, args.notation).map_err(|err| match err {
        ReplayFailure::Parse(err) => input_error(format!("bad moves: {}", err.render(&args.moves))),
        ReplayFailure::Illegal(err) => input_error(format!("illegal move: {}", err.render(&args.moves))),
    })?;
    let position = game.position();
    let (south, north) = (position.store(Side::South), position.store(Side::North));
    if args.json {
        let turns = game
            .turns()
            .iter()
            .map(|turn| ReplayedTurn {
                side: turn.side,
                moves: turn.moves_text(Notation::Canonical, position.houses()),
                captured: turn.captured,
                position: turn.position,
            })
            .collect();
        return json_line(&Replayed {
            rules: rules.to_string(),
            rule_dimensions: rules,
            start: *game.start(),
            moves: game.moves_text(Notation::Canonical),
            turns,
            position: *position,
            over: game.is_over(),
            to_move: (!game.is_over()).then(|| position.to_move()),
            south,
            north,
            margin: game.south_margin(),
            ended_early: game.ended_early(),
            swapped: game.swapped(),
        });
    }
    Ok(game.text())
}

/// `kalah replay --json`.
#[derive(serde::Serialize)]
struct Replayed {
    rules: String,
    rule_dimensions: kalah::Rules,
    start: kalah::Position,
    moves: String,
    turns: Vec<ReplayedTurn>,
    position: kalah::Position,
    over: bool,
    to_move: Option<Side>,
    south: u8,
    north: u8,
    margin: i32,
    ended_early: bool,
    swapped: bool,
}

/// One turn of a replayed game.
#[derive(serde::Serialize)]
struct ReplayedTurn {
    side: Side,
    moves: String,
    captured: u32,
    position: kalah::Position,
}

fn list_rules(args: &RulesListArgs) -> anyhow::Result<String> {
    if args.json {
        let named: std::collections::BTreeMap<&str, &kalah::Rules> =
            RULE_SETS.iter().map(|(name, rules)| (*name, rules)).collect();
        return json_line(&named);
    }
    let mut text = String::from("named rule sets (override any dimension with its flag, e.g. --capture empty):\n");
    for (name, rules) in RULE_SETS {
        text += &format!("  {name:<14} {}\n", rules.dimensions());
    }
    text += "  irving         alias of empty-capture\n";
    text += "\nthe dimensions (flag --NAME VALUE, or NAME=VALUE after a rule set's name; docs/rules.md):\n";
    for (dimension, values) in kalah::rules::DIMENSIONS_EXPLAINED {
        text += &format!("  {dimension}\n");
        for (value, meaning) in values {
            text += &format!("    {value:<18} {meaning}\n");
        }
    }
    Ok(text)
}
