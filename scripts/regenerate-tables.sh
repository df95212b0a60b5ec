#!/usr/bin/env bash
# Regenerates data/results/table-<rules>.csv: every start Kalah(1..6, 1..6) for standard and
# empty-capture rules, solved for its value and compared with data/published/. Cells not solved
# within TIME_LIMIT seconds (default 300) are written as "timeout". Builds the default databases
# for 5 and 6 houses first if they are missing (about a minute each on 2 cores).
# Usage: scripts/regenerate-tables.sh [TIME_LIMIT]
set -euo pipefail
cd "$(dirname "$0")/.."
limit="${1:-300}"
cargo build --release -p solver-cli
for rules in standard empty-capture; do
    echo "== $rules (time limit $limit s per cell) =="
    target/release/kalah table --rules "$rules" --houses 1..6 --seeds 1..6 --time-limit "$limit" --out data/results
done
