//! `kalah serve` under hostile clients: half-sent and idle connections are closed after the
//! header timeout, connections beyond the cap wait their turn, oversized heads are refused as
//! JSON, and requests that need no search are answered while every worker searches and the
//! queue of searches is full.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Server, agent, build_database, get_json};
use serde_json::Value;

/// `host:port` of a server's URL.
fn address(server: &Server) -> String {
    server.url.trim_start_matches("http://").to_string()
}

/// Reads until the server closes the connection (or `limit` passes): what it sent, and whether
/// it closed.
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (String, bool) {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return (String::from_utf8_lossy(&received).into_owned(), true),
            Ok(n) => received.extend_from_slice(&buffer[..n]),
            // A reset counts as closed too.
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => {
                return (String::from_utf8_lossy(&received).into_owned(), true);
            }
            Err(_) => return (String::from_utf8_lossy(&received).into_owned(), false),
        }
    }
}

/// One raw HTTP/1.1 request on a fresh connection: the status and the JSON body.
fn raw_request(server: &Server, head: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(address(server)).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let (response, _) = read_until_closed(&mut stream, Duration::from_secs(20));
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{response}"));
    let body = response.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, serde_json::from_str(body).unwrap_or_else(|err| panic!("not JSON ({err}): {response}")))
}

#[test]
fn half_sent_and_idle_connections_are_closed_after_the_header_timeout() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--header-timeout", "1"]);
    // A head sent a piece at a time and never finished (slowloris)...
    let mut slow = TcpStream::connect(address(&server)).unwrap();
    let clock = Instant::now();
    slow.write_all(b"GET /api/v1/rules HTTP/1.1\r\nHost: x\r\n").unwrap();
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(400));
        if slow.write_all(b"X-Drip: 1\r\n").is_err() {
            break;
        }
    }
    let (_, closed) = read_until_closed(&mut slow, Duration::from_secs(10));
    assert!(closed, "a half-sent head keeps its connection");
    assert!(clock.elapsed() < Duration::from_secs(8), "closed after {:?}", clock.elapsed());
    // ...and a connection that sends nothing at all are both closed.
    let mut idle = TcpStream::connect(address(&server)).unwrap();
    let (_, closed) = read_until_closed(&mut idle, Duration::from_secs(10));
    assert!(closed, "an idle connection stays open");
    // The server still answers.
    let (status, _) = get_json(&agent(), &format!("{}/api/v1/rules", server.url), &[]);
    assert_eq!(status, 200);
}

#[test]
fn connections_beyond_the_cap_wait_for_a_free_one() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--max-connections", "2", "--header-timeout", "2"]);
    // Two silent connections take every slot...
    let silent: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(address(&server)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    // ...so a third client is answered only once the header timeout has closed one of them.
    let clock = Instant::now();
    let (status, _) = get_json(&agent(), &format!("{}/api/v1/rules", server.url), &[]);
    assert_eq!(status, 200);
    assert!(clock.elapsed() >= Duration::from_millis(1000), "answered beyond the cap after {:?}", clock.elapsed());
    drop(silent);
}

#[test]
fn oversized_heads_are_refused_as_json() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &[]);
    let long_target = format!("/api/v1/position?pos={}", "4%20".repeat(3000));
    let (status, body) =
        raw_request(&server, &format!("GET {long_target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 414, "{body}");
    assert!(body["error"].as_str().unwrap().contains("request target"), "{body}");
    assert_eq!(body["status"], 414);

    let big_headers: String = (0..20).map(|i| format!("X-Filler-{i}: {}\r\n", "a".repeat(2000))).collect();
    let head = format!("GET /api/v1/rules HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{big_headers}\r\n");
    let (status, body) = raw_request(&server, &head);
    assert_eq!(status, 431, "{body}");
    assert!(body["error"].as_str().unwrap().contains("headers"), "{body}");
}

#[test]
fn cheap_requests_never_wait_behind_searches() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), 8);
    let server = Arc::new(Server::start(root.path(), &["--workers", "1", "--max-queue", "1", "--time-limit", "6"]));
    let position_url = format!("{}/api/v1/position", server.url);
    // Two searches far beyond the limit: one runs on the only worker, one waits in the queue...
    // (Not the Kalah(6,6) start nor a position of its proofs: the shipped proofs answer those at
    // once.)
    let starts = ["8 1 8 8 7 1 2 0 9 8 1 9 8 2 S", "6 6 6 6 6 6 0 6 6 6 6 6 6 0 N"];
    let searches: Vec<_> = starts
        .iter()
        .map(|start| {
            let (url, start) = (position_url.clone(), start.to_string());
            let handle = std::thread::spawn(move || get_json(&agent(), &url, &[("pos", &start)]).0);
            std::thread::sleep(Duration::from_millis(300));
            handle
        })
        .collect();
    let clock = Instant::now();
    // ...so a third search finds the queue full and is told at once.
    let (status, body) = get_json(&agent(), &position_url, &[("pos", "5 5 5 5 5 5 0 5 5 5 5 5 5 0 N")]);
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().unwrap().contains("busy"), "{body}");
    // Meanwhile the rule sets, a position the database holds and a finished game are answered.
    let client = agent();
    let (status, _) = get_json(&client, &format!("{}/api/v1/rules", server.url), &[]);
    assert_eq!(status, 200);
    for (position, source) in [("1 0 2 1 0 0 1 0 1 1 S", "database"), ("0 0 0 0 9 0 0 0 0 11 S", "rules")] {
        let (status, body) = get_json(&client, &position_url, &[("pos", position)]);
        assert_eq!((status, body["source"].as_str()), (200, Some(source)), "{body}");
    }
    let mainline = format!("{}/api/v1/mainline", server.url);
    let (status, body) = get_json(&client, &mainline, &[("pos", "1 0 2 1 0 0 1 0 1 1 S")]);
    assert_eq!(status, 200, "{body}");
    assert!(clock.elapsed() < Duration::from_secs(4), "the cheap requests waited {:?}", clock.elapsed());
    for search in searches {
        assert_eq!(search.join().unwrap(), 503);
    }
}

#[test]
fn a_search_whose_client_goes_away_frees_its_worker() {
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--workers", "1", "--time-limit", "60", "--no-cache"]);
    // A search of Kalah(6,6) without a database would hold the only worker for a minute...
    let mut gone = TcpStream::connect(address(&server)).unwrap();
    let target = "/api/v1/position?pos=6+6+6+6+6+6+0+6+6+6+6+6+6+0+N";
    gone.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // ...but its client hangs up, so the next search gets the worker at once.
    drop(gone);
    let clock = Instant::now();
    let (status, body) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", "4x3")]);
    assert_eq!(status, 200, "{body}");
    assert!(clock.elapsed() < Duration::from_secs(20), "waited {:?} for the worker", clock.elapsed());
}
