#!/usr/bin/env bash
# Narrows the first turns of a start to their exact values for a while, the way a session with
# spare cores does (issue "Kalah(6,6) mapped"): for each rule set in turn (by default empty capture,
# whose published table gives the first guesses, then standard rules), skips it when the checked
# proofs already make every first turn exact, builds its database when missing (MAX_SEEDS seeds:
# 32 for 6 houses takes about 36 minutes and 17.9 GB on 2 cores; only one database is held at a
# time), then runs `kalah proof openings` at nice 10 with a TABLE_MB table until SECONDS have
# passed since the script began. The driver goes on from the proof directories alone; stop it
# early with `kill -TERM` on `kalah proof openings`, then commit the proofs' logs and
# data/results/openings-*.{csv,jsonl}.
#   scripts/openings-session.sh SECONDS [RULES ...]
# Environment: START (6x6), PROOFS (data/proofs), MAP (the map's .jsonl and .csv without their
# ending, data/results/openings-START), MAX_SEEDS (32), TABLE_MB (6144: beside the 32-seed
# layers' 11.5 GB it fits 24 GiB, and it holds about a 300 M-node task's positions, which overflow
# 4 GiB), MIN_BUILD_SECONDS (2700: a database is not begun with less time left, as a build killed
# at the end would lose its top layer's work), KALAH (a binary to run instead of building this
# checkout's, so that rebuilding beside a long run does not change what it runs), GUESSES (a CSV of
# `opening,value` rows giving every rule set run its first guesses, e.g. another rule set's map
# for BGA, which has no published table; by default data/published/openings-START-RULES.csv where
# there is one), GUESSES_FROM (instead, another rule set whose exact first turns in MAP.csv give
# the first guesses: `GUESSES_FROM=standard` for BGA, whose map began from the standard one's),
# TEMPLATES_FROM (rules whose decided proof of the same test each test grows along, where there is
# one: `TEMPLATES_FROM=standard` for BGA; see `kalah proof openings --templates-from`).
set -euo pipefail
usage="usage: openings-session.sh SECONDS [RULES ...]"
seconds=${1:?$usage}
shift
rule_sets=("$@")
(( ${#rule_sets[@]} > 0 )) || rule_sets=(empty-capture standard)
start=${START:-6x6}
proofs=${PROOFS:-data/proofs}
out=${MAP:-data/results/openings-$start}
max_seeds=${MAX_SEEDS:-32}
table_mb=${TABLE_MB:-6144}
min_build_seconds=${MIN_BUILD_SECONDS:-2700}
[[ "$start" =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "START=$start: expected MxN, e.g. 6x6" >&2; exit 2; }
houses=${BASH_REMATCH[1]}
end=$(( $(date +%s) + seconds ))
# `nice` ranks processes only within their autogroup (one per session): started with `setsid`,
# this script has one of its own, which would take an equal share of the cores beside the work
# of other sessions whatever its nice. So it lowers its own group, and only that.
if [[ "$(ps -o sid= -p $$ | tr -d ' ')" == "$$" ]]; then
    { echo 10 > "/proc/$$/autogroup"; } 2>/dev/null || true
fi
mkdir -p "$proofs"
kalah=${KALAH:-target/release/kalah}
[[ -n "${KALAH:-}" ]] || cargo build --release -q -p solver-cli
for rules in "${rule_sets[@]}"; do
    # The map reads the checked proofs only (no search, no database) and rewrites the result files.
    map=$("$kalah" proof map "$start" --rules "$rules" --proofs "$proofs" --out "$out" --json)
    if ! grep -q '"value":null' <<<"$map"; then
        echo "$rules: every first turn of $start exact"
        continue
    fi
    built=$("$kalah" info --houses "$houses" --rules "$rules" --json 2>/dev/null | grep -o '"max_seeds":[0-9]*' | cut -d: -f2 || true)
    if (( ${built:-0} < max_seeds )); then
        if (( end - $(date +%s) < min_build_seconds )); then
            echo "$rules: its $max_seeds-seed database is missing and too little time is left to build it" >&2
            break
        fi
        "$kalah" build --houses "$houses" --max-seeds "$max_seeds" --rules "$rules"
    fi
    left=$(( end - $(date +%s) ))
    (( left > 60 )) || break
    guesses=()
    published="data/published/openings-$start-$rules.csv"
    if [[ -n "${GUESSES:-}" ]]; then
        guesses=(--guesses "$GUESSES")
    elif [[ -n "${GUESSES_FROM:-}" ]]; then
        guesses_file=$(mktemp)
        trap 'rm -f "$guesses_file"' EXIT
        python3 - "$out.csv" "$GUESSES_FROM" > "$guesses_file" <<'EOF'
import csv, re, sys
path, rules = sys.argv[1], sys.argv[2]
rows = [row for row in csv.DictReader(open(path)) if row["rules"] == rules]
if not rows:
    sys.exit(f"{path}: no map of {rules} to take first guesses from")
print("opening,value")
for item in rows[0]["openings"].split("; "):
    turn, value = item.split(": ")
    if re.fullmatch(r"[+-]?\d+", value):
        print(f"{turn},{int(value)}")
EOF
        guesses=(--guesses "$guesses_file")
    elif [[ -f "$published" ]]; then
        guesses=(--guesses "$published")
    fi
    templates=()
    [[ -z "${TEMPLATES_FROM:-}" ]] || templates=(--templates-from "$TEMPLATES_FROM")
    nice -n 10 "$kalah" proof openings "$start" --rules "$rules" "${guesses[@]}" "${templates[@]}" --proofs "$proofs" --out "$out" \
        --threads "$(nproc)" --table-mb "$table_mb" --time-limit "$left"
done
