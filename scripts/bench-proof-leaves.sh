#!/usr/bin/env bash
# What one proof task costs from a cold start: each leaf below is made a one-task proof of its
# claim (`kalah proof new --task-nodes 10^12`, then `kalah proof run --max-tasks 1` on one thread),
# and its nodes and seconds are printed, then the totals. The empty-capture leaves are those of
# data/proofs/empty-capture-6x6-opening-2 that issue 45 compares with the 2000 reference program
# (its nodes beside each, from the issue); the standard ones are leaves of the standard-6x6 proofs
# that their tasks settled by search.
# Needs the 6-house databases of both rule sets up to 24 seeds under DB_DIR (default data/db;
# built when missing, about a minute and a half each on 2 cores; a directory whose layers go
# further is cut to 24 seeds by links in a temporary directory, so every figure is over 24 seeds).
# Usage: scripts/bench-proof-leaves.sh [DB_DIR] [FILTER]   (FILTER: a grep pattern on the leaves)
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-data/db}
filter=${2:-.}
cargo build --release -q -p solver-cli
kalah=$PWD/target/release/kalah
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/db"
for rules in standard empty-capture; do
  "$kalah" build --houses 6 --max-seeds 24 --rules "$rules" --db "$db" > /dev/null
  mkdir -p "$work/db/6h-$rules"
  for layer in $(seq -w 0 24); do
    ln -s "$(realpath "$db/6h-$rules/layer-$layer.kdb")" "$work/db/6h-$rules/"
  done
done
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; one thread, 24-seed databases"
# rules | position (South to move) | claim | the reference program's nodes (empty capture)
leaves="empty-capture|1 3 9 0 9 9 3 9 7 0 3 9 8 2 S|>= 2|76.4
empty-capture|2 4 10 1 10 10 3 10 7 1 2 9 0 3 S|>= 2|86.0
empty-capture|8 1 8 1 9 8 2 1 8 8 8 0 8 2 S|>= 2|155.6
empty-capture|8 2 8 0 1 9 3 0 9 2 11 9 8 2 S|>= 2|27.7
empty-capture|8 2 8 0 8 8 2 0 8 8 8 2 8 2 S|>= 2|220.6
empty-capture|8 2 8 0 8 8 2 8 0 8 8 2 8 2 S|>= 2|150.3
empty-capture|8 2 8 1 2 10 3 10 8 1 0 9 8 2 S|>= 2|5.4
empty-capture|8 2 8 1 2 10 3 9 8 1 10 0 8 2 S|>= 2|5.7
empty-capture|8 2 8 1 2 10 3 9 8 1 10 8 0 2 S|>= 2|0.8
standard|2 1 3 10 10 9 3 8 8 8 0 0 8 2 S|>= 4|
standard|2 1 3 10 10 10 3 8 8 8 0 7 0 2 S|>= 4|
standard|1 0 2 9 9 9 3 8 8 0 8 7 7 1 S|>= 2|
standard|4 3 4 10 10 1 4 9 1 3 0 10 10 3 S|>= 2|
standard|4 3 4 10 10 1 4 10 1 3 9 0 10 3 S|>= 2|"
printf '%-10s %-36s %-5s %12s %8s %10s\n' rules leaf claim "M nodes" seconds "reference"
total_nodes=0; total_seconds=0; n=0
compared_nodes=0; reference_total=0
while IFS='|' read -r rules position claim reference; do
  grep -q -- "$filter" <<<"$position" || continue
  n=$((n + 1))
  dir="$work/leaf-$n"
  "$kalah" proof new "$dir" --start "$position" --rules "$rules" --claim "$claim" --task-nodes 1000000000000 > /dev/null
  out=$("$kalah" proof run "$dir" --db "$work/db" --threads 1 --max-tasks 1 --json)
  nodes=$(grep -o '"nodes":[0-9]*' <<<"$out" | head -1 | cut -d: -f2)
  seconds=$(grep -o '"seconds":[0-9.]*' <<<"$out" | head -1 | cut -d: -f2)
  total_nodes=$((total_nodes + nodes))
  total_seconds=$(awk -v a="$total_seconds" -v b="$seconds" 'BEGIN { print a + b }')
  if [[ -n "$reference" ]]; then
    compared_nodes=$((compared_nodes + nodes))
    reference_total=$(awk -v a="$reference_total" -v b="$reference" 'BEGIN { print a + b }')
  fi
  printf '%-10s %-36s %-5s %12.1f %8.1f %10s\n' "${rules:0:10}" "$position" "$claim" \
    "$(awk -v n="$nodes" 'BEGIN { print n / 1e6 }')" "$seconds" "${reference:+$reference M}"
done <<<"$leaves"
printf 'total: %d leaves, %.1f M nodes, %.1f s\n' "$n" "$(awk -v n="$total_nodes" 'BEGIN { print n / 1e6 }')" "$total_seconds"
if [[ "$reference_total" != 0 ]]; then
  printf 'leaves with a reference count: %.1f M nodes, the reference %.1f M\n' \
    "$(awk -v n="$compared_nodes" 'BEGIN { print n / 1e6 }')" "$reference_total"
fi
