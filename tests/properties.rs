//! Property tests: the move engine against a naive sower written straight from RULES.md, seed
//! conservation, termination of relay and go-again chains, text round-trips, and the exact solver
//! against plain minimax on random positions.

use kalah::board::{Position, Side};
use kalah::rules::{Capture, Direction, End, Remaining, Rules, Sowing};
use kalah::solve::Solver;
use kalah::{Notation, parse_position, replay};
use proptest::prelude::*;

/// What the naive sower says a move does, in absolute bins.
#[derive(Debug, PartialEq, Eq)]
struct NaiveResult {
    bins: Vec<u32>,
    next: Side,
    extra_turn: bool,
    captured: u32,
    sowings: u32,
    over: bool,
}

/// Plays South's or North's house `house` (0-based) seed by seed on absolute bins (South houses
/// 0..m, South store m, North houses m+1..=2m, North store 2m+1). Deliberately simple: no laps
/// arithmetic, no relative view, an explicit list of the bins the last sowing filled.
fn naive_play(rules: &Rules, bins: &[u32], mover: Side, house: usize) -> NaiveResult {
    let mut bins = bins.to_vec();
    let m = bins.len() / 2 - 1;
    let (own_store, opp_store) = if mover == Side::South { (m, 2 * m + 1) } else { (2 * m + 1, m) };
    let is_south_house = |b: usize| b < m;
    let is_north_house = |b: usize| b > m && b < 2 * m + 1;
    let is_own_house = |b: usize| if mover == Side::South { is_south_house(b) } else { is_north_house(b) };
    let is_opp_house = |b: usize| if mover == Side::South { is_north_house(b) } else { is_south_house(b) };
    let next = |b: usize| {
        let n = 2 * m + 2;
        let mut b = b;
        loop {
            b = if rules.direction == Direction::Ccw { (b + 1) % n } else { (b + n - 1) % n };
            if b != opp_store {
                return b;
            }
        }
    };
    let total: u32 = bins.iter().sum();
    let mut at = if mover == Side::South { house } else { m + 1 + house };
    let mut sowings = 0;
    let mut filled;
    loop {
        sowings += 1;
        assert!(sowings <= (2 * m as u32 + 1) * (total + 1), "a sowing chain did not terminate");
        let mut seeds = std::mem::take(&mut bins[at]);
        filled = Vec::new();
        while seeds > 0 {
            at = next(at);
            bins[at] += 1;
            filled.push(at);
            seeds -= 1;
        }
        let touched_opponent = filled.iter().any(|&b| is_opp_house(b));
        let again = match rules.sowing {
            Sowing::Single => false,
            Sowing::Relay => at != own_store && bins[at] > 1,
            Sowing::GoAgain => is_own_house(at) && bins[at] > 1 && touched_opponent,
        };
        if !again {
            break;
        }
    }
    let mut extra_turn = false;
    let mut captured = 0;
    if at == own_store {
        extra_turn = rules.extra_turn;
    } else if is_own_house(at) && bins[at] == 1 {
        let opposite = 2 * m - at;
        let captures = match rules.capture {
            Capture::Standard => bins[opposite] > 0,
            Capture::Empty => true,
            Capture::None | Capture::TwoOrThree => false,
        };
        if captures {
            captured = bins[at] + bins[opposite];
            bins[own_store] += captured;
            bins[at] = 0;
            bins[opposite] = 0;
        }
    } else if rules.capture == Capture::TwoOrThree {
        for &b in filled.iter().rev() {
            if !is_opp_house(b) || !(2..=3).contains(&bins[b]) {
                break;
            }
            captured += bins[b];
            bins[own_store] += bins[b];
            bins[b] = 0;
        }
    }
    let south_empty = bins[..m].iter().all(|&s| s == 0);
    let north_empty = bins[m + 1..2 * m + 1].iter().all(|&s| s == 0);
    let next_side = if extra_turn {
        mover
    } else if mover == Side::South {
        Side::North
    } else {
        Side::South
    };
    let over = match rules.end {
        End::EitherEmpty => south_empty || north_empty,
        End::MoverCannotMove => {
            if next_side == Side::South {
                south_empty
            } else {
                north_empty
            }
        }
    };
    if over {
        let (south, north): (u32, u32) = (bins[..m].iter().sum(), bins[m + 1..2 * m + 1].iter().sum());
        if rules.remaining == Remaining::Owner {
            bins[m] += south;
            bins[2 * m + 1] += north;
        }
        for b in (0..m).chain(m + 1..2 * m + 1) {
            bins[b] = 0;
        }
        extra_turn = false;
    }
    let next = if extra_turn {
        mover
    } else if mover == Side::South {
        Side::North
    } else {
        Side::South
    };
    NaiveResult { bins, next, extra_turn, captured, sowings, over }
}

fn any_rules() -> impl Strategy<Value = Rules> {
    (0..4usize, any::<bool>(), any::<bool>(), 0..3usize, any::<bool>(), any::<bool>()).prop_map(
        |(capture, end, remaining, sowing, cw, extra_turn)| Rules {
            capture: [Capture::Standard, Capture::Empty, Capture::None, Capture::TwoOrThree][capture],
            end: if end { End::EitherEmpty } else { End::MoverCannotMove },
            remaining: if remaining { Remaining::Owner } else { Remaining::Discard },
            sowing: [Sowing::Single, Sowing::Relay, Sowing::GoAgain][sowing],
            direction: if cw { Direction::Cw } else { Direction::Ccw },
            extra_turn,
            ..Rules::STANDARD
        },
    )
}

/// Random positions with 1 to 8 houses, mostly small counts and sometimes one big house so that
/// sowings lap the board.
fn any_position() -> impl Strategy<Value = Position> {
    (1..=8usize, any::<bool>())
        .prop_flat_map(|(m, south)| {
            (Just(m), Just(south), prop::collection::vec(0..=12u32, 2 * m + 2), 0..2 * m + 2, 0..=39u32)
        })
        .prop_map(|(_, south, mut bins, big, extra)| {
            bins[big] += extra;
            Position::from_bins(&bins, if south { Side::South } else { Side::North }).unwrap()
        })
}

fn absolute(position: &Position) -> Vec<u32> {
    position.bins().into_iter().map(u32::from).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_move_agrees_with_the_naive_sower(rules in any_rules(), position in any_position()) {
        prop_assume!(!position.is_over(&rules));
        for house in position.legal_moves() {
            let naive = naive_play(&rules, &absolute(&position), position.to_move(), house);
            let mut fast = position;
            let outcome = fast.play(&rules, house);
            prop_assert_eq!(absolute(&fast), naive.bins, "house {}", house + 1);
            prop_assert_eq!(fast.to_move(), naive.next);
            prop_assert_eq!(outcome.extra_turn, naive.extra_turn);
            prop_assert_eq!(outcome.over, naive.over);
            prop_assert_eq!(u32::from(outcome.captured), naive.captured);
            prop_assert_eq!(u32::from(outcome.sowings), naive.sowings);
        }
    }

    #[test]
    fn the_house_key_holds_the_houses_and_nothing_else(position in any_position()) {
        let key = position.house_key().to_le_bytes();
        let m = position.houses();
        let mut expected = [0u8; 16];
        expected[..m].copy_from_slice(position.mover_houses());
        expected[8..8 + m].copy_from_slice(position.opponent_houses());
        prop_assert_eq!(key, expected);
    }

    #[test]
    fn playing_without_stores_is_emptying_the_stores_then_playing(rules in any_rules(), position in any_position()) {
        let emptied = position.without_stores();
        prop_assume!(!emptied.is_over(&rules));
        for house in emptied.legal_moves() {
            let (mut expected, mut fast) = (emptied, position);
            let outcome = expected.play(&rules, house);
            prop_assert_eq!(fast.play_without_stores(&rules, house), outcome, "house {}", house + 1);
            prop_assert_eq!(fast, expected, "house {}", house + 1);
        }
    }

    #[test]
    fn moves_conserve_seeds_and_chains_stay_within_their_bound(rules in any_rules(), position in any_position()) {
        prop_assume!(!position.is_over(&rules));
        let ring = 2 * position.houses() as u32 + 1;
        for house in position.legal_moves() {
            let mut after = position;
            let outcome = after.play(&rules, house);
            if !(outcome.over && rules.remaining == Remaining::Discard) {
                prop_assert_eq!(after.total_seeds(), position.total_seeds());
            }
            prop_assert!(u32::from(outcome.sowings) <= ring * (position.total_seeds() + 1));
            if rules.sowing == Sowing::Single {
                prop_assert_eq!(outcome.sowings, 1);
            }
        }
    }

    #[test]
    fn rules_text_round_trips(rules in any_rules(), pie in any::<bool>(), half in any::<bool>()) {
        let early_end = if half { kalah::rules::EarlyEnd::Half } else { kalah::rules::EarlyEnd::None };
        let rules = Rules { pie, early_end, ..rules };
        prop_assert_eq!(rules.to_string().parse::<Rules>().unwrap(), rules);
        prop_assert_eq!(rules.dimensions().parse::<Rules>().unwrap(), rules);
    }

    #[test]
    fn position_text_round_trips(position in any_position()) {
        prop_assert_eq!(parse_position(&position.to_string()).unwrap(), position);
    }

    #[test]
    fn random_games_replay_identically_from_every_notation(
        rules in any_rules().prop_filter("acyclic", |r| !r.has_cycles()),
        (houses, seeds) in (1..=6usize, 1..=5u32),
        choices in prop::collection::vec(0..8usize, 200),
    ) {
        let start = Position::start(houses, seeds).unwrap();
        let mut game = kalah::Game::new(rules, start);
        for choice in choices {
            if game.is_over() {
                break;
            }
            let legal: Vec<usize> = game.position().legal_moves().collect();
            game.play(legal[choice % legal.len()] as u8 + 1).unwrap();
        }
        for notation in [Notation::Canonical, Notation::Irving, Notation::Bins] {
            let text = game.moves_text(notation);
            let again = replay(rules, start, &text, notation).unwrap();
            prop_assert_eq!(again.position(), game.position(), "{} {}", notation, text);
        }
        if game.is_over() && rules.remaining == Remaining::Owner {
            prop_assert_eq!(game.position().total_seeds(), start.total_seeds());
        }
    }

    #[test]
    fn the_solver_equals_plain_minimax_on_random_small_positions(
        rules in any_rules().prop_filter("acyclic", |r| !r.has_cycles()),
        (houses, cells) in (1..=3usize).prop_flat_map(|m| (Just(m), prop::collection::vec(0..=3u32, 2 * m + 2))),
        south in any::<bool>(),
    ) {
        let position = Position::from_bins(&cells, if south { Side::South } else { Side::North }).unwrap();
        prop_assert_eq!(position.houses(), houses);
        let mut solver = Solver::new(rules).unwrap();
        prop_assert_eq!(solver.value(&position), minimax(&rules, &position));
    }
}

/// The plainest solver: full minimax over every line, no memo, no pruning.
fn minimax(rules: &Rules, position: &Position) -> i32 {
    if position.is_over(rules) {
        return position.final_margin(rules);
    }
    position
        .legal_moves()
        .map(|house| {
            let mut child = *position;
            let outcome = child.play(rules, house);
            let value = minimax(rules, &child);
            if outcome.extra_turn { value } else { -value }
        })
        .max()
        .expect("a position that is not over has a move")
}

#[test]
fn the_solver_equals_plain_minimax_on_small_starts_of_every_named_set() {
    for (_, rules) in kalah::rules::RULE_SETS {
        for (houses, seeds) in [(1, 3), (2, 2), (2, 3), (3, 1), (3, 2)] {
            let start = Position::start(houses, seeds).unwrap();
            let mut solver = Solver::new(rules).unwrap();
            assert_eq!(solver.value(&start), minimax(&rules, &start), "{rules} {houses}x{seeds}");
        }
    }
}
