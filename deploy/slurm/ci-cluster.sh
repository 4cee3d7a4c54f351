#!/usr/bin/env bash
# Runs this directory's scripts on a real Slurm: a one-node cluster on this
# machine from Debian's packages, then the sharded pipeline through it, and
# checks that the merged results are the unsharded run's.
#
#   deploy/slurm/ci-cluster.sh check          # what .ci/run runs
#   deploy/slurm/ci-cluster.sh bench 1 2 4    # the same with each array size, timed
#
# As root on Debian (it installs slurm-wlm and munge with apt-get, quick
# when already installed), it writes a slurm.conf for one node on
# 127.0.0.1, starts munged, slurmctld and slurmd directly (no systemd),
# waits for sinfo to show the node idle, then for each array size N:
#   1. submit.sh: train, profile.sbatch as an N-task array, merge.sbatch,
#      search.sbatch as an N-task array, search-merge.sbatch, each with
#      --dependency=afterok on the previous job;
#   2. liveness.sbatch as an N-task array, then liveness-merge.sbatch;
# waits for the jobs, and checks that every job completed (the two merges
# may exit 1, an anomaly or a violation, only when the unsharded run does),
# that every task took its shard from the Slurm array, and that the merged
# directories equal an unsharded run of the same scripts (their srun run
# outside Slurm, so macepc sees no array) byte for byte, with one
# documented exception: a merged liveness search cannot count its
# distinct states (deploy/README.md). The daemons are stopped on exit.
#
# Workload variables (defaults: small, for CI): SYSTEM (randtree), VARIANT
# (buggy: the search finds an anomaly), SEED (1), RUNS (profile executions,
# 2000), MAX_RUNS (search executions, 2000), LIVE_VARIANT (liveness-bug: a
# violation), DEPTH (10), SPLIT (8), CPUS (CPUs per task, 1; the node has
# NODE_CPUS, default 4, whatever the hardware, so that 4 tasks run at once
# on a 2-core machine). WORK keeps the cluster's files and the results
# (default: a fresh directory under /tmp, removed on success); MACEPC is the
# binary (default: built from this repository).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mode=${1:-check}
shift || true
case $mode in
check) sizes=(${TASKS:-4}) ;;
bench) sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1 2 4) ;;
*) echo "usage: $0 [check | bench N...]" >&2; exit 2 ;;
esac

die() { echo "ci-cluster: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root: it installs Debian packages and starts munged, slurmctld and slurmd"
command -v apt-get >/dev/null || die "needs apt-get (Debian's slurm-wlm and munge packages)"

SYSTEM=${SYSTEM:-randtree} VARIANT=${VARIANT:-buggy} SEED=${SEED:-1}
RUNS=${RUNS:-2000} MAX_RUNS=${MAX_RUNS:-2000}
LIVE_VARIANT=${LIVE_VARIANT:-liveness-bug} DEPTH=${DEPTH:-10} SPLIT=${SPLIT:-8}
CPUS=${CPUS:-1} NODE_CPUS=${NODE_CPUS:-4}
# Ports off Slurm's defaults (6817, 6818), so that a cluster the packages'
# init scripts may have started does not collide with this one.
CTLD_PORT=${CTLD_PORT:-16817} SLURMD_PORT=${SLURMD_PORT:-16818}

t_start=$EPOCHREALTIME

# --- install -------------------------------------------------------------
need=()
for f in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch; do
  [ -x "$f" ] || need+=("$f")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "ci-cluster: installing slurm-wlm and munge (missing: ${need[*]})"
  export DEBIAN_FRONTEND=noninteractive
  # The packages' scripts start munge, slurmctld and slurmd as services,
  # which fails without a slurm.conf and fails the install. A policy-rc.d
  # that refuses (as Docker's Debian images have) keeps them from trying;
  # this script starts its own daemons.
  policy=
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy=/usr/sbin/policy-rc.d
  fi
  st=0
  apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; } || st=$?
  [ -z "$policy" ] || rm -f "$policy"
  [ $st = 0 ] || die "apt-get install slurm-wlm munge failed"
fi

# --- the cluster ---------------------------------------------------------
W=${WORK:-$(mktemp -d /tmp/macepc-slurm.XXXXXX)}
mkdir -p "$W" && W=$(cd "$W" && pwd)
chmod 700 "$W"
mkdir -p "$W/state" "$W/spool" "$W/bin" "$W/shim" "$W/times"
export SLURM_CONF=$W/slurm.conf

stop() {
  local st=$? d pid
  for d in slurmd slurmctld munged; do
    if [ -f "$W/$d.pid" ] && pid=$(cat "$W/$d.pid") && [ -n "$pid" ]; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  if [ $st = 0 ] && [ -z "${WORK:-}" ]; then
    rm -rf "$W"
  else
    echo "ci-cluster: files kept in $W" >&2
  fi
}
trap stop EXIT
trap 'exit 130' INT TERM

host=$(hostname -s)
# A key of our own: a munged of the packages may be running on the
# default socket with the system key, which this cluster does not touch.
head -c 1024 /dev/urandom >"$W/munge.key"
chmod 600 "$W/munge.key"
# The configuration that works in a container without systemd or cgroup
# delegation (here gVisor, cgroup v1): processes tracked through /proc
# (proctrack/linuxproc) instead of cgroups, no task binding (task/none) and
# no accounting (jobacct_gather/none, accounting_storage/none); jobcomp
# records every job's state and exit code in a text file, which this
# script reads instead of sacct. config_overrides makes slurmd announce
# NODE_CPUS whatever the hardware. The scheduler runs every second rather
# than every minute, and kill_invalid_depend cancels the jobs after a
# failed one instead of leaving them pending.
cat >"$SLURM_CONF" <<EOF
ClusterName=macepc-ci
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$W/munge.socket
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/slurmctld.log
SlurmdLogFile=$W/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$W/jobcomp.txt
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
DependencyParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$NODE_CPUS State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

logs() { for f in "$W"/munged.log "$W"/slurmctld.log "$W"/slurmd.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done >&2; }
/usr/sbin/munged --socket="$W/munge.socket" --key-file="$W/munge.key" --pid-file="$W/munged.pid" \
  --log-file="$W/munged.log" --seed-file="$W/munged.seed" --force </dev/null >/dev/null 2>&1 ||
  { logs; die "munged did not start"; }
/usr/sbin/slurmctld -f "$SLURM_CONF" </dev/null >/dev/null 2>&1 || { logs; die "slurmctld did not start"; }
/usr/sbin/slurmd -f "$SLURM_CONF" </dev/null >/dev/null 2>&1 || { logs; die "slurmd did not start"; }
state=
for _ in $(seq 120); do
  state=$(sinfo -h -N -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { logs; die "the node is not idle after 60 s (sinfo: ${state:-no answer})"; }
echo "ci-cluster: $(sinfo --version), $(munged --version 2>&1 | awk '{print $1; exit}')"
echo "ci-cluster: node $host idle, $NODE_CPUS CPUs ($(nproc) cores here), $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME-$t_start}") s after start"

# --- macepc, timed ---------------------------------------------------------
if [ -z "${MACEPC:-}" ]; then
  (cd "$repo" && PATH="$PATH:/usr/local/go/bin" go build -o "$W/macepc" ./cmd/macepc)
  MACEPC=$W/macepc
fi
# The jobs run this wrapper: it records each call's wall and CPU time.
cat >"$W/bin/macepc" <<EOF
#!/usr/bin/env bash
start=\$EPOCHREALTIME
"$MACEPC" "\$@"
st=\$?
end=\$EPOCHREALTIME
times >"$W/times/.\$\$"
{ read -r _; read -r cu cs; } <"$W/times/.\$\$"
rm -f "$W/times/.\$\$"
cpu=\$(awk -v u="\$cu" -v s="\$cs" 'function sec(t) { split(t, a, /[ms]/); return a[1] * 60 + a[2] } BEGIN { printf "%.2f", sec(u) + sec(s) }')
echo "\${TIMING_NAME:-\$SLURM_JOB_NAME} \${SLURM_ARRAY_TASK_ID:--} \$start \$end \$cpu \$st" >"$W/times/\${SLURM_JOB_ID:-x}.\$\$"
exit \$st
EOF
printf '#!/bin/sh\nexec "$@"\n' >"$W/shim/srun"
chmod +x "$W/bin/macepc" "$W/shim/srun"
export MACEPC=$W/bin/macepc SYSTEM SEED RUNS MAX_RUNS

# --- helpers -------------------------------------------------------------
# wait_jobs waits until the queue is empty.
wait_jobs() {
  local i
  for i in $(seq 3600); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    # kill_invalid_depend cancels these, but do not wait on a slurmctld
    # that does not.
    if squeue -h -o %r | grep -q DependencyNeverSatisfied; then
      squeue >&2; echo "ci-cluster: a job failed; cancelling the jobs after it" >&2
      scancel --state=PENDING --user=root
    fi
    sleep 0.5
  done
  squeue >&2; logs; die "jobs still queued after 30 min"
}

# unsharded runs an sbatch script outside Slurm: its srun runs the command
# directly and macepc, seeing no array variables, does not shard.
unsharded() {
  local script=$1 results=$2
  env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_COUNT -u JOB_COMPLETION_INDEX -u MACEPC_SHARD_COUNT \
    PATH="$W/shim:$PATH" RESULTS="$results" SLURM_CPUS_PER_TASK="$CPUS" TIMING_NAME="unsharded-${script%.sbatch}" \
    VARIANT="$LIVE_VARIANT" DEPTH="$DEPTH" SPLIT="$SPLIT" bash "$here/$script" >"$results.$script.out" 2>&1
}

# jobstate NAME prints "JobState ExitCode" of the jobs named NAME, one a line.
# Only the records after line $seen: slurmctld keeps the file open, so it
# is read from where the previous run ended instead of being removed.
jobstate() { tail -n +$((seen + 1)) "$W/jobcomp.txt" 2>/dev/null | sed -n "s/.* Name=$1 JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\).*/\1 \2/p"; }

fail=0
bad() { echo "ci-cluster: FAIL: $*" >&2; fail=1; }

# check_done NAME COUNT WANT: COUNT jobs named NAME ended with WANT ("COMPLETED 0:0").
check_done() {
  local got
  got=$(jobstate "$1" | sort | uniq -c | awk '{$1=$1; print}')
  [ "$got" = "$2 $3" ] || bad "jobs $1: want $2 × $3, got: ${got:-none}"
}

# check_tasks PREFIX N: every task of the array wrote "shard i/N from slurm array".
check_tasks() {
  local i
  for ((i = 0; i < $2; i++)); do
    grep -qs "shard $i/$2 from slurm array" "$1"-*_*.out ||
      bad "no task of $(basename "$1") says it ran shard $i/$2 from the Slurm array"
  done
}

# merged_state EXIT: what Slurm records for a merge that exits EXIT.
merged_state() { if [ "$1" = 0 ]; then echo "COMPLETED 0:0"; else echo "FAILED $1:0"; fi; }

# timing RUN N: one line per phase from the wrapper's records.
timing() {
  local run=$1 n=$2
  cat "$W"/times/* | awk -v run="$run" -v n="$n" -v t0="$3" -v t1="$4" -v l0="$5" -v l1="$6" '
    { name = $1; c[name]++; w = $4 - $3; cpu[name] += $5
      if (!(name in lo) || $3 < lo[name]) lo[name] = $3
      if (!(name in hi) || $4 > hi[name]) hi[name] = $4
      if (!(name in wmin) || w < wmin[name]) wmin[name] = w
      if (!(name in wmax) || w > wmax[name]) wmax[name] = w }
    END {
      split("macepc-train macepc-profile macepc-merge macepc-search macepc-search-merge macepc-liveness macepc-liveness-merge unsharded-profile unsharded-search unsharded-liveness", order, " ")
      for (k = 1; k <= 10; k++) { x = order[k]; if (!(x in c)) continue
        printf "| %d | %s | %d | %.2f–%.2f s | %.2f s | %.2f s |\n", n, x, c[x], wmin[x], wmax[x], hi[x] - lo[x], cpu[x] }
      printf "| %d | pipeline (train → search merge), submit to end | | | %.2f s | |\n", n, t1 - t0
      printf "| %d | liveness (array → merge), submit to end | | | %.2f s | |\n", n, l1 - l0
    }'
}

# --- the runs ------------------------------------------------------------
echo "ci-cluster: workload: $SYSTEM variant $VARIANT seed $SEED, profile $RUNS, search $MAX_RUNS; liveness $LIVE_VARIANT depth $DEPTH split $SPLIT; $CPUS CPU(s) per task"
table=()
for n in "${sizes[@]}"; do
  R=$W/n$n
  mkdir -p "$R/out" "$R/ref"
  rm -f "$W"/times/*
  seen=$(cat "$W/jobcomp.txt" 2>/dev/null | wc -l)
  cd "$R/out"
  t0=$EPOCHREALTIME
  RESULTS=$R/run ARRAY=0-$((n - 1)) CPUS=$CPUS VARIANT=$VARIANT "$here/submit.sh"
  wait_jobs
  t1=$EPOCHREALTIME
  l0=$EPOCHREALTIME
  live=$(RESULTS=$R/live VARIANT=$LIVE_VARIANT DEPTH=$DEPTH SPLIT=$SPLIT sbatch --parsable --array=0-$((n - 1)) --cpus-per-task="$CPUS" "$here/liveness.sbatch")
  RESULTS=$R/live sbatch --parsable --dependency=afterok:"$live" "$here/liveness-merge.sbatch" >/dev/null
  wait_jobs
  l1=$EPOCHREALTIME
  cd "$W"

  # The unsharded run, from the same training (it measures real handler
  # times, so two trainings differ).
  mkdir -p "$R/ref/run"
  cp "$R/run/edd.json" "$R/run/train.json" "$R/ref/run/" 2>/dev/null || bad "the training job wrote no edd.json and train.json"
  unsharded profile.sbatch "$R/ref/run" || bad "the unsharded profile failed: $(tail -n 3 "$R/ref/run.profile.sbatch.out")"
  search_exit=0; unsharded search.sbatch "$R/ref/run" || search_exit=$?
  live_exit=0; unsharded liveness.sbatch "$R/ref/live" || live_exit=$?

  check_done macepc-train 1 "COMPLETED 0:0"
  check_done macepc-profile "$n" "COMPLETED 0:0"
  check_done macepc-merge 1 "COMPLETED 0:0"
  check_done macepc-search "$n" "COMPLETED 0:0"
  check_done macepc-search-merge 1 "$(merged_state $search_exit)"
  check_done macepc-liveness "$n" "COMPLETED 0:0"
  check_done macepc-liveness-merge 1 "$(merged_state $live_exit)"
  check_tasks "$R/out/macepc-profile" "$n"
  check_tasks "$R/out/macepc-search" "$n"
  check_tasks "$R/out/macepc-liveness" "$n"

  # Byte for byte, but for the shard files (the merge's input, which the
  # unsharded run does not write).
  diff -r -x '*.shard-*-of-*.jsonl' "$R/ref/run" "$R/run" >&2 || bad "$n tasks: the merged profile and search differ from the unsharded run"
  # The liveness search: the same, except that the merged liveness.json has
  # no distinct-state count and its report says "not known (merged shards)"
  # where the unsharded one gives the count. Only those are edited out of
  # the unsharded files, which must then equal the merged ones.
  diff -r -x '*.shard-*-of-*.jsonl' -x liveness.json -x summary.md -x report.html "$R/ref/live" "$R/live" >&2 ||
    bad "$n tasks: the merged liveness files differ from the unsharded run"
  sed '/^ *"distinct": [0-9]*,$/d' "$R/ref/live/liveness.json" | cmp - "$R/live/liveness.json" >&2 ||
    bad "$n tasks: the merged liveness.json is not the unsharded one without its distinct-state count"
  for f in summary.md report.html; do
    sed 's/; [0-9]* distinct states;/; not known (merged shards) distinct states;/' "$R/ref/live/$f" | cmp - "$R/live/$f" >&2 ||
      bad "$n tasks: the merged liveness $f is not the unsharded one but for the distinct-state count"
  done
  if [ $fail = 0 ]; then
    echo "ci-cluster: $n tasks: $((3 * n + 4)) jobs ended as expected (search merge exit $search_exit, liveness merge exit $live_exit); merged = unsharded ($(ls "$R/run" | grep -vc shard) files of profile and search, $(ls "$R/live" | grep -vc shard) of liveness)"
  fi
  table+=("$(timing "$R" "$n" "$t0" "$t1" "$l0" "$l1")")
done

echo "| tasks | job | calls | wall per call | span (first start → last end) | CPU, sum |"
echo "|---:|---|---:|---:|---:|---:|"
printf '%s\n' "${table[@]}"
echo "ci-cluster: total $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME-$t_start}") s"
[ $fail = 0 ] || die "failed"
