#!/usr/bin/env bash
# Grows one proof for a while on this machine, the way a session with spare cores does: builds
# the binary, builds the proof's database when it is missing (its rules and board from
# proof.toml, up to MAX_SEEDS seeds: 32 for 6 houses takes about 11 minutes and 17.5 GB of
# memory on 2 cores, and then 11.5 GB in memory), then runs `kalah proof run` at low priority
# (nice 10) for SECONDS with a transposition table of TABLE_MB, and prints the proof's status.
# Once the logs decide the claim, it checks the proof at once, every leaf searched again from an
# empty table (after the SECONDS, however long that takes), and keeps the transcript as
# PROOF_DIR/check-DATE.txt when the check passes (a proof CHECKED, or a refutation CHECKED).
# The log is synced a record at a time: stop the run early with `kill -TERM` on `kalah proof run`
# (it stops within moments and keeps a task in flight that has spent half its budget as an
# expansion), and commit PROOF_DIR's logs afterwards. A check stopped early keeps the leaves it
# searched in PROOF_DIR/check-progress.jsonl, which the next check (`--resume`) takes up.
# TASK_NODES overrides proof.toml's task budget for this run (a proof's leaves stay sound whatever
# the budgets that grew it; the budget only steers where the tree is expanded). SHARE=0 grows it
# without the leaves other proofs beside it settled (`--no-share`: a proof rooted at another's
# leaf, whose bound would settle its root at once). KALAH=PATH runs that binary instead of
# building one (a copy that does not change while the run goes on).
#   scripts/proof-session.sh PROOF_DIR SECONDS [MAX_SEEDS (32)] [TABLE_MB (4096)] [TASK_NODES]
set -euo pipefail
usage="usage: proof-session.sh PROOF_DIR SECONDS [MAX_SEEDS] [TABLE_MB] [TASK_NODES]"
dir=${1:?$usage}
seconds=${2:?$usage}
max_seeds=${3:-32}
table_mb=${4:-4096}
task_nodes=(${5:+--task-nodes "$5"})
share=()
[[ "${SHARE:-1}" == 0 ]] && share=(--no-share)
[[ -f "$dir/proof.toml" ]] || { echo "$dir/proof.toml: no such proof (kalah proof new writes one)" >&2; exit 2; }
rules=$(sed -n 's/^rules = "\(.*\)"$/\1/p' "$dir/proof.toml")
root=$(sed -n 's/^root = "\(.*\)"$/\1/p' "$dir/proof.toml")
# The root is 2m+2 bin counts and the side to move.
houses=$(( ($(wc -w <<<"$root") - 3) / 2 ))
# `nice` ranks processes only within their autogroup (one per session): started with `setsid`,
# this script has one of its own, which would take an equal share of the cores beside the work
# of other sessions whatever its nice. So it lowers its own group, and only that.
if [[ "$(ps -o sid= -p $$ | tr -d ' ')" == "$$" ]]; then
    { echo 10 > "/proc/$$/autogroup"; } 2>/dev/null || true
fi
if [[ -n "${KALAH:-}" ]]; then
    kalah=$KALAH
else
    cargo build --release -q -p solver-cli
    kalah=target/release/kalah
fi
# A build over a complete database would read every layer only to find it done: ask first.
built=$("$kalah" info --houses "$houses" --rules "$rules" --json 2>/dev/null | grep -o '"max_seeds":[0-9]*' | cut -d: -f2 || true)
if (( ${built:-0} < max_seeds )); then
    "$kalah" build --houses "$houses" --max-seeds "$max_seeds" --rules "$rules"
fi
nice -n 10 "$kalah" proof run "$dir" --threads "$(nproc)" --table-mb "$table_mb" --time-limit "$seconds" \
    "${task_nodes[@]}" "${share[@]}"
"$kalah" proof status "$dir"
state=$("$kalah" proof status "$dir" --json)
[[ "$state" == *'"proven":null'* ]] && exit 0
transcript="$dir/check-$(date -u +%F).txt"
[[ -e "$transcript" ]] && transcript="$dir/check-$(date -u +%F-%H%M).txt"
# The sample is every leaf; exit 1 is a checked refutation, or a check that failed: the first
# line says which.
nice -n 10 "$kalah" proof check "$dir" --sample 1000000 --resume --threads "$(nproc)" --table-mb "$table_mb" \
    --db-layout packed > "$transcript.tmp" || true
if head -1 "$transcript.tmp" | grep -qE ': (CHECKED|REFUTED, the refutation CHECKED)$'; then
    mv "$transcript.tmp" "$transcript"
    echo "checked: $transcript"
else
    echo "the check did not pass: $transcript.tmp" >&2
    exit 1
fi
