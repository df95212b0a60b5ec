//! Text forms of positions and moves (RULES.md, "Board, numbering, notation").
//!
//! Positions: the 2m+2 bin counts in bin order, then `S` or `N`, separated by spaces or commas.
//! Moves come in three notations: canonical (house 1..m from the mover's left), Irving et al.
//! 2000 (houses 0..m-1, one turn's moves as consecutive digits, turns separated by `-`) and bin
//! numbers (South 1..m, North m+2..2m+1). Parse errors carry the byte span they point at, so the
//! CLI can underline the offending text.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use crate::board::{MAX_BINS, MAX_HOUSES, MAX_SEEDS, Position, Side};

/// Text that could not be read, with the span (byte offsets into the input) it concerns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// Where, as byte offsets into the text that was parsed.
    pub span: Range<usize>,
}

impl ParseError {
    fn new(message: impl Into<String>, span: Range<usize>) -> ParseError {
        ParseError { message: message.into(), span }
    }

    /// The message, the input, and a caret line under the offending text.
    pub fn render(&self, input: &str) -> String {
        let start = input[..self.span.start.min(input.len())].chars().count();
        let width = input.get(self.span.clone()).map_or(1, |s| s.chars().count()).max(1);
        format!("{} (column {})\n  {input}\n  {}{}", self.message, start + 1, " ".repeat(start), "^".repeat(width))
    }
}

/// Splits text into tokens separated by whitespace or commas, with their byte spans.
fn tokens(text: &str) -> impl Iterator<Item = (&str, Range<usize>)> {
    let mut rest = 0;
    std::iter::from_fn(move || {
        let is_separator = |c: char| c.is_whitespace() || c == ',';
        let start = rest + text[rest..].find(|c: char| !is_separator(c))?;
        let end = text[start..].find(is_separator).map_or(text.len(), |i| start + i);
        rest = end;
        Some((&text[start..end], start..end))
    })
}

fn whole(text: &str) -> Range<usize> {
    let start = text.len() - text.trim_start().len();
    start..text.trim_end().len().max(start)
}

/// Reads a position: 2m+2 bin counts in bin order, then `S` or `N` for the side to move.
pub fn parse_position(text: &str) -> Result<Position, ParseError> {
    let mut bins = Vec::with_capacity(MAX_BINS);
    let mut side = None;
    for (token, span) in tokens(text) {
        if side.is_some() {
            return Err(ParseError::new(format!("unexpected '{token}' after the side to move"), span));
        }
        match token {
            "S" | "s" => side = Some(Side::South),
            "N" | "n" => side = Some(Side::North),
            // Digits only: Rust's parser would take "+4" as 4.
            _ if !token.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(ParseError::new(
                    format!("'{token}' is neither a seed count nor the side to move (S or N)"),
                    span,
                ));
            }
            _ => match token.parse::<u32>() {
                Ok(seeds) => bins.push((seeds, span)),
                Err(_) => {
                    return Err(ParseError::new(
                        format!("'{token}' seeds in one bin is more than the {MAX_SEEDS} supported in all"),
                        span,
                    ));
                }
            },
        }
    }
    let Some(side) = side else {
        let end = text.trim_end().len();
        return Err(ParseError::new("the position must end with the side to move, S or N", end..end + 1));
    };
    let count = bins.len();
    if count < 4 || count % 2 != 0 || count > MAX_BINS {
        return Err(ParseError::new(
            format!(
                "{count} bin counts do not make a board: give 2m+2 counts for m = 1 to {MAX_HOUSES} \
                 houses per side (14 for 6 houses), then S or N"
            ),
            whole(text),
        ));
    }
    let counts: Vec<u32> = bins.iter().map(|(seeds, _)| *seeds).collect();
    Position::from_bins(&counts, side).map_err(|err| ParseError::new(err.to_string(), whole(text)))
}

/// Reads a start: `MxN` (for example `6x4`, Kalah(6,4)) or a full position.
pub fn parse_start(text: &str) -> Result<Position, ParseError> {
    let trimmed = text.trim();
    let is_size = trimmed.contains(['x', 'X']) && trimmed.chars().all(|c| c.is_ascii_alphanumeric());
    if let (true, Some((houses, seeds))) = (is_size, trimmed.split_once(['x', 'X'])) {
        let span = whole(text);
        let houses: usize = houses
            .parse()
            .map_err(|_| ParseError::new(format!("'{trimmed}' is not MxN (houses x seeds, e.g. 6x4)"), span.clone()))?;
        let seeds: u32 = seeds
            .parse()
            .map_err(|_| ParseError::new(format!("'{trimmed}' is not MxN (houses x seeds, e.g. 6x4)"), span.clone()))?;
        if seeds == 0 {
            return Err(ParseError::new(
                format!("'{trimmed}' has no seeds: a start needs at least one seed a house"),
                span,
            ));
        }
        return Position::start(houses, seeds).map_err(|err| ParseError::new(err.to_string(), span));
    }
    if tokens(text).count() == 1 {
        return Err(ParseError::new(
            format!("'{trimmed}' is neither a start MxN (e.g. 6x4) nor a position (2m+2 seed counts, then S or N)"),
            whole(text),
        ));
    }
    parse_position(text)
}

/// The notations moves can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Notation {
    /// House numbers 1..m from the mover's left, space separated.
    #[default]
    Canonical,
    /// Irving et al. 2000: houses 0..m-1, one turn's moves as digits, turns separated by `-`.
    Irving,
    /// Global bin numbers: South 1..m, North m+2..2m+1.
    Bins,
}

impl Notation {
    /// All notations with their names.
    pub const ALL: [(Notation, &'static str); 3] =
        [(Notation::Canonical, "canonical"), (Notation::Irving, "irving"), (Notation::Bins, "bins")];
}

impl FromStr for Notation {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Notation::ALL
            .iter()
            .find(|(_, name)| name.eq_ignore_ascii_case(s))
            .map(|(notation, _)| *notation)
            .ok_or_else(|| format!("unknown notation '{s}' (expected one of: canonical, irving, bins)"))
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Notation::ALL.iter().find(|(n, _)| n == self).map_or("?", |(_, name)| name);
        f.write_str(name)
    }
}

/// One move as written, before it is checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveToken {
    /// A house 1..m counted from the mover's left.
    House(u8),
    /// A global bin number (South 1..m, North m+2..2m+1); whose it is is checked on play.
    Bin(u8),
    /// North swaps sides under the pie rule (`swap`).
    Swap,
}

/// A move token with where it stands in the text and, for notations that mark turns, whether
/// the writer says the turn ends after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveText {
    /// The move.
    pub token: MoveToken,
    /// Byte span in the text.
    pub span: Range<usize>,
    /// `Some(true)` on the last move of a turn, `Some(false)` inside one, `None` when the text
    /// does not mark turns (or it is the last move of the text).
    pub ends_turn: Option<bool>,
    /// The side the text says plays this move (`S 3 6 | N 2`: each turn may name its side).
    pub side: Option<Side>,
}

/// Reads a move sequence in `notation` for a board with `houses` houses per side.
pub(crate) fn parse_moves(text: &str, notation: Notation, houses: usize) -> Result<Vec<MoveText>, ParseError> {
    match notation {
        Notation::Canonical | Notation::Bins => parse_marked_turns(text, notation, houses),
        Notation::Irving => parse_irving(text, houses),
    }
}

/// Moves separated by spaces, with turns optionally marked as the board writes a game:
/// `S 3 6 | N 2 1` (each turn after a `|`, its side's letter first). Where turns are marked,
/// every move says whether it ends its turn, so a replay checks the turns as well as the moves.
fn parse_marked_turns(text: &str, notation: Notation, houses: usize) -> Result<Vec<MoveText>, ParseError> {
    let marked = tokens(text).any(|(token, _)| token == "|");
    let mut moves: Vec<MoveText> = Vec::new();
    let (mut side, mut turn_start) = (None, true);
    for (token, span) in tokens(text) {
        if token == "|" {
            match moves.last_mut() {
                Some(last) if !turn_start => last.ends_turn = Some(true),
                _ => return Err(ParseError::new("'|' ends a turn, but no move comes before it".to_string(), span)),
            }
            (side, turn_start) = (None, true);
            continue;
        }
        let letter = match token {
            "S" | "s" => Some(Side::South),
            "N" | "n" => Some(Side::North),
            _ => None,
        };
        if let Some(letter) = letter {
            if !turn_start || side.is_some() {
                return Err(ParseError::new(format!("'{token}' names a side only where a turn begins"), span));
            }
            side = Some(letter);
            continue;
        }
        let token = parse_move_token(token, &span, notation, houses)?;
        moves.push(MoveText { token, span, ends_turn: marked.then_some(false), side });
        turn_start = false;
    }
    // The text may end in the middle of a turn.
    if let Some(last) = moves.last_mut().filter(|last| last.ends_turn == Some(false)) {
        last.ends_turn = None;
    }
    Ok(moves)
}

fn parse_move_token(token: &str, span: &Range<usize>, notation: Notation, m: usize) -> Result<MoveToken, ParseError> {
    if token.eq_ignore_ascii_case("swap") {
        return Ok(MoveToken::Swap);
    }
    let number: usize = token.parse().map_err(|_| {
        let what = if notation == Notation::Bins { "bin number" } else { "house number" };
        ParseError::new(format!("'{token}' is not a {what}"), span.clone())
    })?;
    match notation {
        Notation::Bins => {
            if (1..=m).contains(&number) || (m + 2..=2 * m + 1).contains(&number) {
                Ok(MoveToken::Bin(number as u8))
            } else if number == m + 1 || number == 2 * m + 2 {
                let owner = if number == m + 1 { "South" } else { "North" };
                Err(ParseError::new(format!("bin {number} is {owner}'s store, not a house"), span.clone()))
            } else {
                Err(ParseError::new(
                    format!("bin {number} does not exist (houses are bins 1..{m} and {}..{})", m + 2, 2 * m + 1),
                    span.clone(),
                ))
            }
        }
        _ if (1..=m).contains(&number) => Ok(MoveToken::House(number as u8)),
        _ => Err(ParseError::new(format!("house {number} is out of range 1..{m}"), span.clone())),
    }
}

fn parse_irving(text: &str, m: usize) -> Result<Vec<MoveText>, ParseError> {
    let mut moves = Vec::new();
    let mut turn_start = 0;
    for turn in text.split('-') {
        let span = turn_start..turn_start + turn.len();
        turn_start = span.end + 1;
        let first = moves.len();
        let offset = span.start;
        if turn.trim().eq_ignore_ascii_case("swap") {
            moves.push(MoveText { token: MoveToken::Swap, span: offset..span.end, ends_turn: Some(true), side: None });
            continue;
        }
        for (i, c) in turn.char_indices() {
            if c.is_whitespace() {
                continue;
            }
            let at = offset + i..offset + i + c.len_utf8();
            let house = c.to_digit(10).ok_or_else(|| {
                ParseError::new(
                    format!("'{c}' is not a house digit (Irving notation numbers houses 0..{})", m - 1),
                    at.clone(),
                )
            })? as usize;
            if house >= m {
                return Err(ParseError::new(
                    format!("house {house} is out of range 0..{} in Irving notation", m - 1),
                    at,
                ));
            }
            moves.push(MoveText {
                token: MoveToken::House(house as u8 + 1),
                span: at,
                ends_turn: Some(false),
                side: None,
            });
        }
        match moves[first..].last_mut() {
            Some(last) => last.ends_turn = Some(true),
            None if text.trim().is_empty() => {}
            None => return Err(ParseError::new("empty turn: two '-' with no move between them", span)),
        }
    }
    Ok(moves)
}

/// A move as played: who played it and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Action {
    /// House 1..m from the mover's left.
    Move(u8),
    /// North swapped sides under the pie rule.
    Swap,
}

/// Writes turns (each the actions of one side) in `notation`.
pub(crate) fn format_turns<'a>(
    turns: impl IntoIterator<Item = (Side, &'a [Action])>,
    notation: Notation,
    houses: usize,
) -> String {
    let action = |side: Side, action: &Action| match (action, notation) {
        (Action::Swap, _) => "swap".to_string(),
        (Action::Move(house), Notation::Canonical) => house.to_string(),
        (Action::Move(house), Notation::Irving) => (house - 1).to_string(),
        (Action::Move(house), Notation::Bins) => match side {
            Side::South => house.to_string(),
            Side::North => (usize::from(*house) + houses + 1).to_string(),
        },
    };
    let turn_texts = turns.into_iter().map(|(side, actions)| {
        let parts: Vec<String> = actions.iter().map(|a| action(side, a)).collect();
        parts.join(if notation == Notation::Irving { "" } else { " " })
    });
    let separator = if notation == Notation::Irving { "-" } else { " " };
    turn_texts.collect::<Vec<_>>().join(separator)
}

impl fmt::Display for Position {
    /// Position text: bin counts in bin order, then `S` or `N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for bin in self.bins() {
            write!(f, "{bin} ")?;
        }
        write!(f, "{}", self.to_move().letter())
    }
}

impl serde::Serialize for Position {
    /// Serialized as its position text.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Position {
    /// Read from its position text, checked as [`parse_position`] checks it.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Position, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_position(&text).map_err(|err| serde::de::Error::custom(format!("position '{text}': {}", err.message)))
    }
}

/// A drawing of the board as a player sees it: North's row on top (right to left from South's
/// view), North's store on the left, South's store on the right.
pub fn diagram(position: &Position) -> String {
    let m = position.houses();
    let bins = position.bins();
    let row = |cells: Vec<String>| cells.iter().map(|c| format!("{c:>4}")).collect::<String>();
    let north_labels = row((1..=m).rev().map(|k| format!("N{k}")).collect());
    let north = row((m + 1..=2 * m).rev().map(|i| bins[i].to_string()).collect());
    let south = row((0..m).map(|i| bins[i].to_string()).collect());
    let south_labels = row((1..=m).map(|k| format!("S{k}")).collect());
    let stores = format!("{:>4}{}{:<4}", bins[2 * m + 1], " ".repeat(4 * m + 2), format!("  {}", bins[m]));
    let to_move = format!("{} to move", position.to_move().name());
    format!("    {north_labels}\n    {north}\n{stores}\n    {south}\n    {south_labels}\n    {to_move}\n")
}

/// "Kalah(6,4)" for a standard start, else the position text.
pub fn describe_start(position: &Position) -> String {
    if position.is_start() {
        format!("Kalah({},{})", position.houses(), position.mover_houses()[0])
    } else {
        position.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_through_text() {
        let text = "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S";
        let position = parse_position(text).unwrap();
        assert_eq!(position, Position::start(6, 4).unwrap());
        assert_eq!(position.to_string(), text);
        let north = parse_position("1,0,2,3, 5,0,1,9 N").unwrap();
        assert_eq!(north.to_string(), "1 0 2 3 5 0 1 9 N");
        assert_eq!(north.mover_houses(), &[5, 0, 1]);
        assert_eq!(north.opponent_houses(), &[1, 0, 2]);
        assert_eq!(north.mover_store(), 9);
    }

    #[test]
    fn position_errors_say_what_and_where() {
        let err = parse_position("4 4 x 4 0 4 4 4 4 0 S").unwrap_err();
        assert_eq!(err.span, 4..5);
        assert!(err.message.contains("'x'"), "{}", err.message);
        let err = parse_position("4 +4 4 0 4 4 4 0 S").unwrap_err();
        assert_eq!((err.span.clone(), err.message.contains("'+4' is neither")), (2..4, true), "{}", err.message);
        // A count too large for the parser is named as too many seeds, under its own digits.
        let err = parse_position("1 99999999999 1 0 S").unwrap_err();
        assert_eq!(err.span, 2..13);
        assert!(err.message.contains("more than the 255 supported"), "{}", err.message);
        let err = parse_position("4 4 4 0 4 4 4 0").unwrap_err();
        assert!(err.message.contains("side to move"), "{}", err.message);
        let err = parse_position("4 4 4 0 4 4 0 S").unwrap_err();
        assert!(err.message.contains("7 bin counts"), "{}", err.message);
        let err = parse_position("1 0 1 0 S N").unwrap_err();
        assert_eq!(err.span, 10..11);
        let err = parse_position("200 0 100 0 S").unwrap_err();
        assert!(err.message.contains("300 seeds"), "{}", err.message);
        assert_eq!(err.render("200 0 100 0 S").lines().nth(2), Some("  ^^^^^^^^^^^^^"));
    }

    #[test]
    fn starts_are_sizes_or_positions() {
        assert_eq!(parse_start("6x4").unwrap(), Position::start(6, 4).unwrap());
        assert_eq!(parse_start(" 4x3 ").unwrap(), Position::start(4, 3).unwrap());
        assert!(parse_start("9x1").unwrap_err().message.contains("9 houses"));
        assert!(parse_start("6by4").is_err());
        assert!(parse_start("4x0").unwrap_err().message.contains("no seeds"));
        assert!(parse_start("4 4 x").unwrap_err().message.contains("'x' is neither"));
        for lone in ["+4", "6", "S", "6*4"] {
            assert!(parse_start(lone).unwrap_err().message.contains("neither a start MxN"), "{lone}");
        }
    }

    #[test]
    fn move_notations_parse_to_houses() {
        let irving = parse_moves("25-10-3", Notation::Irving, 6).unwrap();
        let houses: Vec<_> = irving.iter().map(|m| (m.token, m.ends_turn)).collect();
        assert_eq!(
            houses,
            [
                (MoveToken::House(3), Some(false)),
                (MoveToken::House(6), Some(true)),
                (MoveToken::House(2), Some(false)),
                (MoveToken::House(1), Some(true)),
                (MoveToken::House(4), Some(true)),
            ]
        );
        let bins = parse_moves("3 9", Notation::Bins, 6).unwrap();
        assert_eq!(bins[1].token, MoveToken::Bin(9));
        assert_eq!(parse_moves("1 2 swap", Notation::Canonical, 6).unwrap()[2].token, MoveToken::Swap);
    }

    #[test]
    fn move_errors_point_at_the_move() {
        let err = parse_moves("1 7", Notation::Canonical, 6).unwrap_err();
        assert_eq!((err.message.as_str(), err.span), ("house 7 is out of range 1..6", 2..3));
        let err = parse_moves("25-16", Notation::Irving, 6).unwrap_err();
        assert_eq!(err.span, 4..5);
        let err = parse_moves("25--1", Notation::Irving, 6).unwrap_err();
        assert!(err.message.contains("empty turn"));
        let err = parse_moves("3 7", Notation::Bins, 6).unwrap_err();
        assert_eq!(err.message, "bin 7 is South's store, not a house");
    }

    #[test]
    fn turns_format_in_every_notation() {
        let south = [Action::Move(3), Action::Move(6)];
        let north = [Action::Move(2), Action::Move(1)];
        let turns = [(Side::South, &south[..]), (Side::North, &north[..])];
        assert_eq!(format_turns(turns, Notation::Canonical, 6), "3 6 2 1");
        assert_eq!(format_turns(turns, Notation::Irving, 6), "25-10");
        assert_eq!(format_turns(turns, Notation::Bins, 6), "3 6 9 8");
    }

    #[test]
    fn the_diagram_shows_both_rows_and_stores() {
        let position = parse_position("1 2 3 10 4 5 6 20 N").unwrap();
        let drawing = diagram(&position);
        let lines: Vec<&str> = drawing.lines().collect();
        assert_eq!(lines[1].split_whitespace().collect::<Vec<_>>(), ["6", "5", "4"]);
        assert_eq!(lines[2].split_whitespace().collect::<Vec<_>>(), ["20", "10"]);
        assert_eq!(lines[3].split_whitespace().collect::<Vec<_>>(), ["1", "2", "3"]);
        assert!(lines[5].contains("North to move"));
    }
}
