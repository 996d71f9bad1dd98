# A private single-node Slurm cluster on localhost for the --slurm tests (sourced): munged, slurmctld and
# slurmd from Debian's munge and slurm-wlm, with config, key, state and ports in a private directory.
#   start_cluster WORK   starts it (exports SLURM_CONF; logs are copied to WORK/cluster-log on stop)
#   stop_cluster         stops it and removes its directory (start_cluster traps EXIT to call it)
#   cluster_report       what the cluster says about itself (queue, node reasons, log tails)
# slurmd must run as root.

start_cluster() {
  cluster_work=$1
  # The cluster's files live under a short path: slurmstepd's and munged's Unix sockets must fit in
  # sun_path (108 bytes), which a build tree's test directory can exceed.
  cluster=$(mktemp -d /tmp/lightsim-slurm.XXXXXX)
  chmod 755 "$cluster" # munged wants every directory above its socket searchable
  mkdir -p "$cluster"/{state,spool,log,munge}
  chmod 711 "$cluster/munge"
  trap stop_cluster EXIT
  dd if=/dev/urandom of="$cluster/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$cluster/munge/munge.key"
  munged --key-file="$cluster/munge/munge.key" --socket="$cluster/munge/socket" \
    --pid-file="$cluster/munge/munged.pid" --log-file="$cluster/munge/munged.log" --seed-file="$cluster/munge/seed"
  local port=$((20000 + ($$ % 20000)))
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
}

stop_cluster() {
  for f in "$cluster/slurmd.pid" "$cluster/slurmctld.pid" "$cluster/munge/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 1 # let the daemons exit before their directory goes
  cp -r "$cluster/log" "$cluster_work/cluster-log" 2>/dev/null || true
  rm -rf "$cluster"
}

cluster_report() {
  echo "-- squeue:"; squeue -h -o '%i %T %r' 2>&1 || true
  echo "-- sinfo -R:"; sinfo -R 2>&1 || true
  for f in "$cluster"/log/*.log; do echo "-- tail $f:"; tail -8 "$f"; done
}
