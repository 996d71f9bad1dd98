#!/usr/bin/env bash
# bench_sweep.sh [--points N] [--repeat R] [--graph GRAPH] [--hw CONFIG] [--jobs J] [--keep DIR]
#
# Throughput of scripts/sweep.sh: N points (default 1000) of one graph (default GPT-2 prefill from
# $LIGHTSIM_SHARED_DIR/models or ../shared/models) across configs (the photonic card's PCIe lanes and
# generation x CPU cores), run with --jobs 1 and with --jobs J (default: all cores), each end to end (plan,
# points, merge) into a fresh directory. The two alternate R times (default 1) so that a change in the
# machine's load hits both alike; prints points/s of each run, and per pair and over all pairs the
# speed-up and the parallel efficiency (speed-up / J; the goal is >= 90%). Checks that every run merged the
# same table. On a shared machine, compare the load averages printed with the number of cores.
# LIGHTSIM names the executable (default build/sim/lightsim).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

points=1000 repeat=1 jobs=$(nproc) keep=""
graph="${LIGHTSIM_SHARED_DIR:-$root/../shared}/models/gpt2_prefill_5.json" hw="$root/configs/photonic.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --points) points=${2:?}; shift 2 ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --graph) graph=${2:?}; shift 2 ;;
    --hw) hw=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h|--help) script_help ;;
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

echo "bench_sweep: $total points of $(basename "$graph") on $(basename "$hw"), $repeat x (1 job, $jobs jobs)"
sum1=0 sumn=0
for i in $(seq "$repeat"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  t1=$(run 1 "$work/jobs1")
  tn=$(run "$jobs" "$work/jobsN")
  for d in jobs1 jobsN; do
    cmp -s "$work/jobs1/sweep.csv" "$work/$d/sweep.csv" || { echo "bench_sweep: runs merged different tables" >&2; exit 1; }
  done
  awk -v n="$total" -v t1="$t1" -v tn="$tn" -v j="$jobs" -v i="$i" -v load="$load" 'BEGIN {
    printf "pair %d (load %s): 1 job %7.2f s %7.1f points/s | %d jobs %7.2f s %7.1f points/s | efficiency %.0f%%\n",
           i, load, t1, n / t1, j, tn, n / tn, 100 * t1 / tn / j }'
  sum1=$(awk -v a="$sum1" -v b="$t1" 'BEGIN { print a + b }')
  sumn=$(awk -v a="$sumn" -v b="$tn" 'BEGIN { print a + b }')
done
awk -v n="$((total * repeat))" -v t1="$sum1" -v tn="$sumn" -v j="$jobs" 'BEGIN {
  printf "all pairs: 1 job %.1f points/s, %d jobs %.1f points/s: speed-up %.2f, parallel efficiency %.0f%% (goal >= 90%%)\n",
         n / t1, j, n / tn, t1 / tn, 100 * t1 / tn / j }'
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
