// The GPU kind's parameters (config keys of a unit with `kind: gpu`): rates per precision and engine, the
// MMA shape, the candidate CTA tiles, efficiencies, launch latency and gaps, row-kernel limits and energy
// per operation; and their field table, which declares each key once (ir/hardware/fields.h).
//
// It is not the GPU timing model (gpu_kernel.h) nor the SystemC module (gpu_module.h).
#pragma once

#include "ir/hardware/fields.h"
#include "ir/names.h"

#include <array>
#include <cstdint>
#include <vector>

namespace lightsim::units {

// The compute precision of a GEMM on a GPU, keyed in configs by these names. The operands' dtype chooses
// it (fp32 may run as TF32).
enum class GemmPrecision : std::uint8_t { Float64, Float32, Tf32, Float16, BFloat16, Int8, Float8 };
inline constexpr std::size_t kNumGemmPrecisions = 7;
inline constexpr ir::NameTable kGemmPrecisions{
    std::array{std::pair{GemmPrecision::Float64, std::string_view("float64")},
               std::pair{GemmPrecision::Float32, std::string_view("float32")},
               std::pair{GemmPrecision::Tf32, std::string_view("tf32")},
               std::pair{GemmPrecision::Float16, std::string_view("float16")},
               std::pair{GemmPrecision::BFloat16, std::string_view("bfloat16")},
               std::pair{GemmPrecision::Int8, std::string_view("int8")},
               std::pair{GemmPrecision::Float8, std::string_view("float8")}}};

// The tensor cores' MMA instruction shape (k in bytes: 16 fp16 = 8 tf32 = 32 int8 elements in 32 bytes).
struct GpuMma {
  int m = 16, n = 8, k_bytes = 32;
  friend bool operator==(const GpuMma&, const GpuMma&) = default;
};

// The GPU's L2 (config key `l2`, optional): a kernel's activations (what it reads that is not a weight, and
// what it writes) go through it when together they fit in its reach (gpu_kernel.h, gpu_l2_bytes), as do
// stream-K's partial sums; weights come from memory. capacity_MiB 0: no L2 modelled.
struct GpuL2 {
  double capacity_MiB = 0;
  double bandwidth_GBps = 0; // read + write rate of the whole L2
  // The largest working set a kernel finds whole in the L2; beyond it the hits fall linearly to none at
  // twice it (each further byte evicts one that would have been reused). < 0: capacity_MiB. Less than the
  // capacity on a two-partition L2 (A100, H100), whose partitions each cache for their own SMs.
  double reach_MiB = -1;
  double latency_ns = -1; // round trip of an access the L2 serves; < 0: the memory's latency
  friend bool operator==(const GpuL2&, const GpuL2&) = default;
};

// One thread-block (CTA) tile of a GPU's GEMM kernels: the CTA computes m x n outputs, stepping through K
// k_bytes at a time (k_bytes / operand bytes elements per step); each of its warps computes warp_m x warp_n;
// `stages` steps of operands are buffered in shared memory.
struct GpuCtaTile {
  int m = 128, n = 128, k_bytes = 64, warp_m = 64, warp_n = 64, stages = 3;
  friend bool operator==(const GpuCtaTile&, const GpuCtaTile&) = default;
};

// Fused attention as FlashAttention-2's forward kernel runs it (config key `flash_attention`, optional;
// gpu_attention.h): one CTA per (head, block of block_m queries), stepping through the visible keys
// block_n at a time, both products on the tensor cores and the softmax's exponentials on the SM's
// special-function units, one after the other. block_m 0: not modelled (the two products as GEMM kernels).
struct GpuFlashAttention {
  int block_m = 0, block_n = 0;
  int split_block_m = 0, split_block_n = 0; // the split-keys kernel's (gpu_attention.h)
  int ctas_per_sm = 1;                      // resident CTAs per SM (its shared memory and registers)
  double cta_latency_ns = 0;       // fixed time of one CTA (loads before the first block, the final writes)
  double exp_per_cycle_per_sm = 0; // exponentials per cycle per SM (special-function units)
  int setup_kernels = 0; // small kernels launched before the kernel when there is more than one query
  friend bool operator==(const GpuFlashAttention&, const GpuFlashAttention&) = default;
};

struct GpuParams {
  int sms = 1;
  // Multiply-accumulates per cycle per SM of each precision on the tensor cores and on the CUDA cores;
  // 0: the engine has no such path. A GEMM uses the tensor cores when they have its precision.
  std::array<double, kNumGemmPrecisions> tensor_core_macs_per_cycle_per_sm{};
  std::array<double, kNumGemmPrecisions> cuda_core_macs_per_cycle_per_sm{};
  bool fp32_gemm_as_tf32 = false; // fp32 GEMMs run as TF32 on the tensor cores (cuBLAS TF32 mode)
  GpuMma mma;
  std::vector<GpuCtaTile> cta_tiles; // the candidate kernels' tiles (at least one)
  double shared_memory_per_sm_KiB = 0;
  double shared_memory_bytes_per_cycle_per_sm = 0;
  double main_loop_efficiency = 1; // achieved / peak rate of a GEMM's main loop, in (0, 1] (calibrated)
  double memory_efficiency = 1;    // achievable / peak bandwidth of the unit's memory, in (0, 1] (calibrated)
  double launch_latency_ns = 0;    // fixed part of every kernel's duration (grid launch and completion)
  double gemm_prologue_ns = 0; // a GEMM or attention kernel's further fixed time (its set-up) (calibrated)
  double stream_memory_efficiency =
      -1; // a streaming (element) kernel's share of the memory's peak; < 0: memory_efficiency
  double kernel_gap_ns = 0;                      // idle time between two back-to-back kernels of one stream
  double elementwise_flops_per_cycle_per_sm = 0; // CUDA cores for non-GEMM ops
  // Row kernels (gpu_kernel.h, gpu_row_kernel): the SM's thread and CTA limits that set how many rows run
  // at once, and the two constants of one access step: its round trip and the share of the memory's peak
  // the wave's accesses stream at (both calibrated; absent: the memory's latency and memory_efficiency).
  int max_threads_per_sm = 2048;
  int max_ctas_per_sm = 32;
  double row_step_latency_ns = -1;   // < 0: memory_latency_ns
  double row_memory_efficiency = -1; // < 0: memory_efficiency
  // Whether a row kernel's waves overlap (gpu_row_kernel): the CTAs of the next wave start as those of the
  // last retire, so only one wave's chain of access steps adds to the memory stream; false: the waves run
  // one after another, each its chain plus its bytes.
  bool row_wave_overlap = false;
  // Hopper-era library kernels (gpu_kernel.h): persistent stream-K GEMMs that spread the last wave's tiles
  // over every SM (their partial sums fixed up through the L2), and the L2 that holds those partials.
  bool stream_k = false;
  // Whether a GEMM kernel's waves overlap their prologues and epilogues (Hopper's persistent,
  // warp-specialised kernels: producer warps load the next tile while consumers write the last): one
  // prologue and one epilogue for the kernel; false: each wave its own.
  bool persistent_epilogues = false;
  GpuL2 l2;
  // Fused attention runs as FlashAttention-2 and later run it (gpu_kernel.h, gpu_attention_shapes): query
  // blocks outer, K and V read once per query block (through the L2 when the heads in flight fit in it),
  // the blocks a causal mask hides skipped. false: FlashAttention-1's traffic (ir/cost/unit_work.h).
  bool flash_attention_2 = false;
  GpuFlashAttention flash_attention; // its kernel's blocks and CTAs (its traffic as the flag above says)
  // Softmax and normalisation rows longer than this many elements do not fit one CTA's registers: the
  // kernel passes over the row in global memory more than once (gpu_row_passes); 0: every row in one pass.
  int one_pass_row_elements = 0;
  // SM cycles a softmax or normalisation kernel (one that reduces rows: OpFeatures::row_elements) spends per
  // element it reads: its instructions (maximum or mean, exponential, sum, divide, conversions) at the SM's
  // issue rate; 0: only the CUDA-core operation count bounds it.
  double row_reduction_cycles_per_element = 0;
  // Energy per operation (configs/README.md, "Energy"): tensor-core MACs of GEMM-like ops, CUDA-core
  // element operations of the others.
  double tensor_core_pj_per_mac = 0;
  double cuda_core_pj_per_op = 0;
  // Copied from the unit's memory when the config is loaded (not config keys): the kernel model streams
  // operands from it.
  double memory_bandwidth_GBps = 0, memory_latency_ns = 0;
  friend bool operator==(const GpuParams&, const GpuParams&) = default;
};

const ir::FieldTable<GpuCtaTile>& gpu_cta_tile_fields();
const ir::FieldTable<GpuParams>& gpu_fields();

} // namespace lightsim::units
