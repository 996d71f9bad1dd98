#include "sim/hw/unit.h"

#include "ir/cost/unit_work.h"
#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"

#include <algorithm>
#include <functional>

namespace lightsim::sim {

bool has_gemm(const ir::Op& op) {
  return ir::has_gemm_view(op.features);
}

double elementwise_ops(const ir::Op& op) {
  if (op.op_class == ir::OpClass::Nop || op.op_class == ir::OpClass::Input) return 0;
  return ir::elementwise_ops(op.features);
}

OpWork memory_traffic(const OpWork& work, const ir::Unit& unit) {
  if (work.desc == nullptr || work.desc->op_class != ir::OpClass::Attention) return work;
  const double operands = work.home_bytes + work.spill_bytes;
  if (operands <= 0) return work;
  const double traffic = ir::operand_bytes(unit, work.desc->features);
  OpWork moved = work;
  moved.home_bytes = traffic * work.home_bytes / operands;
  moved.spill_bytes = traffic * work.spill_bytes / operands;
  return moved;
}

double spill_ns(const OpWork& work) {
  return work.spill_bytes > 0 && work.spill ? access_ns(*work.spill, work.spill_bytes) : 0;
}

ir::EnergyBreakdown operand_energy(const OpWork& work, const ir::Memory& home) {
  ir::EnergyBreakdown e;
  e[ir::memory_component(home.kind)] += work.home_bytes * home.energy_pj_per_byte * 1e-12;
  if (work.spill)
    e[ir::memory_component(work.spill->kind)] += work.spill_bytes * work.spill->energy_pj_per_byte * 1e-12;
  return e;
}

UnitModule::UnitModule(sc_core::sc_module_name name, const ir::Unit& params)
    : sc_core::sc_module(name), target("target"), done("done"), memory("memory"), params_(params) {
  target.bind(*this);
  SC_METHOD(complete);
  sensitive << complete_event_;
  dont_initialize();
}

void UnitModule::finish_at(std::uint64_t end_ps, const OpWork& work, const ir::EnergyBreakdown& energy) {
  const std::uint64_t now = now_ps();
  heap_.push_back({std::max(end_ps, now), seq_++, work.op, work.lane, energies_.acquire(energy)});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  complete_event_.notify(sc_core::sc_time::from_value(heap_.front().end_ps - now));
}

void UnitModule::complete() {
  const std::uint64_t now = now_ps();
  while (!heap_.empty() && heap_.front().end_ps <= now) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const Pending p = heap_.back();
    heap_.pop_back();
    const ir::EnergyBreakdown energy = energies_[p.energy]; // op_done may start ops that take the slot
    energies_.release(p.energy);
    done->op_done(p.op, p.lane, energy);
  }
  if (!heap_.empty()) complete_event_.notify(sc_core::sc_time::from_value(heap_.front().end_ps - now));
}

} // namespace lightsim::sim
