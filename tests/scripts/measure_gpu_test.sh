#!/usr/bin/env bash
# measure_gpu_test.sh SRC LIGHTSIM WORK: scripts/measure_gpu.py without a GPU (issue 24). With the torch
# backend on a machine without PyTorch or a CUDA device (CI): one line on stderr, exit 2, nothing written.
# Bad options: one line, exit 2. With the fake backend (times from a formula): the kernel CSV in the format of
# ../shared/reference/measured/h100_llama2_7b_fp16_kernels.csv (same columns, a row per operator and token
# count) and a measurement file that lightsim-calibrate reads and fits the GPU's dense and batch_matmul on.
SRC=$1 LIGHTSIM=$2 WORK=$3
source "$SRC/tests/scripts/lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK/cwd"
cd "$WORK/cwd"
M="$SRC/scripts/measure_gpu.py"

one_line_exit_2() { # one_line_exit_2 NEEDLE ARGS...: exit 2, one stderr line holding NEEDLE, no stdout
  local needle=$1; shift
  local status=0
  $PY "$M" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt" || status=$?
  [ "$status" -eq 2 ] && [ "$(wc -l < "$WORK/err.txt")" -eq 1 ] && grep -q -- "$needle" "$WORK/err.txt" &&
    [ ! -s "$WORK/out.txt" ]
}
if ! $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  check "no PyTorch or no CUDA device: one line, exit 2" one_line_exit_2 "measure_gpu.py: " -o "$WORK/none"
  check "nothing written" test -z "$(ls "$WORK" | grep none || true)"
fi
check "--tokens x: one line, exit 2" one_line_exit_2 "--tokens" --backend fake --tokens x
check "--tokens 0: one line, exit 2" one_line_exit_2 "--tokens" --backend fake --tokens 0
check "--iters 0: one line, exit 2" one_line_exit_2 "--iters" --backend fake --iters 0

check "fake backend writes csv, graph and measurement file" \
  $PY "$M" --backend fake --tokens 32,256,1024,4096 --no-probes -o "$WORK/fake"
check "csv: the shared file's columns, 15 operators x 4 token counts" $PY - "$WORK/fake.csv" \
  "$SRC/../shared/reference/measured/h100_llama2_7b_fp16_kernels.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
header = open(sys.argv[1]).readline().strip().split(",")
assert header == ["op", "tokens", "dtype", "shape", "kernel_us", "kernels_per_call", "macs", "bytes", "weights",
                  "back_to_back_us"], header
try:
    shared = open(sys.argv[2]).readline().strip().split(",")
    assert shared == header, shared
except FileNotFoundError:
    pass
assert len(rows) == 60, len(rows)
assert {r["tokens"] for r in rows} == {"32", "256", "1024", "4096"}
qkv = next(r for r in rows if r["op"] == "qkv" and r["tokens"] == "32")
assert qkv["shape"] == "llama2-7b:32x4096x12288" and qkv["weights"] == "cold" and qkv["back_to_back_us"] == ""
assert int(qkv["macs"]) == 32 * 4096 * 12288
assert all(float(r["kernel_us"]) > 0 for r in rows)
PYEOF
check "lightsim-calibrate reads the measurement file" \
  "$(dirname "$LIGHTSIM")/lightsim-calibrate" --base "$SRC/configs/h100.json" --unit gpu0 "$WORK/fake.h5" \
  -o "$WORK/calibrated.json" > "$WORK/calibrate.txt"
check "dense and batch_matmul fitted" grep -q "^dense: fitted" "$WORK/calibrate.txt"
check "batch_matmul fitted" grep -q "^batch_matmul: fitted" "$WORK/calibrate.txt"
check "calibrated config written" test -s "$WORK/calibrated.json"
check "--set x: one line, exit 2" one_line_exit_2 "--set" --backend fake --set x
check "fake backend, --set sweeps" $PY "$M" --backend fake --set sweeps -o "$WORK/sweeps"
check "sweeps csv: hot and cold adds, row-length softmax, copies" $PY - "$WORK/sweeps.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
adds = [r for r in rows if r["op"] == "add_sweep"]
assert len(adds) == 30 and {r["weights"] for r in adds} == {"hot", "cold"}, adds
assert all(r["shape"] == "%sx4096" % r["tokens"] for r in adds)
soft = [r for r in rows if r["op"] == "softmax_rowlen"]
assert [int(r["tokens"]) for r in soft] == [2 ** i for i in range(5, 15)]
assert len({r["bytes"] for r in soft}) == 1  # one input size, the row length swept
assert len([r for r in rows if r["op"] == "copy_sweep"]) == 10
PYEOF

# scripts/measure_gpu_forward.py: the same bad-input rules, and with the fake backend one row per variant, phase
# and token count in the columns scripts/fidelity_forward.py reads.
F="$SRC/scripts/measure_gpu_forward.py"
one_line_exit_2_forward() { M="$F" one_line_exit_2 "$@"; }
if ! $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  check "forward, no PyTorch or no CUDA device: one line, exit 2" \
    one_line_exit_2_forward "measure_gpu_forward.py: " -o "$WORK/none"
fi
check "forward --decode 1: one line, exit 2" one_line_exit_2_forward "--decode" --backend fake --decode 1 -o "$WORK/x"
check "forward --variants x: one line, exit 2" one_line_exit_2_forward "--variants" --backend fake --variants x \
  -o "$WORK/x"
check "forward --layers 0: one line, exit 2" one_line_exit_2_forward "--layers" --backend fake --layers 0 -o "$WORK/x"
check "forward without -o: one line, exit 2" one_line_exit_2_forward "-o" --backend fake
check "nothing written by the rejected forwards" test -z "$(ls "$WORK" | grep -E '^(none|x)' || true)"
check "forward, fake backend" $PY "$F" --backend fake --prefill 128,512 --decode 128 -o "$WORK/forward"
check "forward csv: columns and rows" $PY - "$WORK/forward.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0]) == ["variant", "phase", "new_tokens", "context", "layers", "kernel_us", "kernels_per_call",
                         "back_to_back_us", "eager_us", "weight_bytes", "kv_cache_bytes"], list(rows[0])
assert [(r["variant"], r["phase"], r["context"]) for r in rows] == [
    ("eager", "prefill", "128"), ("eager", "prefill", "512"), ("fused", "prefill", "128"),
    ("fused", "prefill", "512"), ("eager", "decode", "128"), ("fused", "decode", "128")], rows
decode = rows[-1]
assert decode["new_tokens"] == "1" and decode["layers"] == "32"
# Llama-2-7B in fp16: 6.74e9 parameters; the cache a decode at 128 reads: 2 x 32 layers x 128 x 4096 x 2 B.
assert abs(int(decode["weight_bytes"]) / 2 - 6.74e9) < 0.01e9, decode["weight_bytes"]
assert int(decode["kv_cache_bytes"]) == 2 * 32 * 128 * 4096 * 2
assert all(float(r["kernel_us"]) > 0 and float(r["back_to_back_us"]) >= float(r["kernel_us"]) for r in rows)
PYEOF
check "nothing written in the working directory" test -z "$(ls "$WORK/cwd")"
echo "measure_gpu: ok"
