//! What the HTTP tests share: a `kalah serve` process on a free port, stopped when dropped, and
//! a client that returns every status with its JSON body.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// A running `kalah serve`.
pub struct Server {
    child: Child,
    /// "http://127.0.0.1:PORT"
    pub url: String,
}

impl Server {
    /// Starts `kalah serve` on a free port with the databases under `db` and `extra` flags, and
    /// waits until it listens.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kalah"))
            .args(["serve", "--bind", "127.0.0.1:0", "--db", db.to_str().unwrap()])
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .expect("kalah serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("the server prints its address");
        let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        Server { url: url.to_string(), child }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client that hands back error statuses instead of failing on them.
pub fn agent() -> ureq::Agent {
    ureq::Agent::new_with_config(ureq::Agent::config_builder().http_status_as_error(false).build())
}

/// GET `url` with `query`: the status and the body as JSON.
pub fn get_json(agent: &ureq::Agent, url: &str, query: &[(&str, &str)]) -> (u16, Value) {
    let (status, body) = get_text(agent, url, query);
    let json = serde_json::from_str(&body).unwrap_or_else(|err| panic!("{url}: not JSON ({err}): {body}"));
    (status, json)
}

/// GET `url` with `query`: the status and the body.
pub fn get_text(agent: &ureq::Agent, url: &str, query: &[(&str, &str)]) -> (u16, String) {
    let mut request = agent.get(url);
    for (key, value) in query {
        request = request.query(*key, *value);
    }
    let mut response = request.call().unwrap_or_else(|err| panic!("{url}: {err}"));
    let status = response.status().as_u16();
    (status, response.body_mut().read_to_string().expect("a text body"))
}

/// Builds the standard database for 4 houses up to `max_seeds` seeds under `root`.
pub fn build_database(root: &Path, max_seeds: u32) {
    let status = Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(["build", "--houses", "4", "--max-seeds", &max_seeds.to_string(), "--threads", "2", "--db"])
        .arg(root)
        .stderr(Stdio::null())
        .status()
        .expect("kalah build runs");
    assert!(status.success());
}
