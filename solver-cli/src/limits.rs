//! The bounds on numeric options, checked when the arguments are parsed (clap exits 2 with the
//! message): values that would overflow a clock, an allocation or the thread limit are refused
//! before any work starts.

use std::time::Duration;

/// The longest time limit: about 31 years, far inside what a clock can add.
const MAX_SECONDS: f64 = 1e9;
/// The most search or build threads.
pub const MAX_THREADS: usize = 1024;

/// A time limit in seconds: positive, finite, at most [`MAX_SECONDS`].
pub fn seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.trim().parse().map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= MAX_SECONDS) {
        return Err(format!("{text} is not a number of seconds from above 0 to {MAX_SECONDS:e}"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A time in minutes: 0 (never) or positive, at most [`MAX_SECONDS`] in all.
pub fn minutes(text: &str) -> Result<f64, String> {
    let minutes: f64 = text.trim().parse().map_err(|_| format!("'{text}' is not a number of minutes"))?;
    if !(minutes >= 0.0 && minutes * 60.0 <= MAX_SECONDS) {
        return Err(format!("{text} is not a number of minutes from 0 to {:e}", MAX_SECONDS / 60.0));
    }
    Ok(minutes)
}

/// A thread count: 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, String> {
    count(text, 1, MAX_THREADS as u64, "threads").map(|n| n as usize)
}

/// A table size in MiB: at least 1, at most the machine's memory (where it can be read).
pub fn table_mib(text: &str) -> Result<usize, String> {
    let memory_mib = kalah::memory::total_bytes().map_or(u64::MAX >> 20, |bytes| bytes >> 20);
    count(text, 1, memory_mib, "MiB of this machine's memory").map(|n| n as usize)
}

/// How database layers are held in memory: `auto`, `packed` or `bytes`.
pub fn layout(text: &str) -> Result<kalah::database::Layout, String> {
    text.parse()
}

/// A whole number from `min` to `max`.
pub fn count(text: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let n: u64 = text.trim().parse().map_err(|_| format!("'{text}' is not a whole number"))?;
    if n < min || n > max {
        return Err(format!("{n} is not from {min} to {max} {what}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_what_would_overflow() {
        assert_eq!(seconds("2.5"), Ok(Duration::from_millis(2500)));
        for bad in ["0", "-1", "1e300", "inf", "NaN", "x"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(minutes("0"), Ok(0.0));
        assert!(minutes("1e300").is_err());
        assert_eq!(threads("16"), Ok(16));
        assert!(threads("0").is_err() && threads("100000").is_err());
        assert_eq!(table_mib("64"), Ok(64));
        assert!(table_mib("0").is_err() && table_mib("100000000000").is_err());
    }
}
