#!/usr/bin/python3
"""plot_sweep.py SWEEP.csv [--out DIR]: plots a merged sweep table (scripts/merge_sweep.py).

Writes into DIR (default: plots/ beside the CSV):
  pareto.png             makespan vs energy of every point, one panel per workload (the parameter columns
                         before "objective": graph and lightsim-graph arguments), with the workload's
                         Pareto front (no other point of it is at least as fast and as frugal, and better
                         in one) marked and joined;
  sensitivity_<p>.png    per swept parameter p (a parameter column with more than one value that does not
                         just follow another one, see independent_parameters): makespan and
                         energy against p, one line per combination of the other parameters (their median
                         with a min-max band when there are more than 8 combinations).
Prints the Pareto points: "pareto: K of N points on the fronts of W workloads", a header, then one line
per point (workloads in table order, fastest first) with its index, makespan_s, energy_j and parameters.
Parameters are the columns between "point" and "makespan_s".
"""
import csv
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from atomic_output import savefig_atomic  # noqa: E402
import script_args  # noqa: E402

MAX_LINES = 8
MAX_PANELS = 12


def read_table(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
            columns = list(rows[0].keys()) if rows else []
    except OSError as e:
        sys.exit(f"plot_sweep: {path}: {e.strerror}")
    if not rows:
        sys.exit(f"plot_sweep: {path}: no rows")
    for need in ("point", "makespan_s", "energy_j"):
        if need not in columns:
            sys.exit(f"plot_sweep: {path}: no column '{need}' (not a merged sweep table?)")
    params = columns[columns.index("point") + 1:columns.index("makespan_s")]
    for r in rows:
        r["makespan_s"] = float(r["makespan_s"])
        r["energy_j"] = float(r["energy_j"])
        r["point"] = int(r["point"])
    return rows, params


def is_function_of(rows, p, q):
    """True when each value of column q comes with one value of column p."""
    seen = {}
    return all(seen.setdefault(r[q], r[p]) == r[p] for r in rows)


def independent_parameters(rows, params):
    """Swept parameters less those that follow another one: a column determined by a column with more
    values (a coefficient zipped with the WDM channel count), and of columns that determine each other
    (graph label and sequence length) the first numeric one, else the first."""
    swept = [p for p in params if len({r[p] for r in rows}) > 1]
    numeric = {p: all(as_number(r[p]) is not None for r in rows) for p in swept}
    keep = []
    for p in swept:
        twins = [q for q in swept if q != p and is_function_of(rows, p, q)]
        if any(not is_function_of(rows, q, p) for q in twins):
            continue  # p is a coarser function of another parameter
        group = [p] + twins  # all mutually determined with p
        best = min(group, key=lambda q: (not numeric[q], swept.index(q)))
        if best == p:
            keep.append(p)
    return keep


def workload_columns(params):
    return params[:params.index("objective")] if "objective" in params else []


def pareto(rows):
    """Rows no other row dominates (both objectives minimised), fastest first."""
    front = [r for r in rows
             if not any(o["makespan_s"] <= r["makespan_s"] and o["energy_j"] <= r["energy_j"] and
                        (o["makespan_s"] < r["makespan_s"] or o["energy_j"] < r["energy_j"]) for o in rows)]
    return sorted(front, key=lambda r: (r["makespan_s"], r["energy_j"], r["point"]))


def as_number(text):
    try:
        v = float(text)
        return v if math.isfinite(v) else None
    except ValueError:
        return None


def plot_pareto(workloads, path):
    n = min(len(workloads), MAX_PANELS)
    cols = min(n, 3)
    nrows = (n + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5.5 * cols, 4.5 * nrows), dpi=110, squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax, (name, rows, front) in zip(axes.flat, workloads[:n]):
        ax.scatter([r["makespan_s"] for r in rows], [r["energy_j"] for r in rows], s=18, color="0.6",
                   label="points")
        ax.plot([r["makespan_s"] for r in front], [r["energy_j"] for r in front], "-o", color="tab:red", ms=6,
                label=f"Pareto front ({len(front)})")
        for r in front:
            ax.annotate(str(r["point"]), (r["makespan_s"], r["energy_j"]), textcoords="offset points",
                        xytext=(4, 4), fontsize=7)
        ax.set_xlabel("makespan (s)")
        ax.set_ylabel("energy (J)")
        ax.set_title(name or "all points", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("latency vs energy" + (f" (first {n} of {len(workloads)} workloads)" if n < len(workloads) else ""))
    fig.tight_layout()
    savefig_atomic(fig, path)
    plt.close(fig)


def plot_sensitivity(rows, swept, p, path):
    values = list(dict.fromkeys(r[p] for r in rows))
    numeric = all(as_number(v) is not None for v in values)
    xs = sorted(values, key=as_number) if numeric else values
    pos = {v: (as_number(v) if numeric else i) for i, v in enumerate(xs)}
    others = [q for q in swept if q != p]  # the independent parameters: a line per combination
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[q] for q in others), []).append(r)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    for ax, metric, label in ((axes[0], "makespan_s", "makespan (s)"), (axes[1], "energy_j", "energy (J)")):
        if len(groups) <= MAX_LINES:
            for key, members in groups.items():
                members = sorted(members, key=lambda r: pos[r[p]])
                name = ", ".join(f"{q}={v}" for q, v in zip(others, key) if len({r[q] for r in rows}) > 1)
                ax.plot([pos[r[p]] for r in members], [r[metric] for r in members], "-o", ms=4, label=name or None)
        else:
            by_x = {x: sorted(r[metric] for r in rows if r[p] == x) for x in xs}
            xp = [pos[x] for x in xs]
            ax.fill_between(xp, [v[0] for v in by_x.values()], [v[-1] for v in by_x.values()], alpha=0.25,
                            label=f"min-max over {len(groups)} combinations")
            ax.plot(xp, [v[len(v) // 2] for v in by_x.values()], "-o", ms=4, label="median")
        ax.set_xlabel(p)
        ax.set_ylabel(label)
        values_y = [r[metric] for r in rows]
        if min(values_y) > 0 and max(values_y) > 20 * min(values_y):
            ax.set_yscale("log")
        if numeric and min(pos.values()) > 0 and max(pos.values()) >= 8 * min(pos.values()):
            ax.set_xscale("log", base=2)
        if not numeric:
            ax.set_xticks(range(len(xs)), xs, rotation=20, fontsize=7)
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"sensitivity to {p}")
    fig.tight_layout()
    savefig_atomic(fig, path)
    plt.close(fig)


def main():
    parser = script_args.parser(__doc__)
    parser.add_argument("csv")
    parser.add_argument("--out", help="directory for the PNGs (default: plots/ beside the CSV)")
    args = parser.parse_args()
    rows, params = read_table(args.csv)
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.csv)), "plots")
    os.makedirs(out, exist_ok=True)

    wcols = workload_columns(params)
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[c] for c in wcols), []).append(r)
    swept = independent_parameters(rows, params)
    shown = [c for c in wcols if c in swept] or wcols  # seq rather than graph, model, phase and seq
    workloads = [(", ".join(f"{c}={members[0][c]}" for c in shown), members, pareto(members))
                 for members in groups.values()]
    plot_pareto(workloads, os.path.join(out, "pareto.png"))
    for p in swept:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", p)
        plot_sensitivity(rows, swept, p, os.path.join(out, f"sensitivity_{safe}.png"))

    front = [r for _, _, f in workloads for r in f]
    print(f"pareto: {len(front)} of {len(rows)} points on the fronts of {len(workloads)} workloads")
    print("point\tmakespan_s\tenergy_j\t" + "\t".join(params))
    for r in front:
        print(f"{r['point']}\t{r['makespan_s']!r}\t{r['energy_j']!r}\t" + "\t".join(r[p] for p in params))
    print(f"plots: {1 + len(swept)} PNGs in {out} (swept: {', '.join(swept) or 'nothing'})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
