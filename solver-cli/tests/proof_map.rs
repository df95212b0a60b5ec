//! `kalah proof map` and what every front end serves from it: checked proofs of Kalah(4,4) = +2
//! mapped onto its first turns, and the shipped map of Kalah(6,6) answered with no database.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::{Server, agent, get_json};
use kalah::answer::signed;

fn kalah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah")).args(args).output().expect("the kalah binary runs")
}

fn json_of(output: &Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", String::from_utf8_lossy(&output.stdout)))
}

/// A proof of `claim` from the Kalah(4,4) start in `dir`, grown until decided; checked with every
/// leaf searched again (its transcript kept as `check-test.txt`) when `checked`.
fn proven_4x4(dir: &Path, claim: &str, checked: bool) {
    let path = dir.to_str().unwrap();
    let out = kalah(&["proof", "new", path, "--start", "4x4", "--claim", claim, "--task-nodes", "2000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let search = ["--no-db", "--threads", "1", "--table-mb", "16"];
    let run = json_of(&kalah(&[&["proof", "run", path][..], &search, &["--json"]].concat()));
    assert_eq!(run["status"]["proven"], true, "{run}");
    if checked {
        let out = kalah(&[&["proof", "check", path][..], &search, &["--sample", "100000"]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
        std::fs::write(dir.join("check-test.txt"), &out.stdout).unwrap();
    }
}

#[test]
fn checked_proofs_are_mapped_onto_the_first_turns_and_served() {
    let tmp = tempfile::tempdir().unwrap();
    let proofs = tmp.path().join("proofs");
    // Kalah(4,4) is worth +2 (best first turns 1 2 and 1 3): proofs of both bounds, and one of a
    // weaker bound left unchecked.
    proven_4x4(&proofs.join("ge-2"), ">= 2", true);
    proven_4x4(&proofs.join("le-2"), "<= 2", true);
    proven_4x4(&proofs.join("ge-0"), ">= 0", false);
    // A transcript of another proof's check does not make this one checked.
    std::fs::copy(proofs.join("le-2/check-test.txt"), proofs.join("ge-0/check-copied.txt")).unwrap();

    let stem = tmp.path().join("results/openings-4x4");
    std::fs::create_dir_all(stem.parent().unwrap()).unwrap();
    let proofs_arg = proofs.to_str().unwrap();
    let out =
        json_of(&kalah(&["proof", "map", "4x4", "--proofs", proofs_arg, "--out", stem.to_str().unwrap(), "--json"]));
    let map = &out["map"];
    let named = |dir: &str| Value::from(vec![proofs.join(dir).display().to_string()]);
    assert_eq!((map["value"].as_i64(), map["lower"].as_i64(), map["upper"].as_i64()), (Some(2), Some(2), Some(2)));
    assert_eq!((&map["lower_proofs"], &map["upper_proofs"]), (&named("ge-2"), &named("le-2")));
    let not_counted = out["not_counted"].as_array().unwrap();
    assert_eq!(not_counted.len(), 1, "{out}");
    assert!(not_counted[0]["proof"].as_str().unwrap().ends_with("ge-0"), "{out}");

    // Every first turn's bounds hold its exact value, and the <= proof bounds every one of them.
    let solved = json_of(&kalah(&["solve", "4x4", "--json"]));
    let openings = map["openings"].as_array().unwrap();
    assert_eq!(openings.len(), solved["openings"].as_array().unwrap().len());
    for (opening, exact) in openings.iter().zip(solved["openings"].as_array().unwrap()) {
        assert_eq!(opening["move"], exact["move"]);
        let value = exact["value"].as_i64().unwrap();
        assert!(
            opening["lower"].as_i64().unwrap() <= value && value <= opening["upper"].as_i64().unwrap(),
            "{opening}"
        );
        assert!(opening["upper"].as_i64().unwrap() <= 2, "{opening}");
    }
    let proven_best: Vec<&Value> = openings.iter().filter(|o| o["value"] == 2).collect();
    assert!(!proven_best.is_empty(), "the >= proof's chosen first turn is exact: {map}");
    let csv = std::fs::read_to_string(stem.with_extension("csv")).unwrap();
    assert!(csv.lines().nth(1).unwrap().starts_with("openings-4x4,1,standard,4x4,openings,2,2,2,"), "{csv}");

    // Mapping again (another rule set's line would be kept beside it) rewrites the same line.
    kalah(&["proof", "map", "4x4", "--proofs", proofs_arg, "--out", stem.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(stem.with_extension("jsonl")).unwrap().lines().count(), 1);

    // The service serves the map given with --book, the start and a position within a first
    // turn, as the file's claim: it has not checked the proofs the file names (issue 77).
    let server = Server::start(tmp.path(), &["--book", stem.parent().unwrap().to_str().unwrap()]);
    let client = agent();
    let url = format!("{}/api/v1/position", server.url);
    let (status, start) = get_json(&client, &url, &[("pos", "4x4")]);
    assert_eq!(status, 200, "{start}");
    assert_eq!(
        (start["source"].as_str(), start["value"].as_i64(), start["wdl"].as_str()),
        (Some("claimed"), Some(2), Some("win"))
    );
    let named = start["lower_proofs"][0].as_str().unwrap();
    assert!(named.contains("ge-2 (claimed by ") && named.ends_with(", not checked here)"), "{start}");
    let one = start["moves"].as_array().unwrap().iter().find(|m| m["move"] == 1).unwrap();
    assert_eq!(
        (one["extra_turn"].as_bool(), one["best"].as_bool(), one["value"].as_i64()),
        (Some(true), Some(true), Some(2))
    );
    let (status, within) = get_json(&client, &url, &[("pos", one["position"].as_str().unwrap())]);
    assert_eq!(
        (status, within["source"].as_str(), within["value"].as_i64()),
        (200, Some("claimed"), Some(2)),
        "{within}"
    );
    let (status, table) = get_json(&client, &format!("{}/api/v1/openings", server.url), &[("pos", "4x4")]);
    assert_eq!((status, table["source"].as_str(), table["value"].as_i64()), (200, Some("claimed"), Some(2)), "{table}");
}

#[test]
fn the_six_seed_starts_are_answered_from_the_shipped_proofs_with_no_database() {
    let empty = tempfile::tempdir().unwrap();
    let db = empty.path().to_str().unwrap();
    // No search: each answer says it comes from the proofs, a query that it searched no node
    // (not the wall clock, which a loaded machine can stretch past any limit).
    let from_proofs = |answer: &Value| {
        assert_eq!(answer["source"].as_str(), Some("proof"), "{answer}");
        assert!(answer.get("nodes").is_none_or(|nodes| nodes.as_u64() == Some(0)), "{answer}");
    };
    let standard = json_of(&kalah(&["query", "6x6", "--db", db, "--json"]));
    assert_eq!(standard["value"].as_i64(), Some(4), "{standard}");
    from_proofs(&standard);
    // The value rests on the start's own two proofs; each move's bounds on the first turns that
    // begin with it (the tests of `kalah proof openings`, which grow as it goes on): its lower bound
    // on the first turn that gives it, its upper bound on every one of them.
    let names = |list: &Value| -> Vec<String> {
        list.as_array().map_or_else(Vec::new, |l| l.iter().map(|p| p.as_str().unwrap().to_string()).collect())
    };
    let map = include_str!("../../data/results/openings-6x6.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|row| row["rules"] == "standard")
        .expect("the shipped map of standard Kalah(6,6)");
    assert_eq!(
        (names(&standard["lower_proofs"]), names(&standard["upper_proofs"])),
        (vec!["data/proofs/standard-6x6-ge-4".to_string()], vec!["data/proofs/standard-6x6-le-4".to_string()])
    );
    let mut shown: std::collections::BTreeSet<String> =
        [&standard["lower_proofs"], &standard["upper_proofs"]].into_iter().flat_map(names).collect();
    for m in standard["moves"].as_array().unwrap() {
        let house = m["move"].as_u64().unwrap().to_string();
        let turns: Vec<&Value> = map["openings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["move"].as_str().unwrap().split(' ').next() == Some(house.as_str()))
            .collect();
        let lower = turns.iter().map(|o| o["lower"].as_i64().unwrap()).max().unwrap();
        let giving = turns.iter().find(|o| o["lower"].as_i64() == Some(lower)).unwrap();
        let mut upper_proofs: Vec<String> = turns.iter().flat_map(|o| names(&o["upper_proofs"])).collect();
        upper_proofs.sort();
        upper_proofs.dedup();
        assert_eq!(m["lower"].as_i64(), Some(lower), "{m}");
        let upper = turns.iter().map(|o| o["upper"].as_i64().unwrap()).max();
        assert_eq!(m["upper"].as_i64(), upper, "{m}: the best of its first turns' upper bounds");
        assert_eq!(
            (names(&m["lower_proofs"]), names(&m["upper_proofs"])),
            (names(&giving["lower_proofs"]), upper_proofs)
        );
        shown.extend([&m["lower_proofs"], &m["upper_proofs"]].into_iter().flat_map(names));
    }
    // `proofs` lists every proof the answer names.
    assert_eq!(names(&standard["proofs"]), shown.into_iter().collect::<Vec<_>>(), "{standard}");
    // Move 1 (then 3) is proven best; every other move is at most +4, move 2 at most +2 (its
    // test of >= 4 refuted; later proofs only narrow it).
    for m in standard["moves"].as_array().unwrap() {
        let most = if m["move"] == 2 { 2 } else { 4 };
        assert!(m["upper"].as_i64() <= Some(most) && (m["move"] != 1 || m["upper"] == 4), "{m}");
        assert_eq!(m["best"].as_bool(), Some(m["move"] == 1), "{m}");
    }
    let empty_capture = json_of(&kalah(&["query", "6x6", "--rules", "empty-capture", "--db", db, "--json"]));
    // Empty capture: +2 exactly (opening 2 at least +2, every first turn at most +2), as published.
    assert_eq!(empty_capture["value"].as_i64(), Some(2), "{empty_capture}");
    assert_eq!((empty_capture["lower"].as_i64(), empty_capture["wdl"].as_str()), (Some(2), Some("win")));
    // Once every first turn is exact the answer still names the proofs it rests on.
    from_proofs(&empty_capture);
    let named = empty_capture["proofs"].as_array().unwrap();
    assert!(named.contains(&serde_json::json!("data/proofs/empty-capture-6x6-le-2")), "{empty_capture}");
    // Opening 2 is proven best; first turns proven since may join it, none above +2.
    for m in empty_capture["moves"].as_array().unwrap() {
        assert!(m["upper"].as_i64() <= Some(2), "{m}");
        assert_eq!(m["best"].as_bool(), Some(m["value"].as_i64() == Some(2)), "{m}");
        if m["move"] == 2 {
            assert_eq!(m["best"].as_bool(), Some(true), "{m}");
        }
    }
    let text = String::from_utf8(kalah(&["solve", "6x6", "--db", db]).stdout).unwrap();
    assert!(text.contains("value +4 for South, proven by checked proofs"), "{text}");
    // With the seeds left discarded every first turn is exact (turn 6 the last, -2), and turns
    // 3 and 4, worth 0, are the pie rule's fairest.
    let discard = ["solve", "6x6", "--rules", "standard remaining=discard", "--db", db];
    let text = String::from_utf8(kalah(&discard).stdout).unwrap();
    assert!(text.contains("under the pie rule: 0 (fairest: 3, 4)"), "{text}");
    let table = json_of(&kalah(&[&discard[..], &["--json"]].concat()));
    from_proofs(&table);
    assert_eq!((table["pie_value"].as_i64(), &table["fairest"]), (Some(0), &serde_json::json!(["3", "4"])), "{table}");
    let turns: Vec<_> =
        table["openings"].as_array().unwrap().iter().map(|o| (o["move"].clone(), o["value"].clone())).collect();
    assert_eq!(turns.len(), 10, "{table}");
    assert!(turns.iter().all(|(_, value)| value.is_i64()), "every first turn exact: {table}");
    assert_eq!(turns.last(), Some(&(serde_json::json!("6"), serde_json::json!(-2))), "{table}");
    // Under BGA's rules turn 1 4, proven worth 0, decides the pie value before the other turns
    // are exact: the turns proven worth 0 are the fairest, and those still open that might be
    // worth 0 are named beside them.
    let bga = ["solve", "6x6", "--rules", "bga", "--db", db];
    let table = json_of(&kalah(&[&bga[..], &["--json"]].concat()));
    from_proofs(&table);
    assert_eq!(table["pie_value"].as_i64(), Some(0), "{table}");
    let fairest = table["fairest"].as_array().unwrap();
    assert!(fairest.contains(&serde_json::json!("1 4")), "{table}");
    let mut open = Vec::new();
    for o in table["openings"].as_array().unwrap() {
        let fair = fairest.contains(&o["move"]);
        match o["value"].as_i64() {
            Some(value) => assert_eq!(fair, value == 0, "{o}"),
            None if o["lower"].as_i64() <= Some(0) && o["upper"].as_i64() >= Some(0) => open.push(o["move"].clone()),
            None => assert!(!fair, "{o}"),
        }
    }
    let text = String::from_utf8(kalah(&bga).stdout).unwrap();
    let pie_line = text.lines().find(|line| line.starts_with("under the pie rule: 0 (fairest: ")).expect(&text);
    let named = |turn: &serde_json::Value| pie_line.contains(turn.as_str().unwrap());
    assert!(fairest.iter().chain(&open).all(named), "{pie_line}");
    assert_eq!(pie_line.contains("perhaps also"), !open.is_empty(), "{pie_line}");
    assert_eq!(table["perhaps_fairest"], serde_json::json!(open), "{table}");
    // Asked under the pie rule, the map says its value is the pie value's line, known or not.
    for rules in ["bga pie=on", "bga capture=empty pie=on"] {
        let text = String::from_utf8(kalah(&["solve", "6x6", "--rules", rules, "--db", db]).stdout).unwrap();
        let table = json_of(&kalah(&["solve", "6x6", "--rules", rules, "--db", db, "--json"]));
        from_proofs(&table);
        assert!(text.contains("the pie rule's value is the last line"), "{text}");
        let last = text.lines().rev().nth(1).unwrap();
        match table["pie_value"].as_i64() {
            Some(pie) => assert!(last.starts_with(&format!("under the pie rule: {}", signed(pie as i32))), "{text}"),
            None => assert!(last.starts_with("under the pie rule: not yet known"), "{text}"),
        }
    }
    assert!(std::fs::read_dir(empty.path()).unwrap().next().is_none(), "no database built");

    let server = Server::start(empty.path(), &[]);
    let (status, answer) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", "6x6")]);
    assert_eq!(
        (status, answer["value"].as_i64(), answer["source"].as_str()),
        (200, Some(4), Some("proof")),
        "{answer}"
    );
}

/// The exact value of every first turn of `start` under `rules`, by `kalah solve`.
fn solved_openings(start: &str, rules: &str) -> Vec<(String, i64)> {
    let solved = json_of(&kalah(&["solve", start, "--rules", rules, "--no-db", "--json"]));
    solved["openings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["move"].to_string(), o["value"].as_i64().unwrap()))
        .collect()
}

#[test]
fn the_driver_proves_every_first_turn_exact_and_goes_on_where_it_stopped() {
    for (start, rules) in [("4x3", "standard"), ("5x2", "empty-capture")] {
        let tmp = tempfile::tempdir().unwrap();
        let (proofs, stem) = (tmp.path().join("proofs"), tmp.path().join("openings"));
        let drive = |extra: &[&str]| {
            let args = ["proof", "openings", start, "--rules", rules, "--proofs", proofs.to_str().unwrap()];
            let search = ["--out", stem.to_str().unwrap(), "--no-db", "--threads", "1", "--table-mb", "16"];
            json_of(&kalah(&[&args[..], &search, &["--task-nodes", "2000", "--json"], extra].concat()))
        };
        // Stopped early (how far it got depends on the machine), then run again: it goes on from
        // the proofs on disk to every turn exact, equal to the solver's values.
        drive(&["--time-limit", "0.3"]);
        let done = drive(&[]);
        let mapped: Vec<(String, i64)> = done["map"]["openings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["move"].to_string(), o["value"].as_i64().unwrap_or(i64::MIN)))
            .collect();
        assert_eq!(mapped, solved_openings(start, rules), "{start} {rules}");
        // Every test is checked (a transcript beside it), and the map counts each.
        for entry in std::fs::read_dir(&proofs).unwrap() {
            let dir = entry.unwrap().path();
            let checked = std::fs::read_dir(&dir)
                .unwrap()
                .any(|f| f.unwrap().file_name().to_string_lossy().starts_with("check-"));
            assert!(checked, "{}", dir.display());
            // Each test keeps the budget the run that began it was given.
            let spec = std::fs::read_to_string(dir.join("proof.toml")).unwrap();
            assert!(spec.contains("task_nodes = 2000\n"), "{spec}");
        }
        let text = std::fs::read_to_string(stem.with_extension("jsonl")).unwrap();
        assert_eq!(text.lines().count(), 1);
        // Done is done: a third run starts and checks nothing.
        let again = drive(&[]);
        assert_eq!((again["tests"].as_u64(), again["checks"].as_u64()), (Some(0), Some(0)), "{again}");
        assert_eq!(again["map"]["openings"], done["map"]["openings"]);
    }
}

#[test]
fn guessed_values_are_tested_first_two_tests_a_turn_when_right() {
    let tmp = tempfile::tempdir().unwrap();
    let (proofs, stem, guesses) = (tmp.path().join("proofs"), tmp.path().join("o"), tmp.path().join("guesses.csv"));
    let exact = solved_openings("4x3", "standard");
    let rows: Vec<String> = exact.iter().map(|(turn, value)| format!("{},{value}", turn.trim_matches('"'))).collect();
    std::fs::write(&guesses, format!("# the solver's values\nopening,value\n{}\n", rows.join("\n"))).unwrap();
    let args = ["proof", "openings", "4x3", "--proofs", proofs.to_str().unwrap(), "--out", stem.to_str().unwrap()];
    let search = ["--no-db", "--threads", "1", "--table-mb", "16", "--task-nodes", "2000", "--json"];
    let done = json_of(&kalah(&[&args[..], &search, &["--guesses", guesses.to_str().unwrap()]].concat()));
    // Each turn: ">= its value" proven, ">= its value + 2" refuted.
    assert_eq!(done["tests"].as_u64(), Some(2 * exact.len() as u64), "{done}");
    for (turn, value) in &exact {
        let name = format!(
            "standard-4x3-turn-{}-ge-{}",
            turn.trim_matches('"').replace(' ', "-"),
            if *value < 0 { format!("m{}", -value) } else { value.to_string() }
        );
        assert!(proofs.join(&name).is_dir(), "{name}");
    }
    // A guesses file that is not one is bad input.
    std::fs::write(&guesses, "move,value\n").unwrap();
    let out = kalah(&[&args[..], &search, &["--guesses", guesses.to_str().unwrap()]].concat());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn runs_given_different_turns_narrow_those_beside_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let (proofs, stem) = (tmp.path().join("proofs"), tmp.path().join("openings-4x3"));
    let exact = solved_openings("4x3", "standard");
    let name = |turn: &str| turn.trim_matches('"').to_string();
    let (first, last) = (name(&exact[0].0), name(&exact[exact.len() - 1].0));
    let drive = |turn: &str| {
        let args = ["proof", "openings", "4x3", "--proofs", proofs.to_str().unwrap(), "--out", stem.to_str().unwrap()];
        let search = ["--no-db", "--threads", "1", "--table-mb", "16", "--task-nodes", "2000", "--json"];
        kalah(&[&args[..], &search, &["--turn", turn]].concat())
    };
    // Two runs at once, as on two machines sharing the proofs: each narrows its own turn.
    let (one, other) = std::thread::scope(|scope| {
        let one = scope.spawn(|| drive(&first));
        let other = scope.spawn(|| drive(&last));
        (json_of(&one.join().unwrap()), json_of(&other.join().unwrap()))
    });
    assert!(one["tests"].as_u64().unwrap() >= 1 && other["tests"].as_u64().unwrap() >= 1, "{one} {other}");
    // The map both wrote holds both turns exact (whichever wrote last saw the other's proofs),
    // and no other turn was tested.
    let text = std::fs::read_to_string(stem.with_extension("jsonl")).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let map: Value = serde_json::from_str(&text).unwrap();
    for (opening, (turn, value)) in map["openings"].as_array().unwrap().iter().zip(&exact) {
        let turn = name(turn);
        let expected = (turn == first || turn == last).then_some(*value);
        assert_eq!(opening["value"].as_i64(), expected, "{turn}: {opening}");
    }
    for entry in std::fs::read_dir(&proofs).unwrap() {
        let dir = entry.unwrap().file_name().to_string_lossy().to_string();
        let of = |turn: &str| dir.starts_with(&format!("standard-4x3-turn-{}-ge-", turn.replace(' ', "-")));
        assert!(of(&first) || of(&last), "{dir}");
    }
    // Asked again, a run finds its turn done: no test, no check.
    let again = json_of(&drive(&first));
    assert_eq!((again["tests"].as_u64(), again["checks"].as_u64()), (Some(0), Some(0)), "{again}");
    // A turn the start does not have is bad input, named.
    let out = drive("1 1");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--turn 1 1: not a first turn of 4x3"), "{err}");
}

/// A proof whose log cannot be read stops `proof map` and `proof index` with nothing written
/// (issue 77: a damaged log used to give a weaker map and exit 0); `--keep-going` maps the rest.
#[test]
fn a_proof_that_cannot_be_read_stops_the_map_and_the_index() {
    let root = tempfile::tempdir().unwrap();
    let proofs = root.path().join("proofs");
    let (from, to) =
        (Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/proofs/discard-6x6-ge-3"), proofs.join("ge-3"));
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
    let log = to.join("log.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"kind\"", "\"kind\" damaged", 1)).unwrap();
    let (stem, index) = (root.path().join("map"), root.path().join("index.jsonl"));
    let (proofs, stem_text, index_text) = (proofs.to_str().unwrap(), stem.to_str().unwrap(), index.to_str().unwrap());
    let map = ["proof", "map", "6x6", "--rules", "standard remaining=discard", "--proofs", proofs, "--out", stem_text];
    let refused = kalah(&map);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("ge-3: cannot be read"), "{stderr}");
    assert!(!root.path().join("map.jsonl").exists(), "nothing written");
    let refused = kalah(&["proof", "index", "--proofs", proofs, "--out", index_text]);
    assert!(!refused.status.success() && !index.exists());
    let kept_going = json_of(&kalah(&[&map[..], &["--keep-going", "--json"]].concat()));
    assert!(kept_going["not_counted"][0]["why"].as_str().unwrap().starts_with("cannot be read"), "{kept_going}");
    assert!(root.path().join("map.jsonl").exists());
}

/// A check transcript counts only for the logs it checked (their digest), and a leaf settled by
/// another proof's bound only where that proof bears it out (issue 77, case 7).
#[test]
fn a_transcript_counts_for_its_own_logs_and_a_shared_leaf_for_the_proof_it_names() {
    let tmp = tempfile::tempdir().unwrap();
    let proofs = tmp.path().join("proofs");
    proven_4x4(&proofs.join("ge-2"), ">= 2", true);
    let (proofs_arg, stem) = (proofs.to_str().unwrap(), tmp.path().join("map"));
    let map =
        || json_of(&kalah(&["proof", "map", "4x4", "--proofs", proofs_arg, "--out", stem.to_str().unwrap(), "--json"]));
    assert_eq!(map()["map"]["lower"], 2);
    // The log changed under its transcript (a leaf's seconds; the tree the same): not counted.
    let log = proofs.join("ge-2/log.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"seconds\":", "\"seconds\":1", 1)).unwrap();
    let out = map();
    assert!(out["not_counted"][0]["why"].as_str().unwrap().contains("of these logs"), "{out}");
    assert_ne!(out["map"]["lower"], 2, "{out}");
    std::fs::write(&log, &text).unwrap();
    assert_eq!(map()["map"]["lower"], 2);

    // A copy whose first leaf searched says another proof settled it: checked where the proof it
    // names (found beside it by name) settles that leaf so, refused where it does not.
    let copy = proofs.join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(proofs.join("ge-2/proof.toml"), copy.join("proof.toml")).unwrap();
    let check = || kalah(&["proof", "check", copy.to_str().unwrap(), "--no-db", "--sample", "0"]);
    for (from, problem) in [("elsewhere/ge-2", None), ("elsewhere/missing", Some("cannot be read"))] {
        let shared = format!("\"by\":\"shared\",\"from\":\"{from}\"");
        std::fs::write(copy.join("log.jsonl"), text.replacen("\"by\":\"search\"", &shared, 1)).unwrap();
        let out = check();
        let stdout = String::from_utf8_lossy(&out.stdout);
        match problem {
            None => assert!(out.status.success(), "{stdout}"),
            Some(problem) => assert!(!out.status.success() && stdout.contains(problem), "{stdout}"),
        }
    }
    // A proof that names another, which settles no such leaf: refused, and the map with it.
    let empty = proofs.join("empty");
    let new = ["proof", "new", empty.to_str().unwrap(), "--start", "4x4", "--claim", ">= 2", "--task-nodes", "2000"];
    assert!(kalah(&new).status.success());
    let shared = "\"by\":\"shared\",\"from\":\"empty\"";
    std::fs::write(copy.join("log.jsonl"), text.replacen("\"by\":\"search\"", shared, 1)).unwrap();
    let out = check();
    assert!(String::from_utf8_lossy(&out.stdout).contains("whose logs do not settle it so"));
    let refused = kalah(&["proof", "map", "4x4", "--proofs", proofs_arg, "--out", stem.to_str().unwrap()]);
    assert!(!refused.status.success(), "{}", String::from_utf8_lossy(&refused.stderr));
}
