#!/usr/bin/python3
"""H100 fidelity report: lightsim's GPU model against our own H100 kernel times of Llama-2-7B's operators.

The measurements (../shared/reference/measured/h100_llama2_7b_fp16_kernels.csv, its README says how they were
taken: PyTorch 2.11, cuBLAS, kernel durations from CUPTI, fp16, batch 1) cover the projections at 1, 32, 256,
1024 and 4096 tokens (cold weights below 1024), the LM head (hot weight), the attention GEMMs, softmax, fused
attention and element operators at 32, 256, 1024 and 4096 tokens. For every token count this script

  1. writes Llama-2-7B prefill graphs of one decoder layer and the LM head: `lightsim-graph --model llama2-7b
     --dtype float16 --seq T --layers 1 --merge-projections` (one fused QKV and one gate+up GEMM, as the
     measured `qkv` and `gate_up`), and the same with `--fuse flash` (fused attention);
  2. runs `lightsim --hw <the config's GPU alone> --graph g --trace t.h5` (`--fuse vllm` for the fused
     RMSNorm kernel), the arithmetic model's schedule and the SystemC replay in one trace;
  3. maps graph ops onto the CSV's operators and compares kernel times: per op its duration in the trace
     minus its gap_s (the config's kernel_gap_ns: the CSV holds kernel durations, not gaps).

  | CSV operator | lightsim op(s) |
  |---|---|
  | `qkv`, `o`, `gate_up`, `down`, `lm_head` | the five `dense` ops, in graph order |
  | `qk_bmm`, `av_bmm` | the two `batch_matmul` ops (32 heads) |
  | `softmax` | `softmax` over [32, T, T] (the causal mask's add is a separate op, not counted) |
  | `sdpa_causal` | the fused attention op of the flash build |
  | `add` | the residual add after the MLP, [T, 4096] |
  | `mul_ff` | SiLU(gate) x up, [T, 11008] |
  | `rmsnorm_fused` | the RMSNorm row kernel of `--fuse vllm`, with PyTorch's geometry (F.rms_norm: 128 threads a row, 4 elements an access: fidelity_gpu.PYTORCH_ROW_KERNELS) |

Operators the graphs do not express as the measured kernels are (`silu` as one kernel, `silu_mul`, the
eager RMSNorm's fp32 casts, `layernorm`, the precision and M-sweep probes, the copy) are left out of the
table and listed as such.

  scripts/fidelity_h100.py [--build build] [--hw configs/h100.json] [--out configs/measured/h100-fidelity]
                           [--csv <kernel CSV>] [--gpu H100] [--calibration-tokens 32,1024]
                           [--derived op:tokens,...] [--check]
      also any GPU's CSV from scripts/measure_gpu.py: configs/measured/nvidia-h100-fidelity.md is our own H100
      at nine token counts (--csv configs/measured/nvidia-h100.csv), nvidia-h200-fidelity.md the H200 with
      h200.json and --calibration-tokens= (empty: nothing fitted there, every row held out).
      --derived names rows a config value was taken from (nvidia-h100: sdpa_causal:1, the source of
      flash_attention.cta_latency_ns): marked derived and kept out of the held-out means.
  scripts/fidelity_h100.py --calibrate   fit gemm_prologue_ns, memory_efficiency and main_loop_efficiency
                                         on the GEMMs (projections, LM head, attention GEMMs) at
                                         --calibration-tokens (least squares of the replay's relative errors,
                                         coordinate search on 20 ns / 0.01 grids), print them and stop;
                                         configs/generate.py holds the values.

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
import grid_search
import script_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(os.path.dirname(ROOT), "shared", "reference", "measured", "h100_llama2_7b_fp16_kernels.csv")
PROJECTIONS = ["qkv", "o", "gate_up", "down", "lm_head"]
ATTENTION = ["qk_bmm", "av_bmm"]
GROUPS = [("projections and LM head", PROJECTIONS), ("attention GEMMs", ATTENTION), ("softmax", ["softmax"]),
          ("fused attention", ["sdpa_causal"]), ("element ops", ["add", "mul_ff", "rmsnorm_fused"])]
COMPARED = [op for _, ops in GROUPS for op in ops]


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def calls(graph):
    """(node index, function body) of the graph's kernels, in order."""
    return [(i, n["attrs"].get("func_name", "").replace("tvmgen_default_fused_", ""))
            for i, n in enumerate(graph["nodes"]) if n["op"] != "null" and n["attrs"].get("func_name") != "__nop"]


def unfused_operators(graph):
    nodes, ks = graph["nodes"], calls(graph)
    kind = lambda body, name: body == name or body.startswith(name + "_")  # noqa: E731
    dense = [i for i, b in ks if kind(b, "nn_dense")]
    bmm = [i for i, b in ks if kind(b, "nn_batch_matmul")]
    down = dense[3]
    ops = dict(zip(PROJECTIONS, ([i] for i in dense)))
    ops.update({"qk_bmm": [bmm[0]], "av_bmm": [bmm[1]],
                "softmax": [next(i for i, b in ks if kind(b, "nn_softmax"))],
                "add": [next(i for i, b in ks if i > down and kind(b, "add"))],
                # The last multiply before the down projection: SiLU(gate) x up.
                "mul_ff": [max(i for i, b in ks if i < down and kind(b, "multiply"))]})
    return {k: [nodes[i]["name"] for i in v] for k, v in ops.items()}


def flash_operators(graph):
    att = [i for i, b in calls(graph) if "nn_batch_matmul" in b and "nn_softmax" in b]
    return {"sdpa_causal": [graph["nodes"][att[0]]["name"]]}


def vllm_operators(graph):
    """The kernels between the embedding gather and the first projection: the input RMSNorm."""
    ks = calls(graph)
    emb = next(i for i, b in ks if "take" in b.split("_"))
    first_dense = next(i for i, b in ks if b.startswith("nn_dense"))
    return {"rmsnorm_fused": [graph["nodes"][i]["name"] for i, _ in ks if emb < i < first_dense]}


def kernel_times(build, cfg_path, tokens, work, fuse):
    """Per CSV operator: (arithmetic model us, replay us, ops) for one token count and one fusion mode."""
    path = os.path.join(work, "llama_%d_%s.json" % (tokens, fuse))
    written = "none" if fuse == "vllm" else fuse  # vLLM's row kernels are formed by lightsim itself
    run([os.path.join(build, "sim", "lightsim-graph"), "--model", "llama2-7b", "--dtype", "float16", "--seq",
         str(tokens), "--layers", "1", "--merge-projections", "--fuse", fuse, "-o", path])
    run_path = os.path.join(work, "llama_%d_run.json" % tokens)
    if fuse == "vllm":
        run([os.path.join(build, "sim", "lightsim-graph"), "--model", "llama2-7b", "--dtype", "float16",
             "--seq", str(tokens), "--layers", "1", "--merge-projections", "--fuse", written, "-o", run_path])
    else:
        run_path = path
    trace = os.path.join(work, "run.h5")
    run([os.path.join(build, "sim", "lightsim"), "--hw", cfg_path, "--graph", run_path, "--trace", trace,
         "--progress", "never", "--fuse", fuse])
    with open(path) as f:
        graph = json.load(f)
    names = {"none": unfused_operators, "flash": flash_operators, "vllm": vllm_operators}[fuse](graph)
    with h5py.File(trace, "r") as h:
        ops = h["ops"][:]
    row = {n.decode(): i for i, n in enumerate(ops["name"])}
    out = {}
    for op, members in names.items():
        r = [ops[row[n]] for n in members]
        # The trace's gap_s: the gap between kernels included in the op's time (kernel_gap_ns).
        pred = sum(x["predicted_end_s"] - x["predicted_start_s"] - x["gap_s"] for x in r)
        sim = sum(x["simulated_end_s"] - x["simulated_start_s"] - x["gap_s"] for x in r)
        out[op] = (pred * 1e6, sim * 1e6, len(r))
    return out


def err(model, measured):
    return (model - measured) / measured


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def evaluate(args, work, overrides=None, ops=COMPARED, tokens_in=None):
    """One result per CSV row of `ops` (at `tokens_in` when given), on the config with GPU `overrides`."""
    cfg, gpu = gpu_only_config(args.hw, overrides, PYTORCH_ROW_KERNELS)
    cfg_path = os.path.join(work, "gpu.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if r["op"] in ops and r["dtype"] == "float16" and
                (tokens_in is None or int(r["tokens"]) in tokens_in)]
    modes = ["none"] + [m for m, o in (("flash", "sdpa_causal"), ("vllm", "rmsnorm_fused")) if o in ops]
    times = {}
    results = []
    for r in rows:
        tokens = int(r["tokens"])
        if tokens not in times:
            times[tokens] = {}
            for fuse in modes:
                times[tokens].update(kernel_times(args.build, cfg_path, tokens, work, fuse))
        arith, replay, n = times[tokens][r["op"]]
        results.append({"op": r["op"], "tokens": tokens, "shape": r["shape"], "weights": r["weights"],
                        "measured": float(r["kernel_us"]), "kernels": r["kernels_per_call"], "arith": arith,
                        "replay": replay, "ops": n})
    return results, gpu


# The constants --calibrate fits, each on a grid, from its start.
CONSTANTS = [("gemm_prologue_ns", [float(20 * i) for i in range(51)], 200.0),
             ("memory_efficiency", [round(0.5 + 0.01 * i, 2) for i in range(51)], 0.8),
             ("main_loop_efficiency", [round(0.5 + 0.01 * i, 2) for i in range(51)], 0.8)]
CALIBRATION_OPS = PROJECTIONS + ATTENTION


def calibrate(args, calib, work):
    """The three CONSTANTS that minimise the sum of squared relative replay errors of the GEMMs
    (CALIBRATION_OPS) at the calibration token counts (scripts/grid_search.py)."""
    cache = {}

    def loss(values):
        if values not in cache:
            res, _ = evaluate(args, work, dict(zip((c[0] for c in CONSTANTS), values)), CALIBRATION_OPS, calib)
            cache[values] = sum(err(x["replay"], x["measured"]) ** 2 for x in res)
        return cache[values]

    values, value = grid_search.coordinate_search(loss, [c[1] for c in CONSTANTS], tuple(c[2] for c in CONSTANTS))
    return dict(zip((c[0] for c in CONSTANTS), values)), value


def report(results, args, gpu, calib):
    """The report's text."""
    is_calib = lambda x: x["op"] in CALIBRATION_OPS and x["tokens"] in calib  # noqa: E731
    derived = set(args.derived.split(",")) if args.derived else set()
    is_derived = lambda x: "%s:%d" % (x["op"], x["tokens"]) in derived  # noqa: E731
    row_set = lambda x: "calibration" if is_calib(x) else "derived" if is_derived(x) else "held-out"  # noqa: E731
    fitted = ", ".join("`%s` %g" % (c[0], gpu[c[0]]) for c in CONSTANTS)
    source = os.path.relpath(args.csv, ROOT)
    if calib:
        how = ["Fitted constants (`scripts/fidelity_h100.py --calibrate` on the GEMMs (%s) of `%s` at %s tokens;" %
               (", ".join(CALIBRATION_OPS), os.path.relpath(CSV, ROOT), " and ".join(str(t) for t in sorted(calib))),
               "values in `configs/gpu_configs.py`): %s. Rows of these GEMMs at those token counts are marked" % fitted,
               "calibration%s; every other row is held out." %
               ("" if args.csv == CSV else " (here new measurements at the calibration token counts)")]
    else:
        how = ["Nothing is fitted on these measurements: %s are the H100's constants" % fitted,
               "(`scripts/fidelity_h100.py --calibrate` on `%s`). Every row is held out." % os.path.relpath(CSV, ROOT)]
    lines = ["# %s fidelity: lightsim's GPU model against measured %s kernels (Llama-2-7B, fp16)" %
             (args.gpu, args.gpu), "",
             "Written by `scripts/fidelity_h100.py` (its docstring says how each operator is mapped) from",
             "`%s` and `%s` as shipped" % (source, os.path.relpath(args.hw, ROOT)),
             "(its GPU alone; every op's time less the trace's `gap_s`, its `kernel_gap_ns` of %.0f ns)." %
             gpu["kernel_gap_ns"], ""] + how + (
                 ["Rows marked derived (%s) are the measurements config values were taken from (configs/gpu_configs.py)"
                  % ", ".join("`%s`" % d for d in sorted(derived)), "and are left out of the means."]
                 if derived else []) + [
             "Error = (lightsim - measured) / measured; replay = the SystemC module, arithmetic = the solver's",
             "fitted model.", "",
             "| operators (held-out rows) | rows | replay mean / max abs error | arithmetic mean / max abs error | "
             "replay vs arithmetic |", "|---|---|---|---|---|"]
    for name, ops in GROUPS:
        rs = [x for x in results if x["op"] in ops and row_set(x) == "held-out"]
        er = [abs(err(x["replay"], x["measured"])) for x in rs]
        ea = [abs(err(x["arith"], x["measured"])) for x in rs]
        ra = [abs(err(x["arith"], x["replay"])) for x in rs]
        lines.append("| %s | %d | %.1f%% / %.1f%% | %.1f%% / %.1f%% | max %.2f%% |" %
                     (name, len(rs), 100 * mean(er), 100 * max(er), 100 * mean(ea), 100 * max(ea), 100 * max(ra)))
    lines += ["", "| operator | tokens | set | shape | weights | kernels measured | measured (us) | replay (us) | "
              "replay error | arithmetic (us) | arithmetic error |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in sorted(results, key=lambda x: (COMPARED.index(x["op"]), x["tokens"])):
        lines.append("| %s | %d | %s | %s | %s | %s | %.2f | %.2f | %+.1f%% | %.2f | %+.1f%% |" %
                     (x["op"], x["tokens"], row_set(x), x["shape"], x["weights"],
                      x["kernels"], x["measured"], x["replay"], 100 * err(x["replay"], x["measured"]), x["arith"],
                      100 * err(x["arith"], x["measured"])))
    lines += ["", "Not compared (the graphs do not express them as the measured kernels are): `silu` (one kernel",
              "here two ops), `silu_mul`, `rmsnorm_eager` (eight kernels with fp32 casts), `layernorm` (Llama has",
              "none), the `gemm4096` precision probes, the `gemm_m_sweep` rows and `copy_512MiB`."]
    return "\n".join(lines) + "\n"


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--hw", default=os.path.join(ROOT, "configs", "h100.json"))
    ap.add_argument("--csv", default=CSV)
    ap.add_argument("--out", default=os.path.join(ROOT, "configs", "measured", "h100-fidelity"))
    ap.add_argument("--calibration-tokens", default="32,1024",
                    help="token counts whose GEMM rows are marked calibration; empty: every row held out")
    ap.add_argument("--derived", default="",
                    help="op:tokens rows a config value was derived from (marked derived, out of the means)")
    ap.add_argument("--gpu", default="H100", help="the measured GPU's name in the report's title")
    ap.add_argument("--calibrate", action="store_true", help="fit the three constants and stop")
    ap.add_argument("--check", action="store_true", help="compare with <out>.md instead of writing it")
    args = ap.parse_args()
    calib = set(int(x) for x in args.calibration_tokens.split(",") if x)
    with tempfile.TemporaryDirectory() as work:
        if args.calibrate:
            values, loss = calibrate(args, calib, work)
            print(" ".join("%s %g" % kv for kv in values.items()) +
                  " (sum of squared relative replay errors %.5f of %s at %s tokens)" %
                  (loss, ", ".join(CALIBRATION_OPS), sorted(calib)))
            return
        results, gpu = evaluate(args, work)
    text = report(results, args, gpu, calib)
    return write_or_check(args.out + ".md", text, __file__, args.check)


if __name__ == "__main__":
    sys.exit(main())
