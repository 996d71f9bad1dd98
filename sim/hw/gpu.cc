#include "sim/hw/gpu.h"

#include "ir/cost/unit_work.h"
#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"

#include <algorithm>

namespace lightsim::sim {

Gpu::Gpu(sc_core::sc_module_name name, const ir::Unit& params) : UnitModule(name, params) {}

std::int64_t Gpu::tensor_cores() const {
  return static_cast<std::int64_t>(params_.gpu.sms) * params_.gpu.tensor_cores_per_sm;
}

std::int64_t Gpu::gemm_tiles(std::int64_t m, std::int64_t n, std::int64_t batch) const {
  return ir::gpu_gemm_work(params_.gpu, m, n, 1, batch).tiles;
}

std::int64_t Gpu::gemm_waves(std::int64_t m, std::int64_t n, std::int64_t batch) const {
  return ir::gpu_gemm_work(params_.gpu, m, n, 1, batch).waves;
}

double Gpu::gemm_cycles(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) const {
  const ir::GpuGemmWork w = ir::gpu_gemm_work(params_.gpu, m, n, k, batch);
  return static_cast<double>(w.waves * w.k_passes) * params_.gpu.tile_cycles;
}

double Gpu::elementwise_ns(double ops) const {
  const double per_ns = params_.gpu.elementwise_flops_per_cycle_per_sm * params_.gpu.sms * params_.clock_ghz;
  return per_ns > 0 ? ops / per_ns : 0;
}

double Gpu::anchor_ns(const ir::Op& op) const {
  const ir::OpFeatures& f = op.features;
  if (!has_gemm(op)) return 0;
  double cycles = gemm_cycles(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch);
  if (op.op_class == ir::OpClass::Attention) // AV: [m x n] probabilities by [n x value_dim]
    cycles += gemm_cycles(f.gemm_m, f.attention_value_dim, f.gemm_n, f.gemm_batch);
  return cycles / params_.clock_ghz;
}

double Gpu::op_ns(const OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  const OpWork moved = memory_traffic(work, params_);
  const double compute = anchor_ns(op) + elementwise_ns(elementwise_ops(op));
  return params_.gpu.launch_latency_ns + std::max(compute, access_ns(home, moved.home_bytes)) +
         spill_ns(moved);
}

void Gpu::start(const OpWork& work) {
  const ir::Memory& home = memory->params();
  const double ns = op_ns(work, home);
  const double energy =
      params_.dynamic_power_w * ns * 1e-9 + operand_energy_j(memory_traffic(work, params_), home);
  finish_at(now_ps() + ns_to_ps(ns), work, energy);
}

} // namespace lightsim::sim
