#!/usr/bin/env bash
# Database targets: builds the 6-house database up to SEEDS seeds from scratch, then measures
# random probes per second against it. Prints wall time, peak memory, bits per position on disk and
# probes per second, with the machine. Usage: scripts/bench-database.sh [SEEDS] [RULES] [DB_DIR]
#   scripts/bench-database.sh 24            # target: <= 60 s on 2 cores, >= 20 M probes/s
#   scripts/bench-database.sh 30            # target: <= 20 min, <= 16 GiB peak, <= 4 bits/position
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-24}
rules=${2:-standard}
db=${3:-target/bench-db}
cargo build --release -q -p solver-cli
kalah=target/release/kalah
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -m)"
rm -rf "$db"
/usr/bin/time -f "build: %e s wall, %M KiB peak resident" \
  "$kalah" build --houses 6 --max-seeds "$seeds" --rules "$rules" --db "$db"
"$kalah" info --houses 6 --rules "$rules" --db "$db" | sed -n '3p'
"$kalah" probe-bench --houses 6 --rules "$rules" --db "$db"
