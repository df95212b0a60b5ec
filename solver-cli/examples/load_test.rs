//! Load test of `kalah serve` (run by scripts/load-test.sh): N requests from C concurrent clients,
//! each for a different position reached by random play from a start, mostly `/position` and
//! every fifth `/mainline`. Prints requests per second and latency percentiles; exits 1 if any
//! request failed. Two hostile mixes go with it:
//! - `--slow S`: S more clients ask at the same moment for positions far beyond the databases
//!   (searches that run out of time); they may be refused (503), the others may not.
//! - `--slowloris L`: L more connections, opened before the clients start, send a request's head a
//!   line every 500 ms, never finishing, for as long as the test runs and at least
//!   `--drip-seconds`; the count the server closed is printed.
//!
//! cargo run --release -p solver-cli --example load_test -- --url http://127.0.0.1:8080 \
//!     [--requests 2000] [--clients 8] [--rules standard] [--start 6x4] [--min-seeds 8] [--max-seeds 28] \
//!     [--slow 0] [--slowloris 0] [--drip-seconds 0]

use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use kalah::{Position, Rules};
use serde_json::Value;

struct Options {
    url: String,
    requests: usize,
    clients: usize,
    rules: String,
    start: String,
    min_seeds: u32,
    max_seeds: u32,
    slow: usize,
    slowloris: usize,
    drip_seconds: u64,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        url: "http://127.0.0.1:8080".to_string(),
        requests: 2000,
        clients: 8,
        rules: "standard".to_string(),
        start: "6x4".to_string(),
        min_seeds: 8,
        max_seeds: 28,
        slow: 0,
        slowloris: 0,
        drip_seconds: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<usize>().map_err(|_| format!("{flag} {value}: not a number"));
        match flag.as_str() {
            "--url" => options.url = value.trim_end_matches('/').to_string(),
            "--requests" => options.requests = number()?,
            "--clients" => options.clients = number()?.max(1),
            "--rules" => options.rules = value,
            "--start" => options.start = value,
            "--min-seeds" => options.min_seeds = number()? as u32,
            "--max-seeds" => options.max_seeds = number()? as u32,
            "--slow" => options.slow = number()?,
            "--slowloris" => options.slowloris = number()?,
            "--drip-seconds" => options.drip_seconds = number()? as u64,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(options)
}

/// A position reached by random play from `start` that has between `min` and `max` seeds on the
/// board (a target drawn in that range), with a move to make.
fn random_position(rules: &Rules, start: &Position, min: u32, max: u32, seed: &mut u64) -> Position {
    let mut next = || {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*seed >> 33) as usize
    };
    loop {
        let target = min + (next() as u32) % (max - min + 1);
        let mut position = *start;
        while !position.is_over(rules) && position.seeds_on_board() > target {
            let moves: Vec<usize> = position.legal_moves().collect();
            position.play(rules, moves[next() % moves.len()]);
        }
        if !position.is_over(rules) {
            return position;
        }
    }
}

/// What one request gave: its latency, and its source or its failure.
struct Outcome {
    latency: Duration,
    result: Result<String, String>,
}

fn request(agent: &ureq::Agent, url: &str, endpoint: &str, rules: &str, position: &Position) -> Outcome {
    let clock = Instant::now();
    let text = position.to_string();
    let result = agent
        .get(format!("{url}/api/v1/{endpoint}"))
        .query("pos", &text)
        .query("rules", rules)
        .call()
        .map_err(|err| err.to_string())
        .and_then(|mut response| {
            let status = response.status().as_u16();
            let body = response.body_mut().read_to_string().map_err(|err| err.to_string())?;
            if status != 200 {
                return Err(format!("{status} for {text}: {body}"));
            }
            let json: Value = serde_json::from_str(&body).map_err(|err| err.to_string())?;
            let cached = json["cached"].as_bool() == Some(true);
            let source = json["source"].as_str().unwrap_or(endpoint);
            Ok(if cached { "cached".to_string() } else { source.to_string() })
        });
    Outcome { latency: clock.elapsed(), result }
}

/// Opens `count` connections, then says `ready`; they send a request's head a line every 500 ms
/// and never finish it, until `stop` and `at_least` has passed. Counts in `closed` those the
/// server closes.
fn drip_heads(
    host: &str,
    count: usize,
    at_least: Duration,
    ready: &AtomicBool,
    stop: &AtomicBool,
    closed: &AtomicUsize,
) {
    let clock = Instant::now();
    let mut open: Vec<TcpStream> = (0..count)
        .filter_map(|_| {
            let mut stream = TcpStream::connect(host).ok()?;
            stream.write_all(b"GET /api/v1/rules HTTP/1.1\r\nHost: load-test\r\n").ok()?;
            Some(stream)
        })
        .collect();
    closed.fetch_add(count - open.len(), Ordering::SeqCst);
    ready.store(true, Ordering::SeqCst);
    let done = || stop.load(Ordering::SeqCst) && clock.elapsed() >= at_least;
    while !open.is_empty() && !done() {
        std::thread::sleep(Duration::from_millis(500));
        open.retain_mut(|stream| {
            let alive = stream.write_all(b"X-Drip: 1\r\n").is_ok();
            if !alive {
                closed.fetch_add(1, Ordering::SeqCst);
            }
            alive
        });
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e3
}

fn main() {
    let options = options().unwrap_or_else(|err| {
        eprintln!("error: {err}");
        std::process::exit(2);
    });
    let rules: Rules = options.rules.parse().unwrap_or_else(|err| {
        eprintln!("error: {err}");
        std::process::exit(2);
    });
    let start = kalah::parse_start(&options.start).unwrap_or_else(|err| {
        eprintln!("error: bad start: {}", err.render(&options.start));
        std::process::exit(2);
    });
    let mut seed = 2026;
    let positions: Vec<Position> = (0..options.requests)
        .map(|_| random_position(&rules, &start, options.min_seeds, options.max_seeds, &mut seed))
        .collect();
    // Positions far beyond any database: Kalah(6,6) after a few random moves.
    let far: Vec<Position> = (0..options.slow)
        .map(|_| random_position(&rules, &Position::start(6, 6).expect("a start"), 60, 70, &mut seed))
        .collect();
    let host = options.url.trim_start_matches("http://").to_string();
    let (dripping, stop_dripping) = (AtomicBool::new(false), AtomicBool::new(false));
    let dripping_closed = AtomicUsize::new(0);
    let (outcomes, slow_statuses, seconds) = std::thread::scope(|scope| {
        let host = &host;
        if options.slowloris > 0 {
            let (ready, stop, closed) = (&dripping, &stop_dripping, &dripping_closed);
            let at_least = Duration::from_secs(options.drip_seconds);
            scope.spawn(move || drip_heads(host, options.slowloris, at_least, ready, stop, closed));
            while !dripping.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let clock = Instant::now();
        let slow: Vec<_> = far
            .iter()
            .map(|position| {
                let options = &options;
                scope.spawn(move || request(&ureq::agent(), &options.url, "position", &options.rules, position))
            })
            .collect();
        let workers: Vec<_> = (0..options.clients)
            .map(|client| {
                let (positions, options) = (&positions, &options);
                scope.spawn(move || {
                    let agent = ureq::agent();
                    (client..positions.len())
                        .step_by(options.clients)
                        .map(|i| {
                            let endpoint = if i % 5 == 4 { "mainline" } else { "position" };
                            request(&agent, &options.url, endpoint, &options.rules, &positions[i])
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let outcomes: Vec<Outcome> =
            workers.into_iter().flat_map(|worker| worker.join().expect("a client thread")).collect();
        // The clients' time: the slow searches may go on after them.
        let seconds = clock.elapsed().as_secs_f64();
        let slow: Vec<Outcome> = slow.into_iter().map(|worker| worker.join().expect("a client thread")).collect();
        stop_dripping.store(true, Ordering::SeqCst);
        (outcomes, slow, seconds)
    });
    let mut latencies: Vec<Duration> = outcomes.iter().map(|o| o.latency).collect();
    latencies.sort();
    let mut sources = std::collections::BTreeMap::new();
    let mut errors = Vec::new();
    for outcome in &outcomes {
        match &outcome.result {
            Ok(source) => *sources.entry(source.clone()).or_insert(0) += 1,
            Err(err) => errors.push(err.clone()),
        }
    }
    println!(
        "{} requests from {} clients to {} ({} positions of {}, {}..={} seeds on the board)",
        outcomes.len(),
        options.clients,
        options.url,
        options.rules,
        options.start,
        options.min_seeds,
        options.max_seeds
    );
    println!("{seconds:.2} s, {:.1} requests/s, {} errors", outcomes.len() as f64 / seconds, errors.len());
    if !latencies.is_empty() {
        println!(
            "latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.9),
            percentile(&latencies, 0.99),
            percentile(&latencies, 1.0)
        );
    }
    let sources: Vec<String> = sources.iter().map(|(source, count)| format!("{source} {count}")).collect();
    println!("answered: {}", sources.join(", "));
    if !slow_statuses.is_empty() {
        let refused = slow_statuses.iter().filter(|o| o.result.as_ref().is_err_and(|e| e.contains("503"))).count();
        let mut latencies: Vec<Duration> = slow_statuses.iter().map(|o| o.latency).collect();
        latencies.sort();
        println!(
            "{} searches beyond the databases sent at once: {} answered, {} refused with 503, slowest after {:.1} s",
            slow_statuses.len(),
            slow_statuses.iter().filter(|o| o.result.is_ok()).count(),
            refused,
            percentile(&latencies, 1.0) / 1e3
        );
    }
    if options.slowloris > 0 {
        println!(
            "{} connections sending a head a line at a time: {} closed by the server",
            options.slowloris,
            dripping_closed.load(Ordering::SeqCst)
        );
    }
    for err in errors.iter().take(5) {
        eprintln!("failed: {err}");
    }
    if !errors.is_empty() {
        std::process::exit(1);
    }
}
