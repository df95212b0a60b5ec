//! Exact solving of Kalah (mancala).
//!
//! The modules follow the data flow: [`rules`] (the rule systems as one explicit value) →
//! [`board`] (positions and moves) → [`moves`] (what a move does to values) → [`notation`] (text
//! forms) → [`game`] (played games and replays) → [`answer`] (what a solve or a query reports) →
//! [`solve`] (the exact reference solver) → [`index`] (dense layer indexes) → [`database`]
//! (endgame databases: build, file format, probing, verification) → [`search`] (MTD(f) search
//! probing the databases) → [`engine`] (the database and table a search gets, and what a service
//! keeps) → [`jobs`] and [`proof`] (batch solves and proofs that grow across runs and machines).
//! [`results`] is the format of the result files the jobs and the proofs' maps write and the
//! opening book reads. [`published`] holds the published values they must reproduce;
//! [`atomic`], [`jsonl`], [`lock`] and [`memory`] are the file and machine helpers they share.
//! The claims proofs make are [`proof::Claim`]s.
//!
//! A library user mostly needs the names re-exported here: a [`Position`] under [`Rules`], the
//! reference [`Solver`], and the one way every front end asks a question: an
//! [`engine::Setup`] prepares searches ([`Prepared`]) after [`ProvenIndex::answer`] has looked in
//! the [`OpeningBook`] and the proofs, and the answers are the serde types of [`answer`]
//! ([`PositionReport`], [`Mainline`], [`StartReport`]).
//!
//! One value convention holds everywhere: a value is the final store difference *for the side to
//! move* under perfect play, each side maximising its own final margin.
//!
//! A front end asks [`ProvenIndex::answer`] first (the index of everything proven),
//! and searches only where it has nothing ([`engine::Setup`], then [`Prepared::report`]); a
//! program that only needs small games' values can use the reference [`Solver`]:
//!
//! ```
//! use kalah::{Notation, Position, ProvenIndex, Rules, Solver, parse_position, replay};
//!
//! // A game played by the rules: South's 1, then North's 2, whose last seed lands in North's
//! // store, so North moves again.
//! let game = replay(Rules::STANDARD, Position::start(4, 3)?, "1 2", Notation::Canonical)?;
//! assert_eq!(game.position().to_string(), "0 4 4 4 0 3 0 4 4 1 N");
//! // Its exact value for North, to move there, by the reference solver.
//! let value = Solver::new(Rules::STANDARD)?.value(game.position());
//! assert!((-24..=24).contains(&value));
//!
//! // Standard Kalah(6,6) after South's 2 and North's 1: a node of the checked proofs, answered
//! // at once with the bounds they prove and the proofs behind them.
//! let index = ProvenIndex::shipped()?;
//! let position = parse_position("7 0 7 7 7 7 1 0 7 7 7 7 7 1 S")?;
//! let known = index.bounds(&Rules::STANDARD, &position).expect("proven");
//! assert_eq!((known.bounds.lower, known.bounds.upper), (2, 4));
//! assert!(index.answer(&Rules::STANDARD, &position).is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

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
pub mod input;
pub mod jobs;
pub mod jsonl;
pub mod lock;
pub mod memory;
pub mod moves;
pub mod notation;
pub mod proof;
pub mod published;
pub mod results;
pub mod rules;
pub mod search;
pub mod shard;
pub mod solve;

pub use answer::{Mainline, Opening, OpeningsTable, PositionReport, StartReport};
pub use board::{Outcome, Position, Side};
pub use database::Database;
pub use engine::book::OpeningBook;
pub use engine::{Prepared, ProvenIndex, StartWork};
pub use game::{Game, IllegalMove, ReplayError, ReplayFailure, replay};
pub use notation::{Notation, ParseError, parse_position, parse_start};
pub use rules::Rules;
pub use solve::{Solver, analyse};
