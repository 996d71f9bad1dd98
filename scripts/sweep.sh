#!/usr/bin/env bash
# sweep.sh SPEC.json [--jobs N] [--out DIR] [--slurm] [--chunk N] [--sbatch-args "..."]
#
# A design-space sweep: expands SPEC (format in scripts/sweep_plan.py) into points, runs lightsim --json on
# each as `lightsim --batch` lists (one process start per list, a forked child per point, sim/cli/batch.h):
# locally N lists side by side, default one per core, or one list per task of a Slurm job array with
# --slurm; and merges the results into DIR/sweep.csv and DIR/sweep.h5 (scripts/merge_sweep.py). DIR
# defaults to sweeps/<spec name>. Graphs from lightsim-graph are generated with GNU parallel.
#
# Resumable: one result per point, written atomically (DIR/results/KEY.json); a re-run skips points whose
# result exists and parses and redoes the rest, so a killed sweep is finished by running it again.
#
# --slurm: writes DIR/slurm/array.sbatch (sbatch --array=0-K, one task per --chunk points, default 8) and
# DIR/slurm/merge.sbatch, submits both (the merge depends on the array: afterany) and waits for them
# (scripts/sweep_slurm_wait.py): a long queue is waited out, but a task that can never run (held, its launch
# failed, a dependency never satisfied, nodes or partition down for SWEEP_SLURM_DOWN_S, default 600 s) is
# cancelled, the results that exist are merged, and every task that did not complete is reported with its
# points and why (exit 1). Polls every SWEEP_SLURM_POLL_S seconds (default 10).
# --sbatch-args adds options to both submissions (e.g. "--partition=short --time=01:00:00"). Graphs from
# lightsim-graph are generated locally before the submission.
#
# LIGHTSIM / LIGHTSIM_GRAPH name the executables (default: build/sim/lightsim, build/sim/lightsim-graph
# beside this script). Exit status: 0 when every point has a result, 1 when some failed (the table holds
# the others; DIR/logs/KEY.err says why), 2 on a bad spec or usage.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
python=/usr/bin/python3

usage() { sed -n '2,2s/^# //p' "${BASH_SOURCE[0]}" >&2; exit 2; }

spec="" out="" jobs=$(nproc) slurm=0 chunk=8 sbatch_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --slurm) slurm=1; shift ;;
    --chunk) chunk=${2:?}; shift 2 ;;
    --sbatch-args) sbatch_args=${2-}; shift 2 ;;
    -h|--help) script_help ;;
    -*) echo "sweep: unknown option '$1'" >&2; usage ;;
    *) [ -z "$spec" ] || usage; spec=$1; shift ;;
  esac
done
[ -n "$spec" ] || usage
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "sweep: --jobs needs a positive integer, got '$jobs'" >&2; exit 2; }
[[ "$chunk" =~ ^[1-9][0-9]*$ ]] || { echo "sweep: --chunk needs a positive integer, got '$chunk'" >&2; exit 2; }
[ -n "$out" ] || out="sweeps/$(basename "${spec%.json}")"
mkdir -p "$out"
out=$(cd "$out" && pwd)

export LIGHTSIM=${LIGHTSIM:-$root/build/sim/lightsim}
export LIGHTSIM_GRAPH=${LIGHTSIM_GRAPH:-$root/build/sim/lightsim-graph}
[ -x "$LIGHTSIM" ] || { echo "sweep: lightsim not found at $LIGHTSIM (build it, or set LIGHTSIM)" >&2; exit 2; }

read -r total todo graphs < <("$python" "$here/sweep_plan.py" "$spec" "$out" || echo "error")
[ "$total" != error ] || exit 2
echo "sweep: $total points in $out: $((total - todo)) done, $todo to run" >&2

parallel_run() { # parallel_run LIST MODE: runs sweep_point.sh MODE on every key in LIST
  local bar=()
  [ -t 2 ] && bar=(--bar)
  parallel --jobs "$jobs" "${bar[@]}" --halt never "$here/sweep_point.sh" "$2" "$out" {} :::: "$1"
}

run_points() { # run_points: todo.batch's points dealt into $jobs lists, run side by side (lightsim --batch)
  local pids=() status=0
  rm -f "$out"/batch.*
  awk -v jobs="$jobs" -v prefix="$out/batch." '{ print > (prefix ((NR - 1) % jobs)) }' "$out/todo.batch"
  for list in "$out"/batch.*; do
    "$LIGHTSIM" --batch "$list" >> "$out/executed.log" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  rm -f "$out"/batch.*
  return $status
}

failed=0
if [ "$graphs" -gt 0 ]; then
  [ -x "$LIGHTSIM_GRAPH" ] || { echo "sweep: lightsim-graph not found at $LIGHTSIM_GRAPH" >&2; exit 2; }
  echo "sweep: generating $graphs graphs" >&2
  parallel_run "$out/graphs.todo" graph || failed=1
fi

if [ "$todo" -gt 0 ] && [ "$slurm" -eq 0 ]; then
  run_points || failed=1
elif [ "$todo" -gt 0 ]; then
  command -v sbatch > /dev/null || { echo "sweep: --slurm needs sbatch (Slurm's client) on PATH" >&2; exit 2; }
  mkdir -p "$out/slurm"
  tasks=$(( (todo + chunk - 1) / chunk ))
  q() { printf '%q' "$1"; }
  cat > "$out/slurm/array.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=lightsim-sweep
#SBATCH --array=0-$((tasks - 1))
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=$out/slurm/task-%A_%a.out
# Array task i runs points i*$chunk+1 .. (i+1)*$chunk of $out/todo.batch (written by sweep_plan.py) as one
# lightsim --batch list (sim/cli/batch.h: a point whose result exists is skipped; exit 1 if one fails).
list=$(q "$out/slurm")/batch.\$SLURM_ARRAY_TASK_ID
sed -n "\$((SLURM_ARRAY_TASK_ID * $chunk + 1)),\$(((SLURM_ARRAY_TASK_ID + 1) * $chunk))p" $(q "$out/todo.batch") > "\$list"
exec $(q "$LIGHTSIM") --batch "\$list" >> $(q "$out/executed.log")
EOF
  cat > "$out/slurm/merge.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=lightsim-sweep-merge
#SBATCH --ntasks=1
#SBATCH --output=$out/slurm/merge-%j.out
exec $python $(q "$here/merge_sweep.py") $(q "$out")
EOF
  # shellcheck disable=SC2086  # sbatch_args is a list of options
  array_id=$(sbatch --parsable $sbatch_args "$out/slurm/array.sbatch")
  array_id=${array_id%%;*}
  # shellcheck disable=SC2086
  merge_id=$(sbatch --parsable $sbatch_args --dependency="afterany:$array_id" "$out/slurm/merge.sbatch")
  merge_id=${merge_id%%;*}
  echo "sweep: submitted job array $array_id ($tasks tasks of up to $chunk points) and merge job $merge_id;" \
       "waiting" >&2
  "$python" "$here/sweep_slurm_wait.py" "$out" "$array_id" "$merge_id" "$chunk" || failed=1
fi

if [ "$slurm" -eq 0 ] || [ "$todo" -eq 0 ]; then
  "$python" "$here/merge_sweep.py" "$out" || failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "sweep: some points have no result (see $out/logs/); run again to retry them" >&2
  exit 1
fi
