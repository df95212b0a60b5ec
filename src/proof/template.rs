//! A template: the decided tree of another proof of the same claim at the same root, under
//! other rules whose turns mostly agree (BGA beside standard rules: the same sowing and captures,
//! another end). A run given one expands each inner node of that tree without a task when it
//! comes to it, so the proof grows along the other rules' proof or refutation and its tasks are
//! mostly that tree's leaves; where the rules part, the proof-number search goes its own way
//! and the expansions the template led to cost only their children's estimates. The template
//! only chooses work: every node is still settled by this proof's own tasks and rules.

use std::collections::HashSet;
use std::path::Path;

use super::check::{Verdict, check};
use super::log::{Record, read_records};
use super::{ProofError, Spec};
use crate::board::Position;
use crate::notation::parse_position;

/// Another proof's decided tree: its nodes, and which of them are inner nodes.
#[derive(Clone, Debug, Default)]
pub struct Template {
    nodes: HashSet<Position>,
    inner: HashSet<Position>,
}

impl Template {
    /// No template: every node gets its task.
    pub fn none() -> Template {
        Template::default()
    }

    /// The inner nodes of the tree that decides the proof in `dir` (proven or refuted by its
    /// logs), which must claim what `spec` claims at the same root.
    pub fn from_proof(dir: &Path, spec: &Spec) -> Result<Template, ProofError> {
        Template::from_loaded_proof(dir, &Spec::load(dir)?, spec)
    }

    /// [`Template::from_proof`] for a proof whose description `other` is already read.
    pub(crate) fn from_loaded_proof(dir: &Path, other: &Spec, spec: &Spec) -> Result<Template, ProofError> {
        let invalid = |message: String| ProofError::Invalid { path: dir.to_path_buf(), message };
        if other.root != spec.root || other.claim != spec.claim {
            return Err(invalid(format!(
                "a template must claim what this proof does ({} at {}), not {} at {}",
                spec.claim, spec.root, other.claim, other.root
            )));
        }
        let records = read_records(dir)?;
        let report = check(other, &records, None)?;
        if report.verdict == Verdict::Open {
            return Err(invalid("a template must be decided by its logs (this one is open)".to_string()));
        }
        let expanded: HashSet<Position> = records
            .iter()
            .filter(|record| matches!(record, Record::Expanded(_)))
            .filter_map(|record| parse_position(record.position()).ok())
            .collect();
        let nodes: HashSet<Position> = report.shown_at.into_iter().collect();
        let inner = nodes.iter().filter(|position| expanded.contains(position)).copied().collect();
        Ok(Template { nodes, inner })
    }

    /// Whether `position` is an inner node of the template's tree.
    pub(crate) fn expands(&self, position: &Position) -> bool {
        self.inner.contains(position)
    }

    /// Whether `position` is a node of the template's tree.
    pub(crate) fn has(&self, position: &Position) -> bool {
        self.nodes.contains(position)
    }

    /// How many inner nodes the template has.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::run::{RunOptions, work};
    use crate::proof::{Tree, Verdict, check};
    use crate::rules::Rules;
    use crate::search::{Search, SearchOptions};
    use crate::solve::Solver;
    use std::sync::Arc;

    /// Grows the proof of `claim` at Kalah(4,3) under `rules` in `dir` with tiny tasks (so that
    /// it expands) along `template`, until decided; its verdict by the logs.
    fn grow(dir: &Path, rules: Rules, claim: &str, template: Template) -> Option<bool> {
        let spec = Spec::new(rules, Position::start(4, 3).unwrap(), claim.parse().unwrap(), 300).unwrap();
        spec.create(dir).unwrap();
        let mut tree = Tree::new(spec);
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let mut search = Search::new(rules, None, &options).unwrap();
        let options = RunOptions { template: Arc::new(template), ..RunOptions::with_task_nodes(300) };
        work(dir, &mut tree, &mut search, &options, |_, _| {}).unwrap().proven
    }

    /// BGA's proof grown along standard rules' proof of the same claim decides it as BGA's
    /// reference solver says, by a tree that checks; the template is the inner nodes of the
    /// standard proof's checked tree.
    #[test]
    fn a_proof_grown_along_another_rules_proof_decides_by_its_own_rules() {
        let start = Position::start(4, 3).unwrap();
        let value = Solver::new(Rules::STANDARD).unwrap().board_value(&start);
        let bga_value = Solver::new(Rules::BGA).unwrap().board_value(&start);
        for test in [value, value + 2, bga_value, bga_value + 1] {
            let claim = format!(">= {test}");
            let dirs = tempfile::tempdir().unwrap();
            let (standard, bga) = (dirs.path().join("standard"), dirs.path().join("bga"));
            assert_eq!(grow(&standard, Rules::STANDARD, &claim, Template::none()), Some(value >= test));
            let bga_spec = Spec::new(Rules::BGA, start, claim.parse().unwrap(), 300).unwrap();
            let template = Template::from_proof(&standard, &bga_spec).unwrap();
            let standard_spec = Spec::load(&standard).unwrap();
            let standard_tree = check(&standard_spec, &read_records(&standard).unwrap(), None).unwrap();
            let expanded = read_records(&standard).unwrap().iter().filter(|r| matches!(r, Record::Expanded(_))).count();
            assert!(!template.is_empty() && template.len() < standard_tree.proof_nodes, "{claim}");
            assert!(template.len() <= expanded);
            assert!(standard_tree.shown_at.iter().all(|node| template.has(node)));
            assert_eq!(grow(&bga, Rules::BGA, &claim, template), Some(bga_value >= test), "{claim}");
            let report = check(&Spec::load(&bga).unwrap(), &read_records(&bga).unwrap(), None).unwrap();
            let verdict = if bga_value >= test { Verdict::Proven } else { Verdict::Refuted };
            assert_eq!(report.verdict, verdict, "{claim}: {:?}", report.problems);
        }
    }

    /// A template must claim what the proof does at its root, and be decided.
    #[test]
    fn a_template_of_another_claim_or_still_open_is_refused() {
        let dirs = tempfile::tempdir().unwrap();
        let start = Position::start(4, 3).unwrap();
        let value = Solver::new(Rules::STANDARD).unwrap().board_value(&start);
        let decided = dirs.path().join("decided");
        grow(&decided, Rules::STANDARD, &format!(">= {value}"), Template::none());
        let other_claim = Spec::new(Rules::BGA, start, format!(">= {}", value + 2).parse().unwrap(), 300).unwrap();
        let err = Template::from_proof(&decided, &other_claim).unwrap_err().to_string();
        assert!(err.contains("must claim what this proof does"), "{err}");
        let open = dirs.path().join("open");
        let spec = Spec::new(Rules::STANDARD, start, format!(">= {value}").parse().unwrap(), 300).unwrap();
        spec.create(&open).unwrap();
        let err = Template::from_proof(&open, &spec).unwrap_err().to_string();
        assert!(err.contains("must be decided"), "{err}");
    }
}
