//! A lone zero-window test from a cold start ([`Search::board_value_at_least`], every proof
//! task): far above the database it runs in stages of growing effort, as iterative deepening
//! does with depth. A cheap stage (a small first guess, few or no lead estimates) settles most
//! tests at a fraction of the cost; one that runs out of its budget leaves its proven bounds and
//! moves in the table for the next, dearer one, and the last stage is the full setting. What a
//! test costs swings tenfold with the first move tried at a node or two next to the root, and no
//! single setting is cheap everywhere: the stages pay for the dear setting only where the cheap
//! one fails. The figures are in `docs/performance-history.md` ("A lone test in stages").

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use super::{Search, SearchError, guess, seed_bound};
use crate::board::Position;

/// One stage of a lone test: the first guess deepens until an iteration searches `guess_nodes`
/// (`None`: as for MTD(f)), nodes expected to cut off up to `lead_below_root` seeds below the
/// root lead by an estimate of their own (`None`: none do), and the stage gives up after `nodes`,
/// its guess included (`None`: only the search's own budget binds).
struct Stage {
    guess_nodes: Option<u64>,
    lead_below_root: Option<u32>,
    nodes: Option<u64>,
}

/// The stages of a lone test that gets a first guess, cheapest first.
const STAGES: [Stage; 3] = [
    Stage { guess_nodes: Some(1 << 14), lead_below_root: None, nodes: Some(2_000_000) },
    Stage { guess_nodes: Some(1 << 16), lead_below_root: Some(0), nodes: Some(16_000_000) },
    Stage { guess_nodes: None, lead_below_root: Some(LAST_LEAD_BELOW_ROOT), nodes: None },
];

/// How far below the root the last stage leads by estimate: each lead estimate far above the
/// database costs up to 4 M nodes, and a cold test pays for every one (MTD(f)'s tests, which
/// reuse them from test to test, lead down to `guess::LEAD_BELOW_ROOT`).
const LAST_LEAD_BELOW_ROOT: u32 = 2;

impl Search<'_> {
    /// Whether the board value of `position` is at least `beta`: one zero-window test, the cheapest
    /// proof of a bound such as "the first player wins".
    pub fn board_value_at_least(&mut self, position: &Position, beta: i32) -> Result<bool, SearchError> {
        self.check_houses(position)?;
        let board = position.without_stores();
        if let Some(value) = self.settled(&board)? {
            return Ok(value >= beta);
        }
        let bound = seed_bound(board.seeds_on_board());
        if beta > bound || beta <= -bound {
            return Ok(beta <= -bound);
        }
        let stages = if self.gets_first_guess(&board) { &STAGES[..] } else { &STAGES[STAGES.len() - 1..] };
        Ok(self.at_least_in_stages(&board, beta, stages)?.0)
    }

    /// Whether the board value of `board` (not settled) is at least `beta`, by the first of
    /// `stages` that decides it (the last has no budget of its own); also which one did.
    fn at_least_in_stages(
        &mut self,
        board: &Position,
        beta: i32,
        stages: &[Stage],
    ) -> Result<(bool, usize), SearchError> {
        for (index, stage) in stages.iter().enumerate() {
            let (result, stage_budget_spent) = self.within_budget(stage.nodes, |search| {
                // Far above the database the estimate leaves its moves in the table for the
                // test, and says which way the test should go, which tells the threads where
                // to split.
                let guess = search.first_guess_within(board, stage.guess_nodes)?;
                search.lead_below_root = stage.lead_below_root;
                let result = search.pass(board, beta, guess >= beta);
                search.lead_below_root = Some(guess::LEAD_BELOW_ROOT);
                result
            });
            match result {
                Err(SearchError::NodeLimit { .. }) if stage_budget_spent && index + 1 < stages.len() => continue,
                result => return Ok((result? >= beta, index)),
            }
        }
        unreachable!("the last stage answers or fails")
    }

    /// Runs `work` with at most `nodes` more nodes (`None`: no budget of its own), within the
    /// search's own budget, which is charged with what `work` spent. Also says whether it was
    /// this budget, not the search's, that stopped `work` with [`SearchError::NodeLimit`].
    fn within_budget<T>(
        &mut self,
        nodes: Option<u64>,
        work: impl FnOnce(&mut Self) -> Result<T, SearchError>,
    ) -> (Result<T, SearchError>, bool) {
        let Some(nodes) = nodes else {
            return (work(self), false);
        };
        let outer = self.nodes_left.clone();
        let outer_left = outer.as_ref().map(|left| u64::try_from(left.load(Ordering::Relaxed)).unwrap_or(0));
        let stage_binds = outer_left.is_none_or(|left| nodes < left);
        let limit = outer_left.map_or(nodes, |left| left.min(nodes));
        self.nodes_left = Some(Arc::new(AtomicI64::new(i64::try_from(limit).unwrap_or(i64::MAX))));
        let before = self.stats.nodes;
        let result = work(self);
        self.nodes_left = outer;
        if let Some(left) = &self.nodes_left {
            left.fetch_sub(i64::try_from(self.stats.nodes - before).unwrap_or(i64::MAX), Ordering::Relaxed);
        }
        let stopped_here = stage_binds && matches!(result, Err(SearchError::NodeLimit { .. }));
        (result, stopped_here)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::database::builder::{self, BuildOptions, Silent};
    use crate::database::{Database, Layout};
    use crate::rules::Rules;
    use crate::search::SearchOptions;
    use crate::solve::Solver;

    /// Stages small enough to run out: every answer as the reference solver's.
    const TINY: [Stage; 3] = [
        Stage { guess_nodes: Some(64), lead_below_root: None, nodes: Some(3_000) },
        Stage { guess_nodes: Some(256), lead_below_root: Some(0), nodes: Some(12_000) },
        Stage { guess_nodes: None, lead_below_root: Some(LAST_LEAD_BELOW_ROOT), nodes: None },
    ];

    fn database(root: &std::path::Path, rules: &Rules) -> Database {
        let options = BuildOptions {
            max_seeds: 2,
            compress: true,
            reference_moves: false,
            layout: Layout::Packed,
            cyclic: Default::default(),
        };
        builder::build(root, rules, 3, &options, &Silent).unwrap();
        Database::open(root, rules, 3).unwrap()
    }

    #[test]
    fn stages_that_run_out_hand_on_and_the_answer_stands() {
        // Kalah(3,6): 36 seeds, 34 beyond the 2-seed database, so the test gets a first guess.
        let root = tempfile::tempdir().unwrap();
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let start = Position::start(3, 6).unwrap();
        let mut handed_on = 0;
        for rules in [Rules::STANDARD, Rules::EMPTY_CAPTURE] {
            let db = database(&root.path().join(rules.to_string()), &rules);
            let expected = Solver::new(rules).unwrap().board_value(&start);
            for beta in expected - 2..=expected + 2 {
                let mut search = Search::new(rules, Some(&db), &options).unwrap();
                assert!(search.gets_first_guess(&start));
                let (holds, stage) = search.at_least_in_stages(&start, beta, &TINY).unwrap();
                assert_eq!(holds, expected >= beta, "{rules}: value >= {beta}");
                if stage > 0 {
                    handed_on += 1;
                    assert!(search.stats().nodes > 3_000, "{rules}: a stage that ran out spent its budget");
                }
            }
        }
        assert!(handed_on > 0, "some test needs more than the first stage");
    }

    #[test]
    fn the_search_budget_binds_across_the_stages() {
        let root = tempfile::tempdir().unwrap();
        let rules = Rules::STANDARD;
        let db = database(root.path(), &rules);
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let start = Position::start(3, 6).unwrap();
        let expected = Solver::new(rules).unwrap().board_value(&start);
        // What the test costs in stages, then the same with a budget short of it: the stages
        // stop at the search's budget, not at their own.
        let mut free = Search::new(rules, Some(&db), &options).unwrap();
        let (_, stage) = free.at_least_in_stages(&start, expected, &TINY).unwrap();
        let needed = free.stats().nodes;
        assert!(stage > 0 && needed > 6_000, "{needed} nodes in stage {stage}");
        for limit in [2_000, needed / 2] {
            let mut search = Search::new(rules, Some(&db), &options).unwrap();
            search.set_node_limit(Some(limit));
            match search.at_least_in_stages(&start, expected, &TINY) {
                Err(SearchError::NodeLimit { nodes }) => assert!(nodes <= limit + 4_096, "{nodes} of {limit}"),
                other => panic!("{limit}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_budget_of_its_own_is_charged_to_the_search() {
        let options = SearchOptions { table_bytes: 1 << 20, deadline: None, threads: 1 };
        let mut search = Search::new(Rules::STANDARD, None, &options).unwrap();
        search.set_node_limit(Some(1_000_000));
        let board = Position::start(5, 4).unwrap();
        let (result, its_own) = search.within_budget(Some(10_000), |search| search.board_value(&board));
        assert!(matches!(result, Err(SearchError::NodeLimit { .. })) && its_own, "{result:?}");
        let spent = search.stats().nodes;
        let left = search.nodes_left.as_ref().unwrap().load(Ordering::Relaxed);
        assert_eq!(left, 1_000_000 - spent as i64);
        let (result, its_own) = search.within_budget(Some(10_000_000), |search| search.board_value(&board));
        assert!(matches!(result, Err(SearchError::NodeLimit { .. })) && !its_own, "the search's budget ran out first");
    }
}
