//! A claim on a position's value: "the side to move has value >= t" (or <= t), stores included,
//! as proofs, jobs' bound tests and shared bounds state it, with its one parser and one limit.

use std::str::FromStr;

use crate::board::{MAX_SEEDS, Position};
use crate::rules::Rules;

/// Which way a bound goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is at least the bound.
    AtLeast,
    /// The value is at most the bound.
    AtMost,
}

/// A bound on the value of a position for its side to move, stores included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Which way.
    pub bound: Bound,
    /// The bound itself.
    pub value: i32,
}

/// Bounds beyond this are refused: every value lies within the seeds in play.
const MAX_CLAIM: i32 = MAX_SEEDS as i32;

impl FromStr for Claim {
    type Err = String;

    /// `>= N`, `> N`, `<= N` or `< N`, N an integer (`+4` allowed), spaces optional.
    fn from_str(text: &str) -> Result<Claim, String> {
        let bad = || format!("'{text}' is not a claim such as '>= 4' or '<= -2'");
        let compact: String = text.split_whitespace().collect();
        let (bound, strict, number) = if let Some(rest) = compact.strip_prefix(">=") {
            (Bound::AtLeast, false, rest)
        } else if let Some(rest) = compact.strip_prefix("<=") {
            (Bound::AtMost, false, rest)
        } else if let Some(rest) = compact.strip_prefix('>') {
            (Bound::AtLeast, true, rest)
        } else if let Some(rest) = compact.strip_prefix('<') {
            (Bound::AtMost, true, rest)
        } else {
            return Err(bad());
        };
        let digits = match number.strip_prefix('+') {
            Some(rest) if rest.starts_with(['+', '-']) => return Err(bad()),
            Some(rest) => rest,
            None => number,
        };
        let value: i64 = digits.parse().map_err(|_| bad())?;
        let value = match (bound, strict) {
            (_, false) => value,
            (Bound::AtLeast, true) => value.saturating_add(1),
            (Bound::AtMost, true) => value.saturating_sub(1),
        };
        if value.saturating_abs() > i64::from(MAX_CLAIM) {
            return Err(format!("'{text}': a bound beyond ±{MAX_CLAIM} is beyond every value (the seeds in play)"));
        }
        let value = value as i32;
        Ok(Claim { bound, value })
    }
}

impl std::fmt::Display for Claim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.bound {
            Bound::AtLeast => ">=",
            Bound::AtMost => "<=",
        };
        write!(f, "{op} {}", self.value)
    }
}

impl Claim {
    /// The same claim where every value of a game from `position` under `rules` has the seeds'
    /// parity ([`Rules::values_share_parity`]): moved to the nearest value of that parity, so that
    /// `<= 3` is `<= 2` when the values are even. Elsewhere unchanged.
    pub(crate) fn with_parity(&self, rules: &Rules, position: &Position) -> Claim {
        let (margin, seeds) = (position.margin(), position.seeds_on_board() as i32);
        if !rules.values_share_parity() || (self.value - margin - seeds).rem_euclid(2) == 0 {
            return *self;
        }
        match self.bound {
            Bound::AtLeast => Claim { value: self.value + 1, ..*self },
            Bound::AtMost => Claim { value: self.value - 1, ..*self },
        }
    }

    /// The claim that holds where this one fails: `>= t` fails exactly where `<= t - 1` holds.
    pub(crate) fn complement(&self) -> Claim {
        match self.bound {
            Bound::AtLeast => Claim { bound: Bound::AtMost, value: self.value - 1 },
            Bound::AtMost => Claim { bound: Bound::AtLeast, value: self.value + 1 },
        }
    }

    /// Whether `value` satisfies the claim.
    pub(crate) fn holds_for(&self, value: i32) -> bool {
        match self.bound {
            Bound::AtLeast => value >= self.value,
            Bound::AtMost => value <= self.value,
        }
    }

    /// What the seeds alone decide about the claim at `position` under `rules`: the value when
    /// the game is over, else whether every value the seeds on the board allow satisfies it, or
    /// none does. `None` when a search must decide.
    pub(crate) fn decided_by_seeds(&self, rules: &Rules, position: &Position) -> Option<bool> {
        if position.is_over(rules) {
            return Some(self.holds_for(position.final_margin(rules)));
        }
        let (margin, seeds) = (position.margin(), position.seeds_on_board() as i32);
        match (self.holds_for(margin - seeds), self.holds_for(margin + seeds)) {
            (true, true) => Some(true),
            (false, false) => Some(false),
            _ => None,
        }
    }

    /// The board-value test that decides the claim at `position`: `(beta, holds_if_at_least)`,
    /// the claim holding exactly when "board value >= beta" is `holds_if_at_least`.
    pub(crate) fn board_test(&self, position: &Position) -> (i32, bool) {
        match self.bound {
            Bound::AtLeast => (self.value - position.margin(), true),
            Bound::AtMost => (self.value + 1 - position.margin(), false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_parse_in_every_form_within_the_seeds_in_play() {
        let claim = |text: &str| text.parse::<Claim>();
        assert_eq!(claim(">= +4"), Ok(Claim { bound: Bound::AtLeast, value: 4 }));
        assert_eq!(claim("<-2"), Ok(Claim { bound: Bound::AtMost, value: -3 }));
        assert_eq!(claim("> 254"), Ok(Claim { bound: Bound::AtLeast, value: 255 }));
        assert_eq!(claim("< -254").unwrap().to_string(), "<= -255");
        for beyond in ["> 255", "<= 256", "< -255", ">= 99999999999999999999", "> 9223372036854775807"] {
            assert!(claim(beyond).is_err(), "{beyond}");
        }
        for bad in ["= 2", ">= x", ">= ++2", ""] {
            assert!(claim(bad).unwrap_err().contains("is not a claim"), "{bad}");
        }
        assert_eq!(claim(">= 2").unwrap().complement(), claim("<= 1").unwrap());
    }
}
