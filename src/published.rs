//! The published game values the project reproduces: `data/published/results.csv`, built into
//! the library so that every tool compares against the same table wherever it runs.

use std::fmt;

use crate::moves::Turn;
use crate::rules::Rules;

/// The published table as shipped in `data/published/`.
pub const RESULTS_CSV: &str = include_str!("../data/published/results.csv");

/// The published value of every South opening of empty-capture Kalah(6,6) (Rawlings 2015), as
/// shipped in `data/published/openings-6x6-empty-capture.csv`.
pub const OPENINGS_6X6_EMPTY_CAPTURE_CSV: &str = include_str!("../data/published/openings-6x6-empty-capture.csv");

/// The openings of a file like [`OPENINGS_6X6_EMPTY_CAPTURE_CSV`]: `opening,value` rows (moves
/// as houses from the mover's left, `1 2`), lines starting with `#` skipped.
pub fn opening_values(text: &str) -> Result<Vec<(Turn, i32)>, String> {
    let mut rows = text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'));
    match rows.next() {
        Some((_, header)) if header.trim() == "opening,value" => {}
        _ => return Err("the first row must be the header 'opening,value'".to_string()),
    }
    rows.map(|(number, line)| {
        let bad = || format!("line {}: '{line}' is not 'opening,value'", number + 1);
        let (opening, value) = line.split_once(',').ok_or_else(bad)?;
        let value = value.trim().parse().map_err(|_| bad())?;
        let turn = opening.parse().map_err(|err| format!("line {}: '{opening}': {err}", number + 1))?;
        Ok((turn, value))
    })
    .collect()
}

/// What a source claims about a start's value (first player's final margin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The first player wins; no margin given.
    Win,
    /// A draw.
    Draw,
    /// The first player loses; no margin given.
    Loss,
    /// The exact margin.
    Exact(i32),
    /// A proven lower bound only.
    AtLeast(i32),
}

impl Claim {
    /// Reads a cell: `W`, `D`, `L`, a margin, or `>=k`.
    pub fn parse(text: &str) -> Option<Claim> {
        match text.trim() {
            "W" => Some(Claim::Win),
            "D" => Some(Claim::Draw),
            "L" => Some(Claim::Loss),
            bound if bound.starts_with(">=") => bound[2..].trim().parse().ok().map(Claim::AtLeast),
            exact => exact.parse().ok().map(Claim::Exact),
        }
    }

    /// Whether an exact value agrees with the claim.
    pub fn holds(self, value: i32) -> bool {
        match self {
            Claim::Win => value > 0,
            Claim::Draw => value == 0,
            Claim::Loss => value < 0,
            Claim::Exact(margin) => value == margin,
            Claim::AtLeast(bound) => value >= bound,
        }
    }
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Claim::Win => f.write_str("W"),
            Claim::Draw => f.write_str("D"),
            Claim::Loss => f.write_str("L"),
            Claim::Exact(margin) => write!(f, "{margin}"),
            Claim::AtLeast(bound) => write!(f, ">={bound}"),
        }
    }
}

/// One published cell.
#[derive(Clone, Debug)]
pub struct Published {
    /// The rule set's name as the table writes it.
    pub rules_name: String,
    /// The rules it names.
    pub rules: Rules,
    /// Houses per side.
    pub houses: usize,
    /// Seeds per house at the start.
    pub seeds: u32,
    /// The value claimed.
    pub claim: Claim,
    /// Who published it.
    pub source: String,
}

/// Every cell of the built-in table. Lines starting with `#` are comments; the source, last,
/// may contain commas.
pub fn results() -> Vec<Published> {
    parse(RESULTS_CSV).expect("the built-in published table is well formed (checked by a test)")
}

/// Reads a published table in the `results.csv` layout.
pub fn parse(text: &str) -> Result<Vec<Published>, String> {
    let mut rows = Vec::new();
    let lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    for (number, line) in lines.skip(1) {
        let bad = |what: &str| format!("line {}: {what}: {line}", number + 1);
        let fields: Vec<&str> = line.splitn(5, ',').collect();
        let [rules_name, houses, seeds, claim, source] = fields[..] else { return Err(bad("five fields expected")) };
        rows.push(Published {
            rules_name: rules_name.to_string(),
            rules: rules_name.parse().map_err(|_| bad("unknown rules"))?,
            houses: houses.parse().map_err(|_| bad("bad houses"))?,
            seeds: seeds.parse().map_err(|_| bad("bad seeds"))?,
            claim: Claim::parse(claim).ok_or_else(|| bad("bad value"))?,
            source: source.trim_matches('"').to_string(),
        });
    }
    Ok(rows)
}

/// The published cell for a start under `rules` (compared as value rules: pie and early end
/// aside), if there is one.
pub fn lookup(rules: &Rules, houses: usize, seeds: u32) -> Option<Published> {
    results().into_iter().find(|p| p.rules.for_values() == rules.for_values() && p.houses == houses && p.seeds == seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_openings_of_empty_capture_6x6_read_as_every_first_turn() {
        let openings = opening_values(OPENINGS_6X6_EMPTY_CAPTURE_CSV).unwrap();
        let start = crate::board::Position::start(6, 6).unwrap();
        let turns: Vec<Turn> =
            crate::moves::first_turns(&Rules::EMPTY_CAPTURE, &start).into_iter().map(|(t, _)| t).collect();
        assert_eq!(openings.iter().map(|(o, _)| o.clone()).collect::<Vec<_>>(), turns);
        assert_eq!(openings.iter().map(|(_, v)| *v).max(), Some(2));
        assert!(opening_values("opening,value\n1 2,x\n").unwrap_err().contains("line 2"));
        assert!(opening_values("move,value\n").is_err());
        assert!(opening_values("opening,value\n1 x,2\n").unwrap_err().contains("'x' is not a house number"));
    }

    #[test]
    fn the_built_in_table_reads_completely() {
        let rows = results();
        assert_eq!(rows.len(), 46);
        assert_eq!(rows.iter().filter(|r| r.rules == Rules::EMPTY_CAPTURE).count(), 36);
        let cell = lookup(&Rules::STANDARD, 6, 4).unwrap();
        assert_eq!(cell.claim, Claim::Exact(8));
        assert!(cell.source.contains("Rawlings"), "{}", cell.source);
        assert_eq!(lookup(&Rules::STANDARD, 6, 6).unwrap().claim, Claim::AtLeast(4));
        assert!(lookup(&Rules::STANDARD, 3, 3).is_none());
    }

    #[test]
    fn claims_read_and_judge_values() {
        assert_eq!(Claim::parse("W"), Some(Claim::Win));
        assert_eq!(Claim::parse("-2"), Some(Claim::Exact(-2)));
        assert_eq!(Claim::parse(">=4"), Some(Claim::AtLeast(4)));
        assert_eq!(Claim::parse("x"), None);
        assert!(Claim::Win.holds(2) && !Claim::Win.holds(0));
        assert!(Claim::Draw.holds(0) && Claim::Loss.holds(-4));
        assert!(Claim::AtLeast(4).holds(6) && !Claim::AtLeast(4).holds(2));
        assert!(Claim::Exact(-2).holds(-2) && !Claim::Exact(2).holds(-2));
        assert_eq!(Claim::AtLeast(4).to_string(), ">=4");
    }

    #[test]
    fn malformed_tables_are_reported_with_their_line() {
        let err = parse("rules,houses,seeds,value,source\nstandard,4,x,2,me\n").unwrap_err();
        assert!(err.starts_with("line 2: bad seeds"), "{err}");
        assert!(parse("h\nnonsense,4,4,2,me\n").unwrap_err().contains("unknown rules"));
    }
}
