#!/usr/bin/env bash
# Search targets: the fixed starts of `kalah bench` on one thread and on every core, then the full
# solves (every opening, a perfect line) of Kalah(6,4) and, when asked, the value of Kalah(6,5).
# Needs the 6-house databases for standard and empty-capture rules under DB_DIR (default data/db);
# builds the missing ones first (about a minute and a half each on 2 cores).
# Usage: scripts/bench-search.sh [DB_DIR] [--with-6x5]
#   target: Kalah(6,4) <= 2 s and Kalah(6,5) <= 60 s with the 24-seed database, 2 cores
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-data/db}
cargo build --release -q -p solver-cli
kalah=target/release/kalah
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -m)"
for rules in standard empty-capture; do
  "$kalah" build --houses 6 --max-seeds 24 --rules "$rules" --db "$db" > /dev/null
done
echo "== kalah bench, 1 thread =="
"$kalah" bench --db "$db" --threads 1
echo "== kalah bench, $(nproc) threads =="
"$kalah" bench --db "$db" --threads "$(nproc)"
for rules in standard empty-capture; do
  echo "== kalah solve 6x4 --rules $rules =="
  /usr/bin/time -f "%e s wall, %M KiB peak resident" "$kalah" solve 6x4 --rules "$rules" --db "$db" | tail -2
done
if [ "${2:-}" = "--with-6x5" ]; then
  for rules in empty-capture standard; do
    echo "== kalah table --houses 6 --seeds 5 --rules $rules =="
    /usr/bin/time -f "%e s wall, %M KiB peak resident" \
      "$kalah" table --houses 6 --seeds 5 --rules "$rules" --db "$db" --out target/bench-results | tail -1
  done
fi
