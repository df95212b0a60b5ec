//! A game in progress: a position plus what only a played game knows (its turns, whether North
//! swapped sides under the pie rule, whether it stopped early), and replay of written move lists.
//!
//! Values and solvers work on [`Position`] alone; this module is for users' move sequences.

use serde::Serialize;

use crate::board::{Outcome, Position, Side};
use crate::notation::{self, Action, MoveText, MoveToken, Notation, ParseError};
use crate::rules::{EarlyEnd, Rules};

/// Why a move cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    /// The game is already over.
    #[error("the game is already over")]
    GameOver,
    /// No such house.
    #[error("house {house} does not exist (houses 1..{houses})")]
    NoSuchHouse {
        /// The house asked for.
        house: u8,
        /// Houses per side.
        houses: usize,
    },
    /// The house holds no seeds.
    #[error("{side}'s house {house} is empty")]
    EmptyHouse {
        /// The mover.
        side: &'static str,
        /// The house, 1..m from the mover's left.
        house: u8,
    },
    /// A bin of the side not to move.
    #[error("bin {bin} belongs to {owner}, but {mover} is to move")]
    NotMoversBin {
        /// The bin given.
        bin: u8,
        /// Its owner.
        owner: &'static str,
        /// The side to move.
        mover: &'static str,
    },
    /// A swap where the pie rule does not allow one.
    #[error("no swap here: {0}")]
    SwapNotAllowed(&'static str),
    /// The text ends a turn after a move that earned an extra turn.
    #[error("the text ends the turn here, but the move earned an extra turn")]
    TurnNotOver,
    /// The text continues a turn after a move that passed the turn.
    #[error("the text continues the turn, but the move passed it to {0}")]
    TurnOver(&'static str),
    /// The text names the side not to move for a turn.
    #[error("the text gives this turn to {named}, but {mover} is to move")]
    WrongSide {
        /// The side the text names.
        named: &'static str,
        /// The side to move.
        mover: &'static str,
    },
}

/// One turn of a game as played: the consecutive moves of one side, or North's swap (the
/// houses of a turn alone, as first turns are listed and written, are [`crate::moves::Turn`]).
#[derive(Debug, Clone, Serialize)]
pub struct PlayedTurn {
    /// Who played it.
    pub side: Side,
    /// The moves (houses 1..m from the mover's left), or a swap.
    pub actions: Vec<Action>,
    /// Seeds captured during the turn.
    pub captured: u32,
    /// The position after the turn.
    pub position: Position,
}

impl PlayedTurn {
    /// The turn's moves in `notation`, on a board of `houses` houses per side.
    pub fn moves_text(&self, notation: Notation, houses: usize) -> String {
        notation::format_turns([(self.side, &self.actions[..])], notation, houses)
    }
}

/// A game: the rules, where it started, its turns and where it stands.
#[derive(Debug, Clone)]
pub struct Game {
    rules: Rules,
    start: Position,
    position: Position,
    turns: Vec<PlayedTurn>,
    turn_open: bool,
    swapped: bool,
    over: bool,
    ended_early: bool,
}

impl Game {
    /// A game from `start` (which may already be over, or decided early under the rules).
    pub fn new(rules: Rules, start: Position) -> Game {
        let mut game = Game {
            rules,
            start,
            position: start,
            turns: Vec::new(),
            turn_open: false,
            swapped: false,
            over: false,
            ended_early: false,
        };
        game.check_end();
        game
    }

    /// The rules played under.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position (swept when the game is over).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The turns played so far.
    pub fn turns(&self) -> &[PlayedTurn] {
        &self.turns
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// Whether the game stopped because a store held more than half of all seeds.
    pub fn ended_early(&self) -> bool {
        self.ended_early
    }

    /// Whether North swapped sides under the pie rule.
    pub fn swapped(&self) -> bool {
        self.swapped
    }

    /// South's store minus North's store (the final margin once the game is over).
    pub fn south_margin(&self) -> i32 {
        i32::from(self.position.store(Side::South)) - i32::from(self.position.store(Side::North))
    }

    /// The moves so far, in `notation`.
    pub fn moves_text(&self, notation: Notation) -> String {
        let turns = self.turns.iter().map(|turn| (turn.side, &turn.actions[..]));
        notation::format_turns(turns, notation, self.position.houses())
    }

    /// Plays a move token: a house of the mover, a bin, or a pie swap.
    pub(crate) fn play_token(&mut self, token: MoveToken) -> Result<Option<Outcome>, IllegalMove> {
        match token {
            MoveToken::House(house) => self.play(house).map(Some),
            MoveToken::Bin(bin) => {
                let m = self.position.houses() as u8;
                let (owner, house) = if bin <= m { (Side::South, bin) } else { (Side::North, bin - m - 1) };
                let mover = self.position.to_move();
                if owner != mover && !self.over {
                    return Err(IllegalMove::NotMoversBin { bin, owner: owner.name(), mover: mover.name() });
                }
                self.play(house).map(Some)
            }
            MoveToken::Swap => self.swap().map(|()| None),
        }
    }

    /// Plays the mover's house `house`, 1..m from the mover's left.
    pub fn play(&mut self, house: u8) -> Result<Outcome, IllegalMove> {
        let m = self.position.houses();
        if self.over {
            return Err(IllegalMove::GameOver);
        }
        if house == 0 || usize::from(house) > m {
            return Err(IllegalMove::NoSuchHouse { house, houses: m });
        }
        let side = self.position.to_move();
        if self.position.mover_houses()[usize::from(house) - 1] == 0 {
            return Err(IllegalMove::EmptyHouse { side: side.name(), house });
        }
        let continues_turn = self.turn_open && self.turns.last().is_some_and(|turn| turn.side == side);
        let outcome = self.position.play(&self.rules, usize::from(house) - 1);
        self.turn_open = outcome.extra_turn;
        self.over = outcome.over;
        self.check_end();
        if !continues_turn {
            self.turns.push(PlayedTurn { side, actions: Vec::new(), captured: 0, position: self.position });
        }
        let turn = self.turns.last_mut().expect("the turn in progress");
        turn.actions.push(Action::Move(house));
        turn.captured += u32::from(outcome.captured);
        turn.position = self.position;
        Ok(outcome)
    }

    /// North swaps sides under the pie rule: allowed once, right after South's first turn.
    /// The board stays as it is; the player who moved first now plays North's side, to move.
    pub fn swap(&mut self) -> Result<(), IllegalMove> {
        if !self.rules.pie {
            return Err(IllegalMove::SwapNotAllowed("the pie rule is off (use --pie)"));
        }
        let after_first_turn =
            self.start.to_move() == Side::South && self.turns.len() == 1 && self.position.to_move() == Side::North;
        if self.over || !after_first_turn {
            return Err(IllegalMove::SwapNotAllowed("North may swap only right after South's first turn"));
        }
        self.swapped = true;
        self.turns.push(PlayedTurn {
            side: Side::North,
            actions: vec![Action::Swap],
            captured: 0,
            position: self.position,
        });
        Ok(())
    }

    /// Ends the game if the position is over, or decided early under an early-end rule.
    fn check_end(&mut self) {
        let early = self.rules.early_end == EarlyEnd::Half && self.position.is_decided_early();
        if self.over || early || self.position.is_over(&self.rules) {
            self.ended_early |= early && !self.over && !self.position.is_over(&self.rules);
            self.position.finish(&self.rules);
            self.over = true;
            self.turn_open = false;
        }
    }
}

/// A move of a replay that could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {number} ('{text}'): {reason}")]
pub struct ReplayError {
    /// 1-based index of the move in the text.
    pub number: usize,
    /// The move as written.
    pub text: String,
    /// Its byte span in the text.
    pub span: std::ops::Range<usize>,
    /// Why it is illegal.
    pub reason: IllegalMove,
}

impl ReplayError {
    /// The message with the move text underlined.
    pub fn render(&self, input: &str) -> String {
        ParseError { message: self.to_string(), span: self.span.clone() }.render(input)
    }
}

/// Anything that stops a replay: unreadable text or an illegal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayFailure {
    /// The move text could not be read.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A move could not be played.
    #[error(transparent)]
    Illegal(#[from] ReplayError),
}

/// Plays `moves` (written in `notation`) from `start` and returns the game.
pub fn replay(rules: Rules, start: Position, moves: &str, notation: Notation) -> Result<Game, ReplayFailure> {
    let parsed = notation::parse_moves(moves, notation, start.houses())?;
    let mut game = Game::new(rules, start);
    for (i, MoveText { token, span, ends_turn, side }) in parsed.into_iter().enumerate() {
        let fail =
            |reason| ReplayError { number: i + 1, text: moves[span.clone()].to_string(), span: span.clone(), reason };
        let mover = game.position().to_move();
        if let Some(named) = side.filter(|named| *named != mover) {
            return Err(fail(IllegalMove::WrongSide { named: named.name(), mover: mover.name() }).into());
        }
        let outcome = game.play_token(token).map_err(fail)?;
        let extra_turn = outcome.is_some_and(|o| o.extra_turn);
        match ends_turn {
            Some(true) if extra_turn => return Err(fail(IllegalMove::TurnNotOver).into()),
            Some(false) if !extra_turn && !game.is_over() => {
                return Err(fail(IllegalMove::TurnOver(mover.opponent().name())).into());
            }
            _ => {}
        }
    }
    Ok(game)
}

impl Game {
    /// What `kalah replay` says of the game: every turn with the position after it, the board,
    /// and the stores and the result (or who is to move).
    pub fn text(&self) -> String {
        let position = self.position();
        let mut text = format!("{}, rules {}\n", notation::describe_start(self.start()), self.rules());
        text += &format!("{:>4}  {:<5}  {:<12}  {}\n", "", "start", "", self.start());
        for (i, turn) in self.turns().iter().enumerate() {
            let moves = turn.moves_text(Notation::Canonical, position.houses());
            let capture = if turn.captured > 0 { format!("  captures {}", turn.captured) } else { String::new() };
            text += &format!("{:>4}. {:<5}  {moves:<12}  {}{capture}\n", i + 1, turn.side.name(), turn.position);
        }
        text += "\n";
        text += &notation::diagram(position);
        let (south, north) = (position.store(Side::South), position.store(Side::North));
        let margin = self.south_margin();
        if self.is_over() {
            let how = if self.ended_early() { " early (a store holds more than half of all seeds)" } else { "" };
            let result = match margin.signum() {
                1 => format!("South wins by {margin}"),
                -1 => format!("North wins by {}", -margin),
                _ => "draw".to_string(),
            };
            text += &format!(
                "game over{how}: South {south}, North {north}, {result} (margin {})\n",
                crate::answer::signed(margin)
            );
        } else {
            text += &format!(
                "{} to move; stores South {south}, North {north} (margin {})\n",
                position.to_move().name(),
                crate::answer::signed(margin)
            );
        }
        if self.swapped() {
            text += "North swapped sides: the first player now plays North.\n";
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start64() -> Position {
        Position::start(6, 4).unwrap()
    }

    #[test]
    fn turns_group_extra_turn_chains() {
        let game = replay(Rules::STANDARD, start64(), "3 6 2", Notation::Canonical).unwrap();
        assert_eq!(game.turns().len(), 2);
        assert_eq!(game.turns()[0].actions, [Action::Move(3), Action::Move(6)]);
        assert_eq!(game.moves_text(Notation::Irving), "25-1");
        assert_eq!(game.moves_text(Notation::Bins), "3 6 9");
    }

    #[test]
    fn the_boards_game_text_replays_with_its_turns_and_sides_checked() {
        let marked = replay(Rules::STANDARD, start64(), "S 3 6 | N 2 1", Notation::Canonical).unwrap();
        let plain = replay(Rules::STANDARD, start64(), "3 6 2 1", Notation::Canonical).unwrap();
        assert_eq!(marked.position(), plain.position());
        let illegal = |text: &str| match replay(Rules::STANDARD, start64(), text, Notation::Canonical) {
            Err(ReplayFailure::Illegal(err)) => err.reason.to_string(),
            other => panic!("{text}: {other:?}"),
        };
        assert!(illegal("N 3").contains("gives this turn to North, but South is to move"));
        assert!(illegal("S 3 | N 6").contains("earned an extra turn"), "3 ends in South's store");
        assert!(illegal("S 3 6 2 | N 1").contains("passed it to North"));
        assert!(matches!(replay(Rules::STANDARD, start64(), "| 3", Notation::Canonical), Err(ReplayFailure::Parse(_))));
        assert!(matches!(
            replay(Rules::STANDARD, start64(), "3 S 6", Notation::Canonical),
            Err(ReplayFailure::Parse(_))
        ));
    }

    #[test]
    fn illegal_moves_name_the_move_and_the_reason() {
        let err = replay(Rules::STANDARD, start64(), "3 3", Notation::Canonical).unwrap_err();
        let ReplayFailure::Illegal(err) = err else { panic!("{err:?}") };
        assert_eq!(err.number, 2);
        assert_eq!(err.reason, IllegalMove::EmptyHouse { side: "South", house: 3 });
        assert_eq!(err.to_string(), "move 2 ('3'): South's house 3 is empty");

        let err = replay(Rules::STANDARD, start64(), "3 6 9 3", Notation::Bins).unwrap_err();
        assert!(err.to_string().contains("bin 3 belongs to South, but North is to move"), "{err}");
        let err = replay(Rules::STANDARD, start64(), "2-1", Notation::Irving).unwrap_err();
        assert!(err.to_string().contains("extra turn"), "{err}");
        let err = replay(Rules::STANDARD, start64(), "01", Notation::Irving).unwrap_err();
        assert!(err.to_string().contains("passed it to North"), "{err}");
    }

    #[test]
    fn the_pie_swap_comes_only_right_after_souths_first_turn() {
        let pie = Rules { pie: true, ..Rules::STANDARD };
        let game = replay(pie, start64(), "3 6 swap 1", Notation::Canonical).unwrap();
        assert!(game.swapped());
        assert_eq!(game.moves_text(Notation::Canonical), "3 6 swap 1");
        assert!(replay(Rules::STANDARD, start64(), "1 swap", Notation::Canonical).is_err());
        let err = replay(pie, start64(), "1 1 swap", Notation::Canonical).unwrap_err();
        assert!(err.to_string().contains("only right after"), "{err}");
        let err = replay(pie, start64(), "3 swap", Notation::Canonical).unwrap_err();
        assert!(err.to_string().contains("only right after"), "{err}");
    }

    #[test]
    fn early_end_stops_a_decided_game() {
        // South holds 13 of 24 seeds: more than half.
        let position = crate::notation::parse_position("1 0 13 1 0 9 S").unwrap();
        let bga = Game::new(Rules::BGA, position);
        assert!(bga.is_over() && bga.ended_early());
        assert_eq!(bga.south_margin(), 14 - 10);
        let standard = Game::new(Rules::STANDARD, position);
        assert!(!standard.is_over());
        let err = replay(Rules::BGA, position, "1", Notation::Canonical).unwrap_err();
        assert!(err.to_string().contains("already over"), "{err}");
    }
}
