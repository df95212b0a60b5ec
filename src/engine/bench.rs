//! The benchmark of `kalah bench`: fixed starts solved for their value alone, each with a fresh
//! table. Node counts depend only on the rules, the table size and the database's size, so they
//! repeat run to run (on one thread).

use std::time::Instant;

use serde::Serialize;

use super::{Prepared, table_bytes};
use crate::answer::signed;
use crate::board::Position;
use crate::database::Database;
use crate::rules::Rules;
use crate::search::{SearchError, SearchOptions};

/// The benchmark's starts: rule set, start, and whether it needs the 6-house database (skipped
/// when it is not there).
pub const BENCH_STARTS: [(&str, &str, bool); 6] = [
    ("standard", "4x4", false),
    ("empty-capture", "5x3", false),
    ("standard", "6x3", true),
    ("empty-capture", "6x3", true),
    ("empty-capture", "6x4", true),
    ("standard", "6x4", true),
];

/// One start of the benchmark, solved.
#[derive(Clone, Debug, Serialize)]
pub struct Benched {
    /// The rule set's name.
    pub rules: &'static str,
    /// The start (`6x4`).
    pub start: &'static str,
    /// Its value.
    pub value: i32,
    /// Positions expanded.
    pub nodes: u64,
    /// Positions the database answered.
    pub probes: u64,
    /// MTD(f) passes.
    pub passes: u64,
    /// Seconds it took.
    pub seconds: f64,
    /// The seeds up to which the database searched over holds every position.
    pub database_max_seeds: Option<usize>,
    /// The transposition table's size in MiB.
    pub table_mb: usize,
}

impl Benched {
    /// Solves `start` (named `start_name`) under `rules` (named `rules_name`) for its value
    /// alone, over `db` if given, with a fresh table of `table_mb` MiB (sized to the search when
    /// `None`) on `threads` threads.
    pub fn run(
        (rules_name, start_name): (&'static str, &'static str),
        rules: Rules,
        start: &Position,
        db: Option<Database>,
        table_mb: Option<usize>,
        threads: usize,
    ) -> Result<Benched, SearchError> {
        let table_bytes = table_bytes(table_mb, &rules, start, db.as_ref());
        let database_max_seeds = db.as_ref().map(|db| db.max_seeds());
        let prepared = Prepared::new(rules, db, SearchOptions { table_bytes, deadline: None, threads });
        let clock = Instant::now();
        let (value, stats) = prepared.value(start)?;
        Ok(Benched {
            rules: rules_name,
            start: start_name,
            value,
            nodes: stats.nodes,
            probes: stats.probes,
            passes: stats.passes,
            seconds: clock.elapsed().as_secs_f64(),
            database_max_seeds,
            table_mb: table_bytes >> 20,
        })
    }

    /// One line: the value, the work and the rate.
    pub fn text(&self) -> String {
        let database = self.database_max_seeds.map_or("no database".to_string(), |s| format!("database <= {s} seeds"));
        format!(
            "{:<14} {:<4} value {:>3}  {:>11} nodes {:>11} probes {:>8.3} s {:>6.2} M nodes/s  ({database}, {} MiB table)\n",
            self.rules,
            self.start,
            signed(self.value),
            self.nodes,
            self.probes,
            self.seconds,
            self.nodes as f64 / self.seconds / 1e6,
            self.table_mb,
        )
    }
}

/// The line of a start skipped for want of its database.
pub fn skipped_text(rules_name: &str, start_name: &str, houses: usize) -> String {
    format!(
        "{rules_name:<14} {start_name:<4} skipped: needs `kalah build --houses {houses} --max-seeds 24 --rules {rules_name}`\n"
    )
}
