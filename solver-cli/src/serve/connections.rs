//! The service's connections: accepted up to a cap, each given a limited time to send a request's
//! head (which also ends connections left idle), and closed gracefully on Ctrl-C or SIGTERM.
//!
//! `axum::serve` sets neither a header timeout nor a connection cap, so a client that opens many
//! connections and sends a byte now and then (slowloris) would hold them for ever. This loop
//! serves each connection with hyper's HTTP/1 server, whose header-read timer does both jobs: it
//! runs from the moment the server waits for a request until the request's head is complete.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

use super::ApiError;

/// The longest request target answered (longer: 414).
pub const MAX_URI_BYTES: usize = 8 << 10;
/// The most bytes of header names and values answered (more: 431).
pub const MAX_HEADER_BYTES: usize = 32 << 10;

/// How connections are limited.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once; further clients wait in the listen queue until one closes.
    pub max_connections: usize,
    /// Time to send a request's head, counted from when the server is ready for it.
    pub header_timeout: Duration,
}

/// Serves `router` on `listener` within `limits` until `shutdown` completes, then lets the
/// requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let router = router.layer(axum::middleware::from_fn(refuse_oversized_heads));
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let (stop, stopping) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = Arc::clone(&open).acquire_owned() => permit.expect("the semaphore is never closed"),
        };
        let stream = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors and the like: wait for connections to close.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopping.wait_for(|stop| *stop) => connection.as_mut().graceful_shutdown(),
            }
            let _ = connection.await;
        });
    }
    let _ = stop.send(true);
    // Every connection holds a permit until it closes.
    let _all_closed = open.acquire_many(limits.max_connections as u32).await;
    Ok(())
}

/// Answers requests whose target or headers are larger than the service reads as JSON errors,
/// like every other refusal. (Hyper itself refuses, with an empty 431 or 414, a head beyond its
/// read buffer of about 400 KB, more than 100 header lines, or a target of 64 KiB.)
async fn refuse_oversized_heads(request: Request<Body>, next: Next) -> Response {
    let uri_bytes = request.uri().to_string().len();
    if uri_bytes > MAX_URI_BYTES {
        let message = format!("the request target has {uri_bytes} bytes: at most {MAX_URI_BYTES} are read");
        return ApiError::new(StatusCode::URI_TOO_LONG, message).into_response();
    }
    let header_bytes: usize = request.headers().iter().map(|(name, value)| name.as_str().len() + value.len()).sum();
    if header_bytes > MAX_HEADER_BYTES {
        let message = format!("the headers have {header_bytes} bytes: at most {MAX_HEADER_BYTES} are read");
        return ApiError::new(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, message).into_response();
    }
    next.run(request).await
}
