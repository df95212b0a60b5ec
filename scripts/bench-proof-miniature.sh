#!/usr/bin/env bash
# The miniature of issue "Proofs that waste less": two small Kalah(6,5) proofs grown from nothing
# (20 M-node tasks, 24-seed databases, 1 GiB table, no leaves shared from other proofs), with what
# each cost and how much of it went into tasks that ran out of budget and were expanded (work the
# proof throws away). Prints both figures against the baseline measured when the issue was filed
# (2026-12, 2 cores) and the aim: at most half of its nodes, at most half of them in expanded tasks.
# Also the nodes of the cheapest logged subtree that decides the claim: what choosing the right
# turns at once would have left; the rest went to alternatives the proof does not take.
# A benchmark, not a test: about 1.4 G nodes, 10 to 20 minutes on 2 cores. The figures repeat
# exactly, but any change in the search's path moves them far (the same code with a 1.5 GiB table
# gives 94% of the empty-capture baseline, with 4 GiB 140%): a change must beat that spread.
#   scripts/bench-proof-miniature.sh
#   THREADS=1 DB=/tmp/db24 scripts/bench-proof-miniature.sh
#   TASK_NODES=5000000 scripts/bench-proof-miniature.sh     # another task budget, same baseline
set -euo pipefail
cd "$(dirname "$0")/.."

DB=${DB:-target/bench-db24}
THREADS=${THREADS:-2}
TASK_NODES=${TASK_NODES:-20000000}

cargo build --release -q -p solver-cli
kalah=target/release/kalah
for rules in empty-capture standard; do
    "$kalah" build --houses 6 --max-seeds 24 --rules "$rules" --db "$DB" >/dev/null
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# miniature NAME RULES CLAIM BASELINE_NODES BASELINE_EXPANDED_NODES
miniature() {
    local dir=$work/$1
    "$kalah" proof new "$dir" --start 6x5 --rules "$2" --claim "$3" --task-nodes "$TASK_NODES" >/dev/null
    local clock=$SECONDS
    "$kalah" proof run "$dir" --db "$DB" --threads "$THREADS" --table-mb 1024 --no-share >/dev/null 2>&1
    "$kalah" proof status "$dir" --json | python3 -c '
import json, sys
name, base, base_expanded, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
s = json.load(sys.stdin)
nodes, expanded, deciding = s["nodes"], s["expanded_nodes"], s["deciding_nodes"] or 0
verdict = {True: "proven", False: "refuted", None: "open"}[s["proven"]]
aim = "met" if nodes <= base / 2 and expanded <= nodes / 2 else "not met"
print(f"{name}: {verdict}, {nodes / 1e6:,.1f} M nodes ({nodes / base:.0%} of the baseline {base / 1e6:,.1f} M), "
      f"{expanded / 1e6:,.1f} M in expanded tasks ({expanded / max(nodes, 1):.0%}; baseline "
      f"{base_expanded / base:.0%}), {deciding / 1e6:,.1f} M on the cheapest subtree that decides it "
      f"({deciding / max(nodes, 1):.0%}), {seconds} s: aim {aim}")
' "$1" "$4" "$5" $((SECONDS - clock))
}

miniature empty-capture-6x5-le-12 empty-capture "<= 12" 296100000 239500000
miniature standard-6x5-le-10 standard "<= 10" 1104200000 640100000
