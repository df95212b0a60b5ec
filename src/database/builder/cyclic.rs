//! Layers for rules whose positions can repeat (clockwise sowing): retrograde analysis with
//! cycles.
//!
//! A move that banks nothing keeps every seed on the board, so it leads to a position of the same
//! layer; under clockwise sowing such moves can come back to where they started, and plain
//! recursion (or the acyclic builder's rounds) no longer has an order to follow. What does hold:
//! moves that bank seeds, or end the game, lead out of the layer to values already known (the
//! *exits*), and endless play is scored 0 for the seeds left on the board.
//!
//! Values come threshold by threshold. For `t >= 1` let `A_t` be the positions whose mover can
//! force a board value of at least `t`, and `L_t` those whose *opponent* can force the mover to
//! at most `-t`. Neither side reaches its goal by playing forever (that scores 0), so both are
//! least fixed points, computed from empty sets:
//!
//! - P is in `A_t` if an exit is worth `t` or more, or a move leads to a child in `L_t` (the
//!   opponent then moves and loses `t`), or to a same-mover child in `A_t`;
//! - P is in `L_t` if every exit is worth `-t` or less and every move leads to a child in `A_t`
//!   (or a same-mover child in `L_t`).
//!
//! The sets shrink as `t` grows, so the value of P is the number of thresholds with P in `A_t`
//! minus the number with P in `L_t`: a position in neither for `t = 1` is worth exactly 0.
//! Each pair of fixed points is reached by propagation backwards from the positions an exit
//! decides, along predecessor lists, with a count of each position's moves not yet known to
//! lose: time linear in the layer's moves per threshold, the thresholds in parallel (rayon).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::Progress;
use crate::board::{MAX_HOUSES, Position};
use crate::database::{LayerBuffer, LayerValues};
use crate::index::Layer;
use crate::moves::MoveEffect;
use crate::rules::Rules;

/// Marks an edge to a child the same side moves in (an extra turn that banked nothing).
pub(super) const SAME_MOVER: u32 = 1 << 31;

/// Marks a queued position that joined `A_t` (rather than `L_t`).
const JOINED_A: u32 = 1 << 31;

/// No exit: every move stays in the layer.
pub(super) const NO_EXIT: i8 = i8::MIN;

/// A layer's moves: each position's best exit, its number of moves inside the layer, and for each
/// position the positions with a move to it. The forward edges are never stored: the moves are
/// generated twice instead, which keeps a layer of 400 M positions (6 houses, 24 seeds) within
/// some 40 bytes a position.
struct Graph {
    best_exit: Vec<i8>,
    /// Moves inside the layer, per position.
    degree: Vec<u8>,
    /// Who reaches position `c` in one move: `edges[starts[c]..starts[c + 1]]`, with
    /// [`SAME_MOVER`] set for a move after which the same side moves (32 bits: a layer of 400 M
    /// positions has some 2.3 G moves).
    starts: Vec<u32>,
    edges: Vec<AtomicU32>,
}

impl Graph {
    fn predecessors(&self, c: usize) -> &[AtomicU32] {
        &self.edges[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

/// What the predecessor lists take, bytes a position of the layer, and what each worker's
/// thresholds add (measured, 2 threads: 33 in all; see docs/performance-history.md).
pub(super) const fn bytes_per_position(workers: u64) -> u64 {
    24 + 8 * workers
}

/// Positions per parallel work item.
const CHUNK: usize = 1 << 12;

/// Computes layer `seeds` of a database for `rules` (cycles allowed): `finished[s]` holds the
/// values of every smaller layer `s`, `layers` the index of every layer up to `seeds`.
pub(super) fn compute_layer(
    rules: &Rules,
    layers: &[Layer],
    finished: &[Arc<LayerValues>],
    seeds: usize,
    progress: &dyn Progress,
) -> std::io::Result<LayerBuffer> {
    let layer = &layers[seeds];
    let len = layer.len() as usize;
    assert!(len < SAME_MOVER as usize, "a layer of {len} positions is too large for 31-bit edges");
    let graph = moves(rules, layers, finished, seeds);
    // Progress: the moves count for half the layer, the thresholds share the other half.
    let moves_share = len as u64 / 2;
    let threshold_share = (len as u64 - moves_share) / seeds.max(1) as u64;
    progress.advanced(moves_share);
    // Thresholds are independent of each other once the graph is known: each worker takes some
    // and adds up its own counts, so memory grows with the workers, not the thresholds.
    let add = |mut sum: Vec<i8>, other: Vec<i8>| {
        sum.iter_mut().zip(other).for_each(|(s, o)| *s += o);
        sum
    };
    let counts = (1..seeds as i32 + 1)
        .into_par_iter()
        .with_max_len(1)
        .fold(
            || vec![0i8; len],
            |mut sum, t| {
                let (in_a, in_l) = attractors(&graph, t);
                for (i, s) in sum.iter_mut().enumerate() {
                    *s += i8::from(in_a[i]) - i8::from(in_l[i]);
                }
                progress.advanced(threshold_share);
                sum
            },
        )
        .reduce(|| vec![0i8; len], add);
    let mut buffer = LayerBuffer::zeroed(len)?;
    for (value, count) in buffer.bytes_mut().iter_mut().zip(counts) {
        *value = count as u8;
    }
    progress.advanced(len as u64 - moves_share - threshold_share * seeds as u64);
    Ok(buffer)
}

/// The least fixed points `A_t` and `L_t` (see the module comment), by propagation from the
/// positions an exit decides: each position joins a set once, and each edge is looked at once
/// per set, so a threshold costs time linear in the layer's moves.
fn attractors(graph: &Graph, t: i32) -> (Vec<bool>, Vec<bool>) {
    let len = graph.best_exit.len();
    let (mut in_a, mut in_l) = (vec![false; len], vec![false; len]);
    // Moves of each position not yet known to lose (for L_t).
    let mut open = graph.degree.clone();
    // Positions that joined a set, with JOINED_A set for A rather than L.
    let mut queue: Vec<u32> = Vec::new();
    for i in 0..len {
        if i32::from(graph.best_exit[i]) >= t {
            in_a[i] = true;
            queue.push(i as u32 | JOINED_A);
        } else if i32::from(graph.best_exit[i]) <= -t && open[i] == 0 {
            in_l[i] = true;
            queue.push(i as u32);
        }
    }
    while let Some(entry) = queue.pop() {
        let (c, joined_a) = ((entry & !JOINED_A) as usize, entry & JOINED_A != 0);
        for e in graph.predecessors(c) {
            let e = e.load(Ordering::Relaxed);
            let p = (e & !SAME_MOVER) as usize;
            let same = e & SAME_MOVER != 0;
            // A move to a child in L (opponent moves next) or in A (same mover) wins for p; a
            // move to a child in A (opponent) or in L (same mover) is one fewer open move for p.
            if joined_a == same {
                if !in_a[p] {
                    in_a[p] = true;
                    queue.push(p as u32 | JOINED_A);
                }
            } else {
                open[p] -= 1;
                if open[p] == 0 && !in_l[p] && i32::from(graph.best_exit[p]) <= -t {
                    in_l[p] = true;
                    queue.push(p as u32);
                }
            }
        }
    }
    (in_a, in_l)
}

/// Every position's exits (best value) and moves inside the layer, and the predecessor lists: a
/// first pass counts each position's moves in and out, a second generates the moves again and
/// files each under its child.
fn moves(rules: &Rules, layers: &[Layer], finished: &[Arc<LayerValues>], seeds: usize) -> Graph {
    let layer = &layers[seeds];
    let len = layer.len() as usize;
    let incoming: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
    let per_chunk: Vec<(Vec<i8>, Vec<u8>)> = (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let range = chunk * CHUNK..((chunk + 1) * CHUNK).min(len);
            let (mut exits, mut degrees) = (Vec::with_capacity(range.len()), Vec::with_capacity(range.len()));
            for i in range {
                let mut degree = 0u8;
                let best = layer_moves(rules, layers, Some(finished), seeds, i, |child| {
                    incoming[(child & !SAME_MOVER) as usize].fetch_add(1, Ordering::Relaxed);
                    degree += 1;
                });
                exits.push(best);
                degrees.push(degree);
            }
            (exits, degrees)
        })
        .collect();
    let mut best_exit = Vec::with_capacity(len);
    let mut degree = Vec::with_capacity(len);
    for (exits, degrees) in per_chunk {
        best_exit.extend(exits);
        degree.extend(degrees);
    }
    // Prefix sums: where each position's predecessor list starts; `incoming` becomes the next
    // free slot of each list.
    let mut starts = Vec::with_capacity(len + 1);
    let mut total = 0u64;
    for count in &incoming {
        starts.push(total as u32);
        let count = count.load(Ordering::Relaxed);
        total += u64::from(count);
    }
    assert!(total < u64::from(u32::MAX), "a layer with {total} moves is too large");
    starts.push(total as u32);
    for (next, &start) in incoming.iter().zip(&starts) {
        next.store(start, Ordering::Relaxed);
    }
    let edges: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
    (0..len.div_ceil(CHUNK)).into_par_iter().for_each(|chunk| {
        for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(len) {
            layer_moves(rules, layers, Some(finished), seeds, i, |child| {
                let slot = incoming[(child & !SAME_MOVER) as usize].fetch_add(1, Ordering::Relaxed);
                edges[slot as usize].store(i as u32 | (child & SAME_MOVER), Ordering::Relaxed);
            });
        }
    });
    Graph { best_exit, degree, starts, edges }
}

/// Plays every move of position `i` of layer `seeds`: calls `inside` with each child in the layer
/// (its index, [`SAME_MOVER`] set when the same side moves next) and returns the best exit, read
/// from the values of the `finished` smaller layers ([`NO_EXIT`] when they are not given).
pub(super) fn layer_moves(
    rules: &Rules,
    layers: &[Layer],
    finished: Option<&[Arc<LayerValues>]>,
    seeds: usize,
    i: usize,
    mut inside: impl FnMut(u32),
) -> i8 {
    let layer = &layers[seeds];
    let houses = layer.houses();
    let (mut mover, mut opponent) = ([0u8; MAX_HOUSES], [0u8; MAX_HOUSES]);
    layer.rows(i as u64, &mut mover[..houses], &mut opponent[..houses]);
    let position = Position::from_rows(&mover[..houses], &opponent[..houses]);
    let mut best = i32::from(NO_EXIT);
    for house in position.legal_moves() {
        let effect = MoveEffect::of(rules, &position, house);
        let child = &effect.child;
        let child_seeds = child.seeds_on_board() as usize;
        if effect.over {
            best = best.max(effect.value(0));
        } else if child_seeds < seeds {
            if let Some(finished) = finished {
                let index = layers[child_seeds].index(child.mover_houses(), child.opponent_houses()) as usize;
                best = best.max(effect.value(finished[child_seeds].get(index)));
            }
        } else {
            let index = layer.index(child.mover_houses(), child.opponent_houses()) as u32;
            inside(if effect.extra_turn { index | SAME_MOVER } else { index });
        }
    }
    best as i8
}
