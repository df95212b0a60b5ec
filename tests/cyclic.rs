//! Databases for rules whose positions repeat (clockwise sowing), checked against a plain
//! fixed-point iteration over the whole position graph; the same check for the acyclic rules.

mod common;

use common::fixed_point;
use kalah::Position;
use kalah::index::Layer;
use kalah::rules::{Direction, End, Rules};

fn clockwise(rules: Rules) -> Rules {
    Rules { direction: Direction::Cw, ..rules }
}

#[test]
fn retrograde_values_equal_the_fixed_point_of_the_whole_graph() {
    let named = [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA, Rules::SWEDISH, Rules::WETHERELL];
    let rule_sets: Vec<Rules> = named.iter().flat_map(|&r| [clockwise(r), r]).collect();
    for rules in rule_sets {
        for (houses, max_seeds) in [(1, 6), (2, 8), (3, 7), (4, 5)] {
            let dir = tempfile::tempdir().unwrap();
            let db = common::build_and_open(dir.path(), &rules, houses, max_seeds);
            let expected = fixed_point(&rules.for_values(), houses, max_seeds);
            let mut nonzero = 0;
            for seeds in 0..=max_seeds {
                let layer = Layer::new(&rules.for_values(), houses, seeds);
                let (mut mover, mut opponent) = (vec![0u8; houses], vec![0u8; houses]);
                for i in 0..layer.len() {
                    layer.rows(i, &mut mover, &mut opponent);
                    let position = Position::from_rows(&mover, &opponent);
                    let want = expected[&position.house_key()];
                    assert_eq!(db.board_value(&position).unwrap(), want, "{rules} {position}");
                    nonzero += usize::from(want != 0);
                }
            }
            assert!(nonzero > 0, "{rules} {houses} houses: some values are not 0");
        }
    }
}

#[test]
fn clockwise_kalah_3_2_is_a_loss_by_4_for_the_first_player() {
    let rules = clockwise(Rules::STANDARD);
    let values = fixed_point(&rules, 3, 12);
    assert_eq!(values[&Position::start(3, 2).unwrap().house_key()], -4);
}

#[test]
fn a_position_played_round_and_round_is_worth_zero_for_the_seeds_on_the_board() {
    // One house each, play until the mover cannot move: clockwise, South's seed goes to North's
    // house, North's comes back, forever. Stores 3 to 1: South's value is the margin alone, +2.
    let rules = clockwise(Rules { end: End::MoverCannotMove, ..Rules::STANDARD });
    let position = kalah::parse_position("1 3 0 1 S").unwrap();
    let mut replayed = position;
    replayed.play(&rules, 0);
    replayed.play(&rules, 0);
    assert_eq!(replayed, position, "two moves bring the position back");
    let dir = tempfile::tempdir().unwrap();
    let db = common::build_and_open(dir.path(), &rules, 1, 2);
    assert_eq!(db.board_value(&position).unwrap(), 0);
    assert_eq!(db.value(&position).unwrap(), 2);
    // Counter-clockwise the same seed goes to South's store: +1 more.
    let ccw = Rules { direction: Direction::Ccw, ..rules };
    let db = common::build_and_open(dir.path(), &ccw, 1, 2);
    assert_eq!(db.board_value(&position).unwrap(), 1);
}

/// Every position of the database's layers above `from_seeds`, unranked.
fn positions_of(rules: &Rules, houses: usize, from_seeds: usize, max_seeds: usize) -> Vec<Position> {
    let mut positions = Vec::new();
    for seeds in from_seeds..=max_seeds {
        let layer = Layer::new(&rules.for_values(), houses, seeds);
        let (mut mover, mut opponent) = (vec![0u8; houses], vec![0u8; houses]);
        for i in 0..layer.len() {
            layer.rows(i, &mut mover, &mut opponent);
            positions.push(Position::from_rows(&mover, &opponent));
        }
    }
    positions
}

#[test]
fn forward_search_with_repetitions_equals_the_retrograde_values() {
    use kalah::search::{Search, SearchOptions};
    let named = [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA, Rules::SWEDISH, Rules::WETHERELL];
    let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
    let mut lcg = common::Lcg(17);
    for rules in named.map(clockwise) {
        for (houses, max_seeds) in [(1, 6), (2, 8), (3, 7), (4, 6)] {
            let dir = tempfile::tempdir().unwrap();
            let full = common::build_and_open(dir.path(), &rules, houses, max_seeds);
            let small_dir = tempfile::tempdir().unwrap();
            let small = common::build_and_open(small_dir.path(), &rules, houses, max_seeds / 2);
            let positions = positions_of(&rules, houses, max_seeds / 2 + 1, max_seeds);
            // Without a database, and above a smaller one; a fresh search now and then so
            // that both empty and well-filled tables are exercised. Above the database the
            // depth-limited rounds start at one move, so most tests need several.
            let mut alone = Search::new(rules, None, &options).unwrap();
            let mut above = Search::new(rules, Some(&small), &options).unwrap();
            above.set_first_horizon(1);
            for i in 0..200.min(positions.len()) {
                let position = positions[lcg.below(positions.len() as u64) as usize];
                if i % 50 == 0 {
                    alone = Search::new(rules, None, &options).unwrap();
                }
                let want = full.board_value(&position).unwrap();
                assert_eq!(alone.board_value(&position).unwrap(), want, "{rules} {position} without a database");
                assert_eq!(above.board_value(&position).unwrap(), want, "{rules} {position} above {}", max_seeds / 2);
            }
        }
    }
}

#[test]
fn forward_search_with_repetitions_on_two_threads_equals_the_retrograde_values() {
    use kalah::search::{Search, SearchOptions};
    // Nodes with 11 seeds beyond the database split, so these positions split near the root.
    let named = [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA, Rules::SWEDISH, Rules::WETHERELL];
    let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 2 };
    let mut lcg = common::Lcg(29);
    let (houses, max_seeds) = (3, 14);
    for rules in named.map(clockwise) {
        let dir = tempfile::tempdir().unwrap();
        let full = common::build_and_open(dir.path(), &rules, houses, max_seeds);
        let positions = positions_of(&rules, houses, 12, max_seeds);
        for i in 0..12 {
            let position = positions[lcg.below(positions.len() as u64) as usize];
            let mut search = Search::new(rules, None, &options).unwrap();
            if i % 2 == 0 {
                search.set_first_horizon(1);
            }
            let want = full.board_value(&position).unwrap();
            assert_eq!(search.board_value(&position).unwrap(), want, "{rules} {position} on two threads");
        }
    }
}
