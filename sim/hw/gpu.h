// Gpu: from ir::Unit (clock_ghz, cores = streams) and ir::GpuParams. An M x N x K GEMM (batch B) is cut
// into tile_m x tile_n output tiles (B x ceil(M/tile_m) x ceil(N/tile_n) of them); each tile takes
// ceil(K/tile_k) tile passes of tile_cycles on one tensor core; tiles run in waves over sms x
// tensor_cores_per_sm tensor cores, the last wave partly idle. Other ops run on the CUDA cores at
// elementwise_flops_per_cycle_per_sm x sms per cycle. Every op is bounded below by moving its operand bytes
// through the unit's memory (HBM bandwidth + latency), and pays launch_latency_ns.
// A fused op is one kernel: one launch, its anchor's GEMM on the tensor cores (anchor_ns: whatever the
// GEMM timing is) plus its fused tail's element operations on the CUDA cores, against the bytes that
// cross the group's boundary. Fused attention runs QK^T and AV on the tensor cores and the scale, mask
// and softmax on the CUDA cores, moving FlashAttention's HBM traffic for shared_memory_per_sm_KiB.
// Energy: dynamic power x duration + operand bytes x the memory's energy per byte.
//
// It is not a model of stream concurrency: each lane (stream) is timed as if it had the whole GPU.
#pragma once

#include "sim/hw/unit.h"

#include <cstdint>

namespace lightsim::sim {

class Gpu : public UnitModule {
public:
  Gpu(sc_core::sc_module_name name, const ir::Unit& params);

  // Pure timing.
  std::int64_t tensor_cores() const;
  std::int64_t gemm_tiles(std::int64_t m, std::int64_t n, std::int64_t batch) const;
  std::int64_t gemm_waves(std::int64_t m, std::int64_t n, std::int64_t batch) const;
  double gemm_cycles(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const;
  double elementwise_ns(double ops) const;
  double anchor_ns(const ir::Op& op) const; // the tensor-core products of an op (0 without a GEMM view)
  double op_ns(const OpWork& work, const ir::Memory& home) const;

  void start(const OpWork& work) override;
};

} // namespace lightsim::sim
