//! The grid of start values (`kalah table`): Kalah(m,n) over ranges of houses and seeds, each
//! start's value compared with the published one, the CSV rewritten after every cell.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{JobError, RunProgress, write_atomically};
use crate::board::Position;
use crate::engine::{Load, Setup};
use crate::rules::Rules;
use crate::search::{Search, SearchError};

/// How a cell ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellStatus {
    /// Solved; the published value agrees.
    Match,
    /// Solved; the published value disagrees.
    Mismatch,
    /// Solved; nothing is published.
    Unpublished,
    /// Not solved within the time limit.
    Timeout,
    /// Under cycles: too far above the database for the lines the search can hold.
    TooDeep,
    /// Not tried: a smaller start of this run (no more houses, no more seeds) was not solved.
    Skipped,
    /// Not searched: checked proofs bound the value without deciding it (the map that `kalah
    /// proof map` ships).
    Bounds,
}

impl CellStatus {
    /// The name in the CSV and JSON.
    pub fn name(self) -> &'static str {
        match self {
            CellStatus::Match => "match",
            CellStatus::Mismatch => "mismatch",
            CellStatus::Unpublished => "unpublished",
            CellStatus::Timeout => "timeout",
            CellStatus::TooDeep => "too-deep",
            CellStatus::Skipped => "skipped",
            CellStatus::Bounds => "bounds",
        }
    }

    fn from_name(name: &str) -> Option<CellStatus> {
        [
            CellStatus::Match,
            CellStatus::Mismatch,
            CellStatus::Unpublished,
            CellStatus::Timeout,
            CellStatus::TooDeep,
            CellStatus::Skipped,
            CellStatus::Bounds,
        ]
        .into_iter()
        .find(|status| status.name() == name)
    }
}

/// One start of the grid.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Houses per side.
    pub houses: usize,
    /// Seeds per house at the start.
    pub seeds: u32,
    /// The start's value for the first player (`None` when not solved).
    pub value: Option<i32>,
    /// Proven bounds on it (the value twice when solved; the seeds in play when nothing is known).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
    /// The checked proofs the value or bounds come from (none when a search solved the cell).
    pub proofs: Vec<String>,
    /// The published claim, if any.
    pub published: Option<String>,
    /// How it ended.
    pub status: CellStatus,
    /// Positions searched.
    pub nodes: u64,
    /// Seconds spent.
    pub seconds: f64,
}

/// Where the grid of `rules` is written in `dir`: `table-<rules>.csv`.
pub fn grid_path(dir: &Path, rules: &Rules) -> PathBuf {
    dir.join(format!("table-{}.csv", rules.to_string().replace(' ', "+")))
}

/// Solves every start Kalah(m,n) for m in `houses` and n in `seeds` under `rules` (each within
/// `cell_time_limit`), rewriting the CSV at `path` after every cell with the cells of this run
/// and those of earlier runs outside its ranges, so that a grid can be filled in over several
/// runs. One database serves each board size (the one for its biggest start). A start is not
/// tried once a smaller one of this run (no more houses and no more seeds) went unsolved: it
/// would only spend the time limit again (a run over just that cell still tries it).
pub fn solve_grid(
    rules: &Rules,
    houses: RangeInclusive<usize>,
    seeds: RangeInclusive<u32>,
    setup: &Setup,
    cell_time_limit: Option<Duration>,
    path: &Path,
    progress: &impl RunProgress,
) -> Result<Vec<Cell>, JobError> {
    let start = |m: usize, n: u32| {
        Position::start(m, n).map_err(|err| JobError::Invalid { path: path.to_path_buf(), message: err.to_string() })
    };
    progress.pending(houses.clone().count() * seeds.clone().count());
    let mut earlier = read_cells(path, rules)?;
    // Starts that checked proofs map (Kalah(6,6)) are taken from them: no search settles them.
    let book = crate::engine::book::OpeningBook::shipped().ok();
    earlier.retain(|cell| !(houses.contains(&cell.houses) && seeds.contains(&cell.seeds)));
    let mut cells: Vec<Cell> = Vec::new();
    for m in houses {
        let biggest = start(m, *seeds.end())?;
        // Read when a cell of this row first needs a search (cells the proofs map need none).
        let mut database = None;
        for n in seeds.clone() {
            progress.task_started(&format!("Kalah({m},{n})"));
            let position = start(m, n)?;
            let published = crate::published::lookup(rules, m, n);
            if let Some(map) = book.as_ref().and_then(|book| book.start_map(rules, &position)) {
                let known = &map.known;
                let status = match (known.value(), &published) {
                    (None, _) => CellStatus::Bounds,
                    (Some(_), None) => CellStatus::Unpublished,
                    (Some(value), Some(p)) if p.claim.holds(value) => CellStatus::Match,
                    (Some(_), Some(_)) => CellStatus::Mismatch,
                };
                cells.push(Cell {
                    houses: m,
                    seeds: n,
                    value: known.value(),
                    lower: known.bounds.lower,
                    upper: known.bounds.upper,
                    proofs: known.proofs(),
                    published: published.map(|p| p.claim.to_string()),
                    status,
                    nodes: 0,
                    seconds: 0.0,
                });
                write_cells(path, rules, &earlier, &cells)?;
                progress.task_done();
                continue;
            }
            let total = position.total_seeds() as i32;
            let unsolved_below = cells.iter().any(|cell| {
                cell.value.is_none() && cell.status != CellStatus::Skipped && cell.houses <= m && cell.seeds <= n
            });
            if unsolved_below {
                cells.push(Cell {
                    houses: m,
                    seeds: n,
                    value: None,
                    lower: -total,
                    upper: total,
                    proofs: Vec::new(),
                    published: published.map(|p| p.claim.to_string()),
                    status: CellStatus::Skipped,
                    nodes: 0,
                    seconds: 0.0,
                });
                write_cells(path, rules, &earlier, &cells)?;
                progress.task_done();
                continue;
            }
            if database.is_none() {
                progress.preparing();
                database = Some(setup.database(rules, &biggest, Load::Now, progress).map_err(SearchError::from)?);
                progress.prepared();
            }
            let clock = Instant::now();
            let deadline = cell_time_limit.map(|limit| clock + limit);
            let db = database.as_ref().and_then(Option::as_ref);
            let mut search = Search::new(*rules, db, &setup.options(rules, &position, db, deadline))?;
            let (value, status) = match search.value(&position) {
                Ok(value) => {
                    let status = match &published {
                        None => CellStatus::Unpublished,
                        Some(p) if p.claim.holds(value) => CellStatus::Match,
                        Some(_) => CellStatus::Mismatch,
                    };
                    (Some(value), status)
                }
                Err(SearchError::TimeUp { .. }) => (None, CellStatus::Timeout),
                Err(SearchError::LineTooLong { .. }) => (None, CellStatus::TooDeep),
                Err(err) => return Err(err.into()),
            };
            cells.push(Cell {
                houses: m,
                seeds: n,
                value,
                lower: value.unwrap_or(-total),
                upper: value.unwrap_or(total),
                proofs: Vec::new(),
                published: published.map(|p| p.claim.to_string()),
                status,
                nodes: search.stats().nodes,
                seconds: clock.elapsed().as_secs_f64(),
            });
            write_cells(path, rules, &earlier, &cells)?;
            progress.task_done();
        }
    }
    Ok(cells)
}

/// Rewrites the grid file at `path`: the cells of earlier runs and of this one, in order.
fn write_cells(path: &Path, rules: &Rules, earlier: &[Cell], cells: &[Cell]) -> Result<(), JobError> {
    let mut all: Vec<&Cell> = earlier.iter().chain(cells).collect();
    all.sort_by_key(|cell| (cell.houses, cell.seeds));
    write_atomically(path, &csv(rules, &all))
}

/// The cells of the grid file at `path` (none if there is no file), which must be `rules`'.
fn read_cells(path: &Path, rules: &Rules) -> Result<Vec<Cell>, JobError> {
    let invalid = |message: String| JobError::Invalid { path: path.to_path_buf(), message };
    let text = match crate::input::read_text(path, crate::input::LARGE_FILE_BYTES) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(invalid(err.to_string())),
    };
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut cells = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|err| invalid(err.to_string()))?;
        let bad = |what: &str| invalid(format!("row {}: bad {what}", line + 2));
        let field = |i: usize| record.get(i).ok_or_else(|| bad("row length"));
        if field(0)?.parse::<Rules>().ok() != Some(*rules) {
            return Err(bad("rules: the file holds another rule set's grid"));
        }
        let optional = |text: &str| (!text.is_empty()).then(|| text.to_string());
        let (houses, seeds): (usize, u32) =
            (field(1)?.parse().map_err(|_| bad("houses"))?, field(2)?.parse().map_err(|_| bad("seeds"))?);
        let value: Option<i32> = match field(3)? {
            "" => None,
            text => Some(text.parse().map_err(|_| bad("value"))?),
        };
        // Files written before the bounds columns: the value, or the seeds in play.
        let total = (2 * houses) as i32 * seeds as i32;
        let bound = |i: usize, unknown: i32| match record.get(i) {
            Some(text) => text.parse::<i32>().map_err(|_| bad("bound")),
            None => Ok(value.unwrap_or(unknown)),
        };
        cells.push(Cell {
            houses,
            seeds,
            value,
            lower: bound(8, -total)?,
            upper: bound(9, total)?,
            proofs: record
                .get(10)
                .map_or(Vec::new(), |t| t.split(';').filter(|p| !p.is_empty()).map(str::to_string).collect()),
            published: optional(field(4)?),
            status: CellStatus::from_name(field(5)?).ok_or_else(|| bad("status"))?,
            nodes: field(6)?.parse().map_err(|_| bad("nodes"))?,
            seconds: field(7)?.parse().map_err(|_| bad("seconds"))?,
        });
    }
    Ok(cells)
}

/// The grid as CSV: `rules,houses,seeds,value,published,status,nodes,seconds,lower,upper,proofs`
/// (the last three added later: files without them still read).
fn csv(rules: &Rules, cells: &[&Cell]) -> Vec<u8> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    let rules = rules.to_string();
    let header =
        ["rules", "houses", "seeds", "value", "published", "status", "nodes", "seconds", "lower", "upper", "proofs"];
    csv.write_record(header).expect("writing to memory");
    for cell in cells {
        csv.write_record([
            rules.clone(),
            cell.houses.to_string(),
            cell.seeds.to_string(),
            cell.value.map_or(String::new(), |v| v.to_string()),
            cell.published.clone().unwrap_or_default(),
            cell.status.name().to_string(),
            cell.nodes.to_string(),
            format!("{:.3}", cell.seconds),
            cell.lower.to_string(),
            cell.upper.to_string(),
            cell.proofs.join(";"),
        ])
        .expect("writing to memory");
    }
    csv.into_inner().expect("writing to memory")
}

/// A grid solved: the cells, the file they were written to, and how many disagree with the
/// published values. Its JSON is `kalah table --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Grid {
    /// The rules, as text.
    pub rules: String,
    /// The CSV written.
    pub file: PathBuf,
    /// Every cell, houses then seeds.
    pub cells: Vec<Cell>,
    /// The cells whose value disagrees with the published one.
    pub mismatches: usize,
    /// The houses of the rows asked for.
    #[serde(skip)]
    pub houses: RangeInclusive<usize>,
    /// The seeds of the columns asked for.
    #[serde(skip)]
    pub seeds: RangeInclusive<u32>,
}

impl Grid {
    /// `cells`, written to `file`, of the grid of `houses` by `seeds` under `rules`.
    pub fn new(
        rules: &Rules,
        file: PathBuf,
        cells: Vec<Cell>,
        houses: RangeInclusive<usize>,
        seeds: RangeInclusive<u32>,
    ) -> Grid {
        let mismatches = cells.iter().filter(|c| c.status == CellStatus::Mismatch).count();
        Grid { rules: rules.to_string(), file, cells, mismatches, houses, seeds }
    }

    /// How many cells have `status`.
    pub fn count(&self, status: CellStatus) -> usize {
        self.cells.iter().filter(|c| c.status == status).count()
    }

    /// The grid, houses down, seeds across (`!` marks a mismatch, `?` a cell not solved in time,
    /// `>=2` a cell that proofs bound without deciding), the mismatches, and the count of cells
    /// of each kind.
    pub fn text(&self) -> String {
        let mut text = format!("start values (first player's margin), rules {}\n  m\\n", self.rules);
        for seeds in self.seeds.clone() {
            text += &format!("{seeds:>7}");
        }
        text += "\n";
        for houses in self.houses.clone() {
            text += &format!("{houses:>4} ");
            for cell in self.cells.iter().filter(|c| c.houses == houses) {
                let total = 2 * cell.houses as i32 * cell.seeds as i32;
                let value = match (cell.value, cell.status) {
                    (Some(value), _) => crate::answer::signed(value),
                    (None, CellStatus::Bounds) => {
                        crate::answer::Bounds { lower: cell.lower, upper: cell.upper }.text(total as u32)
                    }
                    (None, _) => "?".to_string(),
                };
                let mark = if cell.status == CellStatus::Mismatch { "!" } else { " " };
                text += &format!("{value:>6}{mark}");
            }
            text += "\n";
        }
        for cell in self.cells.iter().filter(|c| c.status == CellStatus::Mismatch) {
            text += &format!(
                "MISMATCH Kalah({},{}): solved {}, published {}\n",
                cell.houses,
                cell.seeds,
                cell.value.map_or("?".to_string(), crate::answer::signed),
                cell.published.as_deref().unwrap_or("")
            );
        }
        text + &format!(
            "{} cells: {} match the published values, {} unpublished, {} bounded by proofs, {} timed out, {} skipped, {} mismatches; written to {}\n",
            self.cells.len(),
            self.count(CellStatus::Match),
            self.count(CellStatus::Unpublished),
            self.count(CellStatus::Bounds),
            self.count(CellStatus::Timeout) + self.count(CellStatus::TooDeep),
            self.count(CellStatus::Skipped),
            self.mismatches,
            self.file.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Databases, Quietly};

    /// One thread, a 1 MiB table, no database.
    fn without_database(dir: &Path) -> Setup {
        let databases = Databases {
            root: dir.join("db"),
            enabled: false,
            layout: crate::database::Layout::Auto,
            keep_free_bytes: 0,
        };
        Setup { databases, table_mb: Some(1), threads: 1 }
    }

    #[test]
    fn the_grid_agrees_with_the_reference_solver_and_is_written_as_csv() {
        let dir = tempfile::tempdir().unwrap();
        let setup = without_database(dir.path());
        let rules = Rules::STANDARD;
        let path = grid_path(dir.path(), &rules);
        let cells = solve_grid(&rules, 2..=3, 1..=3, &setup, None, &path, &Quietly).unwrap();
        assert_eq!(cells.len(), 6);
        let mut solver = crate::solve::Solver::new(rules).unwrap();
        for cell in &cells {
            let start = Position::start(cell.houses, cell.seeds).unwrap();
            assert_eq!(cell.value, Some(solver.value(&start)), "Kalah({},{})", cell.houses, cell.seeds);
            assert!(matches!(cell.status, CellStatus::Match | CellStatus::Unpublished));
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "rules,houses,seeds,value,published,status,nodes,seconds,lower,upper,proofs");
        assert_eq!(lines.len(), 7);
        let value = cells[0].value.unwrap();
        assert!(lines[1].starts_with(&format!("standard,2,1,{value},")), "{}", lines[1]);
        // A later run of other cells keeps these: Kalah(1,1..2) join the six, in order.
        let more = solve_grid(&rules, 1..=1, 1..=2, &setup, None, &path, &Quietly).unwrap();
        assert_eq!(more.len(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9, "{text}");
        assert!(lines[1].starts_with("standard,1,1,") && lines[3].starts_with(&format!("standard,2,1,{value},")));
        // A file of another rule set's grid is refused, not overwritten.
        std::fs::write(&path, text.replace("standard,", "bga,")).unwrap();
        assert!(solve_grid(&rules, 1..=1, 1..=1, &setup, None, &path, &Quietly).is_err());
    }

    #[test]
    fn starts_above_an_unsolved_one_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let setup = without_database(dir.path());
        let path = grid_path(dir.path(), &Rules::STANDARD);
        // No time at all: Kalah(6,4) runs out of it; Kalah(6,5), above it, is not tried.
        let cells = solve_grid(&Rules::STANDARD, 6..=6, 4..=5, &setup, Some(Duration::ZERO), &path, &Quietly).unwrap();
        let statuses: Vec<CellStatus> = cells.iter().map(|cell| cell.status).collect();
        assert_eq!(statuses, [CellStatus::Timeout, CellStatus::Skipped]);
        assert_eq!(read_cells(&path, &Rules::STANDARD).unwrap()[1].status, CellStatus::Skipped);
    }

    #[test]
    fn kalah_6_6_comes_from_the_checked_proofs_with_its_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let setup = without_database(dir.path());
        // No time to search: only the proofs' map can give these.
        for (rules, value, bounds, status) in [
            (Rules::STANDARD, Some(4), (4, 4), CellStatus::Match),
            (Rules::EMPTY_CAPTURE, Some(2), (2, 2), CellStatus::Match),
        ] {
            let path = grid_path(dir.path(), &rules);
            // A row written before the bounds columns reads with the value as both bounds.
            std::fs::write(
                &path,
                format!(
                    "rules,houses,seeds,value,published,status,nodes,seconds\n{rules},2,2,4,,unpublished,9,0.001\n"
                ),
            )
            .unwrap();
            let cells = solve_grid(&rules, 6..=6, 6..=6, &setup, Some(Duration::ZERO), &path, &Quietly).unwrap();
            assert_eq!((cells[0].value, (cells[0].lower, cells[0].upper), cells[0].status), (value, bounds, status));
            assert!(cells[0].proofs.iter().all(|p| p.starts_with("data/proofs/")) && !cells[0].proofs.is_empty());
            let read = read_cells(&path, &rules).unwrap();
            assert_eq!(
                (read[0].lower, read[0].upper, read[1].lower, read[1].proofs.clone()),
                (4, 4, bounds.0, cells[0].proofs.clone())
            );
        }
    }
}
