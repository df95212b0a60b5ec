//! Layers under cycles (clockwise sowing) in three bytes a position: the least fixed points of
//! [`super::cyclic`], every threshold at once, by sweeping the layer until nothing changes.
//!
//! For each position P keep two counts: `a(P)`, the largest t for which P is known to be in
//! `A_t`, and `l(P)` the same for `L_t` (the sets shrink as t grows, so a count says which sets
//! hold P). The rules of `cyclic` for every t at once read, clamped to `0..=seeds`:
//!
//! - `a(P) = max(best exit, l(C) for each child C the opponent moves in, a(C) for each the same
//!   side moves in)`;
//! - `l(P) = min(-best exit, a(C) for each child C the opponent moves in, l(C) for each the same
//!   side moves in)`, the exit term left out when every move stays in the layer.
//!
//! Both counts only grow from 0. Updated in place, in parallel and racing, each update a
//! `fetch_max` of a value computed from counts no greater than the fixed point's, they reach the
//! least fixed point, which a whole sweep that changes nothing confirms; the value is `a - l`.
//!
//! Memory: the best exit and the two counts, three bytes a position, where the predecessor
//! lists of `cyclic` take some 40; time: every sweep generates the layer's moves again.
//! Sweeps alternate their direction along the index so that news travels both ways.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use rayon::prelude::*;

use super::Progress;
use super::cyclic::{NO_EXIT, SAME_MOVER, layer_moves};
use crate::database::{LayerBuffer, LayerValues};
use crate::index::Layer;
use crate::rules::Rules;

/// Positions per parallel work item.
const CHUNK: usize = 1 << 12;

/// What a layer takes while it is computed: the best exit and the two counts.
pub(super) const BYTES_PER_POSITION: u64 = 3;

/// Computes layer `seeds` of a database for `rules` (cycles allowed), as
/// [`super::cyclic::compute_layer`] does, in three bytes a position.
pub(super) fn compute_layer(
    rules: &Rules,
    layers: &[Layer],
    finished: &[Arc<LayerValues>],
    seeds: usize,
    progress: &dyn Progress,
) -> std::io::Result<LayerBuffer> {
    let len = layers[seeds].len() as usize;
    let top = seeds as i32;
    let best_exit: Vec<i8> = (0..len)
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|i| layer_moves(rules, layers, Some(finished), seeds, i, |_| {}))
        .collect();
    // Progress: the exits a quarter of the layer, each sweep half of what is left.
    let mut left = len as u64 - len as u64 / 4;
    progress.advanced(len as u64 / 4);
    let a: Vec<AtomicU8> = best_exit.iter().map(|&exit| AtomicU8::new(i32::from(exit).clamp(0, top) as u8)).collect();
    let l: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
    let mut backwards = false;
    loop {
        let changed = AtomicBool::new(false);
        (0..len.div_ceil(CHUNK)).into_par_iter().for_each(|chunk| {
            let range = chunk * CHUNK..((chunk + 1) * CHUNK).min(len);
            let update = |i: usize| {
                let exit = i32::from(best_exit[i]);
                let mut new_a = a[i].load(Ordering::Relaxed);
                let mut new_l = if exit == i32::from(NO_EXIT) { top } else { (-exit).clamp(0, top) } as u8;
                layer_moves(rules, layers, None, seeds, i, |child| {
                    let c = (child & !SAME_MOVER) as usize;
                    let (child_a, child_l) = (a[c].load(Ordering::Relaxed), l[c].load(Ordering::Relaxed));
                    let (wins, holds) = if child & SAME_MOVER != 0 { (child_a, child_l) } else { (child_l, child_a) };
                    new_a = new_a.max(wins);
                    new_l = new_l.min(holds);
                });
                let grew_a = a[i].fetch_max(new_a, Ordering::Relaxed) < new_a;
                let grew_l = l[i].fetch_max(new_l, Ordering::Relaxed) < new_l;
                if grew_a || grew_l {
                    changed.store(true, Ordering::Relaxed);
                }
            };
            if backwards {
                range.rev().for_each(update);
            } else {
                range.for_each(update);
            }
        });
        progress.advanced(left / 2);
        left -= left / 2;
        if !changed.load(Ordering::Relaxed) {
            break;
        }
        backwards = !backwards;
    }
    let mut buffer = LayerBuffer::zeroed(len)?;
    for (value, (a, l)) in buffer.bytes_mut().iter_mut().zip(a.into_iter().zip(l)) {
        *value = (i32::from(a.into_inner()) - i32::from(l.into_inner())) as i8 as u8;
    }
    progress.advanced(left);
    Ok(buffer)
}

#[cfg(test)]
mod tests {
    use super::super::Silent;
    use super::*;
    use crate::rules::Direction;

    #[test]
    fn sweeps_give_the_values_of_the_predecessor_lists() {
        let clockwise = |rules: Rules| Rules { direction: Direction::Cw, ..rules };
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE, Rules::BGA, Rules::SWEDISH].map(clockwise) {
            let rules = rules.for_values();
            for (houses, max_seeds) in [(2, 9), (3, 8), (4, 6)] {
                let layers: Vec<Layer> = (0..=max_seeds).map(|seeds| Layer::new(&rules, houses, seeds)).collect();
                let mut finished = Vec::new();
                let mut nonzero = 0;
                for seeds in 0..=max_seeds {
                    let by_lists =
                        super::super::cyclic::compute_layer(&rules, &layers, &finished, seeds, &Silent).unwrap();
                    let by_sweeps = compute_layer(&rules, &layers, &finished, seeds, &Silent).unwrap();
                    assert_eq!(by_sweeps.bytes(), by_lists.bytes(), "{rules}, {houses} houses, {seeds} seeds");
                    nonzero += by_lists.bytes().iter().filter(|&&v| v != 0).count();
                    finished.push(Arc::new(LayerValues::Bytes(by_lists)));
                }
                assert!(nonzero > 100, "{rules}, {houses} houses: {nonzero} values are not 0");
            }
        }
    }
}
