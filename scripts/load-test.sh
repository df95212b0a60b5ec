#!/usr/bin/env bash
# Load test of `kalah serve` against the 24-seed database of 6 houses: builds the database if it
# is missing, starts the server on a free port (databases loaded first), sends REQUESTS requests
# from CLIENTS concurrent clients for positions reached by random play from Kalah(6,4) with 8 to
# 28 seeds on the board (most answered from the database, the rest by search), and prints
# requests per second and latency percentiles. Exits non-zero if any request failed.
#
#   scripts/load-test.sh                        # 2000 requests, 8 clients, standard rules
#   RULES=empty-capture REQUESTS=5000 scripts/load-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DB=${DB:-data/db}
RULES=${RULES:-standard}
REQUESTS=${REQUESTS:-2000}
CLIENTS=${CLIENTS:-8}

cargo build --release -q -p solver-cli --bin kalah --example load_test
kalah=target/release/kalah
# A no-op when the layers are there already (a larger database is used up to 24 seeds).
"$kalah" build --houses 6 --max-seeds 24 --rules "$RULES" --db "$DB" >/dev/null

work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
# Only this rule set's database is loaded: a root of its own holding a link to it.
mkdir -p "$work/db"
ln -s "$(realpath "$DB/6h-$RULES")" "$work/db/6h-$RULES"
"$kalah" serve --db "$work/db" --max-seeds 24 --preload --bind 127.0.0.1:0 >"$work/serve.out" &
server=$!
until grep -q "^listening on " "$work/serve.out"; do
    kill -0 "$server" 2>/dev/null || { echo "kalah serve did not start" >&2; exit 1; }
    sleep 0.2
done
url=$(sed -n 's/^listening on //p' "$work/serve.out")
echo "server $url (machine: $(nproc) cores)"
target/release/examples/load_test --url "$url" --requests "$REQUESTS" --clients "$CLIENTS" --rules "$RULES"
