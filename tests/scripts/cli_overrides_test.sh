#!/usr/bin/env bash
# cli_overrides_test.sh SRC LIGHTSIM WORK: `lightsim --set` and `--chrome-trace` as users type them: an
# override changes the result, a bad one is exit 2 with one line naming it and nothing on stdout; the
# Chrome trace parses and has one op slice per compute op; an unwritable trace path is exit 2.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
run=("$LIGHTSIM" --hw "$SRC/configs/photonic.json" --graph "$SRC/tests/data/transformer_block.json" --json)

"${run[@]}" > "$WORK/base.json"
"${run[@]}" --set links.pcie-phu.lanes=1 --set memories.sram0.capacity_MiB=64 > "$WORK/x1.json"
check "fewer PCIe lanes, longer makespan" $PY - "$WORK/base.json" "$WORK/x1.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if b["makespan_s"] > a["makespan_s"] else 1)
PYEOF

for bad in phu9.wdm_channels=4 phu0.wdm_channels=0 phu0.wdm_channels=many links.nolink.lanes=4 nokey; do
  status=0
  "${run[@]}" --set "$bad" > "$WORK/out.txt" 2> "$WORK/err.txt" || status=$?
  check "--set $bad: exit 2" [ "$status" -eq 2 ]
  check "--set $bad: one line" [ "$(wc -l < "$WORK/err.txt")" -eq 1 ]
  check "--set $bad: names the argument" grep -qF -- "--set $bad" "$WORK/err.txt"
  check "--set $bad: nothing on stdout" [ ! -s "$WORK/out.txt" ]
done

"${run[@]}" --chrome-trace "$WORK/trace.json" > "$WORK/run.json"
check "the Chrome trace has one op slice per compute op and paired flows" $PY - "$WORK/trace.json" "$WORK/run.json" <<'PYEOF'
import collections, json, sys
trace, run = (json.load(open(p)) for p in sys.argv[1:3])
events = trace["traceEvents"]
ops = [e for e in events if e["ph"] == "X" and e["cat"] != "transfer"]
flows = collections.Counter((e["id"], e["ph"]) for e in events if e["ph"] in "sf")
ids = {i for i, _ in flows}
names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
ok = (len(ops) == run["ops"] and ids and all(flows[(i, "s")] == 1 and flows[(i, "f")] == 1 for i in ids)
      and {"cpu0 (cpu)", "gpu0 (gpu)", "phu0 (phu)"} <= names)
sys.exit(0 if ok else 1)
PYEOF

status=0
"${run[@]}" --chrome-trace "$WORK/missing/dir/trace.json" > "$WORK/out.txt" 2> "$WORK/err.txt" || status=$?
check "unwritable trace: exit 2" [ "$status" -eq 2 ]
check "unwritable trace: one line naming it" grep -qF "$WORK/missing/dir/trace.json" "$WORK/err.txt"
check "unwritable trace: nothing on stdout" [ ! -s "$WORK/out.txt" ]
echo PASS
