#!/usr/bin/env bash
# analyze_trace_test.sh SRC LIGHTSIM WORK: analyze_trace.py on a real simulated trace of
# tests/data/transformer_block.json writes five PNGs of sensible size; every utilisation it prints is in
# [0,1] and equals the trace's; the energy parts it prints (per owner and component, from /energy_totals:
# the PHU's laser, DAC, ADC, optical MAC and weight programming among them) sum to the printed total (= the
# trace's /check energy_simulated_j) within 1e-9 relative, and so do the per-component totals; the critical
# path ends at the makespan. On a fused run whose graph file is gone, the critical path still follows the
# data edges (the trace's /op_inputs). On a tensor-parallel shard in two pipeline stages, the
# communication table repeats each stage's device for its peer and sums its all-reduces. A missing file,
# a file that is not HDF5 and an HDF5 file that is not a trace are each exit 2 with one line on stderr.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
"$LIGHTSIM" --hw "$SRC/configs/photonic.json" --graph "$SRC/tests/data/transformer_block.json" --fuse none \
  --trace "$WORK/run.h5" > /dev/null
$PY "$SRC/scripts/analyze_trace.py" "$WORK/run.h5" --out "$WORK/plots" > "$WORK/printed.txt"
cat "$WORK/printed.txt"

for png in gantt utilisation communication energy durations; do
  f="$WORK/plots/run_$png.png"
  check "run_$png.png exists" [ -f "$f" ]
  check "run_$png.png is over 10 kB" [ "$(stat -c %s "$f")" -gt 10000 ]
  check "run_$png.png is a PNG of sensible size" $PY - "$f" <<'PYEOF'
import struct, sys
head = open(sys.argv[1], "rb").read(24)
w, h = struct.unpack(">II", head[16:24])
sys.exit(0 if head[:8] == b"\x89PNG\r\n\x1a\n" and 400 <= w <= 4000 and 300 <= h <= 4000 else 1)
PYEOF
done

check "printed numbers agree with the trace" $PY - "$WORK/run.h5" "$WORK/printed.txt" <<'PYEOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
lines = open(sys.argv[2]).read().splitlines()
assert lines[0].endswith("schedule simulated"), lines[0]
# Utilisation table: every printed value in [0,1] and equal to /units simulated_utilisation.
start = lines.index("utilisation (busy lane-seconds / (lanes x makespan))") + 2
units = {r["unit"].decode(): float(r["simulated_utilisation"]) for r in f["units"][:]}
printed = {}
for line in lines[start:start + len(units)]:
    fields = line.split()
    printed[fields[0]] = float(fields[-1])
assert printed.keys() == units.keys(), (printed, units)
for u, v in printed.items():
    assert 0.0 <= v <= 1.0, (u, v)
    assert abs(v - units[u]) <= 5e-7, (u, v, units[u])
# Energy: the parts sum to the printed total, which is the trace's.
start = lines.index("energy (J; parts printed in full precision)") + 2
parts, named = [], {}
for line in lines[start:]:
    if line.startswith("energy_parts_sum_j:"):
        break
    group, owner, comp, e = line.split()[:4]
    parts.append(float(e))
    named[(group, owner, comp)] = float(e)
total = float(next(l for l in lines if l.startswith("energy_total_j:")).split()[1])
assert len(parts) >= len(units) + 3, parts
assert abs(sum(parts) - total) <= 1e-9 * total, (sum(parts), total)
assert abs(total - f["check"].attrs["energy_simulated_j"]) <= 1e-12 * total
assert "relative difference" in next(l for l in lines if l.startswith("energy_sum_check:"))
for comp in ("laser", "dac", "adc", "optical_mac", "local_buffer", "register_file", "sram", "static"):
    assert ("unit", "phu0", comp) in named, ("no PHU component", comp, sorted(named))
for row in f["energy_totals"][:]:
    for comp in ("laser", "dac", "adc", "static", "compute"):
        v = float(row[f"simulated_{comp}_j"])
        key = (row["kind"].decode(), row["owner"].decode(), comp)
        assert (v == 0 and key not in named) or abs(named[key] - v) <= 1e-15 * max(v, 1e-30), (key, v)
start = lines.index("energy by component (J, all owners)") + 1
by_comp = []
for line in lines[start:]:
    if not line.strip():
        break
    by_comp.append(float(line.split()[1]))
assert abs(sum(by_comp) - total) <= 1e-9 * total, (sum(by_comp), total)
# Critical path: uses the graph's edges, ends at the makespan and is no longer than it.
line = next(l for l in lines if l.startswith("critical_path_length_s:"))
length = float(line.split()[1])
makespan = f["check"].attrs["makespan_simulated_s"]
assert 0 < length <= makespan * (1 + 1e-9), (length, makespan)
assert any(l.startswith("critical path (data edges from ") for l in lines)
path = lines[lines.index(line) + 1:lines.index("energy (J; parts printed in full precision)") - 1]
assert abs(float(path[-1].split()[1]) - makespan) <= 1e-9 * makespan, path[-1]
# Top ops: 10 rows, longest first.
start = next(i for i, l in enumerate(lines) if l.startswith("top 10 ops")) + 2
durations = [float(l.split()[-2]) for l in lines[start:start + 10]]
assert len(durations) == 10 and durations == sorted(durations, reverse=True), durations
PYEOF

# A fused run (photonic.json fuses as TVM does): the trace's /op_inputs give the fused graph's data edges,
# so the analysis needs no --graph and no graph file (a copy, removed before the analysis).
cp "$SRC/tests/data/transformer_block.json" "$WORK/block.json"
"$LIGHTSIM" --hw "$SRC/configs/photonic.json" --graph "$WORK/block.json" --simulate \
  --trace "$WORK/fused.h5" > /dev/null
rm "$WORK/block.json"
$PY "$SRC/scripts/analyze_trace.py" "$WORK/fused.h5" --out "$WORK/fused_plots" > "$WORK/fused.txt"
check "fused run: edges from the trace" grep -qF "critical path (data edges from the trace's /op_inputs;" \
  "$WORK/fused.txt"
check "fused run: the critical path ends at the makespan and follows data edges" $PY - "$WORK/fused.h5" \
  "$WORK/fused.txt" "$WORK/run.h5" <<'PYEOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
lines = open(sys.argv[2]).read().splitlines()
ops = f["ops"][:]
assert len(ops) < len(h5py.File(sys.argv[3], "r")["ops"]), "the run did not fuse"
ins = f["op_inputs"][:]
assert len(ins) > 0 and all(ops[int(r["producer"])]["op"] == r["producer"] for r in ins)
line = next(l for l in lines if l.startswith("critical_path_length_s:"))
makespan = f["check"].attrs["makespan_simulated_s"]
path = lines[lines.index(line) + 1:lines.index("energy (J; parts printed in full precision)") - 1]
assert abs(float(path[-1].split()[1]) - makespan) <= 1e-9 * makespan, path[-1]
assert len(path) >= 3, path
PYEOF

# Parallel plans: a Llama-2-7B 2-layer tensor-parallel shard (T = 2) in two pipeline stages on h100x8.json.
# The communication table: gpu0 and gpu2 run the stages, gpu1 and gpu3 repeat them (/units mirrors), each
# stage's collectives are its all-reduce ops' simulated time, each GPU's collective sends its own
# (/collective_sends), and gpu4 runs nothing.
"$(dirname "$LIGHTSIM")/lightsim-graph" --model llama2-7b --dtype float16 --seq 64 --layers 2 \
  --tensor-parallel 2 --all-reduces -o "$WORK/tp.json"
"$LIGHTSIM" --hw "$SRC/configs/h100x8.json" --graph "$WORK/tp.json" --pp 2 --trace "$WORK/tp.h5" > /dev/null
$PY "$SRC/scripts/analyze_trace.py" "$WORK/tp.h5" --out "$WORK/tp_plots" > "$WORK/tp.txt"
check "parallel plan: communication per unit" $PY - "$WORK/tp.h5" "$WORK/tp.txt" <<'PYEOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
lines = open(sys.argv[2]).read().splitlines()
start = lines.index("communication vs compute per unit (s; share of the makespan)") + 2
rows = {}
for line in lines[start:]:
    if not line.strip():
        break
    name, *vals = line.split()
    rows[name] = vals
units = {r["unit"].decode(): r for r in f["units"][:]}
assert units["gpu1"]["mirrors"] == b"gpu0" and units["gpu3"]["mirrors"] == b"gpu2", units
assert [units[g]["pipeline_stage"] for g in ("gpu0", "gpu1", "gpu2", "gpu3", "gpu4")] == [0, 0, 1, 1, -1]
assert rows["gpu1=gpu0"] == rows["gpu0"] and rows["gpu3=gpu2"] == rows["gpu2"], rows
ops = f["ops"][:]
for gpu in ("gpu0", "gpu2"):
    mine = [o for o in ops if o["unit"].decode() == gpu and o["op_class"].decode() == "all_reduce"]
    assert len(mine) >= 2 and int(rows[gpu][2]) == len(mine), (gpu, rows[gpu], len(mine))
    total = sum(float(o["simulated_end_s"] - o["simulated_start_s"]) for o in mine)
    assert abs(float(rows[gpu][1]) - total) <= 1e-6 * total, (gpu, rows[gpu], total)
    assert float(rows[gpu][0]) > 0
assert all(float(v) == 0 for v in rows["gpu4"][:7]), rows["gpu4"]
# Each GPU's own collective sends, from /collective_sends (the replay ran every member's).
sends = f["collective_sends"][:]
for gpu, row in (("gpu0", "gpu0"), ("gpu1", "gpu1=gpu0"), ("gpu2", "gpu2"), ("gpu3", "gpu3=gpu2")):
    memory = units[gpu]["memory"]
    mine = [x for x in sends if x["src_memory"] == memory]
    assert len(mine) > 0 and int(rows[row][5]) == len(mine), (gpu, rows[row], len(mine))
    mib = sum(float(x["bytes"]) for x in mine) / 2**20
    assert abs(float(rows[row][6]) - mib) <= 1e-4 + 1e-6 * mib, (gpu, rows[row], mib)
PYEOF
check "parallel plan: communication plot" [ -s "$WORK/tp_plots/tp_communication.png" ]

echo "not a trace" > "$WORK/text.h5"
$PY -c "import h5py, sys; h5py.File(sys.argv[1], 'w').create_dataset('x', data=[1])" "$WORK/other.h5"
for bad in "$WORK/missing.h5" "$WORK/text.h5" "$WORK/other.h5"; do
  status=0
  $PY "$SRC/scripts/analyze_trace.py" "$bad" --out "$WORK/bad" > "$WORK/out.txt" 2> "$WORK/err.txt" || status=$?
  check "$bad: exit 2 (got $status)" [ "$status" -eq 2 ]
  check "$bad: one line on stderr" [ "$(wc -l < "$WORK/err.txt")" -eq 1 ]
  check "$bad: names the file" grep -qF "$bad" "$WORK/err.txt"
  check "$bad: no PNGs" [ ! -e "$WORK/bad" ]
done
echo PASS
