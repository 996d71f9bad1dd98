#!/usr/bin/env bash
# bench_sweep_test.sh SRC LIGHTSIM WORK: a short run of the sweep benchmark (scripts/bench_sweep.sh, 45
# points: the photonic card's 5 lane counts x 3 PCIe generations x cpu0.cores 1-3, below the config's
# intra_op_threads 4, which were once refused) on a small graph: every point has a result in both runs (1 job
# and 2 jobs), the tables agree, and the throughput and efficiency figures are printed.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
export LIGHTSIM
rm -rf "$WORK" && mkdir -p "$WORK"

out=$("$SRC/scripts/bench_sweep.sh" --points 45 --jobs 2 --graph "$SRC/tests/data/transformer_block.json" \
  --keep "$WORK/bench") || fail "bench_sweep.sh exited $?"
echo "$out"
check "45 points announced" grep -q '^bench_sweep: 45 points of transformer_block.json on photonic.json' <<< "$out"
for d in jobs1 jobsN; do
  check "$d: 45 rows" [ "$(csv_rows "$WORK/bench/$d/sweep.csv")" -eq 45 ]
  check "$d: no failed point" [ -z "$(find "$WORK/bench/$d/logs" -name '*.err' -size +0 2>/dev/null)" ]
done
# The cores axis reached 1, 2 and 3 (the header names the column; every value of it is in the table).
cores=$($PY - "$WORK/bench/jobs1/sweep.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(" ".join(sorted({r["cpu0.cores"] for r in rows})))
PYEOF
)
check "cores 1 2 3 swept (got '$cores')" [ "$cores" = "1 2 3" ]
figure='[0-9]+\.[0-9]+ points/s'
check "the pair line has both throughputs" grep -Eq "^pair 1 \(load .*\): 1 job +[0-9.]+ s +$figure \| 2 jobs +[0-9.]+ s +$figure \| efficiency [0-9]+%$" <<< "$out"
check "the summary line" grep -Eq "^all pairs: 1 job $figure, 2 jobs $figure: speed-up [0-9]+\.[0-9]+, parallel efficiency [0-9]+% \(goal >= 90%\)$" <<< "$out"
echo "PASS"
