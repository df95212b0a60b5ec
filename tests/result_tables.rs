//! The shipped result tables (`data/results/table-*.csv`, written by `kalah table`) against
//! independent slow solvers on every cell they reach quickly: the plain recursive solver for
//! rules whose positions cannot repeat, the fixed-point iteration over the whole position graph
//! for clockwise sowing.

mod common;

use std::path::Path;

use common::fixed_point;
use kalah::{Position, Rules, Solver};

/// The reference value of Kalah(houses, seeds) under `rules`, where a slow solver reaches it.
fn reference(rules: &Rules, houses: usize, seeds: u32) -> Option<i32> {
    let start = Position::start(houses, seeds).ok()?;
    let total = 2 * houses as u32 * seeds;
    if rules.has_cycles() {
        // The whole graph up to the start's seeds: small for 3 houses and 12 seeds.
        if houses > 3 || total > 12 {
            return None;
        }
        let values = fixed_point(&rules.for_values(), houses, total as usize);
        return Some(values[&start.house_key()]);
    }
    if houses > 4 || total > 24 {
        return None;
    }
    Some(Solver::new(*rules).ok()?.value(&start))
}

#[test]
fn every_shipped_table_agrees_with_the_slow_solvers_where_they_reach() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results");
    let cells = start_values(&dir, "table-");
    let mut checked = 0;
    for (rules, houses, seeds, value, name) in &cells {
        if let Some(expected) = reference(rules, *houses, *seeds) {
            assert_eq!(*value, expected, "{name}: Kalah({houses},{seeds})");
            checked += 1;
        }
    }
    let tables: std::collections::BTreeSet<&String> = cells.iter().map(|(.., name)| name).collect();
    assert!(
        tables.len() >= 8,
        "the standard, empty-capture, clockwise, BGA (two), Swedish, Wetherell and discard tables"
    );
    assert!(checked >= 7 * 19, "{checked} cells checked");
}

/// Every value a result file of `dir` whose name starts with `prefix` gives a start `MxN`, keyed
/// by rules, houses and seeds: the grids' cells, or the openings tables' start values.
fn start_values(dir: &Path, prefix: &str) -> Vec<(Rules, usize, u32, i32, String)> {
    let mut values = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.starts_with(prefix) && name.ends_with(".csv")) {
            continue;
        }
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let headers = reader.headers().unwrap().clone();
        let column = |wanted: &str| headers.iter().position(|h| h == wanted);
        for row in reader.records() {
            let row = row.unwrap();
            let rules: Rules = row[column("rules").unwrap()].parse().unwrap_or_else(|err| panic!("{name}: {err}"));
            let (houses, seeds) = match (column("houses"), column("start")) {
                (Some(h), _) => (row[h].parse().unwrap(), row[column("seeds").unwrap()].parse().unwrap()),
                (None, Some(s)) => match row[s].split_once('x') {
                    Some((m, n)) => (m.parse().unwrap(), n.parse().unwrap()),
                    None => continue,
                },
                (None, None) => panic!("{name}: neither houses nor start"),
            };
            if column("compute").is_some_and(|c| &row[c] != "openings") {
                continue;
            }
            let Ok(value) = row[column("value").unwrap()].parse::<i32>() else { continue };
            values.push((rules, houses, seeds, value, name.clone()));
        }
    }
    values
}

#[test]
fn every_openings_table_agrees_with_the_grid_on_its_start_value() {
    // The grid searches the start as one position; the openings table takes the best of its
    // first turns, each searched on its own: two computations that must meet.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results");
    let grid = start_values(&dir, "table-");
    let mut checked = 0;
    for (rules, houses, seeds, value, name) in start_values(&dir, "openings-") {
        let cell = grid.iter().find(|(r, h, s, ..)| *r == rules && (*h, *s) == (houses, seeds));
        if let Some((.., grid_value, grid_name)) = cell {
            assert_eq!(value, *grid_value, "{name} against {grid_name}: {rules} Kalah({houses},{seeds})");
            checked += 1;
        }
    }
    // Kalah(6,4) under seven rule sets, (6,5) under five.
    assert!(checked >= 12, "{checked} start values checked");
}
