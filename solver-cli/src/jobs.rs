//! The job commands: `run` (a job file, or one shard of it, resumable from its log) and `merge`
//! (the shards' logs combined into one log and one set of result files).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use kalah::jobs::{self, Job, JobError};
use kalah::shard::Shard;

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
    let text = if args.json { json_line(&report)? } else { report.text(&job, args.all) };
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
    let text = if args.json { json_line(&report)? } else { report.text(&job, args.all) };
    let open = &report.unsettled_items;
    if !open.is_empty() {
        write_stdout(&text)?;
        let unsettled: Vec<String> = open.iter().map(|n| n.to_string()).collect();
        anyhow::bail!("items {} are not settled yet: a shard has not finished (or not run)", unsettled.join(", "));
    }
    Ok(text)
}
