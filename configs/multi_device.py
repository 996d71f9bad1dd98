"""Machines of several devices (configs/README.md, "Several devices"). GPUs: a single-GPU config's host and
GPU, the GPU repeated with its own HBM, every GPU on its own PCIe link to the host and all of them on one
NVSwitch (an `nvlink` link with one endpoint per GPU, each GPU's port its NVLinks' rate); the `collectives`
section is the communication library (NCCL) on it. Photonic cards: photonic.json's card repeated behind one
PCIe switch, optionally with an optical ring between the cards. Imported by configs/generate.py, which writes
the files; it imports nothing from it.
"""
import copy

# NCCL's tuning model (src/graph/tuning.cc, NVIDIA/nccl): a ring collective costs baseLat + steps x hwLat
# + bytes / bandwidth, with baseLat (Simple 8.4 us, LL128 14.0 us: the values of NCCL 2.18 to 2.26, the
# versions the measurements in configs/measured/nccl-comparison.md ran; NCCL 2.8 had 10.0 for LL128) and, on
# NVLink, hwLat per step (Simple 3.4 us, LL128 1.9 us). The link's own latency is part of hwLat here, so
# step_ns is hwLat minus it.
NVLINK_LATENCY_NS = 500.0  # assumption: one GPU-to-GPU hop through NVSwitch, not measured
NCCL_SIMPLE = {"launch_ns": 8400.0, "step_ns": 3400.0 - NVLINK_LATENCY_NS}
NCCL_LL128 = {"launch_ns": 14000.0, "step_ns": 1900.0 - NVLINK_LATENCY_NS, "payload_fraction": 120.0 / 128.0}
# The one fitted figure: the share of an NVLink port's rate NCCL's copies reach, fitted by
# scripts/compare_nccl.py --fit on the 8 x H100 ring all-reduce at 1 GiB (every other row held out). NCCL's
# maintainer quotes ~370 of 450 GB/s (0.82) for NVLink 4 (NVIDIA/nccl-tests#212).
NCCL_NVLINK_EFFICIENCY = 0.8088
# Energy per byte on NVLink: assumption, NVIDIA's 1.3 pJ/bit for NVLink-C2C (Grace Hopper whitepaper), the
# lowest figure NVIDIA gives for an NVLink; a board-to-switch SerDes hop costs more.
NVLINK_PJ_PER_BYTE = 1.3 * 8


def _replicate(box, unit_name, memory_name, link_name, n):
    """Replaces unit `unit_name` (its name ending in 0) and its memory `memory_name` with n copies (names
    ending in 0 .. n-1, each copy of the unit on its own copy of the memory) and removes link `link_name`,
    which it returns as a template."""
    unit = next(u for u in box["units"] if u["name"] == unit_name)
    memory = next(m for m in box["memories"] if m["name"] == memory_name)
    link = next(l for l in box["links"] if l["name"] == link_name)
    box["units"] = [u for u in box["units"] if u is not unit]
    box["memories"] = [m for m in box["memories"] if m is not memory]
    box["links"] = [l for l in box["links"] if l is not link]
    for i in range(n):
        box["units"].append(dict(unit, name=f"{unit_name[:-1]}{i}", memory=f"{memory_name[:-1]}{i}"))
        box["memories"].append(dict(memory, name=f"{memory_name[:-1]}{i}"))
    return link


def gpu_box(single, name, description, n, nvlinks_per_gpu):
    """`single` (a realistic() config with cpu0, dram0, gpu0, hbm0, pcie-gpu) with gpu0 repeated n times."""
    box = copy.deepcopy(single)
    pcie = _replicate(box, "gpu0", "hbm0", "pcie-gpu", n)
    for i in range(n):
        box["links"].append(dict(pcie, name=f"pcie-gpu{i}", endpoints=["cpu0", f"gpu{i}"]))
    box["links"].append({"name": "nvswitch", "kind": "nvlink", "endpoints": [f"gpu{i}" for i in range(n)],
                         "latency_ns": NVLINK_LATENCY_NS, "energy_pj_per_byte": NVLINK_PJ_PER_BYTE,
                         "links": nvlinks_per_gpu, "GBps_per_link": 25.0})
    box["collectives"] = {"bandwidth_efficiency": NCCL_NVLINK_EFFICIENCY, "simple": NCCL_SIMPLE,
                          "ll128": NCCL_LL128}
    box["name"], box["description"] = name, description
    return box


# An optical chip-to-chip link between neighbouring photonic cards (photonic-x4-ring.json): assumption from
# Ayar Labs' published TeraPHY optical I/O chiplet figures (2 Tb/s, under 5 pJ/bit, ~10 ns): 128 GB/s per
# direction, 5 pJ/bit = 40 pJ/B, 10 ns.
OPTICAL_RING = {"kind": "bus", "bandwidth_GBps": 128.0, "latency_ns": 10.0, "energy_pj_per_byte": 40.0}


def photonic_box(single, name, description, n, ring, card_model):
    """`single` (photonic.json's config: cpu0, gpu0, phu0 with sram0 on pcie-phu) with phu0 repeated n times,
    every card and the host on one PCIe switch (each a gen4 x16 port), and with `ring` an optical link
    between card i and card i + 1 (mod n). The cards use `card_model` (arithmetic model entries), named
    phu-vector-roofline."""
    box = copy.deepcopy(single)
    for single_card_model in ("phu-roofline", "phu-hbm-roofline"):  # photonic.json's card's; no unit here uses them
        box["models"].pop(single_card_model, None)
    box["models"]["phu-vector-roofline"] = card_model
    for unit in box["units"]:
        if unit["name"] == "phu0":
            unit["model"] = "phu-vector-roofline"
    pcie = _replicate(box, "phu0", "sram0", "pcie-phu", n)
    box["links"].append(dict(pcie, name="pcie-switch", endpoints=["cpu0"] + [f"phu{i}" for i in range(n)]))
    if ring:
        for i in range(n):
            box["links"].append(dict(OPTICAL_RING, name=f"optical{i}", endpoints=[f"phu{i}", f"phu{(i + 1) % n}"]))
    box["name"], box["description"] = name, description
    return box
