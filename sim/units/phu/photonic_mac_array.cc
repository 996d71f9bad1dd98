#include "sim/units/phu/photonic_mac_array.h"

#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"
#include "sim/units/phu/phu_kind.h"

#include <algorithm>
#include <cmath>

namespace lightsim::units {

using sim::now_ps;
using sim::ns_to_ps;

PhotonicMacArray::PhotonicMacArray(sc_core::sc_module_name name, const ir::Unit& params)
    : UnitModule(name, params) {}

PhuGemmTiming PhotonicMacArray::gemm(std::int64_t m, std::int64_t n, std::int64_t k,
                                     std::int64_t batch) const {
  return phu_gemm_work(params_, m, n, k, batch);
}

ir::EnergyBreakdown PhotonicMacArray::buffer_energy(const PhuBufferTraffic& t) const {
  const PhuBufferParams& b = params_.as<PhuParams>().buffers;
  const PhuFeatures& c = phu_features();
  ir::EnergyBreakdown e;
  e[c.local_buffer] = t.local_buffer_bytes * b.local_buffer_pj_per_byte * 1e-12;
  e[c.register_file] = t.register_file_bytes * b.register_file_pj_per_byte * 1e-12;
  e[c.partial_sum_network] = t.partial_sum_network_bytes * b.partial_sum_network_pj_per_byte * 1e-12;
  return e;
}

ir::EnergyBreakdown PhotonicMacArray::gemm_energy(const PhuGemmTiming& t) const {
  const PhuParams& p = params_.as<PhuParams>();
  const PhuFeatures& c = phu_features();
  const double dac_pj = conversion_energy_pj(p, p.dac), adc_pj = conversion_energy_pj(p, p.adc);
  ir::EnergyBreakdown e;
  e[c.laser] = p.laser_power_w * phu_laser_ns(p, t) * 1e-9;
  e[c.dac] = t.dac_samples * dac_pj * 1e-12;
  e[c.adc] = t.adc_samples * adc_pj * 1e-12;
  e[c.optical_mac] = t.optical_macs * p.mac_energy_pj * 1e-12;
  e[c.weight_programming] = t.weight_cells * dac_pj * 1e-12;
  return e;
}

double PhotonicMacArray::periphery_ns(const ir::Op& op) const {
  return phu_periphery_ns(params_.as<PhuParams>(), sim::elementwise_ops(op));
}

double PhotonicMacArray::op_ns(const OpWork& given, const ir::Memory& home) const {
  const OpWork work = sim::memory_traffic(given, params_); // fused attention's: FlashAttention's traffic
  return op_ns(work, phu_op_work(params_, work.desc->features), home);
}

ir::EnergyBreakdown PhotonicMacArray::op_energy(const OpWork& given, const ir::Memory& home) const {
  const OpWork work = sim::memory_traffic(given, params_);
  return op_energy(work, phu_op_work(params_, work.desc->features), home);
}

// Bytes the memory moves beyond the operands once: im2col patches and the buffer levels' re-sends
// (phu_materialised_bytes, from the work already counted).
double PhotonicMacArray::materialised_bytes(const ir::Op& op, const PhuOpWork& w) {
  return op.features.im2col_extra_bytes + w.traffic.memory_extra_bytes;
}

double PhotonicMacArray::op_ns(const OpWork& work, const PhuOpWork& w, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  const double memory_ns = sim::access_ns(home, work.home_bytes + materialised_bytes(op, w));
  return std::max({w.gemm.busy_ns, periphery_ns(op), memory_ns}) + sim::spill_ns(work);
}

ir::EnergyBreakdown PhotonicMacArray::op_energy(const OpWork& work, const PhuOpWork& w,
                                                const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  ir::EnergyBreakdown energy = sim::operand_energy(work, home);
  energy[ir::memory_component(home.kind)] += materialised_bytes(op, w) * home.energy_pj_per_byte * 1e-12;
  if (op.op_class == ir::OpClass::Nop) return energy;
  if (sim::has_gemm(op)) {
    energy += gemm_energy(w.gemm);
    energy += buffer_energy(w.traffic);
  }
  energy[phu_features().periphery] +=
      sim::elementwise_ops(op) * params_.as<PhuParams>().periphery_pj_per_op * 1e-12;
  return energy;
}

void PhotonicMacArray::start(const OpWork& given) {
  const ir::Memory& home = memory->params();
  const OpWork work = sim::memory_traffic(given, params_);
  const PhuOpWork w = phu_op_work(params_, work.desc->features); // the tiling once for time and energy
  finish_at(now_ps() + ns_to_ps(op_ns(work, w, home)), given, op_energy(work, w, home));
}

} // namespace lightsim::units
