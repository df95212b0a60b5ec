//! Helpers shared by the integration tests: building a small database, and a replayable
//! pseudo-random sequence.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::path::Path;

use kalah::database::Database;
use kalah::database::Layout;
use kalah::database::build::{self, BuildOptions, LayerReport, Silent};
use kalah::rules::Rules;

/// Builds (or completes) the compressed database for `rules` on `houses` houses up to `max_seeds`.
pub fn build_db(root: &Path, rules: &Rules, houses: usize, max_seeds: usize) -> Vec<LayerReport> {
    let options = BuildOptions { max_seeds, compress: true, reference_moves: false, layout: Layout::Packed };
    build::build(root, rules, houses, &options, &Silent).expect("the build succeeds")
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
