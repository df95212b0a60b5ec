//! Perfect-play lines shipped with the results (`data/results/lines-*.jsonl`, one `kalah solve
//! --json` a line, read as the [`StartReport`] it is: its rules, start, value and principal
//! variation), served from every position along them with no search. A line is checked as it is read: every turn legal, the
//! game over at its end, and the final margin the start's value; a line that fails is refused.

use std::collections::HashMap;
use std::str::FromStr;

use crate::answer::StartReport;
use crate::board::Position;
use crate::moves::Turn;
use crate::rules::Rules;

/// What the lines give at a position: its value for the side to move and the rest of the line,
/// a turn an entry (houses 0..m; the first may be the rest of a turn begun before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LineFrom {
    pub value: i32,
    pub turns: Vec<Vec<usize>>,
}

/// Every position along the shipped lines, by rules (as values see them) and position.
#[derive(Debug, Default)]
pub(crate) struct Lines {
    from: HashMap<(Rules, Position), LineFrom>,
}

impl Lines {
    /// Adds the lines of `text` (a lines file), each checked; the first that fails is the error.
    pub fn add_text(&mut self, text: &str) -> Result<(), String> {
        for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            let failed = |message: String| format!("line {}: {message}", number + 1);
            let solved: StartReport = serde_json::from_str(line).map_err(|err| failed(err.to_string()))?;
            self.add(&solved).map_err(failed)?;
        }
        Ok(())
    }

    fn add(&mut self, solved: &StartReport) -> Result<(), String> {
        let (rules, start) = (solved.rules, solved.start);
        // Every move as played: the position before it, its house, and where its turn began.
        let mut plies: Vec<(Position, usize, usize)> = Vec::new();
        let mut turns = Vec::new();
        let mut position = start;
        for text in &solved.principal_variation {
            let turn = Turn::from_str(text).map_err(|err| format!("turn '{text}': {err}"))?;
            let (path, after) =
                turn.path(&rules, &position).map_err(|err| format!("turn '{text}' at {position}: {err}"))?;
            plies.extend(path.iter().enumerate().map(|(i, &(before, house))| (before, house, i)));
            turns.push(path.iter().map(|&(_, house)| house).collect::<Vec<usize>>());
            position = after;
        }
        if !position.is_over(&rules) {
            return Err(format!("the line ends at {position}, before the game does"));
        }
        let start_value = position.final_margin_for(&rules, start.to_move());
        if start_value != solved.value() {
            return Err(format!("the line ends {start_value} for the first player, not the value {}", solved.value()));
        }
        // From each position on, the rest of the line: the rest of the turn in play, then the
        // turns after it.
        let mut turn_index = 0;
        for (k, &(before, _, in_turn)) in plies.iter().enumerate() {
            if k > 0 && in_turn == 0 {
                turn_index += 1;
            }
            let mut rest = vec![turns[turn_index][in_turn..].to_vec()];
            rest.extend(turns[turn_index + 1..].iter().cloned());
            let value = position.final_margin_for(&rules, before.to_move());
            self.from.entry((rules.for_values(), before)).or_insert(LineFrom { value, turns: rest });
        }
        Ok(())
    }

    /// The line from `position` under `rules`, if one passes there.
    pub fn from(&self, rules: &Rules, position: &Position) -> Option<&LineFrom> {
        self.from.get(&(rules.for_values(), *position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Kalah(4,2) line of the reference solver, as `kalah solve --json` writes it.
    fn solved_4x2() -> (String, i32, Vec<Vec<usize>>) {
        let rules = Rules::STANDARD;
        let start = Position::start(4, 2).unwrap();
        let mut search = crate::search::Search::new(
            rules,
            None,
            &crate::search::SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 },
        )
        .unwrap();
        let value = search.value(&start).unwrap();
        let turns = search.principal_variation(&start).unwrap();
        let line: Vec<Turn> = turns.iter().map(|t| Turn::from_indices(t)).collect();
        let report = StartReport::line_only(&rules, &start, value, &line);
        (serde_json::to_string(&report).unwrap(), value, turns)
    }

    #[test]
    fn every_position_along_a_line_has_its_value_and_the_rest_of_the_line() {
        let (text, value, turns) = solved_4x2();
        let mut lines = Lines::default();
        lines.add_text(&text).unwrap();
        let rules = Rules::STANDARD;
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        let mut position = Position::start(4, 2).unwrap();
        assert_eq!(lines.from(&rules, &position), Some(&LineFrom { value, turns: turns.clone() }));
        // The pie rule leaves values alone: the same line.
        assert!(lines.from(&Rules { pie: true, ..rules }, &position).is_some());
        for (t, turn) in turns.iter().enumerate() {
            for (i, &house) in turn.iter().enumerate() {
                let from = lines.from(&rules, &position).expect("on the line");
                assert_eq!(from.value, solver.value(&position), "{position}");
                assert_eq!(from.turns[0], turn[i..], "{position}");
                assert_eq!(from.turns.len(), turns.len() - t);
                position.play(&rules, house);
            }
        }
        assert!(lines.from(&rules, &position).is_none(), "the game is over");
    }

    #[test]
    fn a_line_that_does_not_end_at_its_value_or_is_not_played_is_refused() {
        let (text, value, _) = solved_4x2();
        let wrong = text.replace(&format!("\"value\":{value}"), &format!("\"value\":{}", value + 2));
        let err = Lines::default().add_text(&wrong).unwrap_err();
        assert!(err.contains("not the value"), "{err}");
        let record: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut cut = record.clone();
        cut["principal_variation"].as_array_mut().unwrap().pop();
        let err = Lines::default().add_text(&cut.to_string()).unwrap_err();
        assert!(err.contains("before the game does"), "{err}");
        let mut illegal = record;
        illegal["principal_variation"][0] = serde_json::Value::from("9");
        let err = Lines::default().add_text(&illegal.to_string()).unwrap_err();
        assert!(err.contains("turn '9'"), "{err}");
    }
}
