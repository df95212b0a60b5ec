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

use rayon::prelude::*;

use super::build::Progress;
use super::{LayerBuffer, MoveEffect};
use crate::board::{MAX_HOUSES, Position};
use crate::index::Layer;
use crate::rules::Rules;

/// Marks an edge to a child the same side moves in (an extra turn that banked nothing).
const SAME_MOVER: u32 = 1 << 31;

/// No exit: every move stays in the layer.
const NO_EXIT: i8 = i8::MIN;

/// A layer's moves: each position's best exit and its edges inside the layer.
struct Graph {
    best_exit: Vec<i8>,
    /// Edges of position `i` are `edges[starts[i]..starts[i + 1]]` (32 bits: a layer of 400 M
    /// positions has some 2.5 G moves).
    starts: Vec<u32>,
    edges: Vec<u32>,
}

impl Graph {
    fn edges(&self, i: usize) -> &[u32] {
        &self.edges[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// Positions per parallel work item.
const CHUNK: usize = 1 << 12;

/// Computes layer `seeds` of a database for `rules` (cycles allowed): `finished[s]` holds the
/// values of every smaller layer `s`, `layers` the index of every layer up to `seeds`.
pub(super) fn compute_layer(
    rules: &Rules,
    layers: &[Layer],
    finished: &[Arc<LayerBuffer>],
    seeds: usize,
    progress: &dyn Progress,
) -> std::io::Result<LayerBuffer> {
    let layer = &layers[seeds];
    let len = layer.len() as usize;
    assert!(len < SAME_MOVER as usize, "a layer of {len} positions is too large for 31-bit edges");
    let graph = moves(rules, layers, finished, seeds);
    let predecessors = predecessors(&graph, len);
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
                let (in_a, in_l) = attractors(&graph, &predecessors, t);
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

/// Who reaches a position in one move: `edges[starts[c]..starts[c + 1]]` are the positions with
/// a move to `c`, with [`SAME_MOVER`] set as on the forward edge.
struct Predecessors {
    starts: Vec<u32>,
    edges: Vec<u32>,
}

fn predecessors(graph: &Graph, len: usize) -> Predecessors {
    let mut starts = vec![0u32; len + 1];
    for &e in &graph.edges {
        starts[(e & !SAME_MOVER) as usize + 1] += 1;
    }
    for i in 0..len {
        starts[i + 1] += starts[i];
    }
    let mut next = starts.clone();
    let mut edges = vec![0u32; graph.edges.len()];
    for p in 0..len {
        for &e in graph.edges(p) {
            let c = (e & !SAME_MOVER) as usize;
            edges[next[c] as usize] = p as u32 | (e & SAME_MOVER);
            next[c] += 1;
        }
    }
    Predecessors { starts, edges }
}

/// The least fixed points `A_t` and `L_t` (see the module comment), by propagation from the
/// positions an exit decides: each position joins a set once, and each edge is looked at once
/// per set, so a threshold costs time linear in the layer's moves.
fn attractors(graph: &Graph, predecessors: &Predecessors, t: i32) -> (Vec<bool>, Vec<bool>) {
    let len = graph.best_exit.len();
    let (mut in_a, mut in_l) = (vec![false; len], vec![false; len]);
    // Moves of each position not yet known to lose (for L_t).
    let mut open: Vec<u8> = (0..len).map(|i| graph.edges(i).len() as u8).collect();
    // (position, joined A rather than L)
    let mut queue: Vec<(usize, bool)> = Vec::new();
    for i in 0..len {
        if i32::from(graph.best_exit[i]) >= t {
            in_a[i] = true;
            queue.push((i, true));
        } else if i32::from(graph.best_exit[i]) <= -t && open[i] == 0 {
            in_l[i] = true;
            queue.push((i, false));
        }
    }
    while let Some((c, joined_a)) = queue.pop() {
        let range = predecessors.starts[c] as usize..predecessors.starts[c + 1] as usize;
        for &e in &predecessors.edges[range] {
            let p = (e & !SAME_MOVER) as usize;
            let same = e & SAME_MOVER != 0;
            // A move to a child in L (opponent moves next) or in A (same mover) wins for p; a
            // move to a child in A (opponent) or in L (same mover) is one fewer open move for p.
            if joined_a == same {
                if !in_a[p] {
                    in_a[p] = true;
                    queue.push((p, true));
                }
            } else {
                open[p] -= 1;
                if open[p] == 0 && !in_l[p] && i32::from(graph.best_exit[p]) <= -t {
                    in_l[p] = true;
                    queue.push((p, false));
                }
            }
        }
    }
    (in_a, in_l)
}

/// Every position's exits (best value) and edges inside the layer.
fn moves(rules: &Rules, layers: &[Layer], finished: &[Arc<LayerBuffer>], seeds: usize) -> Graph {
    let layer = &layers[seeds];
    let len = layer.len() as usize;
    let houses = layer.houses();
    let per_chunk: Vec<(Vec<i8>, Vec<u8>, Vec<u32>)> = (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let range = chunk * CHUNK..((chunk + 1) * CHUNK).min(len);
            let (mut exits, mut counts, mut edges) = (Vec::new(), Vec::new(), Vec::new());
            let (mut mover, mut opponent) = ([0u8; MAX_HOUSES], [0u8; MAX_HOUSES]);
            for i in range {
                layer.rows(i as u64, &mut mover[..houses], &mut opponent[..houses]);
                let position = Position::from_rows(&mover[..houses], &opponent[..houses]);
                let mut best = i32::from(NO_EXIT);
                let before = edges.len();
                for house in position.legal_moves() {
                    let effect = MoveEffect::of(rules, &position, house);
                    let child_seeds = effect.child.seeds_on_board() as usize;
                    if effect.over {
                        best = best.max(effect.value(0));
                    } else if child_seeds < seeds {
                        let child = &effect.child;
                        let index = layers[child_seeds].index(child.mover_houses(), child.opponent_houses()) as usize;
                        best = best.max(effect.value(i32::from(finished[child_seeds].bytes()[index] as i8)));
                    } else {
                        let child = &effect.child;
                        let index = layer.index(child.mover_houses(), child.opponent_houses()) as u32;
                        edges.push(if effect.extra_turn { index | SAME_MOVER } else { index });
                    }
                }
                exits.push(best as i8);
                counts.push((edges.len() - before) as u8);
            }
            (exits, counts, edges)
        })
        .collect();
    let mut graph =
        Graph { best_exit: Vec::with_capacity(len), starts: Vec::with_capacity(len + 1), edges: Vec::new() };
    graph.starts.push(0);
    for (exits, counts, edges) in per_chunk {
        graph.best_exit.extend(exits);
        for count in counts {
            let last = *graph.starts.last().expect("a start");
            graph.starts.push(last + u32::from(count));
        }
        graph.edges.extend(edges);
    }
    assert!(graph.edges.len() < u32::MAX as usize, "a layer with {} moves is too large", graph.edges.len());
    graph
}
