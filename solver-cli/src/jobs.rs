//! The job commands: `run` (a job file, or one shard of it, resumable from its log) and `merge`
//! (the shards' logs combined into one log and one set of result files).

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use kalah::jobs::{self, Job, JobError};
use kalah::results::ItemResult;
use kalah::shard::Shard;
use serde::Serialize;

use crate::args::{SearchArgs, input_error};
use crate::limits;
use crate::output::{json_line, write_stdout};
use crate::search::Shown;

#[derive(Args)]
pub struct RunArgs {
    /// The job file (TOML): items, each a start, rules and what to compute.
    job: PathBuf,
    /// Run only shard I of N (e.g. 2/8): every Nth task, the same share on every machine.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Directory for the job's log (NAME.tasks.jsonl) and results (NAME.csv, NAME.jsonl).
    #[arg(long, value_name = "DIR", default_value = "data/results")]
    results: PathBuf,
    /// (--time-limit is per task here: a task not settled in time keeps its proven bounds and
    /// is taken up again by the next run.)
    #[command(flatten)]
    search: SearchArgs,
    /// Save the transposition table every this many minutes while a task runs (0: never), to
    /// NAME.table beside the log: a killed run then goes on from it.
    #[arg(long, value_name = "MIN", default_value_t = 10.0, value_parser = limits::minutes)]
    checkpoint_minutes: f64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// List every opening even when there are many (text output summarises more than 20).
    #[arg(long)]
    all: bool,
}

#[derive(Args)]
pub struct MergeArgs {
    /// The job file the shards ran.
    job: PathBuf,
    /// Directory holding the shards' logs (NAME.shard-I-of-N.tasks.jsonl); the merged log and
    /// the results are written there.
    #[arg(long, value_name = "DIR", default_value = "data/results")]
    results: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// List every opening even when there are many (text output summarises more than 20).
    #[arg(long)]
    all: bool,
}

/// A job file that cannot be read or is not a job is bad input.
fn load_job(path: &std::path::Path) -> anyhow::Result<Job> {
    Job::load(path).map_err(|err| match err {
        JobError::Invalid { .. } | JobError::Io { .. } => input_error(err.to_string()),
        err => err.into(),
    })
}

pub fn run(args: &RunArgs) -> anyhow::Result<String> {
    let job = load_job(&args.job)?;
    let setup = args.search.setup();
    let minutes = args.checkpoint_minutes;
    let options = jobs::RunOptions {
        shard: args.shard,
        results: args.results.clone(),
        task_time_limit: args.search.time_limit,
        checkpoint_every: (minutes > 0.0).then(|| Duration::from_secs_f64(minutes * 60.0)),
        interrupt: Some(crate::interrupt::stop_flag("stopping; the bounds proven so far are logged")),
    };
    let bar = Shown::counting("tasks");
    let report = jobs::run(&job, &setup, &options, &bar);
    bar.tasks.finish_and_clear();
    let report = report?;
    let text = if args.json {
        json_line(&Ran {
            job: &job.name,
            shard: args.shard.map(|s| s.to_string()),
            items: job.items.len(),
            tasks: report.tasks,
            solved_now: report.settled_now,
            settled_before: report.settled_before,
            unfinished: &report.unsettled,
            interrupted: report.interrupted,
            seconds: report.seconds,
            log: &report.log,
            results_csv: &report.results_csv,
            results: &report.results,
        })?
    } else {
        let shard = args.shard.map_or(String::new(), |s| format!(", shard {s}"));
        let mut text = format!(
            "job {}{shard}: {} tasks, {} settled before, {} settled now, {} not settled ({:.1} s)\n",
            job.name,
            report.tasks,
            report.settled_before,
            report.settled_now,
            report.unsettled.len(),
            report.seconds
        );
        text += &jobs::results_text(&job, &report.results, args.all);
        text += &format!("results: {} (and .jsonl); log: {}\n", report.results_csv.display(), report.log.display());
        text
    };
    if report.interrupted {
        write_stdout(&text)?;
        anyhow::bail!("interrupted: the proven bounds are in the log, run again to go on");
    }
    if !report.unsettled.is_empty() {
        write_stdout(&text)?;
        let why = match report.too_deep {
            0 => "within the time limit".to_string(),
            n => format!("({n} too far above the database for the search through repeating positions)"),
        };
        anyhow::bail!(
            "{} tasks not settled {why}; their proven bounds are in the log, run again to go on",
            report.unsettled.len()
        );
    }
    Ok(text)
}

pub fn merge(args: &MergeArgs) -> anyhow::Result<String> {
    let job = load_job(&args.job)?;
    let logs = jobs::logs_in(&args.results, &job.name).map_err(anyhow::Error::from)?;
    if logs.is_empty() {
        return Err(input_error(format!(
            "no logs of job '{}' in {} (expected {}.shard-I-of-N.tasks.jsonl)",
            job.name,
            args.results.display(),
            job.name
        )));
    }
    let report = jobs::merge(&job, &args.results, &logs)?;
    let (results, open) = (&report.results, &report.unsettled_items);
    let text = if args.json {
        let logs: Vec<String> = logs.iter().map(|p| p.display().to_string()).collect();
        json_line(&Merged { job: &job.name, logs, items: job.items.len(), unsettled_items: open, results })?
    } else {
        let mut text = format!("merged {} logs of job {}:\n", logs.len(), job.name);
        for path in &logs {
            text += &format!("  {}\n", path.display());
        }
        text += &jobs::results_text(&job, results, args.all);
        text +=
            &format!("results: {} (and .jsonl); merged log: {}\n", report.results_csv.display(), report.log.display());
        text
    };
    if !open.is_empty() {
        write_stdout(&text)?;
        let unsettled: Vec<String> = open.iter().map(|n| n.to_string()).collect();
        anyhow::bail!("items {} are not settled yet: a shard has not finished (or not run)", unsettled.join(", "));
    }
    Ok(text)
}

/// `kalah run --json`.
#[derive(Serialize)]
struct Ran<'a> {
    job: &'a str,
    shard: Option<String>,
    items: usize,
    tasks: usize,
    solved_now: usize,
    settled_before: usize,
    unfinished: &'a [String],
    interrupted: bool,
    seconds: f64,
    log: &'a Path,
    results_csv: &'a Path,
    results: &'a [ItemResult],
}

/// `kalah merge --json`.
#[derive(Serialize)]
struct Merged<'a> {
    job: &'a str,
    logs: Vec<String>,
    items: usize,
    unsettled_items: &'a [usize],
    results: &'a [ItemResult],
}
