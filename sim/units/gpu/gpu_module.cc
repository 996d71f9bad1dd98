#include "sim/units/gpu/gpu_module.h"

#include "ir/cost/unit_work.h"
#include "sim/hw/sim_time.h"
#include "sim/units/gpu/gpu_attention.h"
#include "sim/units/gpu/gpu_kind.h"

#include <algorithm>
#include <functional>

namespace lightsim::units {

using sim::now_ps;
using sim::ns_to_ps;

std::size_t Gpu::ShapeHash::operator()(const ShapeKey& s) const {
  std::size_t h = std::hash<std::int64_t>()(s.m);
  for (std::int64_t v : {s.n, s.k, s.batch, static_cast<std::int64_t>(s.dtype)})
    h = h * 1000003u ^ std::hash<std::int64_t>()(v);
  h = h * 1000003u ^ std::hash<double>()(s.memory_bytes);
  h = h * 1000003u ^ std::hash<double>()(s.weight_bytes);
  return h * 1000003u ^ std::hash<double>()(s.l2_bytes);
}

std::size_t Gpu::FlashHash::operator()(const FlashKey& f) const {
  std::size_t h = ShapeHash()(f.gemm);
  h = h * 1000003u ^ std::hash<std::int64_t>()(f.value_dim * 2 + (f.causal ? 1 : 0));
  h = h * 1000003u ^ std::hash<double>()(f.element_bytes);
  return h * 1000003u ^ std::hash<double>()(f.mask_bytes);
}

Gpu::Gpu(sc_core::sc_module_name name, const ir::Unit& params)
    : UnitModule(name, params), gpu_(params_.as<GpuParams>()) {}

const GpuGemmKernel& Gpu::gemm_kernel(const GpuGemmShape& s) const {
  const ShapeKey key{s.m, s.n, s.k, s.batch, s.dtype, s.memory_bytes, s.weight_bytes, s.l2_bytes};
  auto it = kernels_.find(key);
  if (it == kernels_.end()) it = kernels_.emplace(key, gpu_gemm_kernel(params_, s)).first;
  return it->second;
}

const GpuFlashKernel& Gpu::flash_kernel(const ir::OpFeatures& op) const {
  const FlashKey key{{op.gemm_m, op.gemm_n, op.gemm_k, op.gemm_batch, op.gemm_dtype,
                      ir::operand_bytes(params_, op), 0.0, 0.0},
                     op.attention_value_dim,
                     op.attention_causal,
                     op.attention_element_bytes,
                     op.attention_mask_bytes};
  auto it = flash_kernels_.find(key);
  if (it == flash_kernels_.end())
    it = flash_kernels_.emplace(key, gpu_flash_attention_kernel(params_, op)).first;
  return it->second;
}

double Gpu::elementwise_ns(double ops) const {
  const double per_ns = gpu().elementwise_flops_per_cycle_per_sm * gpu().sms * params_.clock_ghz;
  return per_ns > 0 ? ops / per_ns : 0;
}

double Gpu::kernel_ns(const OpWork& work) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  if (sim::has_gemm(op) && op.features.attention_value_dim > 0 && gpu().flash_attention.block_m > 0)
    return flash_kernel(op.features).kernel_ns;
  const double tail_or_elementwise =
      std::max(elementwise_ns(sim::elementwise_ops(op) * gpu_attention_fraction(gpu(), op.features)),
               gpu_row_reduction_cycles(gpu(), op.features) / params_.clock_ghz);
  if (sim::has_gemm(op) && op.features.attention_value_dim > 0) { // one kernel, both products
    const GpuAttentionShapes s = gpu_attention_shapes(params_, op.features);
    return gpu().launch_latency_ns + gpu().gemm_prologue_ns +
           (gemm_kernel(s.scores).cycles_after_launch(params_.clock_ghz) +
            gemm_kernel(s.values).cycles_after_launch(params_.clock_ghz)) /
               params_.clock_ghz +
           tail_or_elementwise;
  }
  if (sim::has_gemm(op)) return gemm_kernel(gpu_gemm_shape(op.features)).kernel_ns + tail_or_elementwise;
  if (op.features.row_kernel.rows > 0)
    return gpu().launch_latency_ns +
           std::max(tail_or_elementwise,
                    gpu_row_kernel(params_, op.features.row_kernel, work.home_bytes).main_ns);
  // A softmax or norm whose rows do not fit on chip reads its input once per pass; activations that fit
  // in the L2 stream through it.
  const double l2 = gpu_l2_bytes(gpu(), work.home_bytes, op.features.param_bytes);
  const double reread = gpu_reread_bytes(gpu(), op.features);
  return gpu().launch_latency_ns +
         std::max(tail_or_elementwise, gpu_stream_ns(gpu(), gpu_stream_efficiency(gpu(), op.op_class),
                                                     work.home_bytes + reread, l2 > 0 ? l2 + reread : 0));
}

double Gpu::op_ns(const OpWork& work) const {
  if (work.desc->op_class == ir::OpClass::Nop) return 0;
  return gpu().kernel_gap_ns + kernel_ns(work) + sim::spill_ns(sim::memory_traffic(work, params_));
}

ir::EnergyBreakdown Gpu::op_energy(const OpWork& work, const ir::Memory& home) const {
  ir::EnergyBreakdown e = sim::operand_energy(sim::memory_traffic(work, params_), home);
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return e;
  e[gpu_features().tensor_core] = op.features.macs * gpu().tensor_core_pj_per_mac * 1e-12;
  e[gpu_features().cuda_core] = sim::elementwise_ops(op) * gpu().cuda_core_pj_per_op * 1e-12;
  return e;
}

void Gpu::start(const OpWork& work) {
  const ir::Memory& home = memory->params();
  finish_at(now_ps() + ns_to_ps(op_ns(work)), work, op_energy(work, home));
}

} // namespace lightsim::units
