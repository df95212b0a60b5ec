//! What the checked proofs in the repository establish, as bounds on positions' values that any
//! front end may serve without a search.
//!
//! A proof counts once two things agree: its logs decide its claim by the rules (the check's walk
//! of the logged tree, which needs no search), and a check transcript committed beside them
//! (`check-*.txt`, the output of `kalah proof check`) says that the same proof or refutation, of
//! the same size, was CHECKED with every one of its leaves searched again and confirmed. Every
//! node of that proof or refutation then has its question answered the way the verdict says: the
//! root's claim, and below it each node's own bound (see `Spec::node_claim`).

use std::path::{Path, PathBuf};

use super::log::read_records;
use super::{Claim, Spec, Tree, Verdict, check};
use crate::board::Position;
use crate::rules::Rules;

/// A bound on a position's value for its side to move, stores included, and the proof that
/// establishes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenBound {
    /// The rules it holds under.
    pub rules: Rules,
    /// The position.
    pub position: Position,
    /// The bound for the position's side to move.
    pub claim: Claim,
    /// The proof's directory, as found.
    pub proof: String,
}

/// A proof that counts: the bounds it establishes and what its logs say it cost.
#[derive(Clone, Debug)]
pub struct CheckedProof {
    /// Its directory, as found.
    pub dir: String,
    /// The bound of every node of its proof or refutation.
    pub bounds: Vec<ProvenBound>,
    /// Nodes searched in all its runs.
    pub nodes: u64,
    /// Seconds of task time in all its runs.
    pub seconds: f64,
}

/// The proof in `dir` with the bounds it establishes, or why it establishes none yet.
pub(crate) fn checked_proof(dir: &Path) -> Result<CheckedProof, String> {
    let spec = Spec::load(dir).map_err(|err| err.to_string())?;
    let records = read_records(dir).map_err(|err| err.to_string())?;
    let walk = check(&spec, &records, None).map_err(|err| err.to_string())?;
    let holds = match walk.verdict {
        Verdict::Proven => true,
        Verdict::Refuted => false,
        Verdict::Open => return Err("its logs decide nothing yet".to_string()),
    };
    let mut confirmed = walk.clone();
    (confirmed.sampled, confirmed.confirmed) = (walk.proof_leaves, walk.proof_leaves);
    if !confirmed.passed() && !confirmed.refutation_passed() {
        return Err(format!("its logs are inconsistent: {}", walk.problems.join("; ")));
    }
    let (verdict, size) = confirmed.heading(&spec);
    let transcript = transcripts(dir)?
        .into_iter()
        .find(|text| text.lines().any(|l| l == verdict) && text.lines().any(|l| l.starts_with(&size)));
    if transcript.is_none() {
        return Err(format!(
            "no check-*.txt transcript says '{verdict}' of every leaf of the proof its logs hold ('{size}')"
        ));
    }
    let proof = dir.display().to_string();
    let bounds = walk
        .shown_at
        .iter()
        .map(|position| {
            let question = spec.node_claim(position);
            let claim = if holds { question } else { question.negated() };
            ProvenBound {
                rules: spec.rules,
                position: *position,
                claim: claim.with_parity(&spec.rules, position),
                proof: proof.clone(),
            }
        })
        .collect();
    let mut tree = Tree::new(spec);
    for record in records {
        tree.add(record).map_err(|err| err.to_string())?;
    }
    tree.check_root().map_err(|err| err.to_string())?;
    let (nodes, seconds) = tree.records().cost();
    Ok(CheckedProof { dir: proof, bounds, nodes, seconds })
}

/// The text of every `check-*.txt` in `dir`, by name.
fn transcripts(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("check-") && name.ends_with(".txt")
        })
        .collect();
    paths.sort();
    paths.iter().map(|path| std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))).collect()
}

/// Every proof directory under `root` (those with a `proof.toml`), by name.
pub(crate) fn proof_dirs(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| super::spec_path(path).is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Every proof under `root` that counts, and each other one with why it does not.
pub fn checked_proofs(root: &Path) -> (Vec<CheckedProof>, Vec<(PathBuf, String)>) {
    let (mut checked, mut left_out) = (Vec::new(), Vec::new());
    for dir in proof_dirs(root) {
        match checked_proof(&dir) {
            Ok(proof) => checked.push(proof),
            Err(why) => left_out.push((dir, why)),
        }
    }
    (checked, left_out)
}
