#!/usr/bin/env python3
"""Measure whole Llama-2 forward passes on any CUDA machine with PyTorch: prefill of T tokens and one decode
step at a context of C tokens, computing what `lightsim-graph --model <model> --dtype float16` writes for the
same step, so that lightsim's time for that graph compares with a real GPU's one to one.

Two variants, each the same computation as a lightsim graph:
- eager: Hugging Face's eager Llama as the TVM exports have it (llama_builder.cc): three q / k / v denses,
  RMSNorm as power, mean, add, rsqrt and two multiplies, rotary embeddings of slices, a negate, a concatenate,
  multiplies and an add, the attention scale split over q and k, an additive mask, softmax, SiLU as x sigmoid(x),
  two gate / up denses. lightsim: `lightsim-graph ...` and `--fuse none` (one kernel per op).
- fused: vLLM's fused kernels where PyTorch has them: one QKV and one gate+up dense (`--merge-projections`),
  fused RMSNorm, fused causal attention (scaled_dot_product_attention), SiLU as one kernel.
  lightsim: `lightsim-graph ... --merge-projections` and `--fuse vllm`.
Both keep the graph's other choices: decode concatenates the cached K and V with the new token's (as the exports
do; no paged cache), the LM head runs on every new token, weights and cache are random (the times do not depend
on the values), each layer has its own weights (13 GB for Llama-2-7B: every layer reads them from HBM).
The same computation is not the same kernels: PyTorch's transposes and reshapes are views where the graph's
transposes are copies, both variants run RoPE as PyTorch's separate slice / negate / concatenate / multiply /
add kernels where lightsim's vllm fusion has one RoPE kernel, and PyTorch copies non-contiguous views before
some kernels (the kernel counts are in the CSV beside lightsim's op counts).

Per case: kernel_us (the sum of the CUDA kernels one forward launches, CUPTI through torch.profiler, averaged
over --iters forwards), kernels_per_call, back_to_back_us (the forwards captured in one CUDA graph and
replayed: kernels plus the gaps between them, no CPU launch cost, as a serving runtime with CUDA graphs runs
them), eager_us (the forward launched from Python as is: the CPU's launch cost included).

  scripts/measure_gpu_forward.py [--model llama2-7b] [--prefill 128,512,2048,4096] [--decode 128,512,2048,4096]
                                 [--variants eager,fused] [--layers N] [--warmup 2] [--iters 5] -o OUT
  scripts/measure_gpu_forward.py --backend fake ...   times from a formula (tests of the file)

Writes OUT.csv. Without PyTorch or a CUDA device: one line on stderr, exit status 2, nothing written.
"""
import argparse
import csv
import io
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atomic_output import write_atomic  # noqa: E402
import gpu_operators  # noqa: E402
from measure_gpu import OneLineParser, fail  # noqa: E402

COLUMNS = ["variant", "phase", "new_tokens", "context", "layers", "kernel_us", "kernels_per_call",
           "back_to_back_us", "eager_us", "weight_bytes", "kv_cache_bytes"]
VARIANTS = ("eager", "fused")


class Case:
    """One forward: `phase` prefill (new = context = T) or decode (new = 1, context = C, C - 1 cached)."""

    def __init__(self, variant, phase, context, model, layers):
        self.variant, self.phase, self.context, self.model, self.layers = variant, phase, context, model, layers
        self.new_tokens = context if phase == "prefill" else 1

    def weight_bytes(self):
        c = self.model
        h, kv = c["hidden"], c["kv_heads"] * c["hidden"] // c["heads"]
        per_layer = h * (h + 2 * kv) + h * h + 3 * h * c["intermediate"] + 2 * h
        return 2 * (self.layers * per_layer + 2 * c["vocab"] * h + h)

    def kv_cache_bytes(self):
        """The cache read by this step (decode) or written by it (prefill), fp16."""
        c = self.model
        kv = c["kv_heads"] * c["hidden"] // c["heads"]
        return 2 * 2 * self.layers * self.context * kv


class FakeBackend:
    """A roofline (400 TMAC/s, 3000 GB/s, 3 us per kernel): for tests of the file, not a model of any GPU."""

    def measure(self, case, warmup, iters):
        del warmup, iters
        macs = case.weight_bytes() / 2 * case.new_tokens
        kernels = case.layers * (30 if case.variant == "eager" else 16) + 3
        us = macs / 400e6 + (case.weight_bytes() + case.kv_cache_bytes()) / 3000e3
        return us, float(kernels), us + kernels * 1.0, us + kernels * 3.0


class TorchBackend:
    """The forwards in PyTorch on CUDA device 0, timed as measure_gpu.py times one operator."""

    def __init__(self, model, layers):
        import measure_gpu
        self.ops = measure_gpu.TorchBackend()  # says so and exits 2 without PyTorch or a CUDA device
        t = self.torch = self.ops.torch
        self.f = t.nn.functional
        c, dev, dt = model, self.ops.device, t.float16
        self.c = c
        h, heads, kvh, inter, vocab = c["hidden"], c["heads"], c["kv_heads"], c["intermediate"], c["vocab"]
        self.d = h // heads
        kv = kvh * self.d
        t.manual_seed(0)

        def rand(*shape, scale=1.0):
            return t.randn(*shape, device=dev, dtype=dt) * scale

        # The merged weights; the eager variant uses row slices of them (views, no copies).
        self.layers = [{"qkv": rand(h + 2 * kv, h, scale=h ** -0.5), "o": rand(h, h, scale=h ** -0.5),
                        "gate_up": rand(2 * inter, h, scale=h ** -0.5), "down": rand(h, inter, scale=inter ** -0.5),
                        "norm_in": rand(h), "norm_post": rand(h)} for _ in range(layers)]
        self.embedding, self.lm_head, self.norm = rand(vocab, h), rand(vocab, h, scale=h ** -0.5), rand(h)
        self.q_scale = t.tensor([self.d ** -0.25], device=dev, dtype=dt)
        self.k_scale = t.tensor([self.d ** -0.25], device=dev, dtype=dt)
        self.eps = 1e-5

    def rms_eager(self, x, w):
        var = x.pow(2).mean(-1, keepdim=True)
        return w * (x * self.torch.rsqrt(var + self.eps))

    def rotary(self, x, cos, sin):
        half = x.shape[-1] // 2
        rotated = self.torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rotated * sin

    def forward(self, variant, ids, past, cos, sin, mask):
        t, f, c, d = self.torch, self.f, self.c, self.d
        h_dim, heads, kvh = c["hidden"], c["heads"], c["kv_heads"]
        b, q_len = ids.shape
        fused = variant == "fused"
        h = f.embedding(ids, self.embedding)
        for i, w in enumerate(self.layers):
            x = f.rms_norm(h, (h_dim,), w["norm_in"], self.eps) if fused else self.rms_eager(h, w["norm_in"])
            if fused:
                q, k, v = f.linear(x, w["qkv"]).split([heads * d, kvh * d, kvh * d], dim=-1)
            else:
                rows = w["qkv"].split([heads * d, kvh * d, kvh * d], dim=0)
                q, k, v = (f.linear(x, r) for r in rows)
            q = self.rotary(q.view(b, q_len, heads, d).transpose(1, 2), cos, sin)
            k = self.rotary(k.view(b, q_len, kvh, d).transpose(1, 2), cos, sin)
            v = v.view(b, q_len, kvh, d).transpose(1, 2)
            if past is not None:
                k, v = t.cat([past[i][0], k], dim=2), t.cat([past[i][1], v], dim=2)
            if kvh != heads:
                k, v = (z.repeat_interleave(heads // kvh, dim=1) for z in (k, v))
            if fused:
                ctx = f.scaled_dot_product_attention(q, k, v, is_causal=past is None and q_len > 1)
            else:
                scores = t.matmul(q * self.q_scale, k.transpose(2, 3) * self.k_scale) + mask
                ctx = t.matmul(t.softmax(scores, dim=-1), v)
            h = h + f.linear(ctx.transpose(1, 2).reshape(b, q_len, heads * d), w["o"])
            y = f.rms_norm(h, (h_dim,), w["norm_post"], self.eps) if fused else self.rms_eager(h, w["norm_post"])
            if fused:
                gate, up = f.linear(y, w["gate_up"]).chunk(2, dim=-1)
                act = f.silu(gate) * up
            else:
                gate_w, up_w = w["gate_up"].chunk(2, dim=0)
                gate = f.linear(y, gate_w)
                act = gate * t.sigmoid(gate) * f.linear(y, up_w)
            h = h + f.linear(act, w["down"])
        final = f.rms_norm(h, (h_dim,), self.norm, self.eps) if fused else self.rms_eager(h, self.norm)
        return f.linear(final, self.lm_head)

    def measure(self, case, warmup, iters):
        t, c, dev = self.torch, self.c, self.ops.device
        kv = c["kv_heads"] * self.d
        ids = t.randint(0, c["vocab"], (1, case.new_tokens), device=dev)
        cos = t.randn(1, 1, case.new_tokens, self.d, device=dev, dtype=t.float16)
        sin = t.randn(1, 1, case.new_tokens, self.d, device=dev, dtype=t.float16)
        mask = t.full((case.new_tokens, case.context), float("-inf"), device=dev, dtype=t.float16)
        mask = t.triu(mask, diagonal=case.context - case.new_tokens + 1)[None, None]
        past = None
        if case.phase == "decode":
            shape = (1, c["kv_heads"], case.context - 1, kv // c["kv_heads"])
            past = [(t.randn(*shape, device=dev, dtype=t.float16), t.randn(*shape, device=dev, dtype=t.float16))
                    for _ in range(len(self.layers))]

        def fn():
            return self.forward(case.variant, ids, past, cos, sin, mask)

        with t.no_grad():
            kernel_us, per_call, b2b = self.ops.time_call(fn, warmup, iters)
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(iters):
                fn()
            end.record()
            t.cuda.synchronize()
        eager = start.elapsed_time(end) * 1e3 / iters
        del past
        t.cuda.empty_cache()
        return kernel_us, per_call, b2b, eager


def token_list(ap, name, text):
    try:
        values = [int(x) for x in text.split(",") if x]
    except ValueError:
        ap.error("--%s: expected comma-separated integers, got '%s'" % (name, text))
    if any(v < 1 for v in values):
        ap.error("--%s: token counts must be >= 1 (got '%s')" % (name, text))
    return values


def parse_args(argv):
    ap = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="llama2-7b", choices=sorted(gpu_operators.MODELS))
    ap.add_argument("--prefill", default="128,512,2048,4096", help="prefill token counts, default %(default)s")
    ap.add_argument("--decode", default="128,512,2048,4096", help="decode contexts, default %(default)s")
    ap.add_argument("--variants", default="eager,fused", help="eager, fused or both, default %(default)s")
    ap.add_argument("--layers", type=int, default=None, help="decoder layers (default: the model's)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--backend", default="torch", choices=["torch", "fake"])
    ap.add_argument("-o", "--out", required=True, help="output path without extension (.csv is written)")
    args = ap.parse_args(argv)
    args.prefill_list = token_list(ap, "prefill", args.prefill)
    args.decode_list = token_list(ap, "decode", args.decode)
    if any(c < 2 for c in args.decode_list):
        ap.error("--decode: a decode context needs at least one cached token (>= 2), got '%s'" % args.decode)
    args.variant_list = [v for v in args.variants.split(",") if v]
    if not args.variant_list or any(v not in VARIANTS for v in args.variant_list):
        ap.error("--variants: expected eager and/or fused, got '%s'" % args.variants)
    if args.warmup < 0 or args.iters < 1:
        ap.error("--warmup must be >= 0 and --iters >= 1")
    if args.layers is not None and args.layers < 1:
        ap.error("--layers must be >= 1 (got %d)" % args.layers)
    if not args.prefill_list and not args.decode_list:
        ap.error("--prefill and --decode are both empty: nothing to measure")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    model = gpu_operators.MODELS[args.model]
    layers = args.layers or model["layers"]
    backend = FakeBackend() if args.backend == "fake" else TorchBackend(model, layers)
    cases = [Case(v, "prefill", n, model, layers) for v in args.variant_list for n in args.prefill_list]
    cases += [Case(v, "decode", n, model, layers) for v in args.variant_list for n in args.decode_list]
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(COLUMNS)
    started = time.time()
    for case in cases:
        try:
            kernel_us, per_call, b2b, eager = backend.measure(case, args.warmup, args.iters)
        except Exception as e:  # out of memory, say: said, left out, the rest measured
            reason = (str(e).splitlines() or [type(e).__name__])[0]
            print("%-5s %-7s %5d not measured: %s" % (case.variant, case.phase, case.context, reason), file=sys.stderr)
            continue
        w.writerow([case.variant, case.phase, case.new_tokens, case.context, layers, "%.1f" % kernel_us,
                    "%.1f" % per_call, "" if b2b is None else "%.1f" % b2b, "%.1f" % eager, case.weight_bytes(),
                    case.kv_cache_bytes()])
        print("%-5s %-7s %5d  kernels %9.1f us (%.0f)  back-to-back %9.1f us  eager %9.1f us" %
              (case.variant, case.phase, case.context, kernel_us, per_call, b2b or 0.0, eager), file=sys.stderr)
    write_atomic(args.out + ".csv", text.getvalue())
    print("measure_gpu_forward.py: wrote %s.csv (%.0f s)" % (args.out, time.time() - started), file=sys.stderr)


if __name__ == "__main__":
    main()
