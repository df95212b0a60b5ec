#!/usr/bin/env bash
# The cluster path under a real Slurm, on this one machine: scripts/slurm-array.sh runs a job and
# two proofs as job arrays, one shard is killed and resubmitted, the shards' logs are merged and
# the results compared with a single-process run.
#   scripts/slurm-test.sh            (as root: installs Debian's slurm-wlm and munge when missing)
# It starts its own munged, slurmctld and slurmd (this machine as controller and only node, its
# CPUs, 4 GB), configured under a temporary directory and on ports of their own, and stops them
# when it ends, passed or failed; KEEP=1 keeps the directory (configuration, daemon logs, results).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

say() { printf '[slurm-test %s] %s\n' "$(date +%T)" "$*"; }
fail() { say "FAILED: $*"; exit 1; }

# --- Slurm and munge ---------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    [[ $(id -u) == 0 ]] || fail "slurm-wlm and munge are missing; install them (apt-get install slurm-wlm munge) or run as root"
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q slurm-wlm munge >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q slurm-wlm munge >/dev/null; }
fi
cargo build --release -q -p solver-cli
kalah=$repo/target/release/kalah

tmp=$(mktemp -d /tmp/kalah-slurm.XXXXXX)
export SLURM_CONF=$tmp/slurm.conf
stop_daemons() {
    local rc=$?
    scancel --quiet --user="$(id -un)" 2>/dev/null || true
    local daemon pid _
    for daemon in slurmd slurmctld munged; do
        [[ -f $tmp/$daemon.pid ]] || continue
        pid=$(cat "$tmp/$daemon.pid")
        kill "$pid" 2>/dev/null || continue
        # A daemon still shutting down writes into $tmp; remove it only once they are gone.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    done
    if ((rc != 0)); then
        for log in "$tmp"/slurmctld.log "$tmp"/slurmd.log "$tmp"/out/*.out; do
            [[ -f $log ]] && { echo "--- $log"; tail -n 15 "$log"; }
        done
    fi
    if [[ ${KEEP:-0} == 1 || $rc != 0 ]]; then say "kept $tmp"; else rm -rf "$tmp" 2>/dev/null || { sleep 1; rm -rf "$tmp" || say "could not remove $tmp"; }; fi
}
trap stop_daemons EXIT

say "starting munged, slurmctld and slurmd under $tmp"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"
head -c 1024 /dev/urandom >"$tmp/munge.key"
chmod 400 "$tmp/munge.key"
munged --force --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed"
node=$(hostname -s)
cpus=$(nproc)
cat >"$SLURM_CONF" <<EOF
ClusterName=kalahtest
SlurmctldHost=$node(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=3600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=4000 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -i
slurmd
for _ in $(seq 60); do
    [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && break
    sleep 1
done
[[ $(sinfo -h -o %T) == idle ]] || fail "the node did not come up: $(sinfo -h -o '%T %E')"

# --- helpers -----------------------------------------------------------------------------------
# Submits slurm-array.sh from the repository's root (as users do); prints the array job's id.
submit() { sbatch --parsable --mem=1G --output="$tmp/out/%x-%A_%a.out" "$@"; }
# Waits until no task of array job $1 is pending or running.
wait_array() {
    for _ in $(seq 600); do
        [[ -z $(squeue -h -j "$1" 2>/dev/null) ]] && return 0
        sleep 1
    done
    fail "array $1 still running after 10 minutes"
}
# The state and exit code of every task of array job $1, one "TASK STATE EXIT" line each.
array_states() {
    scontrol -o show job "$1" | sed -E 's/.*ArrayTaskId=([0-9]+).*JobState=([A-Z_]+).*ExitCode=([0-9:]+).*/\1 \2 \3/' | sort -n
}
# Fails unless every task of array job $1 completed with exit code 0.
all_completed() {
    local states
    states=$(array_states "$1")
    grep -qv ' COMPLETED 0:0$' <<<"$states" && fail "array $1: $(tr '\n' ';' <<<"$states")"
    say "array $1: every task completed, exit 0 ($(wc -l <<<"$states") tasks)"
}
# Waits until file $1 has at least $2 lines (at most 5 minutes).
wait_lines() {
    for _ in $(seq 3000); do
        [[ -f $1 && $(wc -l <"$1") -ge $2 ]] && return 0
        sleep 0.1
    done
    fail "$1 never reached $2 lines"
}
lines() { if [[ -f $1 ]]; then wc -l <"$1"; else echo 0; fi; }
# Cancels task 1 of array job $1 once its log $2 has $3 lines, waits for the array to end, and
# sets killed_at to the lines the log then held, a copy of them kept in $tmp/before.
cancel_shard_1() {
    wait_lines "$2" "$3"
    scancel "${1}_1"
    wait_array "$1"
    grep -q '^1 CANCELLED' <<<"$(array_states "$1")" ||
        fail "shard 1 was not cancelled: $(array_states "$1")"
    killed_at=$(lines "$2")
    head -n "$killed_at" "$2" >"$tmp/before"
}

# --- a job: every opening of Kalah(5,4), both rule sets, 4 shards ------------------------------
job=$tmp/openings-5x4.toml
cat >"$job" <<'EOF'
name = "openings-5x4"
compute = "openings"

[[item]]
start = "5x4"
rules = "standard"

[[item]]
start = "5x4"
rules = "empty-capture"
EOF
shard_log=$tmp/results/openings-5x4.shard-1-of-4.tasks.jsonl
id=$(submit --array=1-4 --job-name=job scripts/slurm-array.sh "$job" 4 --results "$tmp/results" --no-db)
say "job: array $id submitted (4 shards of 1 CPU)"
cancel_shard_1 "$id" "$shard_log" 1
say "job: shard 1 cancelled with $killed_at search steps logged"
again=$(submit --array=1 --job-name=job scripts/slurm-array.sh "$job" 4 --results "$tmp/results" --no-db)
wait_array "$again"
all_completed "$again"
cmp -s "$tmp/before" <(head -n "$killed_at" "$shard_log") || fail "the resubmitted shard rewrote its log"
# A log line is one step of a task's search: its task and the bounds it proved.
repeated=$(cut -d, -f1-3 "$shard_log" | sort | uniq -d)
[[ -z $repeated ]] || fail "the resubmitted shard searched again what its log held: $repeated"
say "job: shard 1 resubmitted, went on from its $killed_at logged steps to $(lines "$shard_log") (none repeated)"
"$kalah" merge "$job" --results "$tmp/results" >/dev/null
"$kalah" run "$job" --results "$tmp/plain" --no-db >/dev/null
# Values, bounds, best moves and every opening agree; nodes and seconds may differ.
values() { cut -d, -f1-12 "$1"; }
diff <(values "$tmp/plain/openings-5x4.csv") <(values "$tmp/results/openings-5x4.csv") >&2 ||
    fail "the merged results differ from the single-process run"
say "job: merged results equal the single-process run's ($(($(wc -l <"$tmp/plain/openings-5x4.csv") - 1)) items)"

# --- a proof: standard Kalah(6,4) >= 8 (its value), 2 shards; one killed and resubmitted ------
# Shard 1 runs alone until it is cancelled: any shard takes whatever open leaf no other works on,
# so a shard 2 running beside it could decide the whole proof (seconds) before the cancel.
proof=$tmp/proof-6x4
"$kalah" proof new "$proof" --start 6x4 --rules standard --claim ">= 8" --task-nodes 1000000 >/dev/null
shard_log=$proof/log.shard-1-of-2.jsonl
id=$(submit --array=1 --job-name=proof scripts/slurm-array.sh "$proof" 2 --no-db)
say "proof: shard 1 of 2 submitted alone (1 CPU)"
cancel_shard_1 "$id" "$shard_log" 3
[[ $("$kalah" proof status "$proof" --json | grep -o '"proven":[a-z]*') == '"proven":null' ]] ||
    fail "the proof was decided before shard 1 could be cancelled"
say "proof: shard 1 cancelled with $killed_at records logged; the proof is open"
again=$(submit --array=1-2 --job-name=proof scripts/slurm-array.sh "$proof" 2 --no-db)
say "proof: array $again submitted (shard 1 again beside shard 2, 1 CPU each)"
wait_array "$again"
all_completed "$again"
cmp -s "$tmp/before" <(head -n "$killed_at" "$shard_log") || fail "the resubmitted shard rewrote its log"
(($(lines "$shard_log") > killed_at)) || fail "the resubmitted shard added nothing"
say "proof: shard 1 resubmitted, went on from its $killed_at records to $(lines "$shard_log")"
"$kalah" proof merge "$proof" >/dev/null
"$kalah" proof check "$proof" --sample 5 --no-db >/dev/null || fail "proof check failed on the merged proof"
plain=$tmp/proof-6x4-plain
"$kalah" proof new "$plain" --start 6x4 --rules standard --claim ">= 8" --task-nodes 1000000 >/dev/null
"$kalah" proof run "$plain" --no-db >/dev/null 2>&1
for dir in "$proof" "$plain"; do
    [[ $("$kalah" proof status "$dir" --json | grep -o '"proven":[a-z]*') == '"proven":true' ]] ||
        fail "$dir is not proven"
done
say "proof: merged and checked; proven, as by a single process"

# --- a proof whose array outnumbers the CPUs: the shards that run do the work -----------------
proof=$tmp/proof-6x4-4
"$kalah" proof new "$proof" --start 6x4 --rules standard --claim ">= 8" --task-nodes 1000000 >/dev/null
id=$(submit --array=1-4 --job-name=proof4 scripts/slurm-array.sh "$proof" 4 --no-db)
say "proof: array $id submitted (4 shards of 1 CPU on $cpus CPUs)"
wait_array "$id"
all_completed "$id"
"$kalah" proof merge "$proof" >/dev/null
"$kalah" proof check "$proof" --sample 5 --no-db >/dev/null || fail "proof check failed on the 4-shard proof"
# The proof's own nodes: the first "nodes" of its status (its progress entries have their own).
nodes() { "$kalah" proof status "$1" --json | grep -o '"nodes":[0-9]*' | head -n1 | cut -d: -f2; }
say "proof: 4 shards on $cpus CPUs decided and checked; nodes: $(nodes "$proof") (one process: $(nodes "$plain"))"
say "passed"
