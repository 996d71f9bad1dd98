#!/usr/bin/env bash
# plot_fit_test.sh SRC LIGHTSIM WORK: `lightsim --retrain --trace` on the two example graphs, then
# scripts/plot_fit.py on the trace: the PNG exists and is a PNG of sensible size, and the per (op class,
# unit) table it prints (medians of its per-op rows) equals the report's /model/classes table and its
# makespan rows /model/makespan. A trace without a retrain report is exit 2.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
"$LIGHTSIM" --hw "$SRC/configs/photonic.json" --graph "$SRC/tests/data/transformer_block.json" \
  --retrain "$WORK/retrained.json" --retrain-graphs "$SRC/tests/data/mlp2.json" --retrain-rounds 3 \
  --trace "$WORK/retrain.h5" > "$WORK/retrain.txt"
check "trace written" [ -f "$WORK/retrain.h5" ]
check "config written" [ -f "$WORK/retrained.json" ]

"$SRC/scripts/plot_fit.py" "$WORK/retrain.h5" --out "$WORK/fit.png" > "$WORK/printed.txt"
cat "$WORK/printed.txt"
f="$WORK/fit.png"
check "fit.png exists" [ -f "$f" ]
check "fit.png is over 20 kB" [ "$(stat -c %s "$f")" -gt 20000 ]
check "fit.png is a PNG of sensible size" $PY - "$f" <<'PYEOF'
import struct, sys
head = open(sys.argv[1], "rb").read(24)
w, h = struct.unpack(">II", head[16:24])
sys.exit(0 if head[:8] == b"\x89PNG\r\n\x1a\n" and 800 <= w <= 4000 and 300 <= h <= 4000 else 1)
PYEOF

check "printed table equals /model/classes and /model/makespan" $PY - "$WORK/retrain.h5" "$WORK/printed.txt" <<'PYEOF'
import math, sys, h5py
f = h5py.File(sys.argv[1], "r")
lines = open(sys.argv[2]).read().splitlines()
classes = f["model/classes"][()]
head = lines.index("op_class\tunit\tops_before\tmedian_abs_error_before_pct\tops_after\tmedian_abs_error_after_pct")
tail = next(i for i, l in enumerate(lines) if l.startswith("graph\t"))
printed = {tuple(l.split("\t")[:2]): l.split("\t")[2:] for l in lines[head + 1:tail]}
expected = {(r["op_class"].decode(), r["unit"].decode()): r for r in classes}
assert set(printed) == set(expected), (sorted(printed), sorted(expected))
assert len(printed) >= 3, printed
def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-7 * max(1.0, abs(b))
for key, cells in printed.items():
    r = expected[key]
    for i, phase in enumerate(("before", "after")):
        assert int(cells[2 * i]) == r["ops_" + phase], (key, phase, cells)
        median = r["median_abs_error_" + phase] if r["ops_" + phase] else float("nan")
        assert same(float(cells[2 * i + 1]), 100 * median), (key, phase, cells, median)
makespan = f["model/makespan"][()]
rows = [l.split("\t") for l in lines[tail + 1:]]
assert len(rows) == len(makespan) == 2, rows
for row, m in zip(rows, makespan):
    assert row[0] == m["graph"].decode(), (row, m)
    cols = ("predicted_makespan_s_before", "simulated_makespan_s_before", "predicted_makespan_s_after",
            "simulated_makespan_s_after")
    assert all(same(float(v), float(m[c])) for v, c in zip(row[1:], cols)), (row, m)
PYEOF

# A plain --trace (no retrain) has an empty /model: one line, exit 2, no PNG.
"$LIGHTSIM" --hw "$SRC/configs/photonic.json" --graph "$SRC/tests/data/mlp2.json" --trace "$WORK/plain.h5" > /dev/null
set +e
"$SRC/scripts/plot_fit.py" "$WORK/plain.h5" --out "$WORK/plain.png" 2> "$WORK/err.txt"
status=$?
set -e
check "no retrain report: exit 2 (got $status)" [ "$status" -eq 2 ]
check "no retrain report: one line naming the file" grep -q "plain.h5: no retrain report" "$WORK/err.txt"
check "no retrain report: no PNG" [ ! -e "$WORK/plain.png" ]
echo PASS
