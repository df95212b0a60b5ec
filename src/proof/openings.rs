//! The driver of exact first-turn values (`kalah proof openings`): each first turn of a start is
//! narrowed, as MTD(f) narrows a value with zero-window tests, by proofs of "this turn is worth at
//! least t" for the first player, each in a directory of its own beside the others, so that they
//! share their settled leaves. A proven test raises the turn's lower bound to t, a refuted one
//! lowers its upper bound below t; the next t is the guess held within what is still open. The
//! plan is the proofs themselves: what is proven (and checked) comes from the map of the checked
//! proofs ([`super::map`]), and a test still open is a proof directory not yet checked, so any
//! session on any machine goes on from the repository alone.

use std::path::{Path, PathBuf};

use super::{Bound, Claim};
use crate::rules::Rules;

/// The test to prove next about a first turn whose value is known to lie in `lower..=upper`,
/// starting from `guess`: "worth at least t", with t in `lower + step..=upper` (`step` 2 where
/// every value has the seeds' parity and the bounds have it, else 1). `None` once exact.
pub fn next_test(lower: i32, upper: i32, guess: i32, step: i32) -> Option<i32> {
    if lower >= upper {
        return None;
    }
    let mut test = guess.clamp(lower + step, upper);
    if (test - lower) % step != 0 {
        test += 1;
    }
    Some(test.min(upper))
}

/// The claim at `after`, the position a first turn leaves (the other side to move), that proves
/// the turn worth at least `test` for the side that played it.
pub fn turn_claim(test: i32) -> Claim {
    Claim { bound: Bound::AtMost, value: -test }
}

/// The directory of the test "first turn `turn` of `start_name` is worth at least `test`" under
/// `proofs`, e.g. `standard-6x6-turn-1-3-ge-4` (`ge-m2` for -2).
pub fn test_dir(proofs: &Path, rules: &Rules, start_name: &str, turn: &str, test: i32) -> PathBuf {
    let slug = |text: &str| -> String {
        let words: Vec<String> =
            text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect();
        words.join("-")
    };
    let bound = if test < 0 { format!("m{}", -test) } else { test.to_string() };
    proofs.join(format!("{}-{}-turn-{}-ge-{bound}", slug(&rules.to_string()), slug(start_name), slug(turn)))
}

/// The step between the values a game under `rules` can have: 2 where every value has the
/// seeds' parity, else 1.
pub fn value_step(rules: &Rules) -> i32 {
    if rules.values_share_parity() { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_narrow_from_the_guess_within_what_is_open() {
        // Nothing known, values even: the guess first.
        assert_eq!(next_test(-36, 36, 4, 2), Some(4));
        // Proven >= 4: the next test is one value up; refuted, one down.
        assert_eq!(next_test(4, 36, 4, 2), Some(6));
        assert_eq!(next_test(-36, 2, 4, 2), Some(2));
        // An odd guess between even bounds is rounded up to a value there can be.
        assert_eq!(next_test(-36, 36, 3, 2), Some(4));
        assert_eq!(next_test(-5, 5, 3, 1), Some(3));
        // Exact: nothing to test.
        assert_eq!(next_test(2, 2, 2, 2), None);
        assert_eq!(turn_claim(4).to_string(), "<= -4");
        let dir = test_dir(Path::new("p"), &Rules::STANDARD, "6x6", "1 3", -2);
        assert_eq!(dir, Path::new("p/standard-6x6-turn-1-3-ge-m2"));
    }
}
