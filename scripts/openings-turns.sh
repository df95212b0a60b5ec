#!/usr/bin/env bash
# Narrows a start's open first turns on a machine of many cores (issue "Kalah(6,6) mapped"): RUNS
# runs of `kalah proof openings --turn T` at once, THREADS threads each, every one on an open turn
# of its own (in order); when a run's turn is exact, the next open turn gets a run, until every
# turn is exact or SECONDS have passed since the script began. Builds the database first when
# missing. Each run holds its own copy of the database (packed: about 11 GB for 32 seeds at 6
# houses) and a TABLE_MB table, so RUNS * (11 GB + TABLE_MB) must fit the memory. The runs write
# their tests under PROOFS and the map under MAP as `openings-session.sh` does: commit them
# (or copy them back from a lent machine) when it ends.
#   scripts/openings-turns.sh SECONDS RULES [RUNS] [THREADS]
# Environment: START (6x6), PROOFS (data/proofs), MAP (the map's .jsonl and .csv without their
# ending, data/results/openings-START; not OUT, which a lent machine sets to its own folder),
# MAX_SEEDS (32), TABLE_MB (8192), DB (data/db), KALAH (target/release/kalah, built when missing),
# LOGS (each run's output, /tmp/openings-turns), TURNS (only these open turns, comma-separated,
# e.g. "2,3,4": leave the others to a driver elsewhere). SIGTERM or Ctrl-C stops every run, its
# test in flight left open.
set -euo pipefail
(( BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501 )) || { echo "needs bash 5.1 or later (wait -n -p)" >&2; exit 2; }
usage="usage: openings-turns.sh SECONDS RULES [RUNS] [THREADS]"
seconds=${1:?$usage}
rules=${2:?$usage}
runs=${3:-4}
threads=${4:-$(( $(nproc) / runs > 0 ? $(nproc) / runs : 1 ))}
start=${START:-6x6}
proofs=${PROOFS:-data/proofs}
out=${MAP:-data/results/openings-$start}
max_seeds=${MAX_SEEDS:-32}
table_mb=${TABLE_MB:-8192}
db=${DB:-data/db}
kalah=${KALAH:-target/release/kalah}
logs=${LOGS:-/tmp/openings-turns}
[[ "$start" =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "START=$start: expected MxN, e.g. 6x6" >&2; exit 2; }
houses=${BASH_REMATCH[1]}
end=$(( $(date +%s) + seconds ))
[[ -x "$kalah" ]] || cargo build --release -q -p solver-cli
mkdir -p "$proofs" "$logs"

"$kalah" build --houses "$houses" --max-seeds "$max_seeds" --rules "$rules" --db "$db" --threads "$(nproc)"
# The open turns, in the map's order (its JSON names each turn's move before its value).
map=$("$kalah" proof map "$start" --rules "$rules" --proofs "$proofs" --out "$out" --json)
mapfile -t open < <(grep -o '"move":"[^"]*","value":null' <<<"$map" | cut -d'"' -f4)
if [[ -n "${TURNS:-}" ]]; then
    wanted=",$TURNS,"
    for i in "${!open[@]}"; do
        [[ "$wanted" == *",${open[i]},"* ]] || unset "open[i]"
    done
    open=("${open[@]}")
fi
echo "$rules $start: ${#open[@]} open first turns: ${open[*]}"

declare -A running=()
next=0
stop() {
    (( ${#running[@]} == 0 )) || kill -TERM "${!running[@]}" 2>/dev/null || true
    next=${#open[@]}
}
trap stop TERM INT
launch() {
    local turn=$1 left=$(( end - $(date +%s) ))
    (( left > 60 )) || return 1
    "$kalah" proof openings "$start" --rules "$rules" --turn "$turn" --proofs "$proofs" --out "$out" \
        --db "$db" --db-layout packed --threads "$threads" --table-mb "$table_mb" --time-limit "$left" \
        > "$logs/turn-${turn// /-}.out" 2>&1 &
    running[$!]=$turn
    echo "$(date -u +%H:%M:%S) turn $turn: run $! ($threads threads, $left s)"
}
while (( next < ${#open[@]} && ${#running[@]} < runs )); do
    launch "${open[next]}" || break
    next=$(( next + 1 ))
done
while (( ${#running[@]} > 0 )); do
    wait -n -p done_pid || true
    [[ -n "${done_pid:-}" && -n "${running[$done_pid]:-}" ]] || continue
    echo "$(date -u +%H:%M:%S) turn ${running[$done_pid]}: run $done_pid ended: $(tail -1 "$logs/turn-${running[$done_pid]// /-}.out")"
    unset "running[$done_pid]"
    if (( next < ${#open[@]} )) && launch "${open[next]}"; then
        next=$(( next + 1 ))
    fi
done
"$kalah" proof map "$start" --rules "$rules" --proofs "$proofs" --out "$out"
