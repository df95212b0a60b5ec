#!/usr/bin/env bash
# A Slurm job array running one shard of a kalah job per array task:
#   sbatch --array=1-16 scripts/slurm-array.sh data/jobs/proof-6x6.toml
# then, once every task has finished (or with --dependency=afterok:<array job id>):
#   target/release/kalah merge data/jobs/proof-6x6.toml
# Every shard needs the job's database under data/db (build it once, before submitting, with
# `kalah build --houses 6 --max-seeds 30 --rules R`) and writes its log to data/results on the
# shared file system. A shard that is killed (time limit, preemption) resumes from its log when
# the same array task runs again: `sbatch --array=<the failed ids> ...`.
#SBATCH --job-name=kalah
#SBATCH --cpus-per-task=16
#SBATCH --mem=64G
#SBATCH --time=24:00:00
#SBATCH --output=kalah-%A_%a.out
set -euo pipefail
job=${1:?usage: sbatch --array=1-N slurm-array.sh JOB.toml}
exec target/release/kalah run "$job" --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
    --threads "${SLURM_CPUS_PER_TASK:-1}"
