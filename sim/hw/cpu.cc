#include "sim/hw/cpu.h"

#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"

#include <algorithm>

namespace lightsim::sim {

Cpu::Cpu(sc_core::sc_module_name name, const ir::Unit& params)
    : UnitModule(name, params), port_(params.cpu.memory_port_GBps * 1e-3) {
  SC_METHOD(serve_port);
  sensitive << port_event_;
  dont_initialize();
}

double Cpu::ops_per_ns() const {
  return params_.clock_ghz * params_.cpu.vector_width * (params_.cpu.fma ? 1.0 : 0.5) *
         params_.cpu.compute_efficiency;
}

double Cpu::compute_ns(const ir::Op& op) const {
  const double macs = op.op_class == ir::OpClass::Nop ? 0 : op.features.macs;
  return (macs + elementwise_ops(op)) / ops_per_ns();
}

double Cpu::port_ns(double bytes) const {
  return bytes / params_.cpu.memory_port_GBps;
}

double Cpu::op_ns(const OpWork& work_in) const {
  const OpWork work = memory_traffic(work_in, params_);
  return std::max(compute_ns(*work.desc), port_ns(work.home_bytes)) + params_.cpu.dispatch_ns +
         spill_ns(work);
}

void Cpu::start(const OpWork& work_in) {
  const OpWork work = memory_traffic(work_in, params_);
  const std::uint64_t now = now_ps();
  const std::uint64_t compute_end = now + ns_to_ps(compute_ns(*work.desc));
  const std::size_t slot = slots_.acquire({work, now, compute_end});
  if (work.home_bytes <= 0) {
    finish(slot, now);
    return;
  }
  settle(now);
  port_.add(slot, work.home_bytes, now);
  if (std::optional<std::uint64_t> t = port_.next_completion_ps())
    port_event_.notify(sc_core::sc_time::from_value(std::max(*t, now) - now));
}

void Cpu::settle(std::uint64_t now) {
  finished_.clear();
  port_.advance(now, finished_);
  for (std::uint64_t slot : finished_)
    finish(slot, now);
}

void Cpu::serve_port() {
  const std::uint64_t now = now_ps();
  settle(now);
  if (std::optional<std::uint64_t> t = port_.next_completion_ps())
    port_event_.notify(sc_core::sc_time::from_value(std::max(*t, now) - now));
}

void Cpu::finish(std::size_t slot, std::uint64_t port_done_ps) {
  const InFlight& f = slots_[slot];
  const std::uint64_t end = std::max(f.compute_end_ps, port_done_ps) + ns_to_ps(params_.cpu.dispatch_ns) +
                            ns_to_ps(spill_ns(f.work));
  const double energy =
      params_.dynamic_power_w * ps_to_s(end - f.start_ps) + operand_energy_j(f.work, memory->params());
  const OpWork work = f.work;
  slots_.release(slot);
  finish_at(end, work, energy);
}

} // namespace lightsim::sim
