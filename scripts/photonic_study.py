#!/usr/bin/env python3
"""The README's worked study of the photonic card: ResNet-50 (batch 1 and 32) and BERT-base (128 tokens; 512
tokens at batch 8) on gpu.json, on photonic.json (its card behind PCIe) and on photonic-copackaged.json (the
card co-packaged on the GPU's HBM, its model fitted there), under the time and the energy objective.

    scripts/photonic_study.py [--build build] [--out sweeps/photonic_study] [--markdown]

For every (graph, machine, objective) it runs `lightsim --json --simulate --top 100000` and reports the planned
and replayed makespan and energy (static power over the makespan included), the dynamic energy (the plan's op
and transfer energy: every component but `static`), and the ops placed on the host, the GPU and the card (the
card's by op class). Rows whose energy-objective placement equals the time objective's are printed once.
The graphs are written by lightsim-graph into --out; nothing else is written there. Standard library only.
"""
import json
import os
import sys

from accelerator_study import run, study_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = [("ResNet-50 b1", ["--model", "resnet50", "--batch", "1"]),
          ("ResNet-50 b32", ["--model", "resnet50", "--batch", "32"]),
          ("BERT-base s128", ["--model", "bert-base", "--seq", "128"]),
          ("BERT-base s512 b8", ["--model", "bert-base", "--seq", "512", "--batch", "8"])]
# (label, config)
MACHINES = [("gpu", "gpu.json"), ("photonic", "photonic.json"), ("co-packaged", "photonic-copackaged.json")]
OBJECTIVES = ["time", "energy"]


def summary(result):
    sim = result["simulation"]
    dynamic = sum(v for owner in result["energy_by_owner"] for c, v in owner["energy_by_component"].items()
                  if c != "static")
    on_card = {}
    for op in result["costliest_ops"]:
        if op["unit"] == "phu0":
            on_card[op["class"]] = on_card.get(op["class"], 0) + 1
    return {"makespan_ms": result["makespan_s"] * 1e3, "replay_ms": sim["simulated_makespan_s"] * 1e3,
            "energy_j": result["energy_j"], "replay_j": sim["simulated_energy_j"], "dynamic_j": dynamic,
            "ops": result["ops_by_unit"], "on_card": on_card}


def ops_cell(s, machine):
    ops = s["ops"]
    card = "-" if machine == "gpu" else str(ops.get("phu0", 0))
    if s["on_card"]:
        card += " (" + ", ".join(f"{n} {c}" for c, n in sorted(s["on_card"].items(), key=lambda x: -x[1])) + ")"
    return f"{ops.get('cpu0', 0)} / {ops.get('gpu0', 0)} / {card}"


def main():
    args = study_args(__doc__, "photonic_study", "folder for the graphs")
    lightsim, graph_tool = (os.path.join(args.build, "sim", t) for t in ("lightsim", "lightsim-graph"))
    rows = []
    for label, graph_args in GRAPHS:
        graph = os.path.join(args.out, label.replace(" ", "_").lower() + ".json")
        run([graph_tool] + graph_args + ["-o", graph])
        for machine, config in MACHINES:
            results = {}
            for objective in OBJECTIVES:
                command = [lightsim, "--hw", os.path.join(ROOT, "configs", config), "--graph", graph, "--objective",
                           objective, "--json", "--simulate", "--top", "100000"]
                results[objective] = summary(json.loads(run(command)))
            same = results["energy"] == results["time"]
            for objective in (["time"] if same else OBJECTIVES):
                name = f"{machine}, {'time = energy' if same else objective}"
                rows.append((label, name, results[objective], machine))
    if args.markdown:
        print("| graph | config, objective | makespan predicted / simulated | energy predicted / simulated | dynamic | "
              "ops CPU / GPU / PHU |")
        print("|---|---|---|---|---|---|")
    for label, name, s, machine in rows:
        print(f"| {label} | {name} | {s['makespan_ms']:.4g} / {s['replay_ms']:.4g} ms | {s['energy_j']:.4g} / "
              f"{s['replay_j']:.4g} J | {s['dynamic_j'] * 1e3:.4g} mJ | {ops_cell(s, machine)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
