//! The openings result files of `data/results` (`NAME.jsonl`, one [`ItemResult`] a line, and
//! `NAME.csv`, one row a line): written by `kalah run` (the jobs) and `kalah proof map`, read by
//! the opening book. The one place their format is written and read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::answer::{Bounds, OPENINGS_LISTED, Opening, Proven, first_few, openings_by_value_text};

/// A finished item, as written to the result files.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ItemResult {
    /// The job's name.
    pub job: String,
    /// The item's number in the job file.
    pub item: usize,
    /// The rules, in the form that parses back.
    pub rules: String,
    /// The start as the job file gives it.
    pub start: String,
    /// The position.
    pub position: String,
    /// What was computed.
    pub compute: String,
    /// The exact value for the side to move, when computed.
    pub value: Option<i32>,
    /// Proven bounds on the value (of the listed openings, when the item restricts them).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
    /// The proof directories `lower` rests on, where proofs give it (`kalah proof map`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lower_proofs: Vec<String>,
    /// The proof directories `upper` rests on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upper_proofs: Vec<String>,
    /// The answer of a bound test.
    pub holds: Option<bool>,
    /// The first player's value under the pie rule (openings items).
    pub pie_value: Option<i32>,
    /// The openings reaching the value (openings items).
    pub best: Vec<String>,
    /// Every opening searched, with what is proven about it.
    pub openings: Vec<Opening>,
    /// Nodes over all runs.
    pub nodes: u64,
    /// Seconds over all runs.
    pub seconds: f64,
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
    /// What the line says is proven of the value, with the proofs behind it.
    pub fn proven(&self) -> Proven {
        Proven::new(
            Bounds { lower: self.lower, upper: self.upper },
            self.lower_proofs.clone(),
            self.upper_proofs.clone(),
        )
    }

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
        if self.openings.len() <= OPENINGS_LISTED {
            return None;
        }
        let exact = self.openings.iter().filter_map(Opening::value);
        let unsettled = self.openings.iter().filter(|o| o.value().is_none()).count();
        let mut summary =
            format!("{} openings by value: {}", self.openings.len(), openings_by_value_text(exact, separator));
        if unsettled > 0 {
            summary += &format!("{separator}{unsettled} not settled");
        }
        Some((first_few(&self.best, 5), summary))
    }
}

/// The CSV form of a result: openings as `move: value` pairs separated by `; `, or, beyond
/// [`OPENINGS_LISTED`] of them, their count by value (the JSON lines list every one).
fn csv_row(result: &ItemResult, total: u32) -> Vec<String> {
    let opt = |v: Option<i32>| v.map_or(String::new(), |v| v.to_string());
    let (openings, best) = match result.openings_summary("; ") {
        Some((best, summary)) => (summary, best),
        None => {
            let openings: Vec<String> =
                result.openings.iter().map(|o| format!("{}: {}", o.turn, o.bounds().text(total))).collect();
            (openings.join("; "), result.best.join("; "))
        }
    };
    vec![
        result.job.clone(),
        result.item.to_string(),
        result.rules.clone(),
        result.start.clone(),
        result.compute.clone(),
        opt(result.value),
        result.lower.to_string(),
        result.upper.to_string(),
        result.holds.map_or(String::new(), |h| h.to_string()),
        opt(result.pie_value),
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

/// `STEM` with `suffix` appended to its file name.
fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}
