#!/usr/bin/python3
"""GPU fidelity report: lightsim's A100 model against published per-kernel timings of Llama-2-7B prefill.

The measurements (../shared/reference/measured/a100_llama2_7b_fp16_kernels.csv, its README says what each
column covers) are median kernel times of one decoder layer on an A100-SXM4-80GB, fp16, at several token
counts (batch 1) and tensor-parallel degrees. For every row this script

  1. writes the matching graph: `lightsim-graph --model llama2-7b --dtype float16 --seq N --layers 1
     --merge-projections --tensor-parallel T` (vLLM's fused QKV and gate+up GEMMs; one Megatron shard);
  2. runs `lightsim --hw <the config's GPU alone> --graph g --trace t.h5` (the arithmetic model's
     schedule and the SystemC replay in one trace);
  3. maps the graph's ops of the decoder layer onto the CSV's operators (the four GEMMs; the two RMSNorms,
     RoPE on q and k, SiLU-and-multiply, the embedding gather and the residual add after the MLP, each the
     sum of its unfused ops) and compares kernel times: per op the duration in the trace minus the
     config's kernel_gap_ns (the CSV holds kernel durations, not the gaps between them).

Error = (model - measured) / measured. Writes <out>.md (the table and the summary) and <out>.png.

With fusion (issue 13) the same rows run once more on the fused build: `lightsim-graph ... --fuse tvm`
writes the graph as TVM's FuseOps groups it (fused functions named as TVM names them), and the norm /
RoPE / activation operators are the sums of the fused kernels of the layer between the same anchors
(the kernels that hold a RoPE op for RoPE, every kernel between the up and down projections for the
activation). Their errors are reported per operator kind, held-out rows apart. Then with vLLM's kernels:
`lightsim --fuse vllm` on the unfused graph (its row kernels, ir/fusion/vllm_kernels.h; the kernels named as
`lightsim-graph --fuse vllm` names them).

  scripts/fidelity_gpu.py [--build build] [--hw configs/a100.json] [--out configs/measured/a100-fidelity]
                          [--calibration-tokens 32,3072]
  scripts/fidelity_gpu.py --calibrate     fit main_loop_efficiency and memory_efficiency on the GEMMs of the
                                          TP=1 rows at --calibration-tokens (least squares of the replay's
                                          relative errors, coordinate search on a 0.01 grid), print them
                                          and stop; configs/generate.py holds the values.
  scripts/fidelity_gpu.py --calibrate-rows  fit row_step_latency_ns and row_memory_efficiency on the vllm
                                          kernels of the same rows (norms, RoPE, activation; 10 ns and 0.01
                                          grids), print them and stop.

Needs Debian's python3 (h5py, numpy, matplotlib).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from atomic_output import savefig_atomic, write_atomic  # noqa: E402
import grid_search  # noqa: E402
import script_args  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV = os.path.join(os.path.dirname(ROOT), "shared", "reference", "measured", "a100_llama2_7b_fp16_kernels.csv")
GEMMS = ["attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"]
OTHERS = ["emb", "input_layernorm", "attn_rope", "post_attention_layernorm", "mlp_act", "add"]
FUSED = ["input_layernorm", "attn_rope", "post_attention_layernorm", "mlp_act"]  # compared with fusion on
OPERATORS = ["emb", "input_layernorm", "attn_pre_proj", "attn_rope", "attn_post_proj",
             "post_attention_layernorm", "mlp_up_proj", "mlp_act", "mlp_down_proj", "add"]


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


# PyTorch's fused RMSNorm (F.rms_norm on CUDA: aten/src/ATen/native/cuda/layer_norm_kernel.cu,
# launch_vectorized_layer_norm_kernel) as a row kernel of lightsim's vllm fusion: one CTA per row of 128
# threads (block (32, 4)), 4 elements per access (aligned_vector<T, 4>: 8 bytes in fp16), the row read for
# its statistics and again to scale it (two passes). The compiler section the H100 / H200 scripts run with,
# since our measurements are PyTorch's kernels, not vLLM's.
PYTORCH_ROW_KERNELS = {"row_cta_threads": 128, "vector_access_bytes": 8, "vectorize_row_kernels": True}


def gpu_only_config(path, overrides=None, compiler=None):
    """The config's GPU alone (its memory, its model), with every op and tensor on it; `overrides` replace
    GPU fields (calibration), `compiler` is its compiler section (none: defaults). Also used by
    scripts/fidelity_h100.py and scripts/fidelity_forward.py."""
    with open(path) as f:
        cfg = json.load(f)
    gpu = next(u for u in cfg["units"] if u["kind"] == "gpu")
    gpu.update(overrides or {})
    only = {"name": cfg["name"] + "-gpu-only", "description": "GPU alone (scripts/fidelity_gpu.py)",
            "units": [gpu], "memories": [m for m in cfg["memories"] if m["name"] == gpu["memory"]],
            "links": [], "placement": {"inputs": gpu["name"], "params": gpu["name"]},
            "models": {gpu["model"]: cfg["models"][gpu["model"]]}}
    if compiler:
        only["compiler"] = dict(compiler)
    return only, gpu


def layer_operators(graph):
    """Node names of the first decoder layer, per CSV operator, from the TVM graph's structure."""
    nodes = graph["nodes"]
    func = [n["attrs"].get("func_name", "") if n["op"] != "null" else "" for n in nodes]
    kind = [f.replace("tvmgen_default_fused_", "") for f in func]

    def is_(i, name):
        return kind[i] == name or kind[i].startswith(name + "_")

    calls = [i for i, n in enumerate(nodes) if n["op"] != "null" and func[i] != "__nop"]
    dense = [i for i in calls if is_(i, "nn_dense")]
    pre, post, up, down = dense[:4]
    emb = next(i for i in calls if is_(i, "take"))
    bmm = next(i for i in calls if is_(i, "nn_batch_matmul"))
    residual_attn = next(i for i in calls if i > post and is_(i, "add"))
    residual_mlp = next(i for i in calls if i > down and is_(i, "add"))
    inputs = lambda i: [e[0] for e in nodes[i]["inputs"]]  # noqa: E731
    # RoPE: per q and k, x * cos, the two strided slices, negative, concatenate, rotated * sin, and the
    # add of the two products; the multiplies are the ones that read a cos / sin table (a weight).
    rope_muls = [i for i in calls if pre < i < bmm and is_(i, "multiply")
                 and any(nodes[j]["op"] == "null" and nodes[j]["name"] != "input_ids" and
                         len(graph["attrs"]["shape"][1][graph["node_row_ptr"][j]]) == 4 for j in inputs(i))]
    rope = [i for i in calls if pre < i < bmm and
            (is_(i, "strided_slice") or is_(i, "negative") or is_(i, "concatenate") or i in rope_muls or
             (is_(i, "add") and all(j in rope_muls for j in inputs(i))))]
    ops = {
        "emb": [emb],
        "input_layernorm": [i for i in calls if emb < i < pre],
        "attn_pre_proj": [pre],
        "attn_rope": rope,
        "attn_post_proj": [post],
        "post_attention_layernorm": [i for i in calls if residual_attn < i < up],
        "mlp_up_proj": [up],
        "mlp_act": [i for i in calls if up < i < down and not is_(i, "split")],
        "mlp_down_proj": [down],
        "add": [residual_mlp],
    }
    return {k: [nodes[i]["name"] for i in v] for k, v in ops.items()}


def fused_layer_operators(graph):
    """Node names of the first decoder layer's fused kernels, per CSV operator (norms, RoPE, activation)."""
    nodes = graph["nodes"]
    body = [n["attrs"].get("func_name", "").replace("tvmgen_default_fused_", "") if n["op"] != "null" else ""
            for n in nodes]
    calls = [i for i, n in enumerate(nodes) if n["op"] != "null" and body[i] != "__nop"]
    has = lambda i, name: ("_" + name + "_") in ("_" + body[i] + "_")  # noqa: E731
    dense = [i for i in calls if body[i].startswith("nn_dense")]
    pre, post, up, down = dense[:4]
    emb = next(i for i in calls if has(i, "take"))
    bmm = next(i for i in calls if has(i, "nn_batch_matmul"))
    rope = [i for i in calls if pre < i < bmm and
            any(has(i, op) for op in ("strided_slice", "negative", "concatenate"))]
    ops = {
        "input_layernorm": [i for i in calls if emb < i < pre],
        "attn_rope": rope,
        "post_attention_layernorm": [i for i in calls if post < i < up],
        "mlp_act": [i for i in calls if up < i < down],
    }
    return {k: [nodes[i]["name"] for i in v] for k, v in ops.items()}


def model_times(build, hw_path, overrides, tokens, tp, work, fuse="none"):
    """Per CSV operator: (arithmetic model us, replay us, kernels) for one row."""
    def graph(mode):
        path = os.path.join(work, "llama_%d_tp%d_%s.json" % (tokens, tp, mode))
        if not os.path.exists(path):
            run([os.path.join(build, "sim", "lightsim-graph"), "--model", "llama2-7b", "--dtype", "float16",
                 "--seq", str(tokens), "--layers", "1", "--merge-projections", "--tensor-parallel", str(tp),
                 "--fuse", mode, "-o", path])
        return path
    # A tvm-fused build is imported as TVM wrote it; vLLM's kernels are formed by lightsim's own pass on
    # the unfused graph (a written graph does not keep their row-kernel geometry), named as the same pass
    # names them in lightsim-graph's output.
    graph_path = graph(fuse)
    run_path = graph("none") if fuse == "vllm" else graph_path
    cfg, gpu = gpu_only_config(hw_path, overrides)
    cfg_path = os.path.join(work, "gpu.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    trace = os.path.join(work, "run.h5")
    run([os.path.join(build, "sim", "lightsim"), "--hw", cfg_path, "--graph", run_path, "--trace", trace,
         "--progress", "never"] + (["--fuse", "vllm"] if fuse == "vllm" else []))
    with open(graph_path) as f:
        names = (layer_operators if fuse == "none" else fused_layer_operators)(json.load(f))
    with h5py.File(trace, "r") as h:
        ops = h["ops"][:]
    row = {n.decode(): i for i, n in enumerate(ops["name"])}
    gap_s = gpu["kernel_gap_ns"] * 1e-9
    out = {}
    for op, members in names.items():
        r = [ops[row[n]] for n in members]
        pred = sum(x["predicted_end_s"] - x["predicted_start_s"] - gap_s for x in r)
        sim = sum(x["simulated_end_s"] - x["simulated_start_s"] - gap_s for x in r)
        out[op] = (pred * 1e6, sim * 1e6, len(r))
    return out


def read_csv(path):
    with open(path) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]


def evaluate(args, rows, overrides, work, fuse="none"):
    results = []
    for r in rows:
        tokens, tp = int(r["num_tokens"]), int(r["tensor_parallel"])
        times = model_times(args.build, args.hw, overrides, tokens, tp, work, fuse)
        for op in (OPERATORS if fuse == "none" else FUSED):
            measured = r[op + "_median_us"]
            pred, sim, kernels = times[op]
            results.append({"tokens": tokens, "tp": tp, "op": op, "measured": measured, "arith": pred,
                            "replay": sim, "kernels": kernels})
    return results


def err(model, measured):
    return (model - measured) / measured


def coordinate_search(loss, grids, start):
    """Minimise loss(a, b) over two grids (scripts/grid_search.py)."""
    (x, y), value = grid_search.coordinate_search(lambda v: loss(*v), grids, start)
    return x, y, value


def calibrate(args, rows, calib, work):
    """main_loop_efficiency and memory_efficiency from the GEMMs of the calibration rows (unfused build)."""
    rows = [r for r in rows if int(r["tensor_parallel"]) == 1 and int(r["num_tokens"]) in calib]
    cache = {}

    def loss(main_loop, memory):
        key = (main_loop, memory)
        if key not in cache:
            res = evaluate(args, rows, {"main_loop_efficiency": main_loop, "memory_efficiency": memory}, work)
            cache[key] = sum(err(x["replay"], x["measured"]) ** 2 for x in res if x["op"] in GEMMS)
            print("main_loop_efficiency %.2f memory_efficiency %.2f: sum of squared GEMM errors %.5f" %
                  (main_loop, memory, cache[key]), file=sys.stderr)
        return cache[key]

    grid = [round(0.3 + 0.01 * i, 2) for i in range(71)]  # 0.30 .. 1.00
    return coordinate_search(loss, (grid, grid), (0.8, 0.8))


def calibrate_rows(args, rows, calib, work):
    """row_step_latency_ns and row_memory_efficiency from vLLM's norm / RoPE / activation kernels of the
    calibration rows (lightsim's vllm fusion: its row kernels)."""
    rows = [r for r in rows if int(r["tensor_parallel"]) == 1 and int(r["num_tokens"]) in calib]
    cache = {}

    def loss(latency, efficiency):
        key = (latency, efficiency)
        if key not in cache:
            res = evaluate(args, rows, {"row_step_latency_ns": latency, "row_memory_efficiency": efficiency},
                           work, "vllm")
            cache[key] = sum(err(x["replay"], x["measured"]) ** 2 for x in res)
            print("row_step_latency_ns %.0f row_memory_efficiency %.2f: sum of squared errors %.5f" %
                  (latency, efficiency, cache[key]), file=sys.stderr)
        return cache[key]

    latencies = [float(10 * i) for i in range(1, 101)]  # 10 .. 1000 ns
    efficiencies = [round(0.3 + 0.01 * i, 2) for i in range(71)]
    return coordinate_search(loss, (latencies, efficiencies), (500.0, 0.78))


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def fused_section(fused, calib, heading, intro):
    """The norm / RoPE / activation operators with fusion on: per kind, held-out mean and max |error|."""
    held = [x for x in fused if not (x["tp"] == 1 and x["tokens"] in calib)]
    lines = ["", heading, "", intro, "",
             "Goal (issue 13): within 25%% on the held-out rows. Per operator kind, held-out rows (%d of them):" %
             len({(x["tokens"], x["tp"]) for x in held}), "",
             "| operator | fused kernels | replay mean / max abs error | arithmetic mean / max abs error |",
             "|---|---|---|---|"]
    for op in FUSED:
        rs = [x for x in held if x["op"] == op]
        er = [abs(err(x["replay"], x["measured"])) for x in rs]
        ea = [abs(err(x["arith"], x["measured"])) for x in rs]
        kernels = sorted({x["kernels"] for x in rs})
        lines.append("| %s | %s | %.1f%% / %.1f%% | %.1f%% / %.1f%% |" %
                     (op, "/".join(str(k) for k in kernels), 100 * mean(er), 100 * max(er), 100 * mean(ea),
                      100 * max(ea)))
    lines += ["", "| tokens | TP | set | operator | fused kernels | measured (us) | replay (us) | replay error | "
              "arithmetic (us) | arithmetic error |", "|---|---|---|---|---|---|---|---|---|---|"]
    for x in fused:
        s = "calibration" if (x["tp"] == 1 and x["tokens"] in calib) else "held-out"
        lines.append("| %d | %d | %s | %s | %d | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% |" %
                     (x["tokens"], x["tp"], s, x["op"], x["kernels"], x["measured"], x["replay"],
                      100 * err(x["replay"], x["measured"]), x["arith"], 100 * err(x["arith"], x["measured"])))
    return lines


# Llama-2-7B's hidden and MLP sizes, and the bytes of an fp16 element: for the least traffic of each operator.
HIDDEN, INTERMEDIATE, FP16_BYTES = 4096, 11008, 2


def least_bytes(op, tokens, tp):
    """Bytes the operator must move at the least (each input read once, each output written once), as the
    measured kernels compute it: the norms and the add are not sharded by tensor parallelism; vLLM's
    post-attention RMSNorm adds the residual too and writes both (fused_add_rms_norm); RoPE reads and writes
    the shard's Q and K; SiLU-and-multiply reads gate and up and writes their product."""
    rows = {"add": 3 * HIDDEN, "input_layernorm": 2 * HIDDEN, "post_attention_layernorm": 4 * HIDDEN,
            "attn_rope": 4 * HIDDEN // tp, "mlp_act": 3 * INTERMEDIATE // tp}
    return tokens * rows[op] * FP16_BYTES


def bandwidth_section(rows, gpu, hbm_GBps):
    """What the measured memory-bound kernels reach: least bytes / measured time, against the HBM's peak and
    what lightsim streams at (memory_efficiency x peak), at the largest TP-1 row."""
    row = max((r for r in rows if r["tensor_parallel"] == 1), key=lambda r: r["num_tokens"])
    tokens = row["num_tokens"]
    lines = ["", "Why TVM's fused kernels are not within 25%%: the measured kernels are vLLM's own. The "
             "bandwidth they reach at %d tokens, TP 1 (least bytes: each input read once, "
             "each output written once; HBM peak %.0f GB/s; lightsim's fused kernels stream at "
             "memory_efficiency x peak = %.0f GB/s, as the GEMMs' operands do):" %
             (tokens, hbm_GBps, gpu["memory_efficiency"] * hbm_GBps), "",
             "| operator | least bytes (MB) | measured (us) | reached (GB/s) | of the HBM peak |", "|---|---|---|---|---|"]
    for op in ["add", "input_layernorm", "post_attention_layernorm", "attn_rope", "mlp_act"]:
        b = least_bytes(op, tokens, 1)
        us = row[op + "_median_us"]
        lines.append("| %s | %.1f | %.1f | %.0f | %.0f%% |" % (op, b / 1e6, us, b / us / 1e3,
                                                             100 * b / us / 1e3 / hbm_GBps))
    lines += ["", "The plain residual add streams near the peak; vLLM's RMSNorm, RoPE and SiLU-and-multiply "
              "kernels of this profile reach a third to two thirds of it, and their rate is set by the kernel, "
              "not by the HBM: the two RMSNorms take the same time for twice the bytes, and the same bytes "
              "take different times at different token counts and TP degrees (these kernels launch one thread "
              "block per token, too few at few tokens to fill the SMs). Three "
              "differences are structural: vLLM's post-attention RMSNorm also does the residual add before it "
              "(one kernel writing two outputs), which TVM's FuseOps does not form (the add's result has a "
              "second consumer, the next residual add), so TVM runs it as three kernels (the add and "
              "TVM's two RMSNorm kernels: the reduction, then the scaling); TVM splits RMSNorm into those "
              "two kernels where vLLM has one; and TVM rotates Q and K in two kernels where vLLM has one. "
              "The `vllm` fusion mode below models those kernels."]
    return lines


VLLM_INTRO = (
    "`lightsim --fuse vllm` (ir/fusion/vllm_kernels.h) forms vLLM's kernels on top of TVM's groups: RMSNorm as one "
    "kernel, the residual add fused into the norm after it (two outputs, 16-byte vector accesses as vLLM's "
    "fused_add_rms_norm), RoPE on Q and K in one launch, SiLU-and-multiply as TVM forms it. Each is a row kernel "
    "(ir/cost/gpu_kernel.h): one CTA per row, the rows in waves of max_threads_per_sm / threads CTAs per SM, each "
    "CTA stepping through its row's accesses threads at a time, each step one round trip (row_step_latency_ns = "
    "%g) plus the wave's bytes of that step at row_memory_efficiency (%.2f) x the HBM peak. Those two constants are "
    "the only fitted figures, by `scripts/fidelity_gpu.py --calibrate-rows` on the calibration rows' four "
    "operators; the geometry (rows, accesses per row, threads, passes) comes from the graph.")


def vllm_intro(gpu):
    return VLLM_INTRO % (gpu["row_step_latency_ns"], gpu["row_memory_efficiency"])


def write_report(out, results, calib, hw_path, gpu, fused=(), rows=(), hbm_GBps=0.0, vllm=()):
    held = [x for x in results if not (x["tp"] == 1 and x["tokens"] in calib)]
    cal = [x for x in results if x["tp"] == 1 and x["tokens"] in calib]

    def stats(rs, ops, model):
        e = [abs(err(x[model], x["measured"])) for x in rs if x["op"] in ops]
        return mean(e), max(e) if e else float("nan"), len(e)

    lines = ["# Fidelity: Llama-2-7B fp16 prefill kernels on an A100-SXM4-80GB", ""]
    lines += ["Generated by `scripts/fidelity_gpu.py` from `%s` (GPU `%s`: main_loop_efficiency %.2f, "
                 "memory_efficiency %.2f, launch_latency_ns %g, kernel_gap_ns %g). Measured: "
                 "`../shared/reference/measured/a100_llama2_7b_fp16_kernels.csv` (median kernel times of one "
                 "decoder layer, vLLM on an A100-SXM4-80GB, from Vidur's public profiling data). Graphs: "
                 "`lightsim-graph --model llama2-7b --dtype float16 --seq N --layers 1 --merge-projections "
                 "--tensor-parallel T`, run on the config's GPU alone; arithmetic = the arithmetic model's "
                 "op times (list schedule), replay = the SystemC replay, each op's time less the kernel gap. "
                 "Error = (model - measured) / measured. Calibration rows: TP 1 at %s tokens (the two "
                 "efficiencies were fitted on their GEMMs); every other row is held out." %
                 (os.path.relpath(hw_path, ROOT), gpu["name"], gpu["main_loop_efficiency"],
                  gpu["memory_efficiency"], gpu["launch_latency_ns"], gpu["kernel_gap_ns"],
                  " and ".join(str(t) for t in sorted(calib))), ""]
    for model, name in [("replay", "SystemC replay"), ("arith", "arithmetic model")]:
        m, worst, n = stats(held, GEMMS, model)
        lines.append("- **%s, held-out GEMMs**: mean |error| %.1f%%, worst %.1f%% (%d operators)" %
                     (name, 100 * m, 100 * worst, n))
    for model, name in [("replay", "SystemC replay"), ("arith", "arithmetic model")]:
        m, worst, n = stats(cal, GEMMS, model)
        lines.append("- %s, calibration GEMMs: mean |error| %.1f%%, worst %.1f%% (%d operators)" %
                     (name, 100 * m, 100 * worst, n))
    for model, name in [("replay", "SystemC replay"), ("arith", "arithmetic model")]:
        m, worst, n = stats(results, OTHERS, model)
        lines.append("- %s, the other operators (norms, RoPE, activation, embedding, add; unfused ops summed, "
                     "all rows): mean |error| %.1f%%, worst %.1f%% (%d operators; not bounded: they depend on "
                     "operator fusion)" % (name, 100 * m, 100 * worst, n))
    lines += ["", "| tokens | TP | set | operator | kernels | measured (us) | replay (us) | replay error | "
              "arithmetic (us) | arithmetic error |", "|---|---|---|---|---|---|---|---|---|---|"]
    for x in results:
        s = "calibration" if (x["tp"] == 1 and x["tokens"] in calib) else "held-out"
        lines.append("| %d | %d | %s | %s | %d | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% |" %
                     (x["tokens"], x["tp"], s, x["op"] + (" (GEMM)" if x["op"] in GEMMS else ""), x["kernels"],
                      x["measured"], x["replay"], 100 * err(x["replay"], x["measured"]), x["arith"],
                      100 * err(x["arith"], x["measured"])))
    if fused:
        lines += fused_section(fused, calib, "## With TVM's fusion (`lightsim-graph --fuse tvm`: TVM's FuseOps groups)",
                               "The fused build as TVM writes it, imported and costed as TVM's kernels (they "
                               "stream at memory_efficiency x the HBM peak).")
        if rows and hbm_GBps > 0:
            lines += bandwidth_section(rows, gpu, hbm_GBps)
    if vllm:
        lines += fused_section(vllm, calib, "## With vLLM's kernels (`lightsim --fuse vllm`)", vllm_intro(gpu))
    write_atomic(out + ".md", "\n".join(lines) + "\n")

    panels_n = 2 + bool(fused) + bool(vllm)
    fig, axes = plt.subplots(1, panels_n, figsize=(6 * panels_n, 5.5))
    panels = [(axes[0], GEMMS, "GEMMs", results), (axes[1], OTHERS, "other operators (unfused ops summed)", results)]
    if fused:
        panels.append((axes[2], FUSED, "norms, RoPE, activation (TVM fusion)", list(fused)))
    if vllm:
        panels.append((axes[-1], FUSED, "norms, RoPE, activation (vLLM kernels)", list(vllm)))
    for ax, ops, title, results in panels:
        held = [x for x in results if not (x["tp"] == 1 and x["tokens"] in calib)]
        cal = [x for x in results if x["tp"] == 1 and x["tokens"] in calib]
        lo = min(min(x["measured"], x["replay"], x["arith"]) for x in results if x["op"] in ops) / 1.5
        hi = max(max(x["measured"], x["replay"], x["arith"]) for x in results if x["op"] in ops) * 1.5
        ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="0.88", zorder=0,
                        label="+-10%")
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, zorder=1)
        for rs, label, face in [(held, "held out", None), (cal, "calibration", "none")]:
            pts = [x for x in rs if x["op"] in ops]
            if not pts:
                continue
            ax.scatter([x["measured"] for x in pts], [x["replay"] for x in pts], marker="o", zorder=2,
                       facecolors=face or "tab:blue", edgecolors="tab:blue", label="replay, " + label)
            ax.scatter([x["measured"] for x in pts], [x["arith"] for x in pts], marker="x" if face is None else "+",
                       color="tab:orange", zorder=3, label="arithmetic, " + label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("measured kernel time (us)")
        ax.set_ylabel("lightsim (us)")
        ax.set_title("A100 Llama-2-7B fp16: " + title)
        ax.legend(fontsize=8)
    fig.tight_layout()
    savefig_atomic(fig, out + ".png", dpi=110)


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--hw", default=os.path.join(ROOT, "configs", "a100.json"))
    ap.add_argument("--csv", default=CSV)
    ap.add_argument("--out", default=os.path.join(ROOT, "configs", "measured", "a100-fidelity"))
    ap.add_argument("--calibration-tokens", default="32,3072")
    ap.add_argument("--calibrate", action="store_true", help="fit the GEMM efficiencies and stop")
    ap.add_argument("--calibrate-rows", action="store_true", help="fit the row-kernel constants and stop")
    args = ap.parse_args()
    calib = set(int(x) for x in args.calibration_tokens.split(","))
    rows = read_csv(args.csv)
    with tempfile.TemporaryDirectory() as work:
        if args.calibrate:
            main_loop, memory, loss = calibrate(args, rows, calib, work)
            print("main_loop_efficiency %.2f memory_efficiency %.2f (sum of squared relative GEMM errors %.5f on "
                  "TP 1 at %s tokens)" % (main_loop, memory, loss, sorted(calib)))
            return
        if args.calibrate_rows:
            latency, efficiency, loss = calibrate_rows(args, rows, calib, work)
            print("row_step_latency_ns %.0f row_memory_efficiency %.2f (sum of squared relative errors %.5f of "
                  "the norm / RoPE / activation kernels, vllm fusion, TP 1 at %s tokens)" %
                  (latency, efficiency, loss, sorted(calib)))
            return
        results = evaluate(args, rows, {}, work)
        fused = evaluate(args, rows, {}, work, "tvm")
        vllm = evaluate(args, rows, {}, work, "vllm")
    config, gpu = gpu_only_config(args.hw, {})
    write_report(args.out, results, calib, args.hw, gpu, fused, rows, config["memories"][0]["bandwidth_GBps"], vllm)
    print("wrote %s.md and %s.png" % (args.out, args.out))


if __name__ == "__main__":
    main()
