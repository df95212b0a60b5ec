//! One first turn and what is known of its value: the one opening of every report, table,
//! result line and map, and the pie rule's value of a start's openings.

use serde::{Deserialize, Serialize};

use super::pie::kept_after_swap;
use super::{Bounds, Proven, Source};
use crate::board::Position;
use crate::moves::Turn;
use crate::rules::Rules;

/// A first turn (one move, or moves linked by extra turns) and what is known of its value for
/// the side that plays it, with the proofs behind each bound. Serialised as `move` (the houses,
/// `1 3`), `value` (once exact), `lower`, `upper`, and `lower_proofs` and `upper_proofs` where
/// proofs give them. Read back also from `move` and `value` alone (an exact opening, as reports
/// before bounds wrote it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "OpeningFields", try_from = "OpeningFields")]
pub struct Opening {
    /// The turn.
    pub turn: Turn,
    /// What is known of its value.
    pub known: Proven,
}

/// [`Opening`] as its JSON gives it.
#[derive(Serialize, Deserialize)]
struct OpeningFields {
    #[serde(rename = "move")]
    moves: String,
    value: Option<i32>,
    #[serde(default)]
    lower: Option<i32>,
    #[serde(default)]
    upper: Option<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    lower_proofs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    upper_proofs: Vec<String>,
}

impl From<Opening> for OpeningFields {
    fn from(opening: Opening) -> OpeningFields {
        let Proven { bounds, lower_proofs, upper_proofs } = opening.known;
        OpeningFields {
            moves: opening.turn.to_string(),
            value: bounds.value(),
            lower: Some(bounds.lower),
            upper: Some(bounds.upper),
            lower_proofs,
            upper_proofs,
        }
    }
}

impl TryFrom<OpeningFields> for Opening {
    type Error = String;
    fn try_from(fields: OpeningFields) -> Result<Opening, String> {
        let turn = fields.moves.parse::<Turn>().map_err(|err| format!("opening '{}': {err}", fields.moves))?;
        let (Some(lower), Some(upper)) = (fields.lower.or(fields.value), fields.upper.or(fields.value)) else {
            return Err(format!("opening '{}': neither a value nor bounds", fields.moves));
        };
        let bounds = Bounds { lower, upper };
        if bounds.lower > bounds.upper || fields.value.is_some_and(|v| bounds.value() != Some(v)) {
            return Err(format!(
                "opening '{}': value {:?} and bounds {}..{} do not agree",
                fields.moves, fields.value, bounds.lower, bounds.upper
            ));
        }
        Ok(Opening::new(turn, Proven::new(bounds, fields.lower_proofs, fields.upper_proofs)))
    }
}

impl Opening {
    /// `turn`, with what is known of its value.
    pub fn new(turn: Turn, known: Proven) -> Opening {
        Opening { turn, known }
    }

    /// `turn`, worth exactly `value` (a search's or a table's, resting on no proof).
    pub fn exact(turn: Turn, value: i32) -> Opening {
        Opening::new(turn, Proven::unproven(Bounds::exact(value)))
    }

    /// The exact value, once known.
    pub fn value(&self) -> Option<i32> {
        self.known.value()
    }

    /// The bounds on its value.
    pub fn bounds(&self) -> Bounds {
        self.known.bounds
    }
}

/// A position's openings (a start's, or a later position's in the replies tables): what is
/// known of its value and of each first turn, with the pie rule's value once the turns' bounds
/// decide it, and the turns proven best and fairest. The book's tables, exact or mapped by
/// proofs, and `/api/v1/openings`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpeningsTable {
    /// The rules, as text that parses back.
    pub rules: String,
    /// The position.
    pub position: String,
    /// What is known of the value for the side to move, with the proofs behind it.
    #[serde(flatten)]
    pub known: Proven,
    /// The first player's value when the opponent may swap after the first turn: at a start
    /// whose turns' bounds decide it (none for a later position, where no swap is offered).
    pub pie_value: Option<i32>,
    /// The first turns reaching the value (once it is exact): under the pie rule, whose value
    /// is the pie value, the fairest.
    pub best: Vec<String>,
    /// The first turns proven to reach the pie value: the fairest (none without a pie value).
    /// Where a turn not yet exact might reach it too (`perhaps_fairest`), there may be more, as
    /// with `best`.
    pub fairest: Vec<String>,
    /// The first turns not yet exact whose bounds hold a value that keeps the pie value after
    /// the swap: those that might still be among the fairest (none without a pie value).
    pub perhaps_fairest: Vec<String>,
    /// Every first turn.
    pub openings: Vec<Opening>,
    /// Where it comes from: the shipped tables, checked proofs, or a file given at run time.
    pub source: Source,
    /// The file given at run time whose claim the table is (none for a shipped one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
}

impl OpeningsTable {
    /// The table of `position` under `rules` from what is `known` of it and its `openings`.
    pub fn new(
        rules: &Rules,
        position: &Position,
        known: Proven,
        openings: Vec<Opening>,
        source: Source,
    ) -> OpeningsTable {
        // Under the pie rule a table is the pie game's, wherever it starts (a later position
        // solved under it is solved as the start of such a game); otherwise only a start's
        // table has a swap to offer.
        let bounds: Vec<Bounds> = openings.iter().map(Opening::bounds).collect();
        let swap = (rules.pie || position.is_start()).then(|| pie_value_and_fairest(&bounds)).flatten();
        let pie_value = swap.as_ref().map(|(pie, _)| *pie);
        let fairest = swap.map_or_else(Vec::new, |(_, keeps)| {
            openings.iter().zip(keeps).filter(|(_, keeps)| *keeps).map(|(o, _)| o.turn.to_string()).collect()
        });
        let might_keep = |bounds: Bounds| {
            pie_value.is_some_and(|pie| bounds.value().is_none() && kept_after_swap(bounds).contains(pie))
        };
        let perhaps_fairest = openings.iter().filter(|o| might_keep(o.bounds())).map(|o| o.turn.to_string()).collect();
        let with = |keep: &dyn Fn(i32) -> bool| -> Vec<String> {
            openings.iter().filter(|o| o.value().is_some_and(keep)).map(|o| o.turn.to_string()).collect()
        };
        let best = match (rules.pie, known.value()) {
            (true, _) => fairest.clone(),
            (false, Some(value)) => with(&|v| v == value),
            (false, None) => Vec::new(),
        };
        OpeningsTable {
            rules: rules.to_string(),
            position: position.to_string(),
            known,
            pie_value,
            best,
            fairest,
            perhaps_fairest,
            openings,
            source,
            claimed_by: None,
        }
    }

    /// The table of `position` under `rules` solved by search (`source`), from each first
    /// turn's exact value for its player, in [`first_turns`](crate::moves::first_turns) order:
    /// the value is the best turn's (the final margin where there is none), under the pie rule
    /// the pie value.
    pub fn solved(rules: &Rules, position: &Position, turns: Vec<(Turn, i32)>) -> OpeningsTable {
        let best = turns.iter().map(|(_, v)| *v).max().unwrap_or_else(|| position.final_margin(rules));
        let value = match rules.pie {
            true => pie_value(turns.iter().map(|(_, v)| *v)).unwrap_or(best),
            false => best,
        };
        let openings = turns.into_iter().map(|(turn, value)| Opening::exact(turn, value)).collect();
        OpeningsTable::new(rules, position, Proven::unproven(Bounds::exact(value)), openings, Source::Search)
    }

    /// The exact value, once known.
    pub fn value(&self) -> Option<i32> {
        self.known.value()
    }

    /// The fairest first turns as text ("1 4, 1 5"), followed by those that might still be
    /// ("1 4, perhaps also 1 6, 2"); empty without a pie value.
    pub fn fairest_text(&self) -> String {
        match self.perhaps_fairest.is_empty() {
            true => self.fairest.join(", "),
            false => format!("{}, perhaps also {}", self.fairest.join(", "), self.perhaps_fairest.join(", ")),
        }
    }
}

/// The first player's value under the pie rule, from every opening's value for the first
/// player: after an opening worth `v` the opponent swaps sides whenever that is better for it,
/// so the first player keeps `-|v|`, and plays an opening that keeps the most (`None` without
/// openings).
pub fn pie_value(opening_values: impl IntoIterator<Item = i32>) -> Option<i32> {
    let bounds: Vec<Bounds> = opening_values.into_iter().map(Bounds::exact).collect();
    pie_value_and_fairest(&bounds).map(|(pie, _)| pie)
}

/// The pie value of openings known only within `bounds` ([`pie_value`] of their values), once
/// the bounds decide it (`None` otherwise, or without openings), and which openings are proven
/// to keep it: the fairest, every one of them once no opening still open might keep it too. An
/// opening proven worth 0 decides the pie value before the others are exact, as nothing keeps
/// more. The one place the pie value is computed.
fn pie_value_and_fairest(bounds: &[Bounds]) -> Option<(i32, Vec<bool>)> {
    let kept: Vec<Bounds> = bounds.iter().copied().map(kept_after_swap).collect();
    let pie = kept.iter().map(|k| k.lower).max()?;
    if kept.iter().any(|k| k.upper > pie) {
        return None;
    }
    Some((pie, kept.iter().map(|k| k.value() == Some(pie)).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_reads_back_as_it_was_written_and_refuses_what_does_not_agree() {
        let proven = Proven::new(Bounds { lower: 2, upper: 4 }, vec!["ge-2".into()], Vec::new());
        let opening = Opening::new("1 3".parse().unwrap(), proven);
        let json = serde_json::to_string(&opening).unwrap();
        assert_eq!(json, r#"{"move":"1 3","value":null,"lower":2,"upper":4,"lower_proofs":["ge-2"]}"#);
        assert_eq!(serde_json::from_str::<Opening>(&json).unwrap(), opening);
        let exact = Opening::exact("2".parse().unwrap(), -3);
        assert_eq!(serde_json::to_string(&exact).unwrap(), r#"{"move":"2","value":-3,"lower":-3,"upper":-3}"#);
        let value_only = serde_json::from_str::<Opening>(r#"{"move":"2","value":-3}"#).unwrap();
        assert_eq!(value_only, exact);
        for bad in [
            r#"{"move":"1 3","value":null}"#,
            r#"{"move":"1 3","value":3,"lower":2,"upper":4}"#,
            r#"{"move":"1 3","value":null,"lower":5,"upper":4}"#,
            r#"{"move":"x","value":1,"lower":1,"upper":1}"#,
        ] {
            assert!(serde_json::from_str::<Opening>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_pie_value_is_what_the_fairest_opening_keeps() {
        assert_eq!(pie_value([4, -2, 3]), Some(-2));
        assert_eq!(pie_value([]), None);
    }

    /// Seeds-discarded Kalah(6,6) as its proofs left it: turn 6 known only to be worth at most
    /// -1, yet turns 3 and 4, proven worth 0, keep the most any opening can, and turn 6 keeps
    /// less. An opening proven worth 0 decides the pie value while others might keep it too (BGA
    /// Kalah(6,6), turn 1 4); bounds that leave the pie value open give nothing.
    #[test]
    fn bounds_decide_the_pie_value_and_the_fairest_openings_before_every_opening_is_exact() {
        let exact = |values: &[i32]| values.iter().copied().map(Bounds::exact).collect::<Vec<_>>();
        let mut discard = exact(&[3, 3, 1, 1, -1, 1, 0, 0, -1]);
        discard.push(Bounds { lower: -72, upper: -1 });
        let fairest = [false, false, false, false, false, false, true, true, false, false];
        assert_eq!(pie_value_and_fairest(&discard), Some((0, fairest.to_vec())));
        for open in [
            vec![Bounds::exact(4), Bounds { lower: -72, upper: 4 }],
            vec![Bounds::exact(2), Bounds { lower: 1, upper: 2 }],
        ] {
            assert_eq!(pie_value_and_fairest(&open), None, "{open:?}");
        }
        let zero_and_open = [Bounds::exact(0), Bounds { lower: -3, upper: 3 }, Bounds { lower: 2, upper: 4 }];
        assert_eq!(pie_value_and_fairest(&zero_and_open), Some((0, vec![true, false, false])));
        assert_eq!(pie_value_and_fairest(&exact(&[4, -2, 3])), Some((-2, vec![false, true, false])));
        assert_eq!(kept_after_swap(Bounds { lower: -5, upper: 3 }), Bounds { lower: -5, upper: 0 });
        assert_eq!(kept_after_swap(Bounds { lower: 2, upper: 6 }), Bounds { lower: -6, upper: -2 });
    }
}
