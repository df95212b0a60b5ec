//! The job commands: `run` (a job file, or one shard of it, resumable from its log) and `merge`
//! (the shards' logs combined into one log and one set of result files).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use kalah::jobs::{self, Compute, ItemResult, Job, JobError, Log, Proofs, Shard};
use kalah::search::{Search, SearchError};
use serde_json::json;

use crate::input_error;
use kalah::engine::Load;

use crate::search::{SearchArgs, database_for};

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
    #[arg(long, value_name = "MIN", default_value_t = 10.0)]
    checkpoint_minutes: f64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
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
    args.search.check()?;
    let stem = jobs::file_stem(&args.results, &job.name, args.shard);
    let log_path = jobs::log_path(&stem);
    let mut log = Log::open(&log_path).map_err(anyhow::Error::from)?;
    let minutes = args.checkpoint_minutes;
    if !(minutes >= 0.0 && minutes.is_finite()) {
        return Err(input_error(format!("--checkpoint-minutes {minutes} is not a number of minutes")));
    }
    let checkpoints = (minutes > 0.0).then(|| jobs::Checkpoints {
        path: jobs::with_suffix(&stem, ".table"),
        every: Duration::from_secs_f64(minutes * 60.0),
    });
    let tasks = job.tasks();
    let mine: Vec<usize> = (0..tasks.len()).filter(|&t| args.shard.is_none_or(|s| s.takes(t))).collect();
    let settled = |t: usize, proofs: &Proofs| {
        let task = &tasks[t];
        task.goal.answered(&proofs.known(task).interval) || jobs::item_settled(&job, task.item, &tasks, proofs)
    };
    let pending: Vec<usize> = mine.iter().copied().filter(|&t| !settled(t, log.proofs())).collect();
    let clock = Instant::now();
    jobs::write_results(&stem, &job, &jobs::results(&job, &tasks, log.proofs())).map_err(anyhow::Error::from)?;

    let bar = ProgressBar::new(pending.len() as u64).with_style(
        ProgressStyle::with_template("{spinner} tasks {pos}/{len} [{elapsed_precise}] ETA {eta} {msg}")
            .expect("a valid progress template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let (mut solved, mut unfinished, mut too_deep) = (0, Vec::new(), 0);
    let mut start = 0;
    while start < pending.len() {
        // Consecutive tasks under the same rules and board share one database and one table.
        let first = &tasks[pending[start]];
        let (rules, houses) = (job.items[first.item].rules, first.position.houses());
        let end = start
            + pending[start..]
                .iter()
                .take_while(|&&t| job.items[tasks[t].item].rules == rules && tasks[t].position.houses() == houses)
                .count();
        let biggest = pending[start..end].iter().map(|&t| tasks[t].position).max_by_key(|p| p.seeds_on_board());
        let biggest = biggest.expect("a group has a task");
        let db = bar.suspend(|| database_for(&args.search, &rules, &biggest, Load::Now))?;
        let mut search = Search::new(rules, db.as_ref(), &args.search.options(&biggest, db.as_ref())?)?;
        if let Some(checkpoints) = checkpoints.as_ref().filter(|c| c.path.exists()) {
            match search.table().load(&checkpoints.path, &jobs::table_tag(&rules, houses)) {
                Ok(()) => bar.suspend(|| eprintln!("going on from the table saved in {}", checkpoints.path.display())),
                Err(err) => bar.suspend(|| eprintln!("warning: not using the saved table: {err}")),
            }
        }
        let mut guess = (usize::MAX, 0);
        for &t in &pending[start..end] {
            let task = &tasks[t];
            if settled(t, log.proofs()) {
                bar.inc(1);
                continue;
            }
            bar.set_message(task.describe(&job));
            let limit = args.search.time_limit.map(|s| Instant::now() + Duration::from_secs_f64(s));
            let item_guess = (guess.0 == task.item).then_some(guess.1);
            let (nodes_before, task_clock) = (search.stats().nodes, Instant::now());
            match jobs::solve_task_with_checkpoints(
                &mut search,
                task,
                &mut log,
                item_guess,
                limit,
                checkpoints.as_ref(),
            ) {
                Ok(known) => {
                    solved += 1;
                    if let Some(value) = known.interval.exact() {
                        guess = (task.item, value);
                    }
                }
                Err(JobError::Search(SearchError::TimeUp { .. })) => {
                    // The error's count is one thread's; the search's counts every thread's.
                    let nodes = search.stats().nodes - nodes_before;
                    let spent = task_clock.elapsed().as_secs_f64();
                    bar.suspend(|| {
                        eprintln!(
                            "{}: not settled within the time limit ({nodes} nodes, {spent:.0} s)",
                            task.describe(&job)
                        )
                    });
                    unfinished.push(t);
                }
                Err(JobError::Search(err @ SearchError::LineTooLong { .. })) => {
                    // Like a time limit: the bounds proven so far are logged, other tasks go on.
                    bar.suspend(|| eprintln!("{}: not settled: {err}", task.describe(&job)));
                    unfinished.push(t);
                    too_deep += 1;
                }
                Err(err) => return Err(err.into()),
            }
            jobs::write_results(&stem, &job, &jobs::results(&job, &tasks, log.proofs()))
                .map_err(anyhow::Error::from)?;
            bar.inc(1);
        }
        start = end;
    }
    bar.finish_and_clear();
    if let Some(checkpoints) = checkpoints.as_ref().filter(|_| unfinished.is_empty()) {
        // Every task of this run is settled: the saved table has served.
        let _ = std::fs::remove_file(&checkpoints.path);
    }

    let results = jobs::results(&job, &tasks, log.proofs());
    let seconds = clock.elapsed().as_secs_f64();
    let text = if args.json {
        let unfinished: Vec<&str> = unfinished.iter().map(|&t| tasks[t].key.as_str()).collect();
        format!(
            "{}\n",
            json!({
                "job": job.name, "shard": args.shard.map(|s| s.to_string()), "items": job.items.len(),
                "tasks": mine.len(), "solved_now": solved, "settled_before": mine.len() - pending.len(),
                "unfinished": unfinished, "seconds": seconds, "log": log_path,
                "results_csv": jobs::with_suffix(&stem, ".csv"), "results": results,
            })
        )
    } else {
        let shard = args.shard.map_or(String::new(), |s| format!(", shard {s}"));
        let mut text = format!(
            "job {}{shard}: {} tasks, {} settled before, {solved} settled now, {} not settled ({seconds:.1} s)\n",
            job.name,
            mine.len(),
            mine.len() - pending.len(),
            unfinished.len()
        );
        text += &results_text(&job, &results);
        text += &format!(
            "results: {} (and .jsonl); log: {}\n",
            jobs::with_suffix(&stem, ".csv").display(),
            log_path.display()
        );
        text
    };
    if !unfinished.is_empty() {
        crate::write_stdout(&text)?;
        let why = match too_deep {
            0 => "within the time limit".to_string(),
            n => format!("({n} too far above the database for the search through repeating positions)"),
        };
        anyhow::bail!(
            "{} tasks not settled {why}; their proven bounds are in the log, run again to go on",
            unfinished.len()
        );
    }
    Ok(text)
}

/// One line per settled item, its openings below it.
fn results_text(job: &Job, results: &[ItemResult]) -> String {
    let settled = format!("{} of {} items settled", results.len(), job.items.len());
    let mut text = format!("{settled}\n");
    for result in results {
        let item = &job.items[result.item - 1];
        let answer = match (item.compute, result.holds, result.value) {
            (Compute::AtLeast(_) | Compute::AtMost(_), Some(holds), _) => {
                let bounds = jobs::Interval { lower: result.lower, upper: result.upper };
                format!(
                    "{} (value {})",
                    if holds { "holds" } else { "fails" },
                    bounds.text(item.position.total_seeds())
                )
            }
            (_, _, Some(value)) => crate::signed(value),
            _ => "?".to_string(),
        };
        text += &format!(
            "  item {:>3}  {:<14} {:<6} {:<12} {answer}",
            result.item, result.rules, result.start, result.compute
        );
        if let Some(pie) = result.pie_value {
            text += &format!("  best {}; pie rule {}", result.best.join(", "), crate::signed(pie));
        }
        text += &format!("  ({} nodes, {:.1} s)\n", result.nodes, result.seconds);
        if item.compute == Compute::Openings {
            let openings: Vec<String> = result
                .openings
                .iter()
                .map(|o| format!("{} {}", o.moves, o.value.map_or("?".into(), crate::signed)))
                .collect();
            text += &format!("      openings: {}\n", openings.join(", "));
        }
    }
    text
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
    let mut proofs = Proofs::default();
    for path in &logs {
        let mut one = Proofs::default();
        one.read_log(path).map_err(anyhow::Error::from)?;
        proofs.merge(&one).map_err(anyhow::Error::from).with_context(|| format!("merging {}", path.display()))?;
    }
    let stem = jobs::file_stem(&args.results, &job.name, None);
    let mut lines = String::new();
    for record in proofs.records() {
        lines += &serde_json::to_string(&record)?;
        lines.push('\n');
    }
    jobs::write_atomically(&jobs::log_path(&stem), lines.as_bytes()).map_err(anyhow::Error::from)?;
    let tasks = job.tasks();
    let results = jobs::results(&job, &tasks, &proofs);
    jobs::write_results(&stem, &job, &results).map_err(anyhow::Error::from)?;
    let open: Vec<usize> =
        job.items.iter().filter(|i| !results.iter().any(|r| r.item == i.number)).map(|i| i.number).collect();
    let text = if args.json {
        let logs: Vec<String> = logs.iter().map(|p| p.display().to_string()).collect();
        format!(
            "{}\n",
            json!({ "job": job.name, "logs": logs, "items": job.items.len(), "unsettled_items": open, "results": results })
        )
    } else {
        let mut text = format!("merged {} logs of job {}:\n", logs.len(), job.name);
        for path in &logs {
            text += &format!("  {}\n", path.display());
        }
        text += &results_text(&job, &results);
        text += &format!(
            "results: {} (and .jsonl); merged log: {}\n",
            jobs::with_suffix(&stem, ".csv").display(),
            jobs::log_path(&stem).display()
        );
        text
    };
    if !open.is_empty() {
        crate::write_stdout(&text)?;
        let unsettled: Vec<String> = open.iter().map(|n| n.to_string()).collect();
        anyhow::bail!("items {} are not settled yet: a shard has not finished (or not run)", unsettled.join(", "));
    }
    Ok(text)
}
