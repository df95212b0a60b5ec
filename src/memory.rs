//! The machine's memory, for sizing and refusing allocations before they are tried.

/// The machine's physical memory in bytes, where the system says (Linux: `/proc/meminfo`).
pub fn total_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
