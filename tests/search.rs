//! The MTD(f) search: exact values equal to the databases' and the reference solver's on random
//! positions, consistent move values and principal variations, and time limits that never
//! produce a value.

use std::time::Instant;

use common::{Lcg, build_and_open};
use kalah::database::Database;
use kalah::rules::{Capture, Remaining, Rules};
use kalah::search::{Search, SearchError, SearchOptions};
use kalah::solve::Solver;
use kalah::{Position, Side};

mod common;

fn options() -> SearchOptions {
    SearchOptions { table_bytes: 16 << 20, deadline: None, threads: 1 }
}

/// Two threads sharing the table: the values must not change.
fn parallel() -> SearchOptions {
    SearchOptions { threads: 2, ..options() }
}

/// A uniformly drawn position of `db`'s layer `seeds`, with stores making up `total` seeds.
fn random_position(db: &Database, seeds: usize, random: &mut Lcg) -> Option<Position> {
    let layer = db.layer(seeds)?;
    if layer.is_empty() {
        return None;
    }
    let m = db.houses();
    let (mut mover, mut opponent) = ([0u8; 8], [0u8; 8]);
    layer.rows(random.below(layer.len()), &mut mover[..m], &mut opponent[..m]);
    let mut bins: Vec<u32> = mover[..m].iter().map(|&s| u32::from(s)).collect();
    bins.push(random.below(20) as u32);
    bins.extend(opponent[..m].iter().map(|&s| u32::from(s)));
    bins.push(random.below(20) as u32);
    Some(Position::from_bins(&bins, Side::South).unwrap())
}

#[test]
fn search_values_equal_database_values_inside_the_database() {
    let rule_sets = kalah::rules::RULE_SETS.iter().map(|(_, rules)| *rules).chain([Rules {
        capture: Capture::None,
        remaining: Remaining::Discard,
        ..Rules::STANDARD
    }]);
    let mut random = Lcg(4);
    let mut checked = 0;
    for rules in rule_sets {
        let full_root = tempfile::tempdir().unwrap();
        let small_root = tempfile::tempdir().unwrap();
        let full = build_and_open(full_root.path(), &rules, 6, 13);
        // The search probes a smaller database, so it must search its way down to it.
        let small = build_and_open(small_root.path(), &rules, 6, 6);
        let mut with_small = Search::new(rules, Some(&small), &parallel()).unwrap();
        let mut without = Search::new(rules, None, &options()).unwrap();
        for _ in 0..150 {
            let seeds = 7 + random.below(7) as usize;
            let Some(position) = random_position(&full, seeds, &mut random) else { continue };
            let expected = full.value(&position).unwrap();
            assert_eq!(with_small.value(&position).unwrap(), expected, "{rules}: {position}");
            assert_eq!(without.value(&position).unwrap(), expected, "{rules}, no database: {position}");
            let mut moves = with_small.move_values(&position).unwrap();
            let mut from_db = full.move_values(&position).unwrap();
            moves.sort();
            from_db.sort();
            assert_eq!(moves, from_db, "{rules}: move values of {position}");
            checked += 1;
        }
        assert!(with_small.stats().probes > 0, "{rules}: the small database was never probed");
    }
    assert!(checked > 700, "only {checked} positions compared");
}

#[test]
fn search_values_equal_the_reference_solver_beyond_the_database() {
    let root = tempfile::tempdir().unwrap();
    let mut random = Lcg(11);
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::WETHERELL] {
        let db = build_and_open(root.path(), &rules, 4, 8);
        let mut search = Search::new(rules, Some(&db), &options()).unwrap();
        let mut solver = Solver::new(rules).unwrap();
        for _ in 0..60 {
            // 12 to 20 seeds spread at random over the 8 houses.
            let mut bins = [0u32; 10];
            for _ in 0..12 + random.below(9) {
                let house = random.below(8) as usize;
                bins[if house < 4 { house } else { house + 1 }] += 1;
            }
            let position = Position::from_bins(&bins, Side::North).unwrap();
            assert_eq!(search.value(&position).unwrap(), solver.value(&position), "{rules}: {position}");
        }
    }
}

#[test]
fn positions_far_above_the_database_start_from_an_estimate_and_keep_their_values() {
    // 30 to 36 seeds on 3 houses over a database of 2 seeds: at least 28 seeds beyond it, so
    // MTD(f) starts from the depth-limited estimate instead of 0.
    let root = tempfile::tempdir().unwrap();
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA] {
        let db = build_and_open(root.path(), &rules, 3, 2);
        let mut solver = Solver::new(rules).unwrap();
        for seeds in [5, 6] {
            let start = Position::start(3, seeds).unwrap();
            let expected = solver.value(&start);
            for options in [options(), parallel()] {
                let mut search = Search::new(rules, Some(&db), &options).unwrap();
                assert_eq!(search.value(&start).unwrap(), expected, "{rules} Kalah(3,{seeds})");
                // Bound tests from a fresh table, each led by the estimate's moves.
                for beta in expected - 2..=expected + 2 {
                    let mut search = Search::new(rules, Some(&db), &options).unwrap();
                    let holds = search.board_value_at_least(&start, beta).unwrap();
                    assert_eq!(holds, expected >= beta, "{rules} Kalah(3,{seeds}): value >= {beta}");
                }
            }
            let mut search = Search::new(rules, Some(&db), &options()).unwrap();
            let analysis = search.analyse(&start, |_, _| {}).unwrap();
            let reference = kalah::solve::analyse(&mut solver, &start);
            assert_eq!(analysis.openings, reference.openings, "{rules} Kalah(3,{seeds})");
            // Move values and the perfect line hand guesses along instead of estimating again.
            for (house, value) in search.move_values(&start).unwrap() {
                let effect = kalah::moves::MoveEffect::of(&rules, &start, house);
                let child = if effect.over { 0 } else { solver.board_value(&effect.child) };
                assert_eq!(value, effect.value(child), "{rules} Kalah(3,{seeds}) house {house}");
            }
            let line = search.principal_variation(&start).unwrap();
            assert_line_reaches(&rules, &start, &line, expected);
        }
    }
}

/// Plays `line` from `position`: every turn but the last passes the move, and the game ends with
/// the first player's margin equal to the value.
fn assert_line_reaches(rules: &Rules, position: &Position, line: &[Vec<usize>], value: i32) {
    let mut board = *position;
    let first = board.to_move();
    for (i, turn) in line.iter().enumerate() {
        for (j, &house) in turn.iter().enumerate() {
            let outcome = board.play(rules, house);
            let last_of_turn = j + 1 == turn.len();
            assert!(outcome.over || outcome.extra_turn != last_of_turn, "turn {i} of {line:?}: extra turns wrong");
        }
    }
    assert!(board.is_over(rules) || board.mover_houses().iter().all(|&s| s == 0), "{board} not over");
    let margin = if board.to_move() == first { board.margin() } else { -board.margin() };
    assert_eq!(margin, value, "the line {line:?} ends at {margin}, not {value}");
}

#[test]
fn principal_variations_are_legal_and_end_at_the_value() {
    for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA, Rules::SWEDISH] {
        for (houses, seeds) in [(4, 3), (3, 4), (5, 2)] {
            let start = Position::start(houses, seeds).unwrap();
            let mut search = Search::new(rules, None, &options()).unwrap();
            let value = search.value(&start).unwrap();
            let line = search.principal_variation(&start).unwrap();
            assert_line_reaches(&rules, &start, &line, value);
        }
    }
}

#[test]
fn analysis_openings_match_the_reference_solver() {
    let start = Position::start(4, 4).unwrap();
    for rules in [Rules::STANDARD, Rules { pie: true, ..Rules::EMPTY_CAPTURE }] {
        let reference = kalah::solve::analyse(&mut Solver::new(rules).unwrap(), &start);
        let analysis = Search::new(rules, None, &parallel()).unwrap().analyse(&start, |_, _| {}).unwrap();
        assert_eq!(analysis.value(), reference.value(), "{rules}");
        assert_eq!(analysis.openings, reference.openings, "{rules}");
        assert_eq!(analysis.pie_value, reference.pie_value, "{rules}");
    }
}

#[test]
fn a_search_out_of_time_reports_no_value() {
    let start = Position::start(6, 6).unwrap();
    let options = SearchOptions { table_bytes: 1 << 20, deadline: Some(Instant::now()), threads: 2 };
    let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
    assert!(matches!(search.value(&start), Err(SearchError::TimeUp { .. })));
}

#[test]
fn a_node_budget_stops_every_thread_near_it_and_lifts() {
    // Standard Kalah(5,4): +10 (published), a few million nodes without a database.
    let start = Position::start(5, 4).unwrap();
    for options in [options(), parallel()] {
        let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
        let limit = 300_000;
        search.set_node_limit(Some(limit));
        match search.board_value_at_least(&start, 1) {
            // Each thread looks at the budget every 1,024 nodes; nested splits each keep a
            // count of fewer than 1,024 uncharged nodes until they end.
            Err(SearchError::NodeLimit { nodes }) => {
                assert!((limit - 2048..=limit + 64 * 1024).contains(&nodes), "{} threads: {nodes}", options.threads)
            }
            other => panic!("{} threads: {other:?}", options.threads),
        }
        search.set_node_limit(None);
        assert_eq!(search.value(&start).unwrap(), 10, "the budget lifted, the value as before");
    }
}

#[test]
fn bounds_proven_on_the_way_are_read_back_from_the_table() {
    let start = Position::start(4, 4).unwrap();
    let mut search = Search::new(Rules::STANDARD, None, &options()).unwrap();
    assert_eq!(search.proven_bounds(&start), None, "a fresh table knows nothing");
    assert_eq!(search.value(&start).unwrap(), 2);
    let (lower, upper) = search.proven_bounds(&start).expect("MTD(f) left bounds on its root");
    assert!(lower <= 2 && 2 <= upper && upper - lower < 32, "{lower}..{upper}");
    // The same houses with 3 seeds more in the mover's store: the bounds move with the margin.
    let mut bins = start.bins().iter().map(|&b| u32::from(b)).collect::<Vec<_>>();
    bins[4] += 3;
    let richer = Position::from_bins(&bins, Side::South).unwrap();
    assert_eq!(search.proven_bounds(&richer), Some((lower + 3, upper + 3)));
}

#[test]
fn a_database_for_other_rules_or_boards_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let db = build_and_open(root.path(), &Rules::STANDARD, 3, 4);
    assert!(matches!(Search::new(Rules::EMPTY_CAPTURE, Some(&db), &options()), Err(SearchError::WrongDatabase { .. })));
    let mut search = Search::new(Rules { pie: true, ..Rules::STANDARD }, Some(&db), &options()).unwrap();
    let err = search.value(&Position::start(4, 1).unwrap()).unwrap_err();
    assert!(err.to_string().contains("is for 3 houses, not 4 houses"), "{err}");
}

/// Under Board Game Arena's and Wetherell's rules a game ends as soon as a store holds more than
/// half of the seeds; values here are full-play margins, which that end cannot cut. A claim about
/// who wins can: once the mover's store holds more than half, every way the game goes on leaves
/// the mover ahead. The seeds' bound is that cut (the mover's final margin is at least its store
/// less everything else, `2 * store - total`), so the zero-window tests of win, draw and loss
/// take it with no rule of their own: their answers equal the reference solver's on every start
/// up to 4 houses and 24 seeds.
#[test]
fn who_wins_under_early_end_rules_matches_the_reference_solver() {
    for rules in [Rules::BGA, Rules::WETHERELL, "bga capture=empty".parse().unwrap()] {
        let values = rules.for_values();
        let mut solver = Solver::new(values).unwrap();
        for houses in 1..=4 {
            for seeds in (1..=6u32).filter(|&seeds| 2 * houses as u32 * seeds <= 24) {
                let start = Position::start(houses, seeds).unwrap();
                let value = solver.board_value(&start);
                let mut search = Search::new(values, None, &options()).unwrap();
                for beta in [1, 0] {
                    assert_eq!(
                        search.board_value_at_least(&start, beta).unwrap(),
                        value >= beta,
                        "{rules} Kalah({houses},{seeds}): value {value}, test >= {beta}"
                    );
                }
            }
        }
    }
}
