#!/usr/bin/env python3
"""Writes the shipped hardware configs (configs/*.json) from the physical parameters below.

Every arithmetic-model coefficient is computed here from the units' parameters (roofline style), so a
reader can follow each number to its source; configs/README.md explains the derivations and cites the
hardware figures. Run from anywhere: `python3 configs/generate.py` (standard library only). The JSON
files are committed; rerun this after changing a parameter and commit both.

The realistic configs' model entries are then replaced by the entries in configs/fitted/<model>.json where
one exists: coefficients that scripts/fit_configs.py fitted to the SystemC modules with `lightsim --retrain`
(configs/README.md, "Fitted models"). `generate.py --analytic [DIR]` writes the configs without them (what
the fit starts from).
"""
import copy
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from atomic_output import write_atomic  # noqa: E402

OUT = os.path.dirname(os.path.abspath(__file__))
FITTED = os.path.join(OUT, "fitted")
ANALYTIC = False  # --analytic: leave out the fitted entries
NS = 1e-9
PJ = 1e-12

# Op classes (the config keys of ir/op_class.h), grouped by how they are costed.
CONVS = ["conv2d", "conv2d_transpose"]
GEMM = ["dense", "batch_matmul"] + CONVS
# Reductions read every input element once; their operations per input element.
REDUCTIONS = {"mean": 1, "sum": 1, "pool": 1, "max": 1, "variance": 3}
# Kernels that reduce along rows: a GPU streams them at memory_efficiency, not at its element kernels' rate
# (sim/units/gpu/gpu_kernel.h, gpu_stream_efficiency).
ROW_REDUCING = ["softmax", "log_softmax", "layer_norm", "lrn", "mean", "sum", "max", "variance", "cumsum"]
MOVES = ["transpose", "layout_transform", "split", "concatenate", "pad", "copy"]
# Gathers read only what they write (the rows taken, the slice), not their whole source tensor.
GATHERS = ["take", "strided_slice"]
# What the photonic card's electronic periphery runs: elementwise and broadcast ops (TVM patterns
# elemwise / broadcast, the ops that fuse behind a GEMM), so that a GEMM with its bias add or activation can
# run on the card as one op. A card with a vector unit (phu_model(vector=True)) runs every other class too.
PERIPHERY = ["add", "subtract", "multiply", "divide", "power", "negative", "sqrt", "rsqrt", "exp", "erf", "relu",
             "sigmoid", "tanh", "cast", "less", "where"]
# Elementwise classes and their vector instructions per element on a CPU / CUDA-core operations per
# element on a GPU (1 = one arithmetic instruction; transcendentals are ~10-20 instruction polynomials).
ELEMENTWISE_OPS = {
    "add": 1, "subtract": 1, "multiply": 1, "negative": 1, "cast": 1, "relu": 1, "less": 1, "where": 1,
    "divide": 4, "sqrt": 4, "rsqrt": 2, "exp": 10, "erf": 12, "tanh": 12, "sigmoid": 12, "power": 20,
    "softmax": 15, "opaque": 1,
    # CNN and encoder ops (issue 15), per output element: clip = min + max; log_softmax = softmax's max,
    # exp, sum plus a log and a subtract; batch_norm = (x - mean) / sqrt(var + eps) x gamma + beta as TVM's
    # unfused kernel computes it; layer_norm = mean and variance passes plus normalise, scale, shift; lrn =
    # a 5-channel sum of squares, a power and a divide; resize = a bilinear blend of 4 inputs; cumsum = one
    # add (a scan); fill = one store.
    "clip": 2, "maximum": 1, "elementwise": 1, "transcendental": 15, "log_softmax": 17, "batch_norm": 8,
    "layer_norm": 8, "lrn": 30, "resize": 10, "cumsum": 2, "fill": 1,
}


def form(**terms):
    """A linear form: feature -> coefficient, plus 'intercept'. Zero terms are dropped."""
    out = {k: v for k, v in terms.items() if v != 0 and k != "intercept"}
    out["intercept"] = terms.get("intercept", 0.0)
    return out


def entry(time, energy):
    return {"time_s": time, "energy_j": energy}


def components(**forms):
    """Energy as one linear form per component (ir/energy.h); components whose form is all zero are dropped."""
    return {c: f for c, f in forms.items() if any(v != 0 for v in f.values())}


def roofline_pieces(clock_ghz, GBps, energy, intercept=0.0, latency_s=0.0):
    """An entry timed max(compute_cycles / clock, latency + operand_bytes / bandwidth) + intercept, as the
    accelerator modules time ops outside their array: two pieces that turn where compute_cycles / bytes =
    clock / bandwidth (feature compute_cycles_per_byte; the latency, a few ns, moves the turn negligibly).
    `energy` is the same for both."""
    return {"pieces": [{"when": {"feature": "compute_cycles_per_byte", "min": clock_ghz / GBps},
                        "time_s": form(compute_cycles=1.0 / (clock_ghz * 1e9), intercept=intercept),
                        "energy_j": energy},
                       {"time_s": form(operand_bytes=1.0 / (GBps * 1e9), intercept=intercept + latency_s),
                        "energy_j": energy}]}


def scaled(f, k):
    """A linear form times k (e.g. a time form x power = an energy form)."""
    return {key: v * k for key, v in f.items()}


def converter(count, bit_clock_ghz, fom_fj_per_step):
    """A DAC/ADC bank at the PHU's bits: a conversion at b bits takes b + 1 cycles of bit_clock_ghz and costs
    fom_fj_per_step x 2^b (configs/README.md, 'Converter precision')."""
    return {"count": count, "bit_clock_ghz": bit_clock_ghz, "fom_fj_per_step": fom_fj_per_step}


# ---------------------------------------------------------------------------------------------------
# Realistic machine: host CPU (DDR5), an H100-SXM-like GPU (HBM3, PCIe gen5 x16), a PHU card (SRAM,
# PCIe gen4 x16). Sources for each figure: configs/README.md.

HOST_TDP_W = 200.0  # the CPU package at full load
HOST_CLOCK_GHZ = 3.0
HOST_DRAM_LATENCY_NS = 110.0
HOST_MISSES_IN_FLIGHT = 64  # outstanding cache-line misses one core sustains (assumption, Zen 4 class)
HOST = {"name": "cpu0", "kind": "cpu", "cores": 16, "clock_ghz": HOST_CLOCK_GHZ, "static_power_w": 40.0,
        "dynamic_power_w": (HOST_TDP_W - 40.0) / 16,  # per busy core: (TDP - static) / cores
        "memory": "dram0", "model": "host-cpu-roofline", "vector_width": 16, "fma": True, "dispatch_ns": 500.0,
        "memory_port_GBps": 12 * 4.8 * 8,  # 12 channels of DDR5-4800, 8 bytes per transfer
        # One core's stream from DRAM, by Little's law: misses in flight x 64 B lines / latency.
        "core_memory_GBps": round(HOST_MISSES_IN_FLIGHT * 64 / HOST_DRAM_LATENCY_NS, 3),
        "gemm_efficiency": 0.9,  # an optimised GEMM micro-kernel's share of the FMA peak (assumption)
        "elementwise_ops": {c: float(w) for c, w in sorted((ELEMENTWISE_OPS | REDUCTIONS).items()) if w != 1},
        "caches": [
            # Zen 4: 1 MiB L2 per core, 64 B per cycle to L1; 4 CCDs of 4 cores share 16 MiB of L3 each,
            # 32 B per cycle per core.
            {"name": "l2", "capacity_MiB": 1, "bandwidth_GBps": 64 * HOST_CLOCK_GHZ},
            {"name": "l3", "capacity_MiB": 16, "bandwidth_GBps": 32 * HOST_CLOCK_GHZ,
             "shared_GBps": 16 * 32 * HOST_CLOCK_GHZ}],
        # The runtime splits a GEMM's rows over up to 4 cores as Eigen does (at least 4 rows and 50000 MACs
        # per core); a fork / join costs 2 us (assumption); every core may run an op (inter-op parallelism).
        "intra_op_threads": 4, "intra_op_min_rows": 4, "intra_op_min_macs": 50000, "intra_op_row_block": 4, "intra_op_sync_ns": 2000.0}
DRAM = {"name": "dram0", "kind": "dram", "capacity_MiB": 12 * 32 * 1024, "bandwidth_GBps": 12 * 4.8 * 8,
        "latency_ns": 110.0, "banks": 12 * 32, "energy_pj_per_byte": 15.0 * 8, "static_power_w": 12 * 3.0}

# The GPUs (configs/gpu_configs.py).
from gpu_configs import A100, A100_HBM, H100, H100_HBM, H100_SXM5, H100_TDP_W, H200_HBM, H200_SXM  # noqa: E402

# The realistic machine's GPU is the H100.
GPU, HBM, GPU_TDP_W = H100, H100_HBM, H100_TDP_W
PCIE_PJ_PER_BYTE = 5.0 * 8
PCIE_PJ_PER_PACKET = 8 * PCIE_PJ_PER_BYTE  # at most one 8-byte ACK / flow-control DLLP per TLP
GPU_PCIE = {"name": "pcie-gpu", "kind": "pcie", "endpoints": ["cpu0", "gpu0"], "latency_ns": 1000.0,
            "energy_pj_per_byte": PCIE_PJ_PER_BYTE, "generation": 5, "lanes": 16, "max_payload_bytes": 256,
            "header_bytes": 24, "energy_pj_per_packet": PCIE_PJ_PER_PACKET}

PHU_BITS = 8


def photonic_card():
    """photonic.json's photonic core: DOTA-B of Lightening-Transformer (Zhu et al., HPCA 2024) at 8 bits, as
    configs/published_dota.py builds it from the authors' device and architecture parameters (4 tiles x 2
    cores of 12 x 12 nodes, 12 wavelengths, 5 GHz, both operands modulated every cycle, 3 cycles of analog
    accumulation, its local buffers, registers and partial-sum network), on the card photonic.json assumes
    around it: its 32 MiB SRAM (SRAM below) behind PCIe, 10 W of static power (control, thermal
    stabilisation) and a load stage of 2 x 2 MiB (an eighth of the SRAM: with 2 x 4 MiB the 27 MiB of
    GPT-2 weights the time objective keeps on the card no longer fit). Imported here, not at the top:
    published_dota imports this module's helpers."""
    import published_dota
    return published_dota.phu(PHU_BITS) | {"name": "phu0", "memory": "sram0", "model": "phu-roofline",
                                            "static_power_w": 10.0, "prefetch": {"depth": 2, "buffer_MiB": 2}}


SRAM = {"name": "sram0", "kind": "sram", "capacity_MiB": 32, "bandwidth_GBps": 2048.0, "latency_ns": 5.0,
        "banks": 32, "energy_pj_per_byte": 2.5, "static_power_w": 2.0, "spill_to": "dram0"}
PHU_PCIE = {"name": "pcie-phu", "kind": "pcie", "endpoints": ["cpu0", "phu0"], "latency_ns": 1000.0,
            "energy_pj_per_byte": PCIE_PJ_PER_BYTE, "generation": 4, "lanes": 16, "max_payload_bytes": 256,
            "header_bytes": 24, "energy_pj_per_packet": PCIE_PJ_PER_PACKET}

# Latency hiding (configs/README.md, "Latency hiding"): every unit fetches the operands not resident in its
# memory (streamed weights; in the replay also spilled activations) through a load stage of two buffers, each
# large enough for the largest weight matrix it may have to take: Llama-2-70B's lm_head in fp32 (8192 x 32000
# x 4 B = 1000 MiB) on the host and the GPU (the photonic card's: photonic_card).
for _unit, _buffer_mib in ((HOST, 1024), (GPU, 1024), (H100_SXM5, 1024), (H200_SXM, 1024)):
    _unit["prefetch"] = {"depth": 2, "buffer_MiB": _buffer_mib}


def host_cpu_model():
    """Every class in the CPU module's own terms (sim/units/cpu/cpu_work.h), on its unit-aware features:
    memory_cycles (the operand bytes at the rate of the cache level, or memory, that holds them),
    compute_cycles and tail_cycles. So an entry the fit does not replace (a class too rare in the training
    graphs, such as batch_norm or resize) times an op as the module does. Energy, as the module charges it:
    compute = dynamic power x the op's time x the cores it holds (a GEMM: its core_cycles, the module's count;
    other ops hold one core); dram = operand bytes x energy."""
    c = HOST
    operands = form(operand_bytes=DRAM["energy_pj_per_byte"] * PJ)

    def energy(kind, time):
        compute = form(core_cycles=c["dynamic_power_w"] / (c["clock_ghz"] * 1e9)) if kind == "gemm" else \
            scaled(time, c["dynamic_power_w"])
        return components(compute=compute, dram=operands if kind != "nop" else {})

    classes = list(ELEMENTWISE_OPS) + list(REDUCTIONS) + MOVES + GATHERS + GEMM
    return {"input": entry(form(), {}), "nop": entry(form(), energy("nop", form()))} | \
        {cls: cpu_module_entry(c, cls, energy) for cls in classes}


def cpu_module_entry(c, cls, energy):
    """One class's time as the CPU module has it: dispatch, plus for a GEMM memory + compute at
    gemm_efficiency (pack, then compute; a fork / join more when split over cores), for any other op
    max(memory, compute x the class's instructions per element + fused tail), as two pieces on
    compute_memory_ratio that turn where the two meet for an op without a tail."""
    per_cycle = 1.0 / (c["clock_ghz"] * 1e9)
    fixed = c["dispatch_ns"] * NS
    if cls in GEMM:
        def gemm(sync_ns):
            time = form(memory_cycles=per_cycle, compute_cycles=per_cycle / c["gemm_efficiency"],
                        tail_cycles=per_cycle, intercept=fixed + sync_ns * NS)
            return {"time_s": time, "energy_j": energy("gemm", time)}
        return {"pieces": [dict(gemm(0.0), when={"feature": "op_cores", "max": 1.0}),
                           gemm(c.get("intra_op_sync_ns", 0.0))]}
    w = (ELEMENTWISE_OPS | REDUCTIONS).get(cls, 1)
    memory = form(memory_cycles=per_cycle, intercept=fixed)
    compute = form(compute_cycles=w * per_cycle, tail_cycles=per_cycle, intercept=fixed)
    return {"pieces": [{"when": {"feature": "compute_memory_ratio", "max": 1.0 / w}, "time_s": memory,
                        "energy_j": energy("elementwise", memory)},
                       {"time_s": compute, "energy_j": energy("elementwise", compute)}]}


def gpu_model(g, hbm):
    """Element kernels: the larger of their CUDA cores' time and their stream (memory at
    stream_memory_efficiency x bandwidth or, for kernels that reduce along rows, memory_efficiency; the L2's
    bytes at its bandwidth; one round trip), + launch + gap. GEMMs: the unit-aware feature compute_cycles is the chosen kernel's duration beyond its
    launch and prologue (sim/units/gpu/gpu_kernel.h), so time = compute_cycles / clock + launch + prologue +
    gap exactly. Energy per
    operation, as the GPU module charges it: tensor_core = MACs x pJ per MAC (GEMMs), cuda_core = element
    operations x pJ per op (the rest), hbm = operand bytes x energy per byte."""
    clock = g["clock_ghz"] * 1e9
    hbm_j = hbm["energy_pj_per_byte"] * PJ

    def energy(kind, time):
        if kind == "nop":
            return {}
        cuda = form(elementwise_ops=g["cuda_core_pj_per_op"] * PJ)  # a GEMM's: its fused tail's
        tensor = form(macs=g["tensor_core_pj_per_mac"] * PJ) if kind == "gemm" else {}
        return components(tensor_core=tensor, cuda_core=cuda, hbm=form(operand_bytes=hbm_j))

    fixed_ns = g["launch_latency_ns"] + g["kernel_gap_ns"]
    l2 = g.get("l2", {})
    l2_latency_ns = l2.get("latency_ns", hbm["latency_ns"])
    stream_efficiency = g.get("stream_memory_efficiency", g["memory_efficiency"])

    def stream(c):
        """An element kernel's stream as the module times it (gpu_kernel.h, gpu_stream_ns): one round trip,
        the L2's when it serves every byte, else the memory's (memory_round_trip_us, the difference); the
        memory's bytes at stream_memory_efficiency, or memory_efficiency for the kernels that reduce along
        rows (gpu_stream_efficiency); the L2's bytes at its bandwidth."""
        efficiency = g["memory_efficiency"] if c in ROW_REDUCING else stream_efficiency
        l2_GBps = l2.get("bandwidth_GBps", 0.0)
        t = form(memory_operand_bytes=1.0 / (hbm["bandwidth_GBps"] * efficiency * 1e9),
                 l2_operand_bytes=1.0 / (l2_GBps * 1e9) if l2_GBps > 0 else 0.0,
                 intercept=(fixed_ns + l2_latency_ns) * NS)
        if l2_latency_ns != hbm["latency_ns"]:
            t["memory_round_trip_us"] = 1e-6
        return t

    # A row kernel (--fuse vllm) of any element class: row_kernel_cycles is its duration beyond the launch.
    # Any other element kernel takes, as the module times it (Gpu::kernel_ns), the larger of its CUDA cores'
    # time (compute_cycles, the module's count) and its stream: two pieces that turn where
    # compute_stream_ratio (compute over the stream at an element kernel's efficiency) says the two meet,
    # above 1 for the kernels that stream at memory_efficiency. A resident input or weight is free: reading
    # it is charged to the op that reads it (its operand bytes), as the modules charge it.
    row_turn = stream_efficiency / g["memory_efficiency"]
    e = energy("elementwise", None)
    m = {"input": entry(form(), {}), "nop": entry(form(), energy("nop", None))}
    for c in list(ELEMENTWISE_OPS) + list(REDUCTIONS) + MOVES + GATHERS:
        row = {"when": {"feature": "row_kernel_cycles", "min": 0.5},
               "time_s": form(row_kernel_cycles=1.0 / clock, intercept=fixed_ns * NS), "energy_j": e}
        compute = {"when": {"feature": "compute_stream_ratio", "min": row_turn if c in ROW_REDUCING else 1.0},
                   "time_s": form(compute_cycles=1.0 / clock, intercept=fixed_ns * NS), "energy_j": e}
        m[c] = {"pieces": [row, compute, {"time_s": stream(c), "energy_j": e}]}
    # Fused attention (--fuse flash) is one GEMM kernel: compute_cycles holds both products, the scale /
    # mask / softmax on the CUDA cores and FlashAttention's HBM traffic (its operand_bytes) streamed with QK^T.
    # A GEMM kernel's fixed time includes its prologue (gemm_prologue_ns).
    gemm_fixed_ns = fixed_ns + g.get("gemm_prologue_ns", 0.0)
    for c in GEMM + ["attention"]:
        m[c] = entry(form(compute_cycles=1.0 / clock, intercept=gemm_fixed_ns * NS), energy("gemm", None))
    return m


def phu_model(p, vector=False, memory=SRAM):
    """The arithmetic model of the photonic card `p` (photonic_card()) on `memory` (its SRAM, or the GPU's HBM
    when co-packaged), before fit_configs.py fits it to the card's module (configs/fitted/)."""
    clock = p["clock_ghz"] * 1e9
    operands = {memory["kind"]: form(operand_bytes=memory["energy_pj_per_byte"] * PJ)}
    fJ = 1e-15
    alu = periphery_alu(p)
    # Time, as the module has it: the larger of the array's busy cycles (compute_cycles, ir/cost/unit_work.h:
    # per weight tile its reload plus the pace of the slowest of optics, DACs and ADCs at the sample rate
    # their bits allow; reloads behind the previous tile's stream when the weights are double-buffered; the
    # periphery's, for a fused tail) and the operands' stream from memory (operand_bytes: a convolution's
    # im2col patches included, which the periphery gathers for the DACs). Energy, as the PHU module charges
    # it, per component.
    gemm = roofline_pieces(
        p["clock_ghz"], memory["bandwidth_GBps"],
        components(laser=form(laser_cycles=p["laser_power_w"] / clock),  # lasers on while the array is busy
                   dac=form(dac_conversion_steps=p["dac"]["fom_fj_per_step"] * fJ),
                   adc=form(adc_conversion_steps=p["adc"]["fom_fj_per_step"] * fJ),
                   optical_mac=form(optical_macs=p["mac_energy_pj"] * PJ),
                   weight_programming=form(weight_conversion_steps=p["dac"]["fom_fj_per_step"] * fJ),
                   periphery=alu, **operands, **buffer_components(p.get("buffers", {}))),
        latency_s=memory["latency_ns"] * NS)
    # The electronic periphery: one digital ALU per ADC at the ADCs' sample rate (sim/units/phu) runs a
    # GEMM's fused tail on the results as they leave the ADCs (within compute_cycles: the larger of the
    # array's busy cycles and the periphery's) and elementwise ops on SRAM operands; its energy is the SRAM's
    # and its ALUs' (periphery_pj_per_op per element operation).
    # With `vector` the same engine runs reductions (softmax, norms), data movement, gathers and views too,
    # as the published designs' digital units do (published_dota.py): a card that runs a tensor-parallel shard
    # alone (photonic-x4.json), since a shard's ops stay on its devices (ir/cost/device_plan.h).
    classes = sorted(set(ELEMENTWISE_OPS) | set(REDUCTIONS) | set(MOVES) | set(GATHERS)) if vector else PERIPHERY
    # The module times such an op as the larger of its ALUs' time (compute_cycles) and its operands' access
    # to its memory (latency + operand bytes at its bandwidth), so an entry the fit does not replace (a class
    # too rare in the training graphs) is exact there too.
    periphery = {c: roofline_pieces(p["clock_ghz"], memory["bandwidth_GBps"], components(periphery=alu, **operands),
                                    latency_s=memory["latency_ns"] * NS)
                 for c in classes}
    free = {"input": entry(form(), {})} | ({"nop": entry(form(), {})} if vector else {})  # the reader pays
    return {c: gemm for c in GEMM} | periphery | free


def with_fitted(name, model):
    """The model with its entries replaced by those fitted to the modules (configs/fitted/<name>.json)."""
    path = os.path.join(FITTED, name + ".json")
    if ANALYTIC or not os.path.exists(path):
        return model
    with open(path) as f:
        fitted = json.load(f)["entries"]
    # A GPU entry keeps its row-kernel piece in front of the fitted form: the fit's training graphs (TVM's
    # fusion) have no row kernels, and that piece is the module's time exactly (gpu_model).
    for c, e in fitted.items():
        pieces = model.get(c, {}).get("pieces", [])
        if pieces and pieces[0].get("when", {}).get("feature") == "row_kernel_cycles":
            own = e["pieces"] if "pieces" in e else [{"time_s": e["time_s"], "energy_j": e["energy_j"]}]
            fitted[c] = {"pieces": [pieces[0]] + own, "fit": e["fit"]}
    return model | fitted


def periphery_alu(p):
    """Energy of a PHU's periphery ALUs (its `periphery_pj_per_op`, none when 0) per element operation."""
    return form(elementwise_ops=p.get("periphery_pj_per_op", 0.0) * PJ)


def buffer_components(buffers):
    """Energy of a PHU's buffer levels (its `buffers`, none when empty) on the traffic its module counts."""
    return {c: form(**{c + "_bytes": buffers[c + "_pj_per_byte"] * PJ})
            for c in ("local_buffer", "register_file", "partial_sum_network") if c + "_pj_per_byte" in buffers}


def realistic(name, description, with_gpu, phu=None, gpu=None, hbm=None, gpu_pcie_gen=5):
    """The host (and with_gpu its GPU, and with `phu` that photonic card on the SRAM behind PCIe)."""
    units, memories, links, models = [HOST], [DRAM], [], {"host-cpu-roofline": host_cpu_model()}
    if with_gpu:
        gpu, hbm = gpu or GPU, hbm or HBM
        units.append(gpu), memories.append(hbm), links.append(dict(GPU_PCIE, generation=gpu_pcie_gen))
        models[gpu["model"]] = gpu_model(gpu, hbm)
    if phu:
        units.append(phu), memories.append(SRAM), links.append(PHU_PCIE)
        models[phu["model"]] = phu_model(phu)
    # The realistic machines fuse as TVM does (opt_level 3, relay.FuseOps.max_depth = 256); --fuse and
    # --set compiler.fuse=... change it. The lightcode configs have no compiler section: no fusion.
    return {"name": name, "description": description, "units": units, "memories": memories, "links": links,
            "placement": {"inputs": "cpu0", "params": "any"}, "compiler": {"fuse": "tvm", "max_depth": 256},
            "models": {m: with_fitted(m, entries) for m, entries in models.items()}, "latency_hiding": True}


def write(file, config):
    os.makedirs(os.path.dirname(os.path.join(OUT, file)), exist_ok=True)
    write_atomic(os.path.join(OUT, file), json.dumps(config, indent=2) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--analytic"]:
        ANALYTIC, args = True, args[1:]
    if args:  # another output directory (the up-to-date test writes to a temp dir)
        OUT = args[0]
    import lightcode_configs  # the LightCode prototype's constants (configs/README.md)
    write("lightcode-cpu.json", lightcode_configs.lightcode_cpu())
    write("lightcode.json", lightcode_configs.lightcode())
    write("cpu.json", realistic("cpu", "A 16-core 3.0 GHz AVX-512 server CPU (EPYC 9124-like) with 12-channel "
                                       "DDR5-4800, alone.", False))
    write("gpu.json", realistic("gpu", "The 16-core host CPU plus an H100-SXM-like GPU (132 SMs, HBM3) on PCIe "
                                       "gen5 x16.", True))
    write("a100.json", realistic("a100", "The 16-core host CPU plus an NVIDIA A100-SXM4-80GB (108 SMs at 1.41 GHz, "
                                         "HBM2e 2039 GB/s) on PCIe gen4 x16.", True, None, A100, A100_HBM, 4))
    h100 = realistic("h100", "The 16-core host CPU plus an NVIDIA H100-SXM5-80GB (132 SMs at 1.83 GHz, "
                             "HBM3 3350 GB/s) on PCIe gen5 x16.", True, None, H100_SXM5, H100_HBM, 5)
    write("h100.json", h100)
    write("h200.json", realistic("h200", "The 16-core host CPU plus an NVIDIA H200-SXM-141GB (the H100's 132 SMs, "
                                         "HBM3e 4800 GB/s) on PCIe gen5 x16.", True, None, H200_SXM, H200_HBM, 5))
    import multi_device  # several GPUs on NVSwitch, several photonic cards (configs/README.md, "Several devices")
    write("h100x8.json", multi_device.gpu_box(h100, "h100x8", "A DGX-H100-like box: the 16-core host CPU and 8 NVIDIA "
                                           "H100-SXM5-80GB, each on PCIe gen5 x16 to the host and with 18 NVLink 4 "
                                           "links (450 GB/s per direction) to NVSwitch.", 8, 18))
    a100 = realistic("a100", "", True, None, A100, A100_HBM, 4)
    write("a100x8.json", multi_device.gpu_box(a100, "a100x8", "A DGX-A100-like box: the 16-core host CPU and 8 NVIDIA "
                                           "A100-SXM4-80GB, each on PCIe gen4 x16 to the host and with 12 NVLink 3 "
                                           "links (300 GB/s per direction) to NVSwitch.", 8, 12))
    card = photonic_card()
    photonic = realistic("photonic", "The 16-core host CPU, an H100-SXM-like GPU on PCIe gen5 x16 and a photonic "
                                     "card on PCIe gen4 x16: DOTA-B's photonic core at 8 bits (Lightening-Transformer, "
                                     "HPCA 2024: 4 tiles x 2 cores of 12x12, 12 WDM channels at 5 GHz, dynamic "
                                     "operands) with 32 MiB of SRAM.", True, card)
    # The card's model on the GPU's HBM as well (fitted on photonic-copackaged.json), so that a run or a sweep
    # may move the card there: --set phu0.memory=hbm0 --set phu0.model=phu-hbm-roofline.
    photonic["models"]["phu-hbm-roofline"] = with_fitted("phu-hbm-roofline", phu_model(card, memory=HBM))
    write("photonic.json", photonic)
    # The same card co-packaged with the GPU on its HBM (as on a 2.5D interposer: an assumption, no published
    # package), so that no tensor crosses PCIe to reach it, with that model.
    copackaged = copy.deepcopy(photonic)
    copackaged["name"] = "photonic-copackaged"
    copackaged["description"] = ("photonic.json with its photonic card co-packaged with the GPU: the card reads and "
                                 "writes the GPU's HBM (hbm0), its model fitted there (phu-hbm-roofline).")
    next(u for u in copackaged["units"] if u["name"] == "phu0").update(memory="hbm0", model="phu-hbm-roofline")
    write("photonic-copackaged.json", copackaged)
    for ring in (False, True):
        write(f"photonic-x4{'-ring' if ring else ''}.json", multi_device.photonic_box(
            photonic, "photonic-x4" + ("-ring" if ring else ""), "photonic.json's host and GPU and 4 of its photonic "
            "cards, each with a vector unit (its periphery runs every op class, so that a tensor-parallel shard "
            "runs on the cards alone), the host and the cards on one PCIe gen4 switch (a x16 port each)" +
            (", and an optical ring between the cards (128 GB/s per direction)." if ring else "."), 4, ring,
            with_fitted("phu-vector-roofline", phu_model(card, vector=True))))
    import systolic_configs  # the systolic-array machines (configs/README.md, "Systolic arrays")
    write("tpu-v1.json", systolic_configs.tpu_v1())
    write("systolic.json", systolic_configs.systolic(photonic))
    import published_dota  # published designs, from their authors' parameters only (configs/README.md)
    import published_mrr_bank
    import published_mzi
    for bits in (4, 8):
        write(f"published/dota-b-{bits}bit.json", published_dota.dota_b(bits))
        write(f"published/dota-l-{bits}bit.json", published_dota.dota_l(bits))
        write(f"published/mrr-bank-{bits}bit.json", published_mrr_bank.mrr_bank(bits))
        write(f"published/mzi-{bits}bit.json", published_mzi.mzi(bits))
