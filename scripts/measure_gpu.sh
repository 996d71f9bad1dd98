#!/usr/bin/env bash
# Measure this machine's GPU (CUDA device 0) and fit a GPU config from the measurements, in one command:
#   scripts/measure_gpu.sh [build-dir (default build)] [models-dir (default ../shared/models)]
# 1. lightsim-profile --unit gpu on the GPT-2 and Llama-2 TVM exports in models-dir, and on GPT-2 prefill at
#    2, 5, 10, 17, 22 tokens made by lightsim-graph (a spread of GEMM shapes for the fit);
# 2. lightsim-calibrate --base configs/gpu.json (its unit gpu0) on all of them, through the retrain's fitter,
#    as the CPU calibration does (sim/profile/calibrate.h);
# 3. writes configs/measured/<gpu>.json, the measurement files under configs/measured/<gpu>-data/, and
#    configs/measured/<gpu>.md (end-to-end times, the GPU's description, the fit's per-class status).
# Needs a build with CUDA (cmake finds nvcc; see sim/profile/README.md) and a GPU. Llama-2-7B in float32 needs
# about 27 GB of GPU memory and as much host memory.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/help.sh"
help_if_asked "$@"
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
models=$(cd "${2:-$root/../shared/models}" && pwd)
profile="$build/sim/lightsim-profile"
for tool in "$profile" "$build/sim/lightsim-calibrate" "$build/sim/lightsim-graph"; do
  [[ -x $tool ]] || { echo "measure_gpu.sh: $tool not built" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
graphs=()
for n in 2 5 10 17 22; do
  "$build/sim/lightsim-graph" --model gpt2 --phase prefill --seq "$n" -o "$work/gpt2_prefill_$n.json"
  graphs+=("$work/gpt2_prefill_$n.json")
done
for g in gpt2_prefill_5 gpt2_decoder_5 llama2_7b_prefill llama2_7b_decoder; do
  graphs+=("$models/$g.json")
done

# The GPU's name names the files: "NVIDIA H100 80GB HBM3" -> nvidia-h100-80gb-hbm3.
gpu=$("$profile" --graph "${graphs[0]}" --unit gpu --graph-runs 1 --repeats 1 --max-repeats 1 -q -o "$work/probe.h5" |
  sed -n "s/.*gpu '\(.*\)'.*/\1/p")
[[ -n $gpu ]] || { echo "measure_gpu.sh: could not read the GPU's name" >&2; exit 1; }
slug=$(echo "$gpu" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
out="$root/configs/measured"
data="$out/$slug-data"
mkdir -p "$data"

summary="$out/$slug.md"
{
  echo "# Measured GPU: $gpu"
  echo
  echo "lightsim-profile --unit gpu (cuBLAS GEMMs, CUDA kernels, CUDA-event timing), $(date -u +%Y-%m-%d)."
  echo
  echo "| graph | ops | end-to-end median (s) | end-to-end min (s) | profile wall (s) |"
  echo "|---|---|---|---|---|"
} >"$summary"
files=()
for g in "${graphs[@]}"; do
  name=$(basename "$g" .json)
  line=$("$profile" --graph "$g" --unit gpu -q -o "$data/$name.h5")
  echo "$name: $line" >&2
  files+=("$data/$name.h5")
  ops=$(sed -n 's/^ops \([0-9]*\).*/\1/p' <<<"$line")
  median=$(sed -n 's/.*end_to_end_median_s \([^ ]*\).*/\1/p' <<<"$line")
  wall=$(sed -n 's/.*profile_wall_s \([^ ]*\).*/\1/p' <<<"$line")
  min=$(python3 -c 'import h5py,sys; print(h5py.File(sys.argv[1]).attrs["end_to_end_min_s"])' "$data/$name.h5" 2>/dev/null || echo "?")
  echo "| $name | $ops | $median | $min | $wall |" >>"$summary"
done

fit=$("$build/sim/lightsim-calibrate" --base "$root/configs/gpu.json" --unit gpu0 --target in-graph-min \
  --name "measured-$slug" -o "$out/$slug.json" "${files[@]}")
{
  echo
  echo "Calibrated config: configs/measured/$slug.json (lightsim-calibrate --base configs/gpu.json --unit gpu0"
  echo "--target in-graph-min, all files above). Per op class:"
  echo
  echo '```'
  echo "$fit"
  echo '```'
  if command -v python3 >/dev/null && python3 -c 'import h5py' 2>/dev/null; then
    echo
    echo "GPU description (attributes of the measurement files):"
    echo
    python3 - "${files[0]}" <<'PY'
import h5py, sys
a = h5py.File(sys.argv[1]).attrs
for k in sorted(a):
    if k.startswith(("gpu_", "cuda_", "cublas_")) or k in ("cpu_model", "compiler", "lightsim_revision"):
        v = a[k]
        print(f"- {k}: {v.decode() if isinstance(v, bytes) else v}")
PY
  fi
} >>"$summary"
echo "measure_gpu.sh: wrote $out/$slug.json, $summary and $data/" >&2
