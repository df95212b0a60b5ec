//! The analysis board in a real headless Chromium, driven over the W3C WebDriver protocol by
//! chromedriver: choose a start from the menus, read the move values drawn on the houses, click a
//! house, step back and forth with the buttons, the keys and the move list, reload the address,
//! open a start from the book and play an opening from the explorer, play against perfect play,
//! and a position the server cannot solve in time. Every value on the page is checked against
//! the API, and screenshots (a phone-sized one too) are saved to target/test-artifacts/.
//!
//! Ignored by a plain `cargo test`: `scripts/browser-test.sh` installs Debian's chromium and
//! chromium-driver when they are missing and runs it; `.ci/run` runs that script.

mod common;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use common::{Server, agent, build_database, get_json};
use serde_json::{Value, json};

/// A chromedriver process on a free port, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_string());
        let child = Command::new(&binary)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("{binary} does not start ({err}): run scripts/browser-test.sh"));
        let driver = Driver { child, url: format!("http://127.0.0.1:{port}") };
        wait_for("chromedriver to listen", || {
            let mut response = agent().get(format!("{}/status", driver.url)).call().ok()?;
            let status: Value = serde_json::from_str(&response.body_mut().read_to_string().ok()?).ok()?;
            status["value"]["ready"].as_bool().filter(|ready| *ready)
        });
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One browser session.
struct Browser {
    agent: ureq::Agent,
    session: String,
}

impl Browser {
    fn open(driver: &Driver) -> Browser {
        let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string());
        let capabilities = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                // The flags a closed network and a root user need (see the machine notes).
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--window-size=1000,800"],
            },
        }}});
        let agent = agent();
        let reply = command(&agent, "POST", &format!("{}/session", driver.url), Some(capabilities));
        let session = format!("{}/session/{}", driver.url, reply["sessionId"].as_str().expect("a session id"));
        Browser { agent, session }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        command(&self.agent, method, &format!("{}{path}", self.session), body)
    }

    fn navigate(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn script(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({ "script": script, "args": [] })))
    }

    fn click(&self, selector: &str) {
        let found = self.call("POST", "/element", Some(json!({ "using": "css selector", "value": selector })));
        let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("an element id");
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Types `text` into the field `selector` (emptied first).
    fn type_into(&self, selector: &str, text: &str) {
        let found = self.call("POST", "/element", Some(json!({ "using": "css selector", "value": selector })));
        let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("an element id");
        self.call("POST", &format!("/element/{id}/clear"), Some(json!({})));
        self.call("POST", &format!("/element/{id}/value"), Some(json!({ "text": text })));
    }

    /// Presses `key` (a WebDriver key code such as "\u{E012}" for the left arrow) on the page.
    fn press(&self, key: &str) {
        let actions = json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": [
            { "type": "keyDown", "value": key }, { "type": "keyUp", "value": key }] }] });
        self.call("POST", "/actions", Some(actions));
    }

    fn text(&self, id: &str) -> String {
        self.script(&format!("return document.getElementById('{id}').textContent")).as_str().unwrap().to_string()
    }

    /// Waits until the position shown is `position` and the page has finished with it (values
    /// drawn, or the legal moves of a position not solved).
    fn wait_for_shown(&self, position: &str) {
        wait_for(&format!("the page to finish {position}"), || {
            let shown = self.script(
                "return [document.getElementById('position-text').value, \
                         document.querySelectorAll('.house.playable').length, \
                         document.getElementById('to-move').textContent]",
            );
            let done = shown[1].as_u64()? > 0 && !shown[2].as_str()?.starts_with("searching");
            (shown[0] == position && done).then_some(())
        });
    }

    /// The moves of the list as the page writes them.
    fn move_list(&self) -> String {
        self.text("move-list").split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Waits until the page shows an answer for `position`: its status line is filled in.
    fn wait_for_position(&self, position: &str) {
        wait_for(&format!("the page to show {position}"), || {
            let shown = self.script(
                "return [document.getElementById('position-text').value, \
                         document.getElementById('value').textContent]",
            );
            (shown[0] == position && !shown[1].as_str()?.is_empty()).then_some(())
        });
    }

    /// The value drawn on each house of `side`, by house number ("" where none is drawn).
    fn house_values(&self, side: &str) -> Vec<String> {
        let script = format!(
            "return [...document.querySelectorAll('.house.{side}')]\
               .sort((a, b) => a.dataset.house - b.dataset.house)\
               .map(h => h.querySelector('.value').textContent)"
        );
        serde_json::from_value(self.script(&script)).unwrap()
    }

    fn resize(&self, width: u32, height: u32) {
        self.call("POST", "/window/rect", Some(json!({ "width": width, "height": height })));
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.call("GET", "/screenshot", None);
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("../test-artifacts");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.agent.delete(&self.session).call();
    }
}

/// A WebDriver command: its `value`, or a panic with the driver's error.
fn command(agent: &ureq::Agent, method: &str, url: &str, body: Option<Value>) -> Value {
    let response = match (method, body) {
        ("GET", _) => agent.get(url).call(),
        (_, body) => agent.post(url).content_type("application/json").send(body.unwrap_or(json!({})).to_string()),
    };
    let mut response = response.unwrap_or_else(|err| panic!("{method} {url}: {err}"));
    let status = response.status().as_u16();
    let reply: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(status, 200, "{method} {url}: {reply}");
    reply["value"].clone()
}

fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let clock = Instant::now();
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(clock.elapsed() < Duration::from_secs(60), "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn signed(value: &Value) -> String {
    let value = value.as_i64().unwrap();
    if value > 0 { format!("+{value}") } else { value.to_string() }
}

/// The values the page should draw on `side`'s houses for the API's `answer`, by house number.
fn expected_values(answer: &Value, houses: usize) -> Vec<String> {
    let mut values = vec![String::new(); houses];
    for entry in answer["moves"].as_array().unwrap() {
        values[entry["move"].as_u64().unwrap() as usize - 1] = signed(&entry["value"]);
    }
    values
}

/// What the page draws for a move known by bounds only (`valueText` in board.js): exact, a
/// range, one bound, or `?`; a bound of all `total` seeds says nothing.
fn bounds_text(known: &Value, total: i64) -> String {
    if known["value"].is_i64() {
        return signed(&known["value"]);
    }
    let (lower, upper) = (known["lower"].as_i64().unwrap(), known["upper"].as_i64().unwrap());
    match (lower > -total, upper < total) {
        (true, true) => format!("{}..{}", signed(&known["lower"]), signed(&known["upper"])),
        (true, false) => format!("≥ {}", signed(&known["lower"])),
        (false, true) => format!("≤ {}", signed(&known["upper"])),
        (false, false) => "?".to_string(),
    }
}

/// The proofs behind each bound of `known` as the page names them (`proofsText` in board.js).
fn proofs_text(known: &Value) -> String {
    let mut parts = Vec::new();
    for (words, bound) in [("at least", "lower"), ("at most", "upper")] {
        let proofs: Vec<&str> =
            known[format!("{bound}_proofs")].as_array().into_iter().flatten().map(|n| n.as_str().unwrap()).collect();
        if !proofs.is_empty() {
            parts.push(format!("{words} {}: {}", signed(&known[bound]), proofs.join(", ")));
        }
    }
    parts.join("; ")
}

const LEFT: &str = "\u{E012}";
const RIGHT: &str = "\u{E014}";
const HOME: &str = "\u{E011}";

#[test]
#[ignore = "needs Chromium and chromedriver: scripts/browser-test.sh installs them and runs this"]
fn the_board_plays_navigates_and_keeps_the_game_in_its_address() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), 12);
    let server = Server::start(root.path(), &[]);
    let api = |position: &str| {
        let (status, answer) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", position)]);
        assert_eq!(status, 200, "{answer}");
        answer
    };
    let driver = Driver::start();
    let browser = Browser::open(&driver);
    browser.navigate(&format!("{}/", server.url));

    // Kalah(4,3) from the menus, once the page has filled them from `/rules`.
    wait_for("the menus", || {
        (browser.script("return document.querySelector(\"#houses option[value='4']\") !== null") == true).then_some(())
    });
    browser.click("#houses option[value='4']");
    browser.click("#seeds option[value='3']");
    browser.click("#rules option[value='standard']");
    browser.click("#new-game");
    let start = "3 3 3 3 0 3 3 3 3 0 S";
    browser.wait_for_position(start);
    let answer = api(start);
    assert_eq!(browser.house_values("south"), expected_values(&answer, 4));
    assert_eq!(browser.house_values("north"), vec![""; 4], "only the mover's houses carry values");
    let status = browser.text("status");
    assert!(status.contains(&format!("value {} for South", signed(&answer["value"]))), "{status}");
    browser.screenshot("analysis-board-start.png");

    // Click the best move's house; the page steps to the position the API gives for it.
    let best = &answer["moves"][0];
    let after = best["position"].as_str().unwrap();
    browser.click(&format!(".house.south[data-house='{}']", best["move"]));
    browser.wait_for_position(after);
    let next = api(after);
    let mover = next["to_move"].as_str().unwrap();
    let other = if mover == "south" { "north" } else { "south" };
    assert_eq!(browser.house_values(mover), expected_values(&next, 4), "values after the click");
    assert_eq!(browser.house_values(other), vec![""; 4]);
    let line = wait_for("the perfect-play line", || {
        let text = browser.script("return document.getElementById('mainline-text').dataset.text");
        text.as_str().filter(|text| !text.is_empty()).map(str::to_string)
    });
    let (_, mainline) = get_json(&agent(), &format!("{}/api/v1/mainline", server.url), &[("pos", after)]);
    assert_eq!(line, mainline["text"].as_str().unwrap());
    assert_eq!(browser.move_list(), format!("S {}", best["move"]));
    let shot = browser.screenshot("analysis-board.png");
    eprintln!("screenshot: {}", shot.display());

    // Follow the perfect line two sowings on by clicking its second move.
    browser.click("#mainline-text a.ply:nth-of-type(2)");
    let two_on = mainline["line"][1]["position"].as_str().unwrap();
    browser.wait_for_position(two_on);
    let plies = 3;
    assert_eq!(browser.move_list().split_whitespace().filter(|w| w.parse::<u32>().is_ok()).count(), plies);

    // Back with the button and the left arrow, forward with the right arrow, Home, a click on the
    // list's second move.
    browser.click("#back");
    browser.wait_for_position(mainline["line"][0]["position"].as_str().unwrap());
    browser.press(LEFT);
    browser.wait_for_position(after);
    browser.press(RIGHT);
    browser.wait_for_position(mainline["line"][0]["position"].as_str().unwrap());
    browser.press(HOME);
    browser.wait_for_position(start);
    assert_eq!(browser.house_values("south"), expected_values(&answer, 4));
    browser.click("#move-list a.ply[data-index='2']");
    browser.wait_for_position(mainline["line"][0]["position"].as_str().unwrap());

    // The address keeps the game and the place in it: a reload comes back to both.
    let address = browser.script("return location.href").as_str().unwrap().to_string();
    assert!(address.contains("moves="), "{address}");
    browser.navigate("about:blank");
    browser.navigate(&address);
    browser.wait_for_position(mainline["line"][0]["position"].as_str().unwrap());
    assert_eq!(browser.move_list().split_whitespace().filter(|w| w.parse::<u32>().is_ok()).count(), plies);

    // Export and import the game as text.
    browser.click("#export");
    let exported = browser.script("return document.getElementById('game-text').value").as_str().unwrap().to_string();
    assert!(exported.starts_with(&format!("S {}", best["move"])), "{exported}");
    browser.click("#first");
    browser.wait_for_position(start);
    browser.type_into("#game-text", &exported);
    browser.click("#import");
    browser.wait_for_position(two_on);
    // `kalah replay` reads the exported text as it is.
    let replayed = std::process::Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args(["replay", "--start", start, "--json", &exported])
        .output()
        .unwrap();
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    let replayed: serde_json::Value = serde_json::from_slice(&replayed.stdout).unwrap();
    assert_eq!(replayed["position"], two_on, "{replayed}");
    // An illegal move in an imported game: the moves before it are kept, the bad one named.
    browser.click("#first");
    browser.wait_for_position(start);
    browser.type_into("#game-text", &format!("{exported} 99"));
    browser.click("#import");
    browser.wait_for_position(two_on);
    wait_for("the import's error", || browser.text("error").contains("house 99, is not legal").then_some(()));
}

#[test]
#[ignore = "needs Chromium and chromedriver: scripts/browser-test.sh installs them and runs this"]
fn starts_open_from_the_book_and_perfect_play_answers_the_player() {
    let root = tempfile::tempdir().unwrap();
    build_database(root.path(), 12);
    let server = Server::start(root.path(), &["--time-limit", "1", "--long-time-limit", "3"]);
    let driver = Driver::start();
    let browser = Browser::open(&driver);

    // The Kalah(6,4) start at once from the book, with its openings explorer.
    let six_four = "4 4 4 4 4 4 0 4 4 4 4 4 4 0 S";
    browser.navigate(&format!("{}/#rules=standard&start={}", server.url, six_four.replace(' ', "+")));
    browser.wait_for_position(six_four);
    assert!(browser.text("source").contains("opening book"), "{}", browser.text("source"));
    assert_eq!(browser.house_values("south"), ["-14", "-10", "+8", "-2", "-8", "+4"]);
    wait_for("the explorer", || {
        (browser.script("return document.getElementById('explorer').hidden") == false).then_some(())
    });
    let rows = browser.script("return [...document.querySelectorAll('#explorer-rows tr')].map(r => r.textContent)");
    assert_eq!(rows.as_array().unwrap().len(), 10, "{rows}");
    assert!(browser.text("explorer-summary").contains("Value +8"), "{}", browser.text("explorer-summary"));
    browser.click("#explorer-rows tr:nth-child(7) a.ply");
    let mut after_opening = kalah::parse_position(six_four).unwrap();
    for house in [2, 5] {
        after_opening.play(&kalah::Rules::STANDARD, house);
    }
    browser.wait_for_shown(&after_opening.to_string());
    assert_eq!(browser.move_list(), "S 3 6");

    // The Kalah(6,6) start from the checked proofs: +4, move 1 proven best, every other move at
    // most +4 (move 2 at most +2), and the explorer with each first turn's bounds.
    let six_six_start = "6 6 6 6 6 6 0 6 6 6 6 6 6 0 S";
    browser.navigate(&format!("{}/#rules=standard&start={}", server.url, six_six_start.replace(' ', "+")));
    browser.wait_for_position(six_six_start);
    // Each bound names the proofs it rests on, and only those.
    let source = browser.text("source");
    assert_eq!(
        source,
        "proven by checked proofs: at least +4: data/proofs/standard-6x6-ge-4; at most +4: data/proofs/standard-6x6-le-4"
    );
    assert_eq!(browser.text("value"), "value +4 for South");
    // The perfect-play box gives the line the proofs prove, as far as they reach, at once.
    wait_for("the proven line", || {
        let line = browser.text("mainline-text").split_whitespace().collect::<Vec<_>>().join(" ");
        line.starts_with("Proven play: S 1 3 | N").then_some(())
    });
    assert!(browser.text("result").starts_with("The proofs end here: "), "{}", browser.text("result"));
    // Each house as the API bounds its move (the proofs only narrow them as they land).
    let (_, answer) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", six_six_start)]);
    // By house number (the API lists the moves best first).
    let mut moves = answer["moves"].as_array().unwrap().clone();
    moves.sort_by_key(|m| m["move"].as_u64());
    let expected: Vec<String> = moves.iter().map(|m| bounds_text(m, 72)).collect();
    assert_eq!(expected[0], "+4", "{answer}");
    assert!(moves.iter().all(|m| m["upper"].as_i64() <= Some(4)) && moves[1]["upper"].as_i64() <= Some(2), "{answer}");
    assert_eq!(browser.house_values("south"), expected);
    let title = browser.script("return document.querySelector('.house[data-side=\"south\"][data-house=\"2\"]').title");
    let proofs = proofs_text(&moves[1]);
    assert!(proofs.contains("data/proofs/standard-6x6-turn-2-ge-4"), "{proofs}");
    assert_eq!(title.as_str(), Some(format!("play house 2: value {} (proven: {proofs})", expected[1]).as_str()));
    wait_for("the explorer of the proofs' map", || {
        browser.text("explorer-summary").contains("proven by checked proofs").then_some(())
    });
    let rows = browser.script("return [...document.querySelectorAll('#explorer-rows tr')].map(r => r.textContent)");
    assert!(rows[1].as_str().unwrap().contains("+4best"), "{rows}");
    // Every first turn exact: the pie value, and the turns worth 0 the fairest, marked as such.
    let summary = browser.text("explorer-summary");
    assert!(summary.contains("under the pie rule 0 (fairest: 1 4, 1 5, 3, 4, 5)."), "{summary}");
    assert!(rows[2].as_str().unwrap().ends_with("0fairest"), "{rows}");

    // Text that is not a position is shown as the error, caret under the bad token, and the
    // board stays as it was.
    let houses = browser.script("return document.querySelectorAll('.house').length");
    browser.type_into("#position-text", "4 4 -1 4 S");
    browser.script("document.querySelector('#load button').click()");
    wait_for("the error", || browser.text("error").contains("bad position").then_some(()));
    assert!(browser.text("error").contains('^'), "{}", browser.text("error"));
    assert_eq!(browser.script("return document.querySelectorAll('.house').length"), houses);
    assert_eq!(browser.text("value"), "value +4 for South", "the board shown is still Kalah(6,6)");

    // A position the server cannot solve within a second (Kalah(6,6) after South's 6 4 and
    // North's 2 1, past every proof) still shows its legal moves.
    browser.resize(420, 900);
    let six_six = "8 1 8 8 7 1 2 0 9 8 1 9 8 2 S";
    browser.type_into("#position-text", six_six);
    browser.script("document.querySelector('#load button').click()");
    // (The text box holds the new position before the board does: wait for the board's verdict.)
    wait_for("the search to give up", || (browser.text("to-move") == "not solved").then_some(()));
    browser.wait_for_shown(six_six);
    assert_eq!(browser.house_values("south"), vec![""; 6], "no values without a solution");
    let playable = browser.script("return document.querySelectorAll('.house.south.playable').length");
    assert_eq!(playable, 6);
    assert!(browser.text("error").contains("time limit"), "{}", browser.text("error"));
    browser.screenshot("analysis-board-phone-unsolved.png");
    // Offered to keep searching past the server's second: it searches on, with its progress,
    // until the user cancels.
    assert_eq!(browser.text("longer"), "Keep searching (up to 3 s)");
    browser.click("#longer");
    wait_for("the longer search past the time limit", || {
        browser.text("to-move").starts_with("searching… 2 s").then_some(())
    });
    browser.click("#cancel");
    wait_for("the cancel", || (browser.text("to-move") == "search cancelled").then_some(()));
    // Eight houses a side fit a 390-pixel phone: both stores on the screen.
    browser.resize(390, 900);
    let eight = "1 1 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1 0 S";
    browser.type_into("#position-text", eight);
    browser.script("document.querySelector('#load button').click()");
    wait_for("the eight-house board", || {
        (browser.script("return document.querySelectorAll('.house').length") == 16).then_some(())
    });
    browser.wait_for_shown(eight);
    let fits = browser.script(
        "return [...document.querySelectorAll('.store')].every(s => { const r = s.getBoundingClientRect(); \
         return r.left >= 0 && r.right <= document.documentElement.clientWidth; })",
    );
    assert_eq!(fits, true, "a store is off the screen");
    browser.screenshot("analysis-board-phone-eight-houses.png");
    browser.resize(1000, 800);

    // Playing North against the engine from an unsolved Kalah(6,6) position (after 6 4 2 1, far
    // from every proof): South's reply is the move the server's estimate rates best, said to be
    // unproven; never a move at random.
    browser.navigate(&format!("{}/#rules=standard&start=8+1+8+8+7+1+2+0+9+8+1+9+8+2+S&play=north", server.url));
    wait_for("the engine's unproven reply", || browser.text("loss").contains("best by its estimate").then_some(()));
    assert!(browser.text("loss").ends_with("not proven."), "{}", browser.text("loss"));
    wait_for("the reply in the move list", || browser.move_list().contains('S').then_some(()));
    // Let to wait for proof, the engine searches past the server's second (to its long time
    // limit, 3 s here) before it plays an unproven move.
    browser.click("#patient");
    browser.click("#back");
    wait_for("the patient engine's search past the time limit", || {
        browser.text("to-move").starts_with("searching… 2 s").then_some(())
    });
    wait_for("its unproven reply", || browser.text("loss").contains("best by its estimate").then_some(()));
    browser.click("#patient");

    // After South's 2 and North's 1 the proofs bound South's value (+2 to +4): South's reply is
    // the move whose proof keeps at least +2, said so.
    browser.navigate(&format!("{}/#rules=standard&start=7+0+7+7+7+7+1+0+7+7+7+7+7+1+S&play=north", server.url));
    wait_for("the engine's proven reply", || browser.text("loss").contains("keeps at least +2, proven").then_some(()));
    assert!(browser.text("loss").contains("standard-6x6-turn-2-ge-2"), "{}", browser.text("loss"));
    assert_eq!(browser.move_list(), "S 3", "the move the proof plays");

    // Playing South on empty-capture Kalah(6,6) after South's first turn 3: the proofs give
    // North's value (0) at once, and the refutation of turn 3 >= +2 proves North's 3 keeps it:
    // the engine plays it, a proven best move.
    browser.navigate(&format!("{}/#rules=empty-capture&start=6+6+0+7+7+7+1+7+7+6+6+6+6+0+N&play=south", server.url));
    wait_for("the engine's reply from the proofs", || (browser.move_list() == "N 3").then_some(()));
    assert!(browser.text("loss").is_empty(), "a proven move: {}", browser.text("loss"));

    // At a leaf of standard-6x6-ge-4 (South +4; a cheap one, which no deeper proof covers) no
    // proof names a move: the engine searches for one that keeps +4, and with no database and a
    // second it finds none in time, so it plays its estimate's best and says it is not proven.
    browser.navigate(&format!("{}/#rules=standard&start=1+0+1+9+9+9+3+0+10+8+7+7+7+1+S&play=north", server.url));
    wait_for("the engine's unproven reply past the proofs", || {
        browser.text("loss").contains("No move was proven to keep the bound in time").then_some(())
    });
    assert!(browser.text("loss").ends_with("not proven."), "{}", browser.text("loss"));

    // Playing South on empty-capture Kalah(6,5) after 2 3: no search ends in a second, but the
    // book has North's replies (the replies job's table, and the shipped perfect line), so
    // North's reply is one of its best moves, 1 and 3, proven.
    browser.navigate(&format!("{}/#rules=empty-capture&start=5+0+0+7+7+7+2+6+6+5+5+5+5+0+N&play=south", server.url));
    wait_for("the engine's reply from the book", || {
        let list = browser.move_list();
        (list == "N 3" || list.starts_with("N 1 ")).then_some(())
    });
    // (After 1, an extra turn, its second move keeps what its first kept, which the book proves.)
    let said = wait_for("the reply's account", || {
        let said = browser.text("loss");
        (said.is_empty() || said.starts_with("The engine plays")).then_some(said)
    });
    assert!(!said.contains("not proven"), "no unproven move: {said}");
    // Its openings explorer gives North's replies, with no pie rule after the first turn.
    wait_for("the replies' explorer", || {
        browser.text("explorer-summary").starts_with("Value -12 for North (best: 1 2, 1 3, 3)").then_some(())
    });
    assert!(!browser.text("explorer-summary").contains("pie"), "{}", browser.text("explorer-summary"));
    // After the line's reply 3, South's turn is on the line: its answer says where it comes from.
    browser.navigate(&format!("{}/#rules=empty-capture&start=6+0+0+7+7+7+2+6+6+0+6+6+6+1+S", server.url));
    browser.wait_for_shown("6 0 0 7 7 7 2 6 6 0 6 6 6 1 S");
    wait_for("the line's answer", || browser.text("source").contains("perfect line").then_some(()));
    assert_eq!(
        browser.house_values("south")[0],
        "+12",
        "South's 1 6 keeps the value: {:?}",
        browser.house_values("south")
    );

    // Under the pie rule, playing South on Kalah(3,3): South's opening 2 is worth +2 for South, so
    // North's value after it is -2 and the engine swaps sides; the player goes on as North.
    browser.navigate(&format!("{}/#rules=standard+pie%3Don&start=3+3+3+0+3+3+3+0+S&play=south", server.url));
    browser.wait_for_position("3 3 3 0 3 3 3 0 S");
    browser.click(".house.south[data-house='2']");
    let said = wait_for("the engine's swap", || {
        let said = browser.text("loss");
        said.starts_with("The engine swaps sides").then_some(said)
    });
    assert_eq!(said, "The engine swaps sides: North's value here is -2, so it takes South's.");
    assert_eq!(browser.move_list(), "S 2 N swap", "the swap is North's first turn");
    assert_eq!(browser.script("return document.querySelector('#play-as').value").as_str(), Some("north"));

    // Kalah(6,4) under the pie rule: the start's values are the swap's (3 best, worth 0), and
    // the book's perfect line, plain play's, says it is without the swap.
    browser.navigate(&format!("{}/#rules=standard+pie%3Don&start=4+4+4+4+4+4+0+4+4+4+4+4+4+0+S", server.url));
    let line = wait_for("the perfect line", || Some(browser.text("mainline-text")).filter(|t| t.contains(" | ")));
    assert!(line.starts_with("without the swap: S"), "{line}");
    assert_eq!(browser.house_values("south")[2], "0", "{:?}", browser.house_values("south"));

    // Playing North under the pie rule on Kalah(6,4): the engine as South opens with the fairest
    // first turn, 3 2 (worth 0, so the swap gains North nothing), not the plain game's best, 3 6
    // (+8, which North would swap), as the answers value the first turn's moves after the swap.
    browser
        .navigate(&format!("{}/#rules=standard+pie%3Don&start=4+4+4+4+4+4+0+4+4+4+4+4+4+0+S&play=north", server.url));
    wait_for("the engine's fairest first turn", || (browser.move_list() == "S 3 2").then_some(()));
    let said = browser.text("loss");
    assert!(said.starts_with("The engine plays 2: it keeps at least 0"), "{said}");

    // Play South against perfect play on Kalah(4,3): after a weak move the engine answers, and
    // the value given away is shown. (A new address on the same page: the page follows it.)
    browser.navigate(&format!("{}/#rules=standard&start=3+3+3+3+0+3+3+3+3+0+S&play=south", server.url));
    let start = "3 3 3 3 0 3 3 3 3 0 S";
    browser.wait_for_position(start);
    let (_, answer) = get_json(&agent(), &format!("{}/api/v1/position", server.url), &[("pos", start)]);
    let worst = answer["moves"].as_array().unwrap().iter().rfind(|m| !m["extra_turn"].as_bool().unwrap()).unwrap();
    browser.click(&format!(".house.south[data-house='{}']", worst["move"]));
    let lost = answer["value"].as_i64().unwrap() - worst["value"].as_i64().unwrap();
    // (Said until the engine's reply says what it keeps.)
    if lost > 0 {
        let said = browser.text("loss");
        assert!(said.contains(&format!("gave away {lost}")), "{said}");
    }
    wait_for("the engine's reply", || {
        let list = browser.move_list();
        list.contains(" N ").then_some(())
    });
    let replied = browser.script("return location.hash").as_str().unwrap().to_string();
    assert!(replied.contains("play=south"), "{replied}");
    // The engine's last move is marked on the board; South's values are coloured by what they
    // mean (best, still winning, drawn, lost), and hidden at the player's wish.
    wait_for("the mark of the engine's move", || {
        let marked = browser.script("return document.querySelectorAll('.house.north.last-move').length");
        (marked == 1).then_some(())
    });
    // And its sowing: the houses and stores it added seeds to, each now holding some.
    let sown = browser.script("return [...document.querySelectorAll('.sown .count')].map(c => Number(c.textContent))");
    let sown = sown.as_array().unwrap();
    assert!(!sown.is_empty() && sown.iter().all(|count| count.as_u64() > Some(0)), "{sown:?}");
    let kinds = wait_for("South's values", || {
        let kinds = browser.script(
            "return [...document.querySelectorAll('.house.south .value')].filter(v => v.textContent)\
               .map(v => v.classList[1])",
        );
        (!kinds.as_array()?.is_empty()).then_some(kinds)
    });
    let kinds = kinds.as_array().unwrap();
    assert!(
        !kinds.is_empty() && kinds.iter().all(|k| ["best", "wins", "draw", "loses"].contains(&k.as_str().unwrap())),
        "{kinds:?}"
    );
    assert!(kinds.iter().any(|k| k == "best"), "{kinds:?}");
    browser.click("#hide-values");
    wait_for("the values hidden", || {
        let shown = browser
            .script("return [...document.querySelectorAll('.house.south .value')].filter(v => v.textContent).length");
        (shown == 0).then_some(())
    });
    browser.screenshot("analysis-board-play.png");
    browser.click("#hide-values");
    // South plays best moves: the engine's turn comes where its own last move kept a proven
    // value, so it plays a move that keeps it, found by zero-window tests, and says what it keeps.
    let said = wait_for("the engine's kept reply", || {
        let said = browser.text("loss");
        if said.starts_with("The engine plays") {
            return Some(said);
        }
        browser.script(
            "const best = document.querySelector('.house.south .value.best'); \
             if (best && document.getElementById('to-move').textContent === 'South to move') best.closest('.house').click();",
        );
        None
    });
    assert!(said.contains("it keeps at least") && said.ends_with("nodes)."), "{said}");
}

/// The perfect line's search shows its progress, and is given up, on the page and on the
/// server, as soon as the user moves on: the next position's search never waits behind it.
#[test]
#[ignore = "needs Chromium and chromedriver: scripts/browser-test.sh installs them and runs this"]
fn the_perfect_line_shows_progress_and_is_given_up_when_the_user_moves_on() {
    // No database and one worker: at a leaf of standard-6x6-ge-4 (a cheap one, which no deeper
    // proof covers) the proof gives South +4 at once, but no move of South's is proven there,
    // and a perfect line is out of reach (none ships).
    let root = tempfile::tempdir().unwrap();
    let server = Server::start(root.path(), &["--time-limit", "300", "--workers", "1"]);
    let driver = Driver::start();
    let browser = Browser::open(&driver);
    let six_six = "1 0 1 9 9 9 3 0 10 8 7 7 7 1 S";
    browser.navigate(&format!("{}/#rules=standard&start={}", server.url, six_six.replace(' ', "+")));
    browser.wait_for_position(six_six);
    wait_for("the line's progress", || {
        browser.text("mainline-text").contains("searching for a perfect line").then_some(())
    });
    let progress = || get_json(&agent(), &format!("{}/api/v1/progress", server.url), &[("pos", six_six)]).1;
    assert_eq!(progress()["searching"], true, "{}", progress());
    // Moving on gives the line up, and frees the worker for the next position's search.
    browser.click(".house.south[data-house='1']");
    wait_for("the line's search to stop", || (progress()["searching"] == false).then_some(()));
}
