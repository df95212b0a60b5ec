//! Move generation speed: every legal move of a fixed set of mid-game positions, per rule set.
//! Run with `cargo bench --bench movegen`; criterion reports moves per second (elements/s).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kalah::{Position, Rules};

/// Mid-game positions from pseudo-random games (a fixed LCG, so every run measures the same work).
fn positions(rules: &Rules, houses: usize, seeds: u32, count: usize) -> Vec<Position> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut position = Position::start(houses, seeds).expect("a valid start");
        while !position.is_over(rules) {
            out.push(position);
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let legal: Vec<usize> = position.legal_moves().collect();
            position.play(rules, legal[(state >> 33) as usize % legal.len()]);
        }
    }
    out.truncate(count);
    out
}

fn movegen(c: &mut Criterion) {
    for (name, rules) in kalah::rules::RULE_SETS {
        let positions = positions(&rules, 6, 4, 4096);
        let moves: u64 = positions.iter().map(|p| p.legal_moves().count() as u64).sum();
        let mut group = c.benchmark_group("movegen");
        group.throughput(Throughput::Elements(moves));
        group.bench_function(format!("6x4/{name}"), |b| {
            b.iter(|| {
                let mut checksum = 0u32;
                for position in &positions {
                    for house in position.legal_moves() {
                        let mut child = *position;
                        let outcome = child.play(&rules, house);
                        checksum =
                            checksum.wrapping_add(u32::from(child.mover_store()) + u32::from(outcome.extra_turn));
                    }
                }
                black_box(checksum)
            })
        });
        group.finish();
    }
}

criterion_group!(benches, movegen);
criterion_main!(benches);
