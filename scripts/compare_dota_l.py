#!/usr/bin/python3
"""compare_dota_l.py LIGHTSIM LIGHTSIM_GRAPH OUT.md [--check]: DOTA-L (Lightening-Transformer's larger
variant: DOTA-B's cores in 8 tiles) on DeiT-T / S / B and BERT-B, lightsim against the authors' figures.

A held-out check of the photonic model: nothing in lightsim was fitted or adjusted for it. Its config,
configs/published/dota-l-{4,8}bit.json, is written by configs/generate.py (configs/published_dota.py) from the
artifact's Dota_L_{4,8}bit.yaml, which differs from DOTA-B's in num_tiles alone; the reference figures
(scripts/dota_reference.py) are the artifact's formulas transcribed and evaluated (C), the transcription
that reproduces DOTA-B's published output. The table is compare_published.py's, for this design. With --check
it writes nothing and exits 1 when OUT.md differs from what lightsim produces now, or when a workload's
arithmetic model misses its replay by more than 2% (the ctest Published.DotaLComparisonUpToDate). Standard
library only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_published as cp  # noqa: E402
from dota_reference import DOTA_L  # noqa: E402

HEADER = """# DOTA-L (Lightening-Transformer) on DeiT and BERT: lightsim against the published design, held out

Written by `scripts/compare_dota_l.py` (do not edit by hand; ctest `Published.DotaLComparisonUpToDate` fails
when lightsim's figures move). Design: DOTA-L of H. Zhu et al., "Lightening-Transformer: A
Dynamically-operated Optically-interconnected Photonic Transformer Accelerator", HPCA 2024, arXiv:2305.19533:
DOTA-B's cores, devices and memories in 8 tiles instead of 4 (artifact github.com/zhuhanqing/
Lightening-Transformer, hardware_simulator, commit 642cab0, `Dota_L_{4,8}bit.yaml`: num_tiles 8, every other
field DOTA-B's). The lightsim configs are written by `configs/generate.py` (`configs/published_dota.py`, the
generator of the DOTA-B configs with the tile count as its one argument). **Held out**: lightsim has no
fitted factor for either design, and nothing was changed for this one; it was added after DOTA-B's
comparison, as a check of the mechanisms on a published design they were not built against.

Workloads, compilation and the meaning of every row as in configs/measured/dota-b-comparison.md. Source of
the DOTA-L column: **C**, the artifact's formulas transcribed and evaluated (the transcription reproduces
every DOTA-B figure, its third-party published output included, to all printed digits; the artifact's code
itself, run here unchanged on 2026-11-28, prints every DOTA-L total below); **C***, its
non-GEMM formula over all 12 layers at the variant's width (computed here, not a figure it prints). With 8
tiles in lock-step on one broadcast operand, attention's 197-token blocks round up to 3 x 96 rows where
DOTA's count divides 17 blocks of 12 freely over 16 cores: the GEMM-time rows below carry that (+41% on
attention, where DOTA-B's 4 tiles lose 18%). Error = (lightsim - DOTA-L) / DOTA-L.
"""

FOOTER = """
The mechanisms and what lightsim cannot express yet: configs/measured/dota-b-comparison.md.

Regenerate: `python3 scripts/compare_dota_l.py build/sim/lightsim build/sim/lightsim-graph
configs/measured/dota-l-comparison.md`.
"""


def render(lightsim, graphgen):
    return cp.render(lightsim, graphgen, DOTA_L, HEADER, FOOTER)


if __name__ == "__main__":
    sys.exit(cp.main(__doc__, render, "compare_dota_l.py"))
