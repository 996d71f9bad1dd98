#!/usr/bin/python3
"""compare_mzi.py LIGHTSIM LIGHTSIM_GRAPH OUT.md [--check]: the MZI-mesh accelerator of Lightening-Transformer's
evaluation (Zhu et al., HPCA 2024) on DeiT-T / S / B and BERT-B, lightsim against the authors' figures: a third
published design, a coherent mesh holding static weights, held out (nothing in lightsim was fitted for it).

Runs `lightsim-graph` and `lightsim --simulate --objective time --json` on configs/published/mzi-{4,8}bit.json
(written by configs/generate.py from the published parameters only) and writes configs/measured/mzi-comparison.md
(atomically). With --check it writes nothing and exits 1 when OUT.md differs from what lightsim produces now, or
when a workload's arithmetic model misses its replay by more than 2% (the ctest Published.MziComparisonUpToDate).
Standard library only.

The reference figures are the artifact's own output: its code (hardware_simulator at commit 642cab0,
entry_energy_latency_workload.py with Bs_mzi_{4,8}bit.yaml) run here, unchanged, outside the project, the same
run reproducing all four DOTA-B / DOTA-L DeiT-T references of dota-b- and dota-l-comparison.md to every digit.
The artifact models the MZI's linear layers only (its readme: attention is not supported efficiently; its
simulator_attn.py has no MZI branch), and its `total` row adds the qkv projection a second time in place of the
skipped attention: the figures below are its per-op rows, each op once. None is a measurement of a chip.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_published as cp  # noqa: E402

LINEAR = ("embed", "qkv", "proj", "FFN1", "FFN2", "head")  # the ops the artifact models (cp.op_kind's names)
SHAPES = {"deit-t": (192, 3), "deit-s": (384, 6), "deit-b": (768, 12), "bert-base": (768, 12)}  # hidden, heads


def config(bits):
    return os.path.join(cp.ROOT, "configs", "published", f"mzi-{bits}bit.json")


# DeiT-T, 197 tokens, batch 1: the artifact's per-op rows summed, each op once, less its non-GEMM `others`
# (0.000530 mJ, reported in dota-b-comparison.md); mJ and ms. Latency is the same at both widths: mostly the
# meshes' programming rounds (2 us each, 840 of them) beside 0.198 ms of computing cycles.
REFERENCE = {
    4: {"energy_mj": 2.264740, "latency_ms": 9.9946064,
        "parts_mj": {"laser": 1.783560, "DAC_1": 0.002522, "DAC_2": 0.039987, "TX_1": 0.002542, "TX_2": 0.040307,
                     "ADC": 0.066282, "RX": 0.093154, "adder": 0.000816, "RF+NoC": 0.049896, "GLB1": 0.054102,
                     "GLB2": 0.043440, "DRAM": 0.088131}},
    8: {"energy_mj": 29.617557, "latency_ms": 9.9946064,
        "parts_mj": {"laser": 28.536962, "DAC_1": 0.020176, "DAC_2": 0.319897, "TX_1": 0.002542, "TX_2": 0.040307,
                     "ADC": 0.132565, "RX": 0.093154, "adder": 0.000816, "RF+NoC": 0.099791, "GLB1": 0.108204,
                     "GLB2": 0.086881, "DRAM": 0.176262}},
}

# Per op kind, all 12 layers summed (embed and head once), ms; the same at both widths.
PER_OP_MS = {"embed": 0.2610176, "qkv": 2.3493888, "proj": 0.7831296, "FFN1": 3.1325184, "FFN2": 3.1325184,
             "head": 0.3360336}

# (model, tokens, bits) -> energy mJ, latency ms: the artifact's ops once, its `others` included (0.53 uJ).
OTHER_MODELS = {
    ("deit-s", 0, 4): (8.927391, 38.7843233), ("deit-s", 0, 8): (116.846988, 38.7843233),
    ("deit-b", 0, 4): (35.442187, 152.7490881), ("deit-b", 0, 8): (464.137230, 152.7490881),
    ("bert-base", 128, 4): (23.390634, 149.3594385), ("bert-base", 128, 8): (300.596429, 149.3594385),
    ("bert-base", 384, 4): (67.146056, 153.1343123), ("bert-base", 384, 8): (898.163728, 153.1343123),
}

ROWS = [
    ("laser", ["laser"], ["laser"],
     "The same link budget (the input modulator and 25 MZI columns, split 12 ways) x 2^bits x 8 cores, on only "
     "while the meshes compute (`laser_gated`: off during the 2 us programming rounds), as the artifact charges "
     "it per computing core-cycle."),
    ("input DACs and modulators", ["DAC_2", "TX_2"], ["dac"],
     "Every input symbol through a DAC and the 0.45 pJ modulator, once per 12-row block of the weights; the "
     "modulator's energy rides on each DAC sample."),
    ("weight phases: DACs and phase writes", ["DAC_1", "TX_1"], ["weight_programming"],
     "A 12 x 12 block's 132 MZI phases and 12 diagonal values (its 144 cells) set once per GEMM through a DAC, "
     "each write 0.45 pJ (the phase shifter's, the diagonal modulator's): the DAC sample's figure."),
    ("ADCs, photodetectors, TIAs, adders", ["ADC", "RX", "adder"], ["adc"],
     "One ADC sample per output per 12-element block; the receiver's energy rides on each sample."),
    ("registers and partial-sum network", ["RF+NoC"], ["register_file", "partial_sum_network"],
     "Every DAC and ADC sample through a register, every ADC sample over the network; the artifact counts each "
     "phase through the registers and halves its output term for the 2 PEs of a tile."),
    ("local buffers", ["GLB1"], ["local_buffer"],
     "lightsim keeps a tile's outputs in its registers across the reduction where the array operand's k slices "
     "fit the 16 KiB (output-stationary); the artifact's weight-stationary mapping writes the partial sums of "
     "every 12-element block to the local buffer (as for the MRR bank: not modelled)."),
    ("global buffer, GEMMs", ["GLB2"], ["sram"],
     "The streamed operand sent once per 12-column block; the artifact also charges each phase's write into the "
     "buffer from DRAM, which lightsim charges to the bus alone (DRAM row)."),
]


def linear_part(result, model):
    """lightsim's linear layers (the ops the artifact models) from --json's costliest_ops: time (ms), energy (mJ)
    and energy by component (mJ), with the machine's DRAM and bus energy (the weights' loads) added as `dram`;
    and the rest (attention, non-GEMM ops) as (time ms, energy mJ)."""
    hidden, heads = SHAPES[model]
    time_ms = energy_mj = other_ms = other_mj = 0.0
    components = {}
    for op in result["costliest_ops"]:
        if cp.op_kind(op, hidden, heads) in LINEAR:
            time_ms += op["time_s"] * 1e3
            energy_mj += op["energy_j"] * 1e3
            for c, v in op["energy_by_component"].items():
                components[c] = components.get(c, 0.0) + v * 1e3
        else:
            other_ms += op["time_s"] * 1e3
            other_mj += op["energy_j"] * 1e3
    sim = result["simulation"]
    loads = sum(r["simulated_j"] for r in sim["energy_comparison"] if r["component"] in ("dram", "link")) * 1e3
    components["dram"] = loads
    return {"time_ms": time_ms, "energy_mj": energy_mj + loads, "components_mj": components,
            "other_ms": other_ms, "other_mj": other_mj}


def table(bits, ref, lin, ours):
    parts, err = ref["parts_mj"], cp.err
    assert abs(sum(parts.values()) - ref["energy_mj"]) < 1e-5, "reference parts do not sum to the total"
    lines = [f"### MZI mesh, {bits}-bit (configs/published/mzi-{bits}bit.json)", "",
             "| quantity | MZI (the artifact's output) | lightsim | error | cause |", "|---|---|---|---|---|",
             f"| linear layers' time, ms | {ref['latency_ms']:.7f} | {lin['time_ms']:.7f} | "
             f"{err(lin['time_ms'], ref['latency_ms'])} | both: per pass of 8 blocks a 2 us programming round, "
             "then the 197 tokens one per cycle (lightsim's arithmetic model; the replay agrees, last table) |",
             f"| linear layers' energy, mJ | {ref['energy_mj']:.6f} | {lin['energy_mj']:.6f} | "
             f"{err(lin['energy_mj'], ref['energy_mj'])} | the rows below (lightsim: the linear ops' energy and the "
             "weights' loads from DRAM) |"]
    lines += cp.component_rows(ROWS, parts, lin["components_mj"])
    lines += cp.component_rows([("DRAM (weights)", ["DRAM"], ["dram"],
                                 "Both read every weight from DRAM once per inference (lightsim's load stage, "
                                 "ahead of the op; the artifact reads the phases, as many).")],
                               parts, lin["components_mj"])
    lines += [f"| what lightsim adds: attention and the non-GEMM ops, ms / mJ | not modelled | {lin['other_ms']:.7f} / "
              f"{lin['other_mj']:.6f} | n/a | attention with K^T and V programmed into the meshes head by head "
              "(a programming round per pass), LayerNorm, softmax, GELU and adds on the periphery |",
              f"| the whole inference (SystemC replay), ms / mJ | n/a | {ours['latency_ms']:.7f} / "
              f"{ours['energy_mj']:.6f} | n/a | |"]
    return lines


def per_op_table(per_op):
    lines = ["## Per op (DeiT-T, all layers summed, both widths)", "",
             "| op | MZI ms | lightsim ms (arithmetic model) | error |", "|---|---|---|---|"]
    for kind, ref in PER_OP_MS.items():
        o = per_op.get(kind, 0.0)
        lines.append(f"| {kind} | {ref:.7f} | {o:.7f} | {cp.err(o, ref)} |")
    return lines


def other_models(lightsim, graphgen, tmp, agreement):
    lines = ["## DeiT-S, DeiT-B and BERT-B (linear layers; the artifact's ops once, its non-GEMM figure included)",
             "", "lightsim's bert-base also streams its embedding tables from DRAM (the artifact's BERT has no "
             "embedding ops): counted in its energy here; and it has BERT's pooler (768 -> 768 on one token) where "
             "the artifact's head is 768 -> 2: 504 more programming rounds, +1.0 ms.", "",
             "| model | tokens | bits | MZI energy mJ | lightsim mJ | error | MZI latency ms | lightsim ms | error "
             "| lightsim whole inference ms |", "|---|---|---|---|---|---|---|---|---|---|"]
    for (model, seq, bits), (e, t) in OTHER_MODELS.items():
        graph = os.path.join(tmp, f"{model}-{seq}-{cp.graph_dtype(bits)}.json")
        if not os.path.exists(graph):
            cp.run([graphgen, "--model", model, "--dtype", cp.graph_dtype(bits), "-o", graph]
                   + (["--seq", str(seq)] if seq else []))
        result = cp.simulate(lightsim, graph, bits, hw=config(bits))
        o, lin = cp.summarise(result), linear_part(result, model)
        agreement.append(cp.agreement_row(model, seq or 197, bits, o))
        lines.append(f"| {model} | {seq or 197} | {bits} | {e:.6f} | {lin['energy_mj']:.6f} | "
                     f"{cp.err(lin['energy_mj'], e)} | {t:.7f} | {lin['time_ms']:.7f} | {cp.err(lin['time_ms'], t)} | "
                     f"{o['latency_ms']:.7f} |")
    return lines


HEADER = """# The MZI mesh (Lightening-Transformer's coherent baseline) on DeiT and BERT: lightsim against the design, held out

Written by `scripts/compare_mzi.py` (do not edit by hand; ctest `Published.MziComparisonUpToDate` fails when
lightsim's figures move). Design: the MZI-mesh accelerator that H. Zhu et al., "Lightening-Transformer: A
Dynamically-operated Optically-interconnected Photonic Transformer Accelerator", HPCA 2024, arXiv:2305.19533,
evaluate as the coherent photonic baseline: 4 tiles x 2 PEs = 8 cores, each a 12 x 12 Clements mesh of
Mach-Zehnder interferometers holding a weight block as phases (written through DACs, settling in 2 us), one
12-element input vector per core per cycle at 5 GHz. Artifact github.com/zhuhanqing/Lightening-Transformer
(hardware_simulator, commit 642cab0, `Bs_mzi_{4,8}bit.yaml`, `hardware/photonic_MZI.py`). The lightsim configs are
written by `configs/generate.py` (`configs/published_mzi.py`) from the artifact's device and architecture
parameters only; configs/published/README.md gives each figure's source. **Held out**: added after the DOTA and
MRR-bank comparisons; the one mechanism it needed, lasers gated off while the meshes are programmed
(`laser_gated`), is a PHU field, nothing fitted. Workloads and compilation as for DOTA-B
(configs/measured/dota-b-comparison.md). Error = (lightsim - MZI) / MZI.

Source of the MZI column: the artifact's own output, its code run here unchanged (outside the project; the same
run reproduces the four DOTA-B / DOTA-L DeiT-T references to every digit). The artifact models the MZI's linear
layers only and its `total` row counts the qkv projection twice (in place of the skipped attention, ~20% of it):
the figures here are its per-op rows, each op once, and lightsim's figures the same ops' (its attention and
non-GEMM ops reported beside them).
"""

FOOTER = """
## The design's mechanisms in lightsim's config

Expressed (configs/published_mzi.py): weights held in the meshes as phases (`operand_encoding` static; a
12 x 12 block's 132 + 12 phases are its 144 cells, each through a DAC and a 0.45 pJ write), programmed in 2 us
rounds, one per pass of 8 blocks and not overlapped with computing (`weight_reload_ns` 2000, `weight_buffers` 1);
the lasers off while programming (`laser_gated`); 8 independent cores (`tiles` 8, `tile_operand` independent,
12 DACs and 12 ADCs each); one input vector per cycle (`wdm_channels` 1); signed values in one pass (a coherent
mesh carries the sign); the modulator's energy on each DAC sample and the receiver's on each ADC sample; the
artifact's memories. Not yet: the weight-stationary partial sums written to the local buffer (the GLB1 row).

Regenerate: `python3 scripts/compare_mzi.py build/sim/lightsim build/sim/lightsim-graph
configs/measured/mzi-comparison.md`.
"""


def render(lightsim, graphgen):
    with tempfile.TemporaryDirectory() as tmp:
        body, agreement, per_op = [], [], {}
        for bits in (4, 8):
            graph = os.path.join(tmp, f"deit-t-0-{cp.graph_dtype(bits)}.json")
            cp.run([graphgen, "--model", "deit-t", "--dtype", cp.graph_dtype(bits), "-o", graph])
            result = cp.simulate(lightsim, graph, bits, hw=config(bits))
            per_op = cp.per_op_ms(result)
            ours = cp.summarise(result)
            agreement.append(cp.agreement_row("deit-t", 197, bits, ours))
            body += table(bits, REFERENCE[bits], linear_part(result, "deit-t"), ours) + [""]
        body += per_op_table(per_op) + [""]
        body += other_models(lightsim, graphgen, tmp, agreement) + [""]
        body += cp.agreement_table(agreement) + [""]
    return HEADER + "\n" + "\n".join(body) + FOOTER, agreement


if __name__ == "__main__":
    sys.exit(cp.main(__doc__, render, "compare_mzi.py"))
