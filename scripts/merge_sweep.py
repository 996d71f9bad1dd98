#!/usr/bin/python3
"""merge_sweep.py DIR: merges a sweep's per-point results into DIR/sweep.csv and DIR/sweep.h5.

One row per point that has a result, in point order. Columns: the point's index and parameters (from
DIR/plan.json, written by scripts/sweep_plan.py), then makespan_s, energy_j, objective_value, ops, and per
unit ops_<unit>, util_<unit>, busy_s_<unit>, energy_j_<unit>, and per link bytes_<link>, busy_s_<link>.
Run times (solve_ms, stage_ms) are left out so that the table depends only on the inputs.

The HDF5 file holds one compound dataset /sweep (a field per column; text as fixed-length ASCII, numbers
as float64 or int64) with attributes spec, hw and columns. Both files are written to temporaries and
renamed. Exit status 0 when every point of the plan has a result, 1 when some are missing (listed).
"""
import csv
import io
import json
import os
import sys

import h5py
import numpy as np

from atomic_output import atomic_path, write_atomic
import script_args


def result_columns(result):
    cols = {
        "makespan_s": result["makespan_s"],
        "energy_j": result["energy_j"],
        "objective_value": result.get("objective_value"),
        "ops": result.get("ops"),
    }
    for u in result.get("units", []):
        cols[f"ops_{u['name']}"] = u["ops"]
        cols[f"util_{u['name']}"] = u["utilisation"]
        cols[f"busy_s_{u['name']}"] = u["busy_s"]
        cols[f"energy_j_{u['name']}"] = u["energy_j"]
    for link in result.get("links", []):
        cols[f"bytes_{link['name']}"] = link["bytes"]
        cols[f"busy_s_{link['name']}"] = link["busy_s"]
    return cols


def load_rows(out):
    with open(os.path.join(out, "plan.json")) as f:
        plan = json.load(f)
    rows, missing = [], []
    columns = list(plan["columns"])
    for p in plan["points"]:
        try:
            with open(os.path.join(out, "results", p["key"] + ".json")) as f:
                result = json.load(f)
        except (OSError, ValueError):
            missing.append(p)
            continue
        row = {"point": p["point"], **p["params"], **result_columns(result)}
        for c in row:
            if c not in columns:
                columns.append(c)
        rows.append(row)
    return plan, columns, rows, missing


def text(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def write_csv(path, columns, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([text(r.get(c)) for c in columns])
    write_atomic(path, buf.getvalue())


def column_array(values):
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present) and len(present) == len(values):
        return np.array(values, dtype=np.int64)
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)
    strings = [text(v).encode("ascii", "replace") for v in values]
    return np.array(strings, dtype=f"S{max([1] + [len(s) for s in strings])}")


def write_h5(path, plan, columns, rows):
    arrays = [column_array([r.get(c) for r in rows]) for c in columns]
    table = np.zeros(len(rows), dtype=[(c, a.dtype) for c, a in zip(columns, arrays)])
    for c, a in zip(columns, arrays):
        table[c] = a
    with atomic_path(path) as tmp, h5py.File(tmp, "w", track_order=True) as f:
        d = f.create_dataset("sweep", data=table)
        d.attrs["spec"] = plan["spec"]
        d.attrs["hw"] = plan["hw"]
        d.attrs["columns"] = ",".join(columns)


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("dir", help="the sweep's folder (holding plan.json and results/)")
    out = ap.parse_args().dir
    plan, columns, rows, missing = load_rows(out)
    write_csv(os.path.join(out, "sweep.csv"), columns, rows)
    write_h5(os.path.join(out, "sweep.h5"), plan, columns, rows)
    print(f"merge: {len(rows)} of {len(plan['points'])} points into {out}/sweep.csv and sweep.h5", file=sys.stderr)
    for p in missing:
        print(f"merge: point {p['point']} ({p['key']}) has no result: {json.dumps(p['params'])}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
