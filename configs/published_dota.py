"""DOTA, the accelerator of Lightening-Transformer (Zhu et al., HPCA 2024, arXiv:2305.19533), as lightsim
configs written from its published parameters only: configs/published/dota-b-{4,8}bit.json (DOTA-B, 4 tiles)
and dota-l-{4,8}bit.json (DOTA-L, the same cores in 8 tiles).

Every figure is the authors' (the paper's artifact, github.com/zhuhanqing/Lightening-Transformer,
hardware_simulator/params/device_params/{default,Dota_B_4bit,Dota_B_8bit,Dota_L_4bit,Dota_L_8bit}.yaml and
hardware/*.py) or derived
from theirs by the arithmetic written out here; configs/published/README.md gives the source of
each and how the design maps onto lightsim's one PHU. No code of the artifact is used. Imported by
configs/generate.py, which writes the files.
"""
import math

from generate import (GEMM, ELEMENTWISE_OPS, REDUCTIONS, MOVES, GATHERS, NS, PJ, form, entry, components, converter,
                      roofline_pieces, periphery_alu)

# --- Architecture (Dota_B_*.yaml): 4 tiles x 2 cores of 12 x 12 dot-product nodes, 12 wavelengths, 5 GHz;
# Dota_L_*.yaml differs in num_tiles alone (8). TILES is DOTA-B's; every function below takes the tile count.
CORE_H = 12          # rows of operand 1 (output features) per core
CORE_W = 12          # columns of operand 2 (tokens) per core
WAVELENGTHS = 12     # WDM channels, each one element of the reduction dimension
TILES, CORES_PER_TILE = 4, 2
DOTA_L_TILES = 8
CLOCK_GHZ = 5.0
TIME_ACCUM = 3       # arch_opt time_accum_factor: an ADC sample integrates 3 cycles of partial sums

# --- Devices (default.yaml, hardware/{ADC,DAC}.py).
ADC_REF = {"bits": 8, "power_mw": 14.8, "gsps": 10.0}  # SAR ADC: power scales with rate x bits
DAC_REF = {"bits": 8, "power_mw": 50.0, "gsps": 14.0}  # capacitive DAC: power scales with rate x 2^b / b
MZM_FJ_PER_BIT = 450.0        # input modulator, dynamic only; one symbol per cycle whatever the bits
MRR_ROUTER_MW = 0.275         # (de)mux ring, static, 2 per modulator
PD_MW, PD_PER_NODE = 1.1, 2   # balanced photodetection
TIA_MW = 3.0                  # one per ADC
ADDER_MW = 0.2 / 4.39        # digital partial-sum adder: ISAAC's 0.2 mW scaled by 1/4.39 to 14 nm
PD_SENSITIVITY_DBM = -25.0
IL_DB = {"mzm": 1.2, "mrr": 0.93, "y_branch": 0.1, "phase_shifter": 0.33, "coupler": 0.33}
LASER_WALL_PLUG = 0.2
ALU_PJ_PER_OP = 0.1           # the digital units' energy per operation (utils/model.py, obtain_other_costs: 100 fJ)

# --- Memories (default.yaml: CACTI energies per 2 bytes; hardware/SRAM.py: sizes and bandwidths).
DRAM_PJ_PER_BYTE = 62.4 / 2
GB2_PJ_PER_BYTE = 1.655 / 2   # the 2 MB global buffer
GB1_PJ_PER_BYTE = 0.92 / 2    # the tiles' local buffers
NOC_PJ_PER_BYTE = 2.0 / 2     # partial sums to the adders (default.yaml: "from Eyeriss")
RF_PJ_PER_BYTE = 0.073 / 2    # the registers beside the converters
LOCAL_BUFFER_KIB_PER_TILE = 4096 / 1024  # M2_buffer_size: 4096 B per tile
GB2_MIB = 2.0
GB2_GBPS = 64 * 64 * 1024 ** 3 / 0.604347 / 1e9  # SRAM.py bandwidth_sram (CACTI), bytes/s -> GB/s
DRAM_TO_SRAM_GBPS = 1024 ** 4 / 1e9             # SRAM.py bandwidth_dram_to_sram ("1TB/s")


def buffers(local_buffer_kib):
    """The artifact's levels below the global buffer (default.yaml datamovement): the tiles' local buffers (GB1)
    of `local_buffer_kib`, the converters' registers (RF) and the partial-sum network (NoC). Shared by the
    artifact's designs."""
    return {"local_buffer_KiB": local_buffer_kib, "local_buffer_pj_per_byte": GB1_PJ_PER_BYTE,
            "register_file_pj_per_byte": RF_PJ_PER_BYTE, "partial_sum_network_pj_per_byte": NOC_PJ_PER_BYTE}


def independent_cores_phu(model, core_rows, core_cols, cores, bits, dac_extra_pj, adc_extra_pj, laser_w, mac_pj,
                          local_buffer_kib, **fields):
    """A PHU of `cores` independent cores of core_rows x core_cols (the artifact's weight-stationary baselines:
    `tiles` = cores, `tile_operand` independent, each core its own core_rows DACs and core_cols ADCs at 5 GS/s),
    one input vector per core per cycle, static weights, no analog accumulation. dac_extra_pj / adc_extra_pj:
    what rides on each DAC / ADC sample beside the conversion (its modulator, its receiver). `fields`: the
    design's own (sign passes, programming time, laser gating)."""
    bit_clock = CLOCK_GHZ * (bits + 1)
    return {"name": "phu0", "kind": "phu", "cores": 1, "clock_ghz": CLOCK_GHZ, "static_power_w": 0.0,
            "memory": "sram0", "model": model, "rows": core_rows, "cols": core_cols * cores,
            "tiles": cores, "tile_operand": "independent", "wdm_channels": 1,
            "input_sign_passes": fields.pop("input_sign_passes", 1), "accumulation_cycles": 1,
            "operand_encoding": "static", "weight_reload_ns": fields.pop("weight_reload_ns", 0.0), **fields,
            "dac": converter(core_rows * cores, bit_clock, (dac_pj(bits) + dac_extra_pj) * 1e3 / 2 ** bits),
            "adc": converter(core_cols * cores, bit_clock, (adc_pj(bits) + adc_extra_pj) * 1e3 / 2 ** bits),
            "bits": bits, "laser_power_w": laser_w, "mac_energy_pj": mac_pj,
            "periphery_pj_per_op": ALU_PJ_PER_OP,  # the artifact's digital units
            "buffers": buffers(local_buffer_kib)}


def laser_power_w(bits, n=CORE_H, wavelengths=WAVELENGTHS, tiles=TILES):
    """Electrical laser power of all cores (tiles x 2): the link budget from the laser to one photodetector of the
    n x n node fan-out (12 x 12), at the detector's sensitivity, x 2^bits for the precision, / wall-plug
    efficiency."""
    il_mod = IL_DB["mzm"] + 2 * IL_DB["mrr"] + IL_DB["y_branch"] * math.ceil(math.log2(wavelengths))
    il_comp = IL_DB["y_branch"] + IL_DB["phase_shifter"] + IL_DB["coupler"]
    optical_dbm = PD_SENSITIVITY_DBM + il_mod + il_comp + 10 * math.log10(n * n)
    per_core_w = 10 ** (optical_dbm / 10) * 1e-3 / LASER_WALL_PLUG * 2 ** bits
    return per_core_w * tiles * CORES_PER_TILE


def adc_pj(bits):
    return ADC_REF["power_mw"] / ADC_REF["gsps"] * bits / ADC_REF["bits"]  # mW / GS/s = pJ


def dac_pj(bits):
    scale = (2 ** bits / bits) / (2 ** DAC_REF["bits"] / DAC_REF["bits"])
    return DAC_REF["power_mw"] / DAC_REF["gsps"] * scale


def mac_energy_pj(bits, n=CORE_W, wavelengths=WAVELENGTHS, tiles=TILES):
    """Per-MAC share of what lightsim does not count as events (configs/published/README.md): the
    operand-1 modulator re-encoded for every 12 tokens (its DAC is a `dac` event: dynamic operands), the
    operand-2 modulator shared by the 12 x tiles columns it feeds (48 in DOTA-B), the balanced photodetectors of a node (12 MACs
    per cycle), the TIA and the adder of one ADC sample (12 wavelengths x 2 cores x 3 integrated cycles =
    72 MACs: the ADC samples themselves are events, accumulation_cycles 3)."""
    tx_pj = MZM_FJ_PER_BIT * 1e-3 + 2 * MRR_ROUTER_MW / CLOCK_GHZ  # modulator + 2 rings per symbol
    per_sample = wavelengths * CORES_PER_TILE * TIME_ACCUM
    return (tx_pj / n + tx_pj / (n * tiles)
            + PD_PER_NODE * PD_MW / CLOCK_GHZ / wavelengths
            + (TIA_MW + ADDER_MW) / CLOCK_GHZ / per_sample)


def core_variant(n, wavelengths, bits, tiles=TILES):
    """The fields of the PHU below that follow from its cores' size and its precision, for cores of n x n nodes
    and `wavelengths` wavelengths (DOTA-B: 12 and 12) at `bits`, in `tiles` tiles x 2 cores (DOTA-B: 4): the
    array (rows = the reduction over the wavelengths x a tile's 2 cores, cols = n node rows x tiles,
    wdm_channels = the n token columns a core takes per cycle), its DACs (operand 2 broadcast to the tiles:
    wavelengths x n x 2; operand 1 every core's own: wavelengths x n x 2 x tiles) and ADCs (n x n x tiles) at
    5 GS/s with the artifact's
    energy per conversion at those bits, the laser, the per-MAC energy, and the tiles' local buffers in
    proportion to a tile's columns (4 KiB per tile of 12, so that a column block's operand slices fit them as
    in DOTA-B). As `--set` keys, the rows of the
    array sweeps of scripts/sweeps/photonic_*.json (printed by `python3 configs/published_dota.py`)."""
    bit_clock = CLOCK_GHZ * (bits + 1)  # converters at 5 GS/s: a conversion is bits + 1 bit-clock cycles
    return {"rows": wavelengths * CORES_PER_TILE, "cols": n * tiles, "wdm_channels": n, "bits": bits,
            "dac.count": wavelengths * n * CORES_PER_TILE * (1 + tiles), "dac.bit_clock_ghz": bit_clock,
            "dac.fom_fj_per_step": dac_pj(bits) * 1e3 / 2 ** bits,
            "adc.count": n * n * tiles, "adc.bit_clock_ghz": bit_clock,
            "adc.fom_fj_per_step": adc_pj(bits) * 1e3 / 2 ** bits,
            "laser_power_w": laser_power_w(bits, n, wavelengths, tiles),
            "mac_energy_pj": mac_energy_pj(bits, n, wavelengths, tiles),
            "buffers.local_buffer_KiB": LOCAL_BUFFER_KIB_PER_TILE * tiles * n / CORE_H}


def phu(bits, tiles=TILES, model_name="dota-b"):
    """The cores as one array of `tiles` tiles x 2 cores (DOTA-B: 4 x 2): rows = the reduction split over 12
    wavelengths x the 2 cores of a tile (cores_per_tile, summed in analog), cols = 12 node rows x tiles (tiles,
    operand 2 broadcast to them: tile_operand broadcast), wdm_channels = the 12 token columns a core takes per cycle.
    Both operands are modulated every cycle (operand_encoding dynamic) and the photodetectors integrate 3
    cycles before an ADC sample (accumulation_cycles)."""
    core = core_variant(CORE_H, WAVELENGTHS, bits, tiles)
    return {"name": "phu0", "kind": "phu", "cores": 1, "clock_ghz": CLOCK_GHZ, "static_power_w": 0.0,
            "memory": "sram0", "model": model_name, "rows": core["rows"], "cols": core["cols"],
            "tiles": tiles, "cores_per_tile": CORES_PER_TILE, "tile_operand": "broadcast",
            "wdm_channels": core["wdm_channels"], "accumulation_cycles": TIME_ACCUM, "operand_encoding": "dynamic",
            "weight_reload_ns": 0.0,
            "dac": converter(core["dac.count"], core["dac.bit_clock_ghz"], core["dac.fom_fj_per_step"]),
            "adc": converter(core["adc.count"], core["adc.bit_clock_ghz"], core["adc.fom_fj_per_step"]),
            "bits": bits, "laser_power_w": core["laser_power_w"], "mac_energy_pj": core["mac_energy_pj"],
            "periphery_pj_per_op": ALU_PJ_PER_OP,
            "buffers": buffers(core["buffers.local_buffer_KiB"])}


def model(p):
    clock = p["clock_ghz"] * 1e9
    fJ = 1e-15
    alu = periphery_alu(p)
    sram = components(sram=form(operand_bytes=GB2_PJ_PER_BYTE * PJ), periphery=alu)
    # A GEMM takes the longer of its array cycles and its operands' stream at the global buffer's bandwidth,
    # as the module times it (the stream overlaps the array): the array binds every GEMM of DOTA-B's
    # workloads, the stream a one-token GEMM on a wider array (DOTA-L's head at 8 bits).
    gemm = roofline_pieces(
        p["clock_ghz"], GB2_GBPS,
        components(laser=form(laser_cycles=p["laser_power_w"] / clock),
                   dac=form(dac_conversion_steps=p["dac"]["fom_fj_per_step"] * fJ),
                   adc=form(adc_conversion_steps=p["adc"]["fom_fj_per_step"] * fJ),
                   optical_mac=form(optical_macs=p["mac_energy_pj"] * PJ),
                   weight_programming=form(weight_conversion_steps=p["dac"]["fom_fj_per_step"] * fJ),
                   local_buffer=form(local_buffer_bytes=GB1_PJ_PER_BYTE * PJ),
                   register_file=form(register_file_bytes=RF_PJ_PER_BYTE * PJ),
                   partial_sum_network=form(partial_sum_network_bytes=NOC_PJ_PER_BYTE * PJ),
                   sram=form(operand_bytes=GB2_PJ_PER_BYTE * PJ), periphery=alu))
    # Non-GEMM ops (softmax, LayerNorm, GELU, residuals, data movement) on the digital periphery: the
    # larger of its cycles (one ALU per ADC at the ADC sample rate, compute_cycles) and the operands' stream
    # at the global buffer's bandwidth, as the PHU module times them: a roofline that turns where
    # compute_cycles / bytes = clock / bandwidth. Their energy is the buffer accesses and the ALUs'
    # operations (periphery_pj_per_op, as for a GEMM's fused tail).
    periphery = roofline_pieces(p["clock_ghz"], GB2_GBPS, sram)
    others = set(ELEMENTWISE_OPS) | set(REDUCTIONS) | set(MOVES) | set(GATHERS)
    # Fused attention: Q K^T and P V on the array, the softmax in the periphery alongside, tiled to the local
    # buffers (the PHU module; the same forms as a GEMM's).
    return {c: gemm for c in GEMM + ["attention"]} | {c: periphery for c in sorted(others)} | {"nop": entry(form(), {}),
                                                                                         "input": entry(form(), {})}


def dota_b(bits):
    return machine(f"dota-b-{bits}bit",
                   f"DOTA-B of Lightening-Transformer (Zhu et al., HPCA 2024) at {bits} bits from its published "
                   "parameters: 4 tiles x 2 cores of 12x12 nodes, 12 wavelengths, 5 GHz, dynamic operands, 3 "
                   "cycles of analog accumulation; a 24x48 array of 4 tiles (operand 2 broadcast) x 2 cores "
                   "(configs/published/README.md).", phu(bits))


def dota_l(bits):
    return machine(f"dota-l-{bits}bit",
                   f"DOTA-L of Lightening-Transformer (Zhu et al., HPCA 2024) at {bits} bits from its published "
                   "parameters: DOTA-B's cores in 8 tiles (Dota_L_*.yaml: num_tiles 8) x 2 cores of 12x12 nodes, "
                   "12 wavelengths, 5 GHz, dynamic operands, 3 cycles of analog accumulation; a 24x96 array of 8 "
                   "tiles (operand 2 broadcast) x 2 cores (configs/published/README.md).",
                   phu(bits, DOTA_L_TILES, "dota-l"))


def machine(name, description, p):
    """A Lightening-Transformer artifact design around the PHU `p`: the artifact's memories (default.yaml:
    the 2 MB global buffer, DRAM at 1 TB/s), every weight streamed from DRAM once by the PHU's load stage,
    and the compiler an optimised build has. Shared by the artifact's designs (published_mrr_bank.py)."""
    gb2 = {"name": "sram0", "kind": "sram", "capacity_MiB": GB2_MIB, "bandwidth_GBps": GB2_GBPS, "latency_ns": 0.0,
           "banks": 1, "energy_pj_per_byte": GB2_PJ_PER_BYTE, "static_power_w": 0.0, "spill_to": "dram0"}
    dram = {"name": "dram0", "kind": "dram", "capacity_MiB": 16 * 1024, "bandwidth_GBps": DRAM_TO_SRAM_GBPS,
            "latency_ns": 0.0, "banks": 1, "energy_pj_per_byte": DRAM_PJ_PER_BYTE, "static_power_w": 0.0}
    bus = {"name": "dram-bus", "kind": "bus", "endpoints": ["dram0", "sram0"], "latency_ns": 0.0,
           "energy_pj_per_byte": DRAM_PJ_PER_BYTE, "bandwidth_GBps": DRAM_TO_SRAM_GBPS}
    # lightsim keeps weights in a unit's memory: a unit on the DRAM that runs no op (its model has `input`
    # only) holds them there (placement.params), and the PHU's load stage streams every weight over the bus
    # once per inference into two 0.25 MiB prefetch buffers of the global buffer, ahead of the op that reads
    # it (latency_hiding), as DOTA reads each weight from DRAM once. The buffers' size is not a published
    # figure: two 0.25 MiB buffers hide the loads as well as larger ones do (the same stall on DeiT-T and
    # DeiT-B with 2 x 0.5, 4 x 0.125 or 2 x 0.125 MiB) and leave 1.5 MiB of the buffer to activations.
    holder = {"name": "dram-port", "kind": "cpu", "cores": 1, "clock_ghz": 1.0, "static_power_w": 0.0,
              "dynamic_power_w": 0.0, "memory": "dram0", "model": "weights-only", "vector_width": 1, "fma": True,
              "dispatch_ns": 0.0, "memory_port_GBps": DRAM_TO_SRAM_GBPS}
    return {"name": name, "description": description,
            "units": [p | {"prefetch": {"depth": 2, "buffer_MiB": 0.25}}, holder], "memories": [gb2, dram],
            "links": [bus], "latency_hiding": True,
            # The graph as an optimised build compiles it: the unoptimised graphs' transposes and broadcasts
            # of weights done ahead of time (TVM's FoldConstant), and each GEMM's elementwise tail (bias,
            # activation, residual) applied in the periphery as the results leave the ADCs (TVM's FuseOps),
            # and attention fused as FlashAttention runs it (the scores never leave the chip: DOTA computes
            # them head by head, block by block), as in any deployed build.
            "compiler": {"fold_constants": True, "fuse": "flash"},
            "placement": {"inputs": "phu0", "params": "dram-port"},
            "models": {p["model"]: model(p), "weights-only": {"input": entry(form(), {})}}}


def model_coefficients(core, clock_ghz=CLOCK_GHZ):
    """The arithmetic model's energy coefficients that follow a core's fields (core_variant): laser power per
    compute cycle, energy per DAC and ADC conversion step and per optical MAC (what a fit to the module
    finds: configs/fitted/phu-roofline.json)."""
    return {"laser.laser_cycles": core["laser_power_w"] / (clock_ghz * 1e9),
            "dac.dac_conversion_steps": core["dac.fom_fj_per_step"] * 1e-15,
            "adc.adc_conversion_steps": core["adc.fom_fj_per_step"] * 1e-15,
            "optical_mac.optical_macs": core["mac_energy_pj"] * PJ}


if __name__ == "__main__":
    # The array sweeps' rows (scripts/sweeps/photonic_*.json) on photonic.json: cores of 6 to 48 nodes square,
    # 4 to 36 wavelengths, at 4, 8 and 12 bits, as one --set of comma-joined keys: the card's fields and, for
    # every GEMM entry (and piece) of its fitted models (on the SRAM and on the HBM), the energy coefficients
    # they set.
    import json
    import os
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "photonic.json")) as f:
        models = json.load(f)["models"]
    prefixes = []
    for name in ("phu-roofline", "phu-hbm-roofline"):  # the card's model behind PCIe and co-packaged
        for c in (c for c in GEMM if c in models[name]):
            pieces = models[name][c].get("pieces")
            prefixes += ([f"models.{name}.{c}.pieces.{i}.energy_j" for i in range(len(pieces))] if pieces
                         else [f"models.{name}.{c}.energy_j"])
    keys = ["phu0." + k for k in core_variant(CORE_H, WAVELENGTHS, 8)]
    keys += [f"{p}.{k}" for p in prefixes for k in model_coefficients(core_variant(CORE_H, WAVELENGTHS, 8))]
    rows = []
    for n in (6, 12, 24, 48):
        for w in (4, 12, 36):
            for b in (4, 8, 12):
                core = core_variant(n, w, b)
                coefficients = model_coefficients(core)
                row = list(core.values()) + [v for _ in prefixes for v in coefficients.values()]
                rows.append([float(f"{v:.7g}") if isinstance(v, float) else v for v in row])
    print(json.dumps(",".join(keys)) + ": [\n      " + ",\n      ".join(json.dumps(r) for r in rows) + "\n    ]")
