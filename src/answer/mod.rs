//! What every front end reports: a solved start (its value and every opening's) and an analysed
//! position (its value and every move's), with one name for win, draw and loss.

mod bounds;
mod line;
mod opening;
mod pie;
mod position;
mod text;

use serde::{Deserialize, Serialize};

pub use bounds::{Bounds, Proven, signed, sorted_names};
pub use line::{LineMove, Mainline, ProvenLine, ProvenMove};
pub use opening::{Opening, OpeningsTable, pie_value};
pub use pie::{ends_first_turn, first_turn_best, first_turn_moves, first_turn_start, within_first_turn};
pub(crate) use position::moves_best_first;
pub use position::{
    Answer, BoundedAnswer, Estimate, KeepingMove, LegalMove, MoveBounds, MoveFacts, MoveValue, PositionAnswer,
    PositionMoves, PositionReport, Source, Unfinished, legal_moves,
};
pub use text::{proven_openings_text, search_progress_text};

use crate::board::{Position, Side};
use crate::moves::Turn;
use crate::rules::Rules;

/// A start solved by search, as `kalah solve` reports it: its openings table, a perfect line and
/// the work it took. Serialised (`kalah solve --json`) as `rules`, `rule_dimensions`, `start`,
/// `houses`, `to_move`, `value` and `wdl`, `best` and `openings` (null where the openings were
/// not solved), `pie_value` (under the pie rule), `principal_variation`, `full_play_margin` and
/// the work. Read back (the shipped perfect lines are such reports) only where its parts agree:
/// the rules with their dimensions, the start with its size and side, the value with the
/// openings, the best and the pie value they give.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(into = "StartReportFields", try_from = "StartReportFields")]
pub struct StartReport {
    /// The rules.
    pub rules: Rules,
    /// The start.
    pub start: Position,
    /// Its openings: every first turn exact once solved; none, and the value alone, where they
    /// were not (`kalah solve --no-openings`; under the pie rule the value is then plain play's).
    pub table: OpeningsTable,
    /// Whether the first turns were solved.
    pub openings_solved: bool,
    /// A perfect-play line from the start, a turn an entry.
    pub principal_variation: Vec<String>,
    /// The database searched over.
    pub database: Option<DatabaseUsed>,
    /// Positions expanded.
    pub nodes: u64,
    /// Positions the database answered.
    pub probes: u64,
    /// The transposition table's size in MiB.
    pub table_mb: usize,
    /// Seconds it took.
    pub seconds: f64,
}

/// [`StartReport`] as its JSON gives it.
#[derive(Serialize, Deserialize)]
struct StartReportFields {
    rules: String,
    rule_dimensions: Rules,
    start: Position,
    houses: usize,
    to_move: Side,
    value: i32,
    wdl: Wdl,
    best: Option<Vec<String>>,
    openings: Option<Vec<Opening>>,
    pie_value: Option<i32>,
    principal_variation: Vec<String>,
    /// Values are margins of full play (also where the rules end a game early).
    full_play_margin: bool,
    database: Option<DatabaseUsed>,
    nodes: u64,
    probes: u64,
    table_mb: usize,
    seconds: f64,
}

impl From<StartReport> for StartReportFields {
    fn from(report: StartReport) -> StartReportFields {
        let value = report.value();
        let solved = report.openings_solved;
        StartReportFields {
            rules: report.rules.to_string(),
            rule_dimensions: report.rules,
            start: report.start,
            houses: report.start.houses(),
            to_move: report.start.to_move(),
            value,
            wdl: wdl(value),
            best: solved.then(|| report.best().to_vec()),
            pie_value: report.pie_value(),
            openings: solved.then_some(report.table.openings),
            principal_variation: report.principal_variation,
            full_play_margin: true,
            database: report.database,
            nodes: report.nodes,
            probes: report.probes,
            table_mb: report.table_mb,
            seconds: report.seconds,
        }
    }
}

impl TryFrom<StartReportFields> for StartReport {
    type Error = String;
    fn try_from(fields: StartReportFields) -> Result<StartReport, String> {
        let rules: Rules = fields.rules.parse().map_err(|err| format!("rules '{}': {err}", fields.rules))?;
        let start = fields.start;
        if rules != fields.rule_dimensions {
            return Err(format!("rules '{}' and rule_dimensions differ", fields.rules));
        }
        if fields.houses != start.houses() || fields.to_move != start.to_move() {
            return Err(format!("houses {} and to_move {:?} are not those of {start}", fields.houses, fields.to_move));
        }
        if !fields.full_play_margin {
            return Err("values that are not margins of full play".to_string());
        }
        let line_only = StartReport::line_only(&rules, &start, fields.value, &[]);
        let (table, openings_solved) = match fields.openings {
            Some(openings) => {
                let exact: Option<Vec<(Turn, i32)>> =
                    openings.into_iter().map(|o| Some((o.turn.clone(), o.value()?))).collect();
                let exact = exact.ok_or("an opening that is not exact")?;
                (OpeningsTable::solved(&rules, &start, exact), true)
            }
            None => (line_only.table, false),
        };
        let report = StartReport {
            table,
            openings_solved,
            principal_variation: fields.principal_variation,
            database: fields.database,
            nodes: fields.nodes,
            probes: fields.probes,
            table_mb: fields.table_mb,
            seconds: fields.seconds,
            ..line_only
        };
        let agrees = report.value() == fields.value
            && wdl(fields.value) == fields.wdl
            && fields.best.as_deref().is_none_or(|best| best == report.best())
            && report.pie_value() == fields.pie_value;
        match agrees {
            true => Ok(report),
            false => Err(format!("value {} does not agree with its wdl, openings, best and pie value", fields.value)),
        }
    }
}

/// The database a search probed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseUsed {
    /// Its directory.
    pub dir: std::path::PathBuf,
    /// The seeds up to which it holds every position.
    pub max_seeds: usize,
}

impl StartReport {
    /// The report of `start` under `rules` solved by search (`table`, every opening exact),
    /// with its perfect `line`.
    pub fn new(rules: &Rules, start: &Position, table: OpeningsTable, line: &[Turn]) -> StartReport {
        StartReport {
            rules: *rules,
            start: *start,
            table,
            openings_solved: true,
            principal_variation: line.iter().map(Turn::to_string).collect(),
            database: None,
            nodes: 0,
            probes: 0,
            table_mb: 0,
            seconds: 0.0,
        }
    }

    /// The report of `start`'s `value` under `rules` and a perfect `line`, its openings not
    /// solved.
    pub fn line_only(rules: &Rules, start: &Position, value: i32, line: &[Turn]) -> StartReport {
        let table =
            OpeningsTable::new(rules, start, Proven::unproven(Bounds::exact(value)), Vec::new(), Source::Search);
        StartReport { openings_solved: false, ..StartReport::new(rules, start, table, line) }
    }

    /// Exact value for the first player, stores included (under the pie rule, once the openings
    /// are solved, the pie value).
    pub fn value(&self) -> i32 {
        self.table.value().expect("a solved start's value is exact")
    }

    /// The openings that reach the value (under the pie rule the fairest): none where they were
    /// not solved.
    pub fn best(&self) -> &[String] {
        &self.table.best
    }

    /// Under the pie rule, what the first player can force, once the openings are solved.
    pub fn pie_value(&self) -> Option<i32> {
        (self.rules.pie && self.openings_solved).then(|| self.table.pie_value.unwrap_or(self.value()))
    }
}

/// Above this many first turns, text and CSV output summarise them (relay and go-again sowing
/// make thousands); JSON always lists every one.
pub const OPENINGS_LISTED: usize = 20;

/// How many openings have each value, best value first.
pub(crate) fn openings_by_value(values: impl IntoIterator<Item = i32>) -> Vec<(i32, usize)> {
    let mut counts = std::collections::BTreeMap::new();
    for value in values {
        *counts.entry(value).or_insert(0) += 1;
    }
    counts.into_iter().rev().collect()
}

/// `openings_by_value` as text: `+46 x3, +44 x12, 0 x1`.
pub fn openings_by_value_text(values: impl IntoIterator<Item = i32>, separator: &str) -> String {
    openings_by_value(values).iter().map(|(v, n)| format!("{} x{n}", signed(*v))).collect::<Vec<_>>().join(separator)
}

/// The first few of `names`, then how many more: `1 2, 3 4, ... and 27 more`.
pub fn first_few(names: &[String], few: usize) -> String {
    if names.len() <= few {
        return names.join(", ");
    }
    format!("{} and {} more", names[..few].join(", "), names.len() - few)
}

/// `value`, for the side to move at `position` under `rules`, where the seeds on the board allow
/// it: within the margin give or take those seeds, and of their parity where values share it;
/// else an error naming it as `what`.
pub(crate) fn possible_value(rules: &Rules, position: &Position, value: i32, what: &str) -> Result<i32, String> {
    let (margin, seeds) = (position.margin(), position.seeds_on_board() as i32);
    let parity = !rules.values_share_parity() || (value - margin - seeds).rem_euclid(2) == 0;
    match (margin - seeds..=margin + seeds).contains(&value) && parity {
        true => Ok(value),
        false => Err(format!("{what} {value} is not a value the seeds on the board allow")),
    }
}

/// Win, draw or loss, for the side a value belongs to: `win`, `draw` and `loss` in text and JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Wdl {
    /// A value above 0.
    Win,
    /// A value of 0.
    Draw,
    /// A value below 0.
    Loss,
}

impl Wdl {
    /// Its name in text and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }
}

impl std::fmt::Display for Wdl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Win, draw or loss for the side a value belongs to.
pub fn wdl(value: i32) -> Wdl {
    match value.signum() {
        1 => Wdl::Win,
        0 => Wdl::Draw,
        _ => Wdl::Loss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under the pie rule the first player keeps the opening nearest a draw.
    #[test]
    fn the_pie_value_is_the_opening_nearest_a_draw() {
        assert_eq!(pie_value([2, 2, 0, 0, -2]), Some(0));
        assert_eq!(pie_value([8, 4, -6]), Some(-4), "the swap takes +8; -6 swapped is +6 for North");
        assert_eq!(pie_value([]), None);
    }

    #[test]
    fn openings_are_counted_by_value_best_first() {
        assert_eq!(openings_by_value([2, -4, 2, 0, 2]), vec![(2, 3), (0, 1), (-4, 1)]);
        assert_eq!(openings_by_value_text([2, -4, 2, 0], ", "), "+2 x2, 0 x1, -4 x1");
        let names: Vec<String> = (1..=7).map(|n| n.to_string()).collect();
        assert_eq!(first_few(&names, 3), "1, 2, 3 and 4 more");
        assert_eq!(first_few(&names[..2], 3), "1, 2");
    }

    /// A solved Kalah(2,1) (first turns `1 2` worth +1 and `2` worth -1 for South, by hand) and
    /// the same value with its openings not solved, each under the pie rule and not.
    fn reports() -> Vec<StartReport> {
        let start = Position::start(2, 1).unwrap();
        let turns = vec![("1 2".parse().unwrap(), 1), ("2".parse().unwrap(), -1)];
        let line: Vec<Turn> = vec!["1 2".parse().unwrap()];
        [Rules::STANDARD, Rules { pie: true, ..Rules::STANDARD }]
            .into_iter()
            .flat_map(|rules| {
                let solved =
                    StartReport::new(&rules, &start, OpeningsTable::solved(&rules, &start, turns.clone()), &line);
                [solved, StartReport::line_only(&rules, &start, 1, &line)]
            })
            .collect()
    }

    #[test]
    fn a_start_report_reads_back_as_it_was_written_and_refuses_parts_that_disagree() {
        for report in reports() {
            let json = serde_json::to_string(&report).unwrap();
            let read: StartReport = serde_json::from_str(&json).unwrap();
            assert_eq!(serde_json::to_string(&read).unwrap(), json);
        }
        let pie = serde_json::to_string(&reports()[2]).unwrap();
        assert!(pie.contains(r#""value":-1"#) && pie.contains(r#""best":["1 2","2"]"#), "{pie}");
        for (from, to) in [
            (r#""value":-1"#, r#""value":1"#),
            (r#""best":["1 2","2"]"#, r#""best":["2"]"#),
            (r#""houses":2"#, r#""houses":3"#),
            (r#""rules":"standard pie=on""#, r#""rules":"standard""#),
            (r#""start":"1 1 0 1 1 0 S""#, r#""start":"1 1 0 1 1 0 N""#),
            (r#""value":1,"lower":1,"upper":1"#, r#""value":null,"lower":1,"upper":2"#),
        ] {
            assert!(pie.contains(from), "{from} in {pie}");
            assert!(serde_json::from_str::<StartReport>(&pie.replace(from, to)).is_err(), "{to}");
        }
    }
}
