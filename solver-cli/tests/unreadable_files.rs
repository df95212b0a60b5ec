//! Something other than a regular file where the program reads a file (a pipe, a link to
//! `/dev/zero`): refused at once, with a message that names it and a non-zero exit, never a hang
//! or memory filled (issue 77, case 1). A database that is there but cannot be read: an error,
//! never a search without it in silence (case 2). Unix only: pipes are made with `mkfifo`, and
//! what cannot be read is a link to itself (a `chmod 000` stops no test run as root).
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `kalah ARGS`, killed (and the test failed) if it has not ended within 30 s.
fn kalah_in_time(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kalah binary runs");
    let clock = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if clock.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("kalah {args:?} hung on a file that is not a regular file");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn refused(output: &Output, names: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains(names) && stderr.contains("not a regular file"), "{stderr}");
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

fn zero_link(path: &Path) {
    std::os::unix::fs::symlink("/dev/zero", path).unwrap();
}

/// A decided 4x4 proof in `dir`, with a check transcript beside it.
fn proof(dir: &Path) {
    let path = dir.to_str().unwrap();
    let new = ["proof", "new", path, "--start", "4x4", "--claim", ">= 2", "--task-nodes", "3000"];
    assert!(kalah_in_time(&new).status.success());
    let search = ["--no-db", "--threads", "1", "--table-mb", "16"];
    assert!(kalah_in_time(&[&["proof", "run", path][..], &search].concat()).status.success());
    let check = kalah_in_time(&[&["proof", "check", path][..], &search, &["--sample", "1000"]].concat());
    assert!(check.status.success());
    std::fs::write(dir.join("check-test.txt"), &check.stdout).unwrap();
}

#[test]
fn a_proof_log_that_is_a_pipe_or_dev_zero_is_refused_by_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    proof(&dir);
    let path = dir.to_str().unwrap();
    let log = dir.join("log.jsonl");
    for make in [mkfifo as fn(&Path), zero_link] {
        std::fs::remove_file(&log).unwrap();
        make(&log);
        refused(&kalah_in_time(&["proof", "status", path]), "log.jsonl");
        refused(&kalah_in_time(&["proof", "check", path, "--no-db", "--sample", "0"]), "log.jsonl");
        refused(&kalah_in_time(&["proof", "run", path, "--no-db", "--time-limit", "5"]), "log.jsonl");
    }
}

#[test]
fn a_check_transcript_that_is_dev_zero_stops_the_map() {
    let tmp = tempfile::tempdir().unwrap();
    let proofs = tmp.path().join("proofs");
    proof(&proofs.join("ge-2"));
    zero_link(&proofs.join("ge-2/check-zero.txt"));
    let out = tmp.path().join("map");
    let args = ["proof", "map", "4x4", "--proofs", proofs.to_str().unwrap(), "--out", out.to_str().unwrap()];
    refused(&kalah_in_time(&args), "check-zero.txt");
    assert!(!tmp.path().join("map.jsonl").exists(), "nothing written");
}

#[test]
fn a_book_file_or_answer_cache_that_is_not_a_file_stops_the_service_before_it_listens() {
    let tmp = tempfile::tempdir().unwrap();
    let book = tmp.path().join("book");
    std::fs::create_dir(&book).unwrap();
    mkfifo(&book.join("openings-4x4.jsonl"));
    let db = tmp.path().to_str().unwrap();
    let serve = ["serve", "--bind", "127.0.0.1:0", "--db", db];
    refused(&kalah_in_time(&[&serve[..], &["--no-cache", "--book", book.to_str().unwrap()]].concat()), "openings-4x4");
    for (name, make) in [("fifo", mkfifo as fn(&Path)), ("zero", zero_link)] {
        let cache = tmp.path().join(name);
        make(&cache);
        let output = kalah_in_time(&[&serve[..], &["--cache", cache.to_str().unwrap()]].concat());
        refused(&output, name);
        assert_eq!(output.status.code(), Some(2), "bad input");
    }
}

#[test]
fn a_job_file_that_is_a_pipe_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let job = tmp.path().join("job.toml");
    mkfifo(&job);
    let results = tmp.path().join("results");
    refused(
        &kalah_in_time(&["run", job.to_str().unwrap(), "--no-db", "--results", results.to_str().unwrap()]),
        "job.toml",
    );
}

#[test]
fn a_database_that_cannot_be_read_is_an_error_never_searched_without() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let db_text = db.to_str().unwrap();
    let build = kalah_in_time(&["build", "--houses", "4", "--max-seeds", "8", "--db", db_text]);
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
    let position = "2 2 1 1 0 0 1 1 0 0 S";
    let answered = kalah_in_time(&["query", "--db", db_text, position]);
    assert!(String::from_utf8_lossy(&answered.stdout).contains("from the database"));
    // Both the query and `kalah info` fail, naming what cannot be read.
    let both_fail_naming = |name: &str| {
        for args in [vec!["query", "--db", db_text, position], vec!["info", "--db", db_text]] {
            let output = kalah_in_time(&args);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!output.status.success() && stderr.contains(name), "{args:?}: {stderr}");
        }
    };
    let layer = db.join("4h-standard/layer-03.kdb");
    std::fs::remove_file(&layer).unwrap();
    std::os::unix::fs::symlink(&layer, &layer).unwrap();
    both_fail_naming("layer-03.kdb");
    // The database's directory itself.
    let dir = db.join("4h-standard");
    std::fs::remove_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&dir, &dir).unwrap();
    both_fail_naming("4h-standard");
}
