//! Joining the logs of a job's shards into one log and one set of result files.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Job, JobError, Proofs};
use crate::results::ItemResult;

/// What a merge wrote. Its JSON is `kalah merge --json`'s.
#[derive(Clone, Debug, Serialize)]
pub struct MergeReport {
    /// The job's name.
    pub job: String,
    /// The logs merged.
    pub logs: Vec<PathBuf>,
    /// The job's items.
    pub items: usize,
    /// The numbers of the items no log settles yet.
    pub unsettled_items: Vec<usize>,
    /// Every settled item's result.
    pub results: Vec<ItemResult>,
    /// The merged log.
    #[serde(skip)]
    pub log: PathBuf,
    /// The results file (CSV; the JSON lines file beside it).
    #[serde(skip)]
    pub results_csv: PathBuf,
}

impl MergeReport {
    /// The logs merged, then every settled item of `job` ([`super::results_text`], every
    /// opening listed with `all`), and where the results and the merged log are.
    pub fn text(&self, job: &Job, all: bool) -> String {
        let mut text = format!("merged {} logs of job {}:\n", self.logs.len(), self.job);
        for path in &self.logs {
            text += &format!("  {}\n", path.display());
        }
        text += &super::results_text(job, &self.results, all);
        text + &format!("results: {} (and .jsonl); merged log: {}\n", self.results_csv.display(), self.log.display())
    }
}

/// Intersects the bounds of `logs` (a contradiction is [`JobError::Merge`]) and writes them
/// as the job's one log in `dir`, with the results they give. Refused while a run writes any of
/// those logs or the merged one: each run holds its log's lock, and so does the merge.
pub fn merge(job: &Job, dir: &Path, logs: &[PathBuf]) -> Result<MergeReport, JobError> {
    let stem = super::file_stem(dir, &job.name, None);
    let merged = super::log_path(&stem);
    let _locks = logs.iter().map(|log| crate::lock::FileLock::beside(log)).collect::<Result<Vec<_>, _>>()?;
    let _merged_lock = if logs.contains(&merged) { None } else { Some(crate::lock::FileLock::beside(&merged)?) };
    let mut proofs = Proofs::default();
    for path in logs {
        let mut one = Proofs::default();
        one.read_log(path)?;
        proofs.merge(&one).map_err(|err| JobError::Merge { path: path.clone(), source: Box::new(err) })?;
    }
    let mut lines = String::new();
    for record in proofs.records() {
        lines += &serde_json::to_string(&record).expect("a record serializes");
        lines.push('\n');
    }
    super::write_atomically(&merged, lines.as_bytes())?;
    let results = super::results(job, &job.tasks(), &proofs);
    super::write_results(&stem, job, &results)?;
    let unsettled_items =
        job.items.iter().filter(|i| !results.iter().any(|r| r.item == i.number)).map(|i| i.number).collect();
    Ok(MergeReport {
        job: job.name.clone(),
        logs: logs.to_vec(),
        items: job.items.len(),
        unsettled_items,
        results,
        log: merged,
        results_csv: super::with_suffix(&stem, ".csv"),
    })
}
