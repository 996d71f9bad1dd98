// Gpu: the GPU kind's SystemC module, from ir::Unit (clock_ghz, cores = streams) and GpuParams. A GEMM
// (dense, batch_matmul, conv2d) runs as the kernel gpu_gemm_kernel picks for its shape and dtype: a CTA tile
// and a split-K factor, CTAs in waves over the SMs, each main-loop step the slower of the tensor-core (or
// CUDA-core) issue, the shared-memory traffic and the wave's share of the memory stream, wave prologues and
// epilogues, launch latency (gpu_kernel.h has the whole account). The choice is made once per shape and
// cached, as is a fused attention's kernel. Other ops run on the CUDA cores at
// elementwise_flops_per_cycle_per_sm x sms per cycle while their operand bytes stream (gpu_stream_ns: through
// the L2 what fits in its reach, the rest from the unit's memory at gpu_stream_efficiency x its bandwidth,
// after one round trip); the slower of the two (for a softmax or norm, of the three: its instructions,
// gpu_row_reduction_cycles) plus launch_latency_ns is the kernel (a GEMM's adds gemm_prologue_ns). A row
// kernel (vLLM's norm, RoPE and activation kernels under --fuse vllm) instead takes its waves of
// one-CTA-per-row access steps (gpu_row_kernel) or its CUDA-core work, the longer, plus the launch. A fused
// elementwise tail runs on the CUDA cores after the anchor. Every kernel waits kernel_gap_ns behind the
// previous one of its stream, so an op lasts gap + kernel (+ fetching spilled operands from the slower
// memory). Energy (op_energy), per operation and independent of the timing: `tensor_core` = MACs x
// tensor_core_pj_per_mac, `cuda_core` = element operations (fused tail included) x cuda_core_pj_per_op,
// + operand bytes x the memory's energy per byte under its access component.
// A fused op is one kernel: one launch, its anchor's GEMM kernel plus its fused tail's element operations
// on the CUDA cores, against the bytes that cross the group's boundary. Fused attention is one kernel:
// with flash_attention, FlashAttention-2's CTAs and key blocks (gpu_attention.h); else, on
// the tensor cores (gpu_attention_shapes): QK^T streaming FlashAttention's HBM traffic for
// shared_memory_per_sm_KiB, AV on the blocks already on chip, the scale, mask and softmax on the CUDA
// cores; its operand bytes (and their energy) are FlashAttention's traffic, not its boundary tensors.
//
// It is not a model of stream concurrency: each lane (stream) is timed as if it had the whole GPU.
#pragma once

#include "sim/hw/unit.h"
#include "sim/units/gpu/gpu_attention.h"
#include "sim/units/gpu/gpu_kernel.h"

#include <cstdint>
#include <unordered_map>

namespace lightsim::units {

using sim::OpWork;

class Gpu : public sim::UnitModule {
public:
  Gpu(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing.
  const GpuGemmKernel& gemm_kernel(const GpuGemmShape& shape) const;  // chosen once per shape
  const GpuFlashKernel& flash_kernel(const ir::OpFeatures& op) const; // timed once per attention shape
  double elementwise_ns(double ops) const;    // CUDA-core time of `ops` element operations
  double kernel_ns(const OpWork& work) const; // the op's kernel (no gap, no spill); 0 for a view
  double op_ns(const OpWork& work) const;     // gap + kernel + spill; 0 for a view
  std::size_t cached_shapes() const { return kernels_.size(); }
  ir::EnergyBreakdown op_energy(const OpWork& work, const ir::Memory& home) const;

  void start(const OpWork& work) override;

private:
  const GpuParams& gpu() const { return gpu_; }
  const GpuParams& gpu_; // params_'s, the kind's struct

  struct ShapeKey {
    std::int64_t m, n, k, batch;
    ir::DType dtype;
    double memory_bytes, weight_bytes, l2_bytes;
    bool operator==(const ShapeKey&) const = default;
  };
  struct ShapeHash {
    std::size_t operator()(const ShapeKey& s) const;
  };
  mutable std::unordered_map<ShapeKey, GpuGemmKernel, ShapeHash> kernels_;
  // What gpu_flash_attention_kernel reads of an op: its shapes, mask and the operands' bytes.
  struct FlashKey {
    ShapeKey gemm;
    std::int64_t value_dim;
    bool causal;
    double element_bytes, mask_bytes;
    bool operator==(const FlashKey&) const = default;
  };
  struct FlashHash {
    std::size_t operator()(const FlashKey& f) const;
  };
  mutable std::unordered_map<FlashKey, GpuFlashKernel, FlashHash> flash_kernels_;
};

} // namespace lightsim::units
