"""The LightCode prototype's machines (../shared/reference/lightcode.md): its formulas, encoded exactly, as
configs/lightcode.json and lightcode-cpu.json, for comparison with its published figures. Imported by
configs/generate.py, which writes the files.
"""
from generate import GEMM, PJ, form, entry, components, converter


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
                     components(compute=form(elements_out=per_elem_out * LC_CYCLE_PJ * PJ,
                                             elements_in=per_elem_in * LC_CYCLE_PJ * PJ,
                                             fused_ops=LC_CYCLE_PJ * PJ, intercept=fixed * LC_CYCLE_PJ * PJ)))

    # Tensors resident in DRAM: no time, 160 pJ per 4-byte number = 40 pJ per byte read.
    m["input"] = entry(form(), components(dram=form(bytes_out=LC_DRAM_PJ_PER_NUMBER / 4 * PJ)))
    m["add"] = entry(form(elements_out=5.728114536194012e-11, fused_ops=cyc, intercept=2.018610633633051e-07),
                     components(compute=form(elements_out=LC_CYCLE_PJ * PJ,  # 1 cycle per element (assumption)
                                             fused_ops=LC_CYCLE_PJ * PJ)))
    gemm_energy = components(compute=form(macs=LC_CPU_MAC_PJ * PJ, fused_ops=LC_CYCLE_PJ * PJ))
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
    # CNN and encoder classes (issue 15), each as the prototype's closest class: lightsim's analogues.
    m["conv2d_transpose"] = m["conv2d"]
    for c in ["max", "variance", "cumsum"]:
        m[c] = cycles(per_elem_in=1, per_elem_out=1)  # reductions and scans like mean
    m["log_softmax"] = cycles(per_elem_out=6)  # like softmax
    m["layer_norm"] = cycles(per_elem_in=2, per_elem_out=4)  # two mean-like passes, then normalise
    m["batch_norm"] = cycles(per_elem_out=2)  # a multiply and an add per element, like relu
    m["lrn"] = cycles(per_elem_out=6)  # like softmax
    m["resize"] = cycles(per_elem_out=4)  # an interpolation, like tanh
    m["transcendental"] = cycles(per_elem_out=4)  # like tanh
    m["clip"] = cycles(per_elem_out=2)  # like relu
    for c in ["maximum", "elementwise", "pad", "copy", "fill"]:
        m[c] = cycles(per_elem_out=1)  # like subtract / transpose: one cycle per element
    return m


LC_PHU_CLOCK_GHZ = 9.7
LC_PHU_WDM = 20
LC_PHU_MAC_PJ = 0.04
LC_DAC_PJ = 3.18
LC_ADC_PJ = 1.6
LC_BITS = 8
# The prototype's converters: 9.7 GS/s and 3.18 / 1.6 pJ per conversion at its 8 bits, as a bit clock (8 + 1
# cycles per conversion) and Walden figures of merit (energy / 2^8), so that other bits scale from them.
LC_BIT_CLOCK_GHZ = LC_PHU_CLOCK_GHZ * (8 + 1)
LC_DAC_FOM_FJ = LC_DAC_PJ * 1e3 / 2 ** 8
LC_ADC_FOM_FJ = LC_ADC_PJ * 1e3 / 2 ** 8


def lightcode_phu_model():
    gemm = entry(form(macs=1.0 / (LC_PHU_WDM * LC_PHU_CLOCK_GHZ * 1e9)),
                 components(optical_mac=form(macs=LC_PHU_MAC_PJ * PJ), dac=form(elements_in=LC_DAC_PJ * PJ),
                            adc=form(elements_out=LC_ADC_PJ * PJ)))
    return {"dense": gemm, "batch_matmul": gemm,
            # weights may be resident in the PHU's SRAM (params "any"): 12 pJ per 4-byte number
            "input": entry(form(), components(sram=form(bytes_out=LC_SRAM_PJ_PER_NUMBER / 4 * PJ)))}


LC_CPU = {"name": "cpu0", "kind": "cpu", "cores": 1, "clock_ghz": LC_CLOCK_HZ / 1e9, "static_power_w": 0.0,
          "dynamic_power_w": LC_CYCLE_PJ * PJ * LC_CLOCK_HZ,  # the prototype's 1 pJ per CPU cycle
          "memory": "dram0", "model": "lightcode-cpu", "vector_width": 4, "fma": True, "dispatch_ns": 0.0,
          "memory_port_GBps": 25.6}
LC_DRAM = {"name": "dram0", "kind": "dram", "capacity_MiB": 65536, "bandwidth_GBps": 25.6, "latency_ns": 0.0,
           "banks": 16, "energy_pj_per_byte": LC_DRAM_PJ_PER_NUMBER / 4, "static_power_w": 0.0}


def lightcode_cpu():
    return {"name": "lightcode-cpu",
            "description": "The LightCode prototype's CPU alone: 1 core at 3.208 GHz with its measured linear "
                           "fits and cycle counts, encoded exactly (configs/README.md, 'lightcode').",
            "units": [LC_CPU], "memories": [LC_DRAM], "links": [],
            "placement": {"inputs": "cpu0", "params": "any"}, "latency_hiding": False,
            "models": {"lightcode-cpu": lightcode_cpu_model()}}


def lightcode():
    phu = {"name": "phu0", "kind": "phu", "cores": 1, "clock_ghz": LC_PHU_CLOCK_GHZ, "static_power_w": 0.0,
           "memory": "sram0", "model": "lightcode-phu", "rows": 1, "cols": 1, "wdm_channels": LC_PHU_WDM,
           "weight_reload_ns": 0.0,
           "dac": converter(LC_PHU_WDM, LC_BIT_CLOCK_GHZ, LC_DAC_FOM_FJ),
           "adc": converter(LC_PHU_WDM, LC_BIT_CLOCK_GHZ, LC_ADC_FOM_FJ),
           "bits": LC_BITS, "laser_power_w": 0.0, "mac_energy_pj": LC_PHU_MAC_PJ}
    # The prototype's SRAM has no capacity: as large as the DRAM (whatever the machine holds fits it), so that
    # capacity never binds (1024 MiB did for Llama-2-7B's 24.7 GB of fp32 weights: 24 GB streamed over the bus).
    sram = {"name": "sram0", "kind": "sram", "capacity_MiB": LC_DRAM["capacity_MiB"], "bandwidth_GBps": 384.0,
            "latency_ns": 1 / 6.0, "banks": 1, "energy_pj_per_byte": LC_SRAM_PJ_PER_NUMBER / 4,
            "static_power_w": 0.0, "spill_to": "dram0"}
    bus = {"name": "sram-bus", "kind": "bus", "endpoints": ["cpu0", "phu0"],
           "latency_ns": 10.0 + 1e9 / 6e9,  # 10 ns DAC/ADC delay + one 1/6e9 s SRAM hop
           "energy_pj_per_byte": LC_SRAM_PJ_PER_NUMBER / 4, "bandwidth_GBps": 384.0}  # 64 B/cycle at 6 GHz
    return {"name": "lightcode",
            "description": "The LightCode prototype's CPU + photonic unit (PHU: 20 WDM channels at 9.7 GHz, 1 core) "
                           "with its constants; the PHU runs dense and batch_matmul only.",
            "units": [LC_CPU, phu], "memories": [LC_DRAM, sram], "links": [bus],
            "placement": {"inputs": "cpu0", "params": "any"}, "latency_hiding": False,
            "models": {"lightcode-cpu": lightcode_cpu_model(), "lightcode-phu": lightcode_phu_model()}}
