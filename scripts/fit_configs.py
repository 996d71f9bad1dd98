#!/usr/bin/env python3
"""Fits the realistic configs' arithmetic models to their own SystemC modules (configs/fitted/*.json).

The shipped configs' models start as formulas of the unit parameters (configs/generate.py); the SystemC
modules time ops in more detail (caches, GEMM kernels, weight tiles, converters). This script makes the two
agree, reproducibly:

  1. `configs/generate.py --analytic DIR` writes the configs without any fitted entry (the fit's start, so a
     refit never depends on the previous one);
  2. `lightsim-graph` writes the training set (TRAINING below: GPT-2 and Llama-2-7B, prefill and decode, at
     lengths other than those of the shared models, which are held out; two CNNs and two encoders);
  3. per arithmetic model, `lightsim --hw <training config> --graph <training set> --retrain fit.json`,
     where the training config is the model's config (FITS below) with every op class that the model runs
     taken from the other units' models: the unit runs every op of the training set that it can, so each
     entry is fitted on the whole range of shapes (under a plain config the solver would give a unit only the
     ops it wins, often one shape, and an objective that moves other ops there would meet an unfitted
     regime);
  4. the entries the retrain fitted (its report's status "fitted") go to configs/fitted/<model>.json;
     configs/generate.py puts them in every config that uses the model. Entries with too few samples keep
     the formulas.

Then rerun `python3 configs/generate.py` and commit both. `--check` refits into a temporary directory and
fails (exit 1) when the committed fits differ from it: a module whose timing or energy changed without a
refit (ctest Configs.FitsAreCurrent). `--agreement` runs `lightsim --hw configs/<config> --graph <shared
model> --objective <objective> --simulate --json` for every shipped realistic config, shared model
(../shared/models, held out of the fit: the four TVM exports and the four ONNX exports, SHARED_ONNX, with
their --dim bindings) and objective, prints the table of configs/README.md ("Fitted
models") and fails (exit 1) when a makespan or energy error exceeds 2% or a per-(unit, op class) median
|error| exceeds 3%, except the misses KNOWN_MISSES lists with their cause (ctest Configs.AgreeWithModules).
Standard library only.

  scripts/fit_configs.py [--build build] [--out configs/fitted] [--check | --agreement [--extra] [--markdown]]
"""
import json
import math
import os
import sys
import tempfile
import script_args

from tool_run import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# lightsim-graph arguments of each training graph: 10 transformer graphs, so that a class every graph has
# once (take, less) still has the 8 samples a fit needs, among them a decode at 256 tokens of context so
# that the elementwise ops have memory-bound samples of several sizes (without it the CPU's memory-bound
# pieces see one compute size and confuse it with the dispatch time) and an fp16 prefill with merged
# projections (splits and activations fused behind them, in another dtype: without it a class's samples
# have one ratio of compute cycles to bytes, and the fit cannot tell compute time from memory time), and two
# CNNs and two encoders for their classes (convolutions, pooling, clips, normalisation). The shared models (GPT-2 at 5 and 5+1 tokens, Llama-2-7B at
# 10 and 10+1) are not among them, nor ResNet-50 and BERT-large (held out, --agreement --extra).
TRAINING = [["--model", "gpt2", "--phase", "prefill", "--seq", "2"],
            ["--model", "gpt2", "--phase", "prefill", "--seq", "16"],
            ["--model", "gpt2", "--phase", "prefill", "--seq", "128"],
            ["--model", "gpt2", "--phase", "decode", "--seq", "8"],
            ["--model", "gpt2", "--phase", "decode", "--seq", "64"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "4"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "32"],
            ["--model", "llama2-7b", "--phase", "decode", "--seq", "32"],
            ["--model", "llama2-7b", "--phase", "decode", "--seq", "256"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "16", "--dtype", "float16", "--merge-projections"],
            ["--model", "resnet18"], ["--model", "mobilenet-v2"],
            ["--model", "bert-base", "--seq", "64"], ["--model", "vit-b16"]]
# Graphs some models are fitted on besides TRAINING: the GPU of h100.json and h200.json passes over softmax rows
# longer than its one_pass_row_elements more than once (row_reread_bytes); rows that long, and rows as long as
# the limit of as many bytes from memory, one layer each, tell that feature from memory_operand_bytes.
LONG_ROWS = [["--model", "llama2-7b", "--phase", "prefill", "--seq", "1536", "--layers", "1", "--dtype", "float16"],
             ["--model", "llama2-7b", "--phase", "prefill", "--seq", "1024", "--layers", "1", "--dtype", "float16"]]
# And the L2's reach (gpu_l2_bytes): activations of 2 to 86 MiB per kernel, within the reach, part beyond it
# and wholly beyond it, so that memory_operand_bytes and memory_round_trip_us are fitted on every regime, and
# softmaxes bound by their instructions (row_reduction_cycles_per_element) with their rows in the L2.
L2_REACH = [["--model", "llama2-7b", "--phase", "prefill", "--seq", "256", "--layers", "1", "--dtype", "float16"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "512", "--layers", "1", "--dtype", "float16"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "4096", "--layers", "1", "--dtype", "float16"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "2048", "--layers", "1", "--dtype", "float16"]]
# And the photonic card's compute-bound GEMMs: DOTA-B's array (photonic.json) re-reads the streamed operand from
# the SRAM for every 48-column block, so in fp32 and fp16 its GEMMs bind on the SRAM's bandwidth; in int8 (one
# byte per element) the array's cycles bind. Two int8 prefills give the fit that side of the roofline.
PHU_LONG = [["--model", "gpt2", "--phase", "prefill", "--seq", "256", "--layers", "2", "--dtype", "int8"],
            ["--model", "llama2-7b", "--phase", "prefill", "--seq", "64", "--layers", "1", "--dtype", "int8"]]
# And the host's pooling: TRAINING's two CNNs have three pools, too few for a fit, so the host's `pool` kept
# its roofline formula, which streams every operand from memory while the module streams a working set that
# fits a cache from that cache (3-4x faster on ResNet-50's int8 and fp16 pools). CNNs at other batch sizes and
# types give it eight more.
POOLS = [["--model", "resnet18", "--batch", "4"], ["--model", "resnet18", "--batch", "2", "--dtype", "int8"],
         ["--model", "resnet18", "--batch", "8", "--dtype", "float16"], ["--model", "resnet50", "--batch", "2"]]
EXTRA_TRAINING = {"host-cpu-roofline": POOLS, "h100-sxm5": LONG_ROWS + L2_REACH, "h200-sxm": LONG_ROWS + L2_REACH, "phu-roofline": PHU_LONG,
                  "phu-vector-roofline": PHU_LONG, "phu-hbm-roofline": PHU_LONG}
# (arithmetic model, config it is fitted on).
FITS = [("host-cpu-roofline", "cpu.json"), ("h100", "gpu.json"), ("h100-sxm5", "h100.json"),
        ("h200-sxm", "h200.json"), ("a100", "a100.json"),
        ("phu-roofline", "photonic.json"), ("phu-vector-roofline", "photonic-x4.json"),
        ("phu-hbm-roofline", "photonic-copackaged.json")]
RETRAIN_ROUNDS = 8
# --agreement: the configs, the held-out graphs, the objectives and the bounds.
AGREEMENT_CONFIGS = ["cpu.json", "gpu.json", "photonic.json", "photonic-copackaged.json", "a100.json", "h100.json",
                     "h200.json"]
SHARED_MODELS = ["gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json", "llama2_7b_decoder.json"]
# And the shared ONNX exports (their PaddleOCR CNNs bring classes the training graphs hardly have: batch norms,
# resizes, transposed convolutions, cache-resident element ops), each with the --dim bindings it needs:
# name -> (file under ../shared/models, lightsim arguments).
_DYN = "p2o.DynamicDimension"
SHARED_ONNX = {"gpt2_s64": ("onnx/gpt2_s64.onnx", []),
               "ppocr_det_640": ("onnx/ch_PP-OCRv4_det_infer.onnx",
                                 ["--dim", f"{_DYN}.0=1", "--dim", f"{_DYN}.1=640", "--dim", f"{_DYN}.2=640"]),
               "ppocr_rec_320": ("onnx/ch_PP-OCRv4_rec_infer.onnx", ["--dim", f"{_DYN}.0=1", "--dim", f"{_DYN}.1=320"]),
               "ppocr_cls_192": ("onnx/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                                 ["--dim", f"{_DYN}.0=1", "--dim", f"{_DYN}.1=48", "--dim", f"{_DYN}.2=192"])}
OBJECTIVES = ["time", "energy", "edp"]
# --agreement --extra: held-out CNN / encoder graphs, reported, not bounded.
EXTRA_MODELS = [["--model", "resnet50"], ["--model", "bert-large", "--seq", "128"]]
MAX_END_TO_END_ERROR = 0.02  # makespan and energy
MAX_CLASS_MEDIAN_ERROR = 0.03  # per (unit, op class) median |error| of op durations
# (config, model, objective, check) -> cause; check is "makespan", "energy" or "unit/op class". Every other
# check of every case must hold. None today: the host CPU's fused add / multiply chains, the last known misses,
# agree since the CPU features weight a fused tail per member class (tail_cycles) as the module times it.
KNOWN_MISSES = {}
REL_TOL = 1e-6  # --check: equal up to rounding (the fit is deterministic; builds may round differently)


def graph_name(args):
    return "_".join(a.removeprefix("--") for a in args) + ".json"


def training_config(path, model, work):
    """The config at `path` with the op classes of `model` removed from every other model (inputs stay), and
    latency hiding off: the fit is of each op on its module, without load stages (a schedule effect, not an
    op's cost) and with single-buffered PHU weight tiles; a fitted PHU form sees the double buffering only
    through compute_cycles, where the fit gives it a coefficient.

    A model that runs only some classes (the PHU: GEMMs and its periphery's elementwise classes) is fitted
    on the unfused graphs (compiler.fuse = none): a fused group needs one unit that runs all of its members,
    and groups such as conv2d + clip or take + less + add have members that only the CPU and GPU run. Its
    fused ops are then costed by the same entries on the fused op's features (compute_cycles: the larger of
    the array's and the periphery's cycles; operand_bytes: the group's boundary), as the module times them."""
    with open(path) as f:
        config = json.load(f)
    config["latency_hiding"] = False
    classes = set(config["models"][model]) - {"input"}
    others = set().union(*(set(e) for n, e in config["models"].items() if n != model))
    if others - classes - {"input"}:
        config["compiler"] = dict(config.get("compiler", {}), fuse="none")
    for name, entries in config["models"].items():
        if name != model:
            config["models"][name] = {c: e for c, e in entries.items() if c not in classes}
    out = os.path.join(work, f"{model}.training.json")
    with open(out, "w") as f:
        json.dump(config, f, indent=2)
    return out


def fit(build, work):
    """Returns {model: fitted file content}."""
    lightsim = os.path.join(build, "sim", "lightsim")
    graphgen = os.path.join(build, "sim", "lightsim-graph")
    base = os.path.join(work, "analytic")
    os.makedirs(base, exist_ok=True)
    run([sys.executable, os.path.join(ROOT, "configs", "generate.py"), "--analytic", base])
    def written(args):
        path = os.path.join(work, graph_name(args))
        if not os.path.exists(path):
            run([graphgen, *args, "-o", path])
        return path
    fitted = {}
    for model, config in FITS:
        graphs = [written(args) for args in TRAINING + EXTRA_TRAINING.get(model, [])]
        out = os.path.join(work, f"{model}.fit.json")
        run([lightsim, "--hw", training_config(os.path.join(base, config), model, work), "--graph", graphs[0], "--retrain-graphs", *graphs[1:],
             "--retrain", out, "--retrain-rounds", str(RETRAIN_ROUNDS)])
        with open(out) as f:
            entries = json.load(f)["models"][model]
        with open(os.path.join(work, f"{model}.fit.report.json")) as f:
            report = json.load(f)
        status = {e["op_class"]: e for e in report["rounds"][-1]["entries"] if e["model"] == model}
        kept = sorted(c for c, e in status.items() if e["status"] != "fitted")
        fitted[model] = {
            "comment": "Written by scripts/fit_configs.py: entries of this model fitted by lightsim --retrain to "
                       "the SystemC modules; configs/generate.py puts them in every config that uses it.",
            "fitted_on": {"config": config, "objective": "time", "rounds": len(report["rounds"]),
                          "converged": report["converged"],
                          "graphs": ["lightsim-graph " + " ".join(args)
                                     for args in TRAINING + EXTRA_TRAINING.get(model, [])],
                          "kept_formula": {c: status[c].get("note", status[c]["status"]) for c in kept}},
            "entries": {c: entries[c] for c in sorted(status) if status[c]["status"] == "fitted"}}
    return fitted


def agreement(lightsim, graphs):
    """Rows (config, model, objective, makespan error, energy error, worst class, its median, misses) for
    graphs {name: path, or (path, more lightsim arguments)}."""
    rows = []
    for config in AGREEMENT_CONFIGS:
        for model, graph in graphs.items():
            path, more = (graph, []) if isinstance(graph, str) else graph
            for objective in OBJECTIVES:
                out = json.loads(run([lightsim, "--hw", os.path.join(ROOT, "configs", config), "--graph", path,
                                      *more, "--objective", objective, "--simulate", "--json"]))
                check = out["simulation"]["check"]
                errors = {"makespan": check["makespan_s"]["error"], "energy": check["energy_j"]["error"]}
                misses = [k for k, e in errors.items() if abs(e) > MAX_END_TO_END_ERROR]
                classes = {f"{r['unit']}/{r['op_class']}": r["median_abs_error"] for r in check["rows"]
                           if r["count"] > r["zero_simulated"]}
                misses += [c for c, e in sorted(classes.items()) if e > MAX_CLASS_MEDIAN_ERROR]
                worst = max(sorted(classes), key=lambda c: classes[c])
                rows.append((config, model, objective, errors["makespan"], errors["energy"], worst, classes[worst],
                             misses))
    return rows


def print_agreement(rows, markdown):
    if not markdown:
        for config, model, objective, mk, en, worst, median, misses in rows:
            flag = f" (outside: {', '.join(misses)})" if misses else ""
            print(f"{config:14s} {model:24s} {objective:7s} makespan {100 * mk:+7.2f}%  energy {100 * en:+7.2f}%  "
                  f"worst {worst} {100 * median:.2f}%{flag}")
        return
    # One row per (config, model); per objective: makespan error / energy error / worst class median.
    print("| config | model | " + " | ".join(f"`{o}`: makespan / energy / worst class median" for o in OBJECTIVES) +
          " |")
    print("|---|---|" + "---|" * len(OBJECTIVES))
    by_case = {}
    for config, model, objective, mk, en, worst, median, misses in rows:
        cell = f"{100 * mk:+.2f}% / {100 * en:+.2f}% / {100 * median:.2f}%" + (f" {worst}" if median >= 5e-5 else "")
        by_case.setdefault((config, model), []).append(f"**{cell}**" if misses else cell)
    for (config, model), cells in by_case.items():
        print(f"| {config} | {model.removesuffix('.json')} | " + " | ".join(cells) + " |")


def close(a, b, scale=None):
    """Equal up to rounding: numbers to REL_TOL; a linear form's coefficients (within a fitted entry, whose
    `fit` gives the features' ranges) to REL_TOL of the form's largest term, so that terms fitted to ~0
    may differ by rounding from one build to another."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        if "fit" in a and "fit" in b:  # a fitted entry: the feature ranges scale its forms' terms
            scale = {**a["fit"].get("feature_max", {}), "intercept": 1.0}
        if scale is not None and all(isinstance(v, (int, float)) for v in a.values()) and "intercept" in a:
            size = max(max(abs(a[k]) * scale.get(k, 1.0), abs(b[k]) * scale.get(k, 1.0)) for k in a)
            return all(abs(a[k] - b[k]) * scale.get(k, 1.0) <= REL_TOL * size for k in a)
        return all(close(a[k], b[k], scale) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, scale) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=REL_TOL)
    return a == b


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (lightsim, lightsim-graph)")
    ap.add_argument("--out", default=os.path.join(ROOT, "configs", "fitted"))
    ap.add_argument("--check", action="store_true", help="refit and compare with --out instead of writing it")
    ap.add_argument("--agreement", action="store_true", help="check the shipped configs against their modules")
    ap.add_argument("--markdown", action="store_true", help="--agreement: print the table as markdown")
    ap.add_argument("--extra", action="store_true", help="--agreement on the held-out CNN / encoder graphs instead "
                    "(reported, not bounded)")
    ap.add_argument("--models", default=os.path.join(ROOT, "..", "shared", "models"), help="the shared models")
    args = ap.parse_args()
    lightsim = os.path.join(args.build, "sim", "lightsim")
    if args.agreement and args.extra:
        with tempfile.TemporaryDirectory(prefix="fit_configs.") as work:
            graphs = {}
            for extra in EXTRA_MODELS:
                graphs[graph_name(extra)] = os.path.join(work, graph_name(extra))
                run([os.path.join(args.build, "sim", "lightsim-graph"), *extra, "-o", graphs[graph_name(extra)]])
            print_agreement(agreement(lightsim, graphs), args.markdown)
        return 0
    if args.agreement:
        graphs = {m: os.path.join(args.models, m) for m in SHARED_MODELS}
        graphs.update({m: (os.path.join(args.models, f), more) for m, (f, more) in SHARED_ONNX.items()})
        rows = agreement(lightsim, graphs)
        print_agreement(rows, args.markdown)
        unexpected = [(c, m, o, k) for c, m, o, *_, misses in rows for k in misses if (c, m, o, k) not in KNOWN_MISSES]
        for c, m, o, k in unexpected:
            print(f"fit_configs.py: {c} {m} --objective {o}: {k} outside its bound (makespan and energy "
                  f"{100 * MAX_END_TO_END_ERROR:g}%, per-class median {100 * MAX_CLASS_MEDIAN_ERROR:g}%); refit "
                  f"(scripts/fit_configs.py) or find the cause", file=sys.stderr)
        for c, m, o, *_, misses in rows:
            for k in misses:
                if (c, m, o, k) in KNOWN_MISSES:
                    print(f"known miss: {c} {m} --objective {o}: {k}: {KNOWN_MISSES[(c, m, o, k)]}")
        known = sum(len(misses) for *_, misses in rows) - len(unexpected)
        print(f"fit_configs.py: {len(rows)} cases, {len(unexpected)} checks outside their bounds, {known} known misses")
        return 1 if unexpected else 0
    with tempfile.TemporaryDirectory(prefix="fit_configs.") as work:
        fitted = fit(args.build, work)
    if args.check:
        stale = []
        for model, content in fitted.items():
            path = os.path.join(args.out, model + ".json")
            committed = json.load(open(path)) if os.path.exists(path) else None
            if committed is None or not close(committed, content):
                stale.append(model)
        if stale:
            print(f"fit_configs.py: the fits of {', '.join(stale)} differ from a refit on today's modules; run "
                  f"scripts/fit_configs.py and python3 configs/generate.py, and commit", file=sys.stderr)
            return 1
        print(f"fit_configs.py: {len(fitted)} fitted models equal a refit")
        return 0
    os.makedirs(args.out, exist_ok=True)
    for model, content in fitted.items():
        with open(os.path.join(args.out, model + ".json"), "w") as f:
            json.dump(content, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.join(args.out, model + '.json')}: {len(content['entries'])} entries fitted on "
              f"{content['fitted_on']['config']}, kept the formula for {sorted(content['fitted_on']['kept_formula'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
