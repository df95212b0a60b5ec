#!/usr/bin/env bash
# Regenerates data/results/table-standard+direction=cw.csv: Kalah(m,n) under clockwise sowing for
# m <= 6, n <= 4, from databases built by retrograde analysis and, above them, the forward search
# that scores repetitions 0; each start gets LIMIT seconds (default 3600, the hour).
#   scripts/clockwise-table.sh [DB_ROOT]
# Databases: 1 to 4 houses are built by `kalah table` itself (4 houses up to 32 seeds, 77 M
# positions); 5 houses up to 20 seeds (30 M positions, Kalah(5,2)) and 6 houses up to 18 seeds
# (86 M positions, 99 s) are built here. BIG=1 also builds 5 houses up to 30 seeds (Kalah(5,3):
# 0.85 G positions, layers 21-30 in 660 s on 2 threads, about 13 GB) and 6 houses up to 24 seeds
# (Kalah(6,2): 1.25 G positions, layers 19-24 in 2217 s on 2 threads, 14.9 GB peak).
set -euo pipefail
db=${1:-data/db}
cargo build --release -q -p solver-cli
kalah=target/release/kalah
"$kalah" build --houses 5 --max-seeds 20 --direction cw --db "$db"
"$kalah" build --houses 6 --max-seeds 18 --direction cw --db "$db"
if [[ "${BIG:-0}" == 1 ]]; then
    /usr/bin/time -v "$kalah" build --houses 5 --max-seeds 30 --direction cw --db "$db"
    /usr/bin/time -v "$kalah" build --houses 6 --max-seeds 24 --direction cw --db "$db"
fi
"$kalah" table --direction cw --houses 1..6 --seeds 1..4 --db "$db" --time-limit "${LIMIT:-3600}"
