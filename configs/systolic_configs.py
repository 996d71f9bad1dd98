"""The systolic-array machines (`kind: systolic`, sim/units/systolic/): configs/tpu-v1.json, Google's first
TPU from its paper, and configs/systolic.json, the realistic photonic machine with a TPU-v4i-like card beside
its photonic one. Every figure is a published one or derived from one by the arithmetic written here;
configs/README.md ("Systolic arrays") cites each and says which are assumptions. Imported by
configs/generate.py, which writes the files.

The arithmetic model is exact for GEMMs: the systolic features count what the module times
(sim/units/systolic/systolic_work.h: SCALE-Sim's folds, their fill stalls, the bytes through each scratchpad
and the unit's memory), so time = (compute_cycles + fill_stall_cycles) / clock + op_overhead and every energy
component is a count x its energy. The vector unit's element ops are a roofline of its rate and the memory's.
"""
from generate import (CONVS, GEMM, HOST, DRAM, NS, PJ, PERIPHERY, PCIE_PJ_PER_BYTE, PCIE_PJ_PER_PACKET, form,
                      entry, components, host_cpu_model, roofline_pieces, with_fitted)

# The classes the vector unit beside the array runs: the elementwise and broadcast ops that fuse behind a
# GEMM (bias add, activation: TPU v1's activation pipeline), clipping and pooling (TPU v1 pools in that
# pipeline). Everything else runs on the host.
VECTOR = PERIPHERY + ["clip", "maximum", "pool"]


def systolic_model(unit, memory):
    clock = unit["clock_ghz"] * 1e9
    overhead = unit.get("op_overhead_ns", 0.0) * NS
    mem_j = memory["energy_pj_per_byte"] * PJ
    mem_component = memory["kind"]  # the memory's access component: dram, hbm or sram
    pads = components(scratchpad=form(ifmap_sram_bytes=unit["ifmap_sram"]["energy_pj_per_byte"] * PJ,
                                      filter_sram_bytes=unit["filter_sram"]["energy_pj_per_byte"] * PJ,
                                      ofmap_sram_bytes=unit["ofmap_sram"]["energy_pj_per_byte"] * PJ))
    vector_j = unit["vector_energy_pj_per_op"] * PJ
    gemm = entry(form(compute_cycles=1.0 / clock, fill_stall_cycles=1.0 / clock, intercept=overhead),
                 components(systolic_mac=form(macs=unit["mac_energy_pj"] * PJ),
                            systolic_vector=form(elementwise_ops=vector_j),
                            **{mem_component: form(fold_memory_bytes=mem_j)}) | pads)
    # The vector unit: max(its cycles, the operands' stream from memory), a roofline that turns where
    # compute_cycles / bytes = clock / (bandwidth x memory_efficiency).
    vector_energy = components(systolic_vector=form(elementwise_ops=vector_j),
                               scratchpad=form(ifmap_sram_bytes=unit["ifmap_sram"]["energy_pj_per_byte"] * PJ),
                               **{mem_component: form(fold_memory_bytes=mem_j)})
    vector = roofline_pieces(unit["clock_ghz"], memory["bandwidth_GBps"] * unit.get("memory_efficiency", 1.0),
                             vector_energy, overhead)
    return {c: gemm for c in GEMM} | {c: vector for c in VECTOR} | {"input": entry(form(), {})}


def scratchpad(size_kib, pj_per_byte):
    return {"size_KiB": size_kib, "energy_pj_per_byte": pj_per_byte}


# --- TPU v1 (Jouppi et al., "In-Datacenter Performance Analysis of a Tensor Processing Unit", ISCA 2017).
# A 256 x 256 matrix unit of 8-bit MACs at 700 MHz: 65536 x 2 x 0.7 GHz = 91.75 TOPS ("92 TOPS"); 16-bit
# operands at a quarter of that (both 16-bit); weight stationary (weights are loaded into the array, inputs
# stream through it). On chip: the 24 MiB Unified Buffer (activations: ifmap), the 4 MiB of accumulators
# (4096 x 256 x 32 bit: ofmap), a Weight FIFO four 64 KiB tiles deep (filter). Off chip: 8 GiB of DDR3
# weight memory at 34 GB/s; the host on PCIe gen3 x16. Power per die (Table 2): 28 W idle, 40 W busy.
TPU_V1_CLOCK_GHZ = 0.7
TPU_V1_IDLE_W, TPU_V1_BUSY_W = 28.0, 40.0
TPU_V1_PEAK_MACS = 256 * 256 * TPU_V1_CLOCK_GHZ * 1e9
TPU_V1 = {"name": "tpu0", "kind": "systolic", "cores": 1, "clock_ghz": TPU_V1_CLOCK_GHZ,
          "static_power_w": TPU_V1_IDLE_W, "memory": "weight_dram", "model": "tpu-v1",
          "rows": 256, "cols": 256, "dataflow": "ws", "macs_per_pe_per_cycle": {"int8": 1.0, "int16": 0.25},
          "accumulator_bytes": 4,
          # Energy per MAC = the busy power above idle spread over the peak MAC rate: an upper bound that
          # holds the scratchpads' and the activation pipeline's dynamic energy too, so theirs are 0 here.
          "mac_energy_pj": (TPU_V1_BUSY_W - TPU_V1_IDLE_W) / TPU_V1_PEAK_MACS / PJ,
          "ifmap_sram": scratchpad(24 * 1024, 0.0), "filter_sram": scratchpad(4 * 64, 0.0),
          "ofmap_sram": scratchpad(4 * 1024, 0.0),
          # The activation pipeline takes one 256-wide accumulator row per cycle.
          "vector_ops_per_cycle": 256.0, "vector_energy_pj_per_op": 0.0}
TPU_V1_DRAM = {"name": "weight_dram", "kind": "dram", "capacity_MiB": 8 * 1024, "bandwidth_GBps": 34.0,
               "latency_ns": 100.0, "banks": 16, "energy_pj_per_byte": DRAM["energy_pj_per_byte"],
               "static_power_w": 2.0}
TPU_V1_PCIE = {"name": "pcie-tpu", "kind": "pcie", "endpoints": ["cpu0", "tpu0"], "latency_ns": 1000.0,
               "energy_pj_per_byte": PCIE_PJ_PER_BYTE, "generation": 3, "lanes": 16, "max_payload_bytes": 256,
               "header_bytes": 24, "energy_pj_per_packet": PCIE_PJ_PER_PACKET}


def tpu_v1():
    return {"name": "tpu-v1",
            "description": "The 16-core host CPU plus a TPU v1 (Jouppi et al., ISCA 2017): a 256x256 int8 "
                           "systolic array at 700 MHz (92 TOPS), 24 MiB unified buffer, 4 MiB accumulators, "
                           "8 GiB DDR3 weight memory at 34 GB/s, on PCIe gen3 x16.",
            "units": [HOST, TPU_V1], "memories": [DRAM, TPU_V1_DRAM], "links": [TPU_V1_PCIE],
            "placement": {"inputs": "cpu0", "params": "any"}, "compiler": {"fuse": "tvm", "max_depth": 256},
            "models": {"host-cpu-roofline": with_fitted("host-cpu-roofline", host_cpu_model()),
                       "tpu-v1": systolic_model(TPU_V1, TPU_V1_DRAM)},
            "latency_hiding": True}


# --- A TPU-v4i-like card (Jouppi et al., "Ten Lessons From Three Generations Shaped Google's TPUv4i", ISCA
# 2021): four 128 x 128 MXUs of bf16 MACs (int8 at the same rate) at 1.05 GHz: 4 x 16384 x 2 x 1.05 GHz =
# 137.6 TFLOP/s ("138"); 8 GiB of HBM2 at 614 GB/s; 175 W TDP. Each MXU is a lane (`cores` 4: an op runs on
# one MXU; the compiler's split of one GEMM over all four is not modelled). Its 16 MiB vector memory and 128
# MiB common memory become the scratchpads (per MXU: 4 MiB of inputs, 2 MiB of weights, 2 MiB of partial
# sums, an assumption); output stationary, as XLA's MXU kernels accumulate in place (assumption).
SYSTOLIC_CLOCK_GHZ = 1.05
SYSTOLIC_TDP_W, SYSTOLIC_STATIC_W = 175.0, 55.0  # static: an assumption (TDP share of leakage and idle HBM)
SYSTOLIC = {"name": "tpu0", "kind": "systolic", "cores": 4, "clock_ghz": SYSTOLIC_CLOCK_GHZ,
            "static_power_w": SYSTOLIC_STATIC_W, "memory": "hbm_tpu", "model": "tpu-v4i-like",
            "rows": 128, "cols": 128, "dataflow": "os",
            "macs_per_pe_per_cycle": {"int8": 1.0, "bfloat16": 1.0, "float16": 1.0},
            "accumulator_bytes": 4,
            # Per MAC: the dynamic power spread over the peak MAC rate (as the GPUs' figures), an upper bound
            # that holds the scratchpads' share too (theirs 0 here).
            "mac_energy_pj": (SYSTOLIC_TDP_W - SYSTOLIC_STATIC_W) / (4 * 128 * 128 * SYSTOLIC_CLOCK_GHZ * 1e9) / PJ,
            "ifmap_sram": scratchpad(4 * 1024, 0.0), "filter_sram": scratchpad(2 * 1024, 0.0),
            "ofmap_sram": scratchpad(2 * 1024, 0.0),
            "memory_efficiency": 0.78,  # the GPUs' HBM figure (fitted on the A100), an assumption here
            "vector_ops_per_cycle": 128.0 * 8, "vector_energy_pj_per_op": 0.0, "op_overhead_ns": 1000.0}
SYSTOLIC_HBM = {"name": "hbm_tpu", "kind": "hbm", "capacity_MiB": 8 * 1024, "bandwidth_GBps": 614.0,
                "latency_ns": 500.0, "banks": 32, "energy_pj_per_byte": 3.9 * 8, "static_power_w": 5.0}
SYSTOLIC_PCIE = {"name": "pcie-tpu", "kind": "pcie", "endpoints": ["cpu0", "tpu0"], "latency_ns": 1000.0,
                 "energy_pj_per_byte": PCIE_PJ_PER_BYTE, "generation": 4, "lanes": 16, "max_payload_bytes": 256,
                 "header_bytes": 24, "energy_pj_per_packet": PCIE_PJ_PER_PACKET}


def systolic(photonic):
    """photonic.json's machine with the TPU-v4i-like card beside its photonic card."""
    config = dict(photonic)
    config["name"] = "systolic"
    config["description"] = ("The photonic machine (16-core host, H100-SXM-like GPU, photonic MAC card) plus a "
                             "TPU-v4i-like systolic card (4 x 128x128 bf16 / int8 MXUs at 1.05 GHz, 8 GiB HBM2 at "
                             "614 GB/s) on PCIe gen4 x16.")
    config["units"] = photonic["units"] + [SYSTOLIC]
    config["memories"] = photonic["memories"] + [SYSTOLIC_HBM]
    config["links"] = photonic["links"] + [SYSTOLIC_PCIE]
    config["models"] = dict(photonic["models"]) | {"tpu-v4i-like": systolic_model(SYSTOLIC, SYSTOLIC_HBM)}
    return config
