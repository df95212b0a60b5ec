//! `kalah run` and `kalah merge` as users and batch systems call them: results, resuming after a
//! kill, shards run side by side and merged, bad job files.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod stopping;

fn kalah(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalah")).args(args).output().expect("the kalah binary runs")
}

fn json_of(output: &Output, args: &[&str]) -> Value {
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// `kalah run JOB --results DIR --json` plus `extra`, without databases (small boards).
fn run(job: &Path, results: &Path, extra: &[&str]) -> Value {
    let (job, results) = (job.to_str().unwrap(), results.to_str().unwrap());
    let mut args = vec!["run", job, "--results", results, "--no-db", "--table-mb", "64", "--threads", "1", "--json"];
    args.extend_from_slice(extra);
    json_of(&kalah(&args), &args)
}

fn write_job(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// What the results answer, without what depends on the order the work was done in: the cost,
/// and for a bound test the openings tried and the bounds beyond the answer.
fn values_of(results: &Value) -> Vec<Value> {
    results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let object = r.as_object_mut().unwrap();
            for cost in ["nodes", "seconds"] {
                object.remove(cost);
            }
            if object["holds"] != Value::Null {
                for detail in ["openings", "lower", "upper"] {
                    object.remove(detail);
                }
            }
            r
        })
        .collect()
}

const SMALL_JOB: &str = r#"
compute = "openings"

[[item]]
start = "4x4"
rules = "standard"

[[item]]
start = "4x4"
rules = "irving"

[[item]]
start = "5x3"
rules = "empty-capture"
compute = "value"

[[item]]
start = "4x3"
rules = "empty-capture"
compute = "value >= 9"

[[item]]
start = "4x3"
rules = "empty-capture"
compute = "value > 7"
"#;

#[test]
fn a_job_gives_the_published_values_and_every_opening_and_a_rerun_redoes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let job = write_job(dir.path(), "small", SMALL_JOB);
    let results = dir.path().join("results");
    let out = run(&job, &results, &[]);
    assert_eq!(out["tasks"], 6 + 6 + 1 + 6 + 6);
    let items = out["results"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    // Published (Irving et al. 2000): standard Kalah(4,4) +2, empty capture (4,4) +2, (5,3) +8,
    // (4,3) +8.
    let values: Vec<&Value> = items.iter().map(|r| &r["value"]).collect();
    assert_eq!(values[..3], [&Value::from(2), &Value::from(2), &Value::from(8)]);
    assert_eq!((&items[3]["holds"], &items[4]["holds"]), (&Value::from(false), &Value::from(true)));
    assert_eq!((&items[3]["upper"], &items[4]["lower"]), (&Value::from(8), &Value::from(8)));

    // Every opening's value is the one `kalah solve` gives.
    for (item, rules) in [(0, "standard"), (1, "irving")] {
        let solved = json_of(&kalah(&["solve", "4x4", "--rules", rules, "--json"]), &["solve"]);
        let expected: Vec<(Value, Value)> =
            solved["openings"].as_array().unwrap().iter().map(|o| (o["move"].clone(), o["value"].clone())).collect();
        let got: Vec<(Value, Value)> = items[item]["openings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["move"].clone(), o["value"].clone()))
            .collect();
        assert_eq!(got, expected, "{rules}");
        assert_eq!(
            items[item]["pie_value"],
            solved["openings"].as_array().unwrap().iter().map(|o| -o["value"].as_i64().unwrap().abs()).max().unwrap()
        );
    }

    let csv = std::fs::read_to_string(results.join("small.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6, "{csv}");
    assert!(lines[0].starts_with("job,item,rules,start,compute,value"), "{csv}");
    assert!(lines[3].starts_with("small,3,empty-capture,5x3,value,8,"), "{csv}");
    let jsonl = std::fs::read_to_string(results.join("small.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 5);

    let again = run(&job, &results, &[]);
    assert_eq!(again["solved_now"], 0);
    assert_eq!(again["settled_before"], out["tasks"]);
    assert_eq!(values_of(&again["results"]), values_of(&out["results"]));
}

#[test]
fn a_later_positions_openings_have_its_movers_value_and_no_pie_value() {
    // Kalah(3,3) after South's 2, North to move: the replies job's kind of item.
    let dir = tempfile::tempdir().unwrap();
    let after = "3 0 4 1 4 3 3 0 N";
    let job = write_job(dir.path(), "replies", &format!("[[item]]\nstart = \"{after}\"\ncompute = \"openings\"\n"));
    let out = run(&job, &dir.path().join("results"), &[]);
    let item = &out["results"][0];
    let solved = json_of(&kalah(&["solve", after, "--json"]), &["solve"]);
    assert_eq!((&item["value"], &item["pie_value"]), (&solved["value"], &Value::Null), "{item}");
    let start = json_of(&kalah(&["solve", "3x3", "--json"]), &["solve"]);
    let two = start["openings"].as_array().unwrap().iter().find(|o| o["move"] == "2").unwrap();
    assert_eq!(item["value"].as_i64(), two["value"].as_i64().map(|v| -v), "North's value is South's 2 negated");
}

#[test]
fn a_killed_run_resumes_and_loses_at_most_the_task_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let job = write_job(dir.path(), "kill", "compute = \"openings\"\nrules = \"irving\"\n[[item]]\nstart = \"4x6\"\n");
    let results = dir.path().join("results");
    let log = results.join("kill.tasks.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(["run", job.to_str().unwrap(), "--results", results.to_str().unwrap(), "--no-db", "--threads", "1"])
        .args(["--table-mb", "64"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL: no chance to clean up) as soon as one opening is settled.
    let exact = |text: &str| {
        text.lines()
            .filter(|l| l.ends_with('}'))
            .filter(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["lower"] == v["upper"]
            })
            .count()
    };
    let clock = Instant::now();
    while exact(&std::fs::read_to_string(&log).unwrap_or_default()) == 0 && clock.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let settled_at_kill = exact(&std::fs::read_to_string(&log).unwrap());
    assert!(settled_at_kill >= 1);

    let resumed = run(&job, &results, &[]);
    assert!(resumed["settled_before"].as_u64().unwrap() >= settled_at_kill as u64, "{resumed}");
    assert_eq!(resumed["settled_before"].as_u64().unwrap() + resumed["solved_now"].as_u64().unwrap(), 4);
    assert!(resumed["solved_now"].as_u64().unwrap() >= 1, "the kill came before the end: {resumed}");

    let fresh = run(&job, &dir.path().join("fresh"), &[]);
    assert_eq!(values_of(&resumed["results"]), values_of(&fresh["results"]));
    assert_eq!(fresh["results"][0]["value"], 0, "published: empty-capture Kalah(4,6) is a draw");
}

#[test]
fn shards_run_side_by_side_merge_to_the_unsharded_results() {
    let dir = tempfile::tempdir().unwrap();
    let job = write_job(dir.path(), "small", SMALL_JOB);
    let (sharded, whole) = (dir.path().join("sharded"), dir.path().join("whole"));
    let bin = env!("CARGO_BIN_EXE_kalah");
    let shard_args = |i: usize| {
        let job = job.to_str().unwrap().to_string();
        let results = sharded.to_str().unwrap().to_string();
        vec!["run".into(), job, "--shard".into(), format!("{i}/3"), "--results".into(), results]
            .into_iter()
            .chain(["--no-db", "--table-mb", "64", "--threads", "1"].map(String::from))
            .collect::<Vec<String>>()
    };

    // Merging before every shard has run names the items still open and fails.
    assert!(kalah(&shard_args(1).iter().map(String::as_str).collect::<Vec<_>>()).status.success());
    let early = kalah(&["merge", job.to_str().unwrap(), "--results", sharded.to_str().unwrap()]);
    assert_eq!(early.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&early.stderr).contains("are not settled yet"));

    // The other shards side by side, as GNU parallel runs them (or as plain processes where
    // parallel is not installed).
    let has_parallel = Command::new("parallel").arg("--version").output().is_ok_and(|o| o.status.success());
    if has_parallel {
        let status = Command::new("parallel")
            .args(["--halt", "now,fail=1", bin, "run", job.to_str().unwrap(), "--results", sharded.to_str().unwrap()])
            .args(["--no-db", "--table-mb", "64", "--threads", "1", "--shard", "{}/3", ":::", "2", "3"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    } else {
        eprintln!("GNU parallel not installed: running the shards as plain processes");
        let children: Vec<_> =
            (2..=3).map(|i| Command::new(bin).args(shard_args(i)).stdout(Stdio::null()).spawn().unwrap()).collect();
        for mut child in children {
            assert!(child.wait().unwrap().success());
        }
    }
    let merged = json_of(
        &kalah(&["merge", job.to_str().unwrap(), "--results", sharded.to_str().unwrap(), "--json"]),
        &["merge"],
    );
    let logs: Vec<&str> = merged["logs"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    for i in 1..=3 {
        assert!(logs.iter().any(|l| l.ends_with(&format!("small.shard-{i}-of-3.tasks.jsonl"))), "{logs:?}");
    }
    let unsharded = run(&job, &whole, &[]);
    assert_eq!(values_of(&merged["results"]), values_of(&unsharded["results"]));
    for file in ["small.csv", "small.jsonl", "small.tasks.jsonl"] {
        assert!(sharded.join(file).exists(), "{file}");
    }
    // The merged log lets an unsharded run start where the shards stopped, and so does a shard of
    // another count, whose share no log of its own holds.
    let after = run(&job, &sharded, &[]);
    assert_eq!(after["solved_now"], 0);
    let regrouped = run(&job, &sharded, &["--shard", "2/2"]);
    assert_eq!(regrouped["solved_now"], 0, "{regrouped}");
}

#[test]
fn a_task_out_of_time_keeps_its_bounds_and_its_saved_table_for_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let job = write_job(dir.path(), "slow", "[[item]]\nstart = \"5x4\"\nrules = \"irving\"\n");
    let results = dir.path().join("results");
    let (job, results_dir) = (job.to_str().unwrap(), results.to_str().unwrap());
    // The table is saved every 0.06 s; the task gets 0.25 s, far too little (it takes 0.8-0.9 s
    // on one thread of the 2-core development machine, 2026-11-23; Kalah(6,3), used before,
    // had come down to 0.3 s and sometimes settled within the limit).
    let base = ["run", job, "--results", results_dir, "--no-db", "--table-mb", "64", "--threads", "1"];
    let output = kalah(&[&base[..], &["--time-limit", "0.25", "--checkpoint-minutes", "0.001"]].concat());
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("1 tasks not settled within the time limit"), "{err}");
    let csv = std::fs::read_to_string(results.join("slow.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1, "only the header: {csv}");
    assert!(results.join("slow.table").exists(), "the table was saved");

    // The next run goes on from the saved table, settles the task (published: +12) and drops it.
    let output = kalah(&[&base[..], &["--json"]].concat());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("going on from the table saved in"), "{err}");
    let out = json_of(&output, &base);
    assert_eq!(out["results"][0]["value"], 12);
    assert!(!results.join("slow.table").exists());

    // A damaged table is reported and not used.
    std::fs::write(results.join("slow.table"), b"KALAHTT3 but nothing else").unwrap();
    std::fs::remove_file(results.join("slow.tasks.jsonl")).unwrap();
    let output = kalah(&base);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("warning: not using the saved table"));
}

/// SIGTERM to `kalah run` stops the task in flight within moments: its table is saved for the
/// next run, the results are written, and the run exits 1 saying it was interrupted.
#[test]
fn a_signal_stops_a_run_with_its_table_saved() {
    let dir = tempfile::tempdir().unwrap();
    let job = write_job(dir.path(), "long", "[[item]]\nstart = \"6x6\"\nrules = \"irving\"\n");
    let results = dir.path().join("results");
    let (job, results_dir) = (job.to_str().unwrap(), results.to_str().unwrap());
    let args = ["run", job, "--results", results_dir, "--no-db", "--table-mb", "16", "--threads", "1"];
    let args = [&args[..], &["--checkpoint-minutes", "60"]].concat();
    // The results are written once just before the first task's search starts.
    let csv = results.join("long.csv");
    let output = stopping::signalled_once_working(&args, &csv, Duration::from_secs(1), &["-TERM"]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("interrupted: the proven bounds are in the log"), "{err}");
    assert!(results.join("long.table").exists(), "the table was saved");
    assert!(!results.join("long.tasks.jsonl.lock").exists(), "the run left its lock behind");
}

#[test]
fn bad_job_files_and_damaged_logs_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    let results = results.to_str().unwrap();
    let bad = write_job(dir.path(), "bad", "[[item]]\nstart = \"4x4\"\ncompute = \"value >= two\"\n");
    let output = kalah(&["run", bad.to_str().unwrap(), "--results", results]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("bad.toml: item 1: 'value >= two' is not"), "{err}");

    let output = kalah(&["run", dir.path().join("missing.toml").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));

    let output = kalah(&["run", bad.to_str().unwrap(), "--shard", "3/2"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a shard I/N"));

    let good = write_job(dir.path(), "good", "[[item]]\nstart = \"3x3\"\n");
    std::fs::create_dir_all(results).unwrap();
    std::fs::write(Path::new(results).join("good.tasks.jsonl"), "{\"task\": 1}\n").unwrap();
    let output = kalah(&["run", good.to_str().unwrap(), "--results", results]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("good.tasks.jsonl line 1"), "{err}");
}

#[test]
fn a_second_run_on_one_log_or_one_database_is_refused_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir_all(&results).unwrap();
    let job = write_job(dir.path(), "held", "[[item]]\nstart = \"3x3\"\n");
    // This test's own process, holding the run's lock, stands for a run that is still going.
    let me = std::process::id().to_string();
    let held = kalah::lock::FileLock::acquire(results.join("held.tasks.jsonl.lock")).unwrap();
    let output = kalah(&["run", job.to_str().unwrap(), "--results", results.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains(&format!("held.tasks.jsonl.lock is held by process {me}")), "{err}");
    assert!(!results.join("held.csv").exists(), "nothing written");
    // Nor may a merge replace the log such a run appends to.
    std::fs::write(results.join("held.tasks.jsonl"), "").unwrap();
    let output = kalah(&["merge", job.to_str().unwrap(), "--results", results.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stdout));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains(&format!("held.tasks.jsonl.lock is held by process {me}")), "{err}");
    assert!(!results.join("held.csv").exists(), "nothing written");
    drop(held);

    let db = dir.path().join("db");
    std::fs::create_dir_all(db.join("3h-standard")).unwrap();
    let held = kalah::lock::FileLock::acquire(db.join("3h-standard/build.lock")).unwrap();
    let output = kalah(&["build", "--houses", "3", "--max-seeds", "4", "--db", db.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains(&format!("build.lock is held by process {me}")), "{err}");
    assert!(!db.join("3h-standard/layer-0.kdb").exists(), "nothing built");
    drop(held);

    // A lock file left by a killed run (its process gone, the kernel's lock with it) is taken over.
    std::fs::write(db.join("3h-standard/build.lock"), "4294967295").unwrap();
    let output = kalah(&["build", "--houses", "3", "--max-seeds", "4", "--db", db.to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(!db.join("3h-standard/build.lock").exists(), "released");
}

#[test]
fn many_openings_are_summarised_in_text_and_csv_and_listed_in_json() {
    // Swedish relay sowing gives Kalah(4,3) 97 first turns.
    let dir = tempfile::tempdir().unwrap();
    let job =
        write_job(dir.path(), "relay", "[[item]]\nstart = \"4x3\"\nrules = \"swedish\"\ncompute = \"openings\"\n");
    let results = dir.path().join("results");
    let out = run(&job, &results, &[]);
    let openings = out["results"][0]["openings"].as_array().unwrap();
    assert_eq!(openings.len(), 97);
    let csv = std::fs::read_to_string(results.join("relay.csv")).unwrap();
    let row = csv.lines().nth(1).unwrap();
    assert!(row.contains("97 openings by value: +22 x2; +20 x3;"), "{row}");

    // The run's text (all settled now, so it only reports) summarises the same way.
    let (job, results) = (job.to_str().unwrap(), results.to_str().unwrap());
    let text = |extra: &[&str]| {
        let mut args = vec!["run", job, "--results", results, "--no-db", "--threads", "1"];
        args.extend_from_slice(extra);
        let output = kalah(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let summary = text(&[]);
    assert!(summary.contains("openings: 97 openings by value: +22 x2, +20 x3"), "{summary}");
    assert!(summary.contains("--all lists every one"), "{summary}");
    assert!(summary.lines().count() < 8 && summary.len() < 2000, "{summary}");
    let listed = text(&["--all"]);
    let openings_line = listed.lines().find(|l| l.trim_start().starts_with("openings:")).unwrap();
    assert_eq!(openings_line.matches(", ").count(), 96, "{openings_line}");

    let solved = kalah(&["solve", "4x3", "--rules", "swedish", "--no-db"]);
    let text = String::from_utf8(solved.stdout).unwrap();
    assert!(text.contains("97 openings by value for the first player: +22 x2, +20 x3"), "{text}");
    assert!(text.contains("under the pie rule: 0 (fairest: "), "{text}");
    assert!(text.lines().count() < 12, "{text}");
    let listed = kalah(&["solve", "4x3", "--rules", "swedish", "--no-db", "--all"]);
    assert!(String::from_utf8(listed.stdout).unwrap().lines().count() > 97);
}
