#!/usr/bin/env bash
# Regenerates data/results/lines-MxN.jsonl: a perfect-play line from the start for each rule
# set, one `kalah solve START --json --no-openings` a line (its value and
# `principal_variation`), which the opening book (built into the binary) checks on loading
# (every turn legal, the game over at the end, the final margin the value) and serves from every
# position along the line. Each rule set's database (MAX_SEEDS, default 24 seeds for 6 houses) is
# built under DB (default data/db) when missing: about a minute each at 24 seeds on 2 cores.
# Usage: scripts/regenerate-lines.sh [START] [RULES...]
#   scripts/regenerate-lines.sh                    # 6x4, six rule sets of the shipped tables
# (Wetherell's is left out of the default: its line over 24 seeds took 1,293 s on 2 threads with a
# 4 GiB table, `kalah solve 6x4 --rules wetherell --no-openings --table-mb 4096 --json`.)
#   DB=/tmp/db24 scripts/regenerate-lines.sh 6x4 standard
# On a larger machine, with a binary built elsewhere (no cargo needed):
#   KALAH=target/release/kalah DB=/tmp/db MAX_SEEDS=28 THREADS=16 LAYOUT=bytes \
#     scripts/regenerate-lines.sh 6x5 empty-capture standard
set -euo pipefail
cd "$(dirname "$0")/.."
start="${1:-6x4}"
shift || true
if [ "$#" -eq 0 ]; then
    set -- standard empty-capture bga "bga capture=empty" swedish "standard remaining=discard"
fi
db="${DB:-data/db}"
max_seeds="${MAX_SEEDS:-24}"
threads="${THREADS:-2}"
layout="${LAYOUT:-packed}"
out="data/results/lines-$start.jsonl"
if [ -z "${KALAH:-}" ]; then
    cargo build --release -p solver-cli
fi
kalah="${KALAH:-target/release/kalah}"
houses="${start%x*}"
tmp="$out.tmp"
: >"$tmp"
for rules in "$@"; do
    echo "== $rules ==" >&2
    built=$("$kalah" info --houses "$houses" --rules "$rules" --db "$db" --json 2>/dev/null | grep -o '"max_seeds":[0-9]*' | cut -d: -f2 || true)
    if (( ${built:-0} < max_seeds )); then
        "$kalah" build --houses "$houses" --max-seeds "$max_seeds" --rules "$rules" --db "$db" \
            --db-layout "$layout" --threads "$threads"
    fi
    "$kalah" solve "$start" --rules "$rules" --db "$db" --db-layout "$layout" --threads "$threads" --json \
        --no-openings >>"$tmp"
done
mv "$tmp" "$out"
echo "written: $out" >&2
