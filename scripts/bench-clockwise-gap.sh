#!/usr/bin/env bash
# How far above its database the search under clockwise sowing can reach: plays random games of
# clockwise Kalah(6,3) (the project's own rules, one `kalah replay` a move) until COUNT positions
# with DB_SEEDS + GAP seeds on the board, then solves each on one thread with a 1 GiB table and
# TIME_LIMIT seconds, over the 6-house clockwise database up to DB_SEEDS (built first when
# missing). Prints one line a position: value (or "none"), nodes, seconds. Quote the machine.
# DB_SEEDS must be at least 17: a smaller database is extended on the spot to cover the
# position (engine::prepare), and the figures would measure that build instead.
#   scripts/bench-clockwise-gap.sh DB_SEEDS GAP COUNT [TIME_LIMIT (60)] [RANDOM_SEED (1)]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: bench-clockwise-gap.sh DB_SEEDS GAP COUNT [TIME_LIMIT] [RANDOM_SEED]"
db_seeds=${1:?$usage}
gap=${2:?$usage}
count=${3:?$usage}
limit=${4:-60}
RANDOM=${5:-1}
(( db_seeds >= 17 )) || { echo "DB_SEEDS must be at least 17" >&2; exit 2; }
rules="standard direction=cw"
target=$((db_seeds + gap))
cargo build --release -q -p solver-cli
kalah=target/release/kalah
built=$("$kalah" info --houses 6 --rules "$rules" --json 2>/dev/null | grep -o '"max_seeds":[0-9]*' | cut -d: -f2 || true)
if (( ${built:-0} < db_seeds )); then
    "$kalah" build --houses 6 --rules "$rules" --max-seeds "$db_seeds" --cyclic auto
fi
echo "machine: $(nproc) cores; clockwise Kalah(6,3) positions with $target seeds on the board, database up to $db_seeds"

# One random game from the start: sets `position` to the first position with exactly $target
# seeds on the board, or to nothing when a capture jumps past that count or the game ends first.
# (It runs in this shell, not in a $(...) subshell, so that RANDOM_SEED fixes every game.)
random_position() {
    position="3 3 3 3 3 3 0 3 3 3 3 3 3 0 S"
    while :; do
        local -a bins=($position)
        local side=${bins[14]} first=0 board=0 k
        [[ $side == N ]] && first=7
        for k in 0 1 2 3 4 5 7 8 9 10 11 12; do board=$((board + bins[k])); done
        (( board == target )) && return 0
        (( board < target )) && { position=; return 0; }
        local -a legal=()
        for k in 1 2 3 4 5 6; do (( bins[first + k - 1] > 0 )) && legal+=("$k"); done
        (( ${#legal[@]} > 0 )) || { position=; return 0; }
        local move=${legal[RANDOM % ${#legal[@]}]} json
        json=$("$kalah" replay --start "$position" --rules "$rules" --json "$move")
        [[ $json == *'"over":false'* ]] || { position=; return 0; }
        position=$(sed 's/.*"position":"\([^"]*\)".*/\1/' <<<"${json%%,\"turns\"*}")
    done
}

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
found=0
while (( found < count )); do
    random_position
    [[ -n $position ]] || continue
    found=$((found + 1))
    start=$(date +%s%N)
    if answer=$("$kalah" solve "$position" --rules "$rules" --threads 1 --table-mb 1024 \
        --time-limit "$limit" --json 2>"$errors"); then
        # The start's own value is the last key of the object (openings come before it).
        value=$(grep -o '"value":-\?[0-9]*,"wdl"' <<<"$answer" | cut -d: -f2 | cut -d, -f1)
        nodes=$(grep -o '"nodes":[0-9]*' <<<"$answer" | head -1 | cut -d: -f2)
    else
        value=none
        nodes=$(grep -o '[0-9]* nodes' "$errors" | cut -d' ' -f1)
    fi
    tenths=$(( ($(date +%s%N) - start) / 100000000 ))
    printf '%s | value %s | %s nodes | %d.%d s\n' "$position" "$value" "${nodes:-?}" $((tenths / 10)) $((tenths % 10))
done
