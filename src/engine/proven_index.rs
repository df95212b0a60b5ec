//! One index of everything proven about positions, which every front end consults before it
//! searches: the shipped opening book (exact tables, the checked proofs' maps of the starts,
//! the perfect lines) and every node of every checked proof (`data/results/proven-positions.jsonl`,
//! written by `kalah proof index`), keyed by rule set and position. Bounds from every source are
//! intersected, then one turn of negamax both ways narrows them: a position is worth at least
//! its best move's lower bound, at most the largest upper bound once every move has one, and no
//! move is worth more than the position. (A turn, not a sowing: the proofs' nodes are whole
//! turns, so a move that gives an extra turn is bounded through the rest of the turn.)
//!
//! Proof nodes are held as board values (stores left out, [`Position::without_stores`]), so a
//! position that differs from a proven one only in its stores is answered as well.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::book::{BookError, OpeningBook};
use crate::answer::{
    Answer, BoundedAnswer, Bounds, PositionAnswer, PositionReport, Proven, ProvenLine, Source, first_turn_best,
    first_turn_moves, first_turn_start,
};
use crate::board::Position;
use crate::moves::Turn;
use crate::notation::parse_position;
use crate::rules::Rules;

/// One line of a proven-positions file: what checked proofs establish at one position, for its
/// side to move, stores included, each bound with the proofs behind it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvenPosition {
    /// The rules, as far as values go ([`Rules::for_values`]), as text that parses back.
    pub rules: String,
    /// The position.
    pub position: String,
    /// Its value's bounds and their proofs.
    #[serde(flatten)]
    pub known: Proven,
}

/// The proven positions of the committed proofs, built in: `kalah proof index` writes the file
/// and a test keeps it equal to what the proofs establish.
pub const SHIPPED_POSITIONS: (&str, &str) =
    ("data/results/proven-positions.jsonl", include_str!("../../data/results/proven-positions.jsonl"));

/// `positions` as the text of a proven-positions file: one JSON line each, in the order given.
pub fn positions_text(positions: &[ProvenPosition]) -> String {
    positions.iter().map(|p| serde_json::to_string(p).expect("a proven position serialises") + "\n").collect()
}

/// Writes `positions` to `path` whole or not at all.
pub fn write_positions(path: &Path, positions: &[ProvenPosition]) -> std::io::Result<()> {
    crate::atomic::write_bytes(path, positions_text(positions).as_bytes())
}

/// How many sowings of one turn (an extra-turn chain) the index looks through for a move's
/// bounds: the proofs' nodes are whole turns, and longer chains are rare (a longer one is left
/// unknown, never wrong).
const TURN_DEPTH: usize = 12;

/// Board-value bounds of a position (stores left out) with the proofs behind them.
type BoardBounds = Proven;

/// Everything proven about positions, from every shipped source: see the module's comment.
#[derive(Debug, Default)]
pub struct ProvenIndex {
    book: OpeningBook,
    /// Board values by rules (as far as values go) and position without stores.
    nodes: HashMap<(Rules, Position), BoardBounds>,
}

impl ProvenIndex {
    /// The index of the shipped book and proven positions.
    pub fn shipped() -> Result<ProvenIndex, BookError> {
        ProvenIndex::new(OpeningBook::shipped()?, SHIPPED_POSITIONS.0, SHIPPED_POSITIONS.1)
    }

    /// The index of `book` and the proven positions in `text` (the file `name`); `Err` where a
    /// line does not parse or two lines contradict each other.
    pub fn new(book: OpeningBook, name: &str, text: &str) -> Result<ProvenIndex, BookError> {
        let mut index = ProvenIndex { book, nodes: HashMap::new() };
        for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            index.add_line(line).map_err(|message| BookError {
                file: name.to_string(),
                message: format!("line {}: {message}", number + 1),
            })?;
        }
        Ok(index)
    }

    fn add_line(&mut self, line: &str) -> Result<(), String> {
        let entry: ProvenPosition = serde_json::from_str(line).map_err(|err| err.to_string())?;
        let rules: Rules = entry.rules.parse().map_err(|err| format!("{err}"))?;
        let position = parse_position(&entry.position).map_err(|err| err.message)?;
        let total = position.total_seeds() as i32;
        let bounds = entry.known.bounds;
        if bounds.lower < -total || bounds.upper > total {
            return Err(format!("bounds {bounds} are not possible in a game of {total} seeds"));
        }
        let board = shifted(&entry.known, -position.margin());
        let key = (rules.for_values(), position.without_stores());
        let known = match self.nodes.get(&key) {
            Some(earlier) => earlier.narrowed_by(&board)?,
            None => board,
        };
        self.nodes.insert(key, known);
        Ok(())
    }

    /// The book the index was made with: its tables, maps and lines.
    pub fn book(&self) -> &OpeningBook {
        &self.book
    }

    /// Positions held from proofs.
    pub fn proven_positions(&self) -> usize {
        self.nodes.len()
    }

    /// What the sources hold at `position` itself (a game not over), intersected; `Ok(None)`
    /// where none holds anything, `Err` where two contradict each other.
    fn stored(&self, rules: &Rules, position: &Position) -> Result<Option<Proven>, String> {
        let exact = |value: i32| Proven::unproven(Bounds::exact(value));
        let sources = [
            self.book.answer(rules, position).map(|answer| exact(answer.value)),
            self.book.proven_at(rules, position).map(|(known, _)| known.clone()),
            self.book.line_value(rules, position).map(exact),
            self.nodes
                .get(&(rules.for_values(), position.without_stores()))
                .map(|board| shifted(board, position.margin())),
        ];
        let mut known: Option<Proven> = None;
        for source in sources.into_iter().flatten() {
            known = Some(match known {
                Some(known) => known.narrowed_by(&source)?,
                None => source,
            });
        }
        Ok(known)
    }

    /// What is held at `position` (a game not over) and, `depth` sowings deep at most, what its
    /// moves hold while its mover's turn goes on: the bounds (none where nothing is held), and
    /// whether any source (not the rules alone) held something.
    fn known_within_turn(
        &self,
        rules: &Rules,
        position: &Position,
        depth: usize,
    ) -> Result<(Option<Proven>, bool), String> {
        let stored = self.stored(rules, position)?;
        if depth == 0 {
            let held = stored.is_some();
            return Ok((stored, held));
        }
        let (moves, moves_held) = self.moves(rules, position, depth - 1)?;
        if stored.is_none() && !moves_held {
            return Ok((None, false));
        }
        let known = match (stored, best_of(&moves)) {
            (Some(stored), Some(best)) => best.narrowed_by(&stored)?,
            (Some(known), None) | (None, Some(known)) => known,
            (None, None) => return Ok((None, false)),
        };
        Ok((Some(known), true))
    }

    /// Every legal move of `position` (a game not over) with the mover's value after it as far
    /// as the sources hold it (by house 0..m): the final margin where the game ends; where the
    /// mover moves again, what is held there and, through the rest of the turn, at most `depth`
    /// sowings deeper ([`ProvenIndex::known_within_turn`]: the proofs' nodes are whole turns);
    /// else what is held where the other side moves; and what the book holds of the move.
    /// A move nothing is known of is bounded by the seeds alone. Also whether any source (not
    /// the rules alone) held something of a move.
    fn moves(&self, rules: &Rules, position: &Position, depth: usize) -> Result<(Vec<(usize, Proven)>, bool), String> {
        let unknown = Proven::unproven(Bounds::unknown(position.total_seeds()));
        let booked = self.book.move_bounds(rules, position)?;
        let (mut moves, mut held) = (Vec::new(), !booked.is_empty());
        for house in position.legal_moves() {
            let mut child = *position;
            child.play(rules, house);
            let mut known = if child.is_over(rules) {
                Proven::unproven(Bounds::exact(child.final_margin_for(rules, position.to_move())))
            } else if child.to_move() == position.to_move() {
                let (known, child_held) = self.known_within_turn(rules, &child, depth)?;
                held |= child_held;
                known.unwrap_or_else(|| unknown.clone())
            } else {
                let known = self.stored(rules, &child)?;
                held |= known.is_some();
                known.map_or_else(|| unknown.clone(), |known| -known)
            };
            if let Some((_, book)) = booked.iter().find(|(h, _)| *h == house) {
                known = known.narrowed_by(book)?;
            }
            moves.push((house, known));
        }
        Ok((moves, held))
    }

    /// What is proven of `position`'s value for its side to move, stores included: every
    /// source's bounds and one ply of negamax, intersected. `None` where nothing is known beyond
    /// the seeds, for a game that is over (the rules answer it), or where sources contradict
    /// each other (a test keeps the shipped ones apart).
    pub fn bounds(&self, rules: &Rules, position: &Position) -> Option<Proven> {
        self.bounds_and_moves(rules, position).map(|(known, _)| known)
    }

    /// [`ProvenIndex::bounds`] and every legal move's bounds, for a game not over where a source
    /// holds something of the position or of one of its moves (the rules alone, where a move
    /// ends the game, leave a position to the search, which answers every move).
    fn bounds_and_moves(&self, rules: &Rules, position: &Position) -> Option<(Proven, Vec<(usize, Proven)>)> {
        if position.is_over(rules) {
            return None;
        }
        if let Some(start) = first_turn_start(rules, position) {
            return self.first_turn_bounds(rules, &start, position);
        }
        let stored = self.stored(rules, position).ok()?;
        let (mut moves, held) = self.moves(rules, position, TURN_DEPTH).ok()?;
        if stored.is_none() && !held {
            return None;
        }
        let best = best_of(&moves)?;
        let known = match stored {
            Some(stored) => best.narrowed_by(&stored).ok()?,
            None => best,
        };
        // No move is worth more than the position.
        for (_, move_known) in &mut moves {
            if known.bounds.upper < move_known.bounds.upper {
                move_known.bounds.upper = known.bounds.upper;
                move_known.upper_proofs = known.upper_proofs.clone();
            }
        }
        let unknown = Bounds::unknown(position.total_seeds());
        (known.bounds != unknown).then_some((known, moves))
    }

    /// The answer at `position` from what is proven, with no search: exact with every move's
    /// value from the book's tables, else the bounds of every source with each move's, naming
    /// the proofs. `None` where nothing is known beyond the seeds, and for a game that is over
    /// (the rules answer it).
    pub fn answer(&self, rules: &Rules, position: &Position) -> Option<PositionReport> {
        if first_turn_start(rules, position).is_some() {
            return self.first_turn_answer(rules, position);
        }
        let answer = match self.book.answer(rules, position) {
            Some(exact) => Answer::Exact(exact),
            None => {
                let (known, moves) = self.bounds_and_moves(rules, position)?;
                bounded_answer(rules, position, known, &moves, Bounds::unknown(position.total_seeds()))
            }
        };
        Some(PositionReport::new(rules, position, answer, None))
    }

    /// [`ProvenIndex::answer`] within South's first turn under the pie rule
    /// ([`ProvenIndex::first_turn_bounds`]): exact where the book's tables give every turn.
    fn first_turn_answer(&self, rules: &Rules, position: &Position) -> Option<PositionReport> {
        let (known, moves) = self.bounds_and_moves(rules, position)?;
        let exact: Option<Vec<(usize, i32)>> = moves
            .iter()
            .map(|(house, known)| known.value().filter(|_| known.proofs().is_empty()).map(|value| (*house, value)))
            .collect();
        let exact = exact.and_then(|values| PositionAnswer::from_move_values(rules, position, &values, Source::Book));
        let answer = match exact {
            Some(exact) => Answer::Exact(exact),
            // No turn keeps more than 0 after the swap: an upper bound of 0 or more is the rules'.
            _ => {
                let ruled = Bounds { upper: 0, ..Bounds::unknown(position.total_seeds()) };
                bounded_answer(rules, position, known, &moves, ruled)
            }
        };
        Some(PositionReport::new(rules, position, answer, None))
    }

    /// [`ProvenIndex::bounds_and_moves`] within `start`'s first turn under the pie rule: each
    /// move's value after the swap ([`first_turn_moves`]) from what is held where its turns end
    /// (the start's openings tables and maps, the proofs' nodes), the position's the best of
    /// them; `None` where nothing is held at any turn's end, or where sources contradict each
    /// other.
    fn first_turn_bounds(
        &self,
        rules: &Rules,
        start: &Position,
        position: &Position,
    ) -> Option<(Proven, Vec<(usize, Proven)>)> {
        // Each turn's value for North, its end's mover, from the start's tables.
        let ends: HashMap<Turn, Position> = crate::moves::first_turns(rules, start).into_iter().collect();
        let mut from_tables: HashMap<Position, Proven> = HashMap::new();
        let tables = [self.book.start(rules, start), self.book.start_map(rules, start)];
        for opening in tables.into_iter().flatten().flat_map(|table| &table.openings) {
            let Some(end) = ends.get(&opening.turn) else { continue };
            let north = -&opening.known;
            let known = match from_tables.remove(end) {
                Some(earlier) => earlier.narrowed_by(&north).ok()?,
                None => north,
            };
            from_tables.insert(*end, known);
        }
        let mut held = false;
        let mut turn_end = |end: &Position| {
            let known = match (from_tables.get(end), self.bounds(rules, end)) {
                (Some(table), Some(index)) => Some(table.narrowed_by(&index)?),
                (table, index) => table.cloned().or(index),
            };
            held |= known.is_some();
            Ok::<_, String>(known.unwrap_or_else(|| Proven::unproven(Bounds::unknown(end.total_seeds()))))
        };
        let moves = first_turn_moves(rules, position, &mut turn_end).ok()?;
        let known = first_turn_best(&moves).filter(|_| held)?;
        Some((known, moves))
    }
}

/// The answer of `known` bounds at `position` and its `moves`', its source the proofs, or the
/// book where a bound within `ruled` (what the rules alone give) rests on none (a table or a
/// line; for a move that ends the game, the rules), or a claim where a proof is a file's given
/// at run time.
fn bounded_answer(
    rules: &Rules,
    position: &Position,
    known: Proven,
    moves: &[(usize, Proven)],
    ruled: Bounds,
) -> Answer {
    let from_book = (known.bounds.lower > ruled.lower && known.lower_proofs.is_empty())
        || (known.bounds.upper < ruled.upper && known.upper_proofs.is_empty());
    let mut answer = BoundedAnswer::new(rules, position, known, moves);
    if answer.proofs.iter().any(|proof| crate::engine::book::is_claimed(proof)) {
        answer.source = Source::Claimed;
    } else if from_book {
        answer.source = Source::Book;
    }
    Answer::Bounded(answer)
}

/// Why no move can be asked to keep a bound at a position.
#[derive(Debug, thiserror::Error)]
pub enum KeepingTargetError {
    /// No proof bounds the position from below and no bound was given.
    #[error(
        "no proof bounds {position} from below under {rules} and no at_least was given: /api/v1/position gives what is known"
    )]
    NoBound {
        /// The position.
        position: Position,
        /// The rules.
        rules: Rules,
    },
    /// The bound asked for is above what the proofs allow.
    #[error("no move of {position} keeps at least {lower}: it is proven worth at most {} for its mover", known.bounds.upper)]
    AboveProofs {
        /// The position.
        position: Position,
        /// The bound asked for.
        lower: i32,
        /// What the proofs establish there.
        known: Proven,
    },
}

impl ProvenIndex {
    /// What a move of `position` is to keep: the proofs' lower bound, or `at_least` where that
    /// is more (a search is then to prove it), with what is proven there (the lower bound's
    /// proofs dropped when the target is `at_least`'s). An error where neither gives a bound or
    /// where the proofs' upper bound is below it.
    pub fn keeping_target(
        &self,
        rules: &Rules,
        position: &Position,
        at_least: Option<i32>,
    ) -> Result<Proven, KeepingTargetError> {
        let unknown = Bounds::unknown(position.total_seeds());
        let known = self.bounds(rules, position).unwrap_or_else(|| Proven::unproven(unknown));
        let proven_lower =
            (!known.lower_proofs.is_empty() && known.bounds.lower > unknown.lower).then_some(known.bounds.lower);
        let Some(lower) = proven_lower.max(at_least) else {
            return Err(KeepingTargetError::NoBound { position: *position, rules: *rules });
        };
        if lower > known.bounds.upper {
            return Err(KeepingTargetError::AboveProofs { position: *position, lower, known });
        }
        Ok(match proven_lower == Some(lower) {
            true => known,
            false => Proven { bounds: Bounds { lower, upper: known.bounds.upper }, lower_proofs: Vec::new(), ..known },
        })
    }

    /// The move (house from 0) of `position` proven, by a proof or exactly, to keep the most
    /// for its mover of those that keep at least `at_least`; of equal ones, one after which the
    /// sources still hold something of the next moves (a node a proof expanded, not its leaf:
    /// the engine goes on from there without a search), then the lowest house. `None` where no
    /// move is proven to keep `at_least` (a search may find one).
    pub fn move_keeping(&self, rules: &Rules, position: &Position, at_least: i32) -> Option<usize> {
        let (_, moves) = self.bounds_and_moves(rules, position)?;
        let keeping = moves.iter().filter(|(_, known)| known.bounds.lower >= at_least && lower_is_proven(known));
        let goes_on = |house: usize| {
            let mut child = *position;
            child.play(rules, house);
            child.is_over(rules) || self.moves(rules, &child, TURN_DEPTH).is_ok_and(|(_, held)| held)
        };
        let best = keeping.map(|&(house, ref known)| (known.bounds.lower, goes_on(house), std::cmp::Reverse(house)));
        best.max().map(|(_, _, std::cmp::Reverse(house))| house)
    }

    /// The line that keeps what is proven from `position` under `rules`, as far as the proofs and
    /// the shipped lines reach ([`ProvenLine`]): at each position the first move (by house) whose
    /// lower bound for its mover is the position's, proven by a proof or exact (of those, one a
    /// shipped line goes on from, else one after which something is still known), as long as
    /// that bound says something.
    pub fn proven_line(&self, rules: &Rules, position: &Position) -> ProvenLine {
        let (mut moves, mut seen, mut current, mut end_known) = (Vec::new(), HashSet::new(), *position, None);
        let unknown = Bounds::unknown(position.total_seeds());
        while seen.insert(current) {
            let Some((known, options)) = self.bounds_and_moves(rules, &current) else {
                end_known = None;
                break;
            };
            let mut keeping = options
                .iter()
                .filter(|(_, option)| option.bounds.lower == known.bounds.lower && lower_is_proven(option));
            // Of those, one a shipped line goes on from, else one after which something is still
            // known, else the first.
            let after = |house: usize| {
                let mut child = current;
                child.play(rules, house);
                child
            };
            let on_line = keeping.clone().find(|&&(house, _)| self.book.line_value(rules, &after(house)).is_some());
            let known_after = keeping.clone().find(|&&(house, _)| {
                let child = after(house);
                child.is_over(rules) || self.bounds_and_moves(rules, &child).is_some()
            });
            end_known = Some(known.clone());
            let chosen = on_line.or(known_after).or(keeping.next());
            let Some(&(house, _)) = chosen.filter(|_| known.bounds.lower > unknown.lower) else { break };
            moves.push((house, known));
            current.play(rules, house);
        }
        ProvenLine::new(rules, position, moves, end_known)
    }
}

/// Whether `known`'s lower bound is proven: by a proof, or exact (a table, the rules).
fn lower_is_proven(known: &Proven) -> bool {
    !known.lower_proofs.is_empty() || known.value().is_some()
}

/// What is proven of the best of `moves` for their mover ([`Proven::or_better`] of them all);
/// `None` without moves.
fn best_of(moves: &[(usize, Proven)]) -> Option<Proven> {
    Proven::best_of(moves.iter().map(|(_, known)| known))
}

/// `known` with both bounds moved by `by` (a change of stores), the proofs kept.
fn shifted(known: &Proven, by: i32) -> Proven {
    let bounds = Bounds { lower: known.bounds.lower + by, upper: known.bounds.upper + by };
    Proven { bounds, ..known.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::Turn;

    /// A proven-positions line for `position` under standard rules.
    fn line(position: &Position, lower: i32, upper: i32, proof: &str) -> String {
        let known = Proven::new(Bounds { lower, upper }, vec![proof.to_string()], vec![proof.to_string()]);
        let entry = ProvenPosition { rules: "standard".to_string(), position: position.to_string(), known };
        positions_text(&[entry])
    }

    #[test]
    fn a_position_gets_its_own_bounds_and_its_moves_bounds_one_ply_down() {
        let rules = Rules::STANDARD;
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        let start = Position::start(4, 3).unwrap();
        // Every child of the start, bounded by its true value give or take 2, from the side
        // that moves there: the start gets the best lower bound and the largest upper bound.
        let mut text = String::new();
        let (mut lower, mut upper) = (i32::MIN, i32::MIN);
        for house in start.legal_moves() {
            let mut child = start;
            child.play(&rules, house);
            let value = solver.value(&child);
            text += &line(&child, value - 2, value + 2, &format!("proof-{house}"));
            let for_mover = if child.to_move() == start.to_move() { value } else { -value };
            (lower, upper) = (lower.max(for_mover - 2), upper.max(for_mover + 2));
        }
        let index = ProvenIndex::new(OpeningBook::default(), "test", &text).unwrap();
        let known = index.bounds(&rules, &start).unwrap();
        assert_eq!(known.bounds, Bounds { lower, upper });
        assert!(known.bounds.contains(solver.value(&start)));
        assert!(!known.lower_proofs.is_empty() && known.upper_proofs.len() == start.legal_moves().count());
        // A parent whose one child is bounded gets only the lower bound from it.
        let mut child = start;
        child.play(&rules, 0);
        let one = line(&child, 0, 4, "only");
        let index = ProvenIndex::new(OpeningBook::default(), "test", &one).unwrap();
        let known = index.bounds(&rules, &start).unwrap();
        let from_child = if child.to_move() == start.to_move() { 0 } else { -4 };
        assert_eq!(known.bounds, Bounds { lower: from_child, upper: start.total_seeds() as i32 });
        assert_eq!(known.lower_proofs, ["only"]);
        // The child itself is answered with its bounds, and its moves at most its upper bound.
        let answer = index.answer(&rules, &child).unwrap();
        let Answer::Bounded(answer) = answer.answer else { panic!("bounds, not a value") };
        assert_eq!(answer.known.bounds, Bounds { lower: 0, upper: 4 });
        assert!(answer.moves.iter().all(|m| m.known.bounds.upper <= 4));
        assert!(index.answer(&rules, &Position::start(4, 4).unwrap()).is_none(), "nothing known there");
    }

    /// The engine's move where proofs bound it: one proven to keep the bound asked for, and of
    /// equal ones the move into a node some proof expanded (its moves known: no search next).
    #[test]
    fn the_move_keeping_a_bound_goes_on_where_the_proofs_go_deeper() {
        let rules = Rules::STANDARD;
        let start = Position::start(4, 3).unwrap();
        let after = |position: &Position, house: usize| {
            let mut child = *position;
            child.play(&rules, house);
            child
        };
        // South's 1 and 3 both leave North to move, proven worth at most -3 for North.
        let (one, three) = (after(&start, 0), after(&start, 2));
        assert!(one.to_move() != start.to_move() && three.to_move() != start.to_move());
        let leaves = line(&one, -10, -3, "a") + &line(&three, -10, -3, "b");
        let index = ProvenIndex::new(OpeningBook::default(), "test", &leaves).unwrap();
        assert_eq!(index.move_keeping(&rules, &start, 3), Some(0), "equal leaves: the lower house");
        assert_eq!(index.move_keeping(&rules, &start, 4), None, "no move is proven to keep +4");
        // A proof that expanded South's 3: North's moves there are known, so 3 is played.
        let deeper = leaves + &line(&after(&three, three.legal_moves().next().unwrap()), -20, 20, "b");
        let index = ProvenIndex::new(OpeningBook::default(), "test", &deeper).unwrap();
        assert_eq!(index.move_keeping(&rules, &start, 3), Some(2));
        assert_eq!(index.move_keeping(&rules, &start, -24), Some(2), "the most kept, whatever is asked");
    }

    /// Within North's reply to South's 3 in standard Kalah(6,5) (after its 1, North moves again)
    /// the replies table gives every move's value (3, 4 and 5 worth -2, by hand from the table):
    /// a move proven to keep -2 is one of them, and none keeps -1.
    #[test]
    fn a_tables_move_values_are_moves_the_engine_may_keep() {
        let index = ProvenIndex::shipped().unwrap();
        let rules = Rules::STANDARD;
        let position = parse_position("5 5 0 6 6 6 1 0 6 6 6 6 6 1 N").unwrap();
        assert_eq!(index.bounds(&rules, &position).unwrap().value(), Some(-2));
        let kept = index.move_keeping(&rules, &position, -2).unwrap();
        assert!([2, 3, 4].contains(&kept), "house {}", kept + 1);
        assert_eq!(index.move_keeping(&rules, &position, -1), None);
    }

    #[test]
    fn a_position_that_differs_only_in_its_stores_is_answered_shifted() {
        let rules = Rules::STANDARD;
        let position = crate::notation::parse_position("1 0 2 0 3 0 1 0 2 0 S").unwrap();
        let text = line(&position, 2, 4, "p");
        let index = ProvenIndex::new(OpeningBook::default(), "test", &text).unwrap();
        let more = crate::notation::parse_position("1 0 2 0 6 0 1 0 2 0 S").unwrap();
        assert_eq!(index.bounds(&rules, &more).unwrap().bounds, Bounds { lower: 5, upper: 7 });
        // Contradicting lines are refused.
        let both = text.clone() + &line(&position, 6, 8, "q");
        assert!(ProvenIndex::new(OpeningBook::default(), "test", &both).unwrap_err().message.contains("contradict"));
    }

    /// Every position of the committed proofs is answered at once, with bounds at least as
    /// tight as the proofs' (no source contradicts another anywhere).
    #[test]
    fn every_shipped_proven_position_is_answered_within_its_proven_bounds() {
        let index = ProvenIndex::shipped().unwrap();
        assert!(index.proven_positions() > 1000, "{}", index.proven_positions());
        for line in SHIPPED_POSITIONS.1.lines() {
            let entry: ProvenPosition = serde_json::from_str(line).unwrap();
            let rules: Rules = entry.rules.parse().unwrap();
            let position = parse_position(&entry.position).unwrap();
            if position.is_over(&rules) {
                assert!(entry.known.bounds.contains(position.final_margin(&rules)), "{line}");
                continue;
            }
            let known = index.bounds(&rules, &position).unwrap_or_else(|| panic!("{line}: not answered"));
            assert!(
                known.bounds.intersect(&entry.known.bounds) == Some(known.bounds),
                "{line}: answered {}",
                known.bounds
            );
            assert!(index.answer(&rules, &position).is_some(), "{line}");
        }
        // After South 1 3, North 1 (standard Kalah(6,6)): a node of standard-6x6-ge-4's proof.
        let position = parse_position("1 7 0 8 8 8 2 0 8 8 7 7 7 1 S").unwrap();
        let known = index.bounds(&Rules::STANDARD, &position).unwrap();
        assert_eq!((known.bounds.lower, known.lower_proofs.clone()), (4, vec!["data/proofs/standard-6x6-ge-4".into()]));
    }

    /// Under the pie rule the first turn's positions are answered as the swap leaves them: from
    /// the book's exact table of Kalah(6,4) (its value the table's pie value, each move the best
    /// its turns keep), and from the proofs' map of BGA Kalah(6,6) (at least 0 by turn 1 4, which
    /// rests on both of that turn's proofs; at most 0 by the rule itself).
    #[test]
    fn a_first_turn_under_the_pie_rule_is_answered_as_the_swap_leaves_it() {
        let index = ProvenIndex::shipped().unwrap();
        let pie = Rules { pie: true, ..Rules::STANDARD };
        let start = Position::start(6, 4).unwrap();
        let table = index.book().start(&pie, &start).unwrap();
        let Answer::Exact(answer) = index.answer(&pie, &start).unwrap().answer else { panic!("6x4 is exact") };
        assert_eq!((Some(answer.value), answer.source), (table.pie_value, Source::Book));
        for m in &answer.moves {
            let turns = table.openings.iter().filter(|o| o.turn.houses()[0] as usize == m.house);
            let kept = turns.map(|o| -o.value().unwrap().abs()).max();
            assert_eq!(Some(m.value), kept, "move {}", m.house);
            assert_eq!(m.best, table.fairest.iter().any(|turn| turn.starts_with(&m.house.to_string())));
        }
        let bga = Rules { pie: true, ..Rules::BGA };
        let six = Position::start(6, 6).unwrap();
        let Answer::Bounded(answer) = index.answer(&bga, &six).unwrap().answer else { panic!("6x6 is mapped") };
        let turn_1_4 = ["data/proofs/bga-6x6-turn-1-4-ge-0".to_string(), "data/proofs/bga-6x6-turn-1-4-ge-2".into()];
        assert_eq!(answer.known, Proven::new(Bounds::exact(0), turn_1_4.to_vec(), vec![]));
        assert_eq!(answer.source, Source::Proof);
        assert!(index.proven_line(&bga, &six).text.starts_with("S 1 4 |"));
        // Without the pie rule, the plain game's value.
        assert_eq!(index.bounds(&Rules::BGA, &six).unwrap().value(), Some(4));
    }

    /// The proven line of standard Kalah(6,6) plays the `>= 4` proof's first turn, every move
    /// keeping a bound a proof gives; the line of empty-capture Kalah(6,5) follows the book to
    /// the game's end at the start's value.
    #[test]
    fn proven_lines_keep_what_the_proofs_prove() {
        let index = ProvenIndex::shipped().unwrap();
        let six = Position::start(6, 6).unwrap();
        let line = index.proven_line(&Rules::STANDARD, &six);
        assert!(line.text.starts_with("S 1 3 | N "), "{}", line.text);
        assert!(line.line.len() >= 4, "{}", line.text);
        for step in &line.line {
            assert!(!step.keeps.lower_proofs.is_empty(), "{}: {:?}", line.text, step.keeps);
            let (lower, side) = (step.keeps.bounds.lower, step.played.side);
            assert_eq!(lower, if side == six.to_move() { 4 } else { -4 }, "{}", line.text);
        }
        assert!(!line.game_over && line.end_known.is_some(), "the proofs end before the game");
        let rules: Rules = "empty-capture".parse().unwrap();
        let five = Position::start(6, 5).unwrap();
        let line = index.proven_line(&rules, &five);
        assert!(line.game_over && line.end_known.is_none(), "{}", line.text);
        assert_eq!(line.end.final_margin_for(&rules, five.to_move()), 12, "{}", line.text);
    }

    /// Every position along the shipped perfect lines is answered exactly, with no search.
    #[test]
    fn every_position_of_the_shipped_lines_has_its_value_at_once() {
        let index = ProvenIndex::shipped().unwrap();
        let mut positions = 0;
        for text in
            [include_str!("../../data/results/lines-6x5.jsonl"), include_str!("../../data/results/lines-6x4.jsonl")]
        {
            for line in text.lines() {
                let record: serde_json::Value = serde_json::from_str(line).unwrap();
                let rules: Rules = record["rules"].as_str().unwrap().parse().unwrap();
                let mut position = parse_position(record["start"].as_str().unwrap()).unwrap();
                let mut value = record["value"].as_i64().unwrap() as i32;
                for turn in record["principal_variation"].as_array().unwrap() {
                    let turn: Turn = turn.as_str().unwrap().parse().unwrap();
                    let (path, after) = turn.path(&rules, &position).unwrap();
                    for (at, _) in path {
                        let report = index.answer(&rules, &at).unwrap_or_else(|| panic!("{at}: not answered"));
                        let exact = match report.answer {
                            Answer::Exact(answer) => Some(answer.value),
                            Answer::Bounded(answer) => answer.known.value(),
                        };
                        assert_eq!(exact, Some(value), "{at} ({rules})");
                        positions += 1;
                    }
                    (position, value) = (after, -value);
                    if position.is_over(&rules) {
                        break;
                    }
                }
            }
        }
        assert!(positions > 100, "{positions}");
    }
}
