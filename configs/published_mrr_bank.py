"""The microring (MRR) weight-bank accelerator of Lightening-Transformer's evaluation (Zhu et al., HPCA 2024,
arXiv:2305.19533: the incoherent photonic baseline the paper compares DOTA with, built under the same area
budget), as a lightsim config written from its published parameters only: configs/published/
mrr-bank-{4,8}bit.json.

Every figure is the authors' (their artifact, github.com/zhuhanqing/Lightening-Transformer, hardware_simulator/
params/device_params/{default,Bs_mrr_bank_4bit,Bs_mrr_bank_8bit}.yaml and hardware/{photonic_mrr_bank,ADC,
DAC}.py, commit 642cab0) or derived from theirs by the arithmetic written out here; configs/published/README.md
gives the source of each and how the design maps onto lightsim's PHU. No code of the artifact is used.
Imported by configs/generate.py, which writes the files.
"""
import math

import published_dota
from published_dota import CLOCK_GHZ

# --- Architecture (Bs_mrr_bank_*.yaml): 7 tiles x 2 PEs = 14 cores, each a bank of 12 x 12 add-drop rings:
# 12 wavelengths carry one input vector of 12 reduction elements, split to 12 banks (the outputs), each bank
# 12 weight rings and a balanced photodetector pair. One input vector per core per cycle, 5 GHz.
CORE_ROWS = 12          # reduction elements per core (rings per bank, one per wavelength)
CORE_COLS = 12          # outputs per core (banks)
TILES, PES_PER_TILE = 7, 2
CORES = TILES * PES_PER_TILE
SIGN_PASSES = 2         # full_range_support_factor: inputs are intensities, so signed ones take two passes

# --- Devices (default.yaml, photonic_mrr_bank.py).
MRR_MODULATOR_FJ_PER_BIT = 42.0  # input ring modulator, dynamic part, one symbol per cycle
MRR_STATIC_MW = 1.2              # a ring's static (thermal tuning) power, input modulators and weight rings alike
MRR_WRITE_MW = 0.21              # a weight ring's write (cal_comp_energy's dynamic part)
IL_DB = {"mrr_coupled": 0.95, "mrr_uncoupled": 0.1, "y_branch": 0.1}
PD_MW, PDS_PER_BANK = 1.1, 2     # balanced photodetection (signed weights)
TIA_MW = 3.0                     # one per ADC
ADDER_MW = 0.2 / 4.39            # ISAAC's adder scaled to 14 nm, as for DOTA
PD_SENSITIVITY_DBM = -25.0
LASER_WALL_PLUG = 0.2
LOCAL_BUFFER_KIB = TILES * 4096 / 1024  # M2_buffer_size: 4096 B per tile


def laser_power_w(bits):
    """Electrical laser power of the 14 cores: the artifact's link budget (cal_insertion_loss, cal_laser_power:
    a wavelength through the 11 uncoupled and the 1 coupled ring of the input bank and the 1:12 y-branch tree,
    then through a weight bank, split 12 ways) at the detector's sensitivity, x 2^bits, / wall-plug
    efficiency. As the artifact counts it, one wavelength's power per core."""
    il_modulation = IL_DB["mrr_uncoupled"] * (CORE_ROWS - 1) + IL_DB["mrr_coupled"] + \
        IL_DB["y_branch"] * math.ceil(math.log2(CORE_COLS))
    il_computation = IL_DB["mrr_uncoupled"] * (CORE_ROWS - 1) + IL_DB["mrr_coupled"]
    optical_dbm = PD_SENSITIVITY_DBM + il_modulation + il_computation + 10 * math.log10(CORE_COLS)
    return 10 ** (optical_dbm / 10) * 1e-3 / LASER_WALL_PLUG * 2 ** bits * CORES


def modulator_pj():
    """An input symbol's ring modulator: its static power over a cycle plus its drive (cal_TX_energy): one
    symbol per cycle whatever the bits."""
    return (MRR_STATIC_MW + MRR_MODULATOR_FJ_PER_BIT * 1e-3 * CLOCK_GHZ) / CLOCK_GHZ


def receiver_pj():
    """An ADC sample's balanced photodetectors, TIA and digital adder over one cycle (cal_RX_energy,
    simulator_FFN.py's adder)."""
    return (PDS_PER_BANK * PD_MW + TIA_MW + ADDER_MW) / CLOCK_GHZ


def phu(bits):
    """The 14 cores as independent tiles of a 12 x 168 array (`tiles` 14, `tile_operand` independent: each core
    takes any 12 x 12 block of a GEMM, its own 12 DACs and 12 ADCs), one input vector per core per cycle
    (`wdm_channels` 1: the 12 wavelengths are the vector's elements), weights held in the rings (`operand_encoding`
    static, no programming time charged: `weight_reload_ns` 0), signed inputs in two passes
    (`input_sign_passes` 2), no analog accumulation. The input modulator's energy rides on each DAC sample and
    the receiver's on each ADC sample (their figures of merit at each width); the rings' thermal hold on each
    optical MAC (`mac_energy_pj`, the artifact's static ring power per MAC per cycle)."""
    return published_dota.independent_cores_phu(
        "mrr-bank", CORE_ROWS, CORE_COLS, CORES, bits, modulator_pj(), receiver_pj(), laser_power_w(bits),
        MRR_STATIC_MW / CLOCK_GHZ, LOCAL_BUFFER_KIB, input_sign_passes=SIGN_PASSES)


def mrr_bank(bits):
    return published_dota.machine(
        f"mrr-bank-{bits}bit",
        f"The microring weight-bank accelerator of Lightening-Transformer's evaluation (Zhu et al., HPCA 2024) at "
        f"{bits} bits from its published parameters: 14 cores of 12x12 rings, 12 wavelengths, 5 GHz, weights held "
        "in the rings, signed inputs in two passes; 14 independent tiles of a 12x168 array "
        "(configs/published/README.md).", phu(bits))
