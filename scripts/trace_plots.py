"""The plots of scripts/analyze_trace.py, from a trace it has read (its `s`: the schedule's columns, and the
trace's tables): the Gantt chart, utilisation, communication vs compute, energy by component and
predicted vs simulated durations. Each returns a matplotlib figure; save() writes one atomically."""
import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from atomic_output import savefig_atomic  # noqa: E402


def text(column):
    """An HDF5 string column as Python strings."""
    return [v.decode() for v in column]


def plot_communication(rows, s):
    names = [r[0] for r in rows]
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(8, 5))
    bottom = np.zeros(len(rows))
    for k, label in ((1, "compute"), (2, "collectives"), (4, "transfers in"), (5, "weight loads in")):
        vals = np.array([r[k] for r in rows], dtype=float)
        ax.bar(x, vals, 0.6, bottom=bottom, label=label)
        bottom += vals
    ax.set_xticks(x)
    ax.set_xticklabels(names)
    ax.set_ylabel(f"seconds ({s.which}); loads overlap compute")
    ax.set_title("compute vs communication per unit")
    ax.legend()
    return fig


def save(fig, path):
    fig.tight_layout()
    savefig_atomic(fig, path, dpi=120)
    plt.close(fig)
    return path


def plot_gantt(s, path_ops, out):
    rows = sorted({(u, int(l)) for u, l, i in zip(s.unit, s.lane, s.is_input) if not i})
    routes = sorted(set(s.x_route))
    labels = [f"{u}:{l}" for u, l in rows] + [f"xfer {r}" for r in routes]
    index = {key: i for i, key in enumerate(rows)}
    fig, ax = plt.subplots(figsize=(12, max(4, 0.3 * len(labels) + 1.5)))
    colours = {u: plt.cm.tab10(i % 10) for i, u in enumerate(sorted(set(s.unit)))}
    scale = 1e6  # microseconds
    for key, y in index.items():
        ops = [o for o in range(len(s.name)) if not s.is_input[o] and (s.unit[o], int(s.lane[o])) == key]
        ax.broken_barh([(s.start[o] * scale, max(s.duration[o], 0) * scale) for o in ops], (y - 0.4, 0.8),
                       facecolors=[("crimson" if o in path_ops else colours[key[0]]) for o in ops],
                       edgecolor="black", linewidth=0.2)
    for j, r in enumerate(routes):
        ks = [k for k, route in enumerate(s.x_route) if route == r]
        ax.broken_barh([(s.x_start[k] * scale, (s.x_end[k] - s.x_start[k]) * scale) for k in ks],
                       (len(rows) + j - 0.4, 0.8), facecolors="grey", edgecolor="black", linewidth=0.2)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"{s.which} time (us)")
    ax.set_title(f"{s.which} schedule: ops per unit lane (critical path in red), transfers per route")
    ax.grid(axis="x", alpha=0.3)
    return fig


def plot_utilisation(trace, s):
    units = trace["units"]
    names = text(units["unit"])
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(8, 5))
    for k, which in enumerate(("predicted", "simulated")):
        vals = units[which + "_utilisation"].astype(float)
        if not np.isnan(vals).all():
            ax.bar(x + (k - 0.5) * 0.4, np.nan_to_num(vals), 0.4, label=which)
    ax.set_xticks(x)
    ax.set_xticklabels(names)
    ax.set_ylim(0, 1)
    ax.set_ylabel("utilisation (busy / (lanes x makespan))")
    ax.set_title("utilisation per unit")
    ax.legend()
    return fig


def plot_energy(parts, s):
    """Left: stacked bars, one per owner (unit, memory, link), one colour per energy component. Right: each
    unit's dynamic energy (static left out) split into its components, in percent, so that a small unit's
    laser / DAC / ADC split is as visible as a large one's."""
    owners = list(dict.fromkeys(f"{g}\n{o}" for g, o, _, _ in parts))
    comps = list(dict.fromkeys(c for _, _, c, _ in parts))
    colour = dict(zip(comps, plt.cm.tab20(np.linspace(0, 1, max(len(comps), 1)))))
    fig, (ax, ax_share) = plt.subplots(1, 2, figsize=(max(12, 0.9 * len(owners) + 8), 5.5),
                                       gridspec_kw={"width_ratios": [max(len(owners), 1), 4]})
    bottom = np.zeros(len(owners))
    for c in comps:
        vals = np.array([sum(e for g, o, cc, e in parts if f"{g}\n{o}" == w and cc == c) for w in owners])
        ax.bar(owners, vals * 1e3, bottom=bottom * 1e3, label=c, color=colour[c])
        bottom += vals
    ax.set_ylabel("energy (mJ)")
    ax.set_title(f"{s.which} energy by component: total {s.total_energy * 1e3:.4g} mJ", fontsize=10)
    ax.tick_params(axis="x", labelsize=7)
    units = [o for g, o, _, _ in parts if g == "unit"]
    units = list(dict.fromkeys(units))
    dynamic = {u: sum(e for g, o, c, e in parts if g == "unit" and o == u and c != "static") for u in units}
    bottom = np.zeros(len(units))
    for c in comps:
        if c == "static":
            continue
        vals = np.array([sum(e for g, o, cc, e in parts if g == "unit" and o == u and cc == c) /
                         dynamic[u] if dynamic[u] > 0 else 0.0 for u in units])
        if vals.any():
            ax_share.bar(units, vals * 100, bottom=bottom * 100, color=colour[c], label=c)
            bottom += vals
    ax_share.set_ylabel("share of the unit's dynamic energy (%)")
    ax_share.set_ylim(0, 100)
    ax_share.set_title("dynamic energy split per unit", fontsize=10)
    handles = {h.get_label(): h for a in (ax, ax_share) for h in a.get_legend_handles_labels()[0]}
    ax_share.legend([handles[c] for c in comps if c in handles], [c for c in comps if c in handles], fontsize=7,
                    loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def plot_durations(trace, s):
    ops = trace["ops"]
    pred = ops["predicted_end_s"] - ops["predicted_start_s"]
    sim = ops["simulated_end_s"] - ops["simulated_start_s"]
    fig, ax = plt.subplots(figsize=(7, 6))
    ok = (~s.is_input) & (pred > 0) & (sim > 0)
    for u in sorted(set(s.unit)):
        m = ok & np.array([x == u for x in s.unit])
        if m.any():
            ax.scatter(pred[m], sim[m], s=12, label=u, alpha=0.7)
    if ok.any():
        lo, hi = min(pred[ok].min(), sim[ok].min()), max(pred[ok].max(), sim[ok].max())
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=0.8, label="simulated = predicted")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("predicted duration (s)")
    ax.set_ylabel("simulated duration (s)")
    left_out = int(((~s.is_input) & ~ok).sum())
    ax.set_title(f"op durations, predicted vs simulated ({left_out} zero-duration ops left out)")
    ax.legend(fontsize=8)
    return fig
