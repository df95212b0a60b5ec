//! What every front end reports: a solved start (its value and every opening's) and an analysed
//! position (its value and every move's), with one name for win, draw and loss.

use serde::Serialize;

use crate::moves::Turn;

/// A first turn: one move, or a chain of moves linked by extra turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Opening {
    /// The turn (houses 1..m from the mover's left, in order).
    pub moves: Turn,
    /// The exact value for the side that played it, stores included.
    pub value: i32,
}

/// A solved position: its value and the exact value of every first turn.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// Exact value for the side to move, stores included.
    pub value: i32,
    /// Every first turn with its exact value, in [`first_turns`](crate::moves::first_turns) order.
    pub openings: Vec<Opening>,
    /// Under the pie rule: what the first player can force when the opponent swaps sides
    /// whenever that is better for the opponent (`None` when the pie rule is off).
    pub pie_value: Option<i32>,
    /// Positions expanded.
    pub nodes: u64,
}

/// The first player's value under the pie rule, from every opening's value for the first
/// player: after an opening worth `v` the opponent swaps sides whenever that is better for it,
/// so the first player keeps `-|v|`, and plays an opening that keeps the most (`None` without
/// openings). The one place this is computed.
pub fn pie_value(opening_values: impl IntoIterator<Item = i32>) -> Option<i32> {
    opening_values.into_iter().map(|v| -v.abs()).max()
}

/// Whether an opening worth `value` keeps the pie value `pie`: one of the fairest.
pub fn is_fairest(value: i32, pie: i32) -> bool {
    -value.abs() == pie
}

impl Analysis {
    /// The openings that reach the value: the best ones, or under the pie rule the fairest.
    pub fn best(&self) -> Vec<&Opening> {
        match self.pie_value {
            Some(pie) => self.openings.iter().filter(|o| is_fairest(o.value, pie)).collect(),
            None => self.openings.iter().filter(|o| o.value == self.value).collect(),
        }
    }
}

/// Above this many first turns, text and CSV output summarise them (relay and go-again sowing
/// make thousands); JSON always lists every one.
pub const OPENINGS_LISTED: usize = 20;

/// How many openings have each value, best value first.
pub fn openings_by_value(values: impl IntoIterator<Item = i32>) -> Vec<(i32, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for value in values {
        *counts.entry(value).or_insert(0) += 1;
    }
    counts.into_iter().rev().collect()
}

/// `openings_by_value` as text: `+46 x3, +44 x12, 0 x1`.
pub fn openings_by_value_text(values: impl IntoIterator<Item = i32>, separator: &str) -> String {
    let signed = |v: i32| if v > 0 { format!("+{v}") } else { v.to_string() };
    openings_by_value(values).iter().map(|(v, n)| format!("{} x{n}", signed(*v))).collect::<Vec<_>>().join(separator)
}

/// The first few of `names`, then how many more: `1 2, 3 4, ... and 27 more`.
pub fn first_few(names: &[String], few: usize) -> String {
    if names.len() <= few {
        return names.join(", ");
    }
    format!("{} and {} more", names[..few].join(", "), names.len() - few)
}

/// Win, draw or loss for the side a value belongs to.
pub fn wdl(value: i32) -> &'static str {
    match value.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}

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

/// One legal move of an analysed position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The house, 1..m from the mover's left.
    #[serde(rename = "move")]
    pub house: usize,
    /// The exact value of the position after it, for the mover, stores included.
    pub value: i32,
    /// It keeps the position's value.
    pub best: bool,
}

/// Every move's value as reported: `values` by house 0..m, each marked best when it keeps the
/// position's `value`, best first, then by house.
pub fn moves_best_first(values: &[(usize, i32)], value: i32) -> Vec<MoveValue> {
    let mut moves: Vec<MoveValue> =
        values.iter().map(|&(house, v)| MoveValue { house: house + 1, value: v, best: v == value }).collect();
    moves.sort_by_key(|m| (-m.value, m.house));
    moves
}

/// A position analysed: its exact value and every legal move's, as `kalah query` and the service
/// report it.
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
    /// The exact value of the position after it, for the mover, once both bounds meet.
    pub value: Option<i32>,
    /// The mover's value after it is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
    /// It is proven to keep the position's value: exact, and equal to it.
    pub best: bool,
}

/// A position as far as checked proofs establish it: its value's bounds (exact when they meet)
/// and every legal move's, with the proofs named. What the front ends report for the 6x6 starts,
/// which no search answers in a request's time.
#[derive(Clone, Debug, Serialize)]
pub struct BoundedAnswer {
    /// Exact value for the side to move, stores included, once both bounds meet.
    pub value: Option<i32>,
    /// The value is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
    /// [`wdl`] where the bounds decide it: a win once the lower bound is above 0, a loss once the
    /// upper bound is below, a draw when both are 0.
    pub wdl: Option<&'static str>,
    /// No move is left (never, for the positions proofs map).
    pub game_over: bool,
    /// Every legal move, best first (by lower bound, then upper), then by house.
    pub moves: Vec<MoveBounds>,
    /// Where the bounds came from.
    pub source: Source,
    /// The proof directories the bounds rest on.
    pub proofs: Vec<String>,
    /// Positions searched for this answer (none).
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
}

impl BoundedAnswer {
    /// The answer for bounds `lower..=upper` and `moves` (by house 0..m: lower, upper), from
    /// `proofs`.
    pub fn new(lower: i32, upper: i32, moves: &[(usize, i32, i32)], proofs: Vec<String>) -> BoundedAnswer {
        let value = (lower == upper).then_some(lower);
        let wdl = match (lower, upper) {
            (l, _) if l > 0 => Some(wdl(1)),
            (_, u) if u < 0 => Some(wdl(-1)),
            (0, 0) => Some(wdl(0)),
            _ => None,
        };
        let mut moves: Vec<MoveBounds> = moves
            .iter()
            .map(|&(house, lower, upper)| {
                let exact = (lower == upper).then_some(lower);
                MoveBounds { house: house + 1, value: exact, lower, upper, best: exact.is_some() && exact == value }
            })
            .collect();
        moves.sort_by_key(|m| (-m.lower, -m.upper, m.house));
        BoundedAnswer {
            value,
            lower,
            upper,
            wdl,
            game_over: false,
            moves,
            source: Source::Proof,
            proofs,
            nodes: 0,
            seconds: 0.0,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Under the pie rule the first player keeps the opening nearest a draw.
    #[test]
    fn the_pie_value_is_the_opening_nearest_a_draw() {
        assert_eq!(pie_value([2, 2, 0, 0, -2]), Some(0));
        assert_eq!(pie_value([8, 4, -6]), Some(-4), "the swap takes +8; -6 swapped is +6 for North");
        assert_eq!(pie_value([]), None);
        assert!(is_fairest(4, -4) && is_fairest(-4, -4) && !is_fairest(8, -4));
    }

    #[test]
    fn openings_are_counted_by_value_best_first() {
        assert_eq!(openings_by_value([2, -4, 2, 0, 2]), vec![(2, 3), (0, 1), (-4, 1)]);
        assert_eq!(openings_by_value_text([2, -4, 2, 0], ", "), "+2 x2, 0 x1, -4 x1");
        let names: Vec<String> = (1..=7).map(|n| n.to_string()).collect();
        assert_eq!(first_few(&names, 3), "1, 2, 3 and 4 more");
        assert_eq!(first_few(&names[..2], 3), "1, 2");
    }
}
