#!/usr/bin/env python3
"""Writes lightsim's small example graphs in TVM graph-executor JSON (the format relay.build emits).

  scripts/make_example_graphs.py [OUTDIR]        (default: tests/data)

mlp2.json               a 2-layer MLP: (dense + add + relu) x 2, float32, batch 4, 64 -> 128 -> 10.
transformer_block.json  one GPT-2-style transformer block: 8 tokens, hidden 64, 2 heads, MLP 256, with the
                        same op kinds and func_name spellings as a TVM export of GPT-2 (opt_level 0, fusion
                        off): mean/subtract/power/rsqrt/multiply layernorm, dense qkv, split, reshapes as
                        __nop, transpose, batch_matmul, divide, where (causal mask input), softmax, dense,
                        tanh-GELU, residual adds.

Python 3 standard library only; the output is deterministic. Not a model exporter: there are no weights.
"""
import json
import pathlib

from atomic_output import write_atomic
import script_args


class TvmGraph:
    """Builds the nodes / arg_nodes / heads / node_row_ptr / attrs of a graph-executor JSON."""

    def __init__(self):
        self.nodes, self.shapes, self.dtypes = [], [], []
        self.row_ptr = [0]
        self.arg_nodes = []
        self.num_params = 0
        self.func_variants = {}  # base func_name -> [signature, ...]; index = numeric suffix
        self.names = set()  # node names given so far (kept unique)

    def _add_node(self, node, out_shapes, out_dtypes):
        self.names.add(node["name"])
        self.nodes.append(node)
        self.shapes.extend(out_shapes)
        self.dtypes.extend(out_dtypes)
        self.row_ptr.append(len(self.shapes))
        index = len(self.nodes) - 1
        return [(index, k) for k in range(len(out_shapes))]

    def entry(self, ref):
        node, k = ref
        e = self.row_ptr[node] + k
        return self.shapes[e], self.dtypes[e]

    def input(self, name, shape, dtype="float32"):
        """A per-run graph input (a null node with its own name)."""
        self.arg_nodes.append(len(self.nodes))
        return self._add_node({"op": "null", "name": name, "inputs": []}, [shape], [dtype])[0]

    def param(self, shape, dtype="float32"):
        """A bound parameter (weight or constant), named p<k> as relay.build names them."""
        name = "p%d" % self.num_params
        self.num_params += 1
        return self.input(name, shape, dtype)

    def op(self, base, inputs, out_shapes, out_dtype=None):
        """Calls tvmgen_default_fused_<base>; one func_name per distinct signature, as TVM does."""
        if out_dtype is None:
            out_dtype = self.entry(inputs[0])[1]
        signature = (tuple(tuple(self.entry(r)[0]) + (self.entry(r)[1],) for r in inputs),
                     tuple(tuple(s) for s in out_shapes))
        variants = self.func_variants.setdefault(base, [])
        if signature not in variants:
            variants.append(signature)
        variant = variants.index(signature)
        func_name = "tvmgen_default_fused_" + base + ("_%d" % variant if variant else "")
        name, uses = func_name, 0
        while name in self.names:  # the n-th call of a function is <func_name>_n, as TVM names them
            uses += 1
            name = "%s_%d" % (func_name, uses)
        return self._call(name, func_name, inputs, out_shapes, [out_dtype] * len(out_shapes))

    def reshape(self, x, shape):
        """A reshape: TVM's graph executor runs it as __nop (a view)."""
        _, dtype = self.entry(x)
        return self._call("reshape_nop", "__nop", [x], [shape], [dtype])[0]

    def _call(self, name, func_name, inputs, out_shapes, out_dtypes):
        attrs = {"num_outputs": str(len(out_shapes)), "num_inputs": str(len(inputs)),
                 "flatten_data": "0", "func_name": func_name}
        node = {"op": "tvm_op", "name": name, "attrs": attrs, "inputs": [[n, k, 0] for n, k in inputs]}
        return self._add_node(node, out_shapes, out_dtypes)

    def to_json(self, heads):
        entries = len(self.shapes)
        return {
            "nodes": self.nodes,
            "arg_nodes": self.arg_nodes,
            "heads": [[n, k, 0] for n, k in heads],
            "attrs": {
                "dltype": ["list_str", self.dtypes],
                "device_index": ["list_int", [1] * entries],
                "storage_id": ["list_int", list(range(entries))],
                "shape": ["list_shape", self.shapes],
            },
            "node_row_ptr": self.row_ptr,
        }


def mlp2(batch=4, features_in=64, hidden=128, features_out=10):
    g = TvmGraph()
    x = g.input("x", [batch, features_in])
    for width_in, width_out in ((features_in, hidden), (hidden, features_out)):
        w = g.param([width_out, width_in])
        x = g.op("nn_dense", [x, w], [[batch, width_out]])[0]
        b = g.param([width_out])
        x = g.op("add", [x, b], [[batch, width_out]])[0]
        x = g.op("nn_relu", [x], [[batch, width_out]])[0]
    return g.to_json([x])


def layer_norm(g, x, tokens, hidden):
    mean = g.op("mean", [x], [[1, tokens, 1]])[0]
    centred = g.op("subtract", [x, mean], [[1, tokens, hidden]])[0]
    squared = g.op("power", [centred, g.param([])], [[1, tokens, hidden]])[0]
    variance = g.op("mean", [squared], [[1, tokens, 1]])[0]
    variance = g.op("add", [variance, g.param([])], [[1, tokens, 1]])[0]
    inv_std = g.op("rsqrt", [variance], [[1, tokens, 1]])[0]
    y = g.op("multiply", [centred, inv_std], [[1, tokens, hidden]])[0]
    y = g.op("multiply", [y, g.param([hidden])], [[1, tokens, hidden]])[0]
    return g.op("add", [y, g.param([hidden])], [[1, tokens, hidden]])[0]


def linear(g, x, tokens, width_in, width_out):
    """[tokens, width_in] -> dense + bias add -> [tokens, width_out]."""
    y = g.op("nn_dense", [x, g.param([width_out, width_in])], [[tokens, width_out]])[0]
    return g.op("add", [y, g.param([width_out])], [[tokens, width_out]])[0]


def transformer_block(tokens=8, hidden=64, heads=2, mlp=256):
    head_dim = hidden // heads
    g = TvmGraph()
    x = g.input("hidden_states", [1, tokens, hidden])
    mask = g.input("causal_mask", [1, 1, tokens, tokens], "uint1")

    # Attention.
    h = layer_norm(g, x, tokens, hidden)
    qkv = linear(g, g.reshape(h, [tokens, hidden]), tokens, hidden, 3 * hidden)
    q, k, v = g.op("split", [g.reshape(qkv, [1, tokens, 3 * hidden])], [[1, tokens, hidden]] * 3)
    split_heads = [1, tokens, heads, head_dim]
    q = g.op("transpose", [g.reshape(q, split_heads)], [[1, heads, tokens, head_dim]])[0]
    q = g.reshape(q, [heads, tokens, head_dim])
    k = g.op("transpose", [g.reshape(k, split_heads)], [[1, heads, head_dim, tokens]])[0]
    k = g.op("transpose", [g.reshape(k, [heads, head_dim, tokens])], [[heads, tokens, head_dim]])[0]
    scores = g.op("nn_batch_matmul", [q, k], [[heads, tokens, tokens]])[0]
    scores = g.reshape(scores, [1, heads, tokens, tokens])
    scores = g.op("divide", [scores, g.param([])], [[1, heads, tokens, tokens]])[0]
    scores = g.op("where", [mask, scores, g.param([])], [[1, heads, tokens, tokens]], "float32")[0]
    probs = g.op("nn_softmax", [scores], [[1, heads, tokens, tokens]])[0]
    probs = g.reshape(probs, [heads, tokens, tokens])
    v = g.op("transpose", [g.reshape(v, split_heads)], [[1, heads, tokens, head_dim]])[0]
    v = g.op("transpose", [g.reshape(v, [heads, tokens, head_dim])], [[heads, head_dim, tokens]])[0]
    context = g.op("nn_batch_matmul", [probs, v], [[heads, tokens, head_dim]])[0]
    context = g.reshape(context, [1, heads, tokens, head_dim])
    context = g.op("transpose", [context], [[1, tokens, heads, head_dim]])[0]
    attn = linear(g, g.reshape(context, [tokens, hidden]), tokens, hidden, hidden)
    x = g.op("add", [g.reshape(attn, [1, tokens, hidden]), x], [[1, tokens, hidden]])[0]

    # MLP with GPT-2's tanh GELU: 0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3))).
    h = layer_norm(g, x, tokens, hidden)
    h = linear(g, g.reshape(h, [tokens, hidden]), tokens, hidden, mlp)
    h = g.reshape(h, [1, tokens, mlp])
    shape = [[1, tokens, mlp]]
    half = g.op("multiply", [h, g.param([])], shape)[0]
    cube = g.op("power", [h, g.param([])], shape)[0]
    cube = g.op("multiply", [cube, g.param([])], shape)[0]
    inner = g.op("add", [h, cube], shape)[0]
    inner = g.op("multiply", [inner, g.param([])], shape)[0]
    t = g.op("tanh", [inner], shape)[0]
    t = g.op("add", [t, g.param([])], shape)[0]
    h = g.op("multiply", [half, t], shape)[0]
    h = linear(g, g.reshape(h, [tokens, mlp]), tokens, mlp, hidden)
    x = g.op("add", [x, g.reshape(h, [1, tokens, hidden])], [[1, tokens, hidden]])[0]
    return g.to_json([x])


def dump(graph):
    """JSON text with one node, and one attrs list, per line (readable diffs)."""
    compact = lambda v: json.dumps(v, separators=(",", ":"))
    nodes = ",\n".join("  " + compact(n) for n in graph["nodes"])
    attrs = ",\n".join("  %s:%s" % (compact(k), compact(v)) for k, v in graph["attrs"].items())
    return ('{\n "nodes":[\n%s\n ],\n "arg_nodes":%s,\n "heads":%s,\n "attrs":{\n%s\n },\n'
            ' "node_row_ptr":%s\n}\n') % (nodes, compact(graph["arg_nodes"]), compact(graph["heads"]), attrs,
                                           compact(graph["node_row_ptr"]))


def main():
    ap = script_args.parser(__doc__)
    ap.add_argument("outdir", nargs="?", default=pathlib.Path(__file__).parent.parent / "tests/data",
                    type=pathlib.Path, help="folder for the graphs (default: tests/data)")
    outdir = ap.parse_args().outdir
    outdir.mkdir(parents=True, exist_ok=True)
    for name, graph in (("mlp2.json", mlp2()), ("transformer_block.json", transformer_block())):
        write_atomic(outdir / name, dump(graph))
        print("wrote", outdir / name, "(%d nodes)" % len(graph["nodes"]))


if __name__ == "__main__":
    main()
