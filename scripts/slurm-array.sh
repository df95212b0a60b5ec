#!/usr/bin/env bash
# A Slurm job array running one shard of a kalah job, or of a proof, per array task:
#   sbatch --array=1-16 scripts/slurm-array.sh data/jobs/openings-6x5.toml
#   sbatch --array=1-16 scripts/slurm-array.sh data/proofs/standard-6x6-ge-2
# then, once every task has finished (or with --dependency=afterok:<array job id>):
#   target/release/kalah merge data/jobs/openings-6x5.toml
#   target/release/kalah proof merge data/proofs/standard-6x6-ge-2
# Every shard needs the database under data/db (build it once, before submitting, with
# `kalah build --houses 6 --max-seeds 30 --rules R`) and writes its log beside the job's results
# (data/results) or into the proof's directory, on the shared file system; a proof's shards read
# each other's logs as they grow. A shard that is killed (time limit, preemption) resumes from its
# log when the same array task runs again: `sbatch --array=<the failed ids> ...`.
#SBATCH --job-name=kalah
#SBATCH --cpus-per-task=16
#SBATCH --mem=64G
#SBATCH --time=24:00:00
#SBATCH --output=kalah-%A_%a.out
set -euo pipefail
work=${1:?usage: sbatch --array=1-N slurm-array.sh JOB.toml|PROOF_DIR [flags]}
shift
shard="${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}"
if [[ -f "$work/proof.toml" ]]; then
    exec target/release/kalah proof run "$work" --shard "$shard" --threads "${SLURM_CPUS_PER_TASK:-1}" "$@"
fi
exec target/release/kalah run "$work" --shard "$shard" --threads "${SLURM_CPUS_PER_TASK:-1}" "$@"
