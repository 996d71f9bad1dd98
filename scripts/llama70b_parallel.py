#!/usr/bin/env python3
"""Llama-2-70B fp16 on H100s: prefill at 128, 2048 and 4096 tokens and decode at 4096 + 1, on one GPU
(configs/h100.json: the weights do not fit its 80 GB and stream from the host) and as T = 2, 4, 8
Megatron tensor-parallel shards on configs/h100x8.json (`lightsim-graph --tensor-parallel T --all-reduces`).
Prints per run: the weights and KV cache each GPU holds, what streams from the host, the makespan (the
solver's schedule and the SystemC replay), the all-reduces' share, and the machine's energy (every shard).

  scripts/llama70b_parallel.py --build build                  # the table, on stdout (markdown)
  scripts/llama70b_parallel.py --build build --tp 8 --tokens 4096 --phase prefill
Exit status 2 on bad input (a missing build), with one line saying which.
"""
import json
import os
import sys
import tempfile

import script_args  # noqa: E402
from tensor_parallel import ops  # noqa: E402
from tool_run import run  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
GIB = 1024.0 ** 3
STEPS = [("prefill", 128), ("prefill", 2048), ("prefill", 4096), ("decode", 4097)]


def one_run(build, tmp, phase, seq, tp):
    graph = os.path.join(tmp, f"l70-{phase}-{seq}-{tp}.json")
    cmd = [os.path.join(build, "sim", "lightsim-graph"), "--model", "llama2-70b", "--dtype", "float16",
           "--phase", phase, "--seq", str(seq), "-o", graph]
    if tp > 1:
        cmd += ["--tensor-parallel", str(tp), "--all-reduces"]
    run(cmd)
    trace = graph.replace(".json", ".h5")
    config = "h100x8.json" if tp > 1 else "h100.json"
    out = run([os.path.join(build, "sim", "lightsim"), "--hw", os.path.join(ROOT, "configs", config), "--graph",
               graph, "--fuse", "flash", "--json", "--trace", trace])
    j = json.loads(out)
    hbm0 = next(m for m in j["memories"] if m["name"] == "hbm0")
    rows = ops(trace)
    all_reduce_s = sum(r["predicted_end_s"] - r["predicted_start_s"] for r in rows if r["op_class"] == "all_reduce")
    return {"config": config, "weights": hbm0["resident_weight_bytes"] / GIB,
            "state": hbm0["resident_state_bytes"] / GIB * 1024,
            "streamed": sum(m["streamed_weight_bytes"] for m in j["memories"]) / GIB,
            "host": sum(m["resident_weight_bytes"] for m in j["memories"] if m["kind"] == "dram") / GIB,
            "model": j["makespan_s"], "replay": j["simulation"]["simulated_makespan_s"],
            "all_reduce": all_reduce_s, "energy": j["machine_energy_j"]}


def main():
    p = script_args.parser(__doc__)
    p.add_argument("--build", required=True, help="the build directory (with sim/lightsim, sim/lightsim-graph)")
    p.add_argument("--tp", type=int, action="append", choices=[1, 2, 4, 8], help="GPUs (default 1, 2, 4, 8)")
    p.add_argument("--tokens", type=int, action="append", help="prefill prompt lengths / decode context")
    p.add_argument("--phase", choices=["prefill", "decode"], help="one phase only")
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.build, "sim", "lightsim")):
        print(f"llama70b_parallel.py: error: {args.build}/sim/lightsim: no such file (build first)",
              file=sys.stderr)
        sys.exit(2)
    steps = [(ph, seq) for ph, seq in STEPS if (args.phase in (None, ph))
             and (not args.tokens or (seq if ph == "prefill" else seq - 1) in args.tokens)]
    print("| step | GPUs | config | weights / GPU (GiB) | KV cache / GPU (MiB) | from host (GiB) | "
          "model (ms) | replay (ms) | all-reduces, model (ms) | share | energy, all GPUs (J) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for phase, seq in steps:
            for tp in args.tp or [1, 2, 4, 8]:
                r = one_run(args.build, tmp, phase, seq, tp)
                step = f"prefill {seq}" if phase == "prefill" else f"decode {seq - 1} + 1"
                host = f"{r['streamed']:.1f} streamed" if r["streamed"] > 0 else f"{r['host']:.2f} resident"
                print(f"| {step} | {tp} | {r['config']} | {r['weights']:.1f} | {r['state']:.0f} | {host} | "
                      f"{r['model'] * 1e3:.2f} | {r['replay'] * 1e3:.2f} | {r['all_reduce'] * 1e3:.2f} | "
                      f"{r['all_reduce'] / r['model']:.1%} | {r['energy']:.1f} |")


if __name__ == "__main__":
    main()
