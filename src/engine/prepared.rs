//! A search made ready, and the questions every front end asks of one. [`Setup::prepare`] (a
//! command) and [`KeptEngines::prepare`] (the service) choose the database and table; the
//! questions (a position's answer, a perfect line, a start's openings, a value) are asked here,
//! so that `kalah query` and `/api/v1/position` answer alike. [`ProvenIndex::answer`] comes first:
//! what the book and the proofs hold needs no search at all.
//!
//! [`Setup::prepare`]: super::Setup::prepare
//! [`KeptEngines::prepare`]: super::kept::KeptEngines::prepare
//! [`ProvenIndex::answer`]: super::ProvenIndex::answer

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Instant;

use super::{analyse_position, estimated_moves};
use crate::answer::{
    Answer, Bounds, DatabaseUsed, Estimate, KeepingMove, Mainline, PositionAnswer, PositionReport, Proven, Source,
    StartReport, Unfinished,
};
use crate::board::Position;
use crate::database::Database;
use crate::moves::Turn;
use crate::rules::Rules;
use crate::search::table::Table;
use crate::search::{Search, SearchError, SearchOptions, Stats};

/// What a search of `position` that stopped with `error` knew: the `bounds` it proved and, when
/// time ran out, every move's cheap estimate.
fn unanswered(search: &mut Search<'_>, position: &Position, error: SearchError, bounds: Option<Bounds>) -> Unanswered {
    let estimates = match error {
        SearchError::TimeUp { .. } => estimated_moves(search, position)
            .map(|moves| moves.iter().map(|&(house, value)| Estimate { house: house + 1, value }).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    Unanswered { error, known: Unfinished { bounds, estimates } }
}

/// Whether the table `search` shares proves that playing `house` at `position` keeps at least
/// `lower` for the mover, stores included.
fn kept_in_table(search: &Search<'_>, position: &Position, house: usize, lower: i32) -> bool {
    let mut child = *position;
    child.play(search.rules(), house);
    match search.proven_bounds(&child) {
        Some((child_lower, _)) if child.to_move() == position.to_move() => child_lower >= lower,
        Some((_, child_upper)) => -child_upper >= lower,
        None => false,
    }
}

/// A search made ready: its rules, database, table and options.
pub struct Prepared {
    rules: Rules,
    database: Option<Arc<Database>>,
    /// A table shared with other searches (the service's), else each search makes its own.
    table: Option<Arc<Table>>,
    options: SearchOptions,
    cancel: Option<Arc<AtomicBool>>,
    node_counter: Option<Arc<AtomicU64>>,
}

/// What [`Prepared::solve_start`] works out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartWork {
    /// The value, every first turn's exact value, and a perfect line.
    Everything,
    /// The value and a perfect line only.
    ValueAndLine,
}

/// Seeds on the board above the database (or above none) from which a search may take
/// hours: the Kalah(6,5) start, 36 above the 24-seed database, takes about a minute; Kalah(6,6)
/// positions, 40 and more above it, hours.
pub const FAR_ABOVE_THE_DATABASE: usize = 40;

/// A position's search that gave no value: why, and what it knew when it stopped.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Unanswered {
    /// Why it stopped.
    pub error: SearchError,
    /// What it knew.
    pub known: Unfinished,
}

impl Unanswered {
    /// Why the search has no value, and what it knew when it stopped.
    pub fn text(&self) -> String {
        format!("{}{}", self.error, self.known.text())
    }
}

impl From<SearchError> for Unanswered {
    fn from(error: SearchError) -> Unanswered {
        Unanswered { error, known: Unfinished::default() }
    }
}

impl Prepared {
    /// Searches under `rules` over `database` with `options`, each with a table of its own.
    pub fn new(rules: Rules, database: Option<Database>, options: SearchOptions) -> Prepared {
        Prepared { rules, database: database.map(Arc::new), table: None, options, cancel: None, node_counter: None }
    }

    /// Searches that share `table` (and a database kept elsewhere).
    pub fn sharing(
        rules: Rules,
        database: Option<Arc<Database>>,
        table: Arc<Table>,
        options: SearchOptions,
    ) -> Prepared {
        Prepared { rules, database, table: Some(table), options, cancel: None, node_counter: None }
    }

    /// The same, stopping when `flag` is raised (a client gone away).
    pub fn with_cancel(self, flag: Arc<AtomicBool>) -> Prepared {
        Prepared { cancel: Some(flag), ..self }
    }

    /// Searches that add every thread's nodes to `counter` as they go, for a watcher.
    pub fn with_node_counter(self, counter: Arc<AtomicU64>) -> Prepared {
        Prepared { node_counter: Some(counter), ..self }
    }

    /// Takes the deadline off the searches (a caller that sets one per task), returning it.
    pub fn take_deadline(&mut self) -> Option<Instant> {
        self.options.deadline.take()
    }

    /// The rules searched.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The database searched over, if any.
    pub fn database(&self) -> Option<&Database> {
        self.database.as_deref()
    }

    /// What to say before a search with no time limit of a position far above the database
    /// ([`FAR_ABOVE_THE_DATABASE`] seeds or more), if it is.
    pub fn far_note(&self, position: &Position) -> Option<String> {
        let database = self.database().map_or(0, |db| db.max_seeds());
        let above = (position.seeds_on_board() as usize).saturating_sub(database);
        (above >= FAR_ABOVE_THE_DATABASE).then(|| {
            format!(
                "note: {above} seeds above the database's {database}: a search this far above it may take hours \
                 (--time-limit S stops it with what it has proven)"
            )
        })
    }

    /// Whether the database holds `position`'s value (a search over it only probes).
    pub fn holds(&self, position: &Position) -> bool {
        self.database.as_ref().is_some_and(|db| position.seeds_on_board() as usize <= db.max_seeds())
    }

    /// A search as prepared: for the proofs, which drive searches themselves.
    pub fn search(&self) -> Result<Search<'_>, SearchError> {
        let mut search = match &self.table {
            Some(table) => Search::with_table(self.rules, self.database(), Arc::clone(table), &self.options)?,
            None => Search::new(self.rules, self.database(), &self.options)?,
        };
        search.set_cancel(self.cancel.clone());
        search.set_node_counter(self.node_counter.clone());
        Ok(search)
    }

    /// `position`'s exact value and every legal move's. Where a search is needed, the value
    /// comes first, `proven(lower, upper, nodes)` told the bounds after every zero-window test
    /// (stores included); if the search stops, the bounds proven are kept, and when time ran
    /// out every move's cheap estimate too (what to play all the same; it proves nothing).
    pub fn report(
        &self,
        position: &Position,
        mut proven: impl FnMut(i32, i32, u64),
    ) -> Result<PositionReport, Unanswered> {
        let clock = Instant::now();
        let mut search = self.search()?;
        let mut bounds = None;
        // (Within the first turn under the pie rule the value is the moves' own, after the swap.)
        let pie_turn = crate::answer::within_first_turn(&self.rules, position);
        if !position.is_over(&self.rules) && !self.holds(position) && !pie_turn {
            let searched = value_telling(&mut search, position, |lower, upper, nodes| {
                bounds = Some(Bounds { lower, upper });
                proven(lower, upper, nodes);
            });
            if let Err(error) = searched {
                return Err(unanswered(&mut search, position, error, bounds));
            }
        }
        // Out of time on the moves' values, the value found is kept (the regression of a 6x5
        // position whose value came in 2 s, then nothing at the limit).
        let answer = analyse_position(&mut search, position)
            .map_err(|error| unanswered(&mut search, position, error, bounds))?;
        let answer = PositionAnswer { nodes: search.stats().nodes, seconds: clock.elapsed().as_secs_f64(), ..answer };
        let database_max_seeds = self.database().map(|db| db.max_seeds());
        Ok(PositionReport::new(&self.rules, position, Answer::Exact(answer), database_max_seeds))
    }

    /// A move of `position` (a game not over) worth at least `keeps`'s lower bound for its mover,
    /// stores included (say the bound a proof's leaf proved, or one the game's earlier moves
    /// kept): zero-window tests, one a move, until one holds. The moves the shared table already
    /// shows keeping the bound come first (the search that proved the move before this position
    /// proved them, where the table still holds it), then the rest in the order of their
    /// estimates. `Ok(None)` where no move does (never, for a proven bound); a search that stops
    /// is an error as for [`Prepared::report`].
    pub fn keeping_move(&self, position: &Position, keeps: &Proven) -> Result<Option<KeepingMove>, Unanswered> {
        let clock = Instant::now();
        let lower = keeps.bounds.lower;
        let mut search = self.search()?;
        let rules = self.rules;
        if crate::answer::within_first_turn(&rules, position) {
            // Under the pie rule a first turn's moves are worth what they keep after the swap,
            // which no zero-window test of plain play tells: every move is valued.
            let answer = analyse_position(&mut search, position)?;
            let (nodes, seconds) = (search.stats().nodes, clock.elapsed().as_secs_f64());
            let keeping = answer.moves.iter().find(|m| m.value >= lower);
            return Ok(keeping.map(|m| KeepingMove::new(&rules, position, m.house - 1, keeps.clone(), nodes, seconds)));
        }
        // The estimates lift the deadline; the tests keep it.
        let deadline = search.deadline();
        let mut order = estimated_moves(&mut search, position)?;
        search.set_deadline(deadline);
        // (A stable sort: the estimates order the rest.)
        order.sort_by_cached_key(|&(house, _)| !kept_in_table(&search, position, house, lower));
        for &(house, _) in &order {
            let mut child = *position;
            child.play(&rules, house);
            let tested = if child.is_over(&rules) {
                Ok(child.final_margin_for(&rules, position.to_move()) >= lower)
            } else if child.to_move() == position.to_move() {
                search.board_value_at_least(&child, lower - child.margin())
            } else {
                // The mover's value is the child's negated: at least `lower` where the child's is
                // at most `-lower`.
                search.board_value_at_least(&child, 1 - lower - child.margin()).map(|above| !above)
            };
            match tested {
                Ok(true) => {
                    let (nodes, seconds) = (search.stats().nodes, clock.elapsed().as_secs_f64());
                    return Ok(Some(KeepingMove::new(&rules, position, house, keeps.clone(), nodes, seconds)));
                }
                Ok(false) => {}
                Err(error) => {
                    let estimates = order.iter().map(|&(house, value)| Estimate { house: house + 1, value }).collect();
                    return Err(Unanswered { error, known: Unfinished { bounds: None, estimates } });
                }
            }
        }
        Ok(None)
    }

    /// A perfect-play line from `position` to the end of the game; `proven` is told the value's
    /// bounds as for [`Prepared::report`], then the line is searched.
    pub fn mainline(&self, position: &Position, proven: impl FnMut(i32, i32, u64)) -> Result<Mainline, SearchError> {
        let clock = Instant::now();
        let mut search = self.search()?;
        let source = match (position.is_over(&self.rules), self.holds(position)) {
            (true, _) => Source::Rules,
            (false, true) => Source::Database,
            (false, false) => Source::Search,
        };
        let (value, turns) = match position.is_over(&self.rules) {
            true => (position.final_margin(&self.rules), Vec::new()),
            false => (value_telling(&mut search, position, proven)?, search.principal_variation(position)?),
        };
        let seconds = clock.elapsed().as_secs_f64();
        let nodes = search.stats().nodes;
        Ok(Mainline { nodes, seconds, ..Mainline::new(&self.rules, position, value, &turns, source) })
    }

    /// `start`'s value, every first turn's and a perfect line; `progress(done, total)` is told
    /// before the first opening and after each. With [`StartWork::ValueAndLine`] the first turns
    /// are not solved (most of the work; under the pie rule the value is then plain play's).
    pub fn solve_start(
        &self,
        start: &Position,
        work: StartWork,
        progress: impl FnMut(usize, usize),
    ) -> Result<StartReport, SearchError> {
        let clock = Instant::now();
        let mut search = self.search()?;
        let analysis = match work {
            StartWork::Everything => Some(search.analyse(start, progress)?),
            StartWork::ValueAndLine => None,
        };
        let line: Vec<Turn> = search.principal_variation(start)?.iter().map(|turn| Turn::from_indices(turn)).collect();
        let report = match analysis {
            Some(table) => StartReport::new(&self.rules, start, table, &line),
            None => {
                // The line's search left the start's value in the table: read back at once.
                let value = match start.is_over(&self.rules) {
                    true => start.final_margin(&self.rules),
                    false => value_telling(&mut search, start, |_, _, _| {})?,
                };
                StartReport::line_only(&self.rules, start, value, &line)
            }
        };
        let stats = search.stats();
        Ok(StartReport {
            database: self.database().map(|db| DatabaseUsed { dir: db.dir().to_path_buf(), max_seeds: db.max_seeds() }),
            nodes: stats.nodes,
            probes: stats.probes,
            table_mb: search.table().bytes() >> 20,
            seconds: clock.elapsed().as_secs_f64(),
            ..report
        })
    }

    /// `position`'s exact value alone, and the work it took.
    pub fn value(&self, position: &Position) -> Result<(i32, Stats), SearchError> {
        let mut search = self.search()?;
        let value = search.value(position)?;
        Ok((value, search.stats()))
    }
}

/// `position`'s exact value (not over; stores included) by MTD(f), `proven(lower, upper, nodes)`
/// told the bounds (stores included) after every zero-window test and the value once known (a
/// position settled at once, by a table entry of an earlier search, passes no test).
fn value_telling(
    search: &mut Search<'_>,
    position: &Position,
    mut proven: impl FnMut(i32, i32, u64),
) -> Result<i32, SearchError> {
    let margin = position.margin();
    let value = margin
        + search.board_value_resuming(position, (i32::MIN, i32::MAX), None, |lower, upper, nodes| {
            proven(margin + lower, margin + upper, nodes)
        })?;
    proven(value, value, search.stats().nodes);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A move kept at a bound is worth at least that bound, and above the value no move keeps it:
    /// compared with the reference solver on positions of small games.
    #[test]
    fn a_keeping_move_is_worth_the_bound_it_keeps() {
        let rules = Rules::STANDARD;
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        let options = SearchOptions { table_bytes: 16 << 20, deadline: None, threads: 1 };
        let prepared = Prepared::new(rules, None, options);
        let mut position = Position::start(4, 3).unwrap();
        let mut tested = 0;
        // Down one line of the game, a position at each ply.
        while !position.is_over(&rules) {
            let value = solver.value(&position);
            let at = |lower: i32| Proven::unproven(Bounds { lower, upper: lower });
            let kept = prepared.keeping_move(&position, &at(value)).unwrap().expect("the best move keeps the value");
            let house = kept.played.house - 1;
            let mut child = position;
            child.play(&rules, house);
            let kept = if child.is_over(&rules) { child.final_margin(&rules) } else { solver.value(&child) };
            let kept = if child.to_move() == position.to_move() { kept } else { -kept };
            assert!(kept >= value, "{position}: move {} keeps {kept} < {value}", house + 1);
            assert!(prepared.keeping_move(&position, &at(value + 1)).unwrap().is_none(), "{position}");
            tested += 1;
            position = child;
        }
        assert!(tested >= 5, "{tested}");
    }

    /// The engine's strategy past a proof's leaf: after a move kept the value, every reply leaves
    /// a position where a move keeps it again (the opponent cannot lower it), and with the table
    /// the first search filled, finding it costs fewer nodes than with a fresh table.
    #[test]
    fn after_a_kept_move_every_reply_leaves_a_move_that_keeps_it_found_from_the_table() {
        let rules = Rules::STANDARD;
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        let options = SearchOptions { table_bytes: 16 << 20, deadline: None, threads: 1 };
        let table = Arc::new(Table::for_search(options.table_bytes).unwrap());
        let shared = Prepared::sharing(rules, None, Arc::clone(&table), options.clone());
        let start = Position::start(4, 4).unwrap();
        let value = solver.value(&start);
        let at = Proven::unproven(Bounds { lower: value, upper: value });
        // The engine's turn, to its end (a move into its store gives another).
        let mut after = start;
        while after.to_move() == start.to_move() && !after.is_over(&rules) {
            let kept = shared.keeping_move(&after, &at).unwrap().expect("the value is kept");
            after.play(&rules, kept.played.house - 1);
        }
        let (mut nodes_shared, mut nodes_fresh, mut replies) = (0, 0, 0);
        for reply in after.legal_moves() {
            let mut turn = after;
            turn.play(&rules, reply);
            if turn.is_over(&rules) || turn.to_move() != start.to_move() {
                continue;
            }
            let kept = shared.keeping_move(&turn, &at).unwrap().expect("the reply cannot lower the value");
            let mut child = turn;
            child.play(&rules, kept.played.house - 1);
            let worth = if child.is_over(&rules) { child.final_margin(&rules) } else { solver.value(&child) };
            let worth = if child.to_move() == turn.to_move() { worth } else { -worth };
            assert!(worth >= value, "{turn}: move {} keeps {worth} < {value}", kept.played.house);
            let fresh = Prepared::new(rules, None, options.clone()).keeping_move(&turn, &at).unwrap().unwrap();
            (nodes_shared, nodes_fresh, replies) = (nodes_shared + kept.nodes, nodes_fresh + fresh.nodes, replies + 1);
        }
        assert!(replies >= 2, "{replies}");
        assert!(nodes_shared < nodes_fresh, "{nodes_shared} nodes with the table, {nodes_fresh} without");
    }

    /// A search stopped after its value was found but before every move's value keeps the value
    /// (issue 76: a 6x5 position's value found in 2 s was dropped at the 30 s limit).
    #[test]
    fn a_value_found_before_the_search_stops_is_kept() {
        let rules = Rules::STANDARD;
        let start = Position::start(4, 4).unwrap();
        let options = SearchOptions { table_bytes: 16 << 20, deadline: None, threads: 1 };
        let cancel = Arc::new(AtomicBool::new(false));
        let prepared = Prepared::new(rules, None, options).with_cancel(Arc::clone(&cancel));
        // Stop as soon as the value is proven: the moves' values are still to come.
        let stopped = prepared.report(&start, |lower, upper, _| {
            if lower == upper {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let unanswered = stopped.expect_err("stopped before the moves' values");
        assert!(matches!(unanswered.error, SearchError::Cancelled { .. }), "{:?}", unanswered.error);
        let value = unanswered.known.bounds.and_then(|bounds| bounds.value()).expect("the value is kept");
        assert!(crate::published::lookup(&rules, 4, 4).unwrap().claim.holds(value), "the published value, not {value}");
    }
}
