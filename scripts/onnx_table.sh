#!/usr/bin/env bash
# onnx_table.sh [BUILD]: the README's table of the shared ONNX exports (../shared/models/onnx): each model
# (the PaddleOCR ones at two input sizes, bound with --dim) planned and replayed (--simulate) on every
# shipped config; prints a markdown row per (model, config) with lightsim's ops before and after fusion,
# the predicted and replayed makespans. Exits 1 if any run fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
help_if_asked "$@"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
models=$root/../shared/models/onnx
d=p2o.DynamicDimension
runs=(
  "gpt2_s64|gpt2_s64.onnx|"
  "det 640x640|ch_PP-OCRv4_det_infer.onnx|--dim $d.0=1 --dim $d.1=640 --dim $d.2=640"
  "det 960x960|ch_PP-OCRv4_det_infer.onnx|--dim $d.0=1 --dim $d.1=960 --dim $d.2=960"
  "rec 48x320|ch_PP-OCRv4_rec_infer.onnx|--dim $d.0=1 --dim $d.1=320"
  "rec 48x640|ch_PP-OCRv4_rec_infer.onnx|--dim $d.0=1 --dim $d.1=640"
  "cls 48x192|ch_ppocr_mobile_v2.0_cls_infer.onnx|--dim $d.0=1 --dim $d.1=48 --dim $d.2=192"
  "cls 8x48x192|ch_ppocr_mobile_v2.0_cls_infer.onnx|--dim $d.0=8 --dim $d.1=48 --dim $d.2=192"
)
status=0
echo "| model | config | ops (fused) | predicted ms | replayed ms |"
echo "|---|---|---|---|---|"
for run in "${runs[@]}"; do
  IFS='|' read -r label file dims <<< "$run"
  for hw in "$root"/configs/*.json; do
    # shellcheck disable=SC2086
    if out=$("$build/sim/lightsim" --hw "$hw" --graph "$models/$file" $dims --simulate --json 2>/dev/null); then
      # The result on stdin: a run's JSON can exceed what one argument may hold (128 KiB).
      printf '%s' "$out" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
print("| %s | %s | %d | %.4g | %.4g |" % (sys.argv[1], sys.argv[2], j["ops"], 1e3 * j["makespan_s"],
      1e3 * j["simulation"]["simulated_makespan_s"]))' "$label" "$(basename "$hw" .json)"
    else
      echo "| $label | $(basename "$hw" .json) | FAILED | | |"
      status=1
    fi
  done
done
exit $status
