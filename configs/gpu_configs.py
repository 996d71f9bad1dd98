"""The GPUs of the shipped configs (`kind: gpu`, sim/units/gpu/): the A100 of a100.json, the H100-like GPU of
gpu.json and photonic.json (datasheet figures, the A100's fitted constants) and the measured H100 of
h100.json (Hopper's fields and three constants fitted to our H100 kernel times). Every figure is a
published one or fitted by the script named beside it; configs/README.md cites each. Imported by
configs/generate.py, which writes the files; it imports nothing from it.
"""
PJ = 1e-12

# GPUs (NVIDIA datasheets and architecture whitepapers; configs/README.md cites each figure). Per-SM rates
# are dense multiply-accumulates per clock: peak FLOP/s = 2 x rate x SMs x clock.
# The two efficiencies are the only fitted GPU figures: scripts/fidelity_gpu.py --calibrate fits them on
# the A100 kernel timings at 32 and 3072 tokens (TP 1) and reports every other row as held out
# (configs/measured/a100-fidelity.md). The H100 carries the A100's values (not measured on an H100).
GPU_MAIN_LOOP_EFFICIENCY = 0.77
GPU_MEMORY_EFFICIENCY = 0.78
# Row kernels (vLLM's norm / RoPE / activation kernels under `--fuse vllm`, ir/cost/gpu_kernel.h): the round
# trip of one access step and the share of the HBM peak a wave's accesses stream at, fitted by
# `scripts/fidelity_gpu.py --calibrate-rows` on the same calibration rows (every other row held out).
GPU_ROW_STEP_LATENCY_NS = 310.0
GPU_ROW_MEMORY_EFFICIENCY = 0.65
# Assumptions, not fitted: a kernel's own launch and completion inside its duration, and the idle gap
# between two back-to-back kernels of a stream (NVIDIA's CUDA Graphs blog: ~1 us between kernels).
GPU_LAUNCH_LATENCY_NS = 2000.0
GPU_KERNEL_GAP_NS = 1000.0
# fp32 GEMMs run as TF32 on the tensor cores (cuBLAS' TF32 math mode, the default of TensorFlow since 2.4
# and of PyTorch 1.7-1.11; later PyTorch needs allow_tf32). `--set gpu0.fp32_gemm_as_tf32=false` puts
# them on the CUDA cores (8x slower on these parts).
FP32_GEMM_AS_TF32 = True


def cta_tile(m, n, k_bytes, warp_m, warp_n, stages):
    return {"m": m, "n": n, "k_bytes": k_bytes, "warp_m": warp_m, "warp_n": warp_n, "stages": stages}


# CUTLASS's Ampere (sm80) tensor-op GEMM tiles for 16-bit operands (k = 32 elements = 64 bytes per step)
# with their warp tiles and pipeline depths.
A100_TILES = [cta_tile(256, 128, 64, 64, 64, 3), cta_tile(128, 256, 64, 64, 64, 3),
              cta_tile(256, 64, 64, 64, 64, 4), cta_tile(64, 256, 64, 64, 64, 4),
              cta_tile(128, 128, 64, 64, 64, 5), cta_tile(128, 64, 64, 64, 32, 6),
              cta_tile(64, 128, 64, 32, 64, 6), cta_tile(64, 64, 64, 32, 32, 10)]
# CUTLASS's Hopper (sm90) warp-specialised tiles (k = 64 elements = 128 bytes per step): two consumer
# warpgroups of 64 rows each (warp_m x warp_n = one warpgroup's tile).
H100_TILES = [cta_tile(128, 256, 128, 64, 256, 4), cta_tile(256, 128, 128, 64, 128, 4),
              cta_tile(128, 128, 128, 64, 128, 6), cta_tile(128, 64, 128, 64, 64, 8),
              cta_tile(64, 128, 128, 64, 128, 8), cta_tile(64, 64, 128, 64, 64, 12)]


def gpu_unit(model, clock_ghz, static_w, sms, tensor, cuda, mma, smem_kib, tiles, elementwise):
    return {"name": "gpu0", "kind": "gpu", "cores": 1, "clock_ghz": clock_ghz, "static_power_w": static_w,
            "memory": "hbm0", "model": model, "sms": sms, "tensor_core_macs_per_cycle_per_sm": tensor,
            "cuda_core_macs_per_cycle_per_sm": cuda, "fp32_gemm_as_tf32": FP32_GEMM_AS_TF32, "mma": mma,
            "shared_memory_per_sm_KiB": smem_kib, "shared_memory_bytes_per_cycle_per_sm": 128,
            "cta_tiles": tiles, "main_loop_efficiency": GPU_MAIN_LOOP_EFFICIENCY,
            "memory_efficiency": GPU_MEMORY_EFFICIENCY, "launch_latency_ns": GPU_LAUNCH_LATENCY_NS,
            "kernel_gap_ns": GPU_KERNEL_GAP_NS, "elementwise_flops_per_cycle_per_sm": elementwise,
            # Ampere and Hopper: at most 2048 resident threads and 32 resident CTAs per SM (CUDA C++
            # Programming Guide, compute capabilities 8.0 and 9.0).
            "max_threads_per_sm": 2048, "max_ctas_per_sm": 32,
            "row_step_latency_ns": GPU_ROW_STEP_LATENCY_NS, "row_memory_efficiency": GPU_ROW_MEMORY_EFFICIENCY}


# H100 SXM5: 132 SMs at 1.83 GHz (the clock of the datasheet's dense tensor figures: 989.4 TFLOP/s fp16 =
# 2 x 2048 x 132 x 1.83 GHz), HBM3 80 GB at 3350 GB/s, 228 KiB shared memory per SM, 700 W.
H100_TDP_W = 700.0
H100 = gpu_unit("h100", 1.83, 90.0, 132,
                {"float64": 128, "tf32": 1024, "float16": 2048, "bfloat16": 2048, "int8": 4096, "float8": 4096},
                {"float64": 64, "float32": 128}, {"m": 64, "n": 8, "k_bytes": 32}, 228, H100_TILES, 128)
H100_HBM = {"name": "hbm0", "kind": "hbm", "capacity_MiB": 80 * 1024, "bandwidth_GBps": 3350.0,
            "latency_ns": 500.0, "banks": 5 * 32, "energy_pj_per_byte": 3.9 * 8, "static_power_w": 15.0}
# A100 SXM4 80GB: 108 SMs at 1.41 GHz (312 TFLOP/s fp16 = 2 x 1024 x 108 x 1.41 GHz), HBM2e 80 GB at
# 2039 GB/s, 164 KiB shared memory per SM, 400 W.
A100_TDP_W = 400.0
A100 = gpu_unit("a100", 1.41, 50.0, 108,
                {"float64": 64, "tf32": 512, "float16": 1024, "bfloat16": 1024, "int8": 2048},
                {"float64": 32, "float32": 64}, {"m": 16, "n": 8, "k_bytes": 32}, 164, A100_TILES, 64)
A100_HBM = {"name": "hbm0", "kind": "hbm", "capacity_MiB": 80 * 1024, "bandwidth_GBps": 2039.0,
            "latency_ns": 500.0, "banks": 5 * 16, "energy_pj_per_byte": 3.9 * 8, "static_power_w": 15.0}


def with_energy_per_operation(g, tdp_w):
    """Energy per operation (configs/README.md, "Energy"): the dynamic power (TDP - static) spread over the
    peak rate of that operation: tensor-core MACs at the TF32 rate (the rate fp32 graphs run at), CUDA-core
    element operations at elementwise_flops_per_cycle_per_sm."""
    clock = g["clock_ghz"] * 1e9
    dyn_w = tdp_w - g["static_power_w"]
    g["tensor_core_pj_per_mac"] = dyn_w / (g["tensor_core_macs_per_cycle_per_sm"]["tf32"] * g["sms"] * clock) / PJ
    g["cuda_core_pj_per_op"] = dyn_w / (g["elementwise_flops_per_cycle_per_sm"] * g["sms"] * clock) / PJ
    return g


with_energy_per_operation(H100, H100_TDP_W)
with_energy_per_operation(A100, A100_TDP_W)
# The H100 of h100.json, checked on our own H100 kernel times (configs/measured/h100-fidelity.md): Hopper's
# library kernels and memory hierarchy as fields of the same GPU kind, and three constants fitted by
# `scripts/fidelity_h100.py --calibrate` on the GEMMs at 32 and 1024 tokens (every other row held out):
# - stream_k: cuBLAS and CUTLASS on sm90 run persistent stream-K GEMMs (no wave quantisation);
# - persistent_epilogues: their kernels are warp-specialised and persistent (CUTLASS's sm90
#   KernelTmaWarpSpecializedCooperative / Pingpong): producer warps load the next tile by TMA while the
#   consumers run the last tile's epilogue, so a kernel pays one prologue and one epilogue, not one a wave;
# - l2: capacity_MiB 50, the H100 SXM5's L2 (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022);
#   the rest measured on our H100 by `scripts/measure_gpu.py --set sweeps` (measured/nvidia-h100-sweeps.csv,
#   element kernels on hot and cold operands; none of them a row of the fidelity tables):
#   latency_ns 140: a one-row add takes 1.08 us on operands in the L2 and 1.44 us on cold ones, so the L2's
#   round trip is 360 ns shorter than the memory's 500;
#   bandwidth_GBps 8000: the hot add of 512 rows (12.6 MB) streams at 8.07 TB/s beyond its fixed 1.08 us;
#   reach_MiB 28: 24 MiB hot stream wholly from the L2, 48 MiB (the add of 2048 rows, 16.8 us) almost
#   wholly from HBM: the two partitions of the L2 each cache for their own SMs. 28 lies between the 26.7
#   MiB that add's time implies and the 29.6 MiB of our mul_ff at 512 tokens (32 MiB, 6.79 us), under the
#   linear fall-off of gpu_l2_bytes;
# - launch_latency_ns 940: the one-row add on hot operands (1.08 us) less the L2's latency;
# - stream_memory_efficiency 0.91: a 512 MiB copy streams at 3.04 TB/s, 0.91 of the 3350 GB/s peak, where
#   GEMMs reach memory_efficiency (fitted below);
# - row_reduction_cycles_per_element 0.44: a softmax over 64 MiB with rows of 512 (the sweeps' fastest row
#   length) takes 31.64 us, 1.80 ps per element beyond its fixed 1.44 us: 0.44 cycles of each of the 132 SMs
#   at 1.83 GHz per element, at 2.2 TB/s, below both the HBM's and the L2's rates (PyTorch's softmax is
#   bound by its instructions, not its bytes; measured/nvidia-h100-sweeps.csv, softmax_rowlen);
# - row kernels (PyTorch's F.rms_norm with --fuse vllm and its geometry: 128 threads a row, 4 elements an
#   access, two passes; measured/nvidia-h100-sweeps.csv, rmsnorm_sweep): row_wave_overlap, since 16384 rows
#   of 4096 (8 waves, 256 MiB) take 129.5 us, the stream at 2.07 TB/s plus one wave's chain, where waves
#   one after another would add 7 more chains (+25 us); row_step_latency_ns 200: one row takes 4.17 us, the
#   launch (940 ns) plus 16 steps of 202 ns; row_memory_efficiency 0.65 kept (fitted on the A100's vLLM
#   kernels): 128 and 256 MiB stream at 0.66 and 0.64 of the peak;
# - one_pass_row_elements 1024: PyTorch's softmax keeps a row in registers up to 1024 elements
#   (aten/src/ATen/native/cuda/SoftMax.cu, the persistent softmax) and passes over longer rows in global
#   memory;
# - flash_attention_2: PyTorch's scaled_dot_product_attention runs FlashAttention-2 (query blocks outer, K and
#   V re-read per query block, causally masked blocks skipped);
# - flash_attention: its forward kernel as FlashAttention-2 builds it for head size 128 on sm80 and later
#   (csrc/flash_attn/src/flash_fwd_launch_template.h, run_mha_fwd_hdim128: CTAs of 128 queries stepping 64
#   keys, 4 warps; 64 KiB of shared memory for Q, K and V, and 255 registers for each of 128 threads, so
#   2 CTAs per SM of 65536 registers); exp_per_cycle_per_sm 16: the H100 SXM5's special-function units
#   reach 3.9 TFLOPS of exponentials against 989 TFLOPS of fp16 MMA (Shah et al., FlashAttention-3, 2024, sec.
#   3.1): 3.9e12 / (132 SMs x 1.83 GHz) = 16 per cycle per SM; setup_kernels 1: PyTorch launches a memset
#   before the kernel (two kernels a call from 32 queries, one at one query: measured/nvidia-h100.csv and the
#   shared README); cta_latency_ns from our one-query sdpa_causal (measured/nvidia-h100.csv, 5.47 us, one CTA
#   a head, one key block): less the launch and GEMM prologue (940 + 140 ns) and one block at
#   main_loop_efficiency (128 x 64 x 256 MACs at 0.80 x 2048 a cycle, 1280 cycles, then 8192 exponentials, 512
#   cycles: 979 ns), 3410 ns. That row is thereby not held out in measured/nvidia-h100-fidelity.md; the shared
#   table has no such row.
# - fitted: gemm_prologue_ns 140 (a GEMM kernel's own set-up beyond the launch; before the launch was
#   measured on its own, launch_latency_ns 1100 was fitted in its place), memory_efficiency 0.80,
#   main_loop_efficiency 0.80 (0.82 and 0.81 before persistent_epilogues).
# gpu.json and photonic.json keep the `h100` GPU above (the A100's constants) until their tables are redone.
H100_SXM5 = dict(H100, model="h100-sxm5", stream_k=True, persistent_epilogues=True,
                 l2={"capacity_MiB": 50, "bandwidth_GBps": 8000.0, "reach_MiB": 28.0, "latency_ns": 140.0},
                 flash_attention_2=True,
                 flash_attention={"block_m": 128, "block_n": 64, "ctas_per_sm": 2, "cta_latency_ns": 3410.0,
                                  "exp_per_cycle_per_sm": 16, "setup_kernels": 1,
                                  "split_block_m": 64, "split_block_n": 128},
                 one_pass_row_elements=1024, launch_latency_ns=940.0,
                 stream_memory_efficiency=0.91, row_reduction_cycles_per_element=0.44, gemm_prologue_ns=140.0,
                 row_wave_overlap=True, row_step_latency_ns=200.0,
                 memory_efficiency=0.80,
                 main_loop_efficiency=0.80)
# The H200 of h200.json: the H100's chip (132 SMs, the same tensor and CUDA-core rates, compute capability 9.0;
# NVIDIA H200 Tensor Core GPU datasheet, 2024) with 141 GB of HBM3e at 4.8 TB/s in six stacks. Every field of
# the measured H100 above is kept, its three fitted constants included: nothing is fitted on the H200, so
# every row of configs/measured/nvidia-h200-fidelity.md is held out. Capacity: the 143771 MiB that nvidia-smi
# reports on our H200 (driver 580.159). L2: 50 MiB as the H100 (PyTorch reports 60 MB on the H200 here,
# the whole L2 with the part the H100 SXM5 disables; left at the H100's, since the fit did not see it).
H200_SXM = dict(H100_SXM5, model="h200-sxm")
H200_HBM = dict(H100_HBM, capacity_MiB=143771, bandwidth_GBps=4800.0, banks=6 * 32)
