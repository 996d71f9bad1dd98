#!/usr/bin/env bash
# plot_sweep_test.sh SRC LIGHTSIM WORK: plot_sweep.py on a real 12-point sweep writes a Pareto plot and one
# sensitivity plot per swept parameter (PNG files of sensible size and dimensions), and the Pareto points
# it prints are exactly the non-dominated rows of each graph's points, computed here independently.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
export LIGHTSIM
rm -rf "$WORK" && mkdir -p "$WORK"
make_spec "$WORK/spec.json"
"$SRC/scripts/sweep.sh" "$WORK/spec.json" --out "$WORK/sweep" --jobs 2
"$SRC/scripts/plot_sweep.py" "$WORK/sweep/sweep.csv" --out "$WORK/plots" > "$WORK/printed.txt"
cat "$WORK/printed.txt"

for png in pareto sensitivity_graph sensitivity_objective sensitivity_links.pcie-phu.lanes; do
  f="$WORK/plots/$png.png"
  check "$png.png exists" [ -f "$f" ]
  check "$png.png is over 10 kB" [ "$(stat -c %s "$f")" -gt 10000 ]
  # PNG signature, then IHDR width and height: at least 400 x 300 pixels, at most 4000 x 4000.
  check "$png.png is a PNG of sensible size" $PY - "$f" <<'PYEOF'
import struct, sys
head = open(sys.argv[1], "rb").read(24)
w, h = struct.unpack(">II", head[16:24])
sys.exit(0 if head[:8] == b"\x89PNG\r\n\x1a\n" and 400 <= w <= 4000 and 300 <= h <= 4000 else 1)
PYEOF
done
check "exactly 4 PNGs (3 swept parameters)" [ "$(ls "$WORK/plots" | wc -l)" -eq 4 ]

check "printed Pareto points are the non-dominated rows" $PY - "$WORK/sweep/sweep.csv" "$WORK/printed.txt" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
front = []
for g in dict.fromkeys(r["graph"] for r in rows):
    pts = [(int(r["point"]), float(r["makespan_s"]), float(r["energy_j"])) for r in rows if r["graph"] == g]
    front += sorted(p for p in pts if not any(q[1] <= p[1] and q[2] <= p[2] and (q[1] < p[1] or q[2] < p[2]) for q in pts))
lines = open(sys.argv[2]).read().splitlines()
assert lines[0] == f"pareto: {len(front)} of {len(rows)} points on the fronts of 2 workloads", lines[0]
printed = [l.split("\t") for l in lines[2:]]
assert sorted((int(f[0]), float(f[1]), float(f[2])) for f in printed) == sorted(front), (printed, front)
for g in ("mlp2.json", "transformer_block.json"):
    mine = [float(f[1]) for f in printed if f[3] == g]
    assert mine and mine == sorted(mine), f"{g}: not fastest first"
assert len(front) < len(rows)
PYEOF
echo PASS
