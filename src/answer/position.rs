//! What every front end reports of a position: its value (exact, or bounds from proofs) and
//! every legal move's, each with what the move does; and, when no value came in time, what is
//! known all the same. `kalah query --json` and `/api/v1/position` serialise these types.

use serde::{Deserialize, Serialize};

use super::Wdl;
use super::bounds::{Bounds, Proven, sorted_names};
use crate::board::{Position, Side};
use crate::rules::Rules;

/// Where a position's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The game is over: the rules give the final margin.
    Rules,
    /// The endgame database holds the position.
    Database,
    /// The search proved it.
    Search,
    /// The shipped result tables hold it (the opening book).
    Book,
    /// Checked proofs establish it (the openings map that `kalah proof map` writes).
    Proof,
    /// A result file given at run time (`kalah serve --book`) claims it, naming proofs this
    /// program has not checked.
    Claimed,
}

impl Source {
    /// The name used in text and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Source::Rules => "rules",
            Source::Database => "database",
            Source::Search => "search",
            Source::Book => "book",
            Source::Proof => "proof",
            Source::Claimed => "claimed",
        }
    }
}

/// What a legal move does, whatever it is worth: the facts an answer reports of it (the search's
/// own [`crate::moves::MoveEffect`] is its working copy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveFacts {
    /// The bin it is sown from, in the notation's numbering (South 1..m, North m+2..2m+1).
    pub bin: usize,
    /// The mover moves again.
    pub extra_turn: bool,
    /// It captures.
    pub capture: bool,
    /// Seeds it captures into the mover's store, the capturing seed included.
    pub captured: u8,
    /// It ends the game.
    pub game_over: bool,
    /// The position after it.
    pub position: Position,
}

impl MoveFacts {
    /// What house `house` (0-based from the mover's left, a legal move) does at `position`.
    pub fn of(rules: &Rules, position: &Position, house: usize) -> MoveFacts {
        let mut after = *position;
        let outcome = after.play(rules, house);
        let bin = match position.to_move() {
            Side::South => house + 1,
            Side::North => position.houses() + 2 + house,
        };
        MoveFacts {
            bin,
            extra_turn: outcome.extra_turn,
            capture: outcome.captured > 0,
            captured: outcome.captured,
            game_over: outcome.over,
            position: after,
        }
    }
}

/// A legal move and what it does, without a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalMove {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// What it does.
    #[serde(flatten)]
    pub effect: MoveFacts,
}

/// Every legal move of `position` (none once the game is over), by house.
pub fn legal_moves(rules: &Rules, position: &Position) -> Vec<LegalMove> {
    if position.is_over(rules) {
        return Vec::new();
    }
    position
        .legal_moves()
        .map(|house| LegalMove { house: house + 1, effect: MoveFacts::of(rules, position, house) })
        .collect()
}

/// A position's legal moves, as `/api/v1/moves` reports them: what a client replaying a game
/// needs, never searched.
#[derive(Clone, Debug, Serialize)]
pub struct PositionMoves {
    /// The position asked about.
    pub position: Position,
    /// The rules' text.
    pub rules: String,
    /// The side to move.
    pub to_move: Side,
    /// No move is left.
    pub game_over: bool,
    /// Every legal move, by house.
    pub moves: Vec<LegalMove>,
}

impl PositionMoves {
    /// `position`'s legal moves under `rules`.
    pub fn new(rules: &Rules, position: &Position) -> PositionMoves {
        PositionMoves {
            position: *position,
            rules: rules.to_string(),
            to_move: position.to_move(),
            game_over: position.is_over(rules),
            moves: legal_moves(rules, position),
        }
    }
}

/// One legal move of an analysed position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveValue {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// What it does.
    #[serde(flatten)]
    pub effect: MoveFacts,
    /// The exact value of the position after it, for the mover, stores included.
    pub value: i32,
    /// It keeps the position's value.
    pub best: bool,
}

/// Every move's value as reported: `values` of `position`'s moves by house 0..m, each marked
/// best when it keeps the position's `value`, best first, then by house.
pub(crate) fn moves_best_first(
    rules: &Rules,
    position: &Position,
    values: &[(usize, i32)],
    value: i32,
) -> Vec<MoveValue> {
    let mut moves: Vec<MoveValue> = values
        .iter()
        .map(|&(house, v)| MoveValue {
            house: house + 1,
            effect: MoveFacts::of(rules, position, house),
            value: v,
            best: v == value,
        })
        .collect();
    moves.sort_by_key(|m| (-m.value, m.house));
    moves
}

/// A position analysed: its exact value and every legal move's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PositionAnswer {
    /// Exact value for the side to move, stores included.
    pub value: i32,
    /// [`wdl`] of the value.
    pub wdl: Wdl,
    /// No move is left: the value is the final margin.
    pub game_over: bool,
    /// Every legal move, best first, then by house.
    pub moves: Vec<MoveValue>,
    /// Where the value came from.
    pub source: Source,
    /// Positions searched for this answer.
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
}

/// One legal move of a position known by bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveBounds {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// What it does.
    #[serde(flatten)]
    pub effect: MoveFacts,
    /// The mover's value after it as far as proofs establish it (`value`, `lower`, `upper` and
    /// the proofs behind each bound).
    #[serde(flatten)]
    pub known: Proven,
    /// It is proven to keep the position's value: exact, and equal to it.
    pub best: bool,
}

/// A position as far as checked proofs establish it: its value's bounds (exact when they meet)
/// and every legal move's, with the proofs named. What the front ends report for the 6x6 starts,
/// which no search answers in a request's time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundedAnswer {
    /// The value for the side to move, stores included, as far as proofs establish it (`value`
    /// once both bounds meet, `lower`, `upper` and the proofs behind each bound).
    #[serde(flatten)]
    pub known: Proven,
    /// [`wdl`] where the bounds decide it: a win once the lower bound is above 0, a loss once the
    /// upper bound is below, a draw when both are 0.
    pub wdl: Option<Wdl>,
    /// No move is left (never, for the positions proofs map).
    pub game_over: bool,
    /// Every legal move, best first (by lower bound, then upper), then by house.
    pub moves: Vec<MoveBounds>,
    /// Where the bounds came from.
    pub source: Source,
    /// Every proof behind this answer's bounds, the moves' included, sorted.
    pub proofs: Vec<String>,
    /// Positions searched for this answer (none).
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
}

impl BoundedAnswer {
    /// The answer at `position`: its value as far as proofs establish it, and each legal move's
    /// (by house 0..m).
    pub fn new(rules: &Rules, position: &Position, known: Proven, moves: &[(usize, Proven)]) -> BoundedAnswer {
        let wdl = known.bounds.wdl();
        let proofs =
            sorted_names([&known].into_iter().chain(moves.iter().map(|(_, m)| m)).flat_map(|k| k.proofs()).collect());
        let mut moves: Vec<MoveBounds> = moves
            .iter()
            .map(|(house, bounds)| MoveBounds {
                house: house + 1,
                effect: MoveFacts::of(rules, position, *house),
                known: bounds.clone(),
                best: bounds.value().is_some() && bounds.value() == known.value(),
            })
            .collect();
        moves.sort_by_key(|m| (-m.known.bounds.lower, -m.known.bounds.upper, m.house));
        BoundedAnswer { known, wdl, game_over: false, moves, source: Source::Proof, proofs, nodes: 0, seconds: 0.0 }
    }
}

/// A position's value: exact, or bounds from proofs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// The exact value, from the book, a database, a search or the rules.
    Exact(PositionAnswer),
    /// Bounds from checked proofs.
    Bounded(BoundedAnswer),
}

/// A position's answer as every front end reports it (`kalah query --json`, `/api/v1/position`):
/// the position and rules asked about, then the answer's fields.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PositionReport {
    /// The position asked about.
    pub position: Position,
    /// The rules' text.
    pub rules: String,
    /// Houses a side.
    pub houses: usize,
    /// The side to move.
    pub to_move: Side,
    /// The answer's fields.
    #[serde(flatten)]
    pub answer: Answer,
    /// The seeds up to which the database searched over holds every position (`None`: none
    /// was, or none was needed).
    pub database_max_seeds: Option<usize>,
    /// The service gave this answer before (never, from `kalah query`).
    pub cached: bool,
}

impl PositionReport {
    /// `answer` for `position` under `rules`, searched over a database of `database_max_seeds`.
    pub fn new(
        rules: &Rules,
        position: &Position,
        answer: Answer,
        database_max_seeds: Option<usize>,
    ) -> PositionReport {
        PositionReport {
            position: *position,
            rules: rules.to_string(),
            houses: position.houses(),
            to_move: position.to_move(),
            answer,
            database_max_seeds,
            cached: false,
        }
    }

    /// Whether this answer can be right for `position` under `rules` (what a service checks of an
    /// answer it kept before serving it again): about that position and rules, exact (bounds are
    /// answered from the proofs, never kept), and passing [`PositionAnswer::check`].
    pub fn check(&self, rules: &Rules, position: &Position) -> Result<(), String> {
        let asked = (*position, rules.to_string(), position.houses(), position.to_move());
        if (self.position, self.rules.clone(), self.houses, self.to_move) != asked {
            return Err(format!("not an answer for {position} under {rules}"));
        }
        match &self.answer {
            Answer::Exact(answer) => answer.check(rules, position),
            Answer::Bounded(_) => Err("bounds are answered from the proofs, never kept".to_string()),
        }
    }
}

impl PositionAnswer {
    /// The answer at `position` (a game not over) from every legal move's exact value for the
    /// mover (`values`, by house 0..m), found with no search: the value the best move's. `None`
    /// without moves.
    pub(crate) fn from_move_values(
        rules: &Rules,
        position: &Position,
        values: &[(usize, i32)],
        source: Source,
    ) -> Option<PositionAnswer> {
        let value = values.iter().map(|&(_, v)| v).max()?;
        let moves = moves_best_first(rules, position, values, value);
        Some(PositionAnswer { value, wdl: super::wdl(value), game_over: false, moves, source, nodes: 0, seconds: 0.0 })
    }

    /// Whether this answer can be right at `position` under `rules`: every value one the seeds on
    /// the board allow, the moves exactly the legal ones, each doing what the rules say and marked
    /// best as its value says, the value the best move's (a finished game's final margin, with no
    /// moves), its win, draw or loss the value's. (A value can still be wrong in a way only a
    /// search would tell: what this catches is an answer that cannot be right.)
    pub fn check(&self, rules: &Rules, position: &Position) -> Result<(), String> {
        super::possible_value(rules, position, self.value, "the value")?;
        if self.wdl != super::wdl(self.value) {
            return Err(format!("the value {} is not a {}", self.value, self.wdl));
        }
        if self.game_over != position.is_over(rules) {
            let says = if self.game_over { "over" } else { "not over" };
            return Err(format!("the answer says the game is {says} at {position}, and it is not"));
        }
        if position.is_over(rules) {
            return match self.moves.is_empty() && self.value == position.final_margin(rules) {
                true => Ok(()),
                false => Err("a finished game's answer is not its final margin".to_string()),
            };
        }
        let mut values = Vec::new();
        for m in &self.moves {
            let house = m.house.checked_sub(1).filter(|h| position.legal_moves().any(|legal| legal == *h));
            let house = house.ok_or_else(|| format!("move {} is not legal at {position}", m.house))?;
            values.push((house, super::possible_value(rules, position, m.value, "a move's value")?));
        }
        let mut houses: Vec<usize> = values.iter().map(|&(house, _)| house).collect();
        houses.sort_unstable();
        if houses != position.legal_moves().collect::<Vec<_>>() {
            return Err("the moves are not the position's legal moves".to_string());
        }
        let best = values.iter().map(|&(_, value)| value).max().unwrap_or(i32::MIN);
        if best != self.value {
            return Err(format!("the value {} is not the best move's {best}", self.value));
        }
        if moves_best_first(rules, position, &values, self.value) != self.moves {
            return Err("a move does not do what the rules say, or is not marked best as its value says".to_string());
        }
        Ok(())
    }
}

/// A move that keeps a proven lower bound, found by search where no proof names one (past a
/// proof's leaf): what an engine playing the proofs' strategy plays there (`/api/v1/keeping-move`).
#[derive(Clone, Debug, Serialize)]
pub struct KeepingMove {
    /// The position.
    pub position: Position,
    /// The rules' text.
    pub rules: String,
    /// The move and what it does.
    #[serde(flatten)]
    pub played: LegalMove,
    /// What the position is proven to be worth for its mover, whose lower bound the move keeps
    /// (a zero-window test proved the move worth at least that).
    pub keeps: Proven,
    /// Positions searched.
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
}

impl KeepingMove {
    /// Playing `house` (from 0) at `position` keeps `keeps`'s lower bound, found with `nodes`
    /// searched in `seconds` (none where a proof names the move).
    pub fn new(
        rules: &Rules,
        position: &Position,
        house: usize,
        keeps: Proven,
        nodes: u64,
        seconds: f64,
    ) -> KeepingMove {
        KeepingMove {
            position: *position,
            rules: rules.to_string(),
            played: LegalMove { house: house + 1, effect: MoveFacts::of(rules, position, house) },
            keeps,
            nodes,
            seconds,
        }
    }
}

/// A move's cheap estimate, which proves nothing: what to play when no value came in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Estimate {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// Its estimated value for the mover, stores included.
    pub value: i32,
}

/// What is known of a position whose search did not finish: the bounds its zero-window tests
/// proved, and every move's estimate when time ran out.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Unfinished {
    /// The value's bounds proven before the search stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// Every legal move's estimate, best first (only when time ran out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub estimates: Vec<Estimate>,
}
