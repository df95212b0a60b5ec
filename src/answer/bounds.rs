//! Bounds on a value, and the proofs behind them: the one vocabulary of every source that knows
//! a value only in part (a job's log, a proof's map, the book, an unfinished search, the
//! service). A value here, as everywhere, is the final margin for the side to move.

use std::fmt;
use std::ops::Neg;

use serde::{Deserialize, Serialize};

/// A value with its sign: `+4`, `0`, `-2`. The one place a value is written so.
pub fn signed(value: i32) -> String {
    if value > 0 { format!("+{value}") } else { value.to_string() }
}

/// Proofs' names sorted and each once: the one order in which answers list them.
pub fn sorted_names(mut names: Vec<String>) -> Vec<String> {
    names.sort_unstable();
    names.dedup();
    names
}

/// Bounds on a value, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bounds {
    /// The value is at least this.
    pub lower: i32,
    /// And at most this.
    pub upper: i32,
}

impl Bounds {
    /// What holds for every value of a game with `total` seeds: nothing proven yet.
    pub fn unknown(total: u32) -> Bounds {
        Bounds { lower: -(total as i32), upper: total as i32 }
    }

    /// The bounds of a known value.
    pub fn exact(value: i32) -> Bounds {
        Bounds { lower: value, upper: value }
    }

    /// The value, once both bounds meet.
    pub fn value(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }

    /// What both prove together; `None` if they contradict each other.
    pub fn intersect(&self, other: &Bounds) -> Option<Bounds> {
        let both = Bounds { lower: self.lower.max(other.lower), upper: self.upper.min(other.upper) };
        (both.lower <= both.upper).then_some(both)
    }

    /// `value` lies within them.
    pub fn contains(&self, value: i32) -> bool {
        self.lower <= value && value <= self.upper
    }

    /// The bounds as they read in a game of `total` seeds, where a bound at the seeds says
    /// nothing: `+4` when exact, `>= +2`, `<= +1`, `-2..+4`, or `?` when nothing is known.
    pub fn text(&self, total: u32) -> String {
        self.written(total, false)
    }

    /// [`Bounds::text`] as words: `+4`, `at least +2`, `at most +4`, `between -2 and +4`, or
    /// `not known`.
    pub fn words(&self, total: u32) -> String {
        self.written(total, true)
    }

    fn written(&self, total: u32, words: bool) -> String {
        let unknown = Bounds::unknown(total);
        let (at_least, at_most) = if words { ("at least", "at most") } else { (">=", "<=") };
        match (self.value(), self.lower > unknown.lower, self.upper < unknown.upper) {
            (Some(v), _, _) => signed(v),
            (None, true, false) => format!("{at_least} {}", signed(self.lower)),
            (None, false, true) => format!("{at_most} {}", signed(self.upper)),
            (None, true, true) if words => format!("between {} and {}", signed(self.lower), signed(self.upper)),
            (None, true, true) => self.to_string(),
            (None, false, false) => (if words { "not known" } else { "?" }).to_string(),
        }
    }

    /// What the bounds decide of win, draw or loss: a win once the lower bound is above 0, a
    /// loss once the upper bound is below, a draw when both are 0.
    pub fn wdl(&self) -> Option<super::Wdl> {
        match (self.lower, self.upper) {
            (l, _) if l > 0 => Some(super::wdl(1)),
            (_, u) if u < 0 => Some(super::wdl(-1)),
            (0, 0) => Some(super::wdl(0)),
            _ => None,
        }
    }
}

/// The same value seen by the other side.
impl Neg for Bounds {
    type Output = Bounds;
    fn neg(self) -> Bounds {
        Bounds { lower: -self.upper, upper: -self.lower }
    }
}

/// `+4` when exact, else `-2..+4`.
impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value() {
            Some(value) => f.write_str(&signed(value)),
            None => write!(f, "{}..{}", signed(self.lower), signed(self.upper)),
        }
    }
}

/// A value as far as checked proofs (or the rules, or a source that proves it) establish it:
/// its bounds and the proofs each bound rests on (none where the rules alone give it, or where
/// the source is no proof: a table, a line). Serialised as `value` (once the bounds meet),
/// `lower`, `upper`, `lower_proofs` and `upper_proofs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "ProvenFields", try_from = "ProvenFields")]
pub struct Proven {
    /// The bounds.
    pub bounds: Bounds,
    /// The proofs behind the lower bound, sorted, each once.
    pub lower_proofs: Vec<String>,
    /// The proofs behind the upper bound, sorted, each once.
    pub upper_proofs: Vec<String>,
}

/// [`Proven`] as its JSON gives it.
#[derive(Serialize, Deserialize)]
struct ProvenFields {
    value: Option<i32>,
    lower: i32,
    upper: i32,
    #[serde(default)]
    lower_proofs: Vec<String>,
    #[serde(default)]
    upper_proofs: Vec<String>,
}

impl From<Proven> for ProvenFields {
    fn from(proven: Proven) -> ProvenFields {
        let Proven { bounds, lower_proofs, upper_proofs } = proven;
        ProvenFields { value: bounds.value(), lower: bounds.lower, upper: bounds.upper, lower_proofs, upper_proofs }
    }
}

impl TryFrom<ProvenFields> for Proven {
    type Error = String;
    fn try_from(fields: ProvenFields) -> Result<Proven, String> {
        let bounds = Bounds { lower: fields.lower, upper: fields.upper };
        if bounds.lower > bounds.upper || fields.value.is_some_and(|v| bounds.value() != Some(v)) {
            return Err(format!("value {:?} and bounds {}..{} do not agree", fields.value, bounds.lower, bounds.upper));
        }
        Ok(Proven::new(bounds, fields.lower_proofs, fields.upper_proofs))
    }
}

impl Proven {
    /// `bounds`, resting on these proofs.
    pub fn new(bounds: Bounds, lower_proofs: Vec<String>, upper_proofs: Vec<String>) -> Proven {
        Proven { bounds, lower_proofs: sorted_names(lower_proofs), upper_proofs: sorted_names(upper_proofs) }
    }

    /// `bounds` that rest on no proof (the rules, a table, a line).
    pub fn unproven(bounds: Bounds) -> Proven {
        Proven::new(bounds, Vec::new(), Vec::new())
    }

    /// The exact value, once the bounds meet.
    pub fn value(&self) -> Option<i32> {
        self.bounds.value()
    }

    /// What is proven of the larger of two values (a choice between two moves): the larger lower
    /// bound with the proofs of whichever gives it (`self`'s on a tie), and the larger upper bound,
    /// which needs both upper bounds, so both sets of proofs.
    pub fn or_better(&self, other: &Proven) -> Proven {
        let lower = if other.bounds.lower > self.bounds.lower { other } else { self };
        let upper_proofs = self.upper_proofs.iter().chain(&other.upper_proofs).cloned().collect();
        let bounds = Bounds { lower: lower.bounds.lower, upper: self.bounds.upper.max(other.bounds.upper) };
        Proven::new(bounds, lower.lower_proofs.clone(), upper_proofs)
    }

    /// What is proven of the best of `choices` ([`Proven::or_better`] of them all); `None`
    /// without any.
    pub fn best_of<'a>(choices: impl IntoIterator<Item = &'a Proven>) -> Option<Proven> {
        let mut choices = choices.into_iter();
        let first = choices.next()?.clone();
        Some(choices.fold(first, |best, known| best.or_better(known)))
    }

    /// What two sets of bounds on the same value prove together: the tighter bound on each side,
    /// with its proofs (`own`'s on a tie); an error where they contradict each other.
    pub fn narrowed_by(&self, own: &Proven) -> Result<Proven, String> {
        let lower = if own.bounds.lower >= self.bounds.lower { own } else { self };
        let upper = if own.bounds.upper <= self.bounds.upper { own } else { self };
        let bounds = Bounds { lower: lower.bounds.lower, upper: upper.bounds.upper };
        if bounds.lower > bounds.upper {
            return Err(format!("bounds {} contradict bounds {}", own.bounds, self.bounds));
        }
        Ok(Proven::new(bounds, lower.lower_proofs.clone(), upper.upper_proofs.clone()))
    }

    /// Every proof behind either bound, sorted, each once.
    pub fn proofs(&self) -> Vec<String> {
        sorted_names(self.lower_proofs.iter().chain(&self.upper_proofs).cloned().collect())
    }
}

/// The same value seen by the other side: the bounds swap, and their proofs with them.
impl Neg for Proven {
    type Output = Proven;
    fn neg(self) -> Proven {
        Proven { bounds: -self.bounds, lower_proofs: self.upper_proofs, upper_proofs: self.lower_proofs }
    }
}

impl Neg for &Proven {
    type Output = Proven;
    fn neg(self) -> Proven {
        -self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proven(lower: i32, upper: i32, lower_proofs: &[&str], upper_proofs: &[&str]) -> Proven {
        let names = |list: &[&str]| list.iter().map(|p| p.to_string()).collect();
        Proven::new(Bounds { lower, upper }, names(lower_proofs), names(upper_proofs))
    }

    #[test]
    fn bounds_meet_negate_and_read_one_way() {
        let b = Bounds { lower: -2, upper: 4 };
        assert_eq!(-b, Bounds { lower: -4, upper: 2 });
        assert_eq!(b.intersect(&Bounds { lower: 0, upper: 6 }), Some(Bounds { lower: 0, upper: 4 }));
        assert_eq!(b.intersect(&Bounds::exact(6)), None);
        assert_eq!(Bounds::exact(4).value(), Some(4));
        assert_eq!(b.value(), None);
        assert_eq!(b.to_string(), "-2..+4");
        assert_eq!(Bounds::exact(-2).to_string(), "-2");
        assert_eq!(Bounds { lower: 2, upper: 72 }.text(72), ">= +2");
        assert_eq!(Bounds { lower: -72, upper: 1 }.text(72), "<= +1");
        assert_eq!(Bounds::unknown(72).text(72), "?");
        assert_eq!(b.text(72), "-2..+4");
        assert_eq!(Bounds { lower: 2, upper: 72 }.words(72), "at least +2");
        assert_eq!(b.words(72), "between -2 and +4");
        assert_eq!(Bounds::unknown(72).words(72), "not known");
        assert_eq!(Bounds { lower: 2, upper: 72 }.wdl(), Some(crate::answer::Wdl::Win));
        assert_eq!(Bounds::exact(0).wdl(), Some(crate::answer::Wdl::Draw));
        assert_eq!(b.wdl(), None);
        assert_eq!(signed(4), "+4");
        assert_eq!(signed(0), "0");
    }

    #[test]
    fn each_bound_keeps_the_proofs_it_rests_on() {
        let (a, b) = (proven(2, 4, &["ge-2"], &["le-4"]), proven(0, 6, &["ge-0"], &["le-6"]));
        // The better of two moves: the larger lower bound with its own proof; the larger upper
        // bound needs both.
        assert_eq!(a.or_better(&b), proven(2, 6, &["ge-2"], &["le-4", "le-6"]));
        assert_eq!(b.or_better(&a), proven(2, 6, &["ge-2"], &["le-6", "le-4"]));
        // On a tie the first one's proof is enough.
        assert_eq!(a.or_better(&proven(2, 2, &["other-ge-2"], &["other-le-2"])).lower_proofs, ["ge-2"]);
        // Two sets of bounds on one value: the tighter of each, the own ones on a tie.
        let own = proven(2, 6, &["own-ge-2"], &["own-le-6"]);
        assert_eq!(a.narrowed_by(&own).unwrap(), proven(2, 4, &["own-ge-2"], &["le-4"]));
        assert!(a.narrowed_by(&proven(6, 8, &["ge-6"], &[])).unwrap_err().contains("contradict"));
        // The other side's view swaps the bounds and their proofs.
        assert_eq!(-&a, proven(-4, -2, &["le-4"], &["ge-2"]));
        assert_eq!(proven(4, 4, &[], &[]).value(), Some(4));
        assert_eq!(proven(2, 4, &["b", "a"], &["a"]).proofs(), ["a", "b"]);
    }

    #[test]
    fn proven_values_keep_their_json_and_refuse_a_value_outside_their_bounds() {
        let a = proven(4, 4, &["ge-4"], &["le-4"]);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"{"value":4,"lower":4,"upper":4,"lower_proofs":["ge-4"],"upper_proofs":["le-4"]}"#);
        assert_eq!(serde_json::from_str::<Proven>(&json).unwrap(), a);
        let bare: Proven = serde_json::from_str(r#"{"value":null,"lower":2,"upper":6}"#).unwrap();
        assert_eq!(bare, proven(2, 6, &[], &[]));
        assert!(serde_json::from_str::<Proven>(r#"{"value":6,"lower":2,"upper":6}"#).is_err());
        assert!(serde_json::from_str::<Proven>(r#"{"value":null,"lower":6,"upper":2}"#).is_err());
    }
}
