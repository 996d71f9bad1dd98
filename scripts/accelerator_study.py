#!/usr/bin/env python3
"""The accelerator study of issue 22: ResNet-50 and BERT-base on the systolic card, the photonic card and the
GPU, each beside the same host, under the time and the energy objective, in int8 and in fp16.

    scripts/accelerator_study.py [--build build] [--out sweeps/accelerators] [--markdown]

The machines are configs/systolic.json (the photonic machine plus a TPU-v4i-like card) cut down to the host and
one accelerator (its memory, link and model kept, the others removed), and configs/tpu-v1.json as it ships.
For every (model, dtype, machine, objective) it runs `lightsim --json --simulate` and reports the planned
makespan and energy, the replay's makespan, the share of the model's MACs placed on the accelerator (the rest
runs on the host: ops the accelerator has no model entry or no MACs for) and the accelerator's busy time.
The graphs are written by lightsim-graph into --out; nothing else is written there. Standard library only.
"""
import copy
import json
import os
import subprocess
import sys
import script_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = [("resnet50", ["--model", "resnet50", "--batch", "8"], "ResNet-50, batch 8"),
          ("bert-base", ["--model", "bert-base", "--seq", "128"], "BERT-base, 128 tokens")]
DTYPES = ["int8", "float16"]
OBJECTIVES = ["time", "energy"]
# (label, the accelerator unit kept from systolic.json, or a shipped config as it is)
MACHINES = [("GPU (H100-like)", "gpu0", None), ("photonic card", "phu0", None),
            ("systolic card (TPU-v4i-like)", "tpu0", None), ("TPU v1", None, "tpu-v1.json")]


def run(command):
    """The command's standard output. One that cannot start (a missing build) is one line and exit 2; one that
    fails, one line with its last line of stderr and exit 1."""
    me = os.path.basename(sys.argv[0])
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        print(f"{me}: cannot run {command[0]}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or [""])[-1]
        print(f"{me}: {' '.join(command)} failed ({result.returncode}): {last}", file=sys.stderr)
        sys.exit(1)
    return result.stdout


def only(config, keep):
    """The machine of `config` with its host (cpu0) and the unit `keep`: the other units, the memories and links
    only they use and their models are removed."""
    c = copy.deepcopy(config)
    units = [u for u in c["units"] if u["name"] in ("cpu0", keep)]
    memories_used = {u["memory"] for u in units}
    c["memories"] = [m for m in c["memories"] if m["name"] in memories_used or
                     any(x.get("spill_to") == m["name"] for x in c["memories"] if x["name"] in memories_used)]
    names = {u["name"] for u in units} | {m["name"] for m in c["memories"]}
    c["links"] = [l for l in c["links"] if all(e in names for e in l["endpoints"])]
    c["models"] = {m: e for m, e in c["models"].items() if m in {u["model"] for u in units}}
    c["units"] = units
    c["name"] = f"{config['name']}-{keep}"
    return c


def study_args(doc, out, out_help):
    """A study script's command line (--build, --out with `out` under sweeps/, --markdown), --out created."""
    ap = script_args.parser(doc)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build folder holding sim/lightsim")
    ap.add_argument("--out", default=os.path.join(ROOT, "sweeps", out), help=out_help)
    ap.add_argument("--markdown", action="store_true", help="print the README's Markdown table")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    return args


def main():
    args = study_args(__doc__, "accelerators", "folder for graphs, configs")
    lightsim = os.path.join(args.build, "sim", "lightsim")
    with open(os.path.join(ROOT, "configs", "systolic.json")) as f:
        systolic = json.load(f)
    configs = {}
    for label, keep, shipped in MACHINES:
        if shipped:
            configs[label] = (os.path.join(ROOT, "configs", shipped), "tpu0")
            continue
        path = os.path.join(args.out, f"host-{keep}.json")
        with open(path, "w") as f:
            json.dump(only(systolic, keep), f, indent=1)
        configs[label] = (path, keep)
    rows = []
    for model, flags, model_label in MODELS:
        for dtype in DTYPES:
            graph = os.path.join(args.out, f"{model}-{dtype}.json")
            run([os.path.join(args.build, "sim", "lightsim-graph"), *flags, "--dtype", dtype, "-o", graph])
            for label, (config, unit) in configs.items():
                for objective in OBJECTIVES:
                    out = json.loads(run([lightsim, "--hw", config, "--graph", graph, "--objective", objective,
                                          "--json", "--simulate"]))
                    on_unit = next((u for u in out["units"] if u["name"] == unit), None)
                    rows.append({"model": model_label, "dtype": dtype, "machine": label, "objective": objective,
                                 "makespan_s": out["makespan_s"], "energy_j": out["energy_j"],
                                 "replay_makespan_s": out["simulation"]["simulated_makespan_s"],
                                 "ops_on_accelerator": out["ops_by_unit"].get(unit, 0), "ops": out["ops"],
                                 "busy_s": on_unit["busy_s"] if on_unit else 0.0})
    if args.markdown:
        print("| model | dtype | machine (host +) | objective | makespan ms | replay ms | energy J | ops on it | its busy ms |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['model']} | {r['dtype']} | {r['machine']} | {r['objective']} | {1e3 * r['makespan_s']:.4g} | "
                  f"{1e3 * r['replay_makespan_s']:.4g} | {r['energy_j']:.4g} | {r['ops_on_accelerator']} / {r['ops']} | "
                  f"{1e3 * r['busy_s']:.4g} |")
    else:
        json.dump(rows, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
