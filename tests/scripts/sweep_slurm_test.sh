#!/usr/bin/env bash
# sweep_slurm_test.sh SRC LIGHTSIM WORK: the --slurm path on a real single-node Slurm cluster that this
# script starts on localhost (munged, slurmctld, slurmd from Debian's munge and slurm-wlm, private
# config, key, state and ports in a private directory) and stops again. The 12-point sweep as a job
# array of 3 tasks (4 points each) must give the same table as the local GNU parallel run; with 2
# results deleted, a re-run submits one task that runs only those 2. slurmd must run as root: other users get exit 77 (skipped).
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
export LIGHTSIM
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a private slurmd needs root"; exit 77; }
for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" > /dev/null || fail "$tool not installed (scripts/setup.sh installs munge and slurm-wlm)"
done
rm -rf "$WORK" && mkdir -p "$WORK"
# The cluster's files live under a short path: slurmstepd's and munged's Unix sockets must fit in
# sun_path (108 bytes), which a build tree's test directory can exceed. Its logs are copied to WORK.
cluster=$(mktemp -d /tmp/lightsim-slurm.XXXXXX)
chmod 755 "$cluster" # munged wants every directory above its socket searchable
mkdir -p "$cluster"/{state,spool,log,munge}
chmod 711 "$cluster/munge"

stop_cluster() {
  for f in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 1 # let the daemons exit before their directory goes
  cp -r "$cluster/log" "$WORK/cluster-log" 2>/dev/null || true
  rm -rf "$cluster"
}
trap stop_cluster EXIT

# What the cluster says about itself, for a failure in CI to explain itself.
cluster_report() {
  echo "-- squeue:"; squeue -h -o '%i %T %r' 2>&1 || true
  echo "-- sinfo -R:"; sinfo -R 2>&1 || true
  for f in "$cluster"/log/*.log; do echo "-- tail $f:"; tail -8 "$f"; done
}
# A sweep through the cluster, bounded: a job that can never start fails the test with the cluster's
# own account of why, not a ctest timeout.
slurm_sweep() {
  timeout 120 "$SRC/scripts/sweep.sh" "$WORK/spec.json" --out "$WORK/slurm" --slurm --chunk 4 ||
    { cluster_report >&2; fail "sweep --slurm did not finish within 120 s"; }
}

dd if=/dev/urandom of="$cluster/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$cluster/munge/munge.key"
munged --key-file="$cluster/munge/munge.key" --socket="$cluster/munge/socket" \
  --pid-file="$cluster/munge/munged.pid" --log-file="$cluster/munge/munged.log" --seed-file="$cluster/munge/seed"

port=$((20000 + ($$ % 20000)))
cat > "$cluster/slurm.conf" <<CONF
ClusterName=lightsimtest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$cluster/munge/socket
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/log/slurmctld.log
SlurmdLogFile=$cluster/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$cluster/slurm.conf"
slurmctld -i
slurmd -N localhost
for _ in $(seq 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %t | grep -q idle || fail "the single-node cluster did not come up: $(tail -3 "$cluster/log/"*.log)"
echo "cluster up: $(sinfo -h -o '%P %D %t %N')"

make_spec "$WORK/spec.json"
"$SRC/scripts/sweep.sh" "$WORK/spec.json" --out "$WORK/local" --jobs 2

echo "== --slurm"
slurm_sweep
check "array of 3 tasks" grep -q '^#SBATCH --array=0-2$' "$WORK/slurm/slurm/array.sbatch"
check "3 task logs" [ "$(ls "$WORK/slurm/slurm"/task-*.out | wc -l)" -eq 3 ]
check "12 executions" [ "$(count_executed "$WORK/slurm")" -eq 12 ]
check "merged by the dependent merge job" grep -q '12 of 12 points' "$WORK/slurm/slurm"/merge-*.out
check "Slurm table equals the local one" cmp "$WORK/local/sweep.csv" "$WORK/slurm/sweep.csv"
check "Slurm HDF5 equals the local one" same_h5 "$WORK/local/sweep.h5" "$WORK/slurm/sweep.h5"
check "sbatch --test-only accepts the generated script" sbatch --test-only "$WORK/slurm/slurm/array.sbatch"

echo "== --slurm resume"
rm "$WORK/slurm/results/$(sed -n 3p "$WORK/slurm/points.txt").json"
rm "$WORK/slurm/results/$(sed -n 10p "$WORK/slurm/points.txt").json"
slurm_sweep
check "array of 1 task" grep -q '^#SBATCH --array=0-0$' "$WORK/slurm/slurm/array.sbatch"
check "only the 2 missing points ran" [ "$(count_executed "$WORK/slurm")" -eq 14 ]
check "table equal after resume" cmp "$WORK/local/sweep.csv" "$WORK/slurm/sweep.csv"
echo PASS
