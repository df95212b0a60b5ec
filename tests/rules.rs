//! Every rule dimension on hand-checked positions (tests/data/moves.txt), plus the rules that
//! act on whole games: the end of a typed position, early end and the pie swap.

use kalah::board::Outcome;
use kalah::game::{Game, IllegalMove, ReplayFailure};
use kalah::{Notation, Rules, parse_position, replay};

struct Case {
    line: usize,
    rules: Rules,
    before: String,
    house: usize,
    after: String,
    expected: Outcome,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/moves.txt");
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 5, "line {}: {line}", i + 1);
        let mut expected = Outcome { sowings: 1, ..Outcome::default() };
        for flag in fields[4].split_whitespace() {
            match flag.split_once('=') {
                None if flag == "extra" => expected.extra_turn = true,
                None if flag == "over" => expected.over = true,
                Some(("captured", n)) => expected.captured = n.parse().unwrap(),
                Some(("sowings", n)) => expected.sowings = n.parse().unwrap(),
                _ => panic!("line {}: unknown flag {flag}", i + 1),
            }
        }
        cases.push(Case {
            line: i + 1,
            rules: fields[0].parse().unwrap_or_else(|e| panic!("line {}: {e}", i + 1)),
            before: fields[1].to_string(),
            house: fields[2].parse().unwrap(),
            after: fields[3].to_string(),
            expected,
        });
    }
    cases
}

#[test]
fn hand_checked_moves_give_the_expected_positions() {
    let cases = cases();
    assert!(cases.len() >= 30, "the data file lost cases");
    for case in cases {
        let mut position = parse_position(&case.before).unwrap();
        assert!(!position.is_over(&case.rules), "line {}: the position is already over", case.line);
        let outcome = position.play(&case.rules, case.house - 1);
        let expected = parse_position(&case.after).unwrap();
        assert_eq!(position, expected, "line {}: position after the move", case.line);
        assert_eq!(outcome, case.expected, "line {}: outcome", case.line);
    }
}

#[test]
fn every_rule_dimension_is_exercised() {
    let cases = cases();
    let differs = |f: &dyn Fn(&Rules) -> bool| cases.iter().any(|c| f(&c.rules));
    assert!(differs(&|r| r.capture == kalah::rules::Capture::Empty));
    assert!(differs(&|r| r.capture == kalah::rules::Capture::None));
    assert!(differs(&|r| r.capture == kalah::rules::Capture::TwoOrThree));
    assert!(differs(&|r| r.end == kalah::rules::End::MoverCannotMove));
    assert!(differs(&|r| r.remaining == kalah::rules::Remaining::Discard));
    assert!(differs(&|r| r.sowing == kalah::rules::Sowing::Relay));
    assert!(differs(&|r| r.sowing == kalah::rules::Sowing::GoAgain));
    assert!(differs(&|r| r.direction == kalah::rules::Direction::Cw));
    assert!(differs(&|r| !r.extra_turn));
}

#[test]
fn a_typed_position_with_an_empty_row_is_over_only_under_either_empty() {
    // North's row is empty, South still has seeds.
    let position = parse_position("1 0 1 0 0 5 S").unwrap();
    assert!(position.is_over(&Rules::STANDARD));
    assert_eq!(position.final_margin(&Rules::STANDARD), 2 - 5);
    assert!(!position.is_over(&Rules::BGA));
    let discard = Rules { remaining: kalah::rules::Remaining::Discard, ..Rules::STANDARD };
    assert_eq!(position.final_margin(&discard), 1 - 5);
}

#[test]
fn early_end_stops_the_game_once_a_store_holds_more_than_half() {
    // 10 seeds; South's 3 seeds from house 2 bring its store to 6.
    let start = parse_position("0 3 5 1 1 0 S").unwrap();
    let bga = replay(Rules::BGA, start, "2", Notation::Canonical).unwrap();
    assert!(bga.is_over() && bga.ended_early());
    assert_eq!(bga.south_margin(), 6 - 4);
    let no_early_end = Rules { early_end: kalah::rules::EarlyEnd::None, ..Rules::BGA };
    let full = replay(no_early_end, start, "2", Notation::Canonical).unwrap();
    assert!(!full.is_over());
    assert_eq!(full.position().to_string(), "0 0 6 2 2 0 N");
}

#[test]
fn the_pie_rule_allows_one_swap_right_after_the_first_turn() {
    let pie = Rules { pie: true, ..Rules::STANDARD };
    let start = kalah::Position::start(6, 4).unwrap();
    let game = replay(pie, start, "3 6 swap 2", Notation::Canonical).unwrap();
    assert!(game.swapped());
    let mut after = Game::new(pie, start);
    after.play(3).unwrap();
    assert_eq!(after.swap(), Err(IllegalMove::SwapNotAllowed("North may swap only right after South's first turn")));
    let err = replay(Rules::STANDARD, start, "1 swap", Notation::Canonical).unwrap_err();
    assert!(
        matches!(err, ReplayFailure::Illegal(e) if e.reason == IllegalMove::SwapNotAllowed("the pie rule is off (use --pie)"))
    );
}

#[test]
fn a_start_is_every_house_equal_the_stores_empty_and_south_to_move() {
    assert!(kalah::Position::start(6, 4).unwrap().is_start());
    assert!(kalah::Position::start(3, 1).unwrap().is_start());
    for not_a_start in
        ["4 4 4 4 4 4 0 4 4 4 4 4 4 0 N", "5 5 5 5 0 6 1 5 5 5 5 5 5 0 S", "4 4 4 4 4 3 1 4 4 4 4 4 4 0 S"]
    {
        assert!(!parse_position(not_a_start).unwrap().is_start(), "{not_a_start}");
    }
}
