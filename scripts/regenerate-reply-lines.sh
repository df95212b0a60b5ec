#!/usr/bin/env bash
# Regenerates data/results/lines-replies-6x5.jsonl: a perfect-play line from each position after
# South's first turn of Kalah(6,5) (the items of data/jobs/replies-6x5.toml), one
# `kalah solve POSITION --json --no-openings` a line. The opening book checks each line as it reads
# it and serves it from every position along it; where a search of such a position runs out of
# time, `kalah query`, the service and the board answer from the line (its move proven best).
# Over the 24-seed databases (DB, default data/db), 2 threads beside a proof run (2026-11-26):
# 22 to 840 s a position, but none in 600 to 900 s after turn 1 and, under standard rules, 2 1
# and 6. Those four took 37 to 345 s on a lent 16-core machine over 28-seed databases, four
# solves at once (THREADS=4 TABLE_MB=8192 DB_LAYOUT=bytes; 1.03 G nodes after standard's 1).
# Lines already in the file are kept, and their positions not solved again (delete the file to
# solve every one anew). A position whose solve gives up after TIME_LIMIT seconds (default 900)
# is left without a line, said on stderr, and the rest go on: run it again, with more time or on a
# larger machine, to fill the gaps.
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
if [ -f "$out" ]; then
    cat "$out" >>"$tmp"
fi
for rules in "$@"; do
    # The job's items: a `start = "..."` line, then its `rules = "..."` line.
    grep -A1 '^start = ' data/jobs/replies-6x5.toml | paste - - - 2>/dev/null \
        | sed -n "s/^start = \"\\(.*\\)\"\\trules = \"$rules\".*/\\1/p" | while read -r position; do
        if awk -v r="{\"rules\":\"$rules\"," -v p="\"start\":\"$position\"" \
            'index($0, r) == 1 && index($0, p) { found = 1 } END { exit !found }' "$tmp"; then
            echo "== $rules $position: in the file already ==" >&2
            continue
        fi
        echo "== $rules $position ==" >&2
        if ! "$kalah" solve "$position" --rules "$rules" --db "$db" --db-layout "${DB_LAYOUT:-packed}" \
            --threads "${THREADS:-2}" --table-mb "${TABLE_MB:-2048}" --json --no-openings --time-limit "${TIME_LIMIT:-900}" >>"$tmp"; then
            echo "no line for $rules $position: no value within ${TIME_LIMIT:-900} s" >&2
        fi
    done
done
mv "$tmp" "$out"
echo "written: $out" >&2
