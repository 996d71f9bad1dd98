#include "sim/units/systolic/systolic_module.h"

#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"
#include "sim/units/systolic/systolic_kind.h"

#include <algorithm>

namespace lightsim::units {

SystolicArray::SystolicArray(sc_core::sc_module_name name, const ir::Unit& params)
    : UnitModule(name, params), p_(params_.as<SystolicParams>()) {}

double SystolicArray::op_ns(const sim::OpWork& work) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return 0;
  const double clock = params_.clock_ghz;
  const double vector = systolic_vector_cycles(params_, sim::elementwise_ops(op));
  const SystolicGemm g = systolic_gemm(params_, op.features);
  double body_ns = 0;
  if (g.folds > 0) {
    body_ns = (std::max(g.compute_cycles, vector) + g.stall_cycles) / clock;
  } else {
    const double rate = p_.memory_bandwidth_GBps * p_.memory_efficiency;
    body_ns = std::max(vector / clock, rate > 0 ? work.home_bytes / rate : 0.0);
  }
  return p_.op_overhead_ns + body_ns + sim::spill_ns(work);
}

ir::EnergyBreakdown SystolicArray::op_energy(const sim::OpWork& work, const ir::Memory& home) const {
  const ir::Op& op = *work.desc;
  if (op.op_class == ir::OpClass::Nop) return sim::operand_energy(work, home);
  const SystolicFeatures& c = systolic_features();
  const SystolicGemm g = systolic_gemm(params_, op.features);
  ir::EnergyBreakdown e;
  sim::OpWork moved = work; // the memory's share: a GEMM's fold traffic, split home / spill as its operands
  if (g.folds > 0) {
    const double operands = work.home_bytes + work.spill_bytes;
    moved.home_bytes = operands > 0 ? g.memory_bytes * work.home_bytes / operands : g.memory_bytes;
    moved.spill_bytes = operands > 0 ? g.memory_bytes * work.spill_bytes / operands : 0;
    e[c.systolic_mac] = g.macs * p_.mac_energy_pj * 1e-12;
    e[c.scratchpad] = (g.ifmap_sram_bytes * p_.ifmap_sram.energy_pj_per_byte +
                       g.filter_sram_bytes * p_.filter_sram.energy_pj_per_byte +
                       g.ofmap_sram_bytes * p_.ofmap_sram.energy_pj_per_byte) *
                      1e-12;
  } else {
    e[c.scratchpad] = work.home_bytes * p_.ifmap_sram.energy_pj_per_byte * 1e-12;
  }
  e[c.systolic_vector] = sim::elementwise_ops(op) * p_.vector_energy_pj_per_op * 1e-12;
  e += sim::operand_energy(moved, home);
  return e;
}

void SystolicArray::start(const sim::OpWork& work) {
  const ir::Memory& home = memory->params();
  finish_at(sim::now_ps() + sim::ns_to_ps(op_ns(work)), work, op_energy(work, home));
}

} // namespace lightsim::units
