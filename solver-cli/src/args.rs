//! The flags and arguments several commands share, and the error for bad input (exit code 2).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use kalah::Position;
use kalah::database::Layout;
use kalah::engine::{self, Databases};
use kalah::notation;
use kalah::rules::{Capture, Direction, EarlyEnd, End, Remaining, Rules, Sowing};

use crate::limits;

/// The rule system: a named set, then any dimension overridden.
#[derive(Args, Clone)]
pub struct RulesArgs {
    /// Named rule set: standard, empty-capture (alias irving), bga, swedish, wetherell; may be
    /// followed by overrides, e.g. "bga capture=empty".
    #[arg(long, value_name = "NAME", default_value = "standard")]
    pub rules: Rules,
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
    pub fn resolve(&self) -> Rules {
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

/// Bad input from the user, already rendered for the terminal: exit code 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

pub fn input_error(message: impl Into<String>) -> anyhow::Error {
    InputError(message.into()).into()
}

/// The start argument of a command: `MxN` or a position.
pub fn parse_start(text: &str) -> anyhow::Result<Position> {
    notation::parse_start(text).map_err(|err| input_error(format!("bad start: {}", err.render(text))))
}

/// Where databases live.
#[derive(Args, Clone)]
pub struct DbArgs {
    /// Database root directory (one subdirectory per rule set and board size).
    #[arg(long, value_name = "DIR", env = "KALAH_DB", default_value = kalah::database::DEFAULT_ROOT)]
    pub db: PathBuf,
    /// How layers are held in memory: packed (about 4.2-4.5 bits a position), bytes (a byte each,
    /// read twice as fast), or auto (bytes when they take at most a quarter of the memory).
    #[arg(long, value_name = "LAYOUT", env = "KALAH_DB_LAYOUT", default_value = "auto", value_parser = limits::layout)]
    pub db_layout: Layout,
}

/// How a search runs: its database, its memory and its time.
#[derive(Args, Clone)]
pub struct SearchArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// Search without endgame databases (and never build one).
    #[arg(long)]
    pub no_db: bool,
    /// Transposition table size in MiB [default: sized to the search: 64 MiB at 24 seeds beyond
    /// the database (under clockwise sowing, on the board), twice as much for every 3 seeds more,
    /// from 16 MiB to 1 GiB].
    #[arg(long, value_name = "MIB", value_parser = limits::table_mib)]
    pub table_mb: Option<usize>,
    /// Give up (exit 1, no value) after this many seconds.
    #[arg(long, value_name = "S", value_parser = limits::seconds)]
    pub time_limit: Option<Duration>,
    /// Search threads sharing the table (default: all cores).
    #[arg(long, value_name = "N", value_parser = limits::threads)]
    pub threads: Option<usize>,
}

impl SearchArgs {
    /// The engine's setup these options ask for.
    pub fn setup(&self) -> engine::Setup {
        let databases = Databases {
            root: self.db.db.clone(),
            enabled: !self.no_db,
            layout: self.db.db_layout,
            keep_free_bytes: engine::keep_free_bytes(self.table_mb),
        };
        let threads = self.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        engine::Setup { databases, table_mb: self.table_mb, threads }
    }
}
