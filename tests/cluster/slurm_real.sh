#!/usr/bin/env bash
# The real-Slurm test of `--slurm` (issue 26), run by CTest (label slow): installs Debian's
# slurm-wlm and munge when missing, starts a one-node cluster on the loopback address (munged,
# slurmctld, slurmd, all in a temporary folder), submits a tiny seed-group job (2 variants x 2
# seeds) with `proteus train --slurm`, kills one task mid-run, checks that the merge names it
# interrupted, resubmits the same command and checks that every run, seed group and figure is
# there. It stops the daemons it started, by their pids. Exit 77 (CTest: skipped) only when Slurm
# cannot be installed or started for want of root; any other problem fails.
#   usage: slurm_real.sh PROTEUS_BIN SOURCE_DIR
set -euo pipefail
proteus=$(realpath "$1")
source_dir=$(realpath "$2")
started=$(date +%s)

say() { echo "slurm-test [$(($(date +%s) - started))s]: $*"; }
skip() { echo "slurm-test: SKIPPED: $*"; exit 77; }
die() { echo "slurm-test: FAILED: $*" >&2; exit 1; }

# ---- Slurm and munge, installed when missing -----------------------------------------------------
missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || skip "needs root to install ${missing[*]}"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null 2>&1 &&
      apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } ||
    skip "cannot install ${missing[*]} with apt-get (no network or no package source)"
fi
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"
[ -r /etc/munge/munge.key ] || die "/etc/munge/munge.key is missing (the munge package creates it)"

# ---- a one-node cluster in a temporary folder ----------------------------------------------------
work=$(mktemp -d /tmp/proteus-slurm-test-XXXXXX)
chmod 755 "$work"
daemons=()  # pids of what this test started, stopped by pid at exit
stop_daemons() {
  local pid
  for pid in "${daemons[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${daemons[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}
on_exit() {
  local status=$?
  # Jobs still in this cluster (a failure mid-way) are cancelled first, so no task outlives the test.
  if [ ${#daemons[@]} -gt 1 ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    scancel --full $(squeue -h -o %A 2>/dev/null | sort -u) 2>/dev/null || true
    for _ in $(seq 1 100); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.1; done
  fi
  stop_daemons
  if [ $status -ne 0 ] && [ $status -ne 77 ]; then
    for log in "$work"/slurmctld.log "$work"/slurmd.log; do
      [ -f "$log" ] && { echo "--- tail of $log"; tail -n 20 "$log"; }
    done
    for log in "$work"/runs/jobs/*/logs/*.out; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
    done
  fi
  rm -rf "$work"
  exit $status
}
trap on_exit EXIT

# munged runs as the munge user on its own socket, so a munged the machine already runs is untouched.
mkdir -p "$work/munge"
chown munge:munge "$work/munge"
chmod 755 "$work/munge"  # munged: the socket's folder must be searchable by all
socket="$work/munge/munge.socket"
runuser -u munge -- /usr/sbin/munged --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" ||
  die "munged did not start"
for _ in $(seq 1 50); do [ -s "$work/munge/munged.pid" ] && break; sleep 0.1; done
daemons+=("$(cat "$work/munge/munged.pid")")
munge -S "$socket" -n | unmunge -S "$socket" >/dev/null || die "munge cannot encode and decode a credential"

host=$(hostname -s)
cpus=$(nproc)
port=$((20000 + RANDOM % 20000))
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=proteus-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
DependencyParameters=kill_invalid_depend
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
daemons+=($!)
ready=0
for _ in $(seq 1 300); do
  if sinfo -h -o %T 2>/dev/null | grep -q '^idle'; then ready=1; break; fi
  sleep 0.1
done
[ $ready -eq 1 ] || die "the node never became idle (sinfo: $(sinfo -h -o %T 2>&1 || true))"
say "cluster up: node $host, $cpus CPUs, port $port"

# ---- the job: 2 variants x 2 seeds, a tiny model, a checkpoint every few steps --------------------
cat >"$work/tiny.json" <<EOF
{
  "name": "tiny", "threads": 1,
  "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
  "data": {"seq_len": 16, "batch": 2, "text": {"path": "$source_dir/assets/corpus/brown"}},
  "train": {"steps": 1500, "warmup": 2, "eval_every": 500, "log_every": 10, "checkpoint_every": 20, "val_batches": 1},
  "eval": {"per_position": {"seq_len": 32, "sequences": 4}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}},
  "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}}, {"name": "proteus", "set": {"model.mixer.E": 2}}],
  "seeds": [1, 2]
}
EOF
cd "$work"
submit() {
  "$proteus" train tiny.json --slurm --cpus-per-task 1 --runs-dir runs --time 10 >"$work/submit.out" 2>&1 ||
    { cat "$work/submit.out"; die "proteus train --slurm failed"; }
  cat "$work/submit.out"
  array=$(sed -n 's/^array job \([0-9]*\) .*/\1/p' "$work/submit.out")
  merge=$(sed -n 's/^merge job \([0-9]*\) .*/\1/p' "$work/submit.out")
  [ -n "$array" ] && [ -n "$merge" ] || die "no job ids in the output of --slurm"
}
# Waits until Slurm lists none of the job's ids (the merge ran after the array).
wait_for_job() {
  for _ in $(seq 1 1200); do
    [ -z "$(squeue -h -j "$array,$merge" -o %i 2>/dev/null)" ] && return 0
    sleep 0.1
  done
  "$proteus" jobs runs || true
  die "job $array / merge $merge still queued after 120 s"
}
job=runs/jobs/tiny
expect() { grep -q -- "$2" "$1" || { echo "--- $1"; cat "$1"; die "$1 does not say: $2"; }; }

submit
[ -f $job/array.sbatch ] && [ -f $job/merge.sbatch ] && [ -f $job/runs.json ] || die "the job folder is incomplete"
expect $job/array.sbatch "--array=0-3"
expect $job/array.sbatch "job-task $work/$job\\|job-task '$work/$job'"

# Kill task 1 (tiny-baseline-s2) mid-run: SIGKILL, as an out-of-memory killer or a dead node would.
# It is stopped (SIGSTOP) the moment it has a checkpoint, so the checks below see it mid-run.
run=runs/tiny-baseline-s2
killed=0
for _ in $(seq 1 1500); do
  pid=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' $job/tasks/1/task.json 2>/dev/null || true)
  step=$(sed -n 's/.*"step": *\([0-9]*\).*/\1/p' $run/status.json 2>/dev/null || true)
  if [ -n "$pid" ] && [ -n "$step" ] && [ "$step" -ge 20 ] && [ -f $run/checkpoint.safetensors ]; then
    kill -STOP "$pid"
    grep -q '"running"' $run/status.json || die "$run finished before it could be stopped: raise train.steps"
    # Slurm's own state beside the run folder's, while the task is in the middle of its run.
    "$proteus" jobs runs >"$work/jobs.out" 2>&1 || { cat "$work/jobs.out"; die "proteus jobs failed"; }
    expect "$work/jobs.out" "tiny-baseline-s2 *running .*\\[slurm RUNNING\\]"
    cat "$work/jobs.out"
    kill -KILL "$pid"
    killed=1
    say "killed task 1 (pid $pid) at step $step"
    break
  fi
  sleep 0.02
done
[ $killed -eq 1 ] || die "task 1 never reached step 20 with a checkpoint"
wait_for_job
say "first submission done"

"$proteus" jobs runs >"$work/jobs.out" 2>&1 || { cat "$work/jobs.out"; die "proteus jobs failed"; }
cat "$work/jobs.out"
expect "$work/jobs.out" "tiny-baseline-s2 *interrupted"
[ "$(grep -c ' finished ' "$work/jobs.out" || true)" -ge 3 ] || die "proteus jobs shows fewer than 3 finished runs"
expect $job/summary.json '"interrupted": 1'
expect $job/summary.json '"finished": 3'
[ -f runs/tiny-baseline-s2/checkpoint.safetensors ] || die "the killed run has no checkpoint"

# The same command again: the finished runs are skipped, the killed one resumes and finishes.
submit
wait_for_job
say "second submission done"
for i in 0 2 3; do expect $job/tasks/$i/task.json '"skipped"'; done
expect $job/tasks/1/task.json '"finished"'
expect $run/status.json '"step": 1500'
log1=$(ls $job/logs/task-"${array}"_1.out)
expect "$log1" "resume: stopped at step"
for r in tiny-baseline-s1 tiny-baseline-s2 tiny-proteus-s1 tiny-proteus-s2; do
  expect runs/$r/status.json '"finished"'
  [ -f runs/$r/per_position.json ] || die "runs/$r has no per_position.json"
done
expect $job/summary.json '"finished": 4'
for g in tiny-baseline tiny-proteus; do
  [ -f runs/groups/$g/group.json ] || die "no seed-group summary for $g"
  expect runs/groups/$g/group.json '"tiny-[a-z]*-s2"'
done
expect runs/groups/tiny-proteus/group.json '"baseline": "tiny-baseline"'
[ -f $job/figures/per_position.png ] && [ -f $job/figures/per_position.csv ] || die "no per_position figure in $job/figures"
"$proteus" jobs runs >"$work/jobs.out" 2>&1
[ "$(grep -c ' finished ' "$work/jobs.out" || true)" -eq 4 ] || { cat "$work/jobs.out"; die "proteus jobs does not show 4 finished runs"; }
"$proteus" groups runs >"$work/groups.out" 2>&1 || { cat "$work/groups.out"; die "proteus groups failed"; }
expect "$work/groups.out" "2 seed groups"
say "passed"
