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
    let mut tables = 0;
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.starts_with("table-") && name.ends_with(".csv")) {
            continue;
        }
        tables += 1;
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let headers = reader.headers().unwrap().clone();
        let column = |wanted: &str| headers.iter().position(|h| h == wanted).unwrap();
        let (rules_at, houses_at, seeds_at, value_at) =
            (column("rules"), column("houses"), column("seeds"), column("value"));
        for row in reader.records() {
            let row = row.unwrap();
            let rules: Rules = row[rules_at].parse().unwrap_or_else(|err| panic!("{name}: {err}"));
            let (houses, seeds): (usize, u32) = (row[houses_at].parse().unwrap(), row[seeds_at].parse().unwrap());
            let Ok(value) = row[value_at].parse::<i32>() else { continue };
            if let Some(expected) = reference(&rules, houses, seeds) {
                assert_eq!(value, expected, "{name}: Kalah({houses},{seeds})");
                checked += 1;
            }
        }
    }
    assert!(tables >= 8, "the standard, empty-capture, clockwise, BGA (two), Swedish, Wetherell and discard tables");
    assert!(checked >= 7 * 19, "{checked} cells checked");
}
