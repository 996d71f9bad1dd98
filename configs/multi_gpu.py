"""Machines of several GPUs (configs/README.md, "Several GPUs"): a single-GPU config's host and GPU, the GPU
repeated with its own HBM, every GPU on its own PCIe link to the host and all of them on one NVSwitch (an
`nvlink` link with one endpoint per GPU, each GPU's port its NVLinks' rate). The `collectives` section is the
communication library (NCCL) on it. Imported by configs/generate.py, which writes the files; it imports
nothing from it.
"""
import copy

# NCCL's tuning model (src/graph/tuning.cc, NVIDIA/nccl): a ring collective costs baseLat + steps x hwLat
# + bytes / bandwidth, with baseLat (Simple 8.4 us, LL128 10.0 us) and, on NVLink, hwLat per step (Simple
# 3.4 us, LL128 1.9 us). The link's own latency is part of hwLat here, so step_ns is hwLat minus it.
NVLINK_LATENCY_NS = 500.0  # assumption: one GPU-to-GPU hop through NVSwitch, not measured
NCCL_SIMPLE = {"launch_ns": 8400.0, "step_ns": 3400.0 - NVLINK_LATENCY_NS}
NCCL_LL128 = {"launch_ns": 10000.0, "step_ns": 1900.0 - NVLINK_LATENCY_NS, "payload_fraction": 120.0 / 128.0}
# The one fitted figure: the share of an NVLink port's rate NCCL's copies reach, fitted by
# scripts/compare_nccl.py --fit on the 8 x H100 ring all-reduce at 1 GiB (every other row held out). NCCL's
# maintainer quotes ~370 of 450 GB/s (0.82) for NVLink 4 (NVIDIA/nccl-tests#212).
NCCL_NVLINK_EFFICIENCY = 0.8088
# Energy per byte on NVLink: assumption, NVIDIA's 1.3 pJ/bit for NVLink-C2C (Grace Hopper whitepaper), the
# lowest figure NVIDIA gives for an NVLink; a board-to-switch SerDes hop costs more.
NVLINK_PJ_PER_BYTE = 1.3 * 8


def gpu_box(single, name, description, n, nvlinks_per_gpu):
    """`single` (a realistic() config with cpu0, dram0, gpu0, hbm0, pcie-gpu) with gpu0 repeated n times."""
    box = copy.deepcopy(single)
    gpu = next(u for u in box["units"] if u["name"] == "gpu0")
    hbm = next(m for m in box["memories"] if m["name"] == "hbm0")
    pcie = next(l for l in box["links"] if l["name"] == "pcie-gpu")
    box["units"] = [u for u in box["units"] if u is not gpu]
    box["memories"] = [m for m in box["memories"] if m is not hbm]
    box["links"] = [l for l in box["links"] if l is not pcie]
    for i in range(n):
        box["units"].append(dict(gpu, name=f"gpu{i}", memory=f"hbm{i}"))
        box["memories"].append(dict(hbm, name=f"hbm{i}"))
        box["links"].append(dict(pcie, name=f"pcie-gpu{i}", endpoints=["cpu0", f"gpu{i}"]))
    box["links"].append({"name": "nvswitch", "kind": "nvlink", "endpoints": [f"gpu{i}" for i in range(n)],
                         "latency_ns": NVLINK_LATENCY_NS, "energy_pj_per_byte": NVLINK_PJ_PER_BYTE,
                         "links": nvlinks_per_gpu, "GBps_per_link": 25.0})
    box["collectives"] = {"bandwidth_efficiency": NCCL_NVLINK_EFFICIENCY, "simple": NCCL_SIMPLE,
                          "ll128": NCCL_LL128}
    box["name"], box["description"] = name, description
    return box
