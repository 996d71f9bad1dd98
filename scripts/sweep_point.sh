#!/usr/bin/env bash
# sweep_point.sh point DIR KEY   runs one sweep point: lightsim with DIR/points/KEY.args (which end in
#                                --json), result to DIR/results/KEY.json, stderr to DIR/logs/KEY.err
# sweep_point.sh graph DIR GKEY  generates one graph: lightsim-graph with DIR/graphs/GKEY.args -> GKEY.json
# Used by scripts/sweep.sh for the graphs (GNU parallel); the points run as `lightsim --batch` lists
# (sim/cli/batch.h: the same files and journal), locally and in Slurm array tasks; `point` reruns one by
# hand. Writes to a temporary file and renames it when the program succeeded, so a killed or failed run
# leaves no result. A point whose result exists is skipped. Appends "MODE KEY" to DIR/executed.log for
# every execution.
# LIGHTSIM / LIGHTSIM_GRAPH name the executables.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
help_if_asked "$@"
mode=$1 dir=$2 key=$3

case "$mode" in
  point) args_file="$dir/points/$key.args" out="$dir/results/$key.json" exe=${LIGHTSIM:?} ;;
  graph) args_file="$dir/graphs/$key.args" out="$dir/graphs/$key.json" exe=${LIGHTSIM_GRAPH:?} ;;
  *) echo "sweep_point.sh: unknown mode '$mode' (point|graph)" >&2; exit 2 ;;
esac
[ -e "$out" ] && exit 0
mapfile -t args < "$args_file"
tmp="$out.tmp.$$"
echo "$mode $key" >> "$dir/executed.log"
if [ "$mode" = point ]; then
  "$exe" "${args[@]}" > "$tmp" 2> "$dir/logs/$key.err"
else
  "$exe" "${args[@]}" -o "$tmp" > /dev/null 2> "$dir/logs/graph-$key.err"
fi
status=$?
if [ $status -ne 0 ]; then
  rm -f "$tmp"
  echo "sweep: $mode $key failed (exit $status): $(head -c 300 "$dir/logs/"*"$key.err" 2>/dev/null)" >&2
  exit $status
fi
mv -f "$tmp" "$out"
