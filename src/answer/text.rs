//! The text forms of the answers, as the `kalah` commands print them: a position's answer
//! (exact, or bounds with the proofs behind them), the line the proofs keep, a solved start, and
//! what checked proofs establish about a start's first turns. JSON is the answers' serde form;
//! this is the one text form.

use crate::board::{Position, Side};
use crate::notation::describe_start;
use crate::rules::{EarlyEnd, Rules};

use super::{
    BoundedAnswer, Bounds, OPENINGS_LISTED, Opening, OpeningsTable, PositionAnswer, Proven, ProvenLine, Source,
    StartReport, Unfinished, first_few, openings_by_value_text, signed,
};

impl PositionAnswer {
    /// What `kalah query` says of an exact answer at `position`: the value, where it came
    /// from, and every move's value.
    pub fn text(&self, position: &Position) -> String {
        let mover = position.to_move().name();
        let how = match self.source {
            Source::Search => format!("by search: {} nodes, {:.3} s", self.nodes, self.seconds),
            source => format!("from the {}", source.name()),
        };
        let mut text = format!("value {} for {mover} ({}), {how}\n", signed(self.value), self.wdl);
        if !self.moves.is_empty() {
            text += "moves (value for the mover, stores included):\n";
            for m in &self.moves {
                let best = if m.best { "  best" } else { "" };
                text += &format!("  {:>2} {:>5}{best}\n", m.house, signed(m.value));
            }
        }
        text
    }
}

impl BoundedAnswer {
    /// What `kalah query` says of bounds at `position`: the value in words, the proofs behind
    /// each bound, and every move's.
    pub fn text(&self, position: &Position) -> String {
        let total = position.total_seeds();
        let mover = position.to_move().name();
        let wdl = self.wdl.map_or(String::new(), |wdl| format!(" ({wdl})"));
        let source = match self.source {
            Source::Book => "from a perfect line or table in the book, no search:",
            _ => "proven by checked proofs:",
        };
        let known = &self.known;
        let mut text = format!("value {} for {mover}{wdl}, {source}\n", known.bounds.words(total));
        text += &proofs_text("  ", known);
        text += "moves (value for the mover, stores included):\n";
        for m in &self.moves {
            let best = if m.best { "  best" } else { "" };
            text += &format!("  {:>2} {}{best}\n", m.house, m.known.bounds.words(total));
            text += &proofs_text("       ", &m.known);
        }
        text
    }
}

impl ProvenLine {
    /// The line as `kalah query` says it: its turns, and where the proofs end and what is known
    /// there.
    pub fn summary(&self) -> String {
        if self.line.is_empty() {
            return "proven play: no move is proven to keep a bound here\n".to_string();
        }
        let end = match (&self.end_known, self.game_over) {
            (_, true) => "the game is over".to_string(),
            (Some(known), false) => format!(
                "the proofs end at {}: {} for {}",
                self.end,
                known.bounds.words(self.end.total_seeds()),
                self.end.to_move().name()
            ),
            (None, false) => format!("the proofs end at {}", self.end),
        };
        format!("proven play: {}\n  then {end}\n", self.text)
    }
}

/// A line for each bound that proofs give, `indent`ed: `at least +4: PROOF, ...`.
fn proofs_text(indent: &str, known: &Proven) -> String {
    let mut text = String::new();
    let bounds =
        [("at least", known.bounds.lower, &known.lower_proofs), ("at most", known.bounds.upper, &known.upper_proofs)];
    for (words, bound, proofs) in bounds {
        if !proofs.is_empty() {
            text += &format!("{indent}{words} {}: {}\n", signed(bound), proofs.join(", "));
        }
    }
    text
}

impl StartReport {
    /// What `kalah solve` says of a solved start: the start, its value, the best (or under the
    /// pie rule the fairest) openings and every opening's value (beyond [`OPENINGS_LISTED`],
    /// unless `all`, their count by value), a perfect line, and the work it took.
    pub fn text(&self, all: bool) -> String {
        let rules = &self.rules;
        let mut text = format!("{}, rules {rules}\n", describe_start(&self.start));
        text += &self.openings_text(rules, all);
        text += &format!("principal variation: {}\n", self.principal_variation.join(" | "));
        let source = match &self.database {
            Some(db) => format!("database up to {} seeds in {}", db.max_seeds, db.dir.display()),
            None => "no database".to_string(),
        };
        text + &format!(
            "{} nodes, {} database probes, {:.3} s ({source}, {} MiB table)\n",
            self.nodes, self.probes, self.seconds, self.table_mb
        )
    }

    /// The value and the openings of [`StartReport::text`].
    fn openings_text(&self, rules: &Rules, all: bool) -> String {
        let mover = self.start.to_move().name();
        let mut text = String::new();
        let value = self.value();
        let outcome = match value.signum() {
            1 => format!("{mover} wins by {value}"),
            -1 => format!("{mover} loses by {}", -value),
            _ => "a draw".to_string(),
        };
        let rule = if rules.pie { " under the pie rule" } else { "" };
        text += &format!("value {} for {mover}{rule}: {outcome}\n", signed(value));
        if !self.openings_solved {
            return text + "openings not solved (--no-openings)\n";
        }
        let (best, openings) = (self.best(), &self.table.openings);
        let label = if rules.pie { "fairest openings" } else { "best openings" };
        let count = openings.len();
        if all || count <= OPENINGS_LISTED {
            text += &format!("{label}: {}\n", best.join(", "));
            if count > 0 {
                text += "openings (value for the first player):\n";
                for opening in openings {
                    text += &format!("  {:<12} {:>4}\n", opening.turn.to_string(), opening.known.bounds.to_string());
                }
            }
        } else {
            // Relay and go-again sowing make thousands of first turns: what they come to.
            text += &format!("{label}: {}\n", first_few(best, 5));
            let values = openings.iter().filter_map(Opening::value);
            text +=
                &format!("{count} openings by value for the first player: {}\n", openings_by_value_text(values, ", "));
            if let (false, Some(pie)) = (rules.pie, self.table.pie_value) {
                let fairest = first_few(&self.table.fairest, 5);
                text += &format!("under the pie rule: {} (fairest: {fairest})\n", signed(pie));
            }
            text += "(--all lists every opening, --json too)\n";
        }
        if rules.early_end == EarlyEnd::Half {
            text += "values are margins of full play: the early end never changes win, draw or loss\n";
        }
        text
    }
}

/// What checked proofs establish about a start (a game of `total` seeds, `mover` to move) and
/// each of its first turns (`map`), as text: the value with every proof behind it, a line a
/// turn, then the pie rule's value once the turns' bounds decide it. The one text of such a map,
/// for `kalah solve` of a mapped start and `kalah proof map` alike.
pub fn proven_openings_text(mover: Side, total: u32, map: &OpeningsTable) -> String {
    let known = &map.known;
    let mut text = format!(
        "value {} for {}, proven by checked proofs: {}\n",
        known.bounds.text(total),
        mover.name(),
        known.proofs().join(", ")
    );
    text += "openings (value for the first player):\n";
    for Opening { turn, known } in &map.openings {
        let turn = turn.to_string();
        text += &format!("  {turn:<12} {:<10} {}\n", known.bounds.text(total), known.proofs().join(", "));
    }
    if let Some(pie) = map.pie_value {
        text += &format!("under the pie rule: {} (fairest: {})\n", signed(pie), map.fairest_text());
    }
    text
}

impl Unfinished {
    /// What an unfinished search knew, to follow why it stopped: the bounds proven and, out of
    /// time, every move's estimate (which proves nothing); empty where it knew nothing.
    pub fn text(&self) -> String {
        let mut text = match self.bounds.map(|bounds| (bounds, bounds.value())) {
            Some((_, Some(value))) => format!("; proven so far: the value is {}, not yet every move's", signed(value)),
            Some((bounds, None)) => {
                format!("; proven so far: the value is from {} to {}", signed(bounds.lower), signed(bounds.upper))
            }
            None => String::new(),
        };
        if !self.estimates.is_empty() {
            let estimates: Vec<String> =
                self.estimates.iter().map(|e| format!("{} {}", e.house, signed(e.value))).collect();
            text += &format!("; moves by estimate, not proven: {}", estimates.join(", "));
        }
        text
    }
}

/// The progress line of a running search: nodes so far and the value's bounds proven so far.
pub fn search_progress_text(bounds: Option<Bounds>, nodes: u64) -> String {
    let nodes =
        if nodes >= 1_000_000 { format!("{:.1} M nodes", nodes as f64 / 1e6) } else { format!("{nodes} nodes") };
    match bounds.map(|bounds| (bounds, bounds.value())) {
        None => nodes,
        Some((_, Some(value))) => format!("{nodes}, value {}, now every move's", signed(value)),
        Some((bounds, None)) => format!("{nodes}, value from {} to {}", signed(bounds.lower), signed(bounds.upper)),
    }
}
