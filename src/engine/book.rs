//! The opening book: what the shipped result files (`data/results/openings-*.jsonl`, written by
//! `kalah run`) prove about starts, served without a search. Such a file gives every first turn
//! of a start with its exact value, so the book knows the value of every move at the start and
//! at each position within the first turn (a move's value is the best of the first turns that
//! begin with it), and each start's opening table with its pie-rule value.

use std::collections::HashMap;
use std::path::Path;

use super::lines::Lines;
use crate::answer::{Bounds, Mainline, Opening, OpeningsTable, PositionAnswer, Proven, Source};
use crate::board::Position;
use crate::moves::Turn;
use crate::notation::parse_position;
use crate::results::ItemResult;
use crate::rules::Rules;

/// The name a proof from a result file given at run time is shown by: the file's claim, not
/// checked by this program (`ge-6 (claimed by book/openings-4x4.jsonl, not checked here)`).
pub fn claimed_by(proof: &str, file: &str) -> String {
    format!("{proof} (claimed by {file}{NOT_CHECKED_HERE}")
}

/// Whether a proof name is a file's claim ([`claimed_by`]).
pub fn is_claimed(proof: &str) -> bool {
    proof.ends_with(NOT_CHECKED_HERE)
}

const NOT_CHECKED_HERE: &str = ", not checked here)";

/// What proofs establish at a position of a first turn: its value and each legal move's (by
/// house 0..m).
#[derive(Clone, Debug)]
struct Bounded {
    known: Proven,
    moves: Vec<(usize, Proven)>,
}

/// What the book was made from that it could not use.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct BookError {
    /// The result file.
    pub file: String,
    /// What is wrong with it.
    pub message: String,
}

/// Starts and the positions of their first turn, with every move's value.
#[derive(Debug, Default)]
pub struct OpeningBook {
    starts: HashMap<(Rules, Position), OpeningsTable>,
    /// Every legal move's value at each position of a first turn, by house 0..m.
    moves: HashMap<(Rules, Position), Vec<(usize, i32)>>,
    /// What proofs establish at each position of a first turn of a start whose table is not
    /// complete (the openings map of `kalah proof map`), and at the position each turn leaves.
    bounded: HashMap<(Rules, Position), Bounded>,
    /// The starts those positions belong to.
    maps: HashMap<(Rules, Position), OpeningsTable>,
    /// The shipped perfect-play lines, from every position along them.
    lines: Lines,
    /// The lines of files given at run time: served as those files' claims, and never as bounds.
    claimed_lines: Lines,
    /// The positions whose exact values (`moves`) come from a file given at run time, by file.
    claimed: HashMap<(Rules, Position), String>,
}

/// The positions a first `turn` passes through, with the house played at each (0..m), and the
/// position it leaves, from `start` under `rules`.
fn turn_path(rules: &Rules, start: &Position, turn: &Turn) -> Result<(Vec<(Position, usize)>, Position), String> {
    turn.path(rules, start).map_err(|err| format!("opening '{turn}' is not a first turn: {err}"))
}

/// Refuses a table whose openings leave out a legal move at a position of a first turn.
fn every_move_covered<T>(start: &str, moves: &HashMap<Position, Vec<T>>) -> Result<(), String> {
    for (position, listed) in moves {
        if position.legal_moves().count() != listed.len() {
            return Err(format!("the openings of {start} leave out moves of {position}"));
        }
    }
    Ok(())
}

/// The result files shipped with the crate, by name: built in, so that every front end answers
/// their starts on a fresh clone with no database and no files beside the binary.
const SHIPPED: [(&str, &str); 7] = [
    ("data/results/openings-6x4.jsonl", include_str!("../../data/results/openings-6x4.jsonl")),
    (
        "data/results/openings-6x4-rule-systems.jsonl",
        include_str!("../../data/results/openings-6x4-rule-systems.jsonl"),
    ),
    ("data/results/openings-6x5.jsonl", include_str!("../../data/results/openings-6x5.jsonl")),
    (
        "data/results/openings-6x5-rule-systems.jsonl",
        include_str!("../../data/results/openings-6x5-rule-systems.jsonl"),
    ),
    ("data/results/openings-6x5-proofs.jsonl", include_str!("../../data/results/openings-6x5-proofs.jsonl")),
    ("data/results/openings-6x6.jsonl", include_str!("../../data/results/openings-6x6.jsonl")),
    ("data/results/openings-replies-6x5.jsonl", include_str!("../../data/results/openings-replies-6x5.jsonl")),
];

/// The perfect-play lines built into the binary: [`super::lines`].
const SHIPPED_LINES: [(&str, &str); 3] = [
    ("data/results/lines-6x4.jsonl", include_str!("../../data/results/lines-6x4.jsonl")),
    ("data/results/lines-6x5.jsonl", include_str!("../../data/results/lines-6x5.jsonl")),
    ("data/results/lines-replies-6x5.jsonl", include_str!("../../data/results/lines-replies-6x5.jsonl")),
];

impl OpeningBook {
    /// The book of the shipped result files.
    pub fn shipped() -> Result<OpeningBook, BookError> {
        let mut book = OpeningBook::default();
        for (name, text) in SHIPPED {
            book.add_text(name, text, false)?;
        }
        for (name, text) in SHIPPED_LINES {
            book.lines.add_text(text).map_err(|message| BookError { file: name.to_string(), message })?;
        }
        Ok(book)
    }

    /// The book of every `openings-*.jsonl` under `dir` (none: an empty book).
    pub fn load(dir: &Path) -> Result<OpeningBook, BookError> {
        let mut book = OpeningBook::default();
        book.add_dir(dir)?;
        Ok(book)
    }

    /// Adds every `openings-*.jsonl` under `dir` (a missing directory adds nothing).
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), BookError> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
        let mut files: Vec<_> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                (name.starts_with("openings-") || name.starts_with("lines-"))
                    && name.ends_with(".jsonl")
                    && !name.ends_with(".tasks.jsonl")
            })
            .collect();
        files.sort();
        for file in files {
            let name = file.display().to_string();
            let text = crate::input::read_text(&file, crate::input::LARGE_FILE_BYTES)
                .map_err(|err| BookError { file: name.clone(), message: err.to_string() })?;
            let is_lines = file.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("lines-"));
            match is_lines {
                true => self.claimed_lines.add_text(&text).map_err(|message| BookError { file: name, message })?,
                false => self.add_text(&name, &text, true)?,
            }
        }
        Ok(())
    }

    /// Adds the result lines of `text` (the file `name`). The proofs a file given at run time
    /// (`claimed`, not shipped) names are its claims: named so wherever they are shown
    /// ([`claimed_by`]), and what rests on them is served as [`Source::Claimed`].
    pub(crate) fn add_text(&mut self, name: &str, text: &str, claimed: bool) -> Result<(), BookError> {
        let failed = |number: usize, message: String| BookError {
            file: name.to_string(),
            message: format!("line {}: {message}", number + 1),
        };
        for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            let record: ItemResult = serde_json::from_str(line).map_err(|err| failed(number, err.to_string()))?;
            self.add(&record, claimed.then_some(name)).map_err(|message| failed(number, message))?;
        }
        Ok(())
    }

    /// Adds an openings table: a complete one (every opening's exact value) to the exact book,
    /// one with bounds, or from checked proofs, to the bounded part.
    fn add(&mut self, record: &ItemResult, claimed_in: Option<&str>) -> Result<(), String> {
        if record.compute != "openings" {
            return Ok(());
        }
        let table = &record.table;
        let rules: Rules = table.rules.parse().map_err(|err| format!("{err}"))?;
        let start = parse_position(&table.position).map_err(|err| err.message)?;
        let exact: Option<Vec<(Turn, i32)>> =
            table.openings.iter().map(|o| Some((o.turn.clone(), o.value()?))).collect();
        // A map of checked proofs stays one once every turn is exact: its answers name the proofs.
        let from_proofs = !table.known.proofs().is_empty();
        match exact {
            Some(openings) if table.value().is_some() && !from_proofs => {
                self.add_exact(record, rules, start, openings, claimed_in)
            }
            _ => self.add_bounded(record, rules, start, claimed_in),
        }
    }

    /// Adds the bounds of an openings table that is not complete: each opening's, and the
    /// start's.
    fn add_bounded(
        &mut self,
        record: &ItemResult,
        rules: Rules,
        start: Position,
        claimed_in: Option<&str>,
    ) -> Result<(), String> {
        let claims = |known: Proven| match claimed_in {
            Some(file) => {
                let names = |proofs: &[String]| proofs.iter().map(|proof| claimed_by(proof, file)).collect();
                Proven::new(known.bounds, names(&known.lower_proofs), names(&known.upper_proofs))
            }
            None => known,
        };
        let known = claims(record.table.known.clone());
        let mut at: HashMap<Position, Vec<(usize, Proven)>> = HashMap::new();
        let mut after_turns: HashMap<Position, Proven> = HashMap::new();
        let mut openings = Vec::new();
        for opening in &record.table.openings {
            let turn = claims(opening.known.clone());
            openings.push(Opening::new(opening.turn.clone(), turn.clone()));
            let (path, after) = turn_path(&rules, &start, &opening.turn)?;
            if !after.is_over(&rules) {
                // After a first turn the other side moves, at the turn's value negated; a
                // position two turns reach is worth what both prove.
                let other_side = -&turn;
                let both = match after_turns.get(&after) {
                    Some(known) => known.narrowed_by(&other_side)?,
                    None => other_side,
                };
                after_turns.insert(after, both);
            }
            // A move within a first turn is worth the best of the turns that go on with it.
            for (position, house) in path {
                let moves = at.entry(position).or_default();
                match moves.iter_mut().find(|(h, _)| *h == house) {
                    Some((_, known)) => *known = known.or_better(&turn),
                    None => moves.push((house, turn.clone())),
                }
            }
        }
        every_move_covered(&record.table.position, &at)?;
        let source = if claimed_in.is_some() { Source::Claimed } else { Source::Proof };
        let map = OpeningsTable::new(&rules, &start, known.clone(), openings, source);
        let rules = rules.for_values();
        for (position, moves) in at {
            let (_, first) = moves.first().ok_or("no openings")?;
            let mut best = moves[1..].iter().fold(first.clone(), |best, (_, known)| best.or_better(known));
            if position == start {
                // The start's own proofs may narrow what its openings give.
                best = best.narrowed_by(&known)?;
            }
            self.bounded.insert((rules, position), Bounded { known: best, moves });
        }
        // Each of the other side's moves is worth at most the position (what each is worth, no
        // proof says).
        for (after, known) in after_turns {
            let total = after.total_seeds() as i32;
            let at_most = Proven::new(
                Bounds { lower: -total, upper: known.bounds.upper },
                Vec::new(),
                known.upper_proofs.clone(),
            );
            let moves = after.legal_moves().map(|house| (house, at_most.clone())).collect();
            self.bounded.insert((rules, after), Bounded { known, moves });
        }
        self.maps.insert((rules, start), map);
        Ok(())
    }

    /// Adds a complete openings table.
    fn add_exact(
        &mut self,
        record: &ItemResult,
        rules: Rules,
        start: Position,
        openings: Vec<(Turn, i32)>,
        claimed_in: Option<&str>,
    ) -> Result<(), String> {
        let mut best_after: HashMap<Position, Vec<(usize, i32)>> = HashMap::new();
        for (turn, turn_value) in &openings {
            for (position, house) in turn_path(&rules, &start, turn)?.0 {
                let moves = best_after.entry(position).or_default();
                match moves.iter_mut().find(|(h, _)| *h == house) {
                    Some((_, value)) => *value = (*value).max(*turn_value),
                    None => moves.push((house, *turn_value)),
                }
            }
        }
        every_move_covered(&record.table.position, &best_after)?;
        let value = openings.iter().map(|(_, v)| *v).max().ok_or("no openings")?;
        let claimed_value = record.table.value().unwrap_or(value);
        if value != claimed_value {
            return Err(format!("value {claimed_value} is not the best opening's {value}"));
        }
        let openings = openings.into_iter().map(|(turn, value)| Opening::exact(turn, value)).collect();
        let known = Proven::unproven(Bounds::exact(value));
        let source = if claimed_in.is_some() { Source::Claimed } else { Source::Book };
        let table = OpeningsTable {
            claimed_by: claimed_in.map(str::to_string),
            ..OpeningsTable::new(&rules, &start, known, openings, source)
        };
        let rules = rules.for_values();
        for (position, moves) in best_after {
            match claimed_in {
                Some(file) => self.claimed.insert((rules, position), file.to_string()),
                None => self.claimed.remove(&(rules, position)),
            };
            self.moves.insert((rules, position), moves);
        }
        self.starts.insert((rules, start), table);
        Ok(())
    }

    /// The openings table of `start` under `rules`, if the book has it.
    pub fn start(&self, rules: &Rules, start: &Position) -> Option<&OpeningsTable> {
        self.starts.get(&(rules.for_values(), *start))
    }

    /// Every start in the book.
    pub fn starts(&self) -> impl Iterator<Item = &OpeningsTable> {
        self.starts.values()
    }

    /// What checked proofs establish about `start` under `rules`, if the book maps it.
    pub fn start_map(&self, rules: &Rules, start: &Position) -> Option<&OpeningsTable> {
        self.maps.get(&(rules.for_values(), *start))
    }

    /// Every start the book maps by proofs.
    pub fn start_maps(&self) -> impl Iterator<Item = &OpeningsTable> {
        self.maps.values()
    }

    /// What checked proofs establish at `position`, and at each of its legal moves (by house
    /// 0..m), if it is a start of the openings map, lies within a first turn of one or is where a
    /// first turn leaves the other side to move.
    pub(crate) fn proven_at(&self, rules: &Rules, position: &Position) -> Option<(&Proven, &[(usize, Proven)])> {
        let bounded = self.bounded.get(&(rules.for_values(), *position))?;
        Some((&bounded.known, &bounded.moves))
    }

    /// What the book holds of each legal move (by house 0..m) at `position`: the maps' proven
    /// bounds, narrowed by a shipped table's exact values (which win a tie); empty where it holds
    /// nothing, an error where the two contradict each other.
    pub(crate) fn move_bounds(&self, rules: &Rules, position: &Position) -> Result<Vec<(usize, Proven)>, String> {
        let mut moves = self.proven_at(rules, position).map_or_else(Vec::new, |(_, moves)| moves.to_vec());
        for &(house, value) in self.move_values(rules, position).unwrap_or(&[]) {
            let exact = Proven::unproven(Bounds::exact(value));
            match moves.iter_mut().find(|(h, _)| *h == house) {
                Some((_, known)) => *known = known.narrowed_by(&exact)?,
                None => moves.push((house, exact)),
            }
        }
        Ok(moves)
    }

    /// [`OpeningBook::proven_at`] as an answer.
    #[cfg(test)]
    fn bounded_answer(&self, rules: &Rules, position: &Position) -> Option<crate::answer::BoundedAnswer> {
        let (known, moves) = self.proven_at(rules, position)?;
        Some(crate::answer::BoundedAnswer::new(rules, position, known.clone(), moves))
    }

    /// The exact value at `position`, if a shipped perfect line passes there.
    pub(crate) fn line_value(&self, rules: &Rules, position: &Position) -> Option<i32> {
        Some(self.lines.from(rules, position)?.value)
    }

    /// A perfect-play line from `position`, if a shipped line passes there, else one of a file
    /// given at run time (its claim).
    pub fn mainline(&self, rules: &Rules, position: &Position) -> Option<Mainline> {
        let (from, source) = match self.lines.from(rules, position) {
            Some(from) => (from, Source::Book),
            None => (self.claimed_lines.from(rules, position)?, Source::Claimed),
        };
        Some(Mainline::new(rules, position, from.value, &from.turns, source))
    }

    /// Every move's exact value for the mover at `position` under `rules` (houses from 0), where
    /// a shipped table gives them.
    pub fn move_values(&self, rules: &Rules, position: &Position) -> Option<&[(usize, i32)]> {
        self.moves.get(&(rules.for_values(), *position)).map(Vec::as_slice)
    }

    /// The analysis of `position` if it is a start or lies within a first turn of one.
    pub fn answer(&self, rules: &Rules, position: &Position) -> Option<PositionAnswer> {
        let values = self.move_values(rules, position)?;
        let source = match self.claimed.contains_key(&(rules.for_values(), *position)) {
            true => Source::Claimed,
            false => Source::Book,
        };
        PositionAnswer::from_move_values(rules, position, values, source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Wdl;
    use crate::board::Side;

    /// The openings table of Kalah(4,2) as a result line, from the plain solver.
    fn result_line(rules: &Rules) -> String {
        let start = Position::start(4, 2).unwrap();
        let mut solver = crate::solve::Solver::new(*rules).unwrap();
        // The first player's value of each turn: the opponent's, negated.
        let openings: Vec<Opening> = crate::moves::first_turns(rules, &start)
            .iter()
            .map(|(turn, after)| Opening::exact(turn.clone(), -solver.value(after)))
            .collect();
        let value = solver.value(&start);
        let known = Proven::unproven(Bounds::exact(value));
        let result = ItemResult {
            job: "openings-4x2".to_string(),
            item: 1,
            start: "4x2".to_string(),
            compute: "openings".to_string(),
            table: OpeningsTable::new(rules, &start, known, openings, Source::Book),
            holds: None,
            nodes: 0,
            seconds: 0.0,
        };
        serde_json::to_string(&result).unwrap()
    }

    /// Every shipped line starts at a shipped table's start, is worth its value, and opens with
    /// one of its best first turns; the service answers those starts' lines with no search.
    #[test]
    fn the_shipped_lines_agree_with_the_shipped_tables() {
        let book = OpeningBook::shipped().unwrap();
        let mut lines = 0;
        for table in book.starts() {
            let rules: Rules = table.rules.parse().unwrap();
            let start = parse_position(&table.position).unwrap();
            let Some(line) = book.mainline(&rules, &start) else { continue };
            lines += 1;
            assert_eq!(
                (line.value, line.source),
                (table.value().unwrap(), Source::Book),
                "{} {}",
                table.rules,
                table.position
            );
            let first: Vec<String> = line.text.split(" | ").map(|turn| turn[2..].to_string()).collect();
            assert!(
                table.best.contains(&first[0]),
                "{}: opens with {}, not one of {:?}",
                table.rules,
                first[0],
                table.best
            );
            // The tables of the replies job start with North to move, and value the mover's side.
            let value = table.value().unwrap();
            let south_value = if start.to_move() == Side::South { value } else { -value };
            assert!(line.game_over && line.south_margin == Some(south_value), "{}", table.rules);
        }
        assert!(lines >= 12, "seven 6x4 lines, five 6x5 lines and the 6x5 reply lines ship: {lines}");
    }

    /// After each first turn of Kalah(6,5) a shipped line (`lines-replies-6x5.jsonl`) gives
    /// North's perfect reply, and a settled item of the replies job (`openings-replies-6x5`) every
    /// reply's value, both at the value the openings table gives the turn.
    #[test]
    fn the_replies_agree_with_the_openings_table() {
        let book = OpeningBook::shipped().unwrap();
        let start = Position::start(6, 5).unwrap();
        // Turn 2 3 through each start's line; the others from the solves that
        // `scripts/regenerate-reply-lines.sh` runs: every first turn has one.
        let every_turn: &[&str] = &["1", "2 1", "2 3", "2 4", "2 5", "2 6", "3", "4", "5", "6"];
        let expected: [(Rules, &[&str]); 2] = [(Rules::EMPTY_CAPTURE, every_turn), (Rules::STANDARD, every_turn)];
        for (rules, reply_lines) in expected {
            let table = book.start(&rules, &start).unwrap();
            let (mut covered, mut tables) = (Vec::new(), 0);
            for opening in &table.openings {
                let (turn, value) = (opening.turn.to_string(), opening.value().unwrap());
                let (_, after) = opening.turn.path(&rules, &start).unwrap();
                if let Some(replies) = book.start(&rules, &after) {
                    assert_eq!(replies.value(), Some(-value), "{rules}, after {turn}: the replies' table");
                    assert!(replies.pie_value.is_none() && replies.fairest.is_empty(), "no swap after the first turn");
                    tables += 1;
                }
                let Some(line) = book.mainline(&rules, &after) else { continue };
                assert_eq!(line.value, -value, "{rules}, after {turn}: North's value");
                covered.push(turn);
            }
            assert_eq!(covered, reply_lines, "{rules}: the first turns with a reply line");
            // Every first turn's replies are settled, under both rule sets.
            assert_eq!(tables, 10, "{rules}: {tables} tables of replies");
        }
    }

    /// Along a shipped line the book knows the value and one best move: the line's.
    #[test]
    fn a_shipped_line_gives_the_value_and_its_move_and_bounds_the_others() {
        let index = crate::engine::ProvenIndex::shipped().unwrap();
        let book = index.book();
        let start = Position::start(6, 5).unwrap();
        let line = book.mainline(&Rules::STANDARD, &start).unwrap();
        // The first position along the line past the book's tables (its first turns and the
        // replies to them).
        let after =
            line.line.iter().map(|m| m.played.effect.position).find(|p| book.answer(&Rules::STANDARD, p).is_none());
        let after = after.unwrap();
        let north = book.mainline(&Rules::STANDARD, &after).unwrap();
        assert_eq!(book.line_value(&Rules::STANDARD, &after), Some(north.value));
        let crate::answer::Answer::Bounded(answer) = index.answer(&Rules::STANDARD, &after).unwrap().answer else {
            panic!("bounds from the line")
        };
        assert_eq!((answer.known.value(), answer.known.bounds), (Some(north.value), Bounds::exact(north.value)));
        assert_eq!(answer.source, Source::Book);
        let best: Vec<usize> = answer.moves.iter().filter(|m| m.best).map(|m| m.house).collect();
        assert_eq!(best, vec![north.line[0].played.house], "the line's move, and only it, is known best");
        assert!(answer.moves.iter().all(|m| m.best || m.known.bounds.upper <= north.value));
        assert_eq!(answer.moves.len(), after.without_stores().legal_moves().count());
        assert!(book.line_value(&Rules::STANDARD, &Position::start(6, 3).unwrap()).is_none(), "no line there");
    }

    #[test]
    fn every_move_within_the_first_turn_has_the_solvers_value() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Rules::STANDARD;
        std::fs::write(dir.path().join("openings-4x2.jsonl"), result_line(&rules) + "\n").unwrap();
        let book = OpeningBook::load(dir.path()).unwrap();
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        let start = Position::start(4, 2).unwrap();
        let table = book.start(&rules, &start).unwrap();
        assert!(table.claimed_by.as_ref().is_some_and(|file| file.ends_with("openings-4x2.jsonl")));
        assert_eq!(table.value(), Some(solver.value(&start)));
        assert_eq!(table.pie_value, crate::answer::pie_value(table.openings.iter().map(|o| o.value().unwrap())));
        // The start and every position reached within South's first turn.
        let mut positions = vec![start];
        let mut answered = 0;
        while let Some(position) = positions.pop() {
            if position.to_move() != start.to_move() || position.is_over(&rules) {
                assert!(book.answer(&rules, &position).is_none(), "{position}");
                continue;
            }
            let answer = book.answer(&rules, &position).unwrap();
            // (A file given at run time: its values are its claims, said so.)
            assert_eq!(answer.source, Source::Claimed, "{position}");
            answered += 1;
            assert_eq!(answer.value, solver.value(&position), "{position}");
            for entry in &answer.moves {
                let mut after = position;
                let outcome = after.play(&rules, entry.house - 1);
                let value = if outcome.extra_turn { solver.value(&after) } else { -solver.value(&after) };
                assert_eq!(entry.value, value, "{position} move {}", entry.house);
                positions.push(after);
            }
        }
        assert!(answered > 1, "the first turn has extra turns to follow");
        assert!(book.answer(&Rules::STANDARD, &Position::start(4, 3).unwrap()).is_none());
    }

    #[test]
    fn incomplete_or_inconsistent_tables_are_refused_or_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let line = result_line(&Rules::STANDARD);
        let path = dir.path().join("openings-4x2.jsonl");
        // A wrong value for the start: refused as read (its bounds say otherwise), and, with
        // bounds and best turns to match, by the book (its openings say otherwise).
        let mut record: serde_json::Value = serde_json::from_str(&line).unwrap();
        let line_value = record["value"].clone();
        let wrong = serde_json::json!(line_value.as_i64().unwrap() + 2);
        record["value"] = wrong.clone();
        std::fs::write(&path, format!("{record}\n")).unwrap();
        assert!(OpeningBook::load(dir.path()).unwrap_err().message.contains("do not agree"));
        (record["lower"], record["upper"], record["best"]) = (wrong.clone(), wrong, serde_json::json!([]));
        std::fs::write(&path, format!("{record}\n")).unwrap();
        assert!(OpeningBook::load(dir.path()).unwrap_err().message.contains("best opening"));
        // An opening left out (not a best one), the pie value its fellows give.
        let mut record: serde_json::Value = serde_json::from_str(&line).unwrap();
        let openings = record["openings"].as_array_mut().unwrap();
        let worse = openings.iter().rposition(|o| o["value"] != line_value).unwrap();
        openings.remove(worse);
        let pie = crate::answer::pie_value(openings.iter().map(|o| o["value"].as_i64().unwrap() as i32));
        record["pie_value"] = serde_json::json!(pie);
        std::fs::write(&path, format!("{record}\n")).unwrap();
        assert!(OpeningBook::load(dir.path()).unwrap_err().message.contains("leave out"));
        // An opening not yet settled, wide enough to leave the pie value open: the table is
        // skipped, not refused.
        let mut record: serde_json::Value = serde_json::from_str(&line).unwrap();
        record["pie_value"] = serde_json::Value::Null;
        record["openings"][0]["value"] = serde_json::Value::Null;
        (record["openings"][0]["lower"], record["openings"][0]["upper"]) =
            (serde_json::json!(-16), serde_json::json!(16));
        std::fs::write(&path, format!("{record}\n")).unwrap();
        assert!(
            OpeningBook::load(dir.path()).unwrap().start(&Rules::STANDARD, &Position::start(4, 2).unwrap()).is_none()
        );
        // The same files read at run time (`--book`): their proofs are the files' claims.
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results");
        let claimed = OpeningBook::load(&shipped).unwrap();
        let six = Position::start(6, 6).unwrap();
        let answer = claimed.bounded_answer(&Rules::STANDARD, &six).unwrap();
        assert!(answer.proofs.iter().all(|proof| is_claimed(proof)), "{:?}", answer.proofs);
        assert_eq!(claimed.start_map(&Rules::STANDARD, &six).unwrap().source, Source::Claimed);
        // The shipped tables load, with the published values of Kalah(6,4) and (6,5).
        let book = OpeningBook::shipped().unwrap();
        let empty_capture: Rules = "empty-capture".parse().unwrap();
        assert_eq!(book.start(&empty_capture, &Position::start(6, 5).unwrap()).unwrap().value(), Some(12));
        assert_eq!(book.start(&Rules::STANDARD, &Position::start(6, 4).unwrap()).unwrap().value(), Some(8));
        assert_eq!(book.answer(&empty_capture, &Position::start(6, 4).unwrap()).unwrap().value, 10);
        // Kalah(6,6) from the proofs' map: standard exact, its moves bounded; the first turns of
        // empty capture +2, its opening 2 proven best (first turns proven since may join it).
        let six = Position::start(6, 6).unwrap();
        assert!(book.start(&Rules::STANDARD, &six).is_none() && book.answer(&Rules::STANDARD, &six).is_none());
        let standard = book.bounded_answer(&Rules::STANDARD, &six).unwrap();
        assert_eq!((standard.known.value(), standard.wdl), (Some(4), Some(Wdl::Win)));
        assert_eq!(standard.moves.iter().map(|m| (m.house, m.best)).collect::<Vec<_>>()[0], (1, true));
        assert!(
            standard.moves.iter().all(|m| m.known.bounds.upper <= 4 && (m.house != 1 || m.known.bounds.upper == 4))
        );
        // Turn 2 is worth at most +2: its test of >= 4 refuted (the proofs only narrow it further).
        assert!(standard.moves.iter().any(|m| m.house == 2 && m.known.bounds.upper <= 2));
        let after_one = {
            let mut p = six;
            p.play(&Rules::STANDARD, 0);
            p
        };
        assert_eq!(book.bounded_answer(&Rules::STANDARD, &after_one).unwrap().known.value(), Some(4), "1 then 3");
        // After a whole first turn North moves, at the turn's value negated: exact after 1 3,
        // at least -2 after 2, no move of North's worth more than the position.
        let after = |rules: &Rules, turn: &str| turn.parse::<Turn>().unwrap().play(rules, &six).unwrap();
        let north = book.bounded_answer(&Rules::STANDARD, &after(&Rules::STANDARD, "1 3")).unwrap();
        assert_eq!((north.known.value(), north.wdl), (Some(-4), Some(Wdl::Loss)));
        assert!(north.proofs.contains(&"data/proofs/standard-6x6-ge-4".to_string()), "{:?}", north.proofs);
        let north = book.bounded_answer(&Rules::STANDARD, &after(&Rules::STANDARD, "2")).unwrap();
        assert!(
            north.known.bounds.lower >= -2 && north.known.bounds.lower <= north.known.bounds.upper,
            "{:?}",
            north.known
        );
        assert!(north.proofs.contains(&"data/proofs/standard-6x6-turn-2-ge-4".to_string()), "{:?}", north.proofs);
        assert!(north.moves.len() == 6 && north.moves.iter().all(|m| m.known.bounds.upper <= north.known.bounds.upper));
        // Empty capture's turn 3 is worth 0 (as published): a draw for North too.
        let north = book.bounded_answer(&empty_capture, &after(&empty_capture, "3")).unwrap();
        assert_eq!((north.known.value(), north.wdl), (Some(0), Some(Wdl::Draw)));
        assert!(
            north.moves.iter().all(|m| m.known.bounds.upper == 0),
            "no move of North's is worth more than the position"
        );
        let empty_six = book.bounded_answer(&empty_capture, &six).unwrap();
        assert_eq!((empty_six.known.value(), empty_six.known.bounds.lower), (Some(2), 2));
        assert!(empty_six.moves.iter().any(|m| m.house == 2 && m.best));
        assert!(empty_six.moves.iter().all(|m| m.known.bounds.upper <= 2 && (!m.best || m.known.value() == Some(2))));
        // BGA's start: +4, as standard Kalah's, through turn 1 3; every other turn at most +4,
        // turn 2 at least +2 (`bga-6x6-turn-2-ge-2`; the map's later tests only narrow these).
        let bga: Rules = "bga".parse().unwrap();
        let bga_six = book.bounded_answer(&bga, &six).unwrap();
        assert_eq!((bga_six.known.value(), bga_six.known.bounds.lower, bga_six.wdl), (Some(4), 4, Some(Wdl::Win)));
        assert!(
            bga_six.moves.iter().all(|m| m.known.bounds.upper <= 4 && m.known.bounds.lower <= m.known.bounds.upper)
        );
        assert!(bga_six.moves.iter().any(|m| m.house == 1 && m.known.bounds.lower == 4));
        assert!(bga_six.moves.iter().any(|m| m.house == 2 && m.known.bounds.lower >= 2));
        assert!(bga_six.moves.iter().any(|m| m.house == 1 && m.best && m.known.value() == Some(4)));
        // With empty capture +4 too, through turn 1 2: after it North's value is exactly -4. Its
        // map, every turn exact and each but 1 2 as under Irving's empty capture: 1 3 and 2 +2,
        // 1 4, 1 5, 1 6, 3, 4 and 5 0, 6 -2.
        let bga_empty: Rules = "bga capture=empty".parse().unwrap();
        let bga_empty_six = book.bounded_answer(&bga_empty, &six).unwrap();
        assert_eq!((bga_empty_six.known.value(), bga_empty_six.wdl), (Some(4), Some(Wdl::Win)));
        let bga_empty_house = |house| bga_empty_six.moves.iter().find(|m| m.house == house).unwrap();
        assert!(bga_empty_house(1).best && bga_empty_house(1).known.value() == Some(4));
        for (house, value) in [(2, 2), (3, 0), (4, 0), (5, 0), (6, -2)] {
            assert_eq!(bga_empty_house(house).known.value(), Some(value), "turn {house}");
        }
        let north = book.bounded_answer(&bga_empty, &after(&bga_empty, "1 2")).unwrap();
        assert_eq!((north.known.value(), north.wdl), (Some(-4), Some(Wdl::Loss)));
        // With seeds discarded values may be odd: +3, by turn 1 3; every other turn at most +3.
        let discard: Rules = "standard remaining=discard".parse().unwrap();
        let discard_six = book.bounded_answer(&discard, &six).unwrap();
        assert_eq!((discard_six.known.value(), discard_six.wdl), (Some(3), Some(Wdl::Win)));
        assert!(discard_six.moves.iter().all(|m| m.known.bounds.upper <= 3 && (!m.best || m.known.value() == Some(3))));
        assert!(discard_six.moves.iter().any(|m| m.house == 1 && m.best));
        // Wetherell's Kalah(6,5): a draw, by turn 6; every other first turn at most 0.
        let wetherell: Rules = "wetherell".parse().unwrap();
        let five = Position::start(6, 5).unwrap();
        let wetherell_five = book.bounded_answer(&wetherell, &five).unwrap();
        assert_eq!((wetherell_five.known.value(), wetherell_five.wdl), (Some(0), Some(Wdl::Draw)));
        for m in &wetherell_five.moves {
            let lower = if m.house == 6 { 0 } else { -60 };
            assert_eq!((m.known.bounds.lower, m.known.bounds.upper), (lower, 0), "turn {}", m.house);
        }
        assert_eq!(OpeningBook::shipped().unwrap().start_maps().count(), 6);
        // Every openings file in data/results is built in (a new one must be added to SHIPPED).
        let built_in: Vec<&str> = SHIPPED.iter().map(|(name, _)| *name).collect();
        for entry in std::fs::read_dir(&shipped).unwrap() {
            let name = format!("data/results/{}", entry.unwrap().file_name().to_string_lossy());
            if name.contains("/openings-") && name.ends_with(".jsonl") && !name.ends_with(".tasks.jsonl") {
                assert!(built_in.contains(&name.as_str()), "{name} is not in SHIPPED");
            }
        }
        assert_eq!(
            OpeningBook::shipped().unwrap().start(&bga, &Position::start(6, 4).unwrap()).map(OpeningsTable::value),
            book.start(&bga, &Position::start(6, 4).unwrap()).map(OpeningsTable::value)
        );
        assert!(OpeningBook::shipped().unwrap().start(&bga, &Position::start(6, 4).unwrap()).is_some());
    }
}
