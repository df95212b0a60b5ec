//! What a service offers (`/api/v1/rules`): the named rule sets, the databases on disk, the
//! starts whose openings the book or the proofs give, and the limits of a request.

use std::time::Duration;

use serde::Serialize;

use super::ProvenIndex;
use crate::answer::{Bounds, Source};
use crate::board::MAX_HOUSES;
use crate::database::Database;
use crate::rules::RULE_SETS;

/// What the service offers.
#[derive(Clone, Debug, Serialize)]
pub struct Offer {
    rule_sets: Vec<NamedRules>,
    databases: Vec<OfferedDatabase>,
    openings: Vec<OfferedStart>,
    /// Seconds a request may search.
    time_limit: f64,
    max_houses: usize,
}

/// A named rule set and its rules as text.
#[derive(Clone, Debug, Serialize)]
struct NamedRules {
    name: String,
    rules: String,
}

/// A database on disk.
#[derive(Clone, Debug, Serialize)]
struct OfferedDatabase {
    rules: String,
    houses: usize,
    max_seeds: usize,
}

/// A start the book answers: exact from the result tables, or bounded by proofs.
#[derive(Clone, Debug, Serialize)]
struct OfferedStart {
    rules: String,
    position: String,
    value: Option<i32>,
    /// The bounds proofs give it (`lower`, `upper`), for a start the proofs map.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    bounds: Option<Bounds>,
    /// Where those bounds come from.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<Source>,
}

impl Offer {
    /// The offer of a service that answers from `index` and `databases`, searching at most
    /// `time_limit` a request.
    pub fn new(index: &ProvenIndex, databases: &[Database], time_limit: Duration) -> Offer {
        let rule_sets = RULE_SETS
            .iter()
            .map(|(name, rules)| NamedRules { name: name.to_string(), rules: rules.to_string() })
            .collect();
        let databases = databases
            .iter()
            .map(|db| OfferedDatabase { rules: db.rules().to_string(), houses: db.houses(), max_seeds: db.max_seeds() })
            .collect();
        // The book's exact tables name their value alone; the proofs' maps their bounds too.
        let tables = index.book().starts().map(|table| (table, false));
        let maps = index.book().start_maps().map(|map| (map, true));
        let mut openings: Vec<OfferedStart> = tables
            .chain(maps)
            .map(|(table, mapped)| OfferedStart {
                rules: table.rules.clone(),
                position: table.position.clone(),
                value: table.value(),
                bounds: mapped.then_some(table.known.bounds),
                source: mapped.then_some(table.source),
            })
            .collect();
        openings.sort_by(|a, b| (&a.position, &a.rules).cmp(&(&b.position, &b.rules)));
        Offer { rule_sets, databases, openings, time_limit: time_limit.as_secs_f64(), max_houses: MAX_HOUSES }
    }
}
