//! Where a search's nodes go, counted only in builds with the `profile` feature (the counters
//! cost nothing otherwise): how many children a node has and how many of them move again, end
//! the game or are answered by the database; how nodes are decided before any move is searched
//! (the table, the seeds' bound, the children's bounds); and how soon a cutoff comes. (A child
//! the table or the seeds settle is never entered: their decisions show at the expansion of its
//! parent, among its children's bounds.)
//! `examples/profile.rs` prints them for one search.

use serde::Serialize;

/// The counters; every one is a count of events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Profile {
    /// Nodes entered by a move that earned an extra turn (the same side moves again).
    pub after_extra_turn: u64,
    /// Nodes decided by the seeds on the board alone (all of them to one side cannot change the
    /// test): at the thresholds of win, draw and loss, the early end's cut.
    pub seed_cut: u64,
    /// Nodes decided by the table's bounds.
    pub table_decided: u64,
    /// Nodes whose children were generated.
    pub expanded: u64,
    /// Their children: legal moves.
    pub children: u64,
    /// Children reached by a move that earns an extra turn.
    pub extra_turn_children: u64,
    /// Children where the game ends.
    pub over_children: u64,
    /// Children the database answered.
    pub database_children: u64,
    /// Children whose bounds the table held when their node was expanded (those read late, at
    /// nodes expected to cut off, are not counted).
    pub table_children: u64,
    /// Of those, the ones whose bounds met: settled with no search.
    pub table_settled_children: u64,
    /// Expanded nodes decided by their children's bounds, no move searched.
    pub bounds_decided: u64,
    /// Moves searched at expanded nodes.
    pub moves_searched: u64,
    /// Nodes that cut off (reached beta) after searching a move.
    pub cutoffs: u64,
    /// Of those, the ones whose first searched move cut off.
    pub first_move_cutoffs: u64,
    /// Nodes of depth-limited estimates (first guesses and lead estimates), which only order the
    /// search's moves; they are among the search's nodes.
    pub estimate_nodes: u64,
}

impl Profile {
    /// Adds `other`'s counts (a worker thread's).
    pub fn add(&mut self, other: &Profile) {
        self.after_extra_turn += other.after_extra_turn;
        self.seed_cut += other.seed_cut;
        self.table_decided += other.table_decided;
        self.expanded += other.expanded;
        self.children += other.children;
        self.extra_turn_children += other.extra_turn_children;
        self.over_children += other.over_children;
        self.database_children += other.database_children;
        self.table_children += other.table_children;
        self.table_settled_children += other.table_settled_children;
        self.bounds_decided += other.bounds_decided;
        self.moves_searched += other.moves_searched;
        self.cutoffs += other.cutoffs;
        self.first_move_cutoffs += other.first_move_cutoffs;
        self.estimate_nodes += other.estimate_nodes;
    }
}

/// `stats.profile.FIELD += N` in builds with the `profile` feature; nothing otherwise.
macro_rules! count {
    ($stats:expr, $field:ident, $n:expr) => {
        #[cfg(feature = "profile")]
        {
            $stats.profile.$field += $n as u64;
        }
    };
}
pub(crate) use count;
