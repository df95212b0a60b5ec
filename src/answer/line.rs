//! A perfect-play line as the front ends report it (`/api/v1/mainline`): one entry per sowing,
//! with the position after each, from a position to the end of the game.

use serde::{Deserialize, Serialize};

use super::bounds::Proven;
use super::position::{LegalMove, MoveFacts, Source};
use super::{Wdl, wdl};
use crate::board::{Position, Side};
use crate::moves::Turn;
use crate::rules::Rules;

/// One sowing of the line, and who made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineMove {
    /// The move and what it does.
    #[serde(flatten)]
    pub played: LegalMove,
    /// The side that made it.
    pub side: Side,
}

/// A perfect-play line from a position.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Mainline {
    /// Where it starts.
    pub position: Position,
    /// The rules' text.
    pub rules: String,
    /// The side to move there.
    pub to_move: Side,
    /// The exact value for the side to move, stores included.
    pub value: i32,
    /// [`wdl`] of the value.
    pub wdl: Wdl,
    /// Every sowing, in order.
    pub line: Vec<LineMove>,
    /// The turns as text: `S 1 3 | N 4 | ...`.
    pub text: String,
    /// Where the line ends.
    pub end: Position,
    /// The line ends the game.
    pub game_over: bool,
    /// The line came back to a position instead (clockwise sowing can).
    pub repeats: bool,
    /// South's final margin, when the game ends.
    pub south_margin: Option<i32>,
    /// Positions searched for it.
    pub nodes: u64,
    /// Seconds it took.
    pub seconds: f64,
    /// Where the line came from: the book (a shipped line), the database, a search, or the
    /// rules (the game is over).
    pub source: Source,
    /// The service gave this answer before.
    pub cached: bool,
}

impl Mainline {
    /// The line of `turns` (each a chain of houses 0..m) from `position`, worth `value`, from
    /// `source`.
    pub fn new(rules: &Rules, position: &Position, value: i32, turns: &[Vec<usize>], source: Source) -> Mainline {
        let (line, text, current) = played_line(rules, position, turns.iter().flatten().copied());
        let over = current.is_over(rules);
        let south_margin = over.then(|| current.final_margin_for(rules, Side::South));
        Mainline {
            position: *position,
            rules: rules.to_string(),
            to_move: position.to_move(),
            value,
            wdl: wdl(value),
            line,
            text,
            end: current,
            game_over: over,
            // Under clockwise sowing a line of value-keeping moves may come back to a position.
            repeats: !over,
            south_margin,
            nodes: 0,
            seconds: 0.0,
            source,
            cached: false,
        }
    }

    /// Whether this line can be right from `position` under `rules` (what a service checks of a
    /// line it kept before serving it again): every move legal and doing what the rules say, the
    /// line ending where it says, and, unless it comes back to a position (clockwise sowing can),
    /// ending the game at the South margin it carries and at its value.
    pub fn check(&self, rules: &Rules, position: &Position) -> Result<(), String> {
        if (self.position, self.rules.clone(), self.to_move) != (*position, rules.to_string(), position.to_move()) {
            return Err(format!("not a line from {position} under {rules}"));
        }
        super::possible_value(rules, position, self.value, "the value")?;
        let mut at = *position;
        let mut houses = Vec::new();
        for played in &self.line {
            let house = played.played.house.checked_sub(1);
            let house = house.filter(|h| !at.is_over(rules) && at.legal_moves().any(|legal| legal == *h));
            let house = house.ok_or_else(|| format!("move {} is not legal at {at}", played.played.house))?;
            at.play(rules, house);
            houses.push(house);
        }
        let again = Mainline::new(rules, position, self.value, &[houses], self.source);
        if (&again.line, &again.text) != (&self.line, &self.text) {
            return Err("a move does not do what the rules say".to_string());
        }
        if again.end != self.end {
            return Err("the line does not end where it says".to_string());
        }
        if (again.game_over, again.repeats) != (self.game_over, self.repeats) {
            return Err("the line does not end the game".to_string());
        }
        if again.south_margin != self.south_margin {
            return Err(format!("the line ends at South's margin {:?}, not the one it carries", again.south_margin));
        }
        if self.game_over && self.value != at.final_margin_for(rules, position.to_move()) {
            return Err("the line's value is not the margin it ends at".to_string());
        }
        if self.wdl != again.wdl {
            return Err(format!("the value {} is not a {}", self.value, self.wdl));
        }
        Ok(())
    }
}

/// A line that keeps what proofs prove, as far as they reach (`/api/v1/proven-line`): at each
/// position the move whose proven lower bound for its mover is the position's (the lower-bound
/// proof's move where that side is the prover; the upper-bound proof's best reply where it is
/// the other side), then, where a shipped perfect line takes over, that line to the game's end.
#[derive(Clone, Debug, Serialize)]
pub struct ProvenLine {
    /// Where it starts.
    pub position: Position,
    /// The rules' text.
    pub rules: String,
    /// Every sowing, in order, with what the position it was played from is proven to be worth
    /// for its mover, which the move keeps.
    pub line: Vec<ProvenMove>,
    /// The turns as text: `S 1 3 | N 1 | ...`.
    pub text: String,
    /// Where the line ends: the game's end, or where no move is proven to keep a bound.
    pub end: Position,
    /// The line ends the game.
    pub game_over: bool,
    /// What is proven at the end for its side to move (none where nothing is, or the game is
    /// over).
    pub end_known: Option<Proven>,
}

/// One sowing of a [`ProvenLine`].
#[derive(Clone, Debug, Serialize)]
pub struct ProvenMove {
    /// The move and who made it.
    #[serde(flatten)]
    pub played: LineMove,
    /// The mover's proven bounds at the position it was played from, whose lower bound the move
    /// keeps.
    pub keeps: Proven,
}

impl ProvenLine {
    /// The line of `moves` (each a house 0..m and what it keeps) from `position`.
    pub fn new(
        rules: &Rules,
        position: &Position,
        moves: Vec<(usize, Proven)>,
        end_known: Option<Proven>,
    ) -> ProvenLine {
        let (played, text, current) = played_line(rules, position, moves.iter().map(|&(house, _)| house));
        let line = played.into_iter().zip(moves).map(|(played, (_, keeps))| ProvenMove { played, keeps }).collect();
        let game_over = current.is_over(rules);
        ProvenLine {
            position: *position,
            rules: rules.to_string(),
            line,
            text,
            end: current,
            game_over,
            end_known: if game_over { None } else { end_known },
        }
    }
}

/// The sowings `houses` (each 0..m) played from `position`, each with its mover; the turns they
/// make as text (`S 1 3 | N 4`: a turn is the moves of one side in a row); and where they end.
fn played_line(
    rules: &Rules,
    position: &Position,
    houses: impl IntoIterator<Item = usize>,
) -> (Vec<LineMove>, String, Position) {
    let mut line = Vec::new();
    let mut turns: Vec<(Side, Vec<usize>)> = Vec::new();
    let mut current = *position;
    for house in houses {
        let side = current.to_move();
        let effect = MoveFacts::of(rules, &current, house);
        line.push(LineMove { played: LegalMove { house: house + 1, effect }, side });
        match turns.last_mut() {
            Some((last, chain)) if *last == side => chain.push(house),
            _ => turns.push((side, vec![house])),
        }
        current = effect.position;
    }
    let text: Vec<String> =
        turns.iter().map(|(side, chain)| format!("{} {}", side.letter(), Turn::from_indices(chain))).collect();
    (line, text.join(" | "), current)
}
