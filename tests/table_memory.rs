//! The transposition table claims its memory up front when asked: alone in its own test process,
//! so that no other test's allocations move the resident size it reads.

use kalah::board::Position;
use kalah::search::table::{Table, TableKey};

/// Resident memory of this process, in bytes (Linux).
#[cfg(target_os = "linux")]
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).expect("a VmRSS line");
    let kib: u64 = line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("VmRSS in kB");
    kib << 10
}

/// An atomic read-modify-write that changes nothing may be compiled into a plain load, which
/// maps the shared zero page and claims nothing: `touch_all` must really write.
#[cfg(target_os = "linux")]
#[test]
fn touching_the_table_backs_every_page() {
    let bytes = 256 << 20;
    let table = Table::with_bytes(bytes).unwrap();
    let key = TableKey::of(&Position::start(6, 4).expect("a start"));
    table.store(key, -4, 10, 2, 1000);
    let before = resident_bytes();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool");
    pool.install(|| table.touch_all());
    let grown = resident_bytes().saturating_sub(before);
    assert!(grown >= table.bytes() as u64 * 9 / 10, "{grown} bytes claimed for a table of {}", table.bytes());
    let known = table.probe(key).expect("the entry stored before");
    assert_eq!((known.lower, known.upper, known.best), (-4, 10, 2), "entries are left as they were");
}
