#!/usr/bin/env bash
# Runs a job, or a proof, as N shards side by side with GNU parallel, then merges them.
#   scripts/run-sharded.sh JOB.toml N [extra `kalah run` flags, e.g. --threads 1]
#   scripts/run-sharded.sh PROOF_DIR N [extra `kalah proof run` flags, e.g. --time-limit 3600]
# A job's shard writes data/results/NAME.shard-I-of-N.tasks.jsonl (its log: a killed shard resumes
# from it when run again) and its own result files; `kalah merge` combines the logs into
# data/results/NAME.tasks.jsonl, NAME.csv and NAME.jsonl. A proof's shard writes
# PROOF_DIR/log.shard-I-of-N.jsonl and follows the others' logs; `kalah proof merge` joins them
# into PROOF_DIR/log.jsonl. On a cluster, run the shards as a Slurm job array instead
# (scripts/slurm-array.sh) and merge once every shard has finished.
set -euo pipefail
work=${1:?usage: run-sharded.sh JOB.toml|PROOF_DIR N [flags]}
shards=${2:?usage: run-sharded.sh JOB.toml|PROOF_DIR N [flags]}
shift 2
cargo build --release -q -p solver-cli
kalah=target/release/kalah
command -v parallel >/dev/null || { echo "GNU parallel is not installed (Debian: apt-get install parallel)" >&2; exit 1; }
if [[ -f "$work/proof.toml" ]]; then
    parallel --halt now,fail=1 --line-buffer "$kalah" proof run "$work" --shard {}/"$shards" "$@" ::: $(seq 1 "$shards")
    "$kalah" proof merge "$work"
else
    parallel --halt now,fail=1 --line-buffer "$kalah" run "$work" --shard {}/"$shards" "$@" ::: $(seq 1 "$shards")
    "$kalah" merge "$work"
fi
