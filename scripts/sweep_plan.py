#!/usr/bin/python3
"""sweep_plan.py SPEC.json OUT_DIR: expands a sweep spec into points and says which still need running.

Used by scripts/sweep.sh; not a runner. The spec (relative paths are relative to the spec's directory):

  {
    "hw": "configs/photonic.json",                  base hardware config
    "graphs": ["tests/data/mlp2.json"],             graph files, and/or
    "graphgen": {"model": "gpt2", "phase": "prefill", "seq": [32, 64], "layers": 2},
                                                    lightsim-graph arguments; a list value is swept
    "objective": "time",                            or a list: time | energy | edp | makespan
    "set": {"phu0.wdm_channels": [4, 8, 16],        --set ranges (ir/hardware/config_override.h)
            "links.pcie-phu.lanes,links.pcie-phu.generation": [[4, 5], [16, 4]]},
                                                    comma-joined keys vary together (zipped)
    "args": ["--unknown-op", "cpu"]                 extra lightsim arguments for every point
  }

Points are the cartesian product graph x objective x set (in the order written, the last varying fastest);
point i keeps its index as long as the spec is unchanged. Each point has a key: the SHA-256 of what
determines its result (hardware and graph file contents or generator arguments, objective, overrides,
extra args), so results survive a re-plan and are never reused for a different point.

Writes into OUT_DIR: plan.json (columns and points), points/KEY.args (lightsim arguments, --json last, one per line),
graphs.todo (KEY<TAB>args file of graphs to generate), todo.txt (keys of points without a valid result,
in index order) and todo.batch (the same points as `lightsim --batch` lines, sim/cli/batch.h: args file,
result, error log, the tag "point KEY" that executed.log records). A result counts as valid when it parses as a JSON object with makespan_s and energy_j;
invalid results and temporary files of killed runs are deleted.
"""
import hashlib
import itertools
import json
import os
import sys

from atomic_output import write_atomic
import script_args


class SpecError(Exception):
    pass


def sha256_file(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        raise SpecError(f"cannot read {path}: {e.strerror}")
    return h.hexdigest()


def digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def as_list(value):
    return value if isinstance(value, list) else [value]


def resolve(base, path):
    if not isinstance(path, str) or not path:
        raise SpecError(f"expected a path, got {json.dumps(path)}")
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))


def value_text(v):
    """A --set value as typed on the command line (JSON, strings unquoted)."""
    return v if isinstance(v, str) else json.dumps(v)


def graph_choices(spec, base):
    """[(columns dict, graph identity for the key, graph path or None, generator args or None)]."""
    choices = []
    for g in as_list(spec.get("graphs", [])):
        path = resolve(base, g)
        choices.append(({"graph": os.path.basename(path)}, {"file": sha256_file(path)}, path, None))
    gen = spec.get("graphgen")
    if gen is not None:
        if not isinstance(gen, dict) or not gen:
            raise SpecError("graphgen: expected an object of lightsim-graph arguments")
        names = list(gen)
        for values in itertools.product(*(as_list(gen[n]) for n in names)):
            args = dict(zip(names, values))
            label = "-".join(f"{n}{v}" if n in ("seq", "layers", "batch", "past") else str(v) for n, v in args.items())
            choices.append(({"graph": label, **{n: v for n, v in args.items()}}, {"graphgen": args}, None, args))
    if not choices:
        raise SpecError("names no graphs: give \"graphs\" and/or \"graphgen\"")
    return choices


def set_axes(spec):
    """[(keys, [tuple of values])]: one axis per entry of "set" (comma-joined keys vary together)."""
    axes = []
    for joined, values in spec.get("set", {}).items():
        keys = [k.strip() for k in joined.split(",")]
        if not all(keys) or not isinstance(values, list) or not values:
            raise SpecError(f"set.{joined}: expected a non-empty list of values")
        rows = []
        for v in values:
            row = tuple(v) if len(keys) > 1 else (v,)
            if len(keys) > 1 and (not isinstance(v, list) or len(v) != len(keys)):
                raise SpecError(f"set.{joined}: each value must be a list of {len(keys)} (one per key)")
            rows.append(row)
        axes.append((keys, rows))
    return axes


def expand(spec, base):
    if not isinstance(spec, dict):
        raise SpecError("expected a JSON object")
    if "hw" not in spec:
        raise SpecError("hw: missing (the base hardware config)")
    hw = resolve(base, spec["hw"])
    hw_sha = sha256_file(hw)
    objectives = as_list(spec.get("objective", "time"))
    extra = [str(a) for a in spec.get("args", [])]
    axes = set_axes(spec)
    graphs = graph_choices(spec, base)
    gen_keys = [k for _, _, _, a in graphs if a for k in a]
    columns = ["point", "graph"] + list(dict.fromkeys(gen_keys)) + ["objective"] + [k for keys, _ in axes for k in keys]
    points = []
    for graph, objective, *rows in itertools.product(graphs, objectives, *(rows for _, rows in axes)):
        cols, identity, path, gen_args = graph
        sets = [(k, v) for (keys, _), row in zip(axes, rows) for k, v in zip(keys, row)]
        key_material = {"hw": hw_sha, "graph": identity, "objective": objective,
                        "set": [[k, value_text(v)] for k, v in sets], "args": extra}
        points.append({
            "point": len(points),
            "key": digest(key_material)[:16],
            "params": {**cols, "objective": objective, **dict(sets)},
            "graph_path": path,
            "graphgen": gen_args,
            "sets": [f"{k}={value_text(v)}" for k, v in sets],
        })
    return hw, extra, columns, points


def valid_result(path):
    try:
        with open(path) as f:
            r = json.load(f)
        return isinstance(r, dict) and "makespan_s" in r and "energy_j" in r
    except (OSError, ValueError):
        return False


def plan(spec_path, out):
    try:
        with open(spec_path) as f:
            spec = json.load(f)
    except OSError as e:
        raise SpecError(f"cannot read: {e.strerror}")
    except ValueError as e:
        raise SpecError(f"not valid JSON ({e})")
    hw, extra, columns, points = expand(spec, os.path.dirname(os.path.abspath(spec_path)))
    for d in ("points", "results", "graphs", "logs"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    # Leftovers of killed runs: temporary results and graphs are never valid.
    for d in ("results", "graphs"):
        for name in os.listdir(os.path.join(out, d)):
            if ".tmp." in name:
                os.remove(os.path.join(out, d, name))

    graph_todo = {}
    todo = []
    for p in points:
        graph = p["graph_path"]
        if p["graphgen"] is not None:
            gkey = digest(p["graphgen"])[:16]
            graph = os.path.join(os.path.abspath(out), "graphs", gkey + ".json")
            gen_args = [a for n, v in p["graphgen"].items() for a in (f"--{n}", value_text(v))]
            result_path = os.path.join(out, "results", p["key"] + ".json")
            if not os.path.exists(graph) and not valid_result(result_path):
                graph_todo[gkey] = gen_args
        args = ["--hw", hw, "--graph", graph] + [a for s in p["sets"] for a in ("--set", s)]
        args += ["--objective", p["params"]["objective"]] + extra + ["--json"]
        write_atomic(os.path.join(out, "points", p["key"] + ".args"), "".join(a + "\n" for a in args))
        result = os.path.join(out, "results", p["key"] + ".json")
        if not valid_result(result):
            if os.path.exists(result):
                os.remove(result)
            todo.append(p["key"])
    for gkey, gen_args in graph_todo.items():
        write_atomic(os.path.join(out, "graphs", gkey + ".args"), "".join(a + "\n" for a in gen_args))
    plan_doc = {"spec": os.path.abspath(spec_path), "hw": hw, "columns": columns,
                "points": [{"point": p["point"], "key": p["key"], "params": p["params"]} for p in points]}
    write_atomic(os.path.join(out, "plan.json"), json.dumps(plan_doc, indent=1) + "\n")
    write_atomic(os.path.join(out, "points.txt"), "".join(p["key"] + "\n" for p in points))
    write_atomic(os.path.join(out, "todo.txt"), "".join(k + "\n" for k in todo))
    where = os.path.abspath(out)
    write_atomic(os.path.join(out, "todo.batch"), "".join(
        f"{where}/points/{k}.args\t{where}/results/{k}.json\t{where}/logs/{k}.err\tpoint {k}\n" for k in todo))
    write_atomic(os.path.join(out, "graphs.todo"), "".join(g + "\n" for g in graph_todo))
    return len(points), len(todo), len(graph_todo)


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("spec", help="the sweep spec (JSON, format above)")
    ap.add_argument("out_dir", help="the sweep's folder")
    args = ap.parse_args()
    try:
        total, todo, graphs = plan(args.spec, args.out_dir)
    except SpecError as e:
        print(f"sweep: error: {args.spec}: {e}", file=sys.stderr)
        return 2
    print(f"{total} {todo} {graphs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
