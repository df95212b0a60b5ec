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
    /// How many disagree.
    pub mismatch_count: u64,
    /// The first of them (at most [`MISMATCHES_KEPT`]).
    pub mismatches: Vec<Mismatch>,
}

/// Mismatches listed; the rest are counted.
pub const MISMATCHES_KEPT: usize = 100;

/// Positions recomputed between two progress reports.
const CHUNK: u64 = 1 << 16;

/// Checks every checksum of `db`, then recomputes `samples` evenly spread positions of each
/// layer (every position when `samples` is at least the layer's size), in parallel on the
/// current rayon pool, calling `advanced(positions)` as they are done.
pub fn verify(db: &Database, samples: u64, advanced: &(dyn Fn(u64) + Sync)) -> Result<Verification, DbError> {
    db.verify_checksums()?;
    let mut found = Verification::default();
    let m = db.houses();
    for layer in (0..=db.max_seeds()).filter_map(|seeds| db.layer(seeds)) {
        let count = samples.min(layer.len());
        let chunks: Vec<(u64, Vec<Mismatch>)> = (0..count.div_ceil(CHUNK))
            .into_par_iter()
            .map(|chunk| {
                let (mut wrong, mut kept) = (0, Vec::new());
                for k in chunk * CHUNK..((chunk + 1) * CHUNK).min(count) {
                    // Evenly spread, offset so that the first and last positions are not always
                    // chosen; every position when all are asked for.
                    let index = ((u128::from(k) * u128::from(layer.len()) + u128::from(layer.len() / 2))
                        / u128::from(count)) as u64;
                    let (mut mover, mut opponent) = ([0u8; MAX_HOUSES], [0u8; MAX_HOUSES]);
                    layer.rows(index, &mut mover[..m], &mut opponent[..m]);
                    let position = Position::from_rows(&mover[..m], &opponent[..m]);
                    let (stored, recomputed) = db.recompute(&position)?;
                    if stored != recomputed {
                        wrong += 1;
                        if kept.len() < MISMATCHES_KEPT {
                            kept.push(Mismatch { position, stored, recomputed });
                        }
                    }
                }
                advanced(((chunk + 1) * CHUNK).min(count) - chunk * CHUNK);
                Ok((wrong, kept))
            })
            .collect::<Result<_, DbError>>()?;
        found.sampled += count;
        for (wrong, kept) in chunks {
            found.mismatch_count += wrong;
            let room = MISMATCHES_KEPT - found.mismatches.len();
            found.mismatches.extend(kept.into_iter().take(room));
        }
    }
    Ok(found)
}

/// The positions [`verify`] recomputes in `db` for `samples` per layer.
pub fn positions_to_verify(db: &Database, samples: u64) -> u64 {
    (0..=db.max_seeds()).filter_map(|seeds| db.layer(seeds)).map(|layer| samples.min(layer.len())).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::database::Layout;
    use crate::database::builder::{self, BuildOptions};
    use crate::engine::Quietly;
    use crate::rules::Rules;

    #[test]
    fn a_sound_database_recomputes_without_mismatches() {
        let root = tempfile::tempdir().unwrap();
        let rules = Rules::STANDARD;
        let options = BuildOptions {
            max_seeds: 10,
            compress: true,
            reference_moves: false,
            layout: Layout::Packed,
            cyclic: Default::default(),
        };
        builder::build(root.path(), &rules, 3, &options, &Quietly).unwrap();
        let db = Database::open(root.path(), &rules, 3).unwrap();
        let found = verify(&db, 50, &|_| {}).unwrap();
        let sizes: Vec<u64> = (0..=10).map(|seeds| db.layer(seeds).unwrap().len()).collect();
        assert!(sizes[10] > 50 && sizes[1] < 50, "{sizes:?}");
        assert_eq!(found.sampled, sizes.iter().map(|&n| n.min(50)).sum::<u64>());
        assert_eq!((found.mismatch_count, found.mismatches), (0, Vec::new()));
        assert_eq!(positions_to_verify(&db, 50), found.sampled);
        // Every position, counted as it goes.
        let done = std::sync::atomic::AtomicU64::new(0);
        let all = verify(&db, u64::MAX, &|n| {
            done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(all.sampled, sizes.iter().sum::<u64>());
        assert_eq!(done.into_inner(), all.sampled);
        assert_eq!(all.mismatch_count, 0);
    }

    #[test]
    fn a_full_verification_finds_a_single_changed_value() {
        let root = tempfile::tempdir().unwrap();
        let rules = Rules::STANDARD;
        let options = BuildOptions {
            max_seeds: 9,
            compress: false,
            reference_moves: false,
            layout: Layout::Packed,
            cyclic: Default::default(),
        };
        builder::build(root.path(), &rules, 3, &options, &Quietly).unwrap();
        let path = crate::database::layer_path(&crate::database::database_dir(root.path(), &rules, 3), 9);
        let bytes = std::fs::read(&path).unwrap();
        let (header, start) = crate::database::format::Header::decode(&path, &bytes).unwrap();
        let mut values = bytes[start..].to_vec();
        let at = values.len() / 3;
        values[at] = if values[at] as i8 == 9 { 7u8 } else { 9u8 };
        let forged =
            crate::database::format::Header { payload_checksum: crate::database::format::checksum(&values), ..header };
        std::fs::write(&path, [forged.encode(), values].concat()).unwrap();
        let db = Database::open(root.path(), &rules, 3).unwrap();
        let all = verify(&db, u64::MAX, &|_| {}).unwrap();
        // The changed value, and the positions whose moves lead to it, disagree with their
        // successors; nothing else does.
        assert!(all.mismatch_count >= 1, "the forgery is found");
        assert!(all.mismatches.iter().any(|m| m.stored != m.recomputed));
    }
}
