#!/usr/bin/env bash
# Runs a job as N shards side by side with GNU parallel, then merges them.
#   scripts/run-sharded.sh JOB.toml N [extra `kalah run` flags, e.g. --threads 1]
# Each shard writes data/results/NAME.shard-I-of-N.tasks.jsonl (its log: a killed shard resumes
# from it when run again) and its own result files; `kalah merge` combines the logs into
# data/results/NAME.tasks.jsonl, NAME.csv and NAME.jsonl. On a cluster, run the shards as a Slurm
# job array instead (scripts/slurm-array.sh) and merge once every shard has finished.
set -euo pipefail
job=${1:?usage: run-sharded.sh JOB.toml N [kalah run flags]}
shards=${2:?usage: run-sharded.sh JOB.toml N [kalah run flags]}
shift 2
cargo build --release -q -p solver-cli
kalah=target/release/kalah
command -v parallel >/dev/null || { echo "GNU parallel is not installed (Debian: apt-get install parallel)" >&2; exit 1; }
parallel --halt now,fail=1 --line-buffer "$kalah" run "$job" --shard {}/"$shards" "$@" ::: $(seq 1 "$shards")
"$kalah" merge "$job"
