#!/usr/bin/python3
"""analyze_trace.py TRACE.h5 [--out DIR] [--graph GRAPH.json] [--top N]: reads a lightsim HDF5 trace
(layout: traces/README.md) and prints, in a stable plain-text format:

  utilisation       per unit: lanes, ops, busy lane-seconds, utilisation (busy / (lanes x makespan))
  critical path     of the schedule (see critical_path() for the rule), its ops and transfers, its length
  energy            by owner and component (/energy_totals): per unit its ops' components (compute, tensor
                    and CUDA cores, laser, DAC, ADC, optical MACs, weight programming, SRAM / HBM / DRAM
                    accesses) and static; per memory static; per link its transfers; the sum of the parts
                    against the trace's total; then the machine's total per component
  communication     per unit: its compute ops' time, its collectives' time (all-reduce, reduce-scatter,
                    all-gather: the shard's share of the machine's communication) and the transfers and
                    weight loads into its memory, in seconds and as shares of the makespan, and the
                    collective sends out of its memory that the replay ran (/collective_sends); a shard's
                    peer (/units mirrors) as gpuN=gpu0, repeating its device's row but for its own sends
  top ops           the N longest ops

The simulated (SystemC replay) columns are used when /meta simulated is 1, else the predicted ones; the
first line says which. Writes into DIR (default: the trace's directory) TRACE_gantt.png (ops per unit lane
and transfers per route over time), TRACE_utilisation.png, TRACE_communication.png (compute vs communication per unit), TRACE_energy.png
(stacked bars) and
TRACE_durations.png (predicted vs simulated op duration, log-log; only for simulated traces); the energy
plot stacks each owner's components.
Exit status 2 with one line on stderr for a missing, unreadable or non-trace file.
"""
import hashlib
import heapq
import json
import os
import sys

import numpy as np

import script_args
from trace_plots import plot_communication, plot_durations, plot_energy, plot_gantt, plot_utilisation, save, text

try:
    import h5py
except ImportError:  # pyenv's python has no h5py; the shebang names Debian's
    sys.stderr.write("analyze_trace: needs h5py: run it with /usr/bin/python3 (python3-h5py)\n")
    sys.exit(2)

NEEDED = ("meta", "ops", "transfers", "units", "links", "check", "energy_totals")


def bad_input(msg):
    sys.stderr.write(f"analyze_trace: {msg}\n")
    sys.exit(2)


def read_trace(path):
    """The trace's tables as numpy structured arrays, plus /meta and /check attributes as dicts."""
    if not os.path.isfile(path):
        bad_input(f"{path}: no such file")
    try:
        with h5py.File(path, "r") as f:
            missing = [name for name in NEEDED if name not in f]
            if missing or f["meta"].attrs.get("format") != "lightsim-trace":
                bad_input(f"{path}: not a lightsim trace of format 2 or later (no /meta format 'lightsim-trace' "
                          f"or missing {', '.join('/' + m for m in missing) or 'nothing'}; rerun lightsim --trace)")
            trace = {name: f[name][()] for name in NEEDED if name != "meta"}
            if "op_inputs" in f:  # format 3 and later: the scheduled (fused) graph's data edges
                trace["op_inputs"] = f["op_inputs"][()]
            if "collective_sends" in f:  # format 4 and later: the replay's collective sends
                trace["collective_sends"] = f["collective_sends"][()]
            trace["meta"] = dict(f["meta"].attrs)
            trace["check_attrs"] = dict(f["check"].attrs)
    except OSError as e:
        bad_input(f"{path}: cannot read as HDF5 ({str(e).splitlines()[0]})")
    trace["hw"] = json.loads(trace["meta"]["hardware_config"])
    return trace


class Schedule:
    """One view (simulated or predicted) of the trace's ops and transfers."""

    def __init__(self, trace, which):
        self.which = which
        ops, xfers = trace["ops"], trace["transfers"]
        self.name = text(ops["name"])
        self.op_class = text(ops["op_class"])
        self.unit = text(ops["unit"])
        self.lane = ops["simulated_lane" if which == "simulated" else "lane"].astype(int)
        self.start = ops[which + "_start_s"].astype(float)
        self.end = ops[which + "_end_s"].astype(float)
        self.energy = ops[which + "_energy_j"].astype(float)
        self.is_input = np.array([c == "input" for c in self.op_class])
        self.duration = np.where(self.is_input, 0.0, self.end - self.start)
        # Transfers of this view (rows whose start is NaN belong to the other view only).
        t_start = xfers[which + "_start_s"].astype(float)
        keep = ~np.isnan(t_start)
        self.xfers = xfers[keep]
        self.x_start = t_start[keep]
        self.x_end = xfers[which + "_end_s"].astype(float)[keep]
        self.x_energy = xfers[which + "_energy_j"].astype(float)[keep]
        self.x_route = text(self.xfers["route"])
        self.makespan = float(trace["check_attrs"][f"makespan_{which}_s"])
        self.total_energy = float(trace["check_attrs"][f"energy_{which}_j"])


def graph_inputs(trace, graph_arg, n_ops):
    """Per op, its inputs as (producer op, tensor id). A trace of format 3 or later stores them in
    /op_inputs (the graph that was scheduled, fused or not), used unless --graph is given. Otherwise they
    come from the TVM graph file the trace names (or --graph): this reproduces ir/tvm/tvm_import.h's op
    order (file order when topological, else smallest ready node first) and checks every op name against
    it, so it holds only for an unfused run or a --graph that is the fused graph. Returns (inputs or None,
    a line saying where the edges came from)."""
    if "op_inputs" in trace and not graph_arg:
        inputs = [[] for _ in range(n_ops)]
        for row in trace["op_inputs"]:  # rows in (op, argument position) order
            inputs[int(row["op"])].append((int(row["producer"]), int(row["tensor"])))
        return inputs, "data edges from the trace's /op_inputs"
    meta = trace["meta"]
    path = graph_arg or meta.get("graph_path", "")
    if not path:
        return None, "no graph file in the trace (generated graph) and no --graph"
    if not os.path.isfile(path):
        return None, f"graph file {path} not found (pass --graph)"
    with open(path, "rb") as f:
        raw = f.read()
    if not graph_arg and meta.get("graph_sha256") and hashlib.sha256(raw).hexdigest() != meta["graph_sha256"]:
        return None, f"graph file {path} changed since the run (SHA-256 differs)"
    try:
        doc = json.loads(raw)
        nodes, row_ptr = doc["nodes"], doc["node_row_ptr"]
        deps = [[(int(e[0]), int(e[1])) for e in n.get("inputs", [])] for n in nodes]
    except (ValueError, KeyError, TypeError, IndexError):
        return None, f"graph file {path} is not TVM graph JSON"
    users = [[] for _ in nodes]
    waiting = [len({d for d, _ in ins}) for ins in deps]
    for n, ins in enumerate(deps):
        for d in sorted({d for d, _ in ins}):
            users[d].append(n)
    ready = [n for n in range(len(nodes)) if waiting[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        n = heapq.heappop(ready)
        order.append(n)
        for u in users[n]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    if len(order) != n_ops or [nodes[n]["name"] for n in order] != trace["names"]:
        fuse = trace["hw"].get("compiler", {}).get("fuse", "none")
        why = (f" (the run fused the graph, compiler.fuse = {fuse}: pass --graph with the fused graph, "
               f"e.g. from lightsim-graph --fuse {fuse})" if fuse != "none" else "")
        return None, f"graph file {path} does not match the trace's ops{why}"
    op_of_node = {n: i for i, n in enumerate(order)}
    inputs = [[(op_of_node[d], int(row_ptr[d]) + k) for d, k in deps[n]] for n in order]
    return inputs, f"data edges from {path}"


def critical_path(s, inputs):
    """The chain of ops and transfers that ends last. Rule: start at the non-input op that ends last
    (lowest op id on ties). From op x, the candidates are (a) each input tensor of x, ready at the end of
    its transfer into x's unit's memory when there is one, else at its producer's end, and (b) the op
    before x on the same unit lane (the one ending last at or before x's start). Step to the candidate
    ready last (ties: data input first, then lowest op id); a transfer on the way is a path element of
    its own. Stop at an input op (weights, activations) or when x has no candidate.
    Without graph edges (inputs None), data edges come from /transfers only (src_op -> dst_op).
    Returns the path, first element first: (kind, id, start, end, label)."""
    mem_of_unit = s.mem_of_unit
    x_by_key = {}
    for k, row in enumerate(s.xfers):
        x_by_key[(int(row["tensor"]), row["dst_memory"].decode())] = k
    if inputs is None:  # edges from the transfers: (producer, tensor)
        inputs = [[] for _ in s.name]
        for row in s.xfers:
            inputs[int(row["dst_op"])].append((int(row["src_op"]), int(row["tensor"])))
    lanes = {}
    for op in np.flatnonzero(~s.is_input):
        lanes.setdefault((s.unit[op], s.lane[op]), []).append(int(op))
    for ops in lanes.values():
        ops.sort(key=lambda o: (s.end[o], o))
    lane_prev = {}
    for ops in lanes.values():
        for i, op in enumerate(ops):
            j = i - 1
            while j >= 0 and s.end[ops[j]] > s.start[op]:
                j -= 1
            lane_prev[op] = ops[j] if j >= 0 else None
    compute = np.flatnonzero(~s.is_input)
    if len(compute) == 0:
        return []
    x = int(compute[np.lexsort((compute, -s.end[compute]))[0]])
    path = [("op", x, s.start[x], s.end[x], f"{s.name[x]} [{s.op_class[x]}] on {s.unit[x]}:{s.lane[x]}")]
    while True:
        best = None  # (ready time, preference, op id, transfer index)
        for producer, tensor in inputs[x]:
            k = x_by_key.get((tensor, mem_of_unit.get(s.unit[x])))
            ready = s.x_end[k] if k is not None else (s.end[producer] if not s.is_input[producer] else 0.0)
            cand = (ready, 1, -producer, k)
            if best is None or cand[:3] > best[:3]:
                best = cand
        prev = lane_prev.get(x)
        if prev is not None:
            cand = (s.end[prev], 0, -prev, None)
            if best is None or cand[:3] > best[:3]:
                best = cand
        if best is None:
            break
        ready, _, neg_op, k = best
        producer = -neg_op
        if k is not None:
            row = s.xfers[k]
            path.append(("transfer", int(row["tensor"]), s.x_start[k], s.x_end[k],
                         f"tensor {int(row['tensor'])} {row['src_memory'].decode()}->"
                         f"{row['dst_memory'].decode()} via {s.x_route[k]}, {int(row['bytes'])} B"))
        if s.is_input[producer]:
            break
        x = producer
        path.append(("op", x, s.start[x], s.end[x], f"{s.name[x]} [{s.op_class[x]}] on {s.unit[x]}:{s.lane[x]}"))
    path.reverse()
    return path


def energy_components(trace):
    """The component names of /energy_totals, in column order."""
    prefix, suffix = "predicted_", "_j"
    return [n[len(prefix):-len(suffix)] for n in trace["energy_totals"].dtype.names
            if n.startswith(prefix) and n.endswith(suffix) and n != "predicted_total_j"]


def energy_parts(trace, s):
    """(group, owner, component, joules) rows that make up the total energy of the view, from
    /energy_totals: per unit the components of its ops (laser, DAC, ADC, optical MACs, weight programming,
    cores, memory accesses, ...) and its static power x makespan, per memory its static power x makespan,
    per link the energy of the hops it carried. Components with no energy are left out."""
    parts = []
    for row in trace["energy_totals"]:
        for comp in energy_components(trace):
            e = float(row[f"{s.which}_{comp}_j"])
            if e != 0.0:
                parts.append((row["kind"].decode(), row["owner"].decode(), comp, e))
    return parts


def print_report(trace, s, path, edges_note, parts, top):
    units = trace["units"]
    meta = trace["meta"]
    print(f"trace: {meta['hardware_name']} graph {meta.get('graph_path') or '(generated)'} "
          f"objective {meta['objective']} schedule {s.which}")
    print(f"makespan_s: {s.makespan:.9g}")
    print(f"ops: {int((~s.is_input).sum())} (plus {int(s.is_input.sum())} inputs) transfers: {len(s.xfers)}")
    print()
    print("utilisation (busy lane-seconds / (lanes x makespan))")
    print(f"{'unit':12} {'kind':4} {'lanes':>5} {'ops':>6} {'busy_s':>14} {'utilisation':>11}")
    for row in units:
        name = row["unit"].decode()
        n_ops = sum(1 for u, i in zip(s.unit, s.is_input) if u == name and not i)
        print(f"{name:12} {row['kind'].decode():4} {int(row['lanes']):5d} {n_ops:6d} "
              f"{float(row[s.which + '_busy_s']):14.6e} {float(row[s.which + '_utilisation']):11.6f}")
    print()
    ops_on_path = [p for p in path if p[0] == "op"]
    length = path[-1][3] - path[0][2] if path else 0.0
    work = sum(p[3] - p[2] for p in path)
    print(f"critical path ({edges_note}; rule: from the op that ends last, step to the input that arrived "
          "last or the previous op on the same lane, whichever was ready last)")
    print(f"critical_path_length_s: {length:.9g} ({len(ops_on_path)} ops, {len(path) - len(ops_on_path)} "
          f"transfers, busy {work:.9g} s, waiting {length - work:.9g} s)")
    for kind, ident, start, end, label in path:
        print(f"  {start:16.9e} {end:16.9e} {kind:8} {ident:6d} {label}")
    print()
    print("energy (J; parts printed in full precision)")
    print(f"{'group':7} {'owner':20} {'component':18} {'energy_j':>24} {'share':>7}")
    total = s.total_energy
    for group, owner, comp, e in parts:
        share = e / total if total > 0 else 0.0
        print(f"{group:7} {owner:20} {comp:18} {e:24.17g} {100 * share:6.2f}%")
    parts_sum = sum(p[3] for p in parts)
    rel = abs(parts_sum - total) / total if total > 0 else abs(parts_sum)
    print(f"energy_parts_sum_j: {parts_sum:.17g}")
    print(f"energy_total_j: {total:.17g}")
    print(f"energy_sum_check: relative difference {rel:.3e} ({'ok' if rel <= 1e-9 else 'MISMATCH'})")
    print()
    print("energy by component (J, all owners)")
    by_comp = {}
    for _, _, comp, e in parts:
        by_comp[comp] = by_comp.get(comp, 0.0) + e
    for comp, e in sorted(by_comp.items(), key=lambda kv: -kv[1]):
        share = e / total if total > 0 else 0.0
        print(f"{comp:20} {e:24.17g} {100 * share:6.2f}%")
    print()
    order = [int(o) for o in np.flatnonzero(~s.is_input)]
    order.sort(key=lambda o: (-s.duration[o], o))
    print(f"top {min(top, len(order))} ops by {s.which} duration")
    print(f"{'op':>6} {'name':44} {'class':14} {'unit':8} {'duration_s':>14} {'energy_j':>14}")
    for o in order[:top]:
        print(f"{o:6d} {s.name[o][:44]:44} {s.op_class[o]:14} {s.unit[o]:8} {s.duration[o]:14.6e} "
              f"{s.energy[o]:14.6e}")


COLLECTIVES = ("all_reduce", "reduce_scatter", "all_gather")


def collective_sends_from(trace, memory):
    """(sends, MiB) of the replay's collective sends out of `memory` (/collective_sends, format 4; every
    member's own, so a shard's peers have theirs)."""
    sends = trace.get("collective_sends")
    if sends is None or not len(sends):
        return 0, 0.0
    mine = sends[np.array(text(sends["src_memory"])) == memory]
    return len(mine), float(mine["bytes"].sum()) / 2**20


def communication(trace, s):
    """Per unit: (name, compute_s, collectives_s, collective ops, transfers_in_s, loads_in_s, collective
    sends, sent MiB)."""
    src_load = s.xfers["load"].astype(int) if len(s.xfers) else np.array([], dtype=int)
    dst = text(s.xfers["dst_memory"]) if len(s.xfers) else []
    rows = []
    for row in trace["units"]:
        name = row["unit"].decode()
        mine = [(c, d) for u, c, d, i in zip(s.unit, s.op_class, s.duration, s.is_input) if u == name and not i]
        collective = [d for c, d in mine if c in COLLECTIVES]
        into = [k for k, m in enumerate(dst) if m == s.mem_of_unit.get(name)]
        xfer = sum(s.x_end[k] - s.x_start[k] for k in into if not src_load[k])
        load = sum(s.x_end[k] - s.x_start[k] for k in into if src_load[k])
        rows.append((name, sum(d for c, d in mine if c not in COLLECTIVES), sum(collective), len(collective),
                     xfer, load) + collective_sends_from(trace, s.mem_of_unit.get(name)))
    # A tensor-parallel shard's peers run its device's shard at once (/units mirrors): repeat its row, but
    # for the collective sends, which the replay ran for every member.
    fields = trace["units"].dtype.names
    by_name = {r[0]: r for r in rows}
    for k, row in enumerate(trace["units"]):
        device = row["mirrors"].decode() if "mirrors" in fields else ""
        if device:
            rows[k] = (f"{rows[k][0]}={device}",) + by_name[device][1:6] + rows[k][6:]
    return rows


def print_communication(rows, s):
    print("communication vs compute per unit (s; share of the makespan)")
    print(f"{'unit':12} {'compute_s':>14} {'collectives_s':>14} {'colls':>6} {'transfers_in_s':>14} "
          f"{'loads_in_s':>14} {'sends':>7} {'sent_MiB':>10} {'comm_share':>10}")
    for name, compute, coll, n, xfer, load, sends, sent in rows:
        share = (coll + xfer) / s.makespan if s.makespan > 0 else 0.0
        print(f"{name:12} {compute:14.6e} {coll:14.6e} {n:6d} {xfer:14.6e} {load:14.6e} {sends:7d} {sent:10.4f} "
              f"{100 * share:9.2f}%")
    print()


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("trace")
    ap.add_argument("--out", help="directory for the PNGs (default: the trace's directory)")
    ap.add_argument("--graph", help="TVM graph JSON of the graph that was scheduled, for a trace without "
                    "/op_inputs (format 2; default: /meta graph_path)")
    ap.add_argument("--top", type=int, default=10, help="how many of the longest ops to print")
    args = ap.parse_args()
    trace = read_trace(args.trace)
    trace["names"] = text(trace["ops"]["name"])
    simulated = int(trace["meta"].get("simulated", 0)) == 1
    s = Schedule(trace, "simulated" if simulated else "predicted")
    s.mem_of_unit = {r["unit"].decode(): r["memory"].decode() for r in trace["units"]}
    inputs, edges_note = graph_inputs(trace, args.graph, len(s.name))
    if inputs is None:
        edges_note += "; data edges from /transfers only"
    path = critical_path(s, inputs)
    parts = energy_parts(trace, s)
    print_report(trace, s, path, edges_note, parts, args.top)
    comm = communication(trace, s)
    print_communication(comm, s)

    out = args.out or os.path.dirname(os.path.abspath(args.trace))
    os.makedirs(out, exist_ok=True)
    stem = os.path.join(out, os.path.splitext(os.path.basename(args.trace))[0])
    written = [save(plot_gantt(s, {p[1] for p in path if p[0] == "op"}, out), stem + "_gantt.png"),
               save(plot_utilisation(trace, s), stem + "_utilisation.png"),
               save(plot_communication(comm, s), stem + "_communication.png"),
               save(plot_energy(parts, s), stem + "_energy.png")]
    if simulated:
        written.append(save(plot_durations(trace, s), stem + "_durations.png"))
    print()
    for p in written:
        print(f"wrote {p}")


if __name__ == "__main__":
    main()
