#!/usr/bin/env bash
# bench_sweep.sh [--points N] [--graph GRAPH] [--hw CONFIG] [--jobs J] [--keep DIR]
#
# Throughput of scripts/sweep.sh: N points (default 1000) of one graph (default GPT-2 prefill from
# $LIGHTSIM_SHARED_DIR/models or ../shared/models) across configs (PCIe lanes and generation of both cards' links x CPU cores), run once
# with --jobs 1 and once with --jobs J (default: all cores), each end to end (plan, points, merge) into a
# fresh directory. Prints points/s for both, the speed-up and the parallel efficiency
# (speed-up / J; the goal is >= 90%), and checks that both runs merged the same table.
# LIGHTSIM names the executable (default build/sim/lightsim).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

points=1000 jobs=$(nproc) keep=""
graph="${LIGHTSIM_SHARED_DIR:-$root/../shared}/models/gpt2_prefill_5.json" hw="$root/configs/photonic.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --points) points=${2:?}; shift 2 ;;
    --graph) graph=${2:?}; shift 2 ;;
    --hw) hw=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "bench_sweep: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -f "$graph" ] || { echo "bench_sweep: no graph at $graph (give --graph)" >&2; exit 2; }
graph=$(cd "$(dirname "$graph")" && pwd)/$(basename "$graph")
hw=$(cd "$(dirname "$hw")" && pwd)/$(basename "$hw")

work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

# 5 lane counts x 3 generations x k core counts >= N points; the spec keeps the first N by trimming cores.
k=$(( (points + 14) / 15 ))
cores=$(seq -s, 1 "$k")
cat > "$work/spec.json" <<JSON
{"hw": "$hw", "graphs": ["$graph"],
 "set": {"links.pcie-phu.lanes": [1, 2, 4, 8, 16], "links.pcie-phu.generation": [3, 4, 5],
         "cpu0.cores": [$cores]}}
JSON
total=$((15 * k))

run() { # run JOBS DIR: prints wall seconds
  local start end
  rm -rf "$2"
  start=$(date +%s%N)
  "$here/sweep.sh" "$work/spec.json" --out "$2" --jobs "$1" 2> "$2.log" || { cat "$2.log" >&2; exit 1; }
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 ))e-3"
}

echo "bench_sweep: $total points of $(basename "$graph") on $(basename "$hw"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
t1=$(run 1 "$work/jobs1")
tn=$(run "$jobs" "$work/jobsN")
cmp -s "$work/jobs1/sweep.csv" "$work/jobsN/sweep.csv" || { echo "bench_sweep: the two runs merged different tables" >&2; exit 1; }
awk -v n="$total" -v t1="$t1" -v tn="$tn" -v j="$jobs" 'BEGIN {
  r1 = n / t1; rn = n / tn
  printf "1 job:   %8.2f s  %8.1f points/s\n", t1, r1
  printf "%d jobs: %8.2f s  %8.1f points/s\n", j, tn, rn
  printf "speed-up %.2f on %d jobs, parallel efficiency %.0f%% (goal >= 90%%)\n", rn / r1, j, 100 * rn / r1 / j
}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
