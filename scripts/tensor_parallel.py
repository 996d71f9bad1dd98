#!/usr/bin/env python3
"""Tensor-parallel Llama-2-7B fp16 prefill on configs/a100x8.json: one Megatron shard per GPU
(`lightsim-graph --tensor-parallel T --all-reduces`), T = 2, 4, 8, beside T = 1 on configs/a100.json.
Prints, per layer, what the GPU's GEMMs take, what its two all-reduces take (the solver's closed form and the
SystemC replay, chunk by chunk on the NVSwitch) and the whole layer (the difference of two runs with 4 and 2
layers, so the embedding and the LM head drop out), from the runs' HDF5 traces.

  scripts/tensor_parallel.py --build build                 # the table, on stdout (markdown)
  scripts/tensor_parallel.py --build build --tokens 256    # one token count
Exit status 2 on bad input (a missing build), with one line saying which.
"""
import os
import sys
import tempfile

import h5py
import script_args  # noqa: E402
from tool_run import run  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def ops(trace):
    with h5py.File(trace, "r") as f:
        o = f["/ops"][:]
    names = o.dtype.names
    rows = []
    for r in o:
        d = dict(zip(names, r))
        d["op_class"] = d["op_class"].decode() if isinstance(d["op_class"], bytes) else d["op_class"]
        rows.append(d)
    return rows


def one_run(build, tmp, tokens, tp, layers):
    graph = os.path.join(tmp, f"g-{tokens}-{tp}-{layers}.json")
    cmd = [os.path.join(build, "sim", "lightsim-graph"), "--model", "llama2-7b", "--dtype", "float16", "--seq", str(tokens),
           "--layers", str(layers), "-o", graph]
    if tp > 1:
        cmd += ["--tensor-parallel", str(tp), "--all-reduces"]
    run(cmd)
    trace = graph.replace(".json", ".h5")
    config = "a100x8.json" if tp > 1 else "a100.json"
    run([os.path.join(build, "sim", "lightsim"), "--hw", os.path.join(ROOT, "configs", config), "--graph", graph,
         "--trace", trace, "--objective", "makespan"])
    rows = ops(trace)
    span = lambda which: max(r[f"{which}_end_s"] for r in rows) - min(  # noqa: E731
        r[f"{which}_start_s"] for r in rows if r["op_class"] != "input")

    def total(cls, which):
        return sum(r[f"{which}_end_s"] - r[f"{which}_start_s"] for r in rows if r["op_class"] == cls)

    return {"predicted": span("predicted"), "simulated": span("simulated"),
            "dense": total("dense", "predicted"), "ar_model": total("all_reduce", "predicted"),
            "ar_replay": total("all_reduce", "simulated"),
            "ars": sum(1 for r in rows if r["op_class"] == "all_reduce")}


def main():
    p = script_args.parser(__doc__)
    p.add_argument("--build", required=True, help="the build directory (with sim/lightsim, sim/lightsim-graph)")
    p.add_argument("--tokens", type=int, action="append", help="prompt lengths (default 256 and 3072)")
    args = p.parse_args()
    if not os.path.exists(os.path.join(args.build, "sim", "lightsim")):
        print(f"tensor_parallel.py: error: {args.build}/sim/lightsim: no such file (build first)", file=sys.stderr)
        sys.exit(2)
    print("| tokens | TP | config | GEMMs / layer (us) | all-reduces / layer, model (us) | replay (us) | "
          "layer, model (us) | layer, replay (us) | all-reduce share |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for tokens in args.tokens or [256, 3072]:
            for tp in (1, 2, 4, 8):
                two, four = one_run(args.build, tmp, tokens, tp, 2), one_run(args.build, tmp, tokens, tp, 4)
                per = {k: (four[k] - two[k]) / 2 for k in four}
                share = per["ar_model"] / per["predicted"] if per["predicted"] > 0 else 0
                print(f"| {tokens} | {tp} | {'a100x8.json' if tp > 1 else 'a100.json'} | {per['dense'] * 1e6:.1f} | "
                      f"{per['ar_model'] * 1e6:.1f} | {per['ar_replay'] * 1e6:.1f} | {per['predicted'] * 1e6:.1f} | "
                      f"{per['simulated'] * 1e6:.1f} | {share:.1%} |")


if __name__ == "__main__":
    main()
