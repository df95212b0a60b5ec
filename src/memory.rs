//! The machine's memory, for sizing and refusing allocations before they are tried.

/// The machine's physical memory in bytes, where the system says (Linux: `/proc/meminfo`).
pub fn total_bytes() -> Option<u64> {
    meminfo("MemTotal:")
}

/// The memory the system can give a new allocation now without swapping or killing a process
/// (Linux's estimate, `MemAvailable`: free memory plus the page cache it can drop).
pub(crate) fn available_bytes() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// A `/proc/meminfo` line's figure, in bytes.
fn meminfo(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|line| line.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn available_memory_is_at_most_the_total() {
        if let (Some(total), Some(available)) = (super::total_bytes(), super::available_bytes()) {
            assert!(available <= total && available > 0, "{available} of {total}");
        }
    }
}
