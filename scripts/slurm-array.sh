#!/usr/bin/env bash
# A Slurm job array running one shard of a kalah job, or of a proof, per array task. Submit it
# from the repository's root (the shards run there: target/release/kalah, data/db, data/results),
# with the number of shards after the job or proof:
#   sbatch --array=1-16 --cpus-per-task=16 --mem=40G --time=24:00:00 \
#       scripts/slurm-array.sh data/proofs/standard-6x6-ge-2 16
#   sbatch --array=1-4 --cpus-per-task=4 --mem=8G scripts/slurm-array.sh data/jobs/openings-6x5.toml 4
# then, once every task has finished (or with --dependency=afterany:<array job id>):
#   target/release/kalah merge data/jobs/openings-6x5.toml
#   target/release/kalah proof merge data/proofs/standard-6x6-ge-2
# A shard that was killed (time limit, preemption, scancel) resumes from its log when its array
# task runs again, with the same count: `sbatch --array=3,7 ... scripts/slurm-array.sh WORK 16`
# (the count is an argument because such an array knows only its own ids).
# The script asks for no CPUs, memory or time itself (a request larger than every node leaves
# the array pending for ever): give them on the command line, as above. A shard runs as many
# search threads as it has CPUs; it needs the memory of its database (12 GiB for Kalah(6,6) with
# the 30-seed one) plus its table. Build the database once before submitting (`kalah build
# --houses 6 --max-seeds 30 --rules R`); data/db, data/results and the proof's directory must
# be on a file system every node shares: a proof's shards read each other's logs as they grow,
# and take over the share of a shard whose log stays quiet (--take-over-after, 300 s).
# Flags after the count go to `kalah run` or `kalah proof run` (e.g. --time-limit, --no-db).
#SBATCH --job-name=kalah
#SBATCH --output=kalah-%A_%a.out
set -euo pipefail
usage="usage: sbatch --array=1-N scripts/slurm-array.sh JOB.toml|PROOF_DIR N [flags]"
work=${1:?$usage}
shards=${2:?$usage}
shift 2
cd "${SLURM_SUBMIT_DIR:-.}"
kalah=${KALAH:-target/release/kalah}
if [[ ! -x "$kalah" ]]; then
    echo "slurm-array.sh: no $kalah under $(pwd): submit from the repository's root after cargo build --release" >&2
    exit 2
fi
index=${SLURM_ARRAY_TASK_ID:?slurm-array.sh runs as a task of a Slurm array ($usage)}
if ! [[ $shards =~ ^[1-9][0-9]*$ ]] || ((index < 1 || index > shards)); then
    echo "slurm-array.sh: array task $index is not a shard of N = '$shards' ($usage)" >&2
    exit 2
fi
threads=${SLURM_CPUS_PER_TASK:-1}
if [[ -f "$work/proof.toml" ]]; then
    exec "$kalah" proof run "$work" --shard "$index/$shards" --threads "$threads" "$@"
fi
exec "$kalah" run "$work" --shard "$index/$shards" --threads "$threads" "$@"
