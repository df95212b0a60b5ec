//! How every front end (solve, query, table, jobs, proofs, the service) sets up a search: which
//! endgame database serves a rule set and board (the one there is, or the default one, built once
//! when a big board needs it), how much of it fits in memory, when it is read, and how big the
//! transposition table is; and the one analysis of a position they all report. [`kept`] holds
//! what a long-running service keeps between requests.

pub mod answer_cache;
pub mod bench;
pub mod book;
pub mod kept;
mod lines;
pub mod offer;
mod prepared;
pub mod proven_index;

pub use prepared::{Prepared, StartWork, Unanswered};
pub use proven_index::ProvenIndex;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::answer::{
    Bounds, PositionAnswer, Proven, Source, first_turn_moves, moves_best_first, wdl, within_first_turn,
};
use crate::board::Position;
use crate::database::builder::{self, BuildOptions, Progress};
use crate::database::{Database, DbError, Layout};
use crate::rules::Rules;
use crate::search::{Search, SearchError, SearchOptions};

/// Where the databases live, and whether a search may use them.
#[derive(Clone, Debug)]
pub struct Databases {
    /// Their root: one directory per rule set and board size under it.
    pub root: PathBuf,
    /// Whether to use (and build) databases at all.
    pub enabled: bool,
    /// How their layers are held in memory.
    pub layout: Layout,
    /// Memory to leave beside a database for the search's table and the rest of the program:
    /// a database is used up to the layers that fit in what the system has available less this.
    pub keep_free_bytes: u64,
}

/// How a front end's searches are set up: the databases, the table asked for, the threads.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Where the databases are, and whether to use them.
    pub databases: Databases,
    /// The transposition table's size in MiB (`None`: sized to each search by [`table_bytes`]).
    pub table_mb: Option<usize>,
    /// Search threads sharing the table.
    pub threads: usize,
}

impl Setup {
    /// The database for a search from `position` under `rules` (`database_for`).
    pub fn database(
        &self,
        rules: &Rules,
        position: &Position,
        when: Load,
        report: &impl Preparation,
    ) -> Result<Option<Database>, DbError> {
        database_for(&self.databases, rules, position, when, report)
    }

    /// The searches from `position` (the biggest they will see) under `rules`: over the database
    /// `database_for` finds or builds, read `when` asked, with the table asked for or one sized
    /// to them, stopping at `deadline`.
    pub fn prepare(
        &self,
        rules: &Rules,
        position: &Position,
        when: Load,
        deadline: Option<Instant>,
        report: &impl Preparation,
    ) -> Result<Prepared, DbError> {
        let database = self.database(rules, position, when, report)?;
        let options = self.options(rules, position, database.as_ref(), deadline);
        Ok(Prepared::new(*rules, database, options))
    }

    /// The options of a search under `rules` whose biggest position is `root`, over `database`,
    /// stopping at `deadline`.
    pub fn options(
        &self,
        rules: &Rules,
        root: &Position,
        database: Option<&Database>,
        deadline: Option<Instant>,
    ) -> SearchOptions {
        let table_bytes = table_bytes(self.table_mb, rules, root, database);
        SearchOptions { table_bytes, deadline, threads: self.threads }
    }
}

/// When a database is read: all of it before a long search, or each layer when first probed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Every layer now, checksums checked, so that the search never waits for one.
    Now,
    /// Each layer when first probed (a query touches few).
    WhenProbed,
}

/// What the engine tells its caller while it prepares a search; the build's own progress comes
/// through [`Progress`].
pub trait Preparation: Progress {
    /// The default database for `houses` houses up to `max_seeds` seeds is about to be built in
    /// `dir`.
    fn building(&self, _dir: &Path, _houses: usize, _max_seeds: usize) {}
    /// The database for `dir` could not be built (`why`); the search goes on without it.
    fn not_built(&self, _dir: &Path, _why: &DbError) {}
    /// The database in `dir` is used up to `max_seeds` of its `all_seeds` only: the layers above
    /// need more than the `available` bytes of memory the system has less what the search keeps.
    fn limited(&self, _dir: &Path, _max_seeds: usize, _all_seeds: usize, _available: u64) {}
    /// The database in `dir` is being read whole.
    fn loading(&self, _dir: &Path) {}
    /// It has been read.
    fn loaded(&self) {}
}

/// Prepares without reporting anything.
pub struct Quietly;

impl Progress for Quietly {}
impl Preparation for Quietly {}

/// The database a fresh machine builds for boards of `houses` houses: every layer up to the
/// returned seeds (6 houses: 1.25 billion positions, 5 houses: 0.47 billion; a minute or so on two
/// cores). Smaller boards solve fast without one.
pub(crate) fn default_database_seeds(houses: usize) -> Option<usize> {
    match houses {
        6 => Some(24),
        5 => Some(28),
        _ => None,
    }
}

/// The database for a search from `position` under `rules`: the one under the root if there is
/// one, else, when the board is big enough to need one, the default database, built now.
pub(crate) fn database_for(
    databases: &Databases,
    rules: &Rules,
    position: &Position,
    when: Load,
    report: &impl Preparation,
) -> Result<Option<Database>, DbError> {
    let houses = position.houses();
    let load = |db: Database| -> Result<Option<Database>, DbError> {
        let Some(db) = fit_in_memory(db, crate::memory::available_bytes(), databases.keep_free_bytes, report) else {
            return Ok(None);
        };
        if when == Load::Now { read_whole(db, report).map(Some) } else { Ok(Some(db)) }
    };
    let open = || Database::open(&databases.root, rules, houses).map(|db| db.with_layout(databases.layout));
    if !databases.enabled {
        return Ok(None);
    }
    let needed = position.seeds_on_board() as usize;
    match open() {
        // Under cycles a small database is extended below to cover the position: the search
        // through repetitions keeps no line-dependent result, so it pays to avoid it.
        Ok(db) if !rules.has_cycles() || db.max_seeds() >= needed => return load(db),
        // None there: one is built below when it pays. One there that cannot be read is an
        // error, never a search without it in silence.
        Ok(_) | Err(DbError::NoDatabase { .. }) => {}
        Err(err) => return Err(err),
    }
    // The ways to spread the seeds over the houses track what a search without a database costs:
    // 2e9 for Kalah(5,4) (3 s), 1.7e10 for (6,3) (30 s), 1.3e10 for (5,5) (minutes).
    let (seeds, bins) = (f64::from(position.seeds_on_board()), 2.0 * houses as f64);
    let configurations: f64 = (1..bins as u32).map(|i| (seeds + f64::from(i)) / f64::from(i)).product();
    let max_seeds = if rules.has_cycles() {
        // Positions repeat: a covering database answers at once, so build one when that takes
        // seconds (3e7 positions in the top layer: Kalah(4,4)); otherwise search above the
        // database there is.
        if configurations > 3e7 {
            return open().ok().map_or(Ok(None), load);
        }
        needed
    } else {
        match default_database_seeds(houses) {
            Some(seeds) if configurations >= 1e10 => seeds,
            _ => return Ok(None),
        }
    };
    let dir = crate::database::database_dir(&databases.root, rules, houses);
    report.building(&dir, houses, max_seeds);
    let options = BuildOptions {
        max_seeds,
        compress: true,
        reference_moves: false,
        layout: databases.layout,
        cyclic: Default::default(),
    };
    match builder::build(&databases.root, rules, houses, &options, report) {
        Ok(_) => load(open()?),
        // A place the database cannot be written (or is being built by another run) costs
        // time, never the answer: the search does without.
        Err(err @ (DbError::Io { .. } | DbError::Locked(_))) => {
            report.not_built(&dir, &err);
            Ok(None)
        }
        Err(err) => Err(err),
    }
}

/// Memory a search keeps beside its database: its table (`table_mb`, or the largest one a search
/// sizes for itself) and half a GiB for the rest of the program.
pub fn keep_free_bytes(table_mb: Option<usize>) -> u64 {
    let table = table_mb.map_or_else(|| SearchOptions::table_bytes_for(u32::from(u8::MAX), 0), |mib| mib << 20);
    table as u64 + (512 << 20)
}

/// `db` up to the layers that fit in the `available` memory (none known: all of it) less
/// `keep_free`; `None` when not even its first layer does. A database read beside another big
/// process (a proof run holding the same database) must not drive the system out of memory, where
/// the kernel kills the biggest process, often the other one; with fewer layers the search is as
/// exact, only slower.
pub(crate) fn fit_in_memory(
    db: Database,
    available: Option<u64>,
    keep_free: u64,
    report: &impl Preparation,
) -> Option<Database> {
    let Some(available) = available else { return Some(db) };
    let budget = available.saturating_sub(keep_free);
    let seeds = db.seeds_fitting(budget)?;
    if seeds < db.max_seeds() {
        report.limited(db.dir(), seeds, db.max_seeds(), budget);
        return Some(db.limited_to(seeds));
    }
    Some(db)
}

/// Reads every layer of `db` (checksums checked) so that a search never waits for a
/// decompression.
pub fn read_whole(db: Database, report: &impl Preparation) -> Result<Database, DbError> {
    report.loading(db.dir());
    let loaded = db.verify_checksums();
    report.loaded();
    loaded.map(|()| db)
}

/// The table asked for (`table_mb`), or the one sized to a search under `rules` from `root` over
/// `database` (`SearchOptions::table_bytes_for`). Where positions repeat (clockwise sowing),
/// the table is sized as if there were no database: play that sows round without banking keeps
/// the seeds above the database for long, and the search re-searches each test's tree in deeper
/// rounds, so it needs the table of the whole board (clockwise Kalah(4,4) on one thread: no value
/// in 300 s with 16 MiB, 169 M nodes with 64 MiB, 33 M with 256 MiB).
pub fn table_bytes(table_mb: Option<usize>, rules: &Rules, root: &Position, database: Option<&Database>) -> usize {
    match table_mb {
        Some(mib) => mib.max(1) << 20,
        None => sized_table_bytes(rules, root, database.map_or(0, |db| db.max_seeds() as u32)),
    }
}

/// [`table_bytes`] when no size is asked for, over a database of up to `database_seeds` seeds.
fn sized_table_bytes(rules: &Rules, root: &Position, database_seeds: u32) -> usize {
    let database_seeds = if rules.has_cycles() { 0 } else { database_seeds };
    SearchOptions::table_bytes_for(root.seeds_on_board(), database_seeds)
}

/// The exact value of `position` for the side to move and of every legal move, best first:
/// from the rules when the game is over, else from `search` (its database or its search).
pub fn analyse_position(search: &mut Search<'_>, position: &Position) -> Result<PositionAnswer, SearchError> {
    let clock = Instant::now();
    let nodes_before = search.stats().nodes;
    let rules = *search.rules();
    let game_over = position.is_over(&rules);
    let (value, values, source) = if game_over {
        (position.final_margin(&rules), Vec::new(), Source::Rules)
    } else if within_first_turn(&rules, position) {
        // The pie rule's values: what South keeps after each move, its turns' ends searched.
        let source = if search.in_database(position) { Source::Database } else { Source::Search };
        let mut turn_end = |end: &Position| search.value(end).map(|value| Proven::unproven(Bounds::exact(value)));
        let moves = first_turn_moves(&rules, position, &mut turn_end)?;
        let values: Vec<(usize, i32)> =
            moves.iter().map(|(house, known)| (*house, known.value().expect("exact values keep exact"))).collect();
        let value = values.iter().map(|&(_, v)| v).max().expect("a position not over has a legal move");
        (value, values, source)
    } else {
        let source = if search.in_database(position) { Source::Database } else { Source::Search };
        let (value, values) = (search.value(position)?, search.move_values(position)?);
        // The value is the best move's: where it is not, a database was forged or damaged within
        // its checksums, and no answer can be given.
        if values.iter().map(|&(_, v)| v).max() != Some(value) {
            return Err(SearchError::Inconsistent { position: position.to_string() });
        }
        (value, values, source)
    };
    let moves = moves_best_first(&rules, position, &values, value);
    Ok(PositionAnswer {
        value,
        wdl: wdl(value),
        game_over,
        moves,
        source,
        nodes: search.stats().nodes - nodes_before,
        seconds: clock.elapsed().as_secs_f64(),
    })
}

/// Nodes an iteration of each move's estimate in `estimated_moves` may search (the
/// estimate stops after the first iteration that reaches it).
pub const MOVE_ESTIMATE_NODES: u64 = 1 << 16;

/// What to play when no search proved a best move in time: every legal move of `position` (not
/// over) with a cheap estimate of its value for the mover, stores included, best first (of
/// equal ones the lower house). Exact where the game ends or the database answers, else a
/// depth-limited estimate of [`MOVE_ESTIMATE_NODES`] an iteration: it proves nothing. The
/// search's deadline is lifted for it.
pub(crate) fn estimated_moves(search: &mut Search<'_>, position: &Position) -> Result<Vec<(usize, i32)>, SearchError> {
    let rules = *search.rules();
    search.set_deadline(None);
    let mut moves = Vec::new();
    for house in position.legal_moves() {
        let mut child = *position;
        child.play(&rules, house);
        // For the child's side to move, stores included.
        let value = match child.is_over(&rules) {
            true => child.final_margin(&rules),
            false => search.estimated_value(&child, MOVE_ESTIMATE_NODES)?,
        };
        moves.push((house, if child.to_move() == position.to_move() { value } else { -value }));
    }
    moves.sort_by_key(|&(house, value)| (std::cmp::Reverse(value), house));
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Direction;

    fn databases(root: &Path, enabled: bool) -> Databases {
        Databases { root: root.to_path_buf(), enabled, layout: Layout::Auto, keep_free_bytes: 0 }
    }

    /// Where the estimate sees every end, it is every move's exact value, best first.
    #[test]
    fn estimated_moves_are_exact_on_small_boards_and_best_first() {
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            for (houses, seeds) in [(3, 2), (3, 3), (4, 2)] {
                let start = Position::start(houses, seeds).unwrap();
                let mut search = Search::new(rules, None, &options).unwrap();
                let estimated = estimated_moves(&mut search, &start).unwrap();
                let mut exact = search.move_values(&start).unwrap();
                exact.sort_by_key(|&(house, value)| (std::cmp::Reverse(value), house));
                assert_eq!(estimated, exact, "{rules} Kalah({houses},{seeds})");
            }
        }
    }

    #[test]
    fn small_boards_and_disabled_databases_search_without_one() {
        let root = tempfile::tempdir().unwrap();
        let start = Position::start(4, 4).unwrap();
        let found = database_for(&databases(root.path(), true), &Rules::STANDARD, &start, Load::Now, &Quietly).unwrap();
        assert!(found.is_none(), "Kalah(4,4) solves fast without a database: none is built");
        let big = Position::start(6, 6).unwrap();
        let found = database_for(&databases(root.path(), false), &Rules::STANDARD, &big, Load::Now, &Quietly).unwrap();
        assert!(found.is_none(), "disabled: none opened, none built");
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0, "nothing written");
    }

    #[test]
    fn positions_that_repeat_get_a_database_covering_them() {
        let root = tempfile::tempdir().unwrap();
        let rules = Rules { direction: Direction::Cw, ..Rules::STANDARD };
        let start = Position::start(2, 2).unwrap();
        let db = database_for(&databases(root.path(), true), &rules, &start, Load::WhenProbed, &Quietly).unwrap();
        let db = db.expect("a covering database is built");
        assert_eq!(db.max_seeds(), 8);
        // Opened again, not built again.
        let again = database_for(&databases(root.path(), true), &rules, &start, Load::Now, &Quietly).unwrap();
        assert_eq!(again.map(|db| db.max_seeds()), Some(8));
        // Where nothing can be written, the search does without.
        let file = root.path().join("a-file");
        std::fs::write(&file, "").unwrap();
        let none = database_for(&databases(&file, true), &rules, &start, Load::Now, &Quietly).unwrap();
        assert!(none.is_none(), "no database, no error");
    }

    /// Records what `limited` was told.
    #[derive(Default)]
    struct Limits(std::sync::Mutex<Vec<(usize, usize, u64)>>);

    impl Progress for Limits {}
    impl Preparation for Limits {
        fn limited(&self, _dir: &Path, max_seeds: usize, all_seeds: usize, available: u64) {
            self.0.lock().unwrap().push((max_seeds, all_seeds, available));
        }
    }

    #[test]
    fn a_database_is_used_up_to_the_layers_that_fit_in_the_memory_available() {
        let root = tempfile::tempdir().unwrap();
        let rules = Rules { direction: Direction::Cw, ..Rules::STANDARD };
        let start = Position::start(2, 2).unwrap();
        let open = || database_for(&databases(root.path(), true), &rules, &start, Load::WhenProbed, &Quietly);
        let db = open().unwrap().expect("a covering database is built");
        let layout = db.layout();
        // What layers 0..=s will take once read.
        let needs: Vec<u64> = db
            .layer_info()
            .iter()
            .scan(0, |sum, layer| {
                *sum += layout.memory_estimate(layer.entries);
                Some(*sum)
            })
            .collect();
        assert_eq!(needs.len(), 9);
        assert!(needs[4] < needs[5] && needs[5] < needs[8], "{needs:?}");
        let keep = 1000;
        let limits = Limits::default();
        let fit = |available: Option<u64>| fit_in_memory(open().unwrap().unwrap(), available, keep, &limits);
        assert_eq!(fit(None).map(|db| db.max_seeds()), Some(8), "memory unknown: all of it");
        assert_eq!(fit(Some(needs[8] + keep)).map(|db| db.max_seeds()), Some(8));
        assert!(limits.0.lock().unwrap().is_empty(), "nothing limited yet");
        assert_eq!(fit(Some(needs[5] + keep)).map(|db| db.max_seeds()), Some(5));
        assert_eq!(fit(Some(needs[5] + keep - 1)).map(|db| db.max_seeds()), Some(4));
        assert_eq!(*limits.0.lock().unwrap(), [(5, 8, needs[5]), (4, 8, needs[5] - 1)]);
        // Layers read already take no more memory.
        let db = open().unwrap().unwrap();
        db.verify_checksums().unwrap();
        assert_eq!(db.seeds_fitting(0), Some(8));
        // Packed, the estimate is an upper bound.
        let packed = open().unwrap().unwrap().with_layout(Layout::Packed);
        packed.verify_checksums().unwrap();
        for layer in packed.layer_info() {
            let estimate = Layout::Packed.memory_estimate(layer.entries);
            assert!(
                layer.memory_bytes.unwrap() <= estimate,
                "layer {}: {:?} > {estimate}",
                layer.seeds,
                layer.memory_bytes
            );
        }
    }

    #[test]
    fn tables_are_the_size_asked_for_or_sized_to_the_search() {
        let start = Position::start(6, 4).unwrap();
        let rules = Rules::STANDARD;
        assert_eq!(table_bytes(Some(5), &rules, &start, None), 5 << 20);
        assert_eq!(table_bytes(Some(0), &rules, &start, None), 1 << 20, "at least 1 MiB");
        assert_eq!(table_bytes(None, &rules, &start, None), SearchOptions::table_bytes_for(48, 0));
        assert_eq!(sized_table_bytes(&rules, &start, 24), 64 << 20, "Kalah(6,4) over 24 seeds");
        let clockwise = Rules { direction: Direction::Cw, ..Rules::STANDARD };
        let start = Position::start(6, 3).unwrap();
        assert_eq!(sized_table_bytes(&rules, &start, 24), 16 << 20, "Kalah(6,3), 12 seeds above the database");
        assert_eq!(sized_table_bytes(&clockwise, &start, 24), 1 << 30, "as if no database: 36 seeds");
        assert_eq!(default_database_seeds(6), Some(24));
        assert_eq!(default_database_seeds(4), None);
        assert_eq!(keep_free_bytes(Some(4096)), (4096 + 512) << 20);
        assert_eq!(keep_free_bytes(None), (1024 + 512) << 20, "the largest table a search sizes itself");
    }

    #[test]
    fn a_position_is_analysed_as_the_reference_solver_values_it() {
        let rules = Rules::STANDARD;
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let mut search = Search::new(rules, None, &options).unwrap();
        let start = Position::start(4, 3).unwrap();
        let answer = analyse_position(&mut search, &start).unwrap();
        assert_eq!(answer.value, solver.value(&start));
        assert_eq!((answer.source, answer.game_over, answer.wdl), (Source::Search, false, wdl(answer.value)));
        assert_eq!(answer.moves.len(), 4);
        assert!(answer.moves.windows(2).all(|w| (-w[0].value, w[0].house) < (-w[1].value, w[1].house)));
        for m in &answer.moves {
            let mut child = start;
            let extra_turn = child.play(&rules, m.house - 1).extra_turn;
            let expected = if extra_turn { solver.value(&child) } else { -solver.value(&child) };
            assert_eq!((m.value, m.best), (expected, expected == answer.value), "move {}", m.house);
        }
        let over = crate::notation::parse_position("0 0 0 0 5 0 0 0 0 3 N").unwrap();
        let answer = analyse_position(&mut search, &over).unwrap();
        assert_eq!((answer.value, answer.source, answer.moves.len()), (-2, Source::Rules, 0));
    }

    /// Under the pie rule a start's moves, and those of a position its first turn passes
    /// through, are worth what South keeps after the swap: the best of their turns' `-|v|`, each
    /// turn's `v` from the reference solver; the start's value is the pie value.
    #[test]
    fn a_first_turn_under_the_pie_rule_is_analysed_as_the_swap_leaves_it() {
        let pie = Rules { pie: true, ..Rules::STANDARD };
        let mut solver = crate::solve::Solver::new(Rules::STANDARD).unwrap();
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let mut search = Search::new(pie, None, &options).unwrap();
        let start = Position::start(4, 3).unwrap();
        let turns = crate::moves::first_turns(&pie, &start);
        let kept: Vec<(Vec<u8>, i32)> =
            turns.iter().map(|(turn, end)| (turn.houses().to_vec(), -solver.value(end).abs())).collect();
        let best_kept = |prefix: &[u8]| kept.iter().filter(|(t, _)| t.starts_with(prefix)).map(|(_, v)| *v).max();
        let answer = analyse_position(&mut search, &start).unwrap();
        assert_eq!(Some(answer.value), crate::answer::pie_value(kept.iter().map(|(_, v)| -v)));
        for m in &answer.moves {
            assert_eq!(Some(m.value), best_kept(&[m.house as u8]), "move {}", m.house);
        }
        // 4x3's house 2 ends in the store: South moves again, within the first turn.
        let mut within = start;
        assert!(within.play(&pie, 1).extra_turn);
        let answer = analyse_position(&mut search, &within).unwrap();
        for m in &answer.moves {
            assert_eq!(Some(m.value), best_kept(&[2, m.house as u8]), "move 2 {}", m.house);
        }
        // Past the first turn the values are plain play's.
        let (_, end) = &turns[0];
        assert_eq!(analyse_position(&mut search, end).unwrap().value, solver.value(end));
    }
}
