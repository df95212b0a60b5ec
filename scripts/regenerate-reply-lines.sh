#!/usr/bin/env bash
# Regenerates data/results/lines-replies-6x5.jsonl: a perfect-play line from each position after
# South's first turn of Kalah(6,5) (the items of data/jobs/replies-6x5.toml), one
# `kalah solve POSITION --json --no-openings` a line. The opening book checks each line as it reads
# it and serves it from every position along it; where a search of such a position runs out of
# time, `kalah query`, the service and the board answer from the line (its move proven best).
# Over the 24-seed databases (DB, default data/db), 2 threads beside a proof run (2026-11-26,
# empty capture): 48 to 291 s a position, but none in 600 s after turn 1 (North wins by 10).
# Usage: scripts/regenerate-reply-lines.sh [RULES...]    (default: empty-capture standard)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    set -- empty-capture standard
fi
db="${DB:-data/db}"
if [ -z "${KALAH:-}" ]; then
    cargo build --release -p solver-cli
fi
kalah="${KALAH:-target/release/kalah}"
out="data/results/lines-replies-6x5.jsonl"
tmp="$out.tmp"
: >"$tmp"
for rules in "$@"; do
    # The job's items: a `start = "..."` line, then its `rules = "..."` line.
    grep -A1 '^start = ' data/jobs/replies-6x5.toml | paste - - - 2>/dev/null \
        | sed -n "s/^start = \"\\(.*\\)\"\\trules = \"$rules\".*/\\1/p" | while read -r position; do
        echo "== $rules $position ==" >&2
        "$kalah" solve "$position" --rules "$rules" --db "$db" --db-layout packed --threads 2 \
            --table-mb 2048 --json --no-openings >>"$tmp"
    done
done
mv "$tmp" "$out"
echo "written: $out" >&2
