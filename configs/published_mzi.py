"""The MZI-mesh accelerator of Lightening-Transformer's evaluation (Zhu et al., HPCA 2024, arXiv:2305.19533: the
coherent photonic baseline the paper compares DOTA with, Clements-style meshes of Mach-Zehnder interferometers
holding the weights), as a lightsim config written from its published parameters only: configs/published/
mzi-{4,8}bit.json.

Every figure is the authors' (their artifact, github.com/zhuhanqing/Lightening-Transformer, hardware_simulator/
params/device_params/{default,Bs_mzi_4bit,Bs_mzi_8bit}.yaml and hardware/{photonic_MZI,ADC,DAC}.py, commit
642cab0) or derived from theirs by the arithmetic written out here; configs/published/README.md gives the source
of each and how the design maps onto lightsim's PHU. No code of the artifact is used. Imported by
configs/generate.py, which writes the files.
"""
import math

import published_dota
from published_dota import CLOCK_GHZ

# --- Architecture (Bs_mzi_*.yaml): 4 tiles x 2 PEs = 8 cores, each a 12 x 12 MZI mesh (U Sigma V, Clements
# layout) holding a 12 x 12 weight block: one input vector of 12 elements in, 12 outputs out per cycle, 5 GHz.
CORE = 12               # core width (inputs: the reduction) = core height (outputs)
TILES, PES_PER_TILE = 4, 2
CORES = TILES * PES_PER_TILE
MZIS = CORE * (CORE - 1)  # the two unitary meshes, n (n - 1) / 2 MZIs each (photonic_MZI.py num_mzis)
SIGMA = CORE              # the diagonal's attenuators (mzi_sigma_dim)
RESPONSE_NS = 2000.0      # an MZI's phase settling (thermal), mzi.response_time 2 us: one programming round

# --- Devices (Bs_mzi_*.yaml, default.yaml, photonic_MZI.py).
MZI_WRITE_PJ = 0.45           # an MZI phase write: 450 fJ/bit x 5 GHz over a 5 GHz cycle (static power 0)
MZM_SYMBOL_PJ = 0.45          # the input modulator per symbol, whatever the bits: the same 450 fJ/bit drive
IL_DB = {"mzm": 1.2, "mzi": 0.99}
PD_MW, PDS_PER_OUTPUT = 1.1, 2   # balanced photodetection
TIA_MW = 3.0
ADDER_MW = 0.2 / 4.39            # ISAAC's adder scaled to 14 nm, as for DOTA
PD_SENSITIVITY_DBM = -25.0
LASER_WALL_PLUG = 0.2
LOCAL_BUFFER_KIB = TILES * 4096 / 1024  # M2_buffer_size: 4096 B per tile


def laser_power_w(bits):
    """Electrical laser power of the 8 cores: the artifact's link budget (cal_insertion_loss, cal_laser_power:
    the input modulator, then through a Clements mesh of 12 + 12 + 1 MZI columns, split over the 12 inputs) at
    the detector's sensitivity, x 2^bits, / wall-plug efficiency."""
    il_db = IL_DB["mzm"] + IL_DB["mzi"] * (2 * CORE + 1)
    optical_dbm = PD_SENSITIVITY_DBM + il_db + 10 * math.log10(CORE)
    return 10 ** (optical_dbm / 10) * 1e-3 / LASER_WALL_PLUG * 2 ** bits * CORES


def sample_write_pj():
    """What rides on each DAC sample: an input symbol's modulator (cal_TX_energy) or a programmed value's write
    (an MZI phase, cal_comp_energy's dynamic part, or the diagonal's modulator), equal in the artifact, so one
    figure serves both the inputs and the weight programming."""
    assert MZI_WRITE_PJ == MZM_SYMBOL_PJ
    return MZM_SYMBOL_PJ


def receiver_pj():
    """An ADC sample's balanced photodetectors, TIA and digital adder over one cycle (cal_RX_energy,
    simulator_FFN.py's adder)."""
    return (PDS_PER_OUTPUT * PD_MW + TIA_MW + ADDER_MW) / CLOCK_GHZ


def phu(bits):
    """The 8 cores as independent tiles of a 12 x 96 array (`tiles` 8, `tile_operand` independent: each core
    holds any 12 x 12 block of a GEMM, its own 12 DACs and 12 ADCs), one input vector per core per cycle
    (`wdm_channels` 1), weights held in the meshes (`operand_encoding` static): a block's 132 + 12 = 144 phases
    (= its 144 cells) written through the DACs once per GEMM, in a programming round of 2 us
    (`weight_reload_ns`) per pass of 8 blocks, not overlapped (`weight_buffers` 1), with the lasers off
    meanwhile (`laser_gated`: the artifact charges laser energy per computing cycle). A coherent mesh carries
    the sign (`input_sign_passes` 1); no analog accumulation. Every DAC sample (an input symbol or a phase)
    carries the 0.45 pJ of its modulator or phase write, every ADC sample its receiver; nothing is charged per
    optical MAC (the meshes hold their phases at no static power)."""
    return published_dota.independent_cores_phu(
        "mzi", CORE, CORE, CORES, bits, sample_write_pj(), receiver_pj(), laser_power_w(bits), 0.0,
        LOCAL_BUFFER_KIB, weight_reload_ns=RESPONSE_NS, laser_gated=True)


def mzi(bits):
    return published_dota.machine(
        f"mzi-{bits}bit",
        f"The MZI-mesh accelerator of Lightening-Transformer's evaluation (Zhu et al., HPCA 2024) at {bits} bits "
        "from its published parameters: 8 cores of 12x12 Clements meshes, 5 GHz, weights programmed as phases "
        "(2 us a round), lasers gated while programming; 8 independent tiles of a 12x96 array "
        "(configs/published/README.md).", phu(bits))
