//! Printing: stdout written whole (a closed pipe is no failure: `main` says so), messages on
//! stderr that a closed stderr cannot turn into a panic, and the small formats every command
//! shares.

use std::io::Write;

/// `eprintln!` that never panics: where stderr is a pipe whose reader has gone (`kalah ... 2>&1 |
/// head -1`), the message is lost and the command goes on to its own end.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use tell;

/// Writes `text` to stdout and flushes it.
pub fn write_stdout(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

pub use kalah::notation::describe_start;

pub use kalah::answer::signed;

/// `value` as one line of JSON: what every `--json` prints.
pub fn json_line(value: &impl serde::Serialize) -> anyhow::Result<String> {
    Ok(format!("{}\n", serde_json::to_string(value)?))
}

/// The fields of a serializable answer, to extend with a front end's own.
pub fn as_object(answer: &impl serde::Serialize) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(answer) {
        Ok(serde_json::Value::Object(fields)) => fields,
        _ => unreachable!("answers serialize to JSON objects"),
    }
}
