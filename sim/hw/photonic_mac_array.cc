#include "sim/hw/photonic_mac_array.h"

#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"

#include <algorithm>
#include <cmath>

namespace lightsim::sim {

PhotonicMacArray::PhotonicMacArray(sc_core::sc_module_name name, const ir::Unit& params)
    : UnitModule(name, params) {}

PhuGemmTiming PhotonicMacArray::gemm(std::int64_t m, std::int64_t n, std::int64_t k,
                                     std::int64_t batch) const {
  return ir::phu_gemm_work(params_, m, n, k, batch);
}

ir::EnergyBreakdown PhotonicMacArray::gemm_energy(const PhuGemmTiming& t) const {
  const ir::PhuParams& p = params_.phu;
  const double dac_pj = ir::conversion_energy_pj(p, p.dac), adc_pj = ir::conversion_energy_pj(p, p.adc);
  ir::EnergyBreakdown e;
  e[ir::EnergyComponent::Laser] = p.laser_power_w * t.busy_ns * 1e-9;
  e[ir::EnergyComponent::Dac] = t.dac_samples * dac_pj * 1e-12;
  e[ir::EnergyComponent::Adc] = t.adc_samples * adc_pj * 1e-12;
  e[ir::EnergyComponent::OpticalMac] = t.macs * p.mac_energy_pj * 1e-12;
  e[ir::EnergyComponent::WeightProgramming] = t.weight_cells * dac_pj * 1e-12;
  return e;
}

double PhotonicMacArray::periphery_ns(const ir::Op& op) const {
  return ir::phu_periphery_ns(params_.phu, elementwise_ops(op));
}

double PhotonicMacArray::op_ns(const OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  const double memory_ns = access_ns(home, work.home_bytes + ir::materialised_bytes(params_, op.features));
  double optics_ns = 0;
  if (has_gemm(op)) {
    const ir::OpFeatures& f = op.features;
    optics_ns = gemm(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch).busy_ns;
  }
  return std::max({optics_ns, periphery_ns(op), memory_ns}) + spill_ns(work);
}

ir::EnergyBreakdown PhotonicMacArray::op_energy(const OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  ir::EnergyBreakdown energy = operand_energy(work, home);
  energy[ir::memory_component(home.kind)] +=
      ir::materialised_bytes(params_, op.features) * home.energy_pj_per_byte * 1e-12;
  if (has_gemm(op) && op.op_class != ir::OpClass::Nop) {
    const ir::OpFeatures& f = op.features;
    energy += gemm_energy(gemm(f.gemm_m, f.gemm_n, f.gemm_k, f.gemm_batch));
  }
  return energy;
}

void PhotonicMacArray::start(const OpWork& work) {
  const ir::Memory& home = memory->params();
  finish_at(now_ps() + ns_to_ps(op_ns(work, home)), work, op_energy(work, home));
}

} // namespace lightsim::sim
