#!/usr/bin/python3
"""Whole-model fidelity: lightsim's GPU against measured Llama-2-7B forward passes (prefill and decode).

The measurements (configs/measured/nvidia-<gpu>-forward.csv, written by scripts/measure_gpu_forward.py on the
GPU: its docstring says what runs and how it is timed) are whole fp16 forwards at batch 1 in two variants,
each the computation of one lightsim graph:

  | variant | measured (PyTorch) | lightsim |
  |---|---|---|
  | eager | Hugging Face's eager Llama, one kernel per op | `lightsim-graph --model llama2-7b --dtype float16`, `--fuse none` |
  | fused | merged projections, fused RMSNorm, SiLU and attention | the same with `--merge-projections`, `--fuse vllm` |

The row kernels of `--fuse vllm` take PyTorch's geometry (fidelity_gpu.PYTORCH_ROW_KERNELS: F.rms_norm's 128
threads a row, 4 elements an access), since the measured forwards run PyTorch's kernels.

For every row this script writes the graph (prefill of T tokens, or decode at a context of C: C - 1 cached),
runs `lightsim --hw <the config's GPU alone> --graph g --trace t.h5` (arithmetic model and SystemC replay) and
compares
  - kernel time: the measured sum of the forward's CUDA kernels against the sum of the ops' durations less
    their gap_s (the config's kernel_gap_ns), replay and arithmetic model;
  - back-to-back time: the measured CUDA-graph replay of the forward against the replay's makespan.
Nothing is fitted on these rows: every row is held out.

  scripts/fidelity_forward.py [--build build] [--check]
      writes configs/measured/gpu-forward-fidelity.md from h100.json + nvidia-h100-forward.csv and
      h200.json + nvidia-h200-forward.csv; --check compares with the committed file instead (exit 1 if not
      the same).

Needs Debian's python3 (h5py).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import h5py

from atomic_output import write_or_check
from fidelity_gpu import PYTORCH_ROW_KERNELS, gpu_only_config
import script_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEASURED = os.path.join(ROOT, "configs", "measured")
GPUS = [("H100 80GB HBM3 (SXM5)", "h100.json", "nvidia-h100-forward.csv"),
        ("H200 (SXM, 141 GB)", "h200.json", "nvidia-h200-forward.csv")]
GRAPH_ARGS = {"eager": ([], "none"), "fused": (["--merge-projections"], "vllm")}


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def simulate(build, cfg_path, row, work):
    """(replay kernel us, arithmetic kernel us, replay makespan us, lightsim ops on the GPU) of one row."""
    extra, fuse = GRAPH_ARGS[row["variant"]]
    graph = os.path.join(work, "g.json")
    run([os.path.join(build, "sim", "lightsim-graph"), "--model", "llama2-7b", "--dtype", "float16", "--phase",
         row["phase"], "--seq", row["context"], *extra, "-o", graph])
    trace = os.path.join(work, "t.h5")
    run([os.path.join(build, "sim", "lightsim"), "--hw", cfg_path, "--graph", graph, "--fuse", fuse, "--trace",
         trace, "--progress", "never"])
    with h5py.File(trace, "r") as h:
        ops = h["ops"][:]
    busy = ops["op_class"] != b"nop"
    ops = ops[busy]
    replay = float(sum(ops["simulated_end_s"] - ops["simulated_start_s"] - ops["gap_s"]))
    arith = float(sum(ops["predicted_end_s"] - ops["predicted_start_s"] - ops["gap_s"]))
    makespan = float(max(ops["simulated_end_s"]) - min(ops["simulated_start_s"]))
    return replay * 1e6, arith * 1e6, makespan * 1e6, len(ops)


def err(model, measured):
    return (model - measured) / measured


def evaluate(build, work):
    results = []
    for gpu, hw, measured in GPUS:
        cfg, _ = gpu_only_config(os.path.join(ROOT, "configs", hw), compiler=PYTORCH_ROW_KERNELS)
        cfg_path = os.path.join(work, "gpu.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        with open(os.path.join(MEASURED, measured)) as f:
            for row in csv.DictReader(f):
                replay, arith, makespan, n = simulate(build, cfg_path, row, work)
                results.append(dict(row, gpu=gpu, hw=hw, replay=replay, arith=arith, makespan=makespan, ops=n))
    return results


def report(results):
    lines = ["# Whole-model fidelity: Llama-2-7B fp16 forwards on a real H100 and H200", "",
             "Written by `scripts/fidelity_forward.py` (its docstring says what is compared) from",
             "`configs/measured/nvidia-h100-forward.csv` and `nvidia-h200-forward.csv` (measured by",
             "`scripts/measure_gpu_forward.py`: PyTorch 2.11 / CUDA 13.0, random fp16 weights, batch 1, kernel times",
             "from CUPTI, 2026-11-27) and `configs/h100.json` / `configs/h200.json` as shipped (each GPU alone).",
             "Nothing is fitted on these rows: every row is held out. Error = (lightsim - measured) / measured.", "",
             "| GPU | variant | phase | rows | kernel time: replay mean / max abs error | back-to-back: makespan "
             "mean / max abs error |", "|---|---|---|---|---|---|"]
    for gpu, _, _ in GPUS:
        for variant in GRAPH_ARGS:
            for phase in ("prefill", "decode"):
                rs = [x for x in results if (x["gpu"], x["variant"], x["phase"]) == (gpu, variant, phase)]
                if not rs:
                    continue
                ek = [abs(err(x["replay"], float(x["kernel_us"]))) for x in rs]
                eb = [abs(err(x["makespan"], float(x["back_to_back_us"]))) for x in rs]
                lines.append("| %s | %s | %s | %d | %.1f%% / %.1f%% | %.1f%% / %.1f%% |" %
                             (gpu, variant, phase, len(rs), 100 * sum(ek) / len(ek), 100 * max(ek),
                              100 * sum(eb) / len(eb), 100 * max(eb)))
    lines += ["", "| GPU | variant | phase | context | kernels measured | lightsim ops | kernel time measured (ms) | "
              "replay (ms) | error | arithmetic (ms) | error | back-to-back measured (ms) | makespan (ms) | error |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in results:
        k, b = float(x["kernel_us"]), float(x["back_to_back_us"])
        lines.append("| %s | %s | %s | %s | %s | %d | %.3f | %.3f | %+.1f%% | %.3f | %+.1f%% | %.3f | %.3f | %+.1f%% |" %
                     (x["gpu"], x["variant"], x["phase"], x["context"], x["kernels_per_call"], x["ops"], k / 1e3,
                      x["replay"] / 1e3, 100 * err(x["replay"], k), x["arith"] / 1e3, 100 * err(x["arith"], k),
                      b / 1e3, x["makespan"] / 1e3, 100 * err(x["makespan"], b)))
    return "\n".join(lines) + "\n"


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(MEASURED, "gpu-forward-fidelity.md"))
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        text = report(evaluate(args.build, work))
    return write_or_check(args.out, text, __file__, args.check)


if __name__ == "__main__":
    sys.exit(main())
