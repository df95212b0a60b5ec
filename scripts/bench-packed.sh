#!/usr/bin/env bash
# Packed layers against a byte a position (issue 26), side by side on the same database files:
#   1. memory and random probes per second (one at a time and batched), layouts alternated;
#   2. the value of Kalah(6,5) (nodes, seconds);
#   3. a fixed sample of leaves of the standard Kalah(6,6) >= +2 proof searched again (the same
#      positions and thresholds for each database; nodes and seconds per leaf).
# for views of the database limited to each of SEEDS (default "24 30 32"; the ones the database
# reaches). Bytes are skipped where they would not fit in memory (32 seeds: 21 GB).
# Usage: scripts/bench-packed.sh [RULES] [DB_DIR] [SEEDS] [LEAVES]
#   scripts/bench-packed.sh standard data/db "24 30 32" 4
set -euo pipefail
cd "$(dirname "$0")/.."
rules=${1:-standard}
db=${2:-data/db}
seeds_list=${3:-24 30 32}
leaves=${4:-4}
cargo build --release -q -p solver-cli
kalah=$PWD/target/release/kalah
source_dir=$db/6h-$rules
views=target/bench-views
memory_kib=$(awk '/MemTotal/ {print $2}' /proc/meminfo)
echo "machine: $(nproc) cores, $((memory_kib >> 20)) GiB, $(uname -m); $(date -u '+%Y-%m-%d %H:%M UTC'); $(git rev-parse --short HEAD)"
for seeds in $seeds_list; do
  [ -f "$source_dir/layer-$(printf %02d "$seeds").kdb" ] || { echo "== $seeds seeds: no such layer in $source_dir, skipped"; continue; }
  # A view of the database up to $seeds seeds: links to its layer files.
  view=$views/s$seeds/6h-$rules
  rm -rf "$views/s$seeds" && mkdir -p "$view"
  for s in $(seq 0 "$seeds"); do ln -s "$PWD/$source_dir/layer-$(printf %02d "$s").kdb" "$view/"; done
  layouts="packed bytes"
  # A byte a position, plus a 2 GiB table and room to spare, or bytes are skipped.
  positions=$("$kalah" info --db "$views/s$seeds" --houses 6 --rules "$rules" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["databases"][0]["positions"])')
  if (( positions / 1024 + (4 << 20) > memory_kib )); then
    layouts=packed
    echo "== $seeds seeds: bytes ($((positions >> 20)) MiB) do not fit in memory; packed only"
  fi
  echo "== $seeds seeds, packed: memory (bytes: 8 bits a position)"
  info=$("$kalah" info --db "$views/s$seeds" --houses 6 --rules "$rules" --memory)
  sed -n '3,5p' <<<"$info"
  tail -n 3 <<<"$info"
  for round in 1 2; do
    for layout in $layouts; do
      echo "== $seeds seeds, $layout: probes (round $round)"
      "$kalah" probe-bench --db "$views/s$seeds" --houses 6 --rules "$rules" --db-layout "$layout"
    done
  done
  for layout in $layouts; do
    echo "== $seeds seeds, $layout: Kalah(6,5) $rules"
    /usr/bin/time -f "%e s wall, %M KiB peak resident" \
      "$kalah" table --houses 6 --seeds 5 --rules "$rules" --db "$views/s$seeds" --db-layout "$layout" \
      --table-mb 2048 --out "$views/results" 2>&1 | tail -2
    tail -1 "$views/results/table-${rules// /+}.csv"
  done
  if [ "$rules" = standard ] && [ "$leaves" -gt 0 ]; then
    for layout in $layouts; do
      echo "== $seeds seeds, $layout: $leaves leaves of the standard Kalah(6,6) >= +2 proof"
      /usr/bin/time -f "%e s wall, %M KiB peak resident" \
        "$kalah" proof check data/proofs/standard-6x6-ge-2 --sample "$leaves" --seed 1 --db "$views/s$seeds" \
        --db-layout "$layout" --table-mb 2048 2>&1 | tail -n "$((leaves + 2))"
    done
  fi
done
