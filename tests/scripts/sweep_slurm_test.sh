#!/usr/bin/env bash
# sweep_slurm_test.sh SRC LIGHTSIM WORK: the --slurm path on a real single-node Slurm cluster that this
# script starts on localhost (tests/scripts/slurm_cluster.sh) and stops again. The 12-point sweep as a job
# array of 3 tasks (4 points each) must give the same table as the local GNU parallel run; with 2
# results deleted, a re-run submits one task that runs only those 2. Then the tasks that can never run:
# a task held with `scontrol hold` while the others wait for their begin time (a pending reason that
# passes), a task that failed, and a drained node (given up after SWEEP_SLURM_DOWN_S, but waited out when
# it comes back sooner): each sweep ends within a bounded time, names the task, its points and why, and
# exits 1, leaving no job behind. slurmd must run as root: other users get exit 77 (skipped).
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
export LIGHTSIM SWEEP_SLURM_POLL_S=1
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a private slurmd needs root"; exit 77; }
for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" > /dev/null || fail "$tool not installed (scripts/setup.sh installs munge and slurm-wlm)"
done
rm -rf "$WORK" && mkdir -p "$WORK"
source "$SRC/tests/scripts/slurm_cluster.sh"
# A sweep through the cluster, bounded: a job that can never start fails the test with the cluster's
# own account of why, not a ctest timeout.
slurm_sweep() {
  timeout 120 "$SRC/scripts/sweep.sh" "$WORK/spec.json" --out "$WORK/slurm" --slurm --chunk 4 ||
    { cluster_report >&2; fail "sweep --slurm did not finish within 120 s"; }
}
start_cluster "$WORK"

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

# bounded_sweep NAME SPEC [sweep.sh options...]: runs a sweep into WORK/NAME in the background, its
# stderr in WORK/NAME.err; `wait_sweep` collects its exit status into $status.
bounded_sweep() {
  local name=$1 spec=$2
  shift 2
  timeout 120 "$SRC/scripts/sweep.sh" "$spec" --out "$WORK/$name" --slurm "$@" 2> "$WORK/$name.err" &
  sweep_pid=$!
}
wait_sweep() {
  status=0
  wait "$sweep_pid" || status=$?
  [ "$status" -ne 124 ] || { cluster_report >&2; cat "$WORK/$1.err" >&2; fail "$1: sweep still waiting after 120 s"; }
}
no_jobs_left() { [ -z "$(squeue -h)" ]; }
array_of() { # the job id of the sweep's array once it is queued
  local id=""
  for _ in $(seq 100); do
    id=$(squeue -h -o '%F %j' | awk '$2 == "lightsim-sweep" { print $1; exit }')
    [ -n "$id" ] && break
    sleep 0.1
  done
  echo "$id"
}

echo "== a held task"
bounded_sweep held "$WORK/spec.json" --chunk 4 --sbatch-args "--begin=now+5"
array=$(array_of)
[ -n "$array" ] || fail "the held test's array never showed up in squeue"
scontrol hold "${array}_1"
wait_sweep held
check "held: exit 1" [ "$status" -eq 1 ]
check "held: names the task, its points and why" \
  grep -q "task ${array}_1 (points 4, 5, 6, 7) can never run: held by an administrator (JobHeldAdmin)" "$WORK/held.err"
check "held: the other tasks waited for their begin time and ran" [ "$(csv_rows "$WORK/held/sweep.csv")" -eq 8 ]
check "held: no job left" no_jobs_left

echo "== a failed task"
cat > "$WORK/failing.json" <<JSON
{"hw": "$SRC/configs/photonic.json", "graphs": ["$SRC/tests/data/mlp2.json"],
 "set": {"links.pcie-phu.lanes": [1, 4, -3, 16]}}
JSON
bounded_sweep failed "$WORK/failing.json" --chunk 2
wait_sweep failed
check "failed: exit 1" [ "$status" -eq 1 ]
check "failed: names the task and its points" grep -Eq "task [0-9]+_1 \(points 2, 3\) ended FAILED" "$WORK/failed.err"
check "failed: says why the point failed" grep -q "point 2: lightsim: error: --set links.pcie-phu.lanes=-3" "$WORK/failed.err"
check "failed: the other points are merged" [ "$(csv_rows "$WORK/failed/sweep.csv")" -eq 3 ]

echo "== a drained node"
scontrol update nodename=localhost state=drain reason=lightsim-test
SWEEP_SLURM_DOWN_S=3 bounded_sweep drained "$WORK/spec.json" --chunk 6
wait_sweep drained
check "drained: exit 1" [ "$status" -eq 1 ]
check "drained: says the node is out of service" \
  [ "$(grep -c "can never run: its nodes or partition have been out of service" "$WORK/drained.err")" -eq 2 ]
check "drained: no job left" no_jobs_left
echo "== a node drained for less than SWEEP_SLURM_DOWN_S is waited out"
SWEEP_SLURM_DOWN_S=60 bounded_sweep back "$WORK/spec.json" --chunk 6
sleep 3
scontrol update nodename=localhost state=resume
wait_sweep back
check "back: exit 0" [ "$status" -eq 0 ]
check "back: table equal to the local one" cmp "$WORK/local/sweep.csv" "$WORK/back/sweep.csv"
echo PASS
