//! The driver of exact first-turn values (`kalah proof openings`): each first turn of a start is
//! narrowed, as MTD(f) narrows a value with zero-window tests, by proofs of "this turn is worth at
//! least t" for the first player, each in a directory of its own beside the others, so that they
//! share their settled leaves. A proven test raises the turn's lower bound to t, a refuted one
//! lowers its upper bound below t; the next t is the guess held within what is still open. The
//! plan is the proofs themselves: what is proven (and checked) comes from the map of the checked
//! proofs ([`super::map`]), and a test still open is a proof directory not yet checked, so any
//! session on any machine goes on from the repository alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::check::{CheckReport, LeafSearch, Resample, check, transcript_path};
use super::map::remap;
use super::run::{RunOptions, RunReport, TaskReport, read_proof, work};
use super::shared::SharedBounds;
use super::template::Template;
use super::{Bound, Claim, DEFAULT_TASK_NODES, ProofError, Spec, Tree};
use crate::board::Position;
use crate::moves::{Turn, first_turns};
use crate::results::ItemResult;
use crate::rules::Rules;
use crate::search::Search;

/// What a drive narrows, and how long it may.
pub struct Drive<'a> {
    /// The rules.
    pub rules: Rules,
    /// The start.
    pub start: Position,
    /// The start as the map files and the tests' directories name it (`6x6`).
    pub start_name: &'a str,
    /// Where the proofs are, and where new tests go.
    pub proofs: &'a Path,
    /// The map files' stem (`data/results/openings-6x6`).
    pub stem: &'a Path,
    /// The first turns to narrow (every one when empty).
    pub turns: &'a [Turn],
    /// First guesses of turns' values (say the published table); other turns start from the
    /// search's estimate.
    pub guesses: &'a HashMap<Turn, i32>,
    /// The task budget of every test grown (each test's own `proof.toml` when `None`).
    pub task_nodes: Option<u64>,
    /// When to stop: the test or check in flight is left to go on later.
    pub deadline: Option<Instant>,
    /// Raised from outside (a signal) to stop the same way.
    pub interrupt: Arc<AtomicBool>,
    /// Rules whose decided proofs of the same test (same root and claim, under `proofs`) each
    /// test grows along ([`Template`]): standard rules for BGA, which differ only in when the
    /// game ends.
    pub templates_from: Option<Rules>,
}

/// What a drive tells as it goes.
pub enum DriveEvent<'e> {
    /// A test begun: "first turn `turn` is worth at least `test`", a new proof in `dir`.
    TestBegun {
        /// The first turn.
        turn: &'e Turn,
        /// The bound tested.
        test: i32,
        /// The proof's directory.
        dir: &'e Path,
    },
    /// The test in the first path grows along the decided proof in the second, whose tree has
    /// this many inner nodes ([`Drive::templates_from`]).
    GrowsAlong(&'e Path, &'e Path, usize),
    /// A task of the test being grown is done.
    Task(&'e TaskReport, &'e Tree),
    /// A test's run ended (decided, out of time, or stopped).
    Grown(&'e Path, &'e RunReport),
    /// A decided test's check goes on from the leaves an earlier check searched again.
    CheckResumed(&'e Path, usize),
    /// A leaf of a check searched again: its place among the chosen, their count.
    CheckLeaf(usize, usize, &'e LeafSearch),
    /// A check stopped before its last leaf (its leaves kept), after this many.
    CheckStopped(&'e Path, usize),
    /// A test checked, its transcript written: the report's first line.
    Checked(&'e Path, &'e str),
}

/// What a drive did: the map at its end, tests begun, checks written.
pub struct DriveReport {
    /// The map from every checked proof, as written to the result files.
    pub map: ItemResult,
    /// Tests begun.
    pub tests: usize,
    /// Checks made (transcripts written).
    pub checks: usize,
}

/// What stops a drive.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    /// A proof could not be read, grown or checked.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// The map could not be made (the proofs contradict each other) or written.
    #[error("{0}")]
    Map(String),
    /// A test's open leaves are all other runs' tasks (shards of it still at work).
    #[error("{}: every open leaf is another run's task; run it again once they are done", .0.display())]
    OthersTasks(PathBuf),
    /// A decided test did not check: its transcript says why.
    #[error("{} does not check: see {}", .dir.display(), .transcript.display())]
    NotChecked {
        /// The test's directory.
        dir: PathBuf,
        /// Its check's transcript.
        transcript: PathBuf,
    },
}

/// Narrows the chosen first turns of `drive.start` to their exact values with `search`: maps the
/// checked proofs; for the first chosen turn not yet exact, grows its test still open, checks
/// its test decided (every leaf searched again, the transcript written beside it), or begins
/// its next test; and again, until every chosen turn is exact or the drive must stop. The map
/// is rewritten after each step, so what a drive proves is served at once.
pub fn drive(
    drive: &Drive<'_>,
    search: &mut Search<'_>,
    on_event: &dyn Fn(DriveEvent<'_>),
) -> Result<DriveReport, DriveError> {
    let rules = &drive.rules;
    let turns = first_turns(rules, &drive.start);
    let chosen = |turn: &Turn| drive.turns.is_empty() || drive.turns.contains(turn);
    let stop_asked = || drive.interrupt.load(Ordering::Relaxed) || drive.deadline.is_some_and(|d| Instant::now() >= d);
    let step = value_step(rules);
    let (mut tests, mut checks) = (0, 0);
    let map = loop {
        let (map, not_counted) =
            remap(rules, &drive.start, drive.start_name, (drive.proofs, false), drive.stem).map_err(DriveError::Map)?;
        let open = map.table.openings.iter().zip(&turns).find(|(o, (turn, _))| o.value().is_none() && chosen(turn));
        let Some((opening, (turn, after))) = open else {
            break map;
        };
        if stop_asked() {
            break map;
        }
        // A test of this turn still open (or decided and not yet checked) goes first.
        // (The proofs that do not count yet are those the map just left out: no second walk.)
        let pending = not_counted.into_iter().map(|(dir, _)| dir).find(|dir| {
            Spec::load(dir).is_ok_and(|spec| spec.rules.for_values() == rules.for_values() && spec.root == *after)
        });
        let Some(dir) = pending else {
            let guess = match (drive.guesses.get(turn), search.estimated_value(after, 1 << 16)) {
                (Some(&guess), _) => guess,
                (None, Ok(value)) => -value,
                (None, Err(_)) => opening.bounds().lower.max(0),
            };
            let Some(test) = next_test(opening.bounds().lower, opening.bounds().upper, guess, step) else { break map };
            let dir = test_dir(drive.proofs, rules, drive.start_name, &turn.to_string(), test);
            let task_nodes = drive.task_nodes.unwrap_or(DEFAULT_TASK_NODES);
            let spec = Spec::new(*rules, *after, turn_claim(test), task_nodes)
                .map_err(|message| ProofError::Invalid { path: super::spec_path(&dir), message })?;
            spec.create(&dir)?;
            on_event(DriveEvent::TestBegun { turn, test, dir: &dir });
            tests += 1;
            continue;
        };
        // (The digest before the records: a transcript never names records its check did not see.)
        let logs = super::log::logs_digest(&dir)?;
        let (mut tree, records) = read_proof(Spec::load(&dir)?, &dir)?;
        if tree.proven().is_none() {
            let spec = tree.spec().clone();
            let (shared, _) = SharedBounds::from_proofs(drive.proofs, &spec, &dir);
            let template = match drive.templates_from.and_then(|other| template_for(drive.proofs, &other, &spec)) {
                Some((from, template)) => {
                    on_event(DriveEvent::GrowsAlong(&dir, &from, template.len()));
                    template
                }
                None => Template::none(),
            };
            let run_options = RunOptions {
                deadline: drive.deadline,
                interrupt: Some(drive.interrupt.clone()),
                shared: Arc::new(shared),
                template: Arc::new(template),
                ..RunOptions::with_task_nodes(drive.task_nodes.unwrap_or(spec.task_nodes))
            };
            let report =
                work(&dir, &mut tree, search, &run_options, |task, tree| on_event(DriveEvent::Task(task, tree)))?;
            on_event(DriveEvent::Grown(&dir, &report));
            // Nothing done and nothing decided: its open leaves are other runs' (shards) tasks.
            if report.tasks == 0 && report.proven.is_none() && !stop_asked() {
                return Err(DriveError::OthersTasks(dir));
            }
            continue;
        }
        // Decided by its logs: checked with every leaf searched again, the transcript kept.
        let report = check_decided(drive, search, &dir, (tree.spec(), &records, &logs), on_event)?;
        if report.interrupted {
            // The leaves searched so far are in the progress file: the next run goes on from them.
            on_event(DriveEvent::CheckStopped(&dir, report.sampled));
            break map;
        }
        checks += 1;
    };
    Ok(DriveReport { map, tests, checks })
}

/// The first decided proof under `proofs` of what `spec` claims at its root under the `other`
/// rules whose tree has inner nodes, and that tree as a template.
fn template_for(proofs: &Path, other: &Rules, spec: &Spec) -> Option<(PathBuf, Template)> {
    super::proof_dirs(proofs).into_iter().find_map(|dir| {
        let found = Spec::load(&dir).ok().filter(|found| found.rules == *other)?;
        // A proof of another root or claim is no template: `from_loaded_proof` says so before
        // it reads any log.
        let template = Template::from_loaded_proof(&dir, &found, spec).ok().filter(|t| !t.is_empty())?;
        Some((dir, template))
    })
}

/// Checks the decided test in `dir` (`spec`, its logs' `records` and their digest `logs`) with
/// every leaf searched again by `search` (going on from those an earlier, stopped check kept),
/// and writes its transcript beside it; a check the deadline or a signal stopped is returned
/// [`CheckReport::interrupted`], its transcript not written.
fn check_decided(
    drive: &Drive<'_>,
    search: &mut Search<'_>,
    dir: &Path,
    (spec, records, logs): (&Spec, &[super::Record], &str),
    on_event: &dyn Fn(DriveEvent<'_>),
) -> Result<CheckReport, DriveError> {
    let seed = super::check::clock_seed();
    // The check stops at the deadline too, its leaves kept: the next run goes on from them.
    search.set_deadline(drive.deadline);
    let mut resample = Resample::new(search, usize::MAX, seed);
    let earlier =
        resample.keep_progress(dir, true, |place, count, leaf| on_event(DriveEvent::CheckLeaf(place, count, leaf)))?;
    if earlier > 0 {
        on_event(DriveEvent::CheckResumed(dir, earlier));
    }
    resample.interrupt = Some(drive.interrupt.clone());
    let mut report = check(spec, records, Some(resample))?;
    report.problems.extend(super::shared::disagreeing_shared_leaves(dir, spec, records));
    if report.interrupted {
        return Ok(report);
    }
    let transcript = transcript_path(dir);
    crate::atomic::write_bytes(&transcript, report.transcript(spec, seed, logs).as_bytes())
        .map_err(|source| ProofError::Io { path: transcript.clone(), source })?;
    if !(report.passed() || report.refutation_passed()) {
        return Err(DriveError::NotChecked { dir: dir.to_path_buf(), transcript });
    }
    on_event(DriveEvent::Checked(dir, &report.heading(spec).0));
    Ok(report)
}

/// The test to prove next about a first turn whose value is known to lie in `lower..=upper`,
/// starting from `guess`: "worth at least t", with t in `lower + step..=upper` (`step` 2 where
/// every value has the seeds' parity and the bounds have it, else 1). `None` once exact.
pub fn next_test(lower: i32, upper: i32, guess: i32, step: i32) -> Option<i32> {
    if lower >= upper {
        return None;
    }
    let mut test = guess.clamp(lower + step, upper);
    if (test - lower) % step != 0 {
        test += 1;
    }
    Some(test.min(upper))
}

/// The claim at `after`, the position a first turn leaves (the other side to move), that proves
/// the turn worth at least `test` for the side that played it.
pub fn turn_claim(test: i32) -> Claim {
    Claim { bound: Bound::AtMost, value: -test }
}

/// The directory of the test "first turn `turn` of `start_name` is worth at least `test`" under
/// `proofs`, e.g. `standard-6x6-turn-1-3-ge-4` (`ge-m2` for -2).
pub fn test_dir(proofs: &Path, rules: &Rules, start_name: &str, turn: &str, test: i32) -> PathBuf {
    let slug = |text: &str| -> String {
        let words: Vec<String> =
            text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect();
        words.join("-")
    };
    let bound = if test < 0 { format!("m{}", -test) } else { test.to_string() };
    proofs.join(format!("{}-{}-turn-{}-ge-{bound}", slug(&rules.to_string()), slug(start_name), slug(turn)))
}

/// The step between the values a game under `rules` can have: 2 where every value has the
/// seeds' parity, else 1.
pub fn value_step(rules: &Rules) -> i32 {
    if rules.values_share_parity() { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::search::SearchOptions;

    /// A drive of Kalah(4,2) with tiny tasks ends with every first turn's value the search's,
    /// each test it began checked (its transcript beside it); a second drive finds nothing to do.
    #[test]
    fn a_drive_makes_every_first_turn_exact_and_checks_each_test() {
        let tmp = tempfile::tempdir().unwrap();
        let (proofs, stem) = (tmp.path().join("proofs"), tmp.path().join("openings"));
        let start = Position::start(4, 2).unwrap();
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
        let guesses = HashMap::new();
        let drive_once = |search: &mut Search<'_>| {
            let drive = Drive {
                rules: Rules::STANDARD,
                start,
                start_name: "4x2",
                proofs: &proofs,
                stem: &stem,
                turns: &[],
                guesses: &guesses,
                task_nodes: Some(500),
                deadline: None,
                interrupt: Arc::new(AtomicBool::new(false)),
                templates_from: None,
            };
            let (begun, checked) = (RefCell::new(Vec::new()), RefCell::new(Vec::new()));
            let report = super::drive(&drive, search, &|event| match event {
                DriveEvent::TestBegun { dir, .. } => begun.borrow_mut().push(dir.to_path_buf()),
                DriveEvent::Checked(dir, _) => checked.borrow_mut().push(dir.to_path_buf()),
                _ => {}
            })
            .unwrap();
            (report, begun.into_inner(), checked.into_inner())
        };
        let (report, begun, checked) = drive_once(&mut search);
        assert!(!begun.is_empty());
        assert_eq!((report.tests, report.checks), (begun.len(), checked.len()));
        assert_eq!(begun, checked, "each test begun is checked, in order");
        for dir in &checked {
            assert!(transcript_path(dir).is_file(), "{}", dir.display());
        }
        for (opening, (turn, after)) in report.map.table.openings.iter().zip(first_turns(&Rules::STANDARD, &start)) {
            assert_eq!(opening.turn, turn);
            assert_eq!(opening.value(), Some(-search.value(&after).unwrap()), "turn {turn}");
        }
        let (again, begun, _) = drive_once(&mut search);
        assert_eq!((again.tests, again.checks, begun.len()), (0, 0, 0));
        assert_eq!(again.map.table.openings.len(), report.map.table.openings.len());
    }

    /// A BGA drive of Kalah(4,3) after a standard one grows each test that standard rules
    /// decided too along that proof, and still ends with BGA's own values.
    #[test]
    fn a_drive_grows_its_tests_along_the_same_tests_under_other_rules() {
        let tmp = tempfile::tempdir().unwrap();
        let (proofs, stem) = (tmp.path().join("proofs"), tmp.path().join("openings"));
        let start = Position::start(4, 3).unwrap();
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let guesses = HashMap::new();
        let mut along = Vec::new();
        for (rules, templates_from) in [(Rules::STANDARD, None), (Rules::BGA, Some(Rules::STANDARD))] {
            let mut search = Search::new(rules, None, &options).unwrap();
            let drive = Drive {
                rules,
                start,
                start_name: "4x3",
                proofs: &proofs,
                stem: &stem,
                turns: &[],
                guesses: &guesses,
                task_nodes: Some(300),
                deadline: None,
                interrupt: Arc::new(AtomicBool::new(false)),
                templates_from,
            };
            let grown = RefCell::new(Vec::new());
            let report = super::drive(&drive, &mut search, &|event| {
                if let DriveEvent::GrowsAlong(dir, from, inner) = event {
                    grown.borrow_mut().push((dir.to_path_buf(), from.to_path_buf(), inner));
                }
            })
            .unwrap();
            for (opening, (turn, after)) in report.map.table.openings.iter().zip(first_turns(&rules, &start)) {
                assert_eq!(opening.value(), Some(-search.value(&after).unwrap()), "{rules}: turn {turn}");
            }
            along.push(grown.into_inner());
        }
        assert!(along[0].is_empty(), "no templates asked for");
        assert!(!along[1].is_empty(), "BGA's tests grew along standard ones");
        for (dir, from, inner) in &along[1] {
            let name = dir.file_name().unwrap().to_str().unwrap();
            let expected = name.replacen("bga-", "standard-", 1);
            assert_eq!(from.file_name().unwrap().to_str().unwrap(), expected);
            assert!(*inner > 0);
        }
    }

    #[test]
    fn tests_narrow_from_the_guess_within_what_is_open() {
        // Nothing known, values even: the guess first.
        assert_eq!(next_test(-36, 36, 4, 2), Some(4));
        // Proven >= 4: the next test is one value up; refuted, one down.
        assert_eq!(next_test(4, 36, 4, 2), Some(6));
        assert_eq!(next_test(-36, 2, 4, 2), Some(2));
        // An odd guess between even bounds is rounded up to a value there can be.
        assert_eq!(next_test(-36, 36, 3, 2), Some(4));
        assert_eq!(next_test(-5, 5, 3, 1), Some(3));
        // Exact: nothing to test.
        assert_eq!(next_test(2, 2, 2, 2), None);
        assert_eq!(turn_claim(4).to_string(), "<= -4");
        let dir = test_dir(Path::new("p"), &Rules::STANDARD, "6x6", "1 3", -2);
        assert_eq!(dir, Path::new("p/standard-6x6-turn-1-3-ge-m2"));
    }
}
