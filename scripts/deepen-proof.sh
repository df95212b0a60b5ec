#!/usr/bin/env bash
# Play past a proof's leaves (issue "Kalah(6,6) to play and to study"). Past a leaf of a proof
# the engine must search for a move that keeps the leaf's bound, about as dear as the search that
# settled the leaf: the dearest leaves of standard-6x6-ge-4 took 100 to 300 M nodes, minutes on
# one thread, where the board allows 30 s. This proves each leaf of PROOF_DIR's checked proof
# tree whose check took more than MIN_NODES nodes again, as a proof of its own rooted at it, with
# the leaf's claim and TASK_NODES-node tasks, so that the checked proofs hold the strategy down to
# positions a search settles in seconds (every node of a checked proof is in the index). Each is
# NAME-at-POSITION (NAME: PROOF_DIR's, less any -at- part; the position's counts and side joined
# by dashes), grown and checked by scripts/proof-session.sh without the other proofs' leaves (the
# leaf's own bound would settle its root at once), the dearest leaf first; then the dear leaves
# of each checked one in turn, until none is left or SECONDS are spent. Resumable: run it again
# (on any machine) to go on; commit the new directories' logs and transcripts, then run
# `kalah proof index` once they are checked.
#   scripts/deepen-proof.sh PROOF_DIR SECONDS [MIN_NODES (50000000)] [TASK_NODES (20000000)]
#   KALAH=/tmp/kalah scripts/deepen-proof.sh data/proofs/standard-6x6-ge-4 7200
set -euo pipefail
usage="usage: deepen-proof.sh PROOF_DIR SECONDS [MIN_NODES] [TASK_NODES]"
proof=${1:?$usage}
seconds=${2:?$usage}
min_nodes=${3:-50000000}
task_nodes=${4:-20000000}
cd "$(dirname "$0")/.."
proof=${proof%/}
[[ -f "$proof/proof.toml" ]] || { echo "$proof/proof.toml: no such proof" >&2; exit 2; }
rules=$(sed -n 's/^rules = "\(.*\)"$/\1/p' "$proof/proof.toml")
name=${proof%%-at-*}
if [[ -z "${KALAH:-}" ]]; then
    cargo build --release -q -p solver-cli
    export KALAH=target/release/kalah
fi
end=$(( SECONDS + seconds ))
# The leaves of the checked proof tree of $1 that its check searched with more than MIN_NODES
# nodes (the transcripts' confirmed lines, from an empty table), dearest first:
# "NODES<TAB>CLAIM<TAB>POSITION".
dear_leaves() {
    cat "$1"/check-*.txt | python3 -c '
import re, sys
min_nodes = int(sys.argv[1])
leaves = {}
for line in sys.stdin:
    found = re.match(r"^  (.+ [SN]) ((?:>=|<=) -?\d+): confirmed \((\d+) nodes", line)
    if found and int(found[3]) > min_nodes:
        position, claim, nodes = found[1], found[2], int(found[3])
        leaves[position] = max(leaves.get(position, (0, claim)), (nodes, claim))
for position, (nodes, claim) in sorted(leaves.items(), key=lambda kv: -kv[1][0]):
    print(f"{nodes}\t{claim}\t{position}")
' "$min_nodes"
}

compgen -G "$proof/check-*.txt" >/dev/null || { echo "$proof: not checked (no check-*.txt)" >&2; exit 2; }
queue=("$proof")
while (( ${#queue[@]} )); do
    parent=${queue[0]}
    queue=("${queue[@]:1}")
    while IFS=$'\t' read -r nodes claim position; do
        [[ -n "$position" ]] || continue
        dir="$name-at-${position// /-}"
        if ! compgen -G "$dir/check-*.txt" >/dev/null; then
            left=$(( end - SECONDS ))
            (( left > 60 )) || { echo "time is up: run again to go on"; exit 0; }
            if [[ ! -f "$dir/proof.toml" ]]; then
                "$KALAH" proof new "$dir" --start "$position" --rules "$rules" --claim "$claim" --task-nodes "$task_nodes"
            fi
            echo "$dir: a leaf of $parent ($nodes nodes there), $claim, $left s left"
            SHARE=0 scripts/proof-session.sh "$dir" "$left" || echo "$dir: its check did not pass" >&2
        fi
        if compgen -G "$dir/check-*.txt" >/dev/null; then
            queue+=("$dir")
        fi
    done < <(dear_leaves "$parent")
done
echo "every leaf of $proof's proofs took at most $min_nodes nodes at its check"
