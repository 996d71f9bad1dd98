#!/usr/bin/env python3
"""Measure GPU kernel times with PyTorch on any CUDA machine, no lightsim build needed there.

Times one model layer's operators (scripts/gpu_operators.py: the projections with cold weights, the LM head,
the attention GEMMs, softmax, fused causal attention, the element ops, and probes) at each token count, the
way ../shared/reference/measured/h100_llama2_7b_fp16_kernels.csv was measured:

- kernel time: the CUDA kernels one call launches, as the CUDA profiling interface (CUPTI) records them through
  torch.profiler, summed per call and averaged over --iters calls after --warmup calls (launch latency and the
  gaps between kernels are not in it); kernels_per_call = kernels recorded / calls;
- back_to_back_us: the same call captured --iters times in a CUDA graph and replayed, per call (kernel time
  plus the gap between consecutive kernels, without the CPU's launch cost); empty for cold-weight rows;
- cold weights: the projections rotate among copies of their weight that together exceed 4x the L2, so each
  call reads its weight from HBM as a forward pass through distinct layers does.

Writes <out>.csv (the CSV's columns) and, with h5py, <out>.h5 + <out>.json: a lightsim measurement file of
the operators that are one lightsim op (dense, batch_matmul, softmax, add, multiply, copy) and the graph it
refers to, which `lightsim-calibrate --base configs/h100.json --unit gpu0 <out>.h5` reads on any machine.

  scripts/measure_gpu.py [--model llama2-7b] [--tokens 1,32,256,1024,4096] [--dtype float16] [--no-probes]
                         [--set standard|sweeps]
                         [--warmup 5] [--iters 20] [-o configs/measured/<gpu>]
  scripts/measure_gpu.py --backend fake ...   times from a formula instead of a GPU (tests of the files)

Without PyTorch or without a CUDA device (backend torch): one line on stderr, exit status 2.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_operators  # noqa: E402


def fail(message, status=2):
    """One line on stderr, named after the script that runs (this one or measure_gpu_forward.py), and exit."""
    print("%s: %s" % (os.path.basename(sys.argv[0]) or "measure_gpu.py", message), file=sys.stderr)
    sys.exit(status)


class FakeBackend:
    """Deterministic times from a roofline (peak 400 TMAC/s, 3000 GB/s, 2 us per kernel, 1 us gap): for tests
    of the files this script writes, not a model of any GPU."""

    def describe(self):
        return {"gpu_name": "fake GPU", "gpu_compute_capability": "0.0", "gpu_sm_count": 1, "torch": "none"}

    def measure(self, op, warmup, iters):
        del warmup, iters
        kernels = 2.0 if op.kind in ("sdpa", "silu_mul") else 1.0
        us = kernels * 2.0 + op.macs() / 400e6 + op.bytes() / 3000e3
        return us, kernels, None if op.weights == "cold" else us + kernels * 1.0


class TorchBackend:
    """PyTorch on CUDA device 0: kernel times from torch.profiler (CUPTI), back-to-back times from CUDA graphs."""

    def __init__(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            fail("PyTorch is not installed (pip install torch, or --backend fake to test the files)")
        import torch
        if not torch.cuda.is_available():
            fail("no CUDA device (torch.cuda.is_available() is false)")
        self.torch = torch
        self.device = torch.device("cuda", 0)
        self.props = torch.cuda.get_device_properties(0)

    def describe(self):
        p, t = self.props, self.torch
        return {"gpu_name": p.name, "gpu_compute_capability": "%d.%d" % (p.major, p.minor),
                "gpu_sm_count": p.multi_processor_count, "gpu_memory_bytes": p.total_memory,
                "l2_bytes": getattr(p, "L2_cache_size", 50 << 20), "torch": t.__version__,
                "cuda_runtime_version": int((t.version.cuda or "0").replace(".", "")[:5] or 0),
                "cuda_flags": "torch %s, CUDA %s, cuBLAS via torch" % (t.__version__, t.version.cuda)}

    def dtype(self, name):
        t = self.torch
        return {"float16": t.float16, "bfloat16": t.bfloat16, "float32": t.float32, "tf32": t.float32,
                "int8": t.int8}[name]

    def call(self, op):
        """A function running one call of the operator on fresh random operands (cold weights rotate)."""
        t, f = self.torch, self.torch.nn.functional
        dev, dt = self.device, self.dtype(op.dtype)
        t.backends.cuda.matmul.allow_tf32 = op.dtype == "tf32"
        rand = (lambda *s: t.randint(-8, 8, s, device=dev, dtype=t.int8)) if op.dtype == "int8" else \
            (lambda *s: t.randn(*s, device=dev, dtype=dt))
        d = op.dims
        if op.weights == "cold" and op.kind != "linear":  # rotate among copies of all operands (sweeps)
            l2 = self.describe()["l2_bytes"]
            copies = min(4096, -(-4 * l2 // max(1, op.bytes())) + 1)
            hot = gpu_operators.Operator(op.name, op.kind, op.tokens, op.dtype, op.dims)
            calls = [self.call(hot) for _ in range(copies)]
            state = {"i": 0}

            def rotated():
                state["i"] = (state["i"] + 1) % copies
                return calls[state["i"]]()
            return rotated
        if op.kind == "linear":
            m, n, k = d
            x = rand(m, k)
            copies = 1
            if op.weights == "cold":
                l2 = self.describe()["l2_bytes"]
                copies = max(1, -(-4 * l2 // (n * k * op.element_bytes)) + 1)
            ws = [rand(n, k) for _ in range(copies)]
            state = {"i": 0}
            if op.dtype == "int8":
                return lambda: t._int_mm(x, ws[0].t())

            def linear():
                state["i"] = (state["i"] + 1) % copies
                return f.linear(x, ws[state["i"]])
            return linear
        if op.kind == "bmm":
            b, m, n, k = d
            a, w = rand(b, m, k), rand(b, k, n)
            return lambda: t.bmm(a, w)
        if op.kind == "softmax":
            x = rand(*d)
            return lambda: t.softmax(x, dim=-1)
        if op.kind == "sdpa":
            heads, n, hd = d
            q, k, v = rand(1, heads, n, hd), rand(1, heads, n, hd), rand(1, heads, n, hd)
            return lambda: f.scaled_dot_product_attention(q, k, v, is_causal=True)
        x, y = rand(*d), rand(*d) if len(d) > 1 else None
        if op.kind == "add":
            return lambda: x + y
        if op.kind == "mul":
            return lambda: x * y
        if op.kind == "silu":
            return lambda: f.silu(x)
        if op.kind == "silu_mul":
            return lambda: f.silu(x) * y
        if op.kind == "rmsnorm_fused":
            w = rand(d[1])
            return lambda: f.rms_norm(x, (d[1],), w)
        if op.kind == "layernorm":
            w, b = rand(d[1]), rand(d[1])
            return lambda: f.layer_norm(x, (d[1],), w, b)
        if op.kind == "copy":
            z = t.empty_like(x)
            return lambda: z.copy_(x)
        raise ValueError("unknown operator kind " + op.kind)

    def measure(self, op, warmup, iters):
        return self.time_call(self.call(op), warmup, iters, back_to_back=op.weights != "cold")

    def time_call(self, fn, warmup, iters, back_to_back=True):
        """(kernel time per call in us, kernels per call, back-to-back time per call in us or None) of `fn`:
        the CUDA kernels of `iters` calls recorded by torch.profiler (CUPTI), then, with `back_to_back`, the
        same `iters` calls captured in one CUDA graph and replayed (the gaps between kernels, no CPU launches)."""
        t = self.torch
        from torch.profiler import ProfilerActivity, profile
        for _ in range(warmup):
            fn()
        t.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(iters):
                fn()
            t.cuda.synchronize()
        kernels = [e for e in prof.events() if e.device_type == t.autograd.DeviceType.CUDA]
        kernel_us = sum(e.time_range.elapsed_us() for e in kernels) / iters
        per_call = len(kernels) / iters
        b2b = None
        if back_to_back:
            graph = t.cuda.CUDAGraph()
            stream = t.cuda.Stream()
            with t.cuda.stream(stream):
                fn()
                with t.cuda.graph(graph, stream=stream):
                    for _ in range(iters):
                        fn()
            t.cuda.synchronize()
            graph.replay()
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            t.cuda.synchronize()
            b2b = start.elapsed_time(end) * 1e3 / iters
            del graph
        return kernel_us, per_call, b2b


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments: one line naming the option and the value, exit status 2."""

    def error(self, message):
        fail(message)


def parse_args(argv):
    ap = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="llama2-7b", choices=sorted(gpu_operators.MODELS))
    ap.add_argument("--tokens", default="1,32,256,1024,4096",
                    help="comma-separated token counts (prefill at batch 1), default %(default)s")
    ap.add_argument("--dtype", default="float16", choices=["float16", "bfloat16", "float32"])
    ap.add_argument("--no-probes", action="store_true", help="leave out the precision probes, M sweep and copy")
    ap.add_argument("--set", dest="operator_set", default="standard", choices=["standard", "sweeps"],
                    help="standard: the model layer's operators (default); sweeps: the micro-benchmarks of "
                         "gpu_operators.sweep_operators (element and row kernels by size)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--backend", default="torch", choices=["torch", "fake"])
    ap.add_argument("-o", "--out", default=None,
                    help="output path without extension (default configs/measured/<gpu name>)")
    args = ap.parse_args(argv)
    try:
        args.token_list = [int(x) for x in args.tokens.split(",") if x]
    except ValueError:
        ap.error("--tokens: expected comma-separated integers, got '%s'" % args.tokens)
    if not args.token_list or min(args.token_list) < 1:
        ap.error("--tokens: need at least one token count, each >= 1 (got '%s')" % args.tokens)
    if args.warmup < 0 or args.iters < 1:
        ap.error("--warmup must be >= 0 and --iters >= 1")
    return args


def slug(name):
    out = "".join(c if c.isalnum() else "-" for c in name.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    backend = FakeBackend() if args.backend == "fake" else TorchBackend()
    gpu = backend.describe()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = args.out or os.path.join(root, "configs", "measured", slug(gpu["gpu_name"]))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    started = time.time()
    results = []
    operators = gpu_operators.sweep_operators(args.dtype) if args.operator_set == "sweeps" else \
        gpu_operators.standard_operators(args.model, args.token_list, args.dtype, not args.no_probes)
    for op in operators:
        try:
            kernel_us, kernels, b2b = backend.measure(op, args.warmup, args.iters)
        except Exception as e:  # an operator this GPU or PyTorch cannot run: said, left out, the rest measured
            reason = (str(e).splitlines() or [type(e).__name__])[0]
            print("%-14s %5d %-9s not measured: %s" % (op.name, op.tokens, op.dtype, reason), file=sys.stderr)
            continue
        results.append((op, kernel_us, kernels, b2b))
        print("%-14s %5d %-9s %10.2f us  %.1f kernels" % (op.name, op.tokens, op.dtype, kernel_us, kernels),
              file=sys.stderr)
    gpu.update(iters=args.iters, wall_s=time.time() - started)
    gpu_operators.write_csv(out + ".csv", args.model, results)
    written = [out + ".csv"]
    try:
        import h5py  # noqa: F401
    except ImportError:
        h5py = None
    if h5py is not None:
        graph = gpu_operators.write_graph(out + ".json", results)
        gpu_operators.write_measurements(out + ".h5", os.path.basename(out) + ".json", graph, results,
                                         gpu_operators.machine_description(gpu))
        written += [out + ".json", out + ".h5"]
    print("measure_gpu.py: wrote " + ", ".join(written) +
          ("" if h5py else " (no h5py: no measurement file)"), file=sys.stderr)


if __name__ == "__main__":
    main()
