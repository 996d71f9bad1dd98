#!/usr/bin/env bash
# sweep_graphgen_test.sh SRC LIGHTSIM WORK LIGHTSIM_GRAPH: a sweep whose graphs come from lightsim-graph
# (GPT-2 prefill, one layer, two sequence lengths) x two PCIe lane counts: each graph is generated once,
# every point runs, the table has a seq column; a re-run generates and runs nothing.
SRC=$1 LIGHTSIM=$2 WORK=$3 LIGHTSIM_GRAPH=$4
source "$SRC/tests/scripts/lib.sh"
export LIGHTSIM LIGHTSIM_GRAPH
rm -rf "$WORK" && mkdir -p "$WORK"
cat > "$WORK/spec.json" <<JSON
{"hw": "$SRC/configs/photonic.json",
 "graphgen": {"model": "gpt2", "phase": "prefill", "seq": [8, 32], "layers": 1},
 "set": {"links.pcie-phu.lanes": [4, 16]}}
JSON
"$SRC/scripts/sweep.sh" "$WORK/spec.json" --out "$WORK/out" --jobs 2
check "2 graphs generated once each" [ "$(grep -c '^graph ' "$WORK/out/executed.log")" -eq 2 ]
check "4 points ran" [ "$(count_executed "$WORK/out")" -eq 4 ]
check "header has the generator's arguments" grep -q '^point,graph,model,phase,seq,layers,objective,links.pcie-phu.lanes,makespan_s' "$WORK/out/sweep.csv"
check "4 rows" [ "$(csv_rows "$WORK/out/sweep.csv")" -eq 4 ]
check "longer sequence, longer makespan" $PY - "$WORK/out/sweep.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {(r["seq"], r["links.pcie-phu.lanes"]): float(r["makespan_s"]) for r in rows}
sys.exit(0 if all(t[("32", l)] > t[("8", l)] for l in ("4", "16")) else 1)
PYEOF
"$SRC/scripts/sweep.sh" "$WORK/spec.json" --out "$WORK/out" --jobs 2
check "re-run generates and runs nothing" [ "$(wc -l < "$WORK/out/executed.log")" -eq 6 ]
echo PASS
