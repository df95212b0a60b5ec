//! Checking a database against the rules: every checksum, then sampled positions of every layer
//! recomputed from their children's stored values (a value wrong anywhere shows up as a
//! disagreement with the layer it was computed from).

use rayon::prelude::*;
use serde::Serialize;

use super::{Database, DbError};
use crate::board::{MAX_HOUSES, Position};

/// A position whose stored board value differs from the one recomputed from its children.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The position (without stores, South to move).
    pub position: Position,
    /// Its value in the database.
    pub stored: i32,
    /// Its value from its children's.
    pub recomputed: i32,
}

/// What a verification found.
#[derive(Clone, Debug, Default)]
pub struct Verification {
    /// Positions recomputed.
    pub sampled: u64,
    /// Those that disagree.
    pub mismatches: Vec<Mismatch>,
}

/// Checks every checksum of `db`, then recomputes `samples` evenly spread positions of each
/// layer (in parallel, on the current rayon pool).
pub fn verify(db: &Database, samples: u64) -> Result<Verification, DbError> {
    db.verify_checksums()?;
    let mut found = Verification::default();
    let m = db.houses();
    for layer in (0..=db.max_seeds()).filter_map(|seeds| db.layer(seeds)) {
        let count = samples.min(layer.len());
        let results: Vec<Mismatch> = (0..count)
            .into_par_iter()
            .map(|k| {
                // Evenly spread, offset so that the first and last positions are not always chosen.
                let index = (k * layer.len() + layer.len() / 2) / count;
                let (mut mover, mut opponent) = ([0u8; MAX_HOUSES], [0u8; MAX_HOUSES]);
                layer.rows(index, &mut mover[..m], &mut opponent[..m]);
                let position = Position::from_rows(&mover[..m], &opponent[..m]);
                db.recompute(&position).map(|(stored, recomputed)| Mismatch { position, stored, recomputed })
            })
            .collect::<Result<_, _>>()?;
        found.sampled += count;
        found.mismatches.extend(results.into_iter().filter(|m| m.stored != m.recomputed));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::database::build::{self, BuildOptions};
    use crate::engine::Quietly;
    use crate::rules::Rules;

    #[test]
    fn a_sound_database_recomputes_without_mismatches() {
        let root = tempfile::tempdir().unwrap();
        let rules = Rules::STANDARD;
        let options = BuildOptions { max_seeds: 10, compress: true, reference_moves: false };
        build::build(root.path(), &rules, 3, &options, &Quietly).unwrap();
        let db = Database::open(root.path(), &rules, 3).unwrap();
        let found = verify(&db, 50).unwrap();
        let sizes: Vec<u64> = (0..=10).map(|seeds| db.layer(seeds).unwrap().len()).collect();
        assert!(sizes[10] > 50 && sizes[1] < 50, "{sizes:?}");
        assert_eq!(found.sampled, sizes.iter().map(|&n| n.min(50)).sum::<u64>());
        assert_eq!(found.mismatches, Vec::new());
    }
}
