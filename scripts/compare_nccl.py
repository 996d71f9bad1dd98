#!/usr/bin/env python3
"""The collectives' closed forms against published NCCL measurements: bus bandwidth of the all-reduce on
configs/a100x8.json and configs/h100x8.json, and of the all-gather and reduce-scatter on h100x8.json (ring,
every GPU), from lightsim-collective, beside the nccl-tests tables in configs/measured/nccl/ (each file names
its source), written to configs/measured/nccl-comparison.md.

One constant is fitted, the `collectives.bandwidth_efficiency` of the NVLink machines (configs/multi_device.py),
on one row: the 8 x H100 ring all-reduce at 1 GiB. Every other row, the whole A100 table and the H100's
all-gather and reduce-scatter (the same run series) are held out.

  scripts/compare_nccl.py --build build            # rewrite configs/measured/nccl-comparison.md
  scripts/compare_nccl.py --build build --check    # exit 1 when the committed file is not what lightsim gives
  scripts/compare_nccl.py --build build --fit      # print the efficiency that meets the calibration row
Exit status 2 on bad input (a missing build or file), with one line saying which.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import script_args  # noqa: E402
from atomic_output import write_atomic  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "configs", "measured", "nccl-comparison.md")
CALIBRATION = ("h100x8", "all_reduce", 1 << 30)
TABLES = [  # (config, collective, measured table, what was measured)
    ("h100x8", "all_reduce", "h100x8-all-reduce-ring.csv", "NCCL 2.26.2, NCCL_ALGO=RING (NVLS off), out-of-place"),
    ("a100x8", "all_reduce", "a100x8-all-reduce.csv", "NCCL 2.18.5, NCCL's default algorithm, in-place"),
    ("h100x8", "all_gather", "h100x8-all-gather-ring.csv",
     "NCCL 2.26.2, NCCL_ALGO=RING (NVLS off), out-of-place; the all-reduce's run series"),
    ("h100x8", "reduce_scatter", "h100x8-reduce-scatter-ring.csv",
     "NCCL 2.26.2, NCCL_ALGO=RING (NVLS off), out-of-place; the all-reduce's run series"),
]


def fail(message):
    print(f"compare_nccl.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def measured(name):
    path = os.path.join(ROOT, "configs", "measured", "nccl", name)
    if not os.path.exists(path):
        fail(f"{path}: no such file")
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    source = next(line for line in open(path) if line.startswith("# Source:") or "https://" in line)
    return [(int(r["size_B"]), float(r["busbw_GBps"])) for r in csv.DictReader(lines)], source.strip("# \n")


def simulate(tool, config_path, sizes, op="all_reduce"):
    cmd = [tool, "--hw", config_path, "--kind", "gpu", "--op", op, "--algorithm", "ring", "--csv", "--simulate",
           "-b", str(min(sizes)), "-e", str(max(sizes))]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{' '.join(cmd)}: {out.stderr.strip()}")
    rows = list(csv.DictReader(out.stdout.splitlines()))
    return {int(r["size_B"]): (float(r["busbw_GBps"]), r["protocol"],
                               float(r["time_us"]) / float(r["replay_time_us"]) - 1) for r in rows}


def fit(tool):
    """Bisection on bandwidth_efficiency: the H100 ring all-reduce at 1 GiB meets its measured busbw."""
    config = json.load(open(os.path.join(ROOT, "configs", CALIBRATION[0] + ".json")))
    rows, _ = measured(TABLES[0][2])
    target = dict(rows)[CALIBRATION[2]]
    lo, hi = 0.3, 1.0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.json")
        for _ in range(30):
            mid = (lo + hi) / 2
            config["collectives"]["bandwidth_efficiency"] = mid
            json.dump(config, open(path, "w"))
            busbw = simulate(tool, path, [CALIBRATION[2]])[CALIBRATION[2]][0]
            lo, hi = (mid, hi) if busbw < target else (lo, mid)
    return round((lo + hi) / 2, 4)


def report(tool):
    lines = ["# Collective bus bandwidth: lightsim's collectives against published NCCL measurements", "",
             "Written by `scripts/compare_nccl.py` (do not edit). lightsim: `lightsim-collective --kind gpu "
             "--algorithm ring` on the config, the ring's closed form on its links (ir/cost/collectives.h), "
             "with NCCL's own latency constants (configs/multi_device.py) and one fitted constant, the NVLink "
             "`bandwidth_efficiency`, fitted on the **calibration** row (8 x H100, 1 GiB). Every other row is "
             "held out; the A100 box uses the same constant (same link kind), and so do the H100's all-gather "
             "and reduce-scatter. busbw is nccl-tests' bus bandwidth: S / t x 2(n-1)/n for the all-reduce, "
             "S / t x (n-1)/n for the all-gather and reduce-scatter (S: the whole buffer). 'replay vs model': "
             "the SystemC replay (`--simulate`: every chunk on the Links, sim/hw/collective_engine.h) against the "
             "closed form's time.", ""]
    summary = []
    for config, op, table, what in TABLES:
        rows, source = measured(table)
        sim = simulate(os.path.abspath(tool), os.path.join(ROOT, "configs", config + ".json"), [s for s, _ in rows],
                       op)
        title = f"{config}.json" + ("" if op == "all_reduce" else ", " + op.replace("_", "-"))
        lines += [f"## {title}", "", f"Measured: {what}. {source}", "",
                  "| size | measured busbw (GB/s) | lightsim busbw (GB/s) | error | lightsim protocol | replay vs model "
                  "| row |",
                  "|---:|---:|---:|---:|---|---:|---|"]
        held = []
        for size, busbw in rows:
            model, protocol, replay_gap = sim[size]
            err = (model - busbw) / busbw * 100
            role = "calibration" if (config, op, size) == CALIBRATION else "held out"
            if role == "held out" and (1 << 20) <= size <= (1 << 30):
                held.append(abs(err))
            lines.append(f"| {size:,} | {busbw:.2f} | {model:.2f} | {err:+.1f}% | {protocol} | {replay_gap * 100:+.3f}% "
                         f"| {role} |")
        summary.append(f"- {title}: held-out rows from 1 MiB to 1 GiB: mean |error| {sum(held) / len(held):.1f}%, "
                       f"worst {max(held):.1f}%, {sum(e <= 15 for e in held)} of {len(held)} within 15%.")
        lines.append("")
    return "\n".join(lines[:4] + ["## Summary", ""] + summary + [""] + lines[4:])


def main():
    parser = script_args.parser(__doc__)
    parser.add_argument("--build", required=True, help="build directory (has sim/lightsim-collective)")
    parser.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    parser.add_argument("--fit", action="store_true", help="print the fitted bandwidth_efficiency")
    args = parser.parse_args()
    tool = os.path.join(args.build, "sim", "lightsim-collective")
    if not os.path.exists(tool):
        fail(f"{tool}: no such file (build the lightsim-collective target)")
    if args.fit:
        print(fit(tool))
        return 0
    text = report(tool)
    if args.check:
        current = open(OUT).read() if os.path.exists(OUT) else ""
        if current != text:
            print(f"compare_nccl.py: {OUT} is not what this build gives; run scripts/compare_nccl.py --build "
                  f"{args.build}", file=sys.stderr)
            return 1
        return 0
    write_atomic(OUT, text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
