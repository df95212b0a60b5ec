//! Where one search's nodes go: `cargo run --release --features profile --example profile --
//! RULES START [DB_DIR] [MAX_NODES] [TABLE_MB] [BETA]`. Solves START (`6x4` or a position) under
//! RULES for its value on one thread, or with BETA runs the lone zero-window test a proof's task
//! runs (is the board value at least BETA?), over the database under DB_DIR when there is one
//! (`-`: none), stopping after MAX_NODES nodes (`-` or absent: never), and prints the counters of
//! `kalah::search::profile` with their ratios as one JSON object.

use kalah::database::Database;
use kalah::search::{Search, SearchError, SearchOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: profile RULES START [DB_DIR|-] [MAX_NODES|-] [TABLE_MB] [BETA]";
    let (Some(rules), Some(start)) = (args.first(), args.get(1)) else { return Err(usage.into()) };
    let rules: kalah::Rules = rules.parse()?;
    let start = kalah::parse_start(start).map_err(|err| err.to_string())?;
    let db = match args.get(2).map(String::as_str) {
        None | Some("-") => None,
        Some(dir) => {
            let db = Database::open(std::path::Path::new(dir), &rules, start.houses())?
                .with_layout(kalah::database::Layout::Packed);
            db.verify_checksums()?;
            Some(db)
        }
    };
    let max_nodes = args.get(3).filter(|n| *n != "-").map(|n| n.parse::<u64>()).transpose()?;
    let table_mb = args.get(4).map(|n| n.parse::<usize>()).transpose()?.unwrap_or(1024);
    let beta = args.get(5).map(|n| n.parse::<i32>()).transpose()?;
    let options = SearchOptions { table_bytes: table_mb << 20, deadline: None, threads: 1 };
    let mut search = Search::new(rules, db.as_ref(), &options)?;
    search.set_node_limit(max_nodes);
    let clock = std::time::Instant::now();
    // The value, or whether the board value is at least BETA.
    let (answer_key, answer) = match beta {
        None => ("value", search.value(&start).map(serde_json::Value::from)),
        Some(beta) => ("at_least", search.board_value_at_least(&start, beta).map(serde_json::Value::from)),
    };
    let answer = match answer {
        Ok(answer) => Some(answer),
        Err(SearchError::NodeLimit { .. }) => None,
        Err(err) => return Err(err.into()),
    };
    let stats = search.stats();
    let p = stats.profile;
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let report = serde_json::json!({
        "rules": rules.to_string(), "start": start.to_string(),
        "database_max_seeds": db.as_ref().map(|db| db.max_seeds()), "table_mb": table_mb,
        "beta": beta, (answer_key): answer,
        "nodes": stats.nodes, "probes": stats.probes, "passes": stats.passes,
        "seconds": clock.elapsed().as_secs_f64(), "profile": p,
        "ratios": {
            "children_per_expanded_node": ratio(p.children, p.expanded),
            "extra_turn_share_of_children": ratio(p.extra_turn_children, p.children),
            "over_share_of_children": ratio(p.over_children, p.children),
            "database_share_of_children": ratio(p.database_children, p.children),
            "nodes_after_an_extra_turn": ratio(p.after_extra_turn, stats.nodes),
            "estimate_share_of_nodes": ratio(p.estimate_nodes, stats.nodes),
            "nodes_decided_by_the_table": ratio(p.table_decided, stats.nodes),
            "table_share_of_children": ratio(p.table_children, p.children),
            "table_settled_share_of_children": ratio(p.table_settled_children, p.children),
            "nodes_cut_by_the_seeds": ratio(p.seed_cut, stats.nodes),
            "expanded_decided_by_bounds": ratio(p.bounds_decided, p.expanded),
            "moves_searched_per_node_searching": ratio(p.moves_searched, p.expanded - p.bounds_decided),
            "cutoff_share_of_nodes_searching": ratio(p.cutoffs, p.expanded - p.bounds_decided),
            "first_move_share_of_cutoffs": ratio(p.first_move_cutoffs, p.cutoffs),
        },
    });
    println!("{report}");
    Ok(())
}
