//! Published results, read from data/published/: perfect games replay to their published margin,
//! and the exact solver reproduces every published start value it can reach without databases.

use kalah::solve::Solver;
use kalah::{Notation, Position, Rules, parse_start, replay};

#[derive(Debug, serde::Deserialize)]
struct Published {
    rules: String,
    houses: usize,
    seeds: u32,
    value: String,
    #[allow(dead_code)]
    source: String,
}

fn published() -> Vec<Published> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/published/results.csv");
    let mut reader = csv::ReaderBuilder::new().comment(Some(b'#')).from_path(path).expect("published results");
    reader.deserialize().collect::<Result<_, _>>().expect("well-formed published results")
}

/// Whether `value` (first player's margin) matches a published cell: a margin, W/L/D or `>=k`.
fn matches(published: &str, value: i32) -> bool {
    match published {
        "W" => value > 0,
        "L" => value < 0,
        "D" => value == 0,
        bound if bound.starts_with(">=") => value >= bound[2..].parse::<i32>().expect("a bound"),
        exact => value == exact.parse::<i32>().expect("a margin"),
    }
}

#[test]
fn published_perfect_games_end_at_their_published_margin() {
    let games =
        [("6x4", "25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3", 10), ("4x3", "13-1-032-2-3-0-1320-3-0-2", 8)];
    for (start, moves, margin) in games {
        let game = replay(Rules::EMPTY_CAPTURE, parse_start(start).unwrap(), moves, Notation::Irving).unwrap();
        assert!(game.is_over(), "{start}: the game should be over");
        assert_eq!(game.south_margin(), margin, "{start}");
        assert_eq!(game.moves_text(Notation::Irving), moves, "{start}: Irving text round-trips");
    }
}

#[test]
fn the_solver_reproduces_every_published_value_up_to_four_houses() {
    let rows = published();
    assert!(rows.len() >= 45, "published table truncated");
    let mut checked = 0;
    for row in rows.iter().filter(|r| r.houses <= 4 || 2 * r.houses as u32 * r.seeds <= 30) {
        let rules: Rules = row.rules.parse().expect("a rule set name");
        let mut solver = Solver::new(rules).unwrap();
        let value = solver.value(&Position::start(row.houses, row.seeds).unwrap());
        assert!(
            matches(&row.value, value),
            "{} Kalah({},{}): solved {value}, published {}",
            row.rules,
            row.houses,
            row.seeds,
            row.value
        );
        checked += 1;
    }
    // Empty capture: 24 cells with up to 4 houses, (5,1..3), (6,1..2); standard: (4,3), (4,4), (5,2),
    // (5,3), (6,2).
    assert_eq!(checked, 34);
}

#[test]
fn the_published_table_reader_understands_every_cell_form() {
    assert!(matches("W", 2) && !matches("W", 0));
    assert!(matches("D", 0) && matches("L", -4));
    assert!(matches(">=4", 6) && !matches(">=4", 2));
    assert!(matches("-2", -2) && !matches("2", -2));
}
