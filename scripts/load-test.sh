#!/usr/bin/env bash
# Load test of `kalah serve` against the 24-seed database of 6 houses, on 127.0.0.1 only: builds
# the database if it is missing, then for each mix starts a server on a free port (databases
# loaded first), sends REQUESTS requests from CLIENTS concurrent clients for positions reached by
# random play from Kalah(6,4) (most answered from the database, the rest by search), and prints
# requests per second, latency percentiles and the server's peak resident memory. Exits
# non-zero if any of those requests failed. The mixes:
#   plain      the requests alone, 8 to 28 seeds on the board
#   crowd      SLOW (20) searches far beyond the databases sent at once beside 200 clients asking
#              for positions the database holds: the searches may be refused, the others may not
#   slowloris  SLOWLORIS (200) connections sending a head a line at a time, for at least 7 s,
#              beside the plain mix, the server closing them after 5 s
#
#   scripts/load-test.sh                          # every mix, standard rules
#   MIXES=plain RULES=empty-capture REQUESTS=5000 scripts/load-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DB=${DB:-data/db}
RULES=${RULES:-standard}
REQUESTS=${REQUESTS:-2000}
CLIENTS=${CLIENTS:-8}
SLOW=${SLOW:-20}
SLOWLORIS=${SLOWLORIS:-200}
MIXES=${MIXES:-plain crowd slowloris}

cargo build --release -q -p solver-cli --bin kalah --example load_test
kalah=target/release/kalah
# A no-op when the layers are there already (a larger database is used up to 24 seeds).
"$kalah" build --houses 6 --max-seeds 24 --rules "$RULES" --db "$DB" >/dev/null

work=$(mktemp -d)
server=
trap 'kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
# Only this rule set's database is loaded: a root of its own holding a link to it.
mkdir -p "$work/db"
ln -s "$(realpath "$DB/6h-$RULES")" "$work/db/6h-$RULES"

# Starts a server with the flags given; sets $server and $url.
start_server() {
    rm -f "$work/serve.out"
    "$kalah" serve --db "$work/db" --max-seeds 24 --preload --bind 127.0.0.1:0 "$@" >"$work/serve.out" &
    server=$!
    until grep -qs "^listening on " "$work/serve.out"; do
        kill -0 "$server" 2>/dev/null || { echo "kalah serve did not start" >&2; exit 1; }
        sleep 0.2
    done
    url=$(sed -n 's/^listening on //p' "$work/serve.out")
}

stop_server() {
    echo "server peak resident memory: $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$server/status")"
    kill "$server"
    wait "$server" 2>/dev/null || true
}

load_test() {
    target/release/examples/load_test --url "$url" --rules "$RULES" "$@"
}

echo "machine: $(nproc) cores"
for mix in $MIXES; do
    echo "== $mix"
    case $mix in
        plain)
            start_server
            load_test --requests "$REQUESTS" --clients "$CLIENTS"
            ;;
        crowd)
            start_server --time-limit 5
            load_test --requests 1000 --clients 200 --min-seeds 8 --max-seeds 24 --slow "$SLOW"
            ;;
        slowloris)
            start_server --header-timeout 5
            load_test --requests "$REQUESTS" --clients "$CLIENTS" --slowloris "$SLOWLORIS" --drip-seconds 7
            ;;
        *) echo "unknown mix '$mix' (plain, crowd or slowloris)" >&2; exit 2 ;;
    esac
    stop_server
done
