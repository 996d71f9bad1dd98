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

double Gpu::op_ns(const OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  const ir::OpFeatures& f = op.features;
  double compute = elementwise_ns(elementwise_ops(op));
  if (has_gemm(op)) compute += gemm_cycles(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch) / params_.clock_ghz;
  return params_.gpu.launch_latency_ns + std::max(compute, access_ns(home, work.home_bytes)) + spill_ns(work);
}

ir::EnergyBreakdown Gpu::op_energy(const OpWork& work, const ir::Memory& home) const {
  ir::EnergyBreakdown e = operand_energy(work, home);
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return e;
  e[ir::EnergyComponent::TensorCore] = op.features.macs * params_.gpu.tensor_core_pj_per_mac * 1e-12;
  e[ir::EnergyComponent::CudaCore] = elementwise_ops(op) * params_.gpu.cuda_core_pj_per_op * 1e-12;
  return e;
}

void Gpu::start(const OpWork& work) {
  const ir::Memory& home = memory->params();
  finish_at(now_ps() + ns_to_ps(op_ns(work, home)), work, op_energy(work, home));
}

} // namespace lightsim::sim
