#!/usr/bin/env bash
# How fast the engine plays perfect play's side of a game, as the board plays it against a person
# (issue "Kalah(6,6) to play and to study"): starts `kalah serve` on 127.0.0.1 over DB (built up
# to MAX_SEEDS seeds when missing), then plays GAMES games of START under RULES, the engine as
# ENGINE (south, the first player, or north) against a random other side (seeded, so runs
# repeat), and prints every
# engine move's seconds and how it was chosen, then the median and the worst:
#   proven     a move the position's answer proves best (the book, the database, a search, or
#              exact bounds from the proofs)
#   keeps      a move the proofs (or the database) prove keeps the position's proven lower
#              bound, or the bound the engine's last move kept
#   searched   past the proofs' leaves, a move /api/v1/keeping-move proved by search to keep it
#   estimate   none proven within TIME_LIMIT: the best by the estimates, NOT proven
# Once a move is proven to keep a bound, the engine's next turn (the other side cannot lower it)
# asks /keeping-move for a move that keeps it again: zero-window tests, not the position's value.
# The engine never falls below the proven value while every move is proven, keeps or searched. A benchmark, not a test: it needs minutes to hours.
#   scripts/bench-play.sh                                    # 6x6 standard, 5 games, 32 seeds
#   START=6x5 MAX_SEEDS=24 GAMES=5 scripts/bench-play.sh
#   ENGINE=north MAX_SEEDS=24 scripts/bench-play.sh          # the engine as the second player
set -euo pipefail
cd "$(dirname "$0")/.."

START=${START:-6x6}
RULES=${RULES:-standard}
GAMES=${GAMES:-5}
DB=${DB:-data/db}
MAX_SEEDS=${MAX_SEEDS:-32}
TIME_LIMIT=${TIME_LIMIT:-30}
SEED=${SEED:-1}
ENGINE=${ENGINE:-south}
[[ "$ENGINE" == south || "$ENGINE" == north ]] || { echo "ENGINE=$ENGINE: south or north" >&2; exit 2; }

[[ "$START" =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "START=$START: expected MxN, e.g. 6x6" >&2; exit 2; }
houses=${BASH_REMATCH[1]}
cargo build --release -q -p solver-cli
kalah=target/release/kalah
built=$("$kalah" build --houses "$houses" --max-seeds "$MAX_SEEDS" --rules "$RULES" --db "$DB")
out=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$out"' EXIT
# The server sees this rule set's database only, read whole before it serves (--preload reads
# every database under --db), so that no move's time is a layer's first reading (about 90 s for
# the 32-seed database's).
mkdir "$out/db"
ln -s "$(realpath "${built%%: *}")" "$out/db/"
"$kalah" serve --bind 127.0.0.1:0 --db "$out/db" --max-seeds "$MAX_SEEDS" --no-cache --workers 1 --preload \
    --time-limit "$TIME_LIMIT" > "$out/address" 2> "$out/log" &
server=$!
for _ in $(seq 900); do grep -q http "$out/address" 2>/dev/null && break; sleep 1; done
url=$(grep -o 'http://[^ ]*' "$out/address" | head -1)
[[ -n "$url" ]] || { echo "the server did not start: $(cat "$out/log")" >&2; exit 1; }

python3 - "$url" "$START" "$RULES" "$GAMES" "$SEED" "$MAX_SEEDS" "$ENGINE" <<'EOF'
import json, random, statistics, sys, time, urllib.error, urllib.parse, urllib.request

url, start, rules, games, seed, max_seeds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
engine = sys.argv[7]
letter = "S" if engine == "south" else "N"
other = "North" if engine == "south" else "South"
rng = random.Random(seed)

def get(endpoint, position, **more):
    query = urllib.parse.urlencode({"pos": position, "rules": rules, **more})
    try:
        with urllib.request.urlopen(f"{url}/api/v1/{endpoint}?{query}", timeout=3600) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)

def get_keeping(position, at_least):
    """/keeping-move at `at_least`: (move, how, keeps), else the estimate's best, unproven."""
    status, found = get("keeping-move", position, at_least=at_least)
    if status == 200:
        return found["move"], ("searched" if found["nodes"] else "keeps"), found["keeps"]["lower"]
    estimates = found.get("estimates") or []
    return (estimates[0]["move"] if estimates else None), "estimate", None

def engine_move(position, kept):
    """The board's choice (solver-cli/web/board.js, show, replyTo): (move, how, what it keeps),
    `kept` what the engine's last move kept (None: nothing known)."""
    if kept is not None:
        move, how, keeps = get_keeping(position, kept)
        if move is not None:
            return move, how, keeps
        return get("moves", position)[1]["moves"][0]["move"], "estimate", None
    status, answer = get("position", position)
    if status != 200:
        estimates = answer.get("estimates") or []
        return (estimates[0]["move"] if estimates else answer["moves"][0]["move"]), "estimate", None
    best = [m for m in answer["moves"] if m.get("best")]
    if best:
        return best[0]["move"], "proven", answer.get("value")
    lower, proofs = answer.get("lower"), answer.get("lower_proofs") or []
    first = answer["moves"][0]
    if proofs and first.get("lower") == lower and first.get("lower_proofs"):
        return first["move"], "keeps", lower
    if proofs:
        move, how, keeps = get_keeping(position, lower)
        if move is not None:
            return move, how, keeps
    return first["move"], "estimate", None

times, hows = [], {}
for game in range(games):
    status, moves = get("moves", start)
    position = moves["position"]
    kept = None  # what the engine's last move kept for its side
    while True:
        status, moves = get("moves", position)
        legal = moves["moves"]
        if not legal:
            break
        if moves["to_move"] == engine:
            clock = time.monotonic()
            move, how, kept = engine_move(position, kept)
            seconds = time.monotonic() - clock
            times.append(seconds)
            hows[how] = hows.get(how, 0) + 1
            print(f"game {game + 1}: {letter} {move} {how} {seconds:.2f} s  ({position})", flush=True)
        else:
            move = rng.choice(legal)["move"]
        position = next(m["position"] for m in legal if m["move"] == move)
    print(f"game {game + 1} over: {position}", flush=True)
times.sort()
print(f"{start} {rules}, {max_seeds}-seed database, {games} games, the engine as {engine}, against a random {other} (seed {seed}): "
      f"{len(times)} engine moves, median {statistics.median(times):.2f} s, worst {times[-1]:.2f} s; "
      + ", ".join(f"{n} {how}" for how, n in sorted(hows.items())))
EOF
