//! `docs/results.md` against the result files it describes: its tables of Kalah(6,6)'s first
//! turns must say what `data/results/openings-6x6.jsonl` (written by `kalah proof map`) says, turn
//! by turn, with the same proofs, each of which must hold the transcript of its check; the
//! published column must be the published table's.

use std::collections::BTreeMap;
use std::path::Path;

use kalah::published::{OPENINGS_6X6_EMPTY_CAPTURE_CSV, opening_values};
use serde_json::Value;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn signed(value: i64) -> String {
    if value > 0 { format!("+{value}") } else { value.to_string() }
}

/// How the document words a bound pair: `+2` when exact, `at most +4`, `at least 0`, `0 to +4`.
fn worded(bounds: &Value, total: i64) -> String {
    let (lower, upper) = (bounds["lower"].as_i64().unwrap(), bounds["upper"].as_i64().unwrap());
    match (lower > -total, upper < total) {
        _ if lower == upper => signed(lower),
        (false, true) => format!("at most {}", signed(upper)),
        (true, false) => format!("at least {}", signed(lower)),
        (true, true) => format!("{} to {}", signed(lower), signed(upper)),
        (false, false) => "unknown".to_string(),
    }
}

/// The proofs behind one side of a bound pair, as the document names them: `` `name` `` joined
/// by ", ", or "–" when no proof gives that side.
fn named(bounds: &Value, side: &str) -> String {
    let names: Vec<String> = bounds[side]
        .as_array()
        .map(|proofs| {
            proofs.iter().map(|p| format!("`{}`", p.as_str().unwrap().trim_start_matches("data/proofs/"))).collect()
        })
        .unwrap_or_default();
    if names.is_empty() { "–".to_string() } else { names.join(", ") }
}

/// The rows of the first table after the line that begins with `heading`, as their cells.
fn table_after(doc: &str, heading: &str) -> (String, Vec<Vec<String>>) {
    let mut lines = doc.lines().skip_while(|line| !line.starts_with(heading));
    let heading_line = lines.next().unwrap_or_else(|| panic!("docs/results.md has no line {heading:?}")).to_string();
    let rows = lines
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| line.trim_matches('|').split('|').map(|cell| cell.trim().to_string()).collect())
        .collect();
    (heading_line, rows)
}

#[test]
fn the_first_turn_tables_say_what_the_map_says() {
    let doc = std::fs::read_to_string(repository().join("docs/results.md")).unwrap();
    let map = std::fs::read_to_string(repository().join("data/results/openings-6x6.jsonl")).unwrap();
    let published: BTreeMap<String, i32> = opening_values(OPENINGS_6X6_EMPTY_CAPTURE_CSV)
        .unwrap()
        .into_iter()
        .map(|(turn, value)| (turn.to_string(), value))
        .collect();
    let mut rule_sets = 0;
    for line in map.lines() {
        let start: Value = serde_json::from_str(line).unwrap();
        let rules = start["rules"].as_str().unwrap();
        let total = 72; // seeds in Kalah(6,6)
        let (heading, rows) = table_after(&doc, &format!("**{rules}**:"));
        let expected_heading = format!(
            "**{rules}**: the start {} ({} and {}).",
            worded(&start, total),
            named(&start, "lower_proofs"),
            named(&start, "upper_proofs")
        );
        assert_eq!(heading, expected_heading, "the {rules} start");
        let openings = start["openings"].as_array().unwrap();
        assert_eq!(rows.len(), openings.len(), "{rules}: one row per first turn");
        for (row, opening) in rows.iter().zip(openings) {
            let turn = opening["move"].as_str().unwrap();
            let mut expected = vec![
                turn.to_string(),
                worded(opening, total),
                named(opening, "lower_proofs"),
                named(opening, "upper_proofs"),
            ];
            if rules == "empty-capture" {
                expected.push(signed(published[turn] as i64));
            }
            assert_eq!(*row, expected, "{rules}, turn {turn}");
            for side in ["lower_proofs", "upper_proofs"] {
                for proof in opening[side].as_array().into_iter().flatten() {
                    let dir = repository().join(proof.as_str().unwrap());
                    let checked = std::fs::read_dir(&dir)
                        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
                        .filter_map(Result::ok)
                        .any(|entry| {
                            let name = entry.file_name().to_string_lossy().into_owned();
                            name.starts_with("check-") && name.ends_with(".txt")
                        });
                    assert!(checked, "{}: no check transcript, yet the document says it was checked", dir.display());
                }
            }
        }
        rule_sets += 1;
    }
    assert_eq!(rule_sets, 2, "the map holds both rule sets");
}
