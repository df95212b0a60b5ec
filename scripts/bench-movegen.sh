#!/usr/bin/env bash
# Prints move-generation speed (moves per second) for every named rule set on Kalah(6,4)
# mid-game positions. Quote the machine (nproc) with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(uname -m)"
cargo bench --bench movegen -- --warm-up-time 1 --measurement-time 3 2>/dev/null \
  | awk '/^movegen\// { name = $1 } /thrpt:/ && name { print name, $4, $5; name = "" }'
