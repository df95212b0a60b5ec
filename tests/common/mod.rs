//! Helpers shared by the integration tests: building a small database, the values of a whole
//! small position graph by plain iteration, and a replayable pseudo-random sequence.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use kalah::Position;
use kalah::database::Database;
use kalah::database::Layout;
use kalah::database::builder::{self, BuildOptions, LayerReport, Silent};
use kalah::index::Layer;
use kalah::moves::MoveEffect;
use kalah::rules::Rules;

/// Builds (or completes) the compressed database for `rules` on `houses` houses up to `max_seeds`.
pub fn build_db(root: &Path, rules: &Rules, houses: usize, max_seeds: usize) -> Vec<LayerReport> {
    let options = BuildOptions {
        max_seeds,
        compress: true,
        reference_moves: false,
        layout: Layout::Packed,
        cyclic: Default::default(),
    };
    builder::build(root, rules, houses, &options, &Silent).expect("the build succeeds")
}

/// As [`build_db`], then opens the database.
pub fn build_and_open(root: &Path, rules: &Rules, houses: usize, max_seeds: usize) -> Database {
    build_db(root, rules, houses, max_seeds);
    Database::open(root, rules, houses).expect("the database opens")
}

/// A fixed pseudo-random sequence, so failures can be replayed.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 16) % n
    }
}

/// Board values of every position with at most `max_seeds` seeds that is not over, by plain
/// value iteration over the whole graph: v(P) = max over moves of the move's value given the
/// children's values of the previous round, from v = 0 everywhere, until nothing changes.
/// Round k holds the values of the game cut off after k moves with the cut scored 0, so the
/// limit scores endless play 0, as the rules do.
pub fn fixed_point(rules: &Rules, houses: usize, max_seeds: usize) -> HashMap<u128, i32> {
    let mut positions = Vec::new();
    for seeds in 0..=max_seeds {
        let layer = Layer::new(rules, houses, seeds);
        let (mut mover, mut opponent) = (vec![0u8; houses], vec![0u8; houses]);
        for i in 0..layer.len() {
            layer.rows(i, &mut mover, &mut opponent);
            positions.push(Position::from_rows(&mover, &opponent));
        }
    }
    let mut values: HashMap<u128, i32> = positions.iter().map(|p| (p.house_key(), 0)).collect();
    for round in 0.. {
        assert!(round < 10_000, "the iteration converges");
        let next: HashMap<u128, i32> = positions
            .iter()
            .map(|position| {
                let best = position
                    .legal_moves()
                    .map(|house| {
                        let effect = MoveEffect::of(rules, position, house);
                        effect.value(if effect.over { 0 } else { values[&effect.child.house_key()] })
                    })
                    .max()
                    .expect("a position that is not over has a move");
                (position.house_key(), best)
            })
            .collect();
        if next == values {
            break;
        }
        values = next;
    }
    values
}
