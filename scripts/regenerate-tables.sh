#!/usr/bin/env bash
# Regenerates data/results/table-<rules>.csv: every start Kalah(1..6, 1..6) for each rule set,
# solved for its value on 2 threads with that rule set's default databases (built on the way if
# missing, cached under data/db: about a minute each on 2 cores), and compared with
# data/published/ where something is published. Cells not solved within TIME_LIMIT seconds
# (default 600) are written as "timeout"; under clockwise sowing, cells too far above the
# database for the search's lines as "too-deep"; cells above an unsolved one (no fewer houses
# and seeds) as "skipped", not tried.
# Usage: scripts/regenerate-tables.sh [TIME_LIMIT] [RULES...]
#   scripts/regenerate-tables.sh                       # every rule set below, 10 minutes a cell
#   scripts/regenerate-tables.sh 100 standard          # the published table's rule set only
set -euo pipefail
cd "$(dirname "$0")/.."
limit="${1:-600}"
shift || true
if [ "$#" -eq 0 ]; then
    set -- standard empty-capture bga "bga capture=empty" swedish wetherell "standard remaining=discard"
fi
cargo build --release -p solver-cli
for rules in "$@"; do
    echo "== $rules (time limit $limit s per cell) =="
    target/release/kalah table --rules "$rules" --houses 1..6 --seeds 1..6 --time-limit "$limit" \
        --threads 2 --out data/results
done
