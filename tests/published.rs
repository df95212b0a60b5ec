//! Published results, read from data/published/: perfect games replay to their published margin,
//! the reference solver reproduces every published start value it can reach without databases,
//! and the search with databases every one up to Kalah(5,5) and Kalah(6,4), both rule sets.

use kalah::published;
use kalah::search::{Search, SearchOptions};
use kalah::solve::Solver;
use kalah::{Notation, Position, Rules, parse_start, replay};

mod common;

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
fn the_reference_solver_reproduces_every_published_value_it_can_reach() {
    let rows = published::results();
    let mut checked = 0;
    for row in rows.iter().filter(|r| r.houses <= 4 || 2 * r.houses as u32 * r.seeds <= 30) {
        let value = Solver::new(row.rules).unwrap().value(&Position::start(row.houses, row.seeds).unwrap());
        assert!(
            row.claim.holds(value),
            "{} Kalah({},{}): solved {value}, published {}",
            row.rules_name,
            row.houses,
            row.seeds,
            row.claim
        );
        checked += 1;
    }
    // Empty capture: 24 cells with up to 4 houses, (5,1..3), (6,1..2); standard: (4,3), (4,4), (5,2),
    // (5,3), (6,2).
    assert_eq!(checked, 34);
}

/// Solves every published start of `houses` houses under `rules` with `seeds` in `range`, by
/// search on a database of up to `max_seeds` seeds built for the test; returns the cells checked.
fn check_with_database(
    rules_name: &str,
    houses: usize,
    range: std::ops::RangeInclusive<u32>,
    max_seeds: usize,
) -> usize {
    let rules: Rules = rules_name.parse().unwrap();
    let root = tempfile::tempdir().unwrap();
    let db = common::build_and_open(root.path(), &rules, houses, max_seeds);
    let mut checked = 0;
    for row in
        published::results().iter().filter(|r| r.rules == rules && r.houses == houses && range.contains(&r.seeds))
    {
        let options = SearchOptions { table_bytes: 256 << 20, deadline: None, threads: 2 };
        let mut search = Search::new(rules, Some(&db), &options).unwrap();
        let value = search.value(&Position::start(houses, row.seeds).unwrap()).unwrap();
        assert!(
            row.claim.holds(value),
            "{rules_name} Kalah({houses},{}): solved {value}, published {}",
            row.seeds,
            row.claim
        );
        checked += 1;
    }
    checked
}

#[test]
fn the_search_reproduces_the_published_values_with_five_houses() {
    // Kalah(5,6) (empty capture, +2) is left to `kalah table`: about 150 s with a 28-seed database.
    assert_eq!(check_with_database("empty-capture", 5, 1..=5, 24), 5);
    assert_eq!(check_with_database("standard", 5, 1..=6, 20), 3);
}

#[test]
fn the_search_reproduces_the_published_values_with_six_houses_up_to_four_seeds() {
    assert_eq!(check_with_database("empty-capture", 6, 1..=4, 20), 4);
    assert_eq!(check_with_database("standard", 6, 1..=4, 20), 3);
}

#[test]
fn every_published_value_up_to_five_houses_but_one_is_checked_by_a_test() {
    let covered = |m: usize, n: u32| m <= 4 || 2 * m as u32 * n <= 30 || (m == 5 && n <= 5) || (m == 6 && n <= 4);
    let left: Vec<(usize, u32)> =
        published::results().iter().filter(|r| !covered(r.houses, r.seeds)).map(|r| (r.houses, r.seeds)).collect();
    assert_eq!(left, [(5, 6), (6, 5), (6, 6), (6, 5), (6, 6)]);
}
