//! The rule systems of RULES.md as one explicit value, [`Rules`], with a field per rule dimension.
//!
//! Every later stage (moves, solving, database headers, result files) takes a `Rules` value; there
//! are no hidden defaults. Named rule sets are constructors, and [`Rules::name`] gives the name back
//! when a value matches one, so output stays short for the common cases.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What happens when a sowing's last seed lands in one of the mover's own empty houses
/// (or, for [`Capture::TwoOrThree`], in an opponent's house).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capture {
    /// Capture the last seed and the opposite house, only when the opposite house holds seeds.
    Standard,
    /// As standard, but the last seed alone goes to the store when the opposite house is empty
    /// (Irving, Donkers & Uiterwijk 2000).
    Empty,
    /// No captures at all.
    None,
    /// Wetherell: a last seed in an opponent house holding 2 or 3 captures it, then the houses
    /// sown just before it along the opponent's row while they hold 2 or 3.
    TwoOrThree,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum End {
    /// As soon as either row is empty after any move, even inside an extra-turn chain.
    EitherEmpty,
    /// Only when the player to move has no seeds (Board Game Arena, Wetherell).
    MoverCannotMove,
}

/// Where the seeds still in the houses go when the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Remaining {
    /// Each player's house seeds go to that player's store.
    Owner,
    /// They are not counted.
    Discard,
}

/// How a single move distributes seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sowing {
    /// One sowing per move.
    Single,
    /// Swedish Kalaha: a last seed in an occupied house (either side) lifts that house and sows on.
    Relay,
    /// Wetherell: a last seed in an occupied own house, after a sowing that put seeds on the
    /// opponent's side, lifts that house and sows again.
    GoAgain,
}

/// The direction seeds travel around the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Counter-clockwise: own houses to the right, own store, opponent's houses.
    Ccw,
    /// Clockwise: own houses to the left, opponent's houses, own store. Positions can repeat.
    Cw,
}

/// Whether the game stops once one store holds more than half of all seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EarlyEnd {
    /// Play goes on to the normal end.
    None,
    /// Stop when one store holds more than half of all seeds. This never changes win/draw/loss,
    /// so solvers report the margin of full play.
    Half,
}

/// A complete rule system: one field per dimension of RULES.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Rules {
    /// Capture rule.
    pub capture: Capture,
    /// End-of-game rule.
    pub end: End,
    /// What happens to the seeds left in the houses at the end.
    pub remaining: Remaining,
    /// Single, relay or go-again sowing.
    pub sowing: Sowing,
    /// Counter-clockwise or clockwise.
    pub direction: Direction,
    /// Early end when a store holds more than half of all seeds.
    pub early_end: EarlyEnd,
    /// Whether a last seed in the mover's own store gives another move (false for Wetherell).
    pub extra_turn: bool,
    /// Pie rule: North may swap sides after South's first turn.
    pub pie: bool,
}

impl Rules {
    /// Standard Kalah (encyclopedia articles): the default.
    pub const STANDARD: Rules = Rules {
        capture: Capture::Standard,
        end: End::EitherEmpty,
        remaining: Remaining::Owner,
        sowing: Sowing::Single,
        direction: Direction::Ccw,
        early_end: EarlyEnd::None,
        extra_turn: true,
        pie: false,
    };

    /// Irving, Donkers & Uiterwijk 2000: standard with empty capture.
    pub const EMPTY_CAPTURE: Rules = Rules { capture: Capture::Empty, ..Rules::STANDARD };

    /// Board Game Arena: the game ends only when the mover cannot move, and early at half.
    pub const BGA: Rules = Rules { end: End::MoverCannotMove, early_end: EarlyEnd::Half, ..Rules::STANDARD };

    /// Swedish Kalaha: relay sowing.
    pub const SWEDISH: Rules = Rules { sowing: Sowing::Relay, ..Rules::STANDARD };

    /// Wetherell's Kalah from "Etudes for Programmers" (1978).
    pub const WETHERELL: Rules = Rules {
        capture: Capture::TwoOrThree,
        end: End::MoverCannotMove,
        remaining: Remaining::Owner,
        sowing: Sowing::GoAgain,
        direction: Direction::Ccw,
        early_end: EarlyEnd::Half,
        extra_turn: false,
        pie: false,
    };

    /// Looks up a named rule set (`irving` is an alias of `empty-capture`).
    pub fn named(name: &str) -> Option<Rules> {
        let name = name.to_ascii_lowercase();
        let name = if name == "irving" { "empty-capture" } else { name.as_str() };
        RULE_SETS.iter().find(|(set, _)| *set == name).map(|(_, rules)| *rules)
    }

    /// The name of the rule set this value equals, if any.
    pub fn name(&self) -> Option<&'static str> {
        RULE_SETS.iter().find(|(_, rules)| rules == self).map(|(name, _)| *name)
    }

    /// Whether a position can repeat. Only clockwise sowing lets seeds circle without ever
    /// reaching a store; every counter-clockwise move that banks nothing moves seeds rightwards
    /// inside the mover's own row (see `board`), so those position graphs are acyclic.
    pub fn has_cycles(&self) -> bool {
        self.direction == Direction::Cw
    }

    /// The rules that decide board values: the pie rule acts before any position is valued and
    /// the early end never changes win, draw or loss (values are full-play margins), so both are
    /// cleared. Databases are built and looked up under these rules.
    pub fn for_values(&self) -> Rules {
        Rules { pie: false, early_end: EarlyEnd::None, ..*self }
    }

    /// Whether every board value of a position with s seeds on the board has the parity of s:
    /// when every seed ends in one store or the other, the two sides' gains add up to s. Not so
    /// when seeds are discarded, nor where positions repeat: a game played round and round for
    /// ever is worth 0 for the seeds on the board.
    pub fn values_share_parity(&self) -> bool {
        self.remaining == Remaining::Owner && !self.has_cycles()
    }

    /// Every dimension with its value's name, in a fixed order.
    pub(crate) fn settings(&self) -> [(&'static str, &'static str); 8] {
        [
            ("capture", self.capture.as_str()),
            ("end", self.end.as_str()),
            ("remaining", self.remaining.as_str()),
            ("sowing", self.sowing.as_str()),
            ("direction", self.direction.as_str()),
            ("early-end", self.early_end.as_str()),
            ("extra-turn", on_off(self.extra_turn)),
            ("pie", on_off(self.pie)),
        ]
    }

    /// Every dimension as `key=value` pairs, the form used in headers and result files.
    pub fn dimensions(&self) -> String {
        let pairs: Vec<String> = self.settings().iter().map(|(key, value)| format!("{key}={value}")).collect();
        pairs.join(" ")
    }
}

/// Every rule dimension as [`Rules::dimensions`] names it, with each of its values and what the
/// value means: what `kalah rules` explains (docs/rules.md says the same at length).
pub const DIMENSIONS_EXPLAINED: [(&str, &[(&str, &str)]); 8] = [
    (
        "capture",
        &[
            ("standard", "a last seed in an own empty house takes it and the opposite house, if that holds seeds"),
            ("empty", "as standard, and the last seed alone goes to the store when the opposite house is empty"),
            ("none", "no captures"),
            ("two-or-three", "Wetherell: a last seed making 2 or 3 in an opponent's house takes them, then backwards"),
        ],
    ),
    (
        "end",
        &[
            ("either-empty", "the game ends as soon as either row is empty, even within an extra-turn chain"),
            ("mover-cannot-move", "the game ends only when the side to move has no seeds"),
        ],
    ),
    (
        "remaining",
        &[("owner", "at the end each side's house seeds go to its store"), ("discard", "they are not counted")],
    ),
    (
        "sowing",
        &[
            ("single", "one sowing a move"),
            ("relay", "Swedish: a last seed in an occupied house lifts that house and sows on"),
            ("go-again", "Wetherell: a last seed in an occupied own house, after seeds went across, sows it again"),
        ],
    ),
    (
        "direction",
        &[
            ("ccw", "counter-clockwise: own houses, own store, the opponent's houses"),
            ("cw", "clockwise: positions can repeat; endless play scores 0 for the seeds left"),
        ],
    ),
    (
        "early-end",
        &[
            ("none", "play goes on to the normal end"),
            ("half", "the game ends once a store holds more than half the seeds; values are full play's margin"),
        ],
    ),
    ("extra-turn", &[("on", "a last seed in the own store gives another move"), ("off", "it does not (Wetherell)")]),
    (
        "pie",
        &[("off", "no swap"), ("on", "after South's first turn North may swap sides; solve --pie gives the pie value")],
    ),
];

/// The named rule sets, in the order they are listed to users.
pub const RULE_SETS: [(&str, Rules); 5] = [
    ("standard", Rules::STANDARD),
    ("empty-capture", Rules::EMPTY_CAPTURE),
    ("bga", Rules::BGA),
    ("swedish", Rules::SWEDISH),
    ("wetherell", Rules::WETHERELL),
];

impl Default for Rules {
    fn default() -> Self {
        Rules::STANDARD
    }
}

fn on_off(flag: bool) -> &'static str {
    if flag { "on" } else { "off" }
}

impl fmt::Display for Rules {
    /// The nearest named set and the dimensions that differ from it, e.g. `standard pie=on`;
    /// the text parses back to the same value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let own = self.settings();
        let differing = |rules: &Rules| {
            own.into_iter().zip(rules.settings()).filter(|(mine, theirs)| mine != theirs).map(|(mine, _)| mine)
        };
        let (name, nearest) = RULE_SETS.iter().min_by_key(|(_, rules)| differing(rules).count()).expect("named sets");
        f.write_str(name)?;
        for (key, value) in differing(nearest) {
            write!(f, " {key}={value}")?;
        }
        Ok(())
    }
}

/// A rule name or dimension value that is not known, or a rule spec that says a thing twice or
/// out of place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem} {what} '{given}' (expected {}{})", if *problem == "unknown" { "one of: " } else { "" }, expected.join(", "))]
pub struct UnknownRule {
    /// What is wrong: "unknown", "repeated", "misplaced".
    pub problem: &'static str,
    /// Which dimension (or "rule set").
    pub what: &'static str,
    /// The text given.
    pub given: String,
    /// What is accepted there.
    pub expected: Vec<&'static str>,
}

/// The rule dimensions a spec may override.
const DIMENSIONS: [&str; 8] = ["capture", "end", "remaining", "sowing", "direction", "early-end", "extra-turn", "pie"];

impl FromStr for Rules {
    type Err = UnknownRule;

    /// Parses a rule spec: an optional rule-set name (`standard`, `empty-capture`, `irving`,
    /// `bga`, `swedish`, `wetherell`; default `standard`) followed by `dimension=value` overrides,
    /// e.g. `bga capture=empty pie=on`. The text [`Rules::dimensions`] writes parses back.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let set_names = || RULE_SETS.iter().map(|(name, _)| *name).chain(["irving"]).collect();
        if s.trim().is_empty() {
            return Err(UnknownRule {
                problem: "unknown",
                what: "rule set",
                given: String::new(),
                expected: set_names(),
            });
        }
        let mut rules = Rules::STANDARD;
        let mut seen: Vec<&str> = Vec::new();
        for (i, token) in s.split_whitespace().enumerate() {
            let Some((key, value)) = token.split_once('=') else {
                rules = match Rules::named(token) {
                    Some(named) if i == 0 => named,
                    Some(_) => {
                        return Err(UnknownRule {
                            problem: "misplaced",
                            what: "rule set",
                            given: token.to_string(),
                            expected: vec!["one rule set name, first, then dimension=value overrides"],
                        });
                    }
                    None => {
                        return Err(UnknownRule {
                            problem: "unknown",
                            what: "rule set",
                            given: token.to_string(),
                            expected: set_names(),
                        });
                    }
                };
                continue;
            };
            if seen.contains(&key) {
                return Err(UnknownRule {
                    problem: "repeated",
                    what: "rule dimension",
                    given: key.to_string(),
                    expected: vec!["each dimension at most once"],
                });
            }
            seen.push(key);
            match key {
                "capture" => rules.capture = value.parse()?,
                "end" => rules.end = value.parse()?,
                "remaining" => rules.remaining = value.parse()?,
                "sowing" => rules.sowing = value.parse()?,
                "direction" => rules.direction = value.parse()?,
                "early-end" => rules.early_end = value.parse()?,
                "extra-turn" => rules.extra_turn = parse_on_off(value)?,
                "pie" => rules.pie = parse_on_off(value)?,
                _ => {
                    return Err(UnknownRule {
                        problem: "unknown",
                        what: "rule dimension",
                        given: key.to_string(),
                        expected: DIMENSIONS.to_vec(),
                    });
                }
            }
        }
        Ok(rules)
    }
}

/// Parses `on` or `off`.
pub fn parse_on_off(text: &str) -> Result<bool, UnknownRule> {
    match text.to_ascii_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(UnknownRule {
            problem: "unknown",
            what: "switch",
            given: text.to_string(),
            expected: vec!["on", "off"],
        }),
    }
}

/// Declares the text names of a dimension's values, for parsing and printing.
macro_rules! dimension_names {
    ($ty:ty, $what:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// All values with their names, in the order they are listed to users.
            pub const ALL: &'static [($ty, &'static str)] = &[$((<$ty>::$variant, $name)),+];

            /// The value's name on the command line and in files.
            pub fn as_str(self) -> &'static str {
                match self { $(<$ty>::$variant => $name),+ }
            }
        }

        impl FromStr for $ty {
            type Err = UnknownRule;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let lower = s.to_ascii_lowercase();
                Self::ALL.iter().find(|(_, name)| *name == lower).map(|(value, _)| *value).ok_or_else(|| {
                    UnknownRule {
                        problem: "unknown",
                        what: $what,
                        given: s.to_string(),
                        expected: Self::ALL.iter().map(|(_, name)| *name).collect(),
                    }
                })
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

dimension_names!(Capture, "capture rule", {
    Standard => "standard", Empty => "empty", None => "none", TwoOrThree => "two-or-three",
});
dimension_names!(End, "end rule", { EitherEmpty => "either-empty", MoverCannotMove => "mover-cannot-move" });
dimension_names!(Remaining, "remaining rule", { Owner => "owner", Discard => "discard" });
dimension_names!(Sowing, "sowing rule", { Single => "single", Relay => "relay", GoAgain => "go-again" });
dimension_names!(Direction, "direction", { Ccw => "ccw", Cw => "cw" });
dimension_names!(EarlyEnd, "early-end rule", { None => "none", Half => "half" });

#[cfg(test)]
mod tests {
    use super::*;

    /// What `kalah rules` explains is every dimension and every value there is, each parsing.
    #[test]
    fn every_dimension_and_value_is_explained() {
        let named: Vec<&str> = Rules::STANDARD.settings().iter().map(|(key, _)| *key).collect();
        let explained: Vec<&str> = DIMENSIONS_EXPLAINED.iter().map(|(key, _)| *key).collect();
        assert_eq!(named, explained);
        for (key, values) in DIMENSIONS_EXPLAINED {
            for (value, meaning) in values {
                let rules: Rules =
                    format!("standard {key}={value}").parse().unwrap_or_else(|e| panic!("{key}={value}: {e}"));
                assert!(rules.dimensions().contains(&format!("{key}={value}")), "{key}={value}");
                assert!(!meaning.is_empty());
            }
        }
        assert!(format!("standard capture={}", "sideways").parse::<Rules>().is_err());
    }

    #[test]
    fn named_sets_round_trip_through_their_names() {
        for (name, set) in RULE_SETS {
            let rules: Rules = name.parse().unwrap();
            assert_eq!(rules, set);
            assert_eq!(rules.name(), Some(name));
            assert_eq!(rules.to_string(), name);
        }
        assert_eq!("irving".parse::<Rules>().unwrap(), Rules::EMPTY_CAPTURE);
        assert_eq!("IRVING".parse::<Rules>().unwrap(), Rules::EMPTY_CAPTURE);
    }

    #[test]
    fn an_overridden_set_prints_its_nearest_set_and_the_differences() {
        let rules = Rules { pie: true, ..Rules::STANDARD };
        assert_eq!(rules.name(), None);
        assert_eq!(rules.to_string(), "standard pie=on");
        assert_eq!(
            rules.dimensions(),
            "capture=standard end=either-empty remaining=owner sowing=single direction=ccw \
             early-end=none extra-turn=on pie=on"
        );
        assert_eq!(rules.dimensions().parse::<Rules>().unwrap(), rules);
        let odd = Rules { sowing: Sowing::Relay, capture: Capture::TwoOrThree, ..Rules::BGA };
        assert_eq!(odd.to_string().parse::<Rules>().unwrap(), odd);
    }

    #[test]
    fn specs_override_a_named_set() {
        let rules: Rules = "bga capture=empty extra-turn=off".parse().unwrap();
        assert_eq!(rules, Rules { capture: Capture::Empty, extra_turn: false, ..Rules::BGA });
        assert!("".parse::<Rules>().is_err(), "an empty spec is not standard by default");
        assert_eq!("capture=sideways".parse::<Rules>().unwrap_err().what, "capture rule");
        assert_eq!("colour=red".parse::<Rules>().unwrap_err().what, "rule dimension");
        assert_eq!("pie=maybe".parse::<Rules>().unwrap_err().what, "switch");
        assert!("capture=empty bga".parse::<Rules>().is_err(), "a set name comes first");
    }

    #[test]
    fn unknown_names_list_the_accepted_ones() {
        let err = "kalaha".parse::<Rules>().unwrap_err();
        assert_eq!(err.what, "rule set");
        assert!(err.to_string().contains("empty-capture"), "{err}");
        let err = "sideways".parse::<Direction>().unwrap_err();
        assert_eq!(err.to_string(), "unknown direction 'sideways' (expected one of: ccw, cw)");
        assert_eq!("go-again".parse::<Sowing>().unwrap(), Sowing::GoAgain);
    }

    #[test]
    fn a_spec_says_each_thing_once_and_in_its_place() {
        let err = "".parse::<Rules>().unwrap_err();
        assert!(err.to_string().starts_with("unknown rule set ''"), "{err}");
        let err = "capture=empty capture=none".parse::<Rules>().unwrap_err();
        assert_eq!(err.to_string(), "repeated rule dimension 'capture' (expected each dimension at most once)");
        let err = "standard irving".parse::<Rules>().unwrap_err();
        assert!(err.to_string().starts_with("misplaced rule set 'irving'"), "{err}");
        assert!("bga capture=empty pie=on".parse::<Rules>().unwrap().pie);
    }

    #[test]
    fn only_clockwise_sowing_has_cycles() {
        assert!(!Rules::WETHERELL.has_cycles());
        assert!(Rules { direction: Direction::Cw, ..Rules::STANDARD }.has_cycles());
    }
}
