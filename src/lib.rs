//! Exact solving of Kalah (mancala).
//!
//! The modules follow the data flow: [`rules`] (the rule systems as one explicit value) →
//! [`board`] (positions and moves) → [`moves`] (what a move does to values) → [`notation`] (text
//! forms) → [`game`] (played games and replays) → [`answer`] (what a solve or a query reports) →
//! [`solve`] (the exact reference solver) → [`index`] (dense layer indexes) → [`database`]
//! (endgame databases: build, file format, probing, verification) → [`search`] (MTD(f) search
//! probing the databases) → [`engine`] (the database and table a search gets, and what a service
//! keeps) → [`jobs`] and [`proof`] (batch solves and proofs that grow across runs and machines).
//! [`published`] holds the published values they must reproduce; [`atomic`], [`jsonl`],
//! [`lock`] and [`memory`] are the file and machine helpers they share. The claims proofs make
//! are [`proof::Claim`]s.
//!
//! A library user mostly needs the names re-exported here: a [`Position`] under [`Rules`], the
//! reference [`Solver`], and the one way every front end asks a question: an
//! [`engine::Setup`] prepares searches ([`Prepared`]) after [`known_answer`] has looked in the
//! [`OpeningBook`] and the proofs, and the answers are the serde types of [`answer`]
//! ([`PositionReport`], [`Mainline`], [`StartReport`]).
//!
//! One value convention holds everywhere: a value is the final store difference *for the side to
//! move* under perfect play, each side maximising its own final margin.

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod answer;
pub mod atomic;
pub mod board;
pub(crate) mod claim;
mod cpu;
pub mod database;
pub mod engine;
pub mod game;
pub mod index;
pub mod jobs;
pub mod jsonl;
pub mod lock;
pub mod memory;
pub mod moves;
pub mod notation;
pub mod proof;
pub mod published;
pub mod rules;
pub mod search;
pub mod shard;
pub mod solve;

pub use answer::{Analysis, Mainline, Opening, PositionReport, StartReport};
pub use board::{Outcome, Position, Side};
pub use database::Database;
pub use engine::book::OpeningBook;
pub use engine::{Prepared, StartWork, known_answer};
pub use game::{Game, IllegalMove, ReplayError, ReplayFailure, replay};
pub use notation::{Notation, ParseError, parse_position, parse_start};
pub use rules::Rules;
pub use solve::{Solver, analyse};
