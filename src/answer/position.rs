//! What every front end reports of a position: its value (exact, or bounds from proofs) and
//! every legal move's, each with what the move does; and, when no value came in time, what is
//! known all the same. `kalah query --json` and `/api/v1/position` serialise these types.

use serde::Serialize;

use super::wdl;
use crate::board::{Position, Side};
use crate::rules::Rules;

/// Where a position's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
        }
    }
}

/// What a legal move does, whatever it is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveEffect {
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

impl MoveEffect {
    /// What house `house` (0-based from the mover's left, a legal move) does at `position`.
    pub fn of(rules: &Rules, position: &Position, house: usize) -> MoveEffect {
        let mut after = *position;
        let outcome = after.play(rules, house);
        let bin = match position.to_move() {
            Side::South => house + 1,
            Side::North => position.houses() + 2 + house,
        };
        MoveEffect {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LegalMove {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// What it does.
    #[serde(flatten)]
    pub effect: MoveEffect,
}

/// Every legal move of `position` (none once the game is over), by house.
pub fn legal_moves(rules: &Rules, position: &Position) -> Vec<LegalMove> {
    if position.is_over(rules) {
        return Vec::new();
    }
    position
        .legal_moves()
        .map(|house| LegalMove { house: house + 1, effect: MoveEffect::of(rules, position, house) })
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// What it does.
    #[serde(flatten)]
    pub effect: MoveEffect,
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
            effect: MoveEffect::of(rules, position, house),
            value: v,
            best: v == value,
        })
        .collect();
    moves.sort_by_key(|m| (-m.value, m.house));
    moves
}

/// A position analysed: its exact value and every legal move's.
#[derive(Clone, Debug, Serialize)]
pub struct PositionAnswer {
    /// Exact value for the side to move, stores included.
    pub value: i32,
    /// [`wdl`] of the value.
    pub wdl: &'static str,
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveBounds {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// What it does.
    #[serde(flatten)]
    pub effect: MoveEffect,
    /// The mover's value after it as far as proofs establish it (`value`, `lower`, `upper` and
    /// the proofs behind each bound).
    #[serde(flatten)]
    pub known: ProvenValue,
    /// It is proven to keep the position's value: exact, and equal to it.
    pub best: bool,
}

/// A value as far as checked proofs establish it: its bounds, exact once they meet, and the
/// proofs each bound rests on (none where the rules alone give it: all the game's seeds).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProvenValue {
    /// The exact value, once its bounds meet.
    pub value: Option<i32>,
    /// The value is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
    /// The proofs behind `lower`, sorted.
    pub lower_proofs: Vec<String>,
    /// The proofs behind `upper`, sorted.
    pub upper_proofs: Vec<String>,
}

impl ProvenValue {
    /// `lower..=upper`, resting on these proofs.
    pub fn new(lower: i32, upper: i32, mut lower_proofs: Vec<String>, mut upper_proofs: Vec<String>) -> ProvenValue {
        for proofs in [&mut lower_proofs, &mut upper_proofs] {
            proofs.sort_unstable();
            proofs.dedup();
        }
        ProvenValue { value: (lower == upper).then_some(lower), lower, upper, lower_proofs, upper_proofs }
    }

    /// The same value seen by the other side.
    pub fn negated(&self) -> ProvenValue {
        ProvenValue::new(-self.upper, -self.lower, self.upper_proofs.clone(), self.lower_proofs.clone())
    }

    /// What is proven of the larger of two values (a choice between two moves): the larger lower
    /// bound with the proofs of whichever gives it (`self`'s on a tie), and the larger upper bound,
    /// which needs both upper bounds, so both sets of proofs.
    pub fn or_better(&self, other: &ProvenValue) -> ProvenValue {
        let lower = if other.lower > self.lower { other } else { self };
        let upper_proofs = self.upper_proofs.iter().chain(&other.upper_proofs).cloned().collect();
        ProvenValue::new(lower.lower, self.upper.max(other.upper), lower.lower_proofs.clone(), upper_proofs)
    }

    /// What two sets of bounds on the same value prove together: the tighter bound on each side,
    /// with its proofs (`own`'s on a tie); an error where they contradict each other.
    pub fn narrowed_by(&self, own: &ProvenValue) -> Result<ProvenValue, String> {
        let lower = if own.lower >= self.lower { own } else { self };
        let upper = if own.upper <= self.upper { own } else { self };
        if lower.lower > upper.upper {
            return Err(format!(
                "bounds {}..{} contradict bounds {}..{}",
                own.lower, own.upper, self.lower, self.upper
            ));
        }
        Ok(ProvenValue::new(lower.lower, upper.upper, lower.lower_proofs.clone(), upper.upper_proofs.clone()))
    }
}

/// A position as far as checked proofs establish it: its value's bounds (exact when they meet)
/// and every legal move's, with the proofs named. What the front ends report for the 6x6 starts,
/// which no search answers in a request's time.
#[derive(Clone, Debug, Serialize)]
pub struct BoundedAnswer {
    /// The value for the side to move, stores included, as far as proofs establish it (`value`
    /// once both bounds meet, `lower`, `upper` and the proofs behind each bound).
    #[serde(flatten)]
    pub known: ProvenValue,
    /// [`wdl`] where the bounds decide it: a win once the lower bound is above 0, a loss once the
    /// upper bound is below, a draw when both are 0.
    pub wdl: Option<&'static str>,
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
    pub fn new(
        rules: &Rules,
        position: &Position,
        known: ProvenValue,
        moves: &[(usize, ProvenValue)],
    ) -> BoundedAnswer {
        let wdl = match (known.lower, known.upper) {
            (l, _) if l > 0 => Some(wdl(1)),
            (_, u) if u < 0 => Some(wdl(-1)),
            (0, 0) => Some(wdl(0)),
            _ => None,
        };
        let mut proofs: Vec<String> = [&known]
            .into_iter()
            .chain(moves.iter().map(|(_, m)| m))
            .flat_map(|k| k.lower_proofs.iter().chain(&k.upper_proofs).cloned())
            .collect();
        proofs.sort_unstable();
        proofs.dedup();
        let mut moves: Vec<MoveBounds> = moves
            .iter()
            .map(|(house, bounds)| MoveBounds {
                house: house + 1,
                effect: MoveEffect::of(rules, position, *house),
                known: bounds.clone(),
                best: bounds.value.is_some() && bounds.value == known.value,
            })
            .collect();
        moves.sort_by_key(|m| (-m.known.lower, -m.known.upper, m.house));
        BoundedAnswer { known, wdl, game_over: false, moves, source: Source::Proof, proofs, nodes: 0, seconds: 0.0 }
    }

    /// The value as words: `+4`, `at least +2`, `at most +4`, `between -2 and +4`, or `not known`
    /// when both bounds are the game's `total` seeds.
    pub fn text(lower: i32, upper: i32, total: i32) -> String {
        let signed = |v: i32| if v > 0 { format!("+{v}") } else { v.to_string() };
        match (lower == upper, lower > -total, upper < total) {
            (true, _, _) => signed(lower),
            (false, true, false) => format!("at least {}", signed(lower)),
            (false, false, true) => format!("at most {}", signed(upper)),
            (false, true, true) => format!("between {} and {}", signed(lower), signed(upper)),
            (false, false, false) => "not known".to_string(),
        }
    }
}

/// A position's value: exact, or bounds from proofs.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// The exact value, from the book, a database, a search or the rules.
    Exact(PositionAnswer),
    /// Bounds from checked proofs.
    Bounded(BoundedAnswer),
}

/// A position's answer as every front end reports it (`kalah query --json`, `/api/v1/position`):
/// the position and rules asked about, then the answer's fields.
#[derive(Clone, Debug, Serialize)]
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

/// Bounds on a value, stores included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bounds {
    /// The value is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
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

#[cfg(test)]
mod tests {
    use super::ProvenValue;

    fn proven(lower: i32, upper: i32, lower_proofs: &[&str], upper_proofs: &[&str]) -> ProvenValue {
        let names = |list: &[&str]| list.iter().map(|p| p.to_string()).collect();
        ProvenValue::new(lower, upper, names(lower_proofs), names(upper_proofs))
    }

    #[test]
    fn each_bound_keeps_the_proofs_it_rests_on() {
        let (a, b) = (proven(2, 4, &["ge-2"], &["le-4"]), proven(0, 6, &["ge-0"], &["le-6"]));
        // The better of two moves: the larger lower bound with its own proof; the larger upper
        // bound needs both.
        assert_eq!(a.or_better(&b), proven(2, 6, &["ge-2"], &["le-4", "le-6"]));
        assert_eq!(b.or_better(&a), proven(2, 6, &["ge-2"], &["le-6", "le-4"]));
        // On a tie the first one's proof is enough.
        assert_eq!(a.or_better(&proven(2, 2, &["other-ge-2"], &["other-le-2"])).lower_proofs, ["ge-2"]);
        // Two sets of bounds on one value: the tighter of each, the own ones on a tie.
        let own = proven(2, 6, &["own-ge-2"], &["own-le-6"]);
        assert_eq!(a.narrowed_by(&own).unwrap(), proven(2, 4, &["own-ge-2"], &["le-4"]));
        assert!(a.narrowed_by(&proven(6, 8, &["ge-6"], &[])).unwrap_err().contains("contradict"));
        // The other side's view swaps the bounds and their proofs.
        assert_eq!(a.negated(), proven(-4, -2, &["le-4"], &["ge-2"]));
        assert_eq!(proven(4, 4, &[], &[]).value, Some(4));
    }
}
