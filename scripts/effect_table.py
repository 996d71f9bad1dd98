#!/usr/bin/env python3
"""The effect table of issue 13 (item 4): fusion x latency hiding on the four shared models and Llama-2-7B
prefill at 128 and 2048 tokens, on configs/photonic.json and configs/gpu.json.

    scripts/effect_table.py [--build build] [--out sweeps/effect] [--shared ../shared/models]

For every (config, graph, fusion mode, latency hiding) it runs `lightsim --json --simulate` (the time
objective) and prints one Markdown row: ops, kernel launches on the GPU (ops that do work there: views
excluded), operand bytes per memory (what the ops read and write, as the arithmetic model counts them), bytes
per link, makespan and energy as the list scheduler predicts them and as the SystemC replay finds them, and
the replay's load-stage time hidden behind compute and stalled (all units). The rows also go to
OUT/effect.csv, written through scripts/atomic_output.py (complete or untouched). Fusion modes are `none`,
`tvm`, `flash` and `vllm` when `lightsim --help` offers `--fuse`; without it (the fusion pass not built in) the table
has latency hiding off / on only, and says so. Standard library only.
"""
import csv
import json
import os
import sys

from atomic_output import atomic_path
import script_args
from tool_run import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = ["gpt2_prefill_5.json", "gpt2_decoder_5.json", "llama2_7b_prefill.json", "llama2_7b_decoder.json"]
GENERATED = [128, 2048]  # Llama-2-7B prefill lengths written by lightsim-graph
CONFIGS = ["photonic.json", "gpu.json"]


def graphs(args):
    out = [(name.replace(".json", ""), os.path.join(args.shared, name)) for name in SHARED]
    missing = [path for _, path in out if not os.path.exists(path)]
    if missing:
        sys.exit(f"effect_table: missing shared model(s): {', '.join(missing)} (--shared)")
    for seq in GENERATED:
        path = os.path.join(args.out, f"llama2_7b_prefill_{seq}.json")
        if not os.path.exists(path):
            run([os.path.join(args.build, "sim", "lightsim-graph"), "--model", "llama2-7b", "--phase", "prefill",
                 "--seq", str(seq), "-o", path])
        out.append((f"llama2_7b_prefill_{seq}", path))
    return out


def gib(x):
    return f"{x / 2**30:.3g}"


def main():
    parser = script_args.parser(__doc__)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="build folder holding sim/lightsim and sim/lightsim-graph (default: build)")
    parser.add_argument("--out", default=os.path.join(ROOT, "sweeps", "effect"),
                        help="folder for effect.csv and the generated Llama-2 graphs (default: sweeps/effect)")
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared", "models"),
                        help="folder of the shared TVM exports (default: ../shared/models)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lightsim = os.path.join(args.build, "sim", "lightsim")
    fusion = "--fuse" in run([lightsim, "--help"])
    modes = ["none", "tvm", "flash", "vllm"] if fusion else [None]
    if not fusion:
        print("(this lightsim has no --fuse: fusion off only; rerun once the fusion pass is built in)\n")

    rows = []
    header = ["config", "graph", "fusion", "latency hiding", "ops", "GPU launches", "operand GiB per memory",
              "GiB per link", "makespan ms", "energy J", "replay makespan ms", "replay energy J",
              "replay loads hidden / stalled ms"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for config in CONFIGS:
        for name, path in graphs(args):
            for mode in modes:
                for hiding in ["off", "on"]:
                    command = [lightsim, "--hw", os.path.join(ROOT, "configs", config), "--graph", path, "--json",
                               "--simulate", "--latency-hiding", hiding]
                    if mode:
                        command += ["--fuse", mode]
                    j = json.loads(run(command))
                    gpu = [u for u in j["units"] if u["kind"] == "gpu"]
                    sim = j["simulation"]
                    loads = sim["latency_hiding"]["units"]
                    row = {
                        "config": config.replace(".json", ""), "graph": name, "fusion": mode or "off",
                        "latency hiding": hiding, "ops": j["ops"],
                        "GPU launches": sum(u["launches"] for u in gpu),
                        "operand GiB per memory": " ".join(
                            f"{m} {gib(b)}" for m, b in j["operand_bytes_by_memory"].items() if b > 0),
                        "GiB per link": " ".join(f"{l['name']} {gib(l['bytes'])}" for l in j["links"] if l["bytes"]),
                        "makespan ms": f"{1e3 * j['makespan_s']:.4g}", "energy J": f"{j['energy_j']:.4g}",
                        "replay makespan ms": f"{1e3 * sim['simulated_makespan_s']:.4g}",
                        "replay energy J": f"{sim['simulated_energy_j']:.4g}",
                        "replay loads hidden / stalled ms": "{:.3g} / {:.3g}".format(
                            1e3 * sum(u["hidden_s"] for u in loads), 1e3 * sum(u["stall_s"] for u in loads)),
                    }
                    rows.append(row)
                    print("| " + " | ".join(str(row[h]) for h in header) + " |", flush=True)
    with atomic_path(os.path.join(args.out, "effect.csv")) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
