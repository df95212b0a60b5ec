#!/usr/bin/env bash
# Where the tasks of committed proofs spend their nodes, by the seeds left on the board (issue
# "Proofs that waste less"): for each band of 4 seeds, the tasks that settled their claim (how
# many, their median, 90th percentile and total nodes) and those that ran out of their budget and
# were expanded (how many, their total nodes), then what a smaller budget would have cost the
# settled ones (how many would have failed), then where the task nodes of the checked proofs lie:
# at a node of the tree their check confirmed (data/results/proven-positions.jsonl, `kalah proof
# index`) or off it, a task the proof did not need in the end. Reads files only; runs in seconds.
#   scripts/proof-task-costs.sh                         # every Kalah(6,6) proof under data/proofs
#   scripts/proof-task-costs.sh 'data/proofs/standard-6x6-*'
set -euo pipefail
cd "$(dirname "$0")/.."
pattern=${1:-data/proofs/*6x6*}
python3 - "$pattern" <<'EOF'
import collections, glob, json, os, sys

def tasks(path):
    """The log's records of a task: expanded or settled, not by the table (which cost no task)."""
    for line in open(path):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill
        if record.get("kind") in ("expanded", "settled") and record.get("by") != "table":
            yield record

logs = {path: list(tasks(path)) for path in sorted(glob.glob(sys.argv[1] + "/log.jsonl"))}
settled = collections.defaultdict(list)
failed = collections.defaultdict(list)
for records in logs.values():
    for record in records:
        bins = [int(b) for b in record["position"].split()[:-1]]
        m = (len(bins) - 2) // 2
        band = (sum(bins[:m]) + sum(bins[m + 1 : 2 * m + 1])) // 4 * 4
        (failed if record["kind"] == "expanded" else settled)[band].append(record["nodes"])

def at(values, share):
    values = sorted(values)
    return values[min(len(values) - 1, int(share * len(values)))] if values else 0

print(f"{len(logs)} proof logs ({sys.argv[1]})")
print("seeds    settled: tasks  median M   p90 M   total G | expanded: tasks  total G")
for band in sorted(set(settled) | set(failed), reverse=True):
    s, e = settled[band], failed[band]
    print(f"{band:>2}-{band + 3:<2}  {len(s):>15} {at(s, .5) / 1e6:>10.1f} {at(s, .9) / 1e6:>7.1f} {sum(s) / 1e9:>9.1f} |"
          f" {len(e):>15} {sum(e) / 1e9:>8.1f}")
print("had every task a budget of B nodes: the settled tasks that would have failed")
for cap in (5e6, 20e6, 50e6, 100e6):
    s = [n for band in settled for n in settled[band]]
    over = [n for n in s if n > cap]
    print(f"  B = {cap / 1e6:>4.0f} M: {len(over)} of {len(s)} ({len(over) / max(1, len(s)):.0%}), {sum(over) / 1e9:.1f} G of their nodes")

in_tree = collections.defaultdict(set)
for line in open("data/results/proven-positions.jsonl"):
    entry = json.loads(line)
    for proof in entry["lower_proofs"] + entry["upper_proofs"]:
        in_tree[os.path.basename(proof)].add(entry["position"])
where = collections.Counter()
checked = 0
for path, records in logs.items():
    tree = in_tree.get(os.path.basename(os.path.dirname(path)))
    if not tree:
        continue
    checked += 1
    for record in records:
        if record.get("by") != "shared":
            where[(record["kind"], record["position"] in tree)] += record["nodes"]
total = sum(where.values())
print(f"task nodes of the {checked} checked proofs among them ({total / 1e9:.1f} G), by where the task was:")
for kind in ("settled", "expanded"):
    for inside in (True, False):
        n = where[(kind, inside)]
        print(f"  {kind:>8} {'in the checked tree' if inside else 'off it':<19} {n / 1e9:7.1f} G  {n / max(1, total):4.0%}")
EOF
