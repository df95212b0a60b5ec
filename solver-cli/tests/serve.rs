//! `kalah serve` over HTTP: its answers against the plain recursive solver, the perfect-play
//! line replayed move by move, bad input, time limits and parallel requests, the opening book
//! and the answers remembered across a restart.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Server, agent, build_database, get_json, get_text};
use kalah::{Position, Rules, Side, Solver};
use serde_json::Value;

/// Seeds on the board the test database covers (4 houses, standard rules).
const DATABASE_SEEDS: u32 = 12;

/// Positions reached by pseudo-random play from `start`, each with at least one move left.
fn positions_from(rules: &Rules, start: Position, count: usize, mut seed: u64) -> Vec<Position> {
    let mut found = Vec::new();
    while found.len() < count {
        let mut position = start;
        let plies = 1 + (seed % 40) as usize;
        for _ in 0..plies {
            if position.is_over(rules) {
                break;
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let moves: Vec<usize> = position.legal_moves().collect();
            position.play(rules, moves[(seed >> 33) as usize % moves.len()]);
        }
        if !position.is_over(rules) {
            found.push(position);
        }
    }
    found
}

/// The value for the mover of playing `house`, by the reference solver.
fn reference_move_value(solver: &mut Solver, position: &Position, house: usize) -> i32 {
    let mut after = *position;
    after.play(solver.rules(), house);
    let value = solver.value(&after);
    if after.to_move() == position.to_move() { value } else { -value }
}

fn position_query(server: &Server, position: &Position, rules: &str) -> Value {
    let text = position.to_string();
    let (status, body) =
        get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", &text), ("rules", rules)]);
    assert_eq!(status, 200, "{text}: {body}");
    body
}

/// Every field of a position answer checked against the reference solver and the rules engine.
fn check_answer(answer: &Value, position: &Position, solver: &mut Solver) {
    let rules = *solver.rules();
    let value = solver.value(position);
    assert_eq!(answer["value"], value, "{position}");
    assert_eq!(answer["wdl"], kalah::answer::wdl(value).name());
    assert_eq!(answer["to_move"], if position.to_move() == Side::South { "south" } else { "north" });
    let moves = answer["moves"].as_array().unwrap();
    assert_eq!(moves.len(), position.legal_moves().count(), "{position}: one entry per legal move");
    let mut previous = i64::MAX;
    for entry in moves {
        let house = entry["move"].as_u64().unwrap() as usize - 1;
        let move_value = entry["value"].as_i64().unwrap();
        assert!(move_value <= previous, "{position}: moves sorted best first");
        previous = move_value;
        assert_eq!(
            move_value,
            i64::from(reference_move_value(solver, position, house)),
            "{position} move {}",
            house + 1
        );
        assert_eq!(entry["best"], move_value == i64::from(value));
        let mut after = *position;
        let outcome = after.play(&rules, house);
        assert_eq!(entry["extra_turn"], outcome.extra_turn);
        assert_eq!(entry["capture"], outcome.captured > 0);
        assert_eq!(entry["captured"], outcome.captured);
        assert_eq!(entry["position"], after.to_string());
        let bin = if position.to_move() == Side::South { house + 1 } else { position.houses() + 2 + house };
        assert_eq!(entry["bin"], bin);
    }
    assert_eq!(moves[0]["value"], value, "{position}: the best move keeps the value");
}

#[test]
fn answers_agree_with_the_reference_solver_inside_and_beyond_the_database() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), DATABASE_SEEDS);
    let server = Server::start(root.path(), &["--time-limit", "60"]);

    let rules = Rules::STANDARD;
    let mut solver = Solver::new(rules).unwrap();
    let positions = positions_from(&rules, Position::start(4, 4).unwrap(), 40, 7);
    let (mut inside, mut beyond) = (0, 0);
    for position in &positions {
        let answer = position_query(&server, position, "standard");
        check_answer(&answer, position, &mut solver);
        let in_database = position.seeds_on_board() <= DATABASE_SEEDS;
        assert_eq!(answer["source"], if in_database { "database" } else { "search" }, "{position}");
        if in_database { inside += 1 } else { beyond += 1 }
    }
    assert!(inside >= 5 && beyond >= 5, "both kinds of position are checked ({inside} inside, {beyond} beyond)");

    // Rules without a database: every answer by search.
    let rules: Rules = "empty-capture".parse().unwrap();
    let mut solver = Solver::new(rules).unwrap();
    for position in positions_from(&rules, Position::start(4, 3).unwrap(), 10, 11) {
        let answer = position_query(&server, &position, "empty-capture");
        check_answer(&answer, &position, &mut solver);
        assert_eq!(answer["source"], "search");
    }

    // A published start value (Kalah(4,3), standard rules), and a finished game.
    let start = position_query(&server, &Position::start(4, 3).unwrap(), "standard");
    let published = kalah::published::lookup(&Rules::STANDARD, 4, 3).unwrap();
    assert!(published.claim.holds(start["value"].as_i64().unwrap() as i32), "Kalah(4,3): {}", start["value"]);
    // South has no seeds left: North banks its 6, so South loses 7 to 11.
    let over = kalah::parse_position("0 0 0 0 7 1 2 0 3 5 S").unwrap();
    let answer = position_query(&server, &over, "standard");
    assert_eq!((answer["game_over"].clone(), answer["value"].clone()), (Value::Bool(true), Value::from(-4)));
    assert_eq!(answer["moves"].as_array().unwrap().len(), 0);
}

#[test]
fn the_mainline_replays_to_the_end_with_the_value() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), DATABASE_SEEDS);
    let server = Server::start(root.path(), &[]);
    let rules = Rules::STANDARD;
    let mut solver = Solver::new(rules).unwrap();
    let client = agent();
    for position in positions_from(&rules, Position::start(4, 4).unwrap(), 8, 3) {
        let text = position.to_string();
        let (status, line) = get_json(&client, &format!("{}/api/v1/mainline", server.url), &[("pos", &text)]);
        assert_eq!(status, 200, "{line}");
        let value = solver.value(&position);
        assert_eq!(line["value"], value);
        let mut current = position;
        for step in line["line"].as_array().unwrap() {
            let side = if current.to_move() == Side::South { "south" } else { "north" };
            assert_eq!(step["side"], side);
            // Every move of the line keeps the value of the position it is played from.
            let house = step["move"].as_u64().unwrap() as usize - 1;
            assert_eq!(reference_move_value(&mut solver, &current, house), solver.value(&current), "{current}");
            current.play(&rules, house);
            assert_eq!(step["position"], current.to_string());
        }
        assert!(current.is_over(&rules));
        assert_eq!(line["end"], current.to_string());
        assert_eq!(line["game_over"], true);
        let south_margin = if position.to_move() == Side::South { value } else { -value };
        assert_eq!(line["south_margin"], south_margin, "{text}");
        assert!(!line["text"].as_str().unwrap().is_empty());
    }
}

#[test]
fn bad_requests_are_400_with_a_message_and_the_page_is_served() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &[]);
    let client = agent();
    let url = format!("{}/api/v1/position", server.url);
    let cases: [(&[(&str, &str)], &str); 7] = [
        (&[], "missing parameter pos"),
        (&[("pos", "3 3 3 x 0 0 S")], "bad position"),
        (&[("pos", "3 3 3 3 0 3 3 3 3 0 W")], "bad position"),
        (&[("pos", "3 3 0 S")], "bad position"),
        (&[("pos", "3 3 3 3 0 3 3 3 3 0 S"), ("rules", "chess")], "unknown rule set 'chess'"),
        (&[("pos", "3 3 3 3 0 3 3 3 3 0 S"), ("depth", "3")], "unknown parameter 'depth'"),
        (&[("pos", "3 3 3 3 0 3 3 3 3 0 S"), ("pos", "3 3 3 3 0 3 3 3 3 0 N")], "parameter 'pos' given twice"),
    ];
    for (query, expected) in cases {
        let (status, body) = get_json(&client, &url, query);
        assert_eq!(status, 400, "{query:?}: {body}");
        assert!(body["error"].as_str().unwrap().contains(expected), "{query:?}: {body}");
    }
    let mut posted = client.post(&url).send_empty().unwrap();
    assert_eq!(posted.status().as_u16(), 405);
    let body: serde_json::Value = serde_json::from_str(&posted.body_mut().read_to_string().unwrap()).unwrap();
    assert!(body["error"].as_str().unwrap().contains("only GET"), "{body}");
    let (status, body) = get_json(&client, &format!("{}/api/v2/position", server.url), &[]);
    assert_eq!(status, 404);
    assert!(body["error"].as_str().unwrap().contains("/api/v1/"));

    let (status, page) = get_text(&client, &server.url, &[]);
    assert_eq!(status, 200);
    assert!(page.contains("<title>Kalah analysis board</title>") && page.contains("board.js"));
    let (status, script) = get_text(&client, &format!("{}/board.js", server.url), &[]);
    assert_eq!(status, 200);
    assert!(script.contains("/api/v1/"));
    let (_, offer) = get_json(&client, &format!("{}/api/v1/rules", server.url), &[]);
    assert!(offer["rule_sets"].as_array().unwrap().iter().any(|set| set["name"] == "empty-capture"));
}

/// Kalah(6,6) after South's 6 4 and North's 2 1: out of any search's reach in a request's time,
/// and past every position the shipped proofs hold (and their moves).
const PAST_THE_PROOFS: &str = "8 1 8 8 7 1 2 0 9 8 1 9 8 2 S";

#[test]
fn positions_out_of_reach_are_refused_in_time_and_clockwise_ones_searched() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--time-limit", "0.5"]);
    let client = agent();
    let url = format!("{}/api/v1/position", server.url);
    // Kalah(6,6) past what the proofs map, with no database: far beyond half a second.
    let far = kalah::parse_position(PAST_THE_PROOFS).unwrap();
    let clock = Instant::now();
    let (status, body) = get_json(&client, &url, &[("pos", PAST_THE_PROOFS)]);
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().unwrap().contains("time limit"), "{body}");
    assert!(clock.elapsed() < Duration::from_secs(20), "answered after the limit, not hung");
    // Still every legal move with the position it leads to, for the board to show.
    let moves = body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6, "{body}");
    let mut after = far;
    after.play(&Rules::STANDARD, 0);
    assert_eq!((moves[0]["move"].as_u64(), moves[0]["extra_turn"].as_bool()), (Some(1), Some(false)));
    assert_eq!(moves[0]["position"], after.to_string());
    // And what to play all the same: every move's estimate (it proves nothing), best first.
    let estimates = body["estimates"].as_array().unwrap();
    let mut houses: Vec<u64> = estimates.iter().map(|e| e["move"].as_u64().unwrap()).collect();
    let values: Vec<i64> = estimates.iter().map(|e| e["value"].as_i64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "{body}");
    assert!(values.iter().all(|v| v.abs() <= 72), "{body}");
    houses.sort();
    assert_eq!(houses, [1, 2, 3, 4, 5, 6], "{body}");
    // The mainline endpoint keeps the same limit.
    let mainline = format!("{}/api/v1/mainline", server.url);
    let (status, _) = get_json(&client, &mainline, &[("pos", PAST_THE_PROOFS)]);
    assert_eq!(status, 503);
    // Clockwise sowing: searched with repetitions scored 0 (Kalah(3,3) clockwise is +2).
    let (status, body) = get_json(&client, &url, &[("pos", "3 3 3 0 3 3 3 0 S"), ("rules", "standard direction=cw")]);
    assert_eq!((status, body["value"].as_i64()), (200, Some(2)), "{body}");
}

#[test]
fn requests_are_served_in_parallel() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), DATABASE_SEEDS);
    let server = Arc::new(Server::start(root.path(), &["--time-limit", "4", "--workers", "2"]));

    // A request that searches until its time limit runs out...
    let slow_done = Arc::new(AtomicBool::new(false));
    let slow = {
        let (server, slow_done) = (Arc::clone(&server), Arc::clone(&slow_done));
        std::thread::spawn(move || {
            let (status, _) =
                get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", PAST_THE_PROOFS)]);
            slow_done.store(true, Ordering::SeqCst);
            status
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    // ...does not hold up the others: 8 clients' requests are all answered meanwhile.
    let rules = Rules::STANDARD;
    let positions = positions_from(&rules, Position::start(4, 2).unwrap(), 40, 5);
    let clients: Vec<_> = positions
        .chunks(5)
        .map(|chunk| {
            let (server, chunk) = (Arc::clone(&server), chunk.to_vec());
            std::thread::spawn(move || {
                let client = agent();
                let mut solver = Solver::new(Rules::STANDARD).unwrap();
                for position in chunk {
                    let text = position.to_string();
                    let (status, body) =
                        get_json(&client, &format!("{}/api/v1/position", server.url), &[("pos", &text)]);
                    assert_eq!(status, 200, "{body}");
                    assert_eq!(body["value"], solver.value(&position));
                }
            })
        })
        .collect();
    for client in clients {
        client.join().expect("every client's requests succeed");
    }
    assert!(!slow_done.load(Ordering::SeqCst), "the small requests finished while the big one still searched");
    assert_eq!(slow.join().unwrap(), 503);
}

#[test]
fn max_seeds_limits_the_database_and_preload_loads_it_first() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), DATABASE_SEEDS);
    let server = Server::start(root.path(), &["--max-seeds", "6", "--preload"]);
    let (_, offer) = get_json(&agent(), &format!("{}/api/v1/rules", server.url), &[]);
    assert_eq!(offer["databases"][0]["max_seeds"], 6, "{offer}");
    let mut solver = Solver::new(Rules::STANDARD).unwrap();
    // 6 and 9 seeds on the board: the first from the database, the second by search.
    for (text, source) in [("1 0 2 1 5 0 1 0 1 4 S", "database"), ("1 0 2 1 5 0 3 1 1 4 S", "search")] {
        let position = kalah::parse_position(text).unwrap();
        let answer = position_query(&server, &position, "standard");
        assert_eq!(answer["source"], source, "{text}");
        check_answer(&answer, &position, &mut solver);
    }
}

/// Empty-capture Kalah(6,5) after South's best first turn, 2 3: on the shipped perfect line.
const AFTER_2_3_EMPTY_CAPTURE: &str = "5 0 0 7 7 7 2 6 6 5 5 5 5 0 N";
/// Then North's 3, the reply of empty capture's start line: South to move, on that line only.
const AFTER_2_3_3_EMPTY_CAPTURE: &str = "6 0 0 7 7 7 2 6 6 0 6 6 6 1 S";

#[test]
fn starts_and_their_first_turns_are_answered_from_the_book_at_once() {
    let root = tempfile::tempdir().unwrap();
    // A time limit no search of Kalah(6,5) could meet: these answers come from the book.
    let server = Server::start(root.path(), &["--time-limit", "0.1"]);
    let client = agent();
    let url = format!("{}/api/v1/position", server.url);
    let (status, start) = get_json(&client, &url, &[("pos", "6x5"), ("rules", "empty-capture")]);
    assert_eq!((status, start["source"].as_str(), start["value"].as_i64()), (200, Some("book"), Some(12)), "{start}");
    // Move 2 ends in South's store: the position after it, South to move again, is in the book
    // too, its best move 3 worth the start's +12 (the best opening is 2 3).
    let two = start["moves"].as_array().unwrap().iter().find(|m| m["move"] == 2).unwrap();
    assert_eq!((two["extra_turn"].as_bool(), two["value"].as_i64()), (Some(true), Some(12)));
    let (status, after) =
        get_json(&client, &url, &[("pos", two["position"].as_str().unwrap()), ("rules", "empty-capture")]);
    assert_eq!((status, after["source"].as_str(), after["value"].as_i64()), (200, Some("book"), Some(12)), "{after}");
    assert_eq!(after["moves"][0]["move"], 3);
    // After the whole turn 2 3, North to move: the replies job's table gives every reply's value.
    let north = [("pos", AFTER_2_3_EMPTY_CAPTURE), ("rules", "empty-capture")];
    let (status, replies) = get_json(&client, &url, &north);
    assert_eq!((status, replies["source"].as_str(), replies["value"].as_i64()), (200, Some("book"), Some(-12)));
    let moves = replies["moves"].as_array().unwrap();
    let best: Vec<u64> = moves.iter().filter(|m| m["best"] == true).map(|m| m["move"].as_u64().unwrap()).collect();
    assert_eq!(best, [1, 3], "{replies}");
    assert!(moves.iter().all(|m| m["value"].as_i64().is_some_and(|v| v <= -12)), "{replies}");
    // Then North's 3: no table holds the position and no search ends in 0.1 s, but the shipped
    // line passes there: its value and its move, 1, the others at most.
    let south = [("pos", AFTER_2_3_3_EMPTY_CAPTURE), ("rules", "empty-capture")];
    for _ in 0..2 {
        let (status, line) = get_json(&client, &url, &south);
        assert_eq!((status, line["source"].as_str(), line["value"].as_i64()), (200, Some("book"), Some(12)), "{line}");
        let moves = line["moves"].as_array().unwrap();
        assert_eq!((moves[0]["move"].as_u64(), moves[0]["best"].as_bool()), (Some(1), Some(true)), "{line}");
        assert!(moves[1..].iter().all(|m| m["value"].is_null() && m["upper"] == 12 && m["best"] == false), "{line}");
        // It stands in for a search out of time, so it is not kept in place of a later one's.
        assert_eq!(line["cached"], false, "{line}");
    }

    let openings = format!("{}/api/v1/openings", server.url);
    let (status, table) = get_json(&client, &openings, &[("pos", "6x4"), ("rules", "standard")]);
    assert_eq!(status, 200, "{table}");
    assert_eq!((table["value"].as_i64(), table["pie_value"].as_i64()), (Some(8), Some(0)));
    assert_eq!(table["best"], serde_json::json!(["3 6"]));
    assert_eq!(table["openings"].as_array().unwrap().len(), 10);
    let (status, body) = get_json(&client, &openings, &[("pos", "4x4")]);
    assert_eq!(status, 404, "{body}");
    let (_, offer) = get_json(&client, &format!("{}/api/v1/rules", server.url), &[]);
    // Kalah(6,4) and (6,5) from every shipped table (7 and 5 rule sets), (6,6) from the proofs' map
    // (standard, empty capture, BGA's with and without it and seeds discarded, all exact),
    // Wetherell's (6,5) from its proofs' map (a draw);
    // and, North to move, the positions after Kalah(6,5)'s first turns that the replies job settled.
    let starts = offer["openings"].as_array().unwrap();
    let (south, north): (Vec<&Value>, Vec<&Value>) =
        starts.iter().partition(|s| s["position"].as_str().unwrap().ends_with('S'));
    assert_eq!(south.len(), 18, "{offer}");
    assert!(north.len() >= 6, "{offer}");
    let (status, bga) = get_json(&client, &openings, &[("pos", "6x4"), ("rules", "bga")]);
    assert_eq!((status, bga["value"].as_i64()), (200, Some(8)), "{bga}");
    let mapped: Vec<&Value> = starts.iter().filter(|s| s["source"] == "proof").collect();
    assert_eq!(mapped.len(), 6, "{offer}");
    assert!(mapped.iter().any(|s| s["rules"] == "wetherell" && s["value"] == 0), "{offer}");
    assert!(mapped.iter().any(|s| s["rules"] == "standard" && s["value"] == 4), "{offer}");
    assert!(mapped.iter().any(|s| s["rules"] == "bga" && s["value"] == 4), "{offer}");
    assert!(mapped.iter().any(|s| s["rules"] == "bga capture=empty" && s["value"] == 4), "{offer}");
    assert!(mapped.iter().any(|s| s["rules"] == "standard remaining=discard" && s["value"] == 3), "{offer}");

    // The Kalah(6,4) start's perfect line from the shipped lines, and from every position along
    // it the rest of it: no search (none could finish in 0.1 s without a database).
    let mainline = format!("{}/api/v1/mainline", server.url);
    let (status, line) = get_json(&client, &mainline, &[("pos", "6x4")]);
    assert_eq!((status, line["source"].as_str(), line["value"].as_i64()), (200, Some("book"), Some(8)), "{line}");
    assert_eq!((line["game_over"].as_bool(), line["south_margin"].as_i64()), (Some(true), Some(8)));
    assert!(line["text"].as_str().unwrap().starts_with("S 3 6 | N "), "{line}");
    let entries = line["line"].as_array().unwrap();
    let after = entries[2]["position"].as_str().unwrap();
    let (status, rest) = get_json(&client, &mainline, &[("pos", after)]);
    assert_eq!((status, rest["source"].as_str()), (200, Some("book")), "{rest}");
    assert_eq!(rest["line"].as_array().unwrap()[..], entries[3..], "the rest of the same line");
    assert_eq!(rest["value"].as_i64(), Some(-8), "North to move, losing by 8");
}

#[test]
fn computed_answers_are_remembered_across_a_restart() {
    let root = tempfile::tempdir().unwrap();
    let position = "3 3 3 3 0 3 3 3 3 0 S";
    let first = {
        let server = Server::start(root.path(), &[]);
        position_query(&server, &kalah::parse_position(position).unwrap(), "standard")
    };
    assert_eq!(first["cached"], false);
    assert!(root.path().join("answers.jsonl").exists());
    // A new server with no time to search still answers: from the file under --db.
    let server = Server::start(root.path(), &["--time-limit", "0.001"]);
    let (status, again) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", position)]);
    assert_eq!((status, again["cached"].as_bool()), (200, Some(true)), "{again}");
    assert_eq!(again["moves"], first["moves"]);
    assert_eq!(again["value"], first["value"]);
    // --no-cache starts with nothing remembered.
    let server = Server::start(root.path(), &["--no-cache"]);
    let (_, fresh) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", position)]);
    assert_eq!(fresh["cached"], false);
}

#[test]
fn a_search_in_flight_reports_its_nodes_and_proven_bounds() {
    let root = tempfile::tempdir().unwrap();
    let server = Arc::new(Server::start(root.path(), &["--time-limit", "120", "--no-cache"]));
    // Kalah(5,4) without a database: seconds of search, many zero-window tests.
    let start = "4 4 4 4 4 0 4 4 4 4 4 0 S";
    let answer = {
        let server = Arc::clone(&server);
        std::thread::spawn(move || get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", start)]))
    };
    let progress = format!("{}/api/v1/progress", server.url);
    let client = agent();
    let mut seen = Vec::new();
    while !answer.is_finished() {
        let (status, report) = get_json(&client, &progress, &[("pos", start)]);
        assert_eq!(status, 200, "{report}");
        if report["searching"] == true {
            seen.push(report);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, answer) = answer.join().unwrap();
    assert_eq!(status, 200, "{answer}");
    let value = answer["value"].as_i64().unwrap();
    // Some report had nodes and bounds, and every bound reported holds the value.
    assert!(seen.iter().any(|r| r["nodes"].as_u64() > Some(0) && r["bounds"].is_object()), "{seen:?}");
    for report in seen.iter().filter(|r| r["bounds"].is_object()) {
        let (lower, upper) = (report["bounds"]["lower"].as_i64().unwrap(), report["bounds"]["upper"].as_i64().unwrap());
        assert!(lower <= value && value <= upper, "{report} against {value}");
    }
    let (_, after) = get_json(&client, &progress, &[("pos", start)]);
    assert_eq!(after["searching"], false);
}

/// `/keeping-move` searches only where the proofs give a lower bound and name no move keeping
/// it, and out of time it says what the estimates rate best.
#[test]
fn a_move_keeping_a_proofs_bound_is_searched_for_past_its_leaves() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--time-limit", "1", "--no-cache"]);
    let url = format!("{}/api/v1/keeping-move", server.url);
    let client = agent();
    // No proof bounds a position past the proofs.
    let (status, body) = get_json(&client, &url, &[("pos", PAST_THE_PROOFS)]);
    assert_eq!(status, 404, "{body}");
    // At a leaf of standard-6x6-ge-4, South is proven +4 with no move named: a search for one,
    // which a second without a database cannot finish. (A cheap leaf, 7 M nodes at its check:
    // scripts/deepen-proof.sh leaves it alone, where the dear ones get proofs naming the move.)
    let leaf = "1 0 1 9 9 9 3 0 10 8 7 7 7 1 S";
    let (_, answer) = get_json(&client, &format!("{}/api/v1/position", server.url), &[("pos", leaf)]);
    assert_eq!((answer["lower"].as_i64(), answer["source"].as_str()), (Some(4), Some("proof")), "{answer}");
    let (status, body) = get_json(&client, &url, &[("pos", leaf)]);
    assert_eq!(status, 503, "{body}");
    let legal = body["moves"].as_array().map(Vec::len);
    assert_eq!(body["estimates"].as_array().map(Vec::len), legal, "every move's estimate: {body}");
    assert_eq!(legal, Some(5), "{body}");
}

/// `/keeping-move?at_least=T`: a bound the game's earlier moves kept (issue 76: past the proofs'
/// leaves the engine keeps what its last move kept, with zero-window tests): a move worth at
/// least T, proven by search; above the value, a proven "worth less"; where the proofs name a
/// move keeping more, theirs, at once.
#[test]
fn a_move_keeping_a_bound_the_game_kept_is_searched_for_or_taken_from_the_proofs() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--time-limit", "20", "--no-cache"]);
    let url = format!("{}/api/v1/keeping-move", server.url);
    let client = agent();
    // Kalah(4,3), no database: the exact answer, then a move keeping its value.
    let start = "3 3 3 3 0 3 3 3 3 0 S";
    let (_, answer) = get_json(&client, &format!("{}/api/v1/position", server.url), &[("pos", start)]);
    let value = answer["value"].as_i64().unwrap();
    let (status, kept) = get_json(&client, &url, &[("pos", start), ("at_least", &value.to_string())]);
    assert_eq!(status, 200, "{kept}");
    let played = answer["moves"].as_array().unwrap().iter().find(|m| m["move"] == kept["move"]).unwrap();
    assert_eq!(played["value"].as_i64(), Some(value), "the move keeps the value: {kept}");
    assert_eq!(kept["keeps"]["lower"].as_i64(), Some(value), "{kept}");
    assert_eq!(kept["keeps"]["lower_proofs"].as_array().map(Vec::len), Some(0), "proven by the search: {kept}");
    assert!(kept["nodes"].as_u64() > Some(0), "{kept}");
    // Above the value no move keeps it: the search proves the position worth less.
    let (status, body) = get_json(&client, &url, &[("pos", start), ("at_least", &(value + 1).to_string())]);
    assert_eq!((status, body["upper"].as_i64()), (422, Some(value)), "{body}");
    let (status, body) = get_json(&client, &url, &[("pos", start), ("at_least", "two")]);
    assert_eq!(status, 400, "{body}");
    // After South's 2 and North's 1 in standard Kalah(6,6) the proofs give South +2 to +4 and
    // name the move that keeps +2: asked to keep less, the service plays theirs, unsearched.
    let after = "7 0 7 7 7 7 1 0 7 7 7 7 7 1 S";
    let (status, kept) = get_json(&client, &url, &[("pos", after), ("at_least", "0")]);
    assert_eq!(status, 200, "{kept}");
    assert_eq!((kept["move"].as_u64(), kept["nodes"].as_u64()), (Some(3), Some(0)), "{kept}");
    assert_eq!(kept["keeps"]["lower"].as_i64(), Some(2), "{kept}");
    assert!(kept["keeps"]["lower_proofs"].to_string().contains("standard-6x6-turn-2-ge-2"), "{kept}");
    // Asked for more than the proofs allow, no search: proven worth less.
    let (status, body) = get_json(&client, &url, &[("pos", after), ("at_least", "5")]);
    assert_eq!((status, body["upper"].as_i64()), (422, Some(4)), "{body}");
}

/// Before its first zero-window test ends (Kalah(6,6) far from every proof, no database), a
/// search's nodes already show (issue 76: "0 nodes" for 30 s before).
#[test]
fn a_long_first_test_shows_its_nodes_as_they_are_searched() {
    let root = tempfile::tempdir().unwrap();
    let server = Arc::new(Server::start(root.path(), &["--time-limit", "4", "--no-cache"]));
    let answer = {
        let server = Arc::clone(&server);
        std::thread::spawn(move || {
            get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", PAST_THE_PROOFS)]).0
        })
    };
    let progress = format!("{}/api/v1/progress", server.url);
    let (client, mut nodes) = (agent(), Vec::new());
    while !answer.is_finished() {
        let (_, report) = get_json(&client, &progress, &[("pos", PAST_THE_PROOFS)]);
        if report["searching"] == true {
            nodes.push(report["nodes"].as_u64().unwrap());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(answer.join().unwrap(), 503, "out of its time");
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]), "{nodes:?}");
    assert!(nodes.iter().filter(|&&n| n > 0).count() >= 3, "nodes grow while it searches: {nodes:?}");
}

/// Out of time, a search is offered more (`longer=1`, up to --long-time-limit), one position at
/// a time: the board's "Keep searching".
#[test]
fn a_search_out_of_time_may_be_asked_to_keep_searching_one_at_a_time() {
    let root = tempfile::tempdir().unwrap();
    let args = ["--time-limit", "0.05", "--long-time-limit", "120", "--no-cache", "--workers", "2"];
    let server = Server::start(root.path(), &args);
    let url = format!("{}/api/v1/position", server.url);
    let client = agent();
    // Kalah(4,5) after South's 1, no database: about a million nodes, seconds, not 50 ms.
    let after_one = "0 6 6 6 1 6 5 5 5 0 N";
    let (status, body) = get_json(&client, &url, &[("pos", after_one)]);
    assert_eq!((status, body["longer_time_limit"].as_f64()), (503, Some(120.0)), "{body}");
    let (status, body) = get_json(&client, &url, &[("pos", after_one), ("longer", "yes")]);
    assert_eq!(status, 400, "{body}");
    let (status, body) =
        get_json(&client, &format!("{}/api/v1/mainline", server.url), &[("pos", after_one), ("longer", "1")]);
    assert_eq!(status, 400, "only the searches that offer it take longer: {body}");
    let longer = {
        let url = url.clone();
        std::thread::spawn(move || get_json(&agent(), &url, &[("pos", after_one), ("longer", "1")]))
    };
    let progress = format!("{}/api/v1/progress", server.url);
    while get_json(&client, &progress, &[("pos", after_one)]).1["searching"] != true {
        assert!(!longer.is_finished(), "answered before it was seen searching");
        std::thread::sleep(Duration::from_millis(10));
    }
    // While it runs, a second long search is refused; a short one still runs (and times out).
    let (status, body) = get_json(&client, &url, &[("pos", PAST_THE_PROOFS), ("longer", "1")]);
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().unwrap().contains("one at a time"), "{body}");
    let (status, _) = get_json(&client, &url, &[("pos", PAST_THE_PROOFS)]);
    assert_eq!(status, 503);
    let (status, answer) = longer.join().unwrap();
    assert_eq!((status, answer["value"].as_i64()), (200, Some(-4)), "{answer}");
}

#[test]
fn a_cache_file_that_is_not_a_cache_is_refused_and_kept() {
    let root = tempfile::tempdir().unwrap();
    let notes = root.path().join("notes.txt");
    std::fs::write(&notes, "a user's own notes\n").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(["serve", "--bind", "127.0.0.1:0", "--db", root.path().to_str().unwrap()])
        .args(["--cache", notes.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("is not an answer cache") && err.contains("refusing to overwrite it"), "{err}");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "a user's own notes\n");
}

/// The cache stands in for a search only: an answer the database holds is never taken from it,
/// though a cached one were there and edited to look sound (issue 77: a database position's
/// value edited from 8 to 10 was served after a restart, `cached: true`).
#[test]
fn the_database_answers_before_the_cache() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), DATABASE_SEEDS);
    let position = "1 1 1 1 0 1 1 1 1 0 S";
    let url = |server: &Server| format!("{}/api/v1/position", server.url);
    let truth = {
        let server = Server::start(root.path(), &[]);
        let (status, truth) = get_json(&agent(), &url(&server), &[("pos", position)]);
        assert_eq!((status, truth["source"].as_str()), (200, Some("database")), "{truth}");
        truth
    };
    // The answer, every value two more: as the cache's check on reading sees it, sound.
    let mut forged = truth.clone();
    let forged_value = truth["value"].as_i64().unwrap() + 2;
    forged["value"] = Value::from(forged_value);
    forged["wdl"] = Value::from(kalah::answer::wdl(forged_value as i32).name());
    for entry in forged["moves"].as_array_mut().unwrap() {
        entry["value"] = Value::from(entry["value"].as_i64().unwrap() + 2);
    }
    let cache = root.path().join("answers.jsonl");
    let header = r#"{"format":"kalah answer cache","version":1}"#;
    let record =
        serde_json::json!({"endpoint": "position", "rules": "standard", "position": position, "answer": forged});
    std::fs::write(&cache, format!("{header}\n{record}\n")).unwrap();
    let server = Server::start(root.path(), &[]);
    let (status, served) = get_json(&agent(), &url(&server), &[("pos", position)]);
    assert_eq!(status, 200);
    assert_eq!(
        (served["value"].clone(), served["cached"].as_bool()),
        (truth["value"].clone(), Some(false)),
        "{served}"
    );
}

/// One cache file, one writer: a second service on the same file is refused at start, naming
/// the first (two used to append to it and lose each other's answers).
#[test]
fn a_second_service_on_one_cache_file_is_refused_naming_the_first() {
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("shared.jsonl");
    let cache_text = cache.to_str().unwrap();
    let first = Server::start(root.path(), &["--cache", cache_text]);
    let (status, _) = get_json(&agent(), &format!("{}/api/v1/position", first.url), &[("pos", "3 3 3 0 3 3 3 0 S")]);
    assert_eq!(status, 200);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(["serve", "--bind", "127.0.0.1:0", "--db", root.path().to_str().unwrap(), "--cache", cache_text])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("shared.jsonl.lock is held by process") && err.contains("--no-cache"), "{err}");
    assert_eq!(std::fs::read_to_string(&cache).unwrap().lines().count(), 2, "the first's answer kept");
    drop(first);
    // Once the first has gone, the file is free.
    let second = Server::start(root.path(), &["--cache", cache_text]);
    let (_, again) = get_json(&agent(), &format!("{}/api/v1/position", second.url), &[("pos", "3 3 3 0 3 3 3 0 S")]);
    assert_eq!(again["cached"], true, "{again}");
}

/// Every key of `value`, objects' keys with their path, arrays' entries' keys under `[]`.
fn keys(value: &Value, path: &str, found: &mut std::collections::BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                let here = format!("{path}.{key}");
                keys(field, &here, found);
                found.insert(here);
            }
        }
        Value::Array(entries) => entries.iter().for_each(|entry| keys(entry, &format!("{path}[]"), found)),
        _ => {}
    }
}

/// `kalah query --json` and `/api/v1/position` take the same path (book, proofs, search) and give
/// the same answer, key for key: from the book (the 6x4 start, at once and with no database),
/// from the proofs (the 6x6 start) and by search.
#[test]
fn query_and_the_api_give_the_same_answer_with_the_same_keys() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().to_str().unwrap();
    let server = Server::start(root.path(), &[]);
    let client = agent();
    for (position, rules, source) in
        [("6x4", "standard", "book"), ("6x6", "standard", "proof"), ("3 1 0 4 2 1 2 3 0 1 S", "standard", "search")]
    {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kalah"))
            .args(["query", position, "--rules", rules, "--db", db, "--json"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let query: Value = serde_json::from_slice(&output.stdout).unwrap();
        // The book and the proofs answer at once: no node searched.
        assert_eq!(query["nodes"].as_u64() == Some(0), source != "search", "{query}");
        let (status, api) =
            get_json(&client, &format!("{}/api/v1/position", server.url), &[("pos", position), ("rules", rules)]);
        assert_eq!(status, 200, "{api}");
        assert_eq!(query["source"], source, "{query}");
        let (mut query_keys, mut api_keys) = (Default::default(), Default::default());
        keys(&query, "", &mut query_keys);
        keys(&api, "", &mut api_keys);
        assert_eq!(query_keys, api_keys, "{position}");
        assert!(query_keys.contains(".moves[].captured") && query_keys.contains(".houses"), "{query_keys:?}");
        let without_time = |mut value: Value| {
            value["seconds"] = Value::Null;
            value["nodes"] = Value::Null;
            value
        };
        assert_eq!(without_time(query), without_time(api), "{position}");
    }
    assert!(
        std::fs::read_dir(root.path()).unwrap().all(
            |entry| ["answers.jsonl", "answers.jsonl.lock"].contains(&entry.unwrap().file_name().to_str().unwrap())
        ),
        "no database built"
    );
}
