#include "sim/units/cpu/cpu_module.h"

#include "sim/hw/memory.h"
#include "sim/hw/sim_time.h"

#include <algorithm>
#include <limits>

namespace lightsim::units {

using sim::now_ps;
using sim::ns_to_ps;
using sim::OpWork;
namespace {

// A flow's token: the op's slot and which of its cores.
constexpr std::uint64_t kCoreBits = 16;

} // namespace

Cpu::Cpu(sc_core::sc_module_name name, const ir::Unit& params) : UnitModule(name, params) {
  // A shared port per level that has a shared rate (caches with shared_GBps, and the memory port).
  for (const CpuLevel& level : cpu_levels(params)) {
    ports_.emplace_back();
    if (level.shared_GBps > 0) ports_.back().emplace(level.shared_GBps * 1e-3, level.core_GBps * 1e-3);
  }
  SC_METHOD(serve_ports);
  sensitive << port_event_;
  dont_initialize();
}

CpuWork Cpu::work_of(const OpWork& work) const {
  return cpu_work(params_, work.desc->features, work.home_bytes);
}

double Cpu::compute_ns(const OpWork& work) const {
  return cpu_compute_ns(params_, *work.desc, work_of(work));
}

double Cpu::op_ns(const OpWork& work_in) const {
  const OpWork work = sim::memory_traffic(work_in, params_);
  return cpu_alone_ns(params_, *work.desc, work.home_bytes) + sim::spill_ns(work);
}

ir::EnergyBreakdown Cpu::op_energy(const OpWork& work, double duration_ns, int cores) const {
  ir::EnergyBreakdown e = sim::operand_energy(work, memory->params());
  e[ir::EnergyComponent::Compute] += params_.as<CpuParams>().dynamic_power_w * duration_ns * 1e-9 * cores;
  return e;
}

void Cpu::start(const OpWork& work_in) {
  const OpWork work = sim::memory_traffic(work_in, params_);
  const std::uint64_t now = now_ps();
  InFlight f{work, work_of(work), 0, now, 0};
  f.compute_ns = cpu_compute_ns(params_, *work.desc, f.cpu);
  std::optional<sched::FairShare>& port = ports_[f.cpu.level.index];
  if (f.cpu.bytes <= 0 || !port) { // nothing to stream, or a private level: no one else to share with
    const std::size_t slot = slots_.acquire(f);
    memory_done(slot, now + ns_to_ps(f.cpu.memory_ns));
    return;
  }
  f.flows_left = f.cpu.cores;
  const std::size_t slot = slots_.acquire(f);
  settle(now);
  for (int core = 0; core < f.cpu.cores; ++core)
    port->add((static_cast<std::uint64_t>(slot) << kCoreBits) | static_cast<std::uint64_t>(core),
              f.cpu.bytes / f.cpu.cores, now);
  arm(now);
}

void Cpu::arm(std::uint64_t now) {
  std::optional<std::uint64_t> next;
  for (const auto& port : ports_)
    if (port)
      if (std::optional<std::uint64_t> t = port->next_completion_ps()) next = next ? std::min(*next, *t) : *t;
  if (next) port_event_.notify(sc_core::sc_time::from_value(std::max(*next, now) - now));
}

void Cpu::settle(std::uint64_t now) {
  for (auto& port : ports_) {
    if (!port) continue;
    finished_.clear();
    port->advance(now, finished_);
    for (std::uint64_t token : finished_) {
      const auto slot = static_cast<std::size_t>(token >> kCoreBits);
      if (--slots_[slot].flows_left == 0) memory_done(slot, now);
    }
  }
}

void Cpu::serve_ports() {
  const std::uint64_t now = now_ps();
  settle(now);
  arm(now);
}

void Cpu::memory_done(std::size_t slot, std::uint64_t at_ps) {
  const InFlight& f = slots_[slot];
  const std::uint64_t compute_ps = ns_to_ps(f.compute_ns);
  // A GEMM computes on its packed operands; other ops computed while their operands streamed.
  const std::uint64_t body_end = f.cpu.gemm ? at_ps + compute_ps : std::max(at_ps, f.start_ps + compute_ps);
  const std::uint64_t end =
      body_end + ns_to_ps(cpu_fixed_ns(params_, f.cpu)) + ns_to_ps(sim::spill_ns(f.work));
  const OpWork work = f.work;
  const ir::EnergyBreakdown energy =
      op_energy(work, static_cast<double>(end - f.start_ps) * 1e-3, f.cpu.cores);
  slots_.release(slot);
  finish_at(end, work, energy);
}

} // namespace lightsim::units
