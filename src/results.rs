//! The openings result files of `data/results` (`NAME.jsonl`, one [`ItemResult`] a line, and
//! `NAME.csv`, one row a line): written by `kalah run` (the jobs) and `kalah proof map`, read by
//! the opening book. The one place their format is written and read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::answer::{
    Bounds, OPENINGS_LISTED, Opening, OpeningsTable, Proven, Source, first_few, openings_by_value_text,
};
use crate::notation::parse_position;
use crate::rules::Rules;

/// A finished item of a job or a map: which item and what was computed, its openings table (what
/// is known of the value, with the proofs behind it, and of each listed opening; the pie value
/// and the best turns the table gives), the answer of a bound test, and the work. Serialised with
/// the keys `job`, `item`, `rules`, `start`, `position`, `compute`, `value`, `lower`, `upper`,
/// `lower_proofs` and `upper_proofs` (where proofs give them), `holds`, `pie_value`, `best`,
/// `openings`, `nodes` and `seconds`; read back only where the value, the pie value and the best
/// turns are those its openings give.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "ItemResultFields", try_from = "ItemResultFields")]
pub struct ItemResult {
    /// The job's name.
    pub job: String,
    /// The item's number in the job file.
    pub item: usize,
    /// The start as the job file gives it.
    pub start: String,
    /// What was computed.
    pub compute: String,
    /// What is known of the position and its openings (of the listed ones, when the item
    /// restricts them); read back, its source is the proofs where it names any, else the book.
    pub table: OpeningsTable,
    /// The answer of a bound test.
    pub holds: Option<bool>,
    /// Nodes over all runs.
    pub nodes: u64,
    /// Seconds over all runs.
    pub seconds: f64,
}

/// [`ItemResult`] as a result file's line gives it.
#[derive(Serialize, Deserialize)]
struct ItemResultFields {
    job: String,
    item: usize,
    rules: String,
    start: String,
    position: String,
    compute: String,
    value: Option<i32>,
    lower: i32,
    upper: i32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    lower_proofs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    upper_proofs: Vec<String>,
    holds: Option<bool>,
    pie_value: Option<i32>,
    best: Vec<String>,
    openings: Vec<Opening>,
    nodes: u64,
    seconds: f64,
}

impl From<ItemResult> for ItemResultFields {
    fn from(result: ItemResult) -> ItemResultFields {
        let OpeningsTable { rules, position, known, pie_value, best, openings, .. } = result.table;
        ItemResultFields {
            job: result.job,
            item: result.item,
            rules,
            start: result.start,
            position,
            compute: result.compute,
            value: known.value(),
            lower: known.bounds.lower,
            upper: known.bounds.upper,
            lower_proofs: known.lower_proofs,
            upper_proofs: known.upper_proofs,
            holds: result.holds,
            pie_value,
            best,
            openings,
            nodes: result.nodes,
            seconds: result.seconds,
        }
    }
}

impl TryFrom<ItemResultFields> for ItemResult {
    type Error = String;
    fn try_from(fields: ItemResultFields) -> Result<ItemResult, String> {
        let rules: Rules = fields.rules.parse().map_err(|err| format!("rules '{}': {err}", fields.rules))?;
        let position = parse_position(&fields.position).map_err(|err| err.message)?;
        let bounds = Bounds { lower: fields.lower, upper: fields.upper };
        if bounds.lower > bounds.upper || fields.value.is_some_and(|v| bounds.value() != Some(v)) {
            return Err(format!("value {:?} and bounds {bounds:?} do not agree", fields.value));
        }
        let known = Proven::new(bounds, fields.lower_proofs, fields.upper_proofs);
        let proofs_named = !known.proofs().is_empty() || fields.openings.iter().any(|o| !o.known.proofs().is_empty());
        let source = if proofs_named { Source::Proof } else { Source::Book };
        let table = OpeningsTable::new(&rules, &position, known, fields.openings, source);
        if (&table.best, table.pie_value) != (&fields.best, fields.pie_value) {
            return Err(format!(
                "best {:?} and pie value {:?} are not what its openings give ({:?}, {:?})",
                fields.best, fields.pie_value, table.best, table.pie_value
            ));
        }
        Ok(ItemResult {
            job: fields.job,
            item: fields.item,
            start: fields.start,
            compute: fields.compute,
            table,
            holds: fields.holds,
            nodes: fields.nodes,
            seconds: fields.seconds,
        })
    }
}

/// A result file that could not be written: which, and what the system said.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}", path = path.display())]
pub struct ResultFileError {
    /// The file.
    pub path: PathBuf,
    /// What the system said.
    pub source: std::io::Error,
}

impl ItemResult {
    /// The result lines of a `.jsonl` result file's `text` (blank lines skipped); the error names
    /// the first line that is not one.
    pub fn parse_lines(text: &str) -> Result<Vec<ItemResult>, String> {
        let lines = text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty());
        lines
            .map(|(number, line)| serde_json::from_str(line).map_err(|err| format!("line {}: {err}", number + 1)))
            .collect()
    }

    /// Beyond [`OPENINGS_LISTED`] openings (relay and go-again sowing make thousands), what they
    /// come to, for text and CSV: the first few best openings, and the count of openings by
    /// value with its parts joined by `separator`. `None` when the openings are few enough to
    /// list.
    pub fn openings_summary(&self, separator: &str) -> Option<(String, String)> {
        let openings = &self.table.openings;
        if openings.len() <= OPENINGS_LISTED {
            return None;
        }
        let exact = openings.iter().filter_map(Opening::value);
        let unsettled = openings.iter().filter(|o| o.value().is_none()).count();
        let mut summary = format!("{} openings by value: {}", openings.len(), openings_by_value_text(exact, separator));
        if unsettled > 0 {
            summary += &format!("{separator}{unsettled} not settled");
        }
        Some((first_few(&self.table.best, 5), summary))
    }
}

/// The CSV form of a result: openings as `move: value` pairs separated by `; `, or, beyond
/// [`OPENINGS_LISTED`] of them, their count by value (the JSON lines list every one).
fn csv_row(result: &ItemResult, total: u32) -> Vec<String> {
    let table = &result.table;
    let opt = |v: Option<i32>| v.map_or(String::new(), |v| v.to_string());
    let (openings, best) = match result.openings_summary("; ") {
        Some((best, summary)) => (summary, best),
        None => {
            let openings: Vec<String> =
                table.openings.iter().map(|o| format!("{}: {}", o.turn, o.bounds().text(total))).collect();
            (openings.join("; "), table.best.join("; "))
        }
    };
    vec![
        result.job.clone(),
        result.item.to_string(),
        table.rules.clone(),
        result.start.clone(),
        result.compute.clone(),
        opt(table.value()),
        table.known.bounds.lower.to_string(),
        table.known.bounds.upper.to_string(),
        result.holds.map_or(String::new(), |h| h.to_string()),
        opt(table.pie_value),
        best,
        openings,
        result.nodes.to_string(),
        format!("{:.3}", result.seconds),
    ]
}

const CSV_HEADER: [&str; 14] = [
    "job",
    "item",
    "rules",
    "start",
    "compute",
    "value",
    "lower",
    "upper",
    "holds",
    "pie_value",
    "best",
    "openings",
    "nodes",
    "seconds",
];

/// Writes `results` as the result files `STEM.csv` and `STEM.jsonl`, in order; `total_seeds`
/// gives each result's game's seeds (what an unproven bound is).
pub fn write_result_files(
    stem: &Path,
    results: &[ItemResult],
    total_seeds: impl Fn(&ItemResult) -> u32,
) -> Result<(), ResultFileError> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(CSV_HEADER).expect("writing to memory");
    let mut jsonl = String::new();
    for result in results {
        let total = total_seeds(result);
        csv.write_record(csv_row(result, total)).expect("writing to memory");
        jsonl += &serde_json::to_string(result).expect("a result serialises");
        jsonl.push('\n');
    }
    let csv = csv.into_inner().expect("writing to memory");
    write_whole(&with_suffix(stem, ".csv"), &csv)?;
    write_whole(&with_suffix(stem, ".jsonl"), jsonl.as_bytes())
}

/// The JSON-lines file of the result files `STEM`: `STEM.jsonl`.
pub fn jsonl_path(stem: &Path) -> PathBuf {
    with_suffix(stem, ".jsonl")
}

/// The lines of the result file `STEM.jsonl` (none where there is no such file), read through
/// [`crate::input`]; the error names the file and the first line that is not a result line.
pub fn read_result_file(stem: &Path) -> Result<Vec<ItemResult>, String> {
    let jsonl = jsonl_path(stem);
    match crate::input::read_text(&jsonl, crate::input::LARGE_FILE_BYTES) {
        Ok(text) => ItemResult::parse_lines(&text).map_err(|err| format!("{}: {err}", jsonl.display())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(format!("{}: {err}", jsonl.display())),
    }
}

/// Writes `bytes` to `path` whole or not at all ([`crate::atomic::write_bytes`]).
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), ResultFileError> {
    crate::atomic::write_bytes(path, bytes).map_err(|source| ResultFileError { path: path.to_path_buf(), source })
}

/// `stem` with `suffix` appended to its file name (`data/results/j` + `.csv`).
pub(crate) fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every committed result line reads back and writes again byte for byte, and a line whose
    /// best turns or pie value are not its openings' is refused.
    #[test]
    fn the_committed_result_lines_read_back_and_write_the_same_bytes() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results");
        let mut lines = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.starts_with("openings-") || !name.ends_with(".jsonl") || name.ends_with(".tasks.jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (result, line) in ItemResult::parse_lines(&text).unwrap().iter().zip(text.lines()) {
                assert_eq!(serde_json::to_string(result).unwrap(), line, "{name}");
                lines += 1;
            }
        }
        assert!(lines >= 10, "{lines} lines");
        let text = std::fs::read_to_string(dir.join("openings-6x4.jsonl")).unwrap();
        let line = text.lines().next().unwrap();
        assert!(line.contains(r#""pie_value":0,"#), "{line}");
        assert!(ItemResult::parse_lines(&line.replace(r#""pie_value":0,"#, r#""pie_value":2,"#)).is_err());
        assert!(ItemResult::parse_lines(&line.replace(r#""best":["3 6"]"#, r#""best":["1"]"#)).is_err());
    }
}
