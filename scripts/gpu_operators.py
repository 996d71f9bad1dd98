"""The operators scripts/measure_gpu.py measures, and the two files it writes: the kernel CSV (the format of
../shared/reference/measured/h100_llama2_7b_fp16_kernels.csv) and a lightsim measurement file (the HDF5
layout of sim/profile/README.md, "Measurement file") that `lightsim-calibrate` reads.

No PyTorch here: an operator is a description (name, shape, MACs, bytes, lightsim op class and features), so
this module is tested offline (tests/scripts/measure_gpu_test.sh) with measure_gpu.py's fake backend.

It is not a timing method: measure_gpu.py's backends time the operators.
"""
import csv
import io
import json
import os
import time

from atomic_output import atomic_path, write_atomic

# Llama-2 shapes (Hugging Face config.json of each model).
MODELS = {
    "llama2-7b": {"hidden": 4096, "heads": 32, "kv_heads": 32, "intermediate": 11008, "vocab": 32000, "layers": 32},
    "llama2-13b": {"hidden": 5120, "heads": 40, "kv_heads": 40, "intermediate": 13824, "vocab": 32000,
                   "layers": 40},
    "llama2-70b": {"hidden": 8192, "heads": 64, "kv_heads": 8, "intermediate": 28672, "vocab": 32000, "layers": 80},
}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "tf32": 4, "int8": 1}
CSV_COLUMNS = ["op", "tokens", "dtype", "shape", "kernel_us", "kernels_per_call", "macs", "bytes", "weights",
               "back_to_back_us"]


class Operator:
    """One measured call. kind: linear | bmm | softmax | sdpa | add | mul | silu | silu_mul | rmsnorm_fused |
    layernorm | copy. dims: the sizes (linear: m, n, k; bmm: b, m, n, k; softmax: b, rows, cols; sdpa: heads,
    tokens, head_dim; element ops: rows, cols; copy: elements)."""

    def __init__(self, name, kind, tokens, dtype, dims, weights="n/a"):
        self.name, self.kind, self.tokens, self.dtype, self.dims, self.weights = name, kind, tokens, dtype, dims, weights

    @property
    def element_bytes(self):
        return DTYPE_BYTES[self.dtype]

    def shape_text(self, model=None):
        """As the CSV writes it: a GEMM's sizes in the order (batch,) m, k, n."""
        d = self.dims
        order = (d[0], d[2], d[1]) if self.kind == "linear" else (d[0], d[1], d[3], d[2]) if self.kind == "bmm" else d
        text = "x".join(str(x) for x in order)
        return "%s:%s" % (model, text) if model and self.weights == "cold" and self.kind == "linear" else text

    def macs(self):
        d = self.dims
        if self.kind == "linear":
            return d[0] * d[1] * d[2]
        if self.kind == "bmm":
            return d[0] * d[1] * d[2] * d[3]
        if self.kind == "sdpa":  # Q K^T of every head (the CSV's convention)
            return d[0] * d[1] * d[1] * d[2]
        return 0

    def bytes(self):
        """Operands read once and the result written once (0 where the CSV leaves it unfilled)."""
        d, e = self.dims, self.element_bytes
        if self.kind == "linear":
            m, n, k = d
            return (m * k + n * k + m * n) * e
        if self.kind == "softmax":
            return 2 * d[0] * d[1] * d[2] * e
        if self.kind == "add":
            return 3 * d[0] * d[1] * e
        if self.kind == "silu":
            return 2 * d[0] * d[1] * e
        if self.kind == "mul":
            return 3 * d[0] * d[1] * e
        if self.kind in ("rmsnorm_fused", "layernorm"):
            return 2 * d[0] * d[1] * e
        if self.kind == "copy":
            return 2 * d[0] * e
        return 0

    def lightsim_op(self):
        """(op class, input shapes, output shapes, features) as lightsim's importer gives the same computation,
        or None for operators that are several ops there (sdpa, silu_mul, the norms)."""
        d, e = self.dims, self.element_bytes
        if self.kind == "linear":
            m, n, k = d
            ins, outs = [[m, k], [n, k]], [[m, n]]
            return "dense", ins, outs, gemm_features(ins, outs, e, 1, m, n, k)
        if self.kind == "bmm":
            b, m, n, k = d
            ins, outs = ([[b, m, k], [b, n, k]], [[b, m, n]])
            return "batch_matmul", ins, outs, gemm_features(ins, outs, e, b, m, n, k)
        if self.kind == "softmax":
            return "softmax", [list(d)], [list(d)], element_features([list(d)], [list(d)], e)
        if self.kind in ("add", "mul"):
            s = list(d)
            return ("add" if self.kind == "add" else "multiply"), [s, s], [s], element_features([s, s], [s], e)
        if self.kind == "silu":  # sigmoid then multiply in a TVM graph; measured here as one kernel
            return None
        if self.kind == "copy":
            return "copy", [list(d)], [list(d)], element_features([list(d)], [list(d)], e)
        return None


def count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def element_features(ins, outs, e):
    elements_in = sum(count(s) for s in ins)
    elements_out = sum(count(s) for s in outs)
    return {"macs": 0.0, "elements_in": elements_in, "elements_out": elements_out, "bytes_in": elements_in * e,
            "bytes_out": elements_out * e, "bytes_read": elements_in * e, "elements_read": elements_in,
            "max_dim": max(max(s) for s in ins), "gemm_batch": 0, "gemm_m": 0, "gemm_n": 0, "gemm_k": 0}


def gemm_features(ins, outs, e, b, m, n, k):
    f = element_features(ins, outs, e)
    f.update(macs=float(b * m * n * k), gemm_batch=b, gemm_m=m, gemm_n=n, gemm_k=k)
    return f


def standard_operators(model, tokens, dtype="float16", probes=True):
    """One model layer's operators at each token count (batch 1, prefill): the projections with cold weights,
    the LM head, the attention GEMMs, softmax over [heads, T, T], fused causal attention and the element ops;
    with `probes`, the precision probes, the M sweep across tile boundaries and a 512 MiB copy."""
    c = MODELS[model]
    h, heads, inter, vocab = c["hidden"], c["heads"], c["intermediate"], c["vocab"]
    head_dim, kv = h // heads, c["kv_heads"]
    ops = []
    for t in tokens:
        ops += [Operator("qkv", "linear", t, dtype, (t, h + 2 * kv * head_dim, h), "cold"),
                Operator("o", "linear", t, dtype, (t, h, h), "cold"),
                Operator("gate_up", "linear", t, dtype, (t, 2 * inter, h), "cold"),
                Operator("down", "linear", t, dtype, (t, h, inter), "cold"),
                Operator("lm_head", "linear", t, dtype, (t, vocab, h), "hot"),
                Operator("qk_bmm", "bmm", t, dtype, (heads, t, t, head_dim)),
                Operator("av_bmm", "bmm", t, dtype, (heads, t, head_dim, t)),
                Operator("softmax", "softmax", t, dtype, (heads, t, t)),
                Operator("sdpa_causal", "sdpa", t, dtype, (heads, t, head_dim)),
                Operator("add", "add", t, dtype, (t, h)),
                Operator("silu", "silu", t, dtype, (t, inter)),
                Operator("mul_ff", "mul", t, dtype, (t, inter)),
                Operator("silu_mul", "silu_mul", t, dtype, (t, inter)),
                Operator("rmsnorm_fused", "rmsnorm_fused", t, dtype, (t, h)),
                Operator("layernorm", "layernorm", t, dtype, (t, h))]
    if probes:
        for p in ("float32", "tf32", "float16", "bfloat16", "int8"):
            ops.append(Operator("gemm4096", "linear", 512, p, (512, 4096, 4096), "hot"))
        for m in (1, 8, 16, 64, 127, 128, 129, 255, 256, 257):
            ops.append(Operator("gemm_m_sweep", "linear", m, dtype, (m, 4096, 4096), "hot"))
        ops.append(Operator("copy_512MiB", "copy", 0, dtype, (256 * 1024 * 1024,)))
    return ops


def sweep_operators(dtype="float16"):
    """Micro-benchmarks of what the GPU model's element and row kernels assume (`measure_gpu.py --set sweeps`):
    the residual add over 1 to 16384 rows of 4096 (24 KiB to 384 MiB touched), each with its operands hot
    (the same tensors every call: what fits stays in the L2) and cold (rotated among copies beyond 4x the L2):
    the fixed cost of a short kernel and where the L2 stops carrying a working set; the fused RMSNorm over
    1 to 16384 rows of 4096 and over 4096 rows of 1024 to 16384; softmax over rows of 32 to 16384 elements at
    a fixed 32 MiB input (one pass in registers against several over memory); copies of 1 KiB to 512 MiB.
    `tokens` holds the swept size (rows, or the row length for softmax, or elements for the copy)."""
    ops = []
    for rows in (2 ** i for i in range(15)):
        ops += [Operator("add_sweep", "add", rows, dtype, (rows, 4096), w) for w in ("hot", "cold")]
    for rows in (2 ** i for i in range(15)):
        ops.append(Operator("rmsnorm_sweep", "rmsnorm_fused", rows, dtype, (rows, 4096)))
    for width in (1024, 2048, 8192, 16384):
        ops.append(Operator("rmsnorm_width", "rmsnorm_fused", width, dtype, (4096, width)))
    for length in (2 ** i for i in range(5, 15)):
        ops.append(Operator("softmax_rowlen", "softmax", length, dtype, (32, 2 ** 19 // length, length)))
    for elements in (2 ** i for i in range(9, 29, 2)):
        ops.append(Operator("copy_sweep", "copy", elements, dtype, (elements,)))
    return ops


def write_csv(path, model, results):
    """results: (Operator, kernel_us, kernels_per_call, back_to_back_us or None) per operator."""
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for op, kernel_us, kernels, b2b in results:
        w.writerow([op.name, op.tokens, op.dtype, op.shape_text(model), "%.2f" % kernel_us, "%.1f" % kernels,
                    op.macs(), op.bytes(), op.weights, "" if b2b is None else "%.2f" % b2b])
    write_atomic(path, text.getvalue())


def write_graph(path, results):
    """A TVM graph-executor JSON of the measured operators that lightsim has one op for (each op on its own
    inputs), named as in the measurement file, so `lightsim --graph` and the file name the same ops."""
    nodes, shapes, dltypes, heads = [], [], [], []
    for i, (op, _, _, _) in enumerate(r for r in results if r[0].lightsim_op()):
        op_class, ins, outs, _ = op.lightsim_op()
        args = []
        for j, s in enumerate(ins):
            nodes.append({"op": "null", "name": "in%d_%d" % (i, j), "inputs": []})
            shapes.append(s)
            dltypes.append("float16" if op.element_bytes == 2 else "float32")
            args.append([len(nodes) - 1, 0, 0])
        func = {"dense": "nn_dense", "batch_matmul": "nn_batch_matmul", "softmax": "nn_softmax"}.get(op_class, op_class)
        nodes.append({"op": "tvm_op", "name": op_name(op), "inputs": args,
                      "attrs": {"func_name": "tvmgen_default_fused_" + func, "num_inputs": str(len(args)),
                                "num_outputs": "1", "flatten_data": "0"}})
        shapes.append(outs[0])
        dltypes.append(dltypes[-1])
        heads.append([len(nodes) - 1, 0, 0])
    graph = {"nodes": nodes, "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"], "heads": heads,
             "node_row_ptr": list(range(len(nodes) + 1)),
             "attrs": {"shape": ["list_shape", shapes], "dltype": ["list_str", dltypes],
                       "storage_id": ["list_int", list(range(len(nodes)))]}}
    write_atomic(path, json.dumps(graph))
    return graph


def op_name(op):
    return "%s_%d_%s" % (op.name, op.tokens, op.dtype)


def shapes_text(dtype, shapes):
    return " ".join("%s[%s]" % (dtype, ",".join(str(s) for s in shape)) for shape in shapes)


def write_measurements(path, graph_path, graph, results, machine):
    """The lightsim measurement file of the operators lightsim has one op for: per op its kernel time as
    median_s, min_s, p90_s and in_graph_* (each op was measured alone: there is no whole-graph run, so
    end_to_end_s holds the sum of the kernel times once). machine: gpu_* attributes (name, sm count, ...)."""
    import h5py  # Debian's python3-h5py; imported here so that --help and the CSV need nothing else
    import numpy as np

    rows = [r for r in results if r[0].lightsim_op()]
    index = {n["name"]: i for i, n in enumerate(graph["nodes"])}
    vlen = h5py.special_dtype(vlen=str)
    fields = [("op_id", "<i4"), ("node_index", "<i4"), ("name", vlen), ("func_name", vlen), ("op_class", vlen),
              ("fused_tail", vlen), ("input_shapes", vlen), ("output_shapes", vlen)]
    fields += [(k, "<f8") for k in ("macs", "elements_in", "elements_out", "bytes_in", "bytes_out", "bytes_read",
                                   "elements_read", "max_dim")]
    fields += [(k, "<i8") for k in ("gemm_batch", "gemm_m", "gemm_n", "gemm_k")]
    fields += [("samples", "<i4"), ("batch", "<i4")]
    fields += [(k, "<f8") for k in ("median_s", "min_s", "p90_s", "in_graph_median_s", "in_graph_min_s")]
    fields += [("checksum", "<u8")]
    table = np.zeros(len(rows), dtype=fields)
    total = 0.0
    for i, (op, kernel_us, _, _) in enumerate(rows):
        op_class, ins, outs, feat = op.lightsim_op()
        name = op_name(op)
        seconds = kernel_us * 1e-6
        total += seconds
        func = graph["nodes"][index[name]]["attrs"]["func_name"]
        dt = "float16" if op.element_bytes == 2 else "float32"
        table[i] = (index[name], index[name], name, func, op_class, "", shapes_text(dt, ins), shapes_text(dt, outs),
                    feat["macs"], feat["elements_in"], feat["elements_out"], feat["bytes_in"], feat["bytes_out"],
                    feat["bytes_read"], feat["elements_read"], feat["max_dim"], feat["gemm_batch"], feat["gemm_m"],
                    feat["gemm_n"], feat["gemm_k"], machine.get("iters", 1), 1, seconds, seconds, seconds, seconds,
                    seconds, 0)
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as h:
        a = h.attrs
        strings = {"format": "lightsim-measurements", "graph": graph_path, "lightsim_revision": "measure_gpu.py",
                   "unit": "gpu", "cpu_model": machine.get("cpu_model", ""), "compiler": "",
                   "compiler_flags": "", "eigen_version": "", "load_average": machine.get("load_average", ""),
                   "gpu_name": machine.get("gpu_name", ""),
                   "gpu_compute_capability": machine.get("gpu_compute_capability", ""),
                   "cuda_compiler": "", "cuda_flags": machine.get("cuda_flags", "torch " + machine.get("torch", ""))}
        for k, v in strings.items():
            a.create(k, v, dtype=vlen)
        for k in ("format_version", "logical_cpus", "threads", "gpu_sm_count", "gpu_clock_khz",
                  "gpu_memory_clock_khz", "gpu_memory_bus_bits", "cuda_driver_version", "cuda_runtime_version",
                  "cublas_version"):
            a.create(k, int({"format_version": 1, "threads": 1}.get(k, machine.get(k, 0))), dtype="<i4")
        a.create("gpu_memory_bytes", int(machine.get("gpu_memory_bytes", 0)), dtype="<u8")
        a.create("seed", 0, dtype="<u8")
        for k, v in (("end_to_end_median_s", total), ("end_to_end_min_s", total),
                     ("profile_wall_s", machine.get("wall_s", 0.0))):
            a.create(k, float(v), dtype="<f8")
        h.create_dataset("end_to_end_s", data=np.array([total], dtype="<f8"))
        h.create_dataset("ops", data=table)


def machine_description(extra):
    """The host part of a measurement file's attributes, plus `extra` (the GPU's)."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
        with open("/proc/loadavg") as f:
            load = f.read().strip()
    except OSError:
        load = ""
    d = {"cpu_model": cpu, "logical_cpus": os.cpu_count() or 0, "load_average": load, "date": time.strftime("%Y-%m-%d")}
    d.update(extra)
    return d
