//! The `kalah` command: parses flags into a validated request, calls the library, prints text or
//! JSON. Results go to stdout, warnings to stderr. Exit codes: 0 success (also when stdout is a
//! closed pipe), 2 bad input (unreadable position or moves, unknown rule, illegal move), 1 other
//! failures.

mod database;
mod interrupt;
mod jobs;
mod limits;
mod proof;
mod search;
mod serve;

use clap::{Args, Parser, Subcommand};
use kalah::board::Side;
use kalah::notation::{self, Notation};
use kalah::rules::{Capture, Direction, EarlyEnd, End, RULE_SETS, Remaining, Rules, Sowing};
use kalah::{Game, Position, ReplayFailure};
use serde_json::json;
use std::io::Write;
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

/// The rule system: a named set, then any dimension overridden.
#[derive(Args, Clone)]
struct RulesArgs {
    /// Named rule set: standard, empty-capture (alias irving), bga, swedish, wetherell; may be
    /// followed by overrides, e.g. "bga capture=empty".
    #[arg(long, value_name = "NAME", default_value = "standard")]
    rules: Rules,
    /// Capture rule: standard, empty, none, two-or-three.
    #[arg(long, value_name = "RULE")]
    capture: Option<Capture>,
    /// When the game ends: either-empty, mover-cannot-move.
    #[arg(long, value_name = "RULE")]
    end: Option<End>,
    /// Seeds left in the houses at the end: owner, discard.
    #[arg(long, value_name = "RULE")]
    remaining: Option<Remaining>,
    /// Sowing: single, relay, go-again.
    #[arg(long, value_name = "RULE")]
    sowing: Option<Sowing>,
    /// Sowing direction: ccw, cw.
    #[arg(long, value_name = "DIR")]
    direction: Option<Direction>,
    /// Early end when a store holds more than half of all seeds: none, half.
    #[arg(long, value_name = "RULE")]
    early_end: Option<EarlyEnd>,
    /// Extra turn for a last seed in the own store: on, off.
    #[arg(long, value_name = "on|off", value_parser = kalah::rules::parse_on_off)]
    extra_turn: Option<bool>,
    /// Pie rule: North may swap sides after South's first turn.
    #[arg(long)]
    pie: bool,
}

impl RulesArgs {
    fn resolve(&self) -> Rules {
        let base = self.rules;
        Rules {
            capture: self.capture.unwrap_or(base.capture),
            end: self.end.unwrap_or(base.end),
            remaining: self.remaining.unwrap_or(base.remaining),
            sowing: self.sowing.unwrap_or(base.sowing),
            direction: self.direction.unwrap_or(base.direction),
            early_end: self.early_end.unwrap_or(base.early_end),
            extra_turn: self.extra_turn.unwrap_or(base.extra_turn),
            pie: self.pie || base.pie,
        }
    }
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

/// Bad input from the user, already rendered for the terminal: exit code 2.
#[derive(Debug)]
struct InputError(String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

fn input_error(message: impl Into<String>) -> anyhow::Error {
    InputError(message.into()).into()
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
            eprintln!("error: {}", error_text(&err));
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

pub(crate) fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn parse_start(text: &str) -> anyhow::Result<Position> {
    notation::parse_start(text).map_err(|err| input_error(format!("bad start: {}", err.render(text))))
}

/// "Kalah(6,4)" for a standard start, else the position text.
fn describe_start(position: &Position) -> String {
    let m = position.houses();
    let seeds = u32::from(position.mover_houses()[0]);
    match Position::start(m, seeds) {
        Ok(start) if start == *position => format!("Kalah({m},{seeds})"),
        _ => position.to_string(),
    }
}

fn signed(value: i32) -> String {
    if value > 0 { format!("+{value}") } else { value.to_string() }
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
        let turns: Vec<_> = game
            .turns()
            .iter()
            .map(|turn| {
                let moves = turn.moves_text(Notation::Canonical, position.houses());
                json!({ "side": turn.side, "moves": moves, "captured": turn.captured, "position": turn.position })
            })
            .collect();
        let value = json!({
            "rules": rules.to_string(),
            "rule_dimensions": rules,
            "start": game.start(),
            "moves": game.moves_text(Notation::Canonical),
            "turns": turns,
            "position": position,
            "over": game.is_over(),
            "to_move": (!game.is_over()).then(|| position.to_move()),
            "south": south,
            "north": north,
            "margin": game.south_margin(),
            "ended_early": game.ended_early(),
            "swapped": game.swapped(),
        });
        return Ok(format!("{value}\n"));
    }
    Ok(replay_text(&game))
}

fn replay_text(game: &Game) -> String {
    let position = game.position();
    let mut text = format!("{}, rules {}\n", describe_start(game.start()), game.rules());
    text += &format!("{:>4}  {:<5}  {:<12}  {}\n", "", "start", "", game.start());
    for (i, turn) in game.turns().iter().enumerate() {
        let moves = turn.moves_text(Notation::Canonical, position.houses());
        let capture = if turn.captured > 0 { format!("  captures {}", turn.captured) } else { String::new() };
        text += &format!("{:>4}. {:<5}  {moves:<12}  {}{capture}\n", i + 1, turn.side.name(), turn.position);
    }
    text += "\n";
    text += &notation::diagram(position);
    let (south, north) = (position.store(Side::South), position.store(Side::North));
    let margin = game.south_margin();
    if game.is_over() {
        let how = if game.ended_early() { " early (a store holds more than half of all seeds)" } else { "" };
        let result = match margin.signum() {
            1 => format!("South wins by {margin}"),
            -1 => format!("North wins by {}", -margin),
            _ => "draw".to_string(),
        };
        text += &format!("game over{how}: South {south}, North {north}, {result} (margin {})\n", signed(margin));
    } else {
        text += &format!(
            "{} to move; stores South {south}, North {north} (margin {})\n",
            position.to_move().name(),
            signed(margin)
        );
    }
    if game.swapped() {
        text += "North swapped sides: the first player now plays North.\n";
    }
    text
}

fn list_rules(args: &RulesListArgs) -> anyhow::Result<String> {
    if args.json {
        let value: serde_json::Map<String, serde_json::Value> =
            RULE_SETS.iter().map(|(name, rules)| (name.to_string(), json!(rules))).collect();
        return Ok(format!("{}\n", serde_json::Value::Object(value)));
    }
    let mut text = String::from("named rule sets (override any dimension with its flag, e.g. --capture empty):\n");
    for (name, rules) in RULE_SETS {
        text += &format!("  {name:<14} {}\n", rules.dimensions());
    }
    text += "  irving         alias of empty-capture\n";
    Ok(text)
}
