//! `docs/results.md` against the result files it describes: its tables of the first turns of
//! Kalah(6,6) and of Kalah(6,5) under Wetherell's rules must say what `data/results/openings-6x6.jsonl`
//! and `openings-6x5-proofs.jsonl` (written by `kalah proof map`) say, turn by turn, with the same
//! proofs, each of which must hold the transcript of its check; the published column must be the
//! published table's.

use std::collections::BTreeMap;
use std::path::Path;

use kalah::answer::signed;
use kalah::parse_position;
use kalah::published::{OPENINGS_6X6_EMPTY_CAPTURE_CSV, opening_values};
use kalah::results::ItemResult;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// How the document words bounds in a game of `total` seeds: `+2` when exact, `at most +4`,
/// `at least 0`, `0 to +4`.
fn worded(lower: i32, upper: i32, total: i32) -> String {
    match (lower > -total, upper < total) {
        _ if lower == upper => signed(lower),
        (false, true) => format!("at most {}", signed(upper)),
        (true, false) => format!("at least {}", signed(lower)),
        (true, true) => format!("{} to {}", signed(lower), signed(upper)),
        (false, false) => "unknown".to_string(),
    }
}

/// Proofs as the document names them: `` `name` `` joined by ", ", or "–" when there is none.
fn named(proofs: &[String]) -> String {
    let names: Vec<String> =
        proofs.iter().map(|proof| format!("`{}`", proof.trim_start_matches("data/proofs/"))).collect();
    if names.is_empty() { "–".to_string() } else { names.join(", ") }
}

/// The document says every proof it names was checked: each must hold a `check-*.txt`.
fn assert_checked(proofs: &[String]) {
    for proof in proofs {
        let dir = repository().join(proof);
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

/// The section of `doc` under the heading `## {title}`, up to the next `## ` heading.
fn section<'d>(doc: &'d str, title: &str) -> &'d str {
    let heading = format!("## {title}\n");
    let from =
        doc.find(&heading).unwrap_or_else(|| panic!("docs/results.md has no section {heading:?}")) + heading.len();
    let rest = &doc[from..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// Checks the tables of `section` against the map `file` line by line, as the module says, and
/// returns the rule sets the map holds in its order. `published`, where given, names the rule set
/// whose table has a published column and that column's values by first turn.
fn tables_say_what_the_map_says(
    section: &str,
    file: &str,
    published: Option<(&str, &BTreeMap<String, i32>)>,
) -> Vec<String> {
    let map = std::fs::read_to_string(repository().join(file)).unwrap();
    let mut rule_sets = Vec::new();
    for line in map.lines() {
        let start = serde_json::from_str::<ItemResult>(line).unwrap().table;
        let rules = &start.rules;
        let total = parse_position(&start.position).unwrap().total_seeds() as i32;
        let (bounds, lower_proofs, upper_proofs) =
            (start.known.bounds, &start.known.lower_proofs, &start.known.upper_proofs);
        let (heading, rows) = table_after(section, &format!("**{rules}**:"));
        let pie = match start.pie_value {
            Some(pie) => format!("; under the pie rule {} (fairest: {})", signed(pie), start.fairest_text()),
            None => String::new(),
        };
        let expected_heading = format!(
            "**{rules}**: the start {} ({} and {}){pie}.",
            worded(bounds.lower, bounds.upper, total),
            named(lower_proofs),
            named(upper_proofs)
        );
        assert_eq!(heading, expected_heading, "{file}: the {rules} start");
        assert_checked(lower_proofs);
        assert_checked(upper_proofs);
        assert_eq!(rows.len(), start.openings.len(), "{file}, {rules}: one row per first turn");
        for (row, opening) in rows.iter().zip(&start.openings) {
            let turn = &opening.turn.to_string();
            let known = &opening.known;
            let mut expected = vec![
                turn.clone(),
                worded(known.bounds.lower, known.bounds.upper, total),
                named(&known.lower_proofs),
                named(&known.upper_proofs),
            ];
            if let Some((_, values)) = published.filter(|(published_rules, _)| rules == published_rules) {
                expected.push(signed(values[turn]));
            }
            assert_eq!(*row, expected, "{file}, {rules}, turn {turn}");
            assert_checked(&known.lower_proofs);
            assert_checked(&known.upper_proofs);
        }
        rule_sets.push(rules.clone());
    }
    rule_sets
}

#[test]
fn the_first_turn_tables_say_what_the_map_says() {
    let doc = std::fs::read_to_string(repository().join("docs/results.md")).unwrap();
    let published: BTreeMap<String, i32> = opening_values(OPENINGS_6X6_EMPTY_CAPTURE_CSV)
        .unwrap()
        .into_iter()
        .map(|(turn, value)| (turn.to_string(), value))
        .collect();
    let six = section(&doc, "Kalah(6,6)'s first turns");
    let rule_sets =
        tables_say_what_the_map_says(six, "data/results/openings-6x6.jsonl", Some(("empty-capture", &published)));
    // Standard and empty capture are mapped turn by turn; the others have the start's winner (issue 41).
    let expected = ["standard", "empty-capture", "bga", "bga capture=empty", "standard remaining=discard"];
    assert_eq!(rule_sets, expected, "the rule sets the (6,6) map holds");
    // Kalah(6,5) under Wetherell's rules, the one (6,5) start no search settled (issue 41).
    let five = section(&doc, "Kalah(6,5)'s first turns from proofs");
    let rule_sets = tables_say_what_the_map_says(five, "data/results/openings-6x5-proofs.jsonl", None);
    assert_eq!(rule_sets, ["wetherell"], "the rule sets the (6,5) map holds");
}
