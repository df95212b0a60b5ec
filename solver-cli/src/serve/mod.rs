//! `kalah serve`: an HTTP service over the endgame databases and the search. It owns the JSON API
//! under `/api/v1` (a position's value and every move's value, the perfect-play line, the rule
//! sets and databases on offer) and the analysis board page at `/`, whose files are compiled into
//! the binary.
//!
//! Every answer is computed on tokio's blocking threads. Answers that need no search (given
//! before, held by a database, finished games, the rule sets) are computed at once; searches are
//! single-threaded searches with the request's deadline that queue for `--workers`
//! ([`queue`]), so a position too big to solve in time gets a 503 instead of a hung connection,
//! and slow searches never hold up the cheap requests. The searches of one rule set and board
//! size share one transposition table for the server's lifetime: a user stepping through a game
//! asks for positions whose subtrees the previous requests have solved. How connections are
//! accepted and timed out is [`connections`]'s business.

mod connections;
mod progress;
mod queue;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use clap::Args;
use kalah::Position;
use kalah::answer::{self, KeepingMove, LegalMove, PositionMoves, Proven};
use kalah::engine::ProvenIndex;
use kalah::engine::answer_cache::{AnswerCache, Endpoint, KeptAnswer};
use kalah::engine::book::OpeningBook;
use kalah::engine::kept::{Kept, KeptEngines};
use kalah::engine::offer::Offer;
use kalah::engine::proven_index::KeepingTargetError;
use kalah::engine::{Prepared, Unanswered};
use kalah::rules::Rules;
use kalah::search::SearchError;
use serde_json::Value;

use crate::args::{DbArgs, input_error};
use crate::limits;
use crate::output::{as_object, tell, write_stdout};

#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Address to listen on, a host name or an IP address with a port (port 0 picks a free
    /// port; the address is printed on stdout).
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8080", value_parser = socket_address)]
    bind: SocketAddr,
    /// Seconds a request may search before it is answered 503. (Every move's exact value of the
    /// Kalah(6,4) start takes about 20 s on one core with the 24-seed database; the positions
    /// after it take less, as they share the table.)
    #[arg(long, value_name = "S", default_value = "30", value_parser = limits::seconds)]
    time_limit: Duration,
    /// Seconds a search may run when its client asks for more time (`longer=1` on /position and
    /// /keeping-move: the board's "Keep searching"). One such search at a time; a second is
    /// answered 503 until the first ends. At most --time-limit turns the offer off.
    #[arg(long, value_name = "S", default_value = "600", value_parser = limits::seconds)]
    long_time_limit: Duration,
    /// Requests searched at the same time (default: all cores); others wait their turn.
    #[arg(long, value_name = "N", value_parser = limits::threads)]
    workers: Option<usize>,
    /// Searches that may wait for a worker; a search request beyond them is answered 503 at
    /// once. Requests that need no search never wait.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = queue_length)]
    max_queue: usize,
    /// Connections open at once; more clients wait in the system's listen queue.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = max_connections)]
    max_connections: usize,
    /// Seconds a client has to send a request's head once the server is ready for it; a
    /// connection left idle that long is closed too.
    #[arg(long, value_name = "S", default_value = "10", value_parser = limits::seconds)]
    header_timeout: Duration,
    /// Transposition table shared by the searches of each rule set and board size, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 256, value_parser = limits::table_mib)]
    table_mb: usize,
    /// The tables of all rule sets and board sizes together, in MiB: a client naming one kind
    /// after another makes the server let the oldest tables go rather than grow past this.
    #[arg(long, value_name = "MIB", default_value_t = 4096, value_parser = limits::table_mib)]
    max_table_memory_mb: usize,
    /// Use the databases' layers only up to this many seeds on the board.
    #[arg(long, value_name = "SEEDS")]
    max_seeds: Option<usize>,
    /// Load every database under --db before serving, so that no request waits for a layer to
    /// be read (needs memory for all of them: about one byte per position).
    #[arg(long)]
    preload: bool,
    /// Where computed answers are kept across restarts (default: answers.jsonl under --db).
    #[arg(long, value_name = "FILE", conflicts_with = "no_cache")]
    cache: Option<PathBuf>,
    /// Keep computed answers in memory only.
    #[arg(long)]
    no_cache: bool,
    /// Answers kept, the oldest forgotten first (about 2 KB each, in memory and on disk).
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = cache_answers)]
    cache_answers: usize,
    /// More result files for the opening book: every openings-*.jsonl in DIR (the tables of
    /// data/results/ are built into the binary).
    #[arg(long, value_name = "DIR")]
    book: Option<PathBuf>,
}

/// What every request shares: the databases and tables kept, the answers given, and the limits.
struct Service {
    engines: KeptEngines,
    time_limit: Duration,
    /// The limit of a search asked to run longer, and whether one runs now.
    long_time_limit: Duration,
    long_search: AtomicBool,
    /// Answers given, by endpoint, rules and position: a user who undoes or reloads, or many who
    /// open the same start, are answered at once, after a restart too.
    answers: AnswerCache,
    /// Starts and their first turns, answered from the shipped results.
    index: ProvenIndex,
    searches: queue::SearchQueue,
    /// What the searches in flight have proven so far.
    in_flight: progress::InFlight,
}

fn cache_answers(text: &str) -> Result<usize, String> {
    limits::count(text, 1, 10_000_000, "answers").map(|n| n as usize)
}

fn queue_length(text: &str) -> Result<usize, String> {
    limits::count(text, 0, 1 << 20, "waiting searches").map(|n| n as usize)
}

fn max_connections(text: &str) -> Result<usize, String> {
    limits::count(text, 1, 1 << 20, "connections").map(|n| n as usize)
}

/// Raised when the client of a search has gone away: the search stops at its next look.
#[derive(Clone, Default)]
struct Cancel(Arc<AtomicBool>);

/// Raises its flag when dropped.
struct CancelOnDrop(Arc<AtomicBool>);

impl Cancel {
    fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(Arc::clone(&self.0))
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A request that gets no answer: its HTTP status and what to tell the client.
#[derive(Debug)]
pub(crate) struct ApiError {
    status: StatusCode,
    message: String,
    /// More fields of the answer (the legal moves of a position not solved in time).
    details: serde_json::Map<String, Value>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), details: serde_json::Map::new() }
    }

    /// The error with `fields` (an object) in its answer.
    fn with(mut self, fields: &impl serde::Serialize) -> ApiError {
        self.details.extend(as_object(fields));
        self
    }

    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
}

/// An error's answer: what went wrong, the status again, and what is known all the same.
#[derive(serde::Serialize)]
struct ErrorBody {
    error: String,
    status: u16,
    #[serde(flatten)]
    details: serde_json::Map<String, Value>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody { error: self.message, status: self.status.as_u16(), details: self.details };
        (self.status, axum::Json(body)).into_response()
    }
}

/// Search failures as HTTP: out of time or out of line length is 503 (the position is too far
/// from the databases for this server), a broken database is 500.
fn search_error(err: SearchError, time_limit: Duration) -> ApiError {
    match err {
        SearchError::TimeUp { nodes } => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "no exact value within the server's time limit of {} s ({nodes} nodes searched): \
                 the position is too far from the databases",
                time_limit.as_secs_f64()
            ),
        ),
        err @ (SearchError::LineTooLong { .. } | SearchError::Cancelled { .. }) => {
            ApiError::new(StatusCode::SERVICE_UNAVAILABLE, err.to_string())
        }
        err => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, err.to_string()),
    }
}

/// The query of the position endpoints: `pos` (position text) and `rules` (a rule set name with
/// optional overrides, default standard); where a search may be asked to run longer, `longer=1`.
#[derive(Clone, Copy)]
struct PositionQuery {
    position: Position,
    rules: Rules,
    /// Search up to the service's long time limit instead of its time limit.
    longer: bool,
    /// `/keeping-move`: the lower bound for the mover to keep (one the game's earlier moves
    /// kept), where the proofs prove less or nothing.
    at_least: Option<i32>,
}

impl PositionQuery {
    fn parse(query: Result<Query<Vec<(String, String)>>, QueryRejection>) -> Result<PositionQuery, ApiError> {
        PositionQuery::parse_with(query, &["pos", "rules"])
    }

    /// The query of an endpoint that searches: `longer` allowed too.
    fn parse_searched(query: Result<Query<Vec<(String, String)>>, QueryRejection>) -> Result<PositionQuery, ApiError> {
        PositionQuery::parse_with(query, &["pos", "rules", "longer"])
    }

    /// `/keeping-move`'s query: `longer` and `at_least` allowed too.
    fn parse_keeping(query: Result<Query<Vec<(String, String)>>, QueryRejection>) -> Result<PositionQuery, ApiError> {
        PositionQuery::parse_with(query, &["pos", "rules", "longer", "at_least"])
    }

    fn parse_with(
        query: Result<Query<Vec<(String, String)>>, QueryRejection>,
        allowed: &[&str],
    ) -> Result<PositionQuery, ApiError> {
        let Query(pairs) = query.map_err(|err| ApiError::bad_request(err.body_text()))?;
        let mut params = HashMap::new();
        for (key, value) in pairs {
            if !allowed.contains(&key.as_str()) {
                return Err(ApiError::bad_request(format!(
                    "unknown parameter '{key}': expected {}",
                    allowed.join(", ")
                )));
            }
            if params.insert(key.clone(), value).is_some() {
                return Err(ApiError::bad_request(format!("parameter '{key}' given twice")));
            }
        }
        let text = params.get("pos").ok_or_else(|| {
            ApiError::bad_request("missing parameter pos: a position such as '4 4 4 4 4 4 0 4 4 4 4 4 4 0 S'")
        })?;
        let position = kalah::parse_start(text)
            .map_err(|err| ApiError::bad_request(format!("bad position: {}", err.render(text))))?;
        let rules = match params.get("rules") {
            Some(name) => name.parse::<Rules>().map_err(|err| ApiError::bad_request(format!("bad rules: {err}")))?,
            None => Rules::STANDARD,
        };
        let longer = match params.get("longer").map(String::as_str) {
            None | Some("0") => false,
            Some("1") => true,
            Some(other) => return Err(ApiError::bad_request(format!("longer={other}: expected 1 or 0"))),
        };
        let at_least = match params.get("at_least") {
            None => None,
            Some(text) => Some(text.parse::<i32>().map_err(|_| {
                ApiError::bad_request(format!("at_least={text}: expected a whole number, the mover's margin"))
            })?),
        };
        Ok(PositionQuery { position, rules, longer, at_least })
    }
}

/// `HOST:PORT` resolved to its first address (`localhost:0`, `0.0.0.0:8080`, `[::1]:80`).
fn socket_address(text: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let mut addresses = text.to_socket_addrs().map_err(|err| format!("'{text}': {err} (expected HOST:PORT)"))?;
    addresses.next().ok_or_else(|| format!("'{text}' names no address"))
}

pub fn serve(args: &ServeArgs) -> anyhow::Result<String> {
    let workers = args.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut book = OpeningBook::shipped()?;
    if let Some(dir) = &args.book {
        anyhow::ensure!(dir.is_dir(), "--book {}: not a directory", dir.display());
        book.add_dir(dir)?;
    }
    let (name, text) = kalah::engine::proven_index::SHIPPED_POSITIONS;
    let index = ProvenIndex::new(book, name, text)?;
    let cache_path = match (&args.cache, args.no_cache) {
        (_, true) => None,
        (Some(path), false) => Some(path.clone()),
        (None, false) => Some(args.db.db.join("answers.jsonl")),
    };
    let (answers, warnings) = AnswerCache::open(cache_path.as_deref(), args.cache_answers).map_err(input_error)?;
    for warning in warnings {
        tell!("warning: {warning}");
    }
    let service = Arc::new(Service {
        engines: KeptEngines::new(
            args.db.db.clone(),
            args.max_seeds,
            args.table_mb << 20,
            args.max_table_memory_mb << 20,
        )
        .with_layout(args.db.db_layout),
        time_limit: args.time_limit,
        long_time_limit: args.long_time_limit,
        long_search: AtomicBool::new(false),
        answers,
        index,
        in_flight: progress::InFlight::default(),
        searches: queue::SearchQueue::new(workers, args.max_queue),
    });
    let limits =
        connections::ConnectionLimits { max_connections: args.max_connections, header_timeout: args.header_timeout };
    if args.preload {
        service.engines.preload(|db| tell!("loading {} (up to {} seeds)", db.dir().display(), db.max_seeds()))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .map_err(|err| anyhow::anyhow!("cannot listen on {}: {err}", args.bind))?;
        // Tests and scripts read the address (the port when 0 was asked) from this line.
        write_stdout(&format!("listening on http://{}\n", listener.local_addr()?))?;
        connections::serve(listener, router(service), limits, shutdown()).await?;
        anyhow::Ok(())
    })?;
    Ok(String::new())
}

fn router(service: Arc<Service>) -> Router {
    Router::new()
        .route("/", get(|| async { page("text/html; charset=utf-8", include_str!("../../web/index.html")) }))
        .route(
            "/board.js",
            get(|| async { page("text/javascript; charset=utf-8", include_str!("../../web/board.js")) }),
        )
        .route("/board.css", get(|| async { page("text/css; charset=utf-8", include_str!("../../web/board.css")) }))
        .route("/api/v1/position", get(position))
        .route("/api/v1/mainline", get(mainline))
        .route("/api/v1/proven-line", get(proven_line))
        .route("/api/v1/keeping-move", get(keeping_move))
        .route("/api/v1/rules", get(rule_sets))
        .route("/api/v1/openings", get(openings))
        .route("/api/v1/moves", get(moves))
        .route("/api/v1/progress", get(search_progress))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such page: the API is under /api/v1/") })
        .method_not_allowed_fallback(|| async {
            ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "only GET is served: the API reads, it never changes anything",
            )
        })
        .with_state(service)
}

fn page(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// Ctrl-C or SIGTERM: stop accepting, finish the requests in flight.
async fn shutdown() {
    match crate::interrupt::StopSignals::listen() {
        Ok(mut signals) => {
            signals.next().await;
        }
        Err(_) => std::future::pending().await,
    }
}

async fn position(
    State(service): State<Arc<Service>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<axum::Json<Value>, ApiError> {
    service.answer(Endpoint::Position, PositionQuery::parse_searched(query)?, Service::analyse).await
}

async fn mainline(
    State(service): State<Arc<Service>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<axum::Json<Value>, ApiError> {
    service.answer(Endpoint::Mainline, PositionQuery::parse(query)?, Service::mainline).await
}

/// `/proven-line`: the line that keeps what the proofs prove from the position, as far as they
/// reach, and what is proven where it ends; never searched.
async fn proven_line(
    State(service): State<Arc<Service>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<axum::Json<Value>, ApiError> {
    let PositionQuery { position, rules, .. } = PositionQuery::parse(query)?;
    Ok(axum::Json(to_json(&service.index.proven_line(&rules, &position))))
}

/// `/keeping-move`: a move that keeps the position's proven lower bound for its mover, or
/// `at_least` where that is more (a bound the game's earlier moves kept): the proofs' own move
/// where they name one, else one found by zero-window tests within the time limit; what an
/// engine playing the proofs' strategy plays, past their leaves too.
async fn keeping_move(
    State(service): State<Arc<Service>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<axum::Json<Value>, ApiError> {
    service.answer(Endpoint::KeepingMove, PositionQuery::parse_keeping(query)?, Service::keeping_move).await
}

async fn openings(
    State(service): State<Arc<Service>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<axum::Json<Value>, ApiError> {
    let PositionQuery { position, rules, .. } = PositionQuery::parse(query)?;
    if let Some(table) = service.index.book().start(&rules, &position) {
        return Ok(axum::Json(to_json(table)));
    }
    let map = service.index.book().start_map(&rules, &position).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no openings table for {position} under {rules}: /api/v1/rules lists the starts there are"),
        )
    })?;
    Ok(axum::Json(to_json(map)))
}

/// A search registered for `/progress` while it runs (none for an answer without a search).
type Watch<'s> = Option<(Arc<progress::Progress>, progress::Registered<'s>)>;

/// What a search tells `/progress` of the bounds it has proven, where it is watched.
fn tell_progress<'w>(watch: &'w Watch<'_>) -> impl FnMut(i32, i32, u64) + 'w {
    move |lower, upper, nodes| {
        if let Some((progress, _)) = watch {
            progress.proven(lower, upper, nodes);
        }
    }
}

/// An answer as JSON.
fn to_json(answer: &impl serde::Serialize) -> Value {
    Value::Object(as_object(answer))
}

/// `/moves`: every legal move with what it does and the position it leads to, no values: what a
/// client replaying a game needs, never searched.
async fn moves(query: Result<Query<Vec<(String, String)>>, QueryRejection>) -> Result<axum::Json<Value>, ApiError> {
    let PositionQuery { position, rules, .. } = PositionQuery::parse(query)?;
    Ok(axum::Json(to_json(&PositionMoves::new(&rules, &position))))
}

/// `/progress`: what the search of a position in flight has proven so far (`searching: false`
/// when there is none).
async fn search_progress(
    State(service): State<Arc<Service>>,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<axum::Json<Value>, ApiError> {
    let PositionQuery { position, rules, .. } = PositionQuery::parse(query)?;
    Ok(axum::Json(to_json(&service.in_flight.report(rules, position))))
}

async fn rule_sets(State(service): State<Arc<Service>>) -> Result<axum::Json<Value>, ApiError> {
    service.blocking(|service| service.offer()).await.map(axum::Json)
}

/// What a search answered: what the cache keeps, or a keeping move (whose answer depends on the
/// bound asked for, so never kept).
enum Searched {
    Kept(KeptAnswer),
    KeepingMove(KeepingMove),
}

/// The legal moves of `query`'s position with what they do, without values: what a client can
/// still show of a position not solved in time.
#[derive(serde::Serialize)]
struct Playable {
    moves: Vec<LegalMove>,
}

impl Service {
    /// `endpoint`'s answer to `query`: the one given before, else computed (in the search queue
    /// if it needs a search) and remembered.
    async fn answer(
        self: Arc<Self>,
        endpoint: Endpoint,
        query: PositionQuery,
        compute: fn(&Service, &PositionQuery, &Cancel) -> Result<Searched, ApiError>,
    ) -> Result<axum::Json<Value>, ApiError> {
        let (rules, position) = (query.rules, query.position);
        // The same path as `kalah query`: what the book and the proofs hold, then a search.
        if endpoint == Endpoint::Position
            && let Some(report) = self.index.answer(&query.rules, &query.position)
        {
            return Ok(axum::Json(to_json(&report)));
        }
        if endpoint == Endpoint::Mainline
            && let Some(line) = self.index.book().mainline(&query.rules, &query.position)
        {
            return Ok(axum::Json(to_json(&line)));
        }
        if endpoint == Endpoint::KeepingMove
            && let Some(kept) = self.keeping_move_from_proofs(&query)?
        {
            return Ok(axum::Json(kept));
        }
        let with_moves = |err: ApiError| match err.status {
            StatusCode::SERVICE_UNAVAILABLE => {
                err.with(&Playable { moves: answer::legal_moves(&query.rules, &query.position) })
            }
            _ => err,
        };
        // The cache stands in for a search only: what the database or the rules answer at once is
        // answered from them, never from a file that may have been changed.
        let needs_search = self.blocking(move |service| service.needs_search(&query)).await?;
        if needs_search && let Some(kept) = self.answers.get(endpoint, rules, position) {
            return Ok(axum::Json(to_json(&kept.cached())));
        }
        let (_long_search, _worker) = match needs_search {
            true => (
                query.longer.then(|| self.long_search()).transpose()?,
                Some(self.searches.enter(self.time_limit).await.map_err(with_moves)?),
            ),
            false => (None, None),
        };
        // A client that goes away drops this future, and with it the guard that cancels the search.
        let cancel = Cancel::default();
        let _cancel_on_drop = cancel.on_drop();
        let searched = self.blocking(move |service| compute(service, &query, &cancel)).await.map_err(with_moves)?;
        match searched {
            Searched::Kept(answer) => {
                if needs_search && let Err(err) = self.answers.insert(rules, position, answer.clone()) {
                    tell!("warning: answer cache: {err}");
                }
                Ok(axum::Json(to_json(&answer)))
            }
            Searched::KeepingMove(kept) => Ok(axum::Json(to_json(&kept))),
        }
    }

    /// Runs `work` on one of tokio's blocking threads.
    async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&Service) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let service = Arc::clone(self);
        tokio::task::spawn_blocking(move || work(&service))
            .await
            .map_err(|err| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the request failed: {err}")))?
    }

    /// Whether answering `query` takes a search: not for a finished game or a position the
    /// database holds (whose answer is a few probes, at most a layer's first reading).
    fn needs_search(&self, query: &PositionQuery) -> Result<bool, ApiError> {
        let PositionQuery { position, rules, .. } = query;
        if position.is_over(rules) {
            return Ok(false);
        }
        Ok(!self.engine(rules, position.houses())?.holds(position))
    }

    /// The database and table for `rules` and `houses`, and a search over them within the time
    /// limit.
    fn engine(&self, rules: &Rules, houses: usize) -> Result<Kept, ApiError> {
        self.engines.get(rules, houses).map_err(|err| search_error(err, self.time_limit))
    }

    /// One-thread searches over `kept` for `query` within its time limit, stopping if the client
    /// goes.
    fn prepared(&self, query: &PositionQuery, kept: &Kept, cancel: &Cancel) -> Prepared {
        let deadline = Instant::now() + self.time_limit_of(query);
        self.engines.prepare(&query.rules, kept, deadline).with_cancel(Arc::clone(&cancel.0))
    }

    /// [`Service::prepared`] searches of `query`, registered for `/progress` under `phase` while
    /// they run (with their nodes counted as they go) where they search: `always`, or where the
    /// position is neither over nor held by the database.
    fn watched(
        &self,
        query: &PositionQuery,
        cancel: &Cancel,
        phase: &'static str,
        always: bool,
    ) -> Result<(Prepared, Watch<'_>), ApiError> {
        let PositionQuery { position, rules, .. } = query;
        let prepared = self.prepared(query, &self.engine(rules, position.houses())?, cancel);
        let searched = always || (!position.is_over(rules) && !prepared.holds(position));
        let watch = searched.then(|| self.in_flight.start(*rules, *position, phase));
        let prepared = match &watch {
            Some((progress, _)) => prepared.with_node_counter(progress.node_counter()),
            None => prepared,
        };
        Ok((prepared, watch))
    }

    /// How long `query` may search: the long time limit where it asks for more time.
    fn time_limit_of(&self, query: &PositionQuery) -> Duration {
        match query.longer {
            true => self.long_time_limit.max(self.time_limit),
            false => self.time_limit,
        }
    }

    /// The one search that may run past the time limit, taken until the guard is dropped; 503
    /// while another holds it.
    fn long_search(&self) -> Result<LongSearch<'_>, ApiError> {
        match self.long_search.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => Ok(LongSearch(&self.long_search)),
            Err(_) => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "another search is running past the time limit (one at a time): try again when it ends",
            )),
        }
    }

    /// A search's failure for `query` as HTTP; out of time within the time limit, it says how
    /// long the client may ask a search to run (`longer=1`).
    fn search_error(&self, err: SearchError, query: &PositionQuery) -> ApiError {
        let timed_out = matches!(err, SearchError::TimeUp { .. });
        let error = search_error(err, self.time_limit_of(query));
        match timed_out && !query.longer && self.long_time_limit > self.time_limit {
            true => error.with(&LongerOffer { longer_time_limit: self.long_time_limit.as_secs_f64() }),
            false => error,
        }
    }

    /// `/position`: the value for the side to move and every legal move's value, best first.
    fn analyse(&self, query: &PositionQuery, cancel: &Cancel) -> Result<Searched, ApiError> {
        // A search registers its progress for /progress while it runs.
        let (prepared, watch) = self.watched(query, cancel, "moves", false)?;
        match prepared.report(&query.position, tell_progress(&watch)) {
            Ok(report) => Ok(Searched::Kept(KeptAnswer::Position(report))),
            Err(Unanswered { error, known }) => Err(self.search_error(error, query).with(&known)),
        }
    }

    /// What `/keeping-move` is to keep at `query`'s position: the proofs' lower bound, or
    /// `at_least` where that is more (which the search then proves), with what is proven there;
    /// 404 where neither gives a bound, 422 where the proofs' upper bound is below it.
    fn keeping_target(&self, query: &PositionQuery) -> Result<Proven, ApiError> {
        let PositionQuery { position, rules, at_least, .. } = query;
        self.index.keeping_target(rules, position, *at_least).map_err(|err| match err {
            KeepingTargetError::NoBound { .. } => ApiError::new(StatusCode::NOT_FOUND, err.to_string()),
            KeepingTargetError::AboveProofs { ref known, .. } => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, err.to_string()).with(known)
            }
        })
    }

    /// `/keeping-move` from the proofs alone, where they name a move that keeps the target: no
    /// search, so no place in the search queue.
    fn keeping_move_from_proofs(&self, query: &PositionQuery) -> Result<Option<Value>, ApiError> {
        let keeps = self.keeping_target(query)?;
        let PositionQuery { position, rules, .. } = query;
        let house = self.index.move_keeping(rules, position, keeps.bounds.lower);
        Ok(house.map(|house| to_json(&KeepingMove::new(rules, position, house, keeps, 0, 0.0))))
    }

    /// `/keeping-move` by search: zero-window tests until a move keeps the target.
    fn keeping_move(&self, query: &PositionQuery, cancel: &Cancel) -> Result<Searched, ApiError> {
        let keeps = self.keeping_target(query)?;
        let (position, lower) = (&query.position, keeps.bounds.lower);
        let (prepared, _watch) = self.watched(query, cancel, "moves", true)?;
        match prepared.keeping_move(position, &keeps) {
            Ok(Some(kept)) => Ok(Searched::KeepingMove(kept)),
            Ok(None) if keeps.lower_proofs.is_empty() => Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("no move of {position} keeps at least {lower}: a search proves it worth less for its mover"),
            )
            .with(&serde_json::json!({ "upper": lower - 1 }))),
            Ok(None) => Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("no move of {position} keeps the proven {lower}"),
            )),
            Err(Unanswered { error, known }) => Err(self.search_error(error, query).with(&known)),
        }
    }

    /// `/mainline`: a perfect-play line from the position to the end of the game, one entry per
    /// sowing, with the position after each.
    fn mainline(&self, query: &PositionQuery, cancel: &Cancel) -> Result<Searched, ApiError> {
        let (prepared, watch) = self.watched(query, cancel, "line", false)?;
        let line = prepared.mainline(&query.position, tell_progress(&watch));
        Ok(Searched::Kept(KeptAnswer::Mainline(line.map_err(|err| search_error(err, self.time_limit))?)))
    }

    /// `/rules`: the named rule sets, the databases opened or on disk, and the starts with an
    /// openings table.
    fn offer(&self) -> Result<Value, ApiError> {
        Ok(to_json(&Offer::new(&self.index, &self.engines.on_disk(), self.time_limit)))
    }
}

/// Releases the long search's slot when dropped.
struct LongSearch<'s>(&'s AtomicBool);

impl Drop for LongSearch<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Told with a search out of time: the client may ask again with `longer=1` for this long.
#[derive(serde::Serialize)]
struct LongerOffer {
    longer_time_limit: f64,
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_names_and_addresses_are_bound() {
        assert!(super::socket_address("localhost:0").unwrap().ip().is_loopback());
        assert_eq!(super::socket_address("0.0.0.0:8080").unwrap().port(), 8080);
        assert!(super::socket_address("[::1]:80").unwrap().is_ipv6());
        assert!(super::socket_address("localhost").unwrap_err().contains("HOST:PORT"));
    }
}
