//! Endgame databases: values against the reference solver for every rule set, the index on every
//! layer of a small board, damaged files, and resumed builds.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use kalah::database::Layout;
use kalah::database::builder::{self, BuildOptions, LayerReport, Progress, Silent};
use kalah::database::{Database, DbError, database_dir, layer_path};
use kalah::index::Layer;
use kalah::rules::{Capture, Remaining, Rules};
use kalah::solve::Solver;
use kalah::{Position, parse_position};

mod common;

use common::{Lcg, build_db};

#[test]
fn database_values_equal_the_reference_search_for_every_rule_set() {
    let rule_sets = kalah::rules::RULE_SETS.iter().map(|(_, rules)| *rules).chain([
        Rules { capture: Capture::None, remaining: Remaining::Discard, ..Rules::STANDARD },
        Rules { extra_turn: false, ..Rules::EMPTY_CAPTURE },
    ]);
    let root = tempfile::tempdir().unwrap();
    let mut random = Lcg(2026);
    let mut checked = 0;
    for rules in rule_sets {
        build_db(root.path(), &rules, 6, 12);
        let db = Database::open(root.path(), &rules, 6).unwrap();
        assert_eq!(db.max_seeds(), 12);
        let mut solver = Solver::new(rules).unwrap();
        for _ in 0..800 {
            let seeds = 1 + random.below(12) as usize;
            let layer = db.layer(seeds).unwrap();
            if layer.is_empty() {
                continue;
            }
            let (mut mover, mut opponent) = ([0u8; 6], [0u8; 6]);
            layer.rows(random.below(layer.len()), &mut mover, &mut opponent);
            let position = Position::from_rows(&mover, &opponent);
            assert_eq!(db.board_value(&position).unwrap(), solver.board_value(&position), "{rules}: {position}");
            checked += 1;
        }
    }
    assert!(checked > 5000, "only {checked} positions compared");
}

#[test]
fn every_index_of_every_layer_of_a_small_board_round_trips() {
    for rules in [Rules::STANDARD, Rules::BGA] {
        for seeds in 0..=12 {
            let layer = Layer::new(&rules, 3, seeds);
            let (mut mover, mut opponent) = ([0u8; 3], [0u8; 3]);
            for index in 0..layer.len() {
                layer.rows(index, &mut mover, &mut opponent);
                assert_eq!(layer.index(&mover, &opponent), index);
                let position = Position::from_rows(&mover, &opponent);
                assert_eq!(position.seeds_on_board() as usize, seeds);
                assert!(!position.is_over(&rules), "{rules} {position}: over positions are not stored");
            }
        }
    }
}

#[test]
fn query_answers_include_stores_and_every_move() {
    let root = tempfile::tempdir().unwrap();
    build_db(root.path(), &Rules::STANDARD, 3, 8);
    let db = Database::open(root.path(), &Rules::STANDARD, 3).unwrap();
    let position = parse_position("1 2 3 10 0 1 1 5 S").unwrap();
    let value = db.value(&position).unwrap();
    assert_eq!(value, Solver::new(Rules::STANDARD).unwrap().value(&position));
    let moves = db.move_values(&position).unwrap();
    assert_eq!(moves.len(), 3);
    assert_eq!(moves.iter().map(|&(_, v)| v).max(), Some(value));
    let err = db.board_value(&kalah::Position::start(3, 2).unwrap()).unwrap_err();
    assert!(matches!(err, DbError::BeyondDatabase { seeds: 12, max_seeds: 8 }), "{err}");
}

#[test]
fn batched_probes_equal_single_probes() {
    let root = tempfile::tempdir().unwrap();
    build_db(root.path(), &Rules::BGA, 5, 9);
    let db = Database::open(root.path(), &Rules::BGA, 5).unwrap();
    let mut random = Lcg(7);
    // Random rows of up to 9 seeds in all, over positions included (an empty row).
    let positions: Vec<Position> = (0..1000)
        .map(|_| {
            let mut rows = [0u8; 10];
            for _ in 0..random.below(10) {
                rows[random.below(10) as usize] += 1;
            }
            Position::from_rows(&rows[..5], &rows[5..])
        })
        .collect();
    let mut batched = vec![0; positions.len()];
    db.board_values(&positions, &mut batched).unwrap();
    for (position, value) in positions.iter().zip(batched) {
        assert_eq!(db.board_value(position).unwrap(), value, "{position}");
    }
    let too_big = [Position::start(5, 1).unwrap()];
    assert!(matches!(db.board_values(&too_big, &mut [0]), Err(DbError::BeyondDatabase { seeds: 10, .. })));
}

/// A small database to damage, and the path of one of its layers.
fn damaged_copy(seeds: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    build_db(root.path(), &Rules::STANDARD, 6, 8);
    let path = layer_path(&database_dir(root.path(), &Rules::STANDARD, 6), seeds);
    (root, path)
}

fn probe_eight_seeds(root: &Path) -> Result<i32, DbError> {
    let db = Database::open(root, &Rules::STANDARD, 6)?;
    db.board_value(&parse_position("1 1 1 1 0 0 0 1 1 1 1 0 0 0 S").unwrap())
}

#[test]
fn a_corrupt_payload_is_a_typed_error_on_first_use() {
    let (root, path) = damaged_copy(8);
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    fs::write(&path, bytes).unwrap();
    let err = probe_eight_seeds(root.path()).unwrap_err();
    assert!(matches!(err, DbError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("xxh3-64 checksum mismatch"), "{err}");
    assert!(Database::open(root.path(), &Rules::STANDARD, 6).unwrap().verify_checksums().is_err());
}

#[test]
fn a_pipe_or_a_directory_in_place_of_a_layer_is_refused_at_once() {
    for (name, make) in [("pipe", "mkfifo"), ("directory", "mkdir")] {
        let (root, path) = damaged_copy(8);
        fs::remove_file(&path).unwrap();
        assert!(std::process::Command::new(make).arg(&path).status().unwrap().success(), "{make}");
        // Reading a pipe would wait for a writer for ever: refused before it is opened.
        let err = Database::open(root.path(), &Rules::STANDARD, 6).err().unwrap();
        assert!(matches!(err, DbError::NotAFile { .. }), "{name}: {err}");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let first = layer_path(&database_dir(root.path(), &Rules::STANDARD, 6), 0);
        fs::remove_file(&first).unwrap();
        assert!(std::process::Command::new(make).arg(&first).status().unwrap().success());
        let err = Database::open_dir(&database_dir(root.path(), &Rules::STANDARD, 6)).err().unwrap();
        assert!(matches!(err, DbError::NotAFile { .. }), "{name}: {err}");
    }
}

#[test]
fn a_truncated_file_is_a_typed_error() {
    let (root, path) = damaged_copy(8);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    let err = probe_eight_seeds(root.path()).unwrap_err();
    assert!(matches!(err, DbError::Truncated { .. }), "{err}");
}

#[test]
fn a_wrong_magic_is_a_typed_error() {
    let (root, path) = damaged_copy(8);
    let mut bytes = fs::read(&path).unwrap();
    bytes[..8].copy_from_slice(b"NOTKALAH");
    fs::write(&path, bytes).unwrap();
    assert!(matches!(probe_eight_seeds(root.path()).unwrap_err(), DbError::BadMagic { .. }));
}

#[test]
fn a_layer_built_for_other_rules_is_a_typed_error() {
    let (root, path) = damaged_copy(8);
    build_db(root.path(), &Rules::EMPTY_CAPTURE, 6, 8);
    let other = layer_path(&database_dir(root.path(), &Rules::EMPTY_CAPTURE, 6), 8);
    fs::copy(other, &path).unwrap();
    let err = probe_eight_seeds(root.path()).unwrap_err();
    assert!(matches!(&err, DbError::WrongRules { found, .. } if found == "empty-capture"), "{err}");
}

#[test]
fn a_missing_layer_is_a_typed_error() {
    let (root, path) = damaged_copy(5);
    fs::remove_file(&path).unwrap();
    let err = probe_eight_seeds(root.path()).unwrap_err();
    assert!(matches!(err, DbError::MissingLayer { seeds: 5, .. }), "{err}");
    let nowhere = tempfile::tempdir().unwrap();
    assert!(matches!(probe_eight_seeds(nowhere.path()).unwrap_err(), DbError::NoDatabase { .. }));
}

/// Stops the build after a given layer, as a killed process would (minus the half-written file,
/// which the test leaves behind by hand).
struct StopAfter(usize, AtomicBool);

impl Progress for StopAfter {
    fn layer_finished(&self, report: &LayerReport) {
        if report.seeds == self.0 {
            self.1.store(true, Ordering::Relaxed);
        }
    }

    fn should_stop(&self) -> bool {
        self.1.load(Ordering::Relaxed)
    }
}

#[test]
fn an_interrupted_build_resumes_and_produces_identical_files() {
    let rules = Rules::EMPTY_CAPTURE;
    let fresh = tempfile::tempdir().unwrap();
    build_db(fresh.path(), &rules, 6, 11);

    let resumed = tempfile::tempdir().unwrap();
    let options = BuildOptions {
        max_seeds: 11,
        compress: true,
        reference_moves: false,
        layout: Layout::Packed,
        cyclic: Default::default(),
    };
    let err = builder::build(resumed.path(), &rules, 6, &options, &StopAfter(7, AtomicBool::new(false))).unwrap_err();
    assert!(matches!(err, DbError::Interrupted { last_complete: Some(7) }), "{err}");
    let dir = database_dir(resumed.path(), &rules, 6);
    assert!(!layer_path(&dir, 8).exists());
    // What a process killed while writing layer 8 leaves behind.
    fs::write(dir.join("layer-08.kdb.tmp"), b"half a layer").unwrap();

    let reports = build_db(resumed.path(), &rules, 6, 11);
    assert!(reports.iter().all(|r| r.reused == (r.seeds <= 7)), "{reports:?}");
    for seeds in 0..=11 {
        let a = fs::read(layer_path(&database_dir(fresh.path(), &rules, 6), seeds)).unwrap();
        let b = fs::read(layer_path(&dir, seeds)).unwrap();
        assert!(a == b, "layer {seeds} differs after resuming");
    }
    assert!(!dir.join("layer-08.kdb.tmp").exists(), "the temporary file was replaced");
}

#[test]
fn the_fast_builder_path_writes_the_same_files_as_the_plain_move_generator() {
    use kalah::rules::End;
    let mut combinations = 0;
    for capture in [Capture::Standard, Capture::Empty, Capture::None] {
        for end in [End::EitherEmpty, End::MoverCannotMove] {
            for remaining in [Remaining::Owner, Remaining::Discard] {
                for extra_turn in [true, false] {
                    let rules = Rules { capture, end, remaining, extra_turn, ..Rules::STANDARD };
                    // 3 houses up to 13 seeds: sowings of 7 or more lap that board.
                    for (houses, max_seeds) in [(3, 13), (6, 9), (8, 6)] {
                        let roots = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
                        for (root, reference_moves) in roots.iter().zip([false, true]) {
                            // The fast path reads packed smaller layers, the reference one bytes.
                            let layout = if reference_moves { Layout::Bytes } else { Layout::Packed };
                            let options = BuildOptions {
                                max_seeds,
                                compress: false,
                                reference_moves,
                                layout,
                                cyclic: Default::default(),
                            };
                            builder::build(root.path(), &rules, houses, &options, &Silent).unwrap();
                        }
                        for seeds in 0..=max_seeds {
                            let [fast, plain] = roots.each_ref().map(|root| {
                                fs::read(layer_path(&database_dir(root.path(), &rules, houses), seeds)).unwrap()
                            });
                            assert!(fast == plain, "{rules}, {houses} houses, layer {seeds}: the fast path differs");
                        }
                    }
                    combinations += 1;
                }
            }
        }
    }
    assert_eq!(combinations, 24);
}

#[test]
fn packed_layers_hold_the_same_value_as_byte_layers_for_every_position() {
    use kalah::rules::Direction;
    let discard = Rules { remaining: Remaining::Discard, ..Rules::STANDARD };
    let clockwise = Rules { direction: Direction::Cw, ..Rules::STANDARD };
    // Positions that circle for ever are worth 0: values of any parity.
    let circling = Rules { end: kalah::rules::End::MoverCannotMove, ..clockwise };
    let (mut positions, mut escapes) = (0u64, 0u64);
    let rule_sets = [
        Rules::STANDARD,
        Rules::EMPTY_CAPTURE,
        Rules::BGA,
        Rules::SWEDISH,
        Rules::WETHERELL,
        discard,
        clockwise,
        circling,
    ];
    for rules in rule_sets {
        for (houses, max_seeds) in [(4, 12), (5, 10)] {
            let root = tempfile::tempdir().unwrap();
            build_db(root.path(), &rules, houses, max_seeds);
            let packed = Database::open(root.path(), &rules, houses).unwrap().with_layout(Layout::Packed);
            let bytes = Database::open(root.path(), &rules, houses).unwrap().with_layout(Layout::Bytes);
            packed.verify_checksums().unwrap();
            bytes.verify_checksums().unwrap();
            let (mut mover, mut opponent) = (vec![0u8; houses], vec![0u8; houses]);
            for seeds in 0..=max_seeds {
                let layer = packed.layer(seeds).unwrap().clone();
                for index in 0..layer.len() {
                    layer.rows(index, &mut mover, &mut opponent);
                    let position = Position::from_rows(&mover, &opponent);
                    let (a, b) = (packed.board_value(&position).unwrap(), bytes.board_value(&position).unwrap());
                    assert_eq!(a, b, "{rules}, {houses} houses, {position}");
                }
                positions += layer.len();
            }
            escapes += packed.layer_info().iter().filter_map(|l| l.escapes).sum::<u64>();
            assert!(packed.layer_info().iter().all(|l| l.escapes.is_some()), "every layer was read packed");
            assert!(bytes.layer_info().iter().all(|l| l.escapes.is_none()), "every layer was read as bytes");
        }
    }
    assert!(escapes > 0, "no value of {positions} positions went through the escape list");
}

/// Rewrites layer `path` with every value changed by `forge`, its checksums recomputed: a
/// forgery the checksums cannot see.
fn forge_layer(path: &Path, forge: impl FnOnce(&mut [u8])) {
    use kalah::database::format::{self, Encoding, Header};
    let bytes = fs::read(path).unwrap();
    let (header, start) = Header::decode(path, &bytes).unwrap();
    let mut values = vec![0u8; header.entries as usize];
    match header.encoding {
        Encoding::RawI8 => values.copy_from_slice(&bytes[start..]),
        Encoding::ZstdI8 => format::decode_zstd(&bytes[start..], &mut values).unwrap(),
    }
    forge(&mut values);
    let forged = Header {
        encoding: Encoding::RawI8,
        payload_len: values.len() as u64,
        payload_checksum: format::checksum(&values),
        ..header
    };
    fs::write(path, [forged.encode(), values].concat()).unwrap();
}

#[test]
fn a_forged_value_beyond_the_seeds_is_refused_when_its_layer_is_read() {
    let (root, path) = damaged_copy(8);
    forge_layer(&path, |values| values[values.len() / 2] = 100);
    let err = probe_eight_seeds(root.path()).unwrap_err();
    assert!(err.to_string().contains("a value beyond ±8"), "{err}");
}

#[test]
fn values_that_contradict_each_other_are_an_error_not_a_panic() {
    use kalah::search::{Search, SearchError, SearchOptions};
    let (root, path) = damaged_copy(8);
    // Within range, so the layer loads; but no position of 8 seeds can force +8 everywhere.
    forge_layer(&path, |values| values.fill(8));
    let db = Database::open(root.path(), &Rules::STANDARD, 6).unwrap();
    let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
    let mut search = Search::new(Rules::STANDARD, Some(&db), &options).unwrap();
    let position = parse_position("1 1 1 1 0 0 0 1 1 1 1 0 0 0 S").unwrap();
    let err = search.principal_variation(&position).unwrap_err();
    assert!(matches!(err, SearchError::Inconsistent { .. }), "{err}");
    // `kalah query` and the service: a value none of the moves gives is an error, not an answer.
    let mut search = Search::new(Rules::STANDARD, Some(&db), &options).unwrap();
    let err = kalah::engine::analyse_position(&mut search, &position).unwrap_err();
    assert!(matches!(err, SearchError::Inconsistent { .. }) && err.to_string().contains("verify --full"), "{err}");
}
