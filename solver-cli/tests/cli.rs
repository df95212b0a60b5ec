//! The `kalah` binary as users and scripts call it: outputs, JSON fields and exit codes.

use std::process::{Command, Output};

use serde_json::Value;

fn kalah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah")).args(args).output().expect("the kalah binary runs")
}

fn json(args: &[&str]) -> Value {
    let output = kalah(args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn replay_of_the_published_6x4_game_ends_at_plus_10() {
    let moves = "25-10-3-3-5153-1-4-5-045-4-535452-53-4-1-3-2-0-54-1-3";
    let out = json(&["replay", "--start", "6x4", "--rules", "irving", "--notation", "irving", "--json", moves]);
    assert_eq!(out["over"], true);
    assert_eq!(out["margin"], 10);
    assert_eq!(out["south"], 29);
    assert_eq!(out["north"], 19);
    assert_eq!(out["position"], "0 0 0 0 0 0 29 0 0 0 0 0 0 19 S");
    assert_eq!(out["rules"], "empty-capture");
}

#[test]
fn replay_text_prints_each_turn_and_the_result() {
    let output =
        kalah(&["replay", "--start", "4x3", "--rules", "irving", "--notation", "irving", "13-1-032-2-3-0-1320-3-0-2"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("1. South  2 4"), "{text}");
    assert!(text.contains("10. North  3"), "{text}");
    assert!(text.contains("South wins by 8 (margin +8)"), "{text}");
}

#[test]
fn replay_in_bin_notation_and_of_an_unfinished_game() {
    // North's house 2 (bin 9) then holds 5 seeds and ends in North's store: North moves again.
    let out = json(&["replay", "--notation", "bins", "--json", "3 6 9"]);
    assert_eq!(out["over"], false);
    assert_eq!(out["to_move"], "north");
    assert_eq!(out["moves"], "3 6 2");
    assert_eq!(out["turns"].as_array().unwrap().len(), 2);
}

#[test]
fn an_illegal_move_is_named_with_its_reason_and_exit_code_2() {
    let output = kalah(&["replay", "--start", "6x4", "3 3"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("move 2 ('3'): South's house 3 is empty"), "{err}");
    assert!(output.stdout.is_empty());

    let output = kalah(&["replay", "--notation", "irving", "2-1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("extra turn"));
}

#[test]
fn bad_text_says_what_is_wrong_and_where() {
    let output = kalah(&["replay", "--start", "4 4 4 0 4 4 x 0 S", "1"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("'x' is neither a seed count"), "{err}");
    assert!(err.contains("column 13"), "{err}");

    let output = kalah(&["replay", "1 9"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("house 9 is out of range 1..6"));

    let output = kalah(&["solve", "6by4"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn unknown_rules_are_refused_with_the_accepted_names() {
    let output = kalah(&["solve", "3x3", "--rules", "kalaha"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("expected one of: standard, empty-capture"), "{}", stderr(&output));
    let output = kalah(&["solve", "3x3", "--capture", "sideways"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn solve_gives_the_published_values_and_best_openings() {
    let out = json(&["solve", "4x3", "--rules", "irving", "--json"]);
    assert_eq!(out["value"], 8);
    assert_eq!(out["wdl"], "win");
    assert_eq!(out["best"], serde_json::json!(["2 3", "2 4"]));
    let openings = out["openings"].as_array().unwrap();
    assert!(openings.iter().any(|o| o["move"] == "2 4" && o["value"] == 8));

    assert_eq!(json(&["solve", "4x4", "--json"])["value"], 2);
    assert_eq!(json(&["solve", "4x4", "--rules", "empty-capture", "--json"])["value"], 2);
}

#[test]
fn solve_with_overrides_and_the_pie_rule() {
    let plain = json(&["solve", "3x3", "--json"]);
    let pie = json(&["solve", "3x3", "--pie", "--json"]);
    let fairest =
        plain["openings"].as_array().unwrap().iter().map(|o| o["value"].as_i64().unwrap().abs()).min().unwrap();
    assert_eq!(pie["value"].as_i64().unwrap(), -fairest);
    assert_eq!(pie["pie_value"], pie["value"]);
    assert_eq!(pie["rule_dimensions"]["pie"], true);
    // `query` at the start under the pie rule (searched, and from the book's 6x4 table) says the
    // same value: what South keeps after the swap, not plain play's.
    let queried = json(&["query", "3x3", "--pie", "--no-db", "--json"]);
    assert_eq!((&queried["value"], &queried["source"]), (&pie["value"], &serde_json::json!("search")));
    // Kalah(6,4)'s table: 3 2, worth 0, is the fairest turn (plain play's best is 3 6, +8).
    let queried = json(&["query", "6x4", "--pie", "--no-db", "--json"]);
    assert_eq!((&queried["value"], &queried["source"]), (&serde_json::json!(0), &serde_json::json!("book")));
    let best: Vec<&Value> = queried["moves"].as_array().unwrap().iter().filter(|m| m["best"] == true).collect();
    assert_eq!(best.iter().map(|m| m["move"].as_i64().unwrap()).collect::<Vec<_>>(), [3]);
    let text = String::from_utf8(kalah(&["query", "6x4", "--pie", "--no-db"]).stdout).unwrap();
    assert!(text.contains("under the pie rule: each value is what South keeps"), "{text}");
    // After South's first turn 2 of Kalah(3,3), North may swap; not without the pie rule.
    let after_2 = "3 0 4 1 4 3 3 0 N";
    let text = String::from_utf8(kalah(&["query", after_2, "--pie", "--no-db"]).stdout).unwrap();
    assert!(text.contains("North may swap sides here"), "{text}");
    let text = String::from_utf8(kalah(&["query", after_2, "--no-db"]).stdout).unwrap();
    assert!(!text.contains("swap"), "{text}");
}

#[test]
fn clockwise_starts_are_solved_from_a_database_or_by_search_with_repetitions() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().to_str().unwrap();
    let out = json(&["solve", "3x2", "--direction", "cw", "--db", db, "--json"]);
    assert_eq!(out["value"], -4, "the fixed point of tests/cyclic.rs");
    assert_eq!(out["database"]["max_seeds"], 12);
    // The forward search scores repetitions as the retrograde analysis does.
    let out = json(&["solve", "3x2", "--direction", "cw", "--no-db", "--json"]);
    assert_eq!(out["value"], -4);
    let out = json(&["solve", "3x3", "--direction", "cw", "--no-db", "--json"]);
    assert_eq!(out["value"], 2, "data/results/table-standard+direction=cw.csv");
    // Beyond the database and too big to build for on the spot: searched within the time limit.
    let output =
        kalah(&["query", "--direction", "cw", "--db", db, "--time-limit", "0.5", "6 6 6 6 6 6 0 6 6 6 6 6 6 0 S"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no exact value within the time limit"), "{}", stderr(&output));
    assert!(stderr(&output).contains("moves by estimate, not proven: "), "{}", stderr(&output));
}

#[test]
fn rules_lists_the_named_sets() {
    let out = json(&["rules", "--json"]);
    assert_eq!(out.as_object().unwrap().len(), 5);
    assert_eq!(out["wetherell"]["sowing"], "go-again");
    assert_eq!(out["bga"]["end"], "mover-cannot-move");
}

fn build_small(root: &std::path::Path, rules: &str) {
    let db = root.to_str().unwrap();
    let out = json(&[
        "build",
        "--houses",
        "4",
        "--max-seeds",
        "10",
        "--rules",
        rules,
        "--db",
        db,
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(out["max_seeds"], 10);
    assert_eq!(out["layers"].as_array().unwrap().len(), 11);
}

#[test]
fn build_info_verify_and_query_a_small_database() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().to_str().unwrap();
    build_small(root.path(), "standard");

    let info = json(&["info", "--db", db, "--json"]);
    let first = &info["databases"][0];
    assert_eq!(first["houses"], 4);
    assert_eq!(first["max_seeds"], 10);
    assert_eq!(first["rules"], "standard");
    assert!(first["bits_per_position"].as_f64().unwrap() > 0.0);
    assert_eq!(first["layers"][10]["entries"], first["layers"][10]["entries"].as_u64().unwrap());

    let verify = json(&["verify", "--db", db, "--samples", "50", "--json"]);
    assert_eq!(verify["databases"][0]["mismatches"], 0);
    assert!(verify["databases"][0]["sampled"].as_u64().unwrap() > 300);
    let full = json(&["verify", "--db", db, "--full", "--json"]);
    assert_eq!(full["databases"][0]["mismatches"], 0);
    assert!(full["databases"][0]["sampled"].as_u64().unwrap() > verify["databases"][0]["sampled"].as_u64().unwrap());

    // South (to move, store 5) against North (store 4); the reference solver says +3.
    let query = json(&["query", "--db", db, "--json", "1 0 2 1 5 0 3 1 0 4 S"]);
    assert_eq!(query["value"], 3);
    assert_eq!(query["wdl"], "win");
    assert_eq!(query["source"], "database");
    let moves = query["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3);
    assert_eq!(moves[0]["value"], 3);

    // A second build finds every layer complete.
    let again = json(&["build", "--houses", "4", "--max-seeds", "10", "--db", db, "--json"]);
    assert!(again["layers"].as_array().unwrap().iter().all(|l| l["reused"] == true));
}

#[test]
fn query_gives_the_reference_value() {
    let solved = json(&["solve", "1 0 2 1 5 0 3 1 0 4 S", "--json"]);
    assert_eq!(solved["value"], 3);
}

#[test]
fn damaged_or_missing_databases_give_clear_errors() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().to_str().unwrap();
    // 10 seeds on the board: the layer the test damages.
    let position = "1 0 2 2 5 0 3 1 1 4 S";

    // Without a database the query is answered by search.
    let searched = json(&["query", "--db", db, "--json", position]);
    assert_eq!(searched["source"], "search");
    let output = kalah(&["info", "--db", db]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no database in"), "{}", stderr(&output));

    build_small(root.path(), "standard");
    let layer = root.path().join("4h-standard").join("layer-10.kdb");
    let mut bytes = std::fs::read(&layer).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&layer, &bytes).unwrap();
    let output = kalah(&["query", "--db", db, position]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("layer-10.kdb is corrupt: xxh3-64 checksum mismatch"), "{}", stderr(&output));
    let output = kalah(&["verify", "--db", db]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("corrupt"), "{}", stderr(&output));

    std::fs::write(&layer, &bytes[..100]).unwrap();
    let output = kalah(&["query", "--db", db, position]);
    assert!(stderr(&output).contains("is truncated"), "{}", stderr(&output));

    bytes[0] = b'X';
    std::fs::write(&layer, &bytes).unwrap();
    let output = kalah(&["info", "--db", db]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("not a kalah database file (wrong magic)"), "{}", stderr(&output));

    build_small(root.path(), "irving");
    std::fs::copy(root.path().join("4h-empty-capture").join("layer-10.kdb"), &layer).unwrap();
    let output = kalah(&["query", "--db", db, position]);
    assert!(stderr(&output).contains("was built for rules 'empty-capture', not 'standard'"), "{}", stderr(&output));
}

#[test]
fn solve_reports_openings_a_principal_variation_and_the_work_done() {
    let out = json(&["solve", "5x2", "--rules", "standard", "--json", "--table-mb", "16"]);
    assert_eq!(out["value"], 2);
    let line = out["principal_variation"].as_array().unwrap();
    assert!(line.len() >= 4, "{line:?}");
    let moves: Vec<&str> = line.iter().map(|t| t.as_str().unwrap()).collect();
    // The line replays to the value: the first player's final margin.
    let replayed = json(&["replay", "--start", "5x2", "--json", &moves.join(" ")]);
    assert_eq!(replayed["over"], true);
    assert_eq!(replayed["margin"], 2);
    assert!(out["nodes"].as_u64().unwrap() > 0);
    assert_eq!(out["database"], Value::Null);
    assert_eq!(out["table_mb"], 16);

    let output = kalah(&["solve", "4x4", "--time-limit", "0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("invalid value '0' for '--time-limit"), "{}", stderr(&output));
}

#[test]
fn solve_without_openings_gives_the_value_and_a_line_that_reaches_it() {
    for (start, rules) in [("4x3", "empty-capture"), ("5x2", "standard"), ("4x4", "bga")] {
        let full = json(&["solve", start, "--rules", rules, "--json"]);
        let lean = json(&["solve", start, "--rules", rules, "--json", "--no-openings"]);
        assert_eq!(lean["value"], full["value"], "{start} {rules}");
        assert_eq!((&lean["openings"], &lean["best"]), (&Value::Null, &Value::Null), "{start} {rules}");
        assert!(lean["nodes"].as_u64().unwrap() < full["nodes"].as_u64().unwrap(), "{start} {rules}: less work");
        let moves: Vec<&str> =
            lean["principal_variation"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        assert!(
            full["best"].as_array().unwrap().iter().any(|b| b == moves[0]),
            "{start} {rules}: opens with a best turn"
        );
        let replayed = json(&["replay", "--start", start, "--rules", rules, "--json", &moves.join(" ")]);
        assert_eq!((&replayed["over"], &replayed["margin"]), (&Value::Bool(true), &lean["value"]), "{start} {rules}");
    }
    let text = String::from_utf8(kalah(&["solve", "4x3", "--no-openings"]).stdout).unwrap();
    assert!(text.contains("value +") && text.contains("openings not solved (--no-openings)"), "{text}");
    assert!(text.contains("principal variation: "), "{text}");
    let output = kalah(&["solve", "3x3", "--pie", "--no-openings"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("the pie rule needs every opening"), "{}", stderr(&output));
}

#[test]
fn solve_answers_a_position_of_the_proofs_from_them() {
    // After South's 2 and North's 1 in standard Kalah(6,6): a node of the turn-2 proofs, which no
    // search of every first turn would finish. `solve` says what `query` says, at once.
    let position = "7 0 7 7 7 7 1 0 7 7 7 7 7 1 S";
    let solved = json(&["solve", position, "--no-db", "--json"]);
    let queried = json(&["query", position, "--no-db", "--json"]);
    assert_eq!(solved, queried);
    assert_eq!((solved["lower"].as_i64(), solved["source"].as_str()), (Some(2), Some("proof")), "{solved}");
    let text = String::from_utf8(kalah(&["solve", position, "--no-db"]).stdout).unwrap();
    assert!(text.contains("value between +2 and +4 for South") && text.contains("proven play: S 3"), "{text}");
}

#[test]
fn query_shows_no_progress_without_a_terminal() {
    // Kalah(6,6) past every proof, no database: the search runs out of its second. Its progress
    // line and the note on positions far above the database are for a terminal only.
    let args = ["query", "8 1 8 8 7 1 2 0 9 8 1 9 8 2 S", "--no-db", "--time-limit", "1"];
    let output = kalah(&args);
    assert!(!output.status.success());
    let stderr = stderr(&output);
    assert!(stderr.contains("time limit") && stderr.contains("estimate"), "{stderr}");
    assert!(!stderr.contains("searching") && !stderr.contains("note:"), "{stderr}");
}

#[test]
fn query_on_a_shipped_line_gives_its_value_and_move_at_once() {
    // Empty-capture Kalah(6,5) after South's 2 3 and North's 3, on the start's perfect line (no
    // openings table starts there): no search without a database ends in a second, but the line
    // and the proofs answer with none.
    let position = "6 0 0 7 7 7 2 6 6 0 6 6 6 1 S";
    let args = ["query", position, "--rules", "empty-capture", "--no-db", "--time-limit", "1"];
    let out = json(&[&args[..], &["--json"]].concat());
    assert_eq!(
        (out["source"].as_str(), out["value"].as_i64(), out["nodes"].as_u64()),
        (Some("book"), Some(12), Some(0))
    );
    assert_eq!(out["lower_proofs"], serde_json::json!(["data/proofs/empty-capture-6x5-ge-12"]), "{out}");
    assert_eq!((out["moves"][0]["move"].as_u64(), out["moves"][0]["best"].as_bool()), (Some(1), Some(true)), "{out}");
    let text = String::from_utf8(kalah(&args).stdout).unwrap();
    assert!(text.contains("value +12 for South (win), from a perfect line or table in the book"), "{text}");
    assert!(text.contains("at least +12: data/proofs/empty-capture-6x5-ge-12"), "{text}");
    assert!(text.contains("   1 +12  best") && text.contains("   4 at most +12"), "{text}");
}

#[test]
fn query_beyond_the_database_searches_and_agrees_with_solve() {
    let root = tempfile::tempdir().unwrap();
    let db = root.path().to_str().unwrap();
    build_small(root.path(), "standard");
    // 16 seeds on the board: beyond the 10-seed database.
    let position = "3 1 0 4 2 1 2 3 0 1 S";
    let query = json(&["query", "--db", db, "--json", position]);
    assert_eq!(query["source"], "search");
    let solved = json(&["solve", position, "--no-db", "--json"]);
    assert_eq!(query["value"], solved["value"]);
    let best = query["moves"][0]["value"].clone();
    assert_eq!(best, query["value"]);
    let text = String::from_utf8(kalah(&["query", "--db", db, position]).stdout).unwrap();
    assert!(text.contains("by search:"), "{text}");
}

#[test]
fn table_compares_with_the_published_values_and_writes_csv() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().to_str().unwrap();
    let table = json(&["table", "--rules", "irving", "--houses", "3..4", "--seeds", "1..4", "--out", out, "--json"]);
    assert_eq!(table["mismatches"], 0);
    let cells = table["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8);
    assert!(cells.iter().all(|c| c["status"] == "match"), "{cells:?}");
    let csv = std::fs::read_to_string(out_dir.path().join("table-empty-capture.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9, "{csv}");
    assert!(csv.contains("empty-capture,4,3,8,8,match,"), "{csv}");

    let text = String::from_utf8(kalah(&["table", "--houses", "2", "--seeds", "1..2", "--out", out]).stdout).unwrap();
    assert!(text.contains("2 cells: 0 match the published values, 2 unpublished"), "{text}");
    let output = kalah(&["table", "--houses", "3..1", "--out", out]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn bench_node_counts_repeat() {
    let first = json(&["bench", "--no-db", "--table-mb", "64", "--json"]);
    let second = json(&["bench", "--no-db", "--table-mb", "64", "--json"]);
    let nodes =
        |v: &Value| v["results"].as_array().unwrap().iter().map(|r| r["nodes"].as_u64().unwrap()).collect::<Vec<_>>();
    assert_eq!(nodes(&first).len(), 2);
    assert_eq!(nodes(&first), nodes(&second));
    assert_eq!(first["results"][1]["value"], 8);
    assert_eq!(first["results"][0]["table_mb"], 64, "as asked");
    // Sized to the search when not asked: Kalah(4,4) without a database has 32 seeds beyond none.
    let sized = json(&["bench", "--no-db", "--json"]);
    assert_eq!(sized["results"][0]["table_mb"], 256);
    assert_eq!(sized["results"][0]["value"], 2);
}

#[test]
fn numbers_that_would_overflow_or_exhaust_are_refused_with_exit_2() {
    let refused = [
        vec!["solve", "3x3", "--no-db", "--time-limit", "1e300"],
        vec!["solve", "3x3", "--no-db", "--time-limit", "0"],
        vec!["solve", "3x3", "--no-db", "--table-mb", "100000000000"],
        vec!["solve", "3x3", "--no-db", "--threads", "100000"],
        vec!["query", "0 3 0 1 2 4 5 1 0 2 0 1 1 6 S", "--no-db", "--time-limit", "inf"],
        vec!["bench", "--no-db", "--threads", "0"],
        vec!["probe-bench", "--positions", "18446744073709551615"],
        vec!["build", "--houses", "3", "--max-seeds", "4", "--threads", "100000"],
        vec!["serve", "--time-limit", "1e300"],
        vec!["serve", "--table-mb", "0"],
        // Refused while parsing, before the (missing) job or proof is looked at.
        vec!["run", "/nonexistent/job.toml", "--checkpoint-minutes", "1e300"],
        vec!["proof", "run", "/nonexistent/proof", "--time-limit=-5"],
    ];
    for args in refused {
        let output = kalah(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains("is not"), "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn a_system_error_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let output = kalah(&["info", "--db", file.join("db").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert_eq!(err.matches("Not a directory").count(), 1, "{err}");
}
