#!/usr/bin/python3
"""plot_fit.py TRACE.h5 [--out PNG]: plots the retrain fit stored in a trace written by
`lightsim --retrain NEW.json --trace TRACE.h5` (the /model group, layout: traces/README.md).

Writes PNG (default: TRACE with `_fit.png` in place of `.h5`): two log-log panels, before and after
retraining, of each op's predicted time (the arithmetic model on its placed unit) against its simulated
time (the SystemC replay of that plan), one colour and marker per op class, with the y = x line and a
+-3% band. Prints, in a stable tab-separated format, the per (op class, unit) median |relative error| of
the ops it plotted, computed from the per-op rows (/model/ops), and the end-to-end makespans
(/model/makespan). Ops with a simulated time of 0 are left out (as in lightsim's report); ops predicted at
0 s count in the medians but cannot be drawn on a log axis (the count is printed).
Exit status 2 with one line on stderr for a missing file or a trace without a retrain report.
"""
import os
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from atomic_output import savefig_atomic  # noqa: E402
import script_args  # noqa: E402

try:
    import h5py
except ImportError:  # pyenv's python has no h5py; the shebang names Debian's
    sys.stderr.write("plot_fit: needs h5py: run it with /usr/bin/python3 (python3-h5py)\n")
    sys.exit(2)

BAND = 0.03  # the per-op-class bound, drawn as a band around y = x
MARKERS = "os^vD<>pPX*h"
PHASES = ("before", "after")


def bad_input(msg):
    sys.stderr.write(f"plot_fit: {msg}\n")
    sys.exit(2)


def read_model(path):
    """/model/ops and /model/makespan as numpy structured arrays."""
    if not os.path.isfile(path):
        bad_input(f"{path}: no such file")
    try:
        with h5py.File(path, "r") as f:
            if "model/ops" not in f or "model/makespan" not in f:
                bad_input(f"{path}: no retrain report (/model/ops, /model/makespan); write it with "
                          "lightsim --retrain NEW.json --trace TRACE.h5")
            return f["model/ops"][()], f["model/makespan"][()]
    except OSError as e:
        bad_input(f"{path}: not an HDF5 file ({e})")


def text(column):
    return np.array([v.decode() for v in column])


def class_medians(ops):
    """{(op_class, unit): (ops, median |error|)} per phase, over ops with a simulated time > 0."""
    classes = text(ops["op_class"])
    out = {}
    for phase in PHASES:
        units = text(ops[f"unit_{phase}"])
        predicted, simulated = ops[f"predicted_{phase}_s"], ops[f"simulated_{phase}_s"]
        seen = simulated > 0
        error = np.abs(predicted[seen] - simulated[seen]) / simulated[seen]
        keys = list(zip(classes[seen], units[seen]))
        for key in sorted(set(keys)):
            mine = error[[k == key for k in keys]]
            out.setdefault(key, {})[phase] = (len(mine), float(np.median(mine)))
    return out


def plot(ops, out_path):
    classes = text(ops["op_class"])
    names = sorted(set(classes))
    colours = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5), sharex=True, sharey=True)
    undrawn = {}
    lo, hi = np.inf, 0.0
    for ax, phase in zip(axes, PHASES):
        predicted, simulated = ops[f"predicted_{phase}_s"], ops[f"simulated_{phase}_s"]
        drawn = (simulated > 0) & (predicted > 0)
        undrawn[phase] = int(np.count_nonzero((simulated > 0) & ~drawn))
        for i, name in enumerate(names):
            mine = drawn & (classes == name)
            if np.any(mine):
                ax.scatter(simulated[mine], predicted[mine], s=14, alpha=0.75, color=colours(i % colours.N),
                           marker=MARKERS[i % len(MARKERS)], label=name)
        if np.any(drawn):
            lo = min(lo, simulated[drawn].min(), predicted[drawn].min())
            hi = max(hi, simulated[drawn].max(), predicted[drawn].max())
        ax.set_title(f"{phase} retraining")
        ax.set_xlabel("simulated time (SystemC replay) [s]")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    if hi > 0:
        x = np.geomspace(lo / 2, hi * 2, 100)
        for ax in axes:
            ax.plot(x, x, color="black", linewidth=1, label="y = x")
            ax.fill_between(x, x * (1 - BAND), x * (1 + BAND), color="grey", alpha=0.3,
                            label=f"\u00b1{BAND:.0%}")
            ax.set_xlim(x[0], x[-1])
            ax.set_ylim(x[0], x[-1])
    axes[0].set_ylabel("predicted time (arithmetic model) [s]")
    # One legend for both panels, outside them, so it hides no point; classes drawn in either panel.
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    order = [n for n in names if n in entries] + [label for label in entries if label not in names]
    fig.legend([entries[label] for label in order], order, loc="center right", fontsize=8)
    fig.suptitle("lightsim retrain: predicted vs simulated time per op")
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    savefig_atomic(fig, out_path, dpi=100)
    plt.close(fig)
    return undrawn


def main():
    parser = script_args.parser(__doc__)
    parser.add_argument("trace")
    parser.add_argument("--out", help="the PNG (default: TRACE_fit.png beside the trace)")
    args = parser.parse_args()
    ops, makespan = read_model(args.trace)
    out = args.out or os.path.splitext(args.trace)[0] + "_fit.png"
    undrawn = plot(ops, out)

    print(f"plot\t{out}\t{len(ops)} ops\tnot drawn (predicted 0 s): before {undrawn['before']}, "
          f"after {undrawn['after']}")
    print("op_class\tunit\tops_before\tmedian_abs_error_before_pct\tops_after\tmedian_abs_error_after_pct")
    for (op_class, unit), phases in class_medians(ops).items():
        cells = []
        for phase in PHASES:
            n, median = phases.get(phase, (0, float("nan")))
            cells += [str(n), f"{100 * median:.9g}"]
        print("\t".join([op_class, unit] + cells))
    print("graph\tpredicted_makespan_before_s\tsimulated_makespan_before_s\tpredicted_makespan_after_s\t"
          "simulated_makespan_after_s")
    for row in makespan:
        print("\t".join([row["graph"].decode()] + [f"{row[c]:.9g}" for c in (
            "predicted_makespan_s_before", "simulated_makespan_s_before", "predicted_makespan_s_after",
            "simulated_makespan_s_after")]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
