//! Proofs grown from tiny tasks on boards whose values the reference solver knows: true claims
//! end proven and checked, false ones refuted and the refutation checked; killed runs resume, shards merge, and the check
//! fails on tampered logs.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use kalah::proof::log::read_records;
use kalah::proof::log::{Record, log_path, logs_in};
use kalah::proof::run::Stop;
use kalah::proof::{self, Claim, Resample, RunOptions, RunReport, Spec, Tree};
use kalah::search::table::TableKey;
use kalah::search::{Search, SearchOptions};
use kalah::shard::Shard;
use kalah::{Position, Rules, Solver};

fn search(rules: Rules) -> Search<'static> {
    Search::new(rules, None, &SearchOptions { table_bytes: 1 << 22, deadline: None, threads: 1 }).unwrap()
}

/// A proof of `claim` at `root` in `dir`, with tasks of `task_nodes` nodes.
fn new_proof(dir: &Path, rules: Rules, root: Position, claim: &str, task_nodes: u64) -> Spec {
    let spec = Spec::new(rules, root, claim.parse::<Claim>().unwrap(), task_nodes).unwrap();
    spec.create(dir).unwrap();
    spec
}

/// A proof in `dir` of a true claim, standard Kalah(4,4) `>=` its value, with 3,000-node tasks
/// (so that it has several leaves).
fn true_4x4_proof(dir: &Path) -> Spec {
    let root = Position::start(4, 4).unwrap();
    let value = Solver::new(Rules::STANDARD).unwrap().value(&root);
    new_proof(dir, Rules::STANDARD, root, &format!(">= {value}"), 3_000)
}

/// The proof in `dir` as its logs leave it.
fn load(dir: &Path) -> Tree {
    proof::read_proof(Spec::load(dir).unwrap(), dir).unwrap().0
}

/// Runs the proof in `dir` (one shard, at most `max_tasks` tasks).
fn run(dir: &Path, shard: Option<Shard>, max_tasks: Option<usize>) -> RunReport {
    let mut tree = load(dir);
    let spec = tree.spec().clone();
    let options =
        RunOptions { shard, max_tasks, idle_wait: Duration::ZERO, ..RunOptions::with_task_nodes(spec.task_nodes) };
    proof::work(dir, &mut tree, &mut search(spec.rules), &options, |_, _| {}).unwrap()
}

fn records(dir: &Path) -> Vec<Record> {
    read_records(dir).unwrap()
}

/// Checks the proof in `dir`, searching every leaf again.
fn check(dir: &Path) -> proof::CheckReport {
    let spec = Spec::load(dir).unwrap();
    proof::check(&spec, &records(dir), Some(Resample::new(&mut search(spec.rules), usize::MAX, 7))).unwrap()
}

fn rewrite_log(dir: &Path, records: &[Record]) {
    let text: String = records.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    std::fs::write(log_path(dir, None), text).unwrap();
}

#[test]
fn true_claims_are_proven_and_checked_false_ones_refuted() {
    // Each board with its task budget and the least expansions that budget must need.
    for (rules, houses, seeds, task_nodes, splits) in
        [(Rules::STANDARD, 4, 4, 3_000, 2), (Rules::EMPTY_CAPTURE, 4, 5, 30_000, 2), (Rules::STANDARD, 3, 6, 3_000, 0)]
    {
        let root = Position::start(houses, seeds).unwrap();
        let value = Solver::new(rules).unwrap().value(&root);
        let cases = [
            (format!(">= {value}"), true),
            (format!("<= {value}"), true),
            (format!(">= {}", value + 1), false),
            (format!("<= {}", value - 1), false),
        ];
        for (claim, expected) in cases {
            let dir = tempfile::tempdir().unwrap();
            new_proof(dir.path(), rules, root, &claim, task_nodes);
            let report = run(dir.path(), None, None);
            let what = format!("{rules} Kalah({houses},{seeds}) value {claim}");
            assert_eq!(report.stop, Stop::Decided, "{what}");
            assert_eq!(report.proven, Some(expected), "{what}");
            assert!(report.expanded >= splits, "{what}: tiny tasks must split ({} expansions)", report.expanded);
            let checked = check(dir.path());
            assert_eq!(checked.passed(), expected, "{what}: {checked:?}");
            assert!(checked.sampled > 0 && checked.confirmed == checked.sampled, "{what}: {checked:?}");
            let verdict = if expected { proof::Verdict::Proven } else { proof::Verdict::Refuted };
            assert_eq!(checked.verdict, verdict, "{what}");
            assert_eq!(checked.refutation_passed(), !expected, "{what}: {checked:?}");
        }
    }
}

/// A proof grows the same way however many searches the process made before it (tests run side
/// by side make some): before, the salt of the estimates' per-thread cache, which counts the
/// searches, also chose which positions shared a slot, and one empty-capture Kalah(4,5) proof
/// made 2 or 5 expansions by it.
#[test]
fn a_proof_grows_alike_whatever_searches_came_before_it() {
    let root = Position::start(4, 5).unwrap();
    let grown: Vec<(u64, usize, usize)> = (0..5)
        .map(|searches_before| {
            for _ in 0..searches_before {
                search(Rules::EMPTY_CAPTURE);
            }
            let dir = tempfile::tempdir().unwrap();
            new_proof(dir.path(), Rules::EMPTY_CAPTURE, root, ">= 2", 30_000);
            let report = run(dir.path(), None, None);
            (report.nodes, report.tasks, report.expanded)
        })
        .collect();
    assert!(grown.iter().all(|g| *g == grown[0]), "nodes, tasks, expansions: {grown:?}");
}

#[test]
fn the_check_searches_from_an_empty_table_even_in_the_search_that_grew_the_proof() {
    let dir = tempfile::tempdir().unwrap();
    let spec = true_4x4_proof(dir.path());
    let mut tree = load(dir.path());
    let mut grown_by = search(spec.rules);
    let options = RunOptions { idle_wait: Duration::ZERO, ..RunOptions::with_task_nodes(spec.task_nodes) };
    let report = proof::work(dir.path(), &mut tree, &mut grown_by, &options, |_, _| {}).unwrap();
    assert_eq!(report.proven, Some(true));
    // A bound the check itself never looks at: still there, it would show that the table was
    // not emptied and that what the proof's tasks left could answer for its leaves.
    let elsewhere = Position::start(6, 6).unwrap();
    grown_by.table().store(TableKey::of(&elsewhere), 0, 0, 0, 1 << 30);
    assert!(grown_by.table().probe(TableKey::of(&elsewhere)).is_some());
    let checked = proof::check(&spec, &records(dir.path()), Some(Resample::new(&mut grown_by, usize::MAX, 7))).unwrap();
    assert!(checked.passed() && checked.sampled > 0, "{checked:?}");
    assert!(grown_by.table().probe(TableKey::of(&elsewhere)).is_none(), "the table was not emptied");
}

#[test]
fn a_raised_interrupt_stops_the_check_between_leaves_and_it_passes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let spec = true_4x4_proof(dir.path());
    assert_eq!(run(dir.path(), None, None).proven, Some(true));
    let whole = check(dir.path());
    assert!(whole.passed() && !whole.interrupted && whole.sampled >= 2, "{whole:?}");
    // Raised before the check: no leaf is searched.
    let mut searcher = search(spec.rules);
    let mut resample = Resample::new(&mut searcher, usize::MAX, 7);
    resample.interrupt = Some(Arc::new(AtomicBool::new(true)));
    let stopped = proof::check(&spec, &records(dir.path()), Some(resample)).unwrap();
    assert!(stopped.interrupted && stopped.sampled == 0, "{stopped:?}");
    assert!(!stopped.passed() && !stopped.refutation_passed(), "{stopped:?}");
    // Raised once the first leaf is searched (as a signal would be): that leaf is kept, the
    // others are not searched, and the tree, though proven, does not pass.
    let flag = Arc::new(AtomicBool::new(false));
    let mut searcher = search(spec.rules);
    let mut resample = Resample::new(&mut searcher, usize::MAX, 7);
    resample.interrupt = Some(Arc::clone(&flag));
    let kept = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let kept_by_leaf = std::rc::Rc::clone(&kept);
    resample.on_leaf = Box::new(move |_, _, leaf| {
        kept_by_leaf.borrow_mut().push(leaf.position.clone());
        flag.store(true, Ordering::Relaxed);
        Ok(())
    });
    let stopped = proof::check(&spec, &records(dir.path()), Some(resample)).unwrap();
    assert!(stopped.interrupted && stopped.sampled == 1 && stopped.confirmed == 1, "{stopped:?}");
    assert_eq!(stopped.verdict, proof::Verdict::Proven);
    assert!(!stopped.passed(), "{stopped:?}");
    assert_eq!(*kept.borrow(), vec![whole.searched[0].position.clone()]);
    // The leaf's keeping fails (its file cannot be written): the check fails with it, and the
    // flag, raised meanwhile, no longer cancels what the search does after the check.
    let flag = Arc::new(AtomicBool::new(false));
    let mut searcher = search(spec.rules);
    let mut resample = Resample::new(&mut searcher, usize::MAX, 7);
    resample.interrupt = Some(Arc::clone(&flag));
    let raised_by_leaf = Arc::clone(&flag);
    resample.on_leaf = Box::new(move |_, _, _| {
        raised_by_leaf.store(true, Ordering::Relaxed);
        Err(proof::ProofError::Io {
            path: "check-progress.jsonl".into(),
            source: std::io::ErrorKind::StorageFull.into(),
        })
    });
    assert!(proof::check(&spec, &records(dir.path()), Some(resample)).is_err());
    assert!(flag.load(Ordering::Relaxed));
    let board = spec.root.without_stores();
    assert!(searcher.board_value_at_least(&board, 0).is_ok(), "the check left its flag on the search");
}

#[test]
fn a_passed_deadline_stops_the_check_after_the_leaves_searched_before() {
    let dir = tempfile::tempdir().unwrap();
    let spec = true_4x4_proof(dir.path());
    assert_eq!(run(dir.path(), None, None).proven, Some(true));
    let whole = check(dir.path());
    assert!(whole.passed() && whole.sampled >= 2, "{whole:?}");
    // The deadline has passed: the leaf an earlier check searched is taken as it is, no other is
    // searched, and the check passes nothing (the driver's next run goes on from its leaves).
    let mut searcher = search(spec.rules);
    searcher.set_deadline(Some(std::time::Instant::now()));
    let mut resample = Resample::new(&mut searcher, usize::MAX, 7);
    resample.earlier = vec![whole.searched[0].clone()];
    let stopped = proof::check(&spec, &records(dir.path()), Some(resample)).unwrap();
    assert!(stopped.interrupted && stopped.sampled == 1 && stopped.confirmed == 1, "{stopped:?}");
    assert!(stopped.searched[0].earlier, "{stopped:?}");
    assert!(!stopped.passed() && !stopped.refutation_passed(), "{stopped:?}");
    // Without it, the same check goes on past that leaf and passes.
    searcher.set_deadline(None);
    let mut resample = Resample::new(&mut searcher, usize::MAX, 7);
    resample.earlier = vec![whole.searched[0].clone()];
    let finished = proof::check(&spec, &records(dir.path()), Some(resample)).unwrap();
    assert!(finished.passed() && finished.sampled == whole.sampled, "{finished:?}");
}

#[test]
fn a_killed_run_resumes_from_its_log() {
    let dir = tempfile::tempdir().unwrap();
    new_proof(dir.path(), Rules::STANDARD, Position::start(4, 4).unwrap(), ">= 2", 2_000);
    let first = run(dir.path(), None, Some(4));
    assert_eq!((first.stop, first.tasks), (Stop::MaxTasks, 4));
    // A kill in the middle of a line leaves half a record: the next run drops it.
    let log = log_path(dir.path(), None);
    let mut text = std::fs::read_to_string(&log).unwrap();
    let lines_before = text.lines().count();
    text += "{\"kind\":\"settled\",\"posi";
    std::fs::write(&log, text).unwrap();
    let second = run(dir.path(), None, None);
    assert_eq!(second.proven, Some(true));
    let lines: Vec<String> = std::fs::read_to_string(&log).unwrap().lines().map(String::from).collect();
    assert!(lines.len() > lines_before);
    assert!(lines.iter().all(|line| serde_json::from_str::<Record>(line).is_ok()), "every line a record");
    // Nothing done twice: no position settled or expanded by both runs.
    let mut seen = std::collections::HashSet::new();
    for record in records(dir.path()) {
        let kind = matches!(record, Record::Settled(_));
        assert!(seen.insert((kind, record.position().to_string())), "{} twice", record.position());
    }
    assert!(check(dir.path()).passed());
}

#[test]
fn shards_share_the_work_and_merge_into_one_proof() {
    let dir = tempfile::tempdir().unwrap();
    new_proof(dir.path(), Rules::EMPTY_CAPTURE, Position::start(4, 4).unwrap(), ">= 2", 2_000);
    let shards = [Shard { index: 1, count: 2 }, Shard { index: 2, count: 2 }];
    let mut tasks = [0, 0];
    for _ in 0..200 {
        for (i, shard) in shards.iter().enumerate() {
            tasks[i] += run(dir.path(), Some(*shard), Some(2)).tasks;
        }
        if load(dir.path()).proven().is_some() {
            break;
        }
    }
    assert!(tasks[0] > 0 && tasks[1] > 0, "both shards worked: {tasks:?}");
    assert_eq!(logs_in(dir.path()).unwrap().len(), 2);
    let (merged, logs) = proof::log::merge(dir.path()).unwrap();
    assert_eq!(logs.len(), 2);
    assert_eq!(logs_in(dir.path()).unwrap(), vec![log_path(dir.path(), None)], "the shards' logs are taken in");
    assert_eq!(records(dir.path()).len(), merged.settled.len() + merged.expanded.len());
    assert_eq!(load(dir.path()).proven(), Some(true));
    assert!(check(dir.path()).passed());
}

#[test]
fn a_run_leaves_other_runs_tasks_to_them_until_they_go_stale() {
    let dir = tempfile::tempdir().unwrap();
    new_proof(dir.path(), Rules::EMPTY_CAPTURE, Position::start(4, 4).unwrap(), ">= 2", 2_000);
    // Shard 2 noted the root, the only open leaf, as its task, and was killed.
    let shard_2 = log_path(dir.path(), Some(Shard { index: 2, count: 2 }));
    std::fs::write(proof::log::task_note_path(&shard_2), "4 4 4 4 0 4 4 4 4 0 S\n").unwrap();
    let run_beside = |take_over_after| {
        let mut tree = load(dir.path());
        let spec = tree.spec().clone();
        let options = RunOptions {
            shard: Some(Shard { index: 1, count: 2 }),
            idle_wait: Duration::ZERO,
            take_over_after,
            ..RunOptions::with_task_nodes(spec.task_nodes)
        };
        proof::work(dir.path(), &mut tree, &mut search(spec.rules), &options, |_, _| {}).unwrap()
    };
    let waiting = run_beside(Duration::from_secs(3600));
    assert_eq!((waiting.tasks, waiting.stop), (0, proof::run::Stop::NoWork));
    let taking_over = run_beside(Duration::ZERO);
    assert_eq!((taking_over.proven, taking_over.stop), (Some(true), proof::run::Stop::Decided));
    assert!(!proof::log::task_note_path(&taking_over.log).exists(), "a run that ends removes its note");
    assert!(check(dir.path()).passed());
}

#[test]
fn contradicting_logs_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    new_proof(dir.path(), Rules::STANDARD, Position::start(4, 4).unwrap(), ">= 2", 2_000);
    run(dir.path(), None, None);
    let settled = records(dir.path())
        .into_iter()
        .find_map(|r| match r {
            Record::Settled(s) => Some(s),
            _ => None,
        })
        .unwrap();
    let flipped = Record::Settled(proof::Settled { holds: !settled.holds, ..settled });
    let shard_log = log_path(dir.path(), Some(Shard { index: 1, count: 2 }));
    std::fs::write(&shard_log, serde_json::to_string(&flipped).unwrap() + "\n").unwrap();
    let before = std::fs::read(log_path(dir.path(), None)).unwrap();
    assert!(matches!(proof::log::merge(dir.path()), Err(proof::ProofError::Conflict { .. })));
    assert_eq!(std::fs::read(log_path(dir.path(), None)).unwrap(), before, "nothing changed");
    assert!(shard_log.exists());
}

/// A finished proof of standard Kalah(4,4) >= 2 (its value) with many expansions.
fn finished_proof(dir: &Path) -> Vec<Record> {
    new_proof(dir, Rules::STANDARD, Position::start(4, 4).unwrap(), ">= 2", 1_500);
    assert_eq!(run(dir, None, None).proven, Some(true));
    assert!(check(dir).passed());
    records(dir)
}

#[test]
fn the_check_fails_when_a_move_is_missing_from_an_expansion() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = finished_proof(dir.path());
    // Every expansion of a node where North (the other side) moves loses its first turn: each
    // such node must answer for every reply.
    for record in &mut records {
        if let Record::Expanded(e) = record
            && e.position.ends_with('N')
        {
            e.children.remove(0);
        }
    }
    rewrite_log(dir.path(), &records);
    let report = check(dir.path());
    assert!(!report.passed());
    assert!(report.problems.iter().any(|p| p.contains("missing")), "{:?}", report.problems);
}

#[test]
fn the_check_fails_when_a_proven_child_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let records = finished_proof(dir.path());
    // Without the leaves settled by a search the tree proves nothing.
    let kept: Vec<Record> = records.into_iter().filter(|r| !matches!(r, Record::Settled(_))).collect();
    rewrite_log(dir.path(), &kept);
    let report = check(dir.path());
    assert!(!report.complete && !report.passed() && !report.refutation_passed());
    assert_eq!(report.verdict, proof::Verdict::Open);
}

#[test]
fn a_refutation_fails_the_check_when_its_leaves_are_flipped() {
    // Standard Kalah(4,4) has value 2: a claim of >= 4 ends refuted, and the refutation checks.
    let dir = tempfile::tempdir().unwrap();
    new_proof(dir.path(), Rules::STANDARD, Position::start(4, 4).unwrap(), ">= 4", 1_500);
    assert_eq!(run(dir.path(), None, None).proven, Some(false));
    assert!(check(dir.path()).refutation_passed());
    // Every leaf answered the other way: whatever the tree then seems to show, the leaves
    // searched again disagree.
    let mut records = records(dir.path());
    let mut flipped = 0;
    for record in &mut records {
        if let Record::Settled(s) = record {
            s.holds = !s.holds;
            flipped += 1;
        }
    }
    assert!(flipped > 0);
    rewrite_log(dir.path(), &records);
    let report = check(dir.path());
    assert!(!report.passed() && !report.refutation_passed(), "{report:?}");
}

#[test]
fn the_check_fails_when_a_bound_is_changed() {
    // The proof of Kalah(4,4) >= 2 (its value) rewritten to claim >= 4 in every record: the
    // tree then looks like a proof, but what the rules settle or the leaves searched again say
    // otherwise.
    let dir = tempfile::tempdir().unwrap();
    let mut records = finished_proof(dir.path());
    let raise = |claim: &mut String| {
        *claim = match claim.as_str() {
            ">= 2" => ">= 4".to_string(),
            "<= -2" => "<= -4".to_string(),
            other => panic!("unexpected claim {other}"),
        }
    };
    for record in &mut records {
        match record {
            Record::Settled(s) => raise(&mut s.claim),
            Record::Expanded(e) => raise(&mut e.claim),
        }
    }
    rewrite_log(dir.path(), &records);
    let spec_path = proof::spec_path(dir.path());
    let spec = std::fs::read_to_string(&spec_path).unwrap().replace("claim = \">= 2\"", "claim = \">= 4\"");
    std::fs::write(&spec_path, spec).unwrap();
    assert_eq!(Spec::load(dir.path()).unwrap().claim, ">= 4".parse().unwrap());
    let report = check(dir.path());
    assert!(!report.passed(), "{report:?}");
    assert!(!report.complete || report.confirmed < report.sampled, "{report:?}");
    // A record that asks another question than the proof's is refused outright.
    let mut foreign = records.clone();
    if let Some(Record::Settled(s)) = foreign.iter_mut().find(|r| matches!(r, Record::Settled(_))) {
        s.claim = ">= 3".to_string();
    }
    rewrite_log(dir.path(), &foreign);
    let read = proof::read_proof(Spec::load(dir.path()).unwrap(), dir.path());
    assert!(matches!(read, Err(proof::ProofError::Conflict { .. })));
}

#[test]
fn a_log_is_written_by_one_run_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    new_proof(dir.path(), Rules::STANDARD, Position::start(4, 4).unwrap(), ">= 2", 2_000);
    let lock = dir.path().join("log.jsonl.lock");
    // A live process (this one) holds the log: the run and the merge are refused.
    let held = kalah::lock::FileLock::acquire(lock.clone()).unwrap();
    let mut tree = load(dir.path());
    let options = RunOptions::with_task_nodes(2_000);
    let refused = proof::work(dir.path(), &mut tree, &mut search(Rules::STANDARD), &options, |_, _| {});
    assert!(
        matches!(refused, Err(proof::ProofError::Locked(kalah::lock::LockError::Held { pid, .. })) if pid == Some(std::process::id()))
    );
    assert!(matches!(proof::log::merge(dir.path()), Err(proof::ProofError::Locked { .. })));
    assert!(records(dir.path()).is_empty(), "nothing written");
    drop(held);
    // A lock file left by a process that is gone is taken over, and released at the end.
    std::fs::write(&lock, "4000000000").unwrap();
    assert_eq!(run(dir.path(), None, None).proven, Some(true));
    assert!(!lock.exists());
}

#[test]
fn progress_sums_the_logs_hour_by_hour_of_task_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut records = finished_proof(dir.path());
    // 1000 s a record: an hour closes after every 3.6 records.
    for record in &mut records {
        match record {
            Record::Settled(s) => s.seconds = 1000.0,
            Record::Expanded(e) => e.seconds = 1000.0,
        }
    }
    let spec = Spec::load(dir.path()).unwrap();
    let hours = proof::progress(&spec, &records).unwrap();
    let total_hours = records.len() as f64 * 1000.0 / 3600.0;
    // An hour closes with the record that crosses it, and the last record closes one more.
    let crossings = (1..=records.len()).filter(|&i| (i * 1000) / 3600 > ((i - 1) * 1000) / 3600).count();
    let last_crosses = (records.len() * 1000) % 3600 < 1000;
    assert_eq!(hours.len(), crossings + usize::from(!last_crosses));
    assert_eq!(hours.iter().map(|h| h.settled + h.expanded).sum::<usize>(), records.len());
    let nodes: u64 = records.iter().map(|r| r.cost().0).sum();
    assert_eq!(hours.iter().map(|h| h.nodes).sum::<u64>(), nodes);
    assert!(hours.windows(2).all(|w| w[0].task_hours < w[1].task_hours));
    assert!((hours.last().unwrap().task_hours - total_hours).abs() < 1e-9);
    // The first hour leaves the proof open; the last closes it.
    assert!(hours[0].open_leaves > 0 && hours[0].proof_number > 0);
    let last = hours.last().unwrap();
    assert_eq!((last.open_leaves, last.proof_number), (0, 0));
    assert!(proof::progress(&spec, &[]).unwrap().is_empty());
}
