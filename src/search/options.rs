//! What a search is given and what it says back: its options, its counters, and why it gives no
//! answer.

use std::time::Instant;

use serde::Serialize;

use crate::database::DbError;

#[cfg(feature = "profile")]
use super::profile;

/// Why a search gives no answer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The database is for other rules or another board size.
    #[error("the database in {dir} is for {found}, not {expected}")]
    WrongDatabase {
        /// Its directory.
        dir: std::path::PathBuf,
        /// What the search needs.
        expected: String,
        /// What the database holds.
        found: String,
    },
    /// A database probe failed (a damaged or missing layer).
    #[error(transparent)]
    Database(#[from] DbError),
    /// A worker of a parallel split was told to stop because a sibling cut off; never returned
    /// by the public methods.
    #[doc(hidden)]
    #[error("stopped")]
    Stopped,
    /// The thread for a search through repeating positions could not be started.
    #[error("cannot start the search thread: {0}")]
    Thread(String),
    /// Under cycles, rounds with lines of this many moves still proved no bound: the position
    /// is too far above the database for the search.
    #[error(
        "the search through repeating positions followed lines of {moves} moves without proving a bound: \
         the position is too far above the database (build a larger one with kalah build --max-seeds)"
    )]
    LineTooLong {
        /// Moves on the longest lines searched.
        moves: usize,
    },
    /// No move keeps a position's proven value: the database's values contradict each other.
    #[error(
        "no move from {position} keeps its value: the database's values contradict each other (run `kalah verify --full`)"
    )]
    Inconsistent {
        /// The position.
        position: String,
    },
    /// The system refused the memory for the transposition table.
    #[error("cannot get {} MiB for the transposition table: {source}", bytes >> 20)]
    TableMemory {
        /// The table's size.
        bytes: usize,
        /// What the system said.
        source: std::io::Error,
    },
    /// The time limit passed before the value was proven.
    #[error("no exact value within the time limit ({nodes} nodes searched)")]
    TimeUp {
        /// Nodes searched until then.
        nodes: u64,
    },
    /// The flag given to `Search::set_cancel` was raised (the client went away).
    #[error("the search was cancelled ({nodes} nodes searched)")]
    Cancelled {
        /// Nodes searched until then.
        nodes: u64,
    },
    /// The node budget ([`Search::set_node_limit`](super::Search::set_node_limit)) ran out before the answer was proven.
    #[error("no answer within the node budget ({nodes} nodes searched)")]
    NodeLimit {
        /// Nodes searched until then.
        nodes: u64,
    },
}

/// How a [`Search`](super::Search) runs.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Memory for the transposition table.
    pub table_bytes: usize,
    /// Stop with [`SearchError::TimeUp`] once this instant has passed.
    pub deadline: Option<Instant>,
    /// Threads searching each zero-window test together, sharing the table (at least 1).
    pub threads: usize,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { table_bytes: 256 << 20, deadline: None, threads: 1 }
    }
}

impl SearchOptions {
    /// The transposition table a search from a position with `seeds_on_board` seeds is given
    /// when the user names no size, with a database of positions of up to `database_seeds` seeds
    /// (0 without one): 64 MiB at 24 seeds beyond the database, twice as much for every 3 seeds
    /// more, from 16 MiB to 1 GiB. A table costs its size before the first node (the system zeroes
    /// every page), so small searches get small tables.
    pub(crate) fn table_bytes_for(seeds_on_board: u32, database_seeds: u32) -> usize {
        let beyond = i64::from(seeds_on_board) - i64::from(database_seeds);
        let log2_mib = (6 + (beyond - 24).div_euclid(3)).clamp(4, 10);
        1 << (20 + log2_mib)
    }
}

/// Counters of a search, for reports and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Positions expanded by the alpha-beta search.
    pub nodes: u64,
    /// Positions answered by the endgame database.
    pub probes: u64,
    /// Zero-window searches started by MTD(f).
    pub passes: u64,
    /// Where the nodes went (builds with the `profile` feature).
    #[cfg(feature = "profile")]
    pub profile: profile::Profile,
}
