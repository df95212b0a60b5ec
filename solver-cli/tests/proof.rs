//! `kalah proof` as a user calls it: new, run, status, check and merge, their JSON and exit codes.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

mod stopping;

fn kalah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah")).args(args).output().expect("the kalah binary runs")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", String::from_utf8_lossy(&output.stdout)))
}

/// `kalah proof SUB DIR` with `extra`, searching without databases on one thread.
fn proof(sub: &str, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["proof", sub, dir.to_str().unwrap()];
    if matches!(sub, "run" | "check") {
        args.extend(["--no-db", "--threads", "1", "--table-mb", "16"]);
    }
    args.extend_from_slice(extra);
    kalah(&args)
}

fn new_4x4(dir: &Path, claim: &str) {
    let out =
        kalah(&["proof", "new", dir.to_str().unwrap(), "--start", "4x4", "--claim", claim, "--task-nodes", "2000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_proof_is_grown_checked_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    new_4x4(&dir, ">= 2");
    let spec = std::fs::read_to_string(dir.join("proof.toml")).unwrap();
    assert!(spec.contains("claim = \">= 2\"") && spec.contains("root = \"4 4 4 4 0 4 4 4 4 0 S\""), "{spec}");

    // One task only: the claim is still open, and the check says so with exit 1.
    let out = proof("run", &dir, &["--max-tasks", "1", "--json"]);
    assert!(out.status.success());
    let run = json_of(&out);
    assert_eq!(run["run"]["tasks"], 1);
    assert_eq!(run["run"]["stop"], "max_tasks");
    assert_eq!(run["status"]["proven"], Value::Null);
    let out = proof("check", &dir, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["passed"], false);

    let out = proof("run", &dir, &["--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = json_of(&out);
    assert_eq!(run["run"]["stop"], "decided");
    assert_eq!(run["status"]["proven"], true);

    let status = json_of(&proof("status", &dir, &["--json"]));
    assert_eq!(status["proven"], true);
    assert_eq!(status["claim"], "value >= 2");
    assert_eq!(status["open_leaves"], 0);
    assert!(status["first_level"].as_array().unwrap().iter().any(|c| c["status"] == "proven"));
    assert!(status["nodes"].as_u64().unwrap() > 0);
    assert!(status["expanded_nodes"].as_u64().unwrap() <= status["nodes"].as_u64().unwrap());
    assert!(status["expanded_unused"].as_u64().unwrap() <= status["expanded"].as_u64().unwrap());
    // A quick proof is less than an hour of task time: one hour of growth, ending proven.
    let progress = status["progress"].as_array().unwrap();
    assert_eq!(progress.len(), 1);
    assert_eq!(
        (progress[0]["open_leaves"].as_u64(), progress[0]["nodes"].as_u64()),
        (Some(0), status["nodes"].as_u64())
    );

    let out = proof("check", &dir, &["--sample", "1000", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let check = json_of(&out);
    assert_eq!(check["passed"], true);
    assert_eq!(check["report"]["sampled"], check["report"]["proof_leaves"]);

    // Each leaf searched again went to the progress file as it ended. `--resume` takes the
    // leaves found there as they are: a forged "not confirmed" makes the check fail with it, and
    // only with it.
    let progress = dir.join("check-progress.jsonl");
    let lines = std::fs::read_to_string(&progress).unwrap();
    let leaves = check["report"]["sampled"].as_u64().unwrap() as usize;
    assert_eq!(lines.lines().count(), leaves, "{lines}");
    let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    let forged = lines.replacen(r#""confirmed":true"#, r#""confirmed":false"#, 1);
    std::fs::write(&progress, &forged).unwrap();
    let out = proof("check", &dir, &["--sample", "1000", "--resume", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let resumed = json_of(&out);
    let searched = resumed["report"]["searched"].as_array().unwrap();
    assert_eq!(searched.iter().filter(|leaf| leaf["earlier"] == true).count(), leaves);
    assert!(searched.iter().any(|leaf| leaf["position"] == first["position"] && leaf["confirmed"] == false));
    assert_eq!(std::fs::read_to_string(&progress).unwrap(), forged, "nothing searched, nothing added");
    let out = proof("check", &dir, &["--sample", "1000", "--json"]);
    assert_eq!(out.status.code(), Some(0), "without --resume every leaf is searched again");
    assert_eq!(std::fs::read_to_string(&progress).unwrap().lines().count(), 2 * leaves);
    // Out of time before the first leaf: exit 1, nothing passed, nothing added, and the way on.
    let out = proof("check", &dir, &["--sample", "1000", "--time-limit", "0.000001"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped after 0 leaves") && err.contains("--resume"), "{err}");
    assert_eq!(std::fs::read_to_string(&progress).unwrap().lines().count(), 2 * leaves);

    let text = String::from_utf8(proof("status", &dir, &[]).stdout).unwrap();
    assert!(text.contains("value >= 2") && text.contains("proven"), "{text}");
    let out = proof("merge", &dir, &["--json"]);
    assert!(out.status.success());
    assert_eq!(json_of(&out)["status"]["proven"], true);
}

#[test]
fn a_refuted_claim_ends_proven_false() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    new_4x4(&dir, "> 2");
    let run = json_of(&proof("run", &dir, &["--json"]));
    assert_eq!(run["status"]["proven"], false);
    // The check confirms the refutation, and still exits 1: the claim does not hold.
    let check = proof("check", &dir, &["--sample", "100", "--json"]);
    assert_eq!(check.status.code(), Some(1));
    let report = json_of(&check);
    assert_eq!((report["passed"].as_bool(), report["refutation_passed"].as_bool()), (Some(false), Some(true)));
    assert_eq!(report["report"]["verdict"], "refuted");
}

#[test]
fn bad_input_is_refused_with_exit_2_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    let dir_text = dir.to_str().unwrap();
    for (claim, start, rules) in [
        ("= 2", "4x4", "standard"),
        (">= x", "4x4", "standard"),
        (">= 2", "4x", "standard"),
        (">= 2", "4x4", "bga pie=on"),
    ] {
        let out = kalah(&["proof", "new", dir_text, "--start", start, "--claim", claim, "--rules", rules]);
        assert_eq!(out.status.code(), Some(2), "{claim} {start} {rules}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!dir.join("proof.toml").exists());
    }
    for sub in ["status", "run", "check"] {
        assert_eq!(proof(sub, &dir, &[]).status.code(), Some(2), "{sub}: no proof there");
    }
    new_4x4(&dir, ">= 2");
    let again = kalah(&["proof", "new", dir_text, "--start", "4x4", "--claim", ">= 0"]);
    assert_eq!(again.status.code(), Some(2), "a proof already lives there");
    assert!(std::fs::read_to_string(dir.join("proof.toml")).unwrap().contains(">= 2"));
    assert_eq!(proof("run", &dir, &["--task-nodes", "0"]).status.code(), Some(2));
    std::fs::write(dir.join("log.jsonl"), "{\"kind\":\"settled\"}\n").unwrap();
    let damaged = proof("status", &dir, &[]);
    assert_eq!(damaged.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&damaged.stderr).contains("log.jsonl line 1"));

    // A root changed under a grown log: the log's records are another proof's.
    std::fs::remove_file(dir.join("log.jsonl")).unwrap();
    assert!(proof("run", &dir, &["--max-tasks", "1"]).status.success());
    let spec = std::fs::read_to_string(dir.join("proof.toml")).unwrap();
    std::fs::write(dir.join("proof.toml"), spec.replace("4 4 4 4 0 4 4 4 4 0 S", "3 5 4 4 0 4 4 4 4 0 S")).unwrap();
    for sub in ["status", "run", "check"] {
        let edited = proof(sub, &dir, &[]);
        assert_eq!(edited.status.code(), Some(1), "{sub}");
        assert!(String::from_utf8_lossy(&edited.stderr).contains("none of this root"), "{sub}");
    }
}

/// SIGTERM or SIGINT to `proof run` stops the task in flight within moments: the run reports
/// that it was interrupted, exits 0 and leaves no lock or task note behind, and a task stopped
/// before half its budget logs nothing. Two signals at once (Ctrl-C that reaches a script and
/// its runs, and the script passing it on) are one request, not a second that exits at once.
#[test]
fn a_signal_stops_a_run_cleanly() {
    for signal in [&["-TERM"][..], &["-INT"], &["-INT", "-TERM"]] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("p");
        let dir_text = dir.to_str().unwrap();
        // A task on Kalah(6,6) without a database that no budget of this test's length ends.
        let args = ["proof", "new", dir_text, "--start", "6x6", "--claim", ">= 2", "--task-nodes", "1000000000000"];
        assert!(kalah(&args).status.success());
        let note = dir.join("log.jsonl.task");
        let args = ["proof", "run", dir_text, "--no-db", "--threads", "1", "--table-mb", "16", "--json"];
        let out = stopping::signalled_once_working(&args, &note, std::time::Duration::ZERO, signal);
        assert!(out.status.success(), "{signal:?}: {}", String::from_utf8_lossy(&out.stderr));
        let report = json_of(&out);
        assert_eq!((&report["run"]["stop"], &report["run"]["tasks"]), (&Value::from("interrupted"), &Value::from(0)));
        assert!(String::from_utf8_lossy(&out.stderr).contains("stopping"));
        assert!(!note.exists() && !dir.join("log.jsonl.lock").exists(), "the run leaves its note and lock behind");
        assert_eq!(std::fs::read_to_string(dir.join("log.jsonl")).unwrap_or_default(), "");
    }
}

/// A proof of Kalah(4,4) >= 0 beside a proven >= 2: the leaves the >= 2 proof settled decide
/// many of its own (a proven >= 2 is a proven >= 0; a refuted <= -2 at the other side's nodes
/// settles <= 0 there), logged as shared with their source, and the check searches them again.
#[test]
fn proofs_beside_each_other_share_their_settled_leaves() {
    let tmp = tempfile::tempdir().unwrap();
    let (stronger, weaker, alone) = (tmp.path().join("ge-2"), tmp.path().join("ge-0"), tmp.path().join("alone/ge-0"));
    new_4x4(&stronger, ">= 2");
    assert_eq!(json_of(&proof("run", &stronger, &["--json"]))["status"]["proven"], true);
    new_4x4(&weaker, ">= 0");
    let shared = json_of(&proof("run", &weaker, &["--json"]));
    assert_eq!(shared["status"]["proven"], true, "{shared}");
    let log = std::fs::read_to_string(weaker.join("log.jsonl")).unwrap();
    let from = stronger.display().to_string();
    let shared_leaves: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|record| record["by"] == "shared")
        .collect();
    assert!(!shared_leaves.is_empty(), "{log}");
    assert!(shared_leaves.iter().all(|r| r["from"] == from.as_str()), "{log}");
    let check = proof("check", &weaker, &["--sample", "100000", "--json"]);
    assert_eq!(json_of(&check)["passed"], true);

    // The same proof with sharing off (and nothing beside it) logs no shared leaf.
    new_4x4(&alone, ">= 0");
    let solo = json_of(&proof("run", &alone, &["--json", "--no-share"]));
    assert_eq!(solo["status"]["proven"], true);
    assert!(!std::fs::read_to_string(alone.join("log.jsonl")).unwrap().contains("shared"));
    eprintln!("nodes with sharing {}, without {}", shared["run"]["nodes"], solo["run"]["nodes"]);
}

/// A closed pipe on stdout or stderr ends a command quietly, never in a panic (`kalah proof run
/// ... 2>&1 | head -1`): the proof is still grown to its end and the exit is a success.
#[test]
fn a_closed_pipe_on_stdout_or_stderr_is_no_panic() {
    let tmp = tempfile::tempdir().unwrap();
    for closed in ["stdout", "stderr"] {
        let dir = tmp.path().join(closed);
        new_4x4(&dir, ">= 2");
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut command = Command::new(env!("CARGO_BIN_EXE_kalah"));
        command.args(["proof", "run", dir.to_str().unwrap(), "--no-db", "--threads", "1", "--table-mb", "16"]);
        let output = match closed {
            "stdout" => command.stdout(writer).output(),
            _ => command.stderr(writer).output(),
        }
        .unwrap();
        let told = String::from_utf8_lossy(if closed == "stdout" { &output.stderr } else { &output.stdout });
        assert_eq!(output.status.code(), Some(0), "{closed} closed: {told}");
        assert!(!told.contains("panicked"), "{told}");
        let status = json_of(&proof("status", &dir, &["--json"]));
        assert_eq!(status["proven"], true, "grown to its end with {closed} closed: {status}");
    }
}

/// `proof run --template`: a BGA proof grows along the standard proof of the same claim and is
/// decided as BGA's value says; a template of another claim, or one still open, is bad input
/// (exit 2), and nothing is logged.
#[test]
fn a_proof_grows_along_a_template_of_the_same_claim_only() {
    let tmp = tempfile::tempdir().unwrap();
    let new = |name: &str, rules: &str, claim: &str| {
        let dir = tmp.path().join(name);
        let out = kalah(&[
            "proof",
            "new",
            dir.to_str().unwrap(),
            "--start",
            "4x4",
            "--rules",
            rules,
            "--claim",
            claim,
            "--task-nodes",
            "2000",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        dir
    };
    let standard = new("standard", "standard", ">= 2");
    let open = new("open", "standard", ">= 2");
    assert!(proof("run", &standard, &["--json"]).status.success());
    let bga = new("bga", "bga", ">= 2");
    for (template, why) in [(&open, "must be decided"), (&new("other", "standard", ">= 0"), "must claim what")] {
        let out = proof("run", &bga, &["--template", template.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains(why), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!bga.join("log.jsonl").exists());
    }
    let out = proof("run", &bga, &["--template", standard.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("growing along") && !told.contains(": 0 inner nodes"), "{told}");
    // Kalah(4,4) is worth +2 under BGA rules too (data/results/table-bga.csv).
    assert_eq!(json_of(&proof("status", &bga, &["--json"]))["proven"], true);
    let out = proof("check", &bga, &["--sample", "100"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}
