#!/usr/bin/env python3
"""Writes the shipped hardware configs (configs/*.json) from the physical parameters below.

Every arithmetic-model coefficient is computed here from the units' parameters (roofline style), so a
reader can follow each number to its source; configs/README.md explains the derivations and cites the
hardware figures. Run from anywhere: `python3 configs/generate.py` (standard library only). The JSON
files are committed; rerun this after changing a parameter and commit both.
"""
import json
import os
import sys

OUT = os.path.dirname(os.path.abspath(__file__))
NS = 1e-9
PJ = 1e-12

# Op classes (the config keys of ir/op_class.h), grouped by how they are costed.
GEMM = ["dense", "batch_matmul", "conv2d"]
REDUCTIONS = ["mean", "sum", "pool"]  # read every input element once
MOVES = ["transpose", "layout_transform", "split", "concatenate"]
# What the photonic card's electronic periphery runs: elementwise and broadcast ops (TVM patterns
# elemwise / broadcast, the ops that fuse behind a GEMM), so that a GEMM with its bias add or activation can
# run on the card as one op.
PERIPHERY = ["add", "subtract", "multiply", "divide", "power", "negative", "sqrt", "rsqrt", "exp", "erf", "relu",
             "sigmoid", "tanh", "cast", "less", "where"]
# Gathers read only what they write (the rows taken, the slice), not their whole source tensor.
GATHERS = ["take", "strided_slice"]
# Elementwise classes and their vector instructions per element on a CPU / CUDA-core operations per
# element on a GPU (1 = one arithmetic instruction; transcendentals are ~10-20 instruction polynomials).
ELEMENTWISE_OPS = {
    "add": 1, "subtract": 1, "multiply": 1, "negative": 1, "cast": 1, "relu": 1, "less": 1, "where": 1,
    "divide": 4, "sqrt": 4, "rsqrt": 2, "exp": 10, "erf": 12, "tanh": 12, "sigmoid": 12, "power": 20,
    "softmax": 15, "opaque": 1,
}


def form(**terms):
    """A linear form: feature -> coefficient, plus 'intercept'. Zero terms are dropped."""
    out = {k: v for k, v in terms.items() if v != 0 and k != "intercept"}
    out["intercept"] = terms.get("intercept", 0.0)
    return out


def entry(time, energy):
    return {"time_s": time, "energy_j": energy}


# ---------------------------------------------------------------------------------------------------
# LightCode prototype (../shared/reference/lightcode.md): its formulas, encoded exactly.

LC_CLOCK_HZ = 3.208e9
LC_CYCLE_PJ = 1.0  # 1 pJ per CPU cycle (elementwise)
LC_CPU_MAC_PJ = 0.1
LC_DRAM_PJ_PER_NUMBER = 160.0  # the prototype moves 4-byte numbers
LC_SRAM_PJ_PER_NUMBER = 12.0


def lightcode_cpu_model():
    cyc = 1.0 / LC_CLOCK_HZ
    m = {}

    # An op fused behind another (only in graphs that arrive fused: these configs keep fusion off) costs
    # 1 cycle per element operation (fused_ops), the prototype's rate for most elementwise ops.
    def cycles(per_elem_out=0.0, per_elem_in=0.0, fixed=0.0):
        return entry(form(elements_out=per_elem_out * cyc, elements_in=per_elem_in * cyc, fused_ops=cyc,
                          intercept=fixed * cyc),
                     form(elements_out=per_elem_out * LC_CYCLE_PJ * PJ, elements_in=per_elem_in * LC_CYCLE_PJ * PJ,
                          fused_ops=LC_CYCLE_PJ * PJ, intercept=fixed * LC_CYCLE_PJ * PJ))

    # Tensors resident in DRAM: no time, 160 pJ per 4-byte number = 40 pJ per byte read.
    m["input"] = entry(form(), form(bytes_out=LC_DRAM_PJ_PER_NUMBER / 4 * PJ))
    m["add"] = entry(form(elements_out=5.728114536194012e-11, fused_ops=cyc, intercept=2.018610633633051e-07),
                     form(elements_out=LC_CYCLE_PJ * PJ, fused_ops=LC_CYCLE_PJ * PJ))  # energy: 1 cycle per element
    gemm_energy = form(macs=LC_CPU_MAC_PJ * PJ, fused_ops=LC_CYCLE_PJ * PJ)
    gemm = {"pieces": [
        {"when": {"feature": "max_dim", "min": 50001},  # the prototype's lm_head fit: an input dim > 50000
         "time_s": form(macs=3.554631597170242e-10, fused_ops=cyc, intercept=-0.007057115703999989),
         "energy_j": gemm_energy},
        {"time_s": form(macs=6.845684637179875e-11, fused_ops=cyc, intercept=8.258292187675319e-07),
         "energy_j": gemm_energy},
    ]}
    m["dense"] = gemm
    m["batch_matmul"] = gemm
    for c in ["subtract", "multiply", "divide", "sqrt", "rsqrt", "power", "transpose", "negative", "cast"]:
        m[c] = cycles(per_elem_out=1)
    m["relu"] = cycles(per_elem_out=2)
    m["tanh"] = cycles(per_elem_out=4)
    m["sigmoid"] = cycles(per_elem_out=4)
    m["softmax"] = cycles(per_elem_out=6)
    m["mean"] = cycles(per_elem_in=1, per_elem_out=1)  # == (K+1) * dim[-2] of input 0 on a last-axis mean
    for c in ["nop", "less", "take", "where", "erf", "strided_slice", "concatenate", "split"]:
        m[c] = cycles(fixed=1)
    # Classes the prototype lacked (lightsim's analogues, see configs/README.md).
    m["exp"] = cycles(per_elem_out=4)  # a transcendental like tanh / sigmoid
    m["sum"] = cycles(per_elem_in=1, per_elem_out=1)  # a reduction like mean
    m["pool"] = cycles(per_elem_in=1, per_elem_out=1)  # a windowed reduction: each input read once
    m["layout_transform"] = cycles(per_elem_out=1)  # a data permutation like transpose
    m["opaque"] = cycles(per_elem_out=1)  # unknown op admitted by --unknown-op=cpu: elementwise
    m["conv2d"] = {"time_s": form(macs=6.845684637179875e-11, fused_ops=cyc, intercept=8.258292187675319e-07),
                   "energy_j": gemm_energy}  # the small-matrix GEMM fit
    return m


LC_PHU_CLOCK_GHZ = 9.7
LC_PHU_WDM = 20
LC_PHU_MAC_PJ = 0.04
LC_DAC_PJ = 3.18
LC_ADC_PJ = 1.6


def lightcode_phu_model():
    gemm = entry(form(macs=1.0 / (LC_PHU_WDM * LC_PHU_CLOCK_GHZ * 1e9)),
                 form(macs=LC_PHU_MAC_PJ * PJ, elements_in=LC_DAC_PJ * PJ, elements_out=LC_ADC_PJ * PJ))
    return {"dense": gemm, "batch_matmul": gemm,
            # weights may be resident in the PHU's SRAM (params "any"): 12 pJ per 4-byte number
            "input": entry(form(), form(bytes_out=LC_SRAM_PJ_PER_NUMBER / 4 * PJ))}


LC_CPU = {"name": "cpu0", "kind": "cpu", "cores": 1, "clock_ghz": LC_CLOCK_HZ / 1e9, "static_power_w": 0.0,
          "memory": "dram0", "model": "lightcode-cpu", "vector_width": 4, "fma": True, "dispatch_ns": 0.0,
          "memory_port_GBps": 25.6}
LC_DRAM = {"name": "dram0", "kind": "dram", "capacity_MiB": 16384, "bandwidth_GBps": 25.6, "latency_ns": 0.0,
           "banks": 16, "energy_pj_per_byte": LC_DRAM_PJ_PER_NUMBER / 4, "static_power_w": 0.0}


def lightcode_cpu():
    return {"name": "lightcode-cpu",
            "description": "The LightCode prototype's CPU alone: 1 core at 3.208 GHz with its measured linear "
                           "fits and cycle counts, encoded exactly (configs/README.md, 'lightcode').",
            "units": [LC_CPU], "memories": [LC_DRAM], "links": [],
            "placement": {"inputs": "cpu0", "params": "any"},
            "models": {"lightcode-cpu": lightcode_cpu_model()}}


def lightcode():
    phu = {"name": "phu0", "kind": "phu", "cores": 1, "clock_ghz": LC_PHU_CLOCK_GHZ, "static_power_w": 0.0,
           "memory": "sram0", "model": "lightcode-phu", "rows": 1, "cols": 1, "wdm_channels": LC_PHU_WDM,
           "weight_reload_ns": 0.0,
           "dac": {"count": LC_PHU_WDM, "sample_rate_gsps": LC_PHU_CLOCK_GHZ, "energy_pj": LC_DAC_PJ, "bits": 8},
           "adc": {"count": LC_PHU_WDM, "sample_rate_gsps": LC_PHU_CLOCK_GHZ, "energy_pj": LC_ADC_PJ, "bits": 8},
           "bits": 8, "laser_power_w": 0.0, "mac_energy_pj": LC_PHU_MAC_PJ}
    sram = {"name": "sram0", "kind": "sram", "capacity_MiB": 1024, "bandwidth_GBps": 384.0,
            "latency_ns": 1 / 6.0, "banks": 1, "energy_pj_per_byte": LC_SRAM_PJ_PER_NUMBER / 4,
            "static_power_w": 0.0, "spill_to": "dram0"}
    bus = {"name": "sram-bus", "kind": "bus", "endpoints": ["cpu0", "phu0"],
           "latency_ns": 10.0 + 1e9 / 6e9,  # 10 ns DAC/ADC delay + one 1/6e9 s SRAM hop
           "energy_pj_per_byte": LC_SRAM_PJ_PER_NUMBER / 4, "bandwidth_GBps": 384.0}  # 64 B/cycle at 6 GHz
    return {"name": "lightcode",
            "description": "The LightCode prototype's CPU + photonic unit (PHU: 20 WDM channels at 9.7 GHz, 1 core) "
                           "with its constants; the PHU runs dense and batch_matmul only.",
            "units": [LC_CPU, phu], "memories": [LC_DRAM, sram], "links": [bus],
            "placement": {"inputs": "cpu0", "params": "any"},
            "models": {"lightcode-cpu": lightcode_cpu_model(), "lightcode-phu": lightcode_phu_model()}}


# ---------------------------------------------------------------------------------------------------
# Realistic machine: host CPU (DDR5), an H100-SXM-like GPU (HBM3, PCIe gen5 x16), a PHU card (SRAM,
# PCIe gen4 x16). Sources for each figure: configs/README.md.

HOST_TDP_W = 200.0  # the CPU package at full load
HOST = {"name": "cpu0", "kind": "cpu", "cores": 16, "clock_ghz": 3.0, "static_power_w": 40.0,
        "memory": "dram0", "model": "host-cpu-roofline", "vector_width": 16, "fma": True, "dispatch_ns": 500.0,
        "memory_port_GBps": 12 * 4.8 * 8}  # 12 channels of DDR5-4800, 8 bytes per transfer
DRAM = {"name": "dram0", "kind": "dram", "capacity_MiB": 12 * 32 * 1024, "bandwidth_GBps": 12 * 4.8 * 8,
        "latency_ns": 110.0, "banks": 12 * 32, "energy_pj_per_byte": 15.0 * 8, "static_power_w": 12 * 3.0}

GPU_TDP_W = 700.0
GPU = {"name": "gpu0", "kind": "gpu", "cores": 1, "clock_ghz": 1.83, "static_power_w": 90.0, "memory": "hbm0",
       "model": "h100-roofline", "sms": 132, "tensor_cores_per_sm": 4, "tile": {"m": 16, "n": 8, "k": 8},
       "tile_cycles": 4, "launch_latency_ns": 2500.0, "elementwise_flops_per_cycle_per_sm": 128,
       "shared_memory_per_sm_KiB": 228}
HBM = {"name": "hbm0", "kind": "hbm", "capacity_MiB": 80 * 1024, "bandwidth_GBps": 3350.0, "latency_ns": 500.0,
       "banks": 5 * 32, "energy_pj_per_byte": 3.9 * 8, "static_power_w": 15.0}
GPU_PCIE = {"name": "pcie-gpu", "kind": "pcie", "endpoints": ["cpu0", "gpu0"], "latency_ns": 1000.0,
            "energy_pj_per_byte": 5.0 * 8, "generation": 5, "lanes": 16, "max_payload_bytes": 256,
            "header_bytes": 24}

PHU = {"name": "phu0", "kind": "phu", "cores": 1, "clock_ghz": 10.0, "static_power_w": 10.0, "memory": "sram0",
       "model": "phu-roofline", "rows": 64, "cols": 64, "wdm_channels": 16, "weight_reload_ns": 10.0,
       "dac": {"count": 1024, "sample_rate_gsps": 10.0, "energy_pj": 1.0, "bits": 8},
       "adc": {"count": 1024, "sample_rate_gsps": 10.0, "energy_pj": 3.0, "bits": 8},
       "bits": 8, "laser_power_w": 2.0, "mac_energy_pj": 0.02}
SRAM = {"name": "sram0", "kind": "sram", "capacity_MiB": 32, "bandwidth_GBps": 2048.0, "latency_ns": 5.0,
        "banks": 32, "energy_pj_per_byte": 2.5, "static_power_w": 2.0, "spill_to": "dram0"}
PHU_PCIE = {"name": "pcie-phu", "kind": "pcie", "endpoints": ["cpu0", "phu0"], "latency_ns": 1000.0,
            "energy_pj_per_byte": 5.0 * 8, "generation": 4, "lanes": 16, "max_payload_bytes": 256,
            "header_bytes": 24}


def roofline_model(compute_rate, mem_GBps, mem_pj_per_byte, fixed_ns, dyn_power_w, gemm_mac_rate,
                   attention=False):
    """time = compute term + (bytes_in + bytes_out) / bandwidth + fixed; energy = busy power x compute
    term + bytes x memory energy. compute_rate: elementwise operations per second; gemm_mac_rate: MACs
    per second (None: the unit runs no GEMMs). A fused op is costed by its anchor's entry: the element
    operations of its fused tail (fused_ops) run at compute_rate, one operation each, as the SystemC
    modules count them. attention: an entry for fused attention (both products at gemm_mac_rate, the
    scale/mask/softmax at compute_rate, FlashAttention's memory traffic: operand_bytes)."""
    per_byte_s = 1.0 / (mem_GBps * 1e9)
    per_byte_j = mem_pj_per_byte * PJ
    # operand_bytes: what the op reads and writes (bytes_read + bytes_out), so a gather, alone or fused,
    # pays for the rows it reads, not its whole table; fused attention FlashAttention's traffic.
    mem_t = {"operand_bytes": per_byte_s}
    mem_e = {"operand_bytes": per_byte_j}
    fixed = fixed_ns * NS
    tail_t = 1.0 / compute_rate  # per fused element operation
    m = {"input": entry(form(), form(bytes_out=per_byte_j)), "nop": entry(form(), form())}

    def op(elements_key, per_element_ops):
        t = per_element_ops / compute_rate
        return entry(form(**{elements_key: t}, **mem_t, fused_ops=tail_t, intercept=fixed),
                     form(**{elements_key: dyn_power_w * t}, **mem_e, fused_ops=dyn_power_w * tail_t))

    for c, w in ELEMENTWISE_OPS.items():
        m[c] = op("elements_out", w)
    for c in REDUCTIONS:
        m[c] = op("elements_in", 1)
    for c in MOVES + GATHERS:
        m[c] = entry(form(**mem_t, fused_ops=tail_t, intercept=fixed), form(**mem_e, fused_ops=dyn_power_w * tail_t))
    if gemm_mac_rate:
        t = 1.0 / gemm_mac_rate
        for c in GEMM:
            m[c] = entry(form(macs=t, **mem_t, fused_ops=tail_t, intercept=fixed),
                         form(macs=dyn_power_w * t, **mem_e, fused_ops=dyn_power_w * tail_t))
        if attention:
            m["attention"] = entry(form(macs=t, **mem_t, fused_ops=tail_t, intercept=fixed),
                                   form(macs=dyn_power_w * t, **mem_e, fused_ops=dyn_power_w * tail_t))
    return m


def host_cpu_model():
    # One op runs on one core, which gets its share of the memory port when all cores are busy.
    c = HOST
    lanes_per_s = c["vector_width"] * c["clock_ghz"] * 1e9
    mac_rate = lanes_per_s * (1.0 if c["fma"] else 0.5)
    core_dyn_w = (HOST_TDP_W - c["static_power_w"]) / c["cores"]
    return roofline_model(lanes_per_s, c["memory_port_GBps"] / c["cores"], DRAM["energy_pj_per_byte"],
                          c["dispatch_ns"], core_dyn_w, mac_rate)


def gpu_model():
    g = GPU
    clock = g["clock_ghz"] * 1e9
    t = g["tile"]
    mac_rate = g["sms"] * g["tensor_cores_per_sm"] * t["m"] * t["n"] * t["k"] / g["tile_cycles"] * clock
    elem_rate = g["sms"] * g["elementwise_flops_per_cycle_per_sm"] * clock
    return roofline_model(elem_rate, HBM["bandwidth_GBps"], HBM["energy_pj_per_byte"], g["launch_latency_ns"],
                          GPU_TDP_W - g["static_power_w"], mac_rate, attention=True)


def phu_model():
    p = PHU
    R, C, W = p["rows"], p["cols"], p["wdm_channels"]
    clock = p["clock_ghz"] * 1e9
    optics = 1.0 / (R * C * W * clock)  # s per MAC when the array is full
    dac = 1.0 / (C * p["dac"]["count"] * p["dac"]["sample_rate_gsps"] * 1e9)  # one input sample feeds C MACs
    adc = 1.0 / (R * p["adc"]["count"] * p["adc"]["sample_rate_gsps"] * 1e9)  # one output sample sums R MACs
    per_mac_s = max(optics, dac, adc)  # the slowest of optics, DACs and ADCs sets the pace
    reload_s = p["weight_reload_ns"] * NS / (R * C)  # per weight element: one tile reload per R*C weights
    per_byte_s = 1.0 / (SRAM["bandwidth_GBps"] * 1e9)
    per_byte_j = SRAM["energy_pj_per_byte"] * PJ
    mac_j = (p["mac_energy_pj"] + p["dac"]["energy_pj"] / C + p["adc"]["energy_pj"] / R) * PJ
    # The electronic periphery: one digital ALU per ADC at the ADC sample rate (sim/hw/photonic_mac_array.h)
    # runs a GEMM's fused tail on the results and elementwise ops on SRAM operands, one operation each.
    periphery_s = 1.0 / (p["adc"]["count"] * p["adc"]["sample_rate_gsps"] * 1e9)
    gemm = entry(
        form(macs=per_mac_s, elements_in=reload_s, operand_bytes=per_byte_s, fused_ops=periphery_s),
        form(macs=mac_j + p["laser_power_w"] * per_mac_s,  # laser on while the array computes
             elements_in=p["dac"]["energy_pj"] * PJ,  # programming each weight through a DAC
             operand_bytes=per_byte_j))
    periphery = {c: entry(form(elements_out=periphery_s, operand_bytes=per_byte_s, fused_ops=periphery_s),
                          form(operand_bytes=per_byte_j))
                 for c in PERIPHERY}
    return {c: gemm for c in GEMM} | periphery | {"input": entry(form(), form(bytes_out=per_byte_j))}


def realistic(name, description, with_gpu, with_phu):
    units, memories, links, models = [HOST], [DRAM], [], {"host-cpu-roofline": host_cpu_model()}
    if with_gpu:
        units.append(GPU), memories.append(HBM), links.append(GPU_PCIE)
        models["h100-roofline"] = gpu_model()
    if with_phu:
        units.append(PHU), memories.append(SRAM), links.append(PHU_PCIE)
        models["phu-roofline"] = phu_model()
    # The realistic machines fuse as TVM does (opt_level 3, relay.FuseOps.max_depth = 256); --fuse and
    # --set compiler.fuse=... change it. The lightcode configs have no compiler section: no fusion.
    return {"name": name, "description": description, "units": units, "memories": memories, "links": links,
            "placement": {"inputs": "cpu0", "params": "any"}, "compiler": {"fuse": "tvm", "max_depth": 256},
            "models": models}


def write(file, config):
    with open(os.path.join(OUT, file), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) > 1:  # another output directory (the up-to-date test writes to a temp dir)
        OUT = sys.argv[1]
    write("lightcode-cpu.json", lightcode_cpu())
    write("lightcode.json", lightcode())
    write("cpu.json", realistic("cpu", "A 16-core 3.0 GHz AVX-512 server CPU (EPYC 9124-like) with 12-channel "
                                       "DDR5-4800, alone.", False, False))
    write("gpu.json", realistic("gpu", "The 16-core host CPU plus an H100-SXM-like GPU (132 SMs, HBM3) on PCIe "
                                       "gen5 x16.", True, False))
    write("photonic.json", realistic("photonic", "The 16-core host CPU, an H100-SXM-like GPU on PCIe gen5 x16 and a "
                                                 "photonic MAC card (64x64 array, 16 WDM channels at 10 GHz, 32 MiB "
                                                 "SRAM) on PCIe gen4 x16.", True, True))
